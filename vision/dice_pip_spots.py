"""Pip-sized spots in the pixels of a frame beside the dice read: a pip of a die not read, or none.

The scene's plain-pixel test (:func:`vision.dice_scene.plain_leftover`) asks whether the pixels of a body beside
the dice read in it show a pip: a die beneath another, or a die the reader missed, does; a shadow, the cloth or
a rail's edge does not. A spot counts when it is of a pip's size for the die's edge, of enough contrast against
its surround (dark on a light face, or light on a dark one) and, given a shape, round enough.
"""

from __future__ import annotations

import cv2
import numpy as np

PIP_DIAMETER_SHARE = 0.18
"""A pip's diameter as a share of the die's edge."""


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
