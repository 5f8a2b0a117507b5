"""SP 800-22 Rev. 1a section 2.3 (runs) and section 2.4 (longest run of ones in a block).

Both tests take H0: the bits are independent and each is 1 with probability 1/2.

* Runs (2.3): V_n(obs) = 1 + #{k : eps_k != eps_{k+1}} is the number of runs; with
  pi = #ones / n, P-value = erfc(|V_n(obs) - 2 n pi (1 - pi)| / (2 sqrt(2n) pi (1 - pi)))
  (section 2.3.4). Input size: n >= 100 (2.3.7).
* Longest run of ones (2.4): the sequence is cut into N = floor(n/M) blocks of M bits (the
  remainder is discarded); the longest run of ones of each block is sorted into K + 1
  classes and chi^2 = sum (nu_i - N pi_i)^2 / (N pi_i), P-value = igamc(K/2, chi^2/2). M is
  chosen from n by the table of section 2.4.2: n >= 128 -> M = 8 (K = 3, classes <=1, 2, 3,
  >=4); n >= 6272 -> M = 128 (K = 5, classes <=4, ..., >=9); n >= 750,000 -> M = 10^4
  (K = 6, classes <=10, ..., >=16). Below 128 bits the document gives no table: the test is
  not applicable whatever ``strict`` says.

Decisions and deviations, written down for the audit:

* Runs pre-test (section 2.3.4 (2)): when |pi - 1/2| >= tau = 2/sqrt(n) the document says the
  test "need not be performed" and sets the P-value to 0.0000. This implementation follows
  the document: the result is applicable, its P-value is 0.0 (so it fails at any alpha) and a
  note states that the frequency pre-test failed. Such a sequence fails the frequency test
  with P < 7e-5, so a failure, not a "not tested", is the truthful verdict; V_n(obs) is
  still reported.
* Class probabilities pi_i (section 2.4.4, derived in 3.4): for M = 8 and M = 128 they are
  computed exactly (integer counts of M-bit blocks, divided once); these agree with the
  document's printed four-decimal values to within 1e-4 (the printed M = 128 value 0.2493 is
  the exact 0.249363 truncated rather than rounded) and reproduce the 2.4.8 example
  (chi^2 = 4.882457, P = 0.180609). The step-by-step illustration in 2.4.4 shows
  chi^2 = 4.882605 and P = 0.180598 for the same counts because it uses the four-decimal
  table. For M = 10^4 the document's printed four-decimal table is used by default (as the
  reference implementation does), which reproduces Appendix B's P = 0.718945 on e; those
  values are up to 1.6e-3 from the exact ones. ``exact_probabilities=True`` uses the exact
  values for M = 10^4 too.
* ``strict`` (default True) gives a not-applicable result for the runs test below n = 100;
  ``strict=False`` computes anyway (as the document's 10-bit example does) and notes it.
"""

from __future__ import annotations

import math
from collections import deque
from fractions import Fraction
from functools import lru_cache
from itertools import pairwise

import numpy as np
from scipy.special import erfc, gammaincc

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import NistResult

RUNS = "runs"
LONGEST_RUN_OF_ONES = "longest_run_of_ones"
RUNS_DEFAULTS: dict[str, int] = {}
LONGEST_RUN_DEFAULTS: dict[str, int] = {}

MIN_RUNS_BITS = 100  # section 2.3.7


def runs(bits: np.ndarray, *, strict: bool = True) -> NistResult:
    """Runs test, SP 800-22 Rev. 1a section 2.3.

    H0: the number of runs (maximal blocks of equal bits) is that of independent fair bits.
    Statistic V_n(obs); P-value = erfc(|V - 2n pi(1-pi)| / (2 sqrt(2n) pi(1-pi))).
    """
    bits = as_bit_array(bits)
    n = int(bits.size)
    if n == 0:
        return NistResult.inapplicable(RUNS, n, {}, "the sequence is empty")
    notes: list[str] = []
    if n < MIN_RUNS_BITS:
        reason = f"n = {n} bits, below the minimum n >= {MIN_RUNS_BITS} of section 2.3.7"
        if strict:
            return NistResult.inapplicable(RUNS, n, {}, reason)
        notes.append(reason + "; computed anyway (strict=False)")
    ones = int(np.count_nonzero(bits))
    pi = ones / n
    tau = 2.0 / math.sqrt(n)
    v_obs = 1 + int(np.count_nonzero(bits[1:] != bits[:-1]))
    statistics = {"pi": pi, "tau": tau, "V_obs": float(v_obs)}
    spread = pi * (1.0 - pi)
    if abs(pi - 0.5) >= tau or spread == 0.0:
        if spread == 0.0:  # only reachable with strict=False: below 16 bits tau exceeds 1/2
            notes.append("the sequence is constant, so the runs statistic is undefined; P-value set to 0 "
                         "as for a failed frequency pre-test (section 2.3.4 (2))")
        else:
            notes.append(f"frequency pre-test failed: |pi - 1/2| = {abs(pi - 0.5):.6g} >= tau = {tau:.6g}; "
                         "section 2.3.4 (2) sets the P-value to 0")
        return NistResult(test=RUNS, n=n, parameters={}, statistics=statistics, p_values={"p": 0.0},
                          notes=tuple(notes))
    p = float(erfc(abs(v_obs - 2.0 * n * spread) / (2.0 * math.sqrt(2.0 * n) * spread)))
    return NistResult(test=RUNS, n=n, parameters={}, statistics=statistics, p_values={"p": p},
                      notes=tuple(notes))


# Section 2.4.2: (minimum n, M, K, v_min), largest M first; the K + 1 classes are
# "v_min or less", v_min + 1, ..., v_min + K - 1, "v_min + K or more".
LONGEST_RUN_TABLE: tuple[tuple[int, int, int, int], ...] = (
    (750_000, 10_000, 6, 10),
    (6_272, 128, 5, 4),
    (128, 8, 3, 1),
)

# Section 2.4.4 / 3.4, printed to four decimals: used for M = 10^4 unless exact_probabilities=True.
PRINTED_PROBABILITIES: dict[int, tuple[float, ...]] = {
    8: (0.2148, 0.3672, 0.2305, 0.1875),
    128: (0.1174, 0.2430, 0.2493, 0.1752, 0.1027, 0.1124),
    10_000: (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727),
}


@lru_cache(maxsize=64)
def _blocks_without_run(length: int, run: int) -> int:
    """Number of ``length``-bit strings with no run of ``run`` consecutive ones (exact integer).

    a_j = 2^j for j < run (every string is valid); for j >= run a valid string starts with
    i < run ones, then a zero, then a valid string of j - i - 1 bits, so
    a_j = a_{j-1} + a_{j-2} + ... + a_{j-run}.
    """
    recent: deque[int] = deque()  # the last `run` counts a_{j-run} .. a_{j-1}
    window = 0  # their sum
    value = 1
    for j in range(length + 1):
        value = (1 << j) if j < run else window
        recent.append(value)
        window += value
        if len(recent) > run:
            window -= recent.popleft()
    return value


@lru_cache(maxsize=8)
def exact_class_probabilities(M: int, K: int, v_min: int) -> tuple[float, ...]:
    """Exact P(longest run of ones in an M-bit block falls in each of the K + 1 classes)."""
    total = 1 << M
    at_most = [Fraction(_blocks_without_run(M, v + 1), total) for v in range(v_min, v_min + K)]
    classes = [at_most[0]] + [b - a for a, b in pairwise(at_most)] + [1 - at_most[-1]]
    return tuple(float(c) for c in classes)


def class_probabilities(M: int, *, exact: bool = False) -> tuple[float, ...]:
    """The pi_i used for block length M (see the module docstring for the choice)."""
    for _, block, K, v_min in LONGEST_RUN_TABLE:
        if block == M:
            if M == 10_000 and not exact:
                return PRINTED_PROBABILITIES[M]
            return exact_class_probabilities(M, K, v_min)
    raise ValueError(f"M = {M} is not one of the block lengths of section 2.4.2 (8, 128, 10000)")


def longest_runs_per_block(blocks: np.ndarray) -> np.ndarray:
    """Longest run of ones in each row of a (N, M) 0/1 array, vectorised across rows."""
    count, length = blocks.shape
    padded = np.zeros((count, length + 1), dtype=np.uint8)  # a zero closes every row
    padded[:, :length] = blocks
    zeros = np.flatnonzero(padded.ravel() == 0)
    run_before = np.diff(zeros, prepend=-1) - 1  # ones between consecutive zeros
    first_zero_of_row = np.searchsorted(zeros // (length + 1), np.arange(count))
    return np.maximum.reduceat(run_before, first_zero_of_row)


def longest_run_of_ones(bits: np.ndarray, *, exact_probabilities: bool = False) -> NistResult:
    """Test for the longest run of ones in a block, SP 800-22 Rev. 1a section 2.4.

    H0: the longest run of ones within M-bit blocks has the distribution of fair bits.
    M follows from n (section 2.4.2); chi^2 over K + 1 classes, P-value = igamc(K/2, chi^2/2).
    """
    bits = as_bit_array(bits)
    n = int(bits.size)
    for minimum, M, K, v_min in LONGEST_RUN_TABLE:
        if n >= minimum:
            break
    else:
        return NistResult.inapplicable(LONGEST_RUN_OF_ONES, n, {},
                                       f"n = {n} bits, below the minimum n >= 128 of section 2.4.2")
    blocks = n // M
    probabilities = class_probabilities(M, exact=exact_probabilities)
    longest = longest_runs_per_block(bits[: blocks * M].reshape(blocks, M))
    observed = np.bincount(np.clip(longest, v_min, v_min + K) - v_min, minlength=K + 1)
    expected = blocks * np.asarray(probabilities)
    chi_square = float(np.sum((observed - expected) ** 2 / expected))
    p = float(gammaincc(K / 2.0, chi_square / 2.0))
    parameters = {"M": M, "K": K, "N": blocks,
                  "probabilities": "exact" if (exact_probabilities or M != 10_000) else "printed (section 2.4.4)"}
    statistics = {"chi_square": chi_square}
    statistics.update({f"nu_{i}": float(c) for i, c in enumerate(observed)})
    return NistResult(test=LONGEST_RUN_OF_ONES, n=n, parameters=parameters, statistics=statistics,
                      p_values={"p": p})


TESTS = {
    RUNS: (runs, RUNS_DEFAULTS),
    LONGEST_RUN_OF_ONES: (longest_run_of_ones, LONGEST_RUN_DEFAULTS),
}
