"""Dice fairness tests (rng_tests/fairness/dice.py).

Dice are simulated with numpy and fixed seeds, so the checks are deterministic; each statistical
check states how often a correct implementation would fail it for a random seed.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from rng_tests.fairness import adjust, chi_square_power, dice

FAIR_FACE = np.full(6, 1 / 6)
LOADED_FACE = np.array([0.16, 0.16, 0.16, 0.16, 0.16, 0.20])  # six at 1/5, the rest 4/25 each


def _throws(n: int, dice_count: int, seed: int, faces: np.ndarray = FAIR_FACE) -> np.ndarray:
    return np.random.default_rng(seed).choice(np.arange(1, 7), size=(n, dice_count), p=faces)


# -- exact sum distributions ----------------------------------------------------------------------


@pytest.mark.parametrize("dice_count", [1, 2, 3, 4])
def test_sum_probabilities_equal_brute_force(dice_count: int) -> None:
    sums, probabilities = dice.sum_probabilities(dice_count)
    ways: dict[int, int] = {}
    for faces in itertools.product(range(1, 7), repeat=dice_count):
        ways[sum(faces)] = ways.get(sum(faces), 0) + 1
    assert sums.tolist() == sorted(ways)
    assert probabilities.tolist() == pytest.approx([ways[s] / 6**dice_count for s in sorted(ways)], rel=1e-15)


def test_sum_probabilities_by_hand() -> None:
    _, two = dice.sum_probabilities(2)
    assert [Fraction(p).limit_denominator(36) for p in two] == [Fraction(w, 36) for w in (1, 2, 3, 4, 5, 6, 5, 4, 3, 2, 1)]
    sums, three = dice.sum_probabilities(3)
    by_sum = dict(zip(sums.tolist(), three))
    assert by_sum[3] == by_sum[18] == pytest.approx(1 / 216)
    assert by_sum[10] == by_sum[11] == pytest.approx(27 / 216)
    # banca francesa "pequeno" (p217-2007/banca-francesa/9 b): sums 5, 6, 7 in 6 + 10 + 15 ways of 216.
    assert sum(by_sum[s] for s in (5, 6, 7)) == pytest.approx((6 + 10 + 15) / 216)
    with pytest.raises(ValueError, match="at least one die"):
        dice.sum_probabilities(0)


# -- validation -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcomes", "message"),
    [
        ([[1, 7]], "faces 1-6"),
        ([[0, 3]], "faces 1-6"),
        ([[1.0, 3.0]], "faces 1-6"),
        (np.ones((2, 2, 2), int), "shape"),
        (np.ones((0, 3), int), "no throws"),
    ],
)
def test_outcome_validation(outcomes: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        dice.validate_outcomes(outcomes)  # type: ignore[arg-type]


def test_one_die_is_a_column_and_sums_need_two() -> None:
    assert dice.validate_outcomes([1, 2, 6]).shape == (3, 1)
    with pytest.raises(ValueError, match="at least two dice"):
        dice.sum_test([1, 2, 6])
    with pytest.raises(ValueError, match="labels"):
        dice.face_tests([[1, 2]], labels=["only one"])


# -- faces ---------------------------------------------------------------------------------------------


def test_face_tests_equal_scipy_per_column() -> None:
    throws = _throws(600, 3, seed=1)
    results = dice.face_tests(throws, labels=["red", "green", "blue"])
    assert [r.test for r in results] == ["dice faces, red", "dice faces, green", "dice faces, blue"]
    for column, result in enumerate(results):
        counts = np.bincount(throws[:, column], minlength=7)[1:]
        reference = stats.chisquare(counts)
        assert result.statistic == pytest.approx(reference.statistic) and result.p_value == pytest.approx(reference.pvalue)
        assert result.degrees_of_freedom == 5 and result.sample_size == 600
    pooled = dice.pooled_face_test(throws)
    assert pooled.sample_size == 1800
    assert pooled.statistic == pytest.approx(stats.chisquare(np.bincount(throws.ravel(), minlength=7)[1:]).statistic)


def test_die_loaded_to_one_fifth_is_detected_at_5000_throws() -> None:
    # Six at 1/5: chi-square power at alpha = 0.01 is 0.33 at 1,000 rolls, 0.93 at 3,000, 0.998 at
    # 5,000 (non-centrality 0.008 N). At 5,000 throws this fixed seed is representative; the two fair
    # dice hold H0 and each fails it with probability 0.01.
    throws = np.column_stack([_throws(5000, 2, seed=2), _throws(5000, 1, seed=3, faces=LOADED_FACE)])
    results = dice.face_tests(throws)
    assert results[2].p_value < 0.01 and results[2].details["largest_residual"]["category"] == "6"
    assert results[0].p_value >= 0.01 and results[1].p_value >= 0.01


def test_rejection_rate_of_a_loaded_die_at_1000_rolls_matches_the_computed_power() -> None:
    # 300 runs of 1,000 rolls of the loaded die, alpha = 0.01: computed power ~0.327, SE of the
    # simulated rate sqrt(0.327 * 0.673 / 300) ~ 0.027; a 3.5 SE band fails a correct build ~5e-4.
    runs = np.random.default_rng(40).multinomial(1000, LOADED_FACE, size=300)
    rolls = [np.repeat(np.arange(1, 7), run) for run in runs]
    rate = float(np.mean([dice.face_tests(r)[0].p_value < 0.01 for r in rolls]))
    power = chi_square_power(1000, FAIR_FACE, LOADED_FACE, 0.01)
    assert abs(rate - power) < 3.5 * math.sqrt(power * (1 - power) / 300)


# -- sums ------------------------------------------------------------------------------------------------


def test_sum_test_of_three_dice_uses_the_exact_convolution() -> None:
    throws = _throws(3000, 3, seed=4)
    result = dice.sum_test(throws)
    sums, probabilities = dice.sum_probabilities(3)
    counts = np.bincount(throws.sum(axis=1), minlength=19)[3:]
    reference = stats.chisquare(counts, f_exp=3000 * probabilities)
    assert result.details["categories"] == [str(s) for s in sums]
    assert result.statistic == pytest.approx(reference.statistic) and result.degrees_of_freedom == 15
    assert result.method == "Pearson chi-square, asymptotic"  # 3000 / 216 = 13.9 >= 5
    assert result.p_value >= 0.01  # fair dice: fails with probability 0.01 (seed fixed)


def test_sum_test_with_few_throws_uses_monte_carlo() -> None:
    result = dice.sum_test(_throws(200, 3, seed=5), monte_carlo_samples=999)
    assert result.method == "Pearson chi-square, Monte-Carlo p-value (999 resamples)"


def test_sum_of_two_loaded_dice_is_detected() -> None:
    # Both dice loaded towards six at 1/5 shift the sum upwards: at 5,000 throws the sum test
    # (10 d.f.) rejects with power ~0.999 at alpha = 0.01 (simulated: 1,998 of 2,000 runs rejected).
    assert dice.sum_test(_throws(5000, 2, seed=6, faces=LOADED_FACE)).p_value < 0.01


# -- independence ---------------------------------------------------------------------------------------


def test_pair_independence_equals_scipy_chi2_contingency() -> None:
    throws = _throws(1500, 3, seed=7)
    results = dice.pair_independence_tests(throws)
    assert [r.test for r in results] == ["dice independence, die 1 vs die 2", "dice independence, die 1 vs die 3",
                                         "dice independence, die 2 vs die 3"]
    for (i, j), result in zip(itertools.combinations(range(3), 2), results):
        table = np.zeros((6, 6))
        np.add.at(table, (throws[:, i] - 1, throws[:, j] - 1), 1)
        statistic, p_value, dof, _ = stats.chi2_contingency(table, correction=False)
        assert result.statistic == pytest.approx(statistic) and result.p_value == pytest.approx(p_value)
        assert result.degrees_of_freedom == dof == 25


def test_dependent_pair_is_detected() -> None:
    # Die 2 copies die 1 on 10 % of throws: at 1,000 throws the 6x6 table has a median chi-square of
    # ~76 on 25 d.f.; power at alpha = 0.01 is ~0.97 (simulated, 300 runs). The independent pair holds H0.
    throws = _throws(1000, 3, seed=8)
    copy = np.random.default_rng(9).random(1000) < 0.10
    throws[copy, 1] = throws[copy, 0]
    results = dice.pair_independence_tests(throws)
    assert results[0].p_value < 0.01
    assert results[2].p_value >= 0.01  # die 2 vs die 3: fails with probability 0.01 (seed fixed)


def test_pairwise_independent_but_jointly_dependent_dice() -> None:
    # Die 3's parity is the parity of die 1 + die 2: each pair is independent (pair tests hold H0,
    # each failing with probability 0.01), but only half of the 216 combinations can occur, which
    # the joint test sees at once (chi-square about N = 1,800 on 200 d.f.; 1,800 throws keep E >= 5).
    rng = np.random.default_rng(10)
    first, second = rng.integers(1, 7, 1800), rng.integers(1, 7, 1800)
    third = 2 * rng.integers(0, 3, 1800) + 1 + (first + second + 1) % 2  # odd face if the sum is even
    throws = np.column_stack([first, second, third])
    assert all(r.p_value >= 0.01 for r in dice.pair_independence_tests(throws))
    joint = dice.joint_independence_test(throws)
    assert joint.degrees_of_freedom == 216 - 1 - 15 and "asymptotic" in joint.method and joint.p_value < 1e-6
    assert dice.joint_uniformity_test(throws).p_value < 1e-6


def test_joint_independence_with_few_throws_uses_monte_carlo_and_passes_fair_dice() -> None:
    result = dice.joint_independence_test(_throws(300, 3, seed=11), monte_carlo_samples=999)
    assert "Monte-Carlo p-value conditional on the margins (999 tables)" in result.method
    assert result.p_value >= 0.01  # fair dice: fails with probability 0.01 (seed fixed)


# -- the family --------------------------------------------------------------------------------------


def test_fair_three_dice_pass_the_holm_adjusted_family() -> None:
    # 1,200 throws of three fair dice; the Holm-adjusted family (9 tests) fails with probability <= 0.01.
    family = dice.dice_fairness_tests(_throws(1200, 3, seed=12), labels=["a", "b", "c"], monte_carlo_samples=999)
    assert list(family) == ["faces/a", "faces/b", "faces/c", "faces/pooled", "sum",
                            "independence/a~b", "independence/a~c", "independence/b~c", "independence/joint"]
    adjustment = adjust(family, alpha=0.01)
    assert adjustment.family_size == 9 and not adjustment.any_rejected


def test_family_of_one_and_two_dice() -> None:
    assert list(dice.dice_fairness_tests(_throws(100, 1, seed=13))) == ["faces/die 1", "faces/pooled"]
    assert "independence/joint" not in dice.dice_fairness_tests(_throws(100, 2, seed=13), monte_carlo_samples=99)


def test_loaded_die_fails_the_holm_adjusted_family() -> None:
    throws = np.column_stack([_throws(5000, 2, seed=14), _throws(5000, 1, seed=15, faces=LOADED_FACE)])
    adjustment = adjust(dice.dice_fairness_tests(throws, monte_carlo_samples=999), alpha=0.01)
    assert adjustment.by_name()["faces/die 3"].rejected
