"""Queries, blocks and numbered transactions over the bench's line framing (the CS shuffler, JP jackpot,
GT gaming-table and CD cussec-dome protocols).

A request that changes the device carries a transaction number ``tx``; the device executes
``last + 1`` and answers a repeat of ``last`` with the same reply without acting again. So a
request whose reply was garbled or lost is simply sent again (within the link's bounds, by
:meth:`SerialLink.transact`) and can never act twice. The last number is read from the device's
``STATUS`` before the first transaction, and again after a transaction that failed (the device
may or may not have acted).

A block (a header, numbered items, ``END``) is taken only whole: the frames that arrive intact are kept and
the block is asked for again to fill the gaps (a device answers the same block whenever asked), with a retry
budget that grows with the block (an ask that brings new frames does not spend it). A device asked for a round it has not finished answers ``NOT_PLAYED``; the
bench polls until the round is played or its time is up.

Every reply is matched to its request: a transaction's reply must echo its ``tx``, a query's the
number or echo its caller names (``matches``: the level or page asked for, a last transaction no
earlier than the bench's), a block's header the round asked for. A reply of the awaited type that
fails the match is an earlier request's late reply: discarded and counted (the link's
``stale_replies``, ``rx-discarded`` in the wire log), never the answer. A query whose reply carries
nothing to match first waits out the late replies of any attempt that timed out
(:meth:`SerialLink.settle`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Protocol, TypeVar

from drivers.line_frame import Frame, raise_if_refused
from drivers.serial_link import DeviceError, FrameError, SerialLink, StaleReply

T = TypeVar("T")


class _HasTx(Protocol):
    tx: int


class _NotPlayed:
    """The device has not finished the round asked for (``NAK,<request>,NOT_PLAYED``): ask again later."""

    def __repr__(self) -> str:
        return "NOT_PLAYED"


NOT_PLAYED = _NotPlayed()

BLOCK_ASK_FACTOR = 4
"""A block is asked for at most this many times ``1 + retries`` in all, however many asks bring new frames."""


class NumberedExchanges:
    """The exchanges of one device on ``link``: ``decode`` is its protocol's line decoder, ``device`` its name
    in errors, ``read_status`` a query whose reply carries the device's last transaction number.

    ``garbled_frames`` counts replies that failed framing or checksum, ``refusals`` the NAKs received,
    ``blocks_refused`` the blocks refused as incomplete; all are retried within the link's bounds.
    """

    def __init__(self, link: SerialLink, decode: Callable[[bytes], Frame], device: str,
                 read_status: Callable[[], _HasTx]) -> None:
        self.link = link
        self._decode_line = decode
        self.device = device
        self._read_status = read_status
        self.garbled_frames = 0
        self.refusals = 0
        self.blocks_refused = 0
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

    @property
    def last_tx(self) -> int | None:
        """The device's last transaction number as the bench knows it (None until read, and after a failure)."""
        return self._tx

    @property
    def stale_replies(self) -> int:
        """Replies discarded because they answered another request (the link's count)."""
        return self.link.stale_replies

    def echoes(self, *expected: tuple[int, str], tx_at: int | None = None) -> Callable[[Frame], str | None]:
        """A ``matches`` for :meth:`query`: the reply's field ``index`` must be ``value`` for each ``(index,
        value)`` (the level or page asked for), and the last transaction number in field ``tx_at`` must not be
        earlier than the one the bench knows (a reply from before the last transaction is stale). Fields that
        do not parse are left to the parser (a garbled reply, not a stale one)."""
        known = self._tx

        def matches(frame: Frame) -> str | None:
            for index, value in expected:
                if -len(frame.fields) <= index < len(frame.fields) and frame.fields[index] != value:
                    return f"{frame.type} field {index + 1} is {frame.fields[index]!r}, not {value!r} as asked"
            if tx_at is not None and known is not None and -len(frame.fields) <= tx_at < len(frame.fields):
                text = frame.fields[tx_at]
                if text.isdigit() and int(text) < known:
                    return f"{frame.type} reports transaction {text}, before transaction {known}"
            return None

        return matches

    def query(self, request: bytes, frame_type: str, parse: Callable[[Frame], T], what: str,
              matches: Callable[[Frame], str | None] | None = None, settle: bool | None = None) -> T:
        """Send a query (it changes nothing, so it may be repeated freely); its ``frame_type`` reply, parsed.

        ``matches`` returns None when the reply's echo or number is this request's, else why it is not (the
        reply is then discarded as stale and counted). Without it (or with ``settle``: the echo does not tell
        two replies to the same request apart, as a display text) the link first waits out late replies to
        earlier timed-out attempts."""
        def accept(line: bytes) -> T | None:
            frame = self.decode(line)
            if frame.type != frame_type:
                return None
            if matches is not None and (reason := matches(frame)) is not None:
                raise StaleReply(reason, frame.raw)
            return parse(frame)

        return self.link.transact(request, accept, what=what, settle=matches is None if settle is None else settle)

    def block(self, request: bytes, feed: Callable[[Frame], T | None], held: Callable[[], int], what: str, *,
              may_be_unplayed: bool = False) -> T | _NotPlayed:
        """Send a query answered by a block; ``feed`` takes the reply's intact frames and returns the block's
        value once it is whole (raising :class:`FrameError` when an ``END`` leaves items missing), ``held`` says
        how many of its frames are held so far (:class:`drivers.block_assembly.BlockAssembly`). With
        ``may_be_unplayed`` a ``NOT_PLAYED`` refusal gives :data:`NOT_PLAYED`.

        A garbled frame is counted and skipped, not the end of the attempt: the frames that arrive intact are
        kept, and the block is asked for again to fill the gaps. The retry budget grows with the block: an ask
        that brought frames not held before does not spend it; :class:`DeviceError` after ``1 + retries`` asks
        that brought nothing new, or :data:`BLOCK_ASK_FACTOR` times that many asks in all."""
        def accept(line: bytes) -> T | _NotPlayed | None:
            try:
                frame = self._decode_line(line)
            except FrameError:
                self.garbled_frames += 1
                return None  # skipped: the frame comes again with the next repeat of the block
            if frame.type == "NAK" and may_be_unplayed and frame.fields[-1:] == ("NOT_PLAYED",):
                return NOT_PLAYED
            if frame.type == "NAK":
                self.decode(line)  # counted and raised
            try:
                return feed(frame)
            except FrameError:
                self.blocks_refused += 1
                raise

        allowed = 1 + self.link.settings.retries
        attempts: list[str] = []
        fruitless = 0
        for _ in range(BLOCK_ASK_FACTOR * allowed):
            before = held()
            try:
                return self.link.transact(request, accept, what=what, retries=0)
            except DeviceError as error:
                attempts += error.attempts
                if held() <= before:
                    fruitless += 1
                    if fruitless >= allowed:
                        break
        raise DeviceError(self.link.settings.port, what, attempts)

    def until_played(self, read: Callable[[], T | _NotPlayed], what: str, timeout_s: float, poll_s: float) -> T:
        """``read()`` again every ``poll_s`` while it gives :data:`NOT_PLAYED`; DeviceError after ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while True:
            result = read()
            if not isinstance(result, _NotPlayed):
                return result
            if time.monotonic() >= deadline:
                raise DeviceError(self.link.settings.port, what, [f"round not played within {timeout_s:g} s"])
            time.sleep(poll_s)

    def transaction(self, request: Callable[[int], bytes], replies: Mapping[str, Callable[[Frame], T]],
                    parse_tx: Callable[[Frame], int], what: str, timeout_s: float | None = None) -> T:
        """Send ``request(tx)`` with the next transaction number; the reply of one of the ``replies`` types that
        echoes ``tx`` (``parse_tx``), parsed by its function."""
        if self._tx is None:
            self._tx = self._read_status().tx
        tx = self._tx + 1

        def accept(line: bytes) -> T | None:
            frame = self.decode(line)
            if frame.type not in replies:
                return None  # an unsolicited frame: not this transaction's answer
            answered = parse_tx(frame)
            if answered != tx:
                raise StaleReply(f"{frame.type} answers transaction {answered}, not {tx}", frame.raw)
            return replies[frame.type](frame)

        try:
            result = self.link.transact(request(tx), accept, what=what, timeout_s=timeout_s)
        except DeviceError:
            self._tx = None  # the device may or may not have acted: read its number again before the next one
            raise
        self._tx = tx
        return result
