"""The verdict on one die read in its own square (:mod:`vision.dice_square`), with the guards that make it safe."""

from __future__ import annotations

import cv2
import numpy as np

from vision.declines import Decline
from vision.dice_faults import motion_problem, washed_nodes
from vision.dice_pips import Pips, pip_contrast
from vision.dice_square import SquareRead, read_square
from vision.dice_types import DiceReaderConfig, DieRead, Region, Verdict, mid, pixel, square_mask, xy

SQUARE_READABLE = (Decline.STACKED, Decline.COCKED, Decline.GLARE, Decline.UNREADABLE)
"""Declines of a body of one die's size that a read in the die's own square may resolve (:func:`square_verdict`)."""


def square_verdict(region: Region, die_area: float | None, cfg: DiceReaderConfig) -> Verdict | None:
    """Read a body of one die's size in the die's own square (:mod:`vision.dice_square`); ``None`` when unsafe.

    The body must be 0.5 to 1.3 dice large. The square found on the die's edges must be within 10 %
    of square with no second outward step beyond its sides (the side face of a leaning die, a die
    beneath: at most 0.15 of the side's own step), its pip nodes separated (weakest pip at least twice
    the strongest empty node), and
    the body must hold nothing a die's square does not explain: outside the square grown by 12 % of
    an edge, under a tenth of a die (a side face of a leaning die, a die beneath or beside it, or a
    glare halo is more). Every round pip-sized spot well inside the square as contrasted as the pips
    (60 % of them) must sit on a pip node. The die must be sharp all round (gradient anisotropy at least
    0.65, stricter than for a die read by its spots), and glare over any of the nine pip
    places (:func:`_washed_nodes`) declines the body for glare.
    """
    if die_area is None or not 0.5 * die_area <= region.blob.area <= 1.3 * die_area:
        return None
    edge = float(np.sqrt(die_area))
    channel, contrast = square_images(region, edge)
    read = read_square(channel, contrast, region.body, edge, region.origin)
    if isinstance(read, str) or read.separation < 2.0 or read.aspect > 1.1 or read.beyond > 0.15:
        return None
    centre = (read.centre[0] - region.origin[0], read.centre[1] - region.origin[1])
    square = square_mask(region.body, centre, read.edge, read.angle_deg)
    grown = square_mask(region.body, centre, read.edge * 1.24, read.angle_deg)
    if cv2.countNonZero(cv2.subtract(region.body, grown)) > 0.1 * die_area:
        return None
    if stray_spot(region, read):
        return None
    where = xy(read.centre)
    # a die read only in its square must be sharp all round: a die at rest keeps a gradient anisotropy of
    # 0.66 or more, a moving one (smeared over 0.3 edge or more) at most 0.61
    if motion_problem(region, max(cfg.motion_anisotropy, 0.65)) is not None:
        return None
    washed = washed_nodes(region, read, square)
    if washed:
        return Verdict(decline=Decline.GLARE, detail=f"glare over {washed} pip place(s) of the die at {where}")
    return Verdict(dice=[square_die_read(read, region.candidates)])


def square_images(region: Region, edge: float) -> tuple[np.ndarray, np.ndarray]:
    """The die's brightness against the table (float32: red for a red die, grey else) and the pip contrast."""
    patch = region.patch
    if region.translucent:
        channel = np.ascontiguousarray(patch[..., 2]).astype(np.float32)
    else:
        channel = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return channel, pip_contrast(patch, region.translucent, int(max(5, round(edge * 0.35))) | 1)


def stray_spot(region: Region, read: SquareRead) -> bool:
    """Whether a round pip-sized spot well inside the die's square (0.8 of its edge), as contrasted as the
    pips (60 % of the median on the nodes) and at most twice their area, lies off every pip node (more
    than 0.12 of an edge away)."""
    spots = region.candidates
    if not len(spots):
        return False
    centre = (read.centre[0] - region.origin[0], read.centre[1] - region.origin[1])
    inner = square_mask(region.body, centre, read.edge * 0.8, read.angle_deg)
    inside = inner[pixel(spots.centres, region.origin, inner.shape)] > 0
    nodes = np.asarray(read.pips, float)
    gap = np.hypot(*(spots.centres[:, None, :] - nodes[None, :, :]).transpose(2, 0, 1)).min(axis=1)
    on = inside & (gap <= 0.12 * read.edge)
    reference = mid(spots.contrast[on]) if on.any() else 0.0
    # a spot off the nodes as contrasted as the pips is a pip of something else; a fainter one is a pip
    # of another face seen through a red die, or texture; one over twice a pip's area is a patch of shading
    size = mid(spots.areas[on]) if on.any() else float("inf")
    return bool((inside & ~on & (spots.contrast >= 0.6 * reference) & (spots.areas <= 2.0 * size)).any())


def square_die_read(read: SquareRead, spots: Pips) -> DieRead:
    """A die read in its square frame; confidence from the pips' separation from the empty nodes.

    Each pip is the spot found on its node (within 0.12 of an edge) when there is one, else the node
    with a pip of 16 % of the edge across (a starting point for measuring it).
    """
    confidence = float(np.clip(0.5 + 0.1 * min(read.separation, 10.0) - 0.25, 0.0, 1.0))
    pips: list[tuple[float, float, float]] = []
    for x, y in read.pips:
        if len(spots):
            gap = np.hypot(spots.centres[:, 0] - x, spots.centres[:, 1] - y)
            k = int(np.argmin(gap))
            if gap[k] <= 0.12 * read.edge:
                pips.append((float(spots.centres[k, 0]), float(spots.centres[k, 1]), float(spots.diameters[k]) / 2))
                continue
        pips.append((x, y, 0.08 * read.edge))
    return DieRead(face=read.face, centre_px=read.centre, edge_px=read.edge, angle_deg=read.angle_deg,
                   confidence=confidence, pip_diameters_px=tuple(2 * r for _, _, r in pips), pips_px=tuple(pips))
