"""Playing cards of the card games: the 52-card deck and the 28-card deck of póquer sintético.

A :class:`Card` is a rank (2-14, the ace 14) and a suit (``S H D C``). Its text form is the
rank letter and the suit letter: ``AS``, ``TH`` (``10H`` is read too), ``8C``.

Decks:

* 52 cards, ace high (p217-2007/blackjack/3, p217-2007/poquer-sem-descarte/1,
  p461-2001/poquer-sem-descarte/1, srij-803-2015/poquer-sem-descarte/6,
  p217-2007/poquer-nao-bancado/72);
* 28 cards, 8 to ace, for póquer sintético (p461-2001/poquer-sintetico/4,
  p217-2007/poquer-nao-bancado/95).

The card shuffler speaks cards as ``<rank><suit>/<back>`` with ranks ``A23456789TJQK`` and
numbers a physical card ``52 x deck + 13 x suit + rank`` (:mod:`bench.games.physical_cards`);
:func:`from_shuffler`, :func:`to_shuffler`, :func:`card_id` and :func:`from_card_id` convert
between the two without loss (the back colour is the shuffler's business, not the game's).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from bench.games.physical_cards import Card as ShufflerCard

__all__ = [
    "ACE", "DECK_28", "DECK_52", "JACK", "KING", "QUEEN", "RANK_LETTERS", "SUITS", "Card", "card_id", "deck",
    "encode", "from_card_id", "from_shuffler", "parse_card", "parse_cards", "to_shuffler",
]

SUITS = "SHDC"
"""Spades, hearts, diamonds, clubs: the shuffler protocol's order (ids 13 x suit)."""
RED_SUITS = frozenset("HD")
RANK_LETTERS = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T", 11: "J", 12: "Q",
                13: "K", 14: "A"}
JACK, QUEEN, KING, ACE = 11, 12, 13, 14
_LETTER_RANKS = {letter: rank for rank, letter in RANK_LETTERS.items()} | {"10": 10}
_PROTOCOL_RANKS = "A23456789TJQK"
"""Rank order of the shuffler protocol's card ids (ace first)."""


@dataclass(frozen=True, order=True)
class Card:
    """One card: ``rank`` 2-14 (11 jack, 12 queen, 13 king, 14 ace) and ``suit`` one of ``S H D C``."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if not isinstance(self.rank, int) or isinstance(self.rank, bool) or self.rank not in RANK_LETTERS:
            raise ValueError(f"card rank must be an integer 2-14 (14 = ace), got {self.rank!r}")
        if not isinstance(self.suit, str) or len(self.suit) != 1 or self.suit not in SUITS:
            raise ValueError(f"card suit must be one of {' '.join(SUITS)}, got {self.suit!r}")

    @property
    def code(self) -> str:
        """The text form: ``AS``, ``TH``, ``8C``."""
        return RANK_LETTERS[self.rank] + self.suit

    @property
    def red(self) -> bool:
        """Hearts and diamonds are red, spades and clubs black."""
        return self.suit in RED_SUITS

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


def parse_card(text: str) -> Card:
    """A card from ``AS``, ``TH``, ``10H``, ``8c`` (case-insensitive); ValueError naming the bad card."""
    if not isinstance(text, str):
        raise ValueError(f"card must be text such as 'AS' or '10H', got {text!r}")  # noqa: TRY004
    face = text.strip().upper()
    if len(face) < 2 or face[:-1] not in _LETTER_RANKS or face[-1] not in SUITS:
        raise ValueError(f"card {text!r} is not <rank><suit> with rank A 2-9 T/10 J Q K and suit S H D C")
    return Card(_LETTER_RANKS[face[:-1]], face[-1])


def parse_cards(cards: str | Iterable[str | Card], count: int | None = None, *,
                distinct: bool = True) -> tuple[Card, ...]:
    """Cards from ``"AS KH 10D"`` (spaces or commas) or an iterable of texts/cards.

    ``count``: the number of cards required. ``distinct``: no card twice (one deck); several decks
    (blackjack, bacará) pass ``distinct=False``. ValueError names the bad card or the fault.
    """
    items = cards.replace(",", " ").split() if isinstance(cards, str) else list(cards)
    parsed = tuple(item if isinstance(item, Card) else parse_card(item) for item in items)
    if count is not None and len(parsed) != count:
        raise ValueError(f"{count} cards needed, got {len(parsed)}: {' '.join(c.code for c in parsed)}")
    if distinct:
        seen: set[Card] = set()
        for card in parsed:
            if card in seen:
                raise ValueError(f"card {card.code} appears twice in {' '.join(c.code for c in parsed)}")
            seen.add(card)
    return parsed


def deck(size: int = 52) -> tuple[Card, ...]:
    """A deck in suit order S H D C, ranks low to high: 52 cards (2-A) or 28 cards (8-A, póquer sintético)."""
    if size == 52:
        low = 2
    elif size == 28:
        low = 8  # p461-2001/poquer-sintetico/4, p217-2007/poquer-nao-bancado/95
    else:
        raise ValueError(f"deck size must be 52 or 28 (póquer sintético), got {size!r}")
    return tuple(Card(rank, suit) for suit in SUITS for rank in range(low, ACE + 1))


DECK_52 = deck(52)
DECK_28 = deck(28)


def encode(hands: Sequence[Sequence[Card]]) -> tuple[np.ndarray, np.ndarray]:
    """Ranks and suit indices of equal-length hands as two ``(n, k)`` int8 arrays (for vectorised evaluation)."""
    if not hands:
        raise ValueError("encode needs at least one hand")
    width = len(hands[0])
    if any(len(hand) != width for hand in hands):
        raise ValueError("encode needs hands of equal length")
    ranks = np.array([[card.rank for card in hand] for hand in hands], dtype=np.int8)
    suits = np.array([[SUITS.index(card.suit) for card in hand] for hand in hands], dtype=np.int8)
    return ranks, suits


# -- the shuffler's cards -------------------------------------------------------------------------


def card_id(card: Card) -> int:
    """The shuffler protocol's id of ``card`` within its deck: ``13 x suit + rank`` (ace 0, king 12)."""
    return 13 * SUITS.index(card.suit) + _PROTOCOL_RANKS.index(RANK_LETTERS[card.rank])


def from_card_id(identifier: int) -> Card:
    """The card of a shuffler card id (``52 x deck + 13 x suit + rank``; the deck number is dropped)."""
    if isinstance(identifier, bool) or not isinstance(identifier, int | np.integer) or identifier < 0:
        raise ValueError(f"card id must be a non-negative integer, got {identifier!r}")
    within = int(identifier) % 52
    return Card(_LETTER_RANKS[_PROTOCOL_RANKS[within % 13]], SUITS[within // 13])


def from_shuffler(card: ShufflerCard) -> Card:
    """The game card of a card recognised by the shuffler (``AS/RED`` becomes ``AS``)."""
    return Card(_LETTER_RANKS[card.rank], card.suit)


def to_shuffler(card: Card, back: str) -> ShufflerCard:
    """The shuffler's card for ``card`` with the back colour ``back`` (validated by the shuffler's card type)."""
    return ShufflerCard(back=back, suit=card.suit, rank=RANK_LETTERS[card.rank])
