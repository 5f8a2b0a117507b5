"""Serial foundation shared by every serial driver.

* Opens a tty path (``/dev/ttyUSB0``, a simulator's ``/dev/pts/N``) or any
  pyserial URL (``spy://``, ``socket://``, ``loop://``), with bounded retries.
* Line framing with bounded read timeouts.
* Every frame, in and out, is logged with its time and direction to a JSON-lines
  wire log that suites attach as evidence.
* A request whose reply is late, garbled or refused is retried a bounded number
  of times, reconnecting after a disconnect; then :class:`DeviceError` is
  raised with every attempt's reason. A reply is never guessed.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self, TypeVar

import serial

try:
    import termios

    _TTY_ERRORS: tuple[type[Exception], ...] = (termios.error,)
except ImportError:  # not a POSIX system: no terminal driver errors
    _TTY_ERRORS = ()

LINK_FAILURES: tuple[type[Exception], ...] = (serial.SerialException, OSError, *_TTY_ERRORS)
"""What a failing port raises: pyserial's errors, the system's, and the terminal driver's (``termios.error``
from a flush or drain on a pseudo-terminal whose other end hung up is not an OSError)."""

T = TypeVar("T")

LATE_REPLY_WINDOW = 4.0
"""A reply later than this many link timeouts after its request is outside every protocol's timing: after an
attempt that timed out, a query whose reply carries no number or echo tying it to its request first waits
until that window has passed, and discards (and counts) whatever arrived (:meth:`SerialLink.settle`)."""


class DeviceError(RuntimeError):
    """The device did not give a valid answer within the allowed attempts."""

    def __init__(self, port: str, what: str, attempts: list[str]) -> None:
        self.port = port
        self.what = what
        self.attempts = attempts
        detail = "; ".join(f"attempt {index}: {reason}" for index, reason in enumerate(attempts, start=1))
        super().__init__(f"{port}: {what} failed after {len(attempts)} attempt(s): {detail}")


class StaleReply(Exception):
    """A well-formed reply that does not answer the request awaited: an earlier request's late reply, another
    game's or transaction's frame (its number or echo does not match). Raised by an ``accept`` given to
    :meth:`SerialLink.transact`, which discards the line, counts it (``stale_replies``), notes it in the wire
    log, and reads on without spending an attempt. It is never a value."""

    def __init__(self, reason: str, raw: bytes = b"") -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


class FrameError(ValueError):
    """A received frame is malformed (bad checksum, bad field); carries the raw bytes."""

    def __init__(self, message: str, raw: bytes) -> None:
        super().__init__(f"{message}: {raw!r}")
        self.raw = raw


@dataclass
class WireLog:
    """JSON-lines log of every frame on a link: time, direction, bytes."""

    path: Path | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, direction: str, data: bytes, note: str = "") -> None:
        if self.path is None:
            return
        entry = {
            "t": time.time(),
            "dir": direction,
            "hex": data.hex(),
            "text": data.decode("ascii", errors="backslashreplace"),
        }
        if note:
            entry["note"] = note
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")


@dataclass(frozen=True)
class LinkSettings:
    """How to open and talk to a serial device."""

    port: str
    baudrate: int = 9600
    bytesize: int = 8
    parity: str = "N"
    stopbits: int = 1
    timeout_s: float = 2.0
    retries: int = 3
    open_attempts: int = 5
    open_backoff_s: float = 0.2


class SerialLink:
    """A line-oriented serial link with bounded timeouts, retries and a wire log."""

    def __init__(self, settings: LinkSettings, wire_log: WireLog | None = None) -> None:
        self.settings = settings
        self.wire_log = wire_log or WireLog()
        self._port: serial.SerialBase | None = None
        self._buffer = bytearray()
        self.reconnects = 0
        """How many times the link was closed and reopened after a link failure (evidence of disconnects)."""
        self.stale_replies = 0
        """Replies discarded because they answered another request (late, another game or transaction)."""
        self.last_attempts = 0
        """Attempts (requests sent, or reads begun) the last :meth:`transact` used; more than 1 after a retry."""
        self.last_stale = 0
        """Stale replies the last :meth:`transact` discarded."""
        self._late_until = 0.0

    # -- connection ---------------------------------------------------------

    def open(self) -> None:
        """Open the port, retrying a bounded number of times."""
        reasons: list[str] = []
        for attempt in range(self.settings.open_attempts):
            try:
                self._port = serial.serial_for_url(
                    self.settings.port,
                    baudrate=self.settings.baudrate,
                    bytesize=self.settings.bytesize,
                    parity=self.settings.parity,
                    stopbits=self.settings.stopbits,
                    timeout=min(0.05, self.settings.timeout_s),
                )
                self._buffer.clear()
                self.wire_log.record("event", b"", note=f"opened {self.settings.port}")
                return
            except (*LINK_FAILURES, ValueError) as error:
                reasons.append(str(error))
                if attempt + 1 < self.settings.open_attempts:
                    time.sleep(self.settings.open_backoff_s * (attempt + 1))
        raise DeviceError(self.settings.port, "open", reasons)

    def close(self) -> None:
        """Close the port; a port that fails while closing (unplugged, hung up) is recorded and dropped."""
        if self._port is not None:
            try:
                self._port.close()
            except LINK_FAILURES as error:
                self.wire_log.record("event", b"", note=f"close failed: {error}")
            finally:
                self._port = None
                self.wire_log.record("event", b"", note="closed")

    def reconnect(self) -> None:
        """Close and re-open after a disconnect (bounded attempts; DeviceError when the port does not come back)."""
        self.reconnects += 1
        self.wire_log.record("event", b"", note="reconnecting")
        self.close()
        self.open()

    @property
    def is_open(self) -> bool:
        return self._port is not None and self._port.is_open

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- frames -------------------------------------------------------------

    def write_line(self, line: bytes) -> None:
        if self._port is None:
            raise serial.SerialException("port is not open")
        self.wire_log.record("tx", line)
        self._port.write(line)
        self._port.flush()

    def read_line(self, timeout_s: float | None = None, terminator: bytes = b"\n") -> bytes | None:
        """One line including its terminator, or ``None`` when none arrives in time."""
        if self._port is None:
            raise serial.SerialException("port is not open")
        deadline = time.monotonic() + (self.settings.timeout_s if timeout_s is None else timeout_s)
        while True:
            position = self._buffer.find(terminator)
            if position >= 0:
                line = bytes(self._buffer[: position + len(terminator)])
                del self._buffer[: position + len(terminator)]
                self.wire_log.record("rx", line)
                return line
            if time.monotonic() >= deadline:
                if self._buffer:
                    self.wire_log.record("rx-partial", bytes(self._buffer), note="no terminator before timeout")
                return None
            chunk = self._port.read(max(1, self._port.in_waiting))
            if chunk:
                self._buffer.extend(chunk)

    def discard_input(self) -> None:
        """Drop whatever is buffered (after a garbled exchange). A port that fails here (a pulled cable) is left
        as it is: the next write fails and costs the reconnect."""
        if self._port is not None:
            try:
                stale = bytes(self._buffer) + self._port.read(self._port.in_waiting or 0)
            except LINK_FAILURES as error:
                stale = bytes(self._buffer)
                self.wire_log.record("event", b"", note=f"cannot discard input: {error}")
            if stale:
                self.wire_log.record("rx-discarded", stale)
        self._buffer.clear()

    def late_reply_possible(self, sent_at: float) -> None:
        """An attempt sent at ``sent_at`` (monotonic) got no reply in time: its reply may still come, until
        :data:`LATE_REPLY_WINDOW` link timeouts after it was sent (a query's reply is due within one)."""
        self._late_until = max(self._late_until, sent_at + LATE_REPLY_WINDOW * self.settings.timeout_s)

    def settle(self) -> int:
        """Before a request whose reply nothing ties to it: wait until no late reply to an earlier timed-out attempt
        can still come, and discard what arrived (counted in ``stale_replies``); the number of lines discarded."""
        remaining = self._late_until - time.monotonic()
        if remaining <= 0 or self._port is None:
            return 0
        self.wire_log.record("event", b"", note=f"waiting {remaining:.2f} s for late replies before the next query")
        time.sleep(remaining)
        self._late_until = 0.0
        try:
            stale = bytes(self._buffer) + self._port.read(self._port.in_waiting or 0)
        except LINK_FAILURES as error:
            stale = bytes(self._buffer)
            self.wire_log.record("event", b"", note=f"cannot discard input: {error}")
        self._buffer.clear()
        if not stale:
            return 0
        lines = max(1, stale.count(b"\n"))
        self.stale_replies += lines
        self.wire_log.record("rx-discarded", stale, note=f"{lines} late reply line(s) discarded before the next query")
        return lines

    def transact(
        self,
        request: bytes | None,
        accept: Callable[[bytes], T | None],
        *,
        what: str,
        timeout_s: float | None = None,
        retries: int | None = None,
        settle: bool = False,
    ) -> T:
        """Send ``request`` and read lines until ``accept`` returns a value.

        ``accept`` returns ``None`` for a valid frame that is not the awaited
        reply (an unsolicited status, say), raises :class:`StaleReply` for a
        frame of the awaited kind that answers another request (its number or
        echo does not match: discarded, counted in ``stale_replies`` and noted
        in the wire log, never returned) and raises :class:`FrameError` for a
        garbled one. A timeout or a garbled reply costs one attempt; the
        request is sent again, after a reconnect if the port failed. With
        ``settle`` (a reply that carries nothing tying it to its request, such
        as an identity or a display text) the link first waits out any late
        reply to an earlier timed-out attempt (:meth:`settle`).
        """
        attempts: list[str] = []
        allowed = 1 + (self.settings.retries if retries is None else retries)
        self.last_attempts = 0
        self.last_stale = 0
        for _ in range(allowed):
            self.last_attempts += 1
            try:
                if not self.is_open:
                    self.open()  # a port that does not come back: DeviceError naming the open attempts
                if settle:
                    self.settle()
                sent_at = time.monotonic()
                if request is not None:
                    self.write_line(request)
                wait_s = self.settings.timeout_s if timeout_s is None else timeout_s
                deadline = time.monotonic() + wait_s
                while True:
                    remaining = deadline - time.monotonic()
                    line = self.read_line(timeout_s=max(0.0, remaining))
                    if line is None:
                        attempts.append(f"no reply within {wait_s:g} s")
                        if request is not None:
                            self.late_reply_possible(sent_at)
                        break
                    try:
                        value = accept(line)
                    except StaleReply as stale:
                        self.stale_replies += 1
                        self.last_stale += 1
                        self.wire_log.record("rx-discarded", line,
                                             note=f"stale reply discarded while awaiting {what}: {stale.reason}")
                        continue
                    if value is not None:
                        return value
            except FrameError as error:
                attempts.append(f"garbled reply ({error})")
                self.discard_input()
            except LINK_FAILURES as error:
                attempts.append(f"link failure ({error})")
                try:
                    self.reconnect()
                except DeviceError as reopen:
                    attempts.append(f"reconnect failed ({reopen})")
        raise DeviceError(self.settings.port, what, attempts)

    # -- bytes (binary protocols such as SAS) ---------------------------------

    def write_bytes(self, data: bytes, note: str = "") -> None:
        """Write raw bytes and wait until they are sent (logged as one ``tx`` entry)."""
        if self._port is None:
            raise serial.SerialException("port is not open")
        self.wire_log.record("tx", data, note=note)
        self._port.write(data)
        self._port.flush()

    def read_bytes(self, count: int, timeout_s: float | None = None, note: str = "") -> bytes:
        """Up to ``count`` bytes: all of them, or fewer when the timeout ends first (logged as one ``rx`` entry)."""
        if self._port is None:
            raise serial.SerialException("port is not open")
        deadline = time.monotonic() + (self.settings.timeout_s if timeout_s is None else timeout_s)
        while len(self._buffer) < count and time.monotonic() < deadline:
            chunk = self._port.read(max(1, min(count - len(self._buffer), self._port.in_waiting)))
            if chunk:
                self._buffer.extend(chunk)
        data = bytes(self._buffer[:count])
        del self._buffer[:count]
        if data:
            short = f"got {len(data)} of {count} byte(s) before the timeout" if len(data) < count else ""
            self.wire_log.record("rx", data, note="; ".join(filter(None, [note, short])))
        return data

    def set_parity(self, parity: str) -> None:
        """Switch the parity of the open port (``"M"``, ``"S"``, …) after the bytes already written are sent."""
        if self._port is None:
            raise serial.SerialException("port is not open")
        self._port.flush()
        self._port.parity = parity
