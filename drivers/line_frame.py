"""The ASCII line framing shared by the bench's own serial protocols (RW, RG), and their common ID and NAK frames.

A frame is::

    $<TYPE>[,<field>...]*<CC>\r\n

where ``CC`` is the XOR of every byte between ``$`` and ``*`` as two upper-case hex
digits (the NMEA 0183 convention). Framing is in-band because pseudo-terminals (the
simulated rig) carry no parity or break conditions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from drivers.serial_link import FrameError, StaleReply

T = TypeVar("T")

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


# -- frames every protocol on this framing shares: ID and NAK ---------------------

IDENTITY_FIELDS = ("manufacturer", "model", "serial", "firmware")


@dataclass(frozen=True)
class DeviceIdentity:
    """What a device says it is (frame ``ID``)."""

    manufacturer: str
    model: str
    serial: str
    firmware: str


def whole_number(frame: Frame, index: int, name: str, minimum: int = 0) -> int:
    """Field ``index`` of ``frame`` as a whole number of ASCII digits, at least ``minimum``; FrameError naming
    the frame type, the field and what is wrong (missing, a sign or anything but digits, too small)."""
    try:
        text = frame.fields[index]
    except IndexError as error:
        raise FrameError(f"{frame.type} lacks its {name}", frame.raw) from error
    if not text.isdigit() or not text.isascii():
        raise FrameError(f"{frame.type} {name} {text!r} must be a whole number", frame.raw)
    value = int(text)
    if value < minimum:
        raise FrameError(f"{frame.type} {name} {value} must be at least {minimum}", frame.raw)
    return value


def encode_identity(identity: dict[str, str]) -> bytes:
    """The ``ID`` reply for an identity given as a mapping (missing fields sent empty)."""
    return encode("ID", *(identity.get(key, "") for key in IDENTITY_FIELDS))


def parse_identity(frame: Frame) -> DeviceIdentity:
    """Fields of an ``ID`` frame."""
    if len(frame.fields) != len(IDENTITY_FIELDS):
        raise FrameError(f"ID frame needs {len(IDENTITY_FIELDS)} fields", frame.raw)
    return DeviceIdentity(*frame.fields)


def raise_if_refused(frame: Frame, device: str) -> None:
    """A ``NAK`` is the device's answer: raise it as a :class:`FrameError` naming what was refused."""
    if frame.type == "NAK":
        raise FrameError(f"{device} refused the request ({','.join(frame.fields)})", frame.raw)


def reply_acceptor(
    decode_line: Callable[[bytes], Frame], frame_type: str, device: str,
    parse: Callable[[Frame], T] | None = None, matches: Callable[[Frame], str | None] | None = None,
) -> Callable[[bytes], T | Frame | None]:
    """An ``accept`` for :meth:`SerialLink.transact`: the awaited frame (parsed), None for others, NAK raised.

    ``matches`` ties the reply to its request: it returns ``None`` when the frame's echo or number is the
    request's, else the reason it is not (an earlier request's late reply): such a frame raises
    :class:`StaleReply`, so the link discards and counts it and reads on."""

    def accept(line: bytes) -> T | Frame | None:
        frame = decode_line(line)
        raise_if_refused(frame, device)
        if frame.type != frame_type:
            return None
        if matches is not None and (reason := matches(frame)) is not None:
            raise StaleReply(reason, frame.raw)
        return parse(frame) if parse is not None else frame

    return accept


def corrupt_checksum(frame: bytes) -> bytes:
    """The same frame with a wrong checksum (simulators' garbled-reply fault)."""
    return frame[:-4] + (b"00\r\n" if frame[-4:-2] != b"00" else b"FF\r\n")
