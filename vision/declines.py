"""Why a reader declined a frame instead of giving an outcome.

A declined read is never an outcome. For dice it is a "golpe nulo" candidate
(p217-2007/banca-francesa/7 b for a cocked die, p217-2007/cussec/6 for stacked dice),
counted and reported; for roulette it means the frame cannot show the winning pocket.
"""

from __future__ import annotations

from enum import StrEnum


class Decline(StrEnum):
    """Reasons a reader gives for not reading a frame."""

    WRONG_COUNT = "wrong-count"
    """Not the number of dice the game expects."""
    COCKED = "cocked"
    """A die not flat on a face (p217-2007/banca-francesa/7 b)."""
    STACKED = "stacked"
    """A die resting on another (p217-2007/cussec/6)."""
    OUTSIDE_ARENA = "outside-arena"
    """A die outside the arena."""
    MOTION = "motion"
    """Motion blur: dice or ball still moving."""
    GLARE = "glare"
    """Saturated glare hides pips or the ball."""
    ON_FRET = "on-fret"
    """The ball rests on a fret between two pockets."""
    HIDDEN = "hidden"
    """The ball or a die is not visible."""
    UNREADABLE = "unreadable"
    """Anything else that makes a read unsafe; the detail says what."""
