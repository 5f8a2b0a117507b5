"""Plane scale from a printed ArUco target: the homography image px -> mm of the table plane, with its uncertainty.

Method. The target (:mod:`vision.render.target`, DICT_4X4_50 GridBoard) is detected with
``cv2.aruco.ArucoDetector`` (sub-pixel corner refinement), then each marker's corners are
re-computed as intersections of lines fitted to its four outer edges (:func:`refine_marker_corners`:
about 0.01 px rms against 0.15 px for the detector's own corners on exact renders). Every marker of
the board must be found (a partly seen target is refused, naming the missing ids; a glare spot over
a marker does that). The homography G: mm -> image
px is fitted by least squares on all corners (``cv2.findHomography``, method 0, which refines the
reprojection error in the image, where the corner noise is), and H = G^-1 maps image px to mm.

Uncertainty. Corner localisation noise is estimated from the fit residuals:
sigma_c^2 = RSS / (2N - 8) for N corners (8 homography parameters), floored at
:data:`CORNER_SIGMA_FLOOR_PX`. A parametric bootstrap then draws ``samples`` homographies from
corners G(X) + N(0, sigma_c^2) (seeded, so every result is reproducible); a measurement's
standard uncertainty due to the scale is the standard deviation of its value over these
homographies (:meth:`PlaneScale.propagate`). This is the Monte-Carlo propagation of JCGM 101:2008
(GUM Supplement 1). A relative type-B term for the printed target's own size
(``target_rel_uncertainty``, from its calibration certificate) is added by the measuring functions.

The module also holds the sub-pixel edge locator shared with :mod:`vision.measure`
(:func:`smoothed`, :func:`edge_points`, :func:`edge_width`).

Parallax. The homography is exact only for the target's plane. A feature at height z above it,
seen by a camera whose centre is ``camera_height_mm`` above the plane, is magnified by
h / (h - z) (pinhole camera looking down the plane normal); :meth:`PlaneScale.height_factor`
returns (h - z) / h, the factor that brings its plane-measured length back to its true length.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import cv2
import numpy as np

from vision.frame import check_image
from vision.render.nuisance import map_points
from vision.render.target import TargetSpec, aruco_dictionary, target_object_points

_STEP_PX = 0.25
_CENTROID_HALF_PX = 2.5
_SMOOTH_SIGMA_PX = 1.0
CORNER_OUTLIER_PX = 0.5
"""A target corner farther than this from the board's fitted homography is re-located, then refused."""
CORNER_SIGMA_FLOOR_PX = 0.02
"""Smallest corner localisation standard deviation assumed (px): sub-pixel refinement is not better than this."""


class TargetNotFoundError(ValueError):
    """The calibration target is missing from the image or only partly detected."""

    def __init__(self, message: str, missing_ids: tuple[int, ...] = ()) -> None:
        super().__init__(message)
        self.missing_ids = missing_ids


def _detector(marker_px: float | None = None) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    if marker_px is not None:
        params.cornerRefinementWinSize = int(np.clip(marker_px / 12, 3, 8))
    return cv2.aruco.ArucoDetector(aruco_dictionary(), params)


def detect_target(image: np.ndarray, spec: TargetSpec) -> dict[int, np.ndarray]:
    """Detect every marker of ``spec``: ``{marker_id: (4, 2) image px}``, sub-pixel corners in ArUco order.

    Raises :class:`TargetNotFoundError` naming the missing ids when any marker of the board is not found,
    or when a board id is detected twice (two targets, or a false detection).
    """
    check_image(image)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    corners, ids, _ = _detector().detectMarkers(grey)
    found: dict[int, list[np.ndarray]] = {}
    for quad, marker_id in zip(corners, [] if ids is None else ids.ravel().tolist(), strict=True):
        found.setdefault(int(marker_id), []).append(quad.reshape(4, 2).astype(np.float64))
    if found:  # second pass with a refinement window sized to the markers seen
        size = float(np.median([np.linalg.norm(q[0][0] - q[0][2]) / np.sqrt(2) for q in found.values()]))
        corners, ids, _ = _detector(size).detectMarkers(grey)
        found = {}
        for quad, marker_id in zip(corners, [] if ids is None else ids.ravel().tolist(), strict=True):
            found.setdefault(int(marker_id), []).append(quad.reshape(4, 2).astype(np.float64))
    wanted = spec.ids
    missing = tuple(i for i in wanted if i not in found)
    if len(missing) == len(wanted):
        raise TargetNotFoundError(f"calibration target not found: none of markers {list(wanted)} (DICT_4X4_50) "
                                  "detected", missing)
    if missing:
        raise TargetNotFoundError(f"calibration target partly detected: markers {list(missing)} missing, "
                                  f"{[i for i in wanted if i in found]} found", missing)
    doubled = [i for i in wanted if len(found[i]) > 1]
    if doubled:
        raise TargetNotFoundError(f"calibration target ambiguous: markers {doubled} detected more than once")
    smooth = smoothed(grey)
    refined = {}
    for i in wanted:
        better = refine_marker_corners(smooth, found[i][0])
        refined[i] = found[i][0] if better is None else better
    return _check_board(smooth, spec, refined)


def _check_board(smooth: np.ndarray, spec: TargetSpec, corners: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Make the markers agree with one plane: a corner off the board's homography by more than
    :data:`CORNER_OUTLIER_PX` (the detector sometimes misplaces a corner by pixels) is searched again
    around the corner the other corners predict (RANSAC fit); if the board still disagrees, refuse it."""
    if len(corners) < 2:
        return corners
    objects = target_object_points(spec)
    image_pts = np.concatenate([corners[i] for i in spec.ids])
    object_pts = np.concatenate([objects[i] for i in spec.ids])
    forward = _fit(object_pts, image_pts)
    residual = np.linalg.norm(image_pts - map_points(forward, object_pts), axis=1)
    if residual.max() <= CORNER_OUTLIER_PX:
        return corners
    robust, _ = cv2.findHomography(object_pts.reshape(-1, 1, 2), image_pts.reshape(-1, 1, 2), cv2.RANSAC, 0.5)
    if robust is None:
        raise TargetNotFoundError("calibration target corners do not lie on one plane")
    repaired = {}
    for i in spec.ids:
        better = refine_marker_corners(smooth, map_points(robust, objects[i]))
        if better is None:
            raise TargetNotFoundError(f"calibration target marker {i}: corners off the board's plane and its edges "
                                      "not found where the other markers put them")
        repaired[i] = better
    image_pts = np.concatenate([repaired[i] for i in spec.ids])
    residual = np.linalg.norm(image_pts - map_points(_fit(object_pts, image_pts), object_pts), axis=1)
    if residual.max() > CORNER_OUTLIER_PX:
        bad = sorted({spec.ids[k // 4] for k in np.nonzero(residual > CORNER_OUTLIER_PX)[0]})
        raise TargetNotFoundError(f"calibration target markers {bad} disagree with the board's plane by up to "
                                  f"{residual.max():.2f} px (damaged, folded or partly covered target?)")
    return repaired


def refine_marker_corners(smooth: np.ndarray, quad: np.ndarray) -> np.ndarray | None:
    """Corners of one marker as intersections of lines fitted to its four outer edges (image px).

    The detector's corner refinement looks at a small window around each corner, where the
    black border meets white paper in an L; in our trials it is biased by about 0.14 px (rms),
    the same in every frame. Each side of the marker is a long straight black/white edge:
    locating it sub-pixel along its central 70 % and intersecting adjacent lines removes most of
    that bias (a straight edge stays straight under perspective). Returns ``None`` when the sides
    are too short, an edge is not found, or a corner would move by more than 1.5 px.
    """
    sides = np.roll(quad, -1, axis=0) - quad
    lengths = np.linalg.norm(sides, axis=1)
    if lengths.min() < 12:
        return None
    centre = quad.mean(axis=0)
    reach = float(np.clip(lengths.min() / 14, 1.5, 4.0))    # under half a border cell (a marker is 6 cells wide)
    lines = []
    for k in range(4):
        direction = sides[k] / lengths[k]
        normal = np.array([direction[1], -direction[0]])
        if np.dot(normal, quad[k] + sides[k] / 2 - centre) < 0:
            normal = -normal
        ts = np.linspace(0.15, 0.85, max(8, int(0.7 * lengths[k] / 1.5)))
        points = quad[k] + sides[k] * ts[:, None]
        edges, found, _ = edge_points(smooth, points, np.repeat(normal[None], len(points), axis=0), reach, reach)
        if found.sum() < 6:
            return None
        edges = edges[found]
        centroid = edges.mean(axis=0)
        _, vectors = np.linalg.eigh(np.cov((edges - centroid).T))
        lines.append((centroid, vectors[:, 1]))
    refined = np.empty_like(quad)
    for k in range(4):
        (p, d), (q, e) = lines[k - 1], lines[k]     # corner k joins side k-1 and side k
        matrix = np.column_stack([d, -e])
        if abs(np.linalg.det(matrix)) < 1e-6:
            return None
        s, _ = np.linalg.solve(matrix, q - p)
        refined[k] = p + s * d
    if np.max(np.linalg.norm(refined - quad, axis=1)) > 1.5:
        return None
    return refined


def smoothed(image: np.ndarray) -> np.ndarray:
    """Smoothed float32 copy of the image (grey (H, W) or BGR (H, W, 3))."""
    check_image(image)
    return cv2.GaussianBlur(image.astype(np.float32), (0, 0), _SMOOTH_SIGMA_PX)


_LUMA = np.array([0.114, 0.587, 0.299], dtype=np.float32)  # BGR


def _contrast_weights(inner: np.ndarray, outer: np.ndarray) -> np.ndarray:
    """Channel weights from (N, k, 3) colour samples just inside and outside the searched range of N profiles.

    Luma when the edge shows in it, else the colour contrast. Luma is preferred because JPEG keeps it
    at full resolution and subsamples colour; an edge with under 20 % of its colour contrast in luma
    (a red die on green felt) is read along the colour difference between the two sides. Medians over
    the profiles, so that a pip or a spot near a few of them does not sway the choice.
    """
    contrast = np.median(outer.mean(axis=1) - inner.mean(axis=1), axis=0)
    norm = float(np.linalg.norm(contrast))
    if norm < 1e-3 or abs(float(contrast @ _LUMA)) / np.linalg.norm(_LUMA) >= 0.2 * norm:
        return _LUMA
    return (contrast / norm).astype(np.float32)


class EdgeSearch(NamedTuple):
    """Edges found along normals: positions (N, 2) image px, which were found (N,) bool, and whether the
    outline showed only in colour (its luma contrast under 20 % of its colour contrast)."""

    positions: np.ndarray
    found: np.ndarray
    colour_only: bool


def edge_points(image: np.ndarray, points: np.ndarray, normals: np.ndarray, inner_px: float, outer_px: float
                ) -> EdgeSearch:
    """Sub-pixel edge along each normal, its centre searched within [-inner, +outer] px of each point.

    Profiles extend 2.5 px further each way, so that the centroid window is never cut at the ends.

    Colour profiles are reduced to luma, or to the colour contrast when luma does not show the edge
    (:func:`_contrast_weights`).
    """
    half = _CENTROID_HALF_PX
    ts = np.arange(-inner_px - half, outer_px + half + _STEP_PX / 2, _STEP_PX)
    xs = (points[:, 0, None] + normals[:, 0, None] * ts).astype(np.float32)
    ys = (points[:, 1, None] + normals[:, 1, None] * ts).astype(np.float32)
    profiles = cv2.remap(image, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    colour_only = False
    inner_end = (ts >= -inner_px) & (ts <= -inner_px + 1.0)
    outer_end = (ts >= outer_px - 1.0) & (ts <= outer_px)
    if profiles.ndim == 3:
        weights = _contrast_weights(profiles[:, inner_end], profiles[:, outer_end])
        colour_only = weights is not _LUMA
        profiles = profiles @ weights
    deriv = np.gradient(profiles, _STEP_PX, axis=1)
    rows = np.arange(len(points))
    searched = (ts >= -inner_px - 1e-9) & (ts <= outer_px + 1e-9)
    # polarity: the outline's own contrast between the two ends of the searched range (median over the
    # profiles), so that stronger edges of another polarity nearby (a die's pips) are never taken
    step = float(np.median(profiles[:, outer_end].mean(axis=1) - profiles[:, inner_end].mean(axis=1)))
    if abs(step) > 1.0:
        polarity = 1.0 if step > 0 else -1.0
    else:
        strongest = deriv[rows, np.argmax(np.where(searched, np.abs(deriv), -1.0), axis=1)]
        polarity = 1.0 if np.median(strongest) >= 0 else -1.0
    signed = np.maximum(polarity * deriv, 0.0)
    idx = np.argmax(np.where(searched, signed, -1.0), axis=1)
    strength = signed[rows, idx]
    # centroid of the derivative in a window centred on the estimate itself (fractional end weights), so
    # that a flat-topped or skewed peak does not pull it: unbiased for any edge profile symmetric about the edge
    offset = ts[idx]
    for _ in range(4):
        weight = np.clip(half + 0.5 * _STEP_PX - np.abs(ts[None, :] - offset[:, None]), 0.0, _STEP_PX) * signed
        mass = weight.sum(axis=1)
        offset = np.where(mass > 0, (weight * ts).sum(axis=1) / np.where(mass > 0, mass, 1.0), offset)
    inside = (offset >= -inner_px - 1e-9) & (offset <= outer_px + 1e-9)
    found = inside & (strength > 0)
    if found.any():
        found &= strength > 0.3 * np.median(strength[found])
    return EdgeSearch(points + normals * offset[:, None], found, colour_only)


def edge_width(image: np.ndarray, points: np.ndarray, normals: np.ndarray, reach_px: float) -> float:
    """Median edge spread (px, the sigma of a Gaussian line-spread function) at edge points found by :func:`edge_points`.

    From the ratio of contrast to peak slope: a step of contrast C blurred by a Gaussian of sigma s has
    a peak slope of C / (sqrt(2 pi) s). Includes the smoothing applied by :func:`smoothed`.
    """
    ts = np.arange(-reach_px, reach_px + _STEP_PX / 2, _STEP_PX)
    xs = (points[:, 0, None] + normals[:, 0, None] * ts).astype(np.float32)
    ys = (points[:, 1, None] + normals[:, 1, None] * ts).astype(np.float32)
    profiles = cv2.remap(image, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if profiles.ndim == 3:
        ends = max(1, len(ts) // 6)
        profiles = profiles @ _contrast_weights(profiles[:, :ends], profiles[:, -ends:])
    ends = max(1, len(ts) // 8)
    step = profiles[:, -ends:].mean(axis=1) - profiles[:, :ends].mean(axis=1)
    slope = np.max(np.abs(np.gradient(profiles, _STEP_PX, axis=1)), axis=1)
    ok = slope > 0
    return float(np.median(np.abs(step[ok]) / (np.sqrt(2 * np.pi) * slope[ok]))) if ok.any() else 0.0



@dataclass(frozen=True)
class PlaneScale:
    """Image px -> mm on the target's plane, with the fit's residuals and a Monte-Carlo sample of homographies."""

    homography: np.ndarray
    """3x3, image px -> plane mm."""
    image_corners: np.ndarray = field(repr=False)
    """(N, 2) detected corners, image px."""
    object_corners: np.ndarray = field(repr=False)
    """(N, 2) their true positions on the target, mm."""
    rms_px: float
    """Root mean square reprojection residual of the corners, image px."""
    corner_sigma_px: float
    """Corner localisation standard deviation used for propagation (residual-based, floored), px."""
    samples: np.ndarray = field(repr=False)
    """(K, 3, 3) bootstrap homographies, image px -> mm."""
    marker_ids: tuple[int, ...] = ()
    camera_height_mm: float | None = None
    """Camera centre above the target plane (mm), for parallax; ``None``: no correction."""
    camera_height_uncertainty_mm: float = 0.0
    target_rel_uncertainty: float = 0.0
    """Relative standard uncertainty of the printed target's size (type B, from its certificate)."""

    @classmethod
    def from_image(cls, image: np.ndarray, spec: TargetSpec, *, camera_height_mm: float | None = None,
                   camera_height_uncertainty_mm: float = 0.0, target_rel_uncertainty: float = 0.0,
                   samples: int = 200, rng: np.random.Generator | None = None) -> PlaneScale:
        """Detect ``spec`` in ``image`` and fit the plane scale (raises :class:`TargetNotFoundError`)."""
        detected = detect_target(image, spec)
        objects = target_object_points(spec)
        image_pts = np.concatenate([detected[i] for i in spec.ids])
        object_pts = np.concatenate([objects[i] for i in spec.ids])
        return cls.from_points(image_pts, object_pts, marker_ids=spec.ids, camera_height_mm=camera_height_mm,
                               camera_height_uncertainty_mm=camera_height_uncertainty_mm,
                               target_rel_uncertainty=target_rel_uncertainty, samples=samples, rng=rng)

    @classmethod
    def from_points(cls, image_pts: np.ndarray, object_pts: np.ndarray, *, marker_ids: tuple[int, ...] = (),
                    camera_height_mm: float | None = None, camera_height_uncertainty_mm: float = 0.0,
                    target_rel_uncertainty: float = 0.0, samples: int = 200,
                    rng: np.random.Generator | None = None) -> PlaneScale:
        """Fit from corresponding points: image px (N, 2) and plane mm (N, 2), N >= 5."""
        image_pts = np.asarray(image_pts, dtype=np.float64).reshape(-1, 2)
        object_pts = np.asarray(object_pts, dtype=np.float64).reshape(-1, 2)
        if image_pts.shape != object_pts.shape or len(image_pts) < 5:
            raise ValueError(f"need >= 5 matching points (4 fix a homography exactly, leaving no residual), "
                             f"got {len(image_pts)} image and {len(object_pts)} object points")
        if camera_height_mm is not None and not camera_height_mm > 0:
            raise ValueError(f"camera_height_mm must be > 0, got {camera_height_mm}")
        if camera_height_uncertainty_mm < 0 or target_rel_uncertainty < 0 or samples < 20:
            raise ValueError("uncertainties must be >= 0 and samples >= 20")
        forward = _fit(object_pts, image_pts)                      # mm -> px
        fitted = map_points(forward, object_pts)
        residual = image_pts - fitted
        rss = float(np.sum(residual**2))
        rms = float(np.sqrt(rss / len(image_pts)))
        dof = 2 * len(image_pts) - 8
        sigma = max(float(np.sqrt(rss / dof)) if dof > 0 else 0.0, CORNER_SIGMA_FLOOR_PX)
        rng = rng if rng is not None else np.random.default_rng(0)
        draws = np.empty((samples, 3, 3))
        for k in range(samples):
            draws[k] = np.linalg.inv(_fit(object_pts, fitted + rng.normal(0.0, sigma, fitted.shape)))
        return cls(homography=np.linalg.inv(forward), image_corners=image_pts, object_corners=object_pts,
                   rms_px=rms, corner_sigma_px=sigma, samples=draws, marker_ids=tuple(marker_ids),
                   camera_height_mm=camera_height_mm, camera_height_uncertainty_mm=camera_height_uncertainty_mm,
                   target_rel_uncertainty=target_rel_uncertainty)

    @property
    def rms_mm(self) -> float:
        """Root mean square residual of the corners, expressed on the plane (mm)."""
        return float(np.sqrt(np.mean(np.sum((self.to_mm(self.image_corners) - self.object_corners) ** 2, axis=1))))

    def to_mm(self, points_px: np.ndarray) -> np.ndarray:
        """Map image points (N, 2) to plane mm (N, 2)."""
        return map_points(self.homography, np.asarray(points_px, dtype=np.float64).reshape(-1, 2))

    def px_per_mm(self, at_px: tuple[float, float]) -> float:
        """Local scale (image px per plane mm, geometric mean of the two axes) at an image point."""
        jac = _jacobian(self.homography, np.asarray(at_px, dtype=np.float64))
        return float(1.0 / np.sqrt(abs(np.linalg.det(jac))))

    def propagate(self, value_of: Callable[[np.ndarray], float]) -> tuple[float, float]:
        """``(value, standard uncertainty)`` of ``value_of(homography)`` due to the homography's uncertainty.

        ``value_of`` takes a 3x3 image px -> mm homography and returns a scalar; it is evaluated on the
        fitted homography and on every bootstrap sample (standard deviation, JCGM 101).
        """
        value = float(value_of(self.homography))
        draws = np.array([value_of(h) for h in self.samples], dtype=np.float64)
        return value, float(np.std(draws, ddof=1))

    def height_factor(self, height_mm: float) -> float:
        """(h - z) / h: multiply a plane-measured length of a feature ``height_mm`` above the plane to get its true
        length (1 when no camera height is known)."""
        if self.camera_height_mm is None or height_mm == 0:
            return 1.0
        if not 0 <= height_mm < self.camera_height_mm:
            raise ValueError(f"feature height {height_mm} mm is not between the plane and the camera "
                             f"({self.camera_height_mm} mm)")
        return (self.camera_height_mm - height_mm) / self.camera_height_mm


def _fit(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    hom, _ = cv2.findHomography(src.reshape(-1, 1, 2), dst.reshape(-1, 1, 2), 0)
    if hom is None:
        raise ValueError("homography fit failed: the target corners are degenerate (collinear or repeated)")
    return hom / hom[2, 2]


def _jacobian(hom: np.ndarray, point: np.ndarray) -> np.ndarray:
    x, y = point
    u, v, w = hom @ np.array([x, y, 1.0])
    return np.array([[hom[0, 0] * w - u * hom[2, 0], hom[0, 1] * w - u * hom[2, 1]],
                     [hom[1, 0] * w - v * hom[2, 0], hom[1, 1] * w - v * hom[2, 1]]]) / w**2


def hide_target(image: np.ndarray, scale: PlaneScale, spec: TargetSpec, margin_mm: float = 2.0) -> np.ndarray:
    """A copy of ``image`` with the printed target sheet painted over in the table's colour around it.

    A reader that looks for dice or a ball must not mistake the target's black-and-white markers for
    them. The sheet (the board's markers plus its white quiet zone, and ``margin_mm``) is mapped into
    the image with the scale's homography and filled with the median colour of a 4 mm band outside it.
    """
    low = scale.object_corners.min(axis=0) - spec.quiet_mm - margin_mm
    high = scale.object_corners.max(axis=0) + spec.quiet_mm + margin_mm

    def quad(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        corners_mm = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]], dtype=np.float64)
        return np.round(map_points(np.linalg.inv(scale.homography), corners_mm)).astype(np.int32)

    sheet = np.zeros(image.shape[:2], np.uint8)
    cv2.fillConvexPoly(sheet, quad(low, high), 255)
    band = np.zeros_like(sheet)
    cv2.fillConvexPoly(band, quad(low - 4.0, high + 4.0), 255)
    band &= ~sheet
    out = image.copy()
    if np.any(band):
        out[sheet > 0] = np.median(image[band > 0], axis=0).astype(image.dtype)
    return out
