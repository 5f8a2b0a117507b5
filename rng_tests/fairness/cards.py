"""Tests that a card shuffler produces uniformly random permutations.

Every test takes the order the cards were loaded in (``input_order``: card ids, top first) and
the orders read out after ``S`` shuffles (``outputs``: an ``(S, n)`` array, each row a
permutation of ``input_order``; ``n = 52 K`` for a shoe of ``K`` decks, every physical card
with its own id). Cards are identified by their position in ``input_order``, so card ``i+1``
is the card loaded just below card ``i``.

H0 (every test): the ``S`` output orders are independent, uniformly random permutations of the
input order (each of the n! orders has probability 1/n!). The regulations require the cards of
a blackjack shoe to be shuffled before play (p217-2007/blackjack/8 and 53, the automatic
shuffler-shoe of p217-2007/blackjack/51-61); uniformity is the technical reading of "shuffled".

The four tests look at different ways a shuffle can fall short:

* :func:`position_frequency_test` -- where each card ends up: the n x n card-by-position count
  matrix against S/n per cell (cards that stay near the top, a weak cut);
* :func:`adjacent_pairs_test` -- neighbours kept together: the number of times card ``i+1``
  directly follows card ``i``, exact null distribution (successions of a random permutation);
* :func:`rising_sequence_test` -- the statistic of riffle shuffling: the number of rising
  sequences, whose null law (Eulerian numbers) and law after ``k`` Gilbert-Shannon-Reeds
  riffles (Bayer & Diaconis 1992) are known exactly;
* :func:`successor_test` -- which card follows which: the n x n card-to-next-card transition
  counts against S/n per off-diagonal cell (a successor uniform over the other n - 1 cards).

What they can and cannot tell apart (one 52-card deck, alpha = 0.01, 200 repetitions per cell,
measured by ``benchmarks/riffle_detection.py``; "S90" = shuffles for power 0.9):

* 3 GSR riffles are far from uniform (total variation 1.000). S90 on a grid: rising sequences
  S = 1, adjacent pairs S = 2, successor S = 12, position frequency S = 40. At S = 40 all four
  reject 3 riffles with power >= 0.95; S = 40 is the sample size the project's tests use.
* 7 riffles are at total variation 0.334 from uniform, and the number of rising sequences is a
  sufficient statistic for the riffle family (an order's probability depends on nothing else),
  so the rising-sequence test sees all of that distance: the mean falls from 26.5 to 24.71,
  0.85 null standard deviations per shuffle. Rejection rates against 7 riffles:

  ======  ========  ========  ======  =========
  S       position  adjacent  rising  successor
  ======  ========  ========  ======  =========
  40      0.01      0.08      1.00    0.01
  200     0.01      0.64      1.00    0.01
  1,000   0.01      1.00      1.00    0.11
  ======  ========  ========  ======  =========

  Estimated S90 against 7 / 8 / 10 riffles: rising sequences 20 / 82 / 1,300; adjacent pairs
  340 / 1,460 / 23,500; successor 3,300 / 13,500 / 220,000; position 9,700 / 38,000 / 680,000.
  These rejections are correct: 7 riffles are not a uniform shuffle, and a lab running a few
  hundred shuffles will see it through the rising-sequence and adjacent-pairs tests. Only the
  position and successor tests "accept" 7 riffles at lab sizes (up to about 1,000 shuffles).
* To certify that a riffle-type shuffler mixes *at least as well as* ``k0`` GSR riffles (the
  "seven shuffles suffice" criterion) rather than exactly uniformly, use
  ``rising_sequence_test(..., reference_riffles=7)``: H0 is then the law of 7 riffles and only
  fewer rising sequences (less mixing) rejects.

Collapsing for large decks. The full position and successor tables have n² cells; a 6-deck
shoe (n = 312) would need S >= 5 n = 1,560 shuffles for the asymptotic p-value. By default,
when n > 104, both tables are collapsed into 52 x 52 blocks of consecutive input positions
(cards loaded next to each other: blocks of K cards for a K-deck shoe) and, for
positions, of consecutive output positions; ``bins`` chooses another block count. Blocks of
neighbours keep the signal of poor mixing (cards staying close to where and next to what they
started). When the expected count per cell is below 5 the p-value is Monte-Carlo: B samples of
S uniform permutations drawn with a fixed seed, p = (k + 1) / (B + 1).

References: Bayer, D. & Diaconis, P. (1992), Trailing the dovetail shuffle to its lair, Ann.
Appl. Probab. 2, 294-313; Knuth, TAOCP vol. 2, 3rd ed., §3.3.2 and §5.1.3 (runs, Eulerian
numbers); Imhof, J. P. (1961), Biometrika 48, 419-426; Hope, A. C. A. (1968), JRSS B 30, 582-598.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Literal

import numpy as np
from scipy import integrate, signal, stats

from rng_tests.result import TestResult

SHUFFLE_NULL = ("the output orders are independent, uniformly random permutations of the input order "
                "(every order has probability 1/n!)")
MIN_EXPECTED_FOR_ASYMPTOTICS = 5.0
"""Smallest expected cell count for which the asymptotic null law of a table statistic is used."""
DEFAULT_MONTE_CARLO_SAMPLES = 1999
"""Default B for Monte-Carlo p-values (p resolution 1/2000; standard error 0.002 at p = 0.01)."""
FULL_TABLE_MAX_CARDS = 104
"""Up to this many cards (two decks) the position and successor tables are kept n x n by default."""
COLLAPSED_BINS = 52
"""Default number of blocks for larger shoes (one block per deck position for a K-deck shoe)."""

_CHUNK_ENTRIES = 4_000_000  # simulated card positions held in memory at once
_TIE_TOLERANCE = 1e-9


# -- input validation and basic statistics ----------------------------------------------------


def relative_orders(input_order: np.ndarray | list[int], outputs: np.ndarray | list[list[int]]) -> np.ndarray:
    """The output orders with each card replaced by its position in ``input_order`` (``(S, n)`` int64).

    Raises ValueError unless ``input_order`` is a 1-D array of distinct non-negative integer card ids
    and every row of ``outputs`` is a permutation of it.
    """
    start = np.asarray(input_order)
    orders = np.asarray(outputs)
    if start.ndim != 1 or start.size < 2 or not np.issubdtype(start.dtype, np.integer):
        raise ValueError("input_order must be a 1-D integer array of at least two card ids")
    if start.min() < 0:
        raise ValueError("card ids must be non-negative integers")
    if np.unique(start).size != start.size:
        raise ValueError("input_order has repeated card ids; give every physical card its own id")
    if orders.ndim == 1:
        orders = orders[np.newaxis, :]
    if orders.ndim != 2 or orders.shape[0] < 1 or not np.issubdtype(orders.dtype, np.integer):
        raise ValueError("outputs must be an (S, n) integer array of card ids, one row per shuffle")
    n = start.size
    if orders.shape[1] != n:
        raise ValueError(f"outputs rows have {orders.shape[1]} cards but input_order has {n}")
    if orders.min() < 0 or orders.max() > start.max():
        raise ValueError("outputs contain card ids that are not in input_order")
    lookup = np.full(int(start.max()) + 1, -1, dtype=np.int64)
    lookup[start] = np.arange(n)
    relative = lookup[orders]
    bad = np.flatnonzero(np.any(np.sort(relative, axis=1) != np.arange(n), axis=1))
    if bad.size:
        raise ValueError(f"output row {int(bad[0])} is not a permutation of input_order "
                         f"({bad.size} bad rows in all)")
    return relative


def rising_sequences(relative: np.ndarray) -> np.ndarray:
    """Rising sequences of each order (``(S,)``): 1 + #{i : card i+1 lies above card i}.

    ``relative`` is an ``(S, n)`` array of :func:`relative_orders`. A rising sequence is a maximal
    run of cards i, i+1, ..., j appearing in that order (not necessarily adjacently); one riffle
    of a sorted deck leaves at most 2, k riffles at most 2^k (Bayer & Diaconis 1992).
    """
    positions = np.argsort(relative, axis=1)  # positions[s, i] = where card i is after shuffle s
    return 1 + np.count_nonzero(positions[:, 1:] < positions[:, :-1], axis=1)


def adjacent_pairs(relative: np.ndarray) -> np.ndarray:
    """Pairs kept adjacent per order (``(S,)``): #{j : the card below card i is card i+1}."""
    return np.count_nonzero(relative[:, 1:] == relative[:, :-1] + 1, axis=1)


# -- exact null distributions ----------------------------------------------------------------


def _frozen(array: np.ndarray) -> np.ndarray:
    """``array`` made read-only (it is cached and shared between callers)."""
    array.setflags(write=False)
    return array


@lru_cache(maxsize=64)
def eulerian_numbers(n: int) -> tuple[int, ...]:
    """A(n, d), d = 0 .. n-1: the number of permutations of n items with d descents (exact integers).

    Recurrence A(m, d) = (d + 1) A(m-1, d) + (m - d) A(m-1, d-1) (Knuth §5.1.3, eq. (2)); a uniform
    permutation has ``d + 1`` rising sequences with probability A(n, d) / n!.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    row = [1]
    for m in range(2, n + 1):
        row = [(d + 1) * (row[d] if d < m - 1 else 0) + (m - d) * (row[d - 1] if d > 0 else 0) for d in range(m)]
    return tuple(row)


@lru_cache(maxsize=64)
def rising_sequence_distribution(n: int, riffles: int | None = None) -> np.ndarray:
    """P(R = r), r = 1 .. n (index r - 1): rising sequences of a uniform order, or after ``riffles`` GSR riffles.

    Uniform: A(n, r-1) / n!. After k riffles every order with r rising sequences has probability
    C(2^k + n - r, n) / 2^(k n) (Bayer & Diaconis 1992, Thm 1), so P(R = r) = A(n, r-1) C(2^k + n - r, n)
    / 2^(k n). Computed in exact integer arithmetic, then divided (correctly rounded floats).
    """
    counts = eulerian_numbers(n)
    if riffles is None:
        total = math.factorial(n)
        return _frozen(np.array([count / total for count in counts]))
    if riffles < 0:
        raise ValueError(f"riffles must be non-negative, got {riffles}")
    hands = 2**riffles
    denominator = hands**n
    return _frozen(np.array([counts[r - 1] * math.comb(hands + n - r, n) / denominator for r in range(1, n + 1)]))


def riffle_total_variation(n: int, riffles: int) -> float:
    """Total-variation distance between ``riffles`` GSR riffles of ``n`` cards and a uniform order (exact).

    ½ Σ_r A(n, r-1) |C(2^k + n - r, n) / 2^(k n) − 1/n!|, evaluated over a common integer denominator;
    0.334 for n = 52, k = 7 (Bayer & Diaconis 1992, Table 1).
    """
    counts = eulerian_numbers(n)
    hands = 2**riffles
    factorial = math.factorial(n)
    denominator = hands**n
    numerator = sum(counts[r - 1] * abs(factorial * math.comb(hands + n - r, n) - denominator)
                    for r in range(1, n + 1))
    return numerator / (2 * factorial * denominator)


@lru_cache(maxsize=64)
def succession_distribution(n: int) -> np.ndarray:
    """P(A = a), a = 0 .. n-1: how many of the pairs (i, i+1) stay adjacent in a uniform order of n cards.

    The number of orders with exactly a successions is C(n-1, a) · D(n-a), where D(m), the orders of m
    cards with none, satisfies D(1) = D(2) = 1, D(m) = (m-1) D(m-1) + (m-2) D(m-2) (OEIS A000255, shifted).
    Mean (n-1)/n, variance (n² − n − 1)/n²: very nearly Poisson(1).
    """
    if n < 2:
        raise ValueError(f"n must be at least 2, got {n}")
    no_successions = [0, 1, 1]  # D(0) unused, D(1), D(2)
    for m in range(3, n + 1):
        no_successions.append((m - 1) * no_successions[m - 1] + (m - 2) * no_successions[m - 2])
    total = math.factorial(n)
    return _frozen(np.array([math.comb(n - 1, a) * no_successions[n - a] / total for a in range(n)]))


_DIRECT_CONVOLUTION_LIMIT = 30_000_000  # len(a) * len(b) above which convolutions go through the FFT


def _convolve(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Convolution of two non-negative laws: direct (relative accuracy in the far tails) when small, else FFT."""
    if first.size * second.size <= _DIRECT_CONVOLUTION_LIMIT:
        return np.convolve(first, second)
    return np.clip(signal.fftconvolve(first, second), 0.0, None)


@lru_cache(maxsize=32)
def sum_distribution(kind: str, n: int, riffles: int | None, shuffles: int) -> np.ndarray:
    """Law of the sum of ``shuffles`` i.i.d. copies of a per-shuffle statistic (support 0, 1, ...).

    ``kind`` is ``"rising"`` (R - 1) or ``"succession"``. Computed by repeated squaring. Direct
    convolutions keep every entry to about 1e-13 relative accuracy; the FFT, used for the few largest
    convolutions (about S n > 10,000), keeps 1e-13 absolute accuracy, so p-values below about 1e-12
    are then only known to be below it.
    """
    single = rising_sequence_distribution(n, riffles) if kind == "rising" else succession_distribution(n)
    nonzero = np.flatnonzero(single > 0)
    single = single[: nonzero[-1] + 1]
    result = np.array([1.0])
    power = single
    remaining = shuffles
    while remaining:
        if remaining & 1:
            result = _convolve(result, power)
        remaining >>= 1
        if remaining:
            power = _convolve(power, power)
    return _frozen(result / result.sum())


def _tails(distribution: np.ndarray, value: int) -> tuple[float, float]:
    """(P(X <= value), P(X >= value)) for a law on 0, 1, ..., summing from the small end of each tail."""
    lower = float(np.sort(distribution[: value + 1]).sum()) if value >= 0 else 0.0
    upper = float(np.sort(distribution[max(value, 0):]).sum()) if value < distribution.size else 0.0
    return min(lower, 1.0), min(upper, 1.0)


# -- shared table machinery ---------------------------------------------------------------------


def _blocks(n: int, bins: int | None) -> np.ndarray:
    """Block index of each of ``n`` consecutive positions: near-equal contiguous blocks."""
    if bins is None:
        bins = n if n <= FULL_TABLE_MAX_CARDS else COLLAPSED_BINS
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or not 2 <= bins <= n:
        raise ValueError(f"bins must be an integer from 2 to the number of cards ({n}), got {bins!r}")
    return (np.arange(n) * int(bins)) // n


def _monte_carlo(
    statistic: Callable[[np.ndarray], np.ndarray], observed: float, shuffles: int, n: int, samples: int, seed: int
) -> float:
    """(k + 1) / (B + 1): k of B simulated samples of S uniform orders give a statistic >= ``observed``."""
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise ValueError(f"monte_carlo_samples must be a positive integer, got {samples!r}")
    rng = np.random.default_rng(seed)
    chunk = max(1, _CHUNK_ENTRIES // (shuffles * n))
    exceed = 0
    identity = np.arange(n)
    for start in range(0, samples, chunk):
        size = min(chunk, samples - start)
        simulated = rng.permuted(np.broadcast_to(identity, (size * shuffles, n)), axis=1)
        values = statistic(simulated.reshape(size, shuffles, n))
        exceed += int(np.count_nonzero(values >= observed - _TIE_TOLERANCE * max(1.0, abs(observed))))
    return (exceed + 1) / (samples + 1)


def _validate_samples(monte_carlo_samples: int) -> None:
    if isinstance(monte_carlo_samples, bool) or not isinstance(monte_carlo_samples, (int, np.integer)) \
            or monte_carlo_samples < 1:
        raise ValueError(f"monte_carlo_samples must be a positive integer, got {monte_carlo_samples!r}")


def weighted_chi_square_sf(x: float, weights: np.ndarray, dofs: np.ndarray) -> float:
    """P(Σ_j w_j χ²(ν_j) > x) for independent chi-squares, by Imhof's (1961) inversion formula.

    ½ + (1/π) ∫₀^∞ sin θ(u) / (u ρ(u)) du with θ(u) = ½ Σ ν_j arctan(w_j u) − ½ x u and
    ρ(u) = Π (1 + w_j² u²)^(ν_j / 4). The integral is cut where the integrand's bound 1/(u ρ(u))
    falls below e^-40 and split into pieces of about one oscillation. Meant for many degrees of
    freedom (Σ ν_j >= 10, where ρ grows fast); absolute accuracy about 1e-10.
    """
    weights = np.asarray(weights, dtype=float)
    dofs = np.asarray(dofs, dtype=float)
    if weights.shape != dofs.shape or np.any(weights <= 0) or np.any(dofs <= 0):
        raise ValueError("weights and degrees of freedom must be positive and paired")
    if dofs.sum() < 10:
        raise ValueError("weighted_chi_square_sf needs at least 10 degrees of freedom in all")
    if x <= 0:
        return 1.0

    def log_rho(u: float) -> float:
        return float(np.sum(dofs / 4.0 * np.log1p((weights * u) ** 2)))

    def integrand(u: float) -> float:
        if u == 0.0:
            return 0.5 * (float(np.sum(dofs * weights)) - x)
        theta = 0.5 * float(np.sum(dofs * np.arctan(weights * u))) - 0.5 * x * u
        return math.sin(theta) / (u * math.exp(log_rho(u)))

    upper = 1.0 / float(weights.max())
    while log_rho(upper) + math.log(upper) < 40.0:
        upper *= 2.0
    pieces = max(1, min(4000, int(upper * x / (2 * math.pi)) + 1))
    edges = np.linspace(0.0, upper, pieces + 1)
    total = sum(integrate.quad(integrand, a, b, limit=200)[0] for a, b in itertools.pairwise(edges))
    return float(min(1.0, max(0.0, 0.5 + total / math.pi)))


def successor_null_spectrum(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues and multiplicities of the asymptotic null law of the successor X² (n x n, no collapse).

    Per shuffle the successor indicators have covariance Σ; X² = (n/S) Σ_cells (T − S/n)² tends to
    Σ_j λ_j χ²(m_j) with λ_j the eigenvalues of nΣ: 1/(n−1) (multiplicity 2(n−1): row and column
    totals), 1 (n(n−3)/2: the symmetric part) and (n+1)/(n−1) ((n−1)(n−2)/2: the antisymmetric part);
    their weighted sum is (n−1)², the mean of X².
    """
    weights = np.array([1.0 / (n - 1), 1.0, (n + 1) / (n - 1)])
    dofs = np.array([2 * (n - 1), n * (n - 3) // 2, (n - 1) * (n - 2) // 2], dtype=float)
    keep = dofs > 0
    return weights[keep], dofs[keep]


def _largest_residual(observed: np.ndarray, expected: np.ndarray, mask: np.ndarray | None = None) -> tuple[int, ...]:
    residuals = (observed - expected) / np.sqrt(np.where(expected > 0, expected, 1.0))
    if mask is not None:
        residuals = np.where(mask, residuals, 0.0)
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(np.abs(residuals))), residuals.shape))


# -- the four tests -------------------------------------------------------------------------------


def position_frequency_test(
    input_order: np.ndarray | list[int],
    outputs: np.ndarray | list[list[int]],
    *,
    bins: int | None = None,
    monte_carlo_samples: int = DEFAULT_MONTE_CARLO_SAMPLES,
    seed: int = 0,
) -> TestResult:
    """Card-by-position frequencies: does every card land in every position equally often?

    Counts M[I, J] = number of shuffles in which a card of input block I lands in output block J
    (blocks are single cards and positions unless collapsed, see the module docstring). Expected
    E[I, J] = S |I| |J| / n. Statistic X² = ((n−1)/n) Σ (M − E)² / E: a shuffle is a permutation, so
    the per-shuffle covariance of the table is n/(n−1) times the projection onto tables with zero
    row and column sums, and X² tends to chi-square with (b−1)² degrees of freedom for b blocks
    (exact mean (b−1)²). p-value: that chi-square tail when every E >= 5, else Monte-Carlo.
    """
    relative = relative_orders(input_order, outputs)
    _validate_samples(monte_carlo_samples)
    shuffles, n = relative.shape
    block = _blocks(n, bins)
    b = int(block[-1]) + 1
    sizes = np.bincount(block, minlength=b).astype(float)
    expected = shuffles * np.outer(sizes, sizes) / n
    factor = (n - 1) / n
    position_block = np.broadcast_to(block, (shuffles, n))

    def table(orders: np.ndarray, position_blocks: np.ndarray) -> np.ndarray:
        cells = block[orders] * b + position_blocks
        return np.bincount(cells.ravel(), minlength=b * b).reshape(b, b)

    observed = table(relative, position_block)
    statistic = factor * float(((observed - expected) ** 2 / expected).sum())
    dof = (b - 1) ** 2
    min_expected = float(expected.min())
    if min_expected >= MIN_EXPECTED_FOR_ASYMPTOTICS:
        p_value = float(stats.chi2.sf(statistic, dof))
        how = f"asymptotic chi-square({dof})"
    else:
        def simulate(batch: np.ndarray) -> np.ndarray:
            replicas = batch.shape[0]
            cells = (np.arange(replicas)[:, None, None] * b * b + block[batch] * b
                     + np.broadcast_to(block, batch.shape))
            counts = np.bincount(cells.ravel(), minlength=replicas * b * b).reshape(replicas, b, b)
            return factor * ((counts - expected) ** 2 / expected).sum(axis=(1, 2))

        p_value = _monte_carlo(simulate, statistic, shuffles, n, int(monte_carlo_samples), seed)
        how = f"Monte-Carlo p-value ({int(monte_carlo_samples)} samples of {shuffles} uniform orders, seed {seed})"
    worst = _largest_residual(observed, expected)
    return TestResult(
        test="card-by-position frequency",
        null_hypothesis=SHUFFLE_NULL,
        statistic=statistic,
        p_value=p_value,
        sample_size=shuffles,
        method=f"Pearson X² x (n-1)/n on a {b}x{b} card-block by position-block table, {how}",
        degrees_of_freedom=float(dof),
        details={
            "cards": n,
            "bins": b,
            "min_expected": min_expected,
            "largest_residual": {"card_block": worst[0], "position_block": worst[1],
                                 "observed": int(observed[worst]), "expected": float(expected[worst])},
        },
    )


def adjacent_pairs_test(
    input_order: np.ndarray | list[int],
    outputs: np.ndarray | list[list[int]],
    *,
    alternative: Literal["two-sided", "greater"] = "two-sided",
) -> TestResult:
    """Neighbours kept: how often card ``i+1`` still directly follows card ``i`` after shuffling.

    Statistic: the total T over the S shuffles of the per-shuffle count A (successions). Under H0
    A has the exact law of :func:`succession_distribution` (mean (n−1)/n, variance (n²−n−1)/n², nearly
    Poisson(1)); T is the sum of S independent copies, whose law is computed exactly by convolution.
    p-value: ``"greater"`` P(T >= t) (riffles and clumps keep neighbours); ``"two-sided"`` twice the
    smaller tail, capped at 1.
    """
    relative = relative_orders(input_order, outputs)
    if alternative not in ("two-sided", "greater"):
        raise ValueError(f"alternative must be 'two-sided' or 'greater', got {alternative!r}")
    shuffles, n = relative.shape
    per_shuffle = adjacent_pairs(relative)
    total = int(per_shuffle.sum())
    law = sum_distribution("succession", n, None, shuffles)
    lower, upper = _tails(law, total)
    p_value = upper if alternative == "greater" else min(1.0, 2.0 * min(lower, upper))
    mean = shuffles * (n - 1) / n
    variance = shuffles * (n * n - n - 1) / (n * n)
    return TestResult(
        test="adjacent pairs kept",
        null_hypothesis=SHUFFLE_NULL,
        statistic=float(total),
        p_value=p_value,
        sample_size=shuffles,
        method=f"exact law of the number of successions summed over {shuffles} shuffles, {alternative}",
        details={
            "cards": n,
            "expected": mean,
            "variance": variance,
            "z": (total - mean) / math.sqrt(variance),
            "mean_per_shuffle": float(per_shuffle.mean()),
            "max_per_shuffle": int(per_shuffle.max()),
        },
    )


def rising_sequence_test(
    input_order: np.ndarray | list[int],
    outputs: np.ndarray | list[list[int]],
    *,
    reference_riffles: int | None = None,
) -> TestResult:
    """Rising sequences: the statistic that sees everything that distinguishes riffle shuffles.

    Statistic: the total ΣR of the rising sequences of the S orders. Its law is the S-fold
    convolution of the per-shuffle law (computed exactly, :func:`rising_sequence_distribution`):

    * ``reference_riffles=None`` (H0 uniform): per-shuffle mean (n+1)/2, variance (n+1)/12;
      two-sided p-value, twice the smaller tail (riffles lower ΣR; other defects, e.g. a
      shuffler that reverses runs, raise it).
    * ``reference_riffles=k0``: H0 "the shuffler mixes at least as well as k0 GSR riffles",
      tested at its least favourable point, the law of exactly k0 riffles. One-sided: P(ΣR <= t).
      Fewer riffles give fewer rising sequences, more riffles and a uniform shuffle more, so the
      test rejects k < k0 and accepts k >= k0 with probability at least 1 − alpha.

    Within the riffle family R is sufficient, and the likelihood ratio of k riffles against a
    uniform order decreases in R, so a test on R is the natural (per shuffle, most powerful) one.
    """
    relative = relative_orders(input_order, outputs)
    shuffles, n = relative.shape
    if reference_riffles is not None and (isinstance(reference_riffles, bool) or reference_riffles < 0):
        raise ValueError(f"reference_riffles must be a non-negative integer or None, got {reference_riffles!r}")
    rising = rising_sequences(relative)
    total = int(rising.sum())
    single = rising_sequence_distribution(n, reference_riffles)
    support = np.arange(1, n + 1)
    mean = float((support * single).sum())
    variance = float((support**2 * single).sum() - mean**2)
    law = sum_distribution("rising", n, reference_riffles, shuffles)
    lower, upper = _tails(law, total - shuffles)  # the law is that of Σ(R − 1)
    if reference_riffles is None:
        p_value = min(1.0, 2.0 * min(lower, upper))
        null, how = SHUFFLE_NULL, "two-sided"
    else:
        p_value = lower
        null = (f"the shuffler mixes at least as well as {reference_riffles} Gilbert-Shannon-Reeds riffles "
                f"(tested at the law of exactly {reference_riffles} riffles)")
        how = "one-sided (fewer rising sequences)"
    return TestResult(
        test="rising sequences",
        null_hypothesis=null,
        statistic=float(total),
        p_value=p_value,
        sample_size=shuffles,
        method=f"exact law of the total number of rising sequences over {shuffles} shuffles "
               f"({'Eulerian numbers' if reference_riffles is None else 'Bayer-Diaconis formula'}), {how}",
        details={
            "cards": n,
            "reference_riffles": reference_riffles,
            "mean_per_shuffle": float(rising.mean()),
            "expected_per_shuffle": mean,
            "variance_per_shuffle": variance,
            "z": (total - shuffles * mean) / math.sqrt(shuffles * variance) if variance > 0 else math.nan,
            "min_per_shuffle": int(rising.min()),
        },
    )


def successor_test(
    input_order: np.ndarray | list[int],
    outputs: np.ndarray | list[list[int]],
    *,
    bins: int | None = None,
    monte_carlo_samples: int = DEFAULT_MONTE_CARLO_SAMPLES,
    seed: int = 0,
) -> TestResult:
    """Card-follows-card: is the card below card a equally likely to be any of the other n − 1 cards?

    Counts T[a, b] = number of times card b lies directly below card a (S (n−1) transitions in all).
    Under H0 each ordered pair a ≠ b is adjacent in that order with probability 1/n per shuffle, i.e.
    given that a is not the bottom card its successor is uniform over the other n − 1 cards. Statistic
    X² = Σ_{a≠b} (T − S/n)² / (S/n). p-value: when S/n >= 5, n >= 10 and the table is not collapsed, the
    asymptotic law Σ λ_j χ²(m_j) of :func:`successor_null_spectrum` by Imhof's formula; otherwise
    (few shuffles or a collapsed table, where blocks a -> b of consecutive cards include the
    diagonal) Monte-Carlo.
    """
    relative = relative_orders(input_order, outputs)
    _validate_samples(monte_carlo_samples)
    shuffles, n = relative.shape
    block = _blocks(n, bins)
    b = int(block[-1]) + 1
    collapsed = b < n
    sizes = np.bincount(block, minlength=b).astype(float)
    pairs = np.outer(sizes, sizes) - np.diag(sizes)  # ordered pairs of distinct cards per block pair
    expected = shuffles * pairs / n
    mask = pairs > 0

    def table(orders: np.ndarray) -> np.ndarray:
        cells = block[orders[..., :-1]] * b + block[orders[..., 1:]]
        return np.bincount(cells.ravel(), minlength=b * b).reshape(b, b)

    def chi_square(counts: np.ndarray) -> np.ndarray:
        safe = np.where(mask, expected, 1.0)
        return np.where(mask, (counts - expected) ** 2 / safe, 0.0).sum(axis=(-2, -1))

    observed = table(relative)
    statistic = float(chi_square(observed))
    min_expected = float(expected[mask].min())
    if not collapsed and n >= 10 and min_expected >= MIN_EXPECTED_FOR_ASYMPTOTICS:
        weights, dofs = successor_null_spectrum(n)
        p_value = weighted_chi_square_sf(statistic, weights, dofs)
        how = "asymptotic law Σ λ χ² (Imhof)"
        dof: float | None = float((n - 1) ** 2)
    else:
        def simulate(batch: np.ndarray) -> np.ndarray:
            replicas = batch.shape[0]
            cells = (np.arange(replicas)[:, None, None] * b * b + block[batch[..., :-1]] * b
                     + block[batch[..., 1:]])
            counts = np.bincount(cells.ravel(), minlength=replicas * b * b).reshape(replicas, b, b)
            return chi_square(counts)

        p_value = _monte_carlo(simulate, statistic, shuffles, n, int(monte_carlo_samples), seed)
        how = f"Monte-Carlo p-value ({int(monte_carlo_samples)} samples of {shuffles} uniform orders, seed {seed})"
        dof = None
    worst = _largest_residual(observed, expected, mask)
    start = np.asarray(input_order)
    cell: dict[str, Any] = {"observed": int(observed[worst]), "expected": float(expected[worst])}
    if collapsed:
        cell.update(from_block=worst[0], to_block=worst[1])
    else:
        cell.update(card=int(start[worst[0]]), followed_by=int(start[worst[1]]))
    return TestResult(
        test="card successor",
        null_hypothesis=SHUFFLE_NULL,
        statistic=statistic,
        p_value=p_value,
        sample_size=shuffles,
        method=f"Pearson X² of card-to-next-card transitions on a {b}x{b} table, {how}",
        degrees_of_freedom=dof,
        details={"cards": n, "bins": b, "min_expected": min_expected, "largest_residual": cell},
    )


def card_shuffle_tests(
    input_order: np.ndarray | list[int],
    outputs: np.ndarray | list[list[int]],
    *,
    monte_carlo_samples: int = DEFAULT_MONTE_CARLO_SAMPLES,
    seed: int = 0,
) -> dict[str, TestResult]:
    """The four tests of this module with their defaults, keyed by test name.

    They test one H0 four ways: correct their p-values for multiplicity (e.g. Holm) before a verdict.
    """
    return {
        "position_frequency": position_frequency_test(input_order, outputs, monte_carlo_samples=monte_carlo_samples,
                                                      seed=seed),
        "adjacent_pairs": adjacent_pairs_test(input_order, outputs),
        "rising_sequences": rising_sequence_test(input_order, outputs),
        "successor": successor_test(input_order, outputs, monte_carlo_samples=monte_carlo_samples, seed=seed),
    }
