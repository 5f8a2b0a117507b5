"""The arena's outline a lab marks on a still of its fixed dice camera: parsed and checked.

The dice reader is told the arena (:attr:`vision.dice_scene.SceneSettings.arena`) so that a die read beyond it
voids the throw, declined ``outside-arena`` (a throw is void when a die leaves the table:
p217-2007/banca-francesa/8 b, p217-2007/craps/7 a), and a body beyond it where no die is read (a rail, a marker,
the lit floor) is not taken for a die. The outline is a polygon in frame pixels (x right, y down from the top-left
corner), its corners in order round it. Corners may lie beyond the frame (a camera that sees part of the arena),
but an outline that takes in no part of the camera's frame is refused before a run (:func:`frame_share_inside`,
``bench doctor``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

ArenaOutline = tuple[tuple[float, float], ...]
"""An arena's corners in frame pixels, in order round it."""

MAX_CORNERS = 64
"""Corners an outline may have (a lab marks a rectangle or an oval's few dozen points)."""
LEAST_AREA_PX2 = 400.0
"""The least area an outline may enclose (px²): a 20 px square, smaller than any die a camera can read."""


def checked_arena(corners: Sequence[Sequence[float]]) -> ArenaOutline:
    """``corners`` as an outline, or :class:`ValueError` naming the corner or the fault: 3 to :data:`MAX_CORNERS`
    corners of two finite numbers each, no two sides crossing, enclosing at least :data:`LEAST_AREA_PX2`."""
    if not 3 <= len(corners) <= MAX_CORNERS:
        raise ValueError(f"an arena outline needs 3 to {MAX_CORNERS} corners, got {len(corners)}")
    outline = []
    for index, corner in enumerate(corners, start=1):
        if len(corner) != 2 or not all(isinstance(v, int | float) and math.isfinite(v) for v in corner):
            got = ", ".join(str(value) for value in corner)
            raise ValueError(f"corner {index} of the arena outline must be two finite numbers (x, y px), "
                             f"got ({got})")
        outline.append((float(corner[0]), float(corner[1])))
    for first, second in _crossing_sides(outline):
        raise ValueError(f"sides {first} and {second} of the arena outline cross: give its corners in order round "
                         "it")
    area = abs(_signed_area(outline))
    if area < LEAST_AREA_PX2:
        raise ValueError(f"the arena outline encloses {area:.0f} px², less than {LEAST_AREA_PX2:.0f}: corners "
                         "repeated or in a line?")
    return tuple(outline)


def parse_arena(text: str) -> ArenaOutline:
    """An outline written ``"x,y x,y x,y ..."`` (corners apart by spaces or semicolons), checked
    (:func:`checked_arena`); :class:`ValueError` naming the corner that is not two numbers."""
    corners = []
    for index, part in enumerate((p for p in re.split(r"[;\s]+", text.strip()) if p), start=1):
        values = part.split(",")
        try:
            if len(values) != 2:
                raise ValueError
            corners.append((float(values[0]), float(values[1])))
        except ValueError:
            raise ValueError(f"corner {index} of the arena outline, {part!r}, is not 'x,y' in px") from None
    return checked_arena(corners)


def frame_share_inside(outline: Sequence[tuple[float, float]], width: int, height: int, grid: int = 64) -> float:
    """The share of a ``width`` x ``height`` frame that lies within ``outline``, from the centres of a ``grid`` x
    ``grid`` lattice of cells over the frame (OpenCV's point-in-polygon test): 0 when the outline misses the frame
    (marked on a still of another size, or of another camera), within 1/grid of the truth otherwise."""
    import cv2  # here, not at the top: loading a profile needs no OpenCV
    import numpy as np

    polygon = np.asarray(outline, np.float32).reshape(-1, 1, 2)
    inside = sum(cv2.pointPolygonTest(polygon, ((column + 0.5) * width / grid, (row + 0.5) * height / grid), False) > 0
                 for row in range(grid) for column in range(grid))
    return inside / grid**2


def _sides(outline: Sequence[tuple[float, float]]) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The outline's sides, each from a corner to the next (the last back to the first)."""
    return list(zip(outline, [*outline[1:], outline[0]]))


def _signed_area(outline: Sequence[tuple[float, float]]) -> float:
    """The shoelace area of the polygon (positive when its corners run anticlockwise in a y-up frame)."""
    return 0.5 * sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in _sides(outline))


def _crossing_sides(outline: Sequence[tuple[float, float]]) -> list[tuple[int, int]]:
    """The pairs of sides (numbered from 1: side k runs from corner k to the next) that cross or touch, sides
    sharing a corner apart."""
    sides = _sides(outline)
    count = len(sides)
    return [(i + 1, j + 1) for i in range(count) for j in range(i + 2, count)
            if not (i == 0 and j == count - 1) and _segments_meet(*sides[i], *sides[j])]


def _segments_meet(a: tuple[float, float], b: tuple[float, float], c: tuple[float, float],
                   d: tuple[float, float]) -> bool:
    """Whether segments ab and cd share a point."""
    def turn(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    def within(p: tuple[float, float], q: tuple[float, float], r: tuple[float, float]) -> bool:
        return min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1])

    d1, d2, d3, d4 = turn(c, d, a), turn(c, d, b), turn(a, b, c), turn(a, b, d)
    if ((d1 > 0) != (d2 > 0)) and ((d3 > 0) != (d4 > 0)) and 0 not in (d1, d2, d3, d4):
        return True
    return any(t == 0 and within(p, q, r) for t, p, q, r in ((d1, c, d, a), (d2, c, d, b), (d3, a, b, c),
                                                              (d4, a, b, d)))
