"""The bench's pytest plugin: clause markers, measurements, verdicts, attachments, journal rows."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

SUITE_HEADER = "import pytest\n"


def run_suite(pytester: pytest.Pytester, source: str, evidence: Path, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_suite=SUITE_HEADER + source)
    return pytester.runpytest_subprocess("-p", "fixtures.plugin", "--evidence", str(evidence), "-p", "no:cacheprovider", *args)


def journal_rows(evidence: Path, query: str) -> list[tuple]:
    with sqlite3.connect(evidence / "journal.sqlite") as db:
        return db.execute(query).fetchall()


def test_unknown_clause_id_is_a_collection_error_naming_test_and_id(pytester: pytest.Pytester, tmp_path: Path) -> None:
    result = run_suite(
        pytester,
        '@pytest.mark.clause("p217-2007/roleta-francesa/999")\ndef test_wheel(measure):\n    pass\n',
        tmp_path / "run",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_suite.py::test_wheel: unknown clause id 'p217-2007/roleta-francesa/999'*"])


def test_malformed_clause_id_is_refused(pytester: pytest.Pytester, tmp_path: Path) -> None:
    result = run_suite(pytester, '@pytest.mark.clause("Roleta Francesa 2")\ndef test_x(measure):\n    pass\n', tmp_path / "r")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_x: malformed clause id 'Roleta Francesa 2'*"])


def test_verdict_follows_measurements(pytester: pytest.Pytester, tmp_path: Path) -> None:
    evidence = tmp_path / "run"
    result = run_suite(
        pytester,
        """
@pytest.mark.clause("p217-2007/roleta-francesa/3")
def test_within_limits(measure):
    measure("wheel diameter", 55.0, unit="cm", low=50, high=60)

@pytest.mark.clause("p217-2007/roleta-francesa/3")
def test_out_of_limits(measure):
    measure("wheel diameter", 61.5, unit="cm", low=50, high=60)
    measure("rim height", 3.0, unit="cm", low=1)

@pytest.mark.clause("p217-2007/roleta-francesa/3")
def test_without_evidence(measure):
    assert True

@pytest.mark.clause("p217-2007/roleta-francesa/5", "p217-2007/roleta-francesa/9")
def test_statistical(measure):
    measure("chi-square", 40.1, p_value=0.29, alpha=0.01, clauses=["p217-2007/roleta-francesa/5"],
            sample_size=3700, power=0.97, method="Pearson")
""",
        evidence,
    )
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*measurement failed: wheel diameter = 61.5 cm (limit ?50, 60?): FAIL*"])
    result.stdout.fnmatch_lines(["*test_without_evidence recorded no measurement*"])
    finals = dict(journal_rows(evidence, "SELECT nodeid, outcome FROM tests WHERE phase = 'final'"))
    assert finals == {
        "test_suite.py::test_within_limits": "passed",
        "test_suite.py::test_out_of_limits": "failed",
        "test_suite.py::test_without_evidence": "error",
        "test_suite.py::test_statistical": "passed",
    }
    rows = journal_rows(evidence, "SELECT name, passed, clauses, p_value, alpha, sample_size, power FROM measurements ORDER BY seq")
    assert rows == [
        ("wheel diameter", 1, '["p217-2007/roleta-francesa/3"]', None, None, None, None),
        ("wheel diameter", 0, '["p217-2007/roleta-francesa/3"]', None, None, None, None),
        ("rim height", 1, '["p217-2007/roleta-francesa/3"]', None, None, None, None),
        ("chi-square", 1, '["p217-2007/roleta-francesa/5"]', 0.29, 0.01, 3700, 0.97),
    ]


def test_measurement_may_only_cite_the_tests_clauses(pytester: pytest.Pytester, tmp_path: Path) -> None:
    result = run_suite(
        pytester,
        '@pytest.mark.clause("p217-2007/roleta-francesa/3")\n'
        'def test_x(measure):\n    measure("d", 1, low=0, clauses=["p217-2007/roleta-francesa/9"])\n',
        tmp_path / "run",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cites ?'p217-2007/roleta-francesa/9'?, which the test's clause marker does not list*"])


def test_measure_takes_the_models_fields_and_journals_the_typed_series(pytester: pytest.Pytester,
                                                                     tmp_path: Path) -> None:
    evidence = tmp_path / "run"
    result = run_suite(
        pytester,
        """
from bench.evidence import PocketCounts

@pytest.mark.clause("p217-2007/roleta-francesa/5")
def test_series(measure):
    measure("pockets", 3.5, p_value=0.5, alpha=0.01, series=[PocketCounts(counts=[(0, 4), (32, 2), (15, 3)])])

@pytest.mark.clause("p217-2007/roleta-francesa/5")
def test_unknown_field(measure):
    measure("pockets", 3.5, p_value=0.5, alpha=0.01, colour="red")

@pytest.mark.clause("p217-2007/roleta-francesa/5")
def test_bad_field(measure):
    measure("pockets", 3.5, p_value=0.5, alpha=0.01, sample_size="many")
""",
        evidence,
    )
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*unexpected keyword argument(s) ?'colour'?*"])
    result.stdout.fnmatch_lines(["*validation error for Measurement*", "E *sample_size"])
    [(series,)] = journal_rows(evidence, "SELECT series FROM measurements")
    assert series == '[{"counts":[[0,4],[32,2],[15,3]],"kind":"pockets"}]'  # the wheel's order, kept
    assert journal_rows(evidence, "SELECT value FROM meta WHERE key = 'schema_version'") == [("2",)]


def test_attachments_are_content_addressed_and_journaled(pytester: pytest.Pytester, tmp_path: Path) -> None:
    evidence = tmp_path / "run"
    result = run_suite(
        pytester,
        """
@pytest.mark.clause("p217-2007/roleta-francesa/3")
def test_frame(measure, attach):
    first = attach(b"frame bytes", "frame 1", "image/png", suffix=".png")
    second = attach(b"frame bytes", "same frame again", "image/png", suffix=".png")
    assert first == second
    measure("frames stored", 2, expected=2)
""",
        evidence,
    )
    result.assert_outcomes(passed=1)
    digest = hashlib.sha256(b"frame bytes").hexdigest()
    stored = evidence / "attachments" / digest[:2] / f"{digest}.png"
    assert stored.read_bytes() == b"frame bytes"
    rows = journal_rows(evidence, "SELECT name, sha256, size, path FROM attachments ORDER BY seq")
    assert rows == [
        ("frame 1", digest, 11, f"attachments/{digest[:2]}/{digest}.png"),
        ("same frame again", digest, 11, f"attachments/{digest[:2]}/{digest}.png"),
    ]


def test_tests_without_clause_markers_open_no_run(pytester: pytest.Pytester, tmp_path: Path) -> None:
    evidence = tmp_path / "run"
    result = run_suite(pytester, "def test_plain():\n    assert 1 + 1 == 2\n", evidence)
    result.assert_outcomes(passed=1)
    assert not evidence.exists()


def test_profile_errors_stop_the_run(pytester: pytest.Pytester, tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "bad"\n[equipment.wheel]\nkind = "roulette-wheel"\n'
                   'identity = { manufacturer = "A", model = "B", serial = "C" }\n'
                   'options = { layout = "octagonal" }\nsimulator = {}\n')
    result = run_suite(
        pytester,
        '@pytest.mark.clause("p217-2007/roleta-francesa/3")\ndef test_x(measure):\n    measure("d", 1, low=0)\n',
        tmp_path / "run",
        "--profile",
        str(bad),
    )
    assert result.ret != 0
    output = result.stdout.str() + result.stderr.str()
    assert "equipment.wheel.options.layout" in output and str(bad) in output


def test_tests_needing_equipment_the_profile_lacks_are_deselected_not_skipped(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    evidence = tmp_path / "run"
    result = run_suite(
        pytester,
        """
@pytest.mark.equipment("roulette-wheel")
@pytest.mark.clause("p217-2007/roleta-francesa/3")
def test_wheel(measure):
    measure("wheel diameter", 55.0, unit="cm", low=50, high=60)

@pytest.mark.equipment("card-shoe")
@pytest.mark.clause("p217-2007/blackjack/53")
def test_shoe(measure):
    measure("decks in the shoe", 6, expected=6)
""",
        evidence,
    )
    result.assert_outcomes(passed=1, deselected=1)  # the built-in sim profile has a wheel, no card shoe
    nodeids = {row[0] for row in journal_rows(evidence, "select nodeid from tests")}
    assert nodeids == {"test_suite.py::test_wheel"}
