"""What stands off the cloth around a glare spot: a die whose pips the spot hides, or nothing (p217-2007/cussec/6).

A glare spot on the cloth and a die whose pips a glare spot hides can both leave a body in which no face reads
(a one whose only pip is washed out shows a blank face). With the game's count met by the dice read, taking such a
die for a spot on the cloth accepts a frame with a die too many on the table. One sign that tells them apart is the
edge: a specular spot whitens the cloth along a smooth fall-off, while a die stands off the cloth with its own
outline, as sharp as the camera's focus, around most of a die's area (the other sign, the per-die reader's
likelihood of a face there, and the decision are :func:`vision.dice_scene.glare_may_hide_a_die`'s).

Measured in the colour distance from the cloth (the largest channel difference from the median colour of the frame
about the body, outside it): the object is the pixels of the region examined at least ``contrast`` from the cloth and
joined to the glare; its rim is the object's boundary, less where it meets the rest of the body (a die read, its
shadow: the region is cut there, no edge of the object's own); a rim pixel is sharp where that distance rises steeply
across it. A die keeps its outline sharp on the sides the spot does not whiten; a spot's fall-off is nowhere as
steep.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice_explanation import BodyPixels


@dataclass(frozen=True)
class GlareObject:
    """What stands off the cloth around a glare spot: its area in dice and the share of its rim that is sharp."""

    dice: float
    sharp_rim: float


def _grown_box(frame: np.ndarray, body: BodyPixels, margin_px: int) -> tuple[int, int, int, int]:
    """The body's box grown by ``margin_px`` and clipped to the frame: x0, y0, x1, y1."""
    x, y = body.origin
    height, width = body.mask.shape
    return (max(x - margin_px, 0), max(y - margin_px, 0),
            min(x + width + margin_px, frame.shape[1]), min(y + height + margin_px, frame.shape[0]))


def _placed(mask: np.ndarray, body: BodyPixels, box: tuple[int, int, int, int]) -> np.ndarray:
    """``mask`` (as the body's) placed in ``box`` (frame px), False elsewhere."""
    x0, y0, x1, y1 = box
    placed = np.zeros((y1 - y0, x1 - x0), bool)
    x, y = body.origin
    placed[y - y0:y - y0 + mask.shape[0], x - x0:x - x0 + mask.shape[1]] = mask
    return placed


def cloth_colour(frame: np.ndarray, body: BodyPixels, box: tuple[int, int, int, int]) -> np.ndarray | None:
    """The median colour (BGR, or grey level for a grey frame) of the frame in ``box`` (about the body, frame px)
    outside the body; None when under 20 such pixels show."""
    outside = ~_placed(body.mask, body, box)
    if np.count_nonzero(outside) < 20:
        return None
    x0, y0, x1, y1 = box
    return np.median(_channels(frame)[y0:y1, x0:x1][outside].astype(np.float32), axis=0)


def _channels(frame: np.ndarray) -> np.ndarray:
    """``frame`` with a channel axis (a grey frame has one channel)."""
    return frame if frame.ndim == 3 else frame[:, :, None]


def glare_object(frame: np.ndarray, body: BodyPixels, region: np.ndarray, glare: np.ndarray, die_edge_px: float,
                 contrast: float, sharp_gradient: float) -> GlareObject | None:
    """The object the glare pixels ``glare`` lie on within ``region`` (both bool, as the body's mask, the region part
    of the body): the pixels of the region at least ``contrast`` grey levels (largest channel) from the cloth's
    colour and joined to the glare. Its rim is its boundary, less where it meets the rest of the body (the region is
    cut there, by a die read or its shadow: no edge of the object's own), and the rim is sharp where the distance
    rises at least ``sharp_gradient`` grey levels per pixel across it. The cloth's colour is the frame's about
    the body (a quarter of an edge around its box); None when it cannot be told."""
    box = _grown_box(frame, body, max(round(die_edge_px / 4), 2))
    cloth = cloth_colour(frame, body, box)
    if cloth is None:
        return None
    x0, y0, x1, y1 = box
    distance = np.abs(_channels(frame)[y0:y1, x0:x1].astype(np.float32) - cloth).max(axis=2)
    inside, cut = _placed(region, body, box), _placed(body.mask & ~region, body, box)
    standing = (inside & (distance >= contrast)).astype(np.uint8)
    _, parts = cv2.connectedComponents(standing, connectivity=8)
    touched = np.unique(parts[_placed(glare, body, box) & (standing > 0)])
    touched = touched[touched > 0]
    if touched.size == 0:
        return GlareObject(0.0, 0.0)
    obj = np.isin(parts, touched)
    rim = obj & ~cv2.erode(obj.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    rim &= ~cv2.dilate(cut.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    rim[[0, -1], :] = False
    rim[:, [0, -1]] = False
    gx = cv2.Sobel(distance, cv2.CV_32F, 1, 0, ksize=3) / 4.0
    gy = cv2.Sobel(distance, cv2.CV_32F, 0, 1, ksize=3) / 4.0
    sharp = float((np.hypot(gx, gy)[rim] >= sharp_gradient).mean()) if rim.any() else 0.0
    return GlareObject(float(np.count_nonzero(obj)) / (die_edge_px * die_edge_px), sharp)
