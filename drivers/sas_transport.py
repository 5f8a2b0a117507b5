"""How SAS bytes travel: the wakeup bit on a real UART, and an escape framing on a pseudo-terminal.

SAS frames host messages with a ninth "wakeup" bit, set on the first byte of every host
message (the address or general poll byte) and clear on every other byte in both
directions. A real UART emulates it with the parity bit (:class:`ParityWakeupTransport`):
mark parity for the first byte, space parity for the rest, switched per byte with pyserial.

A pseudo-terminal carries no parity, so the simulated rig frames the bytes in-band
(:class:`EscapedPtyTransport`, both directions), with ``ESCAPE = 0x80``:

* a byte without the wakeup bit other than 0x80 is sent as itself;
* the byte 0x80 without the wakeup bit is sent as ``80 80``;
* a byte ``b`` with the wakeup bit is sent as ``80 b``.

0x80 is the one byte value SAS never marks with the wakeup bit (it would be a general poll of
the broadcast address 0, which cannot answer), so ``80 80`` is unambiguous and every SAS message
is representable. The host code above the transport is the same for both.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Literal

from drivers.serial_link import FrameError, SerialLink

ESCAPE = 0x80
Framing = Literal["wakeup-parity", "pty-escape"]


def escape(units: Iterable[tuple[int, bool]]) -> bytes:
    """Escape-frame ``(byte, wakeup)`` units for a pseudo-terminal."""
    out = bytearray()
    for value, wakeup in units:
        if wakeup:
            if value == ESCAPE:
                raise ValueError("0x80 with the wakeup bit is not a SAS byte (general poll of address 0)")
            out += bytes([ESCAPE, value])
        elif value == ESCAPE:
            out += bytes([ESCAPE, ESCAPE])
        else:
            out.append(value)
    return bytes(out)


def escape_message(message: bytes) -> bytes:
    """A host message for a pseudo-terminal: its first byte marked with the wakeup bit."""
    return escape((value, index == 0) for index, value in enumerate(message))


def escape_reply(reply: bytes) -> bytes:
    """A gaming machine reply for a pseudo-terminal (no wakeup bits)."""
    return escape((value, False) for value in reply)


class Unescaper:
    """Decodes the escape framing incrementally (an escape byte may end one read and its partner start the next)."""

    def __init__(self) -> None:
        self._pending_escape = False

    def feed(self, data: bytes) -> list[tuple[int, bool]]:
        units: list[tuple[int, bool]] = []
        for value in data:
            if self._pending_escape:
                self._pending_escape = False
                units.append((value, value != ESCAPE))
            elif value == ESCAPE:
                self._pending_escape = True
            else:
                units.append((value, False))
        return units

    def reset(self) -> None:
        self._pending_escape = False


class SasTransport(ABC):
    """Sends host messages (first byte with the wakeup bit) and reads reply bytes (no wakeup bits)."""

    framing: Framing

    def __init__(self, link: SerialLink) -> None:
        self.link = link

    @abstractmethod
    def send(self, message: bytes, note: str = "") -> None:
        """Send one host message; its first byte carries the wakeup bit."""

    @abstractmethod
    def read(self, count: int, timeout_s: float) -> bytes:
        """Up to ``count`` reply bytes (fewer when ``timeout_s`` ends first); FrameError for a wakeup-marked byte."""

    def discard_input(self) -> None:
        self.link.discard_input()


class ParityWakeupTransport(SasTransport):
    """A real UART: 8 data bits, the parity bit as the wakeup bit (mark on the first byte, space on the rest).

    The parity is switched after the first byte has left the UART (tcdrain), so the gap between
    the address byte and the command byte is the drain plus one ``tcsetattr`` (well under SAS's
    inter-byte limit on a native UART; USB adapters add their latency, see ``docs/protocols/sas.md``).
    Replies are read with space parity: a machine never sets the wakeup bit.
    """

    framing: Framing = "wakeup-parity"

    def send(self, message: bytes, note: str = "") -> None:
        self.link.set_parity("M")
        self.link.write_bytes(message[:1], note=f"{note} wakeup byte (mark parity)".strip())
        self.link.set_parity("S")
        if len(message) > 1:
            self.link.write_bytes(message[1:], note="space parity")

    def read(self, count: int, timeout_s: float) -> bytes:
        return self.link.read_bytes(count, timeout_s)


class EscapedPtyTransport(SasTransport):
    """A pseudo-terminal: the escape framing of this module in both directions."""

    framing: Framing = "pty-escape"

    def __init__(self, link: SerialLink) -> None:
        super().__init__(link)
        self._unescape = Unescaper()
        self._ready = bytearray()

    def send(self, message: bytes, note: str = "") -> None:
        self.link.write_bytes(escape_message(message), note=f"{note} (pty escape framing)".strip())

    def read(self, count: int, timeout_s: float) -> bytes:
        deadline = time.monotonic() + timeout_s
        while len(self._ready) < count:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            # escapes only lengthen the stream: never read more raw bytes than decoded bytes still wanted
            raw = self.link.read_bytes(count - len(self._ready), remaining)
            for value, wakeup in self._unescape.feed(raw):
                if wakeup:
                    self.discard_input()
                    raise FrameError(f"reply byte 0x{value:02X} carries the wakeup bit", raw)
                self._ready.append(value)
        data = bytes(self._ready[:count])
        del self._ready[:count]
        return data

    def discard_input(self) -> None:
        super().discard_input()
        self._ready.clear()
        self._unescape.reset()


def make_transport(framing: Framing, link: SerialLink) -> SasTransport:
    """The transport for ``framing``: ``"wakeup-parity"`` (a real UART) or ``"pty-escape"`` (a simulator)."""
    if framing == "wakeup-parity":
        return ParityWakeupTransport(link)
    if framing == "pty-escape":
        return EscapedPtyTransport(link)
    raise ValueError(f"SAS framing must be 'wakeup-parity' or 'pty-escape', got {framing!r}")
