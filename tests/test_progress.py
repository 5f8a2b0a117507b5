"""The progress bars of ``bench certify`` fit an 80-column terminal, and a stream that stops early leaves no bar."""

from __future__ import annotations

import ast
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from fixtures.progress import LABEL_WIDTH, RunProgress, StreamProgress

ROOT = Path(__file__).resolve().parents[1]


def _frame(run: RunProgress, width: int = 80) -> list[str]:
    """The bars as the terminal shows them now, at ``width`` columns."""
    out = io.StringIO()
    Console(file=out, width=width, force_terminal=False, color_system=None).print(run.progress.get_renderable())
    return out.getvalue().splitlines()


def test_bars_fit_80_columns_with_label_count_elapsed_and_eta() -> None:
    run = RunProgress(io.StringIO(), width=80)
    run.tests(148)
    for _ in range(21):
        run.test_done()
    stream = StreamProgress(run, "RNG 4 KiB blocks", 12_500, 9_999)
    stream.advance()
    lines = _frame(run)
    assert len(lines) == 2 and all(len(line) <= 80 for line in lines), lines
    tests, blocks = lines
    assert tests.startswith("tests ") and "21/148" in tests
    assert blocks.startswith("RNG 4 KiB blocks") and "10000/12500" in blocks
    for line in lines:
        assert "…" not in line and re.search(r"\d:\d\d:\d\d ETA (\d:\d\d:\d\d|-:--:--)$", line.rstrip()), line


def test_every_suite_stream_label_fits_its_column() -> None:
    """The description a suite gives its stream's bar is a literal short enough for the label column, so it is
    never cut (a longer one would lose its end to the bar)."""
    labels: dict[str, str] = {}
    for path in sorted((ROOT / "suites").glob("test_*.py")) + [ROOT / "fixtures" / "session.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                    "stream_progress", "collect_observations"):
                position = 0 if getattr(node.func, "attr", "") == "stream_progress" else 5
                if len(node.args) > position and isinstance(node.args[position], ast.Constant):
                    labels[f"{path.name}:{node.lineno}"] = node.args[position].value
    assert len(labels) >= 12, labels  # every bar of the suites was found
    too_long = {where: label for where, label in labels.items() if len(label) > LABEL_WIDTH}
    assert not too_long, too_long


def test_a_sequential_stream_that_stops_early_leaves_one_line_and_no_bar() -> None:
    out = io.StringIO()
    run = RunProgress(out, width=80, force_terminal=True)
    run.start()
    run.tests(7)
    with StreamProgress(run, "spins", 3700, 0) as spins:
        for _ in range(1234):
            spins.advance()
        spins.finish("the sequential test decided")
    assert [task.description for task in run.progress.tasks] == ["tests"]
    run.test_done()
    run.stop()
    [last] = [line for line in _frame(run) if line.strip()]  # the picture left on the terminal: the tests' bar
    assert last.startswith("tests") and "7/7" not in last and "1/7" in last
    assert "spins: 1,234 of at most 3,700 (the sequential test decided)" in out.getvalue()


def test_a_complete_stream_removes_its_bar_silently_and_an_error_says_so() -> None:
    out = io.StringIO()
    run = RunProgress(out, width=80, force_terminal=True)
    run.start()
    run.tests(2)
    complete = StreamProgress(run, "dice throws", 3, 0)
    for _ in range(3):
        complete.advance()
    assert [task.description for task in run.progress.tasks] == ["tests"]
    try:
        with StreamProgress(run, "shuffles", 10, 4) as shuffles:
            shuffles.advance()
            raise RuntimeError("shuffler lost")
    except RuntimeError:
        pass
    run.stop()
    assert [task.description for task in run.progress.tasks] == ["tests"]
    text = out.getvalue()
    assert "dice throws:" not in text and "shuffles: 5 of at most 10 (stopped by an error)" in text


def test_without_a_display_progress_calls_do_nothing() -> None:
    stream = StreamProgress(None, "spins", 10, 0)
    stream.advance(3)
    stream.finish("decided")
    assert stream.completed == 3


@pytest.mark.slow(seconds=30)
def test_a_roulette_run_whose_sequential_test_decides_early_leaves_no_spins_bar(tmp_path: Path) -> None:
    """The biased wheel's sequential test rejects long before the cap of 3,700 spins: the run's progress says so
    in one line and its last picture holds the tests' bar only."""
    environment = {**os.environ, "COLUMNS": "80"}
    result = subprocess.run([str(Path(sys.executable).with_name("bench")), "certify", "--profile", "sim-biased-wheel",
                             "--suite", "roulette", "--no-pdf", "--out", str(tmp_path / "run")],
                            capture_output=True, text=True, timeout=600, check=False, env=environment)
    assert result.returncode == 1, result.stdout + result.stderr
    progress = result.stderr.splitlines()
    assert all(len(line) <= 80 for line in progress), progress
    [decided] = [line for line in progress if line.startswith("spins:")]
    assert re.fullmatch(r"spins: [\d,]+ of at most 3,700 \(the sequential test decided\)", decided), decided
    bars = [line for line in progress if re.search(r"\d+/\d+ ", line)]
    assert bars and bars[-1].startswith("tests ") and "7/7" in bars[-1]
    assert not any(line.startswith("spins ") for line in bars)  # no spins bar in the picture the run leaves
