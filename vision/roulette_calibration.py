"""Roulette wheel calibration: where the wheel is in the camera image and where its rings are.

A calibration maps image px to the *normalised wheel plane*: the wheel seen straight from
above, its centre at the origin, x to the right and y down as in the image, the outer edge of
the ball track (the foot of the bowl wall) at radius 1. Angles on that plane are measured
clockwise as seen from above (from +x towards +y). The rotor turns, so the calibration keeps
the geometry (homography and ring radii), never the rotor angle: readers find that per frame.

Two methods:

* ``"aruco"``: four ArUco markers (DICT_4X4_50) fixed on the wheel's surround at known places
  (:class:`MarkerSurround`) give the plane homography (least squares over their corners,
  sub-pixel refined) and the scale in mm; the centre and radius of the ball track are then
  fitted on the metric plane, and the homography refined as below when that fit is good
  (corners of small, blurred markers are only good to a pixel or two: a degree at the pockets).
* ``"ellipse"``: no markers. A coarse ellipse from the coloured number ring, then a joint
  least-squares fit of a full homography (perspective included, so the wheel's angles are
  true, not the few degrees off an affine ellipse-to-circle map would leave) to three facts of
  the wheel's geometry: both edges of the ball track are concentric circles and the 37 frets
  are equally spaced radial lines (p217-2007/roleta-francesa/5: "uniformemente separados").

The ring radii (ball track, number ring, pocket ring) are then measured on the polar unwrap of
the normalised plane: the coloured band is where red pockets are; inside it the pocket ring is
where the frets' 37-fold pattern is in phase with the pocket boundaries, the number ring where
it is in phase with the pocket centres (the printed numbers).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from scipy.ndimage import uniform_filter1d
from scipy.optimize import least_squares

from bench.games.roulette_layout import order_for
from vision.frame import check_image

CALIBRATION_VERSION = 1
POCKETS = 37
MAX_REFINED_RESIDUAL_PX = 0.6   # a wheel with 37 even frets fits to ~0.1-0.3 px
Method = Literal["aruco", "ellipse"]


@dataclass(frozen=True)
class MarkerSurround:
    """ArUco markers (DICT_4X4_50) fixed on the wheel's surround, at known places around the wheel centre.

    Wheel-plane frame: mm, origin at the wheel centre, x to the right and y down as seen from
    above; angles are measured clockwise seen from above (from +x towards +y). Each marker is a
    square of ``size_mm`` with sides parallel to the axes, its centre ``radius_mm`` from the wheel
    centre at ``angles_deg``; corners in ArUco order (top-left, top-right, bottom-right, bottom-left).
    """

    ids: tuple[int, ...] = (10, 11, 12, 13)
    angles_deg: tuple[float, ...] = (45.0, 135.0, 225.0, 315.0)
    radius_mm: float = 340.0
    size_mm: float = 36.0

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.angles_deg) or len(self.ids) < 4:
            raise ValueError(f"surround needs >= 4 markers with one angle each, got ids {self.ids} "
                             f"and angles {self.angles_deg}")
        if not 0 < self.size_mm < self.radius_mm:
            raise ValueError(f"surround marker size {self.size_mm} mm must be within 0..radius {self.radius_mm} mm")

    def centres_mm(self) -> np.ndarray:
        """(N, 2) marker centres, wheel-plane mm."""
        angles = np.radians(np.asarray(self.angles_deg, dtype=float))
        return self.radius_mm * np.stack([np.cos(angles), np.sin(angles)], axis=1)

    def corners_mm(self) -> dict[int, np.ndarray]:
        """``{marker_id: (4, 2) corners in wheel-plane mm}`` in ArUco corner order."""
        half = self.size_mm / 2.0
        unit = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        return {marker_id: centre + unit for marker_id, centre in zip(self.ids, self.centres_mm(), strict=True)}


SURROUND = MarkerSurround()


# --------------------------------------------------------------------------------------------- the record


@dataclass(frozen=True)
class WheelCalibration:
    """Geometry of one wheel under one fixed camera (JSON round trip with a version field).

    ``homography`` maps image px to the normalised wheel plane (ball track's outer edge = 1).
    Radii are on that plane. ``fit_residual_px`` is the RMS of the fit in image px: marker
    corner reprojection (aruco) or distance of edge and fret points to the fitted model (ellipse).
    ``track_outer_mm`` is the physical radius of the ball track's outer edge when markers give
    the scale, else ``None``.
    """

    homography: tuple[tuple[float, float, float], ...]
    image_size: tuple[int, int]
    layout: str
    method: str
    fit_residual_px: float
    track_inner: float
    number_outer: float
    number_inner: float
    pocket_inner: float
    track_outer: float = 1.0
    pocket_count: int = POCKETS
    track_outer_mm: float | None = None
    version: int = CALIBRATION_VERSION
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        order_for(self.layout)
        h = np.asarray(self.homography, dtype=float)
        if h.shape != (3, 3) or not np.all(np.isfinite(h)) or abs(np.linalg.det(h)) < 1e-15:
            raise ValueError("homography must be a finite, invertible 3x3 matrix")
        if self.method not in ("aruco", "ellipse"):
            raise ValueError(f"method must be 'aruco' or 'ellipse', got {self.method!r}")
        if self.pocket_count != POCKETS:
            raise ValueError(f"pocket_count must be {POCKETS} (p217-2007/roleta-francesa/5), got {self.pocket_count}")
        if not 0 < self.pocket_inner < self.number_inner < self.number_outer < self.track_inner < self.track_outer:
            raise ValueError("ring radii must increase: pocket_inner < number_inner < number_outer < track_inner "
                             f"< track_outer, got {self.pocket_inner}, {self.number_inner}, {self.number_outer}, "
                             f"{self.track_inner}, {self.track_outer}")
        if len(self.image_size) != 2 or min(self.image_size) < 16:
            raise ValueError(f"image_size must be (width, height) >= 16 px, got {self.image_size}")

    @property
    def H(self) -> np.ndarray:
        """Image px -> normalised plane, 3x3 float64."""
        return np.asarray(self.homography, dtype=np.float64)

    @property
    def H_inv(self) -> np.ndarray:
        """Normalised plane -> image px."""
        return np.linalg.inv(self.H)

    @property
    def centre_px(self) -> tuple[float, float]:
        """Image of the wheel centre."""
        p = self.H_inv @ np.array([0.0, 0.0, 1.0])
        return float(p[0] / p[2]), float(p[1] / p[2])

    @property
    def pocket_outer(self) -> float:
        """Outer edge of the pocket ring (the number ring's inner edge)."""
        return self.number_inner

    def px_per_unit(self) -> float:
        """Mean image px per normalised unit around the pocket ring (for converting sizes)."""
        t = np.linspace(0, 2 * np.pi, 72, endpoint=False)
        r = (self.pocket_inner + self.number_inner) / 2
        ring = _to_image(self.H_inv, r * np.stack([np.cos(t), np.sin(t)], axis=1))
        return float(np.linalg.norm(np.diff(np.vstack([ring, ring[:1]]), axis=0), axis=1).sum() / (2 * np.pi * r))

    def to_json(self) -> str:
        data = asdict(self)
        data["homography"] = [list(map(float, row)) for row in self.homography]
        data["image_size"] = list(self.image_size)
        data["notes"] = list(self.notes)
        return json.dumps(data, indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str, *, source: str = "wheel calibration") -> WheelCalibration:
        """Parse :meth:`to_json` output; ValueError names ``source`` and the field at fault."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"{source}: not valid JSON ({error.msg} at line {error.lineno})") from None
        if not isinstance(data, dict):
            raise ValueError(f"{source}: expected a JSON object, got {type(data).__name__}")  # noqa: TRY004
        version = data.get("version")
        if version != CALIBRATION_VERSION:
            raise ValueError(f"{source}: field 'version' must be {CALIBRATION_VERSION}, got {version!r}")
        required = ("homography", "image_size", "layout", "method", "fit_residual_px", "track_inner",
                    "number_outer", "number_inner", "pocket_inner")
        for name in required:
            if name not in data:
                raise ValueError(f"{source}: field {name!r} is missing")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"{source}: unknown field(s) {unknown}")
        h = data["homography"]
        if (not isinstance(h, list) or len(h) != 3
                or not all(isinstance(row, list) and len(row) == 3 for row in h)
                or not all(isinstance(v, int | float) and not isinstance(v, bool) for row in h for v in row)):
            raise ValueError(f"{source}: field 'homography' must be a 3x3 list of numbers")
        size = data["image_size"]
        if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) for v in size)):
            raise ValueError(f"{source}: field 'image_size' must be [width, height] integers")
        for name in ("fit_residual_px", "track_inner", "number_outer", "number_inner", "pocket_inner", "track_outer"):
            value = data.get(name, 1.0)
            if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
                raise ValueError(f"{source}: field {name!r} must be a finite number, got {value!r}")
        for name in ("layout", "method"):
            if not isinstance(data[name], str):
                raise ValueError(f"{source}: field {name!r} must be a string")  # noqa: TRY004
        mm = data.get("track_outer_mm")
        if mm is not None and (not isinstance(mm, int | float) or isinstance(mm, bool) or not mm > 0):
            raise ValueError(f"{source}: field 'track_outer_mm' must be a positive number or null, got {mm!r}")
        data["homography"] = tuple(tuple(float(v) for v in row) for row in h)
        data["image_size"] = (int(size[0]), int(size[1]))
        data["notes"] = tuple(str(n) for n in data.get("notes", ()))
        try:
            return cls(**data)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{source}: {error}") from None

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> WheelCalibration:
        """Read a calibration file; ValueError names the file and the field at fault."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise ValueError(f"wheel calibration {path}: cannot read ({error.strerror})") from None
        except UnicodeDecodeError:
            raise ValueError(f"wheel calibration {path}: not UTF-8 text") from None
        return cls.from_json(text, source=f"wheel calibration {path}")


# --------------------------------------------------------------------------------------------- polar unwrap


def _to_image(h_inv: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
    if len(pts) == 0:
        return np.zeros((0, 2))
    return cv2.perspectiveTransform(pts, h_inv).reshape(-1, 2)


def _to_plane(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    return _to_image(h, points)


def polar_maps(homography: np.ndarray, radii: np.ndarray, n_angles: int) -> tuple[np.ndarray, np.ndarray]:
    """Remap tables (float32, shape (len(radii), n_angles)) sampling the normalised plane on a polar grid.

    Row ``i`` is radius ``radii[i]``; column ``j`` is angle ``j * 360 / n_angles`` degrees
    (clockwise seen from above). ``homography`` maps image -> plane.
    """
    h_inv = np.linalg.inv(np.asarray(homography, dtype=np.float64))
    theta = np.arange(n_angles) * (2 * np.pi / n_angles)
    r = np.asarray(radii, dtype=np.float64)[:, None]
    x, y = r * np.cos(theta)[None, :], r * np.sin(theta)[None, :]
    w = h_inv[2, 0] * x + h_inv[2, 1] * y + h_inv[2, 2]
    u = (h_inv[0, 0] * x + h_inv[0, 1] * y + h_inv[0, 2]) / w
    v = (h_inv[1, 0] * x + h_inv[1, 1] * y + h_inv[1, 2]) / w
    return u.astype(np.float32), v.astype(np.float32)


def unwrap(image: np.ndarray, homography: np.ndarray, radii: np.ndarray, n_angles: int) -> np.ndarray:
    """Polar unwrap of the normalised plane (see :func:`polar_maps`), bilinear."""
    mx, my = polar_maps(homography, radii, n_angles)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)


# --------------------------------------------------------------------------------------------- markers


def detect_surround(image: np.ndarray, surround: MarkerSurround = SURROUND) -> dict[int, np.ndarray]:
    """Surround markers found in ``image``: ``{id: (4, 2) corners px}`` (sub-pixel refined)."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = detector.detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel(), strict=True):
        if int(i) in surround.ids and int(i) not in found:
            found[int(i)] = c.reshape(4, 2).astype(np.float64)
    return found


def _marker_homography(images: Sequence[np.ndarray], surround: MarkerSurround
                       ) -> tuple[np.ndarray, float] | None:
    """Image -> wheel-plane mm homography from the surround markers, and its RMS reprojection error (px)."""
    known = surround.corners_mm()
    img_pts, mm_pts = [], []
    for image in images:
        for marker_id, corners in detect_surround(image, surround).items():
            img_pts.append(corners)
            mm_pts.append(known[marker_id])
    if len({tuple(np.round(p.mean(axis=0))) for p in mm_pts}) < 3:
        return None
    src = np.vstack(img_pts)
    dst = np.vstack(mm_pts)
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        return None
    back = _to_image(np.linalg.inv(h), dst)
    rms = float(np.sqrt(np.mean(np.sum((back - src) ** 2, axis=1))))
    return h, rms


# --------------------------------------------------------------------------------------------- ellipse


def _red_mask(image: np.ndarray) -> np.ndarray:
    """Saturated red (the red pockets and number ring), opened to drop noise."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    mask = (((h <= 7) | (h >= 172)) & (s >= 110) & (v >= 45)).astype(np.uint8)
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))


def _ellipse_to_circle(ellipse: tuple) -> np.ndarray:
    """Affine 3x3 mapping an ellipse (cv2.fitEllipse format) to the unit circle, without rotating."""
    (cx, cy), (a, b), angle = ellipse
    t = np.radians(angle)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    m = rot @ np.diag([2.0 / a, 2.0 / b]) @ rot.T
    out = np.eye(3)
    out[:2, :2] = m
    out[:2, 2] = -m @ np.array([cx, cy])
    return out


def _red_points(image: np.ndarray) -> np.ndarray:
    """(N, 2) px of the red pockets: the red mask's large blobs only (specks of reddish wood or noise dropped)."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(_red_mask(image), connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    if len(areas) < 8:
        return np.zeros((0, 2), np.float32)
    typical = float(np.median(np.sort(areas)[-18:]))   # the 18 red pockets are the largest red blobs
    keep = np.nonzero(areas >= 0.12 * typical)[0] + 1
    ys, xs = np.nonzero(np.isin(labels, keep))
    return np.stack([xs, ys], axis=1).astype(np.float32)


def _coarse_from_colour(images: Sequence[np.ndarray]) -> np.ndarray:
    """Affine image -> plane with the number ring's outer edge near the unit circle (from the red pockets' hull)."""
    points = [p for p in (_red_points(image) for image in images) if len(p) >= 200]
    if not points:
        raise ValueError("calibration: no red pockets found in the image (is a roulette wheel in view?)")
    hull = cv2.convexHull(np.vstack(points)).reshape(-1, 2)
    if len(hull) < 5:
        raise ValueError("calibration: the red pockets do not outline a wheel")
    ellipse = cv2.fitEllipse(hull)
    if min(ellipse[1]) < 40:
        raise ValueError(f"calibration: the wheel found is too small ({min(ellipse[1]):.0f} px across)")
    return _ellipse_to_circle(ellipse)


def _number_ring_mm(images: Sequence[np.ndarray], h_mm: np.ndarray) -> float:
    """Rough outer radius (mm) of the red pockets around the markers' centre on the metric plane ``h_mm``."""
    radii = [np.linalg.norm(_to_plane(h_mm, _red_points(image)), axis=1) for image in images]
    if not radii or sum(len(r) for r in radii) < 200:
        raise ValueError("calibration: no red pockets found around the surround markers' centre")
    return float(np.percentile(np.concatenate(radii), 98))


def _scale_to_colour_band(images: Sequence[np.ndarray], h: np.ndarray) -> np.ndarray:
    """Rescale plane ``h`` (wheel centred, roughly unit-sized) so the coloured band's outer edge is radius 1."""
    radii = np.linspace(0.4, 1.6, 481)
    outer = []
    for image in images:
        _, last = _colour_band(unwrap(image, h, radii, 720))
        outer.append(radii[last])
    scale = float(np.median(outer))
    return np.diag([1 / scale, 1 / scale, 1.0]) @ h


def _grey(image: np.ndarray) -> np.ndarray:
    return image.astype(np.float32).mean(axis=2) if image.ndim == 3 else image.astype(np.float32)


def _subsample_peak(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Parabolic sub-sample position of the peaks at ``index`` along the last axis."""
    n = values.shape[-1]
    i0 = np.clip(index, 1, n - 2)
    rows = np.arange(values.shape[0])
    a, b, c = values[rows, i0 - 1], values[rows, i0], values[rows, i0 + 1]
    den = a - 2 * b + c
    shift = np.where(np.abs(den) > 1e-9, 0.5 * (a - c) / np.where(den == 0, 1, den), 0.0)
    return i0 + np.clip(shift, -0.5, 0.5)


def _track_edges(images: Sequence[np.ndarray], h: np.ndarray, window: tuple[float, float], n_angles: int = 360
                 ) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Image points on the ball track's inner (dark -> light) and outer (light -> dark) edges.

    Searched on rays of the plane ``h`` between radii ``window``; returns (inner points px,
    outer points px, inner radius, outer radius) where radii are medians on the plane ``h``.
    """
    radii = np.linspace(window[0], window[1], 400)
    step = radii[1] - radii[0]
    theta = np.arange(n_angles) * (2 * np.pi / n_angles)
    h_inv = np.linalg.inv(h)
    inner_pts, outer_pts, inner_r, outer_r = [], [], [], []
    for image in images:
        profile = cv2.GaussianBlur(_grey(unwrap(image, h, radii, n_angles)), (0, 0), 1.2)   # (radii, angles)
        grad = np.gradient(profile, axis=0).T                                             # (angles, radii)
        median = np.median(grad, axis=0)
        i_in = int(np.argmax(median))
        after = np.arange(len(radii)) > i_in + 8
        i_out = int(np.argmin(np.where(after, median, np.inf)))
        span = max(int(0.035 / step), 3)
        for centre, sign, pts, rs in ((i_in, 1.0, inner_pts, inner_r), (i_out, -1.0, outer_pts, outer_r)):
            lo, hi = max(centre - span, 1), min(centre + span, len(radii) - 2)
            local = sign * grad[:, lo:hi + 1]
            idx = lo + np.argmax(local, axis=1)
            strength = sign * grad[np.arange(n_angles), idx]
            ok = strength > 0.35 * np.median(strength)
            r = radii[0] + _subsample_peak(sign * grad, idx) * step
            plane = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1)[ok]
            pts.append(_to_image(h_inv, plane))
            rs.append(float(np.median(r[ok])))
    return np.vstack(inner_pts), np.vstack(outer_pts), float(np.median(inner_r)), float(np.median(outer_r))


def _colour_band(polar: np.ndarray) -> tuple[int, int]:
    """Rows (first, last) of the coloured band (red pockets and numbers) in a polar unwrap."""
    img = polar.astype(np.float32)
    b, g, r = img[..., 0], img[..., 1], img[..., 2]
    red = (r - np.maximum(g, b)) > 0.45 * np.maximum(r, 1.0)
    red &= r > 40
    frac = red.mean(axis=1)
    rows = frac >= 0.2
    # bridge thin metal rings between the pocket ring and the number ring (a few rows without red)
    gap = max(3, len(rows) // 60)
    rows = cv2.morphologyEx(rows.astype(np.uint8)[:, None], cv2.MORPH_CLOSE, np.ones((2 * gap + 1, 1), np.uint8),
                            borderType=cv2.BORDER_CONSTANT, borderValue=0).ravel().astype(bool) | rows
    if not rows.any():
        raise ValueError("calibration: no ring of red pockets found around the wheel centre")
    # longest run of coloured rows
    best, start, best_run = (0, 0), None, 0
    for i, on in enumerate(np.append(rows, False)):
        if on and start is None:
            start = i
        elif not on and start is not None:
            if i - start > best_run:
                best, best_run = (start, i - 1), i - start
            start = None
    return best


def _split_rings(polar: np.ndarray, band: tuple[int, int]) -> int:
    """Row where the pocket ring (frets at the pocket boundaries) gives way to the number ring (numbers at
    the pocket centres): the sign change of the 37-fold component of brightness, relative to the frets' phase."""
    first, last = band
    white = polar[first:last + 1].astype(np.float32).min(axis=2)
    n = white.shape[1]
    phasor = np.exp(-1j * POCKETS * np.arange(n) * 2 * np.pi / n)
    c = (white - white.mean(axis=1, keepdims=True)) @ phasor
    inner = c[: max(1, len(c) // 2)]
    ref = inner[int(np.argmax(np.abs(inner)))]
    proj = np.real(c * np.conj(ref)) / max(abs(ref), 1e-9)
    negative = np.nonzero(proj < -0.15 * abs(ref))[0]
    if len(negative) == 0:
        raise ValueError("calibration: cannot tell the pocket ring from the number ring (no numbers found)")
    return first + int(negative[0])


def _fret_points(images: Sequence[np.ndarray], h: np.ndarray, r_lo: float, r_hi: float, n_angles: int = 2048
                 ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Image points on each of the 37 frets, per image: (points px (N, 2), fret index (N,)) lists."""
    radii = np.linspace(r_lo, r_hi, 24)
    h_inv = np.linalg.inv(h)
    pitch = n_angles / POCKETS
    out_pts, out_idx = [], []
    for image in images:
        polar = unwrap(image, h, radii, n_angles).astype(np.float32)
        white = cv2.GaussianBlur(polar.min(axis=2), (0, 0), sigmaX=1.0, sigmaY=0.01)
        white -= uniform_filter1d(white, int(pitch) | 1, axis=1, mode="wrap")
        phasor = np.exp(-1j * POCKETS * np.arange(n_angles) * 2 * np.pi / n_angles)
        c = white.sum(axis=0) @ phasor
        phase = (-np.angle(c)) % (2 * np.pi) / (2 * np.pi) * pitch       # column of fret 0, in [0, pitch)
        pts, idx = [], []
        half = int(pitch * 0.3)
        for k in range(POCKETS):
            centre = round(phase + k * pitch)
            cols = np.arange(centre - half, centre + half + 1) % n_angles
            local = white[:, cols]
            j = np.argmax(local, axis=1)
            peak = local[np.arange(len(radii)), j]
            sub = _subsample_peak(local, j)
            good = peak > 0.5 * np.median(peak)
            theta = (centre - half + sub) * 2 * np.pi / n_angles
            plane = np.stack([radii * np.cos(theta), radii * np.sin(theta)], axis=1)[good]
            pts.append(_to_image(h_inv, plane))
            idx.append(np.full(int(good.sum()), k))
        out_pts.append(np.vstack(pts))
        out_idx.append(np.concatenate(idx))
    return out_pts, out_idx


def _refine_homography(h0: np.ndarray, inner: np.ndarray, outer: np.ndarray, r_in0: float,
                       frets: list[np.ndarray], fret_idx: list[np.ndarray]) -> tuple[np.ndarray, float, float]:
    """Least-squares homography making the track edges concentric circles (outer radius 1) and the frets
    equally spaced radial lines. Returns (homography image -> plane, inner radius, RMS residual in plane units)."""
    pitch = 2 * np.pi / POCKETS
    n_img = len(frets)

    def matrix(p: np.ndarray) -> np.ndarray:
        a = np.array([[1 + p[0], p[1], p[2]], [p[1], 1 + p[3], p[4]], [p[5], p[6], 1.0]])  # symmetric: no rotation
        return a @ h0

    def plane(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
        q = pts @ h[:, :2].T + h[:, 2]
        return q[:, :2] / q[:, 2:3]

    def residuals(p: np.ndarray) -> np.ndarray:
        h = matrix(p)
        r_in = p[7]
        res = [np.linalg.norm(plane(h, outer), axis=1) - 1.0, np.linalg.norm(plane(h, inner), axis=1) - r_in]
        for i in range(n_img):
            q = plane(h, frets[i])
            ang = np.arctan2(q[:, 1], q[:, 0]) - p[8 + i] - fret_idx[i] * pitch
            res.append(np.linalg.norm(q, axis=1) * np.angle(np.exp(1j * ang)))
        return np.concatenate(res)

    start = np.zeros(8 + n_img)
    start[7] = r_in0
    for i in range(n_img):
        q = plane(h0, frets[i])
        ang = np.arctan2(q[:, 1], q[:, 0]) - fret_idx[i] * pitch
        start[8 + i] = np.angle(np.mean(np.exp(1j * ang)))
    fit = least_squares(residuals, start, loss="soft_l1", f_scale=0.004, x_scale="jac")
    res = residuals(fit.x)
    keep = np.abs(res) < max(5 * np.median(np.abs(res)), 1e-4)
    rms = float(np.sqrt(np.mean(res[keep] ** 2)))
    return matrix(fit.x), float(fit.x[7]), rms


def _normalise_on_track(images: Sequence[np.ndarray], h: np.ndarray, window: tuple[float, float]
                        ) -> tuple[np.ndarray, float]:
    """Translate and scale the (metric) plane ``h`` so the ball track's outer edge is the unit circle.

    Returns (homography, ball track inner radius on the new plane).
    """
    inner, outer, _, _ = _track_edges(images, h, window)
    q = _to_plane(h, outer)
    # algebraic circle fit x^2 + y^2 + D x + E y + F = 0
    a = np.column_stack([q[:, 0], q[:, 1], np.ones(len(q))])
    b = -(q ** 2).sum(axis=1)
    for _ in range(3):
        sol, *_ = np.linalg.lstsq(a, b, rcond=None)
        cx, cy = -sol[0] / 2, -sol[1] / 2
        radius = math.sqrt(max(cx * cx + cy * cy - sol[2], 1e-12))
        dev = np.abs(np.hypot(q[:, 0] - cx, q[:, 1] - cy) - radius)
        keep = dev < max(3 * np.median(dev), 1e-3 * radius)
        a, b, q = a[keep], b[keep], q[keep]
    norm = np.array([[1 / radius, 0, -cx / radius], [0, 1 / radius, -cy / radius], [0, 0, 1]])
    hn = norm @ h
    r_in = float(np.median(np.linalg.norm(_to_plane(hn, inner), axis=1)))
    return hn, r_in


def calibrate_wheel(images: np.ndarray | Sequence[np.ndarray], layout: str, *,
                    markers: Literal["auto", "aruco", "ellipse"] = "auto",
                    surround: MarkerSurround = SURROUND, refine: bool = True) -> WheelCalibration:
    """Calibrate a wheel from one or more stills of it (the camera fixed; the rotor may differ between stills).

    ``markers``: ``"auto"`` uses the surround markers when at least three are found, else the
    ellipse method; ``"aruco"`` requires them; ``"ellipse"`` ignores them. With markers, the
    homography is then refined on the wheel's own geometry (the ball track's edges and the 37
    even frets: marker corners on a small, blurred marker are only good to a pixel or two) when
    ``refine`` and the refined fit is good; the markers still give the scale in mm. Without
    markers that refinement is the method itself, so the wheel must have 37 even frets: audit a
    suspect wheel (:mod:`vision.roulette_audit`) with a calibration made with markers or on a
    good wheel under the same camera. Raises ValueError naming what could not be found.
    """
    order_for(layout)
    if isinstance(images, np.ndarray):
        images = [images]
    images = [check_image(img, f"calibration image {i}") for i, img in enumerate(images)]
    if not images:
        raise ValueError("calibration needs at least one image")
    images = [img if img.ndim == 3 else cv2.cvtColor(img, cv2.COLOR_GRAY2BGR) for img in images]
    size = (images[0].shape[1], images[0].shape[0])
    if any((img.shape[1], img.shape[0]) != size for img in images):
        raise ValueError("calibration images must all have the same size")
    if markers not in ("auto", "aruco", "ellipse"):
        raise ValueError(f"markers must be 'auto', 'aruco' or 'ellipse', got {markers!r}")

    notes: list[str] = []
    found = _marker_homography(images, surround) if markers != "ellipse" else None
    if markers == "aruco" and found is None:
        raise ValueError("calibration: fewer than 3 surround markers found (ids "
                         f"{', '.join(map(str, surround.ids))})")
    if found is not None:
        h_mm, marker_rms = found
        scale = _number_ring_mm(images, h_mm)                               # mm per number-ring radius
        # the metric plane scaled so the number ring is near radius 1, centred on the markers' centre
        h1 = _scale_to_colour_band(images, np.diag([1 / scale, 1 / scale, 1.0]) @ h_mm)
        h, r_in = _normalise_on_track(images, h1, (1.05, 1.8))
        track_outer_mm = 1.0 / (h @ np.linalg.inv(h_mm))[0, 0]     # plane mm -> normalised is a scaling
        method: Method = "aruco"
        residual = marker_rms
        markers_seen = len(detect_surround(images[0], surround))
        notes.append(f"{markers_seen} surround markers in the first image, corner RMS {marker_rms:.2f} px")
        if refine:
            try:
                h_ref, r_ref, rms_ref = _refine_with_wheel(images, h, r_in)
            except (ValueError, np.linalg.LinAlgError) as error:
                notes.append(f"refinement on the frets not used: {error}")
            else:
                if rms_ref <= MAX_REFINED_RESIDUAL_PX:
                    h, r_in, residual = h_ref, r_ref, rms_ref
                    notes.append(f"refined on the ball track and the 37 frets (RMS {rms_ref:.2f} px)")
                else:
                    notes.append(f"refinement on the frets not used (RMS {rms_ref:.2f} px: not 37 even frets?)")
    else:
        h0 = _scale_to_colour_band(images, _coarse_from_colour(images))
        _, _, r_in0, r_out0 = _track_edges(images, h0, (1.05, 1.8))
        h = np.diag([1 / r_out0, 1 / r_out0, 1.0]) @ h0
        h, r_in, residual = _refine_with_wheel(images, h, r_in0 / r_out0)
        track_outer_mm = None
        method = "ellipse"
    pocket_inner, number_inner, number_outer = _ring_radii(images[0], h)
    if not number_outer < r_in:
        raise ValueError(f"calibration: the number ring (outer radius {number_outer:.3f}) overlaps the ball track "
                         f"(inner radius {r_in:.3f})")
    return WheelCalibration(
        homography=tuple(tuple(float(v) for v in row) for row in h / h[2, 2]), image_size=size, layout=layout,
        method=method, fit_residual_px=float(residual), track_inner=float(r_in), number_outer=number_outer,
        number_inner=number_inner, pocket_inner=pocket_inner, track_outer_mm=track_outer_mm, notes=tuple(notes),
    )


def _refine_with_wheel(images: Sequence[np.ndarray], h: np.ndarray, r_in: float
                       ) -> tuple[np.ndarray, float, float]:
    """Two rounds of :func:`_refine_homography` from plane ``h`` (track outer edge near 1, inner near ``r_in``).

    Returns (homography, track inner radius, RMS residual in image px).
    """
    residual = float("nan")
    for _ in range(2):
        band = _rings(images[0], h)
        frets, idx = _fret_points(images, h, band[0] + 0.15 * (band[1] - band[0]),
                                  band[1] - 0.15 * (band[1] - band[0]))
        inner, outer, _, _ = _track_edges(images, h, (r_in - 0.12, 1.12))
        h, r_in, rms = _refine_homography(h, inner, outer, r_in, frets, idx)
        residual = rms * _px_per_unit(h)
    return h, r_in, residual


def _px_per_unit(h: np.ndarray) -> float:
    t = np.linspace(0, 2 * np.pi, 72, endpoint=False)
    ring = _to_image(np.linalg.inv(h), np.stack([np.cos(t), np.sin(t)], axis=1))
    return float(np.linalg.norm(np.diff(np.vstack([ring, ring[:1]]), axis=0), axis=1).sum() / (2 * np.pi))


_RING_RADII = np.linspace(0.35, 0.95, 241)


def _rings(image: np.ndarray, h: np.ndarray) -> tuple[float, float]:
    """(inner, outer) radius of the pocket ring on plane ``h``."""
    pocket_inner, number_inner, _ = _ring_radii(image, h)
    return pocket_inner, number_inner


def _ring_radii(image: np.ndarray, h: np.ndarray) -> tuple[float, float, float]:
    """(pocket_inner, number_inner, number_outer) on plane ``h``, from the polar unwrap."""
    polar = unwrap(image, h, _RING_RADII, 1440)
    first, last = _colour_band(polar)
    split = _split_rings(polar, (first, last))
    step = _RING_RADII[1] - _RING_RADII[0]
    return (float(_RING_RADII[first] - step / 2), float(_RING_RADII[split] - step / 2),
            float(_RING_RADII[last] + step / 2))
