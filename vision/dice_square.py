"""Read one die in its own square frame: find the die's square from its edges, then sample its 3 x 3 pip grid.

Spot finding (:mod:`vision.dice_pips`) needs every pip as a separate spot on a well-segmented body;
a pip lost to shade, a body cut short by a shadow or a spot of table texture then makes the read
fail. Here the die is located by its outline instead, and the pips are read where a face can hold
them:

1. The die's orientation is the strongest gradient direction (modulo 90 degrees) along the body's
   outline; the neighbourhood is turned so the die's sides run along the axes.
2. The die's square is placed on its edges: the left and right sides are the pair of rising and
   falling steps of the die's brightness (across the columns) whose distance is a die's edge, the
   top and bottom likewise across the rows. A die whose outline is not about a square of one
   die's edge (a side face showing, a die partly hidden) is not read here.
3. Pip contrast (:func:`vision.dice_pips.pip_contrast`, measured on the die's own body) is sampled
   at the nine nodes of the face's pip grid, for spreads of 0.24 to 0.3 of the edge. The nodes
   holding a pip must be exactly one canonical layout, every pip node at least twice as contrasted
   as any empty node and the pips alike (the weakest at least 55 % of the strongest); else no read.

This is a second reading for a body the spot reader declined; the caller still applies its checks
for glare, motion and the body's shape around the square (see :mod:`vision.dice`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

_NODES = np.array([(i, j) for j in (-1, 0, 1) for i in (-1, 0, 1)], float)
"""The 3 x 3 grid nodes (x, y) in spreads, row by row."""

_LAYOUTS: dict[frozenset[int], int] = {}
for _face, _sets in {1: [{4}], 2: [{0, 8}, {2, 6}], 3: [{0, 4, 8}, {2, 4, 6}], 4: [{0, 2, 6, 8}],
                     5: [{0, 2, 4, 6, 8}], 6: [{0, 3, 6, 2, 5, 8}, {0, 1, 2, 6, 7, 8}]}.items():
    for _set in _sets:
        _LAYOUTS[frozenset(_set)] = _face


@dataclass(frozen=True)
class SquareRead:
    """A die read in its square: face, centre (frame px), angle (deg, 0..90), edge (px), separation, pip nodes."""

    face: int
    centre: tuple[float, float]
    angle_deg: float
    edge: float
    separation: float
    """Weakest pip node's contrast over the strongest empty node's (inf when the face has no empty node)."""
    pip_contrast: float
    """Median contrast of the pip nodes."""
    pips: tuple[tuple[float, float], ...]
    """Pip node centres, frame px."""
    nodes: tuple[tuple[float, float], ...]
    """All nine grid nodes, frame px (where a pip of any face could be)."""
    aspect: float
    """Longer over shorter side of the square found on the die's edges."""
    beyond: float
    """Strongest outward step of brightness beyond a side (0.25 to 0.75 of an edge out) over the side's own step."""
    beyond_sides: tuple[tuple[float, float, float], ...] = ()
    """Per side of the square: the outward normal (x, y, frame axes) and that side's ``beyond``."""



def outline_angle(channel: np.ndarray, band: np.ndarray) -> float:
    """Orientation (deg, 0..90) of a die's outline: the strongest gradient direction modulo 90 within ``band``.

    Gradients vote by strength for their direction modulo 90 degrees (a square's four sides agree);
    the peak of the vote smoothed over 6 degrees wins.
    """
    gx = cv2.Sobel(channel, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(channel, cv2.CV_32F, 0, 1, ksize=3)
    on = band > 0
    mag = np.hypot(gx[on], gy[on])
    angle = np.degrees(np.arctan2(gy[on], gx[on])) % 90.0
    votes = np.bincount(np.minimum((angle / 2.0).astype(int), 44), mag, 45)
    votes = votes + np.roll(votes, 1) + np.roll(votes, -1)
    return float(2.0 * np.argmax(votes) + 1.0)


def _steps(profile_up: np.ndarray, profile_down: np.ndarray, low: float, high: float) -> tuple[int, int, float]:
    """Indices (a, b) maximising ``profile_up[a] + profile_down[b]`` with ``low <= b - a <= high``, and that sum."""
    n = len(profile_up)
    a = np.arange(n)[:, None]
    b = np.arange(n)[None, :]
    gap = b - a
    score = np.where((gap >= low) & (gap <= high), profile_up[:, None] + profile_down[None, :], -1.0)
    k = int(np.argmax(score))
    return k // n, k % n, float(score.flat[k])


def read_square(channel: np.ndarray, contrast: np.ndarray, body: np.ndarray, edge: float,
                origin: tuple[int, int]) -> SquareRead | str:
    """Read the die whose body is ``body`` (uint8 mask of the patch) in its square frame, or say why not.

    ``channel`` is the die's brightness against the table (float32: grey for a white die, red for a
    red one), ``contrast`` the pip contrast of the patch (0..1), ``edge`` the die's edge in px (from
    the frame or the calibrated scale), ``origin`` the patch's top-left corner in the frame.
    """
    ys, xs = np.nonzero(body)
    if len(xs) < 0.3 * edge * edge:
        return "body too small"
    centroid = (float(xs.mean()), float(ys.mean()))
    ring = cv2.subtract(cv2.dilate(body, np.ones((5, 5), np.uint8)), cv2.erode(body, np.ones((5, 5), np.uint8)))
    angle = outline_angle(channel, ring)
    size = round(2.0 * edge) | 1
    half = size / 2.0
    turn = cv2.getRotationMatrix2D(centroid, angle, 1.0)
    turn[:, 2] += (half - centroid[0], half - centroid[1])
    flags = cv2.INTER_LINEAR
    aligned = cv2.warpAffine(channel, turn, (size, size), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    near = cv2.dilate(body, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)), iterations=max(1, round(0.06 * edge)))
    near = cv2.warpAffine(near, turn, (size, size), flags=cv2.INTER_NEAREST)
    gx = cv2.Sobel(aligned, cv2.CV_32F, 1, 0, ksize=3) * near
    gy = cv2.Sobel(aligned, cv2.CV_32F, 0, 1, ksize=3) * near
    low, high = 0.85 * edge, 1.15 * edge
    left, right, sx = _steps(np.maximum(gx, 0).sum(axis=0), np.maximum(-gx, 0).sum(axis=0), low, high)
    top, bottom, sy = _steps(np.maximum(gy, 0).sum(axis=1), np.maximum(-gy, 0).sum(axis=1), low, high)
    if sx <= 0 or sy <= 0:
        return "no die's edges found"
    width, height = right - left, bottom - top
    aspect = max(width, height) / max(min(width, height), 1.0)
    side = 0.5 * (width + height)
    cx, cy = 0.5 * (left + right) + 0.5, 0.5 * (top + bottom) + 0.5  # a step's gradient peaks half a px early
    sides = _beyond(aligned, (left, top, right, bottom), edge)
    beyond = max(sides)
    pips_map = cv2.warpAffine(contrast.astype(np.float32), turn, (size, size), flags=flags,
                              borderMode=cv2.BORDER_CONSTANT)
    radius = max(1, round(0.06 * side))
    peak = cv2.dilate(pips_map, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1)))
    best: tuple[float, int, float, np.ndarray, np.ndarray] | None = None
    for spread in (0.24, 0.26, 0.28, 0.3):
        nodes = np.array([cx, cy]) + _NODES * spread * side
        at = np.clip(np.rint(nodes).astype(int), 0, size - 1)
        values = peak[at[:, 1], at[:, 0]]
        order = np.argsort(values)[::-1]
        for k in range(1, 7):
            occupied = frozenset(int(n) for n in order[:k])
            face = _LAYOUTS.get(occupied)
            if face is None:
                continue
            weakest = float(values[order[k - 1]])
            if weakest < 0.55 * float(values[order[0]]):
                continue  # the pips of one face are painted alike; a ghost of another face is fainter
            empty = float(values[order[k]]) if k < 9 else 0.0
            separation = weakest / max(empty, 0.02)
            if best is None or separation > best[0]:
                best = (separation, face, spread, nodes[sorted(occupied)], values[sorted(occupied)])
    if best is None:
        return "no canonical layout"
    separation, face, spread, nodes, values = best
    back = cv2.invertAffineTransform(turn)
    frame_nodes = nodes @ back[:, :2].T + back[:, 2] + np.asarray(origin, float)
    grid = (np.array([cx, cy]) + _NODES * spread * side) @ back[:, :2].T + back[:, 2] + np.asarray(origin, float)
    centre = np.array([cx, cy]) @ back[:, :2].T + back[:, 2] + np.asarray(origin, float)
    normals = np.array([(-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0)]) @ back[:, :2].T
    return SquareRead(face=face, centre=(float(centre[0]), float(centre[1])), angle_deg=float(angle) % 90.0,
                      edge=float(side), separation=float(separation), pip_contrast=float(np.median(values)),
                      pips=tuple((float(x), float(y)) for x, y in frame_nodes),
                      nodes=tuple((float(x), float(y)) for x, y in grid), aspect=float(aspect),
                      beyond=beyond, beyond_sides=tuple((float(n[0]), float(n[1]), float(b))
                                                        for n, b in zip(normals, sides, strict=True)))


def _beyond(aligned: np.ndarray, box: tuple[int, int, int, int], edge: float) -> list[float]:
    """Strongest outward step beyond each side (left, right, top, bottom) of the die's square, over that side's
    own step (see the module doc).

    Going out of a flat die the brightness falls at its side (to the table or the die's shadow, which
    then rises back to the table), and again at the outer edge of the side face it shows off the
    camera's axis (at most about 0.2 of an edge wide). A die leaning on an edge shows a side face
    0.4 to 0.65 of an edge wide, lit less than the top but more than the table: a second falling
    step that far out; a die beneath another shows its own side further out. Steps from 0.25 to
    0.75 of an edge beyond each side count, measured over the middle 70 % of the side's length. A fall
    the brightness rises back from within 0.12 of an edge (by 60 % of the fall or more) is a thin dark
    line on the table (the arena's rail line, a seam of the cloth), not a side face's edge: it does not count.
    """
    left, top, right, bottom = box
    gx = cv2.Sobel(aligned, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(aligned, cv2.CV_32F, 0, 1, ksize=3)
    size = aligned.shape[0]
    inset_x, inset_y = round(0.15 * (right - left)), round(0.15 * (bottom - top))
    rows, cols = slice(top + inset_y, bottom - inset_y + 1), slice(left + inset_x, right - inset_x + 1)
    near, far = round(0.25 * edge), round(0.75 * edge)
    line = max(2, round(0.12 * edge))
    along_x, along_y = gx[rows], gy[:, cols].T  # gradient across the left and right sides, the top and bottom
    worst = [0.0, 0.0, 0.0, 0.0]
    for k, (at, step) in enumerate(((left, -1), (right, 1), (top, -1), (bottom, 1))):  # side, outward direction
        gradient = along_x if k < 2 else along_y
        # profiles along the outward axis of the brightness' falls and rises going outward, summed along the side
        fall = np.maximum(-step * gradient, 0).sum(axis=0)
        rise = np.maximum(step * gradient, 0).sum(axis=0)
        own = float(fall[max(at - 1, 0):min(at + 2, size)].max())
        lo, hi = sorted((at + step * near, at + step * far))
        lo, hi = max(lo, 0), min(hi, size - 1)
        if hi <= lo or own <= 0:
            continue
        counted = fall[lo:hi + 1].copy()
        for i, position in enumerate(range(lo, hi + 1)):
            ahead = sorted((position + step, position + step * line))
            back = rise[max(ahead[0], 0):min(ahead[1], size - 1) + 1]
            if len(back) and float(back.max()) >= 0.6 * counted[i]:
                counted[i] = 0.0
        worst[k] = float(counted.max()) / own
    return worst
