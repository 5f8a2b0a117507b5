"""How long each suite of a run took, from the journal's test rows.

A suite's time runs from the start of its first test to the end of its last one, so the
observations its module-scoped fixtures collect (spins, throws, shuffles) are counted
with it. A resumed run counts each session's time once: only the test rows of the
attempts that finished are used, and time between sessions is not counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bench.journal import Journal


@dataclass(frozen=True)
class SuiteTime:
    """One suite's share of a run."""

    suite: str
    tests: int
    seconds: float


def suite_times(journal: Journal) -> list[SuiteTime]:
    """Per-suite wall time and number of tests, in the order the suites ran."""
    spans: dict[str, list[tuple[datetime, datetime]]] = {}
    counts: dict[str, set[str]] = {}
    started: dict[tuple[str, int], datetime] = {}
    for row in journal.rows("tests"):
        suite = row["nodeid"].split("::", 1)[0]
        at = datetime.fromisoformat(row["at"])
        if row["phase"] == "start":
            started[(row["nodeid"], row["attempt"])] = at
        elif row["phase"] == "final" and (row["nodeid"], row["attempt"]) in started:
            spans.setdefault(suite, []).append((started[(row["nodeid"], row["attempt"])], at))
            counts.setdefault(suite, set()).add(row["nodeid"])
    return [SuiteTime(suite, len(counts[suite]), _covered_seconds(intervals)) for suite, intervals in spans.items()]


def _covered_seconds(intervals: list[tuple[datetime, datetime]]) -> float:
    """Total length of the union of the intervals (tests of one suite never overlap, but be exact)."""
    total = 0.0
    end: datetime | None = None
    for start, stop in sorted(intervals):
        if end is None or start > end:
            total += (stop - start).total_seconds()
            end = stop
        elif stop > end:
            total += (stop - end).total_seconds()
            end = stop
    return total
