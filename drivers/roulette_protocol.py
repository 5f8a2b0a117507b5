"""The RW line protocol: how an automated roulette wheel reports over RS-232.

Documented for manufacturers in ``docs/protocols/roulette-wheel.md``. A frame
is ASCII::

    $<TYPE>[,<field>...]*<CC>\r\n

where ``CC`` is the XOR of every byte between ``$`` and ``*`` as two upper-case
hex digits (the NMEA 0183 convention). This module only encodes and decodes
frames; :mod:`drivers.roulette` drives a wheel with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from drivers.serial_link import FrameError

_FRAME = re.compile(rb"^\$(?P<body>[A-Z?][A-Z0-9?]*(?:,[^*\r\n]*)*)\*(?P<cc>[0-9A-F]{2})\r?\n$")


class Direction(StrEnum):
    """Sense of rotation seen from above the wheel."""

    CLOCKWISE = "CW"
    ANTICLOCKWISE = "CCW"

    @property
    def opposite(self) -> Direction:
        return Direction.ANTICLOCKWISE if self is Direction.CLOCKWISE else Direction.CLOCKWISE


def checksum(body: bytes) -> str:
    """XOR of the bytes, two upper-case hex digits."""
    value = 0
    for byte in body:
        value ^= byte
    return f"{value:02X}"


def encode(frame_type: str, *fields: object) -> bytes:
    """Build one frame, checksum and CR LF included."""
    body = ",".join([frame_type, *(str(field) for field in fields)]).encode("ascii")
    return b"$" + body + b"*" + checksum(body).encode("ascii") + b"\r\n"


@dataclass(frozen=True)
class Frame:
    """A decoded frame: its type and its fields (as text)."""

    type: str
    fields: tuple[str, ...]
    raw: bytes


def _framing_fault(raw: bytes) -> str:
    """Which part of the framing a line that is not an RW frame gets wrong."""
    if not raw.startswith(b"$"):
        return "missing '$' start character"
    if not raw.endswith(b"\n"):
        return "missing CR LF terminator"
    if not re.search(rb"\*[0-9A-F]{2}\r?\n$", raw):
        return "missing '*' and two upper-case hex checksum digits"
    return "malformed type or fields"


def decode(raw: bytes) -> Frame:
    """Decode one line; :class:`FrameError` names what is wrong with it."""
    match = _FRAME.match(raw)
    if not match:
        raise FrameError(f"not an RW frame ({_framing_fault(raw)})", raw)
    body = match.group("body")
    expected = checksum(body)
    if match.group("cc").decode() != expected:
        raise FrameError(f"checksum {match.group('cc').decode()} should be {expected}", raw)
    parts = body.decode("ascii").split(",")
    return Frame(type=parts[0], fields=tuple(parts[1:]), raw=raw)


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
