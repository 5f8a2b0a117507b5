"""Dimensional checks from a camera image against a calibration target: die edges, pip diameters, ball and wheel.

Every function takes simple inputs located by a reader (a die's top-face quadrilateral, pip
circles, a ball circle, the wheel rim's ellipse, all in image px), re-locates the object's edges
itself with sub-pixel precision, and maps them to mm on the target's plane with a
:class:`vision.scale.PlaneScale`.

Edge location (:func:`vision.scale.edge_points`). The image is smoothed (Gaussian, sigma 1 px).
Along the normal of the expected outline, profiles are sampled every 0.25 px (bilinear), in luma,
or along the colour contrast when the outline does not show in luma (a red die on green felt).
The edge is the centroid of the derivative (outline's dominant polarity) in a +-2.5 px window
centred on the estimate itself: unbiased for a straight edge whatever its blur or sub-pixel phase
(on exact renders: < 0.01 px for edges off the pixel axes).
Straight sides use their central 56 % only (rounded corners excluded); circles use rays from the
centre. Edge points are mapped to mm, then fitted: a straight line by total least squares, a circle
by the algebraic (Kasa) fit refined by Gauss-Newton on the geometric distance, each with outliers
beyond 3.5 robust sigmas (1.4826 MAD) removed. The derivative centroid is unbiased for a straight
edge; on a circle of radius R it sits inside by s^2 / (2 R), s being the edge's spread (blur and
smoothing, measured from each outline's contrast / peak slope), and circles are corrected for it.

Uncertainty budget (standard uncertainties, combined in quadrature, JCGM 100:2008):

* ``fit``: scatter of the edge points about the fitted line or circle, s / sqrt(n_eff), with the
  effective number of independent points n_eff = n (1 - rho) / (1 + rho) from the residuals'
  lag-1 autocorrelation rho (neighbouring edge points share pixels and smoothing), and at most one
  per 8 px of outline (16 px for an outline seen only in colour): JPEG moves edges block by block;
* ``colour-edge``: an outline seen only in colour (a red die on green felt) is placed to 0.3 px
  per straight side (type B; colour is sampled at half resolution by JPEG and Bayer sensors);
* ``scale``: the homography's own uncertainty, by Monte-Carlo over the scale's bootstrap
  homographies (JCGM 101:2008), the whole fit repeated for each;
* ``target``: the printed target's relative size uncertainty (type B), times the value;
* ``edge-curvature``: a quarter of the curvature correction of a circle (type B);
* ``camera-height``: the camera height's uncertainty through the parallax correction.

Verdicts use guarded acceptance (ILAC-G8:09/2019 "guard band w = U", ISO 14253-1:2017 decision
rules): with the expanded uncertainty U = k u (k = 2, about 95 %), PASS only when
[value - U, value + U] lies inside the limits, FAIL when it lies wholly outside them, and
INCONCLUSIVE otherwise (the measurement cannot decide; measure better or by another means).

Limits are in :data:`LIMITS`, each with its clause in Portaria 217/2007 (catalogue ids).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import cv2
import numpy as np

from vision.scale import PlaneScale, edge_points, edge_width, smoothed

ROBUST_CUT = 3.5
"""Edge points farther than this many robust sigmas from the fitted outline are outliers."""
CURVATURE_REL_UNCERTAINTY = 0.25
"""Relative standard uncertainty given to the curvature correction of circular outlines (type B)."""
CORRELATION_PX = 8.0
"""Edge errors closer than this are treated as one (a JPEG block; demosaicing and compression move edges by blocks)."""
COLOUR_CORRELATION_PX = 16.0
"""The same for outlines seen only in colour (JPEG and Bayer sensors sample colour at half resolution)."""
COLOUR_EDGE_PX = 0.3
"""Type-B standard uncertainty (px) of the position of a straight outline seen only in colour, per side."""
EDGE_LOCATION_PX = 0.14
"""Standard uncertainty (px) of a die side's located edge line, the same along the whole side, which the scatter of
its points about the line does not show (the points' residuals give 0.14 px on a width, the widths' own spread was
0.40 px). Determined on the ``sim`` arena's measuring stills (``benchmarks/dice_measurement_stills.py``, camera
seeds 1-40, 480 widths): without it twice the stated uncertainty covered 90.4 % of the widths' errors, with it
95.0 %; on seeds 41-80 (474 widths, not used to set it) 89.5 % and 96.0 %."""


class Verdict(StrEnum):
    """Guarded-acceptance verdict of one measurement (ILAC-G8, ISO 14253-1)."""

    PASS = "PASS"
    FAIL = "FAIL"
    INCONCLUSIVE = "INCONCLUSIVE"


@dataclass(frozen=True)
class Limit:
    """Tolerance interval of a measured quantity (mm; ``None`` = unbounded) and the clauses that set it."""

    low_mm: float | None
    high_mm: float | None
    clauses: tuple[str, ...]
    text: str


LIMITS: dict[str, Limit] = {
    "die-edge/banca-francesa": Limit(12.0, 15.0, ("p217-2007/banca-francesa/3",),
                                     "b) Igual comprimento das arestas dentro dos limites de 12 mm a 15 mm"),
    "die-edge/cussec": Limit(12.0, 15.0, ("p217-2007/cussec/1",),
                             "b) Igual comprimento das arestas, dentro dos limites de 12 mm e 15 mm"),
    "die-edge/craps": Limit(18.0, 20.0, ("p217-2007/craps/2",),
                            "b) Igual comprimento das arestas não superior a 20 mm nem inferior a 18 mm"),
    "pip-diameter-spread": Limit(None, 0.25, ("p217-2007/banca-francesa/3", "p217-2007/craps/2", "p217-2007/cussec/1"),
                                 "d) Pintas com o mesmo diâmetro e bem visíveis (no numeric tolerance in the "
                                 "regulation: 0.25 mm is the bench's default, set per profile)"),
    "ball-diameter": Limit(18.0, 24.0, ("p217-2007/roleta-francesa/9", "p217-2007/roleta-americana/17"),
                           "duas bolas ... com diâmetro compreendido entre 18 mm e 24 mm"),
    "wheel-diameter": Limit(500.0, 600.0, ("p217-2007/roleta-francesa/3", "p217-2007/roleta-americana/3"),
                            "cilindro com diâmetro variável entre 50 cm e 60 cm"),
}
"""Limits by quantity: die edges (b), pips of equal diameter (d), roulette ball, roulette wheel (Portaria 217/2007)."""


def guarded_verdict(value: float, uncertainty: float, k: float, low: float | None, high: float | None) -> Verdict:
    """PASS when value +- k u lies inside [low, high], FAIL when wholly outside, else INCONCLUSIVE."""
    expanded = k * uncertainty
    lo, hi = value - expanded, value + expanded
    if (low is not None and hi < low) or (high is not None and lo > high):
        return Verdict.FAIL
    if (low is None or lo >= low) and (high is None or hi <= high):
        return Verdict.PASS
    return Verdict.INCONCLUSIVE


@dataclass(frozen=True)
class Measurement:
    """One dimensional measurement with its standard uncertainty and guarded-acceptance verdict.

    The verdict follows ILAC-G8 / ISO 14253-1 guarded acceptance with guard band U = k u:
    PASS only when value +- k u lies inside the limits, FAIL when it lies wholly outside them,
    INCONCLUSIVE otherwise. ``components`` is the uncertainty budget (standard uncertainties, mm).
    """

    quantity: str
    value_mm: float
    standard_uncertainty_mm: float
    limits_mm: tuple[float | None, float | None]
    coverage_k: float = 2.0
    clauses: tuple[str, ...] = ()
    method: str = ""
    components: Mapping[str, float] = field(default_factory=dict)
    details: Mapping[str, Any] = field(default_factory=dict, repr=False)
    verdict: Verdict = field(init=False)

    def __post_init__(self) -> None:
        if not np.isfinite(self.value_mm) or not np.isfinite(self.standard_uncertainty_mm):
            raise ValueError(f"{self.quantity}: value and uncertainty must be finite, got {self.value_mm}, "
                             f"{self.standard_uncertainty_mm}")
        if self.standard_uncertainty_mm < 0 or not self.coverage_k > 0:
            raise ValueError(f"{self.quantity}: uncertainty must be >= 0 and coverage_k > 0")
        low, high = self.limits_mm
        if low is None and high is None:
            raise ValueError(f"{self.quantity}: a measurement needs at least one limit")
        if low is not None and high is not None and low > high:
            raise ValueError(f"{self.quantity}: limits {self.limits_mm} are reversed")
        object.__setattr__(self, "verdict", guarded_verdict(self.value_mm, self.standard_uncertainty_mm,
                                                            self.coverage_k, low, high))

    @property
    def expanded_uncertainty_mm(self) -> float:
        """U = k u."""
        return self.coverage_k * self.standard_uncertainty_mm

    def describe(self) -> str:
        low, high = self.limits_mm
        limits = f"[{'-inf' if low is None else f'{low:g}'}, {'+inf' if high is None else f'{high:g}'}] mm"
        return (f"{self.quantity} = {self.value_mm:.3f} mm ± {self.expanded_uncertainty_mm:.3f} mm "
                f"(k = {self.coverage_k:g}), limits {limits}: {self.verdict.value}")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready record (details included when they are plain values)."""
        return {"quantity": self.quantity, "value_mm": self.value_mm,
                "standard_uncertainty_mm": self.standard_uncertainty_mm, "coverage_k": self.coverage_k,
                "expanded_uncertainty_mm": self.expanded_uncertainty_mm, "limits_mm": list(self.limits_mm),
                "verdict": self.verdict.value, "clauses": list(self.clauses), "method": self.method,
                "components": dict(self.components), "details": dict(self.details)}


# --------------------------------------------------------------------------- edge location


def _map_batch(homographies: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(K, 3, 3) homographies applied to (M, 2) points -> (K, M, 2)."""
    hom = np.concatenate([points, np.ones((len(points), 1))], axis=1)
    mapped = np.einsum("kij,mj->kmi", homographies, hom)
    return mapped[..., :2] / mapped[..., 2:3]


def _robust_sigma(residual: np.ndarray) -> float:
    return float(1.4826 * np.median(np.abs(residual - np.median(residual))))


def _n_effective(residual: np.ndarray, spacing_px: float, correlation_px: float) -> float:
    """Effective number of independent edge points: n (1 - rho) / (1 + rho) with rho the lag-1 autocorrelation
    of the ordered residuals (clipped to 0..0.95), and at most one point per ``correlation_px`` of outline."""
    n = len(residual)
    r = residual - residual.mean()
    denom = float(np.dot(r, r))
    rho = float(np.dot(r[:-1], r[1:]) / denom) if denom > 0 and n > 2 else 0.0
    rho = min(max(rho, 0.0), 0.95)
    return max(min(n * (1 - rho) / (1 + rho), n * spacing_px / correlation_px), 2.0)


def _line_fit(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Total least squares line through (n, 2) points with robust outlier removal: (centroid, unit normal, inliers)."""
    keep = np.ones(len(points), dtype=bool)
    for _ in range(3):
        centroid = points[keep].mean(axis=0)
        _, vectors = np.linalg.eigh(np.cov((points[keep] - centroid).T))
        normal = vectors[:, 0]
        residual = (points - centroid) @ normal
        sigma = _robust_sigma(residual[keep])
        new = np.abs(residual - np.median(residual[keep])) <= ROBUST_CUT * max(sigma, 1e-9)
        if new.sum() < max(5, len(points) // 2) or np.array_equal(new, keep):
            break
        keep = new
    centroid = points[keep].mean(axis=0)
    _, vectors = np.linalg.eigh(np.cov((points[keep] - centroid).T))
    return centroid, vectors[:, 0], keep


def _line_batch(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TLS lines through (K, n, 2) point sets: centroids (K, 2), unit normals (K, 2)."""
    centroid = points.mean(axis=1)
    centred = points - centroid[:, None, :]
    cov = np.einsum("kni,knj->kij", centred, centred)
    _, vectors = np.linalg.eigh(cov)
    return centroid, vectors[:, :, 0]


def _kasa(points: np.ndarray) -> np.ndarray:
    """Algebraic circle fits of (K, n, 2) point sets: (K, 3) = centre x, centre y, radius."""
    x, y = points[..., 0], points[..., 1]
    design = np.stack([x, y, np.ones_like(x)], axis=-1)
    target = x**2 + y**2
    normal = np.einsum("kni,knj->kij", design, design)
    rhs = np.einsum("kni,kn->ki", design, target)
    a, b, c = np.linalg.solve(normal, rhs[..., None])[..., 0].T
    cx, cy = a / 2, b / 2
    return np.stack([cx, cy, np.sqrt(np.maximum(c + cx**2 + cy**2, 0))], axis=-1)


def _circle_fit(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Geometric circle fit with robust outlier removal: ((cx, cy, r), inliers)."""
    keep = np.ones(len(points), dtype=bool)
    circle = _kasa(points[None])[0]
    for _ in range(4):
        for _ in range(5):  # Gauss-Newton on the geometric distance
            d = points[keep] - circle[:2]
            dist = np.hypot(d[:, 0], d[:, 1])
            jac = np.column_stack([-d[:, 0] / dist, -d[:, 1] / dist, -np.ones(len(dist))])
            step, *_ = np.linalg.lstsq(jac, -(dist - circle[2]), rcond=None)
            circle = circle + step
            if np.max(np.abs(step)) < 1e-9:
                break
        residual = np.hypot(*(points - circle[:2]).T) - circle[2]
        sigma = _robust_sigma(residual[keep])
        new = np.abs(residual) <= ROBUST_CUT * max(sigma, 1e-9)
        if new.sum() < max(8, len(points) // 2) or np.array_equal(new, keep):
            break
        keep = new
    return circle, keep


def _combine(components: dict[str, float]) -> float:
    return float(np.sqrt(sum(v**2 for v in components.values())))


# --------------------------------------------------------------------------- die edges


def _die_quad(read: object) -> np.ndarray:
    """A die's top-face quadrilateral (4, 2) image px from an array, ``corners_px``, or ``centre_px``/``edge_px``."""
    if isinstance(read, np.ndarray | list | tuple) and np.asarray(read, dtype=float).shape == (4, 2):
        return np.asarray(read, dtype=np.float64)
    corners = getattr(read, "corners_px", None)
    if corners is not None and np.asarray(corners, dtype=float).shape == (4, 2):
        return np.asarray(corners, dtype=np.float64)
    centre, edge = getattr(read, "centre_px", None), getattr(read, "edge_px", None)
    if centre is not None and edge is not None:
        theta = np.deg2rad(float(getattr(read, "angle_deg", 0.0)))
        c, s = np.cos(theta), np.sin(theta)
        unit = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]]) * float(edge) / 2
        return unit @ np.array([[c, s], [-s, c]]).T + np.asarray(centre, dtype=np.float64)
    raise ValueError(f"die read {read!r} gives no top-face quadrilateral: pass a (4, 2) array, or an object with "
                     "corners_px (4 corners) or centre_px and edge_px")


def _side_edges(smooth: np.ndarray, quad: np.ndarray) -> list[tuple[np.ndarray, float, bool]]:
    """Edge points (image px) of each of the 4 sides of the quadrilateral, central 56 % of each side, with the
    spacing of the search points (px) and whether the side showed only in colour."""
    centre = quad.mean(axis=0)
    sides = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        length = float(np.linalg.norm(b - a))
        if length < 8:
            raise ValueError(f"die quadrilateral side {k} is {length:.1f} px long; too small to measure")
        direction = (b - a) / length
        normal = np.array([direction[1], -direction[0]])
        if np.dot(normal, (a + b) / 2 - centre) < 0:
            normal = -normal
        ts = np.linspace(0.22, 0.78, max(8, int(0.56 * length)))
        points = a + (b - a) * ts[:, None]
        reach = max(2.5, 0.07 * length)   # pips start 0.14 of the edge inside
        edges, found, colour_only = edge_points(smooth, points, np.repeat(normal[None], len(points), axis=0),
                                                reach, reach)
        if found.sum() < 6:
            raise ValueError(f"die side {k}: no clear edge near the quadrilateral ({int(found.sum())} points)")
        sides.append((edges[found], 0.56 * length / (len(ts) - 1), colour_only))
    return sides


def measure_die_edges(image: np.ndarray, scale: PlaneScale, die_reads: Sequence[object], *,
                      game: str = "banca-francesa", nadir_px: tuple[float, float] | None = None,
                      edge_definition_mm: float = 0.0, coverage_k: float = 2.0) -> list[Measurement]:
    """Edge length of each die, measured across flats on its top face, two measurements per die (sides 1-3, 2-4).

    ``die_reads``: for each die, its top-face quadrilateral in image px (a (4, 2) array, or an object
    with ``corners_px``, or with ``centre_px``, ``edge_px`` and ``angle_deg``). The quadrilateral only
    guides the search: each side's edge is re-located in the image (+-7 % of the side) and fitted
    as a line in mm; the edge length is the mean distance between opposite lines. Rounded corners of
    the die do not bias it (only the central 56 % of each side is used).

    Parallax: the top face is one edge length s above the table; with the scale's camera height h the
    plane-measured width w is corrected to s = w h / (h + w) (solving w = s h / (h - s)).

    Side faces: away from the camera's nadir (``nadir_px``, the image point straight below the camera;
    default the image centre), a die shows the side faces that look towards it, each a band of plane
    width d s / (h - s) at a distance d from the nadir, where the outline may be found instead of the
    top face's edge. That band's width, divided by sqrt(3) (rectangular distribution), enters the
    budget as ``side-faces``: measure dice near the nadir. Without a camera height it is not assessed.

    Edge location: each side's located line may sit off the true edge by the same amount along the whole side,
    which its points' scatter does not show: :data:`EDGE_LOCATION_PX` per side enters the budget as
    ``edge-location``.

    Edge definition: a die whose top face shades off towards rounded or bevelled edges has no sharp
    outline, and the located edge moves inwards with the shading (on a rendered die with a 1.4 mm
    bevel: 0.17 mm on the width). ``edge_definition_mm`` is that type-B standard uncertainty of the
    width, declared for the dice model (0 for sharp-edged precision dice).

    Limits (``game``): 12-15 mm for ``banca-francesa`` (p217-2007/banca-francesa/3 b) and ``cussec``
    (p217-2007/cussec/1 b), 18-20 mm for ``craps`` (p217-2007/craps/2 b).
    """
    key = f"die-edge/{game}"
    if key not in LIMITS:
        raise ValueError(f"unknown dice game {game!r}: use banca-francesa, cussec or craps")
    if edge_definition_mm < 0:
        raise ValueError(f"edge_definition_mm must be >= 0, got {edge_definition_mm}")
    limit = LIMITS[key]
    smooth = smoothed(image)
    results = []
    for die_number, read in enumerate(die_reads, start=1):
        searched = _side_edges(smooth, _die_quad(read))
        sides_px = [points for points, _, _ in searched]
        sides_mm = [scale.to_mm(points) for points in sides_px]
        fits = [_line_fit(points) for points in sides_mm]
        for label, (i, j) in (("a", (0, 2)), ("b", (1, 3))):
            (ci, ni, keep_i), (cj, nj, keep_j) = fits[i], fits[j]
            width = 0.5 * (abs(float(np.dot(nj, ci - cj))) + abs(float(np.dot(ni, cj - ci))))
            fit_var = colour_var = location_var = 0.0
            for k, centroid, normal, keep in ((i, ci, ni, keep_i), (j, cj, nj, keep_j)):
                residual = (sides_mm[k][keep] - centroid) @ normal
                _, spacing, colour_only = searched[k]
                correlation = COLOUR_CORRELATION_PX if colour_only else CORRELATION_PX
                fit_var += float(np.var(residual, ddof=2)) / _n_effective(residual, spacing, correlation)
                mm_per_px = 1.0 / scale.px_per_mm(tuple(sides_px[k].mean(axis=0)))
                location_var += (EDGE_LOCATION_PX * mm_per_px) ** 2
                if colour_only:
                    colour_var += (COLOUR_EDGE_PX * mm_per_px) ** 2
            # Monte-Carlo over the scale's homographies: the same inlier points, refitted
            pi, pj = sides_px[i][keep_i], sides_px[j][keep_j]
            ki, kni = _line_batch(_map_batch(scale.samples, pi))
            kj, knj = _line_batch(_map_batch(scale.samples, pj))
            draws = 0.5 * (np.abs(np.einsum("ki,ki->k", knj, ki - kj)) + np.abs(np.einsum("ki,ki->k", kni, kj - ki)))
            plane = {"fit": float(np.sqrt(fit_var)), "scale": float(np.std(draws, ddof=1)),
                     "target": scale.target_rel_uncertainty * width, "edge-definition": float(edge_definition_mm),
                     "colour-edge": float(np.sqrt(colour_var)), "edge-location": float(np.sqrt(location_var))}
            value, components, details = _die_parallax(width, plane, scale)
            if scale.camera_height_mm is not None:
                nadir = scale.to_mm(np.asarray(image.shape[1::-1], dtype=float)[None] / 2 - 0.5 if nadir_px is None
                                    else np.asarray(nadir_px, dtype=float)[None])[0]
                band = sum(max(0.0, float(np.dot(nadir - c, n if np.dot(n, c - (ci + cj) / 2) > 0 else -n)))
                           for c, n in ((ci, ni), (cj, nj))) * value / (scale.camera_height_mm - value)
                components["side-faces"] = band / np.sqrt(3)
                details["side_face_band_mm"] = band
            details.update(points=int(keep_i.sum() + keep_j.sum()), sides=(i + 1, j + 1))
            results.append(Measurement(
                quantity=f"die {die_number} edge {label}", value_mm=value,
                standard_uncertainty_mm=_combine(components), limits_mm=(limit.low_mm, limit.high_mm),
                coverage_k=coverage_k, clauses=limit.clauses,
                method="top-face sides re-located sub-pixel, TLS lines in mm, across-flats distance",
                components=components, details=details))
    return results


def _die_parallax(width: float, plane: dict[str, float], scale: PlaneScale
                  ) -> tuple[float, dict[str, float], dict[str, Any]]:
    """Correct a top-face width for the die's own height; scale the plane components by ds/dw."""
    details: dict[str, Any] = {"plane_width_mm": width}
    h = scale.camera_height_mm
    if h is None:
        return width, plane, details
    value = width * h / (h + width)
    gain = h**2 / (h + width) ** 2                                   # ds/dw
    components = {name: u * gain for name, u in plane.items()}
    components["camera-height"] = scale.camera_height_uncertainty_mm * width**2 / (h + width) ** 2
    details["parallax_factor"] = value / width
    return value, components, details


# --------------------------------------------------------------------------- circles


def _circle_region(region: object) -> tuple[float, float, float]:
    """(cx, cy, r) px from a circle tuple or a contour (N, 2) (its enclosing circle)."""
    arr = np.asarray(region, dtype=np.float64)
    if arr.shape == (3,):
        cx, cy, r = (float(v) for v in arr)
    elif arr.ndim >= 2 and arr.shape[-1] == 2 and arr.size >= 10:
        (cx, cy), r = cv2.minEnclosingCircle(arr.reshape(-1, 1, 2).astype(np.float32))
    else:
        raise ValueError(f"a circular region must be (cx, cy, r) or a contour of >= 5 points, got shape {arr.shape}")
    if not r > 2:
        raise ValueError(f"circular region radius {r:.2f} px is too small to measure")
    return float(cx), float(cy), float(r)


def _measure_circle(smooth: np.ndarray, scale: PlaneScale, points: np.ndarray, normals: np.ndarray, inner: float,
                    outer: float, what: str) -> tuple[float, dict[str, float], dict[str, Any]]:
    """Radius on the plane (mm) of an outline searched along ``normals``; with fit and scale uncertainty."""
    edges, found, colour_only = edge_points(smooth, points, normals, inner, outer)
    if found.sum() < 12:
        raise ValueError(f"{what}: outline not found ({int(found.sum())} edge points)")
    edges, normals = edges[found], normals[found]
    # curvature: a blurred convex outline's edge sits inside the true one by s^2 / (2 R) (s: edge spread)
    centre_px = _kasa(edges[None])[0]
    spread = edge_width(smooth, edges, normals, min(inner, outer, 4.0))
    shift = spread**2 / (2 * centre_px[2])
    radial = edges - centre_px[:2]
    edges = edges + radial / np.linalg.norm(radial, axis=1, keepdims=True) * shift
    mm = scale.to_mm(edges)
    circle, keep = _circle_fit(mm)
    residual = np.hypot(*(mm[keep] - circle[:2]).T) - circle[2]
    spacing = 2 * np.pi * float(centre_px[2]) / len(points)
    correlation = COLOUR_CORRELATION_PX if colour_only else CORRELATION_PX
    u_fit = float(np.sqrt(np.var(residual, ddof=3) / _n_effective(residual, spacing, correlation)))
    draws = _kasa(_map_batch(scale.samples, edges[keep]))[:, 2]
    mm_per_px = float(circle[2]) / float(centre_px[2])
    components = {"fit": u_fit, "scale": float(np.std(draws, ddof=1)),
                  "edge-curvature": CURVATURE_REL_UNCERTAINTY * shift * mm_per_px,
                  "colour-edge": (COLOUR_EDGE_PX * mm_per_px / np.sqrt(max(1.0, 2 * np.pi * float(centre_px[2])
                                                                         / COLOUR_CORRELATION_PX))
                                  if colour_only else 0.0),
                  "target": scale.target_rel_uncertainty * float(circle[2])}
    details = {"points": int(keep.sum()), "rejected": int((~keep).sum() + (~found).sum()),
               "centre_mm": (float(circle[0]), float(circle[1])), "edge_spread_px": spread,
               "curvature_correction_px": shift}
    return float(circle[2]), components, details


def _rays(cx: float, cy: float, r: float, count: int) -> tuple[np.ndarray, np.ndarray]:
    angles = np.linspace(0, 2 * np.pi, count, endpoint=False)
    normals = np.column_stack([np.cos(angles), np.sin(angles)])
    return np.array([cx, cy]) + r * normals, normals


def measure_ball_diameter(image: np.ndarray, scale: PlaneScale, ball_px_region: object, *,
                          coverage_k: float = 2.0) -> Measurement:
    """Diameter of a roulette ball resting on the target's plane (18-24 mm: p217-2007/roleta-francesa/9,
    p217-2007/roleta-americana/17).

    ``ball_px_region``: ``(cx, cy, r)`` image px, or the ball's contour. The outline is re-located on
    rays from the centre (0.7 r to 1.3 r) and fitted as a circle in mm. Parallax: a sphere of radius R
    on the plane, seen from height h, has an outline of plane radius r = h R / sqrt((h - R)^2 - R^2);
    with the scale's camera height it is inverted as R = (r sqrt(r^2 + h^2) - r^2) / h.
    """
    cx, cy, r = _circle_region(ball_px_region)
    points, normals = _rays(cx, cy, r, int(np.clip(2 * np.pi * r / 1.5, 32, 360)))
    radius, plane, details = _measure_circle(smoothed(image), scale, points, normals, 0.3 * r, 0.3 * r, "ball")
    h = scale.camera_height_mm
    if h is None:
        value, components = 2 * radius, {name: 2 * u for name, u in plane.items()}
    else:
        def sphere(rp: float, height: float) -> float:
            return (rp * np.sqrt(rp**2 + height**2) - rp**2) / height

        gain = (sphere(radius + 1e-4, h) - sphere(radius - 1e-4, h)) / 2e-4
        value = 2 * sphere(radius, h)
        components = {name: 2 * gain * u for name, u in plane.items()}
        dh = (sphere(radius, h + 1e-2) - sphere(radius, h - 1e-2)) / 2e-2
        components["camera-height"] = 2 * abs(dh) * scale.camera_height_uncertainty_mm
        details["outline_diameter_mm"] = 2 * radius
    limit = LIMITS["ball-diameter"]
    return Measurement(quantity="ball diameter", value_mm=value, standard_uncertainty_mm=_combine(components),
                       limits_mm=(limit.low_mm, limit.high_mm), coverage_k=coverage_k, clauses=limit.clauses,
                       method="outline re-located on radial profiles, geometric circle fit in mm"
                              + ("" if h is None else ", sphere parallax corrected"),
                       components=components, details=details)


def measure_wheel_diameter(image: np.ndarray, scale: PlaneScale, rim_ellipse: object, *, rim_height_mm: float = 0.0,
                           coverage_k: float = 2.0) -> Measurement:
    """Outer diameter of a roulette wheel (50-60 cm: p217-2007/roleta-francesa/3, p217-2007/roleta-americana/3).

    ``rim_ellipse``: the rim's outline in image px, as ``cv2.fitEllipse`` gives it
    (``((cx, cy), (width, height), angle_deg)``). The rim edge is re-located along the ellipse's normals
    (+-5 % of its size) and fitted as a circle in mm on the target's plane. A rim ``rim_height_mm`` above
    that plane is corrected by (h - z) / h with the scale's camera height.
    """
    try:
        (cx, cy), (width, height), angle = rim_ellipse  # type: ignore[misc]
    except (TypeError, ValueError) as error:
        raise ValueError(f"rim_ellipse must be ((cx, cy), (width, height), angle_deg), got {rim_ellipse!r}") from error
    a, b = float(width) / 2, float(height) / 2
    if min(a, b) < 10:
        raise ValueError(f"rim ellipse {width} x {height} px is too small to measure a wheel")
    count = int(np.clip(np.pi * (a + b) / 2.0, 64, 720))
    phi = np.linspace(0, 2 * np.pi, count, endpoint=False)
    theta = np.deg2rad(float(angle))
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])  # cv2 ellipse angle
    points = np.column_stack([a * np.cos(phi), b * np.sin(phi)]) @ rot.T + np.array([cx, cy], dtype=float)
    normals = np.column_stack([np.cos(phi) / a, np.sin(phi) / b]) @ rot.T
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    reach = max(4.0, 0.05 * max(a, b))
    radius, plane, details = _measure_circle(smoothed(image), scale, points, normals, reach, reach, "wheel rim")
    factor = scale.height_factor(rim_height_mm)
    value = 2 * radius * factor
    components = {name: 2 * u * factor for name, u in plane.items()}
    if scale.camera_height_mm is not None and rim_height_mm:
        components["camera-height"] = (2 * radius * rim_height_mm / scale.camera_height_mm**2
                                       * scale.camera_height_uncertainty_mm)
    details["parallax_factor"] = factor
    limit = LIMITS["wheel-diameter"]
    return Measurement(quantity="wheel diameter", value_mm=value, standard_uncertainty_mm=_combine(components),
                       limits_mm=(limit.low_mm, limit.high_mm), coverage_k=coverage_k, clauses=limit.clauses,
                       method="rim re-located along the ellipse normals, geometric circle fit in mm",
                       components=components, details=details)


def measure_pip_diameters(image: np.ndarray, scale: PlaneScale, pips: Sequence[object], *,
                          die_height_mm: float = 0.0) -> list[tuple[float, float]]:
    """Diameter (mm) and its standard uncertainty for each pip (``(cx, cy, r)`` px or a contour).

    The pip outline is searched on rays from 0.4 r to 1.6 r (2 r for small pips). Pips on a die's top face lie
    ``die_height_mm`` above the table: corrected by (h - z) / h with the scale's camera height.
    """
    smooth = smoothed(image)
    factor = scale.height_factor(die_height_mm)
    out = []
    for number, pip in enumerate(pips, start=1):
        cx, cy, r = _circle_region(pip)
        points, normals = _rays(cx, cy, r, int(np.clip(2 * np.pi * r, 24, 180)))
        inner, outer = 0.6 * r, min(r, max(0.6 * r, 3.0))
        radius, components, _ = _measure_circle(smooth, scale, points, normals, inner, outer, f"pip {number}")
        out.append((2 * radius * factor, 2 * factor * _combine(components)))
    return out


def pip_diameters_equal(image: np.ndarray, scale: PlaneScale, pips: Sequence[object], *, tolerance_mm: float = 0.25,
                        die_height_mm: float = 0.0, quantity: str = "pip diameter spread",
                        coverage_k: float = 2.0) -> Measurement:
    """Whether a die's pips have the same diameter: the spread (largest - smallest diameter) against a tolerance.

    Clause "d) Pintas com o mesmo diâmetro" (p217-2007/banca-francesa/3, p217-2007/craps/2,
    p217-2007/cussec/1) states no number; ``tolerance_mm`` (default 0.25 mm) is the bench's policy,
    set per profile. The spread's standard uncertainty combines the two extreme pips' own
    uncertainties (the scale's, common to both, largely cancels and is included in each). The range
    of noisy diameters is biased upwards, which errs towards INCONCLUSIVE / FAIL, never towards PASS.
    """
    if len(pips) < 2:
        raise ValueError(f"need at least 2 pips to compare diameters, got {len(pips)}")
    if not tolerance_mm > 0:
        raise ValueError(f"tolerance_mm must be > 0, got {tolerance_mm}")
    diameters = measure_pip_diameters(image, scale, pips, die_height_mm=die_height_mm)
    values = np.array([d for d, _ in diameters])
    big, small = int(np.argmax(values)), int(np.argmin(values))
    components = {"largest pip": diameters[big][1], "smallest pip": diameters[small][1]}
    limit = LIMITS["pip-diameter-spread"]
    return Measurement(quantity=quantity, value_mm=float(values[big] - values[small]),
                       standard_uncertainty_mm=_combine(components), limits_mm=(None, tolerance_mm),
                       coverage_k=coverage_k, clauses=limit.clauses,
                       method="each pip's outline fitted as a circle in mm; spread = largest - smallest",
                       components=components,
                       details={"diameters_mm": [round(float(d), 4) for d in values],
                                "uncertainties_mm": [round(float(u), 4) for _, u in diameters]})
