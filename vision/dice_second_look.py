"""A second look where the per-die reader half believes a face: squares around it, read in one more batch.

The proposal stage (:mod:`vision.dice_proposals`) places squares from cues (pips, outline, area); a cue may
put a square a fifth of an edge off a die, or size it by a neighbour, and the reader, trained to call a
square that far off "not a flat readable die", is then unsure. This stage takes each unsure reading that
gives the faces together at least ``seed_likelihood`` (a *seed*: a die's face is near) and reads the squares
around it: its centre moved by ``step_share`` of the edge in each of eight directions, at its own size and at
the frame's die size. A seed within ``settled_share`` of an edge of a sure reading needs no second look.

Nothing is decided here: the readings of both looks go to the explanation stage, where two sure readings of
one die that disagree still make the body unreadable. The acceptance threshold is fitted on the squares of
both looks (:mod:`vision.dice_calibration_samples`), since both are what the reader meets at run time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from vision.dice_explanation import DieReading
from vision.die_crop import DieSquare


@dataclass(frozen=True)
class SecondLookSettings:
    """Where a second look is taken and how far around."""

    seed_likelihood: float = 0.3
    """An unsure reading giving the faces together at least this is a seed."""
    step_share: float = 0.15
    """The squares around a seed are moved by this share of the edge."""
    settled_share: float = 0.3
    """A seed this close (share of an edge) to a sure reading needs no second look."""
    seeds_per_body: int = 3
    """At most this many seeds per body (the most likely first)."""

    def __post_init__(self) -> None:
        if not 0.0 < self.seed_likelihood <= 1.0:
            raise ValueError(f"seed_likelihood must be within (0, 1], got {self.seed_likelihood}")
        if not 0.0 < self.step_share < 0.5:
            raise ValueError(f"step_share must be within (0, 0.5), got {self.step_share}")
        if self.seeds_per_body < 0:
            raise ValueError(f"seeds_per_body must be at least 0, got {self.seeds_per_body}")


def seeds(readings: Sequence[DieReading], threshold: float, settings: SecondLookSettings) -> list[DieSquare]:
    """The squares of one body whose reading is unsure but gives the faces together at least ``seed_likelihood``,
    away from every sure reading, the most likely first, at most ``seeds_per_body``."""
    sure = [reading.square for reading in readings if reading.sure(threshold)]
    found: list[tuple[float, DieSquare]] = []
    for reading in readings:
        if reading.sure(threshold) or reading.face_likelihood < settings.seed_likelihood:
            continue
        square = reading.square
        if any(math.dist(square.centre_px, other.centre_px) < settings.settled_share * other.edge_px for other in sure):
            continue
        found.append((reading.face_likelihood, square))
    found.sort(key=lambda item: -item[0])
    return [square for _, square in found[:settings.seeds_per_body]]


def around(seed: DieSquare, die_edge_px: float, settings: SecondLookSettings) -> list[DieSquare]:
    """The squares of a second look at ``seed``: moved a step in eight directions (along its own sides) at its
    own size, and the same nine places at the frame's die size when that differs by more than a tenth."""
    theta = math.radians(seed.angle_deg)
    along = (math.cos(theta), math.sin(theta))
    across = (-math.sin(theta), math.cos(theta))
    squares: list[DieSquare] = []
    sizes = [seed.edge_px] + ([die_edge_px] if abs(die_edge_px / seed.edge_px - 1.0) > 0.1 else [])
    for size in sizes:
        step = settings.step_share * size
        for i in (-1, 0, 1):
            for j in (-1, 0, 1):
                if i == j == 0 and size == seed.edge_px:
                    continue  # the seed itself, already read
                centre = (seed.centre_px[0] + step * (i * along[0] + j * across[0]),
                          seed.centre_px[1] + step * (i * along[1] + j * across[1]))
                squares.append(DieSquare(centre, size, seed.angle_deg))
    return squares
