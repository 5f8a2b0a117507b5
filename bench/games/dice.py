"""Dice faces as the dice games receive them: validated once for banca francesa, cussec and craps,
and every throw of fair dice for their exact expectations."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import product

__all__ = ["every_throw", "faces"]

_COUNT_WORDS = {2: "two", 3: "three"}


def faces(values: Iterable[int], count: int, game: str) -> tuple[int, ...]:
    """``values`` as a tuple of ``count`` dice faces, each an int 1-6, in the order given.

    ValueError naming ``game`` otherwise (p217-2007/banca-francesa/9, p217-2007/cussec/5,
    p217-2007/craps/4: the result is the upper faces of the dice).
    """
    shown = tuple(values)
    if len(shown) != count or any(isinstance(f, bool) or not isinstance(f, int) or not 1 <= f <= 6 for f in shown):
        raise ValueError(f"{game} is settled on {_COUNT_WORDS.get(count, count)} dice faces 1-6, got {values!r}")
    return shown


@cache
def every_throw(count: int) -> tuple[tuple[int, ...], ...]:
    """The 6 ** ``count`` equally likely ordered throws of ``count`` fair dice."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count of dice must be a positive int, got {count!r}")
    return tuple(product(range(1, 7), repeat=count))
