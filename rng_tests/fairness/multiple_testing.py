"""Multiple-testing adjustment of a family of tests: Holm's step-down (default) or Bonferroni.

A certification runs many tests on the same equipment (pockets, chances, sectors, distances,
...). Declaring a FAIL whenever any single p-value is below α would make the family-wise error
rate (the probability of failing fair equipment) grow with the number of tests. Both
adjustments below control it at α for any dependence between the tests.

* Bonferroni: adjusted pᵢ = min(1, m pᵢ).
* Holm (1979), Scand. J. Statist. 6, 65-70: sort p₍₁₎ ≤ … ≤ p₍ₘ₎; adjusted
  p̃₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1) p₍ⱼ₎). Uniformly more powerful than Bonferroni.
  These adjusted p-values are those of statsmodels' ``multipletests(method="holm")``.

A test is rejected when its adjusted p-value is below α — the convention of
:meth:`rng_tests.result.TestResult.passed` (p ≥ α passes); statsmodels rejects at p̃ ≤ α, which
differs only for a p-value exactly on the boundary. Not-applicable results (``p_value`` None)
are left out of the family (m counts only applicable tests) and reported as not applicable.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from rng_tests.result import TestResult

Method = Literal["holm", "bonferroni"]
_METHOD_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni"}


def _validate(p_values: Sequence[float] | np.ndarray, alpha: float) -> np.ndarray:
    values = np.asarray(p_values, dtype=float)
    if values.ndim != 1:
        raise ValueError("p_values must be a 1-D sequence")
    if np.any(~np.isfinite(values)) or np.any((values < 0) | (values > 1)):
        raise ValueError("p_values must be probabilities in [0, 1]")
    if not 0 < alpha < 1:
        raise ValueError("alpha must be strictly between 0 and 1")
    return values


def holm(p_values: Sequence[float] | np.ndarray, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Holm step-down adjusted p-values and rejections (adjusted < ``alpha``), in the input order."""
    values = _validate(p_values, alpha)
    m = values.size
    if m == 0:
        return values.copy(), np.zeros(0, dtype=bool)
    order = np.argsort(values, kind="stable")
    stepped = np.minimum(1.0, (m - np.arange(m)) * values[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(stepped)
    return adjusted, adjusted < alpha


def bonferroni(p_values: Sequence[float] | np.ndarray, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Bonferroni adjusted p-values min(1, m p) and rejections (adjusted < ``alpha``)."""
    values = _validate(p_values, alpha)
    adjusted = np.minimum(1.0, values.size * values)
    return adjusted, adjusted < alpha


@dataclass(frozen=True)
class AdjustedTest:
    """One member of the family: its raw and adjusted p-values, or why it was not applicable."""

    name: str
    p_value: float | None
    adjusted_p_value: float | None
    rejected: bool | None
    not_applicable: str | None = None


@dataclass(frozen=True)
class FamilyAdjustment:
    """A family of tests adjusted for multiplicity at level ``alpha``."""

    method: Method
    alpha: float
    tests: tuple[AdjustedTest, ...]

    @property
    def family_size(self) -> int:
        """Number of applicable tests, m."""
        return sum(1 for test in self.tests if test.not_applicable is None)

    @property
    def any_rejected(self) -> bool:
        """True when at least one hypothesis of the family is rejected (the family FAILs)."""
        return any(test.rejected for test in self.tests)

    @property
    def description(self) -> str:
        """E.g. "Holm-adjusted over a family of 7 tests" (plus the not-applicable ones, if any)."""
        text = f"{_METHOD_NAMES[self.method]}-adjusted over a family of {self.family_size} tests"
        skipped = len(self.tests) - self.family_size
        return text + (f" ({skipped} not applicable, left out)" if skipped else "")

    def by_name(self) -> dict[str, AdjustedTest]:
        return {test.name: test for test in self.tests}


def adjust(
    family: Mapping[str, TestResult | float | None] | Sequence[TestResult | float | None],
    alpha: float = 0.05,
    method: Method = "holm",
) -> FamilyAdjustment:
    """Adjust a family of TestResults or p-values (None = not applicable) for multiplicity.

    A mapping keeps its keys as names; a sequence is named by each TestResult's ``test`` or by
    its index. Not-applicable members are excluded from m and reported with their reason.
    """
    if method not in _METHOD_NAMES:
        raise ValueError(f"unknown method {method!r} (expected 'holm' or 'bonferroni')")
    if isinstance(family, Mapping):
        items = [(str(name), member) for name, member in family.items()]
    else:
        items = [(member.test if isinstance(member, TestResult) else str(index), member)
                 for index, member in enumerate(family)]
    names = [name for name, _ in items]
    if len(set(names)) != len(names):
        raise ValueError("family members must have distinct names (pass a mapping to name them)")
    raw: list[float | None] = []
    reasons: list[str | None] = []
    for _, member in items:
        if isinstance(member, TestResult):
            raw.append(member.p_value)
            reasons.append(None if member.p_value is not None else (member.not_applicable or "no p-value"))
        elif member is None:
            raw.append(None)
            reasons.append("no p-value")
        else:
            raw.append(float(member))
            reasons.append(None)
    applicable = [index for index, value in enumerate(raw) if value is not None]
    function = holm if method == "holm" else bonferroni
    adjusted, rejected = function([raw[index] for index in applicable], alpha)  # type: ignore[misc]
    by_index = {index: (float(adjusted[k]), bool(rejected[k])) for k, index in enumerate(applicable)}
    tests = tuple(
        AdjustedTest(name, raw[index], *by_index[index]) if index in by_index
        else AdjustedTest(name, None, None, None, reasons[index])
        for index, name in enumerate(names)
    )
    return FamilyAdjustment(method, alpha, tests)


def adjusted_results(
    family: Mapping[str, TestResult], alpha: float = 0.05, method: Method = "holm"
) -> dict[str, TestResult]:
    """Copies of the TestResults with their p-value replaced by the adjusted one.

    The method gains "; <Holm>-adjusted over a family of k tests" and ``details`` keep the raw
    p-value (``unadjusted_p_value``); not-applicable results are returned unchanged.
    """
    adjustment = adjust(family, alpha, method)
    out: dict[str, TestResult] = {}
    for test in adjustment.tests:
        result = family[test.name]
        if test.adjusted_p_value is None:
            out[test.name] = result
            continue
        out[test.name] = dataclasses.replace(
            result,
            p_value=test.adjusted_p_value,
            method=f"{result.method}; {adjustment.description}",
            details={**result.details, "unadjusted_p_value": test.p_value},
        )
    return out
