"""Per-suite times from the journal: from each test's start to its end, suites apart, resumed attempts once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bench.journal import Journal
from bench.suite_times import suite_times

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _test(journal: Journal, nodeid: str, attempt: int, start_s: float, end_s: float | None) -> None:
    journal.append("tests", run_id="r", at=(T0 + timedelta(seconds=start_s)).isoformat(), nodeid=nodeid,
                   attempt=attempt, phase="start", outcome="started", duration_s=0.0, clauses=[], message="")
    if end_s is not None:
        journal.append("tests", run_id="r", at=(T0 + timedelta(seconds=end_s)).isoformat(), nodeid=nodeid,
                       attempt=attempt, phase="final", outcome="passed", duration_s=end_s - start_s, clauses=[],
                       message="")


def test_suite_times_sum_each_suites_tests_and_skip_unfinished_attempts(tmp_path: Path) -> None:
    with Journal(tmp_path / "journal.sqlite") as journal:
        _test(journal, "suites/test_dice.py::a", 1, 0, 70)
        _test(journal, "suites/test_dice.py::b", 1, 70, 71)
        _test(journal, "suites/test_rng.py::a", 1, 71, 100)  # killed here: attempt 1 never finished
        _test(journal, "suites/test_roulette.py::a", 1, 101, None)
        _test(journal, "suites/test_roulette.py::a", 2, 500, 760)  # the resumed session
        times = {item.suite: item for item in suite_times(journal)}
    assert times["suites/test_dice.py"].tests == 2
    assert times["suites/test_dice.py"].seconds == pytest.approx(71.0)
    assert times["suites/test_rng.py"].seconds == pytest.approx(29.0)
    assert times["suites/test_roulette.py"].seconds == pytest.approx(260.0)  # not the 399 s between sessions
    assert list(times) == ["suites/test_dice.py", "suites/test_rng.py", "suites/test_roulette.py"]
