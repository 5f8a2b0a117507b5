"""How wide a flat die's side faces look to a camera looking straight down at the table (perspective).

A camera whose lens is ``H`` die edges above the table, its axis through the image centre, sees a
die whose up face is ``r`` edges from the image centre from a slant: the side faces turned towards
the image centre show as strips ``r / H`` of an edge wide (the die's height, one edge, seen at the
slant ``r / H``). Beneath a camera 900 mm up, a 19 mm die 8 edges from the centre shows a side face
0.17 of its edge wide: flat on the table, yet wider than the 0.12 a die under the lens shows. A die
not flat on a face (cocked, p217-2007/banca-francesa/7 b) leans 24 degrees or more and shows a side
face 0.4 of an edge wide or more wherever it lies.

:func:`side_allowance` is the widest side face a flat die shows at a point of the frame: the
configured ``max_side_ratio``, or the perspective strip there and a margin for the outline's
raggedness when the configuration gives the camera's height (``camera_height_edges``) and the die's
body reaches beyond its up face towards the image centre, where the strip lies.
"""

from __future__ import annotations

import math

import numpy as np

from vision.dice_pips import Pips
from vision.dice_types import DiceReaderConfig

PERSPECTIVE_MARGIN = 0.04
"""Share of an edge the outline of a flat die's body may stray beyond its up face and perspective strip."""


def perspective_side(point_px: tuple[float, float], edge_px: float, image_shape: tuple[int, ...] | None,
                     cfg: DiceReaderConfig) -> float:
    """Width, as a share of its edge, of the side face a flat die at ``point_px`` shows (0 when not known: no
    camera height, or no frame shape)."""
    if cfg.camera_height_edges is None or image_shape is None or edge_px <= 0:
        return 0.0
    height, width = image_shape[:2]
    off_axis = math.hypot(point_px[0] - width / 2.0, point_px[1] - height / 2.0) / edge_px
    return off_axis / cfg.camera_height_edges


def side_allowance(body_centre: tuple[float, float], face_centre: tuple[float, float] | None, edge_px: float,
                   image_shape: tuple[int, ...] | None, cfg: DiceReaderConfig) -> float:
    """Widest side face, as a share of its edge, the die whose up face is centred at ``face_centre`` and whose
    body (up face and side faces) is centred at ``body_centre`` may show flat: ``max_side_ratio``, or the
    perspective strip there and a margin (see the module's docstring) when the body reaches beyond the face
    towards the image centre, as the strip does (the body's centre nearer the image centre than the face's,
    by half the strip's width for a flat die). A die leaning away from the image centre shows a side face on
    the far side (its body's centre 0.04 to 0.12 of an edge further out than its face's, at 9 edges off the
    centre under a camera 64 edges up), which the perspective does not explain; ``face_centre`` ``None``:
    ``max_side_ratio``."""
    strip = perspective_side(body_centre, edge_px, image_shape, cfg)
    if strip <= 0 or face_centre is None or image_shape is None:
        return cfg.max_side_ratio
    height, width = image_shape[:2]
    towards = (width / 2.0 - body_centre[0], height / 2.0 - body_centre[1])
    shift = (body_centre[0] - face_centre[0]) * towards[0] + (body_centre[1] - face_centre[1]) * towards[1]
    if shift <= 0.0:  # the body's centre is no nearer the image centre than the face's
        return cfg.max_side_ratio
    return max(cfg.max_side_ratio, strip + PERSPECTIVE_MARGIN)


def perspective_slivers(spots: Pips, pip_area: float, edge_px: float, image_shape: tuple[int, ...] | None,
                        cfg: DiceReaderConfig) -> np.ndarray:
    """Which ``spots`` may be pips of a flat die's perspective strip (bool per spot; all False when the camera's
    height or the frame's shape is not known).

    A pip on the strip a flat die shows towards the image centre (``s`` of an edge wide, see the module's
    docstring) is foreshortened across the radial direction to ``s`` of its area: its long axis lies across
    the line to the image centre (within 25 degrees) and, blurred, it keeps at most ``s + 0.2`` of a pip's area.
    A leaning die's side face is 0.4 of an edge wide or more, its pips 0.4 of a pip's area or more.
    """
    sliver = np.zeros(len(spots), bool)
    if cfg.camera_height_edges is None or image_shape is None or len(spots) == 0 or edge_px <= 0:
        return sliver
    height, width = image_shape[:2]
    offset = spots.centres - np.array([width / 2.0, height / 2.0])
    strip = np.hypot(offset[:, 0], offset[:, 1]) / edge_px / cfg.camera_height_edges
    radial = np.degrees(np.arctan2(offset[:, 1], offset[:, 0])) % 180.0
    across = np.abs((spots.major_angle - radial) % 180.0 - 90.0) <= 25.0
    return (strip >= 0.06) & across & (spots.areas <= (strip + 0.2) * pip_area)
