"""Tests of the card-shuffle tests (rng_tests.fairness.cards).

Exact null laws are checked against brute-force enumeration of every order of a small deck.
Detection checks use S = 40 shuffles of one 52-card deck: the smallest S at which all four tests
reject 3 GSR riffles with power >= 0.9 at alpha = 0.01 (benchmarks/riffle_detection.py measured
powers 0.95 (position), 1.00 (adjacent pairs, rising sequences, successor) at S = 40). Each
statistical assertion states its error rate; seeds are fixed, so the outcomes are deterministic.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from bench.games.shuffle_models import bayer_diaconis_probability, clumped_shuffle, fisher_yates, gsr_riffle
from rng_tests.fairness.cards import (
    adjacent_pairs,
    adjacent_pairs_test,
    card_shuffle_tests,
    eulerian_numbers,
    position_frequency_test,
    relative_orders,
    riffle_total_variation,
    rising_sequence_distribution,
    rising_sequence_test,
    rising_sequences,
    succession_distribution,
    successor_null_spectrum,
    successor_test,
    weighted_chi_square_sf,
)
from rng_tests.result import TestResult

ALPHA = 0.01
DECK = np.arange(52)
S_REALISTIC = 40
MC = 999  # Monte-Carlo samples: p resolution 0.001


def _all_orders(n: int) -> np.ndarray:
    return np.array(list(itertools.permutations(range(n))))


# -- exact null laws against enumeration ---------------------------------------------------


@pytest.mark.parametrize("n", [4, 6])
def test_eulerian_numbers_count_descents(n: int) -> None:
    orders = _all_orders(n)
    brute = np.bincount(rising_sequences(orders) - 1, minlength=n)
    assert list(eulerian_numbers(n)) == brute.tolist()
    assert sum(eulerian_numbers(52)) == math.factorial(52)


def test_uniform_rising_sequence_law_has_known_moments() -> None:
    law = rising_sequence_distribution(52)
    r = np.arange(1, 53)
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    assert (r * law).sum() == pytest.approx(53 / 2, rel=1e-12)
    assert (r**2 * law).sum() - ((r * law).sum()) ** 2 == pytest.approx(53 / 12, rel=1e-9)


@pytest.mark.parametrize("riffles", [1, 2, 3])
def test_riffle_rising_sequence_law_matches_bayer_diaconis_by_enumeration(riffles: int) -> None:
    orders = _all_orders(5)
    r = rising_sequences(orders)
    brute = np.zeros(5)
    for value in r:
        brute[value - 1] += float(bayer_diaconis_probability(5, riffles, int(value)))
    assert rising_sequence_distribution(5, riffles) == pytest.approx(brute, abs=1e-15)


def test_total_variation_matches_bayer_diaconis_table() -> None:
    # Bayer & Diaconis (1992), Table 1, n = 52: k = 5 .. 10 -> .924 .614 .334 .167 .085 .043
    published = {3: 1.000, 5: 0.924, 6: 0.614, 7: 0.334, 8: 0.167, 9: 0.085, 10: 0.043}
    for riffles, value in published.items():
        assert riffle_total_variation(52, riffles) == pytest.approx(value, abs=6e-4)


def test_succession_law_matches_enumeration() -> None:
    n = 6
    orders = _all_orders(n)
    brute = np.bincount(adjacent_pairs(orders), minlength=n) / len(orders)
    law = succession_distribution(n)
    assert law == pytest.approx(brute, abs=1e-15)
    a = np.arange(n)
    assert (a * law).sum() == pytest.approx((n - 1) / n)
    assert (a**2 * law).sum() - (a * law).sum() ** 2 == pytest.approx((n * n - n - 1) / n**2)


def _indicator_covariance(indicators: np.ndarray) -> np.ndarray:
    return np.cov(indicators.T, bias=True)


@pytest.mark.parametrize("n", [5, 6])
def test_successor_null_spectrum_by_enumeration(n: int) -> None:
    """Eigenvalues of n·Cov of the successor indicators (all n! orders) are the claimed ones."""
    orders = _all_orders(n)
    cells = orders[:, :-1] * n + orders[:, 1:]
    indicators = np.zeros((len(orders), n * n))
    np.put_along_axis(indicators, cells, 1.0, axis=1)
    off = ~np.eye(n, dtype=bool).ravel()
    eigen = np.linalg.eigvalsh(n * _indicator_covariance(indicators[:, off]))
    weights, dofs = successor_null_spectrum(n)
    claimed = np.sort(np.concatenate([[0.0], np.repeat(weights, dofs.astype(int))]))
    assert eigen == pytest.approx(claimed, abs=1e-9)


@pytest.mark.parametrize(("n", "bins"), [(5, 5), (6, 3), (7, 3)])
def test_position_statistic_scaling_by_enumeration(n: int, bins: int) -> None:
    """Per shuffle, the expected-normalised covariance of the (collapsed) position table is n/(n−1)
    times a projection of rank (b−1)², which justifies X² (n−1)/n ~ chi-square((b−1)²)."""
    orders = _all_orders(n)
    block = (np.arange(n) * bins) // n
    sizes = np.bincount(block).astype(float)
    cells = block[orders] * bins + block[np.arange(n)]
    tables = np.zeros((len(orders), bins * bins))
    np.add.at(tables, (np.repeat(np.arange(len(orders)), n), cells.ravel()), 1.0)
    expected = (np.outer(sizes, sizes) / n).ravel()
    normalised = _indicator_covariance(tables) / np.sqrt(np.outer(expected, expected))
    eigen = np.linalg.eigvalsh(normalised)
    claimed = np.sort(np.concatenate([np.zeros(bins * bins - (bins - 1) ** 2), np.full((bins - 1) ** 2, n / (n - 1))]))
    assert eigen == pytest.approx(claimed, abs=1e-9)


def test_imhof_matches_independent_computations() -> None:
    assert weighted_chi_square_sf(2700.0, np.array([1.0]), np.array([2601.0])) == pytest.approx(
        stats.chi2.sf(2700.0, 2601), rel=1e-6)
    assert weighted_chi_square_sf(70.0, np.array([2.0]), np.array([30.0])) == pytest.approx(
        stats.chi2.sf(35.0, 30), rel=1e-6)
    # 0.5 χ²(12) + 1.3 χ²(30) by direct numerical convolution of the two laws
    first, second = stats.chi2(12, scale=0.5), stats.chi2(30, scale=1.3)
    for x in (20.0, 45.0, 90.0):
        direct = integrate.quad(lambda t, x=x: first.pdf(t) * second.sf(x - t), 0, x, epsabs=1e-13)[0] + first.sf(x)
        assert weighted_chi_square_sf(x, np.array([0.5, 1.3]), np.array([12.0, 30.0])) == pytest.approx(
            direct, rel=1e-6, abs=1e-10)


# -- the statistics on hand-made orders ----------------------------------------------------


def test_statistics_are_relative_to_the_input_order() -> None:
    start = np.array([10, 11, 12, 13])
    outputs = np.array([[10, 12, 11, 13], [13, 12, 11, 10], [10, 11, 12, 13]])
    relative = relative_orders(start, outputs)
    assert rising_sequences(relative).tolist() == [2, 4, 1]
    assert adjacent_pairs(relative).tolist() == [0, 0, 3]
    shuffled_start = np.array([12, 10, 13, 11])  # the same orders seen from another loading order
    assert rising_sequences(relative_orders(shuffled_start, shuffled_start[np.newaxis, :])).tolist() == [1]


def test_tests_invariant_under_renaming_cards() -> None:
    rng = np.random.default_rng(21)
    outputs = gsr_riffle(52, rng, 5, 30)
    names = rng.permutation(1000)[:52]  # arbitrary card ids
    for test in (adjacent_pairs_test, rising_sequence_test):
        assert test(DECK, outputs).p_value == pytest.approx(test(names, names[outputs]).p_value)
    assert position_frequency_test(DECK, outputs, monte_carlo_samples=99).statistic == pytest.approx(
        position_frequency_test(names, names[outputs], monte_carlo_samples=99).statistic)


# -- calibration: uniform shuffles pass --------------------------------------------------------


@pytest.mark.parametrize(("shuffles", "seed"), [(S_REALISTIC, 1), (300, 2)])
def test_fisher_yates_passes_all_tests(shuffles: int, seed: int) -> None:
    """Uniform shuffles: each test rejects with probability 0.01 (S = 40: Monte-Carlo tables;
    S = 300: asymptotic tables, expected 5.8 per cell)."""
    outputs = fisher_yates(52, np.random.default_rng(seed), shuffles)
    results = card_shuffle_tests(DECK, outputs, monte_carlo_samples=MC)
    for result in results.values():
        assert isinstance(result, TestResult)
        assert result.sample_size == shuffles
        assert result.passed(ALPHA), result
    position = results["position_frequency"].method
    assert ("Monte-Carlo" in position) == (shuffles == S_REALISTIC)


def test_null_p_values_are_calibrated_for_exact_tests() -> None:
    """Under H0 the exact tests reject at most at their nominal rate: 400 repetitions of S = 5
    uniform shuffles; the count of p < 0.05 is Binomial(400, <= 0.05), and exceeds 34 with
    probability below 0.001 for a correctly calibrated test."""
    rng = np.random.default_rng(31)
    rejections = {"adjacent": 0, "rising": 0}
    for _ in range(400):
        outputs = fisher_yates(52, rng, 5)
        rejections["adjacent"] += adjacent_pairs_test(DECK, outputs).p_value < 0.05
        rejections["rising"] += rising_sequence_test(DECK, outputs).p_value < 0.05
    assert all(count <= 34 for count in rejections.values()), rejections
    assert rejections["rising"] >= 6  # and they are not vacuous: P(Binomial(400, 0.05) < 6) < 1e-4


# -- riffle detection at the realistic sample size -----------------------------------------------


def test_three_riffles_fail_every_test() -> None:
    """Power >= 0.95 for each test (benchmark); all four reject at this seed."""
    outputs = gsr_riffle(52, np.random.default_rng(33), 3, S_REALISTIC)
    results = card_shuffle_tests(DECK, outputs, monte_carlo_samples=MC)
    assert not any(result.passed(ALPHA) for result in results.values()), results
    assert results["rising_sequences"].details["mean_per_shuffle"] <= 8  # 3 riffles: at most 2^3 sequences


def test_seven_riffles_pass_position_adjacency_successor_but_not_rising_sequences() -> None:
    """At S = 40, 7 riffles are rejected by the position and successor tests with probability about
    alpha and by adjacent pairs with probability 0.08 (benchmark): they pass at this seed. The
    rising-sequence test rejects them with probability about 1 (mean 24.71 against 26.5, 0.85 sd
    per shuffle): 7 riffles are not uniform, and that test sees it. Against the reference law of
    7 riffles it accepts them (probability 1 − alpha)."""
    outputs = gsr_riffle(52, np.random.default_rng(34), 7, S_REALISTIC)
    results = card_shuffle_tests(DECK, outputs, monte_carlo_samples=MC)
    for name in ("position_frequency", "adjacent_pairs", "successor"):
        assert results[name].passed(ALPHA), results[name]
    assert not results["rising_sequences"].passed(ALPHA)
    assert rising_sequence_test(DECK, outputs, reference_riffles=7).passed(ALPHA)


@pytest.mark.parametrize(("riffles", "passes"), [(3, False), (5, False), (7, True), (8, True), (10, True)])
def test_at_least_seven_riffles_criterion(riffles: int, passes: bool) -> None:
    """H0 'mixes at least as well as 7 riffles': rejected for 3 and 5 riffles with power about 1
    at S = 40 (exact: mean shift 8.8 and 2.4 sd per shuffle), accepted for 7 or more with probability
    at least 0.99."""
    outputs = gsr_riffle(52, np.random.default_rng(40 + riffles), riffles, S_REALISTIC, method="inverse")
    assert rising_sequence_test(DECK, outputs, reference_riffles=7).passed(ALPHA) is passes
    fair = fisher_yates(52, np.random.default_rng(50), S_REALISTIC)
    assert rising_sequence_test(DECK, fair, reference_riffles=7).passed(ALPHA)


def test_clumping_shuffler_is_detected() -> None:
    """Clumps of mean size 2 keep half the neighbours: adjacent pairs and successors reject with
    power about 1 at S = 40 (26 kept pairs per shuffle against 1)."""
    outputs = clumped_shuffle(52, np.random.default_rng(60), mean_clump=2.0, shuffles=S_REALISTIC)
    assert not adjacent_pairs_test(DECK, outputs, alternative="greater").passed(ALPHA)
    assert not successor_test(DECK, outputs, monte_carlo_samples=MC).passed(ALPHA)


def test_six_deck_shoe_is_collapsed() -> None:
    """A 312-card shoe: tables collapse to 52 x 52 blocks. Uniform shuffles pass (each test fails
    with probability 0.01); 3 riffles fail (power about 1: they leave 8 rising sequences of 39 cards)."""
    shoe = np.arange(312)
    fair = fisher_yates(312, np.random.default_rng(70), 50)
    position = position_frequency_test(shoe, fair)
    successor = successor_test(shoe, fair, monte_carlo_samples=199)
    assert position.details["bins"] == 52 and successor.details["bins"] == 52
    assert "asymptotic" in position.method  # 50 x 36 / 312 = 5.8 expected per cell
    assert position.passed(ALPHA) and successor.passed(ALPHA)
    riffled = gsr_riffle(312, np.random.default_rng(71), 3, 50, method="inverse")
    assert not position_frequency_test(shoe, riffled).passed(ALPHA)
    assert not successor_test(shoe, riffled, monte_carlo_samples=199).passed(ALPHA)


# -- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("start", "outputs", "message"),
    [
        (np.arange(5), np.array([[0, 1, 2, 3, 3]]), "not a permutation"),
        (np.arange(5), np.array([[0, 1, 2, 3]]), "rows have 4 cards"),
        (np.array([0, 1, 1]), np.array([[0, 1, 1]]), "repeated card ids"),
        (np.arange(3), np.array([[0, 1, 7]]), "not in input_order"),
        (np.array([-1, 0]), np.array([[0, -1]]), "non-negative"),
        (np.arange(3), np.array([[0.0, 1.0, 2.0]]), "integer array"),
    ],
)
def test_bad_orders_raise(start: np.ndarray, outputs: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rising_sequence_test(start, outputs)


def test_bad_options_raise() -> None:
    outputs = fisher_yates(52, np.random.default_rng(0), 3)
    with pytest.raises(ValueError, match="bins must be"):
        position_frequency_test(DECK, outputs, bins=1)
    with pytest.raises(ValueError, match="alternative"):
        adjacent_pairs_test(DECK, outputs, alternative="less")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="monte_carlo_samples"):
        successor_test(DECK, outputs, monte_carlo_samples=0)
    with pytest.raises(ValueError, match="reference_riffles"):
        rising_sequence_test(DECK, outputs, reference_riffles=-2)
