"""The SP 800-22 battery runner and the second-level analysis of section 4.2."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from rng_tests.nist.battery import (
    TEST_NAMES,
    BatteryResult,
    ParameterError,
    parse_parameter_overrides,
    registry,
    run_battery,
    split_sequences,
)
from rng_tests.nist.constants import binary_expansion_of_e
from rng_tests.nist.result import NistResult
from rng_tests.nist.second_level import proportion_interval, second_level, uniformity

# -- the binary expansion of e -------------------------------------------------


def test_e_starts_with_the_digits_of_the_reference_data_file() -> None:
    # e = 10.1011011111100001010100010110001010001010111011010... (binary)
    head = "".join(map(str, binary_expansion_of_e(50)))
    assert head == "10101101111110000101010001011000101000101011101101"
    fraction = "".join(map(str, binary_expansion_of_e(48, include_integer_part=False)))
    assert fraction == head[2:]


def test_e_digits_agree_with_an_independent_float_expansion_at_the_start() -> None:
    fraction, digits = math.e - 2, []
    for _ in range(50):  # a double holds 52 fraction bits of e exactly enough for the first 50
        fraction *= 2
        digits.append(int(fraction))
        fraction -= int(fraction)
    assert binary_expansion_of_e(50, include_integer_part=False).tolist() == digits


# -- registry and parameters ---------------------------------------------------


def test_registry_has_the_fifteen_tests_in_the_documents_order() -> None:
    assert list(registry()) == list(TEST_NAMES) and len(TEST_NAMES) == 15


def test_parameter_overrides_are_parsed_and_checked() -> None:
    assert parse_parameter_overrides(["linear_complexity.M=1000", "serial.m=10"]) == {
        "linear_complexity": {"M": 1000}, "serial": {"m": 10}}
    for bad, message in [
        ("linear_complexity.M", "expected TEST.PARAMETER=VALUE"),
        ("nonsense.M=3", "no test 'nonsense'"),
        ("linear_complexity.Q=3", "has no parameter 'Q'"),
        ("linear_complexity.M=big", "is not an integer"),
    ]:
        with pytest.raises(ParameterError, match=message):
            parse_parameter_overrides([bad])


def test_an_override_changes_what_the_test_uses() -> None:
    bits = np.random.default_rng(1).integers(0, 2, 100_000, dtype=np.uint8)
    result = run_battery(bits, tests=["block_frequency"], parameters={"block_frequency": {"M": 1000}})
    assert result.results[0].parameters["M"] == 1000
    with pytest.raises(ParameterError, match="unknown test"):
        run_battery(bits, tests=["frequencyy"])


def test_split_sequences_cuts_consecutive_pieces_and_refuses_too_many() -> None:
    bits = np.arange(10) % 2
    pieces = split_sequences(bits, 3)
    assert [piece.tolist() for piece in pieces] == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    with pytest.raises(ParameterError, match="10 bits hold 3 sequence"):
        split_sequences(bits, 3, 4)


def test_the_whole_battery_on_e_gives_188_p_values_all_in_range() -> None:
    battery = run_battery(binary_expansion_of_e(1_000_000))
    assert [result.test for result in battery.results] == list(TEST_NAMES)
    labelled = battery.p_values()
    # one each for 10 tests, 148 templates, 2 cusum, 2 serial, 8 + 18 excursion states
    assert len(labelled) == 10 + 148 + 2 + 2 + 8 + 18 == 188
    assert all(0.0 <= p <= 1.0 for p in labelled.values())
    assert set(battery.seconds) == set(TEST_NAMES)


# -- second level ------------------------------------------------------------


def test_proportion_interval_is_the_documents_example() -> None:
    # SP 800-22 section 4.2.1: 1000 sequences at α = 0.01 give 0.99 ± 0.0094392.
    low, high = proportion_interval(1000, 0.01)
    assert low == pytest.approx(0.99 - 0.0094392, abs=1e-7) and high == pytest.approx(0.99 + 0.0094392, abs=1e-7)


def test_uniformity_p_value_is_igamc_of_nine_halves() -> None:
    p_values = np.random.default_rng(3).random(300) ** 1.2
    chi_square, p_t, histogram = uniformity(p_values)
    assert sum(histogram) == 300
    assert p_t == pytest.approx(special.gammaincc(9 / 2, chi_square / 2), rel=1e-12)


def _battery(p: float, label_p: dict[str, float] | None = None) -> BatteryResult:
    results = (NistResult("frequency", 1000, {}, {}, {"p": p}),
               NistResult("cumulative_sums", 1000, {}, {}, label_p or {"forward": p, "reverse": p}),
               NistResult.inapplicable("random_excursions", 1000, {}, "too few cycles (J = 12 < 500)"))
    return BatteryResult(1000, results)


def test_second_level_passes_uniform_p_values_and_counts_inapplicable_sequences() -> None:
    p_values = np.random.default_rng(5).random(200)
    report = second_level([_battery(float(p)) for p in p_values])
    assert report.passed and not report.rejected
    assert report.not_applicable == {"random_excursions": 200}
    assert {label.label for label in report.labels} == {"frequency", "cumulative_sums/forward",
                                                       "cumulative_sums/reverse"}


def test_second_level_rejects_too_many_failures_and_non_uniform_p_values() -> None:
    rng = np.random.default_rng(6)
    failing = [_battery(float(p), {"forward": float(p), "reverse": 0.004}) for p in rng.random(100)]
    report = second_level(failing)
    assert not report.passed
    assert "cumulative_sums/reverse: proportion" in report.rejected
    assert "cumulative_sums/reverse" in report.nist_flags
    assert "frequency: proportion" not in report.rejected
    crowded = second_level([_battery(float(p)) for p in 0.5 + 0.05 * rng.random(100)])  # all in one bin
    assert "frequency: uniformity" in crowded.rejected


def test_family_error_rate_on_fair_p_values_is_at_most_alpha() -> None:
    # 300 simulated fair samples of 60 sequences: Holm at 0.01 must reject in at most ~1 %; a
    # binomial(300, 0.01) exceeds 9 rejections with probability < 0.001, the seed is fixed.
    rng = np.random.default_rng(7)
    rejections = sum(not second_level([_battery(float(p)) for p in rng.random(60)]).passed for _ in range(300))
    assert rejections <= 9
