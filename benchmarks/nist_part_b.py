"""Time the six SP 800-22 tests of part B on 10^6 fair bits (one core; best of several repeats).

Run: ``.venv/bin/python benchmarks/nist_part_b.py [--repeats 5] [--bits 1000000]``.
Seed 20240606 is used because its walk has J = 1280 >= 500 cycles, so the excursion tests run.
The 15-test battery has a 2 s budget on 10^6 bits; these six should take well under 1.2 s.
The first call of the overlapping template test also computes its class probabilities
exactly (cached afterwards); that one-off cost is printed separately.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rng_tests.nist import excursions, linear_complexity, templates, universal

MODULES = (templates, universal, excursions, linear_complexity)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--bits", type=int, default=10**6)
    args = parser.parse_args()
    bits = np.random.default_rng(20240606).integers(0, 2, args.bits, dtype=np.uint8)  # J = 1280 cycles at 10^6

    start = time.perf_counter()
    templates.overlapping_probabilities.cache_clear()
    templates.overlapping_probabilities(1032, 9, 5)
    print(f"{'(one-off) exact overlapping-template probabilities':52s} {1e3 * (time.perf_counter() - start):8.1f} ms")

    total = 0.0
    for module in MODULES:
        for name, (function, defaults) in module.TESTS.items():
            times = []
            for _ in range(args.repeats):
                start = time.perf_counter()
                result = function(bits, **defaults)
                times.append(time.perf_counter() - start)
            best = min(times)
            total += best
            verdict = "n/a" if not result.applicable else f"min p = {result.min_p_value:.4f}"
            print(f"{name:52s} {1e3 * best:8.1f} ms   ({verdict})")
    print(f"{'total (sum of best times)':52s} {1e3 * total:8.1f} ms   on n = {args.bits:,} bits")


if __name__ == "__main__":
    main()
