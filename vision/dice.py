"""Read the faces of dice on a table from one camera frame, or decline with the reason.

Pipeline (classical image processing, no learned model):

1. :mod:`vision.dice_segment` finds die bodies against the table (half resolution).
2. For each body, :mod:`vision.dice_pips` finds the pips at full resolution and fits one of the six
   canonical faces; side-face pips (foreshortened, elongated, off the face) and the pips of the
   other faces seen through a translucent die (dimmer) are not counted. When the read fails, the
   squashed or small spots in the strip along the outline (a flat die's side face seen off the
   camera's axis) are dropped and the face is fitted again. A glare halo on the table joined to a
   die (soft-edged or whitened, holding no spot) is cut off at the die's square before the checks.
3. Bodies holding several touching dice are split (a watershed from the cores of the body's
   distance map, else k-means on its pixels) into as many dice as the area says; each part must
   read as a canonical face, and the body must hold that many dice's area (a remainder is a side
   face or a die resting on another). A body still declined (touching dice the split cuts wrong, a
   die with a glare halo or table the mask took in beside it) is read again by grouping its pips
   into canonical faces (:mod:`vision.dice_split`): each face places its die's square, every square
   cut out must pass every check of a single die, and what the squares leave of the body must be
   thin side-face strips, table or a glare halo, never anything that can be a die's part; the body
   is read only when exactly one grouping holds.
4. A body of one die's size still declined (pips lost to shade, a body cut short by a shadow, a
   spot of table texture), or a die cut out of a grouping that its spots do not read, is read a
   second way (:mod:`vision.dice_square`): the die's square is placed on its edges and its 3 x 3
   pip grid sampled there. It is read only when the square is a die's (no side face or die beneath
   beyond it, nothing of the body outside it), the pip nodes stand well apart from the empty ones,
   and no glare or motion shows. A lit strip at the frame's edge holding no pip, and a glare spot
   on the table (under half a die, whitened, soft-edged, no red die's colour around it) are no dice.
5. Checks decide whether the read is safe; if not, the frame is declined with a reason
   (:class:`vision.declines.Decline`): a die not flat on a face (a wide side face: cocked,
   p217-2007/banca-francesa/7 b), a die on another (stacked, p217-2007/cussec/6), a die outside
   the arena polygon, motion blur (the edges of a die sharp across one direction only, or its
   pips drawn into parallel streaks), glare (a whitening broader than a pip over the die), pips
   off the canonical grid or of unequal contrast (unreadable), or not the number of dice the
   game throws (wrong-count).

A declined read is never an outcome; a wrong read is far worse than a decline, so every check
errs on the side of declining.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np

from vision.declines import Decline
from vision.dice_pips import FaceFit, Pips, find_pips, fit_face, pip_contrast
from vision.dice_segment import SCALE, Blob, Segmentation, segment_dice
from vision.dice_split import group_faces
from vision.dice_square import SquareRead, read_square
from vision.frame import check_image


@dataclass(frozen=True)
class DiceReaderConfig:
    """What the reader expects to see and how strict it is.

    The defaults suit a camera above the table (side faces at most ~12 % of an edge). For an
    oblique webcam raise ``max_side_ratio`` (about 0.45), lower ``min_squareness`` and
    ``motion_anisotropy`` and raise ``min_pip_roundness`` (see ``benchmarks/dice_real_photos.py``);
    the checks for a leaning die are then weaker.
    """

    expected_dice: int | None = None
    """Dice per throw (craps 2; banca francesa and cussec 3); ``None`` reads every die in view."""
    arena: tuple[tuple[float, float], ...] | None = None
    """Arena polygon, image px; a die whose centre is outside it declines the frame."""
    style: Literal["auto", "opaque", "translucent"] = "auto"
    die_edge_px: tuple[float, float] | None = None
    """Smallest and largest edge of a die's up face in px; ``None`` to derive it from the frame."""
    max_side_ratio: float = 0.12
    """Widest side face a flat die shows, as a share of its edge: 0.12 for a camera above the table,
    about 0.4 for an oblique webcam. A wider body is a die not flat on a face (cocked)."""
    min_pip_roundness: float = 0.5
    """Least minor/major axis ratio of an up-face pip; side-face pips seen at a slant are flatter."""
    pip_spread: tuple[float, float] = (0.17, 0.4)
    """Range of the pip grid's spacing (centre to corner pip along an axis) as a share of the die's edge."""
    min_squareness: float = 0.92
    """A face whose pip grid is foreshortened below this (ratio of its axes) is tilted: cocked."""
    segment_threshold: float = 0.09
    pip_threshold: float = 0.42
    grid_tolerance: float = 0.3
    min_confidence: float = 0.35
    motion_anisotropy: float = 0.42
    """A die whose edges are sharper across one direction than along it by this ratio (structure tensor) is moving."""
    glare_level: float = 0.45
    """Glare: a whitening broader than a pip, above the die's body by this share of the way to white."""

    def __post_init__(self) -> None:
        if self.expected_dice is not None and not 1 <= self.expected_dice <= 10:
            raise ValueError(f"expected_dice must be within 1..10 or None, got {self.expected_dice}")
        if self.style not in ("auto", "opaque", "translucent"):
            raise ValueError(f"style must be 'auto', 'opaque' or 'translucent', got {self.style!r}")
        if self.arena is not None and len(self.arena) < 3:
            raise ValueError(f"arena polygon needs at least 3 corners, got {len(self.arena)}")
        if self.die_edge_px is not None and not 4 <= self.die_edge_px[0] <= self.die_edge_px[1]:
            raise ValueError(f"die_edge_px must be (min, max) with 4 <= min <= max, got {self.die_edge_px}")


@dataclass(frozen=True)
class DieRead:
    """One die read: face value, centre and edge of its up face (px), angle (deg, 0..90), confidence 0..1."""

    face: int
    centre_px: tuple[float, float]
    edge_px: float
    angle_deg: float
    confidence: float
    pip_diameters_px: tuple[float, ...]
    pips_px: tuple[tuple[float, float, float], ...] = ()
    """Each pip as (centre x, centre y, radius) in px (what the pip measurement starts from)."""

    def to_json(self) -> dict:
        """A JSON-ready dict."""
        return {"face": self.face, "centre_px": [round(v, 2) for v in self.centre_px],
                "edge_px": round(self.edge_px, 2), "angle_deg": round(self.angle_deg, 2),
                "confidence": round(self.confidence, 4),
                "pip_diameters_px": [round(v, 2) for v in self.pip_diameters_px],
                "pips_px": [[round(v, 2) for v in pip] for pip in self.pips_px]}


@dataclass(frozen=True)
class DiceRead:
    """The read of a frame: the dice (left to right, then top to bottom), or a decline with its reason."""

    dice: tuple[DieRead, ...]
    decline: Decline | None
    detail: str = ""

    @property
    def accepted(self) -> bool:
        """True when the frame gives an outcome."""
        return self.decline is None

    @property
    def faces(self) -> tuple[int, ...]:
        """Faces up, sorted; empty when declined (a declined read is never an outcome)."""
        return tuple(sorted(d.face for d in self.dice)) if self.accepted else ()

    def to_json(self) -> dict:
        """A JSON-ready dict."""
        return {"accepted": self.accepted, "faces": list(self.faces),
                "decline": None if self.decline is None else str(self.decline), "detail": self.detail,
                "dice": [d.to_json() for d in self.dice]}


@dataclass
class _Verdict:
    """The outcome of analysing one blob: dice read, a decline, or nothing (not a die)."""

    dice: list[DieRead] = field(default_factory=list)
    decline: Decline | None = None
    detail: str = ""


@dataclass
class _Region:
    """One blob prepared for reading: its patch, body mask, pips and its read as a single die."""

    blob: Blob
    patch: np.ndarray
    body: np.ndarray
    origin: tuple[int, int]
    translucent: bool
    found: Pips
    """Every dark (or white) spot found away from the outline."""
    pips: Pips
    """The spots that can be up-face pips (round, of the common size, well inside the body)."""
    candidates: Pips
    """Round spots of the common size anywhere on the body (before the depth check)."""
    all_found: Pips
    light: np.ndarray | None = None
    """The body's die-coloured pixels (uint8; the body less the table it encloses and the pips), when known."""
    glare_zone: np.ndarray | None = None
    """Where glare is measured when not on the whole body (uint8): a die cut from a group, its pips' square."""
    single: FaceFit | None = None
    cache: dict = field(default_factory=dict)
    """Images computed once per patch (gradients, smoothed whiteness), shared by the checks."""
    problem: str = ""
    clean: bool = False
    frame: np.ndarray | None = None
    """The whole frame (BGR), for looking around the body."""
    min_fill: float = 0.7
    """Least share of its bounding rectangle a clean die's body fills (see :meth:`DiceReader._cover`)."""
    """Read as one die with a square body and no problem."""


_DECLINE_ORDER = (Decline.STACKED, Decline.COCKED, Decline.MOTION, Decline.GLARE, Decline.OUTSIDE_ARENA,
                  Decline.UNREADABLE)


_GROUPABLE = (Decline.STACKED, Decline.COCKED, Decline.GLARE, Decline.UNREADABLE)
"""Declines of a body that a grouping of its pips into faces may resolve (never motion or outside the arena)."""


_SQUARE_READABLE = (Decline.STACKED, Decline.COCKED, Decline.GLARE, Decline.UNREADABLE)
"""Declines of a body of one die's size that a read in the die's own square may resolve (:meth:`DiceReader._square_verdict`)."""


class DiceReader:
    """Reads dice frames with one configuration; see :func:`read_dice`."""

    def __init__(self, config: DiceReaderConfig | None = None) -> None:
        self.config = config or DiceReaderConfig()
        self._arena = None if self.config.arena is None else np.asarray(self.config.arena, np.float32)

    # ------------------------------------------------------------------ frame level

    def read(self, image: np.ndarray) -> DiceRead:
        """Read one BGR (or grey) uint8 frame."""
        image = check_image(image)
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        cfg = self.config
        min_edge = cfg.die_edge_px[0] if cfg.die_edge_px else 14.0
        segmentation = segment_dice(image, cfg.segment_threshold, min_area_px=0.25 * min_edge * min_edge,
                                    style=cfg.style)
        regions = [self._prepare(image, segmentation, blob) for blob in segmentation.blobs]
        die_area = self._die_area(regions)
        dice: list[DieRead] = []
        declines: list[tuple[Decline, str]] = []
        for region in regions:
            if self._edge_strip(region, image.shape):
                continue
            verdict = self._verdict(region, die_area)
            if verdict.decline is not None:  # a glare halo joined to a die: read the die's own square
                cut = self._without_glare(region, die_area)
                if cut is not None:
                    again = self._verdict(cut, die_area)
                    if again.decline is None and len(again.dice) == 1:
                        verdict = again
            if verdict.decline in _GROUPABLE:  # touching dice, or a die and a glare halo: group the pips into faces
                grouped = self._grouped(region, die_area)
                if grouped is not None:
                    verdict = grouped
            if verdict.decline in _SQUARE_READABLE:  # one die the spots did not read: read it in its square
                squared = self._square_verdict(region, die_area)
                if squared is not None:
                    verdict = squared
            dice.extend(verdict.dice)
            if verdict.decline is not None:
                declines.append((verdict.decline, verdict.detail))
        if self._arena is not None:
            for die in dice:
                if cv2.pointPolygonTest(self._arena, die.centre_px, False) < 0:
                    detail = f"die showing {die.face} at {_xy(die.centre_px)} is outside the arena"
                    declines.append((Decline.OUTSIDE_ARENA, detail))
        dice.sort(key=lambda d: (d.centre_px[0], d.centre_px[1]))
        if declines:
            declines.sort(key=lambda r: _DECLINE_ORDER.index(r[0]))
            return DiceRead(tuple(dice), declines[0][0], "; ".join(d for _, d in declines))
        if cfg.expected_dice is not None and len(dice) != cfg.expected_dice:
            return DiceRead(tuple(dice), Decline.WRONG_COUNT,
                            f"found {len(dice)} dice, the game throws {cfg.expected_dice}")
        if not dice:
            return DiceRead((), Decline.HIDDEN, "no die found")
        low = [d for d in dice if d.confidence < cfg.min_confidence]
        if low:
            return DiceRead(tuple(dice), Decline.UNREADABLE,
                            f"die at ({low[0].centre_px[0]:.0f}, {low[0].centre_px[1]:.0f}) read with confidence "
                            f"{low[0].confidence:.2f} < {cfg.min_confidence}")
        return DiceRead(tuple(dice), None, f"{len(dice)} dice read")

    def _edge_strip(self, region: _Region, shape: tuple[int, ...]) -> bool:
        """Whether the region is a lit strip of table at the frame's edge: no die.

        Beyond the arena (rail, desk) the table is often lighter at the frame's edge than the coarse
        table estimate, and the strip joins the die mask. The arena lies within the frame, so a body
        touching the frame's edge that holds no pip (no round spot of a pip's size inside it), or a long
        one (twice as long as wide) holding one spot that reads as no believable face, is dropped;
        a die read there still declines the frame (outside the arena), and a die lost so changes the
        count of dice the game throws.
        """
        strip_with_speck = (len(region.pips) == 1 and region.blob.aspect >= 2.0
                            and (region.single is None or bool(region.problem)))
        if len(region.pips) > 0 and not strip_with_speck:
            return False
        x, y, w, h = region.blob.bbox
        return not (x > 1 and y > 1 and x + w < shape[1] - 1 and y + h < shape[0] - 1)

    def _die_area(self, regions: list[_Region]) -> float | None:
        """Area (px) of one die's body: the median over bodies that read cleanly as one die, else configured."""
        clean = [r.blob.area for r in regions if r.single is not None and r.clean]
        if self.config.die_edge_px is not None:
            low, high = self.config.die_edge_px
            clean = [a for a in clean if (0.75 * low) ** 2 <= a <= (1.3 * high) ** 2]
        if clean:
            return _mid(clean)
        if self.config.die_edge_px is not None:
            return float(np.mean(self.config.die_edge_px)) ** 2
        return None

    # ------------------------------------------------------------------ one blob

    def _prepare(self, image: np.ndarray, seg: Segmentation, blob: Blob) -> _Region:
        """Cut the blob's patch, find its pips and try to read it as one die."""
        cfg = self.config
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
            edge = float(np.clip(edge, cfg.die_edge_px[0], cfg.die_edge_px[1] * 1.2))
        translucent = self._translucent(patch, body)
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
        # a dark spot larger than any pip on a white die is a shaded corner, not the size pips are measured against;
        # a white one on a red die may be glare, and a body holding nothing but such spots is judged on them
        candidates = _round_pips(found, cfg.min_pip_roundness)
        if not translucent and len(candidates):
            fewer = _round_pips(found, cfg.min_pip_roundness, 0.07 * min(edge, edge_single(edge, blob)) ** 2)
            candidates = fewer if len(fewer) else candidates
        single_edge = edge_single(edge, blob)
        depth = _depth(solid) / single_edge
        pips = candidates
        if len(pips):  # a dark gap or notch at the outline, or a pip of a side face seen through, is not a pip
            pips = pips.subset(depth[_pixel(pips.centres, (x0, y0), body.shape)] >= (0.06 if translucent else 0.03))
        deep = found.subset(depth[_pixel(found.centres, (x0, y0), body.shape)] >= 0.06)
        region = _Region(blob=blob, patch=patch, body=body, origin=(x0, y0), translucent=translucent, found=deep,
                         pips=pips, candidates=candidates, all_found=found, light=light, frame=image)
        self._read_single(region)
        return region

    def _read_single(self, region: _Region) -> None:
        """Try to read the region as one die: its face, what is wrong with it, and whether it is clean."""
        cfg, blob, pips = self.config, region.blob, region.pips
        region.single, region.problem, region.clean = None, "", False
        if 1 <= len(pips) <= 6:
            region.single = fit_face(pips.centres, blob.rect[2] % 90.0, cfg.grid_tolerance)
            if region.single is not None:
                short = min(blob.rect[1])
                region.problem = _face_problem(region.single, pips, blob, short, cfg)
                region.clean = (not region.problem and blob.aspect <= 1.0 + cfg.max_side_ratio + 0.06
                                and blob.fill >= region.min_fill)
        if (region.single is None or region.problem) and len(pips) >= 2:
            self._without_side_pips(region)

    def _without_side_pips(self, region: _Region) -> None:
        """Read the face again without the pips of a side face, when they make the read fail.

        A flat die seen off the camera's axis shows a side face as a strip along its outline, with
        pips there squashed (or cut) by the slant. Spots in that strip (less than 13 % of an edge
        deep in the body) that are squashed (axis ratio < 0.7) or small (< 60 % of the deeper ones)
        are dropped together; the up face's own pips, round, full-sized and deeper (a corner pip
        is about a fifth of an edge deep), are kept, so the read can only lose side-face pips.
        """
        cfg, blob, pips = self.config, region.blob, region.pips
        solid = np.zeros_like(region.body)
        outline, _ = cv2.findContours(region.body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.fillConvexPoly(solid, cv2.convexHull(np.concatenate(outline)), 1)
        short = min(blob.rect[1])
        depth = _depth(solid) / max(short, 1.0)
        side = _side_pips(pips, depth[_pixel(pips.centres, region.origin, solid.shape)] >= 0.13)
        if side is None:
            return
        kept = pips.subset(~side)
        fit = fit_face(kept.centres, blob.rect[2] % 90.0, cfg.grid_tolerance)
        if fit is None:
            return
        problem = _face_problem(fit, kept, blob, short, cfg)
        if problem:
            return
        region.pips, region.single, region.problem = kept, fit, ""
        region.clean = blob.aspect <= 1.0 + cfg.max_side_ratio + 0.06 and blob.fill >= region.min_fill

    def _without_glare(self, region: _Region, die_area: float | None) -> _Region | None:
        """The region cut to the square of one die when what lies outside that square is a glare halo.

        A glare spot on the table next to a die is as light as the die and joins its body. The die's
        square is placed on its pip grid (centre and axes; for a 1, the outline without the glare)
        with the die's edge from the frame (+6 %). The part of the body outside it must be glare:
        under a third of a die's area whitened like glare (:meth:`_glare`) or else an outline far
        softer than the die's own edges (at most a quarter of their share of steps >= 20 grey levels
        per px; a tenth when the part is larger than a die); it must hold no spot of a fifth of a
        pip's size (a side face's or another die's pips; on a whitened halo only round pip-sized
        ones count, its falloff makes crescents), and be less than 2.5 dice. The cut region is then
        judged by every check again. ``None`` when any of this does not hold.
        """
        cfg, pips = self.config, region.pips
        if die_area is None or not 1 <= len(pips) <= 6 or region.blob.area < 1.1 * die_area:
            return None
        fit = region.single or fit_face(pips.centres, None, cfg.grid_tolerance)
        if fit is None:
            return None
        bright = self._glare_mask(region)
        body = region.body
        if fit.face > 1:
            angle = fit.angle_deg
        else:  # one pip gives no axes: the outline of the body without the glare does
            core = body if bright is None else cv2.subtract(body, cv2.dilate(bright, np.ones((5, 5), np.uint8)))
            ys, xs = np.nonzero(core)
            if len(xs) < 0.5 * die_area:
                return None
            angle = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))[2]
        edge = float(np.sqrt(die_area)) * 1.06
        centre = (fit.centre[0] - region.origin[0], fit.centre[1] - region.origin[1])
        corners = cv2.boxPoints((centre, (edge, edge), angle))
        square = np.zeros_like(body)
        cv2.fillConvexPoly(square, np.round(corners * 16).astype(np.int32), 1, lineType=cv2.LINE_8, shift=4)
        inside = cv2.bitwise_and(body, square)
        outside = cv2.subtract(body, square)
        out_area = cv2.countNonZero(outside)
        in_area = cv2.countNonZero(inside)
        if out_area >= 2.5 * die_area or in_area < 0.75 * die_area:
            return None
        # what lies outside the die must be glare, not another die or a side face: mostly whitened, or with an
        # outline far softer than the die's own edges (a die's edge is a step, a glare halo fades out)
        glare_share = 0.0 if bright is None else cv2.countNonZero(cv2.bitwise_and(outside, bright)) / out_area
        if region.translucent and _reddish_share(region.patch, outside) >= 0.03:
            return None  # glare is white: a red die washed by glare stays red at its corners, a halo on the table not
        if glare_share < 0.3 or out_area >= die_area:
            grey = cv2.cvtColor(region.patch, cv2.COLOR_BGR2GRAY)
            strength = cv2.dilate(cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3),
                                                cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)) / 8.0,
                                  np.ones((5, 5), np.uint8))
            contours, _ = cv2.findContours(body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            points = np.concatenate(contours).reshape(-1, 2)
            near = cv2.dilate(square, np.ones((5, 5), np.uint8))[points[:, 1], points[:, 0]] > 0
            sharp = strength[points[:, 1], points[:, 0]] >= 20.0
            if near.all() or (~near).sum() < 8:
                return None
            own, off = float(sharp[near].mean()), float(sharp[~near].mean())
            if own < 0.3 or off > 0.25 * own or (out_area >= die_area and off > 0.1 * own):
                return None
        # no spot of a fifth of a pip's size off the die (pips of a side face or of another die); on a glare halo,
        # whose falloff makes crescents of contrast, no round spot of pip size
        spots = region.candidates if glare_share >= 0.3 else region.all_found
        if len(spots):
            margin = max(3, round(0.12 * edge)) | 1  # a dark seam along the die's edge is not a spot off it
            off = cv2.dilate(square, np.ones((margin, margin), np.uint8))[_pixel(spots.centres, region.origin,
                                                                                  body.shape)] == 0
            if bool((off & (spots.areas >= 0.2 * _pip_area(pips)) & (spots.elongation >= 0.15)).any()):  # not seams
                return None
        return self._cut(region, square)

    def _cut(self, region: _Region, square: np.ndarray, min_fill: float = 0.7) -> _Region:
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
            return p.subset(square[_pixel(p.centres, region.origin, body.shape)] > 0) if len(p) else p

        shared = {k: v for k, v in region.cache.items() if k in ("tensor", "white")}  # of the patch, not the body
        cut = dataclasses.replace(region, blob=blob, body=inside, found=keep(region.found), pips=keep(region.pips),
                                  candidates=keep(region.candidates), all_found=keep(region.all_found), cache=shared,
                                  min_fill=min_fill)
        self._read_single(cut)
        return cut

    def _grouped(self, region: _Region, die_area: float | None) -> _Verdict | None:
        """Read a body of touching dice (or a die and a glare halo) by grouping its pips into faces.

        The pips are grouped into canonical faces (:func:`vision.dice_split.group_faces`); each face
        places its die's square (centre and axes from its pip grid, the die's edge from the frame,
        +6 %; for a 1, the axes of the body left when the other dice are taken away). A grouping
        holds when the squares barely overlap, each holds at least 3/4 of a die's area of the body,
        what the squares leave of the body is only thin side-face strips (gone after an opening
        as wide as a flat die's side face may be) or no die's (see :meth:`_rest_is_no_die`), no spot lies off the
        squares, and each square, cut out, passes every check of a single die and reads the face
        of its group. The body is read only when exactly one grouping holds; ``None`` otherwise
        (the caller keeps its decline).
        """
        covers = self._groupings(region, die_area)
        if not covers or len(covers) > 4:
            return None
        held: list[_Verdict] = []
        for cover in covers:
            verdict = self._cover(region, cover, die_area)
            if verdict is not None:
                held.append(verdict)
        if len(held) != 1:
            return None
        return held[0]

    def _groupings(self, region: _Region, die_area: float | None) -> list[list]:
        """The ways to group the region's pips into die faces (:func:`vision.dice_split.group_faces`)."""
        cfg, pips = self.config, region.pips
        if die_area is None or not 1 <= len(pips) <= 36 or region.blob.area < 1.1 * die_area:
            return []
        edge = float(np.sqrt(die_area))
        # a die's pip spacing: 25-29 % of its edge (+-14 % for perspective and the die's size from the frame)
        spacing = (max(cfg.pip_spread[0], 0.215) * edge, min(cfg.pip_spread[1], 0.335) * edge)
        found = region.all_found
        pip_area = _pip_area(pips)
        on = region.body if region.light is None else cv2.dilate(region.light, np.ones((3, 3), np.uint8))
        in_body = on[_pixel(found.centres, region.origin, on.shape)] > 0 if len(found) else []  # not table between dice
        other = (found.subset((found.areas >= 0.3 * pip_area) & (found.areas <= 2.5 * pip_area)
                              & (found.elongation >= 0.5) & in_body
                              & (np.min(np.hypot(*(found.centres[:, None, :] - pips.centres[None, :, :]
                                                   ).transpose(2, 0, 1)), axis=1) > 2.0))
                 if len(found) else found)
        covers = group_faces(pips.centres, spacing, blockers=other.centres, tolerance=cfg.grid_tolerance)
        return covers

    def _cover(self, region: _Region, cover: list, die_area: float) -> _Verdict | None:
        """The dice read from one grouping of the region's pips (see :meth:`_grouped`), ``None`` when it fails."""
        body, origin = region.body, region.origin
        k = len(cover)
        if region.blob.area < 0.8 * k * die_area:
            return None
        edge = float(np.sqrt(die_area))
        side = edge * 1.06
        squares: list[np.ndarray | None] = [None] * k
        union = np.zeros_like(body)
        for g, group in enumerate(cover):
            if group.face >= 2:
                squares[g] = self._square(body, (group.fit.centre[0] - origin[0], group.fit.centre[1] - origin[1]),
                                          side, group.fit.angle_deg)
                union |= squares[g]
        for g, group in enumerate(cover):  # a 1 takes its axes from the die's outline around its pip
            if group.face == 1:
                centre = (group.fit.centre[0] - origin[0], group.fit.centre[1] - origin[1])
                squares[g] = self._square(body, centre, side, self._outline_angle(region, centre, edge))
                union |= squares[g]
        overlap = sum(cv2.countNonZero(s) for s in squares) - cv2.countNonZero(union)
        if overlap > 0.12 * die_area:
            return None
        for square in squares:
            if cv2.countNonZero(cv2.bitwise_and(body, square)) < 0.6 * die_area:
                return None
        rest = cv2.subtract(body if region.light is None else region.light, union)  # not the table dice enclose
        # a flat die's side faces are strips at most max_side_ratio of an edge wide, most of it under the square
        width = max(3, round((self.config.max_side_ratio + 0.03) * edge)) | 1
        rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width, width)))
        if cv2.countNonZero(rest) > 0.04 * die_area and not self._rest_is_no_die(region, rest, union, die_area):
            return None
        spots = region.all_found  # no pip off the dice (of a die under another, or of a wide side face), on the
        if len(spots):            # die's colour (a dark gap between dice or a shaded seam is no pip)
            margin = max(3, round(0.2 * edge)) | 1  # a flat die's narrow side faces lie within this margin
            at = _pixel(spots.centres, origin, body.shape)
            off = cv2.dilate(union, np.ones((margin, margin), np.uint8))[at] == 0
            if region.light is not None:
                off &= cv2.dilate(region.light, np.ones((3, 3), np.uint8))[at] > 0
            pip_area = _pip_area(region.pips)
            if bool((off & (spots.areas >= 0.25 * pip_area) & (spots.areas <= 2.5 * pip_area)
                     & (spots.elongation >= 0.2)).any()):
                return None
        dice: list[DieRead] = []
        for group, square in zip(cover, squares, strict=True):
            # a 5 or a 6 is no canonical face less some pips: a die read so may have lost a strip of its body
            # (a shaded seam, pips at its edge) without a pip going unseen
            cut = self._cut(region, square, 0.6 if group.face >= 5 else 0.7)
            # glare that can hide a pip lies over the pips' square (pips reach 0.37 of an edge off the centre,
            # the square eroded to 0.84 of an edge); a halo beside the die may reach into its square's edge
            cut.glare_zone = cv2.erode(square, np.ones((3, 3), np.uint8), iterations=max(1, round(0.11 * edge)))
            verdict = self._verdict(cut, die_area)
            if verdict.decline in _SQUARE_READABLE:  # the spots did not read the die: its square may
                verdict = self._square_verdict(cut, die_area) or verdict
            if verdict.decline is not None or len(verdict.dice) != 1 or verdict.dice[0].face != group.face:
                return None
            dice.extend(verdict.dice)
        return _Verdict(dice=dice)

    def _square_verdict(self, region: _Region, die_area: float | None) -> _Verdict | None:
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
        cfg = self.config
        if die_area is None or not 0.5 * die_area <= region.blob.area <= 1.3 * die_area:
            return None
        edge = float(np.sqrt(die_area))
        patch = region.patch
        if region.translucent:
            channel = np.ascontiguousarray(patch[..., 2]).astype(np.float32)
        else:
            channel = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
        contrast = pip_contrast(patch, region.translucent, int(max(5, round(edge * 0.35))) | 1)
        read = read_square(channel, contrast, region.body, edge, region.origin)
        if isinstance(read, str) or read.separation < 2.0 or read.aspect > 1.1 or read.beyond > 0.15:
            return None
        centre = (read.centre[0] - region.origin[0], read.centre[1] - region.origin[1])
        square = self._square(region.body, centre, read.edge, read.angle_deg)
        grown = self._square(region.body, centre, read.edge * 1.24, read.angle_deg)
        if cv2.countNonZero(cv2.subtract(region.body, grown)) > 0.1 * die_area:
            return None
        inner = self._square(region.body, centre, read.edge * 0.8, read.angle_deg)
        spots = region.candidates
        if len(spots):
            inside = inner[_pixel(spots.centres, region.origin, inner.shape)] > 0
            nodes = np.asarray(read.pips, float)
            gap = np.hypot(*(spots.centres[:, None, :] - nodes[None, :, :]).transpose(2, 0, 1)).min(axis=1)
            on = inside & (gap <= 0.12 * read.edge)
            reference = _mid(spots.contrast[on]) if on.any() else 0.0
            # a spot off the nodes as contrasted as the pips is a pip of something else; a fainter one is a pip
            # of another face seen through a red die, or texture
            if bool((inside & ~on & (spots.contrast >= 0.6 * reference)).any()):
                return None
        where = _xy(read.centre)
        # a die read only in its square must be sharp all round: a die at rest keeps a gradient anisotropy of
        # 0.66 or more, a moving one (smeared over 0.3 edge or more) at most 0.61
        if self._motion(region, max(cfg.motion_anisotropy, 0.65)) is not None:
            return None
        washed = _washed_nodes(region, read, square)
        if washed:
            return _Verdict(decline=Decline.GLARE, detail=f"glare over {washed} pip place(s) of the die at {where}")
        return _Verdict(dice=[_square_die(read, region.candidates)])

    def _outline_angle(self, region: _Region, centre: tuple[float, float], edge: float) -> float:
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

    @staticmethod
    def _square(body: np.ndarray, centre: tuple[float, float], side: float, angle: float) -> np.ndarray:
        """uint8 mask (the shape of ``body``) of a square of ``side`` px at ``centre`` (patch px), turned by ``angle``."""
        corners = cv2.boxPoints((centre, (side, side), angle))
        square = np.zeros_like(body)
        cv2.fillConvexPoly(square, np.round(corners * 16).astype(np.int32), 1, lineType=cv2.LINE_8, shift=4)
        return square

    def _rest_is_no_die(self, region: _Region, rest: np.ndarray, dice: np.ndarray, die_area: float) -> bool:
        """Whether ``rest`` (uint8 mask: the body outside the dice's squares ``dice``) holds no part of a die.

        Each part of it is judged alone; crumbs under 8 % of a die are dropped. Any other part must be
        table that the die mask took in, or a glare halo on the table.

        Table: of the table's hue (chromaticity, BGR over their sum, at most 0.4 times as far from the
        table's around the body as from the dice's, which differ by 0.02 or more; shade changes a die's
        brightness, not its hue) or, beside white dice, far more tinted than they are (chroma, max - min
        over max, 1.8 times theirs and 0.04 up: a white die stays neutral in shade); under half a die,
        and not 40 grey levels whiter than the table (least channel: glare adds white light).

        Glare halo (:meth:`_halo`): whiter than the table, with a core whiter than the dice, and an
        outline that fades out everywhere. Anything else may be a die's side face, a die under another,
        or a die washed by glare: the body is not read.
        """
        count, labels, stats, _ = cv2.connectedComponentsWithStats(rest)
        ring = cv2.subtract(cv2.dilate(region.body, np.ones((7, 7), np.uint8)), region.body)
        table = np.asarray(cv2.mean(region.patch, ring)[:3])
        colour = np.asarray(cv2.mean(region.patch, dice if region.light is None else dice & region.light)[:3])
        table_hue, dice_hue = table / max(float(table.sum()), 1.0), colour / max(float(colour.sum()), 1.0)
        hues_apart = np.linalg.norm(dice_hue - table_hue) >= 0.02
        white, _ = _whiteness(region)
        table_white = cv2.mean(white, ring)[0]
        top = white[(dice if region.light is None else dice & region.light) > 0]
        dice_white = float(np.percentile(top, 90)) if len(top) else 255.0  # the dice's lit faces, not their pips
        glare = 0
        for label in range(1, count):
            area = stats[label, cv2.CC_STAT_AREA]
            if area < 0.08 * die_area:
                continue
            part = (labels == label).astype(np.uint8)
            mean = np.asarray(cv2.mean(region.patch, part)[:3])
            hue = mean / max(float(mean.sum()), 1.0)
            to_table, to_dice = float(np.linalg.norm(hue - table_hue)), float(np.linalg.norm(hue - dice_hue))
            whiter = cv2.mean(white, part)[0] - table_white
            tinted = not region.translucent and _chroma(mean) >= max(1.8 * _chroma(colour), _chroma(colour) + 0.04)
            if (tinted or (hues_apart and to_table <= 0.4 * to_dice)) and whiter < 40.0 and area < 0.5 * die_area:
                continue  # table the mask took in
            if not self._halo(region, part, dice, die_area, white, table_white, dice_white):
                return False
            glare += area
        return glare < 2.5 * die_area

    def _halo(self, region: _Region, part: np.ndarray, dice: np.ndarray, die_area: float, white: np.ndarray,
              table_white: float, dice_white: float) -> bool:
        """Whether ``part`` (uint8 mask beside the dice ``dice``) is a glare halo on the table.

        Glare adds white light that fades out from a core: the part's least channel (smoothed) is on
        average 15 grey levels above the table's around the body and peaks 25 above the dice's lit faces
        (their 90th percentile: a die smeared by motion is never whiter than a die at rest). On red
        dice the part must hold almost no red pixel (under 3 %: red at least 1.8 times blue and green; a
        red die washed by glare stays red at its corners). On white dice the body's outline along the
        part must be soft everywhere: over every stretch of 0.4 of an edge the mean gradient is at most
        0.65 of the mean along the dice (a die, or the part of one left uncovered by another, keeps a
        die's edge along some stretch, about as strong as the dice's; a die washed by glare keeps its
        outline).
        """
        if cv2.mean(white, part)[0] < table_white + 15.0:
            return False
        if cv2.minMaxLoc(white, part)[1] < dice_white + 25.0:
            return False
        if region.translucent:  # glare is white, a red die red to its corners even when glare washes its face
            return _reddish_share(region.patch, part) < 0.03
        points, strength, near = self._outline_strength(region, dice)
        by_part = cv2.dilate(part, np.ones((5, 5), np.uint8))[points[:, 1], points[:, 0]] > 0
        off = by_part & ~near
        window = max(4, round(0.4 * float(np.sqrt(die_area))))
        if near.sum() < 8 or off.sum() < window:
            return False
        own = float(strength[near].mean())
        values = np.where(off, strength, 0.0)
        kernel = np.ones(window)
        sums = np.convolve(np.concatenate([values, values[:window - 1]]), kernel, "valid")
        full = np.convolve(np.concatenate([off, off[:window - 1]]).astype(float), kernel, "valid") >= window
        return bool(full.any()) and float(sums[full].max()) / window <= 0.65 * own

    def _outline_strength(self, region: _Region, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The body's outline points in order (N, 2), the edge strength there (grey levels per px, 5 x 5 max),
        and which of them lie along the dice (``dice`` mask dilated by 2 px)."""
        strength = region.cache.get("strength")
        if strength is None:
            grey = cv2.cvtColor(region.patch, cv2.COLOR_BGR2GRAY)
            strength = region.cache["strength"] = cv2.dilate(
                cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3),
                              cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)) / 8.0, np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(region.body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        points = max(contours, key=len).reshape(-1, 2)
        near = cv2.dilate(dice, np.ones((5, 5), np.uint8))[points[:, 1], points[:, 0]] > 0
        return points, strength[points[:, 1], points[:, 0]], near

    def _verdict(self, region: _Region, die_area: float | None) -> _Verdict:
        cfg = self.config
        blob, pips = region.blob, region.pips
        where = _xy(blob.centroid)
        ratio = blob.area / die_area if die_area else None
        # a pip's area: the round pips' own, else from the die's size (a pip is 15-19 % of the edge across)
        pip_area = _mid(pips.areas) if len(pips) else 0.02 * (die_area or blob.area)
        overlapping = ratio is not None and 1.2 <= ratio < 1.7 and blob.fill < 0.8 and len(pips) > 0
        side_limit = 1.0 + cfg.max_side_ratio + 0.06
        # one die: a face read, a square body, and the area of one die (or, size unknown, a well-filled body)
        single_ok = (region.single is not None and region.clean and blob.aspect <= side_limit
                     and (0.6 <= ratio <= 1.15 + cfg.max_side_ratio / 2 if ratio is not None else blob.fill >= 0.8))
        if cfg.max_side_ratio < 0.25 and not overlapping:
            # a die leaning on an edge (24 degrees or more) shows a side face a third of its edge wide, so its body
            # is not square: squashed pips beside a square body of one die are a flat die's narrow side face
            side = "" if single_ok else _side_face(region.all_found, pip_area)
            if side:
                return _Verdict(decline=Decline.COCKED, detail=f"die body at {where}: {side}")
            smear = _smeared(region.found, pip_area)
            if smear:
                return _Verdict(decline=Decline.MOTION, detail=f"die at {where}: {smear}")
        if (ratio is not None and ratio < 0.5 and (region.single is None or region.problem)
                and self._glare(region, _pip_area(pips)) and _sharp_outline(region) < 0.25
                and not _red_die_near(region, float(np.sqrt(die_area)))):
            return _Verdict()  # a glare spot on the table: under half a die, whitened, a soft outline, no face
        if len(region.found) == 0:
            inside = self._arena is not None and cv2.pointPolygonTest(self._arena, blob.centroid, True) > 0.5 * (
                np.sqrt(die_area or blob.area))
            if inside and ratio is not None and 0.6 <= ratio <= 1.6 and blob.fill >= 0.7 and _stands_out(region):
                motion = self._motion(region, cfg.motion_anisotropy)
                if motion is not None:  # a die's size well inside the arena, smeared along one direction: moving
                    return _Verdict(decline=Decline.MOTION, detail=f"die-sized body at {where} is smeared ({motion})")
            if blob.fill < 0.85 or (ratio is not None and ratio < 0.55):
                return _Verdict()  # a round light patch or a speck: not a die
            if _sharp_outline(region) < 0.25:
                motion = self._motion(region, cfg.motion_anisotropy)
                if motion is not None:  # a die smeared past its pips and edges
                    return _Verdict(decline=Decline.MOTION, detail=f"die-like body at {where} is smeared ({motion})")
                return _Verdict()  # a light patch with a soft outline (glare, a lit stretch of table): no die's edge
            if self._glare(region, 1.0):
                if _sharp_outline(region) < 0.4:
                    return _Verdict()  # a glare spot on the table: soft outline, no pip
                return _Verdict(decline=Decline.GLARE, detail=f"glare hides every pip of the die at {where}")
            return _Verdict(decline=Decline.UNREADABLE, detail=f"die-like body at {where} shows no pip")
        if len(pips) == 0 and (ratio is None or ratio < 0.55 or ratio > 3.5 or blob.fill < 0.6 or blob.aspect > 2.2):
            return _Verdict()  # dark specks or edges on a light object that is no die (too small, long, ragged)
        if (region.single is None and blob.fill < 0.86 and self._glare(region, _pip_area(pips)) > 0.12 * blob.area
                and _sharp_outline(region) < 0.4 and bool((pips.areas >= 2.5 * pip_area).all())):
            return _Verdict()  # a round glare spot on the table (soft outline), its white core taken for a pip
        motion = self._motion(region, self.config.motion_anisotropy)
        if motion is not None:
            return _Verdict(decline=Decline.MOTION, detail=f"die at {where} is smeared ({motion})")
        if (region.single is None or region.problem) and cfg.max_side_ratio < 0.25:  # unreadable: a milder smear
            motion = self._motion(region, self.config.motion_anisotropy + 0.2)
            if motion is not None:
                return _Verdict(decline=Decline.MOTION, detail=f"die at {where} is smeared and unreadable ({motion})")
        glare = self._glare(region, _pip_area(pips))
        if glare:
            return _Verdict(decline=Decline.GLARE, detail=f"glare over {glare:.0f} px of the die at {where}")
        tilted = _tilted(region.single, region.found, pips, cfg, square_body=single_ok)
        if tilted:
            return _Verdict(decline=Decline.COCKED, detail=f"die at {where}: {tilted}")
        if single_ok:
            glare = self._glare(region, _pip_area(pips))
            if glare:
                return _Verdict(decline=Decline.GLARE, detail=f"a saturated patch of {glare:.0f} px lies on the die "
                                f"at {where}")
            return _Verdict(dice=[_die(region.single, pips, min(blob.rect[1]))])
        if blob.aspect > side_limit and blob.fill >= 0.82 and (ratio is None or ratio < 1.75):
            short, long_ = sorted(blob.rect[1])
            return _Verdict(decline=Decline.COCKED, detail=f"die at {where} shows a side face "
                            f"{long_ / short - 1:.0%} of its edge wide")
        if ratio is not None and ratio >= 1.7:
            first = None
            for k in sorted({max(2, int(np.floor(ratio))), max(2, int(np.ceil(ratio)))}, key=lambda k: abs(k - ratio)):
                verdict = self._multi(region, die_area, k)
                # read k dice, but the body is not k dice large. Each die may add a side face (up to ~0.25 of a die
                # under perspective); more area than that is a die half hidden, which the count of dice catches
                # when the game's count is known
                excess = 0.4 if cfg.expected_dice is None else max(0.4, 0.25 * k)
                if verdict.decline is None and not -0.4 <= ratio - k <= excess:
                    verdict = _Verdict(decline=Decline.COCKED if blob.fill >= 0.8 else Decline.STACKED,
                                       detail=f"dice at {where} read as {k} but the body is {ratio:.2f} dice large: "
                                       "a side face or a die on another shows")
                if verdict.decline is None:
                    return verdict
                first = first or verdict
            overlap = ratio < 1.9 or abs(ratio - round(ratio)) >= 0.3  # not a whole number of dice
            if first.decline == Decline.UNREADABLE and overlap and blob.fill < 0.8:
                return _Verdict(decline=Decline.STACKED, detail=f"die body at {where} is {ratio:.2f} dice large, "
                                f"not square (fill {blob.fill:.2f}) and does not split into whole dice: {first.detail}")
            return first
        if ratio is None and blob.aspect >= 1.7:
            return self._multi(region, blob.area / 2.0, 2)
        if blob.fill < 0.8 and (ratio is None or ratio >= 1.12):
            return _Verdict(decline=Decline.STACKED, detail=f"die body at {where} is "
                            f"{'?' if ratio is None else f'{ratio:.2f}'} dice large and not square "
                            f"(fill {blob.fill:.2f}): one die rests on another")
        glare = self._glare(region, _pip_area(pips))
        if glare:
            return _Verdict(decline=Decline.GLARE, detail=f"a saturated patch of {glare:.0f} px hides the pips of "
                            f"the die at {where}")
        if region.single is not None and region.problem:
            return _Verdict(decline=Decline.UNREADABLE, detail=f"die at {where}: {region.problem}")
        if region.single is not None:
            return _Verdict(decline=Decline.UNREADABLE, detail=f"die at {where} reads {region.single.face} but its body "
                            f"is not one die's (fill {blob.fill:.2f}, aspect {blob.aspect:.2f}, "
                            f"{'?' if ratio is None else f'{ratio:.2f}'} dice large)")
        return _Verdict(decline=Decline.UNREADABLE, detail=f"the {len(pips)} spots on the die at {where} are on "
                        "no canonical pip layout")

    def _translucent(self, patch: np.ndarray, body: np.ndarray) -> bool:
        if self.config.style != "auto":
            return self.config.style == "translucent"
        mean = cv2.mean(patch, body)[:3]
        return mean[2] > 1.5 * max(mean[0], mean[1])

    def _multi(self, region: _Region, die_area: float, k: int) -> _Verdict:
        """Split a body of ``k`` touching dice (see :func:`_split`); every part must read as a flat face."""
        cfg = self.config
        blob, pips = region.blob, region.pips
        labels_img = _split(region.patch, region.body, k, die_area)
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
                return _Verdict(decline=Decline.STACKED, detail=f"die bodies at {_xy(blob.centroid)} overlap: "
                                "a part too small for a whole die")
            corners = cv2.convexHull(part_points.astype(np.int32))
            hull = np.zeros_like(region.body)
            cv2.fillConvexPoly(hull, corners, 1)
            hulls.append(hull)
            outlines.append(corners.reshape(-1, 2).astype(np.float32))
            motion = self._motion(region, cfg.motion_anisotropy, hull)
            if motion is not None:  # one die of a touching group moving: judged on its own part
                return _Verdict(decline=Decline.MOTION, detail=f"die at {_xy(part_points.mean(axis=0) + region.origin)}"
                                f" is smeared ({motion})")
            depth = _depth(hull) / edge
            depths[part] = depth[_pixel(candidates.centres, region.origin, hull.shape)]
        owner = np.argmax(depths, axis=0) if len(candidates) else np.zeros(0, int)
        best = depths.max(axis=0) if len(candidates) else np.zeros(0)
        dice = []
        for part in range(k):
            rect = cv2.minAreaRect(outlines[part] + np.asarray(region.origin, np.float32))  # hull: the same rect
            keep = (owner == part) & (best >= (0.06 if region.translucent else 0.09))
            part_pips = candidates.subset(keep)
            fit = fit_face(part_pips.centres, rect[2] % 90.0, cfg.grid_tolerance)
            problem = "" if fit is None else _part_problem(fit, part_pips, rect, cfg)
            part_found = region.found.subset(hulls[part][_pixel(region.found.centres, region.origin,
                                                                 hulls[part].shape)] > 0)
            tilted = _tilted(fit, part_found, part_pips, cfg)
            if fit is not None and not problem:
                aspect = max(rect[1]) / max(min(rect[1]), 1.0)
                # a leaning die with 4-6 pips shows its tilt in the pip grid (squareness, checked above); a split
                # part's outline is ragged at the seam, so its length is a looser guide there
                if aspect > 1.0 + cfg.max_side_ratio + (0.1 if fit.face <= 3 else 0.2):
                    tilted = tilted or f"body {aspect:.2f} times longer than wide"
            if tilted:
                return _Verdict(decline=Decline.COCKED, detail=f"die at {_xy(rect[0])}: {tilted}")
            if fit is None or problem:
                glare = self._glare(region, _pip_area(pips))
                if glare:
                    return _Verdict(decline=Decline.GLARE, detail=f"a saturated patch of {glare:.0f} px hides pips "
                                    f"at {_xy(blob.centroid)}")
                return _Verdict(decline=Decline.UNREADABLE, detail=f"touching dice at {_xy(blob.centroid)}: part "
                                f"{part + 1} of {k}: " + (problem or f"{len(part_pips)} spots on no canonical layout"))
            dice.append(_die(fit, part_pips, min(rect[1])))
        glare = self._glare(region, _pip_area(pips))
        if glare:
            return _Verdict(decline=Decline.GLARE, detail=f"a saturated patch of {glare:.0f} px lies on the dice at "
                            f"{_xy(blob.centroid)}")
        return _Verdict(dice=dice)

    # ------------------------------------------------------------------ checks

    def _motion(self, region: _Region, limit: float, body: np.ndarray | None = None) -> str | None:
        """Anisotropy of the gradients over the die (structure tensor): a moving die is smeared along one axis."""
        body = region.body if body is None else body
        tensor = region.cache.get("tensor")
        if tensor is None:  # the products of the gradients, three channels (xx, yy, xy), once per patch
            grey = cv2.cvtColor(region.patch, cv2.COLOR_BGR2GRAY)
            gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
            gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
            tensor = region.cache["tensor"] = cv2.merge([gx * gx, gy * gy, gx * gy])
        near = cv2.dilate(body, np.ones((5, 5), np.uint8))
        jxx, jyy, jxy = cv2.mean(tensor, near)[:3]
        tr, det = jxx + jyy, jxx * jyy - jxy * jxy
        disc = np.sqrt(max(tr * tr / 4 - det, 0.0))
        ratio = (tr / 2 - disc) / max(tr / 2 + disc, 1e-6)
        if ratio < limit:
            return f"gradient anisotropy {ratio:.2f} < {limit:.2f}"
        return None

    def _glare_mask(self, region: _Region) -> np.ndarray | None:
        """uint8 mask of the glare on the region's body (see :meth:`_glare`), ``None`` when there is none."""
        smooth, level = _whiteness(region)
        bright = ((smooth >= level + self.config.glare_level * (255.0 - level)) & (region.body > 0)).astype(np.uint8)
        return bright if bright.any() else None

    def _glare(self, region: _Region, pip_area: float) -> float:
        """Area (px) of glare on the die: a whitening broader than a pip; 0 when none.

        The least of the three channels (white light raises all three) is smoothed at about a
        pip's size, so a pip (white on a red die) fades while a glare spot, broader, keeps its
        level; glare is where the smoothed level stays above the body's by ``glare_level`` of the
        way to white, over more than two pips' area, or where it reaches a third of that under
        one of the pips read (a pip lit or faked by glare).
        """
        body = region.body
        inside = body > 0
        if region.glare_zone is not None:
            inside &= region.glare_zone > 0
        if not inside.any():
            return 0.0
        smooth, level = _whiteness(region)
        bright = (smooth >= level + self.config.glare_level * (255.0 - level)) & inside
        area = float(bright.sum())
        pip_area = min(pip_area, 0.03 * region.blob.area)  # a glare core alone is no measure of a pip
        if area >= 2.0 * max(pip_area, 6.0):
            return area
        if len(region.pips):
            at = _pixel(region.pips.centres, region.origin, body.shape)
            lit = smooth[at] >= level + self.config.glare_level / 3.0 * (255.0 - level)
            if lit.any():
                return float(max(area, pip_area))
        return 0.0


# ---------------------------------------------------------------------- helpers


def _depth(mask: np.ndarray) -> np.ndarray:
    """Distance (px) of each pixel of a uint8 mask to its outline, the frame's edge counting as outline."""
    padded = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    return cv2.distanceTransform(padded, cv2.DIST_L2, 3)[1:-1, 1:-1]


def _whiteness(region: _Region) -> tuple[np.ndarray, float]:
    """The least of the three channels smoothed at about a pip's size, and its mean over the body (cached)."""
    cached = region.cache.get("glare")
    if cached is None:
        white = region.cache.get("white")
        if white is None:
            patch = region.patch
            white = region.cache["white"] = cv2.min(cv2.min(patch[..., 0], patch[..., 1]),
                                                    patch[..., 2]).astype(np.float32)
        level = float(cv2.mean(white, region.body)[0])
        sigma = max(1.5, 0.12 * float(np.sqrt(region.blob.area)))
        cached = region.cache["glare"] = (cv2.GaussianBlur(white, (0, 0), sigma), level)
    return cached


def _chroma(bgr: np.ndarray) -> float:
    """Chroma of a mean colour: (largest - smallest channel) / largest."""
    return float((bgr.max() - bgr.min()) / max(float(bgr.max()), 1.0))


def _mid(values: object) -> float:
    """Median of a short sequence (numpy's median is slow on a handful of values)."""
    ordered = sorted(float(v) for v in values)
    n = len(ordered)
    return ordered[n // 2] if n % 2 else 0.5 * (ordered[n // 2 - 1] + ordered[n // 2])


def _xy(point: tuple[float, float]) -> str:
    return f"({point[0]:.0f}, {point[1]:.0f})"


def _pip_area(pips: Pips) -> float:
    return _mid(pips.areas) if len(pips) else 0.0


def _side_pips(pips: Pips, deep: np.ndarray) -> np.ndarray | None:
    """Which spots are a side face's pips (see :meth:`DiceReader._without_side_pips`), ``None`` for none.

    ``deep`` marks the spots at least 13 % of an edge inside the body. Every spot nearer the outline
    must be squashed (axis ratio < 0.7), small (< 60 % of the deeper ones) or faint (contrast under 80 %
    of theirs: a side face is seen at a slant and shaded), else ``None``: a round, full-sized spot as
    dark as the others at the outline is no side face's pip, and nothing is dropped. (Dropping a
    corner pip of a real face never leaves a canonical face of a die's spacing and centre.)
    """
    if deep.all() or not deep.any():
        return None
    reference = _mid(pips.areas[deep])
    faint = pips.contrast < 0.8 * _mid(pips.contrast[deep])
    side = ~deep & ((pips.elongation < 0.7) | (pips.areas < 0.6 * reference) | faint)
    if not side.any() or bool((~deep & ~side).any()):
        return None
    return side


def _round_pips(pips: Pips, roundness: float = 0.5, max_area: float = np.inf) -> Pips:
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
    reference = _mid(np.sort(pips.areas[round_])[-6:])
    return pips.subset(round_ & (pips.areas >= 0.4 * reference) & (pips.areas <= 2.6 * reference))


def _face_problem(fit: FaceFit, pips: Pips, blob: Blob, short: float, cfg: DiceReaderConfig) -> str:
    """Why a fitted face is not a believable die face ('' when it is)."""
    uneven = _uneven(pips)
    if uneven:
        return uneven
    body_centre = np.asarray(blob.rect[0])
    offset = float(np.linalg.norm(np.asarray(fit.centre) - body_centre)) / short
    if offset > 0.12 + cfg.max_side_ratio / 2:
        return f"pips centred {offset:.0%} of an edge off the body's centre"
    if fit.face > 1:
        ratio = fit.spacing / short
        if not cfg.pip_spread[0] <= ratio <= cfg.pip_spread[1]:
            return f"pip spacing {ratio:.2f} of the edge is not a die's"
        diameters = pips.diameters
        if diameters.max() > 1.9 * diameters.min():
            return f"pips of unequal size ({diameters.min():.1f} to {diameters.max():.1f} px)"
        if not 0.28 <= _mid(diameters) / fit.spacing <= 1.05:
            return "pip size does not match the pip spacing"
        if fit.squareness < cfg.min_squareness:
            return f"pip grid foreshortened to {fit.squareness:.2f}: face not square to the camera"
    else:
        d = float(pips.diameters[0]) / short
        if not 0.08 <= d <= 0.38:
            return f"single pip {d:.2f} of the edge is not a die's"
    return ""


def _split(patch: np.ndarray, body: np.ndarray, k: int, die_area: float) -> np.ndarray:
    """Label each body pixel with one of ``k`` dice (-1 off the body).

    Seeds are the cores of the body (distance to the outline at least 55 % of its largest); when
    there are ``k`` of them, a watershed on the colour image grows them to the seams between the
    dice. Otherwise k-means on the pixel positions, started from k slices along the body's long axis,
    splits the body (straight cuts).
    """
    depth = _depth(body)
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
    start = np.minimum((np.argsort(np.argsort(along)) * k) // len(along), k - 1).astype(np.int32).reshape(-1, 1)
    _, labels, _ = cv2.kmeans(points, k, start, criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
    out[ys, xs] = labels.ravel()
    return out


def edge_single(edge: float, blob: Blob) -> float:
    """A die's edge when ``edge`` is the root of a body's area: the body's short side when it is smaller."""
    return min(edge, min(blob.rect[1]))


def _pixel(points: np.ndarray, origin: tuple[int, int], shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of frame points in a patch at ``origin`` (clipped to the patch)."""
    at = np.rint(np.asarray(points, float).reshape(-1, 2) - origin).astype(np.intp)
    rows = np.minimum(np.maximum(at[:, 1], 0), shape[0] - 1)
    return rows, np.minimum(np.maximum(at[:, 0], 0), shape[1] - 1)


def _owners(pips: Pips, origin: tuple[int, int], labels_img: np.ndarray) -> np.ndarray:
    """Part label (-1 for none) at each pip's centre."""
    at = np.round(pips.centres - np.asarray(origin, float)).astype(int)
    at[:, 0] = np.clip(at[:, 0], 0, labels_img.shape[1] - 1)
    at[:, 1] = np.clip(at[:, 1], 0, labels_img.shape[0] - 1)
    return labels_img[at[:, 1], at[:, 0]]


def _tilted(fit: FaceFit | None, found: Pips, pips: Pips, cfg: DiceReaderConfig, square_body: bool = False) -> str:
    """Why the die looks tilted ('' when not): a foreshortened pip grid, or pips of a wide side face.

    A flat die seen from above shows its side faces as thin strips whose pips are slivers; a die
    leaning on an edge shows a side face a third to a half of its edge wide, with pips squashed
    to about half their width. Only applied for a camera above the table (``max_side_ratio`` < 0.25).
    """
    if fit is not None and fit.face >= 4 and fit.squareness < cfg.min_squareness:
        return f"pip grid foreshortened to {fit.squareness:.2f}: the up face is tilted"
    if cfg.max_side_ratio >= 0.25 or len(pips) == 0 or len(found) == 0:
        return ""
    if fit is not None and len(pips) >= 2 and _mid(pips.elongation) < cfg.min_squareness - 0.12:
        return f"pips of the up face squashed to {_mid(pips.elongation):.2f}: the up face is tilted"
    if square_body:  # the side face of a flat die (the body of one die, square): its pips are squashed alike
        return ""
    reference = _mid(pips.areas)
    squashed = ((found.elongation < 0.5) & (found.elongation >= 0.2) & (found.areas >= 0.3 * reference)
                & (found.areas <= 1.2 * reference))
    if int(squashed.sum()) >= 2:
        return f"{int(squashed.sum())} squashed pips of a wide side face"
    return ""


def _side_face(found: Pips, pip_area: float) -> str:
    """Pips squashed to a third to a half of their width, of pip size: the wide side face of a leaning die.

    A flat die seen from above shows side faces a few pixels wide, whose pips are slivers; only a
    die resting on an edge (or against another die) shows a side face with pips like these.
    """
    if len(found) < 2:
        return ""
    squashed = ((found.elongation >= 0.22) & (found.elongation < 0.55) & (found.areas >= 0.2 * pip_area)
                & (found.areas <= 1.3 * pip_area))
    if int(squashed.sum()) >= 2:
        angles = found.major_angle[squashed]
        spread = np.abs((angles - angles[0] + 90.0) % 180.0 - 90.0).max()
        if spread <= 25.0:  # all squashed across the same axis: one slanted face
            return f"{int(squashed.sum())} pips squashed alike: a side face seen at a slant (die leaning)"
    return ""


def _smeared(found: Pips, pip_area: float) -> str:
    """Spots drawn out into streaks along one direction: a die moving during the exposure."""
    big = found.areas >= 0.5 * pip_area
    if int(big.sum()) < 1:
        return ""
    streaks = big & (found.elongation < 0.6) & (found.areas >= 1.3 * pip_area) & (found.areas <= 5.0 * pip_area)
    if int(streaks.sum()) >= 2 and int(streaks.sum()) * 2 >= int(big.sum()):
        angles = found.major_angle[streaks]
        spread = np.abs((angles - angles[0] + 90.0) % 180.0 - 90.0).max()
        if spread <= 20.0:
            return f"{int(streaks.sum())} spots drawn into parallel streaks: the die moved"
    return ""


def _reddish_share(patch: np.ndarray, part: np.ndarray) -> float:
    """Share of the pixels of ``part`` (uint8 mask) that are a red die's red (red at least 1.8 times blue and green)."""
    blue, green, red = cv2.split(patch)
    reddish = cv2.compare(red.astype(np.float32), 1.8 * cv2.max(blue, green).astype(np.float32), cv2.CMP_GE)
    return cv2.countNonZero(cv2.bitwise_and(reddish, reddish, mask=part)) / max(cv2.countNonZero(part), 1)


def _red_die_near(region: _Region, edge: float) -> bool:
    """Whether a red die's colour shows within half an edge of the body (a red die washed by glare, not table).

    Red-die pixels: red at least 1.8 times blue and green, at least 120 and 1.5 times the median red
    around; more than 3 % of the neighbourhood.
    """
    if region.frame is None:
        return True
    x, y, w, h = region.blob.bbox
    reach = round(0.5 * edge)
    near = region.frame[max(y - reach, 0):y + h + reach, max(x - reach, 0):x + w + reach]
    blue, green, red = cv2.split(near)
    level = max(120.0, 1.5 * float(np.median(red)))
    die_red = (red.astype(np.float32) >= 1.8 * cv2.max(blue, green).astype(np.float32)) & (red >= level)
    return bool(die_red.mean() > 0.03)


def _stands_out(region: _Region) -> bool:
    """Whether the body's brightest part is a die's, far above the table around it (a lit patch of table is not).

    A moving die is smeared over less than its edge, so its core keeps the die's brightness: the 90th
    percentile of the body (grey, or red for a red die) at least 1.3 times the table's mean around it and
    30 grey levels above it.
    """
    channel = region.patch[..., 2] if region.translucent else cv2.cvtColor(region.patch, cv2.COLOR_BGR2GRAY)
    ring = cv2.subtract(cv2.dilate(region.body, np.ones((7, 7), np.uint8)), region.body)
    if not ring.any():
        return False
    table = cv2.mean(channel, ring)[0]
    top = float(np.percentile(channel[region.body > 0], 90))
    return top >= max(1.3 * table, table + 30.0)


def _sharp_outline(region: _Region) -> float:
    """Share of the body's outline on a sharp edge (>= 20 grey levels per px): a die has one, a glare spot not."""
    grey = cv2.cvtColor(region.patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    strength = cv2.dilate(cv2.magnitude(gx, gy), np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(region.body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return 0.0
    points = np.concatenate(contours).reshape(-1, 2)
    return float((strength[points[:, 1], points[:, 0]] >= 20.0).mean())


def _uneven(pips: Pips) -> str:
    """Pips of one face are painted alike: a spot much fainter than the others is glare or a shadow, not a pip."""
    if len(pips) < 2:
        return ""
    median = _mid(pips.contrast)
    if float(pips.contrast.min()) < 0.8 * median:
        return f"a spot of contrast {float(pips.contrast.min()):.2f} among pips of {median:.2f}: not a pip alike"
    return ""


def _part_problem(fit: FaceFit, pips: Pips, rect: tuple, cfg: DiceReaderConfig) -> str:
    """Why a face read on one part of a split body is not believable ('' when it is)."""
    uneven = _uneven(pips)
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


def _die(fit: FaceFit, pips: Pips, edge: float) -> DieRead:
    residual_term = max(0.0, 1.0 - fit.residual / 0.45)
    contrast_term = float(np.clip((_mid(pips.contrast) - 0.3) / 0.35, 0.0, 1.0))
    confidence = float(np.clip(residual_term * (0.5 + 0.5 * contrast_term), 0.0, 1.0))
    pips_px = tuple((float(x), float(y), float(d) / 2) for (x, y), d in zip(pips.centres, pips.diameters))
    return DieRead(face=fit.face, centre_px=fit.centre, edge_px=float(edge), angle_deg=fit.angle_deg,
                   confidence=confidence, pip_diameters_px=tuple(float(d) for d in pips.diameters), pips_px=pips_px)


def _washed_nodes(region: _Region, read: SquareRead, square: np.ndarray) -> int:
    """How many of the die's nine pip places glare washes (0 when none).

    Glare adds white light: the least of the three channels, smoothed at about a pip's size (so a
    white pip alone barely lifts it), at a pip place stands above the die's own level (median over
    its square) by 0.4 of the way to white. A pip lit so may be hidden (a black pip washed out) or
    faked (white glare on a red die), whether or not the face read is canonical.
    """
    patch = region.patch
    white = cv2.min(cv2.min(patch[..., 0], patch[..., 1]), patch[..., 2]).astype(np.float32)
    smooth = cv2.GaussianBlur(white, (0, 0), max(1.5, 0.1 * read.edge))
    level = float(np.median(white[square > 0])) if square.any() else float(np.median(white))
    at = _pixel(np.asarray(read.nodes, float), region.origin, white.shape)
    return int((smooth[at] >= level + 0.4 * (255.0 - level)).sum())


def _square_die(read: SquareRead, spots: Pips) -> DieRead:
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


def read_dice(image: np.ndarray, config: DiceReaderConfig | None = None) -> DiceRead:
    """Read the dice in one frame (see the module docstring); never raises on a bad scene, only on bad input."""
    return DiceReader(config).read(image)
