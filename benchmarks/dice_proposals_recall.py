"""Recall of the staged dice pipeline's first stages: does every labelled die get a proposed square close to it?

For each data set this prints, for the stages (:func:`vision.dice_bodies.find_bodies` then
:func:`vision.dice_proposals.propose_squares`): recall (the share of labelled dice with a proposal whose centre lies
within 0.35 of the die's edge of the die's centre and whose edge is within +-30 % of the die's),
proposals per image and per labelled die, and milliseconds of processor time per frame on one core
(processor time, not wall time: the figure holds on a machine shared with other work).

Data and what a die's edge is in each:

- rendered frames (``vision.render.dice_frames.frames``): the truth's centre and edge of each die's up
  face; the stages are told the die's size within +-20 % as the bench's calibration tells the reader.
- ``dice-photos-matteop65`` (86 webcam photos of white dice): the boxes hug the up face's pips, so the
  centre is the box's and the edge is the image's (all its dice are one size at one distance): the median
  over its dice of the box's longer side over the share of the edge the pips span (0.24 for a one, whose
  box is its pip; 0.68 for the other faces).
- ``dice-photos-byler-train`` (200 phone photos, many kinds of dice in a tray): the boxes hug the die's
  body, axis-aligned, so the edge a proposal is held to is that of a flat die at the proposal's own turn
  filling the box: the box's mean side over ``|cos| + |sin|`` of the turn. The boxes take in the side
  faces the phone sees, so a second figure lets the top face be 0.75 to 1 times that edge.

- the bench's simulated dice camera (``drivers.sim.dice_camera``, translucent red dice of a banca francesa
  arena, seed 20070226, ``--sim-throws``): the still frame of each throw and its truth (the flat dice's up
  faces); the stages are told nothing of the scale, as the bench tells the staged reader nothing.

Every set also prints the recall by centre alone (a proposal's centre close enough, whatever its edge), and the
stages' estimate of the die's edge (:attr:`vision.dice_bodies.Bodies.die_edge_px`) over the labelled dice's
median edge, per image: its median and its 10th and 90th percentiles (a square sized on a die joined to its
shadow, or on a glare spot, is half as large again as the die).

Run: ``.venv/bin/python benchmarks/dice_proposals_recall.py [--frames 300] [--seed 20240611] [--sim-throws 100]
[--draw DIR]``
(``--draw`` writes each image with a missed die as a PNG: labels green, proposals red, misses magenta).
A data folder that is absent is skipped with a note.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.dice_bodies import find_bodies
from vision.dice_proposals import propose_squares
from vision.dice_stage_config import DiceStageConfig
from vision.die_crop import DieSquare
from vision.render.dice_frames import CLEAN_SEEDS, frames

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
CENTRE_SHARE = 0.35
"""A proposal's centre lies within this share of the die's edge of the die's centre ..."""
EDGE_SHARE = 0.30
"""... and its edge within this share of the die's edge."""
PIP_SPAN_SHARE = {1: 0.24, 2: 0.68, 3: 0.68, 4: 0.68, 5: 0.68, 6: 0.68}
"""matteop65: the share of the die's edge the box around a face's pips spans (measured on its photos)."""
BYLER_TOP_SHARE = 0.75
"""Byler's boxes take in the side faces the phone sees beside a die's top (most along the tray's far wall): the
top face's edge lies between this share and all of the box's. Printed beside the strict figure."""
@dataclass(frozen=True)
class LabelledDie:
    """A labelled die: its centre and the edge a proposal at turn ``angle_deg`` is held to."""

    centre_px: tuple[float, float]
    edge_at: Callable[[float], float]


@dataclass(frozen=True)
class Scene:
    """One image, its labelled dice, and the stages' configuration for it."""

    name: str
    image: np.ndarray
    dice: tuple[LabelledDie, ...]
    config: DiceStageConfig = field(default_factory=DiceStageConfig)


def fixed_edge(edge: float) -> Callable[[float], float]:
    """The edge of a die whose size is known, whatever the proposal's turn."""
    return lambda _angle: edge


def box_edge(mean_side: float) -> Callable[[float], float]:
    """The edge of a flat die at the proposal's turn whose axis-aligned box has ``mean_side``."""
    return lambda angle: mean_side / (abs(math.cos(math.radians(angle))) + abs(math.sin(math.radians(angle))))


def yolo_boxes(path: Path, width: int, height: int) -> list[tuple[int, float, float, float, float]]:
    """(face, x, y, w, h) per line of a YOLO label file, image px."""
    boxes = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 5:
            raise ValueError(f"{path}:{number}: a YOLO label line has 5 fields, got {len(parts)}")
        cls, x, y, w, h = int(parts[0]), *map(float, parts[1:])
        boxes.append((cls + 1, x * width, y * height, w * width, h * height))
    return boxes


def photo_scenes(folder: Path, edges: Callable[[list[tuple[int, float, float, float, float]]],
                                               list[Callable[[float], float]]]) -> Iterator[Scene]:
    """The labelled photos of ``folder``, each die's edge given by ``edges`` from the image's boxes."""
    for path in sorted(folder.glob("*.jpg")):
        label = path.with_suffix(".txt")
        if not label.exists():
            continue
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"{path}: not a readable image")
        boxes = yolo_boxes(label, image.shape[1], image.shape[0])
        dice = tuple(LabelledDie((x, y), edge) for (_, x, y, _, _), edge in zip(boxes, edges(boxes), strict=True))
        yield Scene(path.name, image, dice)


def matteop65_edges(boxes: list[tuple[int, float, float, float, float]]) -> list[Callable[[float], float]]:
    """One edge for all the image's dice: the median of each pip box's longer side over its face's pip span."""
    if not boxes:
        return []
    edge = statistics.median(max(w, h) / PIP_SPAN_SHARE[face] for face, _, _, w, h in boxes)
    return [fixed_edge(edge)] * len(boxes)


def byler_edges(boxes: list[tuple[int, float, float, float, float]]) -> list[Callable[[float], float]]:
    """Each die's box fits a flat die at the proposal's turn."""
    return [box_edge((w + h) / 2.0) for _, _, _, w, h in boxes]


def rendered_scenes(seed: int, count: int) -> Iterator[Scene]:
    """Rendered benchmark frames with their truth; the stages know the die's size within +-20 %."""
    for index, (style, image, truth) in enumerate(frames(seed, count)):
        edge = truth.edge_mm * truth.px_per_mm
        config = DiceStageConfig(die_edge_px=(0.8 * edge, 1.2 * edge))
        dice = tuple(LabelledDie(d.centre_px, fixed_edge(d.edge_px)) for d in truth.dice)
        yield Scene(f"{seed}-{index}-{style}", image, dice, config)


def sim_scenes(throws: int, seed: int = 20070226) -> Iterator[Scene]:
    """The still frame of each of ``throws`` throws of the bench's simulated dice camera, with its flat dice."""
    from bench.profiles.camera import CameraSimulation
    from bench.profiles.model import DiceOptions, DiceSimulator
    from drivers.sim.dice_camera import SimulatedDiceCamera

    camera = SimulatedDiceCamera(DiceSimulator(style="translucent-red", seed=seed), DiceOptions(game="banca-francesa"),
                                 CameraSimulation(seed=seed))
    taken = 0
    previous_still = False
    while taken < throws:
        frame = camera.read()
        still = frame.truth is not None
        if still and not previous_still:  # a throw's first still frame
            dice = tuple(LabelledDie(d.centre_px, fixed_edge(d.edge_px)) for d in frame.truth.dice
                         if d.pose == "flat" and not d.moving)
            yield Scene(f"sim-throw-{taken + 1}", frame.image, dice)
            taken += 1
        previous_still = still
    camera.close()


def proposals(scene: Scene) -> tuple[list[DieSquare], float]:
    """Every square the stages propose for the scene, and their estimate of the die's edge."""
    bodies = find_bodies(scene.image, scene.config)
    squares = [square for body in propose_squares(scene.image, bodies, scene.config) for square in body.squares]
    return squares, bodies.die_edge_px


def covered(die: LabelledDie, squares: list[DieSquare], least_edge: float = 1.0, any_edge: bool = False) -> bool:
    """True when a square lies close enough to ``die`` in centre and edge (its edge within ``EDGE_SHARE`` of
    ``least_edge`` to 1 times the die's; any edge when ``any_edge``)."""
    for square in squares:
        edge = die.edge_at(square.angle_deg)
        if math.dist(square.centre_px, die.centre_px) <= CENTRE_SHARE * edge and (
                any_edge or (1.0 - EDGE_SHARE) * least_edge * edge <= square.edge_px <= (1.0 + EDGE_SHARE) * edge):
            return True
    return False


@dataclass
class Tally:
    """Counts of one method over one data set."""

    images: int = 0
    dice: int = 0
    found: int = 0
    found_top: int = 0
    """Dice covered when the top face's edge may be as small as ``BYLER_TOP_SHARE`` of the box's."""
    found_centre: int = 0
    """Dice with a proposal's centre close enough, whatever its edge."""
    proposals: int = 0
    seconds: float = 0.0
    missed: list[str] = field(default_factory=list)
    size_ratios: list[float] = field(default_factory=list)
    """Per image with labelled dice: the estimate of the die's edge over the labelled dice's median edge."""

    def line(self, title: str, boxes_take_sides: bool) -> str:
        def share(count: int) -> str:
            return f"{100 * count / self.dice:6.2f} %" if self.dice else "  n/a"
        top = f", {share(self.found_top)} with the top face 0.75-1 of the box" if boxes_take_sides else ""
        ratios = [ratio for ratio in self.size_ratios if not math.isnan(ratio)]
        size = "" if not ratios else ("; die's edge estimated at {:.2f} (10 %: {:.2f}, 90 %: {:.2f}) of the labels'"
                                      .format(*np.percentile(ratios, [50, 10, 90])))
        return (f"  {title:<22} recall {share(self.found)} ({self.found}/{self.dice}){top}, centre only "
                f"{share(self.found_centre)}; {self.proposals / max(self.images, 1):5.1f} proposals per image, "
                f"{self.proposals / max(self.dice, 1):4.1f} per die, {1000 * self.seconds / max(self.images, 1):5.2f} ms "
                f"per frame{size}")


def measure(scenes: Iterator[Scene], draw: Path | None) -> Tally:
    """The stages' tally over ``scenes``."""
    tally = Tally()
    for scene in scenes:
        start = time.process_time()
        squares, estimate = proposals(scene)
        tally.seconds += time.process_time() - start
        if scene.dice:
            tally.size_ratios.append(estimate / statistics.median(die.edge_at(0.0) for die in scene.dice))
        tally.images += 1
        tally.dice += len(scene.dice)
        tally.proposals += len(squares)
        hits = [covered(die, squares) for die in scene.dice]
        tally.found += sum(hits)
        tally.found_top += sum(covered(die, squares, BYLER_TOP_SHARE) for die in scene.dice)
        tally.found_centre += sum(covered(die, squares, any_edge=True) for die in scene.dice)
        if not all(hits):
            tally.missed.append(scene.name)
        if draw is not None and not all(hits):
            _draw(draw / f"{Path(scene.name).stem}.png", scene, squares, hits)
    return tally


def _draw(path: Path, scene: Scene, squares: list[DieSquare], hits: list[bool]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    picture = scene.image.copy()
    for square in squares:
        cv2.polylines(picture, [square.corners().astype(np.int32)], True, (0, 0, 255), 1)
    for die, hit in zip(scene.dice, hits, strict=True):
        edge = die.edge_at(0.0)
        x, y = die.centre_px
        cv2.circle(picture, (round(x), round(y)), max(2, round(CENTRE_SHARE * edge)), (0, 255, 0) if hit else
                   (255, 0, 255), 2)
    cv2.imwrite(str(path), picture)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=300, help="rendered frames per seed")
    parser.add_argument("--seed", type=int, action="append", help=f"rendered frames' seed (default {CLEAN_SEEDS[0]})")
    parser.add_argument("--data", type=Path, default=DATASETS)
    parser.add_argument("--draw", type=Path, default=None, help="write the images with a missed die into this folder")
    parser.add_argument("--sim-throws", type=int, default=100, help="throws of the simulated dice camera (0: none)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    runs: list[tuple[str, Iterator[Scene]]] = [
        (f"rendered frames (seed {seed}, {args.frames})", rendered_scenes(seed, args.frames))
        for seed in (args.seed or [CLEAN_SEEDS[0]])]
    if args.sim_throws > 0:
        runs.append((f"simulated dice camera ({args.sim_throws} throws)", sim_scenes(args.sim_throws)))
    for name, edges in (("dice-photos-matteop65", matteop65_edges), ("dice-photos-byler-train", byler_edges)):
        folder = args.data / name / "images"
        if folder.is_dir():
            runs.append((name, photo_scenes(folder, edges)))
        else:
            print(f"{folder} not found: skipped")
    for title, scenes in runs:
        tally = measure(scenes, args.draw)
        print(f"{title}: {tally.images} images, {tally.dice} dice")
        print(tally.line("bodies+proposals", title.startswith("dice-photos-byler")))
        if tally.missed:
            print(f"  images with a die missed by the stages: {', '.join(tally.missed[:12])}"
                  f"{' ...' if len(tally.missed) > 12 else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
