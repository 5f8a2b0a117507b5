"""Measurements and their verdicts (bench/evidence/record.py: the judging rule and the model's texts)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import ValidationError

from bench.evidence import Measurement, judge

NONE: dict[str, Any] = {"low": None, "high": None, "expected": None, "p_value": None, "alpha": None}


def _judge(value: Any, **criteria: Any) -> bool:
    return judge(value, **(NONE | criteria))


# -- limits ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "passed"),
    [(-0.001, False), (0, True), (0.0, True), (18.5, True), (36, True), (36.000001, False)],
)
def test_limits_are_inclusive(value: float, passed: bool) -> None:
    assert _judge(value, low=0, high=36) is passed


def test_one_sided_limits() -> None:
    assert _judge(0, high=0) is True
    assert _judge(1, high=0) is False
    assert _judge(0.95, low=0.95) is True
    assert _judge(0.9499, low=0.95) is False
    assert _judge(math.inf, low=0.0) is True
    assert _judge(-math.inf, low=0.0) is False


@pytest.mark.parametrize("value", ["12", None, [1], True, False, {"pocket": 3}])
def test_limits_refuse_non_numeric_values(value: Any) -> None:
    with pytest.raises(ValueError, match="limits need a numeric value"):
        _judge(value, low=0, high=36)


def test_limits_refuse_nan() -> None:
    with pytest.raises(ValueError, match="limits need a numeric value"):
        _judge(math.nan, high=1.0)


# -- expected ----------------------------------------------------------------


def test_expected_equality() -> None:
    assert _judge("0-32-15", expected="0-32-15") is True
    assert _judge("0-15-32", expected="0-32-15") is False
    assert _judge(True, expected=True) is True
    assert _judge(False, expected=True) is False
    assert _judge([0, 32], expected=[0, 32]) is True


def test_expected_and_limits_must_both_hold() -> None:
    assert _judge(5, expected=5, low=0, high=10) is True
    assert _judge(5, expected=5, low=6) is False
    assert _judge(7, expected=5, low=0, high=10) is False


# -- p-value against alpha ---------------------------------------------------


@pytest.mark.parametrize(
    ("p_value", "passed"),
    [(0.0, False), (0.0099999, False), (0.01, True), (0.010001, True), (1.0, True)],
)
def test_p_value_against_alpha(p_value: float, passed: bool) -> None:
    # H0 (fair) is kept when p >= alpha: p == alpha passes, p < alpha fails.
    assert _judge(31.2, p_value=p_value, alpha=0.01) is passed


def test_p_value_and_limits_must_both_hold() -> None:
    assert _judge(3700, p_value=0.5, alpha=0.01, low=3700) is True
    assert _judge(3000, p_value=0.5, alpha=0.01, low=3700) is False
    assert _judge(3700, p_value=0.001, alpha=0.01, low=3700) is False


def test_p_value_without_alpha_and_alpha_without_p_value_are_refused() -> None:
    with pytest.raises(ValueError, match="both p_value and alpha"):
        _judge(1.0, p_value=0.5)
    with pytest.raises(ValueError, match="both p_value and alpha"):
        _judge(1.0, alpha=0.01, low=0.0)


@pytest.mark.parametrize("p_value", [math.nan, -0.1, 1.5])
def test_a_p_value_that_is_not_a_probability_is_refused(p_value: float) -> None:
    with pytest.raises(ValueError, match="is not a probability"):
        _judge(1.0, p_value=p_value, alpha=0.01)


def test_a_measurement_with_no_criterion_is_refused() -> None:
    with pytest.raises(ValueError, match="needs a criterion"):
        _judge(42)


def test_judge_returns_a_real_bool() -> None:
    assert type(_judge(1, low=0)) is bool
    assert type(_judge(1, expected=1)) is bool


# -- Measurement --------------------------------------------------------------


def _measurement(**fields: Any) -> Measurement:
    base: dict[str, Any] = {
        "run_id": "run-1",
        "at": "2026-01-02T10:00:00.000000+00:00",
        "nodeid": "suites/test_roulette.py::test_pocket_fairness",
        "attempt": 1,
        "name": "pocket fairness",
        "value": 31.25,
        "passed": True,
        "clauses": ("p217-2007/roleta-francesa/5",),
    }
    if not any(fields.get(key) is not None for key in ("low", "high", "expected", "p_value")):
        # the model refuses a measurement without a criterion; its text is still defined ("recorded")
        return Measurement.model_construct(**(base | fields))
    return Measurement(**(base | fields))


@pytest.mark.parametrize(
    ("fields", "text"),
    [
        ({"p_value": 0.68, "alpha": 0.01}, "p ≥ α = 0.01"),
        ({"expected": "0-32-15"}, "= 0-32-15"),
        ({"low": 0, "high": 36}, "[0, 36]"),
        ({"low": 0.95}, "≥ 0.95"),
        ({"high": 0}, "≤ 0"),
        ({}, "recorded"),
        ({"p_value": 0.68, "alpha": 0.01, "low": 3700}, "p ≥ α = 0.01"),  # the statistical criterion is named first
    ],
)
def test_limits_text(fields: dict[str, Any], text: str) -> None:
    assert _measurement(**fields).limits_text() == text


def test_describe_a_statistical_measurement() -> None:
    measurement = _measurement(unit="chi2", p_value=0.681234, alpha=0.01)
    assert measurement.describe() == "pocket fairness = 31.25 chi2, p = 0.6812 (limit p ≥ α = 0.01): PASS"


def test_describe_a_failed_measurement_without_unit() -> None:
    measurement = _measurement(name="co-rotating games", value=3, passed=False, high=0)
    assert measurement.describe() == "co-rotating games = 3 (limit ≤ 0): FAIL"


def test_measurement_is_immutable() -> None:
    measurement = _measurement(high=40)
    with pytest.raises(ValidationError, match="frozen"):
        measurement.passed = False  # type: ignore[misc]
    assert measurement.details == {} and _measurement(high=40).details is not measurement.details
