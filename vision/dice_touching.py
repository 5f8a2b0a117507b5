"""Read a body of ``k`` touching dice by splitting it into ``k`` parts of a die's area each.

The body is cut (a watershed from the cores of its distance map, else k-means on its pixels);
every part must read as a flat canonical face, sharp (no motion) and without glare; a part that reads no face
and that glare whitens (:func:`vision.dice_faults.glare_on_part`) is declined for glare.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.declines import Decline
from vision.dice_faults import glare_area, glare_on_part, motion_problem, tilt_problem, washed_pip
from vision.dice_perspective import side_allowance
from vision.dice_pips import FaceFit, Pips, fit_face
from vision.dice_region import die_read, uneven_pips
from vision.dice_segment import row_ends
from vision.dice_types import DiceReaderConfig, Region, Verdict, depth_map, median_pip_area, pixel, xy


def touching_verdict(region: Region, die_area: float, k: int, cfg: DiceReaderConfig) -> Verdict:
    """Split a body of ``k`` touching dice (see :func:`_split`); every part must read as a flat face."""
    blob, pips = region.blob, region.pips
    labels_img = split_body(region.patch, region.body, k, die_area)
    ys, xs = np.nonzero(region.body)
    points = np.column_stack([xs, ys]).astype(np.float32)
    labels = labels_img[ys, xs]
    candidates = region.candidates
    edge = float(np.sqrt(die_area))
    depths = np.zeros((k, len(candidates)))
    hulls, outlines = [], []
    for part in range(k):
        part_points = points[labels == part]
        if len(part_points) < 0.55 * die_area:
            return Verdict(decline=Decline.STACKED, detail=f"die bodies at {xy(blob.centroid)} overlap: "
                            "a part too small for a whole die")
        corners = cv2.convexHull(part_points[row_ends(part_points[:, 1])].astype(np.int32))
        hull = np.zeros_like(region.body)
        cv2.fillConvexPoly(hull, corners, 1)
        hulls.append(hull)
        outlines.append(corners.reshape(-1, 2).astype(np.float32))
        motion = motion_problem(region, cfg.motion_anisotropy, hull)
        if motion is not None:  # one die of a touching group moving: judged on its own part
            return Verdict(decline=Decline.MOTION, detail=f"die at {xy(part_points.mean(axis=0) + region.origin)}"
                            f" is smeared ({motion})")
        depths[part] = depth_map(hull)[pixel(candidates.centres, region.origin, hull.shape)] / edge
    owner = np.argmax(depths, axis=0) if len(candidates) else np.zeros(0, int)
    best = depths.max(axis=0) if len(candidates) else np.zeros(0)
    dice = []
    for part in range(k):
        rect = cv2.minAreaRect(outlines[part] + np.asarray(region.origin, np.float32))  # hull: the same rect
        keep = (owner == part) & (best >= (0.06 if region.translucent else 0.09))
        part_pips = candidates.subset(keep)
        fit = fit_face(part_pips.centres, rect[2] % 90.0, cfg.grid_tolerance)
        problem = "" if fit is None else part_problem(fit, part_pips, rect, cfg)
        part_found = region.found.subset(hulls[part][pixel(region.found.centres, region.origin,
                                                             hulls[part].shape)] > 0)
        tilted = tilt_problem(fit, part_found, part_pips, cfg)
        if fit is not None and not problem:
            aspect = max(rect[1]) / max(min(rect[1]), 1.0)
            # a leaning die with 4-6 pips shows its tilt in the pip grid (squareness, checked above); a split
            # part's outline is ragged at the seam, so its length is a looser guide there
            max_side = side_allowance(rect[0], fit.centre, min(rect[1]), region.frame_shape, cfg)
            if aspect > 1.0 + max_side + (0.1 if fit.face <= 3 else 0.2):
                tilted = tilted or f"body {aspect:.2f} times longer than wide"
        if tilted:
            return Verdict(decline=Decline.COCKED, detail=f"die at {xy(rect[0])}: {tilted}")
        if fit is None or problem:
            glare = glare_area(region, median_pip_area(pips), cfg.glare_level)
            if glare:
                return Verdict(decline=Decline.GLARE, detail=f"a saturated patch of {glare:.0f} px hides pips "
                                f"at {xy(blob.centroid)}")
            if problem and problem == uneven_pips(part_pips) and washed_pip(region, part_pips, cfg.glare_level):
                return Verdict(decline=Decline.GLARE, detail=f"glare washes a pip of the die at {xy(rect[0])}: {problem}")
            unread = problem or f"{len(part_pips)} spots on no canonical layout"
            washed = glare_on_part(region, hulls[part], edge)
            if washed:  # no face read where glare whitens the die: it hides or fakes pips
                return Verdict(decline=Decline.GLARE, detail=f"glare whitens {washed:.0f} px of part {part + 1} of "
                                f"{k} of touching dice at {xy(blob.centroid)}, which reads no face: {unread}")
            return Verdict(decline=Decline.UNREADABLE, detail=f"touching dice at {xy(blob.centroid)}: part "
                            f"{part + 1} of {k}: {unread}")
        dice.append(die_read(fit, part_pips, min(rect[1])))
    glare = glare_area(region, median_pip_area(pips), cfg.glare_level)
    if glare:
        return Verdict(decline=Decline.GLARE, detail=f"a saturated patch of {glare:.0f} px lies on the dice at "
                        f"{xy(blob.centroid)}")
    return Verdict(dice=dice)


def split_body(patch: np.ndarray, body: np.ndarray, k: int, die_area: float) -> np.ndarray:
    """Label each body pixel with one of ``k`` dice (-1 off the body).

    Seeds are the cores of the body (distance to the outline at least 55 % of its largest); when
    there are ``k`` of them, a watershed on the colour image grows them to the seams between the
    dice. Otherwise k-means on the pixel positions, started from k slices along the body's long axis,
    splits the body (straight cuts).
    """
    depth = depth_map(body)
    cores = (depth >= 0.55 * depth.max()).astype(np.uint8)
    count, seeds = cv2.connectedComponents(cores)
    out = np.full(body.shape, -1, np.int32)
    if count - 1 == k:
        markers = seeds.astype(np.int32)
        markers[cv2.dilate(body, np.ones((3, 3), np.uint8)) == 0] = k + 1
        cv2.watershed(np.ascontiguousarray(patch), markers)
        good = (markers >= 1) & (markers <= k)
        # every body pixel takes the label of the nearest pixel the watershed gave a die (lines, pip holes)
        _, nearest = cv2.distanceTransformWithLabels((~good).astype(np.uint8), cv2.DIST_L2, 3,
                                                     labelType=cv2.DIST_LABEL_PIXEL)
        ys, xs = np.nonzero(good)
        lookup = np.zeros(int(nearest.max()) + 1, np.int32)
        lookup[nearest[ys, xs]] = markers[ys, xs] - 1
        out[body > 0] = lookup[nearest[body > 0]]
        return out
    ys, xs = np.nonzero(body)
    points = np.column_stack([xs, ys]).astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    # start from k slices along the body's long axis: deterministic (k-means++ seeding draws from OpenCV's global
    # random state, which would make the read depend on what ran before)
    centred = points - points.mean(axis=0)
    axis = np.linalg.eigh(centred.T @ centred)[1][:, -1]
    along = centred @ axis
    rank = np.empty(len(along), np.intp)
    rank[np.argsort(along)] = np.arange(len(along))
    start = np.minimum((rank * k) // len(along), k - 1).astype(np.int32).reshape(-1, 1)
    _, labels, _ = cv2.kmeans(points, k, start, criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
    out[ys, xs] = labels.ravel()
    return out


def part_problem(fit: FaceFit, pips: Pips, rect: tuple, cfg: DiceReaderConfig) -> str:
    """Why a face read on one part of a split body is not believable ('' when it is)."""
    uneven = uneven_pips(pips)
    if uneven:
        return uneven
    short = min(rect[1])
    offset = float(np.linalg.norm(np.asarray(fit.centre) - np.asarray(rect[0]))) / max(short, 1.0)
    # a part cut along a seam may be off its die's centre; a lone pip that far off is a corner pip of a 2 or 3
    # whose other pips went to the neighbouring part (a corner pip lies 0.35-0.41 of an edge off the centre)
    if offset > (0.3 if fit.face > 1 else 0.2):
        return f"pips centred {offset:.0%} of an edge off the part's centre"
    if fit.face > 1:
        ratio = fit.spacing / max(short, 1.0)
        if not cfg.pip_spread[0] - 0.02 <= ratio <= cfg.pip_spread[1] + 0.05:
            return f"pip spacing {ratio:.2f} of the edge is not a die's"
        if pips.diameters.max() > 1.9 * pips.diameters.min():
            return "pips of unequal size"
    return ""
