"""Roulette bowl and ball dimensions from one camera frame with a printed ArUco target on the table beside the wheel.

Clauses: the bowl ("cilindro") 50-60 cm in diameter (p217-2007/roleta-francesa/3,
p217-2007/roleta-americana/3) and balls 18-24 mm in diameter (p217-2007/roleta-francesa/9,
p217-2007/roleta-americana/17). Limits and verdicts are those of :mod:`vision.measure` (guarded
acceptance, ILAC-G8 / ISO 14253-1).

Method, per frame:

1. **Scale.** :meth:`vision.scale.PlaneScale.from_image` detects the target (:data:`WHEEL_TARGET`)
   and fits the homography image px -> table mm with its Monte-Carlo uncertainty.
2. **Bowl rim.** The wheel calibration (:mod:`vision.roulette_calibration`) maps the image to the
   wheel plane, ball track's outer edge at radius ``track_outer`` = 1. The plane is unwrapped in
   polar coordinates from there outwards to :data:`RIM_SEARCH_MAX`; the colour gradient along the
   radius, median over all angles (so that a hand, the target or a marker on a few angles does not
   count), peaks at the rim's outer edge against the table: the outermost peak at least half as
   strong as the strongest one beyond the track's own edge. Each angle then gives the edge near that
   radius; points more than 3.5 robust sigmas off are dropped and ``cv2.fitEllipse`` fits the rest,
   mapped back to the image.
3. **Bowl diameter.** :func:`vision.measure.measure_wheel_diameter` re-locates the rim edge along
   that ellipse's normals within +-5 % of its size, where the ball track's own outer edge also lies
   (a rim is a few per cent of the bowl's radius wide) and is far stronger. So it is given a copy of
   the frame in which everything inside the rim, up to :data:`RIM_CLEARANCE_PX` short of its outer
   edge, is painted angle by angle with the rim's own colour there: the only edge left near the
   ellipse is the rim against the table. The pixels it measures are the frame's own. The rim's own
   shading moves that edge a little, the same way all around: type-B component ``edge-profile``
   (:data:`RIM_EDGE_PROFILE_PX`).
4. **Ball.** Around the reader's ball position (``PocketRead.ball_px``), a coarse outline (the
   steepest fall of brightness on 48 rays, 0.3 to 2 nominal radii out; a circle fitted to the rays
   that agree, at least 40 % of them: a large ball's edge against a fret's chrome is lost) gives
   the centre and radius :func:`vision.measure.measure_ball_diameter` needs for its search window
   (0.7 r .. 1.3 r).

Ball outline bias. A ball in a pocket is a shaded sphere (darker towards its limb) with bright
frets and rings a few pixels away; both move the derivative-centroid edge of
:func:`~vision.measure.measure_ball_diameter` inwards. On rendered wheels at 0.7 px/mm it reads a
21 mm ball about 1.8 mm small (0.6 px per edge: 1.1 mm from the shading, 0.6 mm from the frets),
which its stated uncertainty (about 0.35 mm) does not cover. Two ways to state that honestly:

* with a :class:`BallReference` (substitution method, ISO 15530-3:2011): a certified reference
  ball read the same way in the same wheel under the same camera gives the reading's bias, which
  is corrected; the correction's uncertainty is added and a reading's uncertainty is raised to at
  least the reference readings' standard deviation (:func:`reference_ball`). Effects common to the
  reference and the ball (parallax of the pocket floor, shading, lens) cancel to first order;
* without one, a type-B component ``outline-bias`` of :data:`OUTLINE_BIAS_PX` (rectangular, on the
  diameter) is added: at 0.7 px/mm the verdict on a good ball is then INCONCLUSIVE, which is the
  truth about an uncalibrated ball 15 px wide.

Coverage. The scale's uncertainty rests on the residuals of 2N - 8 corner coordinates (16 for the
12 corners of :data:`WHEEL_TARGET`), a reference's on n - 1 readings: the coverage factor is
Student's t for 95.45 % at the Welch-Satterthwaite effective degrees of freedom (JCGM 100:2008
G.4), never below 2 (about 2.1 for the bowl, whose budget the scale dominates).

Parallax. The target lies on the table. A rim ``rim_height_mm`` above it and a ball resting on a
pocket floor ``pocket_floor_height_mm`` above it are corrected with ``camera_height_mm`` (camera
centre above the table): lengths on a plane z above the table are (h - z) / h of their table
values. Without a camera height both must be 0.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from scipy.ndimage import gaussian_filter1d
from scipy.stats import t as student_t

from vision.frame import check_image
from vision.measure import Measurement, measure_ball_diameter, measure_wheel_diameter
from vision.render.target import TargetSpec
from vision.roulette_calibration import WheelCalibration, polar_maps
from vision.scale import PlaneScale

WHEEL_TARGET = TargetSpec(markers_x=1, markers_y=3, marker_mm=65.0, gap_mm=13.0, first_id=0)
"""Target for a wheel camera (640 x 480 at about 0.7 px/mm): one column of three 65 mm markers, 13 mm apart,
on a 97.5 x 253.5 mm sheet (68 x 177 px). Markers of 45 px (7.6 px cells) survive blur, noise and JPEG;
a single column is what fits beside a 600 mm bowl (the free strip left of it is 110 px wide);
ids 0-2 stay clear of the calibration's surround markers (10-13)."""

WHEEL_TARGET_TOP_LEFT_PX = (20.0, 151.0)
"""Where :data:`WHEEL_TARGET` lies in a 640 x 480 world frame at 0.7 px/mm with the wheel centred
(``WheelScene.target_top_left_px``): left of the wheel, vertically centred. The sheet spans x 20..88 px,
y 151..328 px: 20 px from the frame's edge (a keystone of strength 0.05 moves it by at most 17 px; its markers,
11 px inside the sheet, stay >= 15 px inside the frame) and 21 px clear of a 600 mm bowl (36 px of a 560 mm one)."""

RIM_SEARCH_MAX = 1.3
"""Outermost radius searched for the bowl's rim, in units of the ball track's outer radius."""
RIM_CLEARANCE_PX = 4.5
"""The painted interior stops this far (image px) inside the rim's outer edge: the edge's centroid window
(2.5 px), smoothing and lens blur (about 2 px) see only the frame's own pixels."""
NOMINAL_BALL_MM = 21.0
"""Nominal ball diameter, only to size the coarse search for the ball's outline (18-24 mm balls and beyond)."""
RIM_EDGE_PROFILE_PX = 0.4
"""Bound (px) on how far the rim's own shading (wood darkening or lightening towards its edge) moves the located
edge, the same way all around (type B, rectangular, 2 x this on the diameter; 0.24 px measured on rendered wheels)."""
OUTLINE_BIAS_PX = 1.5
"""Half-width (px, on the diameter) of the rectangular type-B component for the uncalibrated bias of a ball's
outline (see the module docstring: about 1.2 px measured on rendered wheels)."""

_RIM_STEP = 0.002            # radial step of the polar unwrap, track radii (0.4 px on a 560 mm wheel at 0.7 px/mm)
_RIM_ANGLES = 720
_BALL_RAYS = 48


@dataclass(frozen=True)
class BallReference:
    """Bias and dispersion of the camera's ball-diameter reading, from a certified reference ball read in several
    frames (ISO 15530-3:2011 substitution; the reference at rest in different pockets, better 10 frames than 3).

    ``correction_mm`` (reference diameter - mean reading) is added to later readings, with its own standard
    uncertainty ``standard_uncertainty_mm`` (s / sqrt(n) and the reference's certificate). The readings' standard
    deviation s is the procedure's dispersion: a later reading's uncertainty is at least s (the ball's place in
    its pocket, the frets beside it and the light move its outline by more than its own fit shows), see
    :meth:`dispersion_top_up`. Both carry n - 1 degrees of freedom.
    """

    reference_diameter_mm: float
    reference_uncertainty_mm: float
    readings_mm: tuple[float, ...]
    reading_uncertainties_mm: tuple[float, ...]

    def __post_init__(self) -> None:
        if not 5.0 <= self.reference_diameter_mm <= 60.0:
            raise ValueError(f"reference_diameter_mm must be within 5..60 mm, got {self.reference_diameter_mm}")
        if not self.reference_uncertainty_mm >= 0:
            raise ValueError(f"reference_uncertainty_mm must be >= 0, got {self.reference_uncertainty_mm}")
        if len(self.readings_mm) < 3 or len(self.readings_mm) != len(self.reading_uncertainties_mm):
            raise ValueError(f"a ball reference needs >= 3 readings with one uncertainty each, got "
                             f"{len(self.readings_mm)} readings and {len(self.reading_uncertainties_mm)} uncertainties")
        if not np.all(np.isfinite(self.readings_mm)):
            raise ValueError("ball reference readings must be finite")

    @property
    def mean_reading_mm(self) -> float:
        return float(np.mean(self.readings_mm))

    @property
    def correction_mm(self) -> float:
        return self.reference_diameter_mm - self.mean_reading_mm

    @property
    def scatter_mm(self) -> float:
        """Sample standard deviation s of the readings."""
        return float(np.std(self.readings_mm, ddof=1))

    @property
    def dof(self) -> int:
        return len(self.readings_mm) - 1

    @property
    def standard_uncertainty_mm(self) -> float:
        """Standard uncertainty of the correction."""
        return float(np.hypot(self.scatter_mm / np.sqrt(len(self.readings_mm)), self.reference_uncertainty_mm))

    def dispersion_top_up(self, reading_uncertainty_mm: float) -> float:
        """Component that brings a reading's own standard uncertainty up to the procedure's dispersion s."""
        return float(np.sqrt(max(self.scatter_mm**2 - reading_uncertainty_mm**2, 0.0)))

    def as_dict(self) -> dict[str, Any]:
        return {"reference_diameter_mm": self.reference_diameter_mm,
                "reference_uncertainty_mm": self.reference_uncertainty_mm, "readings": len(self.readings_mm),
                "mean_reading_mm": self.mean_reading_mm, "correction_mm": self.correction_mm,
                "scatter_mm": self.scatter_mm, "standard_uncertainty_mm": self.standard_uncertainty_mm}


@dataclass(frozen=True)
class RimFit:
    """The bowl's outer rim found from the calibration: radius on the wheel plane and its image ellipse."""

    radius: float
    """Rim radius on the calibration's plane (ball track's outer edge = 1)."""
    ellipse_px: tuple[tuple[float, float], tuple[float, float], float]
    """``cv2.fitEllipse`` of the rim in image px: centre, full axes, angle."""
    points: int
    """Angles whose edge agreed with the rim (of :data:`_RIM_ANGLES`)."""
    px_per_unit: float
    """Mean image px per plane unit (the calibration's, around the pocket ring)."""


@dataclass(frozen=True)
class WheelDimensions:
    """The bowl's and the ball's measured diameters (``ball`` is ``None`` when it could not be measured,
    ``ball_reason`` says why)."""

    bowl: Measurement
    ball: Measurement | None
    ball_reason: str | None = None
    rim: RimFit | None = None
    ball_circle_px: tuple[float, float, float] | None = None
    scale_rms_px: float = 0.0
    target: TargetSpec = WHEEL_TARGET

    def to_json(self) -> str:
        data = {"bowl": self.bowl.as_dict(), "ball": None if self.ball is None else self.ball.as_dict(),
                "ball_reason": self.ball_reason,
                "rim": None if self.rim is None else dataclasses.asdict(self.rim),
                "ball_circle_px": self.ball_circle_px, "scale_rms_px": self.scale_rms_px,
                "target": dataclasses.asdict(self.target)}
        return json.dumps(data, sort_keys=True, default=_plain)


def _plain(value: object) -> object:
    """JSON fallback for numpy scalars and arrays in measurement details."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


# --------------------------------------------------------------------------------------------- bowl rim


def _grey(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _polar(image: np.ndarray, h: np.ndarray, radii: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Polar unwrap (float32, rows = radii, columns = angles, channels last) and which samples lie in the frame."""
    mx, my = polar_maps(h, radii, _RIM_ANGLES)
    height, width = image.shape[:2]
    inside = (mx >= 1) & (mx <= width - 2) & (my >= 1) & (my <= height - 2)
    polar = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    return (polar if polar.ndim == 3 else polar[..., None]), inside


def _to_image(h_inv: np.ndarray, points: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(points, np.float64).reshape(-1, 1, 2), h_inv).reshape(-1, 2)


def find_rim(image: np.ndarray, calibration: WheelCalibration) -> RimFit:
    """The bowl's outer rim (wood against the table) outside the calibrated ball track (see the module docstring).

    Raises ValueError when no rim edge is found all around, or when it leaves the frame.
    """
    check_image(image)
    if (image.shape[1], image.shape[0]) != tuple(calibration.image_size):
        raise ValueError(f"image is {image.shape[1]}x{image.shape[0]} px but the wheel calibration was made at "
                         f"{calibration.image_size[0]}x{calibration.image_size[1]} px (same camera and pose needed)")
    h = calibration.H
    start = calibration.track_outer
    radii = np.arange(start, start * RIM_SEARCH_MAX, _RIM_STEP * start)
    polar, inside = _polar(image, h, radii)
    polar = gaussian_filter1d(polar, 1.5, axis=1, mode="wrap")           # angles: 0.75 degree
    polar = gaussian_filter1d(polar, 1.0, axis=0, mode="nearest")
    strength = np.linalg.norm(np.gradient(polar, axis=0), axis=2)       # colour change along the radius
    seen = inside.mean(axis=1) >= 0.3                                   # radii seen on enough of the angles
    ring = calibration.px_per_unit()
    px = _RIM_STEP * start * ring                                       # image px per polar row
    skip = int(np.ceil(3.0 / px))                                       # the track's own edge and its blur
    with np.errstate(all="ignore"):
        profile = np.where(seen, np.nanmedian(np.where(inside, strength, np.nan), axis=1), np.nan)
    interior = np.arange(skip, len(radii) - 2)
    interior = interior[seen[interior - 1] & seen[interior] & seen[interior + 1]]
    peaks = interior[(profile[interior] > profile[interior - 1]) & (profile[interior] >= profile[interior + 1])]
    noise = float(np.nanmedian(profile[skip:]))
    peaks = peaks[profile[peaks] > 3.0 * noise]
    if not len(peaks):
        raise ValueError(f"bowl rim: no edge outside the ball track out to {RIM_SEARCH_MAX:g} track radii")
    row = int(peaks[profile[peaks] >= 0.5 * profile[peaks].max()].max())
    window = max(2, int(np.ceil(3.0 / px)))
    lo, hi = max(row - window, 1), min(row + window + 1, len(radii) - 1)
    local = strength[lo:hi]
    columns = inside[lo - 1:hi + 1].all(axis=0)                          # angles whose window is in the frame
    best = np.argmax(local, axis=0)
    cols = np.arange(_RIM_ANGLES)
    peak = local[best, cols]
    left = local[np.maximum(best - 1, 0), cols]
    right = local[np.minimum(best + 1, hi - lo - 1), cols]
    curvature = left - 2 * peak + right
    sub = np.where((curvature < 0) & (best > 0) & (best < hi - lo - 1), 0.5 * (left - right) / np.where(
        curvature < 0, curvature, -1.0), 0.0)
    edge_r = start + (lo + best + sub) * _RIM_STEP * start
    if columns.mean() < 0.5:
        raise ValueError(f"bowl rim: only {columns.mean():.0%} of it is inside the frame")
    ok = columns & (peak > 0.3 * np.median(peak[columns])) & (best > 0) & (best < hi - lo - 1)
    residual = edge_r - np.median(edge_r[ok])
    sigma = max(1.4826 * float(np.median(np.abs(residual[ok]))), 0.2 / ring)
    ok &= np.abs(residual) <= 3.5 * sigma
    if ok.mean() < 0.5:
        raise ValueError(f"bowl rim: its edge is found on only {ok.mean():.0%} of the angles (need 50 %)")
    theta = cols * (2 * np.pi / _RIM_ANGLES)
    radius = float(np.median(edge_r[ok]))
    plane = edge_r[ok, None] * np.column_stack([np.cos(theta[ok]), np.sin(theta[ok])])
    points = _to_image(np.linalg.inv(h), plane)
    (cx, cy), (w, hgt), angle = cv2.fitEllipse(points.astype(np.float32))
    everywhere = _to_image(np.linalg.inv(h), radius * np.column_stack([np.cos(theta), np.sin(theta)]))
    height, width = image.shape[:2]
    if everywhere.min() < 3 or everywhere[:, 0].max() > width - 4 or everywhere[:, 1].max() > height - 4:
        raise ValueError("bowl rim: part of the rim lies outside the frame; the whole rim must be seen")
    ellipse = ((float(cx), float(cy)), (float(w), float(hgt)), float(angle))
    return RimFit(radius=radius, ellipse_px=ellipse, points=int(ok.sum()), px_per_unit=float(ring))


def isolate_rim(image: np.ndarray, calibration: WheelCalibration, rim: RimFit) -> np.ndarray:
    """A copy of ``image`` with everything inside the rim, up to :data:`RIM_CLEARANCE_PX` short of its outer edge,
    painted with the rim's colour at that radius, angle by angle (the ball track's edge removed)."""
    fill = rim.radius - RIM_CLEARANCE_PX / rim.px_per_unit
    track_edge = calibration.track_outer + 2.5 / rim.px_per_unit
    if fill < track_edge:
        raise ValueError(f"bowl rim: only {(rim.radius - calibration.track_outer) * rim.px_per_unit:.1f} px wide "
                         f"outside the ball track; at least {RIM_CLEARANCE_PX + 2.5:.1f} px are needed to measure "
                         "its outer edge apart from the track's (move the camera closer)")
    sample = np.array([fill + 1.0 / rim.px_per_unit])
    colour, _ = _polar(image, calibration.H, sample)                   # (1, angles, channels)
    colour = gaussian_filter1d(colour[0], 3.0, axis=0, mode="wrap")      # 1.5 degree: noise out, light kept
    height, width = image.shape[:2]
    (cx, cy), (aw, ah), _ = rim.ellipse_px
    reach = max(aw, ah) / 2 + 2
    x0, x1 = max(int(cx - reach), 0), min(int(cx + reach) + 1, width)
    y0, y1 = max(int(cy - reach), 0), min(int(cy + reach) + 1, height)
    ys, xs = np.mgrid[y0:y1, x0:x1]
    plane = _to_image(calibration.H, np.column_stack([xs.ravel(), ys.ravel()]).astype(np.float64))
    radius = np.hypot(plane[:, 0], plane[:, 1]).reshape(xs.shape)
    angle = np.mod(np.arctan2(plane[:, 1], plane[:, 0]), 2 * np.pi).reshape(xs.shape)
    inside = radius < fill
    index = np.minimum((angle * (_RIM_ANGLES / (2 * np.pi))).astype(int), _RIM_ANGLES - 1)
    out = image.copy()
    patch = out[y0:y1, x0:x1]
    values = np.clip(np.round(colour[index[inside]]), 0, 255).astype(np.uint8)
    patch[inside] = values if image.ndim == 3 else values[:, 0]
    return out


# --------------------------------------------------------------------------------------------- ball


def locate_ball(image: np.ndarray, scale: PlaneScale, ball_px: tuple[float, float]) -> tuple[float, float, float]:
    """Coarse ball outline ``(cx, cy, r)`` image px around ``ball_px``, for :func:`measure_ball_diameter`'s window.

    On 48 rays from ``ball_px`` (0.3 to 2 nominal radii), the steepest fall of smoothed brightness
    (the bright ball against the darker pocket); a circle is fitted to the rays that agree (within
    max(1 px, 15 %) of their median radius), twice, re-centred. Raises ValueError when fewer than
    40 % of the rays agree or the circle is not of a ball's size.
    """
    cx, cy = (float(v) for v in ball_px)
    nominal = NOMINAL_BALL_MM / 2 * scale.px_per_mm((cx, cy))
    grey = cv2.GaussianBlur(_grey(image).astype(np.float32), (0, 0), 1.0)
    angles = np.linspace(0, 2 * np.pi, _BALL_RAYS, endpoint=False)
    directions = np.column_stack([np.cos(angles), np.sin(angles)])
    ts = np.arange(0.3 * nominal, 2.0 * nominal, 0.25)
    radius = nominal
    for _ in range(2):
        xs = (cx + directions[:, 0, None] * ts).astype(np.float32)
        ys = (cy + directions[:, 1, None] * ts).astype(np.float32)
        profiles = cv2.remap(grey, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        edge = ts[np.argmin(np.gradient(profiles, axis=1), axis=1)]
        median = float(np.median(edge))
        agree = np.abs(edge - median) <= max(1.0, 0.15 * median)
        if agree.sum() < 0.4 * _BALL_RAYS:
            raise ValueError(f"ball outline not found around ({cx:.1f}, {cy:.1f}) px: only {int(agree.sum())} of "
                             f"{_BALL_RAYS} rays agree on its edge")
        points = np.array([cx, cy]) + directions[agree] * edge[agree, None]
        design = np.column_stack([points, np.ones(len(points))])
        (a, b, c), *_ = np.linalg.lstsq(design, (points**2).sum(axis=1), rcond=None)
        cx, cy = a / 2, b / 2
        radius = float(np.sqrt(max(c + cx**2 + cy**2, 0.0)))
    if not 0.45 * nominal <= radius <= 1.9 * nominal:
        raise ValueError(f"ball outline around {ball_px} is {radius:.1f} px in radius, not a ball's "
                         f"({nominal:.1f} px nominal)")
    return float(cx), float(cy), radius


def _raised(scale: PlaneScale, height_mm: float) -> PlaneScale:
    """The scale of a plane ``height_mm`` above the target's, seen by the same camera: lengths times (h - z) / h
    (a homothety about the nadir), camera height h - z."""
    if height_mm == 0:
        return scale
    factor = scale.height_factor(height_mm)
    shrink = np.diag([factor, factor, 1.0])
    return dataclasses.replace(scale, homography=shrink @ scale.homography, samples=shrink @ scale.samples,
                               camera_height_mm=scale.camera_height_mm - height_mm)


def coverage_factor(components: Mapping[str, float], dof: Mapping[str, float]) -> tuple[float, float]:
    """Coverage factor for about 95 % (two-sided 95.45 %) and the effective degrees of freedom (JCGM 100:2008 G.4).

    Welch-Satterthwaite over the components with finite ``dof`` (the others are type B or rest on many points:
    infinite); k = t_{0.97725}(nu_eff), never below 2.
    """
    total = sum(u**2 for u in components.values())
    denominator = sum(u**4 / dof[name] for name, u in components.items() if name in dof and dof[name] > 0)
    if total <= 0 or denominator <= 0:
        return 2.0, float("inf")
    nu = total**2 / denominator
    return max(2.0, float(student_t.ppf(0.97725, nu))), float(nu)


def _with_components(m: Measurement, value: float, extra: Mapping[str, float], dof: Mapping[str, float],
                     method: str, details: Mapping[str, Any]) -> Measurement:
    """``m`` with ``value``, the ``extra`` components added, and k from the effective degrees of freedom."""
    components = {name: float(u) for name, u in {**m.components, **extra}.items()}
    k, nu = coverage_factor(components, dof)
    return dataclasses.replace(m, value_mm=float(value), standard_uncertainty_mm=float(np.sqrt(sum(
        u**2 for u in components.values()))), coverage_k=k, components=components, method=f"{m.method}; {method}",
        details={**m.details, **details, "effective_dof": nu})


def _raw_ball(image: np.ndarray, scale: PlaneScale, ball_px: tuple[float, float], pocket_floor_height_mm: float
              ) -> tuple[Measurement, tuple[float, float, float]]:
    circle = locate_ball(image, scale, ball_px)
    return measure_ball_diameter(image, _raised(scale, pocket_floor_height_mm), circle), circle


def _scale(image: np.ndarray, target: TargetSpec, camera_height_mm: float | None, camera_height_uncertainty_mm: float,
           rim_height_mm: float, pocket_floor_height_mm: float, rng: np.random.Generator | None) -> PlaneScale:
    check_image(image)
    if camera_height_mm is None and (rim_height_mm or pocket_floor_height_mm):
        raise ValueError("rim_height_mm and pocket_floor_height_mm need camera_height_mm to correct their parallax")
    if rim_height_mm < 0 or pocket_floor_height_mm < 0:
        raise ValueError(f"rim_height_mm and pocket_floor_height_mm must be >= 0, got {rim_height_mm}, "
                         f"{pocket_floor_height_mm}")
    return PlaneScale.from_image(image, target, camera_height_mm=camera_height_mm,
                                 camera_height_uncertainty_mm=camera_height_uncertainty_mm,
                                 rng=rng if rng is not None else np.random.default_rng(0))


def measure_wheel(image: np.ndarray, calibration: WheelCalibration, target: TargetSpec, *,
                  ball_px: tuple[float, float] | None, camera_height_mm: float | None = None,
                  camera_height_uncertainty_mm: float = 0.0, rim_height_mm: float = 0.0,
                  pocket_floor_height_mm: float = 0.0, ball_reference: BallReference | None = None,
                  rng: np.random.Generator | None = None) -> WheelDimensions:
    """Measure the bowl's outer diameter and, when ``ball_px`` is given (``PocketRead.ball_px`` of a ball at rest
    in a pocket), the ball's diameter, from one frame showing ``target`` flat on the table beside the wheel.

    ``calibration`` is the wheel's (same camera, same pose). ``ball_reference`` corrects the ball's outline
    bias (see the module docstring); without it the ball's budget carries the ``outline-bias`` type-B
    component. Heights are above the target's plane (the table), mm. ``rng`` seeds the scale's Monte-Carlo
    (default seed 0: every result is reproducible).

    Raises :class:`vision.scale.TargetNotFoundError` (a ValueError) when the target is missing or partly
    hidden, and ValueError when the rim cannot be found. A ball that cannot be measured gives ``ball=None``
    with ``ball_reason``.
    """
    scale = _scale(image, target, camera_height_mm, camera_height_uncertainty_mm, rim_height_mm,
                   pocket_floor_height_mm, rng)
    rim = find_rim(image, calibration)
    dof = {"scale": max(2 * len(scale.image_corners) - 8, 1)}
    bowl = measure_wheel_diameter(isolate_rim(image, calibration, rim), scale, rim.ellipse_px,
                                  rim_height_mm=rim_height_mm)
    mm_per_px = bowl.value_mm / (2 * rim.radius * rim.px_per_unit)
    bowl = _with_components(bowl, bowl.value_mm, {"edge-profile": 2 * RIM_EDGE_PROFILE_PX / np.sqrt(3) * mm_per_px},
                            dof, f"rim found outside the calibrated ball track, the bowl's interior masked with the "
                            f"rim's colour up to {RIM_CLEARANCE_PX:g} px from it",
                            {"rim_plane_radius": rim.radius, "rim_angles": rim.points})
    if ball_px is None:
        return WheelDimensions(bowl, None, "no ball position given (no ball at rest was read)", rim,
                               scale_rms_px=scale.rms_px, target=target)
    try:
        raw, circle = _raw_ball(image, scale, ball_px, pocket_floor_height_mm)
    except ValueError as error:
        return WheelDimensions(bowl, None, str(error), rim, scale_rms_px=scale.rms_px, target=target)
    details: dict[str, Any] = {"raw_value_mm": raw.value_mm}
    if ball_reference is not None:
        ref = ball_reference
        ball = _with_components(raw, raw.value_mm + ref.correction_mm,
                                {"reference-correction": ref.standard_uncertainty_mm,
                                 "dispersion": ref.dispersion_top_up(raw.standard_uncertainty_mm)},
                                dof | {"reference-correction": ref.dof, "dispersion": ref.dof},
                                f"outline bias corrected with a {ball_reference.reference_diameter_mm:g} mm reference "
                                "ball (substitution, ISO 15530-3)", details | {"reference": ball_reference.as_dict()})
    else:
        mm_per_px = 1.0 / scale.px_per_mm(circle[:2])
        ball = _with_components(raw, raw.value_mm, {"outline-bias": OUTLINE_BIAS_PX / np.sqrt(3) * mm_per_px}, dof,
                                f"outline bias not calibrated (type B, +-{OUTLINE_BIAS_PX:g} px)", details)
    return WheelDimensions(bowl, ball, None, rim, circle, scale.rms_px, target)


def reference_ball(images: Sequence[np.ndarray], target: TargetSpec, ball_pxs: Sequence[tuple[float, float]],
                   reference_diameter_mm: float, *, reference_uncertainty_mm: float = 0.0,
                   camera_height_mm: float | None = None, pocket_floor_height_mm: float = 0.0,
                   rng: np.random.Generator | None = None) -> BallReference:
    """Read a certified reference ball at rest in a pocket in each frame (>= 3, better 10 in different pockets)
    exactly as :func:`measure_wheel` reads a ball, and return the reading's bias as a :class:`BallReference`.

    ``ball_pxs``: the ball's image position in each frame (``PocketRead.ball_px``). Raises ValueError when a
    frame's target or ball cannot be measured (a reference must be read in full).
    """
    if len(images) != len(ball_pxs):
        raise ValueError(f"need one ball position per image, got {len(images)} images and {len(ball_pxs)} positions")
    readings, uncertainties = [], []
    for number, (image, at) in enumerate(zip(images, ball_pxs, strict=True), start=1):
        scale = _scale(image, target, camera_height_mm, 0.0, 0.0, pocket_floor_height_mm, rng)
        try:
            raw, _ = _raw_ball(image, scale, at, pocket_floor_height_mm)
        except ValueError as error:
            raise ValueError(f"reference ball, frame {number}: {error}") from None
        readings.append(raw.value_mm)
        uncertainties.append(raw.standard_uncertainty_mm)
    return BallReference(float(reference_diameter_mm), float(reference_uncertainty_mm), tuple(readings),
                         tuple(uncertainties))
