"""Template matching tests of NIST SP 800-22 Rev. 1a: non-overlapping (2.7) and overlapping (2.8).

Both tests have the null hypothesis H0: the sequence is a realisation of independent, fair
bits. They count occurrences of m-bit templates in N blocks of M bits and compare the
counts with their distribution under H0.

Non-overlapping template matching (section 2.7, theory in 3.7)
    The sequence is cut into N blocks of M = floor(n/N) bits. For every aperiodic m-bit
    template B, W_j is the number of occurrences of B in block j found by a scan that jumps
    m bits after a match. Under H0, W_j has mean mu = (M - m + 1)/2^m and variance
    sigma^2 = M (1/2^m - (2m - 1)/2^(2m)); chi^2(B) = sum_j (W_j - mu)^2 / sigma^2 and
    P-value(B) = igamc(N/2, chi^2/2). One P-value per template.

    A template is *aperiodic* when it cannot overlap a shifted copy of itself (no proper
    prefix equals the suffix of the same length). The templates are generated here, not read
    from a file: there are 148 for m = 9, as the reference's ``templates/template9`` file
    holds. Because two occurrences of an aperiodic template can never overlap, the
    scan-and-jump count equals the number of m-bit windows lying wholly in the block that
    equal B, so one bincount of the window values of each block gives W_j for every template
    at once.

Overlapping template matching (section 2.8, theory in 3.8)
    The template is m ones; the sequence is cut into N = floor(n/M) blocks of M bits and the
    overlapping occurrences in each block are counted (the window slides by one bit after a
    match). nu_i is the number of blocks with i occurrences (i = 0..K-1) and nu_K those with
    K or more; chi^2 = sum_i (nu_i - N pi_i)^2 / (N pi_i) and P-value = igamc(K/2, chi^2/2).

    The class probabilities pi_i. Section 3.8 of Rev. 1a gives the compound-Poisson
    (Polya-Aeppli) approximation carried over from Rev. 1,
    P(U = 0) = e^-eta, P(U = u) = e^-eta / 2^u * sum_{l=1..u} C(u-1, l-1) eta^l / l!
    with eta = (M - m + 1)/2^(m+1), and refers to the more accurate computation of Hamano
    and Kaneko (IEICE Trans. Fundamentals E90-A(9), 2007) for the corrected values, which
    section 2.8.4 prints for m = 9, M = 1032, K = 5: 0.364091, 0.185659,
    0.139381, 0.100571, 0.070432, 0.139865. They are the exact distribution of the number
    of overlapping occurrences of 1^m in M fair bits. This module computes that distribution
    exactly (integer counting over a Markov chain on the current run of ones) for any
    (M, m, K); for the defaults it reproduces all six printed values to the printed six
    decimals (checked in the tests).

Known deviations (recorded, and checked by the tests where they can be):
    * Section 2.8.8 (the example on the first 10^6 bits of e) and Appendix B still use the
      Rev. 1 compound-Poisson probabilities (pi_0 = e^-1 = 0.367879, ...): its counts
      nu = (329, 164, 150, 111, 78, 136) give the printed chi^2 = 8.965859 and
      P-value = 0.110434 only with those. With the corrected Rev. 1a probabilities this
      module gives chi^2 = 7.949..., P-value = 0.159...
    * The reference implementation (sts-2.1.2, ``overlappingTemplateMatchings.c``) also
      computes pi with the Rev. 1 compound-Poisson formula (its function ``Pr``), overwriting
      its hard-coded array, so it does not implement the Rev. 1a correction.
    * The worked example of section 2.8.4 (n = 50, m = 2, M = 10, K = 5) prints
      nu = (0, 1, 1, 1, 1, 1); the sequence it gives actually has nu = (0, 2, 0, 1, 1, 1)
      (its second block ``0010110100`` contains ``11`` once, not twice). The printed
      chi^2 = 3.167729 follows from the printed counts and the compound-Poisson
      probabilities (eta = 1.125) as printed to six decimals; the printed P-value 0.274932
      is igamc(5/2, chi^2), without the halving of chi^2 that the test's P-value formula prescribes
      (igamc(5/2, chi^2/2) = 0.674145).
    * The reference's non-overlapping test counts every matching window without jumping;
      for aperiodic templates this is the same count, as explained above.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
from scipy.special import gammaincc

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import NistResult
from rng_tests.nist.windows import window_values

NON_OVERLAPPING = "non_overlapping_template"
OVERLAPPING = "overlapping_template"
MINIMUM_EXPECTED_COUNT = 5


def template_label(value: int, m: int) -> str:
    """The template's bits as text, most significant first: ``template_label(1, 9) == "000000001"``."""
    return format(int(value), f"0{m}b")


@lru_cache(maxsize=32)
def aperiodic_templates(m: int) -> tuple[int, ...]:
    """All aperiodic m-bit templates as integers (bit 1 of the template = most significant), ascending.

    B is aperiodic when for no shift k = 1..m-1 the first m-k bits of B equal its last m-k
    bits, i.e. B cannot overlap a copy of itself shifted by k. Vectorised over all 2^m values.
    """
    if not 1 <= m <= 24:
        raise ValueError(f"template length m={m} must be between 1 and 24")
    values = np.arange(1 << m, dtype=np.int64)
    periodic = np.zeros(values.size, dtype=bool)
    for shift in range(1, m):
        overlap = m - shift
        prefix = values >> shift  # first m-shift bits
        suffix = values & ((1 << overlap) - 1)  # last m-shift bits
        periodic |= prefix == suffix
    return tuple(int(v) for v in values[~periodic])


def _chi2_p(chi2: np.ndarray | float, dof_half: float) -> np.ndarray | float:
    return gammaincc(dof_half, np.asarray(chi2) / 2.0)


def non_overlapping_statistics(bits: np.ndarray, m: int, N: int) -> dict[str, np.ndarray | float]:
    """The computation of section 2.7.4 for every aperiodic m-bit template, without applicability checks.

    Returns ``templates`` (values), ``W`` (N x templates counts), ``mu``, ``sigma2``, ``chi2`` and
    ``p`` (one per template), for N blocks of M = floor(n/N) >= m bits.
    """
    M = bits.size // N
    templates = np.asarray(aperiodic_templates(m), dtype=np.int64)
    W = block_window_counts(bits[: N * M], m, N, M)[:, templates].astype(np.float64)
    mu = (M - m + 1) / 2.0**m
    sigma2 = M * (1.0 / 2.0**m - (2.0 * m - 1.0) / 2.0 ** (2 * m))
    chi2 = ((W - mu) ** 2).sum(axis=0) / sigma2
    return {"templates": templates, "W": W, "mu": mu, "sigma2": sigma2, "chi2": chi2, "p": _chi2_p(chi2, N / 2.0)}


def non_overlapping_template(bits: np.ndarray, *, m: int = 9, N: int = 8) -> NistResult:
    """Non-overlapping template matching test, SP 800-22 Rev. 1a section 2.7 (all aperiodic templates).

    H0: the bits are independent and fair. Returns one P-value per aperiodic m-bit template,
    keyed by the template's bits (``"000000001"``); statistics hold chi^2 per template under
    the same keys, plus ``mu``, ``sigma2``, ``M`` and ``N``. Parameters: ``m`` template length
    (section 2.7.7 recommends 9 or 10), ``N`` number of blocks (section 2.7.7: N <= 100).

    Not applicable when the expected count per block mu = (M - m + 1)/2^m is below 5: the
    chi-square distribution of section 3.7 rests on W_j being approximately normal. The
    document states no such bound; it is this bench's rule, the usual expected-count-of-5 rule
    that the document itself applies in section 2.8.7 (for m = 9, N = 8: n >= 20,544).
    """
    if not 2 <= m <= 16:
        raise ValueError(f"m={m}: template length must be between 2 and 16")
    if not 1 <= N <= 100:
        raise ValueError(f"N={N}: the number of blocks must be between 1 and 100 (SP 800-22 2.7.7)")
    bits = as_bit_array(bits)
    n = int(bits.size)
    M = n // N
    parameters = {"m": m, "N": N, "M": M}
    mu = (M - m + 1) / 2.0**m
    if mu < MINIMUM_EXPECTED_COUNT:
        needed = N * (MINIMUM_EXPECTED_COUNT * 2**m + m - 1)
        return NistResult.inapplicable(
            NON_OVERLAPPING, n, parameters,
            f"n={n}: blocks of M={M} bits expect mu={mu:.3g} occurrences of each template; the normal "
            f"approximation behind section 3.7 needs mu >= {MINIMUM_EXPECTED_COUNT} (n >= {needed} for m={m}, N={N})")
    computed = non_overlapping_statistics(bits, m, N)
    labels = [template_label(t, m) for t in computed["templates"]]
    statistics: dict[str, float] = {"mu": mu, "sigma2": float(computed["sigma2"]), "M": float(M), "N": float(N)}
    statistics.update({label: float(c) for label, c in zip(labels, computed["chi2"])})
    notes: list[str] = [f"{len(labels)} aperiodic templates of length m={m}"]
    if M <= 0.01 * n:
        notes.append(f"M={M} is not above 0.01·n as section 2.7.7 asks")
    return NistResult(
        test=NON_OVERLAPPING, n=n, parameters=parameters, statistics=statistics,
        p_values={label: float(v) for label, v in zip(labels, computed["p"])}, notes=tuple(notes))


def block_window_counts(bits: np.ndarray, m: int, N: int, M: int) -> np.ndarray:
    """counts[j, v]: number of m-bit windows lying wholly in block j whose value is v."""
    values = np.zeros(N * M, dtype=np.int64)
    values[: N * M - m + 1] = window_values(bits, m)  # windows over the concatenated blocks
    inside = values.reshape(N, M)[:, : M - m + 1]  # windows starting at offsets 0..M-m of each block
    combined = inside + (np.arange(N, dtype=np.int64) << m)[:, None]
    return np.bincount(combined.ravel(), minlength=N << m).reshape(N, 1 << m)


@lru_cache(maxsize=32)
def overlapping_probabilities(M: int, m: int, K: int) -> tuple[float, ...]:
    """Exact P(U = i), i = 0..K-1, and P(U >= K), U = overlapping occurrences of m ones in M fair bits.

    Counts sequences exactly with integers over a Markov chain whose state is the current run
    of ones (capped at m-1) and the number of occurrences so far (capped at K), then divides
    by 2^M. These are the Rev. 1a probabilities of section 2.8.4 / section 3.8.
    """
    if m < 1 or M < m or K < 1:
        raise ValueError(f"need 1 <= m <= M and K >= 1, got m={m}, M={M}, K={K}")
    width = K + 1
    # ways[r][c]: number of bit strings read so far that end in a run of r ones (r capped at
    # m-1) and contain c occurrences (c capped at K).
    ways = [[0] * width for _ in range(m)]
    ways[0][0] = 1
    for _ in range(M):
        after_zero = [sum(column) for column in zip(*ways)]  # a 0 resets the run, keeps the count
        completed = [0] * width  # a 1 after a run of >= m-1 ones completes one more occurrence
        for count, w in enumerate(ways[m - 1]):
            completed[min(count + 1, K)] += w
        if m == 1:
            ways = [[a + b for a, b in zip(after_zero, completed)]]
        else:  # a 1 after a run of r < m-1 ones lengthens the run
            ways = [after_zero, *ways[: m - 2], [a + b for a, b in zip(ways[m - 2], completed)]]
    totals = [sum(column) for column in zip(*ways)]
    return tuple(float(Fraction(total, 2**M)) for total in totals)


def compound_poisson_probabilities(M: int, m: int, K: int) -> tuple[float, ...]:
    """The Rev. 1 approximation printed first in section 3.8 (and still used by sts-2.1.2's ``Pr``).

    P(U = 0) = e^-eta and P(U = u) = e^-eta 2^-u sum_{l=1..u} C(u-1, l-1) eta^l / l!, with
    eta = (M - m + 1) / 2^(m+1); the last class is 1 minus the others. Kept to reproduce
    the examples of sections 2.8.4 and 2.8.8, which use it.
    """
    eta = (M - m + 1) / 2.0 ** (m + 1)
    probabilities = [math.exp(-eta)]
    for u in range(1, K):
        total = sum(math.comb(u - 1, l - 1) * eta**l / math.factorial(l) for l in range(1, u + 1))
        probabilities.append(math.exp(-eta) * total / 2.0**u)
    probabilities.append(1.0 - sum(probabilities))
    return tuple(probabilities)


def overlapping_counts(bits: np.ndarray, *, m: int = 9, M: int = 1032, K: int = 5) -> np.ndarray:
    """nu_0..nu_K of section 2.8.4: how many M-bit blocks hold 0, 1, ..., K-1 and >= K overlapping 1^m."""
    bits = as_bit_array(bits)
    N = bits.size // M
    blocks = bits[: N * M].reshape(N, M).astype(np.int32)
    running = np.zeros((N, M + 1), dtype=np.int32)
    np.cumsum(blocks, axis=1, out=running[:, 1:])
    occurrences = ((running[:, m:] - running[:, :-m]) == m).sum(axis=1)
    return np.bincount(np.minimum(occurrences, K), minlength=K + 1)


def chi_square(counts: np.ndarray, probabilities: np.ndarray | tuple[float, ...]) -> float:
    """Pearson's sum (nu_i - N pi_i)^2 / (N pi_i), N = sum of the counts."""
    counts = np.asarray(counts, dtype=np.float64)
    expected = counts.sum() * np.asarray(probabilities, dtype=np.float64)
    return float(((counts - expected) ** 2 / expected).sum())


def overlapping_template(bits: np.ndarray, *, m: int = 9, M: int = 1032, K: int = 5) -> NistResult:
    """Overlapping template matching test (template of m ones), SP 800-22 Rev. 1a section 2.8.

    H0: the bits are independent and fair. Uses the Rev. 1a class probabilities, computed
    exactly (:func:`overlapping_probabilities`). Statistics: ``nu_0``..``nu_K``, ``chi2``,
    ``N``, ``pi_0``..``pi_K``; one P-value ``p``. Not applicable when N·min(pi_i) <= 5
    (section 2.8.7), where the chi-square approximation is not valid.
    """
    if not 1 <= m <= 24:
        raise ValueError(f"m={m}: template length must be between 1 and 24")
    if M < m:
        raise ValueError(f"M={M}: the block length must be at least m={m}")
    if K < 1:
        raise ValueError(f"K={K}: the number of degrees of freedom must be at least 1")
    bits = as_bit_array(bits)
    n = int(bits.size)
    parameters = {"m": m, "M": M, "K": K}
    pi = np.asarray(overlapping_probabilities(M, m, K))
    N = n // M
    needed = math.floor(5.0 / pi.min()) + 1  # smallest N with N·min(pi) > 5
    if N < needed:
        return NistResult.inapplicable(
            OVERLAPPING, n, parameters,
            f"N={N} blocks of M={M} bits; section 2.8.7 needs N·min(pi_i) > 5, i.e. N >= {needed} "
            f"(n >= {needed * M})")
    nu = overlapping_counts(bits, m=m, M=M, K=K)
    chi2 = chi_square(nu, pi)
    p = float(_chi2_p(chi2, K / 2.0))
    statistics: dict[str, float] = {f"nu_{i}": float(v) for i, v in enumerate(nu)}
    statistics.update({f"pi_{i}": float(v) for i, v in enumerate(pi)})
    statistics.update({"chi2": chi2, "N": float(N)})
    notes = ["class probabilities pi_i: exact distribution (Rev. 1a, Hamano-Kaneko), not the Rev. 1 approximation"]
    if n < 10**6:
        notes.append(f"n={n} is below the n >= 10^6 recommended in section 2.8.7")
    return NistResult(test=OVERLAPPING, n=n, parameters=parameters, statistics=statistics,
                      p_values={"p": p}, notes=tuple(notes))


TESTS = {
    NON_OVERLAPPING: (non_overlapping_template, {"m": 9, "N": 8}),
    OVERLAPPING: (overlapping_template, {"m": 9, "M": 1032, "K": 5}),
}
