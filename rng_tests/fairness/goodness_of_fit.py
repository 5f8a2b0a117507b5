"""Goodness-of-fit and independence tests of categorical counts (the machinery every game test uses).

Goodness of fit. H0: the ``N`` observations are independent draws from the categorical
distribution ``p0`` (uniform when omitted), so the counts are Multinomial(N, p0). Two
statistics are offered:

* Pearson's chi-square, X² = Σ (O − E)² / E (:func:`pearson_chi_square`, :func:`chi_square_gof`);
* the likelihood-ratio G-test, G = 2 Σ O ln(O / E) (:func:`g_test`), optionally divided by
  Williams' (1976) correction q = 1 + (k + 1) / (6 N) for k categories.

p-value policy (the same for both statistics, chosen from the expected counts E = N p0):

1. every E ≥ 5 (:data:`MIN_EXPECTED_FOR_ASYMPTOTICS`): the asymptotic chi-square tail with
   k − 1 degrees of freedom (Cochran's rule);
2. otherwise, when the number of possible count vectors C(N + k − 1, k − 1) is at most
   ``exact_limit`` (:data:`EXACT_ENUMERATION_LIMIT`): the exact multinomial p-value
   P(T ≥ t_obs | H0), summed over every outcome;
3. otherwise a Monte-Carlo p-value: B count vectors drawn from Multinomial(N, p0) with a fixed
   seed, p = (k + 1) / (B + 1), k being the number of draws with T ≥ t_obs; this p-value is
   valid (P(p ≤ α) ≤ α under H0) for every B.

Ties are counted with a relative tolerance of 1e-9, so outcomes whose statistic equals the
observed one up to rounding count as "at least as extreme".

Independence (:func:`contingency_independence`). H0: the classifications of a two-way (or
multi-way) contingency table are (mutually) independent. Expected counts are the products of
the observed margins; the statistic is Pearson's X² or G; the p-value is the asymptotic chi-square
tail with Π Lᵢ − 1 − Σ (Lᵢ − 1) degrees of freedom ((r − 1)(c − 1) for two ways) when every
expected count is ≥ 5, and otherwise a Monte-Carlo p-value conditional on the margins (tables
with the observed margins drawn uniformly as in Fisher's exact test: Patefield's algorithm for
two ways, independent permutations of each variable's labels for more).

Power of the Pearson test against a named alternative p1 (:func:`chi_square_power`): the
non-central chi-square tail with non-centrality λ = N Σ (p1 − p0)² / p0 (Cohen 1988, ch. 7).

References: Cochran, W. G. (1954), Biometrics 10, 417-451; Williams, D. A. (1976), Biometrika 63,
33-37; Sokal & Rohlf, *Biometry*, 4th ed., §17.2 and Box 17.6; Patefield, W. M. (1981),
Applied Statistics 30, 91-97; Hope, A. C. A. (1968), JRSS B 30, 582-598 (Monte-Carlo tests).

This module's public API is relied upon by the other game modules of :mod:`rng_tests.fairness`;
keep signatures backward compatible.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import special, stats

from rng_tests.result import TestResult

MIN_EXPECTED_FOR_ASYMPTOTICS = 5.0
"""Smallest expected count for which the asymptotic chi-square tail is used (Cochran's rule)."""

EXACT_ENUMERATION_LIMIT = 200_000
"""Largest number of outcomes C(N + k − 1, k − 1) summed over for an exact multinomial p-value."""

DEFAULT_MONTE_CARLO_SAMPLES = 20_000
"""Default number of Monte-Carlo resamples B when neither asymptotics nor enumeration apply."""

_TIE_TOLERANCE = 1e-9
_CHUNK_CELLS = 2_000_000  # resampled cells held in memory at once

Statistic = Literal["pearson", "g"]
StatisticFunction = Callable[[np.ndarray, np.ndarray], np.ndarray]

UNIFORM_NULL = "the observations are independent draws from the fair distribution (every category equally likely)"


def pearson_statistic(observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Pearson's X² = Σ (O − E)² / E over the last axis; ``observed`` may be a batch (..., k)."""
    return (((observed - expected) ** 2) / expected).sum(axis=-1)


def g_statistic(observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """The likelihood-ratio G = 2 Σ O ln(O / E) over the last axis (0 ln 0 = 0); batchable like Pearson."""
    observed = np.asarray(observed, dtype=float)
    return 2.0 * special.xlogy(observed, observed / expected).sum(axis=-1)


_STATISTICS: dict[str, tuple[StatisticFunction, str]] = {
    "pearson": (pearson_statistic, "Pearson chi-square"),
    "g": (g_statistic, "G-test (likelihood ratio)"),
}


@dataclass(frozen=True)
class GoodnessOfFit:
    """Result of a goodness-of-fit test (kept for callers of :func:`chi_square_gof`).

    ``method`` names the statistic and how the p-value was obtained; ``min_expected`` is the
    smallest expected count, which decided that policy.
    """

    statistic: float
    degrees_of_freedom: int
    p_value: float
    sample_size: int
    method: str
    min_expected: float

    def to_test_result(
        self,
        test: str = "goodness of fit",
        null_hypothesis: str = UNIFORM_NULL,
        details: dict[str, Any] | None = None,
    ) -> TestResult:
        """The same result as a :class:`~rng_tests.result.TestResult` (``details`` gains ``min_expected``)."""
        return TestResult(
            test=test,
            null_hypothesis=null_hypothesis,
            statistic=self.statistic,
            p_value=self.p_value,
            sample_size=self.sample_size,
            method=self.method,
            degrees_of_freedom=self.degrees_of_freedom,
            details={**(details or {}), "min_expected": self.min_expected},
        )


# -- validation -----------------------------------------------------------------------------


def validate_counts(counts: Sequence[int] | np.ndarray) -> np.ndarray:
    """``counts`` as a 1-D float array of whole, non-negative numbers with a positive total, else ValueError."""
    observed = np.asarray(counts, dtype=float)
    if observed.ndim != 1 or observed.size < 2:
        raise ValueError("counts must be a 1-D sequence of at least two categories")
    if not np.all(np.isfinite(observed)) or np.any(observed != np.round(observed)):
        raise ValueError("counts must be whole numbers")
    if np.any(observed < 0):
        raise ValueError("counts must be non-negative")
    if observed.sum() == 0:
        raise ValueError("no observations")
    return observed


def validate_probabilities(probabilities: Sequence[float] | np.ndarray | None, categories: int) -> np.ndarray:
    """Null probabilities (uniform when None): positive, one per category, summing to 1 (to 1e-5)."""
    if probabilities is None:
        return np.full(categories, 1.0 / categories)
    p0 = np.asarray(probabilities, dtype=float)
    if (
        p0.shape != (categories,)
        or not np.all(np.isfinite(p0))
        or np.any(p0 <= 0)
        or not np.isclose(p0.sum(), 1.0)
    ):
        raise ValueError("probabilities must be positive, one per category, summing to 1")
    total = p0.sum()
    return p0 if abs(total - 1.0) <= 1e-12 else p0 / total  # renormalise only beyond rounding


def _validate_resampling(monte_carlo_samples: int, exact_limit: int) -> None:
    if int(monte_carlo_samples) != monte_carlo_samples or monte_carlo_samples < 1:
        raise ValueError("monte_carlo_samples must be a positive integer")
    if exact_limit < 0:
        raise ValueError("exact_limit must be non-negative")


# -- exact enumeration and Monte-Carlo --------------------------------------------------------


def composition_count(total: int, categories: int) -> int:
    """Number of count vectors of ``categories`` non-negative integers summing to ``total``: C(N + k − 1, k − 1)."""
    return math.comb(total + categories - 1, categories - 1)


def enumerate_compositions(total: int, categories: int) -> np.ndarray:
    """Every count vector of ``categories`` non-negative integers summing to ``total``, shape (M, k).

    Built one column at a time with numpy (no per-outcome Python loop); M = :func:`composition_count`.
    """
    if total < 0 or categories < 1:
        raise ValueError("total must be non-negative and categories positive")
    rows = np.zeros((1, 0), dtype=np.int64)
    remaining = np.array([total], dtype=np.int64)
    for _ in range(categories - 1):
        choices = remaining + 1
        parent = np.repeat(np.arange(rows.shape[0]), choices)
        first = np.repeat(np.cumsum(choices) - choices, choices)
        value = np.arange(choices.sum(), dtype=np.int64) - first
        rows = np.column_stack([rows[parent], value])
        remaining = remaining[parent] - value
    return np.column_stack([rows, remaining])


def multinomial_log_pmf(outcomes: np.ndarray, p0: np.ndarray) -> np.ndarray:
    """log P(outcome) under Multinomial(N, p0) for every row of ``outcomes`` (rows sum to N)."""
    outcomes = np.asarray(outcomes, dtype=float)
    total = outcomes.sum(axis=-1)
    return (special.gammaln(total + 1) - special.gammaln(outcomes + 1).sum(axis=-1)
            + special.xlogy(outcomes, p0).sum(axis=-1))


def _at_least(values: np.ndarray, observed: float) -> np.ndarray:
    """``values >= observed`` with a relative tolerance for ties in floating point."""
    return values >= observed - _TIE_TOLERANCE * max(1.0, abs(observed))


def exact_multinomial_p_value(
    counts: np.ndarray, p0: np.ndarray, statistic: StatisticFunction
) -> tuple[float, int]:
    """P(T ≥ t_obs) under Multinomial(N, p0), summed over every outcome; returns (p-value, outcomes summed)."""
    total = int(counts.sum())
    expected = total * p0
    observed_value = float(statistic(counts, expected))
    outcomes = enumerate_compositions(total, counts.size)
    extreme = _at_least(statistic(outcomes.astype(float), expected), observed_value)
    probabilities = np.exp(multinomial_log_pmf(outcomes[extreme], p0))
    return float(min(1.0, np.sort(probabilities).sum())), outcomes.shape[0]


def monte_carlo_multinomial_p_value(
    counts: np.ndarray, p0: np.ndarray, statistic: StatisticFunction, samples: int, seed: int
) -> float:
    """(k + 1) / (B + 1) with k = #{T(X*) ≥ t_obs}, X* ~ Multinomial(N, p0), B = ``samples``, fixed ``seed``."""
    total = int(counts.sum())
    expected = total * p0
    observed_value = float(statistic(counts, expected))
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_CELLS // counts.size)
    exceed = 0
    for start in range(0, samples, chunk):
        simulated = rng.multinomial(total, p0, size=min(chunk, samples - start))
        exceed += int(np.count_nonzero(_at_least(statistic(simulated, expected), observed_value)))
    return (exceed + 1) / (samples + 1)


def _gof(
    counts: Sequence[int] | np.ndarray,
    probabilities: Sequence[float] | np.ndarray | None,
    *,
    statistic: Statistic,
    williams: bool,
    monte_carlo_samples: int,
    seed: int,
    exact_limit: int,
) -> tuple[GoodnessOfFit, np.ndarray, np.ndarray]:
    """The shared policy of Pearson and G: returns the result, observed counts and null probabilities."""
    observed = validate_counts(counts)
    p0 = validate_probabilities(probabilities, observed.size)
    _validate_resampling(monte_carlo_samples, exact_limit)
    function, name = _STATISTICS[statistic]
    total = int(observed.sum())
    expected = total * p0
    dof = observed.size - 1
    value = float(function(observed, expected))
    if williams:
        if statistic != "g":
            raise ValueError("Williams' correction applies to the G-test only")
        correction = 1.0 + (observed.size + 1) / (6.0 * total)
        value /= correction  # a constant divisor: exact and Monte-Carlo p-values are unchanged by it
        name = f"G-test (likelihood ratio, Williams' correction q = {correction:.6g})"
    min_expected = float(expected.min())
    if min_expected >= MIN_EXPECTED_FOR_ASYMPTOTICS:
        p_value, how = float(stats.chi2.sf(value, dof)), "asymptotic"
    elif composition_count(total, observed.size) <= exact_limit:
        p_value, outcomes = exact_multinomial_p_value(observed, p0, function)
        how = f"exact multinomial p-value ({outcomes} outcomes)"
    else:
        p_value = monte_carlo_multinomial_p_value(observed, p0, function, int(monte_carlo_samples), seed)
        how = f"Monte-Carlo p-value ({int(monte_carlo_samples)} resamples)"
    return GoodnessOfFit(value, dof, p_value, total, f"{name}, {how}", min_expected), observed, p0


# -- public goodness-of-fit API ---------------------------------------------------------------


def chi_square_gof(
    counts: Sequence[int] | np.ndarray,
    probabilities: Sequence[float] | np.ndarray | None = None,
    *,
    monte_carlo_samples: int = DEFAULT_MONTE_CARLO_SAMPLES,
    seed: int = 0,
    exact_limit: int = EXACT_ENUMERATION_LIMIT,
) -> GoodnessOfFit:
    """Pearson chi-square of observed ``counts`` against ``probabilities`` (uniform when omitted).

    H0: the counts are Multinomial(N, probabilities). p-value: asymptotic, exact or Monte-Carlo
    as described in the module docstring (``exact_limit=0`` forces Monte-Carlo below Cochran's rule).
    Raises ValueError on counts that are not whole non-negative numbers or on invalid probabilities.
    """
    result, _, _ = _gof(counts, probabilities, statistic="pearson", williams=False,
                        monte_carlo_samples=monte_carlo_samples, seed=seed, exact_limit=exact_limit)
    return result


def _gof_details(observed: np.ndarray, p0: np.ndarray, categories: Sequence[str] | None) -> dict[str, Any]:
    total = observed.sum()
    expected = total * p0
    labels = [str(index) for index in range(observed.size)] if categories is None else [str(c) for c in categories]
    if len(labels) != observed.size:
        raise ValueError(f"categories must name each of the {observed.size} categories")
    residuals = (observed - expected) / np.sqrt(expected)
    worst = int(np.argmax(np.abs(residuals)))
    return {
        "categories": labels,
        "observed": observed.astype(int).tolist(),
        "expected": [round(float(value), 6) for value in expected],
        "probabilities": [float(value) for value in p0],
        "standardised_residuals": [round(float(value), 4) for value in residuals],
        "largest_residual": {"category": labels[worst], "residual": round(float(residuals[worst]), 4)},
    }


def pearson_chi_square(
    counts: Sequence[int] | np.ndarray,
    probabilities: Sequence[float] | np.ndarray | None = None,
    *,
    test: str = "Pearson chi-square goodness of fit",
    null_hypothesis: str = UNIFORM_NULL,
    categories: Sequence[str] | None = None,
    monte_carlo_samples: int = DEFAULT_MONTE_CARLO_SAMPLES,
    seed: int = 0,
    exact_limit: int = EXACT_ENUMERATION_LIMIT,
) -> TestResult:
    """Pearson X² goodness of fit as a TestResult (same statistic and p-value policy as :func:`chi_square_gof`).

    ``categories`` labels the cells in ``details`` (observed, expected, standardised residuals
    (O − E)/√E and the largest of them), so a report can say which cell deviates.
    """
    result, observed, p0 = _gof(counts, probabilities, statistic="pearson", williams=False,
                                monte_carlo_samples=monte_carlo_samples, seed=seed, exact_limit=exact_limit)
    return result.to_test_result(test, null_hypothesis, _gof_details(observed, p0, categories))


def g_test(
    counts: Sequence[int] | np.ndarray,
    probabilities: Sequence[float] | np.ndarray | None = None,
    *,
    williams: bool = False,
    test: str = "G-test goodness of fit",
    null_hypothesis: str = UNIFORM_NULL,
    categories: Sequence[str] | None = None,
    monte_carlo_samples: int = DEFAULT_MONTE_CARLO_SAMPLES,
    seed: int = 0,
    exact_limit: int = EXACT_ENUMERATION_LIMIT,
) -> TestResult:
    """Likelihood-ratio goodness of fit, G = 2 Σ O ln(O/E), as a TestResult.

    With ``williams=True`` the statistic reported and referred to chi-square(k − 1) is G / q,
    q = 1 + (k + 1)/(6N) (Williams 1976; Sokal & Rohlf §17.2). The p-value policy is that of
    :func:`chi_square_gof`; G equals scipy.stats.power_divergence(lambda_="log-likelihood").
    """
    result, observed, p0 = _gof(counts, probabilities, statistic="g", williams=williams,
                                monte_carlo_samples=monte_carlo_samples, seed=seed, exact_limit=exact_limit)
    return result.to_test_result(test, null_hypothesis, _gof_details(observed, p0, categories))


def gof_test(
    counts: Sequence[int] | np.ndarray,
    probabilities: Sequence[float] | np.ndarray | None = None,
    *,
    statistic: Statistic = "pearson",
    **options: Any,
) -> TestResult:
    """:func:`pearson_chi_square` (``statistic="pearson"``) or :func:`g_test` (``"g"``) with the same options."""
    if statistic == "pearson":
        return pearson_chi_square(counts, probabilities, **options)
    if statistic == "g":
        return g_test(counts, probabilities, **options)
    raise ValueError(f"unknown statistic {statistic!r} (expected 'pearson' or 'g')")


def chi_square_power(sample_size: int, p0: np.ndarray, p1: np.ndarray, alpha: float) -> float:
    """Power of the asymptotic Pearson GOF test at level ``alpha`` against the alternative ``p1``.

    Non-central chi-square(k − 1, λ) tail beyond the chi-square(k − 1) critical value, with
    λ = N Σ (p1 − p0)² / p0 (Cohen 1988, §7.2).
    """
    p0 = np.asarray(p0, float)
    p1 = np.asarray(p1, float)
    noncentrality = sample_size * float(((p1 - p0) ** 2 / p0).sum())
    dof = p0.size - 1
    critical = stats.chi2.isf(alpha, dof)
    return float(stats.ncx2.sf(critical, dof, noncentrality))


# -- independence -------------------------------------------------------------------------------


def _independence_expected(table: np.ndarray) -> np.ndarray:
    """N Π (margin_i / N) for every cell of a multi-way table."""
    total = table.sum()
    expected = np.ones(table.shape)
    for axis in range(table.ndim):
        others = tuple(a for a in range(table.ndim) if a != axis)
        margin = table.sum(axis=others) / total
        shape = [1] * table.ndim
        shape[axis] = table.shape[axis]
        expected = expected * margin.reshape(shape)
    return expected * total


def _resample_tables(table: np.ndarray, samples: int, rng: np.random.Generator) -> np.ndarray:
    """``samples`` tables with the observed one-way margins, uniform under independence; shape (B, cells)."""
    margins = [table.sum(axis=tuple(a for a in range(table.ndim) if a != axis)).astype(np.int64)
               for axis in range(table.ndim)]
    if table.ndim == 2:  # Patefield's algorithm: cost independent of N
        tables = stats.random_table(margins[0], margins[1]).rvs(size=samples, random_state=rng)
        return tables.reshape(samples, -1).astype(float)
    total = int(table.sum())
    labels = [np.repeat(np.arange(size), margin) for size, margin in zip(table.shape, margins)]
    strides = np.cumprod((1,) + table.shape[:0:-1])[::-1]  # C-order strides of the table
    cells = int(np.prod(table.shape))
    out = np.empty((samples, cells))
    chunk = max(1, _CHUNK_CELLS // total)
    for start in range(0, samples, chunk):
        size = min(chunk, samples - start)
        flat = np.broadcast_to(labels[0] * strides[0], (size, total)).copy()
        for axis in range(1, table.ndim):
            flat += rng.permuted(np.broadcast_to(labels[axis], (size, total)), axis=1) * strides[axis]
        flat += np.arange(size)[:, None] * cells
        out[start:start + size] = np.bincount(flat.ravel(), minlength=size * cells).reshape(size, cells)
    return out


def contingency_independence(
    table: Sequence[Sequence[int]] | np.ndarray,
    *,
    statistic: Statistic = "pearson",
    williams: bool = False,
    test: str = "independence (contingency table)",
    null_hypothesis: str = "the classifications of the table are mutually independent",
    monte_carlo_samples: int = DEFAULT_MONTE_CARLO_SAMPLES,
    seed: int = 0,
) -> TestResult:
    """Test of (mutual) independence of the classifications of a two- or multi-way contingency table.

    Expected counts are N Π (margin_i / N). Rows, columns or levels with a zero margin carry no
    information and are dropped (listed in ``details``); if a classification has fewer than two
    non-empty levels the result is not applicable. p-value: asymptotic chi-square with
    Π Lᵢ − 1 − Σ (Lᵢ − 1) degrees of freedom when every expected count is ≥ 5, otherwise
    Monte-Carlo conditional on the margins (``monte_carlo_samples`` tables, fixed ``seed``).
    ``williams=True`` (G, two-way only) divides G by
    q = 1 + (N Σ 1/Rᵢ − 1)(N Σ 1/Cⱼ − 1) / (6 N (r − 1)(c − 1)) (Williams 1976).
    """
    counts = np.asarray(table, dtype=float)
    if counts.ndim < 2:
        raise ValueError("table must have at least two dimensions (one per classification)")
    if not np.all(np.isfinite(counts)) or np.any(counts != np.round(counts)) or np.any(counts < 0):
        raise ValueError("table must hold whole, non-negative counts")
    if statistic not in _STATISTICS:
        raise ValueError(f"unknown statistic {statistic!r} (expected 'pearson' or 'g')")
    if williams and (statistic != "g" or counts.ndim != 2):
        raise ValueError("Williams' correction applies to the G-test of a two-way table only")
    _validate_resampling(monte_carlo_samples, 0)
    total = int(counts.sum())
    function, name = _STATISTICS[statistic]
    if total == 0:
        raise ValueError("no observations")
    dropped: dict[str, list[int]] = {}
    for axis in range(counts.ndim):
        margin = counts.sum(axis=tuple(a for a in range(counts.ndim) if a != axis))
        if np.any(margin == 0):
            dropped[f"axis {axis}"] = np.flatnonzero(margin == 0).tolist()
        counts = np.compress(margin > 0, counts, axis=axis)
    if min(counts.shape) < 2:
        return TestResult.inapplicable(
            test, null_hypothesis, total, f"{name} test of independence",
            f"a classification took fewer than two distinct values (table shape after dropping empty "
            f"levels: {list(counts.shape)})")
    expected = _independence_expected(counts)
    dof = int(np.prod(counts.shape)) - 1 - sum(size - 1 for size in counts.shape)
    value = float(function(counts.ravel(), expected.ravel()))
    if williams:
        rows, cols = counts.sum(axis=1), counts.sum(axis=0)
        r, c = counts.shape
        correction = 1.0 + (total * (1 / rows).sum() - 1) * (total * (1 / cols).sum() - 1) / (6.0 * total * (r - 1) * (c - 1))
        value /= correction
        name = f"G-test (likelihood ratio, Williams' correction q = {correction:.6g})"
    min_expected = float(expected.min())
    if min_expected >= MIN_EXPECTED_FOR_ASYMPTOTICS:
        p_value, how = float(stats.chi2.sf(value, dof)), f"asymptotic chi-square({dof})"
    else:
        rng = np.random.default_rng(seed)
        simulated = function(_resample_tables(counts, int(monte_carlo_samples), rng), expected.ravel())
        raw = float(function(counts.ravel(), expected.ravel()))
        exceed = int(np.count_nonzero(_at_least(simulated, raw)))
        p_value = (exceed + 1) / (monte_carlo_samples + 1)
        how = f"Monte-Carlo p-value conditional on the margins ({int(monte_carlo_samples)} tables)"
    details: dict[str, Any] = {
        "shape": list(counts.shape),
        "min_expected": min_expected,
        "dropped_empty_levels": dropped,
    }
    if counts.ndim == 2:
        details["observed"] = counts.astype(int).tolist()
        details["expected"] = np.round(expected, 4).tolist()
    return TestResult(test=test, null_hypothesis=null_hypothesis, statistic=value, p_value=p_value,
                      sample_size=total, method=f"{name} test of independence, {how}",
                      degrees_of_freedom=dof, details=details)
