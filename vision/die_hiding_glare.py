"""Training augmentation: a saturated glare over a die's crop, and whether it hid a pip.

A real camera's glare clips to white: a bright arc over a dark die washes out the pips under it, and the face
left visible can be another face's (a four with two pips under glare shows a two). Such a die is not readable, so
the reader must abstain on it rather than guess (DESIGN: never guess). This module lays such a glare over a training
crop and tells, pip by pip, whether the glare hid one:

- **hidden**: some pip's contrast with the face around it fell below :data:`HIDDEN_CONTRAST` of what it was. The
  crop is then a sample of "not a flat readable die".
- **kept**: as many pips as the face has were found and each keeps at least :data:`KEPT_CONTRAST` of its
  contrast. The crop keeps its face.
- otherwise the glare is dropped and the crop returned as it was: a half-hidden pip, or pips not all found,
  taught either way would teach the reader a guess.

Pips are found on the crop itself (no pip labels exist): the pixels of the die's face (the crop's centre, inside
:data:`vision.die_crop.CROP_MARGIN`) whose grey level lies far from the face's median.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.die_crop import CROP_MARGIN

HIDDEN_CONTRAST = 0.35
"""A pip whose contrast with its surround falls below this share of its contrast before the glare is hidden."""
KEPT_CONTRAST = 0.7
"""A pip keeping at least this share of its contrast is still seen."""
PIP_CONTRAST_GREY = 45.0
"""Grey levels a pixel of the face must lie from the face's median to be taken for a pip's."""
PIP_MIN_AREA_SHARE = 0.004
"""Smallest pip, as a share of the face's area (about 4 px of a 32 px face): smaller spots are texture or noise."""
PIP_MAX_AREA_SHARE = 0.1
"""Largest pip, as a share of the face's area (a one's pip is about 0.05): larger regions are shade or another
die."""
FACE_INNER_SHARE = 0.85
"""Share of the face's edge, about its centre, searched for pips: the crop's square is jittered, so its rim may be
the table's."""


@dataclass(frozen=True)
class GlareOutcome:
    """A crop after :func:`lay_hiding_glare`: ``crop`` (uint8 BGR) and ``hid_pip`` (True: a pip was hidden, the crop
    is no longer readable as its face)."""

    crop: np.ndarray
    hid_pip: bool


def face_box(size: int) -> tuple[int, int]:
    """The first and past-the-last pixel, along either axis, of the face searched for pips in a ``size`` crop."""
    face = size / (1 + 2 * CROP_MARGIN)
    half = face * FACE_INNER_SHARE / 2
    return round(size / 2 - half), round(size / 2 + half)


@dataclass(frozen=True)
class Pip:
    """A pip found on a crop: its pixels (``mask``) and the ring of face around them (``ring``), both boolean over
    the window ``rows`` x ``cols`` of the crop."""

    rows: slice
    cols: slice
    mask: np.ndarray
    ring: np.ndarray

    def contrast(self, grey: np.ndarray) -> float:
        """How far the pip's mean grey in ``grey`` (the whole crop's) lies from its ring's mean."""
        window = grey[self.rows, self.cols]
        return abs(float(window[self.mask].mean()) - float(window[self.ring].mean()))


RING_PX = 2
"""Width of the ring of face a pip's contrast is measured against."""


def find_pips(grey: np.ndarray) -> list[Pip]:
    """The pips found on the face of the grey crop ``grey`` (float, square)."""
    low, high = face_box(grey.shape[0])
    face = grey[low:high, low:high]
    far = (np.abs(face - float(np.median(face))) > PIP_CONTRAST_GREY).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(far, connectivity=8)
    area = (high - low) ** 2
    pips = []
    for k in range(1, count):
        left, top, width, height, pixels = stats[k]
        if not PIP_MIN_AREA_SHARE * area <= pixels <= PIP_MAX_AREA_SHARE * area:
            continue
        if left == 0 or top == 0 or left + width == high - low or top + height == high - low:
            continue  # cut by the searched box's rim: the face's edge, the table or another die, not a pip
        rows = slice(max(0, top - RING_PX), min(high - low, top + height + RING_PX))
        cols = slice(max(0, left - RING_PX), min(high - low, left + width + RING_PX))
        mask = labels[rows, cols] == k
        grown = cv2.dilate(mask.astype(np.uint8), np.ones((2 * RING_PX + 1, 2 * RING_PX + 1), np.uint8))
        pips.append(Pip(slice(rows.start + low, rows.stop + low), slice(cols.start + low, cols.stop + low),
                        mask, grown.astype(bool) & ~mask))
    return pips


_GRIDS: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def glare_weight(size: int, rng: np.random.Generator) -> np.ndarray:
    """A glare's weight over a ``size`` crop (peak 1): an elongated Gaussian (an arc's stretch) of random place,
    length, width and turn, centred on the face."""
    low, high = face_box(size)
    cx, cy = rng.uniform(low, high, 2)
    long_px = rng.uniform(2.5, 10.0) * size / 48
    short_px = long_px / rng.uniform(1.0, 4.0)
    turn = rng.uniform(0, np.pi)
    if size not in _GRIDS:
        _GRIDS[size] = tuple(np.mgrid[:size, :size].astype(np.float32))
    yy, xx = _GRIDS[size]
    along = (xx - cx) * np.cos(turn) + (yy - cy) * np.sin(turn)
    across = -(xx - cx) * np.sin(turn) + (yy - cy) * np.cos(turn)
    return np.exp(-(along**2 / (2 * long_px**2) + across**2 / (2 * short_px**2)))


def lay_hiding_glare(crop: np.ndarray, face: int | None, rng: np.random.Generator) -> GlareOutcome:
    """``crop`` (uint8 BGR) of a die showing ``face`` (1..6; None: a crop of no readable die) under a glare drawn
    from ``rng`` (:func:`glare_weight`, 1 to 2.5 times white at its core, so that its core clips), judged by
    :func:`glare_outcome`."""
    weight = glare_weight(crop.shape[0], rng)
    return glare_outcome(crop, face, weight * float(rng.uniform(1.0, 2.5)))


def glare_outcome(crop: np.ndarray, face: int | None, weight: np.ndarray) -> GlareOutcome:
    """``crop`` (uint8 BGR) with ``weight`` (the crop's shape, in units of white) of white added and clipped, and
    whether that hid a pip (see the module). A crop of no readable die (``face`` None) keeps the glare. On a die
    the glare is kept only when what it did is known: a pip found was hidden, or all ``face`` pips were found and
    each kept its contrast. Otherwise (pips missed, or one half hidden) the crop is returned as it was."""
    glared = np.clip(crop.astype(np.float32) + (255.0 * weight)[..., None].astype(np.float32), 0, 255)
    glared = glared.astype(np.uint8)
    if face is None:
        return GlareOutcome(glared, False)
    before, after = crop.astype(np.float32).mean(axis=2), glared.astype(np.float32).mean(axis=2)
    shares = [pip.contrast(after) / was for pip in find_pips(before) if (was := pip.contrast(before)) > 0]
    if shares and min(shares) < HIDDEN_CONTRAST:
        return GlareOutcome(glared, True)
    if len(shares) == face and min(shares) >= KEPT_CONTRAST:
        return GlareOutcome(glared, False)
    return GlareOutcome(crop, False)
