"""Power, sample size (rng_tests/power.py) and named alternatives (rng_tests/alternatives.py).

Simulation checks use fixed seeds (deterministic). "Within 3 standard errors + 0.01" allows
the Monte-Carlo error (exceeded with probability ~0.003 for a random seed) plus 0.01 for the
asymptotic approximation of the noncentral chi-square at a local alternative.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from bench.games.roulette_layout import AMERICAN_ORDER, FRENCH_ORDER
from rng_tests.alternatives import (
    DieBiasAlternative,
    LoadedDieAlternative,
    PocketAlternative,
    RiffleAlternative,
    SectorAlternative,
    parse_alternative,
    rising_sequence_distribution,
    rising_sequences,
)
from rng_tests.fairness import chi_square_gof, chi_square_power, sector_alternative, sector_max_statistic
from rng_tests.power import (
    PowerResult,
    g_test_power,
    g_test_sample_size,
    likelihood_ratio_noncentrality,
    pearson_noncentrality,
    pearson_power,
    pearson_sample_size,
    pool_sparse_cells,
    simulated_pearson_power,
    simulated_power,
    simulated_power_of_statistic,
    simulated_sample_size,
    total_variation_sample_size_bound,
)

REFERENCE = SectorAlternative(5, 1.2)
P0 = REFERENCE.null_probabilities()
P1 = REFERENCE.probabilities()


# -- alternatives -----------------------------------------------------------------------


@pytest.mark.parametrize("layout, order", [("french", FRENCH_ORDER), ("american", AMERICAN_ORDER)])
def test_sector_orbit_is_every_rotation_in_wheel_order(layout: str, order: tuple[int, ...]) -> None:
    orbit = SectorAlternative(5, 1.2, layout=layout).orbit()
    reference = sector_alternative(37, 5, 1.2)  # wheel order, sector at positions 0-4
    assert orbit.shape == (37, 37)
    for start in range(37):
        in_wheel_order = orbit[start][list(order)]
        np.testing.assert_allclose(in_wheel_order, np.roll(reference, start))
    assert {order[i] for i in range(5)} == set(np.flatnonzero(orbit[0] > 1 / 37))


def test_single_category_alternatives() -> None:
    pocket = parse_alternative("pocket:1/35", "roulette")
    assert isinstance(pocket, PocketAlternative) and pocket.spec == "pocket:1/35"
    assert pocket.orbit().shape == (37, 37)
    np.testing.assert_allclose(np.diag(pocket.orbit()), 1 / 35)
    np.testing.assert_allclose(pocket.orbit().sum(axis=1), 1)
    loaded = parse_alternative("loaded:6@0.2", "dice")
    assert isinstance(loaded, LoadedDieAlternative)
    np.testing.assert_allclose(loaded.probabilities(), [0.16] * 5 + [0.2])
    bias = parse_alternative("die-bias:0.1", "dice")
    assert isinstance(bias, DieBiasAlternative)
    np.testing.assert_allclose(bias.probabilities()[[0, 5]], [0.9 / 6, 1.1 / 6])
    np.testing.assert_allclose(bias.probabilities().sum(), 1)
    assert np.all(np.diff(bias.probabilities()) > 0)


@pytest.mark.parametrize("text, kind, message", [
    ("sector:5x1.2", "roulette", "sector:5x1.2"),
    ("sector:5@1", "roulette", "not 1"),
    ("sector:40@1.2", "roulette", "width"),
    ("pocket:1/37", "roulette", "fair"),
    ("pocket:2", "roulette", "between 0 and 1"),
    ("loaded:7@0.2", "dice", "face"),
    ("sector:5@1.2", "dice", "accepted forms: loaded:FACE@P"),
    ("riffle:0", "shuffler", "riffles"),
    ("riffle", "shuffler", "riffle"),
    ("loaded:6@0.2", "slot", "unknown equipment kind"),
])
def test_bad_alternatives_name_the_string_and_the_accepted_forms(text: str, kind: str, message: str) -> None:
    with pytest.raises(ValueError, match="accepted forms|unknown equipment kind") as error:
        parse_alternative(text, kind)
    assert message in str(error.value)
    if kind != "slot":
        assert repr(text) in str(error.value)


def test_rising_sequence_distribution_reproduces_bayer_diaconis_table() -> None:
    """Total variation after k riffles of 52 cards, Bayer & Diaconis (1992), Table 1 (three decimals)."""
    published = {5: 0.924, 6: 0.614, 7: 0.334, 8: 0.167, 9: 0.085, 10: 0.043}
    for riffles, distance in published.items():
        assert RiffleAlternative(riffles).total_variation() == pytest.approx(distance, abs=0.0006)
    assert RiffleAlternative(4).total_variation() == pytest.approx(1.0, abs=0.0006)
    for riffles in (None, 1, 3, 7):
        assert rising_sequence_distribution(52, riffles).sum() == pytest.approx(1.0, abs=1e-12)


def test_gsr_riffle_model_matches_the_exact_rising_sequence_distribution() -> None:
    """3 GSR riffles of 52 cards (bench/games/shuffle_models.py, the forward "drop" model), 3000 decks:
    Pearson GOF of R against the exact distribution (cells pooled to expected >= 5) gives p >= 0.001,
    which a correct model and formula fail with probability 0.001."""
    shuffle_models = pytest.importorskip("bench.games.shuffle_models")
    decks = shuffle_models.gsr_riffle(52, np.random.default_rng(21), riffles=3, shuffles=3000)
    r = rising_sequences(decks)
    assert r.max() <= 8  # an 8-shuffle has at most 8 rising sequences
    exact = rising_sequence_distribution(52, 3)
    observed = np.bincount(r - 1, minlength=52)
    keep = exact * 3000 >= 5
    cells = np.append(observed[keep], observed[~keep].sum())
    expected = np.append(exact[keep], exact[~keep].sum())
    assert chi_square_gof(cells, expected / expected.sum()).p_value >= 0.001


def test_rising_sequences_of_known_decks() -> None:
    assert rising_sequences(np.arange(10)) == 1
    assert rising_sequences(np.arange(10)[::-1]) == 10
    assert rising_sequences(np.array([0, 5, 1, 6, 2, 7, 3, 8, 4, 9])) == 2  # a perfect riffle
    with pytest.raises(ValueError, match="permutation"):
        rising_sequences(np.array([0, 0, 1]))


# -- analytic power and sample size ----------------------------------------------------------


def test_pearson_sample_size_is_the_smallest_n_and_agrees_with_fairness() -> None:
    result = pearson_sample_size(P0, P1, 0.01, 0.9, alternative=REFERENCE.spec)
    n = result.sample_size
    assert chi_square_power(n, P0, P1, 0.01) >= 0.9 > chi_square_power(n - 1, P0, P1, 0.01)
    assert result.power == pytest.approx(pearson_power(n, P0, P1, 0.01).power)
    assert result.alternative == "sector:5@1.2" and "noncentral" in result.method
    # the noncentrality of the reference alternative, by hand: 37 (5 (6.4/1406)^2 + 32 (1/1406)^2)
    assert pearson_noncentrality(P0, P1) == pytest.approx(37 * (5 * (6.4 / 1406) ** 2 + 32 / 1406**2))


def test_g_test_uses_twice_the_kullback_leibler_divergence() -> None:
    divergence = float((P1 * np.log(P1 / P0)).sum())
    assert likelihood_ratio_noncentrality(P0, P1) == pytest.approx(2 * divergence)
    result = g_test_sample_size(P0, P1, 0.01, 0.9)
    n = result.sample_size
    assert g_test_power(n, P0, P1, 0.01).power >= 0.9 > g_test_power(n - 1, P0, P1, 0.01).power
    assert abs(n / pearson_sample_size(P0, P1, 0.01, 0.9).sample_size - 1) < 0.1  # same to first order


def test_asymptotic_power_matches_simulation_of_the_real_tests() -> None:
    """At the planned n, the simulated power of the actual Pearson and G statistics (asymptotic critical
    value, 2000 samples each) is within 3 standard errors + 0.01 of the noncentral chi-square figure."""
    n = pearson_sample_size(P0, P1, 0.01, 0.9).sample_size
    simulated = simulated_pearson_power(n, P0, P1, 0.01, simulations=2000, seed=31)
    assert abs(simulated.power - 0.9) <= 3 * simulated.standard_error + 0.01
    n_g = g_test_sample_size(P0, P1, 0.01, 0.9).sample_size
    counts = np.random.default_rng(32).multinomial(n_g, P1, size=2000)
    g = 2 * np.where(counts > 0, counts * np.log(np.maximum(counts, 1) / (n_g * P0)), 0).sum(axis=1)
    power = float(np.mean(g > stats.chi2.isf(0.01, 36)))
    assert abs(power - 0.9) <= 3 * math.sqrt(0.09 / 2000) + 0.01


def test_bad_power_arguments() -> None:
    with pytest.raises(ValueError, match="alpha"):
        pearson_power(100, P0, P1, 0)
    with pytest.raises(ValueError, match="target power"):
        pearson_sample_size(P0, P1, 0.01, 0.005)
    with pytest.raises(ValueError, match="equals the null"):
        pearson_sample_size(P0, P0, 0.01, 0.9)
    with pytest.raises(ValueError, match="same length"):
        pearson_power(10, P0, P1[:-1], 0.01)
    with pytest.raises(ValueError, match="sample size"):
        g_test_power(0, P0, P1, 0.01)


# -- simulation-based power of any test ---------------------------------------------------


def test_simulated_power_of_a_black_box_test() -> None:
    """chi_square_gof (from rng_tests.fairness) as a callable: 300 samples each.

    Under H0 the rejection rate is <= the binomial(300, 0.01) 0.999 quantile / 300; at the planned n
    it is within 3 standard errors + 0.01 of 0.9.
    """
    n = pearson_sample_size(P0, P1, 0.01, 0.9).sample_size

    def counts_sampler(p: np.ndarray):
        return lambda rng, size: rng.multinomial(size, p)

    level = simulated_power(chi_square_gof, counts_sampler(P0), n, 0.01, simulations=300, seed=41)
    assert level.power * 300 <= stats.binom.ppf(0.999, 300, 0.01)
    power = simulated_power(chi_square_gof, counts_sampler(P1), n, 0.01, simulations=300, seed=42,
                            alternative=REFERENCE.spec)
    assert abs(power.power - 0.9) <= 3 * power.standard_error + 0.01
    assert power.standard_error == pytest.approx(math.sqrt(power.power * (1 - power.power) / 300))
    assert power.simulations == 300 and power.seed == 42 and power.test == "chi_square_gof"
    # a test returning a plain p-value, and a test that is not applicable (None), are accepted
    assert simulated_power(lambda sample: 0.0, counts_sampler(P0), 10, 0.05, simulations=5).power == 1
    assert simulated_power(lambda sample: None, counts_sampler(P0), 10, 0.05, simulations=5).power == 0


def test_simulated_power_of_a_vectorised_statistic_has_level_alpha_under_h0() -> None:
    """The sector max statistic with both samplers fair: rejection rate <= binom(2000, 0.05) 0.999 quantile."""
    order = list(FRENCH_ORDER)

    def statistic(counts: np.ndarray) -> np.ndarray:
        return sector_max_statistic(counts[:, order], (3, 5, 7))[0]

    def fair(rng: np.random.Generator, n: int, runs: int) -> np.ndarray:
        return rng.multinomial(n, P0, size=runs)

    result = simulated_power_of_statistic(statistic, fair, fair, 2000, 0.05, simulations=2000, seed=51)
    assert result.power * 2000 <= stats.binom.ppf(0.999, 2000, 0.05)
    biased = simulated_power_of_statistic(statistic, fair, lambda rng, n, runs: rng.multinomial(n, P1, size=runs),
                                          8000, 0.05, simulations=2000, seed=51)
    assert biased.power > 0.9  # the sector test is aimed at this alternative


def test_simulated_sample_size_search_finds_the_threshold() -> None:
    """With a deterministic monotone power curve, the search returns n within its tolerance of the exact n."""
    exact = pearson_sample_size(P0, P1, 0.01, 0.9).sample_size

    def power_at(n: int) -> PowerResult:
        return pearson_power(n, P0, P1, 0.01)

    found = simulated_sample_size(power_at, 0.9, start=100, relative_tolerance=0.01)
    assert exact <= found.sample_size <= exact * 1.01 + 1
    assert found.power >= 0.9
    assert simulated_sample_size(power_at, 0.9, start=1, relative_tolerance=0).sample_size == exact


def test_total_variation_bound_is_below_the_most_powerful_test() -> None:
    """No test beats the bound: the exact Neyman-Pearson test on R (riffle:7) needs at least that many decks."""
    alternative = RiffleAlternative(7)
    bound = total_variation_sample_size_bound(alternative.total_variation(), 0.01, 0.9)
    p0, p1 = alternative.null_probabilities(), alternative.probabilities()
    log_ratio = np.log(p1) - np.log(p0)
    rng = np.random.default_rng(61)
    at_bound = bound - 1
    null = (rng.multinomial(at_bound, p0, size=20000) * log_ratio).sum(axis=1)
    alt = (rng.multinomial(at_bound, p1, size=20000) * log_ratio).sum(axis=1)
    power = float(np.mean(alt > np.quantile(null, 0.99)))
    assert power < 0.9 - 3 * math.sqrt(0.09 / 20000)
    assert total_variation_sample_size_bound(1.0, 0.01, 0.9) == 1


def test_pool_sparse_cells_keeps_mass_and_threshold() -> None:
    alternative = RiffleAlternative(8)
    q0, q1 = pool_sparse_cells(alternative.null_probabilities(), alternative.probabilities(), 0.02)
    assert q0.sum() == pytest.approx(1) and q1.sum() == pytest.approx(1)
    assert q0.min() >= 0.02 and 2 < q0.size < 52
    assert pearson_noncentrality(q0, q1) <= pearson_noncentrality(
        alternative.null_probabilities(), alternative.probabilities())  # pooling never adds information
