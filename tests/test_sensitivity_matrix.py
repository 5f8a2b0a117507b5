"""The sensitivity matrix as tests: each fault fails exactly its clauses, everything else passes.

Every row certifies its profile's suite in a subprocess with the sample sizes the profile sets and
fixed simulator seeds, so each run is deterministic. The error rates behind each verdict are those of
the suites (stated in their measurements: α per family with Holm, and the power against the
injected alternative); with the seeds fixed, a row can only change verdict when the code changes.
The runs go two at a time (one per core), each in its own run directory.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from bench.profiles import load_profile
from bench.sensitivity import MATRIX, FaultRow, RowRun, run_row


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future[RowRun]]]:
    """Every row's certification, started at once on two workers; a test waits for its own."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield {row.profile: pool.submit(run_row, row, tmp_path_factory.mktemp(row.profile) / "run") for row in MATRIX}


@pytest.mark.parametrize("row", MATRIX, ids=[row.profile for row in MATRIX])
def test_each_fault_fails_exactly_its_clauses(row: FaultRow, runs: dict[str, Future[RowRun]]) -> None:
    run = runs[row.profile].result(timeout=1800)
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
