"""Power and sample size of fairness tests against a named alternative.

A verdict "the wheel is fair" is only worth the power of the test that gave it: the lab
must know how many spins it takes to detect a stated departure (DESIGN.md, "Statistics a
statistician would sign"; p217-2007/roleta-francesa/2). Three methods:

Pearson chi-square goodness of fit (H0: outcome probabilities p0), asymptotic power
    X^2 is approximately noncentral chi-square with K - 1 degrees of freedom and
    noncentrality lambda = n sum_k (p1_k - p0_k)^2 / p0_k under the alternative p1
    (Cochran 1952; Agresti, Categorical Data Analysis, 3rd ed., 2013, sec. 6.5).
G-test (likelihood-ratio statistic G^2 = 2 sum O log(O/E)), asymptotic power
    Noncentral chi-square with lambda = 2 n sum_k p1_k log(p1_k / p0_k) (same reference).
    Both noncentralities agree to first order as p1 -> p0; the G form is the better one
    for larger departures.
    For either test, ``*_sample_size`` returns the smallest integer n whose asymptotic power
    reaches the target: power increases with n, so an exact integer bisection finds it.
Simulation (any test)
    ``simulated_power`` takes any test as a callable returning a p-value (or an object with
    ``.p_value``, such as TestResult), and a sampler of the alternative; power is the
    fraction of simulated samples rejected at alpha, with Monte-Carlo standard error
    sqrt(p (1 - p) / B) and a fixed seed. ``simulated_power_of_statistic`` is the fast
    path for vectorised statistics with no p-value: the critical value is the empirical
    1 - alpha quantile of B simulations under H0 (its own error is not in the standard error).

A lower bound on n for *any* test comes from the total variation distance d between one
H0 and one H1 observation: power - alpha <= TV(P0^n, P1^n) <= 1 - (1 - d)^n
(``total_variation_sample_size_bound``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

#: ``sampler(rng, n)`` -> one sample of ``n`` outcomes (any shape the test accepts).
Sampler = Callable[[np.random.Generator, int], Any]
#: ``batch_sampler(rng, n, runs)`` -> ``runs`` samples stacked on axis 0.
BatchSampler = Callable[[np.random.Generator, int, int], np.ndarray]

MAX_SAMPLE_SIZE = 100_000_000


@dataclass(frozen=True)
class PowerResult:
    """Power of one test at one sample size against one alternative."""

    test: str
    method: str
    alpha: float
    sample_size: int
    power: float
    standard_error: float | None = None  # Monte-Carlo standard error; None when analytic
    simulations: int | None = None
    seed: int | None = None
    alternative: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SampleSizeResult:
    """Smallest sample size at which a test reaches a target power against an alternative."""

    test: str
    method: str
    alpha: float
    target_power: float
    sample_size: int
    power: float  # achieved at sample_size
    standard_error: float | None = None
    simulations: int | None = None
    seed: int | None = None
    alternative: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# -- noncentralities ------------------------------------------------------------


def pearson_noncentrality(p0: np.ndarray, p1: np.ndarray) -> float:
    """Per-observation noncentrality of Pearson's X^2: sum (p1 - p0)^2 / p0."""
    p0, p1 = _pair(p0, p1)
    return float(((p1 - p0) ** 2 / p0).sum())


def likelihood_ratio_noncentrality(p0: np.ndarray, p1: np.ndarray) -> float:
    """Per-observation noncentrality of G^2: 2 KL(p1 || p0) = 2 sum p1 log(p1 / p0)."""
    p0, p1 = _pair(p0, p1)
    positive = p1 > 0
    return float(2.0 * (p1[positive] * np.log(p1[positive] / p0[positive])).sum())


def _asymptotic_power(noncentrality_per_observation: float, n: int, dof: int, alpha: float) -> float:
    critical = stats.chi2.isf(alpha, dof)
    return float(stats.ncx2.sf(critical, dof, n * noncentrality_per_observation))


def _smallest_n(power_at: Callable[[int], float], target: float, what: str) -> int:
    """Smallest n >= 1 with power_at(n) >= target, for power_at nondecreasing in n (exact integer search)."""
    high = 1
    while power_at(high) < target:
        high *= 2
        if high > MAX_SAMPLE_SIZE:
            raise ValueError(f"{what}: target power {target} not reached below {MAX_SAMPLE_SIZE} observations")
    low = high // 2 + 1 if high > 1 else 1
    while low < high:
        middle = (low + high) // 2
        if power_at(middle) >= target:
            high = middle
        else:
            low = middle + 1
    return high


# -- Pearson chi-square and G-test -----------------------------------------------


def pearson_power(n: int, p0: np.ndarray, p1: np.ndarray, alpha: float, *, alternative: str | None = None) -> PowerResult:
    """Asymptotic power of Pearson's chi-square GOF test with ``n`` observations (noncentral chi-square)."""
    _check_n(n)
    _check_alpha(alpha)
    p0, p1 = _pair(p0, p1)
    power = _asymptotic_power(pearson_noncentrality(p0, p1), n, p0.size - 1, alpha)
    return PowerResult("Pearson chi-square goodness of fit", _method("Pearson", p0.size - 1), alpha, n, power,
                       alternative=alternative)


def pearson_sample_size(p0: np.ndarray, p1: np.ndarray, alpha: float, power: float, *,
                        alternative: str | None = None) -> SampleSizeResult:
    """Smallest n at which Pearson's chi-square reaches ``power`` at level ``alpha`` against ``p1``."""
    _check_alpha(alpha)
    _check_power(power, alpha)
    p0, p1 = _pair(p0, p1)
    delta = pearson_noncentrality(p0, p1)
    if delta == 0:
        raise ValueError("the alternative equals the null distribution: no sample size gives power")
    n = _smallest_n(lambda m: _asymptotic_power(delta, m, p0.size - 1, alpha), power, "Pearson chi-square")
    return SampleSizeResult("Pearson chi-square goodness of fit", _method("Pearson", p0.size - 1), alpha, power, n,
                            _asymptotic_power(delta, n, p0.size - 1, alpha), alternative=alternative)


def g_test_power(n: int, p0: np.ndarray, p1: np.ndarray, alpha: float, *, alternative: str | None = None) -> PowerResult:
    """Asymptotic power of the G-test (likelihood-ratio GOF) with ``n`` observations."""
    _check_n(n)
    _check_alpha(alpha)
    p0, p1 = _pair(p0, p1)
    power = _asymptotic_power(likelihood_ratio_noncentrality(p0, p1), n, p0.size - 1, alpha)
    return PowerResult("G-test goodness of fit", _method("G", p0.size - 1), alpha, n, power, alternative=alternative)


def g_test_sample_size(p0: np.ndarray, p1: np.ndarray, alpha: float, power: float, *,
                       alternative: str | None = None) -> SampleSizeResult:
    """Smallest n at which the G-test reaches ``power`` at level ``alpha`` against ``p1``."""
    _check_alpha(alpha)
    _check_power(power, alpha)
    p0, p1 = _pair(p0, p1)
    delta = likelihood_ratio_noncentrality(p0, p1)
    if delta == 0:
        raise ValueError("the alternative equals the null distribution: no sample size gives power")
    n = _smallest_n(lambda m: _asymptotic_power(delta, m, p0.size - 1, alpha), power, "G-test")
    return SampleSizeResult("G-test goodness of fit", _method("G", p0.size - 1), alpha, power, n,
                            _asymptotic_power(delta, n, p0.size - 1, alpha), alternative=alternative)


def _method(kind: str, dof: int) -> str:
    formula = "n sum (p1-p0)^2/p0" if kind == "Pearson" else "2n sum p1 log(p1/p0)"
    return f"asymptotic: noncentral chi-square, {dof} df, noncentrality {formula}"


# -- simulation -------------------------------------------------------------------


def simulated_power(test: Callable[[Any], Any], sampler: Sampler, n: int, alpha: float, *, simulations: int = 1000,
                    seed: int = 0, test_name: str | None = None, alternative: str | None = None) -> PowerResult:
    """Fraction of ``simulations`` samples from ``sampler`` that ``test`` rejects at ``alpha``.

    ``test(sample)`` returns a p-value or an object with a ``p_value`` attribute (TestResult,
    GoodnessOfFit, ...); H0 is rejected when p < alpha, as in ``TestResult.passed``. A test
    that is not applicable (p-value None) counts as not rejecting.
    """
    _check_n(n)
    _check_alpha(alpha)
    if simulations < 1:
        raise ValueError(f"simulations must be positive, got {simulations}")
    rng = np.random.default_rng(seed)
    rejections = 0
    for _ in range(simulations):  # one call per simulated sample: the callable is a black box
        p_value = _p_value(test(sampler(rng, n)))
        rejections += p_value is not None and p_value < alpha
    power = rejections / simulations
    name = test_name or getattr(test, "__name__", "test")
    return PowerResult(name, f"simulation: {simulations} samples, reject when p < alpha", alpha, n, power,
                       math.sqrt(power * (1 - power) / simulations), simulations, seed, alternative)


def simulated_pearson_power(n: int, p0: np.ndarray, p1: np.ndarray, alpha: float, *, simulations: int = 2000,
                            seed: int = 0, alternative: str | None = None) -> PowerResult:
    """Power of Pearson's X^2 with its asymptotic critical value, by simulation (vectorised).

    The test as the suites run it when every expected count is >= 5; checks the noncentral
    chi-square figure, which is an approximation for alternatives that are not close to p0.
    """
    _check_n(n)
    _check_alpha(alpha)
    p0, p1 = _pair(p0, p1)
    counts = np.random.default_rng(seed).multinomial(n, p1, size=simulations)
    expected = n * p0
    statistic = ((counts - expected) ** 2 / expected).sum(axis=1)
    power = float(np.mean(statistic > stats.chi2.isf(alpha, p0.size - 1)))
    return PowerResult("Pearson chi-square goodness of fit",
                       f"simulation: {simulations} samples, asymptotic critical value", alpha, n, power,
                       math.sqrt(power * (1 - power) / simulations), simulations, seed, alternative)


def simulated_power_of_statistic(statistic: Callable[[np.ndarray], np.ndarray], null_sampler: BatchSampler,
                                 alternative_sampler: BatchSampler, n: int, alpha: float, *,
                                 simulations: int = 2000, seed: int = 0, test_name: str = "statistic",
                                 alternative: str | None = None) -> PowerResult:
    """Power of "reject when statistic > its simulated H0 critical value", all vectorised.

    ``statistic(samples)`` maps a batch (runs, ...) to one value per run (large = evidence
    against H0). The critical value is the empirical 1 - alpha quantile of ``simulations``
    H0 statistics (strict exceedance, so ties make the test conservative).
    """
    _check_n(n)
    _check_alpha(alpha)
    if simulations * alpha < 5:
        raise ValueError(f"{simulations} simulations leave fewer than 5 H0 statistics above the critical value; "
                         f"use at least {math.ceil(5 / alpha)}")
    null_rng, alternative_rng = (np.random.default_rng(child) for child in np.random.SeedSequence(seed).spawn(2))
    null_statistics = np.asarray(statistic(null_sampler(null_rng, n, simulations)), float)
    critical = float(np.quantile(null_statistics, 1 - alpha, method="higher"))
    alternative_statistics = np.asarray(statistic(alternative_sampler(alternative_rng, n, simulations)), float)
    power = float(np.mean(alternative_statistics > critical))
    return PowerResult(test_name, f"simulation: {simulations} samples under H0 (critical value) and under H1",
                       alpha, n, power, math.sqrt(power * (1 - power) / simulations), simulations, seed, alternative)


def simulated_sample_size(power_at: Callable[[int], PowerResult], target: float, *, start: int = 16,
                          relative_tolerance: float = 0.02) -> SampleSizeResult:
    """Smallest n (to ``relative_tolerance``) where a simulated power reaches ``target``.

    ``power_at(n)`` should use a fixed seed so that the search is deterministic (common
    random numbers make the simulated power nearly monotone in n). Doubling from ``start``,
    then bisection; the result carries the power and Monte-Carlo error at the n returned.
    """
    if not 0 < target < 1:
        raise ValueError(f"target power must be strictly between 0 and 1, got {target}")
    low, high = 0, max(1, start)  # low: largest n known to fall short (0: none known)
    result_high = power_at(high)
    while result_high.power < target:
        low, high = high, high * 2
        if high > MAX_SAMPLE_SIZE:
            raise ValueError(f"target power {target} not reached below {MAX_SAMPLE_SIZE} observations")
        result_high = power_at(high)
    while high - low > max(1, relative_tolerance * high):
        middle = (low + high) // 2
        result = power_at(middle)
        if result.power >= target:
            high, result_high = middle, result
        else:
            low = middle
    searched = "n searched exactly" if relative_tolerance == 0 else f"n searched to {relative_tolerance:.0%}"
    return SampleSizeResult(result_high.test, f"{result_high.method}; {searched}",
                            result_high.alpha, target, high, result_high.power, result_high.standard_error,
                            result_high.simulations, result_high.seed, result_high.alternative)


# -- bounds and helpers -------------------------------------------------------------


def total_variation_sample_size_bound(total_variation: float, alpha: float, power: float) -> int:
    """No level-``alpha`` test on n independent observations reaches ``power`` below this n.

    power - alpha <= TV(P0^n, P1^n) <= 1 - (1 - d)^n (coupling), d the one-observation total variation.
    """
    _check_alpha(alpha)
    _check_power(power, alpha)
    if not 0 < total_variation <= 1:
        raise ValueError(f"total variation must be in (0, 1], got {total_variation}")
    if total_variation == 1:
        return 1
    return max(1, math.ceil(math.log(1 - (power - alpha)) / math.log(1 - total_variation) - 1e-12))


def pool_sparse_cells(p0: np.ndarray, p1: np.ndarray, min_probability: float) -> tuple[np.ndarray, np.ndarray]:
    """Merge adjacent cells of an ordered outcome (e.g. rising sequences) so that every pooled cell
    has H0 probability >= ``min_probability``; returns the pooled (p0, p1).

    One pass from the first cell: cells are accumulated until the threshold is reached; the
    remainder at the end joins the last pooled cell. Tails are thus pooled on both sides.
    """
    p0, p1 = _pair(p0, p1)
    if not 0 < min_probability < 0.5:
        raise ValueError(f"min_probability must be in (0, 0.5), got {min_probability}")
    pooled0: list[float] = []
    pooled1: list[float] = []
    carry0 = carry1 = 0.0
    for q0, q1 in zip(p0, p1, strict=True):  # at most a few hundred cells: not a hot path
        carry0, carry1 = carry0 + q0, carry1 + q1
        if carry0 >= min_probability:
            pooled0.append(carry0)
            pooled1.append(carry1)
            carry0 = carry1 = 0.0
    if not pooled0:
        raise ValueError("min_probability leaves fewer than one cell")
    pooled0[-1] += carry0
    pooled1[-1] += carry1
    if len(pooled0) < 2:
        raise ValueError("min_probability leaves fewer than two cells")
    return np.asarray(pooled0), np.asarray(pooled1)


def _p_value(outcome: Any) -> float | None:
    value = getattr(outcome, "p_value", outcome)
    if value is None:
        return None
    value = float(value)
    if not 0 <= value <= 1:
        raise ValueError(f"the test returned p-value {value}, outside [0, 1]")
    return value


def _pair(p0: Any, p1: Any) -> tuple[np.ndarray, np.ndarray]:
    p0 = np.asarray(p0, float)
    p1 = np.asarray(p1, float)
    if p0.ndim != 1 or p0.size < 2 or p0.shape != p1.shape:
        raise ValueError(f"p0 and p1 must be 1-D of the same length >= 2, got shapes {p0.shape} and {p1.shape}")
    if np.any(p0 <= 0) or np.any(p1 < 0) or not np.isclose(p0.sum(), 1) or not np.isclose(p1.sum(), 1):
        raise ValueError("p0 must be positive, p1 non-negative, and each must sum to 1")
    return p0, p1


def _check_n(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"sample size must be a positive integer, got {n!r}")


def _check_alpha(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha}")


def _check_power(power: float, alpha: float) -> None:
    if not alpha < power < 1:
        raise ValueError(f"target power must be between alpha ({alpha}) and 1, got {power}")
