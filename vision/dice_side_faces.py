"""A die read on its up face that leans: the pips of a side face beside it (p217-2007/banca-francesa/7 b).

A die cocked by 24-40 degrees against another die or the rail shows its up face barely foreshortened, so the
per-die reader reads it as surely as a flat one. Seen from above, it also shows the side face it is lifted
on: a band beside the up face, a third to two thirds of an edge wide, with that face's pips squeezed into
it. A flat die seen from above shows no such band (its side faces are slivers), and a shadow, however dark,
has no pips. So a die read whose body holds pip-sized spots (dark, or light on a dark die) in the ring
around its square, outside every other die read, leans: the frame is declined as cocked.

Only for a camera over the table: an oblique camera sees a flat die's side faces, pips and all.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.dice_explanation import BodyPixels, DieReading
from vision.die_crop import DieSquare

PIP_DIAMETER_SHARE = 0.18
"""A pip's diameter as a share of the die's edge."""


def side_face_spots(patch: np.ndarray, body: BodyPixels, die: DieReading, others: Sequence[DieReading],
                    die_edge_px: float, ring: tuple[float, float] = (1.3, 2.0), contrast: float = 25.0) -> int:
    """Pip-sized spots in ``body`` (``patch``: the frame's grey pixels over its mask) within the ring between
    squares of ``ring`` edges (the larger of the square's and the frame's ``die_edge_px``) around ``die``'s
    square, outside the squares of ``others`` grown by 0.3 of an edge: dark spots (a black-hat) or light ones
    (a top-hat) of at least ``contrast`` grey levels and 0.2 to 2 pips' area."""
    square = die.square
    edge = max(square.edge_px, die_edge_px)  # a square read a little small must not put its own pips in the ring
    origin = np.asarray(body.origin, np.float32)
    around = np.zeros(body.mask.shape, np.uint8)
    cv2.fillPoly(around, [_outline(DieSquare(square.centre_px, ring[1] * edge, square.angle_deg), origin)], 1)
    cv2.fillPoly(around, [_outline(DieSquare(square.centre_px, ring[0] * edge, square.angle_deg), origin)], 0)
    for other in others:
        grown = DieSquare(other.square.centre_px, 1.3 * other.square.edge_px, other.square.angle_deg)
        cv2.fillPoly(around, [_outline(grown, origin)], 0)
    around &= body.mask.astype(np.uint8)  # (the shade is kept: a white die's side face may pass for shade)
    if not around.any():
        return 0
    size = max(3, round(0.3 * edge) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    pip_area = np.pi * (PIP_DIAMETER_SHARE * edge / 2.0) ** 2
    most = 0
    for operation in (cv2.MORPH_BLACKHAT, cv2.MORPH_TOPHAT):
        hat = cv2.morphologyEx(patch, operation, kernel)
        level = max(contrast, 0.4 * float(hat[around > 0].max()))
        spots = cv2.compare(hat, level, cv2.CMP_GE) & (around * 255)
        _, _, stats, _ = cv2.connectedComponentsWithStats(spots)
        areas = stats[1:, cv2.CC_STAT_AREA]
        most = max(most, int(np.count_nonzero((areas >= 0.2 * pip_area) & (areas <= 2.0 * pip_area))))
    return most


def _outline(square: DieSquare, origin: np.ndarray) -> np.ndarray:
    return np.round(square.corners() - origin).astype(np.int32)
