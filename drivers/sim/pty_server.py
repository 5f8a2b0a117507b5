"""Serve a line-protocol device simulator on a pseudo-terminal.

The simulator process opens a pty pair, puts the slave side in raw mode and
announces its path on standard output as ``TTY <path>``: a driver then opens
that path exactly as it would open ``/dev/ttyUSB0``. The simulator keeps the
slave side open itself so that the path stays valid while drivers come and go
(a reconnect finds the device still there).

A simulator whose line faults include ``hangup`` disconnects (:class:`bench.profiles.base.WireFaults`)
announces a stable symbolic link instead, as udev gives a USB adapter a stable name: a disconnect
closes the pty (the driver's reads and writes fail with EIO, and the link disappears, so a reopen
fails too), and after ``disconnect_s`` a new pty is opened behind the same link, where the
driver's reconnect finds it.

Pseudo-terminals carry no parity or break conditions; protocols here are
framed in-band (start character, checksum, CR LF).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import tempfile
import termios
import time
import tty
from collections.abc import Callable, Iterable
from pathlib import Path

from bench.profiles.base import WireFaults
from drivers.sim.wire_faults import FaultyWire, Reply

Handler = Callable[[bytes], Iterable[Reply]]


def open_pty() -> tuple[int, int, str]:
    """A raw pty pair: (master fd, slave fd, slave path)."""
    master, slave = os.openpty()
    tty.setraw(slave, termios.TCSANOW)
    attributes = termios.tcgetattr(slave)
    attributes[3] &= ~termios.ECHO
    termios.tcsetattr(slave, termios.TCSANOW, attributes)
    return master, slave, os.ttyname(slave)


class PtyLine:
    """The simulator's end of its serial line: a raw pty, behind a stable symbolic link when it can be unplugged."""

    def __init__(self, unpluggable: bool = False) -> None:
        self._folder = Path(tempfile.mkdtemp(prefix="bench-sim-tty-")) if unpluggable else None
        self.master: int | None = None
        self._slave: int | None = None
        pts = self.plug()
        self.path = str(self._folder / "tty") if self._folder is not None else pts

    @property
    def plugged(self) -> bool:
        return self.master is not None

    def plug(self) -> str:
        """Open a new pty (and point the stable link at it); its slave path."""
        self.master, self._slave, pts = open_pty()
        if self._folder is not None:
            temporary = self._folder / "tty.new"
            temporary.unlink(missing_ok=True)
            temporary.symlink_to(pts)
            temporary.replace(self._folder / "tty")  # atomic: a driver never opens a half-made link
        return pts

    def unplug(self) -> None:
        """Close the pty: the driver's open port is hung up and, behind a stable link, cannot be reopened."""
        if self._folder is not None:
            (self._folder / "tty").unlink(missing_ok=True)
        for fd in (self.master, self._slave):
            if fd is not None:
                os.close(fd)
        self.master = self._slave = None

    def close(self) -> None:
        self.unplug()
        if self._folder is not None:
            for leftover in self._folder.iterdir():
                leftover.unlink()
            self._folder.rmdir()


def serve_lines(handler: Handler, *, announce: Callable[[str], None] | None = None,
                faults: WireFaults | None = None) -> None:
    """Run until SIGTERM/SIGINT: read CR LF lines from the pty, write the handler's replies (through the
    line faults, if any)."""
    buffer = bytearray()

    def split_lines(chunk: bytes) -> list[Reply]:
        buffer.extend(chunk)
        replies: list[Reply] = []
        while (end := buffer.find(b"\n")) >= 0:
            line = bytes(buffer[: end + 1])
            del buffer[: end + 1]
            replies.extend(handler(line))
        return replies

    serve_bytes(split_lines, announce=announce, faults=faults)


def serve_bytes(
    handler: Callable[[bytes], Iterable[Reply]],
    *,
    tick: Callable[[], Iterable[Reply]] | None = None,
    tick_interval_s: float = 0.02,
    announce: Callable[[str], None] | None = None,
    faults: WireFaults | None = None,
) -> None:
    """Run until SIGTERM/SIGINT: hand every chunk read from the pty to ``handler`` (a byte protocol does its own
    framing), call ``tick`` about every ``tick_interval_s`` (a device that acts on its own, such as a slot machine
    playing), and write both's replies when due, through the line faults (:mod:`drivers.sim.wire_faults`) if any.

    A disconnect fault takes the line down after a batch of replies (lost with it) for ``faults.disconnect_s``:
    the pty is closed and reopened behind the announced link (``hangup``), or everything either way is dropped
    (``silence``). The device itself keeps running (``tick`` is still called) and keeps its state.
    """
    wire = FaultyWire(faults) if faults is not None and faults.any else None
    hangups = faults is not None and faults.disconnect_rate > 0 and faults.disconnect_model == "hangup"
    line = PtyLine(unpluggable=hangups)
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    (announce or (lambda p: print(f"TTY {p}", flush=True)))(line.path)
    pending: list[tuple[float, bytes]] = []  # (due time, bytes)
    next_tick = time.monotonic()
    down_until: float | None = None  # the line is down (disconnected) until then
    try:
        while not stopping:
            now = time.monotonic()
            if down_until is not None and now >= down_until:
                down_until = None
                if not line.plugged:
                    line.plug()
            wake = min([due for due, _ in pending] + ([next_tick] if tick else [])
                       + ([down_until] if down_until is not None else []), default=now + 0.2)
            wait_s = min(max(0.0, wake - now), 0.2)
            readable: list[int] = []
            if line.master is not None:
                try:
                    readable, _, _ = select.select([line.master], [], [], wait_s)
                except InterruptedError:
                    continue
            else:
                time.sleep(wait_s)
            replies: list[Reply] = []
            if readable and line.master is not None:
                try:
                    chunk = os.read(line.master, 4096)
                except OSError:
                    chunk = b""
                if chunk and down_until is None:
                    replies.extend(handler(chunk))
            if tick is not None and time.monotonic() >= next_tick:
                replies.extend(tick())
                next_tick = time.monotonic() + tick_interval_s
            if down_until is not None:
                replies = []  # the line is down: nothing gets through
            elif wire is not None and any(data for _, data in replies) and wire.disconnects():
                assert faults is not None
                replies = []
                pending.clear()
                down_until = time.monotonic() + faults.disconnect_s
                if faults.disconnect_model == "hangup":
                    line.unplug()
            elif wire is not None:
                replies = [shaped for reply in replies for shaped in wire.shape(reply)]
            for delay, data in replies:
                pending.append((time.monotonic() + delay, data))
            pending.sort(key=lambda item: item[0])
            now = time.monotonic()
            while pending and pending[0][0] <= now and line.master is not None:
                _, data = pending.pop(0)
                os.write(line.master, data)
    finally:
        line.close()
        sys.stdout.flush()
