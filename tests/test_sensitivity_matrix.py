"""The sensitivity matrix as tests (issue 6 §3): each fault fails exactly its clauses, everything else passes.

Every row certifies its profile's suite in a subprocess with the sample sizes the profile sets and
fixed simulator seeds, so each run is deterministic. The error rates behind each verdict are those of
the suites (stated in their measurements: α per family with Holm, and the power against the
injected alternative, which is ≥ 0.99 for every row here); with the seeds fixed, a row can only
change verdict when the code changes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.profiles import load_profile
from bench.sensitivity import MATRIX, FaultRow, run_row


@pytest.mark.parametrize("row", MATRIX, ids=[row.profile for row in MATRIX])
def test_each_fault_fails_exactly_its_clauses(row: FaultRow, tmp_path: Path) -> None:
    run = run_row(row, tmp_path / "run")
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
