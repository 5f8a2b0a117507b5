"""One body prepared for reading, and its read as a single die from its pip spots.

:func:`prepare_region` cuts the body's patch, finds its pip spots (:mod:`vision.dice_pips`) and
fits a canonical face; :func:`read_single` judges the fit (pips alike, centred, of a die's
spacing and size, a square grid), and drops the pips of a side face seen along the outline when
they make the read fail; :func:`cut_region` restricts a body to one die's square.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.dice_faults import reddish_share
from vision.dice_perspective import side_allowance
from vision.dice_pips import GHOST_WHITENESS, FaceFit, Pips, find_pips, fit_face, pip_contrast, spot_whiteness
from vision.dice_segment import SCALE, Blob, Segmentation, blob_of_piece
from vision.dice_types import DiceReaderConfig, DieRead, Region, depth_map, mid, pixel


def prepare_region(image: np.ndarray, seg: Segmentation, blob: Blob, cfg: DiceReaderConfig) -> Region:
    """Cut the blob's patch, find its pips and try to read it as one die."""
    x, y, w, h = blob.bbox
    pad = 2
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    x1, y1 = min(x + w + pad, image.shape[1]), min(y + h + pad, image.shape[0])
    patch = image[y0:y1, x0:x1]
    rows, cols = slice(y0 // SCALE, (y1 + SCALE - 1) // SCALE), slice(x0 // SCALE, (x1 + SCALE - 1) // SCALE)
    small = (seg.labels[rows, cols] == blob.label).astype(np.uint8)
    oy, ox = y0 - (y0 // SCALE) * SCALE, x0 - (x0 // SCALE) * SCALE

    def full(mask: np.ndarray) -> np.ndarray:
        big = cv2.resize(mask, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_NEAREST)
        return np.ascontiguousarray(big[oy:oy + (y1 - y0), ox:ox + (x1 - x0)])

    body = full(small)
    light = None if seg.light is None else full(cv2.bitwise_and(small, seg.light[rows, cols]))
    edge = float(np.sqrt(blob.area))
    if cfg.die_edge_px is not None:
        edge = float(min(max(edge, cfg.die_edge_px[0]), cfg.die_edge_px[1] * 1.2))
    translucent = is_translucent(patch, body, cfg.style)
    kernel = int(max(5, round(edge * 0.35))) | 1
    contrast = pip_contrast(patch, translucent, kernel)
    # a die is convex: its hull restores edges lost to shading and pips that cut the outline
    solid = np.zeros_like(body)
    outline, _ = cv2.findContours(body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.fillConvexPoly(solid, cv2.convexHull(np.concatenate(outline)), 1)
    margin = max(1, round(edge * 0.05))
    if translucent:  # a red body's mask is ragged at its shaded edges; the table shows no white spots
        inner = cv2.dilate(solid, np.ones((3, 3), np.uint8), iterations=margin)
    else:  # the table next to a white die is darker: spots on the outline are dropped by depth below
        inner = solid
    found = find_pips(contrast, inner, cfg.pip_threshold, (x0, y0), min_area=max(4.0, (edge * 0.05) ** 2),
                      relative=0.55 if translucent else 0.0, floor=0.25 if translucent else cfg.pip_threshold)
    if translucent and len(found):  # a pinkish spot is a pip of another face seen through the die, never paint
        found = found.subset(spot_whiteness(patch, pixel(found.centres, (x0, y0), patch.shape)) >= GHOST_WHITENESS)
    # a dark spot larger than any pip on a white die is a shaded corner, not the size pips are measured against;
    # a white one on a red die may be glare, and a body holding nothing but such spots is judged on them
    candidates = round_pips(found, cfg.min_pip_roundness)
    if not translucent and len(candidates):
        fewer = round_pips(found, cfg.min_pip_roundness, 0.07 * min(edge, edge_single(edge, blob)) ** 2)
        candidates = fewer if len(fewer) else candidates
    single_edge = edge_single(edge, blob)
    depth = depth_map(solid)  # px; in single-die edges where it is read

    def deep_by(spots: Pips, least: float) -> Pips:
        return spots.subset(depth[pixel(spots.centres, (x0, y0), body.shape)] / single_edge >= least)

    pips = candidates
    if len(pips):  # a dark gap or notch at the outline, or a pip of a side face seen through, is not a pip
        pips = deep_by(pips, 0.06 if translucent else 0.03)
    deep = deep_by(found, 0.06)
    region = Region(blob=blob, patch=patch, body=body, origin=(x0, y0), translucent=translucent, found=deep,
                     pips=pips, candidates=candidates, all_found=found, light=light, frame=image, arena=cfg.arena)
    read_single(region, cfg)
    return region


def regions_of_pieces(image: np.ndarray, seg: Segmentation, origin: tuple[int, int], body: np.ndarray,
                      pieces: list[np.ndarray], cfg: DiceReaderConfig, lit: np.ndarray | None = None) -> list[Region]:
    """A body replaced by pieces, each prepared as a body of its own (:func:`prepare_region`).

    ``body`` and each piece are masks of a window of the half-resolution labels whose top-left corner is
    ``origin``; the body's labels are cleared and each piece gets a new label. ``lit`` (uint8 mask of the
    window), when given, is the die-coloured pixels to add to the segmentation's lit mask within the pieces.
    """
    x0, y0 = origin
    rows, cols = slice(y0, y0 + body.shape[0]), slice(x0, x0 + body.shape[1])
    labels = seg.labels.copy()
    light = seg.light.copy() if lit is not None and seg.light is not None else seg.light
    labels[rows, cols][body > 0] = 0
    top = int(seg.labels.max())
    blobs = []
    for n, piece in enumerate(pieces):
        inside = piece > 0
        labels[rows, cols][inside] = top + 1 + n
        if light is not None and lit is not None:
            light[rows, cols] |= lit & inside.astype(np.uint8)
        blobs.append(blob_of_piece(top + 1 + n, inside, origin))
    changed = dataclasses.replace(seg, labels=labels, light=light)
    return [prepare_region(image, changed, blob, cfg) for blob in blobs]


def is_translucent(patch: np.ndarray, body: np.ndarray, style: str) -> bool:
    """Whether the die is a translucent red one, unless ``style`` says.

    Red on average (red over 1.5 times blue and green), or red over 30 % of the body (red at least
    1.8 times blue and green): a glare halo joined to a red die whitens the body's mean, but a white
    die's body never holds more than a few % of such red (the table at its fringe).
    """
    if style != "auto":
        return style == "translucent"
    mean = cv2.mean(patch, body)[:3]
    return mean[2] > 1.5 * max(mean[0], mean[1]) or reddish_share(patch, body) >= 0.3


def read_single(region: Region, cfg: DiceReaderConfig) -> None:
    """Try to read the region as one die: its face, what is wrong with it, and whether it is clean."""
    blob, pips = region.blob, region.pips
    region.single, region.problem, region.clean = None, "", False
    region.max_side = cfg.max_side_ratio
    if 1 <= len(pips) <= 6:
        region.single = fit_face(pips.centres, blob.rect[2] % 90.0, cfg.grid_tolerance)
        if region.single is not None:
            short = min(blob.rect[1])
            region.max_side = allowance(region, region.single, cfg)
            region.problem = face_problem(region.single, pips, blob, short, cfg, region.max_side)
            region.clean = (not region.problem and blob.aspect <= 1.0 + region.max_side + 0.06
                            and blob.fill >= region.min_fill)
    if (region.single is None or region.problem) and len(pips) >= 2:
        without_side_pips(region, cfg)


def allowance(region: Region, fit: FaceFit, cfg: DiceReaderConfig) -> float:
    """The widest side face the region's die shows flat, its up face read as ``fit``
    (:func:`vision.dice_perspective.side_allowance`; ``max_side_ratio`` without the frame)."""
    return side_allowance(region.blob.rect[0], fit.centre, min(region.blob.rect[1]), region.frame_shape, cfg)


def without_side_pips(region: Region, cfg: DiceReaderConfig) -> None:
    """Read the face again without the pips of a side face, when they make the read fail.

    A flat die seen off the camera's axis shows a side face as a strip along its outline, with
    pips there squashed (or cut) by the slant. Spots in that strip (less than 13 % of an edge
    deep in the body) that are squashed (axis ratio < 0.7) or small (< 60 % of the deeper ones)
    are dropped together; the up face's own pips, round, full-sized and deeper (a corner pip
    is about a fifth of an edge deep), are kept, so the read can only lose side-face pips.
    """
    blob, pips = region.blob, region.pips
    solid = np.zeros_like(region.body)
    outline, _ = cv2.findContours(region.body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.fillConvexPoly(solid, cv2.convexHull(np.concatenate(outline)), 1)
    short = min(blob.rect[1])
    depth = depth_map(solid)[pixel(pips.centres, region.origin, solid.shape)] / max(short, 1.0)
    side = side_pips(pips, depth >= 0.13)
    if side is None:
        return
    kept = pips.subset(~side)
    fit = fit_face(kept.centres, blob.rect[2] % 90.0, cfg.grid_tolerance)
    if fit is None:
        return
    max_side = allowance(region, fit, cfg)
    problem = face_problem(fit, kept, blob, short, cfg, max_side)
    if problem:
        return
    region.pips, region.single, region.problem, region.max_side = kept, fit, "", max_side
    region.clean = blob.aspect <= 1.0 + region.max_side + 0.06 and blob.fill >= region.min_fill


def cut_region(region: Region, square: np.ndarray, cfg: DiceReaderConfig, min_fill: float = 0.7) -> Region:
    """The region cut to ``square`` (uint8 mask of the patch): its body, its spots, its read as one die."""
    body = region.body
    inside = cv2.bitwise_and(body, square)
    in_area = cv2.countNonZero(inside)
    ys, xs = np.nonzero(inside)
    points = np.column_stack([xs + region.origin[0], ys + region.origin[1]]).astype(np.float32)
    rect = cv2.minAreaRect(points)
    rw, rh = rect[1][0] + 1.0, rect[1][1] + 1.0
    blob = dataclasses.replace(region.blob, area=float(in_area), centroid=(float(points[:, 0].mean()),
                               float(points[:, 1].mean())), rect=(rect[0], (rw, rh), rect[2]),
                               fill=in_area / (rw * rh), aspect=max(rw, rh) / min(rw, rh))

    def keep(p: Pips) -> Pips:
        return p.subset(square[pixel(p.centres, region.origin, body.shape)] > 0) if len(p) else p

    shared = {k: v for k, v in region.cache.items() if k in ("tensor", "white", "arena_band")}  # of the patch, not the body
    cut = dataclasses.replace(region, blob=blob, body=inside, found=keep(region.found), pips=keep(region.pips),
                              candidates=keep(region.candidates), all_found=keep(region.all_found), cache=shared,
                              min_fill=min_fill)
    read_single(cut, cfg)
    return cut


def round_pips(pips: Pips, roundness: float = 0.5, max_area: float = np.inf) -> Pips:
    """Pips of the up face: round enough, at most ``max_area`` px, and not much smaller than the largest such ones.

    Side-face pips are foreshortened (elongated, smaller); specks of noise are small; a shaded corner
    or side face of a white die larger than any pip (``max_area``: 7 % of a die's face, 2.5 times the
    largest pip) is no pip and must not set the size the pips are measured against.
    """
    if len(pips) == 0:
        return pips
    round_ = (pips.elongation >= roundness) & (pips.areas <= max_area)
    if not round_.any():
        return pips.subset(np.zeros(len(pips), bool))
    reference = mid(np.sort(pips.areas[round_])[-6:])
    return pips.subset(round_ & (pips.areas >= 0.4 * reference) & (pips.areas <= 2.6 * reference))


def face_problem(fit: FaceFit, pips: Pips, blob: Blob, short: float, cfg: DiceReaderConfig, max_side: float) -> str:
    """Why a fitted face is not a believable die face ('' when it is); ``max_side``: the widest side face a flat
    die shows there (:attr:`Region.max_side`), which moves the body's centre off the face's by half its width."""
    uneven = uneven_pips(pips)
    if uneven:
        return uneven
    body_centre = np.asarray(blob.rect[0])
    offset = float(np.linalg.norm(np.asarray(fit.centre) - body_centre)) / short
    if offset > 0.12 + max_side / 2:
        return f"pips centred {offset:.0%} of an edge off the body's centre"
    if fit.face > 1:
        ratio = fit.spacing / short
        if not cfg.pip_spread[0] <= ratio <= cfg.pip_spread[1]:
            return f"pip spacing {ratio:.2f} of the edge is not a die's"
        diameters = pips.diameters
        if diameters.max() > 1.9 * diameters.min():
            return f"pips of unequal size ({diameters.min():.1f} to {diameters.max():.1f} px)"
        if not 0.28 <= mid(diameters) / fit.spacing <= 1.05:
            return "pip size does not match the pip spacing"
        if fit.squareness < cfg.min_squareness:
            return f"pip grid foreshortened to {fit.squareness:.2f}: face not square to the camera"
    else:
        d = float(pips.diameters[0]) / short
        if not 0.08 <= d <= 0.38:
            return f"single pip {d:.2f} of the edge is not a die's"
    return ""


def side_pips(pips: Pips, deep: np.ndarray) -> np.ndarray | None:
    """Which spots are a side face's pips (see :func:`without_side_pips`), ``None`` for none.

    ``deep`` marks the spots at least 13 % of an edge inside the body. Every spot nearer the outline
    must be squashed (axis ratio < 0.7), small (< 60 % of the deeper ones) or faint (contrast under 80 %
    of theirs: a side face is seen at a slant and shaded), else ``None``: a round, full-sized spot as
    dark as the others at the outline is no side face's pip, and nothing is dropped. (Dropping a
    corner pip of a real face never leaves a canonical face of a die's spacing and centre.)
    """
    if deep.all() or not deep.any():
        return None
    reference = mid(pips.areas[deep])
    faint = pips.contrast < 0.8 * mid(pips.contrast[deep])
    side = ~deep & ((pips.elongation < 0.7) | (pips.areas < 0.6 * reference) | faint)
    if not side.any() or bool((~deep & ~side).any()):
        return None
    return side


def edge_single(edge: float, blob: Blob) -> float:
    """A die's edge when ``edge`` is the root of a body's area: the body's short side when it is smaller."""
    return min(edge, min(blob.rect[1]))


def uneven_pips(pips: Pips) -> str:
    """Pips of one face are painted alike: a spot much fainter than the others is glare or a shadow, not a pip."""
    if len(pips) < 2:
        return ""
    median = mid(pips.contrast)
    if float(pips.contrast.min()) < 0.8 * median:
        return f"a spot of contrast {float(pips.contrast.min()):.2f} among pips of {median:.2f}: not a pip alike"
    return ""


def die_read(fit: FaceFit, pips: Pips, edge: float) -> DieRead:
    residual_term = max(0.0, 1.0 - fit.residual / 0.45)
    contrast_term = min(max((mid(pips.contrast) - 0.3) / 0.35, 0.0), 1.0)
    confidence = min(max(residual_term * (0.5 + 0.5 * contrast_term), 0.0), 1.0)
    diameters = np.asarray(pips.diameters, np.float64).tolist()
    pips_px = tuple((x, y, d / 2) for (x, y), d in zip(np.asarray(pips.centres, np.float64).tolist(), diameters))
    return DieRead(face=fit.face, centre_px=fit.centre, edge_px=float(edge), angle_deg=fit.angle_deg,
                   confidence=confidence, pip_diameters_px=tuple(diameters), pips_px=pips_px)
