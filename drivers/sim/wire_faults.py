"""Line faults injected into a simulator's replies: dropped bytes, flipped bits, late replies, garbage, silence,
disconnects.

A real serial line loses and corrupts bytes; a device answers late or not at all. A simulator
configured with :class:`bench.profiles.base.WireFaults` shapes each reply it sends through
:class:`FaultyWire`, so the drivers' retries and their reports are exercised on the very bytes
a driver reads. Each fault is drawn independently per reply from a generator seeded with the
faults' ``seed``: the same run gives the same faults. A disconnect (the line going down after a
reply, which is lost with it) is drawn by :meth:`FaultyWire.disconnects` and carried out by the
server (:func:`drivers.sim.pty_server.serve_bytes`), which owns the line.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from bench.profiles.base import WireFaults
from drivers.line_frame import corrupt_checksum

Reply = tuple[float, bytes]
"""A simulator's reply: (delay in seconds before sending, bytes)."""


class FaultyWire:
    """Applies :class:`WireFaults` to replies and counts what it did (``injected``)."""

    def __init__(self, faults: WireFaults) -> None:
        self.faults = faults
        self._rng = np.random.default_rng([faults.seed, 0xFA17])
        self.injected: Counter[str] = Counter()

    def _hit(self, rate: float) -> bool:
        return bool(rate) and bool(self._rng.random() < rate)

    def disconnects(self) -> bool:
        """Whether the line goes down after the replies now due (one draw per batch of replies, counted)."""
        if self._hit(self.faults.disconnect_rate):
            self.injected["disconnect"] += 1
            return True
        return False

    def shape(self, reply: Reply) -> list[Reply]:
        """The reply as the line delivers it: possibly damaged, delayed, preceded by garbage, or gone."""
        delay, data = reply
        faults = self.faults
        if not data or not faults.any:
            return [reply]
        if self._hit(faults.silent_rate):
            self.injected["silent"] += 1
            return []
        shaped = bytearray(data)
        if self._hit(faults.dropped_byte_rate):
            self.injected["dropped-byte"] += 1
            del shaped[int(self._rng.integers(len(shaped)))]
        if shaped and self._hit(faults.flipped_bit_rate):
            self.injected["flipped-bit"] += 1
            shaped[int(self._rng.integers(len(shaped)))] ^= 1 << int(self._rng.integers(8))
        if self._hit(faults.late_rate):
            self.injected["late"] += 1
            delay += faults.late_s
        replies: list[Reply] = []
        if self._hit(faults.garbage_rate):
            self.injected["garbage"] += 1
            replies.append((delay, self._rng.integers(0, 256, int(self._rng.integers(1, 16)), dtype=np.uint8).tobytes()))
        replies.append((delay, bytes(shaped)))
        return replies


class ChecksumGarbler:
    """The line simulators' garbled-reply fault (their ``garble_rate``): that share of reply frames is sent
    with a wrong checksum, drawn from a generator seeded with ``(seed, stream)``."""

    def __init__(self, rate: float, seed: int, stream: int) -> None:
        self.rate = rate
        self._rng = np.random.default_rng([seed, stream])

    def __call__(self, frame: bytes) -> bytes:
        """``frame``, or the same frame with a corrupted checksum."""
        if self.rate and self._rng.random() < self.rate:
            return corrupt_checksum(frame)
        return frame
