"""Knuth's empirical tests of integer streams (rng_tests.fairness.integer_streams).

Null laws are checked against independent exact computations. Fixed-seed streams: a uniform
stream fails each test with probability 0.01 (about 0.08 for the whole family of eight); the
defective streams are rejected with power about 1 at these lengths (p-values below 1e-3 with
large margins); the seeds are fixed, so the outcomes are deterministic.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from rng_tests.fairness.integer_streams import (
    KNUTH_RUNS_A,
    KNUTH_RUNS_B,
    coupon_collector_test,
    coupon_segments,
    gap_test,
    integer_stream_tests,
    poker_test,
    pool_categories,
    run_length_counts,
    runs_up_down_test,
    runs_up_test,
    serial_correlation_test,
    serial_pairs_test,
    stirling2_row,
)
from rng_tests.result import TestResult

ALPHA = 0.01


def _lcg_low_bits(n: int, bits: int, seed: int = 12345) -> np.ndarray:
    """Low ``bits`` bits of the LCG x <- (1664525 x + 1013904223) mod 2^32: period 2^bits."""
    out = np.empty(n, dtype=np.int64)
    x = seed
    for i in range(n):
        x = (1664525 * x + 1013904223) % 2**32
        out[i] = x
    return out & (2**bits - 1)


def _sticky(n: int, d: int, repeat: float, seed: int) -> np.ndarray:
    """Uniform marginals, but each outcome repeats the previous one with probability ``repeat``."""
    rng = np.random.default_rng(seed)
    fresh = rng.integers(0, d, n)
    keep = rng.random(n) < repeat
    keep[0] = False
    source = np.maximum.accumulate(np.where(keep, 0, np.arange(n)))  # index of the last fresh draw
    return fresh[source]


# -- exact null laws -----------------------------------------------------------------------------


def test_stirling_numbers() -> None:
    assert stirling2_row(5) == (0, 1, 15, 25, 10, 1)
    assert sum(stirling2_row(7)) == 877  # Bell number B_7


def _pattern_probability(pattern: list[str]) -> Fraction:
    """P(i.i.d. continuous X_1..X_m follow the comparisons '<', '>' or '*' (free)): counting permutations."""
    counts = [1]
    for comparison in pattern:
        prefix = [0, *itertools.accumulate(counts)]
        total = prefix[-1]
        counts = [prefix[r] if comparison == "<" else total - prefix[r] if comparison == ">" else total
                  for r in range(len(counts) + 1)]
    return Fraction(sum(counts), math.factorial(len(pattern) + 1))


def test_knuth_runs_matrix_is_the_inverse_asymptotic_covariance() -> None:
    """Derive A from scratch: R'_p (runs of length >= p) counts the positions i with X_{i-1} > X_i <
    X_{i+1} < ... < X_{i+p-1}; per outcome, cov(R'_p, R'_q) sums the covariances of these indicators
    over overlapping windows, each an order-pattern probability."""

    def window(p: int, k: int) -> dict[int, str]:
        return {k - 1: ">", **{j: "<" for j in range(k, k + p - 1)}}

    def probability(constraints: dict[int, str]) -> Fraction:
        lo, hi = min(constraints), max(constraints)
        return _pattern_probability([constraints.get(j, "*") for j in range(lo, hi + 1)])

    means = [probability(window(p, 0)) for p in range(1, 7)]
    covariance = np.zeros((6, 6))
    for p, q in itertools.product(range(1, 7), repeat=2):
        total = Fraction(0)
        for k in range(-q - 1, p + 2):
            first, second = window(p, 0), window(q, k)
            clash = any(first.get(j, v) != v for j, v in second.items())
            joint = Fraction(0) if clash else probability({**first, **second})
            total += joint - means[p - 1] * means[q - 1]
        covariance[p - 1, q - 1] = float(total)
    to_exact_lengths = np.eye(6) - np.eye(6, k=1)  # R_i = R'_i - R'_{i+1}, R_6 = R'_6
    derived = np.linalg.inv(to_exact_lengths @ covariance @ to_exact_lengths.T)
    assert KNUTH_RUNS_A == pytest.approx(derived, rel=2e-5, abs=0.06)
    assert KNUTH_RUNS_B == pytest.approx(to_exact_lengths @ np.array([float(m) for m in means]))


def test_poker_probabilities_match_enumeration() -> None:
    """All 4^5 hands of five outcomes from d = 4: the test's expected cells equal the enumeration."""
    hands = np.array(list(itertools.product(range(4), repeat=5)))
    distinct = np.array([len(set(hand)) for hand in hands.tolist()])
    stream = hands.ravel()  # every hand exactly once: observed counts are n · P exactly
    result = poker_test(stream, 4)
    assert result.statistic == pytest.approx(0.0, abs=1e-9)
    assert sum(result.details["observed"]) == hands.shape[0]
    assert np.bincount(distinct, minlength=5)[1:].tolist() == [4, 180, 600, 240]


def test_coupon_probabilities_match_a_markov_chain() -> None:
    """P(segment length = r) for d = 3 from d!/d^r S(r-1, d-1) equals the chain on 'values seen so far'."""
    d = 3
    state = np.zeros(d + 1)
    state[0] = 1.0
    chain = []
    for _ in range(40):
        new = np.zeros(d + 1)
        for seen in range(d):
            new[seen] += state[seen] * seen / d
            new[seen + 1] += state[seen] * (d - seen) / d
        chain.append(new[d])
        new[d] = 0.0
        state = new
    formula = [math.factorial(d) * stirling2_row(r - 1)[d - 1] / d**r if r >= d else 0.0 for r in range(1, 41)]
    assert formula == pytest.approx(chain, abs=1e-15)


def test_coupon_segments_match_a_plain_loop() -> None:
    stream = np.random.default_rng(3).integers(0, 5, 3000)
    expected, seen, start = [], set(), 0
    for index, value in enumerate(stream.tolist()):
        seen.add(value)
        if len(seen) == 5:
            expected.append(index + 1 - start)
            seen, start = set(), index + 1
    assert coupon_segments(stream, 5).tolist() == expected


def test_run_length_counts_by_hand() -> None:
    # runs: [5] [1 3] [2 9] [8] [0 1 2 3 4 5 6] -> lengths 1, 2, 2, 1, 7
    sequence = np.array([5, 1, 3, 2, 9, 8, 0, 1, 2, 3, 4, 5, 6])
    assert run_length_counts(sequence).tolist() == [2, 2, 0, 0, 0, 1]
    assert run_length_counts(np.vstack([sequence, sequence[::-1]])).shape == (2, 6)


def test_pooling_keeps_every_cell_at_five() -> None:
    probabilities = np.array([0.001, 0.01, 0.2, 0.3, 0.3, 0.15, 0.03, 0.009])
    groups = pool_categories(probabilities, 200)
    assert groups[0][0] == 0 and groups[-1][1] == probabilities.size
    assert all(probabilities[a:b].sum() * 200 >= 5 for a, b in groups)
    assert groups[0] == (0, 3)  # the two rare cells join the next one
    assert (3, 4) in groups and (4, 5) in groups  # large cells stay single


# -- fair and defective streams -------------------------------------------------------------------


@pytest.mark.parametrize(("d", "n", "seed"), [(6, 6000, 1), (37, 20000, 2)])
def test_uniform_streams_pass(d: int, n: int, seed: int) -> None:
    results = integer_stream_tests(np.random.default_rng(seed).integers(0, d, n), d)
    assert len(results) == 8
    for result in results.values():
        assert isinstance(result, TestResult)
        assert result.passed(ALPHA), result


def test_lcg_low_bits_fail() -> None:
    """The low 3 bits of a power-of-two LCG cycle with period 8: every test rejects."""
    stream = _lcg_low_bits(8000, 3)
    for name, result in integer_stream_tests(stream, 8).items():
        assert not result.passed(ALPHA), name


def test_repeated_values_fail() -> None:
    """Each uniform outcome emitted twice: marginals uniform, dependence obvious."""
    stream = np.repeat(np.random.default_rng(4).integers(0, 10, 4000), 2)
    for name, result in integer_stream_tests(stream, 10).items():
        assert not result.passed(ALPHA), name


def test_sticky_stream_fails_the_dependence_tests() -> None:
    """Repeats with probability 0.15 (uniform marginals): the serial tests, runs and poker reject."""
    stream = _sticky(10000, 8, 0.15, seed=5)
    assert serial_correlation_test(stream, 8).p_value < 1e-6
    assert serial_pairs_test(stream, 8).p_value < 1e-6
    assert runs_up_down_test(stream, 8).p_value < 1e-6
    assert poker_test(stream, 8).p_value < 1e-6
    assert gap_test(stream, 8).p_value < 1e-6
    assert not runs_up_test(stream, 8).passed(ALPHA)


def test_runs_up_asymptotic_branch_and_tie_breaking() -> None:
    stream = np.random.default_rng(6).integers(0, 4, 5000)  # many ties
    monte_carlo = runs_up_test(stream, 4, monte_carlo_samples=199)
    asymptotic = runs_up_test(stream, 4, asymptotic_from=100)
    assert monte_carlo.statistic == asymptotic.statistic
    assert "Monte-Carlo" in monte_carlo.method and "chi-square(6)" in asymptotic.method
    assert monte_carlo.passed(ALPHA) and asymptotic.passed(ALPHA)  # each fails w.p. 0.01 under H0
    # the same seed gives the same tie-breaking
    assert runs_up_test(stream, 4, monte_carlo_samples=9).statistic == monte_carlo.statistic


def test_alternating_halves_fail_the_gap_test() -> None:
    """Low and high halves alternate strictly: every gap has length 1."""
    rng = np.random.default_rng(7)
    stream = np.where(np.arange(4000) % 2 == 0, rng.integers(0, 4, 4000), rng.integers(4, 8, 4000))
    result = gap_test(stream, 8)
    assert result.p_value < 1e-10
    assert result.details["marked_probability"] == 0.5


def test_serial_correlation_detects_a_trend_at_lag_two_only() -> None:
    """x_{i+2} copied from x_i on even blocks: lag 1 clean, lag 2 correlated; lags=2 catches it."""
    base = np.random.default_rng(8).integers(0, 16, 6000)
    stream = base.copy()
    stream[2::4] = base[0::4][: stream[2::4].size]
    assert serial_correlation_test(stream, 16, lags=1).passed(ALPHA)  # lag 1 untouched: fails w.p. 0.01
    result = serial_correlation_test(stream, 16, lags=2)
    assert not result.passed(ALPHA)
    assert abs(result.details["z"][1]) > 5


def test_inapplicable_cases() -> None:
    short = np.random.default_rng(9).integers(0, 37, 500)
    pairs = serial_pairs_test(short, 37)
    assert pairs.p_value is None and "expected per pair" in pairs.not_applicable
    constant = np.zeros(100, dtype=int)
    assert serial_correlation_test(constant, 5).p_value is None
    assert coupon_collector_test(constant, 5).p_value is None


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: poker_test([0, 1, 2, 9, 1], 6), "0..5"),
        (lambda: poker_test([0, 1, -1, 2, 1], 6), "0..5"),
        (lambda: poker_test([0.0, 1.0, 2.0, 3.0, 4.0], 6), "integers"),
        (lambda: poker_test([0, 1, 2, 3, 4], 1), "d \\(the number"),
        (lambda: poker_test([0, 1], 6), "at least 5"),
        (lambda: poker_test([[0, 1], [2, 3]], 6), "1-D"),
        (lambda: gap_test(list(range(6)) * 10, 6, low=3, high=3), "low < high"),
        (lambda: gap_test(list(range(6)) * 10, 6, low=0, high=6), "proper subset"),
        (lambda: runs_up_test(list(range(6)) * 10, 6, direction="sideways"), "direction"),
        (lambda: serial_correlation_test(list(range(6)) * 10, 6, lags=0), "lags"),
    ],
)
def test_bad_input_raises(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
