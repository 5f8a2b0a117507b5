"""Simulated cussec dome controller speaking the CD protocol, behind a pseudo-terminal.

Round ``n``'s dice are :func:`dome_dice` of ``(seed, n)``: the one function that says which faces the dice
in the dome show. The simulated camera over the dome (:mod:`drivers.sim.dome_camera`) calls it with the
round number it reads from this simulator's state file, the dome's physical state, so the camera renders
the very dice thrown, and shows the truth when the controller's own sensor misreads them.

Everything else of round ``n`` (stroke times, lamp delay, when the cover is lifted, the controller's
misreads) comes from its own generator seeded with ``(seed, n)``: a round is the same however often it is
asked for. The state file (the controller's non-volatile memory) keeps the last round played and the last
``PLAY`` transaction, so a restarted controller continues the numbering and answers a repeated ``PLAY``
again without playing twice.

Fault models: see :class:`bench.profiles.cussec_dome.CussecDomeSimulator`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from bench.games.cussec import winning_zones
from bench.profiles.cussec_dome import CussecDomeSimulator
from drivers.cussec_dome_protocol import decode, encode, encode_round
from drivers.line_frame import encode_identity
from drivers.serial_link import FrameError
from drivers.sim.line_simulator import run_line_simulator
from drivers.sim.pty_server import Handler, Reply
from drivers.sim.state_file import load_state, save_state
from drivers.sim.wire_faults import ChecksumGarbler

_DICE_STREAM = 0xD1CE
_ROUND_STREAM = 0x0D0E
_GARBLE_STREAM = 0x6A
BETTING_MS = (20_000, 45_000)
"""The simulated betting period, from the lamp to the bell (ms)."""


def dome_dice(seed: int, number: int) -> tuple[int, int, int]:
    """The faces the three dice in the dome show after round ``number`` (fair dice, seeded by round)."""
    rng = np.random.default_rng([seed, number, _DICE_STREAM])
    first, second, third = (int(face) for face in rng.integers(1, 7, 3))
    return first, second, third


def read_dome_round(state_file: Path | None) -> int:
    """The last round a simulated dome played, from its state file (0 before the first)."""
    return int(load_state(state_file, "cussec dome").get("round", 0))


class DomeModel:
    """The simulated dome: rounds, non-volatile state, fault models."""

    def __init__(self, config: CussecDomeSimulator, state_file: Path | None = None) -> None:
        self.config = config
        self.state_file = state_file
        state = load_state(state_file, "cussec dome")
        self.last = int(state.get("round", 0))
        self.tx = int(state.get("tx", 0))
        self.tx_round = int(state.get("tx_round", 0))
        self.busy_until = 0.0

    def _save(self) -> None:
        save_state(self.state_file, {"round": self.last, "tx": self.tx, "tx_round": self.tx_round})

    def play(self, tx: int | None = None) -> int:
        """Play the next round (the dice jump, the controller logs it): by the actuator (transaction ``tx``) or
        by the dealer (None); its number."""
        self.last += 1
        if tx is not None:
            self.tx, self.tx_round = tx, self.last
        self.busy_until = time.monotonic() + self.config.round_time_s
        self._save()
        return self.last

    def believed_dice(self, number: int, rng: np.random.Generator) -> tuple[int, ...]:
        """The dice the controller's sensor reads: the true faces, one die wrong under ``sensor-misread``."""
        faces = list(dome_dice(self.config.seed, number))
        if self.config.model == "sensor-misread" and rng.random() < self.config.misread_rate:
            die = int(rng.integers(3))
            faces[die] = int(rng.choice([face for face in range(1, 7) if face != faces[die]]))
        return tuple(faces)

    def lit_zones(self, faces: Iterable[int]) -> list[str]:
        zones = list(winning_zones(faces))
        if self.config.model == "zone-miswired":  # each of the two zones' lamps is wired to the other's chance
            swap = {self.config.miswired_zone: self.config.miswired_with,
                    self.config.miswired_with: self.config.miswired_zone}
            zones = [swap.get(name, name) for name in zones]
        return zones

    def round_frames(self, number: int) -> list[bytes]:
        """Round ``number``'s log (the same whenever it is asked for)."""
        rng = np.random.default_rng([self.config.seed, number, _ROUND_STREAM])
        model = self.config.model
        t = int(rng.integers(300, 900))  # latched at 0, first press after the dealer's hand reaches the lever
        strokes = []
        for _ in range(3):
            strokes.append(t)
            t += int(rng.integers(350, 700))
        if model == "short-shake":
            strokes = strokes[1:]  # the first press slips on the linkage: the disc does not move
            lamp_ms, lamp_by = strokes[-1] + int(rng.integers(50, 400)), "AUTO"
        elif model == "lamp-manual":
            lamp_ms, lamp_by = strokes[-1] + int(rng.integers(1500, 6000)), "MANUAL"
        else:
            lamp_ms, lamp_by = strokes[-1] + int(rng.integers(50, 400)), "AUTO"
        opened_ms = lamp_ms + int(rng.integers(*BETTING_MS)) + int(rng.integers(2000, 4000))  # bell, announcement
        zones_ms = opened_ms + int(rng.integers(500, 3000))
        believed = self.believed_dice(number, rng)
        mode = "BENCH" if self.config.actuator else "DEALER"  # with an actuator, only the bench plays rounds
        return encode_round(number, mode, strokes, lamp_ms, lamp_by, opened_ms, zones_ms, believed,
                            self.lit_zones(believed))

    def in_progress(self) -> bool:
        return time.monotonic() < self.busy_until


class DomeDevice:
    """Answers CD requests for one :class:`DomeModel`."""

    def __init__(self, model: DomeModel, identity: dict[str, str]) -> None:
        self.model = model
        self.identity = identity
        self.garble = ChecksumGarbler(model.config.garble_rate, model.config.seed, _GARBLE_STREAM)

    def _send(self, frames: Iterable[bytes]) -> list[Reply]:
        return [(0.0, self.garble(frame)) for frame in frames]

    def _status(self) -> bytes:
        model = self.model
        busy = model.in_progress()  # during a round: latched, lamp lit after the strokes (a simplification)
        strokes = 3 if busy else 0
        return encode("STATUS", model.tx, model.last, int(busy), int(busy and model.config.model != "lamp-manual"),
                      strokes, int(model.config.actuator))

    def _play(self, fields: tuple[str, ...]) -> list[Reply]:
        model = self.model
        if not model.config.actuator:
            return [(0.0, encode("NAK", "PLAY", "NO_ACTUATOR"))]
        if len(fields) != 1 or not fields[0].isdigit() or int(fields[0]) < 1:
            return [(0.0, encode("NAK", "PLAY", "BAD_TX"))]
        tx = int(fields[0])
        if tx == model.tx and model.tx_round:
            return self._send([encode("ACK", tx, "PLAY", model.tx_round)])  # a repeat: answered, not played again
        if tx != model.tx + 1:
            return [(0.0, encode("NAK", "PLAY", "BAD_SEQUENCE"))]
        if model.in_progress():
            return [(0.0, encode("NAK", "PLAY", "BUSY"))]
        return self._send([encode("ACK", tx, "PLAY", model.play(tx))])

    def handle(self, line: bytes) -> list[Reply]:
        try:
            frame = decode(line)
        except FrameError:
            return [(0.0, encode("NAK", "?", "BAD_FRAME"))]
        if frame.type == "ID?":
            return self._send([encode_identity(self.identity)])
        if frame.type == "STATUS?":
            return self._send([self._status()])
        if frame.type == "PLAY":
            return self._play(frame.fields)
        if frame.type == "ROUND?":
            if len(frame.fields) != 1 or not frame.fields[0].isdigit() or int(frame.fields[0]) < 1:
                return [(0.0, encode("NAK", "ROUND?", "BAD_ROUND"))]
            number = int(frame.fields[0])
            model = self.model
            if number == model.last + 1 and not model.config.actuator:
                model.play()  # the simulated dealer is always ready: the round is played now
            if number > model.last or (number == model.last and model.in_progress()):
                return [(0.0, encode("NAK", "ROUND?", "NOT_PLAYED"))]
            return self._send(model.round_frames(number))
        return [(0.0, encode("NAK", frame.type, "UNKNOWN_COMMAND"))]


def boot(simulator: CussecDomeSimulator, config: dict[str, Any], state_file: Path | None) -> Handler:
    """What the controller's firmware does at power-up: reload its last round and transaction."""
    return DomeDevice(DomeModel(simulator, state_file), config.get("identity", {})).handle


def main(argv: list[str] | None = None) -> int:
    return run_line_simulator("Simulated cussec dome controller (CD protocol) on a pseudo-terminal",
                              CussecDomeSimulator, boot, argv)


__all__ = ["DomeDevice", "DomeModel", "boot", "dome_dice", "read_dome_round"]

if __name__ == "__main__":
    sys.exit(main())
