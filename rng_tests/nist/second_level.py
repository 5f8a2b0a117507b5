"""Second-level analysis over many sequences, SP 800-22 section 4.2.

For each test and each of its p-values (each template, each excursion state), over the
sequences where the test applied:

* proportion passing (p ≥ α) against the interval p̂ ± 3·sqrt(p̂(1−p̂)/m), p̂ = 1 − α (4.2.1);
* uniformity of the p-values: chi-square over ten bins, P-value_T = igamc(9/2, χ²/2),
  uniform when P-value_T ≥ 0.0001 (4.2.2; the document asks for at least 55 sequences).

Those are the document's criteria and are reported as such. The bench's verdict adds what
a certifier needs: the number of failing sequences is Binomial(m, α) under H0, so its exact
upper-tail p-value, and the uniformity P-value_T, form a family of hypothesis tests (two per
p-value label, 376 for the full battery) which is judged with Holm's step-down procedure at
the family level α, so that a fair generator is failed with probability at most α however
many labels there are. The document's own flags are kept beside that verdict.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from rng_tests.fairness.multiple_testing import holm
from rng_tests.nist.battery import BatteryResult
from rng_tests.nist.result import DEFAULT_ALPHA

UNIFORMITY_THRESHOLD = 0.0001  # section 4.2.2
MIN_SEQUENCES_FOR_UNIFORMITY = 55  # section 4.2.2


@dataclass(frozen=True)
class LabelSummary:
    """One p-value label (e.g. ``cumulative_sums/forward``) over m sequences."""

    label: str
    sequences: int
    passed: int
    proportion: float
    interval: tuple[float, float]
    proportion_in_interval: bool
    failures_p_value: float
    uniformity_chi_square: float | None
    uniformity_p_value: float | None
    histogram: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label, "sequences": self.sequences, "passed": self.passed,
            "proportion": round(self.proportion, 6), "interval": [round(value, 6) for value in self.interval],
            "proportion_in_interval": self.proportion_in_interval,
            "failures_p_value": self.failures_p_value,
            "uniformity_chi_square": self.uniformity_chi_square, "uniformity_p_value": self.uniformity_p_value,
            "histogram": list(self.histogram),
        }


@dataclass(frozen=True)
class SecondLevelReport:
    """Section 4.2 over a set of sequences, and the family-wise verdict."""

    sequences: int
    alpha: float
    family_alpha: float
    labels: tuple[LabelSummary, ...]
    rejected: tuple[str, ...]  # "label: proportion" / "label: uniformity" rejected by Holm
    nist_flags: tuple[str, ...]  # labels outside the document's criteria
    not_applicable: dict[str, int]  # test -> sequences where it did not apply

    @property
    def passed(self) -> bool:
        return not self.rejected

    def to_json(self) -> dict[str, Any]:
        return {
            "sequences": self.sequences, "alpha": self.alpha, "family_alpha": self.family_alpha,
            "passed": self.passed, "rejected_by_holm": list(self.rejected),
            "outside_nist_criteria": list(self.nist_flags), "not_applicable": self.not_applicable,
            "method": ("per p-value label: exact binomial tail of failing sequences and chi-square uniformity "
                       f"(10 bins); Holm over a family of {2 * len(self.labels)} tests at {self.family_alpha}"),
            "labels": [label.to_json() for label in self.labels],
        }


def proportion_interval(sequences: int, alpha: float = DEFAULT_ALPHA) -> tuple[float, float]:
    """The document's confidence interval for the proportion of passing sequences (4.2.1)."""
    p_hat = 1.0 - alpha
    half_width = 3.0 * math.sqrt(p_hat * (1.0 - p_hat) / sequences)
    return p_hat - half_width, min(1.0, p_hat + half_width)


def uniformity(p_values: np.ndarray) -> tuple[float, float, tuple[int, ...]]:
    """Chi-square of the p-values over ten equal bins and P-value_T = igamc(9/2, χ²/2) (4.2.2)."""
    histogram = np.histogram(np.clip(p_values, 0.0, 1.0), bins=10, range=(0.0, 1.0))[0]
    expected = p_values.size / 10.0
    chi_square = float(((histogram - expected) ** 2 / expected).sum())
    return chi_square, float(stats.chi2.sf(chi_square, 9)), tuple(int(count) for count in histogram)


def second_level(
    batteries: Sequence[BatteryResult], *, alpha: float = DEFAULT_ALPHA, family_alpha: float = 0.01
) -> SecondLevelReport:
    """Section 4.2 over the battery results of many sequences, with a Holm family verdict."""
    if not batteries:
        raise ValueError("second-level analysis needs at least one sequence")
    by_label: dict[str, list[float]] = {}
    not_applicable: dict[str, int] = {}
    for battery in batteries:
        for result in battery.results:
            if not result.applicable:
                not_applicable[result.test] = not_applicable.get(result.test, 0) + 1
                continue
            for label, p_value in result.p_values.items():
                by_label.setdefault(result.test if label == "p" else f"{result.test}/{label}", []).append(p_value)
    summaries: list[LabelSummary] = []
    family: list[tuple[str, float]] = []
    flags: list[str] = []
    for label, values in by_label.items():
        p_values = np.asarray(values, dtype=float)
        count = p_values.size
        passed = int(np.count_nonzero(p_values >= alpha))
        low, high = proportion_interval(count, alpha)
        proportion = passed / count
        failures_p = float(stats.binom.sf(count - passed - 1, count, alpha))
        chi_square, uniform_p, histogram = uniformity(p_values)
        family.append((f"{label}: proportion", failures_p))
        if count >= MIN_SEQUENCES_FOR_UNIFORMITY:
            family.append((f"{label}: uniformity", uniform_p))
        else:  # too few sequences for the chi-square (4.2.2): keep the histogram only
            chi_square, uniform_p = None, None
        in_interval = low <= proportion <= high
        if not in_interval or (uniform_p is not None and uniform_p < UNIFORMITY_THRESHOLD):
            flags.append(label)
        summaries.append(LabelSummary(label, count, passed, proportion, (low, high), in_interval, failures_p,
                                      chi_square, uniform_p, histogram))
    _, rejections = holm([p for _, p in family], family_alpha)
    rejected = tuple(name for (name, _), reject in zip(family, rejections) if reject)
    return SecondLevelReport(len(batteries), alpha, family_alpha, tuple(summaries), rejected, tuple(flags),
                             not_applicable)
