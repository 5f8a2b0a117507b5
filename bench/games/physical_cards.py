"""Physical cards as a card shuffler recognises them: rank, suit and the back colour of their deck.

A card is ``<rank><suit>/<back>``: rank ``A 2-9 T J Q K``, suit ``S H D C``, and the back
colour of its deck (``AS/RED``): what a shuffler's recognition reads from the index corner
and the back. Cards of decks with the same back cannot be told apart, by a shuffler or by us.
New decks come in factory order (:func:`factory_order`), and every physical card of a shoe of
decks with distinct backs has its own id ``52 x deck + 13 x suit + rank`` (:func:`card_ids`), the
ids the card fairness tests count (:mod:`rng_tests.fairness.cards`).

This is the card of the CS line protocol (:mod:`drivers.shuffler_protocol`, documented in
``docs/protocols/card-shuffler.md``), kept here so that the game rules (:mod:`bench.games.cards`
converts to and from it) and the statistics use it without importing a driver.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["RANKS", "SUITS", "Card", "card_ids", "factory_order", "parse_card", "valid_back"]

RANKS = "A23456789TJQK"
SUITS = "SHDC"


@dataclass(frozen=True, order=True)
class Card:
    """One card as recognised: rank, suit and the back colour of its deck."""

    back: str
    suit: str
    rank: str

    def __post_init__(self) -> None:
        if self.rank not in RANKS or len(self.rank) != 1:
            raise ValueError(f"card rank must be one of {RANKS}, got {self.rank!r}")
        if self.suit not in SUITS or len(self.suit) != 1:
            raise ValueError(f"card suit must be one of {SUITS}, got {self.suit!r}")
        if not valid_back(self.back):
            raise ValueError(f"back colour must be 1-8 upper-case letters/digits starting with a letter, got {self.back!r}")

    @property
    def code(self) -> str:
        """The wire form, ``AS/RED``."""
        return f"{self.rank}{self.suit}/{self.back}"

    def __str__(self) -> str:
        return self.code


def valid_back(back: str) -> bool:
    """Whether ``back`` is a back colour: 1-8 upper-case ASCII letters or digits, starting with a letter."""
    return 1 <= len(back) <= 8 and back[0].isascii() and back[0].isupper() and all(
        c.isascii() and (c.isupper() or c.isdigit()) for c in back)


def parse_card(text: str) -> Card:
    """A card from its wire form ``<rank><suit>/<back>``; ValueError naming what is wrong."""
    face, slash, back = text.partition("/")
    if not slash or len(face) != 2:
        raise ValueError(f"card {text!r} is not <rank><suit>/<back>")
    return Card(back=back, suit=face[1], rank=face[0])


def factory_order(backs: Sequence[str]) -> tuple[Card, ...]:
    """The cards of new decks as loaded, top first: deck by deck in ``backs`` order, suits S H D C, ranks A-K."""
    return tuple(Card(back, suit, rank) for back in backs for suit in SUITS for rank in RANKS)


def card_ids(cards: Iterable[Card], backs: Sequence[str]) -> np.ndarray:
    """Integer ids ``52 * deck + 13 * suit + rank`` of cards (deck = index of the back in ``backs``).

    The ids are what :mod:`rng_tests.fairness.cards` needs (every physical card its own id), so the
    backs must be distinct: decks sharing a back colour cannot be told apart card by card.
    """
    if len(set(backs)) != len(backs):
        raise ValueError(f"card ids need distinct back colours per deck, got {list(backs)}")
    deck = {back: index for index, back in enumerate(backs)}
    try:
        return np.array([52 * deck[c.back] + 13 * SUITS.index(c.suit) + RANKS.index(c.rank) for c in cards],
                        dtype=np.int64)
    except KeyError as error:
        raise ValueError(f"card of back colour {error.args[0]!r} is not in {list(backs)}") from error
