"""The sensitivity matrix as tests: each fault fails exactly its clauses, everything else passes.

Every row certifies its profile's suite in a subprocess with the sample sizes the profile sets and
fixed simulator seeds, so each run is deterministic. The error rates behind each verdict are those of
the suites (stated in their measurements: α per family with Holm, and the power against the
injected alternative); with the seeds fixed, a row can only change verdict when the code changes.
Each row's run is made once per test session, when its test first needs it, and shared with the suite tests
that certify the same profile (``tests/suite_runs.py``).
"""

from __future__ import annotations

import pytest
from suite_runs import SessionRuns

from bench.profiles import load_profile
from bench.sensitivity import MATRIX, FaultRow, judge_run


@pytest.mark.slow(seconds=30)
@pytest.mark.parametrize("row", MATRIX, ids=[row.profile for row in MATRIX])
def test_each_fault_fails_exactly_its_clauses(row: FaultRow, session_runs: SessionRuns) -> None:
    finished = session_runs.run(row.suite, row.profile)
    run = judge_run(row, finished.run_dir, finished.code, finished.output, finished.seconds)
    assert run.failed() == set(row.must_fail), (row.fault, run.verdicts)
    assert run.others_pass(row), (row.fault, run.verdicts)
    assert run.exit_code == 1


def test_every_row_names_a_loadable_profile_with_one_fault_family() -> None:
    seen = set()
    for row in MATRIX:
        profile, _, _ = load_profile(row.profile)
        assert row.must_fail, row.fault
        assert row.profile not in seen, f"{row.profile} appears twice"
        seen.add(row.profile)
        assert profile.name == row.profile
