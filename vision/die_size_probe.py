"""A die's edge measured by the per-die reader itself: the range of square sizes at which it reads the die surely.

The per-die reader reads a die surely only from a square near the die's own size: on the simulated certification
camera's flat dice (360 dice, 120 throws), from 0.81 to 1.32 of the die's edge (medians), and the geometric middle
of that range lies at 1.00 to 1.07 of the edge for 80 % of the dice (median 1.035). A square read surely may
itself be far off: proposed at a size the bodies misjudged, a die of 42 px reads surely from a square of 60.

So each die read surely is read again from squares of the same centre and turn, of its edge times
``2 ** (k / steps_per_octave)`` for k from ``-steps_per_octave`` to ``+steps_per_octave`` (half to twice it), and its
edge is the geometric middle of the run of sizes around its own at which the reader still reads the same face
surely. A run that reaches either end of the probed range, or spans more than ``widest_run`` (the simulated
camera's dice span at most 1.83 times, at 8 steps an octave), measures nothing and the die gives no edge: a die
read the same from far too small and far too large a square (a black die's lone pip, read as a 1 from 0.6 to
1.3 of a 51 px square for a die of 31 px) says nothing of its size.

This serves :mod:`vision.dice_size_from_reads` (a frame the bench told no size); it never decides a read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from vision.die_crop import DieSquare
from vision.die_reader_model import sure_face


@dataclass(frozen=True)
class SizeProbe:
    """How finely and for how many dice the per-die reader measures the edge (see the module's docstring)."""

    steps_per_octave: int = 8
    """Squares per doubling of the size: 8 probes a die at 17 sizes, each 9 % from the next."""
    widest_run: float = 2.0 ** (7 / 8)
    """A die read surely over sizes further apart than this ratio gives no edge."""
    most_dice: int = 6
    """At most this many dice are probed (the surest first): the median of their edges is what is used."""

    def __post_init__(self) -> None:
        if not (2 <= self.steps_per_octave <= 32 and self.most_dice >= 1 and 1.0 < self.widest_run < 4.0):
            raise ValueError(f"size probe: steps_per_octave must lie within 2..32, most_dice be at least 1 and "
                             f"widest_run lie within 1..4 (exclusive), got {self.steps_per_octave}, {self.most_dice} "
                             f"and {self.widest_run:g}")

    @property
    def factors(self) -> np.ndarray:
        """The probed sizes as multiples of the square read, from half to twice it."""
        steps = np.arange(-self.steps_per_octave, self.steps_per_octave + 1)
        return 2.0 ** (steps / self.steps_per_octave)


@dataclass(frozen=True)
class SureDie:
    """A die read surely: its square, the face read and the confidence."""

    square: DieSquare
    face: int
    confidence: float


def probed_edges(dice: Sequence[SureDie], read: Callable[[Sequence[DieSquare]], np.ndarray], threshold: float,
                 probe: SizeProbe | None = None) -> list[float]:
    """The edges, px, the reader measures for the surest of ``dice`` (those whose run of sure sizes ends inside the
    probed range); ``read(squares)`` gives one probability row per square (faces 1..6 first), and a probe reads the
    die when the acceptance rule (:func:`vision.die_reader_model.sure_face`, at ``threshold``) gives its face. All
    probes are read in one batch."""
    probe = probe or SizeProbe()
    chosen = sorted(dice, key=lambda die: -die.confidence)[:probe.most_dice]
    if not chosen:
        return []
    factors = probe.factors
    squares = [DieSquare(die.square.centre_px, die.square.edge_px * factor, die.square.angle_deg)
               for die in chosen for factor in factors]
    rows = np.asarray(read(squares), np.float64)
    if rows.ndim != 2 or rows.shape[0] != len(squares) or rows.shape[1] < 6:
        raise ValueError(f"the per-die reader gave {rows.shape} probabilities for {len(squares)} probe squares")
    edges = []
    for index, die in enumerate(chosen):
        block = rows[index * len(factors):(index + 1) * len(factors)]
        sure = np.array([sure_face(row, threshold) == die.face for row in block])
        run = _run_around(sure, probe.steps_per_octave)
        if run is not None and factors[run[1]] / factors[run[0]] <= probe.widest_run * (1 + 1e-9):
            low, high = run
            edges.append(die.square.edge_px * math.sqrt(factors[low] * factors[high]))
    return edges


def _run_around(sure: np.ndarray, middle: int) -> tuple[int, int] | None:
    """The first and last index of the run of True around ``middle``; None when ``middle`` is not sure or the run
    reaches an end of the array (its true extent is unknown)."""
    if not sure[middle]:
        return None
    low = middle
    while low > 0 and sure[low - 1]:
        low -= 1
    high = middle
    while high < len(sure) - 1 and sure[high + 1]:
        high += 1
    if low == 0 or high == len(sure) - 1:
        return None
    return low, high
