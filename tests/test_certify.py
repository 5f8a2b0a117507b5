"""``bench certify`` end to end on the simulated rig: fair passes, biased fails, errors are errors, resume loses nothing."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest

from bench.journal import Journal
from reports.signing import init_key
from reports.verify import verify_run

BENCH = str(Path(sys.executable).with_name("bench"))


def certify(*args: str, timeout: float = 1200) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BENCH, "certify", "--no-progress", *args], capture_output=True, text=True, timeout=timeout,
                          check=False)


@pytest.mark.slow(seconds=240)
@pytest.mark.timeout(1200)  # the whole sim rig, dice read by the staged reader: about 470 s on 2 busy cores
def test_fair_simulated_rig_passes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    key = init_key(tmp_path / "keys")
    result = certify("--profile", "sim", "--out", str(run), "--key-dir", str(key.directory), "--verbose")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "".join(result.stdout.split("laboratory key", 1)[1].split()).startswith(key.fingerprint)
    assert "Time per suite" in result.stdout and "suites/test_roulette.py" in result.stdout
    verification = verify_run(run, key.public)
    assert verification.intact, verification.problems
    assert verification.files_checked > 10
    assert "p217-2007/roleta-francesa/5  PASS" in result.stdout and "FAIL" not in result.stdout  # --verbose: all
    assert f"Report: {run / 'report.html'}" in result.stdout.replace("\n", "")
    report = (run / "report.html").read_text()
    assert "p217-2007/roleta-francesa/13" in report and "PASS" in report
    english = (run / "report.en.html").read_text()  # the certificate in both languages, signed with the run
    assert "Test certificate" in english and "Certificado de ensaio" in report and key.fingerprint in english
    assert {"report.html", "report.en.html"} <= {entry["path"] for entry in
                                                   json.loads((run / "manifest.json").read_text())["files"]}
    assert (run / "report.pdf").read_bytes().startswith(b"%PDF") and (run / "report.en.pdf").is_file()
    assert any((run / "allure-results").glob("*-result.json"))
    with Journal(run / Journal.FILENAME, create=False) as journal:
        assert journal.verify_chain().intact
        run_id = journal.rows("runs")[0]["run_id"]
        [sequential] = journal.rows("measurements", "name = 'sector fairness, sequential test'")
        spins = len(journal.observations(run_id, "wheel/spins"))
        # the sequential test stopped the wheel when it accepted fairness: every spin played is journalled, no more
        assert sequential["value"] == "accept H0" and spins == sequential["details"]["spins_to_decision"] < 3700


@pytest.mark.slow(seconds=20)
def test_biased_wheel_fails_naming_the_clause(tmp_path: Path) -> None:
    result = certify("--profile", "sim-biased-wheel", "--out", str(tmp_path / "run"),
                     "--key-dir", str(tmp_path / "no-key-here"))
    assert result.returncode == 1, result.stdout + result.stderr  # an unsigned run keeps its verdict
    assert "NOT SIGNED" in result.stdout and "bench keys init" in result.stdout
    failing = [line for line in result.stdout.splitlines() if "FAIL" in line]
    assert any("p217-2007/roleta-francesa/5" in line for line in failing), result.stdout
    assert not any("roleta-francesa/2 " in line or "roleta-francesa/13" in line for line in failing)
    report = (tmp_path / "run" / "report.en.html").read_text()
    assert "FAIL: at least one clause failed" in report and 'id="plot-pockets-1"' in report
    for name, failed in (("report.pdf", "NÃO CONFORME"), ("report.en.pdf", "FAIL")):  # pages, ink, the failing clause
        document = pdfium.PdfDocument(str(tmp_path / "run" / name))
        pages = [(page.get_textpage().get_text_range(), np.asarray(page.render(scale=0.4).to_pil().convert("L")))
                 for page in document]
        document.close()
        assert len(pages) >= 2
        assert all(image.min() < 128 for _, image in pages)  # every page carries ink (no blank page)
        text = " ".join(text for text, _ in pages).replace("\r\n", " ")
        assert "p217-2007/roleta-francesa/5" in text and failed in text


def _profile(tmp_path: Path, extra: str = "", spins: int = 1500) -> Path:
    path = tmp_path / "profile.toml"
    path.write_text(
        'name = "resume-test"\n[equipment.wheel]\nkind = "roulette-wheel"\n'
        'identity = { manufacturer = "Bench Simulators", model = "RW-37", serial = "T-1" }\n'
        f'options = {{ spins = {spins} }}\n'
        f'simulator = {{ model = "fair", seed = 7, spin_time_s = 0.002{extra} }}\n'
    )
    return path


@pytest.mark.slow(seconds=20)
def test_launch_fault_fails_the_launch_clause(tmp_path: Path) -> None:
    result = certify("--profile", str(_profile(tmp_path, ', launch_fault = "co-rotation"', spins=400)),
                     "--out", str(tmp_path / "run"), "--no-pdf")
    assert result.returncode == 1
    # --no-pdf: the certificate in both languages as HTML only, and the run says how to write the PDF later
    assert {path.name for path in (tmp_path / "run").glob("report*")} == {"report.html", "report.en.html"}
    assert "bench report RUN_DIR --pdf" in result.stdout.replace("\n", "")
    failing = [line for line in result.stdout.splitlines() if "FAIL" in line]
    assert any("p217-2007/roleta-francesa/13" in line for line in failing), result.stdout


def test_profile_error_exits_2_naming_the_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[equipment.wheel]\nkind = "roulette-wheel"\n'
                   'identity = { manufacturer = "A", model = "B", serial = "C" }\n'
                   'options = { spins = 10 }\nsimulator = {}\n')
    result = certify("--profile", str(bad), "--out", str(tmp_path / "run"))
    assert result.returncode == 2
    assert "equipment.wheel.options.spins" in result.stdout and str(bad) in result.stdout


def test_existing_run_directory_is_not_overwritten(tmp_path: Path) -> None:
    run = tmp_path / "run"
    Journal(run / Journal.FILENAME).close()
    result = certify("--profile", "sim", "--out", str(run))
    assert result.returncode == 2 and "--resume" in result.stdout


def _spin_rows(run: Path) -> list[tuple[int, str, str]]:
    # closed at once: a reader left open keeps the journal's -wal/-shm beside the run, which verify flags
    with closing(sqlite3.connect(f"file:{run / Journal.FILENAME}?mode=ro", uri=True)) as db:
        return db.execute(
            "SELECT idx, value, row_hash FROM observations WHERE stream = 'wheel/spins' ORDER BY idx"
        ).fetchall()


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.slow(seconds=50)
def test_resume_after_sigkill_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    run = tmp_path / "run"
    total = 1500
    process = subprocess.Popen(
        [BENCH, "certify", "--no-progress", "--profile", str(_profile(tmp_path, spins=total)), "--out", str(run)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "the run did not reach half-way in 120 s"
        assert process.poll() is None, "the run ended before it could be killed"
        if (run / Journal.FILENAME).exists():
            try:
                if len(_spin_rows(run)) >= total // 2:
                    break
            except sqlite3.OperationalError:
                pass
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    before = _spin_rows(run)
    assert total // 2 <= len(before) < total

    # the simulator must not outlive the killed bench (PR_SET_PDEATHSIG)
    state_file = str(run.resolve() / "devices")
    deadline = time.monotonic() + 10
    while _processes_mentioning(state_file) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_mentioning(state_file) == []

    key = init_key(tmp_path / "keys")
    result = certify("--resume", str(run), "--key-dir", str(key.directory))
    assert result.returncode == 0, result.stdout + result.stderr
    assert verify_run(run, key.public).intact  # the resumed run is signed as a whole
    after = _spin_rows(run)
    assert [row[0] for row in after] == list(range(total))  # every index once
    assert after[: len(before)] == before  # nothing recorded before the kill changed or vanished
    games = [json.loads(value)["game"] for _, value, _ in after]
    assert len(set(games)) == total and games == sorted(games)  # no game recorded twice
    with Journal(run / Journal.FILENAME, create=False) as journal:
        assert journal.verify_chain().intact
        kinds = [row["kind"] for row in journal.rows("events")]
        assert "resumed" in kinds
        finals = journal.rows("tests", "phase = 'final'")
        assert sorted(row["nodeid"] for row in finals) == sorted(
            {row["nodeid"] for row in finals}
        ), "a test finished twice"
        outcomes = {row["outcome"] for row in finals}
        assert "passed" in outcomes and outcomes <= {"passed", "skipped"}  # skipped: needs a camera (none here)
        assert len(finals) == 7  # the roulette suite's tests, each once (four need a camera: skipped)


def test_resume_of_a_missing_run_is_an_error(tmp_path: Path) -> None:
    result = certify("--resume", str(tmp_path / "nothing"))
    assert result.returncode == 2 and "no journal to resume" in result.stdout
