"""SP 800-22 Rev. 1a section 2.13: the cumulative sums (cusum) test, forward and reverse.

H0: the bits are independent fair coin flips, so the random walk S_k = X_1 + ... + X_k with
X_i = 2 eps_i - 1 stays near zero. The statistic is the largest excursion z = max_k |S_k|,
taken once over the walk from the first bit (mode 0, "forward") and once from the last bit
(mode 1, "reverse"). Section 2.13.4 (4):

    P = 1 - sum_{k=(-n/z+1)/4}^{(n/z-1)/4} [Phi((4k+1)z/sqrt n) - Phi((4k-1)z/sqrt n)]
          + sum_{k=(-n/z-3)/4}^{(n/z-1)/4} [Phi((4k+3)z/sqrt n) - Phi((4k+1)z/sqrt n)]

Input size: n >= 100 (section 2.13.7).

Decisions and deviations, written down for the audit:

* The summation limits are real numbers in the document; they are taken as integers by
  truncation toward zero, as the reference C code does by integer conversion. This keeps the
  truncated series symmetric in k (the series of section 3.13 runs over all k); reading the
  lower limits with floor instead adds one unpaired term and changes the 2.13.4 example to
  P = 0.411585 instead of the printed 0.4116588.
* Phi is evaluated in double precision (``scipy.special.ndtr``). The document's printed
  P-values exceed this exact evaluation of its own formula by 2e-7 (2.13.4: 0.4116586 vs
  0.4116588) to 7e-7 (Appendix B on e: 0.6698865 vs 0.669887, 0.7242653 vs 0.724266), which
  points to a less accurate normal CDF in the program that printed them. The project's
  known-answer tests therefore compare to within 1e-6.
* ``strict`` (default True) gives a not-applicable result below n = 100; ``strict=False``
  computes anyway (as the document's 10-bit example does) and notes the shortfall.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import NistResult

NAME = "cumulative_sums"
DEFAULTS: dict[str, int] = {}
MIN_BITS = 100  # section 2.13.7


def _limit(value: float) -> int:
    """A summation limit of section 2.13.4 (4) as an integer: truncation toward zero."""
    return math.trunc(value)


def cusum_p_value(z: int, n: int) -> float:
    """P-value of a maximal excursion ``z`` of a walk of ``n`` steps (section 2.13.4 (4))."""
    if n <= 0 or z <= 0:
        raise ValueError(f"z and n must be positive, got z={z}, n={n}")
    scale = z / math.sqrt(n)
    k1 = np.arange(_limit((-n / z + 1) / 4), _limit((n / z - 1) / 4) + 1, dtype=np.float64)
    k2 = np.arange(_limit((-n / z - 3) / 4), _limit((n / z - 1) / 4) + 1, dtype=np.float64)
    first = np.sum(ndtr((4 * k1 + 1) * scale) - ndtr((4 * k1 - 1) * scale))
    second = np.sum(ndtr((4 * k2 + 3) * scale) - ndtr((4 * k2 + 1) * scale))
    return float(min(1.0, max(0.0, 1.0 - first + second)))


def maximal_excursions(bits: np.ndarray) -> tuple[int, int]:
    """(forward, reverse) maximal excursions max_k |S_k| of the +-1 walk of ``bits`` (non-empty)."""
    walk = np.cumsum(2 * bits.astype(np.int64) - 1)
    forward = int(np.abs(walk).max())
    # The reverse walk after k steps is S_n - S_{n-k}, k = 1..n, i.e. S_n - S_j for j = 0..n-1 (S_0 = 0).
    total = int(walk[-1])
    reverse = max(abs(total), int(np.abs(total - walk[:-1]).max(initial=0)))
    return forward, reverse


def cumulative_sums(bits: np.ndarray, *, strict: bool = True) -> NistResult:
    """Cumulative sums test, SP 800-22 Rev. 1a section 2.13; p-values "forward" and "reverse".

    H0: the +-1 random walk of the sequence has the excursions of a fair random walk.
    Statistics z_forward, z_reverse = max_k |S_k| in each direction.
    """
    bits = as_bit_array(bits)
    n = int(bits.size)
    if n == 0:
        return NistResult.inapplicable(NAME, n, {}, "the sequence is empty")
    notes: list[str] = []
    if n < MIN_BITS:
        reason = f"n = {n} bits, below the minimum n >= {MIN_BITS} of section 2.13.7"
        if strict:
            return NistResult.inapplicable(NAME, n, {}, reason)
        notes.append(reason + "; computed anyway (strict=False)")
    forward, reverse = maximal_excursions(bits)
    return NistResult(
        test=NAME, n=n, parameters={},
        statistics={"z_forward": float(forward), "z_reverse": float(reverse)},
        p_values={"forward": cusum_p_value(forward, n), "reverse": cusum_p_value(reverse, n)},
        notes=tuple(notes),
    )


TESTS = {NAME: (cumulative_sums, DEFAULTS)}
