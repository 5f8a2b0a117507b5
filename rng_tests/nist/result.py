"""The result of one NIST SP 800-22 test on one bit sequence."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rng_tests.result import _plain

DEFAULT_ALPHA = 0.01  # SP 800-22 section 1.1.5: the level of significance used by the suite


@dataclass(frozen=True)
class NistResult:
    """Outcome of one SP 800-22 test.

    A test may give several p-values (cumulative sums forward and reverse, serial's two,
    one per template, one per random-excursion state); each is keyed by a label, as the
    reference's ``finalAnalysisReport`` lists them. ``statistics`` holds the test
    statistics by the same or similar labels. ``not_applicable`` gives the reason when the
    sequence does not meet the test's preconditions (too few bits, too few cycles); the
    p-values are then empty.
    """

    test: str
    n: int
    parameters: Mapping[str, Any]
    statistics: Mapping[str, float] = field(default_factory=dict)
    p_values: Mapping[str, float] = field(default_factory=dict)
    not_applicable: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def applicable(self) -> bool:
        return self.not_applicable is None

    def passed(self, alpha: float = DEFAULT_ALPHA) -> bool | None:
        """True when every p-value is at least ``alpha``; None when not applicable."""
        if not self.applicable:
            return None
        return all(p >= alpha for p in self.p_values.values())

    @property
    def min_p_value(self) -> float | None:
        return min(self.p_values.values()) if self.p_values else None

    def to_json(self, alpha: float = DEFAULT_ALPHA) -> dict[str, Any]:
        return {
            "test": self.test,
            "n": self.n,
            "parameters": _plain(dict(self.parameters)),
            "statistics": _plain(dict(self.statistics)),
            "p_values": _plain(dict(self.p_values)),
            "passed": self.passed(alpha),
            "not_applicable": self.not_applicable,
            "notes": list(self.notes),
        }

    @classmethod
    def inapplicable(cls, test: str, n: int, parameters: Mapping[str, Any], reason: str) -> NistResult:
        return cls(test=test, n=n, parameters=dict(parameters), not_applicable=reason)
