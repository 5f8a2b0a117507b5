"""Roulette wheel pocket orders and colours (p217-2007/roleta-americana/2 and /6, roleta-francesa/2 and /6),
and the senses in which the rotor and the ball turn (p217-2007/roleta-francesa/13: the ball launched
alternately one way and the other, the rotor turning against it)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

# Clockwise from 0, as printed in Portaria 217/2007, roleta-americana/2 a) and roleta-francesa/2.
FRENCH_ORDER: tuple[int, ...] = (
    0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10,
    5, 24, 16, 33, 1, 20, 14, 31, 9, 22, 18, 29, 7, 28, 12, 35, 3, 26,
)
# Clockwise from 0, as printed in Portaria 217/2007, roleta-americana/2 b) (37 pockets, 0-36).
AMERICAN_ORDER: tuple[int, ...] = (
    0, 28, 9, 26, 30, 11, 7, 20, 32, 17, 5, 22, 34, 15, 3, 24, 36, 13, 1,
    27, 10, 25, 29, 12, 8, 19, 31, 18, 6, 21, 33, 16, 4, 23, 35, 14, 2,
)
RED_NUMBERS: frozenset[int] = frozenset(
    {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}
)

Colour = Literal["green", "red", "black"]


def colour(number: int) -> Colour:
    """Colour of a pocket: 0 green, the casino standard red set, the rest black."""
    if number == 0:
        return "green"
    return "red" if number in RED_NUMBERS else "black"


def order_for(layout: str) -> tuple[int, ...]:
    """Pocket order for a layout name (``french`` or ``american``)."""
    if layout == "french":
        return FRENCH_ORDER
    if layout == "american":
        return AMERICAN_ORDER
    raise ValueError(f"unknown wheel layout {layout!r} (expected 'french' or 'american')")


def arc(order: tuple[int, ...], start_number: int, width: int) -> tuple[int, ...]:
    """``width`` adjacent pocket numbers clockwise from ``start_number``."""
    first = order.index(start_number)
    return tuple(order[(first + step) % len(order)] for step in range(width))


class Direction(StrEnum):
    """Sense of rotation seen from above the wheel."""

    CLOCKWISE = "CW"
    ANTICLOCKWISE = "CCW"

    @property
    def opposite(self) -> Direction:
        return Direction.ANTICLOCKWISE if self is Direction.CLOCKWISE else Direction.CLOCKWISE
