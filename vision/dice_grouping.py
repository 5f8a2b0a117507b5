"""Read a body of touching dice (or a die and a glare halo) by grouping its pips into canonical faces."""

from __future__ import annotations

import cv2
import numpy as np

from vision.declines import Decline
from vision.dice_halo import squares_explain_body
from vision.dice_region import cut_region
from vision.dice_split import group_faces
from vision.dice_square_verdict import SQUARE_READABLE, square_verdict
from vision.dice_types import DiceReaderConfig, DieRead, Region, Verdict, median_pip_area, pixel, square_mask
from vision.dice_verdict import body_verdict

GROUPABLE = (Decline.STACKED, Decline.COCKED, Decline.GLARE, Decline.UNREADABLE)
"""Declines of a body that a grouping of its pips into faces may resolve (never outside the arena; motion only for a
body of several dice smeared as a whole, see :mod:`vision.dice`)."""


def grouped_verdict(region: Region, die_area: float | None, cfg: DiceReaderConfig,
                    arena: np.ndarray | None) -> Verdict | None:
    """Read a body of touching dice (or a die and a glare halo) by grouping its pips into faces.

    The pips are grouped into canonical faces (:func:`vision.dice_split.group_faces`); each face
    places its die's square (centre and axes from its pip grid, the die's edge from the frame,
    +6 %; for a 1, the axes of the body left when the other dice are taken away). A grouping
    holds when the squares barely overlap, each holds at least 3/4 of a die's area of the body,
    what the squares leave of the body is only thin side-face strips (gone after an opening
    as wide as a flat die's side face may be) or no die's (see :func:`vision.dice_halo.rest_is_no_die`), no spot lies off the
    squares, and each square, cut out, passes every check of a single die and reads the face
    of its group. The body is read only when exactly one grouping holds; ``None`` otherwise
    (the caller keeps its decline).
    """
    covers = groupings(region, die_area, cfg)
    if not covers or len(covers) > 4:
        return None
    held: list[Verdict] = []
    for cover in covers:
        verdict = cover_verdict(region, cover, die_area, cfg, arena)
        if verdict is not None:
            held.append(verdict)
    if len(held) != 1:
        return None
    return held[0]


def groupings(region: Region, die_area: float | None, cfg: DiceReaderConfig) -> list[list]:
    """The ways to group the region's pips into die faces (:func:`vision.dice_split.group_faces`)."""
    pips = region.pips
    if die_area is None or not 1 <= len(pips) <= 36 or region.blob.area < 1.1 * die_area:
        return []
    edge = float(np.sqrt(die_area))
    # a die's pip spacing: 25-29 % of its edge (+-14 % for perspective and the die's size from the frame)
    spacing = (max(cfg.pip_spread[0], 0.215) * edge, min(cfg.pip_spread[1], 0.335) * edge)
    found = region.all_found
    pip_area = median_pip_area(pips)
    on = region.body if region.light is None else cv2.dilate(region.light, np.ones((3, 3), np.uint8))
    in_body = on[pixel(found.centres, region.origin, on.shape)] > 0 if len(found) else []  # not table between dice
    other = (found.subset((found.areas >= 0.3 * pip_area) & (found.areas <= 2.5 * pip_area)
                          & (found.elongation >= 0.5) & in_body
                          & (np.min(np.hypot(*(found.centres[:, None, :] - pips.centres[None, :, :]
                                               ).transpose(2, 0, 1)), axis=1) > 2.0))
             if len(found) else found)
    covers = group_faces(pips.centres, spacing, blockers=other.centres, tolerance=cfg.grid_tolerance)
    return covers


def cover_verdict(region: Region, cover: list, die_area: float, cfg: DiceReaderConfig,
                  arena: np.ndarray | None) -> Verdict | None:
    """The dice read from one grouping of the region's pips (see :func:`grouped_verdict`), ``None`` when it fails."""
    body, origin = region.body, region.origin
    k = len(cover)
    if region.blob.area < 0.8 * k * die_area:
        return None
    edge = float(np.sqrt(die_area))
    side = edge * 1.06
    squares: list[np.ndarray | None] = [None] * k
    for g, group in enumerate(cover):
        if group.face >= 2:
            squares[g] = square_mask(body, (group.fit.centre[0] - origin[0], group.fit.centre[1] - origin[1]),
                                      side, group.fit.angle_deg)
    for g, group in enumerate(cover):  # a 1 takes its axes from the die's outline around its pip
        if group.face == 1:
            centre = (group.fit.centre[0] - origin[0], group.fit.centre[1] - origin[1])
            squares[g] = square_mask(body, centre, side, outline_angle_at(region, centre, edge))
    if not squares_explain_body(region, squares, die_area, cfg):
        return None
    dice: list[DieRead] = []
    for group, square in zip(cover, squares, strict=True):
        # a 5 or a 6 is no canonical face less some pips: a die read so may have lost a strip of its body
        # (a shaded seam, pips at its edge) without a pip going unseen
        cut = cut_region(region, square, cfg, 0.6 if group.face >= 5 else 0.7)
        # glare that can hide a pip lies over the pips' square (pips reach 0.37 of an edge off the centre,
        # the square eroded to 0.84 of an edge); a halo beside the die may reach into its square's edge
        cut.glare_zone = cv2.erode(square, np.ones((3, 3), np.uint8), iterations=max(1, round(0.11 * edge)))
        verdict = body_verdict(cut, die_area, cfg, arena)
        if verdict.decline in SQUARE_READABLE:  # the spots did not read the die: its square may
            verdict = square_verdict(cut, die_area, cfg) or verdict
        if verdict.decline is not None or len(verdict.dice) != 1 or verdict.dice[0].face != group.face:
            return None
        dice.extend(verdict.dice)
    return Verdict(dice=dice)


def outline_angle_at(region: Region, centre: tuple[float, float], edge: float) -> float:
    """Orientation (deg, 0..90) of a die's outline around ``centre`` (patch px): the strongest edge direction.

    Gradients in a ring from 0.3 to 0.65 of an edge around the centre vote, by strength, for their
    direction modulo 90 degrees (a square's four sides agree); the peak of the smoothed vote wins.
    """
    gx, gy = region.cache.get("gradient", (None, None))
    if gx is None:
        grey = cv2.cvtColor(region.patch, cv2.COLOR_BGR2GRAY)
        gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
        region.cache["gradient"] = (gx, gy)
    ys, xs = np.mgrid[0:gx.shape[0], 0:gx.shape[1]]
    r = np.hypot(xs - centre[0], ys - centre[1])
    ring = (r >= 0.3 * edge) & (r <= 0.65 * edge)
    mag = np.hypot(gx[ring], gy[ring])
    angle = np.degrees(np.arctan2(gy[ring], gx[ring])) % 90.0
    votes = np.bincount(np.minimum((angle / 2.0).astype(int), 44), mag, 45)
    votes = votes + np.roll(votes, 1) + np.roll(votes, -1)
    return float(2.0 * np.argmax(votes) + 1.0)
