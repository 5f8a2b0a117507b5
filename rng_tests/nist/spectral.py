"""SP 800-22 Rev. 1a section 2.6: the discrete Fourier transform (spectral) test.

H0: the bits are independent fair coin flips, so the spectrum of X_i = 2 eps_i - 1 has no
peaks beyond what noise gives. Following section 2.6.4 of Rev. 1a:

    S = DFT(X);  M = |S_k| for the first n/2 coefficients k = 0 .. n/2 - 1;
    T = sqrt(ln(1/0.05) n)            (95 % peak-height threshold);
    N0 = 0.95 n / 2;  N1 = #{k : M_k < T};
    d = (N1 - N0) / sqrt(n (0.95)(0.05) / 4);  P-value = erfc(|d| / sqrt 2).

Input size: n >= 1000 (section 2.6.7).

Deviations, written down for the audit:

* Rev. 1a changed the test: the original SP 800-22 (2001) used T = sqrt(3 n) and the variance
  n (0.95)(0.05) / 2. This module implements Rev. 1a (the version the brief and the
  reference implementation 2.1.x follow); Appendix B's P = 0.847187 on 10^6 bits of e is
  reproduced.
* The two small worked examples were not updated with the formula. In 2.6.4
  (eps = 1001010011) all five moduli |S_0| .. |S_4| are below T = 5.4733 (the largest is
  4.4721), so N1 = 5, not the printed 4, and P = 0.468160, not 0.029523. In 2.6.8 (the
  100-bit eps) 48 of the 50 moduli are below T = 17.3082, not the printed 46, so
  P = 0.646355, not 0.168669. The printed d and P do follow from the printed N1 through the
  formula above; the project's tests check both facts.
* For odd n the first floor(n/2) coefficients are used and N0 = 0.95 n / 2 is kept real.
* ``strict`` (default True) gives a not-applicable result below n = 1000; ``strict=False``
  computes anyway (n >= 2) and notes the shortfall.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import erfc

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import NistResult

NAME = "discrete_fourier_transform"
DEFAULTS: dict[str, int] = {}
MIN_BITS = 1000  # section 2.6.7


def spectral_statistic(peaks_below: float, n: int) -> tuple[float, float]:
    """(d, P-value) for N1 = ``peaks_below`` moduli under the threshold in a sequence of n bits."""
    expected = 0.95 * n / 2.0
    d = (peaks_below - expected) / math.sqrt(n * 0.95 * 0.05 / 4.0)
    return d, float(erfc(abs(d) / math.sqrt(2.0)))


def discrete_fourier_transform(bits: np.ndarray, *, strict: bool = True) -> NistResult:
    """Discrete Fourier transform (spectral) test, SP 800-22 Rev. 1a section 2.6.

    H0: the number of DFT moduli below the 95 % threshold T is 95 % of n/2, as for fair bits.
    Statistic d = (N1 - N0) / sqrt(n 0.95 0.05 / 4); P-value = erfc(|d| / sqrt 2).
    """
    bits = as_bit_array(bits)
    n = int(bits.size)
    if n < 2:
        return NistResult.inapplicable(NAME, n, {}, f"n = {n} bits: the transform needs at least 2")
    notes: list[str] = []
    if n < MIN_BITS:
        reason = f"n = {n} bits, below the minimum n >= {MIN_BITS} of section 2.6.7"
        if strict:
            return NistResult.inapplicable(NAME, n, {}, reason)
        notes.append(reason + "; computed anyway (strict=False)")
    spectrum = np.fft.rfft(2.0 * bits - 1.0)[: n // 2]
    threshold_squared = math.log(1.0 / 0.05) * n  # compare |S|^2 < T^2: no square roots needed
    below = int(np.count_nonzero(spectrum.real ** 2 + spectrum.imag ** 2 < threshold_squared))
    d, p = spectral_statistic(below, n)
    statistics = {"T": math.sqrt(threshold_squared), "N0": 0.95 * n / 2.0, "N1": float(below), "d": d}
    return NistResult(test=NAME, n=n, parameters={}, statistics=statistics, p_values={"p": p},
                      notes=tuple(notes))


TESTS = {NAME: (discrete_fourier_transform, DEFAULTS)}
