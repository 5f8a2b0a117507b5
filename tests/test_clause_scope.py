"""Clauses of a game the run's equipment does not play are out of its scope (reports/clause_verdicts.py):
NOT TESTED with that reason, never ERROR, even when the test citing them ended in error."""

from __future__ import annotations

from pathlib import Path

from test_report_journal import build_run

from bench.catalogue import load_catalogue
from bench.journal import Journal, utc_now
from reports.clause_verdicts import ERROR, FAIL, NOT_TESTED, clause_verdicts, exit_code, run_games

RUN_ID = "report-test-1"
ERRORED_NODE = "suites/test_roulette.py::test_wheel_numbering"
FRENCH, AMERICAN = "p217-2007/roleta-francesa/2", "p217-2007/roleta-americana/2"


def _errored_test(journal: Journal, nodeid: str, clauses: list[str]) -> None:
    journal.append("tests", run_id=RUN_ID, at=utc_now(), nodeid=nodeid, attempt=1, phase="final", outcome="error",
                   duration_s=0.1, clauses=clauses, message="E   drivers.roulette.DeviceLost: no reply to LAYOUT")


def test_a_french_wheels_run_shows_american_clauses_out_of_scope_not_error(tmp_path: Path) -> None:
    catalogue = load_catalogue()
    run = build_run(tmp_path / "run")
    with Journal(run / Journal.FILENAME) as journal:
        _errored_test(journal, ERRORED_NODE, [FRENCH, "p217-2007/roleta-francesa/5", AMERICAN,
                                              "p217-2007/roleta-americana/5"])
        assert run_games(journal) == ({"roleta-francesa", "banca-francesa"},
                                      {"roleta-francesa", "roleta-americana", "banca-francesa", "craps", "cussec"})
        for applicable in (False, True):
            verdicts = {v.clause_id: v for v in clause_verdicts(journal, catalogue, ["roulette-wheel", "dice"],
                                                                applicable=applicable)}
            assert verdicts[FRENCH].verdict == ERROR  # the wheel's own game: the error stands
            american = verdicts[AMERICAN]
            assert american.verdict == NOT_TESTED, american
            assert american.reason.startswith("out of scope: a clause of roleta-americana, a game this run's")
            others = [v for v in verdicts.values() if v.clause_id.split("/")[1] in ("roleta-americana", "craps")]
            assert others and all(v.verdict == NOT_TESTED and v.reason.startswith("out of scope") for v in others)
            assert not any(v.verdict == ERROR for v in verdicts.values() if "roleta-americana" in v.clause_id)
            assert verdicts["p217-2007/roleta-francesa/5"].verdict in (ERROR, FAIL)


def test_an_error_only_on_another_games_clauses_does_not_make_the_run_error(tmp_path: Path) -> None:
    catalogue = load_catalogue()
    run = build_run(tmp_path / "run")
    with Journal(run / Journal.FILENAME) as journal:
        _errored_test(journal, "suites/test_roulette.py::test_american_only", ["p217-2007/roleta-americana/21"])
        verdicts = clause_verdicts(journal, catalogue, ["roulette-wheel", "dice"], applicable=True)
    assert {v.verdict for v in verdicts if "roleta-americana" in v.clause_id} == {NOT_TESTED}
    assert ERROR not in {v.verdict for v in verdicts} and exit_code(verdicts) != 2  # (1: the synthetic launch FAIL)
