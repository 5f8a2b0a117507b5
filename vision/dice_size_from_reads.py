"""The die's size in a frame the bench was not told it of, corrected by the dice the reader reads surely.

Without a size from the bench (a lab's configuration states one for a camera fixed on its mount,
``stages.die_edge_px``), the first stage estimates it from the bodies' shapes (:mod:`vision.dice_bodies`).
Dice touching one another, a die's cast shadow, the glow a translucent die throws on the cloth and the
vignetting of a lens all make bodies look larger than one die, seldom smaller; a frame explained at a size
far from the dice's own proposes squares the per-die reader cannot read, or drops its dice as specks.

The dice read surely (at or above the reader's calibrated acceptance threshold) tell the size better than
any shape: their squares are dice the reader would stake a read on. So, when the bench gave no size:

1. when no die is read surely at the estimate, the frame is explained again at a share of it
   (``smaller_share``), since the estimate errs large;
2. when the dice read surely have a median edge more than ``differ_share`` from the size the frame was
   explained at, it is explained again told that median, +-``told_share`` (as a lab's configuration states
   a size).

The verdict is then that of the last explanation; the scene's checks (cocked, stacked, count, ...) judge it as
any other, so a frame is accepted only when one reading explains every body at that size. Every read journals
the size it was explained at and where that size came from (:class:`SizeSource`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Protocol, TypeVar

import numpy as np

from vision.dice_stage_config import DiceStageConfig
from vision.die_size_calibration import MARGIN as SIZE_MARGIN


class SizeSource(StrEnum):
    """Where the size a frame was explained at came from."""

    TOLD = "told"
    """The bench told it (``stages.die_edge_px``)."""
    BODIES = "bodies"
    """Estimated from the bodies' shapes."""
    SMALLER = "smaller than the bodies"
    """A share of the bodies' estimate, at which the reader reads dice where it read none."""
    SURE_READS = "sure reads"
    """The median edge of the dice read surely."""


@dataclass(frozen=True)
class SizeFromReads:
    """When and how the dice read surely correct the die's size (see the module's docstring)."""

    enabled: bool = True
    differ_share: float = 0.15
    """The sure reads' median edge must differ from the size the frame was explained at by more than this share."""
    told_share: float = SIZE_MARGIN
    """The second explanation is told the sure reads' median edge within +- this share (as ``bench calibrate dice``
    writes a lab's size)."""
    smaller_share: float = 0.5
    """With no die read surely, the frame is explained again at this share of the bodies' estimate."""

    def __post_init__(self) -> None:
        if not (0.0 < self.differ_share < 1.0 and 0.0 < self.told_share < 1.0 and 0.0 < self.smaller_share < 1.0):
            raise ValueError(f"size from reads: differ_share, told_share and smaller_share must lie within 0..1 "
                             f"(exclusive), got {self.differ_share:g}, {self.told_share:g}, {self.smaller_share:g}")


class Explained(Protocol):
    """What an explanation at one size gives: the size and the dice read surely."""

    @property
    def die_edge_px(self) -> float: ...

    @property
    def dice(self) -> Sequence[object]: ...


E = TypeVar("E", bound=Explained)


def explained_at_read_size(explain: Callable[[DiceStageConfig], E], stages: DiceStageConfig,
                           settings: SizeFromReads, edge_of: Callable[[object], float]
                           ) -> tuple[E, SizeSource]:
    """The frame's explanation at the size its sure reads tell, and where that size came from.

    ``explain(stages)`` explains the frame with ``stages``; ``edge_of(die)`` is the edge of a die read surely.
    """
    explained = explain(stages)
    if stages.die_edge_px is not None:
        return explained, SizeSource.TOLD
    if not settings.enabled:
        return explained, SizeSource.BODIES
    source = SizeSource.BODIES
    if not explained.dice:
        smaller = explain(told(stages, settings.smaller_share * explained.die_edge_px, settings.told_share))
        if not smaller.dice:
            return explained, SizeSource.BODIES
        explained, source = smaller, SizeSource.SMALLER
    edge = float(np.median([edge_of(die) for die in explained.dice]))
    if abs(edge / explained.die_edge_px - 1.0) <= settings.differ_share:
        return explained, source
    return explain(told(stages, edge, settings.told_share)), SizeSource.SURE_READS


def told(stages: DiceStageConfig, edge: float, share: float) -> DiceStageConfig:
    """``stages`` told the die's edge ``edge`` within +- ``share``."""
    return replace(stages, die_edge_px=((1.0 - share) * edge, (1.0 + share) * edge))
