"""Hold'em: the best five of seven cards, side pots for all-in players, and the division of the pots.

Texts: srij-806-2015/holdem (online; the OCR ends inside rule 2.p, the definition of the side
pot, so the division rules are those of the casino text) and p217-2007/poquer-nao-bancado
(general rules 17, 18, 38, 49, 50, 66, 67; hold'em 93, 94).

* Each player makes the best five-card hand from two own and five common cards
  (srij-806-2015/holdem/1, p217-2007/poquer-nao-bancado/93, /94), ranked by
  :data:`~bench.games.poker_hands.STANDARD` (p217-2007/poquer-nao-bancado/17, /18).
* One side pot per all-in level (p217-2007/poquer-nao-bancado/38; "pote secundário ou lateral",
  srij-806-2015/holdem/2.p): an all-in player can win from each other player at most what he put
  in himself (/49, /50). Folded players' chips stay in the pots they reached; they win nothing.
* Equal hands divide a pot equally; the pot is divided in chips of the table's smallest unit and the
  odd chips go one each to the tied winners in table order from the player who has the hand
  ("a maior à mão e as restantes aos jogadores seguintes", p217-2007/poquer-nao-bancado/67;
  p461-2001/poquer-sintetico/56).

Reading: p217-2007/poquer-nao-bancado/50 sizes the all-in player's share as "a proporção entre a
sua aposta e aquelas a que se refere o n.º 48"; layered side pots (rule 38) give him exactly each
other player's contribution up to his own, which is what this module computes. Taken as a
fraction of the whole pot, rule 50 would give a different amount when other players bet more than
he could (e.g. 50 all-in against two players of 100: 150 by side pots, 125 as half the pot);
rule 38's side pots are taken to govern.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bench.games.cards import Card, parse_cards
from bench.games.poker_hands import HandValue, best_of
from bench.games.stakes import as_money

__all__ = ["Pot", "award", "best_hand", "settle_showdown", "side_pots"]


def best_hand(hole: Sequence[Card] | str, board: Sequence[Card] | str) -> HandValue:
    """The best five of the two ``hole`` and five ``board`` cards (srij-806-2015/holdem/1)."""
    own, common = parse_cards(hole, 2), parse_cards(board, 5)
    return best_of(own + common)


@dataclass(frozen=True)
class Pot:
    """A pot (main or side) and the seats that can win it, in ascending seat order."""

    amount: int
    eligible: tuple[int, ...]


def _check_contributions(contributions: Mapping[int, int], folded: Iterable[int]) -> frozenset[int]:
    out = frozenset(folded)
    if not contributions:
        raise ValueError("side pots need at least one player's contribution")
    for seat, amount in contributions.items():
        as_money(amount, f"seat {seat}: contribution", whole=True)
    if not out <= contributions.keys():
        raise ValueError(f"folded seats {sorted(out - contributions.keys())} made no contribution")
    if not contributions.keys() - out:
        raise ValueError("every player folded: someone must remain to win the pot")
    return out


def side_pots(contributions: Mapping[int, int], folded: Iterable[int] = ()) -> list[Pot]:
    """The main pot and one side pot per all-in level (p217-2007/poquer-nao-bancado/38, /49, /50).

    ``contributions``: every chip each seat put in this deal, folded seats included. Chips above the
    highest live contribution (an uncalled bet of a folded player) join the top pot.
    """
    out = _check_contributions(contributions, folded)
    live = {seat: amount for seat, amount in contributions.items() if seat not in out}
    levels = sorted(set(live.values()))
    pots: list[Pot] = []
    previous = 0
    for index, level in enumerate(levels):
        top = index == len(levels) - 1
        amount = sum((amount if top else min(amount, level)) - min(amount, previous)
                     for amount in contributions.values())
        eligible = tuple(sorted(seat for seat, given in live.items() if given >= level))
        if pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount + amount, eligible)
        elif amount or not pots:
            pots.append(Pot(amount, eligible))
        previous = level
    return pots


def award(pots: Sequence[Pot], values: Mapping[int, HandValue], *, unit: int = 1,
          hand_order: Sequence[int] | None = None) -> dict[int, int]:
    """What each seat wins: each pot to its best eligible hand(s), split in chips of ``unit``.

    ``hand_order``: seats in table order starting from the player who has the hand; the odd chips of
    a split go to the tied winners in that order (p217-2007/poquer-nao-bancado/67). Default: seat order.
    """
    as_money(unit, "chip unit", positive=True, whole=True)
    won: dict[int, int] = {seat: 0 for pot in pots for seat in pot.eligible}
    for pot in pots:
        missing = [seat for seat in pot.eligible if seat not in values]
        if missing:
            raise ValueError(f"no hand for seats {missing} eligible for a pot of {pot.amount}")
        if pot.amount % unit:
            raise ValueError(f"pot of {pot.amount} is not a whole number of chips of {unit}")
        best = max(values[seat] for seat in pot.eligible)
        winners = [seat for seat in pot.eligible if values[seat] == best]
        if hand_order is not None:
            position = {seat: index for index, seat in enumerate(hand_order)}
            if any(seat not in position for seat in winners):
                raise ValueError(f"hand_order {list(hand_order)} does not list every winner {winners}")
            winners.sort(key=position.__getitem__)
        chips, odd = divmod(pot.amount // unit, len(winners))
        for index, seat in enumerate(winners):
            won[seat] += (chips + (index < odd)) * unit
    return won


def settle_showdown(contributions: Mapping[int, int], holes: Mapping[int, Sequence[Card] | str],
                    board: Sequence[Card] | str, *, folded: Iterable[int] = (), unit: int = 1,
                    hand_order: Sequence[int] | None = None) -> dict[int, int]:
    """A deal's end: the pots of ``contributions`` awarded to the best hands of the seats not folded.

    ``holes`` gives the two cards of every seat still in (folded seats' cards are not needed).
    ValueError for a card dealt twice, a missing hand, or contributions that cannot be.
    """
    out = frozenset(folded)
    pots = side_pots(contributions, out)
    common = parse_cards(board, 5)
    live = {seat for seat in contributions if seat not in out}
    if live - holes.keys():
        raise ValueError(f"no cards for seats still in: {sorted(live - holes.keys())}")
    shown = {seat: parse_cards(holes[seat], 2) for seat in sorted(live)}
    parse_cards([card for cards in shown.values() for card in cards] + list(common))  # one deck, no card twice
    values = {seat: best_of(cards + common) for seat, cards in shown.items()}
    return award(pots, values, unit=unit, hand_order=hand_order)
