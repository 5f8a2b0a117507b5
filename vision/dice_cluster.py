"""Read a body of two to five touching dice die by die, each in its own square (:mod:`vision.dice_square`).

A cluster the spot readers decline (:mod:`vision.dice_touching` cuts it wrong, the pips do not
group into faces: a pip lost to shade, a spot of texture) is cut into as many parts as its area
holds dice (:func:`vision.dice_touching.split_body`); each part seeds one die, whose square is then
found on the die's own edges and its 3 x 3 pip grid sampled there. A part where no die reads so (felt or
a glare halo the mask took in can make a body a die larger than its dice) seeds none: it is left to
the rest of the body, which must then be no die's (below). The cluster is read only when
every guard of a single die read in its square holds for every die, and the squares explain the
whole body:

* each square within 10 % of square, its pip nodes separated (weakest pip at least twice the
  strongest empty node), no stray pip-sized spot inside it, sharp all round, no glare over a pip
  place;
* no second outward step beyond a side (a leaning die's side face, a die beneath), except on a side
  that faces another die of the cluster (there the neighbour's own edge and pips lie); and, since
  that side is not looked at, no pips of a wide side face beside the squares (:func:`vision.dice_faults.side_face_pips`:
  a die leaning on its neighbour shows them between the two);
* the squares barely overlap, each holds 0.6 of a die's area of the body, what they leave of the
  body is thin side-face strips, table or a glare halo (:func:`vision.dice_halo.rest_is_no_die`),
  and no pip-sized spot lies off them;
* the counts of parts tried (the nearest whole numbers to the body's area in dice) that pass all
  read the same dice (one count, or two that agree face for face and place for place).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.declines import Decline
from vision.dice_faults import motion_problem, side_face_pips, washed_nodes
from vision.dice_halo import squares_explain_body
from vision.dice_square import SquareRead, read_square
from vision.dice_square_verdict import square_die_read, square_images, stray_spot
from vision.dice_touching import split_body
from vision.dice_types import DiceReaderConfig, Region, Verdict, square_mask

CLUSTER_READABLE = (Decline.STACKED, Decline.COCKED, Decline.GLARE, Decline.UNREADABLE)
"""Declines of a body of several dice that a read die by die in their squares may resolve."""


def cluster_verdict(region: Region, die_area: float | None, cfg: DiceReaderConfig) -> Verdict | None:
    """The dice of a touching cluster read in their squares (see the module docstring); ``None`` when unsafe."""
    if die_area is None:
        return None
    ratio = region.blob.area / die_area
    if not 1.6 <= ratio <= 5.5:
        return None
    counts = sorted({k for k in (int(np.floor(ratio)), int(np.ceil(ratio))) if 2 <= k <= 5 and -0.4 <= ratio - k <= 0.6})
    held = [v for v in (_read_k(region, die_area, k, cfg) for k in counts) if v is not None]
    if len(held) == 2 and _same_dice(held[0], held[1], float(np.sqrt(die_area))):
        return held[0]
    return held[0] if len(held) == 1 else None


def _same_dice(one: Verdict, other: Verdict, edge: float) -> bool:
    """Whether two reads of a cluster found the same dice: equal faces, centres within 0.3 of an edge."""
    if len(one.dice) != len(other.dice):
        return False
    for a, b in zip(sorted(one.dice, key=lambda d: d.centre_px), sorted(other.dice, key=lambda d: d.centre_px),
                    strict=True):
        if a.face != b.face or np.hypot(a.centre_px[0] - b.centre_px[0], a.centre_px[1] - b.centre_px[1]) > 0.3 * edge:
            return False
    return True


def _read_k(region: Region, die_area: float, k: int, cfg: DiceReaderConfig) -> Verdict | None:
    """The cluster read as ``k`` dice, ``None`` when any guard fails."""
    body, origin = region.body, region.origin
    edge = float(np.sqrt(die_area))
    labels = split_body(region.patch, body, k, die_area)
    channel, contrast = square_images(region, edge)
    reads: list[SquareRead] = []
    for part in range(k):
        mask = (labels == part).astype(np.uint8)
        if cv2.countNonZero(mask) < 0.5 * die_area:
            return None
        read = read_square(channel, contrast, mask, edge, origin)
        if isinstance(read, str) or read.separation < 2.0 or read.aspect > 1.1:
            continue  # no die read in this part: it is left to the rest, which must then be no die's
        reads.append(read)
    if not reads:
        return None
    centres = np.array([r.centre for r in reads])
    squares = [square_mask(body, (r.centre[0] - origin[0], r.centre[1] - origin[1]), r.edge * 1.06, r.angle_deg)
               for r in reads]
    if not squares_explain_body(region, squares, die_area, cfg):
        return None
    faces = [(r.centre, r.edge, r.angle_deg, r.pips) for r in reads]
    if side_face_pips(region.all_found, faces, region.origin, region.body.shape) >= 2:
        return None
    dice = []
    for g, (read, square) in enumerate(zip(reads, squares, strict=True)):
        if _beyond_free(read, np.delete(centres, g, axis=0), edge) > 0.15 or stray_spot(region, read):
            return None
        if motion_problem(region, max(cfg.motion_anisotropy, 0.65), cv2.bitwise_and(body, square)) is not None:
            return None
        if washed_nodes(region, read, square):
            return None
        dice.append(square_die_read(read, region.candidates))
    return Verdict(dice=dice)


def _beyond_free(read: SquareRead, others: np.ndarray, edge: float) -> float:
    """The die's strongest outward step beyond a side that faces no other die of the cluster.

    A side faces a neighbour when the neighbour's centre lies within 1.6 edges and within 45 degrees
    of the side's outward normal.
    """
    worst = 0.0
    for nx, ny, value in read.beyond_sides:
        if len(others):
            d = others - np.asarray(read.centre)
            dist = np.hypot(d[:, 0], d[:, 1])
            facing = (dist <= 1.6 * edge) & (d @ np.array([nx, ny]) >= 0.7 * dist)
            if facing.any():
                continue
        worst = max(worst, value)
    return worst



