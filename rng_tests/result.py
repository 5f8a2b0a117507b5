"""The result of one statistical test of game outcomes or RNG output.

Every fairness, integer-stream and shuffle test returns a :class:`TestResult`, so that
suites, the command line (``--json``) and the report treat them alike: the null
hypothesis, the statistic, the p-value and how it was obtained, the sample size, and
why a test could not be applied when it could not.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class TestResult:
    """One hypothesis test: H0, statistic, p-value and method.

    ``p_value`` is ``None`` exactly when ``not_applicable`` gives the reason the test
    could not be run (too few observations, a degenerate sample). ``details`` holds
    supporting figures (counts, expected counts, the arc found, ...) as plain JSON-able
    values.
    """

    __test__ = False  # not a pytest test class

    test: str
    null_hypothesis: str
    statistic: float
    p_value: float | None
    sample_size: int
    method: str
    degrees_of_freedom: float | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    not_applicable: str | None = None

    def passed(self, alpha: float) -> bool | None:
        """True when H0 is not rejected at ``alpha``; None when the test was not applicable."""
        if self.p_value is None:
            return None
        return self.p_value >= alpha

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable rendering (numpy values turned into Python ones, NaN into None)."""
        return {
            "test": self.test,
            "null_hypothesis": self.null_hypothesis,
            "statistic": _plain(self.statistic),
            "p_value": _plain(self.p_value),
            "degrees_of_freedom": _plain(self.degrees_of_freedom),
            "sample_size": int(self.sample_size),
            "method": self.method,
            "not_applicable": self.not_applicable,
            "details": _plain(dict(self.details)),
        }

    @classmethod
    def inapplicable(cls, test: str, null_hypothesis: str, sample_size: int, method: str, reason: str) -> TestResult:
        """A result for a test that could not be run on this sample, with the reason."""
        return cls(test=test, null_hypothesis=null_hypothesis, statistic=math.nan, p_value=None,
                   sample_size=sample_size, method=method, not_applicable=reason)


def _plain(value: Any) -> Any:
    """Turn numpy scalars/arrays and non-finite floats into JSON-friendly Python values."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
