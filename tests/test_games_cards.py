"""Cards, decks and the conversion to and from the card shuffler's protocol."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.games import cards, physical_cards
from bench.games.cards import ACE, DECK_28, DECK_52, Card, parse_card, parse_cards


@pytest.mark.parametrize(("text", "rank", "suit"), [
    ("AS", ACE, "S"), ("TH", 10, "H"), ("10H", 10, "H"), ("8c", 8, "C"), (" kd ", 13, "D"), ("2S", 2, "S"),
])
def test_parse_card(text, rank, suit):
    assert parse_card(text) == Card(rank, suit)


@pytest.mark.parametrize("text", ["", "A", "1S", "11H", "AX", "ZS", "10", "AS/RED", "0H"])
def test_bad_card_is_named(text):
    with pytest.raises(ValueError) as error:
        parse_card(text)
    assert repr(text) in str(error.value)


def test_card_fields_are_checked():
    with pytest.raises(ValueError, match="rank"):
        Card(15, "S")
    with pytest.raises(ValueError, match="rank"):
        Card(1, "S")
    with pytest.raises(ValueError, match="suit"):
        Card(10, "X")


def test_parse_cards_counts_and_duplicates():
    assert parse_cards("AS, KH 10D") == (Card(14, "S"), Card(13, "H"), Card(10, "D"))
    with pytest.raises(ValueError, match="5 cards needed"):
        parse_cards("AS KH", 5)
    with pytest.raises(ValueError, match="AS appears twice"):
        parse_cards("AS KH AS")
    assert len(parse_cards("AS AS", distinct=False)) == 2  # several decks (blackjack, bacará)


def test_decks():
    assert len(DECK_52) == len(set(DECK_52)) == 52
    assert len(DECK_28) == len(set(DECK_28)) == 28  # p461-2001/poquer-sintetico/4: 8 to ace, four suits
    assert {card.rank for card in DECK_28} == {8, 9, 10, 11, 12, 13, 14}
    assert set(DECK_28) < set(DECK_52)
    with pytest.raises(ValueError, match="52 or 28"):
        cards.deck(32)


def test_code_round_trip_and_colour():
    for card in DECK_52:
        assert parse_card(card.code) == card
        assert card.red == (card.suit in "HD")


def test_shuffler_ids_agree_with_the_driver():
    """Our card ids are the shuffler's ``card_ids`` for a one-deck shoe, and convert both ways."""
    backs = ["RED", "BLUE"]
    physical = physical_cards.factory_order(backs)
    ids = physical_cards.card_ids(physical, backs)
    for wire, identifier in zip(physical, ids, strict=True):
        game = cards.from_shuffler(wire)
        assert cards.card_id(game) == identifier % 52
        assert cards.from_card_id(int(identifier)) == game
        assert cards.to_shuffler(game, wire.back) == wire
    assert sorted(cards.card_id(card) for card in DECK_52) == list(range(52))


def test_bad_card_id():
    with pytest.raises(ValueError, match="card id"):
        cards.from_card_id(-1)


@given(st.lists(st.sampled_from(DECK_52), min_size=1, max_size=7, unique=True))
def test_encode(hand):
    ranks, suits = cards.encode([hand])
    assert ranks.dtype == np.int8 and ranks.shape == (1, len(hand))
    assert [Card(int(r), cards.SUITS[s]) for r, s in zip(ranks[0], suits[0], strict=True)] == hand
