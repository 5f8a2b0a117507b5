"""Random excursions (2.14) and random excursions variant (2.15) tests of NIST SP 800-22 Rev. 1a.

Both have the null hypothesis H0: the sequence is a realisation of independent, fair bits,
so that the random walk S_k = sum_{i<=k} (2 eps_i - 1) behaves like a simple symmetric walk.
The walk, padded with a 0 before and after (S' = 0, S_1..S_n, 0), splits into J cycles: the
stretches between consecutive zeros. J is the number of zeros of S_1..S_n plus one when S_n
is not 0.

Random excursions (section 2.14, theory in 3.14)
    For each state x in -4..-1, +1..+4, nu_k(x) is the number of cycles visiting x exactly k
    times (k = 0..4) and nu_5(x) those visiting it 5 times or more. Under H0 a cycle visits
    x k times with probability pi_0(x) = 1 - 1/(2|x|),
    pi_k(x) = (1/(4x^2)) (1 - 1/(2|x|))^(k-1) for k = 1..4 and
    pi_5(x) = (1/(2|x|)) (1 - 1/(2|x|))^4 (section 3.14; the table in section 2.14.4
    prints them rounded to four decimals). chi^2(x) = sum_k (nu_k(x) - J pi_k(x))^2 / (J pi_k(x))
    and P-value(x) = igamc(5/2, chi^2(x)/2). Eight P-values.

Random excursions variant (section 2.15, theory in 3.15)
    xi(x) is the total number of visits to state x, x in -9..-1, +1..+9, over the whole
    walk. Under H0, E[xi(x)] = J and P-value(x) = erfc(|xi(x) - J| / sqrt(2 J (4|x| - 2))).
    Eighteen P-values.

Applicability: the document requires at least 500 cycles for both tests (the asymptotics are
per cycle); the reference implementation (sts-2.1.2) uses max(0.005 sqrt(n), 500), the same
bound for every n up to 10^10, and so does this module. Below it the result is not
applicable and says why (J and the bound). Not-applicable results are normal on fair data:
J is distributed about like sqrt(n)·|Z| (Z standard normal), so for n = 10^6 about 38% of
fair sequences have J < 500.

Known deviations (recorded here, checked by the tests):
    * The worked example of section 2.14.4 (epsilon = 0110110101, x = +1) prints
      chi^2 = 4.333033 and P-value = 0.502529: it used the four-decimal table
      (pi_4 = pi_5 = 0.0312). With the exact pi_4(1) = pi_5(1) = 1/32 (as here and in the
      reference implementation) chi^2 = 4.333333.
    * The section 2.14.8 example on e (J = 1490) prints, for x = -4..-1, values this module
      reproduces, but for x = +1..+4 values (P-value(+1) = 0.778616, chi^2(+1) = 2.485906,
      ...) that the sequence does not give: it gives 0.786868 for x = +1, which is the value
      Appendix B prints for e. See the tests.
    * The variant's P-value is erfc(|xi(x) - J| / sqrt(2 J (4|x| - 2))) (section 2.15.4); the reference (``randomExcursionsVariant.c``) computes the same expression,
      and this module reproduces all 18 visit counts and P-values of the section 2.15.8
      example on e to the printed six decimals, so no deviation was found there.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import erfc, gammaincc

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import NistResult

RANDOM_EXCURSIONS = "random_excursions"
RANDOM_EXCURSIONS_VARIANT = "random_excursions_variant"

EXCURSION_STATES = (-4, -3, -2, -1, 1, 2, 3, 4)
VARIANT_STATES = tuple(x for x in range(-9, 10) if x != 0)
MINIMUM_CYCLES = 500


def state_label(x: int) -> str:
    """``"x=-4"``, ``"x=+1"``: the label of a state's P-value and statistic."""
    return f"x={x:+d}"


def random_walk(bits: np.ndarray) -> np.ndarray:
    """S_1..S_n, the partial sums of 2 eps_i - 1 (int32 is exact for n < 2^31)."""
    steps = as_bit_array(bits).astype(np.int32) * 2 - 1
    return np.cumsum(steps, dtype=np.int32)


def number_of_cycles(walk: np.ndarray) -> int:
    """J: the zeros of S_1..S_n, plus one for the last, unfinished cycle when S_n != 0."""
    if walk.size == 0:
        return 0
    return int(np.count_nonzero(walk == 0)) + (1 if walk[-1] != 0 else 0)


def minimum_cycles(n: int) -> float:
    """The applicability bound on J: max(0.005 sqrt(n), 500) (= 500 for n <= 10^10)."""
    return max(0.005 * math.sqrt(n), float(MINIMUM_CYCLES))


def excursion_probabilities(x: int) -> np.ndarray:
    """pi_0(x)..pi_5(x) of section 3.14: probability that a cycle visits x exactly k times (k = 5: >= 5)."""
    if x == 0:
        raise ValueError("x=0: state 0 ends a cycle and has no visit distribution")
    q = 1.0 - 1.0 / (2.0 * abs(x))
    pi = [q]
    pi += [(1.0 / (4.0 * x * x)) * q ** (k - 1) for k in range(1, 5)]
    pi.append((1.0 / (2.0 * abs(x))) * q**4)
    return np.asarray(pi)


def excursion_counts(bits: np.ndarray) -> tuple[int, np.ndarray]:
    """(J, nu) where nu[k, i] = number of cycles visiting state EXCURSION_STATES[i] k times (k = 5: >= 5).

    One bincount over (cycle, state) pairs: a position belongs to the cycle numbered by the
    zeros before it; positions at 0 or beyond +-4 are not counted.
    """
    walk = random_walk(bits)
    J = number_of_cycles(walk)
    zero = walk == 0
    cycle = np.cumsum(zero) - zero  # zeros strictly before each position
    counted = (np.abs(walk) <= 4) & ~zero
    column = walk[counted] + 4  # -4..4 -> 0..8 (8 columns used, 4 is state 0, never counted)
    visits = np.bincount(cycle[counted] * 9 + column, minlength=max(J, 1) * 9).reshape(-1, 9)[:J]
    visits = visits[:, [x + 4 for x in EXCURSION_STATES]]  # (J, 8)
    nu = np.stack([np.count_nonzero(visits == k, axis=0) for k in range(5)] +
                  [np.count_nonzero(visits >= 5, axis=0)])
    return J, nu


def random_excursions(bits: np.ndarray) -> NistResult:
    """Random excursions test, SP 800-22 Rev. 1a section 2.14: one P-value per state x = -4..-1, +1..+4.

    H0: the bits are independent and fair. Statistics: ``J`` and chi^2 per state under the
    P-value's label (``"x=+1"``). Not applicable when J < max(0.005 sqrt(n), 500).
    """
    bits = as_bit_array(bits)
    n = int(bits.size)
    J, nu = excursion_counts(bits)
    bound = minimum_cycles(n)
    if J < bound:
        return NistResult.inapplicable(
            RANDOM_EXCURSIONS, n, {},
            f"only J={J} cycles; the test needs at least {bound:g} (section 2.14: J >= 500)")
    statistics: dict[str, float] = {"J": float(J)}
    p_values: dict[str, float] = {}
    for i, x in enumerate(EXCURSION_STATES):
        expected = J * excursion_probabilities(x)
        chi2 = float(((nu[:, i] - expected) ** 2 / expected).sum())
        statistics[state_label(x)] = chi2
        p_values[state_label(x)] = float(gammaincc(2.5, chi2 / 2.0))
    return NistResult(test=RANDOM_EXCURSIONS, n=n, parameters={}, statistics=statistics, p_values=p_values,
                      notes=_size_notes(n, "2.14.7"))


def variant_visits(bits: np.ndarray) -> tuple[int, np.ndarray]:
    """(J, xi) with xi[i] = total visits of the walk to VARIANT_STATES[i] (section 2.15.4)."""
    walk = random_walk(bits)
    near = walk[np.abs(walk) <= 9]
    counts = np.bincount(near + 9, minlength=19)
    return number_of_cycles(walk), counts[[x + 9 for x in VARIANT_STATES]]


def random_excursions_variant(bits: np.ndarray) -> NistResult:
    """Random excursions variant test, SP 800-22 Rev. 1a section 2.15: one P-value per state x = -9..-1, +1..+9.

    H0: the bits are independent and fair. Statistics: ``J`` and xi(x), the visit count, under
    the P-value's label (``"x=-9"``). Not applicable when J < max(0.005 sqrt(n), 500).
    """
    bits = as_bit_array(bits)
    n = int(bits.size)
    J, xi = variant_visits(bits)
    bound = minimum_cycles(n)
    if J < bound:
        return NistResult.inapplicable(
            RANDOM_EXCURSIONS_VARIANT, n, {},
            f"only J={J} cycles; the test needs at least {bound:g} (section 2.15: J >= 500)")
    statistics: dict[str, float] = {"J": float(J)}
    p_values: dict[str, float] = {}
    for x, visits in zip(VARIANT_STATES, xi):
        statistics[state_label(x)] = float(visits)
        z = abs(int(visits) - J) / math.sqrt(2.0 * J * (4.0 * abs(x) - 2.0))
        p_values[state_label(x)] = float(erfc(z))
    return NistResult(test=RANDOM_EXCURSIONS_VARIANT, n=n, parameters={}, statistics=statistics,
                      p_values=p_values, notes=_size_notes(n, "2.15.7"))


def _size_notes(n: int, section: str) -> tuple[str, ...]:
    if n < 10**6:
        return (f"n={n} is below the n >= 10^6 recommended in section {section}",)
    return ()


TESTS = {
    RANDOM_EXCURSIONS: (random_excursions, {}),
    RANDOM_EXCURSIONS_VARIANT: (random_excursions_variant, {}),
}
