"""Roulette fairness tests (rng_tests/fairness/roulette.py).

Simulated wheels use numpy with fixed seeds, so every check is deterministic; each statistical
check states how often a correct implementation would fail it for a random seed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from bench.games.roulette_layout import AMERICAN_ORDER, FRENCH_ORDER, colour
from rng_tests.fairness import adjust, roulette
from rng_tests.fairness.roulette import (
    DOUBLE_ZERO,
    DOUBLE_ZERO_ORDER,
    arc_counts,
    sector_alternative,
    sector_max_statistic,
    sector_null_distribution,
    sector_p_values,
)

POCKETS = 37
SPINS = 3700  # a laboratory run: 100 expected per pocket
ORDER = np.array(FRENCH_ORDER)


def _spins(probabilities_in_wheel_order: np.ndarray, n: int, seed: int, order: tuple[int, ...] = FRENCH_ORDER):
    """Winning numbers of ``n`` independent spins of a wheel with the given pocket probabilities."""
    positions = np.random.default_rng(seed).choice(len(order), size=n, p=probabilities_in_wheel_order)
    return np.array(order)[positions]


FAIR = np.full(POCKETS, 1 / POCKETS)


# -- geometry and validation -------------------------------------------------------------------


def test_pocket_counts_are_in_wheel_order() -> None:
    counts = roulette.pocket_counts([0, 32, 32, 26, 15], FRENCH_ORDER)
    assert counts.tolist()[:3] == [1, 2, 1] and counts[-1] == 1 and counts.sum() == 5
    american = roulette.pocket_counts([28], AMERICAN_ORDER)
    assert american[1] == 1 and american.sum() == 1  # 28 follows 0 on the American layout


@pytest.mark.parametrize(
    ("numbers", "order", "message"),
    [
        ([37], FRENCH_ORDER, "pocket numbers 0-36"),
        ([-1], FRENCH_ORDER, "pocket numbers 0-36"),
        ([1.5], FRENCH_ORDER, "pocket numbers 0-36"),
        ([[1, 2]], FRENCH_ORDER, "1-D"),
        ([1], FRENCH_ORDER[:-1], "order must list"),
        ([1], FRENCH_ORDER[:-1] + (0,), "order must list"),
    ],
)
def test_invalid_numbers_and_orders(numbers: object, order: tuple[int, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        roulette.pocket_counts(numbers, order)  # type: ignore[arg-type]


def test_no_spins_is_an_error() -> None:
    with pytest.raises(ValueError, match="at least 1 spin"):
        roulette.pockets_test([])


def test_double_zero_order() -> None:
    assert len(DOUBLE_ZERO_ORDER) == 38 and sorted(DOUBLE_ZERO_ORDER) == list(range(38))
    i = DOUBLE_ZERO_ORDER.index(DOUBLE_ZERO)
    assert DOUBLE_ZERO_ORDER[i - 1] == 1 and DOUBLE_ZERO_ORDER[i + 1] == 27


# -- derived chances ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("chance", "sizes"),
    [
        ("colour", [18, 18, 1]),
        ("parity", [18, 18, 1]),
        ("manque_passe", [18, 18, 1]),
        ("dozens", [12, 12, 12, 1]),
        ("columns", [12, 12, 12, 1]),
    ],
)
def test_chance_categories_have_the_right_sizes(chance: roulette.Chance, sizes: list[int]) -> None:
    labels, category = roulette.chance_categories(chance, 37)
    assert np.bincount(category, minlength=len(labels)).tolist() == sizes
    _, with_double_zero = roulette.chance_categories(chance, 38)
    assert np.bincount(with_double_zero).tolist() == sizes[:-1] + [2]  # 0 and 00 both lose


def test_chance_categories_follow_the_layout_definitions() -> None:
    labels, category = roulette.chance_categories("colour", 37)
    assert all(labels[category[n]] == colour(n) for n in range(37))
    _, dozens = roulette.chance_categories("dozens", 37)
    _, columns = roulette.chance_categories("columns", 37)
    _, parity = roulette.chance_categories("parity", 37)
    _, half = roulette.chance_categories("manque_passe", 37)
    assert dozens[12] == 0 and dozens[13] == 1 and dozens[36] == 2
    assert columns[1] == columns[34] == 0 and columns[35] == 1 and columns[36] == 2
    assert parity[2] == 0 and parity[35] == 1 and parity[0] == 2
    assert half[18] == 0 and half[19] == 1 and half[0] == 2
    with pytest.raises(ValueError, match="unknown chance"):
        roulette.chance_categories("corners")  # type: ignore[arg-type]


def test_chance_test_uses_exact_probabilities_and_equals_scipy() -> None:
    numbers = _spins(FAIR, SPINS, seed=3)
    result = roulette.chance_test(numbers, "colour")
    red = sum(colour(int(n)) == "red" for n in numbers)
    black = sum(colour(int(n)) == "black" for n in numbers)
    observed = [red, black, SPINS - red - black]
    reference = stats.chisquare(observed, f_exp=np.array([18, 18, 1]) * SPINS / 37)
    assert result.details["observed"] == observed
    assert result.statistic == pytest.approx(reference.statistic) and result.p_value == pytest.approx(reference.pvalue)
    assert result.degrees_of_freedom == 2 and result.test == "roulette colour"


# -- the sector statistic --------------------------------------------------------------------------


def test_arc_counts_equal_a_naive_loop_including_wrap_around() -> None:
    counts = np.random.default_rng(1).integers(0, 20, POCKETS)
    widths = [1, 4, 18]
    arcs = arc_counts(counts, widths)
    for j, width in enumerate(widths):
        for start in range(POCKETS):
            assert arcs[j, start] == sum(counts[(start + i) % POCKETS] for i in range(width))


def test_sector_max_statistic_finds_a_spiked_arc_across_zero() -> None:
    counts = np.full(POCKETS, 100)
    counts[[35, 36, 0, 1]] = 140  # positions 35..1 wrap around the wheel's first pocket
    value, arc = sector_max_statistic(counts, range(3, 19))
    assert arc.tolist() == [35, 4]
    total = counts.sum()
    by_hand = (560 - total * 4 / 37) / math.sqrt(total * (4 / 37) * (33 / 37))
    assert float(value) == pytest.approx(by_hand)


def test_sector_max_statistic_is_vectorised_over_a_batch() -> None:
    batch = np.random.default_rng(2).multinomial(500, FAIR, size=20)
    values, arcs = sector_max_statistic(batch)
    assert values.shape == (20,) and arcs.shape == (20, 2)
    for row, value, arc in zip(batch, values, arcs):
        one_value, one_arc = sector_max_statistic(row)
        assert float(one_value) == pytest.approx(value) and one_arc.tolist() == arc.tolist()


@pytest.mark.parametrize(
    ("counts", "widths", "message"),
    [
        (np.ones(37), [0, 3], "widths"),
        (np.ones(37), [37], "widths"),
        (np.ones(37), [2.5], "widths"),
        (np.zeros(37), [3], "at least one spin"),
        (np.ones((2, 2, 37)), [3], "shape"),
        (-np.ones(37), [3], "non-negative"),
    ],
)
def test_sector_statistic_validation(counts: np.ndarray, widths: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sector_max_statistic(counts, widths)


def test_null_distribution_is_cached_sorted_and_read_only() -> None:
    first = sector_null_distribution(37, 1000, range(3, 10), samples=999, seed=5)
    again = sector_null_distribution(37, 1000, [9, 8, 7, 6, 5, 4, 3], samples=999, seed=5)
    assert first is again  # same key: widths normalised, computed once
    assert first.shape == (999,) and np.all(np.diff(first) >= 0) and not first.flags.writeable
    assert sector_null_distribution(37, 1000, range(3, 10), samples=999, seed=6) is not first


def test_sector_p_values_count_exceedances() -> None:
    null = np.array([1.0, 2.0, 3.0, 4.0])
    assert sector_p_values(2.5, null) == pytest.approx(3 / 5)
    assert sector_p_values(np.array([0.0, 4.0, 9.0]), null).tolist() == pytest.approx([1.0, 2 / 5, 1 / 5])


def test_sector_test_size_under_h0() -> None:
    # 400 fair runs of 3,700 spins against the Monte-Carlo null (4,999 resamples), alpha = 0.05.
    # The number of rejections is Binomial(400, ~0.05) (the finite null adds SD ~0.003 to the rate);
    # [7, 36] holds it with probability 0.998, so a correct implementation fails this about 0.2 % of seeds.
    null = sector_null_distribution(POCKETS, SPINS, samples=4999, seed=0)
    runs = np.random.default_rng(2026).multinomial(SPINS, FAIR, size=400)
    values, _ = sector_max_statistic(runs)
    rejections = int(np.count_nonzero(sector_p_values(values, null) < 0.05))
    assert 7 <= rejections <= 36


def test_sector_test_power_against_nine_pockets_at_1_15() -> None:
    # 9 adjacent pockets x1.15 at 3,700 spins, alpha = 0.01: the sector test rejects ~64 % of runs
    # where Pearson's chi-square (computed power 0.22) rejects ~23 %. Over 200 runs the sector
    # rate has SE ~0.034; requiring > 0.45 and > chi-square + 0.2 fails a correct build < 1e-6.
    p1 = sector_alternative(POCKETS, 9, 1.15)
    runs = np.random.default_rng(77).multinomial(SPINS, p1, size=200)
    null = sector_null_distribution(POCKETS, SPINS, samples=1999, seed=0)
    values, _ = sector_max_statistic(runs)
    sector_rate = float(np.mean(sector_p_values(values, null) < 0.01))
    chi_rate = float(np.mean(stats.chi2.sf(((runs - 100) ** 2 / 100).sum(axis=1), 36) < 0.01))
    assert sector_rate > 0.45 and sector_rate > chi_rate + 0.2


def test_sector_test_finds_the_biased_sector() -> None:
    # 3,700 spins, 9 pockets x1.3 starting at position 10 (pocket 27): the sector test's power is
    # > 0.999 here (1,000 simulated runs all rejected), so this fixed seed is representative.
    p1 = np.roll(sector_alternative(POCKETS, 9, 1.3), 10)
    result = roulette.sector_test(_spins(p1, SPINS, seed=11), samples=1999)
    assert result.p_value < 0.01 and result.passed(0.01) is False
    arc = result.details["arc"]
    biased = set(FRENCH_ORDER[10:19])
    assert len(biased & {int(n) for n in arc["members"]}) >= min(arc["width"], 9) - 2
    assert arc["count"] == sum(1 for n in _spins(p1, SPINS, seed=11) if str(n) in arc["members"])
    assert arc["expected"] == pytest.approx(SPINS * arc["width"] / 37)
    assert "Monte-Carlo null (1999" in result.method and result.details["widths"] == list(range(3, 19))


# -- serial dependence ----------------------------------------------------------------------------


def test_wheel_distances_are_clockwise_pocket_steps() -> None:
    # French order: 0 at position 0, 32 at 1, 26 at 36.
    assert roulette.wheel_distances([0, 32, 26, 0, 0], FRENCH_ORDER).tolist() == [1, 35, 1, 0]


def _dealer_signature_spins(n: int, seed: int, share: float) -> np.ndarray:
    """Spins whose clockwise step from the last result lies, with probability ``share``, in 12..18."""
    rng = np.random.default_rng(seed)
    steps = np.where(rng.random(n) < share, rng.integers(12, 19, n), rng.integers(0, POCKETS, n))
    positions = (rng.integers(POCKETS) + np.cumsum(steps)) % POCKETS
    return ORDER[positions]


def test_dealer_signature_is_detected_while_pockets_stay_uniform() -> None:
    # 3,700 spins, 8 % of steps in the 7-distance arc 12..18 (share 0.254 instead of 0.189):
    # z ~ 10, power ~1. Each pocket stays uniform (a random walk on the wheel), so the pockets test
    # holds H0 and fails it with probability 0.01; seed fixed so the test is deterministic.
    numbers = _dealer_signature_spins(SPINS, seed=4, share=0.08)
    signature = roulette.dealer_signature_test(numbers, samples=1999)
    assert signature.p_value < 0.001
    arc = signature.details["arc"]
    assert {int(d) for d in arc["members"]} & set(range(12, 19))
    assert roulette.distance_test(numbers).p_value < 0.01
    assert roulette.pockets_test(numbers).p_value >= 0.01


def test_serial_tests_need_two_spins() -> None:
    for result in (roulette.distance_test([5]), roulette.dealer_signature_test([5])):
        assert result.p_value is None and "fewer than two spins" in result.not_applicable


# -- the whole family on fair and biased wheels ------------------------------------------------------


def _family(numbers: np.ndarray, order: tuple[int, ...] = FRENCH_ORDER) -> dict:
    family = {"pockets": roulette.pockets_test(numbers, order)}
    family.update(roulette.derived_chance_tests(numbers, order))
    family["sector"] = roulette.sector_test(numbers, order, samples=1999)
    family["distances"] = roulette.distance_test(numbers, order)
    family["signature"] = roulette.dealer_signature_test(numbers, order, samples=1999)
    return family


@pytest.mark.parametrize(("order", "seed"), [(FRENCH_ORDER, 21), (AMERICAN_ORDER, 22), (DOUBLE_ZERO_ORDER, 23)])
def test_fair_wheel_passes_the_holm_adjusted_family(order: tuple[int, ...], seed: int) -> None:
    # A fair wheel fails the Holm-adjusted family of 9 tests at alpha = 0.01 with probability <= 0.01.
    pockets = len(order)
    numbers = _spins(np.full(pockets, 1 / pockets), SPINS, seed=seed, order=order)
    family = _family(numbers, order)
    assert family["pockets"].degrees_of_freedom == pockets - 1
    adjustment = adjust(family, alpha=0.01)
    assert adjustment.family_size == 9 and not adjustment.any_rejected, adjustment


def test_double_zero_chances_use_two_zero_pockets() -> None:
    numbers = _spins(np.full(38, 1 / 38), 760, seed=3, order=DOUBLE_ZERO_ORDER)
    result = roulette.chance_test(numbers, "colour", DOUBLE_ZERO_ORDER)
    assert result.details["probabilities"] == pytest.approx([18 / 38, 18 / 38, 2 / 38])
    assert "00" in roulette.pockets_test(numbers, DOUBLE_ZERO_ORDER).details["categories"]


def test_a_wheel_that_never_lands_on_zero_fails_the_chances() -> None:
    # Zero removed: 3,700 spins with no zero where 100 are expected; every chance's chi-square
    # is about 100 on 2-3 d.f., which a fair wheel exceeds with probability < 1e-20.
    p1 = np.where(ORDER == 0, 0.0, 1 / 36)
    family = roulette.derived_chance_tests(_spins(p1, SPINS, seed=5))
    assert all(result.p_value < 1e-10 for result in family.values())
