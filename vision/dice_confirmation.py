"""Confirm each die read: it must read its face again from squares turned about its centre and, in a frame of
several dice, from a square of the other dice's size.

The per-die reader reads a flat die surely from squares turned 0-45 degrees from its sides and of about 0.8-1.25
of its size. A sure reading that holds only at its own square is no safe reading: a square smaller than a die
frames a part of its face, which the reader may read surely as another face (two pips of a five as a two where glare
hides a third pip), and a glare spot over a pip may make a four read as a two from one turn only. Such a part is not
always inside a larger square read surely, which :mod:`vision.dice_explanation` sets aside: the die's own square
may read nothing surely. So every die read (in any body) is read again, in one batch for the frame:

- from squares of its centre and size turned by each of ``turns`` (degrees): each must give its face at least
  ``turned_probability``;
- when its square's edge differs by more than ``differ_share`` from the median edge of the frame's other dice read,
  from a square of that median edge at its centre and turn, which must give its face at least
  ``alike_probability``: the regulations ask a game's dice to have equal edges (p217-2007/banca-francesa/3 b,
  craps/2 b, cussec/1 b).

A die not so confirmed makes its body unreadable, with the figures. Measured with the shipped 8-bit model on the
rendered frames of seeds 20240611 and 777 (800 frames each, 4,734 dice read right):

- turned squares: 4,729 of those dice gave their face at least 0.5 at every turn (15 under 0.8); 5 gave less (the
  least 0.155) and declined their frames (0.1 % of the dice read right);
- the other dice's size: the 492 of them read right from squares of another size gave their face 0.27-1.00 there,
  5 under 0.9.

Measured with the model before it (24-48-96-96 channels, float): the four read as a two under a glare spot (sim
camera with injected faults, seed 4242, frame 70) gave 0.186 at 45 degrees, and the five read as a two from a square
of 0.77 of the others' (sim frame 542) gave 0.468; ``tests/test_dice_confirmation.py`` checks that the confirmation
still stops both (``tests/data/dice-frames``).

The rendered frames include a low camera in front of the table, which sees the far dice smaller than the near. A
frame with one die read has no other dice to compare its size with.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from vision.dice_explanation import BodyExplanation, DieReading
from vision.die_crop import DieSquare


@dataclass(frozen=True)
class ConfirmationSettings:
    """Which squares confirm a die read, and what each must give its face."""

    enabled: bool = True
    turns: tuple[float, ...] = (45.0, 22.5, -22.5)
    """Degrees the die's square is turned about its centre for the turned squares (none: not read)."""
    turned_probability: float = 0.5
    """The least probability each turned square must give the face read."""
    alike: bool = True
    """Whether a die of another size than the frame's other dice is read at theirs (a game's dice are alike)."""
    differ_share: float = 0.12
    """A die read from a square whose edge differs by more than this share from the other dice's median edge is
    read again at that edge."""
    alike_probability: float = 0.9
    """The least probability the square at the other dice's edge must give the face read."""

    def __post_init__(self) -> None:
        for name in ("turned_probability", "differ_share", "alike_probability"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise ValueError(f"die confirmation: {name} must lie within 0..1 (exclusive), got {value:g}")
        for turn in self.turns:
            if not (np.isfinite(turn) and 0.0 < abs(turn) <= 90.0):
                raise ValueError(f"die confirmation: a turn must be within -90..90 degrees and not 0, got {turn:g}")


@dataclass(frozen=True)
class Confirmation:
    """A square that confirms a die read in a body, and the least it must give the die's face."""

    body: int
    die: DieReading
    square: DieSquare
    least: float
    why: str
    """What the square is, for the decline's detail."""


def confirmations(explanations: Sequence[BodyExplanation], settings: ConfirmationSettings) -> list[Confirmation]:
    """The squares to read (in order) to confirm every die read, in any body, explained or not."""
    if not settings.enabled:
        return []
    dice = [(index, die) for index, explanation in enumerate(explanations) for die in explanation.dice]
    wanted = []
    for position, (index, die) in enumerate(dice):
        centre, edge, angle = die.square.centre_px, die.square.edge_px, die.square.angle_deg
        wanted.extend(Confirmation(index, die, DieSquare(centre, edge, angle + turn), settings.turned_probability,
                                   f"its square turned {turn:g} degrees") for turn in settings.turns)
        others = [other.square.edge_px for at, (_, other) in enumerate(dice) if at != position]
        if settings.alike and others:
            median = float(np.median(others))
            if abs(edge / median - 1.0) > settings.differ_share:
                wanted.append(Confirmation(index, die, DieSquare(centre, median, angle), settings.alike_probability,
                                           f"a square of the other dice's {median:.1f} px (a game's dice have "
                                           "equal edges)"))
    return wanted


def confirmed(explanations: Sequence[BodyExplanation], wanted: Sequence[Confirmation], rows: np.ndarray
              ) -> list[BodyExplanation]:
    """``explanations`` with each body that holds a die a confirming square does not read as its face (``rows``:
    the reader's probabilities for ``wanted``'s squares, in order) made unreadable, naming the first such square."""
    result = list(explanations)
    for confirmation, row in zip(wanted, rows, strict=True):
        die = confirmation.die
        given = float(row[die.face - 1])
        if given < confirmation.least and result[confirmation.body].problem != "unreadable":
            x, y = die.square.centre_px
            result[confirmation.body] = BodyExplanation(
                (), "unreadable",
                f"the die at ({x:.0f}, {y:.0f}) reads {die.face} ({die.confidence:.3f}) from a square of "
                f"{die.square.edge_px:.1f} px but {given:.3f} from {confirmation.why}")
    return result


def confirm_dice(explanations: Sequence[BodyExplanation], read: Callable[[Sequence[DieSquare]], np.ndarray],
                 settings: ConfirmationSettings) -> list[BodyExplanation]:
    """``explanations`` after every die read is confirmed (``read(squares)``: the reader's probabilities per
    square, one batch for the frame)."""
    wanted = confirmations(explanations, settings)
    if not wanted:
        return list(explanations)
    return confirmed(explanations, wanted, read([c.square for c in wanted]))
