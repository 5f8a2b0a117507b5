"""The ASCII line framing shared by the bench's own serial protocols (RW, RG).

A frame is::

    $<TYPE>[,<field>...]*<CC>\r\n

where ``CC`` is the XOR of every byte between ``$`` and ``*`` as two upper-case hex
digits (the NMEA 0183 convention). Framing is in-band because pseudo-terminals (the
simulated rig) carry no parity or break conditions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from drivers.serial_link import FrameError

_FRAME = re.compile(rb"^\$(?P<body>[A-Z?][A-Z0-9?]*(?:,[^*\r\n]*)*)\*(?P<cc>[0-9A-F]{2})\r?\n$")


def checksum(body: bytes) -> str:
    """XOR of the bytes, two upper-case hex digits."""
    value = int(np.bitwise_xor.reduce(np.frombuffer(body, dtype=np.uint8))) if body else 0
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


def framing_fault(raw: bytes) -> str:
    """Which part of the framing a line that is not a frame gets wrong."""
    if not raw.startswith(b"$"):
        return "missing '$' start character"
    if not raw.endswith(b"\n"):
        return "missing CR LF terminator"
    if not re.search(rb"\*[0-9A-F]{2}\r?\n$", raw):
        return "missing '*' and two upper-case hex checksum digits"
    return "malformed type or fields"


def decode(raw: bytes, protocol: str) -> Frame:
    """Decode one line of ``protocol`` (named in errors); :class:`FrameError` names what is wrong."""
    match = _FRAME.match(raw)
    if not match:
        raise FrameError(f"not an {protocol} frame ({framing_fault(raw)})", raw)
    body = match.group("body")
    expected = checksum(body)
    if match.group("cc").decode() != expected:
        raise FrameError(f"checksum {match.group('cc').decode()} should be {expected}", raw)
    parts = body.decode("ascii").split(",")
    return Frame(type=parts[0], fields=tuple(parts[1:]), raw=raw)
