"""Labelled dice photos and rendered frames as samples for the per-die reader: squares with their class.

A labelled photo folder holds images with a YOLO text file beside each (``class xc yc w h`` per die,
fractions of the image size, class 0..5 meaning a face of 1..6 pips), read by
:func:`vision.yolo_labels.labelled_images`, which refuses bad input naming the file and line at fault.
:func:`split_of` puts each image
(never each die) in the train, validation or test part by a hash of its file name, so the parts are
the same on every machine. :func:`die_squares` turns the labels into the dice's squares
(:class:`vision.die_crop.DieSquare`), :func:`not_a_die_squares` adds squares of the seventh class
("not a flat readable die": bare table, a die cut in half, two dice) and :func:`rendered_samples`
draws frames from the renderer, whose truth is exact, with moving dice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from vision.declines import Decline
from vision.dice_stage_config import DiceStageConfig
from vision.die_crop import DieSquare
from vision.die_reader_model import NOT_A_DIE
from vision.yolo_labels import LabelError, LabelledDie, LabelledImage

if TYPE_CHECKING:
    from vision.render.dice import DiceTruth, DieTruth

CLASS_NAMES = ("1", "2", "3", "4", "5", "6", "not-a-die")

Split = Literal["train", "validation", "test"]
EdgeRule = Literal["die", "pips"]
"""How a set's boxes were drawn: around the die (its edge is the box's larger side) or around the pips only."""

PIPS_TO_EDGE = 1.39
"""Die edge / larger side of the box around the pips of a face of 2..6 (corner pips lie about 0.26 of
the edge from the centre, pips are about 0.17 of the edge wide: 2 x 0.26 + 0.17 = 0.72)."""


def split_of(name: str, validation: float = 0.2, test: float = 0.2) -> Split:
    """The part an image of file name ``name`` belongs to, from the SHA-256 of the name alone.

    The first 8 bytes of the hash, as a fraction of 2**64, fall in [0, test) for the test part,
    [test, test + validation) for validation, the rest for training: the same on every machine,
    whatever else the folder holds.
    """
    if not (0 <= validation and 0 <= test and validation + test <= 1):
        raise ValueError(f"validation {validation} and test {test} must be shares adding up to at most 1")
    share = int.from_bytes(hashlib.sha256(Path(name).name.encode("utf-8")).digest()[:8], "big") / 2**64
    if share < test:
        return "test"
    if share < test + validation:
        return "validation"
    return "train"


def photos_in(photos: Sequence[LabelledImage], part: Split, validation: float = 0.2,
              test: float = 0.2) -> list[LabelledImage]:
    """The photos whose file name puts them in ``part`` (:func:`split_of`)."""
    return [p for p in photos if split_of(p.image.name, validation, test) == part]


def _die_edge(die: LabelledDie, rule: EdgeRule, pip_edge: float | None) -> float:
    _, _, w, h = die.box_px
    if rule == "die":
        return max(w, h)
    if die.face > 1:
        return PIPS_TO_EDGE * max(w, h)
    if pip_edge is None:
        raise LabelError(f"a face-1 die's edge cannot be told from its pip box alone (line {die.line})")
    return pip_edge


def die_squares(photo: LabelledImage, rule: EdgeRule, fallback_edge: float | None = None
                ) -> list[tuple[DieSquare, int]]:
    """Each labelled die's square (centred on its box, turn 0) and its class (face - 1).

    ``rule="die"``: the edge is the box's larger side. ``rule="pips"``: the box holds the pips only, so
    the edge is :data:`PIPS_TO_EDGE` times the larger side for faces 2..6, and for a face of 1 (one pip)
    the median edge of the photo's other dice, else ``fallback_edge``.
    """
    others = [PIPS_TO_EDGE * max(d.box_px[2:]) for d in photo.dice if d.face > 1]
    pip_edge = float(np.median(others)) if others else fallback_edge
    return [(DieSquare((d.box_px[0], d.box_px[1]), _die_edge(d, rule, pip_edge)), d.face - 1) for d in photo.dice]


def median_pip_edge(photos: Sequence[LabelledImage]) -> float | None:
    """The median edge of the dice of faces 2..6 over ``photos`` labelled around their pips."""
    edges = [PIPS_TO_EDGE * max(d.box_px[2:]) for p in photos for d in p.dice if d.face > 1]
    return float(np.median(edges)) if edges else None


def not_a_die_squares(squares: Sequence[DieSquare], size: tuple[int, int], rng: np.random.Generator,
                      table: int = 2, shifted: int = 2, pairs: int = 1) -> list[DieSquare]:
    """Squares of the seventh class around the dice ``squares`` of an image of ``size``: bare table at
    least 1.5 edges from every die, a die's square moved half an edge off it (so it holds half a die and
    no other die's centre), and a square between two neighbouring dice (two halves)."""
    if not squares:
        return []
    width, height = size
    centres = np.array([s.centre_px for s in squares])
    edges = np.array([s.edge_px for s in squares])
    edge = float(np.median(edges))
    found: list[DieSquare] = []

    def clear_of_dice(point: np.ndarray, distance: float) -> bool:
        return bool(np.all(np.linalg.norm(centres - point, axis=1) >= distance * edges))

    for _ in range(40 * table):
        if sum(1 for s in found if s.edge_px == edge) >= table:
            break
        point = rng.uniform([edge, edge], [width - edge, height - edge]) if min(width, height) > 2 * edge else None
        if point is not None and clear_of_dice(point, 1.5):
            found.append(DieSquare((float(point[0]), float(point[1])), edge, float(rng.uniform(0, 90))))
    for _ in range(shifted):
        for _attempt in range(20):
            k = int(rng.integers(len(squares)))
            turn = rng.uniform(0, 2 * np.pi)
            point = centres[k] + edges[k] * rng.uniform(0.5, 0.6) * np.array([np.cos(turn), np.sin(turn)])
            if clear_of_dice(point, 0.45):
                found.append(DieSquare((float(point[0]), float(point[1])), float(edges[k]),
                                       float(rng.uniform(0, 90))))
                break
    if len(squares) > 1:
        distance = np.linalg.norm(centres[:, None] - centres[None], axis=2)
        np.fill_diagonal(distance, np.inf)
        near = [(i, j) for i in range(len(squares)) for j in range(i + 1, len(squares))
                if distance[i, j] < 2.2 * max(edges[i], edges[j])]
        for index in rng.permutation(len(near))[:pairs]:
            i, j = near[int(index)]
            middle = (centres[i] + centres[j]) / 2
            if clear_of_dice(middle, 0.45):
                found.append(DieSquare((float(middle[0]), float(middle[1])), float(max(edges[i], edges[j])),
                                       float(rng.uniform(0, 90))))
    return found


def truth_square(corners_px: Sequence[tuple[float, float]]) -> DieSquare:
    """The square of a rendered die's up face from its four corners (image px, in drawing order)."""
    quad = np.asarray(corners_px, np.float64)
    side = float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)))
    dx, dy = quad[1] - quad[0]
    return DieSquare((float(quad[:, 0].mean()), float(quad[:, 1].mean())), side, float(np.degrees(np.arctan2(dy, dx))))


def rendered_class(die: DieTruth, beneath: bool) -> int | None:
    """A rendered die's class for the reader (see :func:`rendered_samples`), ``None`` for no sample;
    ``beneath``: another die rests on it."""
    if die.pose != "flat" or beneath or die.moving or die.decline_tolerated or die.expected_decline == Decline.GLARE:
        return None
    return die.face - 1


@dataclass(frozen=True)
class RenderedFrame:
    """A rendered frame and the squares in it with their class (0..5 faces 1..6, :data:`NOT_A_DIE`)."""

    image: np.ndarray
    samples: tuple[tuple[DieSquare, int], ...]
    dice: tuple[tuple[DieSquare, int | None], ...] = ()
    """Every die of the frame with its class, ``None`` for a die that gives no sample (for
    :func:`proposal_samples`)."""


def rendered_samples(rng: np.random.Generator, frames: int) -> Iterator[RenderedFrame]:
    """``frames`` rendered frames of the benchmark's styles at realistic nuisance, a third with a fault, a quarter
    seen from a low camera in front of the table (side faces show widely, as in webcam photos).

    A flat, still die in plain sight gives its face. Moving dice, cocked dice, the dice of a stack and dice
    under glare give nothing: a die slightly blurred by its motion still shows its face, a die cocked by 24-40
    degrees shows its up face barely foreshortened, the die on top of a stack shows a clean flat face and
    covers the one beneath, and a glare spot over a pip may leave it readable, so their crops alone do not
    tell; the scene's stages judge them (a smear's direction, a face's shape and the side faces around it, a
    die nearer the camera over another, saturated pixels) and the settling of the frames. Squares of bare
    table, of half a die and of two dice are added (only bare table in a frame with such a die: a square
    moved off one die may land on the die resting on it).
    """
    from vision.render.dice import random_dice_scene, render_dice
    from vision.render.dice_frames import STYLES
    from vision.render.nuisance import Nuisance

    styles = list(STYLES.values())
    faults = ((), (), (), ("cocked",), ("stacked",), ("motion",), ("glare",), (), ("cocked",))
    for index in range(frames):
        fault = faults[index % len(faults)]
        count = int(rng.integers(2 if fault == ("stacked",) else 1, 6))
        scene = random_dice_scene(rng, count, styles[index % len(styles)], faults=fault, oblique=index % 4 == 1)
        image, truth = render_dice(scene, Nuisance.realistic(rng), rng)
        yield truth_frame(image, truth, {d.rests_on for d in scene.dice if d.rests_on is not None}, rng)


SHRUNK_EDGE_SHARE = 0.6
"""A square this share of a flat die's edge, centred on it, is "not a flat readable die": the die's outer pips fall
in the crop's margin and the square holds only some of them (a 4 seen as a 2). The stages propose squares of
several sizes; the reader must read the die from a square of its own size, not from one far too small."""


def truth_frame(image: np.ndarray, truth: DiceTruth, beneath: set[int], rng: np.random.Generator) -> RenderedFrame:
    """The samples of a frame whose truth is known (rendered, or from the simulated camera): each die's class
    (:func:`rendered_class`; ``beneath``: the indices of the dice another rests on), a square far too small on each
    die that gives a class (:data:`SHRUNK_EDGE_SHARE`), and squares of bare table, and of half a die and two dice
    when every die gives a sample."""
    dice = tuple((truth_square(die.corners_px), rendered_class(die, beneath=i in beneath))
                 for i, die in enumerate(truth.dice))
    samples = [(square, label) for square, label in dice if label is not None]
    samples += [(DieSquare(square.centre_px, SHRUNK_EDGE_SHARE * square.edge_px, square.angle_deg), NOT_A_DIE)
                for square, label in dice if label is not None]
    squares = [square for square, _ in dice]
    height, width = image.shape[:2]
    near = 0 if any(label is None for _, label in dice) else 1  # a die on another shows where its square was moved
    samples += [(s, NOT_A_DIE) for s in not_a_die_squares(squares, (width, height), rng, table=1, shifted=near,
                                                         pairs=near)]
    return RenderedFrame(image, tuple(samples), dice)


SAME_DIE_SHARE = 0.15
"""A proposed square is a die's own when its centre lies within this share of the die's edge of the die's centre
(and its edge within :data:`SAME_EDGE_RATIO` of the die's)."""
SAME_EDGE_RATIO = (0.8, 1.25)
OFF_DIE_SHARE = 0.4
"""A proposed square at least this share of an edge from every die's centre (or of an edge off by more than
:data:`OFF_EDGE_RATIO`) is "not a flat readable die": it holds part of a die, two dice, or none."""
OFF_EDGE_RATIO = (0.5, 1.6)


def proposal_samples(image: np.ndarray, dice: Sequence[tuple[DieSquare, int | None]],
                     stages: DiceStageConfig | None = None) -> list[tuple[DieSquare, int]]:
    """The squares the body and proposal stages propose in ``image``, classed against the dice known to be in it.

    ``dice`` holds each die's square and its class (0..5, :data:`NOT_A_DIE`, or ``None`` for a die that gives
    no sample: cocked, under another, under glare). A square on a die of a class (:data:`SAME_DIE_SHARE`,
    :data:`SAME_EDGE_RATIO`) takes its class; a square off every die (:data:`OFF_DIE_SHARE`,
    :data:`OFF_EDGE_RATIO`) is :data:`NOT_A_DIE`; a square in between, or near a die of no class, gives no sample
    (its truth is not sharp). So the reader learns to call the shifted and mis-sized squares the stages do
    propose "not a flat readable die" rather than read the face a part of a die shows.
    """
    from vision.dice_bodies import find_bodies
    from vision.dice_proposals import propose_squares

    found = find_bodies(image, stages)
    squares = [square for proposal in propose_squares(image, found, stages) for square in proposal.squares]
    samples: list[tuple[DieSquare, int]] = []
    for square in squares:
        label: int | None = NOT_A_DIE
        for die, die_class in dice:
            offset = float(np.hypot(square.centre_px[0] - die.centre_px[0], square.centre_px[1] - die.centre_px[1]))
            ratio = square.edge_px / die.edge_px
            if (die_class is not None and offset <= SAME_DIE_SHARE * die.edge_px
                    and SAME_EDGE_RATIO[0] <= ratio <= SAME_EDGE_RATIO[1]):
                label = die_class
                break
            if offset < OFF_DIE_SHARE * die.edge_px and OFF_EDGE_RATIO[0] <= ratio <= OFF_EDGE_RATIO[1]:
                label = None  # near a die but not on it: no sharp truth
        if label is not None:
            samples.append((square, label))
    return samples
