"""A die's up face as the camera outlines it, at the frame's full resolution, for the dimension measurement.

The staged reader says which face a die shows from a square that lies within about a tenth of an edge of the
die (:mod:`vision.dice_leftover_scan`): enough to read it, not to measure it. The edge clause ("b) Arestas
iguais e com comprimento entre ...", p217-2007/banca-francesa/3, p217-2007/craps/2, p217-2007/cussec/1)
measures each side's edge within a few hundredths of it (:func:`vision.measure.measure_die_edges`), so the
die laid flat beside the target for measuring is outlined here from its pixels: around the square read,
the cloth's colour is the median of a ring well outside the die; how much brighter than it each pixel is in
its brightest channel (a die is brighter than the cloth in one channel at least: red in red, white in all;
its shadow is darker in every channel) is split by Otsu's threshold; the part joined to the square's
middle, its pips filled, is the die; its least rectangle is the outline. An outline whose shape is not a
die's (far from square, far from the square read, or cut by the window's edge: a die touching another, a
shadow joined to it) gives nothing, and the die is not measured (never a guessed outline).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.die_crop import DieSquare

if TYPE_CHECKING:
    from vision.dice_pipeline import StagedRead

WINDOW_SHARE = 1.1
"""Half the window searched about the square read, in edges: a die laid apart from the others lies in it whole
with cloth about it (the bench lays measured dice 1.8 edges apart, centre to centre)."""
RING_SHARE = 0.85
"""The cloth is sampled beyond this many edges from the square's centre (a die's corner lies 0.71 from it)."""
SQUARENESS = 1.15
"""Largest ratio of the outline's long side to its short side."""
EDGE_AGREEMENT = (0.75, 1.3)
"""The outline's side as a share of the square read's edge: least, most."""
CENTRE_AGREEMENT = 0.25
"""Largest distance of the outline's centre from the square read's, in edges."""
FILL = 0.85
"""Least share of the outline's rectangle the die's pixels cover (a disc covers 0.79)."""


@dataclass(frozen=True)
class DieOutline:
    """A die's up face: its least rectangle in frame px (centre, side, turn) and its four corners."""

    centre_px: tuple[float, float]
    edge_px: float
    angle_deg: float
    corners_px: np.ndarray

    @property
    def square(self) -> DieSquare:
        return DieSquare(self.centre_px, self.edge_px, self.angle_deg)


def outline_die(image: np.ndarray, square: DieSquare) -> DieOutline | None:
    """The outline of the die read in ``square`` on the BGR ``image``, or None when its pixels do not outline a
    lone die (module docstring)."""
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"a die is outlined on a BGR frame, got shape {image.shape}")
    cx, cy = square.centre_px
    reach = WINDOW_SHARE * square.edge_px
    height, width = image.shape[:2]
    x0, y0 = max(math.floor(cx - reach), 0), max(math.floor(cy - reach), 0)
    x1, y1 = min(math.ceil(cx + reach) + 1, width), min(math.ceil(cy + reach) + 1, height)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    window = image[y0:y1, x0:x1].astype(np.float32)
    ys, xs = np.mgrid[y0:y1, x0:x1]
    from_centre = np.hypot(xs - cx, ys - cy)
    ring = from_centre > RING_SHARE * square.edge_px
    if np.count_nonzero(ring) < 16:
        return None
    cloth = np.median(window[ring], axis=0)
    brighter = np.clip((window - cloth).max(axis=2), 0.0, None)  # a shadow is darker in every channel
    scaled = np.clip(brighter * (255.0 / max(float(brighter.max()), 1e-6)), 0, 255).astype(np.uint8)
    _, die = cv2.threshold(scaled, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    count, labels = cv2.connectedComponents(die, connectivity=8)
    middle = labels[(from_centre <= 0.2 * square.edge_px) & (labels > 0)]
    if count < 2 or middle.size == 0:
        return None
    part = (labels == np.bincount(middle).argmax()).astype(np.uint8)
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea)
    (ox, oy), (w, h), angle = cv2.minAreaRect(outline)
    inner_x, inner_y, inner_w, inner_h = cv2.boundingRect(outline)
    touches_window = (inner_x == 0 and x0 > 0) or (inner_y == 0 and y0 > 0) \
        or (inner_x + inner_w >= x1 - x0 and x1 < width) or (inner_y + inner_h >= y1 - y0 and y1 < height)
    side = (w + h) / 2.0
    filled = np.zeros_like(part)
    cv2.drawContours(filled, [outline], -1, 1, -1)
    centre = (ox + x0, oy + y0)
    if (touches_window or min(w, h) <= 0 or max(w, h) / min(w, h) > SQUARENESS
            or not EDGE_AGREEMENT[0] <= side / square.edge_px <= EDGE_AGREEMENT[1]
            or math.dist(centre, (cx, cy)) > CENTRE_AGREEMENT * square.edge_px
            or np.count_nonzero(filled) < FILL * w * h):
        return None
    corners = cv2.boxPoints(((centre[0], centre[1]), (w, h), angle)).astype(np.float32)
    return DieOutline((float(centre[0]), float(centre[1])), float(side), float(angle), corners)


@dataclass(frozen=True)
class DieToMeasure:
    """A die of a measuring still: its outline (the quadrilateral the edges are searched about) and its pips
    (x, y, radius in frame px; empty when they could not all be located, and its pips are then not measured)."""

    outline: DieOutline
    face: int
    pips_px: tuple[tuple[float, float, float], ...]


def dice_to_measure(image: np.ndarray, read: StagedRead) -> tuple[list[DieToMeasure], str | None]:
    """The dice of an accepted read of a measuring still, and None; or no dice and why they cannot be measured.
    The read's dice are outlined (:func:`outline_die`) and their pips located
    (:func:`vision.pip_locator.locate_pips`)."""
    from vision.pip_locator import locate_pips

    dice: list[DieToMeasure] = []
    for die in read.dice:
        square = die.square
        outline = outline_die(image, square)
        if outline is None:
            x, y = square.centre_px
            return [], (f"die at ({x:.0f}, {y:.0f}) px read as a {die.face} cannot be outlined alone against the "
                        "cloth (touching another die, or a shadow or reflection joined to it)")
        dice.append(DieToMeasure(outline, int(die.face), locate_pips(image, outline.square, int(die.face))))
    return dice, None
