"""Time and memory of the whole SP 800-22 battery on 10^6 bits, per test.

Usage: ``python benchmarks/nist_battery.py [--bits N] [--repeats R]``. Prints the best of R
runs per test and in total, and the process's peak resident memory. Target: the whole battery
on 10^6 bits in at most 2 s on one core, under 500 MB.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as the target says
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from rng_tests.nist.battery import TEST_NAMES, run_battery


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bits", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    bits = np.random.default_rng(20070226).integers(0, 2, args.bits, dtype=np.uint8)
    run_battery(bits)  # warm-up: imports and per-process tables
    best = {name: float("inf") for name in TEST_NAMES}
    totals = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        battery = run_battery(bits)
        totals.append(time.perf_counter() - started)
        for name, seconds in battery.seconds.items():
            best[name] = min(best[name], seconds)
    print(f"SP 800-22 battery on {args.bits:,} bits, best of {args.repeats}")
    for name in TEST_NAMES:
        print(f"  {name:28s} {best[name] * 1000:8.1f} ms")
    print(f"  {'whole battery (best run)':28s} {min(totals) * 1000:8.1f} ms   (target ≤ 2000 ms)")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  peak resident memory        {peak_mb:8.1f} MB   (target < 500 MB)")


if __name__ == "__main__":
    main()
