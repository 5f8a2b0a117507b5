"""What the per-die reader says of every square the stages propose on labelled photos, with the truth of each.

The acceptance threshold must be fitted on what the reader sees at run time: the crops of the squares the
body and proposal stages propose (:mod:`vision.dice_bodies`, :mod:`vision.dice_proposals`) on the lab's own
camera, not on crops cut around hand-drawn boxes. Each proposed square takes the face of the labelled die
nearest the square's centre, within the distance at which :mod:`vision.dice_scoring` matches a die read to
a label (so a sure face read there is scored as that die's read, right or wrong); a square near no labelled
die is "not a flat readable die", so a face read there surely counts as a wrong read (at run time it would
be a die that is not there).

Each square also takes a group, for the bound that says what the photos vouch for
(:mod:`vision.die_reader_calibration`): the labelled die it lies on, or, lying on none, the body it lies in.
Squares of one group are reads of one thing, not independent trials.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from vision.dice_bodies import find_bodies
from vision.dice_explanation import ExplanationSettings
from vision.dice_looks import CropReader, LookSettings, look_and_explain
from vision.dice_proposals import propose_squares
from vision.dice_scoring import MATCH_SHARE, MATCH_SLACK_PX
from vision.dice_stage_config import DiceStageConfig
from vision.die_crop import DieSquare
from vision.die_reader_model import NOT_A_DIE
from vision.yolo_labels import LabelledDie


@dataclass(frozen=True)
class CalibrationSamples:
    """The reader's probabilities for every proposed square (rows) and each square's true class."""

    probabilities: np.ndarray
    truth: np.ndarray
    images: int
    labelled: int
    labelled_with_a_square: int
    """Labelled dice at least one proposed square matched (the rest the stages did not propose)."""
    labelled_edges: np.ndarray | None = None
    """The edge of the labelled die each square lies on, px, from its box turned as the square is (NaN: none;
    rows as ``probabilities``)."""
    groups: np.ndarray | None = None
    """Each square's group (rows as ``probabilities``): one number for each labelled die of every photo, and one
    for each body of a photo for the squares in it that lie on no labelled die."""


def label_under(square: DieSquare, labels: Sequence[LabelledDie]) -> LabelledDie | None:
    """The labelled die the square lies on (the nearest within the matching distance), else None."""
    best, best_distance = None, float("inf")
    for label in labels:
        distance = float(np.hypot(square.centre_px[0] - label.centre_px[0], square.centre_px[1] - label.centre_px[1]))
        if distance <= MATCH_SHARE * label.size_px + MATCH_SLACK_PX and distance < best_distance:
            best, best_distance = label, distance
    return best


def true_class(square: DieSquare, labels: Sequence[LabelledDie]) -> int:
    """The face index (0..5) of the labelled die the square lies on, else :data:`NOT_A_DIE`."""
    label = label_under(square, labels)
    return NOT_A_DIE if label is None else label.face - 1


def labelled_edge(square: DieSquare, label: LabelledDie | None) -> float:
    """The edge of the die ``label`` boxes, px, turned as ``square`` is: an upright box around a square of edge e
    turned by t is e (|cos t| + |sin t|) wide and high; NaN for no label."""
    if label is None:
        return float("nan")
    turn = math.radians(square.angle_deg)
    return 0.5 * (label.width_px + label.height_px) / (abs(math.cos(turn)) + abs(math.sin(turn)))


def calibration_samples(photos: Iterable[tuple[np.ndarray, Sequence[LabelledDie]]], reader: CropReader,
                        stages: DiceStageConfig | None = None, looks: LookSettings | None = None,
                        side_share: float = 0.12, told_arena: np.ndarray | None = None) -> CalibrationSamples:
    """Run the stages on each (frame, labels) and read every proposed square and every square of the later looks
    (:func:`vision.dice_looks.look_and_explain`); ``reader``'s threshold decides where they are taken, and
    ``side_share`` (the side faces a flat die shows to the camera, :class:`vision.dice_pipeline.StagedDiceReader`)
    what a die read explains. ``told_arena``: the arena's outline (frame px) the rig's reader is told
    (``camera.arena_px``), so the first stage finds the bodies as it will at run time
    (:func:`vision.dice_bodies.find_bodies`)."""
    rows: list[np.ndarray] = []
    truth: list[int] = []
    edges: list[float] = []  # of the labelled dice the squares lie on
    groups: list[int] = []
    images = labelled = matched = 0
    next_group = 0
    for frame, labels in photos:
        images += 1
        labelled += len(labels)
        found = find_bodies(frame, stages, told_arena)
        looked = look_and_explain(frame, found, propose_squares(frame, found, stages), reader,
                                  ExplanationSettings(threshold=reader.threshold, side_share=side_share), looks)
        readings = [reading for body in looked.readings for reading in body]
        bodies = [index for index, body in enumerate(looked.readings) for _ in body]
        squares = [reading.square for reading in readings]
        matched += sum(1 for label in labels if any(true_class(square, [label]) != NOT_A_DIE for square in squares))
        if readings:
            rows.append(np.array([reading.probabilities for reading in readings], np.float64))
            under = [label_under(square, labels) for square in squares]
            truth.extend(NOT_A_DIE if label is None else label.face - 1 for label in under)
            edges.extend(labelled_edge(square, label) for square, label in zip(squares, under, strict=True))
            label_group = {id(label): next_group + at for at, label in enumerate(labels)}
            groups.extend(next_group + len(labels) + body if label is None else label_group[id(label)]
                          for label, body in zip(under, bodies, strict=True))
        next_group += len(labels) + len(looked.readings)
    probabilities = np.concatenate(rows) if rows else np.zeros((0, NOT_A_DIE + 1))
    return CalibrationSamples(probabilities, np.asarray(truth, int), images, labelled, matched,
                              np.asarray(edges, np.float64), np.asarray(groups, np.int64))
