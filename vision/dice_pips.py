"""Pips of one die: find the spots on a die's body and check they form one of the six canonical faces.

Pip contrast is measured against the die's own body nearby, so it does not depend on the light:
black pips on an opaque die are darker than the local maximum of grey (a grey-level closing),
white pips on a translucent red die are whiter (min of blue and green) than the local minimum,
relative to the local red level. The pips of the other faces seen through a translucent body are
dimmer and are left below the threshold.

A face is accepted only when its pips sit on the 3 x 3 grid of the face: after removing the
mean and the rotation, every pip must lie within ``tolerance`` grid spacings of a grid node, and
the occupied nodes must be exactly one of the canonical layouts of 1..6 (either orientation of 2,
3 and 6). Counting spots alone is never enough: a chipped face, a glare spot or a pip of a
neighbouring face gives a set that is on no canonical layout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

_LAYOUTS: dict[int, tuple[frozenset[tuple[int, int]], ...]] = {
    1: (frozenset({(0, 0)}),),
    2: (frozenset({(-1, -1), (1, 1)}), frozenset({(1, -1), (-1, 1)})),
    3: (frozenset({(-1, -1), (0, 0), (1, 1)}), frozenset({(1, -1), (0, 0), (-1, 1)})),
    4: (frozenset({(-1, -1), (1, -1), (-1, 1), (1, 1)}),),
    5: (frozenset({(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)}),),
    6: (frozenset({(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)}),
        frozenset({(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)})),
}


@dataclass(frozen=True)
class Pips:
    """Pip candidates of one region: centres (N, 2) full-res px, areas, elongation (minor/major), contrast."""

    centres: np.ndarray
    areas: np.ndarray
    elongation: np.ndarray
    contrast: np.ndarray
    major_angle: np.ndarray
    """Direction of each spot's long axis, degrees in [0, 180)."""

    def subset(self, keep: np.ndarray) -> Pips:
        """The pips where ``keep`` is True (or at those indices)."""
        return Pips(self.centres[keep], self.areas[keep], self.elongation[keep], self.contrast[keep],
                    self.major_angle[keep])

    def __len__(self) -> int:
        return len(self.areas)

    @property
    def diameters(self) -> np.ndarray:
        """Equivalent-circle diameters, px."""
        return 2.0 * np.sqrt(self.areas / np.pi)


def pip_contrast(patch: np.ndarray, translucent: bool, kernel: int) -> np.ndarray:
    """Per-pixel pip contrast in 0..1 for a BGR patch (black pips on white, or white pips on red)."""
    element = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kernel, kernel))
    # (the local minimum and maximum are taken on the 8-bit channels, several times faster than on floats, and the
    # same values)
    if translucent:
        white8 = cv2.min(patch[..., 0], patch[..., 1])
        white, base = white8.astype(np.float32), cv2.erode(white8, element).astype(np.float32)
        red8 = np.ascontiguousarray(patch[..., 2])
        red, level = red8.astype(np.float32), cv2.dilate(red8, element).astype(np.float32)
        whitish = red >= 0.75 * level  # a white pip is as red as the brightest red nearby; the cloth is not
        return np.where(whitish, (white - base) / np.maximum(level, 30.0), 0.0)
    grey8 = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    grey, local = grey8.astype(np.float32), cv2.dilate(grey8, element).astype(np.float32)
    return (local - grey) / np.maximum(local, 30.0)


GHOST_WHITENESS = 0.55
"""Least whiteness (:func:`spot_whiteness`) of a translucent red die's painted pip; a spot less white is a pip of
another face seen through the die. Measured on 3,004 pips of red dice read right (900 rendered frames, realistic
nuisance): the least white was 0.67; pips seen through measured 0.39 to 0.51."""


def spot_whiteness(patch: np.ndarray, at: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """How white each spot of a red die is: the largest ratio of the lesser of blue and green to red over the 3 x 3
    pixels at its centre (about 1 for white paint, 0.4 to 0.5 for the pinkish pips of another face seen through).
    ``at`` is the spots' centres as (rows, columns) of the patch (:func:`vision.dice_types.pixel`)."""
    blue, green, red = (patch[..., k].astype(np.float32) for k in range(3))
    ratio = cv2.dilate(cv2.min(blue, green) / cv2.max(red, 1.0), np.ones((3, 3), np.uint8))
    return ratio[at]


def find_pips(contrast: np.ndarray, inside: np.ndarray, threshold: float, origin: tuple[int, int],
              min_area: float = 4.0, relative: float = 0.5, floor: float = 0.2) -> Pips:
    """Spots of high contrast within ``inside`` (uint8 mask), as :class:`Pips` in frame px.

    The threshold is ``relative`` times the strongest (smoothed) contrast on the region, kept
    between ``floor`` and ``threshold``: a blurred frame lowers every pip's contrast alike, while
    the pips of other faces seen through a translucent die stay at a third of the real ones.
    """
    empty = np.zeros((0,))
    if not cv2.countNonZero(inside):
        return Pips(np.zeros((0, 2)), empty, empty, empty, empty)
    contrast = np.asarray(contrast, np.float32)
    peak = float(cv2.minMaxLoc(cv2.GaussianBlur(contrast, (3, 3), 0), mask=inside)[1])
    level = float(min(max(relative * peak, floor), threshold))  # (numpy's clip is slow on one value)
    spots = cv2.bitwise_and(cv2.compare(contrast, level, cv2.CMP_GE), inside)
    count, labels = cv2.connectedComponents(spots, connectivity=8)
    if count <= 1:
        return Pips(np.zeros((0, 2)), empty, empty, empty, empty)
    xs, ys = cv2.findNonZero(spots).reshape(-1, 2).T.astype(np.intp)  # row by row, as np.nonzero
    lab = labels[ys, xs]
    n = np.bincount(lab, minlength=count).astype(np.float64)
    safe = np.maximum(n, 1)
    mx = np.bincount(lab, xs, count) / safe
    my = np.bincount(lab, ys, count) / safe
    dx, dy = xs - mx[lab], ys - my[lab]
    sxx = np.bincount(lab, dx * dx, count) / safe + 1 / 12
    syy = np.bincount(lab, dy * dy, count) / safe + 1 / 12
    sxy = np.bincount(lab, dx * dy, count) / safe
    tr, det = sxx + syy, sxx * syy - sxy * sxy
    disc = np.sqrt(np.maximum(tr * tr / 4 - det, 0))
    lmax, lmin = tr / 2 + disc, np.maximum(tr / 2 - disc, 1e-6)
    elong = np.sqrt(lmin / lmax)
    angle = np.degrees(0.5 * np.arctan2(2 * sxy, sxx - syy)) % 180.0
    mean_c = np.bincount(lab, contrast[ys, xs], count) / safe
    keep = np.arange(count) > 0
    keep &= n >= min_area
    centres = np.column_stack([mx + origin[0], my + origin[1]])
    return Pips(centres[keep], n[keep], elong[keep], mean_c[keep], angle[keep])


@dataclass(frozen=True)
class FaceFit:
    """A canonical face fitted to pips: value, centre (px), angle (deg, 0..90), grid spacing (px), residual.

    ``residual`` is the largest distance of a pip from its grid node in grid spacings;
    ``squareness`` is the ratio of the fitted grid's two axis lengths (1 for a face seen square-on;
    only measured with 4 or more pips, else 1).
    """

    face: int
    centre: tuple[float, float]
    angle_deg: float
    spacing: float
    residual: float
    squareness: float


def _rotate_points(offsets: list[tuple[float, float]], angle: float) -> list[tuple[float, float]]:
    """Offsets turned by ``-angle`` radians (into the frame of a grid at ``angle``)."""
    c, s = math.cos(angle), math.sin(angle)
    return [(c * x + s * y, -s * x + c * y) for x, y in offsets]


def _affine_grid(nodes: list[tuple[int, int]], points: list[tuple[float, float]]) -> tuple[float, ...]:
    """Least-squares affine map from grid ``nodes`` to image ``points``: (a, b, c, e, tx, ty) with x = a u + c v + tx
    and y = b u + e v + ty. The normal matrix is one of whole numbers (nodes are -1, 0 or 1) and is inverted exactly
    by its adjugate; the four or more nodes of a canonical face make it invertible."""
    su = sv = suu = svv = suv = 0
    sx = sux = svx = sy = suy = svy = 0.0
    for (u, v), (x, y) in zip(nodes, points):
        su, sv, suu, svv, suv = su + u, sv + v, suu + u * u, svv + v * v, suv + u * v
        sx, sux, svx, sy, suy, svy = sx + x, sux + u * x, svx + v * x, sy + y, suy + u * y, svy + v * y
    (m11, m12, m13), (m21, m22, m23), (m31, m32, m33) = (suu, suv, su), (suv, svv, sv), (su, sv, len(nodes))
    adjugate = ((m22 * m33 - m23 * m32, m13 * m32 - m12 * m33, m12 * m23 - m13 * m22),
                (m23 * m31 - m21 * m33, m11 * m33 - m13 * m31, m13 * m21 - m11 * m23),
                (m21 * m32 - m22 * m31, m12 * m31 - m11 * m32, m11 * m22 - m12 * m21))
    det = m11 * adjugate[0][0] + m12 * adjugate[1][0] + m13 * adjugate[2][0]
    a, c, tx = ((row[0] * sux + row[1] * svx + row[2] * sx) / det for row in adjugate)
    b, e, ty = ((row[0] * suy + row[1] * svy + row[2] * sy) / det for row in adjugate)
    return a, b, c, e, tx, ty


def fit_face(centres: np.ndarray, angle_hint_deg: float | None, tolerance: float) -> FaceFit | None:
    """The canonical face whose grid the pips sit on, or ``None``.

    ``angle_hint_deg`` is the die body's orientation (from its outline); with 2 and 3 pips the
    line of pips must run along a diagonal of the body, within 15 degrees. (Plain Python: on six
    points or fewer, array calls cost more than the arithmetic.)
    """
    n = len(centres)
    if n < 1 or n > 6:
        return None
    points = np.asarray(centres, float).tolist()
    sx = sy = 0.0
    for x, y in points:
        sx, sy = sx + x, sy + y
    centre = (sx / n, sy / n)
    if n == 1:
        return FaceFit(1, centre, float(angle_hint_deg or 0.0) % 90.0, 0.0, 0.0, 1.0)
    offsets = [(x - centre[0], y - centre[1]) for x, y in points]
    spread = [x * x + y * y for x, y in offsets]
    far = offsets[spread.index(max(spread))]
    angles = [math.atan2(far[1], far[0]) - math.pi / 4]
    if angle_hint_deg is not None:
        angles.append(math.radians(angle_hint_deg))
    best: tuple[float, float, float, float] | None = None  # residual, angle (degrees), spacing, squareness
    for angle in angles:
        local = _rotate_points(offsets, angle)
        cheb = [max(abs(u), abs(v)) for u, v in local]
        ordered = sorted(c for c in cheb if c > 0.5 * max(cheb))
        half = len(ordered) // 2
        spacing = ordered[half] if len(ordered) % 2 else 0.5 * (ordered[half - 1] + ordered[half])
        if spacing <= 0:
            continue
        grid = [(u / spacing, v / spacing) for u, v in local]
        nodes = [(min(max(round(u), -1), 1), min(max(round(v), -1), 1)) for u, v in grid]
        residual = math.sqrt(max((u - p) ** 2 + (v - q) ** 2 for (u, v), (p, q) in zip(grid, nodes)))
        occupied = frozenset(nodes)
        if len(occupied) != n or occupied not in _LAYOUTS[n]:
            continue
        squareness = 1.0
        if n >= 4:  # least-squares affine grid -> image: allows perspective and a tilted camera
            a, b, c, e, tx, ty = _affine_grid(nodes, points)
            residual = math.sqrt(max((a * u + c * v + tx - x) ** 2 + (b * u + e * v + ty - y) ** 2
                                     for (u, v), (x, y) in zip(nodes, points))) / spacing
            frob, det = a * a + b * b + c * c + e * e, abs(a * e - b * c)  # singular values of the linear part
            root = math.sqrt(max(frob * frob / 4.0 - det * det, 0.0))
            s_max, s_min = math.sqrt(frob / 2.0 + root), math.sqrt(max(frob / 2.0 - root, 0.0))
            squareness = s_min / s_max
            spacing = math.sqrt(s_max * s_min)
        if best is None or residual < best[0]:
            best = (residual, math.degrees(angle) % 90.0, spacing, squareness)
    if best is None or best[0] > tolerance:
        return None
    residual, angle_deg, spacing, squareness = best
    if n in (2, 3) and angle_hint_deg is not None and abs((angle_deg - angle_hint_deg + 45.0) % 90.0 - 45.0) > 15.0:
        return None
    return FaceFit(n, centre, angle_deg, spacing, residual, squareness)
