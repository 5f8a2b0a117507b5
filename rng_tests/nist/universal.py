"""Maurer's "universal statistical" test, NIST SP 800-22 Rev. 1a section 2.9 (theory in 3.9).

H0: the sequence is a realisation of independent, fair bits (it cannot be significantly
compressed). The sequence is cut into non-overlapping L-bit blocks: the first Q blocks
initialise a table holding, for each L-bit pattern, the index of its last occurrence; for
each of the following K = floor(n/L) - Q test blocks i, log2(i - last index of its pattern)
is added to a sum, and the table is updated. f_n = sum / K. Under H0 f_n is approximately
normal with mean expectedValue(L) and standard deviation sigma = c(L, K) sqrt(variance(L)/K),
c(L, K) = 0.7 - 0.8/L + (4 + 32/L) K^(-3/L) / 15 (section 2.9.4, after Coron and
Naccache). P-value = erfc(|f_n - expectedValue(L)| / (sqrt(2) sigma)).

L and Q are chosen from n by the table of section 2.9.7: L is the largest length with
n >= (Q + K) L where Q = 10·2^L and K = 1000·2^L, i.e. n >= 1010·2^L·L; the smallest row,
L = 6, needs n >= 387,840. Shorter sequences get a not-applicable result. L and Q can be
given explicitly (the document's worked example uses L = 2, Q = 4 on 20 bits); the result is
then computed, with notes naming each recommendation that is not met.

Known deviations (recorded here, checked in the tests):
    * The worked example of section 2.9.4 (epsilon = 01011010011101010111, L = 2, Q = 4)
      prints P-value = erfc(|1.1949875 - 1.5374383| / (sqrt(2) sqrt(1.338))) = 0.767189: it
      uses sqrt(variance(L)) as sigma, not the c(L, K) sqrt(variance(L)/K) its own text
      prescribes (with that sigma the example's P-value would be 0.0635).
    * The reference implementation (sts-2.1.2, ``universal.c``), when n < 387,840, sets
      L = 5, then prints "L IS OUT OF RANGE" and returns without a P-value; the test is
      silently missing from its report. Here the result is explicitly not applicable, with
      the reason. Like the document, it uses K = floor(n/L) - Q (all remaining blocks), not
      the K = 1000·2^L of the size table.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import erfc

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import NistResult

UNIVERSAL = "universal"

# Section 2.9.7: smallest n for each block length L (Q = 10·2^L initialisation blocks).
MINIMUM_N_FOR_L: dict[int, int] = {
    6: 387_840, 7: 904_960, 8: 2_068_480, 9: 4_654_080, 10: 10_342_400, 11: 22_753_280,
    12: 49_643_520, 13: 107_560_960, 14: 231_669_760, 15: 496_435_200, 16: 1_059_061_760,
}

# Section 2.9.4 / 3.9: expectedValue(L) and variance(L) of log2 of the gap (Maurer 1992).
EXPECTED_VALUE: dict[int, float] = {
    1: 0.7326495, 2: 1.5374383, 3: 2.4016068, 4: 3.3112247, 5: 4.2534266, 6: 5.2177052,
    7: 6.1962507, 8: 7.1836656, 9: 8.1764248, 10: 9.1723243, 11: 10.170032, 12: 11.168765,
    13: 12.168070, 14: 13.167693, 15: 14.167488, 16: 15.167379,
}
VARIANCE: dict[int, float] = {
    1: 0.690, 2: 1.338, 3: 1.901, 4: 2.358, 5: 2.705, 6: 2.954, 7: 3.125, 8: 3.238,
    9: 3.311, 10: 3.356, 11: 3.384, 12: 3.401, 13: 3.410, 14: 3.416, 15: 3.419, 16: 3.421,
}


def block_length_for(n: int) -> int | None:
    """L from the table of section 2.9.7 for a sequence of n bits, or None when n < 387,840."""
    eligible = [L for L, minimum in MINIMUM_N_FOR_L.items() if n >= minimum]
    return max(eligible) if eligible else None


def c_factor(L: int, K: int) -> float:
    """c(L, K) = 0.7 - 0.8/L + (4 + 32/L) K^(-3/L) / 15 (section 2.9.4)."""
    return 0.7 - 0.8 / L + (4.0 + 32.0 / L) * K ** (-3.0 / L) / 15.0


def universal_sum(bits: np.ndarray, L: int, Q: int) -> tuple[float, int]:
    """(sum of log2 distances over the test blocks, K) for blocks of L bits after Q initialisation blocks.

    Vectorised: the blocks are sorted by pattern (stable, so by index within a pattern); each
    block's previous occurrence is its predecessor in that order, or index 0 when the
    pattern has not occurred before (the table starts at 0 in section 2.9.4).
    """
    bits = as_bit_array(bits)
    total_blocks = bits.size // L
    K = total_blocks - Q
    if K < 1:
        return 0.0, K
    blocks = bits[: total_blocks * L].reshape(total_blocks, L).astype(np.int64)
    patterns = blocks @ (1 << np.arange(L - 1, -1, -1, dtype=np.int64))
    order = np.argsort(patterns, kind="stable")
    index = order + 1  # blocks are numbered from 1
    sorted_patterns = patterns[order]
    previous_sorted = np.empty_like(index)
    previous_sorted[0] = 0
    previous_sorted[1:] = index[:-1]
    previous_sorted[1:][sorted_patterns[1:] != sorted_patterns[:-1]] = 0
    previous = np.empty_like(index)
    previous[order] = previous_sorted
    test_index = np.arange(Q + 1, total_blocks + 1)
    distance = test_index - previous[Q:]
    return float(np.log2(distance).sum()), K


def universal(bits: np.ndarray, *, L: int | None = None, Q: int | None = None) -> NistResult:
    """Maurer's universal statistical test, SP 800-22 Rev. 1a section 2.9.

    H0: the bits are independent and fair. By default L and Q come from the table of section
    2.9.7 (not applicable below n = 387,840); ``L`` (1..16) and ``Q`` override them.
    Statistics: ``L``, ``Q``, ``K``, ``sum``, ``fn``, ``expected_value``, ``variance``, ``c``,
    ``sigma``; one P-value ``p``.
    """
    if L is not None and not 1 <= L <= 16:
        raise ValueError(f"L={L}: the block length must be between 1 and 16 (table of section 2.9.4)")
    if Q is not None and Q < 1:
        raise ValueError(f"Q={Q}: the number of initialisation blocks must be at least 1")
    bits = as_bit_array(bits)
    n = int(bits.size)
    notes: list[str] = []
    if L is None:
        L = block_length_for(n)
        if L is None:
            return NistResult.inapplicable(
                UNIVERSAL, n, {"L": None, "Q": Q},
                f"n={n} is below 387,840, the smallest length in the table of section 2.9.7 (L=6)")
    elif n < 1010 * 2**L * L:
        notes.append(f"n={n} is below the {1010 * 2**L * L} that section 2.9.7 asks for L={L}")
    if Q is None:
        Q = 10 * 2**L
    elif Q < 10 * 2**L:
        notes.append(f"Q={Q} is below the 10·2^L={10 * 2**L} of section 2.9.7")
    parameters = {"L": L, "Q": Q}
    total, K = universal_sum(bits, L, Q)
    if K < 1:
        return NistResult.inapplicable(
            UNIVERSAL, n, parameters, f"n={n} leaves no test block after Q={Q} initialisation blocks of L={L} bits")
    fn = total / K
    expected, variance = EXPECTED_VALUE[L], VARIANCE[L]
    c = c_factor(L, K)
    sigma = c * math.sqrt(variance / K)
    p = float(erfc(abs(fn - expected) / (math.sqrt(2.0) * sigma)))
    statistics = {"L": float(L), "Q": float(Q), "K": float(K), "sum": total, "fn": fn,
                  "expected_value": expected, "variance": variance, "c": c, "sigma": sigma}
    discarded = n - (Q + K) * L
    if discarded:
        notes.append(f"{discarded} trailing bits do not fill a block and were not used")
    return NistResult(test=UNIVERSAL, n=n, parameters=parameters, statistics=statistics,
                      p_values={"p": p}, notes=tuple(notes))


TESTS = {UNIVERSAL: (universal, {"L": None, "Q": None})}
