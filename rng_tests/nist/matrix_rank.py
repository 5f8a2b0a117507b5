"""SP 800-22 Rev. 1a section 2.5: the binary matrix rank test.

H0: the bits are independent fair coin flips, so disjoint M x Q submatrices of the sequence
have the rank distribution of random matrices over GF(2). The sequence fills
N = floor(n / (M Q)) matrices row by row (the remainder is discarded); F_M full-rank
matrices, F_{M-1} of rank M - 1 and N - F_M - F_{M-1} of lower rank are compared with their
probabilities by chi^2 = sum (F - N p)^2 / (N p) with 2 degrees of freedom, and
P-value = exp(-chi^2 / 2) = igamc(1, chi^2/2) (section 2.5.4). Defaults M = Q = 32; input
size: at least 38 matrices, n >= 38 M Q (section 2.5.7).

Ranks are computed by Gauss-Jordan elimination over GF(2) on rows packed into 64-bit words,
one pass per column for all N matrices at once (M, Q <= 64).

Decisions and deviations, written down for the audit:

* Rank probabilities: p_r = 2^{r(Q+M-r) - MQ} prod_{i<r} (1-2^{i-Q})(1-2^{i-M}) / (1-2^{i-r})
  (section 3.5), computed for the M and Q used. For 32 x 32 they are 0.288788, 0.577576 and
  0.133636; the document prints them rounded (0.2888, 0.5776, 0.1336). Both the 2.5.8
  example (100,000 bits of e, P = 0.532069) and Appendix B (P = 0.306156 on 10^6 bits of e)
  are reproduced with the exact values.
* The 2.5.4 illustration (eps = 01011001001010101101, M = Q = 3) uses the 32 x 32
  probabilities for 3 x 3 matrices (chi^2 = 0.596953, P = 0.741948); with the 3 x 3
  probabilities of the same formula (0.328125, 0.574219, 0.097656) the statistic differs.
  This implementation uses the probabilities for the M and Q given.
* ``strict`` (default True) gives a not-applicable result below 38 matrices; ``strict=False``
  computes with any N >= 1 and notes the shortfall.
"""

from __future__ import annotations

import math

import numpy as np

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import NistResult

NAME = "binary_matrix_rank"
DEFAULTS: dict[str, int] = {"M": 32, "Q": 32}
MIN_MATRICES = 38  # section 2.5.7
MAX_DIMENSION = 64  # rows are packed into uint64 words


def _dimension(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 2 <= value <= MAX_DIMENSION:
        raise ValueError(f"{name} must be an integer between 2 and {MAX_DIMENSION}, got {value!r}")
    return int(value)


def rank_probability(r: int, M: int, Q: int) -> float:
    """Probability that a random M x Q matrix over GF(2) has rank r (section 3.5)."""
    if not 0 <= r <= min(M, Q):
        return 0.0
    log2_value = r * (Q + M - r) - M * Q
    product = 1.0
    for i in range(r):
        product *= (1.0 - 2.0 ** (i - Q)) * (1.0 - 2.0 ** (i - M)) / (1.0 - 2.0 ** (i - r))
    return math.ldexp(product, log2_value)


def rank_class_probabilities(M: int, Q: int) -> tuple[float, float, float]:
    """(P(full rank), P(full rank - 1), P(lower)) with full rank m = min(M, Q)."""
    m = min(M, Q)
    full, one_less = rank_probability(m, M, Q), rank_probability(m - 1, M, Q)
    return full, one_less, 1.0 - full - one_less


def matrix_ranks(bits: np.ndarray, M: int = 32, Q: int = 32) -> np.ndarray:
    """GF(2) rank of each of the floor(n / MQ) consecutive M x Q matrices, filled row by row."""
    M, Q = _dimension("M", M), _dimension("Q", Q)
    bits = as_bit_array(bits)
    count = bits.size // (M * Q)
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    row_bits = bits[: count * M * Q].reshape(count * M, Q).astype(np.uint64)
    weights = np.left_shift(np.uint64(1), np.arange(Q - 1, -1, -1, dtype=np.uint64))
    rows = (row_bits * weights).sum(axis=1, dtype=np.uint64).reshape(count, M)  # first bit most significant
    rank = np.zeros(count, dtype=np.int64)
    used = np.zeros((count, M), dtype=bool)  # rows already chosen as pivots
    matrices = np.arange(count)
    for column in range(Q):
        mask = np.uint64(1) << np.uint64(Q - 1 - column)
        has_bit = (rows & mask) != 0
        candidates = has_bit & ~used
        found = candidates.any(axis=1)
        pivot = np.argmax(candidates, axis=1)
        pivot_rows = rows[matrices, pivot]
        eliminate = has_bit & found[:, None]
        eliminate[matrices, pivot] = False
        rows ^= np.where(eliminate, pivot_rows[:, None], np.uint64(0))
        used[matrices[found], pivot[found]] = True
        rank += found
    return rank


def binary_matrix_rank(bits: np.ndarray, *, M: int = 32, Q: int = 32, strict: bool = True) -> NistResult:
    """Binary matrix rank test, SP 800-22 Rev. 1a section 2.5.

    H0: the ranks of disjoint M x Q matrices have the distribution of random GF(2) matrices.
    chi^2 over the classes (full, full - 1, lower), 2 degrees of freedom; P = exp(-chi^2/2).
    """
    M, Q = _dimension("M", M), _dimension("Q", Q)
    bits = as_bit_array(bits)
    n = int(bits.size)
    count = n // (M * Q)
    parameters = {"M": M, "Q": Q, "N": count}
    if count == 0:
        return NistResult.inapplicable(NAME, n, parameters, f"n = {n} bits hold no complete {M} x {Q} matrix")
    notes: list[str] = []
    if count < MIN_MATRICES:
        reason = (f"N = {count} matrices, below the minimum of {MIN_MATRICES} of section 2.5.7 "
                  f"(n >= {MIN_MATRICES * M * Q})")
        if strict:
            return NistResult.inapplicable(NAME, n, parameters, reason)
        notes.append(reason + "; computed anyway (strict=False)")
    ranks = matrix_ranks(bits, M, Q)
    full_rank = min(M, Q)
    observed = np.array([np.count_nonzero(ranks == full_rank), np.count_nonzero(ranks == full_rank - 1), 0])
    observed[2] = count - observed[0] - observed[1]
    expected = count * np.asarray(rank_class_probabilities(M, Q))
    chi_square = float(np.sum((observed - expected) ** 2 / expected))
    p = math.exp(-chi_square / 2.0)
    statistics = {"chi_square": chi_square, "F_full": float(observed[0]), "F_full_minus_1": float(observed[1]),
                  "F_lower": float(observed[2])}
    return NistResult(test=NAME, n=n, parameters=parameters, statistics=statistics, p_values={"p": p},
                      notes=tuple(notes))


TESTS = {NAME: (binary_matrix_rank, DEFAULTS)}
