"""What the simulated gaming table's rounds share: a BET frame's fields, and what a round is played from.

:mod:`drivers.sim.gaming_table` plays the rounds of every game; póquer sem descarte
(:mod:`drivers.sim.gaming_table_poker`) and non-banked poker (:mod:`drivers.sim.gaming_table_showdown`)
are played by round classes of their own, given the table's round maker (:class:`RoundSource` names what
they use of :class:`drivers.sim.gaming_table.RoundMaker`). Amounts go on the wire as whole cents: a prize
that falls between cents is paid rounded down and a part of a stake collected is rounded up.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Protocol

import numpy as np

from bench.games.cards import Card
from bench.games.stakes import Settlement
from bench.profiles.gaming_table import GamingTableSetup, GamingTableSimulator
from drivers.gaming_table_protocol import encode_pairs

__all__ = ["BetFields", "RoundSource", "bet_fields", "cards_text"]

_LETTER = {"win": "W", "lose": "L", "push": "P", "none": "N"}

BetFields = list[object]
"""A BET frame's fields after the round and index: chance, spec, stake, decision, prize, lost, next."""


def cards_text(cards: Sequence[Card]) -> str:
    """``AS.KH.5D``."""
    return ".".join(card.code for card in cards)


def bet_fields(chance: str, spec: dict[str, object], stake: int, settlement: Settlement,
               after: object = None) -> BetFields:
    """The fields of a settled bet, its prize rounded down and its loss rounded up to whole cents."""
    prize = math.floor(settlement.prize)
    lost = math.ceil(settlement.lost)
    return [chance, encode_pairs(spec), stake, _LETTER[settlement.decision], prize, lost,
            "-" if after is None else after]


class RoundSource(Protocol):
    """What a game's round class uses of the table's round maker."""

    config: GamingTableSimulator
    setup: GamingTableSetup
    model: str
    rng: np.random.Generator

    def stake(self, limit: str, low_multiple: int = 1, high_multiple: int = 1) -> int: ...

    def shoe(self, decks: int) -> Iterator[Card]: ...
