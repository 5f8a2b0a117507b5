"""Queries and numbered transactions over the bench's line framing (the CS shuffler and JP jackpot protocols).

A request that changes the device carries a transaction number ``tx``; the device executes
``last + 1`` and answers a repeat of ``last`` with the same reply without acting again. So a
request whose reply was garbled or lost is simply sent again (within the link's bounds, by
:meth:`SerialLink.transact`) and can never act twice. The last number is read from the device's
``STATUS`` before the first transaction, and again after a transaction that failed (the device
may or may not have acted).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, TypeVar

from drivers.line_frame import Frame, raise_if_refused
from drivers.serial_link import DeviceError, FrameError, SerialLink

T = TypeVar("T")


class _HasTx(Protocol):
    tx: int


class NumberedExchanges:
    """The exchanges of one device on ``link``: ``decode`` is its protocol's line decoder, ``device`` its name
    in errors, ``read_status`` a query whose reply carries the device's last transaction number.

    ``garbled_frames`` counts replies that failed framing or checksum, ``refusals`` the NAKs received;
    both are retried within the link's bounds.
    """

    def __init__(self, link: SerialLink, decode: Callable[[bytes], Frame], device: str,
                 read_status: Callable[[], _HasTx]) -> None:
        self.link = link
        self._decode_line = decode
        self.device = device
        self._read_status = read_status
        self.garbled_frames = 0
        self.refusals = 0
        self._tx: int | None = None

    def decode(self, line: bytes) -> Frame:
        """One reply line as a frame; garbled lines and NAKs are counted and raised (:class:`FrameError`)."""
        try:
            frame = self._decode_line(line)
        except FrameError:
            self.garbled_frames += 1
            raise
        if frame.type == "NAK":
            self.refusals += 1
            raise_if_refused(frame, self.device)
        return frame

    def query(self, request: bytes, frame_type: str, parse: Callable[[Frame], T], what: str) -> T:
        """Send a query (it changes nothing, so it may be repeated freely); its ``frame_type`` reply, parsed."""
        def accept(line: bytes) -> T | None:
            frame = self.decode(line)
            return parse(frame) if frame.type == frame_type else None

        return self.link.transact(request, accept, what=what)

    def transaction(self, request: Callable[[int], bytes], replies: Mapping[str, Callable[[Frame], T]],
                    parse_tx: Callable[[Frame], int], what: str, timeout_s: float | None = None) -> T:
        """Send ``request(tx)`` with the next transaction number; the reply of one of the ``replies`` types that
        echoes ``tx`` (``parse_tx``), parsed by its function."""
        if self._tx is None:
            self._tx = self._read_status().tx
        tx = self._tx + 1

        def accept(line: bytes) -> T | None:
            frame = self.decode(line)
            if frame.type not in replies or parse_tx(frame) != tx:
                return None  # an unsolicited or stale frame: not this transaction's answer
            return replies[frame.type](frame)

        try:
            result = self.link.transact(request(tx), accept, what=what, timeout_s=timeout_s)
        except DeviceError:
            self._tx = None  # the device may or may not have acted: read its number again before the next one
            raise
        self._tx = tx
        return result
