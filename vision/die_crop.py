"""A die's square in a frame, and the upright crop of it that the per-die reader reads.

A :class:`DieSquare` is where a die's up face is thought to be: its centre, its edge and its turn,
in image pixels. The stages that find dice propose squares; the per-die reader reads the crop
:func:`rectified_crop` cuts around a square, turned upright and scaled to a fixed size, so the
reader sees every die at one size whatever the camera's distance and the die's turn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

CROP_MARGIN = 0.25
"""Share of the edge kept around the square on each side: the reader sees the die's outline and a
little of what is around it (a side face, a die beneath, the table)."""


@dataclass(frozen=True)
class DieSquare:
    """A die's up face as a square in the frame: centre (px), edge (px), turn (degrees, any value)."""

    centre_px: tuple[float, float]
    edge_px: float
    angle_deg: float = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.edge_px) and self.edge_px > 0):
            raise ValueError(f"a die's edge must be a positive number of pixels, got {self.edge_px}")
        if not all(math.isfinite(v) for v in (*self.centre_px, self.angle_deg)):
            raise ValueError(f"a die's centre and turn must be finite, got {self.centre_px}, {self.angle_deg}")

    def corners(self) -> np.ndarray:
        """The four corners (4, 2) float32, image px, in the order top-left, top-right, bottom-right, bottom-left
        of the square turned upright."""
        half = self.edge_px / 2.0
        unit = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * half
        theta = math.radians(self.angle_deg)
        turn = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
        return (unit @ turn.T + np.asarray(self.centre_px, np.float64)).astype(np.float32)

    def contains(self, point: tuple[float, float]) -> bool:
        """Whether ``point`` (image px) lies in the square or on its outline."""
        return cv2.pointPolygonTest(self.corners(), (float(point[0]), float(point[1])), False) >= 0


def crop_transform(square: DieSquare, size_px: int, margin: float = CROP_MARGIN) -> np.ndarray:
    """The 2 x 3 affine map from frame pixels to the ``size_px`` crop of ``square`` with ``margin``."""
    if size_px < 4:
        raise ValueError(f"a crop needs at least 4 px a side, got {size_px}")
    if not 0.0 <= margin < 2.0:
        raise ValueError(f"the crop's margin is a share of the edge within 0..2, got {margin}")
    span = square.edge_px * (1.0 + 2.0 * margin)
    scale = size_px / span
    theta = math.radians(square.angle_deg)
    cos, sin = math.cos(theta) * scale, math.sin(theta) * scale
    cx, cy = square.centre_px
    # rotate the frame by -angle about the centre, scale, and put the centre at the crop's middle
    matrix = np.array([[cos, sin, 0.0], [-sin, cos, 0.0]])
    matrix[:, 2] = np.array([size_px / 2.0, size_px / 2.0]) - matrix[:, :2] @ np.array([cx, cy])
    return matrix


def rectified_crop(image: np.ndarray, square: DieSquare, size_px: int, margin: float = CROP_MARGIN) -> np.ndarray:
    """The square's crop, turned upright and scaled to ``size_px`` x ``size_px``.

    The crop is cut at the frame's own resolution and then resized (averaging pixels when it shrinks,
    so fine pips do not alias away). Beyond the frame is replicated from its edge, so a die at the
    frame's edge is not framed by a black band a reader could learn from.
    """
    native_px = max(size_px, math.ceil(square.edge_px * (1.0 + 2.0 * margin)))
    upright = cv2.warpAffine(image, crop_transform(square, native_px, margin), (native_px, native_px),
                             flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if native_px == size_px:
        return upright
    return cv2.resize(upright, (size_px, size_px), interpolation=cv2.INTER_AREA)
