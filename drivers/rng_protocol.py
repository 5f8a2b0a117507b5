"""The RG line protocol: how a game's random number generator hands its output to the bench.

Documented for manufacturers in ``docs/protocols/rng-interface.md``. Frames use the
bench's line framing (:mod:`drivers.line_frame`). Requests and replies:

* ``ID?`` → ``ID,<manufacturer>,<model>,<serial>,<firmware>``
* ``RAW?,<bytes>`` → ``RAW,<block>,<hex>``: the next ``bytes`` (1-4096) raw output bytes of
  the generator, as the game consumes them, most significant bit first; ``block`` counts
  RAW replies since the generator was powered on (1, 2, ...).
* ``DRAW?,<range>,<count>`` → ``DRAW,<block>,<value>,...``: the next ``count`` (1-256) game
  outcomes in ``0..range-1``, produced by the game's own mapping from raw output to the
  outcome range (the mapping is what a modulo-bias check examines).
* ``NAK,<request>,<reason>``: the device refuses a request.
"""

from __future__ import annotations

from dataclasses import dataclass

from drivers import line_frame
from drivers.line_frame import Frame, encode
from drivers.serial_link import FrameError

__all__ = ["MAX_DRAW_COUNT", "MAX_RAW_BYTES", "DrawBlock", "RawBlock", "decode", "encode", "parse_draw", "parse_raw"]

MAX_RAW_BYTES = 4096
MAX_DRAW_COUNT = 256


def decode(raw: bytes) -> Frame:
    """Decode one RG line; :class:`FrameError` names what is wrong with it."""
    return line_frame.decode(raw, "RG")


@dataclass(frozen=True)
class RawBlock:
    """One ``RAW`` reply: block number and the bytes it carries."""

    block: int
    data: bytes


@dataclass(frozen=True)
class DrawBlock:
    """One ``DRAW`` reply: block number and the outcomes it carries."""

    block: int
    values: tuple[int, ...]


def _block_number(frame: Frame) -> int:
    try:
        block = int(frame.fields[0])
    except (IndexError, ValueError) as error:
        raise FrameError(f"{frame.type} frame needs a block number first", frame.raw) from error
    if block < 1:
        raise FrameError(f"{frame.type} block number {block} must be positive", frame.raw)
    return block


def parse_raw(frame: Frame, expected_bytes: int) -> RawBlock:
    """Fields of a ``RAW`` frame; the byte count must be the one requested."""
    if frame.type != "RAW" or len(frame.fields) != 2:
        raise FrameError("RAW frame needs block and hex data", frame.raw)
    block = _block_number(frame)
    text = frame.fields[1]
    try:
        data = bytes.fromhex(text)
    except ValueError as error:
        raise FrameError(f"RAW data is not hexadecimal ({error})", frame.raw) from error
    if len(data) != expected_bytes:
        raise FrameError(f"RAW block carries {len(data)} bytes, {expected_bytes} requested", frame.raw)
    return RawBlock(block, data)


def parse_draw(frame: Frame, outcome_range: int, expected_count: int) -> DrawBlock:
    """Fields of a ``DRAW`` frame; every value must lie in ``0..range-1``."""
    if frame.type != "DRAW" or len(frame.fields) < 2:
        raise FrameError("DRAW frame needs block and values", frame.raw)
    block = _block_number(frame)
    try:
        values = tuple(int(field) for field in frame.fields[1:])
    except ValueError as error:
        raise FrameError(f"DRAW values must be integers ({error})", frame.raw) from error
    if len(values) != expected_count:
        raise FrameError(f"DRAW block carries {len(values)} values, {expected_count} requested", frame.raw)
    outside = [value for value in values if not 0 <= value < outcome_range]
    if outside:
        raise FrameError(f"DRAW value {outside[0]} outside 0-{outcome_range - 1}", frame.raw)
    return DrawBlock(block, values)
