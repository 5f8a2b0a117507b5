"""Catalogue of dieharder 3.31 tests: short names, ntuple sweeps and input consumed.

dieharder selects tests by number (``-d 0``) or by short name (``-d diehard_birthdays``);
``dieharder -l`` lists numbers and titles only. The short names below are those the
result rows print (checked on every run). Tests 200-203 take an ntuple (``-n``); run
without one, 200 and 201 are invalid (200 refuses, 201 returns a bogus p = 1), so, as
``dieharder -a`` does (``run_all_tests.c``), they are swept over :data:`NTUPLE_SWEEPS`.

:data:`CONSUMPTION` gives the input each test reads at dieharder's default settings,
measured on dieharder 3.31.1 by :mod:`rng_tests.dieharder.measure` (count of bytes the
test took from stdin, numpy PCG64 bytes, at psamples 1 and 5, so
``bytes = fixed + per_psample * psamples``; checked against full default runs of the
tests up to 200 MB). ``dieharder -a`` reads about 246 GB, 224 GB of it in the 33
``rgb_lagged_sum`` runs. A sample of N bytes is enough for a test
when ``bytes_needed(...) <= N``; otherwise dieharder would run out of input (reported as
"sample exhausted"), or, reading a file, rewind it and reuse data.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

#: Short names by test number (the names result rows print with ``-D no_whitespace``).
SHORT_NAMES: dict[int, str] = {
    0: "diehard_birthdays", 1: "diehard_operm5", 2: "diehard_rank_32x32", 3: "diehard_rank_6x8",
    4: "diehard_bitstream", 5: "diehard_opso", 6: "diehard_oqso", 7: "diehard_dna",
    8: "diehard_count_1s_stream", 9: "diehard_count_1s_byte", 10: "diehard_parking_lot",
    11: "diehard_2dsphere", 12: "diehard_3dsphere", 13: "diehard_squeeze", 14: "diehard_sums",
    15: "diehard_runs", 16: "diehard_craps", 17: "marsaglia_tsang_gcd",
    100: "sts_monobit", 101: "sts_runs", 102: "sts_serial",
    200: "rgb_bitdist", 201: "rgb_minimum_distance", 202: "rgb_permutations", 203: "rgb_lagged_sum",
    204: "rgb_kstest_test", 205: "dab_bytedistrib", 206: "dab_dct", 207: "dab_filltree", 208: "dab_filltree2",
    209: "dab_monobit2",
}

#: ntuple values ``dieharder -a`` runs for the tests that take one.
NTUPLE_SWEEPS: dict[int, tuple[int, ...]] = {
    200: tuple(range(1, 13)), 201: tuple(range(2, 6)), 202: tuple(range(2, 6)), 203: tuple(range(33)),
}

#: psamples each test uses when ``-p`` is not given (dieharder 3.31.1, ``psamples_std``).
DEFAULT_PSAMPLES: dict[int, int] = {number: 100 for number in SHORT_NAMES} | {
    201: 1000, 204: 1000, 205: 1, 206: 1, 207: 1, 208: 1, 209: 1}

#: dieharder's reliability rating that excludes a test from our "all" selection.
DO_NOT_USE = "Do Not Use"


@dataclass(frozen=True)
class DieharderTest:
    """A test dieharder offers: number, short name, title and reliability (from ``-l``)."""

    number: int
    name: str
    title: str
    reliability: str


@dataclass(frozen=True)
class Invocation:
    """One dieharder process's worth of test: ``-d number`` and, if set, ``-n ntuple``."""

    test: DieharderTest
    ntuple: int | None = None

    @property
    def label(self) -> str:
        return self.test.name if self.ntuple is None else f"{self.test.name}[ntuple={self.ntuple}]"


@dataclass(frozen=True)
class Consumption:
    """Input read by one invocation: ``fixed + per_psample * psamples`` bytes.

    ``variable`` marks tests whose consumption depends on the data (craps games, tree
    fills); their ``per_psample`` is the largest of the measured figures.
    """

    default_psamples: int
    per_psample: int
    fixed: int = 0
    variable: bool = False

    def bytes_for(self, psamples: int | None = None) -> int:
        count = self.default_psamples if psamples is None else psamples
        return self.fixed + self.per_psample * count


#: Margin applied by :func:`bytes_needed` on data-dependent tests (measured spread < 0.5 %).
VARIABLE_MARGIN = 1.02
#: Bytes of stdio read-ahead and rounding allowed on every test.
READ_AHEAD = 64 * 1024
#: Measurement resolution of ``per_psample`` (4 KiB read-ahead over 4 psamples).
PER_PSAMPLE_SLACK = 1024

#: Measured consumption keyed by (test number, ntuple or None): dieharder 3.31.1, this
#: module's stdin feeder, ``python -m rng_tests.dieharder.measure``. Comments: bytes and
#: seconds at default psamples on the reference machine (x86-64, one core); times vary.
CONSUMPTION: dict[tuple[int, int | None], Consumption] = {
    (0, None): Consumption(100, 153600),  # diehard_birthdays: 15.4 MB, 1 s
    (1, None): Consumption(100, 3999744),  # diehard_operm5: 400.0 MB, 5 s
    (2, None): Consumption(100, 5120000),  # diehard_rank_32x32: 512.0 MB, 19 s
    (3, None): Consumption(100, 2400256),  # diehard_rank_6x8: 240.0 MB, 5 s
    (4, None): Consumption(100, 1048576),  # diehard_bitstream: 104.9 MB, 2 s
    (5, None): Consumption(100, 8388608),  # diehard_opso: 838.9 MB, 12 s
    (6, None): Consumption(100, 5592064),  # diehard_oqso: 559.2 MB, 7 s
    (7, None): Consumption(100, 2621440),  # diehard_dna: 262.1 MB, 32 s
    (8, None): Consumption(100, 256000),  # diehard_count_1s_stream: 25.6 MB, 0 s
    (9, None): Consumption(100, 5120000),  # diehard_count_1s_byte: 512.0 MB, 4 s
    (10, None): Consumption(100, 96256),  # diehard_parking_lot: 9.6 MB, 2 s
    (11, None): Consumption(100, 64512),  # diehard_2dsphere: 6.5 MB, 0 s
    (12, None): Consumption(100, 48128),  # diehard_3dsphere: 4.8 MB, 2 s
    (13, None): Consumption(100, 9236480, variable=True),  # diehard_squeeze: 923.6 MB, 10 s
    (14, None): Consumption(100, 795),  # diehard_sums: 0.1 MB, 0 s
    (15, None): Consumption(100, 400384),  # diehard_runs: 40.0 MB, 0 s
    (16, None): Consumption(100, 5406720, variable=True),  # diehard_craps: 540.7 MB, 6 s
    (17, None): Consumption(100, 80000000),  # marsaglia_tsang_gcd: 8.0 GB, 132 s
    (100, None): Consumption(100, 400384),  # sts_monobit: 40.0 MB, 0 s
    (101, None): Consumption(100, 400384),  # sts_runs: 40.0 MB, 6 s
    (102, None): Consumption(100, 400384),  # sts_serial: 40.0 MB, 9 s
    (200, 1): Consumption(100, 799744),  # rgb_bitdist[ntuple=1]: 80.0 MB, 2 s
    (200, 2): Consumption(100, 1600512),  # rgb_bitdist[ntuple=2]: 160.1 MB, 4 s
    (200, 3): Consumption(100, 2400256),  # rgb_bitdist[ntuple=3]: 240.0 MB, 4 s
    (200, 4): Consumption(100, 3200000),  # rgb_bitdist[ntuple=4]: 320.0 MB, 4 s
    (200, 5): Consumption(100, 3999744),  # rgb_bitdist[ntuple=5]: 400.0 MB, 5 s
    (200, 6): Consumption(100, 4800512),  # rgb_bitdist[ntuple=6]: 480.1 MB, 8 s
    (200, 7): Consumption(100, 5599232),  # rgb_bitdist[ntuple=7]: 559.9 MB, 12 s
    (200, 8): Consumption(100, 6400000),  # rgb_bitdist[ntuple=8]: 640.0 MB, 13 s
    (200, 9): Consumption(100, 7200768),  # rgb_bitdist[ntuple=9]: 720.1 MB, 16 s
    (200, 10): Consumption(100, 7999488),  # rgb_bitdist[ntuple=10]: 799.9 MB, 21 s
    (200, 11): Consumption(100, 8800256),  # rgb_bitdist[ntuple=11]: 880.0 MB, 32 s
    (200, 12): Consumption(100, 9600000),  # rgb_bitdist[ntuple=12]: 960.0 MB, 50 s
    (201, 2): Consumption(1000, 79872),  # rgb_minimum_distance[ntuple=2]: 79.9 MB, 3 s
    (201, 3): Consumption(1000, 119808),  # rgb_minimum_distance[ntuple=3]: 119.8 MB, 6 s
    (201, 4): Consumption(1000, 159744),  # rgb_minimum_distance[ntuple=4]: 159.7 MB, 12 s
    (201, 5): Consumption(1000, 200704),  # rgb_minimum_distance[ntuple=5]: 200.7 MB, 20 s
    (202, 2): Consumption(100, 799744),  # rgb_permutations[ntuple=2]: 80.0 MB, 1 s
    (202, 3): Consumption(100, 1200128),  # rgb_permutations[ntuple=3]: 120.0 MB, 1 s
    (202, 4): Consumption(100, 1600512),  # rgb_permutations[ntuple=4]: 160.1 MB, 2 s
    (202, 5): Consumption(100, 1999872),  # rgb_permutations[ntuple=5]: 200.0 MB, 4 s
    (203, 0): Consumption(100, 3999744),  # rgb_lagged_sum[ntuple=0]: 400.0 MB, 3 s
    (203, 1): Consumption(100, 7999488),  # rgb_lagged_sum[ntuple=1]: 799.9 MB, 6 s
    (203, 2): Consumption(100, 12000256),  # rgb_lagged_sum[ntuple=2]: 1.2 GB, 10 s
    (203, 3): Consumption(100, 16000000),  # rgb_lagged_sum[ntuple=3]: 1.6 GB, 12 s
    (203, 4): Consumption(100, 20000768),  # rgb_lagged_sum[ntuple=4]: 2.0 GB, 14 s
    (203, 5): Consumption(100, 23999488),  # rgb_lagged_sum[ntuple=5]: 2.4 GB, 20 s
    (203, 6): Consumption(100, 28000256),  # rgb_lagged_sum[ntuple=6]: 2.8 GB, 21 s
    (203, 7): Consumption(100, 32000000),  # rgb_lagged_sum[ntuple=7]: 3.2 GB, 25 s
    (203, 8): Consumption(100, 35999744),  # rgb_lagged_sum[ntuple=8]: 3.6 GB, 30 s
    (203, 9): Consumption(100, 40000512),  # rgb_lagged_sum[ntuple=9]: 4.0 GB, 32 s
    (203, 10): Consumption(100, 43999232),  # rgb_lagged_sum[ntuple=10]: 4.4 GB, 32 s
    (203, 11): Consumption(100, 48000000),  # rgb_lagged_sum[ntuple=11]: 4.8 GB, 38 s
    (203, 12): Consumption(100, 51999744),  # rgb_lagged_sum[ntuple=12]: 5.2 GB, 42 s
    (203, 13): Consumption(100, 56000512),  # rgb_lagged_sum[ntuple=13]: 5.6 GB, 43 s
    (203, 14): Consumption(100, 60000256),  # rgb_lagged_sum[ntuple=14]: 6.0 GB, 43 s
    (203, 15): Consumption(100, 64000000),  # rgb_lagged_sum[ntuple=15]: 6.4 GB, 50 s
    (203, 16): Consumption(100, 67999744),  # rgb_lagged_sum[ntuple=16]: 6.8 GB, 51 s
    (203, 17): Consumption(100, 71999488),  # rgb_lagged_sum[ntuple=17]: 7.2 GB, 59 s
    (203, 18): Consumption(100, 76000256),  # rgb_lagged_sum[ntuple=18]: 7.6 GB, 61 s
    (203, 19): Consumption(100, 80000000),  # rgb_lagged_sum[ntuple=19]: 8.0 GB, 62 s
    (203, 20): Consumption(100, 84000768),  # rgb_lagged_sum[ntuple=20]: 8.4 GB, 67 s
    (203, 21): Consumption(100, 87999488),  # rgb_lagged_sum[ntuple=21]: 8.8 GB, 72 s
    (203, 22): Consumption(100, 92000256),  # rgb_lagged_sum[ntuple=22]: 9.2 GB, 71 s
    (203, 23): Consumption(100, 96000000),  # rgb_lagged_sum[ntuple=23]: 9.6 GB, 87 s
    (203, 24): Consumption(100, 99999744),  # rgb_lagged_sum[ntuple=24]: 10.0 GB, 133 s
    (203, 25): Consumption(100, 104000512),  # rgb_lagged_sum[ntuple=25]: 10.4 GB, 132 s
    (203, 26): Consumption(100, 107999232),  # rgb_lagged_sum[ntuple=26]: 10.8 GB, 116 s
    (203, 27): Consumption(100, 112000000),  # rgb_lagged_sum[ntuple=27]: 11.2 GB, 111 s
    (203, 28): Consumption(100, 115999744),  # rgb_lagged_sum[ntuple=28]: 11.6 GB, 78 s
    (203, 29): Consumption(100, 120000512),  # rgb_lagged_sum[ntuple=29]: 12.0 GB, 101 s
    (203, 30): Consumption(100, 124000256),  # rgb_lagged_sum[ntuple=30]: 12.4 GB, 83 s
    (203, 31): Consumption(100, 128000000),  # rgb_lagged_sum[ntuple=31]: 12.8 GB, 84 s
    (203, 32): Consumption(100, 131999744),  # rgb_lagged_sum[ntuple=32]: 13.2 GB, 122 s
    (204, None): Consumption(1000, 39936),  # rgb_kstest_test: 39.9 MB, 1 s
    (205, None): Consumption(1, 614400000),  # dab_bytedistrib: 614.4 MB, 6 s
    (206, None): Consumption(1, 51200000),  # dab_dct: 51.2 MB, 1 s
    (207, None): Consumption(1, 452001792, variable=True),  # dab_filltree: 452.0 MB, 4 s
    (208, None): Consumption(1, 116867072, variable=True),  # dab_filltree2: 116.9 MB, 4 s
    (209, None): Consumption(1, 259999744),  # dab_monobit2: 260.0 MB, 3 s
}


def consumption(number: int, ntuple: int | None = None) -> Consumption:
    """The measured consumption of test ``number`` (with ``ntuple`` for tests 200-203)."""
    try:
        return CONSUMPTION[(number, ntuple)]
    except KeyError:
        raise ValueError(f"no measured consumption for dieharder test {number} ntuple={ntuple}") from None


def bytes_needed(number: int, ntuple: int | None = None, psamples: int | None = None) -> int:
    """Bytes of sample test ``number`` needs (default psamples unless given), with margins."""
    entry = consumption(number, ntuple)
    count = entry.default_psamples if psamples is None else psamples
    raw = entry.bytes_for(count)
    if entry.variable:
        raw = math.ceil(raw * VARIABLE_MARGIN)
    return raw + PER_PSAMPLE_SLACK * count + READ_AHEAD


def invocations_for(number: int, ntuple: int | None) -> list[tuple[int, int | None]]:
    """(number, ntuple) pairs one selected test expands to (sweeps for 200-203 without ntuple)."""
    if number in NTUPLE_SWEEPS and ntuple is None:
        return [(number, value) for value in NTUPLE_SWEEPS[number]]
    return [(number, ntuple)]


def sample_plan(sample_bytes: int, selection: Iterable[tuple[int, int | None]], psamples: int | None = None,
                share_sample: bool = False) -> list[tuple[tuple[int, int | None], int, bool]]:
    """For each (number, ntuple): (key, bytes needed, whether the sample is enough).

    With ``share_sample`` every test reads the sample from its start; otherwise tests
    read consecutive, non-overlapping parts of it, so each must fit in what the tests
    before it left; a test that does not fit takes nothing (it is skipped, as
    ``Dieharder.run(..., skip_insufficient=True)`` does). WEAK re-tests need more
    (doubling psamples each time) and are not counted.
    """
    if sample_bytes < 0:
        raise ValueError(f"sample size must be >= 0 bytes, got {sample_bytes}")
    plan = []
    used = 0
    for key in selection:
        need = bytes_needed(key[0], key[1], psamples)
        enough = need <= sample_bytes if share_sample else used + need <= sample_bytes
        if enough and not share_sample:
            used += need
        plan.append((key, need, enough))
    return plan


def fitting_tests(sample_bytes: int, selection: Sequence[tuple[int, int | None]], psamples: int | None = None,
                  share_sample: bool = False) -> list[tuple[int, int | None]]:
    """The (number, ntuple) keys of ``selection`` a sample of ``sample_bytes`` is enough for."""
    return [key for key, _need, enough in sample_plan(sample_bytes, selection, psamples, share_sample) if enough]
