"""A declined body smaller than a die, grown back to the die's whole face by the die's own colour.

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

* the body was 0.3 to 0.95 of a die's area, its colour at least 24 grey levels (Euclidean, BGR)
  from the table's;
* the grown part holds the whole body (95 % of it), stays clear of the window's edge (it did not
  leak into the table) and of every other body (touching dice are split elsewhere);
* it is of one die's area (0.8 to 1.3) and at least 10 % larger than the body.

The grown body is then read through every check of the reader (:mod:`vision.dice`), and used only
when it reads as exactly one die with no decline.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.dice_region import prepare_region
from vision.dice_segment import SCALE, Segmentation, blob_of_piece
from vision.dice_types import DiceReaderConfig, Region

REACH = 0.6
"""How far around the body (a share of a die's edge) it may grow."""
MIN_COLOUR_GAP = 24.0
"""Least distance (grey levels, Euclidean over B, G, R) between the die's colour and the table's."""


def regrown_region(image: np.ndarray, seg: Segmentation, region: Region, die_area: float | None,
                   cfg: DiceReaderConfig) -> Region | None:
    """The body grown to the die's whole face by colour (see the module doc); ``None`` when unsafe or unchanged."""
    if die_area is None or seg.light is None:
        return None
    blob = region.blob
    if not 0.3 * die_area <= blob.area <= 0.95 * die_area:
        return None
    edge = float(np.sqrt(die_area)) / SCALE  # half resolution, as the labels
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
    die = np.median(small[lit], axis=0)
    table = cv2.resize(seg.background, (width, height), interpolation=cv2.INTER_LINEAR)[y0:y1, x0:x1]
    towards = die[None, None, :] - table
    gap = float(np.linalg.norm(towards[body > 0].mean(axis=0)))
    if gap < MIN_COLOUR_GAP:
        return None
    share = ((small - table) * towards).sum(axis=2) / np.maximum((towards * towards).sum(axis=2), 1.0)
    near = (share >= 0.5).astype(np.uint8)
    count, parts = cv2.connectedComponents(cv2.bitwise_or(near, body), connectivity=8)
    own = np.bincount(parts[body > 0], minlength=count)
    own[0] = 0
    part = int(np.argmax(own))
    grown = (parts == part).astype(np.uint8)
    outline, _ = cv2.findContours(grown, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(grown, outline, -1, 1, thickness=cv2.FILLED)  # the pips' holes
    if own[part] < 0.95 * np.count_nonzero(body):
        return None
    if grown[0].any() or grown[-1].any() or grown[:, 0].any() or grown[:, -1].any():
        return None  # leaked into the table (or reaches the frame's edge): no die's outline
    if ((cv2.dilate(grown, np.ones((3, 3), np.uint8)) > 0) & (sub > 0) & (sub != blob.label)).any():
        return None  # touching another body: dice touching are split elsewhere
    area = float(np.count_nonzero(grown)) * SCALE * SCALE
    if not (0.8 * die_area <= area <= 1.3 * die_area and area >= 1.1 * blob.area):
        return None
    label = int(seg.labels.max()) + 1
    labels = seg.labels.copy()
    labels[y0:y1, x0:x1][grown > 0] = label
    light = seg.light.copy()
    light[y0:y1, x0:x1] |= near & grown
    return prepare_region(image, dataclasses.replace(seg, labels=labels, light=light),
                          blob_of_piece(label, grown > 0, (x0, y0)), cfg)
