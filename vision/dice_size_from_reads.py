"""The die's size in a frame the bench was not told it of, corrected by the dice the reader reads surely.

Without a size from the bench (a lab's configuration states one for a camera fixed on its mount,
``stages.die_edge_px``), the first stage estimates it from the bodies' shapes (:mod:`vision.dice_bodies`).
Dice touching one another, a die's cast shadow, the glow a translucent die throws on the cloth and the
vignetting of a lens all make bodies look larger than one die; a translucent die broken by its own glare into
pieces makes them look smaller. A frame explained at a size far from the dice's own proposes squares the per-die
reader cannot read, or drops its dice as specks.

The dice read surely (at or above the reader's calibrated acceptance threshold) tell the size better than
any shape: the reader itself measures each one's edge, as the middle of the range of square sizes from which it
still reads it surely (:mod:`vision.die_size_probe`), since a square read surely may be far from the die's size.
So, when the bench gave no size:

1. when no die is read surely at the estimate, the frame is explained again at shares of it
   (``retry_shares``: half, twice, 0.3 and three times, the nearer shares first; bodies of dice touching or
   shadowed make the estimate large, a translucent die broken into pieces by its glare and ghost pips makes it
   small, by up to three times either way);
2. when the dice read surely have a median measured edge more than ``differ_share`` from the size the frame was
   explained at, it is explained again told that median, +-``measured_share``.

The scene's checks (cocked, stacked, count, ...) judge the last explanation as any other, so a frame is accepted
only when one reading explains every body at that size. A frame they decline is read once more at each of
``declined_shares`` of its size (:meth:`vision.dice_pipeline.StagedDiceReader.read`), and the first read accepted
is the frame's. A die's pips read from a square too small for it are a part of its face (two pips of a four are a
two), and the reader measures such a die at the small size it reads it at; the frame then declines as stacked or
unreadable, though its dice read right at their own size. On 800 frames of the sim camera, the 3 declined frames
explained at 0.67-0.76 of the dice's true edge were each read right at 1.33 and 1.5 of it; their faces were
2, 4, 5; 3, 4, 6 and 1, 2, 4 (a four in each).

Every read journals the size it was explained at and where that size came from (:class:`SizeSource`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Protocol, TypeVar

import numpy as np

from vision.declines import Decline
from vision.dice_stage_config import DiceStageConfig
from vision.die_size_calibration import MARGIN as SIZE_MARGIN
from vision.die_size_probe import SizeProbe


class SizeSource(StrEnum):
    """Where the size a frame was explained at came from."""

    TOLD = "told"
    """The bench told it (``stages.die_edge_px``)."""
    BODIES = "bodies"
    """Estimated from the bodies' shapes."""
    RETRIED = "a share of the bodies' estimate"
    """A share of the bodies' estimate, at which the reader reads dice where it read none at the estimate."""
    SURE_READS = "sure reads"
    """The median edge the reader measures of the dice it read surely."""
    AFTER_DECLINE = "a larger size after a decline"
    """A share of the size the frame was first explained at (``declined_shares``), after it was declined at that
    size."""


@dataclass(frozen=True)
class SizeFromReads:
    """When and how the dice read surely correct the die's size (see the module's docstring)."""

    enabled: bool = True
    differ_share: float = 0.15
    """The sure reads' median edge must differ from the size the frame was explained at by more than this share."""
    told_share: float = SIZE_MARGIN
    """An explanation at a retry share is told that size within +- this share (as ``bench calibrate dice`` writes a
    lab's size)."""
    retry_shares: tuple[float, ...] = (0.5, 2.0, 0.3, 3.0)
    """With no die read surely, the frame is explained again at each of these shares of the bodies' estimate in
    turn, until one reads a die surely that the reader can measure. Each is told within +-``told_share``, so
    (0.5, 2, 0.3, 3) cover 0.24-0.36, 0.4-0.6, 1.6-2.4 and 2.4-3.6 of the estimate: on 300 frames of the sim camera
    the estimate was off by 2.8, 3.4, 2.8 and 0.2 times in the four frames where nothing read at it."""
    declined_shares: tuple[float, ...] = (1.33,)
    """A frame declined at a size not told, for one of ``retried_declines``, is read again at each of these shares
    of it, told within +-``told_share`` (1.33: 1.06-1.6 of it), until a read is accepted; none: the first decline
    stands."""
    retried_declines: tuple[Decline, ...] = (Decline.UNREADABLE, Decline.STACKED)
    """The declines a frame is read again after at a size not told: those a size far from the dice's explains (a
    die read from a square too small is a part of its face, leaving the rest unexplained). Not a cocked die: read
    again larger, the cocked two of cocked-fault frame 69 of seed 777, declined by the lean model at 42 px, was
    accepted as flat at 53 px; nor glare, motion, a die too many or too few, out of the arena or hidden."""
    told_declined_shares: tuple[float, ...] = (1.33, 0.75)
    """A frame declined unreadable (``told_retried_declines``) at a size told as a range (``stages.die_edge_px``: a
    lab's fixed camera, the size +-20 % its calibration gives) is read again at each of these shares of the size it was explained at, brought
    into that range, told within +-``told_share`` and the range; a frame declined for any other reason is not (a
    cocked die, a die too many or too few, glare: read again at another size, a cocked die was taken for flat and a
    die too many lost as a speck). On 2,000 rendered frames of each of seeds 20240611, 777 and 4242, declines 1.9,
    1.9 and 1.5 % -> 1.2, 1.4 and 1.2 %, no wrong read more (none, none, and the one of seed 4242's frame 1075 before
    and after); of the 200 frames of each fault of each seed, none more accepted but 1 moving die, read as it lay
    (seed 4242), every fault named as before. Retrying every decline so (1.33 only) accepted a cocked die read flat
    and two frames with a die too many or too few, one die lost."""
    told_retried_declines: tuple[Decline, ...] = (Decline.UNREADABLE,)
    told_retry_least: float = 0.1
    """A retry share brought into the range told within this share of the size already tried is not read."""
    measured_share: float = 0.1
    """The explanation at the measured edge is told it within +- this share (the reader measures a die's edge within
    a few per cent)."""
    probe: SizeProbe = field(default_factory=SizeProbe)
    """How the reader measures the edge of a die it read surely."""

    def __post_init__(self) -> None:
        shares = {"differ_share": self.differ_share, "told_share": self.told_share,
                  "measured_share": self.measured_share, "told_retry_least": self.told_retry_least}
        for name, share in shares.items():
            if not 0.0 < share < 1.0:
                raise ValueError(f"size from reads: {name} must lie within 0..1 (exclusive), got {share:g}")
        for name, retries in (("retry_shares", self.retry_shares), ("declined_shares", self.declined_shares),
                              ("told_declined_shares", self.told_declined_shares)):
            for share in retries:
                if not (0.0 < share and share != 1.0 and np.isfinite(share)):
                    raise ValueError(f"size from reads: a retry share must be positive and not 1, got {share:g} "
                                     f"in {name}")


class Explained(Protocol):
    """What an explanation at one size gives: the size and the dice read surely."""

    @property
    def die_edge_px(self) -> float: ...

    @property
    def dice(self) -> Sequence[object]: ...


E = TypeVar("E", bound=Explained)


def explained_at_read_size(explain: Callable[[DiceStageConfig], E], stages: DiceStageConfig,
                           settings: SizeFromReads, edges_of: Callable[[Sequence[object]], Sequence[float]]
                           ) -> tuple[E, SizeSource]:
    """The frame's explanation at the size its sure reads tell, and where that size came from.

    ``explain(stages)`` explains the frame with ``stages``; ``edges_of(dice)`` are the edges measured of (some of)
    the dice read surely (none measured: the frame keeps the size it was explained at).
    """
    explained = explain(stages)
    if stages.die_edge_px is not None:
        return explained, SizeSource.TOLD
    if not settings.enabled:
        return explained, SizeSource.BODIES
    source = SizeSource.BODIES
    if explained.dice:
        edges = edges_of(explained.dice)
    else:
        retried = _retried(explain, stages, settings, explained.die_edge_px, edges_of)
        if retried is None:
            return explained, SizeSource.BODIES
        (explained, edges), source = retried, SizeSource.RETRIED
    if not edges:
        return explained, source
    edge = float(np.median(edges))
    if abs(edge / explained.die_edge_px - 1.0) <= settings.differ_share:
        return explained, source
    return explain(told(stages, edge, settings.measured_share)), SizeSource.SURE_READS


def _retried(explain: Callable[[DiceStageConfig], E], stages: DiceStageConfig, settings: SizeFromReads,
             estimate: float, edges_of: Callable[[Sequence[object]], Sequence[float]]
             ) -> tuple[E, Sequence[float]] | None:
    """The first explanation at a retry share of the bodies' ``estimate`` whose sure reads the reader can measure,
    with their edges, if any. A retry whose dice read surely at every probed size is not taken: a die that reads
    the same at half and at twice a size (a lone pip) says nothing of it, and a frame explained at a size far
    above its dice's loses the smaller ones as specks."""
    for share in settings.retry_shares:
        retried = explain(told(stages, share * estimate, settings.told_share))
        edges = edges_of(retried.dice) if retried.dice else []
        if edges:
            return retried, edges
    return None


def told(stages: DiceStageConfig, edge: float, share: float) -> DiceStageConfig:
    """``stages`` told the die's edge ``edge`` within +- ``share``."""
    return replace(stages, die_edge_px=((1.0 - share) * edge, (1.0 + share) * edge))
