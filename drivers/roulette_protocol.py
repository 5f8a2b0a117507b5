"""The RW line protocol: how an automated roulette wheel reports over RS-232.

Documented for manufacturers in ``docs/protocols/roulette-wheel.md``. A frame
is ASCII::

    $<TYPE>[,<field>...]*<CC>\r\n

where ``CC`` is the XOR of every byte between ``$`` and ``*`` as two upper-case
hex digits (the NMEA 0183 convention, :mod:`drivers.line_frame`). This module
decodes RW frames; :mod:`drivers.roulette` drives a wheel with them.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.games.roulette_layout import Direction
from drivers import line_frame
from drivers.line_frame import Frame, checksum, encode
from drivers.serial_link import FrameError

__all__ = [
    "Frame", "FrameError", "NoResult", "SpinResult", "checksum", "decode", "encode",
    "parse_no_result", "parse_result",
]


def decode(raw: bytes) -> Frame:
    """Decode one RW line; :class:`FrameError` names what is wrong with it."""
    return line_frame.decode(raw, "RW")


@dataclass(frozen=True)
class SpinResult:
    """One game's result as the wheel reports it (frame ``RES``)."""

    game: int
    number: int
    rotor_direction: Direction
    ball_direction: Direction
    rotor_rpm: float
    raw: bytes


@dataclass(frozen=True)
class NoResult:
    """A game the wheel itself declared void (frame ``ERR``): a "golpe nulo", never an outcome."""

    game: int
    code: str
    text: str
    raw: bytes


def parse_result(frame: Frame, pockets: int = 37) -> SpinResult:
    """Fields of a ``RES`` frame: game, number, rotor direction, ball direction, rotor rpm."""
    if frame.type != "RES" or len(frame.fields) != 5:
        raise FrameError("RES frame needs 5 fields", frame.raw)
    game, number, rotor, ball, rpm = frame.fields
    try:
        result = SpinResult(
            game=int(game),
            number=int(number),
            rotor_direction=Direction(rotor),
            ball_direction=Direction(ball),
            rotor_rpm=float(rpm),
            raw=frame.raw,
        )
    except ValueError as error:
        raise FrameError(f"bad RES field ({error})", frame.raw) from error
    if not 0 <= result.number < pockets:
        raise FrameError(f"winning number {result.number} outside 0-{pockets - 1}", frame.raw)
    if result.game < 1:
        raise FrameError(f"game number {result.game} must be positive", frame.raw)
    return result


def parse_no_result(frame: Frame) -> NoResult:
    """Fields of an ``ERR`` frame: game, code, text."""
    if frame.type != "ERR" or len(frame.fields) < 2:
        raise FrameError("ERR frame needs game and code", frame.raw)
    try:
        game = int(frame.fields[0])
    except ValueError as error:
        raise FrameError("bad ERR game number", frame.raw) from error
    return NoResult(game=game, code=frame.fields[1], text=",".join(frame.fields[2:]), raw=frame.raw)
