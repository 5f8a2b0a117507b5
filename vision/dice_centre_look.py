"""A fourth look at a body of about one die's area in which no die is read: squares at its centre, at every turn.

The proposal stage (:mod:`vision.dice_proposals`) turns its squares by the cues it finds: the line of a two's or a
three's pips, the sides of the body's rectangle. A die whose cues mislead it (a one, whose single pip gives no
turn; a die whose shadow or side face turns the body's rectangle; a die of unusual pips) may be read surely from
none of them, and the second look (:mod:`vision.dice_second_look`) steps around a square at the same turn. The third
look (:mod:`vision.dice_leftover_scan`) reads only beside dice already read. A lone die read from no square is then
declined as unreadable or cocked.

The per-die reader reads a flat die surely from a square of its size centred within a tenth of an edge of the die's
centre and turned within about 8 degrees of its sides. A lone flat die's body is the die, its side face and a
shadow: its centroid lies near the die's centre. So this look reads, at the centroid of each body of
``area_shares`` of a die's area in which no die is read and a pip-like spot is found, squares of ``edge_shares``
of the die's edge turned every ``turn_step_deg`` degrees through a quarter turn (a square turned by a quarter turn
is the same square).

Measured with the shipped reader, its threshold fitted again with this look (0.9793 before, 0.9844 after): held-out
Byler photos 118 then 128 of 265 dice read right, none wrong; matteop65 57 of 57 dice both ways; 50 squares read per
rendered frame against 46 (150 frames, seed 20240611). The rendered benchmark, the sim camera and the injected
faults: ``benchmarks/dice_reader_accuracy.py`` and ``benchmarks/dice_decline_bias.py`` (figures in the README).

Nothing is decided here. The readings go to the explanation stage with those of the earlier looks, where two sure
readings of one die that disagree still make the body unreadable; the scene judges the body as a whole (a cocked die
read surely from one square is still judged by its outline and the lean model); and the acceptance threshold is
fitted on the squares of every look (:mod:`vision.dice_calibration_samples`), since all are what the reader meets
at run time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.dice_explanation import BodyExplanation, BodyPixels
from vision.die_crop import DieSquare

QUARTER_TURN_DEG = 90.0
"""A square turned by a quarter turn is the same square: turns are taken within one."""


@dataclass(frozen=True)
class CentreLookSettings:
    """Which bodies get the fourth look and which squares it reads."""

    enabled: bool = True
    needs_pips: bool = True
    """Only a body on or beside which the proposal stage found a pip-like spot is looked at: a flat face shows at
    least one pip. On the Byler test part, of the bodies of one die in which nothing was read, 8 of 51 with spots
    were read by this look and none of 123 without; on rendered frames those without were 222 of 258 looked at
    (150 frames, seed 20240611), 18 squares each."""
    area_shares: tuple[float, float] = (0.5, 1.6)
    """A body of at least the first and at most the second share of a die's area (edge squared) is about one die."""
    edge_shares: tuple[float, ...] = (0.9, 1.0, 1.1)
    """The squares' edges, as shares of the die's edge in the frame."""
    turn_step_deg: float = 15.0
    """The squares are turned 0, this, twice this ... degrees, below a quarter turn."""

    def __post_init__(self) -> None:
        least, most = self.area_shares
        if not 0.0 < least <= most:
            raise ValueError(f"area_shares must be (least, most) with 0 < least <= most, got {self.area_shares!r}")
        if not self.edge_shares or any(share <= 0.0 for share in self.edge_shares):
            raise ValueError(f"edge_shares must be one or more positive shares, got {self.edge_shares!r}")
        if not 0.0 < self.turn_step_deg <= QUARTER_TURN_DEG:
            raise ValueError(f"turn_step_deg must be within (0, 90], got {self.turn_step_deg}")

    @property
    def turns_deg(self) -> tuple[float, ...]:
        """The turns read at each size, degrees."""
        return tuple(float(turn) for turn in np.arange(0.0, QUARTER_TURN_DEG - 1e-9, self.turn_step_deg))


def centre_squares(body: BodyPixels, explanation: BodyExplanation, die_edge_px: float,
                   settings: CentreLookSettings | None = None) -> list[DieSquare]:
    """The squares of the fourth look at ``body`` (see the module's docstring); none when a die is read in it, when
    it is not about one die's area, when it shows no pip-like spot (``needs_pips``), or when the look is off."""
    look = settings or CentreLookSettings()
    if not look.enabled or explanation.dice or die_edge_px <= 0 or (look.needs_pips and body.pips == 0):
        return []
    least, most = look.area_shares
    if not least * die_edge_px ** 2 <= body.area_px <= most * die_edge_px ** 2:
        return []
    centre = body.centre_px
    return [DieSquare(centre, share * die_edge_px, turn) for share in look.edge_shares for turn in look.turns_deg]
