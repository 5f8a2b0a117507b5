"""A printed ArUco calibration target (GridBoard, DICT_4X4_50) drawn flat on the scene plane.

The target gives every measurement its scale: :mod:`vision.scale` detects the markers and fits
the plane homography image px -> mm from their corners, whose positions on the printed sheet are
known exactly (:func:`target_object_points`).

Geometry of the printed sheet (board frame, mm, x to the right, y down, as OpenCV's GridBoard):

* markers ``markers_x`` x ``markers_y``, each ``marker_mm`` square, ``gap_mm`` apart, ids
  ``first_id, first_id + 1, ...`` row by row from the top-left, corners in ArUco order
  (top-left, top-right, bottom-right, bottom-left);
* the origin of the object points is the top-left corner of the first marker;
* the sheet adds a white quiet zone of :attr:`TargetSpec.quiet_mm` around the markers, so the
  sheet is :attr:`TargetSpec.width_mm` x :attr:`TargetSpec.height_mm`.

:func:`draw_target` anti-aliases the pixels a boundary crosses with 55 point samples on a Fibonacci
lattice, so marker edges sit where the geometry says to a few thousandths of a pixel on average
(the scale's truth depends on it).

Reference artefacts (:func:`draw_disc`, :func:`draw_rounded_square`, :func:`reference_scene`):
flat shapes of exactly known size drawn beside the target through camera nuisance, with their
truth, to check the measuring chain of :mod:`vision.measure` (tests and
``benchmarks/measure_accuracy.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import cv2
import numpy as np

from vision.render.nuisance import Nuisance, apply_nuisance, map_points

ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
DICTIONARY_SIZE = 50
MARKER_CELLS = 6                 # 4 x 4 data bits plus a one-cell black border
PAPER_GREY = 245                 # printed white, before lighting
INK_GREY = 15                    # printed black, before lighting
_LATTICE = 55                    # point samples per pixel on a boundary (Fibonacci lattice, generator 34)
_SUB = np.column_stack([(np.arange(_LATTICE) + 0.5) / _LATTICE,
                        ((np.arange(_LATTICE) * 34) % _LATTICE + 0.5) / _LATTICE]) - 0.5
"""Sample offsets within a pixel (pixel (x, y) covers [x - 0.5, x + 0.5]): distinct in x and in y, so an edge
along either axis is placed to 1/110 px; in other directions the lattice keeps the error of a long edge's
position near 0.003 px rms (0.045 px at worst)."""


@dataclass(frozen=True)
class TargetSpec:
    """A printed ArUco GridBoard from DICT_4X4_50 (sizes in mm)."""

    markers_x: int = 2
    markers_y: int = 2
    marker_mm: float = 20.0
    gap_mm: float = 5.0
    first_id: int = 0

    def __post_init__(self) -> None:
        if self.markers_x < 1 or self.markers_y < 1:
            raise ValueError(f"target needs at least one marker per axis, got {self.markers_x} x {self.markers_y}")
        if not self.marker_mm > 0 or not self.gap_mm >= 0:
            raise ValueError(f"target marker_mm must be > 0 and gap_mm >= 0, got {self.marker_mm}, {self.gap_mm}")
        if self.first_id < 0 or self.first_id + self.markers_x * self.markers_y > DICTIONARY_SIZE:
            raise ValueError(f"target ids {self.first_id}..{self.first_id + self.markers_x * self.markers_y - 1} "
                             f"do not fit DICT_4X4_50 (ids 0..{DICTIONARY_SIZE - 1})")

    @property
    def ids(self) -> tuple[int, ...]:
        """Marker ids, row by row from the top-left."""
        return tuple(range(self.first_id, self.first_id + self.markers_x * self.markers_y))

    @property
    def quiet_mm(self) -> float:
        """White margin around the markers: the larger of the gap and 1.5 marker cells."""
        return max(self.gap_mm, 1.5 * self.marker_mm / MARKER_CELLS)

    @property
    def board_width_mm(self) -> float:
        """Extent of the markers alone along x."""
        return self.markers_x * self.marker_mm + (self.markers_x - 1) * self.gap_mm

    @property
    def board_height_mm(self) -> float:
        """Extent of the markers alone along y."""
        return self.markers_y * self.marker_mm + (self.markers_y - 1) * self.gap_mm

    @property
    def width_mm(self) -> float:
        """Width of the printed sheet, quiet zone included: the footprint a scene must leave free."""
        return self.board_width_mm + 2 * self.quiet_mm

    @property
    def height_mm(self) -> float:
        """Height of the printed sheet, quiet zone included."""
        return self.board_height_mm + 2 * self.quiet_mm


def aruco_dictionary() -> cv2.aruco.Dictionary:
    """The dictionary every target is printed from (DICT_4X4_50)."""
    return cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)


@lru_cache(maxsize=64)
def _marker_cells(marker_id: int) -> np.ndarray:
    """(6, 6) bool, True where the marker is black (border included)."""
    bits = cv2.aruco.generateImageMarker(aruco_dictionary(), marker_id, MARKER_CELLS, borderBits=1)
    return bits == 0


def target_object_points(spec: TargetSpec) -> dict[int, np.ndarray]:
    """True corners of each marker on the printed sheet, ``{marker_id: (4, 2) mm}``.

    Origin at the first marker's top-left corner, x right, y down; corners in ArUco order
    (TL, TR, BR, BL). Identical to ``cv2.aruco.GridBoard(...).getObjPoints()``.
    """
    pitch = spec.marker_mm + spec.gap_mm
    unit = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]) * spec.marker_mm
    points: dict[int, np.ndarray] = {}
    for k, marker_id in enumerate(spec.ids):
        row, col = divmod(k, spec.markers_x)
        points[marker_id] = unit + np.array([col * pitch, row * pitch])
    return points


def sheet_to_world(spec: TargetSpec, top_left_px: tuple[float, float], px_per_mm: float,
                   angle_deg: float = 0.0) -> np.ndarray:
    """2x3 affine map from board mm (object-point frame) to world px for a sheet placed by :func:`draw_target`.

    ``top_left_px`` is the sheet's top-left corner (quiet zone included) before rotation; the sheet
    turns by ``angle_deg`` (counter-clockwise on screen) about its own centre.
    """
    if not px_per_mm > 0:
        raise ValueError(f"px_per_mm must be > 0, got {px_per_mm}")
    theta = np.deg2rad(angle_deg)
    c, s = np.cos(theta), np.sin(theta)
    # image y points down, so a counter-clockwise turn on screen is [[c, s], [-s, c]]
    rot = np.array([[c, s], [-s, c]]) * px_per_mm
    centre_mm = np.array([spec.board_width_mm / 2, spec.board_height_mm / 2])
    centre_px = np.asarray(top_left_px, dtype=float) + px_per_mm * np.array([spec.width_mm / 2, spec.height_mm / 2])
    offset = centre_px - rot @ centre_mm
    return np.hstack([rot, offset[:, None]])


def sheet_corners_px(spec: TargetSpec, top_left_px: tuple[float, float], px_per_mm: float,
                     angle_deg: float = 0.0) -> np.ndarray:
    """(4, 2) world px of the printed sheet's corners (quiet zone included), TL, TR, BR, BL."""
    q = spec.quiet_mm
    sheet = np.array([[-q, -q], [spec.board_width_mm + q, -q],
                      [spec.board_width_mm + q, spec.board_height_mm + q], [-q, spec.board_height_mm + q]])
    affine = sheet_to_world(spec, top_left_px, px_per_mm, angle_deg)
    return sheet @ affine[:, :2].T + affine[:, 2]


def draw_target(world: np.ndarray, spec: TargetSpec, top_left_px: tuple[float, float], px_per_mm: float,
                angle_deg: float = 0.0) -> np.ndarray:
    """Draw the printed target (white sheet with black markers) into ``world`` in place.

    ``world`` is a uint8 BGR (H, W, 3) or grey (H, W) image. ``top_left_px`` is the sheet's top-left
    corner with its quiet zone, before rotation; ``angle_deg`` turns the sheet counter-clockwise
    about its centre. Parts of the sheet outside the image are clipped. Returns the true marker
    corners, shape (N_markers, 4, 2), world px, in id order (``spec.ids``) and ArUco corner order.
    """
    if world.dtype != np.uint8 or world.ndim not in (2, 3) or (world.ndim == 3 and world.shape[2] != 3):
        raise ValueError(f"world must be a uint8 grey or BGR image, got dtype {world.dtype} shape {world.shape}")
    affine = sheet_to_world(spec, top_left_px, px_per_mm, angle_deg)
    objects = target_object_points(spec)
    corners = np.stack([objects[i] @ affine[:, :2].T + affine[:, 2] for i in spec.ids])

    height, width = world.shape[:2]
    sheet = sheet_corners_px(spec, top_left_px, px_per_mm, angle_deg)
    x0, y0 = np.maximum(np.floor(sheet.min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(sheet.max(axis=0)).astype(int) + 3, [width, height])
    if x0 >= x1 or y0 >= y1:
        return corners
    coverage, ink = _coverage(spec, affine, int(x0), int(y0), int(x1), int(y1))
    paint = PAPER_GREY * (coverage - ink) + INK_GREY * ink             # colour the sheet contributes
    patch = world[y0:y1, x0:x1].astype(np.float32)
    if patch.ndim == 3:
        coverage, paint = coverage[..., None], paint[..., None]
    world[y0:y1, x0:x1] = np.clip(patch * (1 - coverage) + paint, 0, 255).round().astype(np.uint8)
    return corners


def _axis_boundaries(count: int, marker_mm: float, gap_mm: float, quiet_mm: float) -> np.ndarray:
    """Every position along one board axis (mm) where the label may change: sheet edges and cell edges."""
    pitch = marker_mm + gap_mm
    cells = np.arange(MARKER_CELLS + 1) * marker_mm / MARKER_CELLS
    inner = (np.arange(count)[:, None] * pitch + cells[None, :]).ravel()
    extent = count * marker_mm + (count - 1) * gap_mm
    return np.unique(np.concatenate([[-quiet_mm, extent + quiet_mm], inner]))


@lru_cache(maxsize=32)
def _interval_table(spec: TargetSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boundaries along u and v (mm) and the label (0 off the sheet, 1 paper, 2 ink) of every interval pair."""
    bu = _axis_boundaries(spec.markers_x, spec.marker_mm, spec.gap_mm, spec.quiet_mm)
    bv = _axis_boundaries(spec.markers_y, spec.marker_mm, spec.gap_mm, spec.quiet_mm)

    def mids(b: np.ndarray) -> np.ndarray:  # one point inside each interval, outer intervals included
        return np.concatenate([[b[0] - 1.0], (b[:-1] + b[1:]) / 2, [b[-1] + 1.0]])

    u, v = np.meshgrid(mids(bu), mids(bv))
    q = spec.quiet_mm
    on_sheet = (u >= -q) & (u < spec.board_width_mm + q) & (v >= -q) & (v < spec.board_height_mm + q)
    pitch = spec.marker_mm + spec.gap_mm
    col, row = np.floor(u / pitch).astype(int), np.floor(v / pitch).astype(int)
    lu, lv = u - col * pitch, v - row * pitch
    in_marker = ((col >= 0) & (col < spec.markers_x) & (row >= 0) & (row < spec.markers_y)
                 & (lu < spec.marker_mm) & (lv < spec.marker_mm))
    cell = spec.marker_mm / MARKER_CELLS
    cu = np.clip((lu / cell).astype(int), 0, MARKER_CELLS - 1)
    cv_ = np.clip((lv / cell).astype(int), 0, MARKER_CELLS - 1)
    cells = np.stack([_marker_cells(i) for i in spec.ids])            # (N, 6, 6)
    index = np.clip(row, 0, spec.markers_y - 1) * spec.markers_x + np.clip(col, 0, spec.markers_x - 1)
    black = in_marker & cells[index, cv_, cu]
    return bu, bv, (on_sheet.astype(np.uint8) + black.astype(np.uint8))


def _labels(spec: TargetSpec, inverse: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Label of world points (0 off the sheet, 1 paper, 2 ink); ``inverse`` maps world px -> board mm.

    Exact: each coordinate is placed between the board's boundaries by binary search.
    """
    bu, bv, table = _interval_table(spec)
    u = inverse[0, 0] * xs + inverse[0, 1] * ys + inverse[0, 2]
    v = inverse[1, 0] * xs + inverse[1, 1] * ys + inverse[1, 2]
    return table[np.searchsorted(bv, v, side="right"), np.searchsorted(bu, u, side="right")]


@lru_cache(maxsize=8)
def _label_bitmap(spec: TargetSpec, per_mm: int) -> tuple[np.ndarray, float]:
    """Labels of the sheet sampled at ``per_mm`` points per mm (cached), and the sheet's origin offset (mm)."""
    q = spec.quiet_mm
    size = (int(np.ceil((spec.width_mm + 2) * per_mm)), int(np.ceil((spec.height_mm + 2) * per_mm)))
    origin = -q - 1.0
    u, v = np.meshgrid(origin + (np.arange(size[0]) + 0.5) / per_mm, origin + (np.arange(size[1]) + 0.5) / per_mm)
    identity = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    return _labels(spec, identity, u, v), origin


def _coverage(spec: TargetSpec, affine: np.ndarray, x0: int, y0: int, x1: int, y1: int
              ) -> tuple[np.ndarray, np.ndarray]:
    """Share of each pixel of the window covered by the sheet and by ink.

    Pixel-centre labels come from a cached bitmap of the sheet (error <= 0.25 px). A pixel whose
    label equals its 8 neighbours' is uniform: a boundary crossing a pixel, or a label wrong by
    less than half a pixel, makes it differ from a neighbour. Only the others are point-sampled
    S x S times, exactly.
    """
    px_per_mm = float(np.hypot(affine[0, 0], affine[1, 0]))
    per_mm = max(4, int(np.ceil(2 * px_per_mm)))
    bitmap, origin = _label_bitmap(spec, per_mm)
    # world px -> bitmap px: bitmap index = (mm - origin) * per_mm - 0.5
    to_bitmap = np.vstack([affine, [0.0, 0.0, 1.0]])
    to_bitmap = np.array([[per_mm, 0.0, -origin * per_mm - 0.5], [0.0, per_mm, -origin * per_mm - 0.5]]) @ np.linalg.inv(
        to_bitmap) @ np.array([[1.0, 0.0, x0 - 1], [0.0, 1.0, y0 - 1], [0.0, 0.0, 1.0]])
    # one pixel of margin so that pixels on the window's edge see all their neighbours
    padded = cv2.warpAffine(bitmap, to_bitmap, (x1 - x0 + 2, y1 - y0 + 2),
                            flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_CONSTANT,
                            borderValue=0)
    kernel = np.ones((3, 3), np.uint8)
    mixed = (cv2.dilate(padded, kernel) != cv2.erode(padded, kernel))[1:-1, 1:-1]
    label = padded[1:-1, 1:-1]
    coverage = (label >= 1).astype(np.float32)
    ink = (label == 2).astype(np.float32)
    rows, cols = np.nonzero(mixed)
    if rows.size:
        inverse = cv2.invertAffineTransform(affine)
        sx = (cols + x0)[:, None] + _SUB[None, :, 0]
        sy = (rows + y0)[:, None] + _SUB[None, :, 1]
        fine = _labels(spec, inverse, sx, sy)
        coverage[rows, cols] = (fine >= 1).mean(axis=1)
        ink[rows, cols] = (fine == 2).mean(axis=1)
    return coverage, ink


# --------------------------------------------------------------------------- reference artefacts
# Flat shapes of exactly known size drawn beside the target, to check the measuring chain
# (vision.measure) against truth: a die top face with pips, a ball's outline, a wheel's rim.


def _paint_signed(world: np.ndarray, bbox: tuple[int, int, int, int], signed: Callable[[np.ndarray, np.ndarray],
                  np.ndarray], bgr: tuple[int, int, int]) -> None:
    """Blend ``bgr`` over the pixels inside ``signed < 0`` (a signed distance in px), anti-aliased exactly.

    Pixels farther than 0.75 px from the outline are wholly in or out; the others are point-sampled
    S x S times.
    """
    height, width = world.shape[:2]
    x0, y0 = max(bbox[0], 0), max(bbox[1], 0)
    x1, y1 = min(bbox[2], width), min(bbox[3], height)
    if x0 >= x1 or y0 >= y1:
        return
    gx, gy = np.meshgrid(np.arange(x0, x1, dtype=np.float64), np.arange(y0, y1, dtype=np.float64))
    dist = signed(gx, gy)
    cover = (dist < 0).astype(np.float32)
    rows, cols = np.nonzero(np.abs(dist) < 0.75)
    if rows.size:
        sx = (cols + x0)[:, None] + _SUB[None, :, 0]
        sy = (rows + y0)[:, None] + _SUB[None, :, 1]
        cover[rows, cols] = (signed(sx, sy) < 0).mean(axis=1)
    patch = world[y0:y1, x0:x1].astype(np.float32)
    colour = np.asarray(bgr, dtype=np.float32) if patch.ndim == 3 else np.float32(np.mean(bgr))
    if patch.ndim == 3:
        cover = cover[..., None]
    world[y0:y1, x0:x1] = np.clip(patch * (1 - cover) + colour * cover, 0, 255).round().astype(np.uint8)


def draw_disc(world: np.ndarray, centre_px: tuple[float, float], radius_px: float, bgr: tuple[int, int, int]) -> None:
    """Draw a filled disc in place, anti-aliased exactly (edge at ``radius_px`` from ``centre_px``)."""
    cx, cy = centre_px
    reach = radius_px + 2

    def signed(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.hypot(x - cx, y - cy) - radius_px

    _paint_signed(world, (int(cx - reach), int(cy - reach), int(cx + reach) + 1, int(cy + reach) + 1), signed, bgr)


def draw_rounded_square(world: np.ndarray, centre_px: tuple[float, float], side_px: float, angle_deg: float,
                        corner_radius_px: float, bgr: tuple[int, int, int]) -> np.ndarray:
    """Draw a filled square (rounded corners) in place, anti-aliased exactly; returns its sharp corners (4, 2) px.

    ``angle_deg`` turns it counter-clockwise on screen; corners are returned in order around the square.
    """
    cx, cy = centre_px
    half = side_px / 2.0
    radius = float(np.clip(corner_radius_px, 0.0, half))
    theta = np.deg2rad(angle_deg)
    c, s = np.cos(theta), np.sin(theta)

    def signed(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        dx, dy = x - cx, y - cy
        u, v = np.abs(c * dx - s * dy), np.abs(s * dx + c * dy)       # square frame (screen ccw turn undone)
        qu, qv = u - (half - radius), v - (half - radius)
        return np.hypot(np.maximum(qu, 0), np.maximum(qv, 0)) + np.minimum(np.maximum(qu, qv), 0) - radius

    reach = half * np.sqrt(2) + 2
    _paint_signed(world, (int(cx - reach), int(cy - reach), int(cx + reach) + 1, int(cy + reach) + 1), signed, bgr)
    unit = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]) * half
    rot = np.array([[c, s], [-s, c]])
    return unit @ rot.T + np.array([cx, cy])


PIP_GRID = {1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
            4: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
            6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1))}
"""Pip centres of each face on the 3 x 3 grid (units of the pip spacing)."""

FELTS = ((40, 110, 30), (30, 60, 20), (90, 60, 20), (150, 166, 164))
"""Table colours (BGR) of the reference scenes: green felts, blue felt, light wood."""


@dataclass(frozen=True)
class ReferenceTruth:
    """Truth of a reference scene: scale, target, and the artefact's true size and approximate image outline.

    ``kind`` is ``"die"`` (``size_mm`` = edge, ``outline_px`` = the top face's corners (4, 2),
    ``pips_px`` = (cx, cy, r) per pip, ``pip_diameters_mm``), ``"ball"`` (``size_mm`` = diameter,
    ``outline_px`` = (cx, cy, r)) or ``"wheel"`` (``size_mm`` = diameter, ``outline_px`` = the rim
    ellipse ((cx, cy), (w, h), angle) as ``cv2.fitEllipse`` gives it). Image positions are exact
    projections of the world geometry through ``homography`` (world -> image).
    """

    kind: str
    px_per_mm: float
    size_mm: float
    spec: TargetSpec
    target_corners_px: np.ndarray = field(repr=False)
    homography: np.ndarray = field(repr=False)
    outline_px: Any = field(repr=False)
    pips_px: tuple[tuple[float, float, float], ...] = field(default=(), repr=False)
    pip_diameters_mm: tuple[float, ...] = ()


def _local_scale(homography: np.ndarray, point: np.ndarray) -> float:
    """Image px per world px of a homography at a world point (geometric mean of the axes)."""
    offsets = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]) + point
    mapped = cv2.perspectiveTransform(offsets.reshape(-1, 1, 2), homography).reshape(-1, 2)
    jac = np.column_stack([mapped[1] - mapped[0], mapped[2] - mapped[0]])
    return float(np.sqrt(abs(np.linalg.det(jac))))


def reference_scene(rng: np.random.Generator, kind: str, nuisance: Nuisance | None = None, *, size_mm: float | None = None,
                    px_per_mm: float | None = None, pip_error_mm: float = 0.0, die_bgr: tuple[int, int, int] | None = None,
                    spec: TargetSpec | None = None, felt_bgr: tuple[int, int, int] | None = None,
                    size: tuple[int, int] = (640, 480)) -> tuple[np.ndarray, ReferenceTruth]:
    """A table with a calibration target and one artefact of known size, through camera nuisance.

    ``kind``: ``"die"`` (a die's top face, rounded corners, pips; ``pip_error_mm`` enlarges one pip),
    ``"ball"`` (a ball's outline) or ``"wheel"`` (a wheel's rim with its inner track, at wheel scale,
    with a large target). Unset sizes and scale are drawn from ``rng``: die edge 10-22 mm, ball
    16-26 mm at 3.5-8 px/mm; wheel 460-640 mm at 0.52-0.6 px/mm. ``nuisance`` is a
    :class:`vision.render.nuisance.Nuisance` (``None``: a perfect camera).
    """
    if kind not in ("die", "ball", "wheel"):
        raise ValueError(f"reference scene kind must be 'die', 'ball' or 'wheel', got {kind!r}")
    width, height = size
    world = np.empty((height, width, 3), np.uint8)
    world[:] = felt_bgr if felt_bgr is not None else FELTS[int(rng.integers(len(FELTS)))]
    if kind == "wheel":
        ppm = px_per_mm if px_per_mm is not None else float(rng.uniform(0.52, 0.6))
        spec = spec if spec is not None else TargetSpec(markers_x=1, markers_y=3, marker_mm=80.0, gap_mm=20.0)
        size_mm = size_mm if size_mm is not None else float(rng.uniform(460.0, 640.0))
    else:
        ppm = px_per_mm if px_per_mm is not None else float(rng.uniform(3.5, 8.0))
        if spec is None:
            spec = TargetSpec(marker_mm=20.0, gap_mm=5.0) if ppm < 5.0 else TargetSpec(marker_mm=12.0, gap_mm=3.0)
        if size_mm is None:
            size_mm = float(rng.uniform(10.0, 22.0) if kind == "die" else rng.uniform(16.0, 26.0))
    sheet_w, sheet_h = spec.width_mm * ppm, spec.height_mm * ppm
    margin = 0.09 * width
    top_left = (float(rng.uniform(margin * 0.5, margin)),
                float(rng.uniform(margin * 0.5, max(margin * 0.5, height - margin - sheet_h))))
    corners = draw_target(world, spec, top_left, ppm, float(rng.uniform(-8, 8)))
    free_x0 = top_left[0] + sheet_w * 1.1 + 10
    object_px = size_mm * ppm
    low_x, low_y = free_x0 + object_px * 0.72, margin + object_px * 0.72
    centre = np.array([rng.uniform(low_x, max(low_x, width - margin * 0.6 - object_px * 0.72)),
                       rng.uniform(low_y, max(low_y, height - margin - object_px * 0.72))])
    pips_world: list[tuple[float, float, float]] = []
    pip_diameters: list[float] = []
    if kind == "die":
        angle = float(rng.uniform(0, 90))
        body = die_bgr if die_bgr is not None else ((222, 228, 232), (40, 40, 190))[int(rng.integers(2))]
        outline_world = draw_rounded_square(world, tuple(centre), object_px, angle,
                                            float(rng.uniform(0.0, 0.2)) * object_px, body)
        face = int(rng.integers(1, 7))
        spacing, pip_d = 0.28 * size_mm, 0.16 * size_mm
        theta = np.deg2rad(angle)
        rot = np.array([[np.cos(theta), np.sin(theta)], [-np.sin(theta), np.cos(theta)]])
        odd = int(rng.integers(len(PIP_GRID[face])))
        pip_bgr = (25, 25, 25) if body[0] > 100 else (235, 235, 235)
        for n, (gx, gy) in enumerate(PIP_GRID[face]):
            d = pip_d + (pip_error_mm if n == odd else 0.0)
            at = centre + rot @ np.array([gx, gy]) * spacing * ppm
            draw_disc(world, tuple(at), d * ppm / 2, pip_bgr)
            pips_world.append((float(at[0]), float(at[1]), d * ppm / 2))
            pip_diameters.append(d)
    elif kind == "ball":
        draw_disc(world, tuple(centre), object_px / 2, (236, 238, 240))
    else:
        centre = np.array([width - margin - object_px / 2 - rng.uniform(0, 10), height / 2 + rng.uniform(-10, 10)])
        draw_disc(world, tuple(centre), object_px / 2, (30, 55, 95))            # wooden bowl
        draw_disc(world, tuple(centre), object_px * 0.36, (140, 150, 160))      # ball track
        draw_disc(world, tuple(centre), object_px * 0.22, (30, 30, 140))        # pocket ring
    nuisance = nuisance if nuisance is not None else Nuisance.none()
    image, homography = apply_nuisance(world, nuisance, rng)
    target_img = map_points(homography, corners.reshape(-1, 2)).reshape(corners.shape)
    local = _local_scale(homography, centre)
    if kind == "die":
        outline: Any = map_points(homography, outline_world)
        pips = tuple((float(p[0]), float(p[1]), r * _local_scale(homography, np.array(c)))
                     for (*c, r), p in zip(pips_world, map_points(homography, np.array([q[:2] for q in pips_world])),
                                           strict=True))
    elif kind == "ball":
        at = map_points(homography, centre[None])[0]
        outline, pips = (float(at[0]), float(at[1]), object_px / 2 * local), ()
    else:
        phi = np.linspace(0, 2 * np.pi, 72, endpoint=False)
        rim = centre + object_px / 2 * np.column_stack([np.cos(phi), np.sin(phi)])
        outline, pips = cv2.fitEllipse(map_points(homography, rim).astype(np.float32)), ()
    return image, ReferenceTruth(kind=kind, px_per_mm=ppm, size_mm=float(size_mm), spec=spec,
                                 target_corners_px=target_img, homography=homography, outline_px=outline,
                                 pips_px=pips, pip_diameters_mm=tuple(pip_diameters))
