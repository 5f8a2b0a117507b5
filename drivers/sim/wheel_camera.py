"""Simulated camera over a simulated roulette wheel: it sees the pocket the ball is really in.

The wheel simulator (:mod:`drivers.sim.roulette_wheel`) keeps its game counter in a
state file; this camera reads it and renders the game from the same physical draw
(:meth:`WheelModel.physical_game`), so when the wheel's sensor misreports
(``sensor_error_rate``) the camera still shows the truth. The camera is fixed: one
perspective for the whole run, drawn from the camera seed. Per game the rotor angle,
where the ball lies in its pocket, the light and the injected read-decline cases (ball
on a fret, ball hidden by a hand, at the rates of the camera's ``simulation`` table)
come from ``(camera seed, game)``. Each frame of a game has its own sensor noise and
JPEG encoding; before the first game the wheel is shown without a ball (the still used
for calibration and the layout audit). Frames carry their ground truth.

A simulated wheel's game takes no time, so the camera follows the bench's account of the
game's phases (:meth:`Camera.cue`): after ``"launch"`` it films the ball running on the
track and the rotor turning, in the directions the wheel physically used in that game (not
those its sensor reports), frame after frame at 30 frames/s; after ``"result"`` (or once
the wheel starts another game) the ball rests in its pocket.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.games.roulette_layout import Direction
from bench.profiles.camera import CameraSimulation
from drivers.camera import Camera, CameraIdentity
from drivers.sim.camera_sensor import SimulatedSensor
from drivers.sim.roulette_wheel import WheelModel, read_game_counter
from vision.frame import Frame
from vision.measure_wheel import WHEEL_TARGET, WHEEL_TARGET_TOP_LEFT_PX
from vision.render.nuisance import Nuisance, perspective_homography
from vision.render.roulette import SpinKinematics, WheelScene, random_scene, render_spin_frame, render_wheel

FPS = 30.0
SIZE = (640, 480)
LAUNCH_SPAN_S = 2.0
"""The launch filmed: the ball slows by 15 % of its speed over this time (any clip the bench reads is shorter)."""


@dataclass(frozen=True)
class LaunchFrameTruth:
    """What a frame of a filmed launch shows: the game, the true directions and angles (degrees, clockwise)."""

    game: int
    ball_direction: Direction
    rotor_direction: Direction
    ball_angle_deg: float
    rotor_angle_deg: float


@dataclass
class _Launch:
    """A launch being filmed: the game, its motion and scene, the frames shown so far."""

    game: int
    kinematics: SpinKinematics
    scene: WheelScene
    nuisance: Nuisance
    shown: int = 0


class SimulatedWheelCamera(Camera):
    """A fixed camera over a simulated wheel (see the module docstring)."""

    def __init__(self, wheel: WheelModel, simulation: CameraSimulation | None, wheel_state_file: Path, *,
                 ball_diameter_mm: float = 21.0, wheel_diameter_mm: float = 560.0) -> None:
        self.wheel = wheel
        self.simulation = simulation or CameraSimulation()
        self.wheel_state_file = Path(wheel_state_file)
        self.ball_diameter_mm = ball_diameter_mm
        self.wheel_diameter_mm = wheel_diameter_mm
        self.target = WHEEL_TARGET if self.simulation.target else None
        camera_rng = np.random.default_rng([self.simulation.seed, 0])
        strength = 0.05 if self.simulation.nuisance == "realistic" else 0.0
        self.homography = perspective_homography(SIZE, strength, camera_rng)
        self._game: int | None = None
        self._base: tuple[np.ndarray, object, Nuisance] | None = None
        self._rng = camera_rng
        self._index = 0
        self.sensor = SimulatedSensor(self.simulation.seed)
        self._epoch = time.time()
        self._launch: _Launch | None = None

    @property
    def identity(self) -> CameraIdentity:
        return CameraIdentity(kind="sim", source="sim:roulette", resolution=SIZE, fps=FPS)

    def current_game(self) -> int:
        """The wheel's last started game (0 before the first)."""
        return read_game_counter(self.wheel_state_file)

    def _scene_options(self) -> dict[str, object]:
        options: dict[str, object] = {
            "ball_diameter_mm": self.ball_diameter_mm, "wheel_diameter_mm": self.wheel_diameter_mm,
            "layout": self.wheel.layout, "markers": self.simulation.markers}
        if self.target is not None:
            options |= {"target": self.target, "target_top_left_px": WHEEL_TARGET_TOP_LEFT_PX}
        return options

    def _scene(self, game: int, rng: np.random.Generator) -> WheelScene:
        if game == 0:
            return random_scene(rng, state="absent", **self._scene_options())
        physical = self.wheel.physical_game(game)
        draw = rng.random()
        state = "in-pocket"
        if draw < self.simulation.fret_rate:
            state = "on-fret"
        elif draw < self.simulation.fret_rate + self.simulation.hidden_rate:
            state = "hidden"
        scene = random_scene(rng, state=state, **self._scene_options())
        return dataclasses.replace(scene, ball_number=physical.number)

    def _nuisance(self, rng: np.random.Generator) -> Nuisance:
        """The light and sensor of one game (the fixed camera's perspective is the homography, not drawn)."""
        if self.simulation.nuisance != "realistic":
            return Nuisance.none()
        return dataclasses.replace(Nuisance.realistic(rng), glare_spots=0, perspective=0.0)

    def _render(self, scene: WheelScene, nuisance: Nuisance, rng: np.random.Generator) -> tuple[np.ndarray, object]:
        """The scene through the camera's optics; the sensor's noise and JPEG are added per frame (:meth:`_expose`)."""
        optics = dataclasses.replace(nuisance, noise_sigma=0.0, jpeg_quality=None)
        return render_wheel(scene, optics, rng, SIZE, homography=self.homography)

    def _expose(self, image: np.ndarray, truth: object, nuisance: Nuisance, rng: np.random.Generator) -> Frame:
        frame_image, encoded = self.sensor.expose(image, nuisance, rng)
        self._index += 1
        return Frame(frame_image, self._epoch + self._index / FPS, self._index, "sim:roulette", encoded=encoded,
                     encoded_suffix=".jpg", truth=truth)

    def _render_game(self, game: int) -> None:
        rng = np.random.default_rng([self.simulation.seed, game, 1])
        nuisance = self._nuisance(rng)
        image, truth = self._render(self._scene(game, rng), nuisance, rng)
        self._base = (image, truth, nuisance)
        self._game = game

    def reference_frames(self, diameter_mm: float, count: int = 10) -> list[Frame]:
        """Stills of a certified gauge ball of ``diameter_mm`` left at rest in ``count`` random pockets
        (the lab's reference reading that corrects the ball-outline bias of the measurement)."""
        frames = []
        for number in range(count):
            rng = np.random.default_rng([self.simulation.seed, 0, 2, number])
            scene = random_scene(rng, state="in-pocket", **(self._scene_options() | {"ball_diameter_mm": diameter_mm}))
            nuisance = self._nuisance(rng)
            frames.append(self._expose(*self._render(scene, nuisance, rng), nuisance, rng))
        return frames

    def cue(self, event: str) -> None:
        """``"launch"``: film the current game's launch from the next frame; ``"result"``: the ball is at rest."""
        if event == "launch":
            game = self.current_game()
            physical = self.wheel.physical_game(game)
            rng = np.random.default_rng([self.simulation.seed, game, 3])
            kinematics = SpinKinematics.draw(rng, physical.ball, physical.rotor, LAUNCH_SPAN_S)
            scene = random_scene(rng, state="absent", **self._scene_options())
            self._launch = _Launch(game, kinematics, scene, self._nuisance(rng))
        elif event == "result":
            self._launch = None

    def _launch_frame(self, launch: _Launch) -> Frame:
        t = launch.shown / FPS
        launch.shown += 1
        optics = dataclasses.replace(launch.nuisance, noise_sigma=0.0, jpeg_quality=None)
        image, ball, rotor = render_spin_frame(launch.scene, launch.kinematics, t, optics, self._rng, SIZE,
                                               self.homography)
        truth = LaunchFrameTruth(launch.game, launch.kinematics.ball_direction, launch.kinematics.rotor_direction,
                                 ball, rotor)
        return self._expose(image, truth, launch.nuisance, self._rng)

    def read(self) -> Frame:
        game = self.current_game()
        if self._launch is not None:
            if self._launch.game == game and self._launch.shown / FPS < LAUNCH_SPAN_S:
                return self._launch_frame(self._launch)
            self._launch = None
        if game != self._game or self._base is None:
            self._render_game(game)
        assert self._base is not None
        image, truth, nuisance = self._base
        return self._expose(image, truth, nuisance, self._rng)

    def close(self) -> None:
        self._base = None

