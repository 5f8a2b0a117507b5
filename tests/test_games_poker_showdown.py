"""The end of a non-banked poker deal (``bench/games/poker_showdown.py``), on hands worked out from the texts."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bench.games.poker_hands import Category
from bench.games.poker_showdown import hand_value, rake, ranking_of, settle_deal


def test_omaha_uses_exactly_two_own_cards() -> None:
    # four hearts in the hand and one on the board is no flush in omaha (/73): two own + three common
    value = hand_value("omaha", "AH KH QH JH", "2H 7S 8C 9D 3S", ranking_of("omaha", "p217-2007"))
    assert value.category is Category.HIGH_CARD
    # the same cards in hold'em with two hearts on the board make a flush (/94)
    assert hand_value("holdem", "AH KH", "2H 7H 8C 9D 3H", ranking_of("holdem", "p217-2007")).category is Category.FLUSH


def test_sintetico_uses_both_own_cards_and_its_28_card_ranking() -> None:
    ranking = ranking_of("poquer-sintetico", "p461-2001")
    # flush above full house on 28 cards (p461-2001/poquer-sintetico/24)
    flush = hand_value("poquer-sintetico", "AH 9H", "KH JH 8H 8S 8C", ranking)
    full = hand_value("poquer-sintetico", "AS AD", "KH JH 8H 8S 8C", ranking)
    assert flush.category is Category.FLUSH and full.category is Category.FULL_HOUSE and flush > full
    with pytest.raises(ValueError, match="28-card deck"):
        settle_deal("poquer-sintetico", "p461-2001", {1: 100, 2: 100}, {1: "2H 9H", 2: "AS AD"}, "KH JH 8H 8S 8C")


def test_rake_is_taken_per_pot_in_whole_chips() -> None:
    assert rake(1900, Fraction(5), 100) == 0  # 95 rounds down to no chip
    assert rake(2000, Fraction(5), 100) == 100
    assert rake(2000, Fraction(3), 10) == 60


def test_side_pot_and_rake() -> None:
    # seat 1 all-in for 200, seats 2 and 3 put 600: main pot 600 (all three), side pot 800 (2 and 3);
    # 5 % in chips of 100: main pot 0 taken (30 -> 0), side pot 0 taken (40 -> 0); seat 1 has the best hand
    deal = settle_deal("holdem", "p217-2007", {1: 200, 2: 600, 3: 600},
                       {1: "AS AH", 2: "KS KH", 3: "QS QH"}, "2C 7D 9S TC 4H", rake_percent=Fraction(5), unit=100)
    assert [pot.amount for pot in deal.pots] == [600, 800] and deal.rake == 0
    assert deal.won == {1: 600, 2: 800, 3: 0}
    big = settle_deal("holdem", "p217-2007", {1: 2000, 2: 6000, 3: 6000},
                      {1: "AS AH", 2: "KS KH", 3: "QS QH"}, "2C 7D 9S TC 4H", rake_percent=Fraction(5), unit=100)
    assert big.rake == 300 + 400 and big.won == {1: 5700, 2: 7600, 3: 0}


def test_a_deal_everyone_else_folded_goes_to_the_last_player_unseen() -> None:
    deal = settle_deal("holdem", "p217-2007", {1: 100, 2: 300, 3: 100}, {}, "2C 7D 9S TC 4H", folded=(1, 3))
    assert deal.won == {2: 500} and not deal.showdown
