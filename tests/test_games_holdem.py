"""Hold'em (srij-806-2015, p217-2007/poquer-nao-bancado): best five of seven, side pots, chips conserved."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.games.cards import DECK_52
from bench.games.holdem import Pot, award, best_hand, settle_showdown, side_pots
from bench.games.poker_hands import Category, evaluate

BOARD = "AS KD 7C 7H 2S"


def test_best_five_of_seven():
    assert best_hand("7S 7D", BOARD).category is Category.FOUR_OF_A_KIND
    assert best_hand("AH 3C", BOARD).category is Category.TWO_PAIR
    assert best_hand("QS JS", "AS KS TS 2D 3C").category is Category.ROYAL_FLUSH
    assert best_hand("2C 3D", "AS KS QD JH TC").category is Category.STRAIGHT  # the board plays
    with pytest.raises(ValueError, match="2 cards needed"):
        best_hand("AS", BOARD)


def test_side_pots_one_per_all_in_level():
    """p217-2007/poquer-nao-bancado/38: a side pot for each all-in player of a different amount."""
    pots = side_pots({1: 50, 2: 100, 3: 100, 4: 30}, folded=[4])
    assert pots == [Pot(180, (1, 2, 3)), Pot(100, (2, 3))]  # the folded 30 stays in the main pot
    assert side_pots({1: 20, 2: 50, 3: 80, 4: 80}) == [Pot(80, (1, 2, 3, 4)), Pot(90, (2, 3, 4)), Pot(60, (3, 4))]
    assert side_pots({1: 100, 2: 100}) == [Pot(200, (1, 2))]
    assert side_pots({1: 100, 2: 40}, folded=[1]) == [Pot(140, (2,))]  # uncalled chips join the top pot


def test_all_in_player_wins_only_what_he_matched():
    """/49, /50: the best hand all-in for 50 against two players of 100 wins 150; the side pot goes on."""
    values = {1: evaluate("AS AD AC KS KD"), 2: evaluate("QS QD 2C 3S 4D"), 3: evaluate("JS JD 2H 3C 5D")}
    won = award(side_pots({1: 50, 2: 100, 3: 100}), values)
    assert won == {1: 150, 2: 100, 3: 0}


def test_split_pot_odd_chips_go_from_the_hand():
    """/66, /67: equal hands share; the larger part to the hand, then the next players."""
    tied = evaluate("AS KD QC JH 9S")
    values = {1: tied, 2: evaluate("AD KS QH JC 9D"), 3: evaluate("2S 3D 4C 5H 7S")}
    pots = [Pot(101, (1, 2, 3))]
    assert award(pots, values) == {1: 51, 2: 50, 3: 0}
    assert award(pots, values, hand_order=[2, 3, 1]) == {1: 50, 2: 51, 3: 0}
    assert award([Pot(300, (1, 2, 3))], values, unit=100, hand_order=[3, 1, 2]) == {1: 200, 2: 100, 3: 0}
    with pytest.raises(ValueError, match="whole number of chips"):
        award(pots, values, unit=2)


def test_settle_showdown():
    won = settle_showdown({1: 200, 2: 200, 3: 50}, {1: "7S 7D", 2: "AH 3C"}, BOARD, folded=[3])
    assert won == {1: 450, 2: 0}
    with pytest.raises(ValueError, match="appears twice"):
        settle_showdown({1: 200, 2: 200}, {1: "7S 7D", 2: "7S 3C"}, BOARD)
    with pytest.raises(ValueError, match="no cards for seats"):
        settle_showdown({1: 200, 2: 200}, {1: "7S 7D"}, BOARD)
    with pytest.raises(ValueError, match="every player folded"):
        side_pots({1: 10, 2: 10}, folded=[1, 2])


@st.composite
def deals(draw):
    seats = draw(st.integers(2, 9))
    contributions = {seat: draw(st.integers(0, 40)) * 5 for seat in range(1, seats + 1)}
    folded = draw(st.sets(st.sampled_from(sorted(contributions)), max_size=seats - 1))
    cards = draw(st.permutations(DECK_52))
    board, holes = cards[:5], {seat: cards[5 + 2 * i: 7 + 2 * i] for i, seat in enumerate(contributions)}
    return contributions, folded, holes, board


@settings(max_examples=300, deadline=None)
@given(deals())
def test_chips_are_conserved_and_nobody_wins_more_than_he_matched(deal):
    contributions, folded, holes, board = deal
    won = settle_showdown(contributions, {s: h for s, h in holes.items() if s not in folded}, board,
                          folded=folded, unit=5)
    assert sum(won.values()) == sum(contributions.values())
    assert all(amount >= 0 and amount % 5 == 0 for amount in won.values())
    assert all(won.get(seat, 0) == 0 for seat in folded)
    for seat, amount in won.items():
        matched = sum(min(given, contributions[seat]) for given in contributions.values())
        live_top = max(contributions[s] for s in contributions if s not in folded)
        if contributions[seat] < live_top:  # all-in below the top: at most what he matched
            assert amount <= matched
