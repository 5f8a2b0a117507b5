"""How many shuffles the card tests need to tell riffle shuffles from a uniform shuffle.

For one 52-card deck shuffled by k Gilbert-Shannon-Reeds riffles (k = 3, 7, 8, 10) and by
Fisher-Yates, estimates over R repetitions the rejection rate at alpha = 0.01 of each test of
:mod:`rng_tests.fairness.cards` for S shuffles, and prints:

1. exact facts of the riffle model (total variation to uniform, mean and variance of the number
   of rising sequences);
2. for each test, the smallest S (on a grid) at which it rejects 3 riffles with power >= 0.9;
3. a table of rejection rates for S in {that S for all tests, 200, 1,000} and each k;
4. extrapolated S at which each test would reject 7, 8 and 10 riffles with power 0.9.

Tests calibrated by Monte-Carlo (position and successor tables with fewer than 5 expected
shuffles per cell, S < 260) are applied here with the 1 % critical value of their statistic
estimated once per S from 4,000 Fisher-Yates samples: the limit B -> infinity of the Monte-Carlo
test, and much faster than re-simulating inside every repetition. The others use the p-values
the functions return (exact or asymptotic).

Run: ``.venv/bin/python benchmarks/riffle_detection.py [--reps 200] [--seed 2024] [--quick]``
(about 5 minutes with the defaults on one core; ``--quick`` uses 60 repetitions and skips the
extrapolation).
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from functools import cache

import numpy as np
from scipy import optimize, stats

from bench.games.shuffle_models import gsr_riffle
from rng_tests.fairness import cards
from rng_tests.result import TestResult

ALPHA = 0.01
POWER = 0.9
N = 52
RIFFLES: tuple[int | None, ...] = (3, 7, 8, 10, None)  # None: Fisher-Yates (uniform)
S_GRID = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200, 300, 500, 1000)
NULL_SAMPLES = 4000
INPUT = np.arange(N)

TestFunction = Callable[[np.ndarray, np.ndarray], TestResult]
TESTS: dict[str, TestFunction] = {
    "position": lambda start, out: cards.position_frequency_test(start, out, monte_carlo_samples=1),
    "adjacent": cards.adjacent_pairs_test,
    "rising": cards.rising_sequence_test,
    "successor": lambda start, out: cards.successor_test(start, out, monte_carlo_samples=1),
    "rising>=7": lambda start, out: cards.rising_sequence_test(start, out, reference_riffles=7),
}
POWER_TESTS = ("position", "adjacent", "rising", "successor")


def draw(riffles: int | None, shuffles: int, rng: np.random.Generator) -> np.ndarray:
    """``shuffles`` orders of the sorted deck after ``riffles`` GSR riffles (None: uniform)."""
    if riffles is None:
        return rng.permuted(np.broadcast_to(INPUT, (shuffles, N)), axis=1)
    return gsr_riffle(N, rng, riffles, shuffles, method="inverse")


@cache
def critical_value(name: str, shuffles: int, seed: int) -> float:
    """The (1 − alpha) quantile of a Monte-Carlo-calibrated statistic under uniform shuffles."""
    rng = np.random.default_rng([seed, shuffles, len(name)])
    values = [TESTS[name](INPUT, draw(None, shuffles, rng)).statistic for _ in range(NULL_SAMPLES)]
    return float(np.quantile(values, 1.0 - ALPHA, method="higher"))


def rejects(name: str, outputs: np.ndarray, seed: int) -> bool:
    result = TESTS[name](INPUT, outputs)
    if "Monte-Carlo" in result.method:
        return result.statistic > critical_value(name, outputs.shape[0], seed)
    assert result.p_value is not None
    return result.p_value < ALPHA


def rejection_rates(riffles: int | None, shuffles: int, reps: int, names: tuple[str, ...], seed: int) -> dict[str, float]:
    rng = np.random.default_rng([seed, shuffles, 100 if riffles is None else riffles])
    counts = dict.fromkeys(names, 0)
    for _ in range(reps):
        outputs = draw(riffles, shuffles, rng)
        for name in names:
            counts[name] += rejects(name, outputs, seed)
    return {name: counts[name] / reps for name in names}


def smallest_s(name: str, reps: int, seed: int) -> tuple[int | None, float]:
    """Smallest S of the grid with rejection rate >= POWER against 3 riffles."""
    for shuffles in S_GRID:
        rate = rejection_rates(3, shuffles, reps, (name,), seed)[name]
        if rate >= POWER:
            return shuffles, rate
    return None, math.nan


def required_shuffles_normal(mean0: float, var0: float, mean1: float, var1: float) -> float:
    """S for power POWER of a two-sided level-ALPHA z-test of a mean shift (normal approximation)."""
    z_alpha, z_power = stats.norm.isf(ALPHA / 2), stats.norm.isf(1 - POWER)
    return ((z_alpha * math.sqrt(var0) + z_power * math.sqrt(var1)) / abs(mean0 - mean1)) ** 2


def required_noncentrality(dof: int) -> float:
    """Non-centrality at which a chi-square(dof) test at ALPHA has power POWER."""
    critical = stats.chi2.isf(ALPHA, dof)
    return float(optimize.brentq(lambda lam: stats.ncx2.sf(critical, dof, lam) - POWER, 1e-6, 1e6))


def table_noncentrality(riffles: int, total: int, rng: np.random.Generator) -> tuple[float, float, float]:
    """Per-shuffle non-centrality of the position and successor X², and its standard error."""
    position = np.zeros((N, N))
    successor = np.zeros((N, N))
    chunk = 100_000
    for start in range(0, total, chunk):
        outputs = draw(riffles, min(chunk, total - start), rng)
        position += np.bincount((outputs * N + np.arange(N)).ravel(), minlength=N * N).reshape(N, N)
        successor += np.bincount((outputs[:, :-1] * N + outputs[:, 1:]).ravel(), minlength=N * N).reshape(N, N)
    mean_null = (N - 1) ** 2
    spread = math.sqrt(2 * mean_null)
    expected = total / N
    x_position = (N - 1) / N * float(((position - expected) ** 2).sum() / expected)
    off = ~np.eye(N, dtype=bool)
    x_successor = float(((successor[off] - expected) ** 2).sum() / expected)
    return (x_position - mean_null) / total, (x_successor - mean_null) / total, spread / total


def as_s(lam: float, error: float, needed: float) -> str:
    """Shuffles for non-centrality ``needed`` at ``lam`` per shuffle; a lower bound when lam is unresolved."""
    if lam <= 2 * error:
        return f">{needed / (2 * error):,.0f}"
    return f"{needed / lam:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200, help="repetitions per (S, k) cell")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--quick", action="store_true", help="60 repetitions, no extrapolation")
    arguments = parser.parse_args()
    reps = 60 if arguments.quick else arguments.reps
    seed = arguments.seed
    began = time.perf_counter()

    print(f"GSR riffles of n = {N} cards; alpha = {ALPHA}; {reps} repetitions per cell; seed {seed}\n")
    print("1. exact riffle facts (Bayer-Diaconis)")
    print(f"{'k':>4} {'TV to uniform':>14} {'E[R]':>8} {'Var[R]':>8} {'shift/sd0':>10}")
    mean0 = (N + 1) / 2
    var0 = (N + 1) / 12
    support = np.arange(1, N + 1)
    moments: dict[int, tuple[float, float]] = {}
    for riffles in (3, 5, 6, 7, 8, 9, 10, 12):
        law = cards.rising_sequence_distribution(N, riffles)
        mean = float((support * law).sum())
        var = float((support**2 * law).sum() - mean**2)
        moments[riffles] = (mean, var)
        print(f"{riffles:>4} {cards.riffle_total_variation(N, riffles):>14.4f} {mean:>8.3f} {var:>8.3f} "
              f"{(mean0 - mean) / math.sqrt(var0):>10.3f}")
    print(f"{'unif':>4} {0.0:>14.4f} {mean0:>8.3f} {var0:>8.3f} {0.0:>10.3f}\n")

    print(f"2. smallest S (grid {S_GRID[0]}..{S_GRID[-1]}) with power >= {POWER} against 3 riffles")
    smallest: dict[str, int | None] = {}
    for name in POWER_TESTS:
        shuffles, rate = smallest_s(name, reps, seed)
        smallest[name] = shuffles
        print(f"   {name:<10} S = {shuffles}  (rejection rate {rate:.3f})")
    chosen = max(s for s in smallest.values() if s is not None)
    print(f"   all four tests: S = {chosen}\n")

    print("3. rejection rates at alpha = 0.01 (k = riffles; 'unif' = Fisher-Yates; rising>=7 tests H0 'at least 7 riffles')")
    names = (*POWER_TESTS, "rising>=7")
    print(f"{'S':>6} {'k':>5} " + " ".join(f"{name:>10}" for name in names))
    for shuffles in sorted({chosen, 200, 1000}):
        for riffles in RIFFLES:
            rates = rejection_rates(riffles, shuffles, reps, names, seed)
            label = "unif" if riffles is None else str(riffles)
            print(f"{shuffles:>6} {label:>5} " + " ".join(f"{rates[name]:>10.3f}" for name in names))
    half_width = 1.96 * math.sqrt(0.25 / reps)
    print(f"   (each rate: binomial standard error <= {half_width / 1.96:.3f}; 95 % half-width <= {half_width:.3f})\n")

    if not arguments.quick:
        print(f"4. extrapolated S for power {POWER} against k riffles (two-sided tests at alpha = {ALPHA})")
        rng = np.random.default_rng([seed, 4])
        simulated = 1_000_000
        lam_needed = required_noncentrality((N - 1) ** 2)
        print(f"{'k':>4} {'rising':>10} {'adjacent':>10} {'position':>12} {'successor':>12}")
        for riffles in (7, 8, 10):
            mean, var = moments[riffles]
            rising_s = required_shuffles_normal(mean0, var0, mean, var)
            outputs = draw(riffles, 400_000, rng)
            pairs = cards.adjacent_pairs(outputs)
            adjacent_s = required_shuffles_normal((N - 1) / N, (N * N - N - 1) / N**2, pairs.mean(), pairs.var())
            lam_position, lam_successor, error = table_noncentrality(riffles, simulated, rng)

            print(f"{riffles:>4} {rising_s:>10,.0f} {adjacent_s:>10,.0f} {as_s(lam_position, error, lam_needed):>12} "
                  f"{as_s(lam_successor, error, lam_needed):>12}")
        print("   rising: exact moments, normal approximation; adjacent: moments from 400,000 simulated shuffles;")
        print(f"   position/successor: per-shuffle non-centrality from {simulated:,} simulated shuffles and the "
              f"non-central chi-square({(N - 1) ** 2}) (needs λ = {lam_needed:.0f}); '>' = not resolved.")
    print(f"\nelapsed {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    main()
