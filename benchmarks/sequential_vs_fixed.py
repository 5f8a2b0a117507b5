"""Sequential mixture SPRT against the fixed-sample Pearson chi-square on the reference alternative.

Reference alternative: 5 adjacent pockets each 20 % more likely (sector_alternative(37, 5, 1.2)),
placed at a random rotation of the wheel in each simulated run (the test does not know where).
Product requirement: at alpha = 0.01 and power 0.9, the sequential test's mean number of spins
under the alternative is at most 60 % of the fixed-sample n of the 36-df Pearson chi-square.

Prints: the fixed-sample n (noncentral chi-square, exact integer search) and its simulated
power; the sequential test's mean and 90th-percentile spins under H1 and H0, its empirical
power and type I error with Monte-Carlo standard errors, how often it would run past the
fixed n or twice the fixed n, and the ratio mean/fixed. Fixed seeds: the output is reproducible.

Run: .venv/bin/python benchmarks/sequential_vs_fixed.py [--runs 2000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rng_tests.alternatives import SectorAlternative
from rng_tests.power import pearson_sample_size, simulated_pearson_power
from rng_tests.sequential import sector_sequential_test

ALPHA = 0.01
POWER = 0.9
REQUIRED_RATIO = 0.60


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="simulated runs under each hypothesis")
    parser.add_argument("--seed", type=int, default=2024)
    arguments = parser.parse_args()
    runs, seed = arguments.runs, arguments.seed

    alternative = SectorAlternative(5, 1.2)
    p0, p1 = alternative.null_probabilities(), alternative.probabilities()
    fixed = pearson_sample_size(p0, p1, ALPHA, POWER, alternative=alternative.spec)
    check = simulated_pearson_power(fixed.sample_size, p0, p1, ALPHA, simulations=runs, seed=seed)
    print(f"reference alternative: {alternative.description}; alpha = {ALPHA}, power = {POWER}")
    print(f"fixed-sample Pearson chi-square (36 df): n = {fixed.sample_size} spins "
          f"(noncentral chi-square power {fixed.power:.4f}; simulated power {check.power:.3f} "
          f"± {check.standard_error:.3f}, {runs} runs)")

    test = sector_sequential_test(alpha=ALPHA, beta=1 - POWER)
    cap = 10 * fixed.sample_size  # simulation safety cap; the test itself is not truncated
    locations = np.random.default_rng(seed).integers(0, 37, runs)
    started = time.perf_counter()
    under_h1 = test.simulate(alternative.orbit()[locations], runs=runs, max_n=cap, seed=seed + 1)
    under_h0 = test.simulate(p0, runs=runs, max_n=cap, seed=seed + 2)
    elapsed = time.perf_counter() - started
    print(f"sequential mixture SPRT over the 37 rotations, boundaries L >= {1 / ALPHA:g} (reject) and "
          f"L <= {1 - POWER:g} (accept); {runs} runs per hypothesis, simulated in {elapsed:.1f} s")
    for label, summary in (("H1 (sector, random location)", under_h1), ("H0 (fair wheel)", under_h0)):
        past_fixed = float(np.mean(summary.stopping_times > fixed.sample_size))
        past_double = float(np.mean(summary.stopping_times > 2 * fixed.sample_size))
        print(f"  under {label}: mean n = {summary.mean_n:.0f} ± {summary.mean_n_standard_error:.0f}, "
              f"median {summary.quantile_n(0.5):.0f}, 90th percentile {summary.quantile_n(0.9):.0f}, "
              f"99th {summary.quantile_n(0.99):.0f}, largest {summary.stopping_times.max()}; "
              f"rejects H0 in {summary.rejection_rate:.4f} ± {summary.rejection_standard_error:.4f}; "
              f"runs past fixed n {past_fixed:.4f}, past 2 x fixed n {past_double:.4f}, "
              f"past the cap {summary.truncation_rate:.4f}")
    ratio = under_h1.mean_n / fixed.sample_size
    print(f"empirical power {under_h1.rejection_rate:.4f} ± {under_h1.rejection_standard_error:.4f}; "
          f"type I error {under_h0.rejection_rate:.4f} ± {under_h0.rejection_standard_error:.4f} (bound {ALPHA})")
    verdict = "meets" if ratio <= REQUIRED_RATIO else "FAILS"
    print(f"mean n under H1 / fixed n = {under_h1.mean_n:.0f} / {fixed.sample_size} = {ratio:.3f} "
          f"({verdict} the requirement <= {REQUIRED_RATIO})")
    return 0 if ratio <= REQUIRED_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
