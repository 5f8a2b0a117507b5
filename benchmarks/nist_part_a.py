"""Time nine SP 800-22 tests (sections 2.1-2.6, 2.11-2.13) on 10^6 bits, one core.

Prints, per test, the best of ``--repeats`` runs (time.perf_counter) with the document's
default parameters, and their sum. The budget for the whole 15-test battery is 2 s; these
nine should take well under 1 s together.

    .venv/bin/python benchmarks/nist_part_a.py [--bits 1000000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rng_tests.nist import cumulative_sums, entropy, frequency, matrix_rank, runs, serial, spectral

MODULES = (frequency, runs, matrix_rank, spectral, serial, entropy, cumulative_sums)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bits", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    arguments = parser.parse_args()
    bits = np.random.default_rng(12345).integers(0, 2, arguments.bits, dtype=np.uint8)
    registry = {}
    for module in MODULES:
        registry.update(module.TESTS)
    total = 0.0
    print(f"{arguments.bits:,} bits, best of {arguments.repeats}")
    for name, (function, defaults) in registry.items():
        function(bits, **defaults)  # warm caches (probability tables, FFT plans)
        best = float("inf")
        for _ in range(arguments.repeats):
            start = time.perf_counter()
            result = function(bits, **defaults)
            best = min(best, time.perf_counter() - start)
        total += best
        shown = ", ".join(f"{label}={p:.4f}" for label, p in result.p_values.items()) or result.not_applicable
        print(f"  {name:<28} {best * 1e3:8.2f} ms   {shown}")
    print(f"  {'total':<28} {total * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
