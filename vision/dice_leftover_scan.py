"""A third look over what a body's readings leave unexplained: squares of the die's size on a grid over it.

The proposal stage (:mod:`vision.dice_proposals`) places squares from cues (pips, outline, area), and the second
look (:mod:`vision.dice_second_look`) steps around the squares the reader half believes. A die whose cues led no
square near its centre (a one with no pip pattern to place it by, a die pressed against another whose outline
merges with it) is then left unexplained beside the dice read: the body declines the frame as stacked or
unreadable.

The per-die reader reads a flat die surely from a square of its size centred within a tenth of an edge of the
die's centre, at any turn: on 420 flat dice of the rendered benchmark (seed 20240611), 99.5 to 100 % of squares
were read right at turns of 0 to 45 degrees from the die's sides and offsets of 0 to 0.1 of an edge, none wrong.
So this look reads upright squares of the frame's die size centred on a grid ``step_share`` of an edge apart
over the body's pixels that no die read explains (shade included: a die may lie in another's shadow), at least
``inset_share`` of an edge inside them (a die's centre lies half an edge inside its outline): every point of them
lies within 0.71 steps of a grid point.

A body in which no die is read gets no third look. It may hold a die smeared by its motion or a cocked one, which
the reader may read surely from some square of a grid (on the benchmark's injected faults, two moving dice more were
read and their frames accepted), and which the scene judges by the body as a whole. Such a body of about one die's
area gets a fourth look instead, a few squares at its centre at every turn (:mod:`vision.dice_centre_look`).

Nothing is decided here. The readings go to the explanation stage with those of the first two looks, where two
sure readings of one die that disagree still make the body unreadable and a square read over part of a die is set
aside; the acceptance threshold is fitted on the squares of every look (:mod:`vision.dice_calibration_samples`),
since all are what the reader meets at run time.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice_explanation import BodyExplanation, BodyPixels
from vision.die_crop import DieSquare


@dataclass(frozen=True)
class LeftoverScanSettings:
    """Where the third look is taken and how densely."""

    step_share: float = 0.15
    """The grid's step, as a share of the die's edge (a die's centre then lies within 0.11 of an edge of a point)."""
    inset_share: float = 0.3
    """Grid points lie at least this share of an edge inside the pixels not explained."""
    least_share: float = 0.3
    """A body is looked at when its pixels not explained cover at least this share of a die's area."""
    most_squares: int = 400
    """At most this many squares per body (a wider grid beyond: a body that large is no die)."""

    def __post_init__(self) -> None:
        if not 0.0 < self.step_share <= 0.5:
            raise ValueError(f"step_share must be within (0, 0.5], got {self.step_share}")
        if not 0.0 <= self.inset_share < 0.5:
            raise ValueError(f"inset_share must be within [0, 0.5), got {self.inset_share}")
        if self.least_share < 0.0:
            raise ValueError(f"least_share must be at least 0, got {self.least_share}")
        if self.most_squares < 1:
            raise ValueError(f"most_squares must be at least 1, got {self.most_squares}")


def unexplained_pixels(body: BodyPixels, explanation: BodyExplanation) -> np.ndarray | None:
    """bool, as the body's mask: the pixels beside the dice read that they do not explain, their shade included (a
    die in another's shadow is shaded); None when the body is explained, unreadable (two readings disagree: more
    squares would not mend it) or holds no die read (see the module's docstring)."""
    if explanation.problem != "unexplained" or not explanation.dice:
        return None
    return explanation.beside_dice


def scan_squares(body: BodyPixels, explanation: BodyExplanation, die_edge_px: float,
                 settings: LeftoverScanSettings | None = None) -> list[DieSquare]:
    """The squares of the third look at ``body`` (see the module's docstring); none when it is explained,
    unreadable, or leaves less than ``least_share`` of a die's area unexplained."""
    look = settings or LeftoverScanSettings()
    pixels = unexplained_pixels(body, explanation)
    if pixels is None or die_edge_px <= 0 or np.count_nonzero(pixels) < look.least_share * die_edge_px ** 2:
        return []
    inset = round(look.inset_share * die_edge_px)
    inner = pixels.astype(np.uint8)
    if inset > 0:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * inset + 1, 2 * inset + 1))
        inner = cv2.erode(inner, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)
    if not inner.any():
        return []
    step = max(1.0, look.step_share * die_edge_px)
    while True:
        rows = np.arange(step / 2.0, inner.shape[0], step)
        cols = np.arange(step / 2.0, inner.shape[1], step)
        grid_rows, grid_cols = np.meshgrid(rows, cols, indexing="ij")
        on = inner[grid_rows.astype(int), grid_cols.astype(int)] > 0
        if np.count_nonzero(on) <= look.most_squares:
            break
        step *= 1.25
    centres = list(zip(grid_cols[on].tolist(), grid_rows[on].tolist(), strict=True))
    if not centres:  # the inner pixels fall between the grid's points: their middle
        ys, xs = np.nonzero(inner)
        centres = [(float(xs.mean()), float(ys.mean()))]
    x0, y0 = body.origin
    return [DieSquare((x0 + float(col), y0 + float(row)), die_edge_px, 0.0) for col, row in centres]
