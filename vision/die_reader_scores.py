"""How well the per-die reader read a set of labelled dice: read correctly, declined, wrong per 1,000 accepted.

:class:`ReaderScore` counts each labelled die's reading (:class:`vision.die_reader_model.DieRead`) against
its true face: a 6 x 7 confusion matrix (true face 1..6 by read face 1..6 or declined), the declines by
their detail's reason, and the figures a benchmark or a lab's own measurement prints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.die_reader_calibration import clopper_pearson_upper
from vision.die_reader_model import DieRead


def decline_reason(read: DieRead) -> str:
    """A decline's reason without its numbers ("not a flat readable die", "unsure")."""
    return read.detail.split(" (")[0].split(":")[0]


@dataclass
class ReaderScore:
    """Counts of a set of labelled dice read by the per-die reader."""

    confusion: np.ndarray = field(default_factory=lambda: np.zeros((6, 7), np.int64))
    """Rows: true face 1..6; columns: face read 1..6, then declined."""
    declines: Counter = field(default_factory=Counter)

    def add(self, faces: Sequence[int], reads: Sequence[DieRead]) -> None:
        """Count ``reads`` of dice whose true faces are ``faces`` (1..6)."""
        if len(faces) != len(reads):
            raise ValueError(f"{len(faces)} true faces for {len(reads)} reads")
        for face, read in zip(faces, reads, strict=True):
            if not 1 <= face <= 6:
                raise ValueError(f"a true face is 1..6, got {face}")
            column = 6 if read.face is None else read.face - 1
            self.confusion[face - 1, column] += 1
            if read.face is None:
                self.declines[decline_reason(read)] += 1

    @property
    def dice(self) -> int:
        return int(self.confusion.sum())

    @property
    def correct(self) -> int:
        return int(np.trace(self.confusion[:, :6]))

    @property
    def declined(self) -> int:
        return int(self.confusion[:, 6].sum())

    @property
    def accepted(self) -> int:
        return self.dice - self.declined

    @property
    def wrong(self) -> int:
        return self.accepted - self.correct

    def percent(self, count: int) -> float:
        return 100.0 * count / self.dice if self.dice else 0.0

    @property
    def wrong_per_1000_accepted(self) -> float:
        return 1000.0 * self.wrong / self.accepted if self.accepted else 0.0

    def summary(self) -> str:
        """One line of figures: read correctly, declined, wrong per 1,000 accepted (with its 95 % upper end)."""
        upper = 1000.0 * clopper_pearson_upper(self.wrong, self.accepted)
        return (f"{self.dice} dice: read correctly {self.correct} ({self.percent(self.correct):.1f} %), declined "
                f"{self.declined} ({self.percent(self.declined):.1f} %), wrong {self.wrong} of {self.accepted} "
                f"accepted = {self.wrong_per_1000_accepted:.2f} per 1,000 (95 % upper {upper:.2f})")

    def table(self) -> str:
        """The confusion matrix and the declines by reason, as text."""
        lines = ["true\\read     1     2     3     4     5     6  declined"]
        for face in range(6):
            lines.append(f"{face + 1:>9} " + " ".join(f"{int(v):>5}" for v in self.confusion[face, :6])
                         + f" {int(self.confusion[face, 6]):>9}")
        if self.declines:
            lines.append("declines: " + ", ".join(f"{reason} {count}" for reason, count in self.declines.most_common()))
        return "\n".join(lines)
