"""Chi-square goodness of fit and its power (rng_tests/fairness/goodness_of_fit.py).

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

from rng_tests.fairness import chi_square_gof, chi_square_power, goodness_of_fit, sector_alternative

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
    result = chi_square_gof(counts, monte_carlo_samples=samples, seed=3, exact_limit=0)  # force Monte-Carlo
    assert "Monte-Carlo" in result.method
    # Monte-Carlo standard error sqrt(p (1 - p) / B) ~ 0.0015 here; 4 SE leaves ~1e-4 false alarms.
    assert abs(result.p_value - exact) < 4 * math.sqrt(exact * (1 - exact) / samples) + 1 / samples


def test_monte_carlo_agrees_with_asymptotics_where_both_are_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    # 3,700 spins, expected 100 per pocket: the chi-square(36) tail is accurate to well under 0.005.
    # Forcing the Monte-Carlo branch on the same counts must give the same p-value within
    # Monte-Carlo error: SE = sqrt(p (1 - p) / B) ~ 0.0035 for B = 20,000; tolerance 4 SE + 0.005.
    counts = np.random.default_rng(5).multinomial(3700, FAIR)
    asymptotic = chi_square_gof(counts)
    assert asymptotic.method.endswith("asymptotic") and 0.05 < asymptotic.p_value < 0.95

    monkeypatch.setattr(goodness_of_fit, "MIN_EXPECTED_FOR_ASYMPTOTICS", math.inf)
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


# -- exact multinomial p-value (rng_tests/fairness/goodness_of_fit.py) -----------------------------


def _brute_force_p_value(counts: list[int], p0: np.ndarray, statistic: str) -> float:
    """P(T >= t_obs) summed over every outcome with itertools and scipy's multinomial pmf."""
    total, k = sum(counts), len(counts)

    def value(outcome: np.ndarray) -> float:
        expected = total * p0
        if statistic == "pearson":
            return float(((outcome - expected) ** 2 / expected).sum())
        nonzero = outcome > 0
        return float(2 * (outcome[nonzero] * np.log(outcome[nonzero] / expected[nonzero])).sum())

    observed = value(np.array(counts))
    p = 0.0
    for head in itertools.product(range(total + 1), repeat=k - 1):
        if sum(head) <= total:
            outcome = np.array([*head, total - sum(head)])
            if value(outcome) >= observed - 1e-9:
                p += stats.multinomial.pmf(outcome, total, p0)
    return p


@pytest.mark.parametrize(
    ("counts", "probabilities"),
    [([5, 1, 0], None), ([0, 0, 7, 1], None), ([3, 2, 0], [0.5, 0.3, 0.2]), ([9, 0, 1, 0], [0.7, 0.1, 0.1, 0.1])],
)
def test_exact_p_value_equals_brute_force_enumeration(counts: list[int], probabilities: list[float] | None) -> None:
    p0 = np.full(len(counts), 1 / len(counts)) if probabilities is None else np.array(probabilities)
    pearson = chi_square_gof(counts, probabilities)
    assert pearson.method.startswith("Pearson chi-square, exact multinomial p-value")
    assert pearson.p_value == pytest.approx(_brute_force_p_value(counts, p0, "pearson"), rel=1e-9)
    g = goodness_of_fit.g_test(counts, probabilities)
    assert "exact multinomial" in g.method
    assert g.p_value == pytest.approx(_brute_force_p_value(counts, p0, "g"), rel=1e-9)


def test_exact_and_monte_carlo_p_values_agree_on_small_samples() -> None:
    # 6 categories, N = 12: 6,188 outcomes enumerated versus 20,000 resamples. Monte-Carlo SE is
    # sqrt(p (1 - p) / B) <= 0.0036; the 4 SE band fails a correct implementation with prob ~1e-4.
    counts = [5, 3, 2, 1, 1, 0]
    samples = 20_000
    for test in (goodness_of_fit.pearson_chi_square, goodness_of_fit.g_test):
        exact = test(counts)
        monte_carlo = test(counts, exact_limit=0, monte_carlo_samples=samples, seed=4)
        assert "exact" in exact.method and "Monte-Carlo" in monte_carlo.method
        assert exact.statistic == monte_carlo.statistic
        p = exact.p_value
        assert abs(monte_carlo.p_value - p) < 4 * math.sqrt(p * (1 - p) / samples) + 1 / samples


def test_enumeration_limit_decides_between_exact_and_monte_carlo() -> None:
    counts = [5, 3, 2, 1, 1, 0]  # C(17, 5) = 6,188 outcomes
    assert goodness_of_fit.composition_count(12, 6) == 6188
    assert "exact" in chi_square_gof(counts, exact_limit=6188).method
    assert "Monte-Carlo" in chi_square_gof(counts, exact_limit=6187).method


@pytest.mark.parametrize(("total", "categories"), [(0, 3), (1, 1), (5, 3), (4, 5), (7, 2)])
def test_enumerate_compositions(total: int, categories: int) -> None:
    outcomes = goodness_of_fit.enumerate_compositions(total, categories)
    assert outcomes.shape == (math.comb(total + categories - 1, categories - 1), categories)
    assert np.all(outcomes >= 0) and np.all(outcomes.sum(axis=1) == total)
    assert len({tuple(row) for row in outcomes.tolist()}) == outcomes.shape[0]  # all distinct


def test_multinomial_log_pmf_equals_scipy() -> None:
    p0 = np.array([0.2, 0.3, 0.5])
    outcomes = goodness_of_fit.enumerate_compositions(6, 3)
    expected = stats.multinomial.logpmf(outcomes, 6, p0)
    assert np.allclose(goodness_of_fit.multinomial_log_pmf(outcomes, p0), expected)
    assert np.exp(goodness_of_fit.multinomial_log_pmf(outcomes, p0)).sum() == pytest.approx(1.0)


# -- G-test ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_g_test_equals_scipy_power_divergence(seed: int) -> None:
    counts = np.random.default_rng(seed).multinomial(3700, sector_alternative(POCKETS, 9, 1.1))
    result = goodness_of_fit.g_test(counts)
    reference = stats.power_divergence(counts, lambda_="log-likelihood")
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)
    assert result.degrees_of_freedom == 36 and result.method == "G-test (likelihood ratio), asymptotic"


def test_g_test_with_probabilities_and_a_zero_count_equals_scipy() -> None:
    probabilities = np.array([0.5, 0.25, 0.125, 0.125])
    counts = [60, 30, 30, 0]
    result = goodness_of_fit.g_test(counts, probabilities)
    reference = stats.power_divergence(counts, f_exp=120 * probabilities, lambda_="log-likelihood")
    assert result.statistic == pytest.approx(reference.statistic, rel=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, rel=1e-9)


def test_williams_correction_divides_g_by_q() -> None:
    counts = [30, 20, 10]  # k = 3, N = 60: q = 1 + 4 / 360
    plain = goodness_of_fit.g_test(counts)
    corrected = goodness_of_fit.g_test(counts, williams=True)
    q = 1 + 4 / 360
    assert corrected.statistic == pytest.approx(plain.statistic / q, rel=1e-12)
    assert corrected.p_value == pytest.approx(stats.chi2.sf(plain.statistic / q, 2), rel=1e-12)
    assert corrected.p_value > plain.p_value and "Williams" in corrected.method


def test_williams_correction_leaves_exact_p_value_unchanged() -> None:
    counts = [5, 1, 0]
    assert goodness_of_fit.g_test(counts, williams=True).p_value == goodness_of_fit.g_test(counts).p_value


def test_test_result_details_and_conversion() -> None:
    result = goodness_of_fit.pearson_chi_square([18, 12, 0], [0.5, 0.4, 0.1], categories=["a", "b", "c"],
                                                test="demo", null_hypothesis="H0 demo")
    assert result.test == "demo" and result.null_hypothesis == "H0 demo" and result.sample_size == 30
    assert result.details["observed"] == [18, 12, 0]
    assert result.details["expected"] == pytest.approx([15, 12, 3])
    assert result.details["largest_residual"] == {"category": "c", "residual": pytest.approx(-math.sqrt(3), abs=1e-4)}
    assert result.passed(0.01) is (result.p_value >= 0.01)
    gof = chi_square_gof([18, 12, 0], [0.5, 0.4, 0.1])
    converted = gof.to_test_result("demo", "H0 demo")
    assert (converted.statistic, converted.p_value, converted.method) == (gof.statistic, gof.p_value, gof.method)
    assert converted.to_json()["details"]["min_expected"] == pytest.approx(3.0)


def test_gof_test_dispatch_and_errors() -> None:
    counts = [40, 30, 30]
    assert goodness_of_fit.gof_test(counts, statistic="g") == goodness_of_fit.g_test(counts)
    assert goodness_of_fit.gof_test(counts) == goodness_of_fit.pearson_chi_square(counts)
    with pytest.raises(ValueError, match="unknown statistic"):
        goodness_of_fit.gof_test(counts, statistic="cramer")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="whole numbers"):
        chi_square_gof([1.5, 2, 3])
    with pytest.raises(ValueError, match="categories must name"):
        goodness_of_fit.pearson_chi_square(counts, categories=["a", "b"])
    with pytest.raises(ValueError, match="monte_carlo_samples"):
        chi_square_gof(counts, monte_carlo_samples=0)


# -- contingency-table independence ------------------------------------------------------------------


def test_two_way_independence_equals_scipy_chi2_contingency() -> None:
    table = np.array([[10, 20, 30], [20, 25, 15]])
    result = goodness_of_fit.contingency_independence(table)
    statistic, p_value, dof, _ = stats.chi2_contingency(table, correction=False)
    assert result.statistic == pytest.approx(statistic, rel=1e-12)
    assert result.p_value == pytest.approx(p_value, rel=1e-9)
    assert result.degrees_of_freedom == dof == 2 and result.sample_size == 120
    g = goodness_of_fit.contingency_independence(table, statistic="g")
    g_statistic, g_p_value, _, _ = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")
    assert g.statistic == pytest.approx(g_statistic, rel=1e-12) and g.p_value == pytest.approx(g_p_value, rel=1e-9)


def test_two_way_williams_correction_by_hand() -> None:
    table = np.array([[12, 8], [5, 15]])  # N = 40, rows 20/20, columns 17/23
    plain = goodness_of_fit.contingency_independence(table, statistic="g")
    corrected = goodness_of_fit.contingency_independence(table, statistic="g", williams=True)
    q = 1 + (40 * (1 / 20 + 1 / 20) - 1) * (40 * (1 / 17 + 1 / 23) - 1) / (6 * 40)
    assert corrected.statistic == pytest.approx(plain.statistic / q, rel=1e-12)


def test_two_way_monte_carlo_matches_the_exact_conditional_p_value() -> None:
    # 2x2 with margins (8, 8) x (8, 8): given the margins the table is fixed by its top-left cell,
    # hypergeometric under H0, so the exact conditional p-value is a sum over 9 tables.
    table = np.array([[6, 2], [2, 6]])
    samples = 20_000
    result = goodness_of_fit.contingency_independence(table, monte_carlo_samples=samples, seed=2)
    assert "Monte-Carlo" in result.method  # expected counts 4 < 5
    observed = stats.chi2_contingency(table, correction=False)[0]
    exact = 0.0
    for a in range(9):
        other = np.array([[a, 8 - a], [8 - a, a]])
        if stats.chi2_contingency(other, correction=False)[0] >= observed - 1e-9:
            exact += stats.hypergeom.pmf(a, 16, 8, 8)
    # SE = sqrt(p (1 - p) / B) ~ 0.0024; 4 SE band: false alarm ~1e-4.
    assert abs(result.p_value - exact) < 4 * math.sqrt(exact * (1 - exact) / samples) + 1 / samples


def test_three_way_mutual_independence_by_hand() -> None:
    rng = np.random.default_rng(8)
    table = rng.integers(5, 40, size=(2, 3, 4))
    result = goodness_of_fit.contingency_independence(table)
    total = table.sum()
    a, b, c = table.sum(axis=(1, 2)), table.sum(axis=(0, 2)), table.sum(axis=(0, 1))
    expected = np.einsum("i,j,k->ijk", a, b, c) / total**2
    statistic = float(((table - expected) ** 2 / expected).sum())
    dof = 24 - 1 - (1 + 2 + 3)
    assert result.degrees_of_freedom == dof and result.statistic == pytest.approx(statistic, rel=1e-12)
    assert expected.min() >= 5 and "asymptotic" in result.method
    assert result.p_value == pytest.approx(stats.chi2.sf(statistic, dof), rel=1e-9)


def test_resampled_tables_keep_the_observed_margins() -> None:
    table = np.array([[[3, 0], [1, 2]], [[0, 4], [2, 1]]])
    tables = goodness_of_fit._resample_tables(table.astype(float), 500, np.random.default_rng(1))
    tables = tables.reshape(500, 2, 2, 2)
    for axes in [(1, 2), (0, 2), (0, 1)]:
        assert np.all(tables.sum(axis=tuple(a + 1 for a in axes)) == table.sum(axis=axes))
    assert len({tuple(t.ravel()) for t in tables}) > 10  # genuinely random tables


def test_three_way_monte_carlo_rejects_a_dependent_table_and_not_an_independent_one() -> None:
    # Third variable = parity of the sum of the first two: pairwise independent, jointly dependent.
    rng = np.random.default_rng(12)
    first, second = rng.integers(0, 2, 60), rng.integers(0, 2, 60)
    dependent = np.zeros((2, 2, 2))
    np.add.at(dependent, (first, second, (first + second) % 2), 1)
    result = goodness_of_fit.contingency_independence(dependent, monte_carlo_samples=2000)
    assert "Monte-Carlo" in result.method and result.p_value < 0.01  # power ~1 at N = 60
    independent = np.zeros((2, 2, 2))
    np.add.at(independent, (first, second, rng.integers(0, 2, 60)), 1)
    # A true H0: fails with probability 0.01; seed fixed so the test is deterministic.
    assert goodness_of_fit.contingency_independence(independent, monte_carlo_samples=2000).p_value >= 0.01


def test_independence_drops_empty_levels_and_reports_single_level_as_not_applicable() -> None:
    table = np.array([[10, 0, 12], [11, 0, 9]])
    result = goodness_of_fit.contingency_independence(table)
    assert result.details["dropped_empty_levels"] == {"axis 1": [1]} and result.degrees_of_freedom == 1
    single = goodness_of_fit.contingency_independence([[10, 12], [0, 0]])
    assert single.p_value is None and single.passed(0.01) is None and "fewer than two" in single.not_applicable


@pytest.mark.parametrize(
    ("table", "options", "message"),
    [
        ([1, 2, 3], {}, "at least two dimensions"),
        ([[1, -2], [3, 4]], {}, "non-negative"),
        ([[1.5, 2], [3, 4]], {}, "whole"),
        ([[0, 0], [0, 0]], {}, "no observations"),
        ([[1, 2], [3, 4]], {"statistic": "x"}, "unknown statistic"),
        ([[1, 2], [3, 4]], {"williams": True}, "Williams"),
    ],
)
def test_independence_input_validation(table: object, options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        goodness_of_fit.contingency_independence(table, **options)  # type: ignore[arg-type]
