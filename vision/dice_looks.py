"""Stage 3 of the staged dice reader: read each body's squares, and look again where the first reads leave it.

The proposal stage (:mod:`vision.dice_proposals`) gives each body its squares; each is read, cut upright
(:mod:`vision.die_crop`), by the learned per-die reader (a :class:`CropReader`: faces 1..6 and "not a flat readable
die", each with its probability), in one batch for the frame. Then, in one more batch each:

- the second look: squares around those the reader half believes (:mod:`vision.dice_second_look`);
- after each body is explained (:mod:`vision.dice_explanation`), the third look: a grid over what the dice read
  leave unexplained (:mod:`vision.dice_leftover_scan`);
- where two dice read of one face would overlap, the square midway between them
  (:func:`vision.dice_explanation.bridge_squares`);
- the fourth look: the centre of a body of about one die in which no die is read (:mod:`vision.dice_centre_look`).

Every look only adds readings; the explanation stage decides what they mean. Which squares the looks take is set by
one :class:`LookSettings`, shared by the reader (:class:`vision.dice_pipeline.StagedDiceReader`) and the threshold's
calibration (:mod:`vision.dice_calibration_samples`), so the threshold is fitted on the squares the reader reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from vision.dice_bodies import Bodies, Body
from vision.dice_centre_look import CentreLookSettings, centre_squares
from vision.dice_explanation import (
    BodyExplanation,
    BodyPixels,
    DieReading,
    ExplanationSettings,
    bridge_squares,
    explain_body,
)
from vision.dice_leftover_scan import LeftoverScanSettings, scan_squares
from vision.dice_proposals import BodyProposals
from vision.dice_second_look import SecondLookSettings, around, seeds
from vision.die_crop import DieSquare, rectified_crop


class CropReader(Protocol):
    """The learned per-die reader: crops of ``crop_px`` with ``margin`` in, one probability row per crop out."""

    crop_px: int
    margin: float
    threshold: float
    sha256: str

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray: ...


@dataclass(frozen=True)
class LookSettings:
    """The settings of every look after the proposed squares: the second (around half-believed squares), the third
    (a grid over what a body leaves unexplained) and the fourth (a lone body's centre at every turn)."""

    second: SecondLookSettings = field(default_factory=SecondLookSettings)
    leftover: LeftoverScanSettings = field(default_factory=LeftoverScanSettings)
    centre: CentreLookSettings = field(default_factory=CentreLookSettings)


def body_in_frame(body: Body, pips: int = 0, bodies: Bodies | None = None) -> BodyPixels:
    """A found body's pixels at the frame's resolution (its outline filled), placed at its bounding box, with the
    ``pips`` found on or beside it and (given the ``bodies`` it is one of) its shaded pixels."""
    x, y, width, height = body.bbox
    mask = np.zeros((max(height, 1), max(width, 1)), np.uint8)
    outline = np.round(body.contour_px - np.array([x, y], np.float32)).astype(np.int32)
    cv2.fillPoly(mask, [outline], 1)
    inside = mask.astype(bool)
    shade = None if bodies is None else bodies.shade_in((x, y, mask.shape[1], mask.shape[0])) & inside
    return BodyPixels(inside, (x, y), pips, shade)


def read_squares(frame: np.ndarray, squares: Sequence[DieSquare], reader: CropReader) -> np.ndarray:
    """The reader's probabilities (one row per square) for the upright crops of ``squares``, in one batch."""
    if not squares:
        return np.zeros((0, 7))
    crops = [rectified_crop(frame, square, reader.crop_px, reader.margin) for square in squares]
    rows = np.asarray(reader.probabilities(crops), np.float64)
    if rows.ndim != 2 or rows.shape[0] != len(squares) or rows.shape[1] < 7:
        raise ValueError(f"the per-die reader {reader.sha256[:12]} gave {rows.shape} probabilities for "
                         f"{len(squares)} crops")
    return rows


@dataclass(frozen=True)
class LookedBodies:
    """A frame's bodies after every look: each body's pixels, every reading taken in it, its explanation."""

    bodies: list[BodyPixels]
    readings: list[list[DieReading]]
    explanations: list[BodyExplanation]


def look_and_explain(frame: np.ndarray, found: Bodies, proposals: Sequence[BodyProposals], reader: CropReader,
                     settings: ExplanationSettings, looks: LookSettings | None = None) -> LookedBodies:
    """Read each body's proposed squares and those of the second look (:func:`read_bodies`), explain each body, then
    read the squares of the third look over what a body leaves unexplained (:mod:`vision.dice_leftover_scan`, one
    more batch for the frame) and explain those bodies again with every reading. The third look only adds dice: a
    body keeps its first explanation unless the second explains it whole or reads more dice in it (so a square of
    the grid that half believes a face beside the dice read does not change how the scene judges those pixels).
    Last, where two dice read of one face would overlap, the square midway between them is read
    (:func:`vision.dice_explanation.bridge_squares`): read surely as that face, they are one die. A body of about one
    die's area in which no die is read then gets a fourth look, squares at its centre at every turn
    (:mod:`vision.dice_centre_look`). ``looks``: each look's settings (the defaults when None)."""
    looks = looks or LookSettings()
    per_body = read_bodies(frame, [proposal.squares for proposal in proposals], reader, found.die_edge_px,
                           looks.second)
    bodies = [body_in_frame(proposal.body, proposal.pips, found) for proposal in proposals]
    explanations = [explain_body(body, readings, settings) for body, readings in zip(bodies, per_body, strict=True)]
    looked = LookedBodies(bodies, per_body, explanations)
    _look_again(frame, looked, [scan_squares(body, explanation, found.die_edge_px, looks.leftover)
                                for body, explanation in zip(bodies, explanations, strict=True)], reader, settings,
                adopt=lambda again, first: again.explained or len(again.dice) > len(first.dice))
    _look_again(frame, looked, [bridge_squares(readings, settings) if explanation.problem == "unreadable" else []
                                for readings, explanation in zip(per_body, explanations, strict=True)], reader,
                settings)
    _look_again(frame, looked, [centre_squares(body, explanation, found.die_edge_px, looks.centre)
                                for body, explanation in zip(bodies, looked.explanations, strict=True)], reader,
                settings)
    return looked


def _look_again(frame: np.ndarray, looked: LookedBodies, squares: Sequence[Sequence[DieSquare]], reader: CropReader,
                settings: ExplanationSettings,
                adopt: Callable[[BodyExplanation, BodyExplanation], bool] = lambda again, first: True) -> None:
    """Read each body's ``squares`` (one batch for the frame), add the readings to the body's, and explain each body
    given more again, keeping the new explanation where ``adopt(new, old)`` holds."""
    if not any(squares):
        return
    for index, more in enumerate(_read_per_body(frame, squares, reader)):
        if more:
            looked.readings[index].extend(more)
            again = explain_body(looked.bodies[index], looked.readings[index], settings)
            if adopt(again, looked.explanations[index]):
                looked.explanations[index] = again


def read_bodies(frame: np.ndarray, squares: Sequence[Sequence[DieSquare]], reader: CropReader, die_edge_px: float,
                second_look: SecondLookSettings | None = None) -> list[list[DieReading]]:
    """The readings of each body's proposed squares, then of the squares of a second look around its seeds
    (:mod:`vision.dice_second_look`): two batches for the whole frame."""
    look = second_look or SecondLookSettings()
    per_body = _read_per_body(frame, squares, reader)
    extra = [[square for seed in seeds(readings, reader.threshold, look) for square in around(seed, die_edge_px, look)]
             for readings in per_body]
    for readings, more in zip(per_body, _read_per_body(frame, extra, reader), strict=True):
        readings.extend(more)
    return per_body


def _read_per_body(frame: np.ndarray, squares: Sequence[Sequence[DieSquare]], reader: CropReader
                   ) -> list[list[DieReading]]:
    """Every body's squares read in one batch, as each body's readings."""
    rows = iter(read_squares(frame, [square for body in squares for square in body], reader))
    return [[DieReading(square, tuple(float(p) for p in next(rows))) for square in body] for body in squares]
