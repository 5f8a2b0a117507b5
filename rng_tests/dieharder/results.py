"""Structured results of dieharder runs.

dieharder reports, per test, one or more table rows: the test's short name, ``ntup``,
``tsamples``, ``psamples``, a p-value and its own assessment PASSED / WEAK / FAILED.
The p-value is that of a Kolmogorov-Smirnov (Kuiper) test of uniformity over the
``psamples`` first-level p-values, so there is no single test statistic to record.

These types are our own (not :class:`rng_tests.result.TestResult`) because a dieharder
test has several rows, a three-way assessment with dieharder's two-sided thresholds
(not ``p >= alpha``), a re-test history, and outcomes that are neither a pass nor a
fail: a sample that ran out (not applicable) or a run that timed out (not completed).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any


class Assessment(enum.StrEnum):
    """dieharder's assessment of one row (``-W`` weak / ``-X`` fail thresholds, two-sided)."""

    PASSED = "PASSED"
    WEAK = "WEAK"
    FAILED = "FAILED"


class Status(enum.StrEnum):
    """Final status of one dieharder test (one ``-d``, optionally one ``-n`` ntuple)."""

    PASSED = "PASSED"
    FAILED = "FAILED"
    NOT_APPLICABLE = "NOT_APPLICABLE"  # a defect of the sample: exhausted, or rewound by dieharder
    NOT_COMPLETED = "NOT_COMPLETED"  # the run was stopped (timeout)
    NOT_TESTED = "NOT_TESTED"  # dieharder is not installed


@dataclass(frozen=True)
class DieharderRow:
    """One line of dieharder's result table."""

    test_name: str
    ntuple: int
    tsamples: int
    psamples: int
    p_value: float
    assessment: Assessment

    def __post_init__(self) -> None:
        if not (0.0 <= self.p_value <= 1.0) or math.isnan(self.p_value):
            raise ValueError(f"p-value {self.p_value!r} of {self.test_name} is outside [0, 1]")

    def to_json(self) -> dict[str, Any]:
        return {"test_name": self.test_name, "ntuple": self.ntuple, "tsamples": self.tsamples,
                "psamples": self.psamples, "p_value": self.p_value, "assessment": str(self.assessment)}


@dataclass(frozen=True)
class Attempt:
    """One dieharder process: its command, what it read, what it printed and how it ended.

    ``bytes_read`` is the number of sample bytes dieharder took from its stdin (exact to
    within its 4 KiB stdio read-ahead), ``None`` when dieharder read a file itself (-g 201).
    ``problem`` is None when the process completed and printed its rows.
    """

    command: tuple[str, ...]
    psamples: int
    offset: int
    bytes_read: int | None
    seconds: float
    rows: tuple[DieharderRow, ...]
    stdout: str
    stderr: str
    problem: Status | None = None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"command": list(self.command), "psamples": self.psamples, "offset": self.offset,
                "bytes_read": self.bytes_read, "seconds": round(self.seconds, 3),
                "rows": [row.to_json() for row in self.rows], "problem": None if self.problem is None
                else str(self.problem), "reason": self.reason, "stdout": self.stdout, "stderr": self.stderr}


@dataclass(frozen=True)
class DieharderTestResult:
    """The outcome of one dieharder test after WEAK resolution.

    ``rows`` are the final per-row results (a row first reported WEAK is replaced by its
    first non-WEAK re-test); ``attempts`` keep every process run, in order, as history.
    """

    number: int
    name: str
    ntuple: int | None
    status: Status
    rows: tuple[DieharderRow, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    reason: str | None = None
    reliability: str | None = None

    @property
    def passed(self) -> bool:
        return self.status is Status.PASSED

    @property
    def label(self) -> str:
        """``diehard_birthdays`` or ``rgb_bitdist[ntuple=3]``."""
        return self.name if self.ntuple is None else f"{self.name}[ntuple={self.ntuple}]"

    @property
    def bytes_read(self) -> int | None:
        """Sample bytes read over all attempts (None in file mode)."""
        counts = [attempt.bytes_read for attempt in self.attempts]
        if not counts or any(count is None for count in counts):
            return None
        return sum(count for count in counts if count is not None)

    def to_json(self) -> dict[str, Any]:
        return {"test": self.label, "number": self.number, "name": self.name, "ntuple": self.ntuple,
                "status": str(self.status), "reason": self.reason, "reliability": self.reliability,
                "bytes_read": self.bytes_read, "rows": [row.to_json() for row in self.rows],
                "attempts": [attempt.to_json() for attempt in self.attempts]}


@dataclass(frozen=True)
class DieharderRun:
    """All tests of one run and the overall verdict.

    ``verdict``: ``PASS`` only when at least one test ran and every test PASSED; ``FAIL``
    when any test FAILED; ``NOT TESTED`` when dieharder is missing; otherwise
    ``INCOMPLETE`` (some test not applicable or not completed, none failed).
    """

    results: tuple[DieharderTestResult, ...]
    binary: str | None
    version: str | None
    reason: str | None = None  # why nothing was tested (dieharder missing)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        if self.binary is None:
            return "NOT TESTED"
        statuses = [result.status for result in self.results]
        if Status.FAILED in statuses:
            return "FAIL"
        if statuses and all(status is Status.PASSED for status in statuses):
            return "PASS"
        return "INCOMPLETE"

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"

    @property
    def skip_reason(self) -> str | None:
        """The reason to turn this run into a pytest skip / NOT TESTED, or None."""
        return self.reason if self.binary is None else None

    def to_json(self) -> dict[str, Any]:
        return {"tool": "dieharder", "binary": self.binary, "version": self.version, "verdict": self.verdict,
                "passed": self.passed, "reason": self.reason, "settings": dict(self.settings),
                "results": [result.to_json() for result in self.results]}
