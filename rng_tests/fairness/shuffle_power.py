"""Exact power of the rising-sequence test of a card shuffler against Gilbert-Shannon-Reeds riffles.

:func:`rng_tests.fairness.cards.rising_sequence_test` (H0: the ``S`` orders are independent,
uniformly random permutations of the ``n`` cards) rejects when twice the smaller tail of the
total T = Σ(R − 1) of the rising sequences is below the level. Both the law of T under H0
(Eulerian numbers) and under ``k`` GSR riffles per shuffle (Bayer & Diaconis 1992, Theorem 1:
an order with ``r`` rising sequences has probability C(2^k + n − r, n) / 2^(kn)) are exact, so
the power is a finite sum: P_k(T in the rejection region of H0).

Used by the shuffler suite to state the power of its verdict: a family of ``m`` tests adjusted
with Holm's step-down rejects whenever one raw p-value is below α/m, so the power of the
rising-sequence test at level α/m is a lower bound on the power of the Holm family at level α.

Reference: Bayer, D. & Diaconis, P. (1992), Trailing the dovetail shuffle to its lair, Ann. Appl.
Probab. 2, 294-313.
"""

from __future__ import annotations

import numpy as np

from rng_tests.fairness.cards import sum_distribution  # the exact S-fold law of Σ(R − 1)


def rising_sequence_power(cards: int, shuffles: int, alpha: float, riffles: int) -> float:
    """P(the two-sided rising-sequence test rejects at level ``alpha``) when every shuffle is ``riffles`` GSR riffles.

    ``cards`` is the number of cards shuffled (n), ``shuffles`` the sample size S. The rejection
    region is {t : min(1, 2 min(P0(T <= t), P0(T >= t))) < alpha}, exactly that of
    :func:`rng_tests.fairness.cards.rising_sequence_test`; its probability under the riffle law is
    summed exactly (to floating-point rounding).
    """
    for name, value, low in (("cards", cards, 2), ("shuffles", shuffles, 1), ("riffles", riffles, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer of at least {low}, got {value!r}")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha!r}")
    null = sum_distribution("rising", int(cards), None, int(shuffles))
    alternative = sum_distribution("rising", int(cards), int(riffles), int(shuffles))
    lower = np.cumsum(null)
    upper = np.cumsum(null[::-1])[::-1]
    rejected = np.minimum(1.0, 2.0 * np.minimum(lower, upper)) < alpha
    support = min(alternative.size, rejected.size)
    return float(min(1.0, alternative[:support][rejected[:support]].sum()))


__all__ = ["rising_sequence_power"]
