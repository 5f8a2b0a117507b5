"""The end of a deal of non-banked poker (hold'em, omaha, póquer sintético): rake, pots and who wins them.

Texts: p217-2007/poquer-nao-bancado (general rules 7, 17, 18, 38, 49-51, 66, 67; omaha 72, 73; hold'em
93, 94; póquer sintético 95-97, 103-105) and p461-2001/poquer-sintetico (1, 24-37, 55, 56).

* Hands: hold'em, the best five of the two own and five common cards (/94); omaha, exactly two of the four
  own cards and three of the five common ones (/73); póquer sintético, both own cards and three of the five
  common ones (/97; p461-2001/poquer-sintetico/1), on the 28-card deck with its own ranking
  (:data:`~bench.games.poker_hands.SINTETICO_P217`, :data:`~bench.games.poker_hands.SINTETICO_P461`).
* Pots: the main pot and one side pot per all-in level, each won by its best eligible hand(s), divided in
  chips of the table minimum with the odd chips to the tied winners from the hand onwards
  (:func:`bench.games.holdem.side_pots`, :func:`~bench.games.holdem.award`; /38, /49, /50, /66, /67;
  p461-2001/poquer-sintetico/56). A deal where every other player folded goes to the one left, who shows
  nothing (/51).
* Rake: the house's percentage per hand, at most 5 % of the amounts bet under p217-2007/poquer-nao-bancado/7 a)
  and 3 % under p461-2001/poquer-sintetico/55, "deduzido antes da entrega do prémio". Reading: it is taken
  from each pot before the pot is divided, rounded down to a whole chip of the table minimum (the house never
  takes more than the rate).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from bench.games.cards import Card, parse_cards
from bench.games.holdem import Pot, award, side_pots
from bench.games.poker_hands import SINTETICO_P217, SINTETICO_P461, STANDARD, HandValue, Ranking, best_of

__all__ = ["MAX_RAKE_PERCENT", "OWN_CARDS", "DealSettlement", "hand_value", "rake", "ranking_of", "settle_deal"]

OWN_CARDS = {"holdem": 2, "omaha": 4, "poquer-sintetico": 2}
"""Cards each player holds, per variant."""
MAX_RAKE_PERCENT = {"p217-2007": Fraction(5), "p461-2001": Fraction(3)}
"""The house's percentage per hand: at most 5 % (p217-2007/poquer-nao-bancado/7 a)); exactly 3 % under
p461-2001/poquer-sintetico/55."""


def ranking_of(variant: str, rules: str) -> Ranking:
    """The hand ranking of ``variant`` under ``rules``."""
    if variant == "poquer-sintetico":
        return SINTETICO_P461 if rules == "p461-2001" else SINTETICO_P217
    if variant in ("holdem", "omaha"):
        return STANDARD
    raise ValueError(f"unknown non-banked poker variant {variant!r}; known: {', '.join(OWN_CARDS)}")


def hand_value(variant: str, own: Sequence[Card] | str, board: Sequence[Card] | str, ranking: Ranking) -> HandValue:
    """A player's best hand under the variant's rule of which cards make it."""
    cards, common = parse_cards(own, OWN_CARDS[variant]), parse_cards(board, 5)
    if variant == "holdem":
        return best_of(cards + common, ranking)
    if variant == "omaha":  # exactly two own and three common cards (p217-2007/poquer-nao-bancado/73)
        return max(best_of(common, ranking, fixed=pair) for pair in itertools.combinations(cards, 2))
    return best_of(common, ranking, fixed=cards)


def rake(pot: int, percent: Fraction, unit: int) -> int:
    """The house's take of one pot: ``percent`` of it rounded down to a whole chip of ``unit``."""
    if pot < 0 or unit <= 0:
        raise ValueError(f"pot {pot} and chip unit {unit} must be a positive amount and unit")
    return int(pot * percent / 100 // unit) * unit


@dataclass(frozen=True)
class DealSettlement:
    """The end of a deal: the pots as divided, the house's take and what each seat receives from the pots."""

    pots: tuple[Pot, ...]
    rake: int
    won: dict[int, int]
    showdown: bool
    """False when every other player folded and the last one took the pot unseen (/51)."""
    values: dict[int, HandValue]


def settle_deal(variant: str, rules: str, contributions: Mapping[int, int], own: Mapping[int, Sequence[Card] | str],
                board: Sequence[Card] | str, *, folded: Iterable[int] = (), rake_percent: Fraction = Fraction(0),
                unit: int = 1, hand_order: Sequence[int] | None = None) -> DealSettlement:
    """Rake and pots of a deal awarded to the best hands of the seats still in.

    ``contributions``: every chip each seat put in this deal, folded seats included; ``own``: the cards of
    every seat still in (a lone survivor's may be left out); ``hand_order``: seats in table order from the
    player who has the hand. ValueError for a card dealt twice, a missing hand or impossible contributions.
    """
    out = frozenset(folded)
    ranking = ranking_of(variant, rules)
    pots = side_pots(contributions, out)
    taken = [rake(pot.amount, rake_percent, unit) for pot in pots]
    pots = [Pot(pot.amount - take, pot.eligible) for pot, take in zip(pots, taken, strict=True)]
    live = sorted(seat for seat in contributions if seat not in out)
    if len(live) == 1:  # p217-2007/poquer-nao-bancado/51: the pot without showing
        return DealSettlement(tuple(pots), sum(taken), {live[0]: sum(pot.amount for pot in pots)}, False, {})
    if set(live) - own.keys():
        raise ValueError(f"no cards for seats still in: {sorted(set(live) - own.keys())}")
    common = parse_cards(board, 5)
    held = {seat: parse_cards(own[seat], OWN_CARDS[variant]) for seat in live}
    every = [card for cards in held.values() for card in cards] + list(common)
    parse_cards(every)  # one deck, no card twice
    if any(card not in ranking.deck for card in every):
        raise ValueError(f"a card outside the {ranking.deck_size}-card deck of {variant}")
    values = {seat: hand_value(variant, held[seat], common, ranking) for seat in live}
    return DealSettlement(tuple(pots), sum(taken), award(pots, values, unit=unit, hand_order=hand_order), True,
                          values)
