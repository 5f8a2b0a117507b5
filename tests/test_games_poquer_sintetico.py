"""Póquer sintético (p461-2001/poquer-sintetico, p217-2007/poquer-nao-bancado/95-105): the 28-card showdown."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.games.cards import DECK_28, parse_cards
from bench.games.poker_hands import SINTETICO_P217, SINTETICO_P461, STANDARD, Category, evaluate
from bench.games.poquer_sintetico import best_hand, showdown


def test_both_own_cards_and_three_common_ones():
    """p461-2001/poquer-sintetico/1: two own cards and three of the five common; the board's royal is not yours."""
    board = "AS KS QS JS TS"
    value = best_hand("8C 9D", board)
    assert value.category is Category.STRAIGHT  # 8-9 with 10-J-Q
    assert set(parse_cards("8C 9D")) <= set(value.cards)
    assert best_hand("8S 9S", "TS JS QS AD AH").category is Category.STRAIGHT_FLUSH


def test_trio_tie_decided_by_the_fourth_card():
    """/33: equal trios (here from the board), the fourth or fifth card decides."""
    winners, values = showdown({1: "QC JD", 2: "QD 9C"}, "AS AD AC 8H 8S")
    assert values[1].category is values[2].category is Category.THREE_OF_A_KIND  # three common cards only
    assert winners == [1]


def test_equal_hands_share():
    winners, _ = showdown({3: "KC QD", 7: "KD QC"}, "AS JH TD 8C 8S")  # both A-K-Q-J-10 straights
    assert winners == [3, 7]


def test_figures_decide_between_the_two_texts():
    """Five figures with one pair: figuras simples under p461-2001/35 (beats two pairs), one pair under
    p217-2007/105.b (loses to two pairs)."""
    holes, board = {1: "AS AD", 2: "9D 8D"}, "KC QH JS 9C 8H"
    assert showdown(holes, board, SINTETICO_P461)[0] == [1]
    assert showdown(holes, board, SINTETICO_P217)[0] == [2]


def test_bad_inputs():
    with pytest.raises(ValueError, match="7S is not in the 28-card deck"):
        best_hand("7S 8D", "AS KS QS JS TS")
    with pytest.raises(ValueError, match="28-card deck"):
        best_hand("8S 8D", "AS KS QS JS TS", STANDARD)
    with pytest.raises(ValueError, match="both in the hand and on the board"):
        best_hand("AS 8D", "AS KS QS JS TS")
    with pytest.raises(ValueError, match="appears twice"):
        showdown({1: "8S 8D", 2: "8S 9D"}, "AS KS QS JS TS")


@settings(max_examples=150, deadline=None)
@given(st.permutations(DECK_28), st.integers(2, 11))
def test_the_winner_has_the_best_of_the_ten_hands_each(cards, players):
    """Property: each player's value is the maximum of his ten legal hands; winners hold the maximum."""
    import itertools

    board = cards[:5]
    holes = {seat: cards[5 + 2 * seat: 7 + 2 * seat] for seat in range(players)}
    winners, values = showdown(holes, board)
    for seat, hole in holes.items():
        legal = [evaluate(list(hole) + list(three), SINTETICO_P461) for three in itertools.combinations(board, 3)]
        assert values[seat] == max(legal)
    assert {seat for seat, value in values.items() if value == max(values.values())} == set(winners)
