"""Chi-square goodness of fit and its power (rng_tests/fairness.py).

The simulation checks use fixed seeds, so they are deterministic; the "within 3 standard
errors" bounds are what a correct implementation satisfies for all but ~0.3 % of seeds, so a
failure after a code change means the statistics moved, not bad luck.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from rng_tests import fairness
from rng_tests.fairness import chi_square_gof, chi_square_power, sector_alternative

POCKETS = 37
FAIR = np.full(POCKETS, 1 / POCKETS)


# -- the statistic and its asymptotic p-value --------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_statistic_and_p_value_equal_scipy_chisquare(seed: int) -> None:
    counts = np.random.default_rng(seed).multinomial(3700, sector_alternative(POCKETS, 9, 1.1))
    result = chi_square_gof(counts)
    reference = stats.chisquare(counts)
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9, abs=1e-300)
    assert result.degrees_of_freedom == 36 and result.sample_size == 3700
    assert result.method == "Pearson chi-square, asymptotic"
    assert result.min_expected == pytest.approx(100.0)


def test_non_uniform_probabilities_equal_scipy_chisquare() -> None:
    probabilities = np.array([18, 18, 1], float) / 37  # red, black, zero
    counts = [1890, 1750, 60]
    result = chi_square_gof(counts, probabilities)
    reference = stats.chisquare(counts, f_exp=3700 * probabilities)
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    assert result.degrees_of_freedom == 2


def test_uniform_is_the_default() -> None:
    counts = np.random.default_rng(7).multinomial(740, FAIR)
    assert chi_square_gof(counts) == chi_square_gof(counts, FAIR)
    assert chi_square_gof(counts) == chi_square_gof(counts, list(FAIR))


def test_perfectly_even_counts_give_statistic_zero_and_p_one() -> None:
    result = chi_square_gof([100] * POCKETS)
    assert result.statistic == 0.0 and result.p_value == 1.0


# -- Monte-Carlo p-value -----------------------------------------------------


def test_monte_carlo_is_used_when_an_expected_count_is_below_5() -> None:
    counts = np.random.default_rng(11).multinomial(100, FAIR)  # expected 2.7 per pocket
    result = chi_square_gof(counts, monte_carlo_samples=4999)
    assert result.method == "Pearson chi-square, Monte-Carlo p-value (4999 resamples)"
    assert result.min_expected == pytest.approx(100 / 37)
    assert result.statistic == pytest.approx(stats.chisquare(counts).statistic)
    exceedances = result.p_value * 5000  # (k + 1) / (B + 1)
    assert exceedances == pytest.approx(round(exceedances)) and 1 <= round(exceedances) <= 5000
    assert chi_square_gof(counts, monte_carlo_samples=4999) == result  # fixed seed: reproducible


def test_expected_exactly_5_is_asymptotic() -> None:
    assert chi_square_gof([5] * 10).method == "Pearson chi-square, asymptotic"
    assert "Monte-Carlo" in chi_square_gof([5] * 9 + [4]).method  # N = 49: expected 4.9


def test_monte_carlo_p_value_matches_the_exact_p_value() -> None:
    # 3 categories, N = 6: the exact p-value is a finite sum over all 28 outcomes.
    counts, total, p0 = np.array([5, 1, 0]), 6, np.full(3, 1 / 3)
    observed = stats.chisquare(counts).statistic
    exact = 0.0
    for a, b in itertools.product(range(total + 1), repeat=2):
        if a + b <= total:
            outcome = np.array([a, b, total - a - b])
            if stats.chisquare(outcome).statistic >= observed - 1e-9:
                exact += stats.multinomial.pmf(outcome, total, p0)
    samples = 20_000
    result = chi_square_gof(counts, monte_carlo_samples=samples, seed=3)
    # Monte-Carlo standard error sqrt(p (1 - p) / B) ~ 0.0015 here; 4 SE leaves ~1e-4 false alarms.
    assert abs(result.p_value - exact) < 4 * math.sqrt(exact * (1 - exact) / samples) + 1 / samples


def test_monte_carlo_agrees_with_asymptotics_where_both_are_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    # 3,700 spins, expected 100 per pocket: the chi-square(36) tail is accurate to well under 0.005.
    # Forcing the Monte-Carlo branch on the same counts must give the same p-value within
    # Monte-Carlo error: SE = sqrt(p (1 - p) / B) ~ 0.0035 for B = 20,000; tolerance 4 SE + 0.005.
    counts = np.random.default_rng(5).multinomial(3700, FAIR)
    asymptotic = chi_square_gof(counts)
    assert asymptotic.method.endswith("asymptotic") and 0.05 < asymptotic.p_value < 0.95

    monkeypatch.setattr(fairness, "MIN_EXPECTED_FOR_ASYMPTOTICS", math.inf)
    samples = 20_000
    monte_carlo = chi_square_gof(counts, monte_carlo_samples=samples, seed=1)
    assert "Monte-Carlo" in monte_carlo.method
    assert monte_carlo.statistic == asymptotic.statistic
    p = asymptotic.p_value
    assert abs(monte_carlo.p_value - p) < 4 * math.sqrt(p * (1 - p) / samples) + 0.005


# -- input validation ---------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "probabilities", "message"),
    [
        ([[1, 2], [3, 4]], None, "1-D"),
        ([10], None, "at least two categories"),
        ([], None, "at least two categories"),
        ([5, -1, 3], None, "non-negative"),
        ([0, 0, 0], None, "no observations"),
        ([5, 5, 5], [0.5, 0.5], "probabilities"),
        ([5, 5, 5], [0.5, 0.5, 0.0], "probabilities"),
        ([5, 5, 5], [0.6, 0.6, -0.2], "probabilities"),
        ([5, 5, 5], [0.3, 0.3, 0.3], "summing to 1"),
        ([5, 5, 5], [math.nan, 0.5, 0.5], "probabilities"),
    ],
)
def test_input_validation(counts: object, probabilities: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        chi_square_gof(counts, probabilities)  # type: ignore[arg-type]


# -- power ----------------------------------------------------------------------


def test_sector_alternative() -> None:
    p1 = sector_alternative(POCKETS, 9, 1.3)
    assert p1.sum() == pytest.approx(1.0)
    assert np.allclose(p1[:9], 1.3 / 39.7) and np.allclose(p1[9:], 1 / 39.7)


def test_power_is_the_noncentral_chi_square_tail() -> None:
    n, alpha = 3700, 0.01
    p1 = sector_alternative(POCKETS, 9, 1.3)
    # lambda = N * 37 * (9 (1.3/39.7 - 1/37)^2 + 28 (1/39.7 - 1/37)^2), computed by hand
    noncentrality = n * POCKETS * (9 * (1.3 / 39.7 - 1 / 37) ** 2 + 28 * (1 / 39.7 - 1 / 37) ** 2)
    assert noncentrality == pytest.approx(53.243152, rel=1e-6)
    # The noncentral chi-square tail as a Poisson(lambda/2) mixture of central tails, independent of ncx2.
    critical = stats.chi2.isf(alpha, POCKETS - 1)
    j = np.arange(400)
    mixture = float((stats.poisson.pmf(j, noncentrality / 2) * stats.chi2.sf(critical, POCKETS - 1 + 2 * j)).sum())
    power = chi_square_power(n, FAIR, p1, alpha)
    assert power == pytest.approx(mixture, abs=1e-9)
    assert power == pytest.approx(0.97601, abs=1e-5)


def test_power_under_the_null_is_alpha_and_grows_with_sample_size() -> None:
    assert chi_square_power(3700, FAIR, FAIR, 0.01) == pytest.approx(0.01, rel=1e-9)
    p1 = sector_alternative(POCKETS, 9, 1.3)
    powers = [chi_square_power(n, FAIR, p1, 0.01) for n in (370, 1850, 3700, 7400)]
    assert powers == sorted(powers) and powers[0] < 0.2 and powers[-1] > 0.999


def _rejection_rate(probabilities: np.ndarray, alpha: float, *, samples: int, seed: int) -> float:
    """Share of ``samples`` simulated runs of 3,700 spins that chi_square_gof rejects at ``alpha``."""
    runs = np.random.default_rng(seed).multinomial(3700, probabilities, size=samples)
    return float(np.mean([chi_square_gof(run).p_value < alpha for run in runs]))


def test_simulated_rejection_rate_matches_the_computed_power() -> None:
    # 2,000 simulated samples of N = 3,700 from the 9-pocket x1.3 sector alternative. Power ~ 0.976,
    # so the standard error of the empirical rate is sqrt(0.976 * 0.024 / 2000) ~ 0.0034 and the
    # 3 SE band is about +-0.010 (a correct implementation falls outside it for ~0.3 % of seeds).
    samples, alpha = 2000, 0.01
    p1 = sector_alternative(POCKETS, 9, 1.3)
    power = chi_square_power(3700, FAIR, p1, alpha)
    rate = _rejection_rate(p1, alpha, samples=samples, seed=2024)
    assert abs(rate - power) <= 3 * math.sqrt(power * (1 - power) / samples)


def test_simulated_type_one_error_rate_is_alpha() -> None:
    # Fair wheel, 2,000 samples of N = 3,700, alpha = 0.01: SE = sqrt(0.01 * 0.99 / 2000) ~ 0.0022,
    # so the 3 SE band is [0.0033, 0.0167]; the test must neither over- nor under-reject a fair wheel.
    samples, alpha = 2000, 0.01
    rate = _rejection_rate(FAIR, alpha, samples=samples, seed=2025)
    assert abs(rate - alpha) <= 3 * math.sqrt(alpha * (1 - alpha) / samples)
