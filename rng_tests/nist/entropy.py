"""SP 800-22 Rev. 1a section 2.12: the approximate entropy test.

H0: the bits are independent fair coin flips, so overlapping m-bit and (m+1)-bit patterns
are equally frequent. Following section 2.12.4, with the sequence read cyclically (its first
m - 1, resp. m, bits appended) so that there are n windows of each length:

    C_i^m = (count of pattern i) / n;  phi(m) = sum_i C_i^m ln C_i^m;
    ApEn(m) = phi(m) - phi(m+1);  chi^2 = 2 n (ln 2 - ApEn(m));
    P-value = igamc(2^(m-1), chi^2 / 2).

Default m = 10 (the reference battery's value). Input size: m < floor(log2 n) - 5
(section 2.12.7); e.g. m = 10 needs n >= 2^16.

The (m+1)-bit counts are computed once on the cyclic sequence; the m-bit counts are their
sums over the last bit, which is exact because every cyclic m-window is the head of exactly
one cyclic (m+1)-window. phi is evaluated as (sum c ln c) / n - ln n.

Deviation, written down for the audit: the 2.12.4 illustration (eps = 0100110101, m = 3)
prints chi^2 = 0.502193, but its own formula gives 2 * 10 * (ln 2 - 0.190954) = 10.043859;
the printed P-value 0.261961 = igamc(4, 10.043859 / 2) follows from the formula, not from
the printed chi^2. The project's tests check ApEn and the P-value.

``strict`` (default True) gives a not-applicable result when m >= floor(log2 n) - 5;
``strict=False`` computes anyway (as the document's small examples do) and notes it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaincc

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import NistResult
from rng_tests.nist.windows import window_values

NAME = "approximate_entropy"
DEFAULTS: dict[str, int] = {"m": 10}
MAX_M = 30  # pattern values must fit window_values' 62 bits; far beyond any usable n anyway


def _block_length(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= MAX_M:
        raise ValueError(f"m must be an integer between 1 and {MAX_M}, got {value!r}")
    return int(value)


def _sum_c_log_c(counts: np.ndarray) -> float:
    present = counts[counts > 0].astype(np.float64)
    return float(np.sum(present * np.log(present)))


def cyclic_pattern_counts(bits: np.ndarray, m: int) -> np.ndarray:
    """Counts of the patterns that occur among the n cyclic m-bit windows (zeros omitted when 2^m is large)."""
    values = window_values(bits, m, wrap=True)
    if m <= 22:
        return np.bincount(values, minlength=1 << m)
    return np.unique(values, return_counts=True)[1]


def approximate_entropy(bits: np.ndarray, *, m: int = 10, strict: bool = True) -> NistResult:
    """Approximate entropy test, SP 800-22 Rev. 1a section 2.12.

    H0: the frequencies of overlapping m- and (m+1)-bit patterns are those of fair bits.
    Statistic chi^2 = 2n (ln 2 - ApEn(m)); P-value = igamc(2^(m-1), chi^2/2).
    """
    m = _block_length(m)
    bits = as_bit_array(bits)
    n = int(bits.size)
    parameters = {"m": m}
    if n <= m:
        return NistResult.inapplicable(NAME, n, parameters, f"n = {n} bits: the test needs n > m = {m}")
    notes: list[str] = []
    limit = math.floor(math.log2(n)) - 5
    if not m < limit:
        reason = f"m = {m} does not satisfy m < floor(log2 n) - 5 = {limit} (section 2.12.7)"
        if strict:
            return NistResult.inapplicable(NAME, n, parameters, reason)
        notes.append(reason + "; computed anyway (strict=False)")
    longer = cyclic_pattern_counts(bits, m + 1)
    if longer.size == 1 << (m + 1):
        shorter = longer.reshape(-1, 2).sum(axis=1)
    else:
        shorter = cyclic_pattern_counts(bits, m)
    log_n = math.log(n)
    phi_m = _sum_c_log_c(shorter) / n - log_n
    phi_m1 = _sum_c_log_c(longer) / n - log_n
    apen = phi_m - phi_m1
    chi_square = 2.0 * n * (math.log(2.0) - apen)
    p = float(gammaincc(2.0 ** (m - 1), chi_square / 2.0))
    statistics = {"phi_m": phi_m, "phi_m_plus_1": phi_m1, "ApEn": apen, "chi_square": chi_square}
    return NistResult(test=NAME, n=n, parameters=parameters, statistics=statistics, p_values={"p": p},
                      notes=tuple(notes))


TESTS = {NAME: (approximate_entropy, DEFAULTS)}
