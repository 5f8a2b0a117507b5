"""Shared types of the dice reader: its configuration, its reads, and the state of one body being read.

Also the small helpers every stage of the reader uses (medians of a handful of values, frame points
to patch pixels, a body's depth map, a die's square as a mask).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np

from vision.declines import Decline
from vision.dice_pips import FaceFit, Pips
from vision.dice_segment import Blob


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
    camera_height_edges: float | None = None
    """Height of a camera looking straight down over the image centre, in die edges (its height over the
    table in mm over the die's edge in mm): a flat die far from the centre shows a side face up to
    ``r / camera_height_edges`` of its edge wide at ``r`` edges off the centre (:mod:`vision.dice_perspective`),
    which may be more than ``max_side_ratio``. ``None``: ``max_side_ratio`` everywhere."""
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
        if self.camera_height_edges is not None and not self.camera_height_edges > 2.0:
            raise ValueError(f"camera_height_edges must be above 2 die edges or None, got {self.camera_height_edges}")
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
class Verdict:
    """The outcome of analysing one blob: dice read, a decline, or nothing (not a die)."""

    dice: list[DieRead] = field(default_factory=list)
    decline: Decline | None = None
    detail: str = ""


ARENA_LINE_REACH = 5
"""How far (px) from the arena polygon its drawn line's gradients reach (see :meth:`Region.arena_band`)."""


@dataclass
class Region:
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
    """Read as one die with a square body and no problem."""
    frame: np.ndarray | None = None
    """The whole frame (BGR), for looking around the body."""
    arena: tuple[tuple[float, float], ...] | None = None
    """The arena polygon (frame px) when configured: its line is drawn on the table."""
    max_side: float = 0.12
    """Widest side face a flat die shows where the body lies, as a share of its edge
    (:func:`vision.dice_perspective.side_allowance`)."""
    min_fill: float = 0.7
    """Least share of its bounding rectangle a clean die's body fills (see :func:`vision.dice_grouping.cover_verdict`)."""

    @property
    def frame_shape(self) -> tuple[int, ...] | None:
        """The whole frame's shape, ``None`` when the frame is not known."""
        return None if self.frame is None else self.frame.shape

    def table_ring(self) -> np.ndarray:
        """uint8 mask of the table just around the body: 3 px outside its outline (cached per body)."""
        ring = self.cache.get("ring")
        if ring is None:
            ring = self.cache["ring"] = cv2.subtract(cv2.dilate(self.body, np.ones((7, 7), np.uint8)), self.body)
        return ring

    def arena_band(self) -> np.ndarray | None:
        """uint8 mask of the patch within :data:`ARENA_LINE_REACH` px of the arena's line, ``None`` without an arena.

        The arena's line is a dark line about 2 px wide on the table; its gradients (a 3 x 3 Sobel, spread
        over 5 x 5 where edge strength is compared) reach this far from the polygon. Checks that look for
        a die's edges or a smear leave the band out: the line is sharp and straight, but no die's.
        """
        if self.arena is None:
            return None
        band = self.cache.get("arena_band")
        if band is None:  # of the patch, shared by every part and cut of the body
            corners = np.round((np.asarray(self.arena, np.float64) - self.origin) * 16).astype(np.int32)
            band = self.cache["arena_band"] = cv2.polylines(np.zeros(self.body.shape, np.uint8), [corners], True, 1,
                                                            2 * ARENA_LINE_REACH + 1, lineType=cv2.LINE_8, shift=4)
        return band


def mid(values: object) -> float:
    """Median of a short sequence (numpy's median is slow on a handful of values)."""
    ordered = sorted(values.tolist() if isinstance(values, np.ndarray) else values)
    n = len(ordered)
    return float(ordered[n // 2]) if n % 2 else 0.5 * (float(ordered[n // 2 - 1]) + float(ordered[n // 2]))


def xy(point: tuple[float, float]) -> str:
    return f"({point[0]:.0f}, {point[1]:.0f})"


def pixel(points: np.ndarray, origin: tuple[int, int], shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of frame points in a patch at ``origin`` (clipped to the patch)."""
    at = np.rint(np.asarray(points, float).reshape(-1, 2) - origin).astype(np.intp)
    rows = np.minimum(np.maximum(at[:, 1], 0), shape[0] - 1)
    return rows, np.minimum(np.maximum(at[:, 0], 0), shape[1] - 1)


def median_pip_area(pips: Pips) -> float:
    return mid(pips.areas) if len(pips) else 0.0


def depth_map(mask: np.ndarray) -> np.ndarray:
    """Distance (px) of each pixel of a uint8 mask to its outline, the frame's edge counting as outline."""
    padded = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    return cv2.distanceTransform(padded, cv2.DIST_L2, 3)[1:-1, 1:-1]


def square_mask(body: np.ndarray, centre: tuple[float, float], side: float, angle: float) -> np.ndarray:
    """uint8 mask (the shape of ``body``) of a square of ``side`` px at ``centre`` (patch px), turned by ``angle``."""
    corners = cv2.boxPoints((centre, (side, side), angle))
    square = np.zeros_like(body)
    cv2.fillConvexPoly(square, np.round(corners * 16).astype(np.int32), 1, lineType=cv2.LINE_8, shift=4)
    return square
