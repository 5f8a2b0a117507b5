"""Find the dice on the table: separate die bodies from the cloth or desk under uneven light.

Method: the table's own colour is estimated everywhere from a coarse median of the frame
(dice cover a small share of any large window, so the median is the table), which follows
light gradients and tinted cloth. A pixel belongs to a die when one of its colour channels is
brighter than the table's by a margin relative to the table's brightness (white dice are
brighter in every channel, translucent red dice in red); shadows are darker in every channel
and so never count; on a tinted table (wood, pink cloth) a far more neutral pixel counts even when
only a little brighter (a white die in dim light). The work is done at half resolution (dice are 30 px or more), then each
connected region ("blob") is handed to the pip reader at full resolution.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice_bodies import cell_average

SCALE = 2
"""The die mask is computed at 1/SCALE of the frame's resolution."""


@dataclass(frozen=True)
class Blob:
    """One connected die-like region, in full-resolution pixels."""

    label: int
    area: float
    """Pixels (full resolution)."""
    bbox: tuple[int, int, int, int]
    """x, y, width, height (full resolution)."""
    centroid: tuple[float, float]
    rect: tuple[tuple[float, float], tuple[float, float], float]
    """cv2.minAreaRect of the blob (full resolution)."""
    fill: float
    """Area / area of the minimum rectangle (1 for a sharp square, pi/4 for a disk)."""
    aspect: float
    """Long / short side of the minimum rectangle."""


@dataclass(frozen=True)
class Segmentation:
    """The die mask (half resolution), its labels and the blobs found."""

    mask: np.ndarray
    labels: np.ndarray
    blobs: tuple[Blob, ...]
    background: np.ndarray
    """Estimated table colour (coarse grid of 10 x 10 full-resolution px cells, BGR float32)."""
    light: np.ndarray | None = None
    """The die mask before its holes are filled (half resolution): 0 at pips and at table enclosed by dice."""


def table_background(small: np.ndarray, exclude: np.ndarray | None = None) -> np.ndarray:
    """Table colour under the frame's light, BGR float32 on a coarse grid.

    A median over cells of 10 x 10 half-resolution px (dice cover a small share of a 5 x 5 cell
    window). With ``exclude`` (1 where a die was found), the estimate is redone on a finer grid
    (5 x 5 px cells) as the average of the table pixels only, so it follows the edge of the arena
    and a cluster of dice does not bias it; cells that are all dice borrow from their neighbours.
    """
    height, width = small.shape[:2]
    grid = (max(width // 10, 4), max(height // 10, 3))
    fine = (max(width // 5, 4), max(height // 5, 3))
    if exclude is None:
        cells = cv2.resize(small, grid, interpolation=cv2.INTER_AREA)
        return cv2.medianBlur(cells, 5).astype(np.float32)
    table = 1 - exclude
    weight = cv2.resize(table.astype(np.float32), fine, interpolation=cv2.INTER_AREA)
    total = cv2.resize(cv2.bitwise_and(small, small, mask=table).astype(np.float32), fine,
                       interpolation=cv2.INTER_AREA)
    return cell_average(weight, total)  # cells that are all dice borrow from their neighbours


_NEUTRAL_CHROMA = (np.arange(256) * 24 // 100).astype(np.uint8)
"""Greatest chroma (integer) at most 24 % of a brightest channel (the index): chroma * 100 <= 24 * top."""
_VERY_NEUTRAL_CHROMA = (np.arange(256) * 12 // 100).astype(np.uint8)
"""Greatest chroma at most 12 % of a brightest channel (the index)."""
_REDDER_CEILING = (np.arange(256) * 5 // 9).astype(np.uint8)
"""Greatest blue or green that a red (the index) exceeds 1.8 times: 9 * other <= 5 * red."""


def redder(blue_green: np.ndarray, red: np.ndarray) -> np.ndarray:
    """uint8 mask, 255 where ``red`` is at least 1.8 times ``blue_green`` (the larger of blue and green; uint8 planes):
    a red die's red."""
    return cv2.compare(blue_green, cv2.LUT(red, _REDDER_CEILING), cv2.CMP_LE)


@dataclass(frozen=True)
class PixelFeatures:
    """What the die mask needs of each half-resolution pixel, computed once per frame (independent of the table).

    The tests on integer channels are exact: each is looked up as the greatest value that passes for the
    channel it is compared against, so no pixel is judged by rounding. Masks are uint8, 255 where true.
    """

    grey: np.ndarray
    """Mean of the three channels rounded to an integer (float32)."""
    red: np.ndarray
    """Red channel (float32)."""
    neutral: np.ndarray
    """Chroma (max - min channel) at most 24 % of the brightest channel."""
    very_neutral: np.ndarray
    """Chroma at most 12 % of the brightest channel."""
    redder: np.ndarray
    """Red at least 1.8 times the larger of blue and green."""

    @classmethod
    def of(cls, small: np.ndarray) -> PixelFeatures:
        """The features of a BGR uint8 image."""
        blue, green, red = cv2.split(small)
        blue_green = cv2.max(blue, green)
        top = cv2.max(blue_green, red)
        chroma = cv2.subtract(top, cv2.min(cv2.min(blue, green), red))
        red32 = red.astype(np.float32)
        # the mean rounded to the nearest integer, floor((sum + 1) / 3): sums are exact in float32, and (sum + 1)
        # times the float32 third is never a rounding away from a whole number
        grey = cv2.add(cv2.add(blue.astype(np.float32), green.astype(np.float32)), red32)
        np.add(grey, 1.0, out=grey)
        np.multiply(grey, np.float32(1.0 / 3.0), out=grey)
        np.floor(grey, out=grey)
        return cls(grey=grey, red=red32,
                   neutral=cv2.compare(chroma, cv2.LUT(top, _NEUTRAL_CHROMA), cv2.CMP_LE),
                   very_neutral=cv2.compare(chroma, cv2.LUT(top, _VERY_NEUTRAL_CHROMA), cv2.CMP_LE),
                   redder=redder(blue_green, red))


def die_mask(pixels: PixelFeatures, cells: np.ndarray, threshold: float, style: str) -> np.ndarray:
    """uint8 mask of die pixels (half resolution, 1 on a die) given the table colour ``cells`` (coarse grid).

    White dice (style 'auto' or 'opaque'): brighter than the table (mean of the channels) by
    ``threshold`` times the table's brightness, and near-neutral (chroma at most 24 % of the
    brightness), so a shadow (darker) or tinted cloth under a weak glare (coloured) is not a die.
    On a tinted table (wood, pink cloth: chroma 25 % or more) a white die in dim light is little
    brighter than the table but far more neutral: there a pixel of at most 12 % chroma, brighter
    than the table by 3 %, is a die's too.
    Translucent red dice ('auto' or 'translucent'): red exceeds 1.8 times the larger of blue and green,
    and the red channel is brighter than the table's by 0.7 times the table's brightness: a red
    die is a brighter red than any cloth, red cloth included, and glare whitens, never reddens.
    """
    height, width = pixels.grey.shape
    size = (width, height)
    grey_cells = cv2.transform(cells, np.full((1, 3), 1.0 / 3.0, np.float32))
    level = cv2.max(grey_cells, 40.0)
    mask = np.zeros((height, width), np.uint8)
    if style in ("auto", "opaque"):
        needed = cv2.resize(grey_cells + threshold * level, size, interpolation=cv2.INTER_LINEAR)
        mask = cv2.bitwise_and(cv2.compare(pixels.grey, needed, cv2.CMP_GE), pixels.neutral)
        high = cv2.max(cv2.max(cells[..., 0], cells[..., 1]), cells[..., 2])
        tint = cv2.subtract(high, cv2.min(cv2.min(cells[..., 0], cells[..., 1]), cells[..., 2])) / cv2.max(high, 1.0)
        if float(tint.max()) >= 0.25:
            tinted = cv2.compare(cv2.resize(tint, size, interpolation=cv2.INTER_LINEAR), 0.25, cv2.CMP_GE)
            above = cv2.compare(pixels.grey, cv2.resize(grey_cells * 1.03, size, interpolation=cv2.INTER_LINEAR),
                                cv2.CMP_GE)
            mask = cv2.bitwise_or(mask, cv2.bitwise_and(cv2.bitwise_and(tinted, above), pixels.very_neutral))
    if style in ("auto", "translucent"):
        needed = cv2.resize(np.ascontiguousarray(cells[..., 2]) + 0.7 * level, size, interpolation=cv2.INTER_LINEAR)
        mask = cv2.bitwise_or(mask, cv2.bitwise_and(pixels.redder, cv2.compare(pixels.red, needed, cv2.CMP_GE)))
    return cv2.bitwise_and(mask, 1)


def segment_dice(image: np.ndarray, threshold: float, min_area_px: float, style: str = "auto") -> Segmentation:
    """Blobs of die-like pixels in a BGR frame; ``min_area_px`` is in full-resolution pixels."""
    height, width = image.shape[:2]
    small = cv2.resize(image, (width // SCALE, height // SCALE), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (3, 3), 0)
    pixels = PixelFeatures.of(small)
    cells = table_background(small)
    first = die_mask(pixels, cells, threshold, style)
    cells = table_background(small, cv2.dilate(first, np.ones((5, 5), np.uint8)))
    mask = die_mask(pixels, cells, threshold, style)
    # close first (bridge the pips that cut a die's outline), then open (drop specks and thin fringes)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # fill the pips' holes: every outer contour filled
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    keep = [c for c in contours if cv2.contourArea(c) * SCALE * SCALE >= min_area_px]
    cv2.drawContours(filled, keep, -1, 1, thickness=cv2.FILLED)
    # (connectedComponentsWithStats is ten times slower than the labels alone: the stats come from the pixels)
    count, labels = cv2.connectedComponents(filled, connectivity=8)
    if count <= 1:
        return Segmentation(mask=filled, labels=labels, blobs=(), background=cells, light=mask)
    xs, ys = cv2.findNonZero(filled).reshape(-1, 2).T  # row by row, as np.nonzero, five times faster
    lab = labels[ys, xs]
    order = np.argsort(lab, kind="stable")
    ys, xs, lab = ys[order], xs[order], lab[order]
    bounds = np.searchsorted(lab, np.arange(1, count + 1))
    blobs = tuple(blobs_of_labels(xs, ys, bounds, min_area_px))
    return Segmentation(mask=filled, labels=labels, blobs=blobs, background=cells, light=mask)


def blobs_of_labels(xs: np.ndarray, ys: np.ndarray, bounds: np.ndarray, min_area_px: float) -> list[Blob]:
    """The :class:`Blob` of every label of at least ``min_area_px`` (full resolution), as :func:`blob_at` gives it, from
    the half-resolution pixels of all labels at once: columns ``xs`` and rows ``ys`` ordered by label and, within a
    label, row by row; label ``k`` (from 1) holds the pixels ``bounds[k - 1]:bounds[k]``."""
    starts, stops = bounds[:-1], bounds[1:]  # every label holds a pixel
    counts = stops - starts
    lefts, rights = np.minimum.reduceat(xs, starts), np.maximum.reduceat(xs, starts)
    x_means = np.add.reduceat(xs, starts, dtype=np.float64) / counts
    y_means = np.add.reduceat(ys, starts, dtype=np.float64) / counts
    blobs = []
    for k in np.flatnonzero(counts * SCALE * SCALE >= min_area_px).tolist():
        bx, by = xs[starts[k]:stops[k]], ys[starts[k]:stops[k]]
        ends = row_ends(by)
        blobs.append(_blob(k + 1, len(bx), (int(lefts[k]), int(by[0]), int(rights[k]), int(by[-1])),
                           (float(x_means[k]), float(y_means[k])), bx[ends], by[ends]))
    return blobs


def blob_of_piece(label: int, piece: np.ndarray, origin: tuple[int, int]) -> Blob:
    """A :class:`Blob` (full resolution) of a half-resolution piece (bool mask) whose top-left is at ``origin``."""
    ys, xs = np.nonzero(piece)
    return blob_at(label, xs + origin[0], ys + origin[1])


def blob_at(label: int, xs: np.ndarray, ys: np.ndarray) -> Blob:
    """A :class:`Blob` (full resolution) of the half-resolution pixels at columns ``xs`` and rows ``ys``,
    given row by row (as :func:`numpy.nonzero` gives them)."""
    extremes = row_ends(ys)
    return _blob(label, len(xs), (int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())),
                 (float(xs.mean()), float(ys.mean())), xs[extremes], ys[extremes])


def _blob(label: int, count: int, box: tuple[int, int, int, int], mean: tuple[float, float], edge_xs: np.ndarray,
          edge_ys: np.ndarray) -> Blob:
    """A :class:`Blob` (full resolution) of ``count`` half-resolution pixels spanning ``box`` (left, top, right,
    bottom, inclusive) with mean position ``mean``, whose convex hull is that of the pixels at ``edge_xs``, ``edge_ys``."""
    area = float(count) * SCALE * SCALE
    left, top, right, bottom = box
    points = np.column_stack([edge_xs, edge_ys]).astype(np.float32) * SCALE + (SCALE - 1) / 2
    rect = cv2.minAreaRect(cv2.convexHull(points))  # the same rectangle, from far fewer points
    rw, rh = max(rect[1][0] + SCALE, 1.0), max(rect[1][1] + SCALE, 1.0)
    return Blob(label=label, area=area, bbox=(left * SCALE, top * SCALE, (right - left + 1) * SCALE,
                                              (bottom - top + 1) * SCALE),
                centroid=(mean[0] * SCALE, mean[1] * SCALE), rect=(rect[0], (rw, rh), rect[2]),
                fill=area / (rw * rh), aspect=max(rw, rh) / min(rw, rh))


def row_ends(ys: np.ndarray) -> np.ndarray:
    """Indices of the first and last pixel of every row, of pixels given row by row (rows ``ys``, as
    :func:`numpy.nonzero` gives them): the convex hull of a row's pixels is that of its two ends, so the hull of
    these few points is the hull of all (convexHull costs in proportion to the points it is given)."""
    ends = np.flatnonzero(ys[1:] != ys[:-1])
    return np.concatenate([[0], ends, ends + 1, [len(ys) - 1]])
