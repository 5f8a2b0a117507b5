"""SP 800-22 Rev. 1a section 2.11: the serial test.

H0: the bits are independent fair coin flips, so all 2^m overlapping m-bit patterns are
equally frequent. Following section 2.11.4, with the sequence read cyclically (its first
k - 1 bits appended for k-bit patterns) so that there are n windows of each length k:

    psi^2_k = (2^k / n) sum_i nu_i^2 - n        (psi^2_0 = 0; psi^2_{-1} = 0 is never needed for m >= 2)
    del psi^2_m  = psi^2_m - psi^2_{m-1}
    del2 psi^2_m = psi^2_m - 2 psi^2_{m-1} + psi^2_{m-2}
    P-value1 = igamc(2^(m-2), del psi^2_m / 2);  P-value2 = igamc(2^(m-3), del2 psi^2_m / 2).

Default m = 16 (the reference battery's value). Input size: m < floor(log2 n) - 2 (section
2.11.7); m = 16 needs n >= 2^19.

The m-bit counts are computed once; the (m-1)- and (m-2)-bit cyclic counts are their sums
over the last bits (exact: every cyclic k-window is the head of one cyclic (k+1)-window).
The psi^2 values are formed from exact integer sums of squares, (2^k sum nu^2 - n^2) / n,
with a single rounding.

``strict`` (default True) gives a not-applicable result when m >= floor(log2 n) - 2;
``strict=False`` computes anyway (as the document's 10-bit example does) and notes it.
m must be at least 2 (P-value2 needs psi^2_{m-2}).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaincc

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import NistResult
from rng_tests.nist.windows import window_values

NAME = "serial"
DEFAULTS: dict[str, int] = {"m": 16}
MAX_M = 24  # 2^m counters are kept; far beyond any usable n anyway


def _block_length(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 2 <= value <= MAX_M:
        raise ValueError(f"m must be an integer between 2 and {MAX_M}, got {value!r}")
    return int(value)


def _psi_square_numerators(counts: np.ndarray, m: int, n: int) -> list[int]:
    """n psi^2_k for k = m, m-1, m-2, exactly, from the cyclic m-bit pattern counts."""
    numerators = []
    for k in (m, m - 1, m - 2):
        squares = int(np.dot(counts, counts))  # int64: exact for n < 3e9
        numerators.append((squares << k) - n * n)
        counts = counts.reshape(-1, 2).sum(axis=1) if k > 0 else counts
    return numerators


def serial(bits: np.ndarray, *, m: int = 16, strict: bool = True) -> NistResult:
    """Serial test, SP 800-22 Rev. 1a section 2.11; p-values "p1" (del psi^2) and "p2" (del2 psi^2).

    H0: every m-bit pattern is equally likely among the overlapping (cyclic) windows.
    """
    m = _block_length(m)
    bits = as_bit_array(bits)
    n = int(bits.size)
    parameters = {"m": m}
    if n < m:
        return NistResult.inapplicable(NAME, n, parameters, f"n = {n} bits: the test needs n >= m = {m}")
    notes: list[str] = []
    limit = math.floor(math.log2(n)) - 2
    if not m < limit:
        reason = f"m = {m} does not satisfy m < floor(log2 n) - 2 = {limit} (section 2.11.7)"
        if strict:
            return NistResult.inapplicable(NAME, n, parameters, reason)
        notes.append(reason + "; computed anyway (strict=False)")
    counts = np.bincount(window_values(bits, m, wrap=True), minlength=1 << m).astype(np.int64)
    psi_m, psi_m1, psi_m2 = _psi_square_numerators(counts, m, n)
    delta = (psi_m - psi_m1) / n
    delta2 = (psi_m - 2 * psi_m1 + psi_m2) / n
    p1 = float(gammaincc(2.0 ** (m - 2), delta / 2.0))
    p2 = float(gammaincc(2.0 ** (m - 3), delta2 / 2.0))
    statistics = {"psi2_m": psi_m / n, "psi2_m_minus_1": psi_m1 / n, "psi2_m_minus_2": psi_m2 / n,
                  "del_psi2": delta, "del2_psi2": delta2}
    return NistResult(test=NAME, n=n, parameters=parameters, statistics=statistics,
                      p_values={"p1": p1, "p2": p2}, notes=tuple(notes))


TESTS = {NAME: (serial, DEFAULTS)}
