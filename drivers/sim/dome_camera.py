"""Simulated camera over a simulated cussec dome: it sees the dice the dome really threw.

The dome simulator (:mod:`drivers.sim.cussec_dome`) keeps its round counter in its state file (the dome's
physical state); this camera reads it at every frame and, when the dome has played a new round, shows the
dice of that round, :func:`drivers.sim.cussec_dome.dome_dice` of ``(dome seed, round)``: the same function
the dome uses, so the camera shows what is physically in the dome, not what the controller believes (its
``sensor-misread`` fault lights the zones of a wrong reading; the camera still shows the truth). It is the
pattern of the wheel camera (:mod:`drivers.sim.wheel_camera`): the camera watches the device's physical
state, never the controller's report.

A new round is shown as a few frames of dice jumping (motion) and then still frames of the dice at rest,
rendered like :class:`drivers.sim.dice_camera.SimulatedDiceCamera` (light, glare, noise, JPEG, the declined
cases of the camera's ``simulation`` table, all from ``(camera seed, round)``), within the arena's outline its
profile states (``camera.arena_px``: the floor of the dome the reader is told); until the next round the dice
stay at rest. The camera keeps no state of its own: a resumed run shows the dome's current round.
"""

from __future__ import annotations

from pathlib import Path

from bench.profiles.camera import CameraSimulation
from bench.profiles.cussec_dome import CussecDomeSimulator
from bench.profiles.model import DiceOptions, DiceSimulator
from drivers.camera import CameraIdentity
from drivers.sim.cussec_dome import dome_dice, read_dome_round
from drivers.sim.dice_camera import FPS, SimulatedDiceCamera
from vision.frame import Frame


class SimulatedDomeCamera(SimulatedDiceCamera):
    """A camera over the glass dome of a simulated cussec dome (see the module docstring)."""

    def __init__(self, dome: CussecDomeSimulator, dome_state_file: Path, simulation: CameraSimulation | None, *,
                 votes: int = 3, target_marker_mm: float = 20.0, size: tuple[int, int] = (640, 480),
                 arena_px: tuple[tuple[float, float], ...] | None = None) -> None:
        look = DiceSimulator(seed=dome.seed, style=dome.dice_style, edge_mm=dome.dice_edge_mm)
        super().__init__(look, DiceOptions(game="cussec"), simulation, None, votes=votes,
                         target_marker_mm=target_marker_mm, size=size, arena_px=arena_px)
        self.dome = dome
        self.dome_state_file = Path(dome_state_file)
        self.shown: int | None = None
        self._rest: Frame | None = None

    @property
    def identity(self) -> CameraIdentity:
        return CameraIdentity(kind="sim", source="sim:cussec-dome", resolution=self.size, fps=FPS)

    def physical_faces(self, throw: int) -> tuple[int, ...]:
        """The faces the dice show after round ``throw`` of the dome."""
        return dome_dice(self.dome.seed, throw)

    def read(self) -> Frame:
        current = read_dome_round(self.dome_state_file)
        if current != self.shown:
            self._queue.clear()
            self.shown = current
            self.throw = current - 1
            self._render_throw()  # the dice jump, then lie still: frames of round ``current``
            self._rest = self._queue[-1]
        if not self._queue:
            assert self._rest is not None
            rest = self._rest
            self._queue.append(self._frame(rest.image, rest.encoded, rest.truth))
        return self._queue.popleft()
