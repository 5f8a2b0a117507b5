"""Where the pips of a die already read lie in the frame, for the pip-diameter measurement.

The per-die reader says which face a die shows but not where its pips are; the dimension clause
("d) Pintas com o mesmo diâmetro", p217-2007/banca-francesa/3, p217-2007/craps/2, p217-2007/cussec/1)
measures each pip's outline (:func:`vision.measure.pip_diameters_equal`), starting from a circle near
it. This module cuts the die's up face upright at the frame's resolution, separates the pips from the
face by Otsu's threshold (dark pips on a light die or light pips on a dark one, whichever is the
minority), and keeps the spots inside the face of a pip's size. The pips are given only when there are
exactly as many as the face has, they stand on its canonical layout and none is much larger than another
(a pip joined to a glare spot); otherwise nothing is given and the die is not measured (never a guessed
pip).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.die_crop import DieSquare, crop_transform

CANONICAL = {1: ((0, 0),), 2: ((-1, -1), (1, 1)), 3: ((-1, -1), (0, 0), (1, 1)),
             4: ((-1, -1), (1, -1), (-1, 1), (1, 1)), 5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
             6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1))}
"""Pip centres of each face on the 3 x 3 grid (units of the pip spacing); faces 2, 3 and 6 may be turned."""
PIP_DIAMETER_SHARE = (0.08, 0.32)
"""A pip's diameter as a share of the die's edge: least, most."""
LAYOUT_TOLERANCE = 0.1
"""Largest distance of a pip from its canonical place, as a share of the edge."""
RADIUS_RATIO = 1.4
"""Largest ratio of the largest spot's radius to the smallest's: beyond it a spot is a pip joined to a glare
spot or a shadow, whose outline would not be the pip's."""

Pip = tuple[float, float, float]


def _spots(face_crop: np.ndarray, edge_px: float) -> list[tuple[float, float, float]]:
    """(x, y, radius) of the minority spots of a pip's size inside the upright face crop."""
    grey = cv2.cvtColor(face_crop, cv2.COLOR_BGR2GRAY) if face_crop.ndim == 3 else face_crop
    grey = cv2.GaussianBlur(grey, (3, 3), 0)
    _, dark = cv2.threshold(grey, 0, 1, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
    if dark.mean() > 0.5:
        dark = 1 - dark  # light pips on a dark die: the minority is the light part
    count, _, stats, centroids = cv2.connectedComponentsWithStats(dark.astype(np.uint8))
    least, most = (math.pi * (share * edge_px / 2.0) ** 2 for share in PIP_DIAMETER_SHARE)
    size = face_crop.shape[0]
    spots = []
    for index in range(1, count):
        x, y, w, h, area = stats[index]
        if x == 0 or y == 0 or x + w >= size or y + h >= size:
            continue  # cut by the face's outline: an edge or a corner's shade, not a pip
        if least <= area <= most and max(w, h) <= 1.6 * min(w, h):
            spots.append((float(centroids[index][0]), float(centroids[index][1]), math.sqrt(area / math.pi)))
    return spots


def _on_layout(spots: list[tuple[float, float, float]], face: int, size: float) -> bool:
    """Whether the spots stand on the face's canonical layout (either turn of it), at some spacing."""
    centre = size / 2.0
    points = np.array([(x - centre, y - centre) for x, y, _ in spots])
    for turn in (1, -1):
        layout = np.array([(gx * turn, gy) for gx, gy in CANONICAL[face]], float)
        if face == 1:
            return bool(np.hypot(*points[0]) <= LAYOUT_TOLERANCE * size)
        # each spot to its nearest canonical place, the spacing fitted by least squares
        spacing = float(np.sum(np.abs(points)) / max(np.sum(np.abs(layout)), 1e-9))
        places = layout * spacing
        distances = np.linalg.norm(points[:, None, :] - places[None, :, :], axis=2)
        nearest = distances.argmin(axis=1)
        if len(set(nearest.tolist())) == face and distances.min(axis=1).max() <= LAYOUT_TOLERANCE * size:
            return True
    return False


def locate_pips(image: np.ndarray, square: DieSquare, face: int) -> tuple[Pip, ...]:
    """Each pip of the die read as ``face`` in ``square`` as (x, y, radius) in frame px, or () when the face's
    pips cannot all be found on its layout."""
    if face not in CANONICAL:
        raise ValueError(f"a die's face is 1..6, got {face}")
    size = max(8, math.ceil(square.edge_px))
    matrix = crop_transform(square, size, margin=0.0)
    crop = cv2.warpAffine(image, matrix, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    spots = _spots(crop, float(size))
    if len(spots) != face or not _on_layout(spots, face, float(size)):
        return ()
    radii = [r for _, _, r in spots]
    if max(radii) > RADIUS_RATIO * min(radii):
        return ()
    back = cv2.invertAffineTransform(matrix)
    scale = math.sqrt(abs(np.linalg.det(back[:, :2])))
    return tuple((float(back[0, 0] * x + back[0, 1] * y + back[0, 2]), float(back[1, 0] * x + back[1, 1] * y
                                                                              + back[1, 2]), r * scale)
                 for x, y, r in spots)
