"""Holm and Bonferroni adjustment (rng_tests/fairness/multiple_testing.py).

Expected adjusted p-values are computed by hand from Holm's definition (the one statsmodels'
``multipletests(method="holm")`` implements): sort, multiply the i-th smallest by m − i + 1,
take the running maximum, cap at 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rng_tests.fairness.multiple_testing import adjust, adjusted_results, bonferroni, holm
from rng_tests.result import TestResult


def test_holm_hand_computed_example() -> None:
    # sorted: 0.005 x4 = 0.02; 0.01 x3 = 0.03; 0.03 x2 = 0.06; 0.04 x1 = 0.04 -> running max 0.06
    adjusted, rejected = holm([0.01, 0.04, 0.03, 0.005], alpha=0.05)
    assert adjusted.tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert rejected.tolist() == [True, False, False, True]


@pytest.mark.parametrize(
    ("p_values", "expected"),
    [
        ([0.5, 0.4, 0.3], [0.9, 0.9, 0.9]),  # 0.3x3 = 0.9, 0.4x2 = 0.8 -> 0.9, 0.5x1 -> 0.9
        ([0.6, 0.02], [0.6, 0.04]),
        ([0.4, 0.45, 0.9], [1.0, 1.0, 1.0]),  # 0.4x3 = 1.2 capped at 1
        ([0.01, 0.01, 0.04], [0.03, 0.03, 0.04]),  # ties: 0.01x3, 0.01x2 -> 0.03, 0.04x1 -> 0.04
        ([0.2], [0.2]),
        # eight tests, by hand: sorted 0.001 0.008 0.039 0.041 0.042 0.06 0.074 0.205
        # x8..x1: 0.008 0.056 0.234 0.205 0.168 0.18 0.148 0.205 -> running max
        ([0.042, 0.001, 0.06, 0.205, 0.008, 0.074, 0.039, 0.041],
         [0.234, 0.008, 0.234, 0.234, 0.056, 0.234, 0.234, 0.234]),
    ],
)
def test_holm_adjusted_p_values(p_values: list[float], expected: list[float]) -> None:
    adjusted, _ = holm(p_values)
    assert adjusted.tolist() == pytest.approx(expected)


def test_bonferroni_hand_computed_example() -> None:
    adjusted, rejected = bonferroni([0.01, 0.04, 0.03, 0.005], alpha=0.05)
    assert adjusted.tolist() == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert rejected.tolist() == [True, False, False, True]
    assert bonferroni([0.5, 0.3])[0].tolist() == [1.0, 0.6]


def test_rejection_is_strictly_below_alpha_as_in_test_result_passed() -> None:
    adjusted, rejected = holm([0.025, 0.5], alpha=0.05)  # 0.025 x 2 = 0.05 exactly
    assert adjusted[0] == 0.05 and not rejected[0]


def test_empty_family() -> None:
    adjusted, rejected = holm([])
    assert adjusted.size == 0 and rejected.size == 0


@pytest.mark.parametrize(
    ("p_values", "alpha", "message"),
    [([0.1, 1.2], 0.05, "probabilities"), ([-0.1], 0.05, "probabilities"), ([math.nan], 0.05, "probabilities"),
     ([[0.1]], 0.05, "1-D"), ([0.1], 0.0, "alpha"), ([0.1], 1.0, "alpha")],
)
def test_validation(p_values: object, alpha: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        holm(p_values, alpha)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30))
def test_holm_lies_between_raw_and_bonferroni_and_keeps_the_order(p_values: list[float]) -> None:
    raw = np.array(p_values)
    adjusted, _ = holm(raw)
    assert np.all(adjusted >= raw - 1e-15) and np.all(adjusted <= bonferroni(raw)[0] + 1e-15)
    order = np.argsort(raw, kind="stable")
    assert np.all(np.diff(adjusted[order]) >= -1e-15)  # monotone in the raw p-value


def test_holm_controls_the_family_wise_error_rate() -> None:
    # 4,000 families of 10 independent uniform p-values (all H0 true), alpha = 0.05: Holm rejects at
    # least one exactly when min p < 0.005, probability 1 - 0.995^10 = 0.0489. SE ~0.0034; the band
    # (0.035, 0.05 + 3.5 SE) fails a correct implementation with probability ~1e-4.
    families = np.random.default_rng(3).random((4000, 10))
    rate = float(np.mean([holm(family, 0.05)[1].any() for family in families]))
    assert 0.035 < rate < 0.05 + 3.5 * math.sqrt(0.05 * 0.95 / 4000)


# -- families of TestResults -------------------------------------------------------------------------


def _result(name: str, p: float | None) -> TestResult:
    if p is None:
        return TestResult.inapplicable(name, "H0", 0, "demo", "too few observations")
    return TestResult(test=name, null_hypothesis="H0", statistic=1.0, p_value=p, sample_size=100, method="demo")


def test_not_applicable_results_stay_out_of_the_family() -> None:
    family = {"a": _result("a", 0.01), "b": _result("b", None), "c": _result("c", 0.04), "d": _result("d", 0.03)}
    adjustment = adjust(family, alpha=0.05)
    assert adjustment.family_size == 3
    assert adjustment.description == "Holm-adjusted over a family of 3 tests (1 not applicable, left out)"
    by_name = adjustment.by_name()
    # m = 3: 0.01 x3 = 0.03; 0.03 x2 = 0.06; 0.04 x1 -> 0.06
    assert by_name["a"].adjusted_p_value == pytest.approx(0.03) and by_name["a"].rejected
    assert by_name["c"].adjusted_p_value == pytest.approx(0.06) and not by_name["c"].rejected
    assert by_name["b"].adjusted_p_value is None and by_name["b"].rejected is None
    assert by_name["b"].not_applicable == "too few observations"
    assert adjustment.any_rejected


def test_sequences_of_results_and_plain_p_values() -> None:
    adjustment = adjust([_result("x", 0.2), _result("y", 0.01)], method="bonferroni")
    assert [t.name for t in adjustment.tests] == ["x", "y"]
    assert adjustment.description == "Bonferroni-adjusted over a family of 2 tests"
    assert [t.adjusted_p_value for t in adjustment.tests] == pytest.approx([0.4, 0.02])
    plain = adjust([0.01, None, 0.04])
    assert [t.name for t in plain.tests] == ["0", "1", "2"] and plain.family_size == 2
    with pytest.raises(ValueError, match="distinct names"):
        adjust([_result("x", 0.2), _result("x", 0.3)])
    with pytest.raises(ValueError, match="unknown method"):
        adjust([0.1], method="hochberg")  # type: ignore[arg-type]


def test_adjusted_results_replace_the_p_value_and_say_so() -> None:
    family = {"a": _result("a", 0.01), "b": _result("b", None), "c": _result("c", 0.02)}
    adjusted = adjusted_results(family, alpha=0.05)
    assert adjusted["a"].p_value == pytest.approx(0.02) and adjusted["c"].p_value == pytest.approx(0.02)
    assert adjusted["a"].method == "demo; Holm-adjusted over a family of 2 tests (1 not applicable, left out)"
    assert adjusted["a"].details["unadjusted_p_value"] == 0.01
    assert adjusted["b"] is family["b"]
    assert adjusted["a"].passed(0.05) is False and adjusted["c"].passed(0.01) is True
