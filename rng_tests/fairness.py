"""Goodness-of-fit tests of game outcomes against their fair distribution.

H0: outcomes are independent draws from the fair distribution (each roulette
pocket 1/37). The test statistic is Pearson's chi-square; its p-value is the
asymptotic chi-square tail when every expected count is at least 5, and a
Monte-Carlo p-value (multinomial resampling under H0, fixed seed, (k+1)/(B+1))
otherwise. Power against a named alternative uses the non-central chi-square
with non-centrality λ = N Σ (p1 − p0)² / p0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

MIN_EXPECTED_FOR_ASYMPTOTICS = 5.0


@dataclass(frozen=True)
class GoodnessOfFit:
    """Result of a chi-square goodness-of-fit test."""

    statistic: float
    degrees_of_freedom: int
    p_value: float
    sample_size: int
    method: str
    min_expected: float


def chi_square_gof(
    counts: Sequence[int] | np.ndarray,
    probabilities: Sequence[float] | np.ndarray | None = None,
    *,
    monte_carlo_samples: int = 20_000,
    seed: int = 0,
) -> GoodnessOfFit:
    """Pearson chi-square of observed ``counts`` against ``probabilities`` (uniform when omitted)."""
    observed = np.asarray(counts, dtype=float)
    if observed.ndim != 1 or observed.size < 2:
        raise ValueError("counts must be a 1-D sequence of at least two categories")
    if np.any(observed < 0):
        raise ValueError("counts must be non-negative")
    total = int(observed.sum())
    if total == 0:
        raise ValueError("no observations")
    p0 = np.full(observed.size, 1.0 / observed.size) if probabilities is None else np.asarray(probabilities, float)
    if p0.shape != observed.shape or np.any(p0 <= 0) or not np.isclose(p0.sum(), 1.0):
        raise ValueError("probabilities must be positive, one per category, summing to 1")
    expected = total * p0
    statistic = float(((observed - expected) ** 2 / expected).sum())
    dof = observed.size - 1
    if expected.min() >= MIN_EXPECTED_FOR_ASYMPTOTICS:
        return GoodnessOfFit(statistic, dof, float(stats.chi2.sf(statistic, dof)), total,
                             "Pearson chi-square, asymptotic", float(expected.min()))
    rng = np.random.default_rng(seed)
    simulated = rng.multinomial(total, p0, size=monte_carlo_samples)
    simulated_statistics = ((simulated - expected) ** 2 / expected).sum(axis=1)
    exceed = int(np.count_nonzero(simulated_statistics >= statistic - 1e-9))
    p_value = (exceed + 1) / (monte_carlo_samples + 1)
    return GoodnessOfFit(statistic, dof, p_value, total,
                         f"Pearson chi-square, Monte-Carlo p-value ({monte_carlo_samples} resamples)",
                         float(expected.min()))


def chi_square_power(sample_size: int, p0: np.ndarray, p1: np.ndarray, alpha: float) -> float:
    """Power of the chi-square GOF test at level ``alpha`` against the alternative ``p1``."""
    p0 = np.asarray(p0, float)
    p1 = np.asarray(p1, float)
    noncentrality = sample_size * float(((p1 - p0) ** 2 / p0).sum())
    dof = p0.size - 1
    critical = stats.chi2.isf(alpha, dof)
    return float(stats.ncx2.sf(critical, dof, noncentrality))


def sector_alternative(pockets: int, width: int, factor: float) -> np.ndarray:
    """Pocket probabilities (in wheel order) when ``width`` adjacent pockets are ``factor`` times as likely."""
    weights = np.ones(pockets)
    weights[:width] = factor
    return weights / weights.sum()
