"""SP 800-22 Rev. 1a section 2.1 (frequency, "monobit") and section 2.2 (frequency within a block).

Both tests take H0: the bits are independent and each is 1 with probability 1/2.

* Frequency (2.1): with S_n = #ones - #zeros, s_obs = |S_n| / sqrt(n) is asymptotically
  half-normal, P-value = erfc(s_obs / sqrt(2)) (section 2.1.4). Input size: n >= 100 (2.1.7).
* Block frequency (2.2): the proportion of ones pi_i in each of the N = floor(n/M) blocks of
  M bits (the remainder is discarded), chi^2 = 4M sum (pi_i - 1/2)^2 with N degrees of
  freedom, P-value = igamc(N/2, chi^2/2) (section 2.2.4). Input size (2.2.7): n >= 100,
  M >= 20, M > 0.01 n and N < 100.

Decisions, written down for the audit:

* ``strict`` (default True) returns a not-applicable result when the sequence is below the
  document's hard size floor (n < 100; for the block test also M < 20). With
  ``strict=False`` the statistic is computed anyway, as the document's own 10-bit worked
  examples do, and a note records the shortfall.
* The block test's other recommendations (M > 0.01 n, N < 100) are recorded as notes and
  do not make the result inapplicable: the document's own reference result on 10^6 bits of
  e (Appendix B) uses M = 128, which meets neither.
* chi^2 is accumulated in exact integers, sum (2 ones_i - M)^2 / M, then divided once.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import erfc, gammaincc

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import NistResult

FREQUENCY = "frequency"
BLOCK_FREQUENCY = "block_frequency"
FREQUENCY_DEFAULTS: dict[str, int] = {}
BLOCK_FREQUENCY_DEFAULTS: dict[str, int] = {"M": 128}

MIN_BITS = 100  # sections 2.1.7 and 2.2.7
MIN_BLOCK_LENGTH = 20  # section 2.2.7


def _positive_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def frequency(bits: np.ndarray, *, strict: bool = True) -> NistResult:
    """Frequency (monobit) test, SP 800-22 Rev. 1a section 2.1.

    H0: ones and zeros are equally likely and independent. Statistic s_obs = |S_n| / sqrt(n)
    with S_n = sum(2 eps_i - 1); P-value = erfc(s_obs / sqrt(2)).
    """
    bits = as_bit_array(bits)
    n = int(bits.size)
    if n == 0:
        return NistResult.inapplicable(FREQUENCY, n, {}, "the sequence is empty")
    notes: list[str] = []
    if n < MIN_BITS:
        reason = f"n = {n} bits, below the minimum n >= {MIN_BITS} of section 2.1.7"
        if strict:
            return NistResult.inapplicable(FREQUENCY, n, {}, reason)
        notes.append(reason + "; computed anyway (strict=False)")
    ones = int(np.count_nonzero(bits))
    s_n = 2 * ones - n
    s_obs = abs(s_n) / math.sqrt(n)
    p = float(erfc(s_obs / math.sqrt(2.0)))
    return NistResult(test=FREQUENCY, n=n, parameters={}, statistics={"S_n": float(s_n), "s_obs": s_obs},
                      p_values={"p": p}, notes=tuple(notes))


def block_frequency(bits: np.ndarray, *, M: int = 128, strict: bool = True) -> NistResult:
    """Frequency test within a block, SP 800-22 Rev. 1a section 2.2.

    H0: the proportion of ones in every M-bit block is 1/2. Statistic
    chi^2 = 4M sum_i (pi_i - 1/2)^2 over N = floor(n/M) blocks; P-value = igamc(N/2, chi^2/2).
    """
    M = _positive_int("M", M)
    bits = as_bit_array(bits)
    n = int(bits.size)
    blocks = n // M
    parameters = {"M": M, "N": blocks}
    if blocks == 0:
        return NistResult.inapplicable(BLOCK_FREQUENCY, n, parameters,
                                       f"n = {n} bits hold no complete block of M = {M} bits")
    notes: list[str] = []
    shortfalls = []
    if n < MIN_BITS:
        shortfalls.append(f"n = {n} is below the minimum n >= {MIN_BITS} of section 2.2.7")
    if M < MIN_BLOCK_LENGTH:
        shortfalls.append(f"M = {M} is below the minimum M >= {MIN_BLOCK_LENGTH} of section 2.2.7")
    if shortfalls:
        if strict:
            return NistResult.inapplicable(BLOCK_FREQUENCY, n, parameters, "; ".join(shortfalls))
        notes.append("; ".join(shortfalls) + "; computed anyway (strict=False)")
    if not M > 0.01 * n:
        notes.append(f"section 2.2.7 recommends M > 0.01 n = {0.01 * n:g}; M = {M}")
    if not blocks < 100:
        notes.append(f"section 2.2.7 recommends N < 100 blocks; N = {blocks}")
    ones = bits[: blocks * M].reshape(blocks, M).sum(axis=1, dtype=np.int64)
    excess = 2 * ones - M  # 2M (pi_i - 1/2), an integer
    chi_square = float(int(np.dot(excess, excess))) / M
    p = float(gammaincc(blocks / 2.0, chi_square / 2.0))
    return NistResult(test=BLOCK_FREQUENCY, n=n, parameters=parameters, statistics={"chi_square": chi_square},
                      p_values={"p": p}, notes=tuple(notes))


TESTS = {
    FREQUENCY: (frequency, FREQUENCY_DEFAULTS),
    BLOCK_FREQUENCY: (block_frequency, BLOCK_FREQUENCY_DEFAULTS),
}
