"""The CD line protocol: how a cussec dome ("campânula") controller reports each round to the bench.

Documented for manufacturers in ``docs/protocols/cussec-dome.md``. Frames use the bench's line framing
(:mod:`drivers.line_frame`, ``$TYPE,f1,f2*CC``). The dome of p217-2007/cussec/2 is a pedestal with a
lever-driven disc under a glass dome holding the three dice, and an opaque cover latched over it; its
controller senses the latches, the disc's strokes and the cover, lights the betting-period lamp in front of
the dome (p217-2007/cussec/4) and the winning chance zones on the layout (p217-2007/cussec/5).

Queries (``ID?``, ``STATUS?``, ``ROUND?``) change nothing and are simply asked again when a reply is lost or
garbled. ``PLAY`` (a round driven by the bench's actuator: latch, three lever presses, open) carries a
transaction number: a repeat of the last one is answered again and never plays twice
(:class:`drivers.numbered_exchanges.NumberedExchanges`).

A round is a *block*: the header ``RND`` says how many ``ZONE`` frames follow, the zones are numbered 1..k and
``END,RND,<n>,<k>`` closes it; a block with a frame missing or garbled is asked for again, keeping the frames
that arrived intact (the controller answers the same round whenever asked), until it is whole
(:class:`RoundReader`); never taken in part, nor made of two replies that disagree.

Zone names are the chances of p217-2007/cussec/7 as :mod:`bench.games.cussec` names them (its
:data:`~bench.games.cussec.ZONES`, and :func:`~bench.games.cussec.winning_zones` of three dice): ``pequeno``,
``grande``, ``numero-<n>``, ``combinacao-<a>-<b>`` (a < b), ``dupla-<n>``, ``triplo-<n>``,
``qualquer-triplo``, ``total-<t>`` (4-17).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bench.games.cussec import ZONES
from drivers import line_frame
from drivers.block_assembly import BlockAssembly, BlockShape
from drivers.line_frame import Frame, encode, whole_number
from drivers.serial_link import FrameError

__all__ = [
    "LAMP_SOURCES", "MODES", "DomeRound", "DomeStatus", "Frame", "FrameError", "RoundReader", "decode", "encode",
    "encode_round", "parse_play_ack", "parse_round", "parse_status", "parse_tx",
]

NONE = "-"
MODES = ("BENCH", "DEALER")
"""Who played the round: the bench's actuator (``PLAY``) or the dealer."""
LAMP_SOURCES = ("AUTO", "MANUAL")
"""What lit the betting lamp: the controller by itself after the third stroke, or a switch (the dealer's)."""


def decode(raw: bytes) -> Frame:
    """Decode one CD line; :class:`FrameError` names what is wrong with it."""
    return line_frame.decode(raw, "CD")


# -- replies ----------------------------------------------------------------------------------------


def _fields(frame: Frame, frame_type: str, count: int, what: str) -> None:
    if frame.type != frame_type:
        raise FrameError(f"expected a {frame_type} frame, got {frame.type}", frame.raw)
    if len(frame.fields) != count:
        raise FrameError(f"{frame_type} frame needs {count} fields ({what}), got {len(frame.fields)}", frame.raw)


def _flag(frame: Frame, index: int, name: str) -> bool:
    text = frame.fields[index]
    if text not in ("0", "1"):
        raise FrameError(f"{frame.type} {name} {text!r} must be 0 or 1", frame.raw)
    return text == "1"


@dataclass(frozen=True)
class DomeStatus:
    """The dome now (frame ``STATUS``): last transaction, last round played, cover latched, betting lamp lit,
    lever strokes since the cover was latched, and whether the bench's actuator can play a round."""

    tx: int
    round: int
    latched: bool
    lamp: bool
    strokes: int
    actuator: bool
    raw: bytes = field(default=b"", repr=False, compare=False)


def parse_status(frame: Frame) -> DomeStatus:
    """``STATUS,<tx>,<round>,<latched>,<lamp>,<strokes>,<actuator>``."""
    _fields(frame, "STATUS", 6, "tx, round, latched, lamp, strokes, actuator")
    return DomeStatus(whole_number(frame, 0, "transaction number"), whole_number(frame, 1, "round"),
                      _flag(frame, 2, "latched"), _flag(frame, 3, "lamp"), whole_number(frame, 4, "strokes"),
                      _flag(frame, 5, "actuator"), frame.raw)


def parse_tx(frame: Frame) -> int:
    """The transaction number an ``ACK`` echoes (its first field)."""
    return whole_number(frame, 0, "transaction number", 1)


def parse_play_ack(frame: Frame) -> int:
    """``ACK,<tx>,PLAY,<round>``: the round the actuator started."""
    _fields(frame, "ACK", 3, "tx, PLAY, round")
    if frame.fields[1] != "PLAY":
        raise FrameError(f"ACK of {frame.fields[1]!r} where PLAY was due", frame.raw)
    return whole_number(frame, 2, "round", 1)


def _times(frame: Frame, index: int, name: str) -> tuple[int, ...]:
    text = frame.fields[index]
    if text == NONE:
        return ()
    parts = text.split(".")
    if not all(part.isdigit() and part.isascii() for part in parts):
        raise FrameError(f"{frame.type} {name} {text!r} must be whole milliseconds joined by '.'", frame.raw)
    values = tuple(int(part) for part in parts)
    if list(values) != sorted(values):
        raise FrameError(f"{frame.type} {name} {text!r} must be in time order", frame.raw)
    return values


def _time(frame: Frame, index: int, name: str) -> int | None:
    return None if frame.fields[index] == NONE else whole_number(frame, index, name)


@dataclass(frozen=True)
class DomeRound:
    """One round as the dome's controller logged it (block ``RND``); times in ms after the cover was latched.

    ``strokes``: when each lever stroke moved the disc (the dice jumped); ``lamp_ms`` / ``lamp_by``: when the
    betting lamp lit and what lit it (``AUTO``: the controller by itself, ``MANUAL``: a switch), None when it
    did not light; ``opened_ms``: the cover unlatched and lifted; ``zones_ms``: the winning zones lit;
    ``dice``: the controller's own reading of the dice, None without a dice sensor (kept as evidence, never the
    result: the bench's camera reads the dice); ``zones``: the zones it lit.
    """

    round: int
    mode: str
    strokes: tuple[int, ...]
    lamp_ms: int | None
    lamp_by: str | None
    opened_ms: int | None
    zones_ms: int | None
    dice: tuple[int, ...] | None
    zones: tuple[str, ...]
    raw: tuple[bytes, ...] = field(default=(), repr=False, compare=False)

    @property
    def strokes_before_lamp(self) -> int:
        """Lever strokes that moved the disc before the lamp lit (all of them when it never lit)."""
        if self.lamp_ms is None:
            return len(self.strokes)
        return sum(1 for t in self.strokes if t <= self.lamp_ms)

    @property
    def lamp_after_third_stroke_ms(self) -> int | None:
        """Lamp time minus the third stroke's (negative: it lit before); None without a lamp or a third stroke."""
        if self.lamp_ms is None or len(self.strokes) < 3:
            return None
        return self.lamp_ms - self.strokes[2]

    def frames_text(self) -> list[str]:
        return [line.decode("ascii", "replace").rstrip() for line in self.raw]

    def to_json(self) -> dict[str, Any]:
        """The round for the journal (the frames as text, for the auditor)."""
        return {"round": self.round, "mode": self.mode, "strokes": list(self.strokes), "lamp_ms": self.lamp_ms,
                "lamp_by": self.lamp_by, "opened_ms": self.opened_ms, "zones_ms": self.zones_ms,
                "dice": None if self.dice is None else list(self.dice), "zones": list(self.zones),
                "frames": self.frames_text()}

    @classmethod
    def from_json(cls, value: Mapping[str, Any]) -> DomeRound:
        dice = value["dice"]
        return cls(value["round"], value["mode"], tuple(value["strokes"]), value["lamp_ms"], value["lamp_by"],
                   value["opened_ms"], value["zones_ms"], None if dice is None else tuple(dice),
                   tuple(value["zones"]), tuple(line.encode("ascii") + b"\r\n" for line in value.get("frames", ())))


_HEADER = "round, mode, strokes, lamp ms, lamp source, opened ms, zones ms, dice, zone count"
ROUND_BLOCK = BlockShape(header_type="RND", item_type="ZONE", count_at=8, index_at=1, keyed_items=True)
"""A round's block: ``RND`` (its zone count ninth), ``ZONE,<n>,<i>,...`` numbered i = 1..k, ``END,RND,<n>,<k>``."""


def parse_round(header: Frame, items: list[Frame]) -> DomeRound:
    """``RND,<n>,<mode>,<strokes>,<lamp_ms>,<lamp_by>,<opened_ms>,<zones_ms>,<dice>,<k>`` and k ``ZONE`` frames."""
    _fields(header, "RND", 9, _HEADER)
    number = whole_number(header, 0, "round", 1)
    mode, lamp_by, dice_text = header.fields[1], header.fields[4], header.fields[7]
    if mode not in MODES:
        raise FrameError(f"RND mode {mode!r} is not one of {', '.join(MODES)}", header.raw)
    lamp_ms = _time(header, 3, "lamp time")
    if (lamp_ms is None) != (lamp_by == NONE) or (lamp_by != NONE and lamp_by not in LAMP_SOURCES):
        raise FrameError(f"RND lamp source {lamp_by!r} must be one of {', '.join(LAMP_SOURCES)} when the lamp lit, "
                         "'-' when it did not", header.raw)
    dice: tuple[int, ...] | None = None
    if dice_text != NONE:
        parts = dice_text.split(".")
        if len(parts) != 3 or any(part not in ("1", "2", "3", "4", "5", "6") for part in parts):
            raise FrameError(f"RND dice {dice_text!r} must be three faces 1-6 joined by '.', or '-'", header.raw)
        dice = tuple(int(part) for part in parts)
    zones = []
    for item in items:
        _fields(item, "ZONE", 3, "round, index, zone")
        if whole_number(item, 0, "round", 1) != number:
            raise FrameError(f"ZONE of round {item.fields[0]} inside round {number}", item.raw)
        name = item.fields[2]
        if name not in ZONES:
            raise FrameError(f"ZONE {name!r} is not a cussec zone", item.raw)
        if name in zones:
            raise FrameError(f"ZONE {name!r} repeated", item.raw)
        zones.append(name)
    return DomeRound(number, mode, _times(header, 2, "strokes"), lamp_ms, None if lamp_by == NONE else lamp_by,
                     _time(header, 5, "opened time"), _time(header, 6, "zones time"), dice, tuple(zones),
                     (header.raw, *(item.raw for item in items)))


def _text(values: Iterable[int] | None) -> str:
    if values is None:
        return NONE
    text = ".".join(str(value) for value in values)
    return text or NONE


def encode_round(number: int, mode: str, strokes: Iterable[int], lamp_ms: int | None, lamp_by: str | None,
                 opened_ms: int | None, zones_ms: int | None, dice: Iterable[int] | None,
                 zones: Iterable[str]) -> list[bytes]:
    """The frames of round ``number``'s block: header, one ``ZONE`` per lit zone, ``END``."""
    zones = list(zones)
    optional = [NONE if value is None else value for value in (lamp_ms, lamp_by, opened_ms, zones_ms)]
    frames = [encode("RND", number, mode, _text(strokes), optional[0], optional[1], optional[2], optional[3],
                     _text(dice), len(zones))]
    frames += [encode("ZONE", number, index, name) for index, name in enumerate(zones, start=1)]
    frames.append(encode("END", "RND", number, len(zones)))
    return frames


class RoundReader:
    """Assembles one round's block from reply lines, over every repeat of the reply
    (:class:`drivers.block_assembly.BlockAssembly`): :meth:`feed` returns None until the block is whole, then
    the :class:`DomeRound`. Frames of another round (a late reply) are counted in ``stale_frames`` and refused as
    :class:`drivers.serial_link.StaleReply`.
    """

    def __init__(self, number: int) -> None:
        self.key = str(number)
        self.block = BlockAssembly(ROUND_BLOCK, self.key)

    @property
    def stale_frames(self) -> int:
        """Frames of another round's block (an earlier request's late reply) seen and skipped."""
        return self.block.stale_frames

    @property
    def held(self) -> int:
        """Frames of the round held so far."""
        return self.block.held

    def feed(self, frame: Frame) -> DomeRound | None:
        if frame.type == "RND" and frame.fields[:1] == (self.key,):
            _fields(frame, "RND", 9, _HEADER)
        whole = self.block.feed(frame)
        return None if whole is None else parse_round(*whole)
