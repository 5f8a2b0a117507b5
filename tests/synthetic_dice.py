"""Synthetic dice frames for the staged reader's tests: white dice with black pips on a green table."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.dice_explanation import BodyPixels, DieReading
from vision.die_crop import DieSquare

PIP_OFFSETS = {1: ((0, 0),), 2: ((-10, -10), (10, 10)), 3: ((-10, -10), (0, 0), (10, 10)),
               4: ((-10, -10), (10, -10), (-10, 10), (10, 10)),
               5: ((-10, -10), (10, -10), (0, 0), (-10, 10), (10, 10)),
               6: ((-10, -10), (10, -10), (-10, 0), (10, 0), (-10, 10), (10, 10))}
"""Pip centres of each face on a die of 40 px, relative to its centre."""


def sure_reading(face: int, centre: tuple[float, float], edge: float) -> DieReading:
    """A reading of ``face`` with probability 1 from the upright square of ``edge`` px at ``centre``."""
    probabilities = [0.0] * 7
    probabilities[face - 1] = 1.0
    return DieReading(DieSquare(centre, edge), tuple(probabilities))


def die_frame(centres: list[tuple[float, float]], blur: int = 0, faces: list[int] | None = None
              ) -> tuple[np.ndarray, list[BodyPixels]]:
    """Green table, white dice of 40 px (five pips each, or ``faces``), with each die's body;
    ``blur``: smeared horizontally over that many px."""
    frame = np.zeros((240, 320, 3), np.uint8)
    frame[:] = (40, 110, 40)
    for (x, y), face in zip(centres, faces or [5] * len(centres), strict=True):
        cv2.rectangle(frame, (int(x - 20), int(y - 20)), (int(x + 20), int(y + 20)), (235, 235, 235), -1)
        for dx, dy in PIP_OFFSETS[face]:
            cv2.circle(frame, (int(x + dx), int(y + dy)), 4, (20, 20, 20), -1)
    if blur:
        frame = cv2.filter2D(frame, -1, np.full((1, blur), 1.0 / blur))
    bodies = []
    for x, y in centres:
        x0, y0 = int(x - 20 - blur // 2 - 1), int(y - 21)
        mask = np.zeros((42, 42 + blur + 2), bool)
        patch = frame[y0:y0 + 42, x0:x0 + 42 + blur + 2]
        mask[:patch.shape[0], :patch.shape[1]] = patch.min(axis=2) > 100
        mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((11, 11), np.uint8)).astype(bool)
        bodies.append(BodyPixels(mask, (x0, y0)))
    return frame, bodies


class SpotCounter:
    """Reads a crop by counting the dark spots in its middle, sure (0.99) when the count is a face and the die is
    centred in the crop (the white face's centroid within 2 px of the middle), else "not a flat readable die"."""

    crop_px, margin, threshold, sha256 = 48, 0.25, 0.9, "ab" * 32

    def __init__(self) -> None:
        self.crops: list[np.ndarray] = []

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        rows = []
        for crop in crops:
            self.crops.append(crop)
            grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
            ys, xs = np.nonzero(grey > 150)
            centred = xs.size > 0 and abs(xs.mean() - 23.5) <= 2 and abs(ys.mean() - 23.5) <= 2
            spots = cv2.connectedComponents((grey[8:40, 8:40] < 100).astype(np.uint8))[0] - 1
            row = np.full(7, 0.01 / 6)
            row[spots - 1 if centred and 1 <= spots <= 6 else 6] = 0.99
            rows.append(row)
        return np.asarray(rows)


class LeansAt:
    """A stand-in lean model: every die read whose centre lies left of ``x`` leans (flat 0.1, leaning 0.8, on another
    die 0.1), every other lies flat (0.9, 0.05, 0.05)."""

    threshold = 0.5
    sha256 = "cd" * 32

    def __init__(self, x: float) -> None:
        self.x = x
        self.asked: list[int] = []

    def probabilities(self, image: np.ndarray, squares: Sequence) -> np.ndarray:
        self.asked.append(len(squares))
        return np.array([(0.1, 0.8, 0.1) if square.centre_px[0] < self.x else (0.9, 0.05, 0.05) for square in squares])
