"""A procedure clause is never PASS: measurements supporting it leave it NOT TESTED (or ATTESTED), one failing makes it FAIL."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.catalogue import load_catalogue
from bench.journal import Journal, utc_now
from reports.clause_verdicts import ATTESTED, FAIL, NOT_TESTED, PASS, clause_verdicts

PROCEDURE = "p217-2007/blackjack/53"
BENCH_CLAUSE = "p217-2007/blackjack/55"
NODE = "suites/test_shuffler.py::test_x"


def _journal(path: Path, *, passed: bool, attested: bool) -> Journal:
    journal = Journal(path)
    journal.append("runs", run_id="r", created_at=utc_now(), profile_name="p", profile_source="p", profile_text="",
                   software_version="0", host="h", command="c")
    journal.append("tests", run_id="r", at=utc_now(), nodeid=NODE, attempt=1, phase="final", outcome="passed",
                   duration_s=0.1, clauses=[PROCEDURE, BENCH_CLAUSE], message="")
    for clause in (PROCEDURE, BENCH_CLAUSE):
        journal.append("measurements", run_id="r", at=utc_now(), nodeid=NODE, attempt=1, name=f"m {clause}",
                       value=1 if passed else 0, unit=None, low=None, high=None, expected=1, passed=passed, clauses=[clause], method="m",
                       sample_size=40, p_value=None, alpha=None, power=None, details={})
    if attested:
        journal.append("attestations", run_id="r", at=utc_now(), clause_id=PROCEDURE, attested_by="Rui Costa",
                       attested_at=utc_now(), statement="manual pre-shuffle witnessed")
    return journal


@pytest.mark.parametrize(("passed", "attested", "procedure_verdict"), [
    (True, False, NOT_TESTED), (True, True, ATTESTED), (False, False, FAIL), (False, True, FAIL)])
def test_procedure_clause_verdicts(tmp_path: Path, passed: bool, attested: bool, procedure_verdict: str) -> None:
    with _journal(tmp_path / "journal.sqlite", passed=passed, attested=attested) as journal:
        verdicts = {verdict.clause_id: verdict for verdict in clause_verdicts(journal, load_catalogue())}
    assert verdicts[PROCEDURE].verdict == procedure_verdict
    assert verdicts[PROCEDURE].measurements  # the supporting evidence stays listed with the clause
    assert verdicts[BENCH_CLAUSE].verdict == (PASS if passed else FAIL)
    if procedure_verdict == NOT_TESTED:
        assert "no attestation recorded" in verdicts[PROCEDURE].reason
