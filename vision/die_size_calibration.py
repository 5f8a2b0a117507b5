"""The dice's edge in a fixed camera's frames, measured on a lab's labelled photos of its arena.

A camera fixed on its mount over the table sees the game's dice at one size, within the perspective of the
arena. Told that size (``stages.die_edge_px`` of the reader configuration), the body and proposal stages
propose squares of it instead of estimating it from each frame's bodies, which a die's shadow or a glare
spot beside it inflates (:mod:`vision.dice_bodies`).

:func:`fit_die_size` takes the squares the stages proposed on the lab's photos, and keeps those the per-die
reader read surely and rightly (the labelled face, at the acceptance threshold): the labelled box of the die
each lies on, turned as the reader's square is, gives that die's edge (an upright box around a square of
edge e turned by t is e (|cos t| + |sin t|) wide; :func:`vision.dice_calibration_samples.labelled_edge`).
It writes ``(1 - margin, 1 + margin)`` times their median, and only when
enough dice were so read (``least_dice``) and their edges agree (the 90th percentile within ``most_spread``
times the 10th): photos taken from several distances, or of dice of several sizes, tell no one size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.die_reader_model import sure_face

LEAST_DICE = 20
MOST_SPREAD = 1.3
MARGIN = 0.2


@dataclass(frozen=True)
class DieSizeFit:
    """What the photos say of the dice's edge: the figures, and the range to write (``None``: none, see
    ``reason``)."""

    dice: int
    """Squares the reader read surely and rightly (a die may give several)."""
    median_px: float | None
    low_px: float | None
    high_px: float | None
    """The 10th and 90th percentiles of their edges."""
    edge_px: tuple[float, float] | None
    reason: str

    def as_dict(self) -> dict[str, object]:
        """The figures for the reader configuration's calibration record."""
        return {"squares_read_right": self.dice, "median_px": self.median_px, "q10_px": self.low_px,
                "q90_px": self.high_px, "die_edge_px": None if self.edge_px is None else list(self.edge_px),
                "reason": self.reason}


def fit_die_size(edges: np.ndarray, probabilities: np.ndarray, truth: np.ndarray, threshold: float,
                 least_dice: int = LEAST_DICE, most_spread: float = MOST_SPREAD, margin: float = MARGIN
                 ) -> DieSizeFit:
    """The dice's edge from the ``edges`` (px) of the labelled dice the proposed squares lie on (NaN: none), the
    reader's ``probabilities`` for the squares (rows, faces first) and their ``truth`` (face index, or
    :data:`vision.die_reader_model.NOT_A_DIE`), at the acceptance ``threshold``."""
    edges = np.asarray(edges, np.float64)
    probabilities = np.asarray(probabilities, np.float64)
    truth = np.asarray(truth, int)
    if not len(edges) == len(probabilities) == len(truth):
        raise ValueError(f"{len(edges)} edges, {len(probabilities)} probability rows and {len(truth)} truths")
    if len(edges) == 0:
        return DieSizeFit(0, None, None, None, None, "no square was proposed")
    right = np.array([sure_face(row, threshold) == label + 1 for row, label in zip(probabilities, truth, strict=True)],
                     bool) & np.isfinite(edges)  # a face read surely (the acceptance rule), the labelled one
    read = edges[right]
    if read.size < least_dice:
        return DieSizeFit(int(read.size), float(np.median(read)) if read.size else None, None, None, None,
                          f"only {read.size} squares read surely and rightly, fewer than {least_dice}: "
                          "label more photos")
    median = float(np.median(read))
    low, high = (float(v) for v in np.percentile(read, [10, 90]))
    if high > most_spread * low:
        return DieSizeFit(int(read.size), median, low, high, None,
                          f"the dice's edges spread from {low:.1f} to {high:.1f} px (10th to 90th percentile), more "
                          f"than {most_spread:g} times: photos from several distances, or dice of several sizes")
    edge = (round((1.0 - margin) * median, 1), round((1.0 + margin) * median, 1))
    return DieSizeFit(int(read.size), median, low, high, edge,
                      f"median {median:.1f} px over {read.size} squares read surely and rightly, +-{margin:.0%}")
