"""Candidate die squares per body: the second stage of the staged dice pipeline.

For each body of :mod:`vision.dice_bodies` a few squares (:class:`vision.die_crop.DieSquare`) are
proposed where a die's up face may be; the per-die reader reads each one's crop (and may call it
"not a flat readable die"), and a later stage keeps the one set of readings that explains every body.
So proposals are generous, but every die must get one close to it, and a body gets few (at most
``max_proposals_per_body`` for one die's area, ``proposals_per_further_die`` more for each further die). Three cues, strongest first:

1. Pips: dark or light round spots in and around the body (a morphological black-hat and top-hat at a
   scale tied to the die's edge) linked to their near neighbours into faces (a group too wide for one
   face split by k-means). A canonical face's pips are symmetric about its centre, so the centre of
   their span is the face's centre even when the body's mask is poor (a translucent or marbled die, a
   die against a tray's wall, a die joined to its shadow); their greatest distance apart gives the
   face's own size (dice of several sizes in one frame). A pip left alone by the linking is paired with each pip
   at a two's diagonal from it (a casino die's pips stand near its corners, too far apart to link).
2. The body's outline: a body of one die's area gives its rectangle's square, and when the rectangle
   is elongated (a side face or a shadow joined to the die) a square at each end of it.
3. Touching dice: a body of ``n`` dice's area is cut into ``n`` parts by the peaks of its distance to
   the table and by k-means over its pixels; each part's centre gives a square, and so does the part
   moved to the middle of the pips near it; the midpoints of pairs of pips vote for face centres (a
   face is symmetric about its centre), which pips linked across the dice's edges do not spoil.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.spatial import cKDTree

from vision.dice_bodies import Bodies, Body, greatest_distance, linked_groups
from vision.dice_stage_config import DiceStageConfig
from vision.die_crop import DieSquare
from vision.frame import check_image

_PIP_WORK_EDGE_PX = 24.0
"""Pips are sought in the body's region scaled (never enlarged) so that a die's edge spans about this many
pixels: pips are then 2 to 8 px across, enough to tell a round spot, and the hats stay small."""
_KMEANS_CRITERIA = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 8, 0.5)


@dataclass(frozen=True)
class Face:
    """A face seen by its pips: centre and turn (``None`` for a lone pip) and the greatest distance between two of
    its pips (``None`` for a lone pip), in the pixels they were found in."""

    centre: tuple[float, float]
    turn: float | None
    span: float | None


@dataclass(frozen=True)
class BodyProposals:
    """The squares proposed for one body, strongest cue first."""

    body: Body
    squares: tuple[DieSquare, ...]
    dice_by_area: int
    """How many dice the body's area holds (at least 1)."""
    pips: int = 0
    """Pip-like spots (dark or light) found inside the body, away from its outline: none on a shadow, a stain or
    the cloth's vignetting; a die shows at least one, even cocked."""


def propose_squares(image: np.ndarray, bodies: Bodies, config: DiceStageConfig | None = None
                    ) -> tuple[BodyProposals, ...]:
    """The proposed die squares of each body of ``bodies`` found in ``image`` (the same BGR or grey frame)."""
    cfg = config or DiceStageConfig()
    image = check_image(image)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if (grey.shape[1], grey.shape[0]) != bodies.frame_size:
        raise ValueError(f"the image ({grey.shape[1]}x{grey.shape[0]} px) is not the frame the bodies were found in")
    return tuple(_body_proposals(grey, bodies, body, cfg) for body in bodies.bodies)


def _body_proposals(grey: np.ndarray, bodies: Bodies, body: Body, cfg: DiceStageConfig) -> BodyProposals:
    edge = bodies.die_edge_px
    one_die_area = (edge / cfg.body_edge_to_die_edge) ** 2
    dice = int(np.clip(round(body.area_px / one_die_area), 1, cfg.max_dice_per_body))
    (cx, cy), (w, h), angle = body.rect
    turn = angle % 90.0
    short, long = min(w, h), max(w, h)
    low, high = cfg.edge_range_share
    side = float(np.clip(cfg.body_edge_to_die_edge * short, low * edge, high * edge)) if dice == 1 else edge
    faces, pips = _pip_faces(grey, bodies, body, cfg, edge)
    found = [DieSquare(face.centre, edge, turn if face.turn is None else face.turn) for face in faces]
    found.extend(_lit_squares(bodies, body, edge, cfg))
    if dice == 1:
        found.append(DieSquare((cx, cy), side, turn))
        if long > cfg.elongated_aspect * short:  # a side face or shadow joined along its length: a square at each end
            theta = math.radians(angle if w >= h else angle + 90.0)
            reach = (long - side) / 2.0
            for sign in (1.0, -1.0):
                found.append(DieSquare((cx + sign * reach * math.cos(theta), cy + sign * reach * math.sin(theta)),
                                       side, turn))
        found.append(DieSquare((cx, cy), edge, turn))
        found.extend(DieSquare(face.centre, side, turn if face.turn is None else face.turn) for face in faces)
    else:
        parts = _part_centres(bodies, body, dice, edge, cfg)
        found.extend(DieSquare(snapped, edge, turn) for centre in parts for snapped in _snapped(centre, pips, edge, cfg))
        found.extend(DieSquare(centre, edge, turn) for centre in parts)
        found.extend(DieSquare(centre, edge, turn) for kind in pips for centre in _symmetry_centres(kind, edge, cfg))
    for face in faces:  # a die of another size than the frame's others: its edge from its pips' span
        if face.span is not None and face.turn is not None:
            own = float(np.clip(face.span / cfg.pip_span_share, low * edge, high * edge))
            found.append(DieSquare(face.centre, own, face.turn))
    most = cfg.max_proposals_per_body + cfg.proposals_per_further_die * (dice - 1)
    return BodyProposals(body=body, squares=_distinct(found, cfg, most), dice_by_area=dice,
                         pips=_pips_inside(bodies, body, pips, edge, cfg))


def _pips_inside(bodies: Bodies, body: Body, pips: list[np.ndarray], edge: float, cfg: DiceStageConfig) -> int:
    """How many of ``pips`` (frame px) lie inside ``body`` at least ``pip_inset_share`` of an edge from its outline:
    a die's pips lie within its face, while the hats find spots at the corners of anything square."""
    points = np.concatenate([kind for kind in pips if len(kind)]) if any(len(kind) for kind in pips) else None
    if points is None:
        return 0
    inside_body, (x, y) = bodies.window(body)
    window = inside_body.astype(np.uint8)
    inset = round(cfg.pip_inset_share * edge * bodies.scale)
    if inset > 0:
        window = cv2.erode(window, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * inset + 1, 2 * inset + 1)))
    cells = np.floor(points * bodies.scale - np.array([x, y], np.float32)).astype(int)
    inside = (cells[:, 0] >= 0) & (cells[:, 1] >= 0) & (cells[:, 0] < window.shape[1]) & (cells[:, 1] < window.shape[0])
    return int(np.count_nonzero(window[cells[inside, 1], cells[inside, 0]]))


def _lit_squares(bodies: Bodies, body: Body, edge: float, cfg: DiceStageConfig) -> list[DieSquare]:
    """The squares of the parts of ``body`` of about one die's area once its shade (a die's shadow joined to it,
    :attr:`vision.dice_bodies.Bodies.shade`) is taken away: the die alone, where the whole body's rectangle
    takes in its shadow."""
    if bodies.shade is None:
        return []
    window, (x, y) = bodies.window(body)
    lit = (window & (bodies.shade[y:y + window.shape[0], x:x + window.shape[1]] == 0)).astype(np.uint8)
    if not lit.any() or lit.sum() == window.sum():
        return []
    one_die = (edge * bodies.scale) ** 2
    core = max(3, round(cfg.lit_opening_share * edge * bodies.scale) | 1)  # cuts off lines and thin side faces
    lit = cv2.morphologyEx(lit, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (core, core)))
    low, high = cfg.edge_range_share
    squares = []
    contours, _ = cv2.findContours(lit, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for contour in contours:
        if not 0.4 * one_die <= cv2.contourArea(contour) <= 1.8 * one_die:
            continue
        (cx, cy), (cw, ch), angle = cv2.minAreaRect(contour)
        side = float(np.clip(min(cw, ch) / bodies.scale, low * edge, high * edge))
        squares.append(DieSquare(((cx + x) / bodies.scale, (cy + y) / bodies.scale), side, angle % 90.0))
    return squares


def _distinct(squares: list[DieSquare], cfg: DiceStageConfig, most: int) -> tuple[DieSquare, ...]:
    """``squares`` without near-duplicates (the earlier kept), at most ``most``."""
    kept: list[DieSquare] = []
    for square in squares:
        if any(math.dist(square.centre_px, other.centre_px) < cfg.duplicate_distance_share * other.edge_px
               and abs(square.edge_px / other.edge_px - 1.0) < cfg.duplicate_edge_share for other in kept):
            continue
        kept.append(square)
        if len(kept) == most:
            break
    return tuple(kept)


def _part_centres(bodies: Bodies, body: Body, dice: int, edge: float, cfg: DiceStageConfig
                  ) -> list[tuple[float, float]]:
    """Centres (frame px) of the parts of a body of ``dice`` touching dice: the peaks of its distance to the table,
    then k-means over its pixels."""
    inside_body, (x, y) = bodies.window(body)
    window = inside_body.astype(np.uint8)
    if window.size == 0 or not window.any():
        return []
    centres: list[tuple[float, float]] = []
    distance = cv2.distanceTransform(window, cv2.DIST_L2, 3)
    peaks = cv2.compare(distance, cv2.dilate(distance, np.ones((3, 3), np.uint8)), cv2.CMP_GE)
    peaks = cv2.bitwise_and(peaks, cv2.compare(distance, cfg.part_core_share * edge * bodies.scale, cv2.CMP_GE))
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-distance[ys, xs])
    chosen: list[tuple[float, float]] = []
    for index in order:
        point = (float(xs[index]), float(ys[index]))
        if all(math.dist(point, other) >= cfg.part_separation_share * edge * bodies.scale for other in chosen):
            chosen.append(point)
        if len(chosen) == dice:
            break
    centres.extend(((px + x) / bodies.scale, (py + y) / bodies.scale) for px, py in chosen)
    points = cv2.findNonZero(window[::2, ::2])  # every other pixel of every other row: k-means needs no more
    if points is not None and len(points) >= dice:
        points = points * 2
        cv2.setRNGSeed(dice)
        _, _, means = cv2.kmeans(points.reshape(-1, 2).astype(np.float32), dice, None, _KMEANS_CRITERIA, 1,
                                 cv2.KMEANS_PP_CENTERS)
        centres.extend(((mx + x) / bodies.scale, (my + y) / bodies.scale) for mx, my in means)
    return centres


def _pip_faces(grey: np.ndarray, bodies: Bodies, body: Body, cfg: DiceStageConfig, edge: float
               ) -> tuple[list[Face], list[np.ndarray]]:
    """The faces (frame px) whose pips are seen in or beside ``body`` (a white die's top on a pale table may be
    missing from the body, not its pips): dark pips and light pips, each linked into faces; and the pips
    themselves ((N, 2) frame px, dark then light)."""
    pad = round(cfg.pip_reach_share * edge)
    x, y, w, h = body.bbox
    x0, y0 = max(x - pad, 0), max(y - pad, 0)
    x1, y1 = min(x + w + pad, grey.shape[1]), min(y + h + pad, grey.shape[0])
    if x1 - x0 < 4 or y1 - y0 < 4:
        return [], []
    shrink = min(1.0, _PIP_WORK_EDGE_PX / edge)
    region = grey[y0:y1, x0:x1]
    if shrink < 1.0:
        region = cv2.resize(region, (max(round((x1 - x0) * shrink), 4), max(round((y1 - y0) * shrink), 4)),
                            interpolation=cv2.INTER_AREA)
    inside = _body_window(bodies, body, (x0, y0), region.shape, shrink, cfg.pip_reach_share * edge * shrink)
    hat = max(3, round(cfg.pip_hat_share * edge * shrink)) | 1
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (hat, hat))
    faces: list[Face] = []
    found: list[np.ndarray] = []
    for operation in (cv2.MORPH_BLACKHAT, cv2.MORPH_TOPHAT):
        spots = cv2.bitwise_and(cv2.morphologyEx(region, operation, kernel), inside)
        pips = _pips(spots, edge * shrink, cfg)
        found.append(pips / shrink + np.array([x0, y0], np.float32))
        for face in _faces(pips, edge * shrink, cfg):
            centre = (face.centre[0] / shrink + x0, face.centre[1] / shrink + y0)
            faces.append(Face(centre, face.turn, None if face.span is None else face.span / shrink))
    return faces, found


def _symmetry_centres(pips: np.ndarray, edge: float, cfg: DiceStageConfig) -> list[tuple[float, float]]:
    """Face centres by vote, for pips of touching dice that link across the dice's edges: a canonical face is
    symmetric about its centre, so the midpoints of its pairs of opposite pips (``pip_pair_share`` of the edge
    apart) fall on its centre. Midpoints within ``face_vote_share`` of the edge of one another vote for one
    another; the most voted are taken first, each ``face_separation_share`` of the edge from those before.

    Neighbours are found with k-d trees, so a frame of noise (thousands of pip-like spots) costs a fraction of a
    second, not the minutes that comparing every pair with every pair took."""
    if len(pips) < 2:
        return []
    low, high = cfg.pip_pair_share
    first, second = _pairs_within(pips, low * edge, high * edge)
    midpoints = np.concatenate([(pips[first] + pips[second]) / 2.0, pips])  # a middle pip votes too
    one, other = _pairs_within(midpoints, 0.0, cfg.face_vote_share * edge)
    votes = 1 + np.bincount(one, minlength=len(midpoints)) + np.bincount(other, minlength=len(midpoints))
    sums = midpoints.astype(np.float64)
    for axis in (0, 1):  # each candidate's neighbourhood's sum, itself included
        sums[:, axis] += np.bincount(one, midpoints[other, axis], len(midpoints))
        sums[:, axis] += np.bincount(other, midpoints[one, axis], len(midpoints))
    centres = sums / votes[:, None]
    separation = cfg.face_separation_share * edge
    order = np.argsort(-votes, kind="stable")
    tree = cKDTree(centres)
    passed_over = np.zeros(len(centres), bool)
    taken = []
    for index in order:
        if passed_over[index]:
            continue
        taken.append(index)
        near = np.asarray(tree.query_ball_point(centres[index], separation), int)
        passed_over[near[np.hypot(*(centres[near] - centres[index]).T) < separation]] = True
    return [(float(x), float(y)) for x, y in centres[taken]]


def _pairs_within(points: np.ndarray, least: float, most: float) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)``, ``i < j`` in row order, of the pairs of ``points`` (N, 2) from ``least`` to ``most`` apart
    (both included); the distances are those of ``np.linalg.norm`` over the points' own dtype."""
    pairs = cKDTree(points).query_pairs(most * (1.0 + 1e-6) + 1e-9, output_type="ndarray")
    if not len(pairs):
        return np.empty(0, int), np.empty(0, int)
    pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    apart = np.linalg.norm(points[pairs[:, 0]] - points[pairs[:, 1]], axis=1)
    pairs = pairs[(apart >= least) & (apart <= most)]
    return pairs[:, 0], pairs[:, 1]


def _snapped(centre: tuple[float, float], pips: list[np.ndarray], edge: float, cfg: DiceStageConfig
             ) -> list[tuple[float, float]]:
    """``centre`` moved (twice) to the middle of the span of the pips of each kind within ``face_member_share`` of the
    edge of it: a part of touching dice cut by area lands near its die's centre, and its face's pips set it there."""
    snapped = []
    for kind in pips:
        point = np.asarray(centre, np.float32)
        for _ in range(2):
            members = kind[np.linalg.norm(kind - point, axis=1) <= cfg.face_member_share * edge] if len(kind) else kind
            if not len(members):
                break
            point = (members.min(axis=0) + members.max(axis=0)) / 2.0
        else:
            snapped.append((float(point[0]), float(point[1])))
    return snapped


def _body_window(bodies: Bodies, body: Body, origin: tuple[int, int], shape: tuple[int, ...],
                 shrink: float, reach: float) -> np.ndarray:
    """uint8 mask (255 on the body grown by ``reach`` px) over the region at ``origin`` (frame px) of ``shape``
    (the region's pixels: frame px times ``shrink``)."""
    x0, y0 = round(origin[0] * bodies.scale), round(origin[1] * bodies.scale)
    x1 = max(round((origin[0] + shape[1] / shrink) * bodies.scale), x0 + 1)
    y1 = max(round((origin[1] + shape[0] / shrink) * bodies.scale), y0 + 1)
    window = cv2.compare(np.ascontiguousarray(bodies.labels[y0:y1, x0:x1]), body.label, cv2.CMP_EQ)
    window = cv2.resize(window, (shape[1], shape[0]), interpolation=cv2.INTER_NEAREST)
    grow = max(3, round(2 * reach) | 1)
    return cv2.dilate(window, np.ones((grow, grow), np.uint8))


def _pips(spots: np.ndarray, edge: float, cfg: DiceStageConfig) -> np.ndarray:
    """(N, 2) centres of the round spots of the hat image ``spots`` sized like a die of ``edge`` px's pips."""
    strongest = float(spots.max()) if spots.size else 0.0
    if strongest < cfg.pip_min_contrast:
        return np.empty((0, 2), np.float32)
    level = max(cfg.pip_min_contrast, cfg.pip_contrast_share * strongest)
    binary = cv2.compare(spots, level, cv2.CMP_GE)
    _, _, stats, centroids = cv2.connectedComponentsWithStats(binary, connectivity=8)
    low, high = cfg.pip_diameter_share[0] * edge, cfg.pip_diameter_share[1] * edge
    w, h, area = (stats[1:, column].astype(np.float64) for column in
                  (cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT, cv2.CC_STAT_AREA))
    longer, shorter = np.maximum(w, h), np.minimum(w, h)
    keep = (longer >= low) & (longer <= high) & (longer <= 2.0 * shorter) & \
        (area >= cfg.pip_roundness * math.pi / 4.0 * w * h)
    return centroids[1:][keep].astype(np.float32)


def _faces(pips: np.ndarray, edge: float, cfg: DiceStageConfig) -> list[Face]:
    """Pips linked to their near neighbours into faces: each face's centre (its pips' span's middle) and turn
    (``None`` when its pips do not show it)."""
    count = len(pips)
    if count == 0:
        return []
    apart = np.linalg.norm(pips[:, None, :] - pips[None, :, :], axis=2)
    faces: list[Face] = []
    groups = linked_groups(apart <= cfg.pip_link_share * edge)
    for members in groups:
        faces.extend(_split_faces(pips[members], edge, cfg))
    return faces + _twos_of_lone_pips(pips, apart, [members[0] for members in groups if len(members) == 1], edge, cfg)


def _twos_of_lone_pips(pips: np.ndarray, apart: np.ndarray, lone: list[int], edge: float, cfg: DiceStageConfig
                       ) -> list[Face]:
    """Twos whose pips stand too far apart to link (a casino die's pips near its corners, or a die larger than the
    frame's size): each pip left alone by the linking paired with every pip ``two_diagonal_share`` of the edge from
    it (alone too, or linked to a neighbouring die's pips), as one face. The lone pips stay faces of their own (a
    one, or a pip whose partner is hidden)."""
    low, high = cfg.two_diagonal_share
    faces = []
    paired: set[tuple[int, int]] = set()
    for first in lone:
        for second in np.flatnonzero((apart[first] >= low * edge) & (apart[first] <= high * edge)):
            pair = (min(first, int(second)), max(first, int(second)))
            if pair not in paired:
                paired.add(pair)
                faces.append(_face(pips[list(pair)], edge, cfg))
    return faces


def _split_faces(pips: np.ndarray, edge: float, cfg: DiceStageConfig) -> list[Face]:
    """The faces of one group of linked pips: the group itself when it can be one face, else the first split by
    k-means (2, 3, ... parts) whose every part can be (pips of touching dice link across their edges)."""
    if _one_face(pips, edge, cfg):
        return [_face(pips, edge, cfg)]
    for parts in range(2, min(len(pips), cfg.max_dice_per_body) + 1):
        cv2.setRNGSeed(parts)
        _, labels, _ = cv2.kmeans(pips, parts, None, _KMEANS_CRITERIA, 2, cv2.KMEANS_PP_CENTERS)
        groups = [pips[labels.ravel() == part] for part in range(parts)]
        if all(len(group) and _one_face(group, edge, cfg) for group in groups):
            return [_face(group, edge, cfg) for group in groups]
    return []


def _one_face(pips: np.ndarray, edge: float, cfg: DiceStageConfig) -> bool:
    """True when ``pips`` can be one face's: at most six, the diagonal of their upright bounding box at most
    ``max_face_spread_share`` of the edge."""
    return len(pips) <= 6 and float(np.hypot(*(pips.max(axis=0) - pips.min(axis=0)))) <= cfg.max_face_spread_share * edge


def _face(pips: np.ndarray, edge: float, cfg: DiceStageConfig) -> Face:
    """A face's centre (the middle of its pips' span: a canonical face is symmetric about its centre) and turn
    (``None`` for a single pip; a face whose pips lie on a line, a two or a three, is turned 45 degrees from it)."""
    low, high = pips.min(axis=0), pips.max(axis=0)
    turn = None
    if len(pips) >= 2:
        (_, (w, h), angle) = cv2.minAreaRect(pips)
        turn = (angle + 45.0) % 90.0 if min(w, h) < cfg.collinear_share * edge else angle % 90.0
    span = greatest_distance(pips) if len(pips) >= 2 else None
    return Face((float(low[0] + high[0]) / 2.0, float(low[1] + high[1]) / 2.0), turn, span)
