"""The GT line protocol: how an electronic gaming table reports its configuration and every round it played.

Documented for manufacturers in ``docs/protocols/gaming-table.md``. Frames use the bench's line framing
(:mod:`drivers.line_frame`, ``$TYPE,f1,f2*CC``). Every request is a query: it changes nothing on the table
(except that a simulated table plays the next round when asked for it), so a garbled or lost reply is simply
asked for again.

A round and the configuration are *blocks* of frames: a header that says how many item frames follow, the
item frames numbered 1..k, and an ``END`` frame repeating the header's key and k. A block with a missing or
garbled frame is asked for again, keeping the frames that arrived intact (a table answers the same block
whenever it is asked for it), until it is whole (:class:`BlockReader`); a block is never taken in part, nor
made of two replies that disagree.

Money is a whole number of cents on the wire (never a float). A game-specific value (a bet's numbers, a
hand's cards) travels as ``key=value`` pairs joined by ``;`` (``n=17.20``, ``seat=3;cards=AS.KH``), or ``-``
when there is none; lists inside a value are joined by ``.``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from drivers import line_frame
from drivers.block_assembly import BlockAssembly, BlockShape
from drivers.line_frame import Frame, encode, whole_number
from drivers.serial_link import FrameError

__all__ = [
    "DECISIONS", "BlockReader", "ChanceLimits", "Frame", "FrameError", "TableBet", "TableConfiguration",
    "TableRound", "decode", "encode", "encode_block", "encode_pairs", "parse_configuration", "parse_pairs",
    "parse_round", "parse_status",
]

DECISIONS = {"W": "win", "L": "lose", "P": "push", "N": "none"}
"""A bet's decision letter on the wire and its name (:data:`bench.games.stakes.Decision`): ``N`` no decision,
the bet stays on the layout."""
NONE = "-"


def decode(raw: bytes) -> Frame:
    """Decode one GT line; :class:`FrameError` names what is wrong with it."""
    return line_frame.decode(raw, "GT")


# -- key=value fields -------------------------------------------------------------------------------


def encode_pairs(pairs: Mapping[str, object]) -> str:
    """``{"seat": 3, "cards": "AS.KH"}`` as ``seat=3;cards=AS.KH``; ``-`` for none."""
    if not pairs:
        return NONE
    text = ";".join(f"{key}={value}" for key, value in pairs.items())
    if any(c in text for c in ",*$\r\n") or not text.isascii():
        raise ValueError(f"field {text!r} may not contain ',', '*', '$', line breaks or non-ASCII characters")
    return text


def parse_pairs(text: str, frame: Frame, what: str) -> Mapping[str, str]:
    """A ``key=value;...`` field (``-``: empty); FrameError names the frame and the field."""
    if text == NONE:
        return MappingProxyType({})
    pairs: dict[str, str] = {}
    for item in text.split(";"):
        key, sep, value = item.partition("=")
        if not sep or not key or not value or key in pairs:
            raise FrameError(f"{frame.type} {what} {text!r} must be key=value pairs joined by ';'", frame.raw)
        pairs[key] = value
    return MappingProxyType(pairs)


def _fields(frame: Frame, frame_type: str, count: int, what: str) -> None:
    if frame.type != frame_type:
        raise FrameError(f"expected a {frame_type} frame, got {frame.type}", frame.raw)
    if len(frame.fields) != count:
        raise FrameError(f"{frame_type} frame needs {count} fields ({what}), got {len(frame.fields)}", frame.raw)


# -- replies ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChanceLimits:
    """The table's minimum and maximum stake on one chance, in cents (frame ``LIM``)."""

    chance: str
    minimum: int
    maximum: int


@dataclass(frozen=True)
class TableConfiguration:
    """What the table says it is set up for (block ``CONF``): game, rules variant, the game's options, limits."""

    game: str
    rules: str
    options: Mapping[str, str]
    limits: Mapping[str, ChanceLimits]
    raw: tuple[bytes, ...] = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class TableBet:
    """One bet of a round and what the table did with it (frame ``BET``).

    ``chance`` and ``spec`` say what was bet (game-specific, see the protocol document); ``stake`` the chips
    at risk in cents; ``decision`` win / lose / push / none (the bet stays); ``prize`` what the bank paid on
    top of the stake; ``lost`` the part of the stake the bank collected; ``next``: for a bet that stays, what
    it became (a craps line bet that found its point), else None.
    """

    index: int
    chance: str
    spec: Mapping[str, str]
    stake: int
    decision: str
    prize: int
    lost: int
    next: str | None

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "chance": self.chance, "spec": dict(self.spec), "stake": self.stake,
                "decision": self.decision, "prize": self.prize, "lost": self.lost, "next": self.next}

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> TableBet:
        return cls(value["index"], value["chance"], MappingProxyType(dict(value["spec"])), value["stake"],
                   value["decision"], value["prize"], value["lost"], value["next"])


@dataclass(frozen=True)
class TableRound:
    """One round as the table reports it (block ``RND``): number, game, outcome, context and every bet.

    ``outcome``: the pocket (``17``, ``0``, ``00``), the dice (``3.4``), the dealer's cards (``AS.7H.9C``)
    or bacará's two sides (``AS.5H.2C/KD.3S``); ``context``: what the outcome needs besides (craps' point
    before the roll, ``point=6`` or ``point=off``).
    """

    round: int
    game: str
    outcome: str
    context: Mapping[str, str]
    bets: tuple[TableBet, ...]
    raw: tuple[bytes, ...] = field(default=(), repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The round as JSON for the journal (the frames as text, for the auditor)."""
        return {"round": self.round, "game": self.game, "outcome": self.outcome, "context": dict(self.context),
                "bets": [bet.to_json() for bet in self.bets],
                "frames": [line.decode("ascii", "replace").rstrip() for line in self.raw]}

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> TableRound:
        return cls(value["round"], value["game"], value["outcome"], MappingProxyType(dict(value["context"])),
                   tuple(TableBet.from_json(bet) for bet in value["bets"]))


def parse_status(frame: Frame) -> int:
    """The last round the table played (frame ``STATUS``; 0 before the first)."""
    _fields(frame, "STATUS", 1, "last round")
    return whole_number(frame, 0, "last round")


def _parse_limit(frame: Frame) -> ChanceLimits:
    _fields(frame, "LIM", 4, "index, chance, minimum, maximum")
    chance = frame.fields[1]
    if not chance:
        raise FrameError("LIM chance is empty", frame.raw)
    limits = ChanceLimits(chance, whole_number(frame, 2, "minimum", 1), whole_number(frame, 3, "maximum", 1))
    return limits


def parse_configuration(header: Frame, items: list[Frame]) -> TableConfiguration:
    """A ``CONF`` block: header ``CONF,game,rules,options,k``, then k ``LIM,i,chance,min,max`` frames."""
    _fields(header, "CONF", 4, "game, rules, options, limit count")
    limits: dict[str, ChanceLimits] = {}
    for item in items:
        limit = _parse_limit(item)
        if limit.chance in limits:
            raise FrameError(f"LIM repeats chance {limit.chance!r}", item.raw)
        limits[limit.chance] = limit
    raw = (header.raw, *(item.raw for item in items))
    return TableConfiguration(header.fields[0], header.fields[1], parse_pairs(header.fields[2], header, "options"),
                              MappingProxyType(limits), raw)


def _parse_bet(frame: Frame) -> TableBet:
    _fields(frame, "BET", 9, "round, index, chance, spec, stake, decision, prize, lost, next")
    chance, decision, after = frame.fields[2], frame.fields[5], frame.fields[8]
    if not chance:
        raise FrameError("BET chance is empty", frame.raw)
    if decision not in DECISIONS:
        raise FrameError(f"BET decision {decision!r} is not one of {', '.join(DECISIONS)}", frame.raw)
    stake, prize, lost = (whole_number(frame, i, name, low) for i, name, low in
                          ((4, "stake", 1), (6, "prize", 0), (7, "lost", 0)))
    if lost > stake:
        raise FrameError(f"BET lost {lost} is more than the stake {stake}", frame.raw)
    return TableBet(whole_number(frame, 1, "index", 1), chance, parse_pairs(frame.fields[3], frame, "spec"), stake,
                    DECISIONS[decision], prize, lost, None if after == NONE else after)


def parse_round(header: Frame, items: list[Frame]) -> TableRound:
    """A ``RND`` block: header ``RND,round,game,outcome,context,k``, then k ``BET`` frames of that round."""
    _fields(header, "RND", 5, "round, game, outcome, context, bet count")
    number = whole_number(header, 0, "round number", 1)
    bets = []
    for item in items:
        bet = _parse_bet(item)
        if whole_number(item, 0, "round number", 1) != number:
            raise FrameError(f"BET of round {item.fields[0]} inside round {number}", item.raw)
        bets.append(bet)
    if not header.fields[2]:
        raise FrameError("RND outcome is empty", header.raw)
    raw = (header.raw, *(item.raw for item in items))
    return TableRound(number, header.fields[1], header.fields[2], parse_pairs(header.fields[3], header, "context"),
                      tuple(bets), raw)


# -- blocks -----------------------------------------------------------------------------------------

_BLOCKS = {"RND": ("BET", 4, 1), "CONF": ("LIM", 3, 0)}
"""Header type: (item type, index of the item count in the header, index of the item number in an item)."""


def encode_block(header_type: str, header_fields: list[object], items: list[list[object]]) -> list[bytes]:
    """The frames of a block: header (its fields and the item count), items numbered from 1, ``END``."""
    item_type, _, _ = _BLOCKS[header_type]
    key = header_fields[0]
    frames = [encode(header_type, *header_fields, len(items))]
    for index, fields in enumerate(items, start=1):
        if header_type == "RND":
            frames.append(encode(item_type, header_fields[0], index, *fields))
        else:
            frames.append(encode(item_type, index, *fields))
    frames.append(encode("END", header_type, key, len(items)))
    return frames


class BlockReader(BlockAssembly):
    """Assembles one block (``RND`` round or ``CONF`` configuration) from reply lines, over every repeat of the
    reply (:class:`drivers.block_assembly.BlockAssembly`): :meth:`feed` returns None until the block is whole,
    then (header, items). ``key`` is the round asked for (its items and ``END`` carry it too)."""

    def __init__(self, header_type: str, key: str | None = None) -> None:
        item_type, count_at, index_at = _BLOCKS[header_type]
        super().__init__(BlockShape(header_type, item_type, count_at, index_at, keyed_items=header_type == "RND"),
                         key)
