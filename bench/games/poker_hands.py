"""Five-card poker hands ranked by the rules of a regulation: one evaluator, several rankings.

A :class:`Ranking` says which combinations exist and in what order, which deck they come from,
where the ace may sit low in a straight and which extra tie-break applies. The rankings the
regulations need:

* :data:`STANDARD` — the 52-card ranking of non-banked poker (hold'em, omaha):
  p217-2007/poquer-nao-bancado/17 (order), /18 (ties), /72 (ace low after 2 or high before king),
  srij-806-2015/holdem/1.
* :data:`POQUER_SEM_DESCARTE` — the same order (p461-2001/poquer-sem-descarte/6, /7;
  p217-2007/poquer-sem-descarte/6, /7; srij-803-2015/poquer-sem-descarte/7, /8, /9, /13) plus the
  tie-break of equal high-card hands: "ganha aquela que tiver três delas da mesma cor"
  (p461-2001/poquer-sem-descarte/6.j, srij-803-2015/poquer-sem-descarte/9).
* :data:`SINTETICO_P461` and :data:`SINTETICO_P217` — the 28-card deck (8 to ace) of póquer
  sintético, ace low before the 8 (A-8-9-10-J), flush above full house and two figure
  combinations above two pairs (p461-2001/poquer-sintetico/4, /24-/37; p217-2007/poquer-nao-bancado/95,
  /103, /105).

Readings of the texts made here (the statements are short; each choice is named):

* Ties inside a category are decided card by card in the order the category's own rule gives
  (the group of four, three or the higher pair first, then the rest, each in decreasing rank), the
  way p461-2001/poquer-sem-descarte/6.j defines "cartas maiores". Where a clause names only
  "a carta de maior valor" (flush, p461-2001/poquer-sem-descarte/7.d), the next cards decide
  when the highest ones are equal, as for high cards. Straights are decided by their top card,
  the ace counting 1 in the low straight (p461-2001/poquer-sem-descarte/7.c).
* "Três delas da mesma cor": *cor* is the word these rules use for a suit (the flush is "cor"),
  and any five cards hold three of one colour red/black, so a red/black reading could never break
  a tie. Read as: of two equal high-card hands, the one with at least three cards of one suit wins;
  if both or neither have, they tie.
* Figuras simples: p461-2001/poquer-sintetico/35 says "quaisquer cinco figuras (ás, rei, dama,
  valete) desde que não formem trio ou fullen", which with four figure ranks means five figures
  with exactly one pair (two pairs are "figuras com pares", /34). p217-2007/poquer-nao-bancado/105.b
  says "cinco cartas iguais ou superiores ao valete mas que não formem pares", which no five cards
  can satisfy (four ranks): under :data:`SINTETICO_P217` the category is empty and five figures
  with one pair rank as one pair. The difference is reported, not resolved here.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from bench.games.cards import ACE, DECK_28, DECK_52, JACK, SUITS, Card, parse_cards

__all__ = [
    "POQUER_SEM_DESCARTE", "SINTETICO_P217", "SINTETICO_P461", "STANDARD", "Category", "HandValue", "Ranking",
    "all_hands", "best_of", "categorise", "category_counts", "compare", "evaluate", "winners",
]


class Category(StrEnum):
    """A combination. The names of the five jackpot combinations match :mod:`bench.games.jackpot_rules`."""

    ROYAL_FLUSH = "ROYAL_FLUSH"
    """Sequência (máxima) real de cor: A K Q J 10 of one suit."""
    STRAIGHT_FLUSH = "STRAIGHT_FLUSH"
    FOUR_OF_A_KIND = "FOUR_OF_A_KIND"
    FULL_HOUSE = "FULL_HOUSE"
    FLUSH = "FLUSH"
    STRAIGHT = "STRAIGHT"
    THREE_OF_A_KIND = "THREE_OF_A_KIND"
    FIGURES_WITH_PAIRS = "FIGURES_WITH_PAIRS"
    """Figuras com pares (póquer sintético): five cards J-A forming two pairs."""
    SIMPLE_FIGURES = "SIMPLE_FIGURES"
    """Figuras simples (póquer sintético): five cards J-A, see the module docstring for the two texts."""
    TWO_PAIR = "TWO_PAIR"
    ONE_PAIR = "ONE_PAIR"
    HIGH_CARD = "HIGH_CARD"


_C = Category


@dataclass(frozen=True)
class Ranking:
    """The rules of one regulation's hand ranking.

    ``order``: the combinations that exist, highest first (a hand takes the first it satisfies).
    ``deck_size``: 52 or 28. ``three_of_a_suit``: equal high-card hands are split by "three of the
    same colour". ``simple_figures_need_one_pair``: the p461-2001 reading of figuras simples (five
    figures, exactly one pair) rather than the p217-2007 one (five figures, no pair: never occurs).
    """

    name: str
    order: tuple[Category, ...]
    deck_size: int = 52
    three_of_a_suit: bool = False
    simple_figures_need_one_pair: bool = True
    clauses: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if self.deck_size not in (52, 28):
            raise ValueError(f"ranking {self.name}: deck size must be 52 or 28, got {self.deck_size}")
        if len(set(self.order)) != len(self.order) or Category.HIGH_CARD != self.order[-1]:
            raise ValueError(f"ranking {self.name}: categories must be distinct and end with HIGH_CARD")

    @property
    def lowest_rank(self) -> int:
        return 2 if self.deck_size == 52 else 8

    @property
    def low_straight(self) -> tuple[int, ...]:
        """The ranks of the straight where the ace plays low: A-2-3-4-5, or A-8-9-10-J on 28 cards."""
        low = self.lowest_rank
        return (low, low + 1, low + 2, low + 3, ACE)

    @property
    def deck(self) -> tuple[Card, ...]:
        return DECK_52 if self.deck_size == 52 else DECK_28

    def strength(self, category: Category) -> int:
        """0 for the lowest combination (high card), larger for higher ones."""
        try:
            return len(self.order) - 1 - self.order.index(category)
        except ValueError:
            raise ValueError(f"combination {category} does not exist in ranking {self.name}") from None


_STANDARD_ORDER = (_C.ROYAL_FLUSH, _C.STRAIGHT_FLUSH, _C.FOUR_OF_A_KIND, _C.FULL_HOUSE, _C.FLUSH, _C.STRAIGHT,
                   _C.THREE_OF_A_KIND, _C.TWO_PAIR, _C.ONE_PAIR, _C.HIGH_CARD)
_SINTETICO_ORDER = (_C.ROYAL_FLUSH, _C.STRAIGHT_FLUSH, _C.FOUR_OF_A_KIND, _C.FLUSH, _C.FULL_HOUSE, _C.STRAIGHT,
                    _C.THREE_OF_A_KIND, _C.FIGURES_WITH_PAIRS, _C.SIMPLE_FIGURES, _C.TWO_PAIR, _C.ONE_PAIR,
                    _C.HIGH_CARD)

STANDARD = Ranking("standard", _STANDARD_ORDER, clauses=(
    "p217-2007/poquer-nao-bancado/17", "p217-2007/poquer-nao-bancado/18", "p217-2007/poquer-nao-bancado/72",
    "srij-806-2015/holdem/1"))
POQUER_SEM_DESCARTE = Ranking("poquer-sem-descarte", _STANDARD_ORDER, three_of_a_suit=True, clauses=(
    "p461-2001/poquer-sem-descarte/6", "p461-2001/poquer-sem-descarte/7", "p217-2007/poquer-sem-descarte/6",
    "p217-2007/poquer-sem-descarte/7", "srij-803-2015/poquer-sem-descarte/7", "srij-803-2015/poquer-sem-descarte/8",
    "srij-803-2015/poquer-sem-descarte/9", "srij-803-2015/poquer-sem-descarte/13"))
SINTETICO_P461 = Ranking("poquer-sintetico-p461", _SINTETICO_ORDER, deck_size=28, clauses=(
    "p461-2001/poquer-sintetico/4", "p461-2001/poquer-sintetico/24", "p461-2001/poquer-sintetico/25",
    "p461-2001/poquer-sintetico/27", "p461-2001/poquer-sintetico/28", "p461-2001/poquer-sintetico/29",
    "p461-2001/poquer-sintetico/30", "p461-2001/poquer-sintetico/31", "p461-2001/poquer-sintetico/32",
    "p461-2001/poquer-sintetico/33", "p461-2001/poquer-sintetico/34", "p461-2001/poquer-sintetico/35",
    "p461-2001/poquer-sintetico/36", "p461-2001/poquer-sintetico/37"))
SINTETICO_P217 = Ranking("poquer-sintetico-p217", _SINTETICO_ORDER, deck_size=28, simple_figures_need_one_pair=False,
                         clauses=("p217-2007/poquer-nao-bancado/95", "p217-2007/poquer-nao-bancado/103",
                                  "p217-2007/poquer-nao-bancado/105", "p217-2007/poquer-nao-bancado/18"))


@dataclass(frozen=True, order=True)
class HandValue:
    """A five-card hand's place in a ranking: compare two values with ``<``, ``==``, ``>``.

    ``key`` is (strength of the category, tie-break ranks...); equal keys are a tie under the ranking.
    """

    key: tuple[int, ...]
    category: Category = field(compare=False)
    cards: tuple[Card, ...] = field(compare=False)


def _check_hand(cards: Sequence[Card] | str, ranking: Ranking) -> tuple[Card, ...]:
    hand = parse_cards(cards, 5)
    for card in hand:
        if card.rank < ranking.lowest_rank:
            raise ValueError(f"card {card.code} is not in the {ranking.deck_size}-card deck of ranking {ranking.name}")
    return hand


def evaluate(cards: Sequence[Card] | str, ranking: Ranking = STANDARD) -> HandValue:
    """The value of exactly five distinct cards under ``ranking`` (rules in the module docstring)."""
    hand = _check_hand(cards, ranking)
    ranks = [card.rank for card in hand]
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
    pattern = tuple(count for _, count in groups)
    by_group = tuple(rank for rank, count in groups for _ in range(count))
    flush = len({card.suit for card in hand}) == 1
    top = None
    if pattern == (1, 1, 1, 1, 1):
        if max(ranks) - min(ranks) == 4:
            top = max(ranks)
        elif sorted(ranks) == list(ranking.low_straight):
            top = ranking.low_straight[3]  # the ace counts low (p461-2001/poquer-sem-descarte/7.c)
    figures = min(ranks) >= JACK
    holds = {
        _C.ROYAL_FLUSH: flush and top == ACE,
        _C.STRAIGHT_FLUSH: flush and top is not None,
        _C.FOUR_OF_A_KIND: pattern == (4, 1),
        _C.FULL_HOUSE: pattern == (3, 2),
        _C.FLUSH: flush,
        _C.STRAIGHT: top is not None,
        _C.THREE_OF_A_KIND: pattern == (3, 1, 1),
        _C.FIGURES_WITH_PAIRS: figures and pattern == (2, 2, 1),
        _C.SIMPLE_FIGURES: figures and pattern == ((2, 1, 1, 1) if ranking.simple_figures_need_one_pair
                                                   else (1, 1, 1, 1, 1)),
        _C.TWO_PAIR: pattern == (2, 2, 1),
        _C.ONE_PAIR: pattern == (2, 1, 1, 1),
        _C.HIGH_CARD: True,
    }
    category = next(category for category in ranking.order if holds[category])
    tiebreak: tuple[int, ...] = (top,) if category in (_C.ROYAL_FLUSH, _C.STRAIGHT_FLUSH, _C.STRAIGHT) else by_group
    if category is _C.HIGH_CARD and ranking.three_of_a_suit:
        tiebreak += (int(max(Counter(card.suit for card in hand).values()) >= 3),)
    return HandValue((ranking.strength(category), *tiebreak), category, hand)


def best_of(cards: Sequence[Card] | str, ranking: Ranking = STANDARD, *, fixed: Sequence[Card] | str = ()) -> HandValue:
    """The best five-card hand from ``cards``; every card of ``fixed`` must be among the five.

    Hold'em: the best five of seven (``best_of(hole + board)``, srij-806-2015/holdem/1,
    p217-2007/poquer-nao-bancado/94). Póquer sintético: both own cards and three of the five common
    ones (``best_of(board, fixed=hole)``, p461-2001/poquer-sintetico/1).
    """
    pool = parse_cards(cards)
    required = parse_cards(fixed)
    if set(pool) & set(required):
        raise ValueError("a card is both fixed and in the pool")
    free = 5 - len(required)
    if free < 0 or len(pool) < free:
        raise ValueError(f"cannot make five cards from {len(required)} fixed and {len(pool)} free cards")
    return max(evaluate(required + combo, ranking) for combo in itertools.combinations(pool, free))


# -- vectorised: every hand of a deck ---------------------------------------------------------------


@functools.lru_cache(maxsize=2)
def all_hands(deck_size: int = 52) -> tuple[np.ndarray, np.ndarray]:
    """Ranks and suit indices (``(C(n,5), 5)`` read-only int8 arrays) of every five-card hand of the deck."""
    cards = DECK_52 if deck_size == 52 else DECK_28 if deck_size == 28 else None
    if cards is None:
        raise ValueError(f"deck size must be 52 or 28, got {deck_size!r}")
    n = len(cards)
    index = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(n), 5)), dtype=np.int16,
                        count=5 * math.comb(n, 5)).reshape(-1, 5)
    rank_of = np.array([card.rank for card in cards], dtype=np.int8)
    suit_of = np.array([SUITS.index(card.suit) for card in cards], dtype=np.int8)
    ranks, suits = rank_of[index], suit_of[index]
    ranks.setflags(write=False)
    suits.setflags(write=False)
    return ranks, suits


def categorise(ranks: np.ndarray, suits: np.ndarray, ranking: Ranking = STANDARD) -> np.ndarray:
    """Category of each hand (rows of five ranks 2-14 and suit indices) as its index in ``ranking.order``.

    Vectorised twin of :func:`evaluate` (categories only); the project's tests check they agree.
    """
    ranks, suits = np.asarray(ranks), np.asarray(suits)
    if ranks.ndim != 2 or ranks.shape[1] != 5 or suits.shape != ranks.shape:
        raise ValueError(f"ranks and suits must both be (n, 5) arrays, got {ranks.shape} and {suits.shape}")
    if ranks.size and (ranks.min() < ranking.lowest_rank or ranks.max() > ACE):
        raise ValueError(f"ranks must be {ranking.lowest_rank}-{ACE} for ranking {ranking.name}")
    ordered = np.sort(ranks, axis=1)
    same = ordered[:, 1:] == ordered[:, :-1]  # equal neighbours in rank order
    equal_pairs = same.sum(axis=1)
    three = (same[:, :-1] & same[:, 1:]).any(axis=1)
    four = (same[:, :-2] & same[:, 1:-1] & same[:, 2:]).any(axis=1)
    flush = (suits == suits[:, :1]).all(axis=1)
    distinct = equal_pairs == 0
    straight = distinct & ((ordered[:, 4] - ordered[:, 0] == 4)
                           | (ordered == np.array(ranking.low_straight)).all(axis=1))
    ace_high = straight & (ordered[:, 0] == ACE - 4)
    figures = ordered[:, 0] >= JACK
    pair = equal_pairs == 1
    two_pair = (equal_pairs == 2) & ~three
    holds = {
        _C.ROYAL_FLUSH: flush & ace_high,
        _C.STRAIGHT_FLUSH: flush & straight,
        _C.FOUR_OF_A_KIND: four,
        _C.FULL_HOUSE: (equal_pairs == 3) & ~four,
        _C.FLUSH: flush,
        _C.STRAIGHT: straight,
        _C.THREE_OF_A_KIND: (equal_pairs == 2) & three,
        _C.FIGURES_WITH_PAIRS: figures & two_pair,
        _C.SIMPLE_FIGURES: figures & (pair if ranking.simple_figures_need_one_pair else distinct),
        _C.TWO_PAIR: two_pair,
        _C.ONE_PAIR: pair,
    }
    result = np.full(len(ranks), len(ranking.order) - 1, dtype=np.int8)
    for index in range(len(ranking.order) - 2, -1, -1):  # lowest first: the highest that holds is written last
        result = np.where(holds[ranking.order[index]], index, result)
    return result


def category_counts(ranking: Ranking = STANDARD) -> dict[Category, int]:
    """How many of the C(n, 5) hands of the ranking's deck fall in each combination (full enumeration)."""
    found = np.bincount(categorise(*all_hands(ranking.deck_size), ranking), minlength=len(ranking.order))
    return {category: int(found[index]) for index, category in enumerate(ranking.order)}


def compare(first: HandValue, second: HandValue) -> int:
    """1 if ``first`` wins, -1 if ``second`` wins, 0 for a tie."""
    return (first > second) - (first < second)


def winners(values: Iterable[tuple[object, HandValue]]) -> list[object]:
    """The owners of the best hand among ``(owner, value)`` pairs (several on a tie), in the order given."""
    pairs = list(values)
    if not pairs:
        raise ValueError("winners needs at least one hand")
    best = max(value for _, value in pairs)
    return [owner for owner, value in pairs if value == best]
