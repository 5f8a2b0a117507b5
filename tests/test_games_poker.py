"""The parametrised poker hand evaluator: every category count over the full decks, and the ties of the texts."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.games.cards import DECK_52, SUITS, Card
from bench.games.poker_hands import (
    POQUER_SEM_DESCARTE,
    SINTETICO_P217,
    SINTETICO_P461,
    STANDARD,
    Category,
    all_hands,
    best_of,
    categorise,
    category_counts,
    compare,
    evaluate,
    winners,
)

C = Category


def _standard_counts() -> dict[Category, int]:
    """The classical counts of the 2,598,960 five-card hands, by formula (not by enumeration)."""
    straights = 10 * 4**5
    return {
        C.ROYAL_FLUSH: 4,
        C.STRAIGHT_FLUSH: 10 * 4 - 4,
        C.FOUR_OF_A_KIND: 13 * 48,
        C.FULL_HOUSE: 13 * math.comb(4, 3) * 12 * math.comb(4, 2),
        C.FLUSH: 4 * math.comb(13, 5) - 40,
        C.STRAIGHT: straights - 40,
        C.THREE_OF_A_KIND: 13 * 4 * math.comb(12, 2) * 16,
        C.TWO_PAIR: math.comb(13, 2) * 36 * 44,
        C.ONE_PAIR: 13 * 6 * math.comb(12, 3) * 64,
        C.HIGH_CARD: (math.comb(13, 5) - 10) * (4**5 - 4),
    }


def _sintetico_counts(one_pair_figures: bool) -> dict[Category, int]:
    """The 98,280 hands of the 28-card deck (7 ranks 8-A, 4 straights incl. A-8-9-10-J), by formula."""
    figures_pair = 4 * 6 * 4**3  # pair of one figure rank, one card of each other figure rank
    figures_two_pairs = math.comb(4, 2) * 36 * (2 * 4)
    one_pair = 7 * 6 * math.comb(6, 3) * 64
    return {
        C.ROYAL_FLUSH: 4,
        C.STRAIGHT_FLUSH: 3 * 4,
        C.FOUR_OF_A_KIND: 7 * 24,
        C.FLUSH: 4 * (math.comb(7, 5) - 4),
        C.FULL_HOUSE: 7 * 4 * 6 * 6,
        C.STRAIGHT: 4 * (4**5 - 4),
        C.THREE_OF_A_KIND: 7 * 4 * math.comb(6, 2) * 16,
        C.FIGURES_WITH_PAIRS: figures_two_pairs,
        C.SIMPLE_FIGURES: figures_pair if one_pair_figures else 0,
        C.TWO_PAIR: math.comb(7, 2) * 36 * 20 - figures_two_pairs,
        C.ONE_PAIR: one_pair - figures_pair if one_pair_figures else one_pair,
        C.HIGH_CARD: (math.comb(7, 5) - 4) * (4**5 - 4),
    }


def test_standard_counts_over_all_2598960_hands():
    counts = category_counts(STANDARD)
    assert counts == _standard_counts()
    assert sum(counts.values()) == math.comb(52, 5) == 2_598_960
    assert counts[C.ROYAL_FLUSH] + counts[C.STRAIGHT_FLUSH] == 40  # straight flushes incl. royals


@pytest.mark.parametrize(("ranking", "one_pair_figures"), [(SINTETICO_P461, True), (SINTETICO_P217, False)])
def test_sintetico_counts_over_all_98280_hands(ranking, one_pair_figures):
    counts = category_counts(ranking)
    assert counts == _sintetico_counts(one_pair_figures)
    assert sum(counts.values()) == math.comb(28, 5)


def test_vectorised_and_scalar_evaluators_agree():
    """A random sample of 2000 hands per ranking: the same category from both evaluators (seed fixed)."""
    rng = np.random.default_rng(20260501)
    for ranking in (STANDARD, POQUER_SEM_DESCARTE, SINTETICO_P461, SINTETICO_P217):
        ranks, suits = all_hands(ranking.deck_size)
        rows = rng.choice(len(ranks), size=2000, replace=False)
        fast = categorise(ranks[rows], suits[rows], ranking)
        for row, index in zip(rows, fast, strict=True):
            hand = [Card(int(r), SUITS[s]) for r, s in zip(ranks[row], suits[row], strict=True)]
            assert evaluate(hand, ranking).category == ranking.order[index], hand


def _wins(first: str, second: str, ranking=STANDARD) -> int:
    return compare(evaluate(first, ranking), evaluate(second, ranking))


def test_category_order_standard():
    ladder = ["AS KS QS JS TS", "9H 8H 7H 6H 5H", "QC QD QH QS 2C", "JC JD JH 4S 4C", "AD 9D 7D 4D 2D",
              "TC 9D 8H 7S 6C", "7C 7D 7H KS 2C", "KC KD 3H 3S 9C", "AC AD 9H 5S 2C", "AC KD 9H 5S 2C"]
    values = [evaluate(hand) for hand in ladder]
    assert [value.category for value in values] == list(STANDARD.order)
    assert all(high > low for high, low in itertools.pairwise(values))


def test_ace_low_straight():
    """p461-2001/poquer-sem-descarte/7.c: the ace counts 1 in A-2-3-4-5, the lowest straight."""
    wheel = evaluate("AS 2D 3C 4H 5S")
    assert wheel.category is C.STRAIGHT
    assert _wins("2S 3D 4C 5H 6S", "AS 2D 3C 4H 5S") == 1
    assert evaluate("AH 2H 3H 4H 5H").category is C.STRAIGHT_FLUSH
    assert evaluate("QS KD AC 2H 3S").category is C.HIGH_CARD  # no wrap-around


def test_ties_of_p461_rule_7():
    assert _wins("KS KD 2C 2H AS", "KC KH 3C 3H 4S") == -1  # 7.f: the second pair decides
    assert _wins("KS KD QC QH 5S", "KC KH QD QS 4S") == 1  # 7.f: then the fifth card
    assert _wins("9S 9D AC 7H 5S", "9C 9H AD 7S 4S") == 1  # 7.g: then the highest other card
    assert _wins("AS JS 8S 6S 2S", "AD JD 8D 6D 3D") == -1  # flush: card by card
    assert _wins("AS KD QC JH TS", "AD KS QH JC TD") == 0  # equal straights tie


def test_three_of_the_same_colour_breaks_high_card_ties():
    """p461-2001/poquer-sem-descarte/6.j, srij-803-2015/9: equal high cards, three of one suit wins."""
    three_spades, two_spades = "AS KS 9S 5H 3D", "AH KD 9C 5S 3S"
    assert _wins(three_spades, two_spades, POQUER_SEM_DESCARTE) == 1
    assert _wins(three_spades, "AD KD 9D 5C 3C", POQUER_SEM_DESCARTE) == 0  # both have three: tie
    assert _wins(three_spades, two_spades, STANDARD) == 0  # not a rule of non-banked poker
    assert _wins("AS KS QS 5H 3D", "AH KD 9C 5S 3S", POQUER_SEM_DESCARTE) == 1  # ranks decide first


def test_sintetico_ranking():
    r = SINTETICO_P461
    assert evaluate("AS 8D 9C TH JS", r).category is C.STRAIGHT  # ace low before the 8 (rule 4)
    assert _wins("8S 9D TC JH QS", "AS 8D 9C TH JS", r) == 1  # A-8-9-10-J is the lowest straight
    assert _wins("AS QS TS 9S 8S", "KC KD KH 8D 8C", r) == 1  # flush above full house (rule 24)
    assert _wins("AS AD KC KH QS", "TS TD 9C 9H AH", r) == 1  # figuras com pares above dois pares
    assert _wins("AS AD KC QH JS", "TS TD 9C 9H AH", r) == 1  # figuras simples above dois pares
    assert _wins("QS QD JC JH KS", "AS AD KC QH JS", r) == 1  # figuras com pares above figuras simples
    assert evaluate("AS AD KC QH JS", r).category is C.SIMPLE_FIGURES
    assert evaluate("AS AD AC QH JS", r).category is C.THREE_OF_A_KIND  # "não formem trio" (rule 35)
    # p217-2007/poquer-nao-bancado/105.b: "não formem pares" — five figures with a pair are one pair
    assert evaluate("AS AD KC QH JS", SINTETICO_P217).category is C.ONE_PAIR
    assert _wins("AS AD KC QH JS", "TS TD 9C 9H AH", SINTETICO_P217) == -1
    with pytest.raises(ValueError, match="7S is not in the 28-card deck"):
        evaluate("7S 8D 9C TH JS", r)


def test_bad_hands():
    with pytest.raises(ValueError, match="5 cards needed"):
        evaluate("AS KS QS JS")
    with pytest.raises(ValueError, match="AS appears twice"):
        evaluate("AS KS QS JS AS")


def test_best_of_seven_and_fixed_cards():
    assert best_of("AH KH QH JH TH 2C 2D").category is C.ROYAL_FLUSH
    assert best_of("AH KH 2H 2C 2D KS 9S").category is C.FULL_HOUSE
    full = best_of("AH AD AS KH KD QS QD")
    assert full.key == evaluate("AH AD AS KH KD").key  # the higher pair completes the full house
    # sintético: both own cards and exactly three common ones, so four aces on the board make a trio
    value = best_of("AS AD AC AH KS", SINTETICO_P461, fixed="8C 9D")
    assert value.category is C.THREE_OF_A_KIND
    assert {Card(8, "C"), Card(9, "D")} <= set(value.cards)
    assert winners([("a", evaluate("AS KS QS JS TS")), ("b", evaluate("AD KD QD JD TD"))]) == ["a", "b"]
    with pytest.raises(ValueError, match="cannot make five cards"):
        best_of("AS KS QS")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(DECK_52), min_size=7, max_size=7, unique=True))
def test_best_of_seven_is_the_maximum_over_all_21_hands(seven):
    """Brute force: no five of the seven beat the chosen hand, and it is one of them."""
    best = best_of(seven)
    assert set(best.cards) <= set(seven)
    assert all(evaluate(list(five)) <= best for five in itertools.combinations(seven, 5))
