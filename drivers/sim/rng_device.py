"""Simulated RNG test interface speaking the RG protocol.

Models of the generator (the profile's ``simulator.model``):

* ``fair``: a strong generator (numpy PCG64); block ``b`` of raw output comes from its own
  generator seeded with ``(seed, b)``, so a restarted simulator continues reproducibly.
* ``biased-bits``: every output bit is 1 with probability ``one_probability``.
* ``lcg-low-byte``: the low byte of the ANSI C example LCG x ← 1103515245·x + 12345 mod 2^31
  (period 256 in that byte): the classic weak generator.

The game's mapping from raw output to outcomes (``draw_mapping``): ``rejection`` (unbiased:
raw 32-bit values at or above the largest multiple of the range are redrawn) or ``modulo``
(``raw % range`` on ``raw_bits``-bit values, biased unless the range divides 2^raw_bits).
``garble_rate`` corrupts that share of reply frames (checksum), to exercise the driver's
retries. Block counters and the LCG state live in the state file (non-volatile memory).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from bench.profiles.model import RngSimulator
from drivers.line_frame import encode_identity
from drivers.rng_protocol import MAX_DRAW_COUNT, MAX_RAW_BYTES, decode, encode
from drivers.serial_link import FrameError
from drivers.sim.line_simulator import run_line_simulator
from drivers.sim.pty_server import Handler, Reply
from drivers.sim.state_file import load_state, save_state
from drivers.sim.wire_faults import ChecksumGarbler

_LCG_MULTIPLIER, _LCG_INCREMENT, _LCG_MODULUS = 1103515245, 12345, 1 << 31


class RngModel:
    """The generator and the game's outcome mapping, with persistent counters."""

    def __init__(self, config: RngSimulator, state_file: Path | None = None) -> None:
        self.config = config
        self.state_file = state_file
        state = load_state(state_file, "RNG interface")
        self.raw_blocks = int(state.get("raw_blocks", 0))
        self.draw_blocks = int(state.get("draw_blocks", 0))
        self.lcg_state = int(state.get("lcg_state", config.seed % _LCG_MODULUS))

    def _save(self) -> None:
        save_state(self.state_file, {"raw_blocks": self.raw_blocks, "draw_blocks": self.draw_blocks,
                                     "lcg_state": self.lcg_state})

    def _lcg_bytes(self, size: int) -> bytes:
        out = np.empty(size, dtype=np.uint8)
        state = self.lcg_state
        for index in range(size):  # the weak model only; a sequential recurrence by nature
            state = (_LCG_MULTIPLIER * state + _LCG_INCREMENT) % _LCG_MODULUS
            out[index] = state & 0xFF
        self.lcg_state = state
        return out.tobytes()

    def _raw(self, size: int, stream: str, block: int) -> bytes:
        generator = np.random.default_rng([self.config.seed, 0 if stream == "raw" else 1, block])
        if self.config.model == "lcg-low-byte":
            return self._lcg_bytes(size)
        if self.config.model == "biased-bits":
            bits = (generator.random(size * 8) < self.config.one_probability).astype(np.uint8)
            return np.packbits(bits).tobytes()
        return generator.bytes(size)

    def raw(self, size: int) -> tuple[int, bytes]:
        """The next raw block: (block number, bytes)."""
        self.raw_blocks += 1
        data = self._raw(size, "raw", self.raw_blocks)
        self._save()
        return self.raw_blocks, data

    def draw(self, outcome_range: int, count: int) -> tuple[int, list[int]]:
        """The next ``count`` outcomes through the game's mapping: (block number, values)."""
        self.draw_blocks += 1
        block = self.draw_blocks
        if self.config.draw_mapping == "modulo":
            width = self.config.raw_bits // 8
            raw = np.frombuffer(self._raw(count * width, "draw", block), dtype=np.uint8).reshape(count, width)
            values = np.zeros(count, dtype=np.uint64)
            for column in range(width):
                values = (values << np.uint64(8)) | raw[:, column].astype(np.uint64)
            outcomes = (values % np.uint64(outcome_range)).astype(int).tolist()
        else:
            limit = (1 << 32) // outcome_range * outcome_range
            outcomes = []
            attempt = 0
            while len(outcomes) < count:
                raw = np.frombuffer(self._raw(4 * (count + 8), "draw", block * 1000 + attempt), dtype=">u4")
                accepted = raw[raw < limit] % outcome_range
                outcomes.extend(int(value) for value in accepted[: count - len(outcomes)])
                attempt += 1
        self._save()
        return block, outcomes


class RngDeviceSimulator:
    """Answers RG protocol requests for one :class:`RngModel`."""

    def __init__(self, model: RngModel, identity: dict[str, str]) -> None:
        self.model = model
        self.identity = identity
        self.replies = 0
        self._garble = ChecksumGarbler(model.config.garble_rate, model.config.seed, 2)

    def _maybe_garble(self, frame: bytes) -> bytes:
        self.replies += 1
        return self._garble(frame)

    def handle(self, line: bytes) -> Iterable[Reply]:
        try:
            frame = decode(line)
        except FrameError:
            return [(0.0, encode("NAK", "?", "BAD_FRAME"))]
        if frame.type == "ID?":
            return [(0.0, encode_identity(self.identity))]
        if frame.type == "RAW?":
            try:
                size = int(frame.fields[0])
            except (IndexError, ValueError):
                return [(0.0, encode("NAK", "RAW?", "BAD_SIZE"))]
            if not 1 <= size <= MAX_RAW_BYTES:
                return [(0.0, encode("NAK", "RAW?", "SIZE_OUT_OF_RANGE"))]
            block, data = self.model.raw(size)
            return [(0.0, self._maybe_garble(encode("RAW", block, data.hex().upper())))]
        if frame.type == "DRAW?":
            try:
                outcome_range, count = int(frame.fields[0]), int(frame.fields[1])
            except (IndexError, ValueError):
                return [(0.0, encode("NAK", "DRAW?", "BAD_FIELDS"))]
            if not 2 <= outcome_range <= 1 << 16 or not 1 <= count <= MAX_DRAW_COUNT:
                return [(0.0, encode("NAK", "DRAW?", "OUT_OF_RANGE"))]
            block, values = self.model.draw(outcome_range, count)
            return [(0.0, self._maybe_garble(encode("DRAW", block, *values)))]
        return [(0.0, encode("NAK", frame.type, "UNKNOWN_COMMAND"))]


def boot(simulator: RngSimulator, config: dict[str, Any], state_file: Path | None) -> Handler:
    """What the interface does at power-up: reload its non-volatile memory."""
    return RngDeviceSimulator(RngModel(simulator, state_file), config.get("identity", {})).handle


def main(argv: list[str] | None = None) -> int:
    return run_line_simulator("Simulated RNG test interface (RG protocol) on a pseudo-terminal", RngSimulator, boot,
                              argv)

if __name__ == "__main__":
    sys.exit(main())
