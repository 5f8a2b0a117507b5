"""The ``bench`` command line in an 80-column terminal: help, listings, version, completion, the end of a run."""

from __future__ import annotations

import io
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from bench import __version__
from bench.cli import app
from bench.cli_help import plain_type, suite_names
from bench.cli_summary import print_verdicts
from bench.sensitivity import FAIR, MATRIX
from reports.clause_verdicts import ERROR, FAIL, INCOMPLETE, NOT_TESTED, PASS, ClauseVerdict

BENCH = str(Path(sys.executable).with_name("bench"))
WIDTH = 80
runner = CliRunner()


def at_80_columns(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``bench ARGS`` as a terminal of 80 columns would run it (rich reads COLUMNS)."""
    environment = {**os.environ, "COLUMNS": str(WIDTH), "TERM": "dumb", **(env or {})}
    return subprocess.run([BENCH, *args], check=False, capture_output=True, text=True, timeout=300, env=environment)


def assert_fits(text: str) -> None:
    """No line wider than the terminal, and nothing cut with an ellipsis (rich cuts a squeezed cell as
    ``suites/te…``; an ellipsis a regulation's text quotes stands apart: «total de € …»)."""
    wide = [line for line in text.splitlines() if len(line) > WIDTH]
    assert not wide, wide[:5]
    cut = [line for line in text.splitlines() if re.search(r"\S…", line)]
    assert not cut, cut[:5]


def _commands(command: typer.core.TyperGroup | typer.core.TyperCommand, path: list[str]) -> list[list[str]]:
    found = [path]
    for name, sub in getattr(command, "commands", {}).items():
        found += _commands(sub, [*path, name])
    return found


COMMANDS = _commands(typer.main.get_command(app), [])


@pytest.mark.parametrize("command", COMMANDS, ids=lambda path: " ".join(path) or "bench")
def test_help_reads_plainly_at_80_columns(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": str(WIDTH)}, terminal_width=WIDTH)
    assert result.exit_code == 0, result.output
    assert_fits(result.output)
    for metavar in ("<bool>", "<str>", "<path>", "<int>", "<float>", "list["):  # typer's type labels
        assert metavar not in result.output
    assert not re.search(r"\{[a-z_]+\}", result.output)  # a required argument written {run_dir}
    assert "``" not in result.output  # docstring markup shown raw
    lines = [line.strip() for line in result.output.splitlines() if not line.startswith(("│", "╭", "╰"))]
    # a paragraph of the description is reflowed to the width, not broken where the docstring's source lines ended
    short = [line for line, after in itertools.pairwise(lines)
             if 0 < len(line) < 40 and after and after[0].islower() and not line.endswith((".", ":", ")"))]
    assert not short, short


def test_suite_option_lists_its_choices_and_arguments_read_as_names() -> None:
    certify = runner.invoke(app, ["certify", "--help"], terminal_width=WIDTH).output
    flat = " ".join(certify.split())
    for name in suite_names():
        assert name in flat
    assert {"roulette", "dice", "rng", "slot"} <= set(suite_names())
    report = runner.invoke(app, ["report", "--help"], prog_name="bench", terminal_width=WIDTH).output
    assert "Usage: bench report [OPTIONS] RUN_DIR" in report
    assert plain_type("<list[str]>") == "TEXT" and plain_type("<path>") == "PATH" and plain_type("<a|b>") == "[a|b]"


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"bench {__version__}"


def test_shell_completion_offers_suites_and_profiles() -> None:
    def complete(words: str) -> list[str]:
        result = at_80_columns(env={"_BENCH_COMPLETE": "complete_bash", "COMP_WORDS": words,
                                    "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))})
        assert result.returncode == 0, result.stderr
        return result.stdout.split()

    assert complete("bench certify --suite rou") == ["roulette"]
    assert "sim-biased-wheel" in complete("bench certify --profile sim-b")
    assert "certify" in complete("bench cer")
    shown = at_80_columns("--show-completion", "bash")
    assert shown.returncode == 0 and "_BENCH_COMPLETE=complete_bash" in shown.stdout


@pytest.mark.parametrize("args", [["clauses"], ["clauses", "--coverage"], ["profiles"]], ids=" ".join)
def test_listings_fit_80_columns_with_every_name_whole(args: list[str]) -> None:
    result = at_80_columns(*args)
    assert result.returncode == 0, result.stderr
    assert_fits(result.stdout)
    words = set(result.stdout.split())
    if args[0] == "clauses":
        ids = [clause["id"] for clause in json.loads(at_80_columns(*args, "--json").stdout)["clauses"]]
        assert ids and all(clause_id in words for clause_id in ids)
    if args == ["clauses", "--coverage"]:
        assert "roulette: Wheel numbering" in result.stdout and "suites/te" not in result.stdout


def test_profiles_list_sim_first_and_say_which_must_fail() -> None:
    result = at_80_columns("profiles")
    heads = [line for line in result.stdout.splitlines() if line and not line.startswith(" ")]
    assert heads[0].split()[0] == FAIR.profile == "sim" and "expected to PASS" in heads[0]
    by_name = {line.split()[0]: line for line in heads}
    for row in MATRIX:
        assert f"expected to FAIL {len(row.must_fail)} clause(s)" in by_name[row.profile], by_name[row.profile]
    assert "expected" not in by_name["sim-camera"]  # no row of the matrix: no claim
    flat = " ".join(result.stdout.split())
    assert "fails p217-2007/roleta-francesa/5, 9" in flat  # the biased wheel's two clauses


def test_an_unknown_profile_suggests_the_nearest() -> None:
    result = at_80_columns("certify", "--no-progress", "--profile", "sim-loded-dice")
    assert result.returncode == 2
    assert "did you mean 'sim-loaded-dice'?" in " ".join((result.stdout + result.stderr).split())


def test_rng_nist_tables_fit_80_columns(tmp_path: Path) -> None:
    sample = tmp_path / "bits.bin"
    sample.write_bytes(np.random.default_rng(4).integers(0, 256, 125_000, dtype=np.uint8).tobytes())
    one = at_80_columns("rng", "nist", str(sample))
    assert one.returncode in (0, 1), one.stderr
    assert_fits(one.stdout)
    assert "discrete_fourier_transform" in one.stdout and "random_excursions_variant" in one.stdout
    assert "n/a [1]" in one.stdout and re.search(r"^\[1\] 2\.14 random_excursions: ", one.stdout, re.MULTILINE)
    second = at_80_columns("rng", "nist", str(sample), "--length", "100000", "--sequences", "10")
    assert second.returncode in (0, 1), second.stderr
    assert_fits(second.stdout)
    assert "NIST interval" in second.stdout and "approximate_entropy" in second.stdout


LONG = "srij-803-2015/poquer-sem-descarte/25"


def _verdicts() -> list[ClauseVerdict]:
    failed = {"name": "sector fairness, sequential test", "value": "reject H0", "unit": None, "p_value": 0.00012,
              "passed": False}
    passed = {"name": "pocket count", "value": 37, "unit": "pockets", "p_value": None, "passed": True}
    test = {"nodeid": "suites/test_x.py::test_y", "outcome": "passed"}
    return [
        ClauseVerdict("p217-2007/roleta-francesa/2", PASS, measurements=[passed], tests=[test]),
        ClauseVerdict("p217-2007/roleta-francesa/5", FAIL, "sector fairness, sequential test",
                      measurements=[failed, passed], tests=[test]),
        ClauseVerdict(LONG, INCOMPLETE, "suites/test_gaming_tables.py::test_poquer_sem_descarte_settlements did "
                      "not finish (the run was interrupted or killed before it ended)", tests=[test]),
        ClauseVerdict("p217-2007/blackjack/53", ERROR, "SerialException: device reports readiness to read but "
                      "returned no data (device disconnected or multiple access on port?)", tests=[test]),
        ClauseVerdict("p217-2007/roleta-americana/2", NOT_TESTED, "out of scope", tests=[test]),
        ClauseVerdict("p217-2007/roleta-francesa/4", NOT_TESTED, "no suite test of this bench cites it yet"),
    ]


def _summary(verbose: bool) -> str:
    out = io.StringIO()
    print_verdicts(Console(file=out, width=WIDTH, soft_wrap=True, color_system=None), _verdicts(),
                   Path("runs/x"), verbose=verbose)
    return out.getvalue()


def test_a_run_ends_with_one_overall_line_then_only_the_clauses_needing_attention() -> None:
    text = _summary(verbose=False)
    lines = text.splitlines()
    assert lines[0] == "Overall result: FAIL (1 PASS, 1 FAIL, 1 ERROR, 1 INCOMPLETE, 2 NOT TESTED)"
    rows = lines[1:]
    assert_fits(text)
    starts = [line.split()[0] for line in rows if line and not line.startswith(" ")]
    assert starts == ["p217-2007/roleta-francesa/5", LONG, "p217-2007/blackjack/53"]  # FAIL, INCOMPLETE, ERROR
    assert "roleta-francesa/2" not in text and "roleta-americana" not in text  # PASS and NOT TESTED: counted only
    assert "sector fairness, sequential test = reject H0, p = 0.00012" in " ".join(text.split())
    assert "suites/test_gaming_tables.py::test_poquer_sem_descarte_settlements did not" in text  # a test id whole
    assert "SerialException" in text and "resume" not in text


def test_an_incomplete_run_says_how_to_complete_it() -> None:
    verdicts = [verdict for verdict in _verdicts() if verdict.verdict != FAIL and verdict.verdict != ERROR]
    out = io.StringIO()
    print_verdicts(Console(file=out, width=WIDTH, soft_wrap=True, color_system=None), verdicts, Path("runs/x"))
    lines = out.getvalue().splitlines()
    assert lines[0] == "Overall result: INCOMPLETE (1 PASS, 1 INCOMPLETE, 2 NOT TESTED)"
    assert "`bench certify --resume runs/x` completes it" in " ".join(" ".join(lines[1:3]).split())


def test_verbose_prints_every_judged_clause_before_the_overall_line() -> None:
    text = _summary(verbose=True)
    overall = next(index for index, line in enumerate(text.splitlines()) if line.startswith("Overall result:"))
    table = "\n".join(text.splitlines()[:overall])
    for clause in ("p217-2007/roleta-francesa/2", "p217-2007/roleta-francesa/5", LONG, "p217-2007/roleta-americana/2"):
        assert clause in table
    assert "1 bench clause(s) of this equipment are not covered" in table
    assert_fits(table)


def test_the_signed_line_of_a_run_fits_80_columns_with_the_whole_fingerprint() -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from bench.certify import signed_lines
    from reports.manifest import SignedManifest
    from reports.signing import fingerprint

    key = fingerprint(Ed25519PrivateKey.generate().public_key())
    signed = SignedManifest(Path("runs/sim-20261127T124953.830784Z/manifest.json"), Path("manifest.sig"), 1041,
                            6379, "0" * 64, key)
    out = io.StringIO()
    console = Console(file=out, width=WIDTH, soft_wrap=True, color_system=None)
    for line in signed_lines(signed):
        console.print(line, highlight=False)
    text = out.getvalue()
    assert_fits(text)
    assert text.startswith("Signed: runs/sim-20261127T124953.830784Z/manifest.json\n")
    assert "1041 files, journal of 6379 rows" in text
    assert "".join(text.split("laboratory key", 1)[1].split()) == key  # the fingerprint whole, across its lines


def test_the_terminal_counts_the_clauses_as_the_certificate_does(tmp_path: Path) -> None:
    """One run: the overall line's counts per verdict and outside the run are the certificate's first page's."""
    from test_report_journal import build_run

    from bench.catalogue import load_catalogue
    from reports.certificate import write_certificates
    from reports.clause_verdicts import verdicts_of_run

    run = build_run(tmp_path / "run", biased=True)
    catalogue = load_catalogue()
    written = write_certificates(run, catalogue=catalogue, pdf=False, allure=False)
    page = re.sub(r"<[^>]+>", " ", (run / "report.en.html").read_text(encoding="utf-8"))
    page = " ".join(page.split())
    shown = {verdict: int(count) for verdict, count in re.findall(
        r"(PASS|FAIL|ERROR|INCOMPLETE|ATTESTED|NOT TESTED): (\d+)", page.split("Clauses examined, by verdict:")[1]
        .split("Findings")[0])}
    outside = int(re.search(r"Not examined: (\d+) catalogued clauses", page).group(1))

    out = io.StringIO()
    verdicts = verdicts_of_run(run, catalogue)
    print_verdicts(Console(file=out, width=WIDTH, soft_wrap=True, color_system=None), verdicts, run,
                   scope=written.scope)
    lines = out.getvalue().splitlines()
    assert lines[1].startswith("    ")  # too wide for one line: the count outside the run goes under it
    line = " ".join(" ".join(lines[:2]).split())
    said = re.fullmatch(r"Overall result: FAIL \((.*); (\d+) clauses outside this run\)", line)
    assert said, line
    counted = {verdict: int(count) for count, verdict in (part.split(" ", 1) for part in said.group(1).split(", "))}
    assert counted == shown and int(said.group(2)) == outside
    assert sum(counted.values()) + outside == len(catalogue.clauses())  # every catalogued clause, once
    assert_fits(out.getvalue())
