"""A declined body re-cut without the thin strips of lit table or shadow the die mask joined to it.

The die mask (:mod:`vision.dice_segment`) takes in a lit strip of table at the frame's edge, a band of
table between a die and a glare spot, or a fringe along a shadow when they are brighter than the
coarse table estimate; such a strip joins dice into one body whose shape, area and gradients are
no die's (the body is then declined: unreadable, stacked, or motion for its one-sided gradients).

:func:`trimmed_regions` opens the body's mask with a disk of 0.6 of a die's edge: a die (an edge
wide) survives, a strip narrower than that does not (pieces the opening shaves off under 0.06 of a
die's area, a die's rounded corners and pip notches, stay). The cut is used only when it is safe:

* every piece cut off is thin (no point of it more than 0.3 of an edge from its outline: a strip
  at most about 0.6 of an edge wide) and holds no spot of 0.2 to 1.5 pips' area; every spot of the
  body of 0.2 to 4 pips' area that is not a sliver lies within a piece left (its convex hull grown by an eighth of an edge): a leaning
  die's side face holds its pips,
  and the pips cutting a die's outline are notches the opening cuts off with the die's part;
* what is cut off touches the dice left along under 0.8 of an edge (a side face runs along a whole
  side of its die), and comes no nearer than 0.7 of an edge to another body (a die leaning on its
  neighbour shows its side face between the two, and the mask may miss the shaded face);
* the pieces left are each at least half a die and of one die's area (at most 1.3) or several
  dice's (1.7 or more), and all that is cut off is under 0.6 of a die's area.

Each piece left is then read as a body of its own, through every check of the reader.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.dice_region import regions_of_pieces
from vision.dice_segment import SCALE, Segmentation
from vision.dice_types import DiceReaderConfig, Region, mid, pixel

KERNEL = 0.6
"""Diameter of the opening disk, as a share of a die's edge."""


CONTACT = 0.8
"""Longest stretch (a share of a die's edge) along which a strip cut off may touch the dice left."""
REACH = 0.7
"""Least distance (a share of a die's edge) from a strip cut off to any other body."""


def trimmed_regions(image: np.ndarray, seg: Segmentation, region: Region, die_area: float | None,
                    cfg: DiceReaderConfig) -> list[Region] | None:
    """The body's pieces left once its thin strips are cut off (see the module doc); ``None`` when unsafe or no cut."""
    if die_area is None:
        return None
    blob = region.blob
    edge = float(np.sqrt(die_area)) / SCALE  # half resolution, as the labels
    x, y, w, h = (v // SCALE for v in blob.bbox)
    pad = 2 + round(REACH * edge)
    y0, x0 = max(y - pad, 0), max(x - pad, 0)
    sub = seg.labels[y0:y + h + pad, x0:x + w + pad]
    body = (sub == blob.label).astype(np.uint8)
    size = max(3, round(KERNEL * edge)) | 1
    opened = cv2.morphologyEx(body, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)))
    cut = cv2.subtract(body, opened)
    if cv2.countNonZero(cut) < 0.05 * edge * edge or not opened.any():
        return None
    # the opening also shaves a die's rounded corners and the notches of its pips: only pieces of some size are strips
    count, pieces, stats, _ = cv2.connectedComponentsWithStats(cut, connectivity=8)
    strips = [k for k in range(1, count) if stats[k, cv2.CC_STAT_AREA] >= 0.06 * edge * edge]
    if not strips:
        return None
    rest = np.isin(pieces, strips).astype(np.uint8)
    kept = cv2.subtract(body, rest)
    count, parts = cv2.connectedComponents(kept, connectivity=8)
    keep = [k for k in range(1, count) if np.count_nonzero(parts == k) >= 0.5 * edge * edge]
    if not keep or cv2.countNonZero(body) - np.count_nonzero(np.isin(parts, keep)) > 0.6 * edge * edge:
        return None  # nothing of a die left, or more cut off than a strip beside a die
    sizes = [np.count_nonzero(parts == k) / (edge * edge) for k in keep]
    if any(1.3 < size < 1.7 for size in sizes):
        return None  # a piece of neither one die's area nor several dice's: part of a die was cut off
    rest = cv2.subtract(body, np.isin(parts, keep).astype(np.uint8))
    grown = cv2.dilate(np.isin(parts, keep).astype(np.uint8), np.ones((3, 3), np.uint8))
    count, pieces = cv2.connectedComponents(rest, connectivity=8)
    for k in range(1, count):
        strip = (pieces == k).astype(np.uint8)
        depth = cv2.distanceTransform(cv2.copyMakeBorder(strip, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0),
                                      cv2.DIST_L2, 3)
        if float(depth.max()) > 0.3 * edge or cv2.countNonZero(cv2.bitwise_and(grown, strip)) > CONTACT * edge:
            return None
    reach = cv2.dilate(rest, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * round(REACH * edge) + 1,) * 2))
    if ((reach > 0) & (sub > 0) & (sub != blob.label)).any():
        return None  # a strip reaching towards another body may be the side face of a die leaning on its neighbour
    spots = region.all_found
    if len(spots):  # a strip holding a spot of a pip's size may be a die's side face: not cut off
        pip_area = mid(region.pips.areas) if len(region.pips) else 0.02 * die_area
        on_strip = spots.subset((spots.areas >= 0.2 * pip_area) & (spots.areas <= 1.5 * pip_area))
        if len(on_strip):
            at = pixel(on_strip.centres / SCALE, (x0, y0), rest.shape)
            if (cv2.dilate(rest, np.ones((3, 3), np.uint8))[at] > 0).any():
                return None
        big = spots.subset((spots.areas >= 0.2 * pip_area) & (spots.areas <= 4.0 * pip_area)
                           & (spots.elongation >= 0.2))
        if len(big):  # every such spot must lie on a piece left (within its convex hull): none on or by a strip
            hulls = np.zeros_like(body)
            for k in keep:
                outline, _ = cv2.findContours((parts == k).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
                cv2.fillConvexPoly(hulls, cv2.convexHull(np.concatenate(outline)), 1)
            near = max(3, round(0.25 * edge)) | 1  # a dark notch on a die's own outline lies on its hull's edge
            hulls = cv2.dilate(hulls, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (near, near)))
            at = pixel(big.centres / SCALE, (x0, y0), rest.shape)
            if (hulls[at] == 0).any():
                return None
    return regions_of_pieces(image, seg, (x0, y0), body, [parts == k for k in keep], cfg)
