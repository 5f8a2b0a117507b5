"""Póquer sintético: the 28-card non-banked poker, its hand and its showdown.

Each player holds two cards; five common cards are turned. A hand is exactly the player's two
cards and three of the five common ones (p461-2001/poquer-sintetico/1, p217-2007/poquer-nao-bancado/97),
ranked on the 28-card deck 8 to ace with the ace low before the 8 (A-8-9-10-J), flush above full
house, and "figuras com pares" / "figuras simples" above two pairs (p461-2001/poquer-sintetico/4,
/24-/37; p217-2007/poquer-nao-bancado/95, /103, /105). Two texts, two rankings
(:data:`~bench.games.poker_hands.SINTETICO_P461`, :data:`~bench.games.poker_hands.SINTETICO_P217`):
they differ only in what "figuras simples" is (see :mod:`bench.games.poker_hands`).

With no combination at all the highest card wins (p461-2001/poquer-sintetico/25); equal hands
share (/26, p217-2007/poquer-nao-bancado/104). Pots are divided by :func:`bench.games.holdem.award`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bench.games.cards import Card, parse_cards
from bench.games.poker_hands import SINTETICO_P461, HandValue, Ranking, best_of

__all__ = ["best_hand", "showdown"]


def _check_ranking(ranking: Ranking) -> None:
    if ranking.deck_size != 28:
        raise ValueError(f"póquer sintético is ranked on the 28-card deck, not ranking {ranking.name}")


def best_hand(hole: Sequence[Card] | str, board: Sequence[Card] | str, ranking: Ranking = SINTETICO_P461) -> HandValue:
    """The best hand of both ``hole`` cards and three of the five ``board`` cards (p461-2001/poquer-sintetico/1)."""
    _check_ranking(ranking)
    own, common = parse_cards(hole, 2), parse_cards(board, 5)
    if set(own) & set(common):
        raise ValueError("a card is both in the hand and on the board")
    return best_of(common, ranking, fixed=own)


def showdown(holes: Mapping[int, Sequence[Card] | str], board: Sequence[Card] | str,
             ranking: Ranking = SINTETICO_P461) -> tuple[list[int], dict[int, HandValue]]:
    """The winning seats (several on a tie) and every seat's hand, for the players still in at the end."""
    _check_ranking(ranking)
    if not holes:
        raise ValueError("a showdown needs at least one player")
    values = {seat: best_hand(hole, board, ranking) for seat, hole in holes.items()}
    every = [card for value in holes.values() for card in parse_cards(value, 2)] + list(parse_cards(board, 5))
    parse_cards(every)  # one deck: raises naming a card dealt twice
    best = max(values.values())
    return sorted(seat for seat, value in values.items() if value == best), values
