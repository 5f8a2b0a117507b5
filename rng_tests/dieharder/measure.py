"""Measure the input each dieharder test reads, to rebuild :data:`catalogue.CONSUMPTION`.

Method: each test is run through the stdin feeder on numpy PCG64 bytes at psamples 1
and 5 (1000 when those differ by under 64 KiB), and at psamples 1 on a second seed. The
feeder counts the bytes dieharder took from the pipe (written minus left in the pipe,
exact to dieharder's 4 KiB stdio read-ahead), so ``per_psample = (bytes(5) - bytes(1)) / 4``
and ``fixed = bytes(1) - per_psample``. A test whose psamples-1 figures differ between
seeds by more than the read-ahead is data-dependent (``variable``) and keeps the largest
figure. ``--verify-up-to BYTES`` also runs every test whose predicted default need is at
most BYTES at its default psamples and prints the bytes read beside the prediction.

Usage: ``python -m rng_tests.dieharder.measure [--only 0,2,102] [--verify-up-to 300e6]``.
"""

from __future__ import annotations

import argparse
import time

from rng_tests.dieharder.catalogue import DEFAULT_PSAMPLES, Consumption, Invocation, bytes_needed
from rng_tests.dieharder.feed import RandomSource
from rng_tests.dieharder.runner import Dieharder

READ_AHEAD_SLACK = 4096


def measure(dieharder: Dieharder, invocation: Invocation, psamples: int, seed: int,
            timeout: float = 3600.0) -> tuple[int, float]:
    """(bytes read, seconds) of one run of ``invocation`` at ``psamples`` on PCG64 bytes."""
    attempt = dieharder._attempt(invocation, psamples, RandomSource(seed), 0, timeout, from_file=False)
    if attempt.problem is not None or attempt.bytes_read is None:
        raise RuntimeError(f"{invocation.label}: {attempt.problem} {attempt.reason}")
    return attempt.bytes_read, attempt.seconds


def consumption_of(dieharder: Dieharder, invocation: Invocation, seeds: tuple[int, ...] = (1, 2)
                   ) -> tuple[Consumption, float]:
    """Measured :class:`Consumption` of ``invocation`` and its seconds per psample.

    psamples 1 and 5 on the first seed give ``per_psample`` to within 1 KiB (psamples 1000
    when 1 and 5 differ by less than 64 KiB); psamples 1 on the other seeds tells whether
    the consumption depends on the data.
    """
    one, t_one = measure(dieharder, invocation, 1, seeds[0])
    count = 5
    five, t_five = measure(dieharder, invocation, count, seeds[0] + 100)
    if five - one < 16 * READ_AHEAD_SLACK:  # too little per psample to see at 1 and 5: go further
        count = 1000
        five, t_five = measure(dieharder, invocation, count, seeds[0] + 100)
    per = max(0, round((five - one) / (count - 1)))
    ones = [one] + [measure(dieharder, invocation, 1, seed)[0] for seed in seeds[1:]]
    variable = max(ones) - min(ones) > READ_AHEAD_SLACK
    fixed = max(ones) - per
    entry = Consumption(default_psamples=DEFAULT_PSAMPLES[invocation.test.number],
                        per_psample=max(per, max(ones)) if variable else per,
                        fixed=fixed if fixed > READ_AHEAD_SLACK and not variable else 0, variable=variable)
    return entry, max(0.0, (t_five - t_one) / (count - 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated test numbers (default: all listed)")
    parser.add_argument("--verify-up-to", type=float, default=0.0, help="run default psamples up to this many bytes")
    parser.add_argument("--binary", default=None)
    args = parser.parse_args()
    dieharder = Dieharder(args.binary)
    if not dieharder.available:
        raise SystemExit(dieharder.missing_reason)
    selection = "all" if args.only is None else [int(item) for item in args.only.split(",")]
    invocations = dieharder.select(selection, include_do_not_use=True)
    print(f"# dieharder {dieharder.version} at {dieharder.path}")
    for invocation in invocations:
        began = time.monotonic()
        entry, per_second = consumption_of(dieharder, invocation)
        key = (invocation.test.number, invocation.ntuple)
        print(f"    {key!r}: Consumption({entry.default_psamples}, {entry.per_psample}, {entry.fixed}, "
              f"{entry.variable}),  # {invocation.label}: {entry.bytes_for() / 1e6:.1f} MB at default, "
              f"~{per_second * entry.default_psamples:.1f} s ({time.monotonic() - began:.0f} s to measure)",
              flush=True)
        if args.verify_up_to and entry.bytes_for() <= args.verify_up_to:
            attempt = dieharder._attempt(invocation, None, RandomSource(7), 0, 3600.0, from_file=False)
            status = "ok" if attempt.problem is None else f"{attempt.problem}: {attempt.reason}"
            print(f"    #   verify default: read {attempt.bytes_read} bytes in {attempt.seconds:.1f} s, predicted "
                  f"{entry.bytes_for()} ({status}); bytes_needed with margins would be "
                  f"{_needed(entry, invocation)}", flush=True)


def _needed(entry: Consumption, invocation: Invocation) -> int | str:
    try:
        return bytes_needed(invocation.test.number, invocation.ntuple)
    except ValueError:
        return "n/a (not in table yet)"


if __name__ == "__main__":
    main()
