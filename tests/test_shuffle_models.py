"""The shuffle models draw from the distributions they claim.

Distribution checks enumerate every order of a tiny deck and compare simulated frequencies with
the exact probabilities by Pearson's chi-square at alpha = 0.001: a correct model fails one of
them with probability 0.001; the seeds are fixed, so the outcome is deterministic.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from bench.games.shuffle_models import (
    bayer_diaconis_probability,
    clumped_shuffle,
    fisher_yates,
    gsr_riffle,
    shuffle,
)
from rng_tests.fairness.cards import rising_sequences

ALPHA = 0.001
DRAWS = 24_000


def _order_frequencies(orders: np.ndarray, n: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Every order of n cards and how often it was drawn."""
    everything = list(itertools.permutations(range(n)))
    code = {order: index for index, order in enumerate(everything)}
    counts = np.bincount([code[tuple(row)] for row in orders.tolist()], minlength=len(everything))
    return everything, counts


def _rising(order: tuple[int, ...]) -> int:
    return int(rising_sequences(np.array([order]))[0])


@pytest.mark.parametrize("method", ["drop", "inverse"])
@pytest.mark.parametrize(("n", "riffles"), [(3, 1), (4, 1), (4, 2), (4, 3)])
def test_gsr_matches_bayer_diaconis(method: str, n: int, riffles: int) -> None:
    """Frequencies of every order match C(2^k + n − r, n) / 2^(kn); impossible orders never occur.

    The zero-probability check also catches a model that draws the inverse of a riffle.
    """
    orders = gsr_riffle(n, np.random.default_rng(17 + n + 10 * riffles), riffles, DRAWS, method=method)
    everything, counts = _order_frequencies(orders, n)
    probabilities = np.array([float(bayer_diaconis_probability(n, riffles, _rising(o))) for o in everything])
    assert probabilities.sum() == pytest.approx(1.0)
    assert counts[probabilities == 0].sum() == 0
    possible = probabilities > 0
    result = stats.chisquare(counts[possible], DRAWS * probabilities[possible])
    assert result.pvalue >= ALPHA


def test_bayer_diaconis_probability_known_values() -> None:
    # one riffle leaves the deck in order with probability (n + 1) / 2^n
    assert bayer_diaconis_probability(52, 1, 1) == Fraction(53, 2**52)
    assert bayer_diaconis_probability(5, 1, 3) == 0  # one riffle makes at most two rising sequences
    assert bayer_diaconis_probability(4, 0, 1) == 1
    with pytest.raises(ValueError, match="1 <= r <= n"):
        bayer_diaconis_probability(4, 2, 5)


@pytest.mark.parametrize("shuffles", [1, DRAWS])
def test_fisher_yates_uniform_on_four_cards(shuffles: int) -> None:
    """All 24 orders equally likely, both through Generator.permutation (one deck) and .permuted (many)."""
    rng = np.random.default_rng(4)
    if shuffles == 1:
        orders = np.vstack([fisher_yates(4, rng) for _ in range(DRAWS)])
    else:
        orders = fisher_yates(4, rng, shuffles)
    _, counts = _order_frequencies(orders, 4)
    assert stats.chisquare(counts).pvalue >= ALPHA


def test_clumped_with_unit_clumps_is_uniform() -> None:
    orders = clumped_shuffle(4, np.random.default_rng(8), mean_clump=1.0, shuffles=DRAWS)
    _, counts = _order_frequencies(orders, 4)
    assert stats.chisquare(counts).pvalue >= ALPHA


def test_clumped_keeps_clumps_together() -> None:
    """With mean clump 4, about n/4 clumps, each a run of consecutive cards: far more neighbours kept."""
    orders = clumped_shuffle(52, np.random.default_rng(9), mean_clump=4.0, shuffles=2000)
    kept = np.count_nonzero(orders[:, 1:] == orders[:, :-1] + 1, axis=1)
    # 51 gaps each survive with probability 3/4, plus chance adjacencies: mean about 38.5 (sd about 3)
    assert 36.0 < kept.mean() < 41.0
    assert np.all(np.sort(orders, axis=1) == np.arange(52))


def test_models_shuffle_the_given_order() -> None:
    """A deck given as card ids comes back as permutations of those ids, one row per shuffle."""
    deck = np.array([51, 7, 3, 12, 40, 0])
    rng = np.random.default_rng(1)
    for model in ("fisher-yates", "riffle", "clumped"):
        out = shuffle(deck, rng, model, shuffles=5)
        assert out.shape == (5, 6)
        assert np.all(np.sort(out, axis=1) == np.sort(deck))
    zero_riffles = gsr_riffle(deck, rng, riffles=0, shuffles=3)
    assert np.all(zero_riffles == deck)
    rows = np.vstack([deck, deck[::-1]])
    assert gsr_riffle(rows, rng, riffles=2).shape == (2, 6)


def test_same_seed_same_orders() -> None:
    first = gsr_riffle(52, np.random.default_rng(3), 7, 10)
    second = gsr_riffle(52, np.random.default_rng(3), 7, 10)
    assert np.array_equal(first, second)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda rng: fisher_yates(0, rng), "at least one card"),
        (lambda rng: fisher_yates(52, rng, shuffles=0), "shuffles must be a positive integer"),
        (lambda rng: gsr_riffle(52, rng, riffles=-1), "riffles must be a non-negative integer"),
        (lambda rng: gsr_riffle(52, rng, method="faro"), "method must be"),
        (lambda rng: gsr_riffle(np.zeros((2, 5), dtype=int), rng, shuffles=3), "has 2 rows"),
        (lambda rng: clumped_shuffle(52, rng, mean_clump=0.5), "mean_clump"),
        (lambda rng: fisher_yates(np.array([0.5, 1.5]), rng), "integer array"),
        (lambda rng: shuffle(52, rng, "overhand"), "unknown shuffle model"),  # type: ignore[arg-type]
    ],
)
def test_bad_input_raises(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(np.random.default_rng(0))
