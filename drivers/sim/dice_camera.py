"""Simulated camera over a dice arena: renders throws of the profile's physical dice model.

Each throw ``t`` is drawn from its own generators: the dice's faces from
``(simulator seed, t)`` (fair, or one face loaded, as the profile's ``[simulator]``
says), and everything the camera adds from ``(camera seed, t)``: where the dice land,
light, glare, perspective, and the injected decline cases (a cocked die, stacked
dice) at the rates of the camera's ``simulation`` table, and the scale: the dice's edge in
px, the same every throw for a camera fixed over the table (``simulation.die_edge_px``), else
drawn for each throw; and the arena's outline, the profile's ``camera.arena_px`` every throw when it states one
(the outline the reader is told), else drawn for each throw. A throw is shown as a few
frames of dice tumbling (motion-blurred, moving) and then still frames of the dice at
rest, each still frame with its own sensor noise and JPEG encoding, as a real camera
delivers them (the tumbling frames are the resting scene smeared and shifted: they
exist to be seen as motion, never read; their truth is ``None``). The throw counter is kept in a state file so a resumed run continues.
Frames carry their ground truth (:class:`vision.render.dice.DiceTruth`).
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from pathlib import Path

import cv2
import numpy as np

from bench.profiles.camera import CameraSimulation
from bench.profiles.model import DiceOptions, DiceSimulator
from drivers.camera import Camera, CameraIdentity
from drivers.sim.camera_sensor import SimulatedSensor
from drivers.sim.state_file import load_counter, save_state
from vision.frame import Frame
from vision.render.dice import DiceScene, DieStyle, random_dice_scene, render_dice
from vision.render.nuisance import Nuisance
from vision.render.target import TargetSpec

FPS = 30.0
MOVING_FRAMES = 2


def face_probabilities(model: DiceSimulator) -> np.ndarray:
    """Probability of faces 1..6 on every die: 1/6 each, or the loaded face at ``loaded_probability``."""
    if model.model == "fair":
        return np.full(6, 1 / 6)
    probabilities = np.full(6, (1.0 - model.loaded_probability) / 5)
    probabilities[model.loaded_face - 1] = model.loaded_probability
    return probabilities


def die_style(model: DiceSimulator, options: DiceOptions) -> DieStyle:
    """The simulated dice's look and size (default edge: the middle of the game's allowed range)."""
    low, high = options.edge_limits_mm
    base = DieStyle.casino_red() if model.style == "translucent-red" else DieStyle.opaque_white()
    return dataclasses.replace(base, edge_mm=model.edge_mm or (low + high) / 2)


class SimulatedDiceCamera(Camera):
    """A camera over a simulated dice table (see the module docstring)."""

    def __init__(self, model: DiceSimulator, options: DiceOptions, simulation: CameraSimulation | None,
                 state_file: Path | None = None, *, votes: int = 3, target_marker_mm: float = 20.0,
                 size: tuple[int, int] = (640, 480),
                 arena_px: tuple[tuple[float, float], ...] | None = None) -> None:
        self.model = model
        self.arena_px = arena_px
        """The arena's outline in the frames (the profile's ``camera.arena_px``, a camera fixed over the table);
        None: each throw draws its own."""
        self.options = options
        self.simulation = simulation or CameraSimulation()
        self.state_file = state_file
        self.size = size
        self.style = die_style(model, options)
        self.target = TargetSpec(marker_mm=target_marker_mm) if self.simulation.target else None
        self.probabilities = face_probabilities(model)
        self.still_frames = votes + 6  # settling needs 3 still differences, then the frames read, and spares
        self.throw = load_counter(state_file, "throw", "dice camera")
        self._queue: deque[Frame] = deque()
        self.injected_faults: tuple[str, ...] = ()
        """The decline cases (``cocked``, ``stacked``) the simulation injected into the throw last rendered."""
        self.sensor = SimulatedSensor(self.simulation.seed)
        self._index = 0
        self._epoch = time.time()

    @property
    def identity(self) -> CameraIdentity:
        return CameraIdentity(kind="sim", source="sim:dice", resolution=self.size, fps=FPS)

    def physical_faces(self, throw: int) -> tuple[int, ...]:
        """The faces the dice of throw ``throw`` really show (the physical model's draw)."""
        rng = np.random.default_rng([self.model.seed, throw])
        return tuple(int(face) for face in rng.choice(6, size=self.options.dice_per_throw, p=self.probabilities) + 1)

    def _scene(self, throw: int, rng: np.random.Generator) -> DiceScene:
        faults: list[str] = []
        if rng.random() < self.simulation.cocked_rate:
            faults.append("cocked")
        if rng.random() < self.simulation.stacked_rate:
            faults.append("stacked")
        self.injected_faults = tuple(faults)
        fixed = self.simulation.die_edge_px
        scale = {} if fixed is None else {"edge_px": (fixed, fixed)}
        scene = random_dice_scene(rng, self.options.dice_per_throw, self.style, faults=tuple(faults), size=self.size,
                                  arena_px=self.arena_px, **scale)
        faces = self.physical_faces(throw)
        dice = tuple(dataclasses.replace(die, face=faces[i]) if i < len(faces) else die
                     for i, die in enumerate(scene.dice))
        return dataclasses.replace(scene, dice=dice, expected_dice=self.options.dice_per_throw)

    def _nuisance(self, rng: np.random.Generator) -> Nuisance:
        return Nuisance.realistic(rng) if self.simulation.nuisance == "realistic" else Nuisance.none()

    def _frame(self, image: np.ndarray, encoded: bytes | None, truth: object) -> Frame:
        self._index += 1
        return Frame(image, self._epoch + self._index / FPS, self._index, "sim:dice", encoded=encoded,
                     encoded_suffix=".jpg", truth=truth)

    def _render_throw(self) -> None:
        self.throw += 1
        save_state(self.state_file, {"throw": self.throw})
        rng = np.random.default_rng([self.simulation.seed, self.throw])
        nuisance = self._nuisance(rng)
        optics = dataclasses.replace(nuisance, noise_sigma=0.0, jpeg_quality=None)
        scene = self._scene(self.throw, rng)
        base, truth = render_dice(scene, optics, rng, self.size)
        for step in range(MOVING_FRAMES, 0, -1):  # tumbling: the scene smeared and shifted, less and less
            shift = (int(rng.integers(-12, 13)) * step, int(rng.integers(-12, 13)) * step)
            tumbling = cv2.blur(np.roll(base, shift, axis=(0, 1)), (20 * step + 1, 3))
            self._queue.append(self._frame(*self.sensor.expose(tumbling, nuisance, rng), None))
        for _ in range(self.still_frames):
            self._queue.append(self._frame(*self.sensor.expose(base, nuisance, rng), truth))

    def measurement_frame(self, attempt: int = 0) -> Frame:
        """A still of the dice laid flat in a row beside the calibration target, for measuring them (lab
        procedure); each ``attempt`` lays them down afresh."""
        rng = np.random.default_rng([self.simulation.seed, 0, attempt])
        scene = random_dice_scene(rng, self.options.dice_per_throw, self.style, size=self.size, edge_px=(40.0, 48.0))
        if self.target is not None:
            scene = dataclasses.replace(scene, target=self.target, target_top_left_mm=(4.0, 4.0))
        # under the camera (the image centre), where no side face shows and parallax is smallest
        pitch = 1.8 * self.style.edge_mm
        count = self.options.dice_per_throw
        centre_x, centre_y = self.size[0] / 2 / scene.px_per_mm, self.size[1] / 2 / scene.px_per_mm
        row = tuple(dataclasses.replace(die, centre_mm=(centre_x + pitch * (i - (count - 1) / 2), centre_y),
                                        pose="flat", rests_on=None, moving=False, glare=False,
                                        angle_deg=float(rng.uniform(0, 90)))
                    for i, die in enumerate(scene.dice[:count]))
        scene = dataclasses.replace(scene, dice=row)
        nuisance = dataclasses.replace(self._nuisance(rng), perspective=0.0, glare_spots=0)
        image, truth = render_dice(scene, nuisance, rng, self.size)
        return self._frame(image, None, truth)

    def read(self) -> Frame:
        if not self._queue:
            self._render_throw()
        return self._queue.popleft()

    def still_frame(self) -> Frame:
        """The first still frame of the next throw (with its truth), the rest of that throw's frames skipped: one
        settled view per throw, for measuring a reader without the settling and voting of a dice table."""
        self._queue.clear()
        self._render_throw()
        while self._queue[0].truth is None:  # the tumbling frames
            self._queue.popleft()
        frame = self._queue.popleft()
        self._queue.clear()
        return frame

    def close(self) -> None:
        self._queue.clear()
