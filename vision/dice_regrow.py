"""A declined body grown back to its die's whole face, or re-cut into its dice, by the dice's own colour.

The die mask (:mod:`vision.dice_segment`) takes a pixel for a die's when it is brighter than the
table by a share of the table's brightness. A white die on a pale tinted cloth (cream, pale green)
under a slanting light is lit unevenly: its shaded half can be no brighter than the cloth, and the
mask keeps only the lit half. The body is then a part of a die; its pips cut at the mask's edge
read as no canonical face, or the face reads but the body is no die's shape (declined: unreadable).

The die differs from the cloth in colour as well as brightness (a white die is neutral, the cloth
tinted). :func:`regrown_region` measures the die's own colour on the lit part (its median, pips
left out) and the table's (the reader's table estimate there), and takes every pixel nearer the
die's colour than the table's along the line between them (projection at least half-way) within
0.6 of an edge around the body. A shadow (darker in every channel) and the pips project below it;
the pips' holes are filled. The grown body is used only when it is safe:

* the body was 0.2 to 0.95 of a die's area (a strip of a red die in shade on red felt is about 0.25),
  its colour at least 24 grey levels (Euclidean, BGR) from the table's;
* the grown part holds the whole body (95 % of it), stays clear of the window's edge (it did not
  leak into the table) and of every other body (touching dice are split elsewhere);
* it is of one die's area (:data:`MIN_GROWN_AREA` to 1.3) and at least 10 % larger than the body.

The grown body is then read through every check of the reader (:mod:`vision.dice`), and used only
when it reads as exactly one die with no decline.

On such cloth the mask also merges dice with the table between them (a body of 1.5 to 3 dice, not
square, read as a die resting on another). :func:`recut_regions` takes the die's colour from the
brighter half of the body's lit pixels (the dice, not the table it took in) and cuts the body's
window by colour the same way. It is used only when the body (1.15 to 3.5 dice) falls into two or
more pieces of one die's area each (0.8 to 1.3; one piece of about the body's size is a die with
another beneath it, whose lit rim is no table), clear of the window's edge and of other bodies, and
what they leave of the body (when over 5 % of a die) is the table's colour (median share under
:data:`TABLE_SHARE`) holding no spot of a fifth of a pip's area. Each piece is then read as a body of
its own, and the re-cut is used only when every piece reads as one die with no decline.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice_region import regions_of_pieces
from vision.dice_segment import SCALE, Segmentation
from vision.dice_types import DiceReaderConfig, Region, median_pip_area, pixel

REACH = 0.6
"""How far around the body (a share of a die's edge) it may grow."""
MIN_COLOUR_GAP = 24.0
"""Least distance (grey levels, Euclidean over B, G, R) between the die's colour and the table's."""
MIN_GROWN_AREA = 0.75
"""Least area of a grown face, in dice: the die's shaded rim, blurred into the table, projects under half-way,
so a die's grown face may be up to a quarter short of its area."""
TABLE_SHARE = 0.3
"""Most colour share (median) of what a re-cut leaves of a body: table, not a die's shaded side face."""


@dataclass(frozen=True)
class ColourWindow:
    """A window (half resolution) around a body: where the die's colour lies against the table's."""

    origin: tuple[int, int]
    """Top-left corner (x, y) in the half-resolution labels."""
    labels: np.ndarray
    """The segmentation's labels in the window."""
    body: np.ndarray
    """The body (uint8) in the window."""
    share: np.ndarray
    """Each pixel's colour projected on the line from the table's colour (0) to the die's (1)."""

    @property
    def near(self) -> np.ndarray:
        """The pixels (uint8) at least half-way from the table's colour to the die's: the dice's."""
        return (self.share >= 0.5).astype(np.uint8)


def colour_window(image: np.ndarray, seg: Segmentation, region: Region, edge: float,
                  brighter_half: bool = False) -> ColourWindow | None:
    """The body's window grown by :data:`REACH` of a die's ``edge`` (half-resolution px) and its colour share.

    The die's colour is the median of the body's lit pixels (pips and enclosed table left out), or of the
    brighter half of them (``brighter_half``: a body that took in table as well as dice); ``None`` when it lies
    under :data:`MIN_COLOUR_GAP` from the table's.
    """
    if seg.light is None:
        return None
    blob = region.blob
    x, y, w, h = (v // SCALE for v in blob.bbox)
    pad = 2 + round(REACH * edge)
    height, width = seg.labels.shape
    y0, x0 = max(y - pad, 0), max(x - pad, 0)
    y1, x1 = min(y + h + pad, height), min(x + w + pad, width)
    sub = seg.labels[y0:y1, x0:x1]
    body = (sub == blob.label).astype(np.uint8)
    small = cv2.resize(image[y0 * SCALE:y1 * SCALE, x0 * SCALE:x1 * SCALE], (x1 - x0, y1 - y0),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    lit = (body > 0) & (seg.light[y0:y1, x0:x1] > 0)
    if np.count_nonzero(lit) < 0.2 * edge * edge:
        return None
    colours = small[lit]
    if brighter_half:
        grey = colours.sum(axis=1)
        colours = colours[grey >= np.median(grey)]
    die = np.median(colours, axis=0)
    table = cv2.resize(seg.background, (width, height), interpolation=cv2.INTER_LINEAR)[y0:y1, x0:x1]
    towards = die[None, None, :] - table
    if float(np.linalg.norm(towards[body > 0].mean(axis=0))) < MIN_COLOUR_GAP:
        return None
    share = ((small - table) * towards).sum(axis=2) / np.maximum((towards * towards).sum(axis=2), 1.0)
    return ColourWindow(origin=(x0, y0), labels=sub, body=body, share=share)


def filled(mask: np.ndarray) -> np.ndarray:
    """``mask`` (uint8) with the holes of its parts filled (the pips)."""
    out = mask.copy()
    outline, _ = cv2.findContours(out, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(out, outline, -1, 1, thickness=cv2.FILLED)
    return out


def clear_of_others(part: np.ndarray, window: ColourWindow, label: int) -> bool:
    """Whether ``part`` stays off the window's edge (it did not leak into the table, or reach the frame's edge)
    and off every other body (touching dice are split elsewhere)."""
    if part[0].any() or part[-1].any() or part[:, 0].any() or part[:, -1].any():
        return False
    labels = window.labels
    return not ((cv2.dilate(part, np.ones((3, 3), np.uint8)) > 0) & (labels > 0) & (labels != label)).any()


def regrown_region(image: np.ndarray, seg: Segmentation, region: Region, die_area: float | None,
                   cfg: DiceReaderConfig) -> Region | None:
    """The body grown to the die's whole face by colour (see the module doc); ``None`` when unsafe or unchanged."""
    if die_area is None:
        return None
    blob = region.blob
    if not 0.2 * die_area <= blob.area <= 0.95 * die_area:
        return None
    window = colour_window(image, seg, region, float(np.sqrt(die_area)) / SCALE)
    if window is None:
        return None
    near = window.near
    body = window.body
    count, parts = cv2.connectedComponents(cv2.bitwise_or(near, body), connectivity=8)
    own = np.bincount(parts[body > 0], minlength=count)
    own[0] = 0
    part = int(np.argmax(own))
    grown = filled((parts == part).astype(np.uint8))
    if own[part] < 0.95 * np.count_nonzero(body) or not clear_of_others(grown, window, blob.label):
        return None
    area = float(np.count_nonzero(grown)) * SCALE * SCALE
    if not (MIN_GROWN_AREA * die_area <= area <= 1.3 * die_area and area >= 1.1 * blob.area):
        return None
    return regions_of_pieces(image, seg, window.origin, window.body, [grown], cfg, lit=near)[0]


def recut_regions(image: np.ndarray, seg: Segmentation, region: Region, die_area: float | None,
                  cfg: DiceReaderConfig) -> list[Region] | None:
    """A body larger than a die re-cut by colour into the dice it holds (see the module doc); ``None`` when unsafe."""
    if die_area is None:
        return None
    blob = region.blob
    if not 1.15 * die_area <= blob.area <= 3.5 * die_area:
        return None
    edge = float(np.sqrt(die_area)) / SCALE
    window = colour_window(image, seg, region, edge, brighter_half=True)
    if window is None:
        return None
    near = window.near
    body = window.body
    count, parts = cv2.connectedComponents(near, connectivity=8)
    own = np.bincount(parts[body > 0], minlength=count)
    pieces = [filled((parts == k).astype(np.uint8)) for k in range(1, count) if own[k] >= 0.3 * edge * edge]
    if len(pieces) < 2:
        return None  # one piece of about the body's size: a die with another beneath it, not dice merged with table
    union = np.zeros_like(body)
    for piece in pieces:
        area = float(np.count_nonzero(piece)) * SCALE * SCALE
        if not 0.8 * die_area <= area <= 1.3 * die_area or not clear_of_others(piece, window, blob.label):
            return None
        union |= piece
    # what the dice leave of the body must be the table's colour (not a die's shaded side face), holding no pip
    left = cv2.subtract(body, cv2.dilate(union, np.ones((3, 3), np.uint8)))
    if cv2.countNonZero(left) >= 0.05 * edge * edge:
        if float(np.median(window.share[left > 0])) >= TABLE_SHARE:
            return None
        spots = region.all_found
        if len(spots):
            at = pixel(spots.centres / SCALE, window.origin, left.shape)
            pip_area = median_pip_area(region.pips) or 0.02 * die_area
            if bool(((left[at] > 0) & (spots.areas >= 0.2 * pip_area)).any()):
                return None
    return regions_of_pieces(image, seg, window.origin, window.body, pieces, cfg, lit=near)
