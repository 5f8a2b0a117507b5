"""Linear complexity test, NIST SP 800-22 Rev. 1a section 2.10 (theory in 3.10).

H0: the sequence is a realisation of independent, fair bits, so the linear complexity of
each block (the length of the shortest LFSR that generates it) follows its distribution for
random blocks. The sequence is cut into N = floor(n/M) blocks of M bits; the linear
complexity L_i of each block is found with the Berlekamp-Massey algorithm;
T_i = (-1)^M (L_i - mu) + 2/9 with mu = M/2 + (9 + (-1)^(M+1))/36 - (M/3 + 2/9)/2^M; the
T_i are binned as v_0: T <= -2.5, v_1: -2.5 < T <= -1.5, ..., v_5: 1.5 < T <= 2.5,
v_6: T > 2.5; chi^2 = sum_i (v_i - N pi_i)^2 / (N pi_i) with K = 6 degrees of freedom and
P-value = igamc(K/2, chi^2/2).

The class probabilities are those of the limiting distribution of T (section 3.10):
P(T = k) = 2^(-2k) for k >= 1 and 2^(-2|k|-1) for k <= 0, giving
pi = (1/96, 1/32, 1/8, 1/2, 1/4, 1/16, 1/48), which section 2.10.4 prints rounded
as 0.010417, 0.03125, 0.125, 0.5, 0.25, 0.0625, 0.020833 (the first and the last classes
gather the tails T <= -3 and T >= 3). The sign (-1)^M makes the ordering the same for even
and odd M, so the same pi serve for both.

Berlekamp-Massey is run on all N blocks at once: each block's connection polynomial C, its
shifted previous polynomial D = x^(t-m) B and the reversed prefix of the block are held as
bit-packed uint64 words, one column per block, and every step t = 0..M-1 is a handful of
numpy operations over all blocks (no per-block Python loop).

Known deviations (recorded here, checked by the tests):
    * The reference implementation (sts-2.1.2, ``linearComplexity.c``) hard-codes
      pi_0 = 0.01047 instead of 0.010417 (a digit transposition; its seven values then sum to
      1.000053); its other six values and its binning of the first and last classes
      (T <= -2.5, T > 2.5) agree with the document.
    * The document's own example on e (section 2.10.8, M = 1000) prints chi^2 = 2.700348
      and P-value = 0.845406, which come from the reference's 0.01047, not from the 0.010417
      printed in section 2.10.4; with the document's probabilities the same counts
      (11, 31, 116, 501, 258, 57, 26) give chi^2 = 2.706147 (2.706000 with the exact 1/96)
      and P-value = 0.844721 (0.844738). Appendix B's 0.826335 for e (M = 500) likewise
      needs 0.01047; this module gives 0.826202.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from scipy.special import gammaincc

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import NistResult

LINEAR_COMPLEXITY = "linear_complexity"

# Section 3.10: limiting probabilities of the classes of T (printed rounded in 2.10.4).
CLASS_PROBABILITIES: tuple[Fraction, ...] = (
    Fraction(1, 96), Fraction(1, 32), Fraction(1, 8), Fraction(1, 2), Fraction(1, 4), Fraction(1, 16), Fraction(1, 48))
CLASS_EDGES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
WORD = 64
_ONE = np.uint64(1)
_TOP_BIT = np.uint64(WORD - 1)


def _parity(words: np.ndarray) -> np.ndarray:
    """Parity of each uint64 (np.bitwise_count where available, else xor folding)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words) & np.uint8(1)
    folded = words.copy()
    for shift in (32, 16, 8, 4, 2, 1):
        folded ^= folded >> np.uint64(shift)
    return (folded & np.uint64(1)).astype(np.uint8)


def _shift_up(words: np.ndarray) -> None:
    """Multiply each column's polynomial by x in place; row w holds coefficients 64w..64w+63."""
    if words.shape[0] > 1:
        carry = words[:-1] >> _TOP_BIT
        words <<= _ONE
        words[1:] |= carry
    else:
        words <<= _ONE


def linear_complexities(blocks: np.ndarray) -> np.ndarray:
    """Linear complexity of each row of a (N, M) 0/1 array, by Berlekamp-Massey over GF(2), vectorised.

    State per block, as polynomials packed into ceil((M+1)/64) uint64 words (array row w, one
    column per block; bit j of row w is the coefficient of x^(64w+j)): C, the current
    connection polynomial; D = x^(t-m) B, the polynomial saved at the latest length change m,
    already shifted for step t; R, the block read backwards from s_t (coefficient of x^i is
    s_(t-i)). At step t the discrepancy is the parity of C & R; where it is 1, C ^= D, and
    where moreover 2L <= t, L becomes t + 1 - L and D the old C. All degrees stay <= t + 1,
    so only the first (t + 1)//64 + 1 words take part in step t.
    """
    blocks = np.asarray(blocks, dtype=np.uint8)
    N, M = blocks.shape
    words = (M + 1 + WORD - 1) // WORD
    C = np.zeros((words, N), dtype=np.uint64)
    D = np.zeros((words, N), dtype=np.uint64)
    R = np.zeros((words, N), dtype=np.uint64)
    scratch = np.empty((words, N), dtype=np.uint64)
    C[0] = 1
    D[0] = 1  # B = 1 and m = -1: shifted at step 0 to D = x
    L = np.zeros(N, dtype=np.int64)
    columns = np.ascontiguousarray(blocks.T).astype(np.uint64)  # columns[t] = s_t of every block
    for t in range(M):
        top = (t + 1) // WORD + 1
        c, d, r, x = C[:top], D[:top], R[:top], scratch[:top]
        _shift_up(d)
        _shift_up(r)
        r[0] |= columns[t]
        np.bitwise_and(c, r, out=x)
        discrepancy = _parity(np.bitwise_xor.reduce(x, axis=0) if top > 1 else x[0])
        lengthen = discrepancy.astype(bool) & (2 * L <= t)
        flip = np.uint64(0) - discrepancy.astype(np.uint64)  # all ones where the discrepancy is 1
        keep = np.uint64(0) - lengthen.astype(np.uint64)  # all ones where the length changes
        np.bitwise_xor(c, d, out=x)
        x &= keep
        c ^= d & flip  # C <- C + x^(t-m) B where the discrepancy is 1
        d ^= x  # D <- old C where the length changes
        L[lengthen] = t + 1 - L[lengthen]
    return L


def expected_complexity(M: int) -> float:
    """mu = M/2 + (9 + (-1)^(M+1))/36 - (M/3 + 2/9)/2^M (section 2.10.4)."""
    return M / 2.0 + (9.0 + (-1.0) ** (M + 1)) / 36.0 - (M / 3.0 + 2.0 / 9.0) / 2.0**M


def t_statistics(complexities: np.ndarray, M: int) -> np.ndarray:
    """T_i = (-1)^M (L_i - mu) + 2/9 (section 2.10.4)."""
    return (-1.0) ** M * (np.asarray(complexities, dtype=np.float64) - expected_complexity(M)) + 2.0 / 9.0


def class_counts(t_values: np.ndarray) -> np.ndarray:
    """v_0..v_6 of section 2.10.4: v_0 counts T <= -2.5, v_i counts edge_(i-1) < T <= edge_i, v_6 T > 2.5."""
    classes = np.searchsorted(CLASS_EDGES, t_values, side="left")
    return np.bincount(classes, minlength=7)


def linear_complexity(bits: np.ndarray, *, M: int = 500, K: int = 6) -> NistResult:
    """Linear complexity test, SP 800-22 Rev. 1a section 2.10.

    H0: the bits are independent and fair. ``M`` is the block length (section 2.10.7:
    500 <= M <= 5000), ``K`` the degrees of freedom (the document's classes fix K = 6).
    Statistics: ``N``, ``mu``, ``v_0``..``v_6``, ``chi2``; one P-value ``p``. Not applicable when
    M is outside 500..5000 or N < 200 (section 2.10.7, for the chi-square to be valid).
    """
    if M < 1:
        raise ValueError(f"M={M}: the block length must be positive")
    if K != 6:
        raise ValueError(f"K={K}: the classes of section 2.10.4 give K = 6 degrees of freedom only")
    bits = as_bit_array(bits)
    n = int(bits.size)
    parameters = {"M": M, "K": K}
    N = n // M
    if not 500 <= M <= 5000:
        return NistResult.inapplicable(
            LINEAR_COMPLEXITY, n, parameters, f"M={M} is outside the range 500 <= M <= 5000 of section 2.10.7")
    if N < 200:
        return NistResult.inapplicable(
            LINEAR_COMPLEXITY, n, parameters,
            f"only N={N} blocks of M={M} bits; section 2.10.7 needs N >= 200 (n >= {200 * M})")
    complexities = linear_complexities(bits[: N * M].reshape(N, M))
    v = class_counts(t_statistics(complexities, M))
    pi = np.array([float(p) for p in CLASS_PROBABILITIES])
    expected = N * pi
    chi2 = float(((v - expected) ** 2 / expected).sum())
    p = float(gammaincc(K / 2.0, chi2 / 2.0))
    statistics: dict[str, float] = {"N": float(N), "mu": expected_complexity(M)}
    statistics.update({f"v_{i}": float(c) for i, c in enumerate(v)})
    statistics["chi2"] = chi2
    notes = [f"{n - N * M} trailing bits do not fill a block and were not used"] if n % M else []
    if n < 10**6:
        notes.append(f"n={n} is below the n >= 10^6 recommended in section 2.10.7")
    return NistResult(test=LINEAR_COMPLEXITY, n=n, parameters=parameters, statistics=statistics,
                      p_values={"p": p}, notes=tuple(notes))


TESTS = {LINEAR_COMPLEXITY: (linear_complexity, {"M": 500, "K": 6})}
