"""Simulated automated roulette wheel speaking the RW protocol.

The model draws each game's pocket from the wheel's pocket probabilities
(fair, or an arc of adjacent pockets favoured: ``sector-bias``), launches the
ball alternately clockwise and anticlockwise with the rotor turning the other
way (p217-2007/roleta-francesa/13), and can inject faults: co-rotation, no
alternation, void games ("no result"), garbled result frames.

Game ``g`` is drawn from its own generator seeded with ``(seed, g)``, and the
game counter is kept in a state file (the wheel's non-volatile memory), so a
restarted simulator continues where it stopped, reproducibly.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.games.roulette_layout import Direction, arc, order_for
from bench.profiles.model import RouletteSimulator
from drivers.line_frame import corrupt_checksum, encode_identity
from drivers.roulette_protocol import FrameError, decode, encode
from drivers.sim.line_simulator import run_line_simulator
from drivers.sim.pty_server import Handler, Reply
from drivers.sim.state_file import load_counter, save_state


def read_game_counter(state_file: Path | None) -> int:
    """The last game number a simulated wheel started, from its state file (0 before the first game)."""
    return load_counter(state_file, "game", "wheel")


@dataclass(frozen=True)
class PhysicalGame:
    """One simulated game as it physically happened, and what the wheel's sensor reports of it."""

    game: int
    ball: Direction
    rotor: Direction
    rotor_rpm: float
    reported_rotor: Direction
    """The rotor direction the wheel's sensor reports (differs from ``rotor`` under ``co-rotation-misreported``)."""
    number: int
    """The pocket the ball rests in."""
    reported_number: int
    """What the wheel's sensor reports (differs from ``number`` under ``sensor_error_rate``)."""
    misread: bool
    garble: bool


class WheelModel:
    """The physics-free statistical model of one wheel."""

    def __init__(self, config: RouletteSimulator, layout: str, state_file: Path | None = None) -> None:
        self.config = config
        self.layout = config.layout or layout
        self.order = order_for(self.layout)
        self.state_file = state_file
        self.game = read_game_counter(state_file)
        weights = np.ones(len(self.order))
        if config.model == "sector-bias":
            favoured = set(arc(self.order, config.sector_start, config.sector_width))
            for position, number in enumerate(self.order):
                if number in favoured:
                    weights[position] = config.bias_factor
        self.position_probabilities = weights / weights.sum()
        self.last_results: dict[int, bytes] = {}

    def pocket_probability(self, number: int) -> float:
        return float(self.position_probabilities[self.order.index(number)])

    def physical_game(self, game: int) -> PhysicalGame:
        """What physically happens in game ``game``, drawn from its own generator seeded ``(seed, game)``.

        A simulated camera watching this wheel renders the same game from the same draw,
        so it sees the pocket the ball is really in, whatever the wheel's sensor reports.
        """
        rng = np.random.default_rng([self.config.seed, game])
        ball = Direction.CLOCKWISE if game % 2 else Direction.ANTICLOCKWISE
        if self.config.launch_fault == "no-alternation":
            ball = Direction.CLOCKWISE
        rotor = ball if self.config.launch_fault in ("co-rotation", "co-rotation-misreported") else ball.opposite
        reported_rotor = ball.opposite if self.config.launch_fault == "co-rotation-misreported" else rotor
        rpm = round(float(rng.normal(24.0, 1.5)), 1)
        position = int(rng.choice(len(self.order), p=self.position_probabilities))
        misread = bool(rng.random() < self.config.misread_rate)
        garble = bool(rng.random() < self.config.garble_rate)
        sensor_error = bool(rng.random() < self.config.sensor_error_rate)
        reported = (position + (1 if rng.random() < 0.5 else -1)) % len(self.order) if sensor_error else position
        return PhysicalGame(game, ball, rotor, rpm, reported_rotor, self.order[position], self.order[reported],
                            misread, garble)

    def play(self) -> tuple[int, bytes, bool]:
        """Run the next game: (game number, result or ERR frame, garble this frame?)."""
        self.game += 1
        save_state(self.state_file, {"game": self.game})
        played = self.physical_game(self.game)
        if played.misread:
            frame = encode("ERR", self.game, "NO_RESULT", "ball position not detected")
        else:
            frame = encode("RES", self.game, played.reported_number, played.reported_rotor.value, played.ball.value,
                           f"{played.rotor_rpm:.1f}")
        self.last_results[self.game] = frame  # RES? repeats the game's outcome frame, RES or ERR
        return self.game, frame, played.garble


class WheelSimulator:
    """Answers RW protocol requests for one :class:`WheelModel`."""

    def __init__(self, model: WheelModel, identity: dict[str, str]) -> None:
        self.model = model
        self.identity = identity

    def handle(self, line: bytes) -> Iterable[Reply]:
        try:
            frame = decode(line)
        except FrameError:
            return [(0.0, encode("NAK", "?", "BAD_FRAME"))]
        if frame.type == "ID?":
            return [(0.0, encode_identity(self.identity))]
        if frame.type == "LAYOUT?":
            return [(0.0, encode("LAYOUT", *self.model.order))]
        if frame.type == "SPIN":
            game, result, garble = self.model.play()
            if garble:
                result = corrupt_checksum(result)
            return [(0.0, encode("ACK", "SPIN", game)), (self.model.config.spin_time_s, result)]
        if frame.type == "RES?":
            try:
                game = int(frame.fields[0])
            except (IndexError, ValueError):
                return [(0.0, encode("NAK", "RES?", "BAD_GAME"))]
            if game in self.model.last_results:
                return [(0.0, self.model.last_results[game])]
            return [(0.0, encode("NAK", "RES?", "UNKNOWN_GAME"))]
        if frame.type == "STATUS?":
            return [(0.0, encode("STATUS", "IDLE", self.model.game))]
        return [(0.0, encode("NAK", frame.type, "UNKNOWN_COMMAND"))]


def boot(simulator: RouletteSimulator, config: dict[str, Any], state_file: Path | None) -> Handler:
    """What the wheel's firmware does at power-up: reload its non-volatile memory."""
    model = WheelModel(simulator, config.get("layout", "french"), state_file)
    return WheelSimulator(model, config.get("identity", {})).handle


def main(argv: list[str] | None = None) -> int:
    return run_line_simulator("Simulated roulette wheel (RW protocol) on a pseudo-terminal", RouletteSimulator, boot,
                              argv)

if __name__ == "__main__":
    sys.exit(main())
