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

``--suite-figures`` instead measures the roulette suite's sequential test (the family
``roulette_sector_family()``: sectors of 5, 9 and 18 pockets favoured x1.2 or x1.3, truncated
at the profile's spin budget) at each ``--config alpha,beta,max_n`` (default 0.01,0.1,3700,
the built-in ``sim`` profiles): type I error and spins on a fair wheel, power and spins against
each sector, beside the power of the fixed-size Pearson chi-square on ``max_n`` spins; then
prints the ``OPERATING_CHARACTERISTICS`` literal that ``suites/test_roulette.py`` caches so a
certify run does not simulate.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rng_tests.alternatives import SectorAlternative
from rng_tests.fairness import chi_square_power
from rng_tests.power import pearson_sample_size, simulated_pearson_power
from rng_tests.sequential import (
    ROULETTE_SECTOR_FACTORS,
    ROULETTE_SECTOR_WIDTHS,
    operating_characteristics,
    roulette_sector_family,
    sector_sequential_test,
)

ALPHA = 0.01
POWER = 0.9
REQUIRED_RATIO = 0.60
SUITE_SEED = 20070226  # suites/test_roulette.py FIGURES_SEED


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000, help="simulated runs under each hypothesis")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--suite-figures", action="store_true",
                        help="operating characteristics of the roulette suite's sequential test instead")
    parser.add_argument("--config", action="append", default=None, metavar="ALPHA,BETA,MAX_N",
                        help="with --suite-figures: a configuration to simulate (repeatable)")
    arguments = parser.parse_args()
    runs, seed = arguments.runs, arguments.seed
    if arguments.suite_figures:
        return suite_figures(arguments.config or ["0.01,0.1,3700"], runs)

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


def suite_figures(configs: list[str], runs: int) -> int:
    """Print the roulette suite's sequential test against the fixed chi-square, and the cache literal."""
    family = roulette_sector_family()
    p0 = family[0].null_probabilities()
    cache: dict[tuple[float, float, int], dict] = {}
    print(f"family: widths {ROULETTE_SECTOR_WIDTHS} x factors {ROULETTE_SECTOR_FACTORS}, all rotations; "
          f"{runs} runs per hypothesis, seed {SUITE_SEED}")
    for config in configs:
        alpha_text, beta_text, max_text = config.split(",")
        alpha, beta, max_n = float(alpha_text), float(beta_text), int(max_text)
        test = sector_sequential_test(widths=ROULETTE_SECTOR_WIDTHS, factors=ROULETTE_SECTOR_FACTORS, alpha=alpha,
                                      beta=beta, max_n=max_n)
        started = time.perf_counter()
        figures = operating_characteristics(test, family, runs=runs, max_n=max_n, seed=SUITE_SEED)
        elapsed = time.perf_counter() - started
        h0 = figures["h0"]
        print(f"alpha {alpha:g}, beta {beta:g}, at most {max_n} spins (simulated in {elapsed:.0f} s)")
        print(f"  fair wheel: mean {h0['mean_n']:.0f} spins, median {h0['median_n']:.0f}, 90th percentile "
              f"{h0['p90_n']:.0f}; type I {h0['rejection_rate']:.4f} (bound {alpha:g}); undecided at the budget "
              f"{h0['truncation_rate']:.4f}")
        for alternative in family:
            member = figures["alternatives"][alternative.spec]
            fixed = chi_square_power(max_n, p0, alternative.probabilities(), alpha)
            print(f"  {alternative.spec:>14}: power {member['rejection_rate']:.3f} (chi-square on {max_n} spins "
                  f"{fixed:.3f}); mean {member['mean_n']:.0f} spins, 90th percentile {member['p90_n']:.0f}; "
                  f"undecided {member['truncation_rate']:.3f}")
        average = figures["family_average"]
        print(f"  family average: power {average['rejection_rate']:.3f} (type II {1 - average['rejection_rate']:.3f}, "
              f"bound {beta:g} + undecided {average['truncation_rate']:.3f}); mean {average['mean_n']:.0f} spins")
        cache[(alpha, beta, max_n)] = figures
    print("\nOPERATING_CHARACTERISTICS = " + repr(cache))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
