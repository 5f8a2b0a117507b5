"""A die read on its up face that leans: the pips of a side face beside it (p217-2007/banca-francesa/7 b).

A die cocked by 24-40 degrees against another die or the rail shows its up face barely foreshortened, so the
per-die reader reads it as surely as a flat one. Seen from above, it also shows the side face it is lifted
on: a band beside the up face, a third to two thirds of an edge wide, with that face's pips squeezed into
it. A flat die seen from above shows no such band (its side faces are slivers), and a shadow, however dark,
has no pips. So a die read with pip-sized spots (dark, or light on a dark die) in the ring around its
square, outside every other die read in its body, leans: the frame is declined as cocked. The ring is
looked at whether or not the body finder took it for part of the die's body.

Only for a camera over the table: an oblique camera sees a flat die's side faces, pips and all.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.dice_explanation import DieReading
from vision.die_crop import DieSquare

PIP_DIAMETER_SHARE = 0.18
"""A pip's diameter as a share of the die's edge."""
SIDE_FACE_PIP_SHAPE = (6.0, 0.2)
"""A spot in the ring counts as a side face's pip when no longer than 6 times its width and filling 0.2 of its
rotated box: a sliver along a neighbour's outline is not."""


def side_face_spots(frame: np.ndarray, die: DieReading, others: Sequence[DieReading], die_edge_px: float,
                    ring: tuple[float, float] = (1.3, 2.0), contrast: float = 25.0) -> int:
    """Pip-sized spots in ``frame`` (BGR or grey) within the ring between squares of ``ring`` edges (the larger of
    the square's and the frame's ``die_edge_px``) around ``die``'s square, outside the squares of ``others``
    grown by 0.3 of an edge: dark spots (a black-hat) or light ones (a top-hat) of at least ``contrast`` grey
    levels and 0.2 to 2 pips' area. The ring is looked at whole, whatever the body finder made of it: it may
    take a pale side face for the cloth, or a white die's side face for shade."""
    square = die.square
    edge = max(square.edge_px, die_edge_px)  # a square read a little small must not put its own pips in the ring
    reach = ring[1] * edge / np.sqrt(2.0) + 0.5 * edge  # the ring's corners, and the hats' reach beyond them
    x0, y0 = (max(int(np.floor(c - reach)), 0) for c in square.centre_px)
    x1, y1 = min(int(np.ceil(square.centre_px[0] + reach)), frame.shape[1]), \
        min(int(np.ceil(square.centre_px[1] + reach)), frame.shape[0])
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0
    window = frame[y0:y1, x0:x1]
    grey = cv2.cvtColor(window, cv2.COLOR_BGR2GRAY) if window.ndim == 3 else window
    origin = np.array([x0, y0], np.float32)
    around = np.zeros(grey.shape, np.uint8)
    cv2.fillPoly(around, [_outline(DieSquare(square.centre_px, ring[1] * edge, square.angle_deg), origin)], 1)
    cv2.fillPoly(around, [_outline(DieSquare(square.centre_px, ring[0] * edge, square.angle_deg), origin)], 0)
    for other in others:
        grown = DieSquare(other.square.centre_px, 1.3 * other.square.edge_px, other.square.angle_deg)
        cv2.fillPoly(around, [_outline(grown, origin)], 0)
    return pip_sized_spots(grey, around > 0, edge, contrast, shape=SIDE_FACE_PIP_SHAPE)


def pip_sized_spots(patch: np.ndarray, pixels: np.ndarray, die_edge_px: float, contrast: float = 25.0,
                    by_centre: bool = False,
                    shape: tuple[float, float] | None = None) -> int:
    """How many pip-sized spots lie on ``pixels`` (bool, as ``patch``: the frame's grey pixels around them), of one
    kind, the more numerous: dark spots (a black-hat) or light ones (a top-hat) of 0.2 to 2 pips' area for a die of
    ``die_edge_px``, whose hat is at least ``contrast`` grey levels.
    A spot is its part on ``pixels``, or (``by_centre``) the whole spot when its centre is on them. Given
    ``shape`` (most aspect, least fill), a spot longer than that many times its width, or filling less of its
    rotated box, is not counted: a pip, even squeezed on a side face, is round or oval; a die's dark outline or
    a rail's edge is not."""
    if not pixels.any():
        return 0
    size = max(3, round(0.3 * die_edge_px) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    pip_area = np.pi * (PIP_DIAMETER_SHARE * die_edge_px / 2.0) ** 2
    where = pixels.astype(np.uint8) * 255
    most = 0
    for operation in (cv2.MORPH_BLACKHAT, cv2.MORPH_TOPHAT):
        hat = cv2.morphologyEx(patch, operation, kernel)
        spots = cv2.compare(hat, contrast, cv2.CMP_GE)
        _, labels, stats, centres = cv2.connectedComponentsWithStats(spots if by_centre else spots & where)
        areas = stats[1:, cv2.CC_STAT_AREA]
        sized = (areas >= 0.2 * pip_area) & (areas <= 2.0 * pip_area)
        if by_centre:
            cells = np.clip(np.round(centres[1:]).astype(int), 0, [patch.shape[1] - 1, patch.shape[0] - 1])
            sized &= pixels[cells[:, 1], cells[:, 0]]
        if shape is not None:
            for index in np.flatnonzero(sized):
                sized[index] = _roundish(labels == index + 1, areas[index], *shape)
        most = max(most, int(np.count_nonzero(sized)))
    return most


def _roundish(spot: np.ndarray, area: int, max_aspect: float, least_fill: float) -> bool:
    """Whether a spot (bool pixels) is no longer than ``max_aspect`` times its width and fills ``least_fill`` of its
    rotated box."""
    ys, xs = np.nonzero(spot)
    (_, _), (width, height), _ = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
    width, height = width + 1.0, height + 1.0  # pixel centres to pixel extents
    return max(width, height) <= max_aspect * min(width, height) and area >= least_fill * width * height


def _outline(square: DieSquare, origin: np.ndarray) -> np.ndarray:
    return np.round(square.corners() - origin).astype(np.int32)
