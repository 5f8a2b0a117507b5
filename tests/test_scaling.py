"""Modulo bias and the raw → outcome mapping check (rng_tests/fairness/scaling.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from rng_tests.fairness import scaling
from rng_tests.fairness.scaling import (
    REJECTED,
    check_mapping,
    modulo_bias_power,
    modulo_bias_sample_size,
    modulo_bias_test,
    modulo_distribution,
)


@pytest.mark.parametrize(("bits", "outcome_range"), [(8, 37), (8, 6), (10, 38), (16, 37), (12, 52)])
def test_modulo_probabilities_equal_brute_force(bits: int, outcome_range: int) -> None:
    brute = np.bincount(np.arange(2**bits) % outcome_range, minlength=outcome_range) / 2**bits
    bias = modulo_distribution(bits, outcome_range)
    assert bias.probabilities().tolist() == pytest.approx(brute.tolist(), rel=1e-15)
    assert bias.favoured_share_modulo == pytest.approx(brute[: bias.remainder].sum())


def test_modulo_bias_by_hand() -> None:
    eight = modulo_distribution(8, 37)  # 256 = 6 x 37 + 34
    assert (eight.quotient, eight.remainder) == (6, 34)
    assert (eight.p_favoured, eight.p_other) == (7 / 256, 6 / 256) and eight.relative_excess == pytest.approx(1 / 6)
    wide = modulo_distribution(32, 6)  # 2^32 = 715,827,882 x 6 + 4
    assert (wide.quotient, wide.remainder) == (715_827_882, 4)
    assert wide.relative_excess == pytest.approx(1.397e-9, rel=1e-3)
    assert wide.share_difference == pytest.approx(4 * 2 / (6 * 2**32), rel=1e-12)
    exact = modulo_distribution(8, 8)
    assert not exact.biased and exact.relative_excess == 0 and exact.probabilities().tolist() == [1 / 8] * 8


@pytest.mark.parametrize(("bits", "outcome_range"), [(0, 6), (65, 6), (8, 1), (8, 257), (8, 6.5)])
def test_range_validation(bits: int, outcome_range: int) -> None:
    with pytest.raises(ValueError):
        modulo_distribution(bits, outcome_range)


def test_eight_bit_modulo_bias_is_detected() -> None:
    # 8-bit raw % 37 at 20,000 outcomes: power ~1 at alpha = 0.01 (80 % power needs ~6,200 outcomes).
    raw = np.random.default_rng(1).integers(0, 256, 20_000)
    result = modulo_bias_test(raw % 37, bits=8, outcome_range=37)
    favoured = int(np.count_nonzero(raw % 37 < 34))
    assert result.statistic == favoured
    assert result.p_value == pytest.approx(stats.binomtest(favoured, 20_000, 34 / 37, alternative="greater").pvalue)
    assert result.p_value < 0.01 and result.details["favoured_outcomes"] == [0, 33]
    assert result.details["power_at_alpha_0.01"] > 0.999


def test_unbiased_and_32_bit_mappings_pass() -> None:
    rng = np.random.default_rng(2)
    fair = rng.integers(0, 37, 20_000)  # an exactly uniform mapping: fails with probability 0.01
    assert modulo_bias_test(fair, bits=8, outcome_range=37).p_value >= 0.01
    # 32-bit raw % 37 is biased by 1/q ~ 8.6e-9: the test has power ~alpha at any laboratory N, so it
    # passes like a fair mapping (fails with probability ~0.01; seed fixed).
    raw = rng.integers(0, 2**32, 20_000, dtype=np.uint64)
    result = modulo_bias_test(raw % 37 + 1, bits=32, outcome_range=37, offset=1)
    assert result.p_value >= 0.01 and result.details["power_at_alpha_0.01"] < 0.011


def test_power_of_two_range_is_not_applicable() -> None:
    result = modulo_bias_test([0, 1, 7], bits=8, outcome_range=8)
    assert result.p_value is None and "exactly uniform" in result.not_applicable


def test_outcome_validation() -> None:
    with pytest.raises(ValueError, match="lie in 1..6"):
        modulo_bias_test([0, 3], bits=8, outcome_range=6, offset=1)
    with pytest.raises(ValueError, match="non-empty"):
        modulo_bias_test([], bits=8, outcome_range=6)


def test_power_matches_simulation() -> None:
    # 8-bit raw % 37 with N = 3,000: 400 simulated runs; SE of the rate <= 0.025, a 3.5 SE band
    # fails a correct implementation with probability ~5e-4.
    n, runs = 3000, 400
    raw = np.random.default_rng(3).integers(0, 256, (runs, n))
    rate = float(np.mean([modulo_bias_test(row % 37, 8, 37).p_value < 0.01 for row in raw]))
    power = modulo_bias_power(8, 37, n, 0.01)
    assert 0.2 < power < 0.8  # an informative point of the power curve
    assert abs(rate - power) < 3.5 * math.sqrt(power * (1 - power) / runs)


def test_sample_size_reaches_the_power_and_scales_with_the_bit_width() -> None:
    n = modulo_bias_sample_size(8, 37, alpha=0.01, power=0.8)
    assert 5_000 < n < 8_000  # 8-bit: a few thousand outcomes
    assert modulo_bias_power(8, 37, int(n), 0.01) == pytest.approx(0.8, abs=0.03)  # exact binomial vs normal
    assert modulo_bias_sample_size(32, 37) > 1e17  # 32-bit: beyond any test on outcomes
    assert modulo_bias_sample_size(8, 8) == math.inf and modulo_bias_power(8, 8, 100) == 0.0
    # Above EXACT_BINOMIAL_LIMIT the normal approximation is used, continuous with the exact one.
    big = scaling.EXACT_BINOMIAL_LIMIT
    assert modulo_bias_power(16, 37, big + 1) == pytest.approx(modulo_bias_power(16, 37, big), abs=0.01)


# -- the mapping check ---------------------------------------------------------------------------------


def test_correct_modulo_mapping_has_no_violation() -> None:
    raw = np.random.default_rng(4).integers(0, 2**32, 5000, dtype=np.uint64)
    result = check_mapping(raw, raw % 37, 37, 32)
    assert result.statistic == 0 and result.p_value == 1.0 and result.passed(0.01)
    assert result.details["declared_mapping_is_biased"] is True


def test_wrong_outcomes_are_counted_with_examples() -> None:
    raw = np.arange(100)
    outcomes = raw % 6 + 1
    outcomes[[3, 50]] = [1, 1]  # 3 % 6 + 1 = 4 and 50 % 6 + 1 = 3
    result = check_mapping(raw, outcomes, 6, 8, offset=1)
    assert result.statistic == 2 and result.p_value == 0.0 and result.passed(0.01) is False
    assert result.details["wrong_outcome"] == 2
    assert result.details["examples"] == [{"index": 3, "raw": 3, "outcome": 1, "expected": 4},
                                          {"index": 50, "raw": 50, "outcome": 1, "expected": 3}]


def test_rejection_high_mapping() -> None:
    raw = np.arange(256)  # 8-bit, n = 37: 222 = 6 x 37 values usable, 222..255 must be rejected
    correct = np.where(raw >= 222, REJECTED, raw % 37)
    assert check_mapping(raw, correct, 37, 8, "rejection-high").statistic == 0
    plain_modulo = check_mapping(raw, raw % 37, 37, 8, "rejection-high")
    assert plain_modulo.statistic == 34 and plain_modulo.details["outcome_from_a_value_that_must_be_rejected"] == 34
    over_rejecting = check_mapping(raw, np.where(raw >= 200, REJECTED, raw % 37), 37, 8, "rejection-high")
    assert over_rejecting.details["rejected_a_value_that_must_be_used"] == 22


def test_rejection_low_mapping_and_modulo_that_rejects() -> None:
    raw = np.arange(256)  # arc4random_uniform style: rejects raw < 256 mod 37 = 34
    correct = np.where(raw < 34, REJECTED, raw % 37)
    assert check_mapping(raw, correct, 37, 8, "rejection-low").statistic == 0
    accepted = raw[raw >= 34] % 37
    assert np.all(np.bincount(accepted, minlength=37) == 6)  # the accepted values are exactly uniform
    assert check_mapping(raw, correct, 37, 8, "modulo").details["rejected_a_value_that_must_be_used"] == 34


def test_64_bit_raw_values() -> None:
    raw = np.array([2**64 - 1, 2**63 + 5, 12], dtype=np.uint64)
    outcomes = [(2**64 - 1) % 37, (2**63 + 5) % 37, 12]
    assert check_mapping(raw, outcomes, 37, 64).statistic == 0
    assert check_mapping([2**64 - 1], [(2**64 - 1) % 37], 37, 64).statistic == 0  # Python ints work too


@pytest.mark.parametrize(
    ("raw", "outcomes", "options", "message"),
    [
        ([256], [0], {}, "below 2\\^8"),
        ([-1], [0], {}, "non-negative"),
        ([1.5], [0], {}, "whole numbers"),
        ([1, 2], [1], {}, "same length"),
        ([], [], {}, "no raw"),
        ([1], [1], {"mapping": "multiply"}, "unknown mapping"),
        ([1], [1], {"offset": -1}, "offset"),
    ],
)
def test_mapping_validation(raw: list, outcomes: list, options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_mapping(raw, outcomes, 37, 8, **options)
