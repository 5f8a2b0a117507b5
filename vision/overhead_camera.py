"""Where a flat die's side faces show to a camera looking straight down at the table (perspective).

A camera whose lens is ``H`` die edges above the table, its axis through the frame's centre, sees a die's
up face (one edge above the table) a little further out than the die's base: seen from the lens, the base
lies ``1 / H`` of the way from the up face towards the frame's centre. So a flat die ``r`` edges off the
centre shows the side faces turned towards the centre as a band ``r / H`` of an edge wide between its up
face and its base. Beneath a camera 900 mm up, a 19 mm die 16 edges from the centre (a 640 x 480 frame's
corner) shows a band 0.34 of an edge wide: flat on the table, yet as wide as the side face of a die that
leans (p217-2007/banca-francesa/7 b) a third of an edge or more, wherever it lies.

The staged reader (:mod:`vision.dice_pipeline`) takes that band as the die's own when it explains a body
(:mod:`vision.dice_explanation`) and does not look in it for a leaning die's pips
(:mod:`vision.dice_side_faces`): the band lies on the side towards the centre and is no wider than ``r / H``;
a side face wider, or on another side, is still the die's lean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vision.die_crop import DieSquare


@dataclass(frozen=True)
class OverheadCamera:
    """A camera ``height_edges`` die edges over the table, looking straight down at the frame's ``centre_px``."""

    centre_px: tuple[float, float]
    height_edges: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.height_edges) and self.height_edges > 2.0):
            raise ValueError(f"an overhead camera's height must be above 2 die edges, got {self.height_edges}")

    @classmethod
    def over_frame(cls, frame_shape: tuple[int, ...], height_edges: float) -> OverheadCamera:
        """The camera over the centre of a frame of ``frame_shape`` (rows, columns[, channels])."""
        return cls((frame_shape[1] / 2.0, frame_shape[0] / 2.0), height_edges)

    def band_share(self, square: DieSquare) -> float:
        """Width of the side band a flat die whose up face is ``square`` shows, as a share of its edge."""
        off_axis = math.hypot(square.centre_px[0] - self.centre_px[0], square.centre_px[1] - self.centre_px[1])
        return off_axis / square.edge_px / self.height_edges

    def base(self, square: DieSquare, grown_share: float = 0.0) -> DieSquare:
        """The base of the flat die whose up face is ``square``, as the camera sees it, grown by ``grown_share``
        of an edge on each side: the up face and its base together cover the die's side band."""
        x, y = square.centre_px
        centre = (x + (self.centre_px[0] - x) / self.height_edges, y + (self.centre_px[1] - y) / self.height_edges)
        return DieSquare(centre, square.edge_px * (1.0 + 2.0 * grown_share), square.angle_deg)
