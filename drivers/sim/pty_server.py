"""Serve a line-protocol device simulator on a pseudo-terminal.

The simulator process opens a pty pair, puts the slave side in raw mode and
announces its path on standard output as ``TTY <path>``: a driver then opens
that path exactly as it would open ``/dev/ttyUSB0``. The simulator keeps the
slave side open itself so that the path stays valid while drivers come and go
(a reconnect finds the device still there).

Pseudo-terminals carry no parity or break conditions; protocols here are
framed in-band (start character, checksum, CR LF).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import termios
import time
import tty
from collections.abc import Callable, Iterable

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
    playing), and write both's replies when due, through the line faults (:mod:`drivers.sim.wire_faults`) if any."""
    wire = FaultyWire(faults) if faults is not None and faults.any else None
    master, slave, path = open_pty()
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    (announce or (lambda p: print(f"TTY {p}", flush=True)))(path)
    pending: list[tuple[float, bytes]] = []  # (due time, bytes)
    next_tick = time.monotonic()
    try:
        while not stopping:
            now = time.monotonic()
            wake = min([due for due, _ in pending] + ([next_tick] if tick else []), default=now + 0.2)
            try:
                readable, _, _ = select.select([master], [], [], min(max(0.0, wake - now), 0.2))
            except InterruptedError:
                continue
            replies: list[Reply] = []
            if readable:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    chunk = b""
                if chunk:
                    replies.extend(handler(chunk))
            if tick is not None and time.monotonic() >= next_tick:
                replies.extend(tick())
                next_tick = time.monotonic() + tick_interval_s
            if wire is not None:
                replies = [shaped for reply in replies for shaped in wire.shape(reply)]
            for delay, data in replies:
                pending.append((time.monotonic() + delay, data))
            pending.sort(key=lambda item: item[0])
            now = time.monotonic()
            while pending and pending[0][0] <= now:
                _, data = pending.pop(0)
                os.write(master, data)
    finally:
        os.close(master)
        os.close(slave)
        sys.stdout.flush()
