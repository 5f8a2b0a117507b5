"""Whether a die read on its up face lies flat, learned: an ONNX classifier over a wide crop around the die
(p217-2007/banca-francesa/7 b: a cocked die gives no result; p217-2007/cussec/6: nor does a die on another).

A die cocked by 24-40 degrees against another die or the rail shows its up face barely foreshortened, and a die
resting on another shows a clean flat face, so the per-die reader (:mod:`vision.die_reader_model`) reads both as
surely as a flat die. Seen from a camera over the table, the cocked die also shows the side face it is lifted on
(a band beside the up face, a third to two thirds of an edge wide, with that face's pips squeezed into it), and
the die on top of another covers part of the die beneath. The lean model reads a crop of the die's square with
:attr:`LeanCard.margin` edges around it on every side, turned upright as the square is, and gives the
probabilities that the die lies flat, leans, or rests on another die. A die whose probability of not lying flat
reaches the card's threshold declines the frame: as cocked, or as stacked, whichever the model finds likelier.

The card beside the model (JSON) states the classes (``flat``, ``leaning``, ``on-another-die``), the crop's size
and margin, the threshold (fitted on rendered frames never trained on so that at most a stated share of the
leaning dice, and of the dice on another, pass) and the model file's SHA-256, which :meth:`DieLeanModel.load`
checks before it runs the model.

Only for a camera over the table: an oblique camera sees a flat die's side faces, pips and all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.die_crop import DieSquare
from vision.die_reader_model import MODEL_DIR, CardedModel, ModelIntegrityError, softmax_of

DEFAULT_LEAN_MODEL = MODEL_DIR / "die_lean.onnx"
LEAN_CLASSES = ("flat", "leaning", "on-another-die")
FLAT, LEANING, ON_ANOTHER_DIE = 0, 1, 2
"""Indices of the classes in the model's output: the die lies flat on the table, leans (cocked), or rests on
another die (stacked)."""


@dataclass(frozen=True)
class LeanCard:
    """What the card beside a lean model states: classes, crop geometry, threshold, model hash."""

    crop_px: int
    margin: float
    threshold: float
    sha256: str

    @classmethod
    def read(cls, path: Path) -> LeanCard:
        """The card at ``path``; a missing, garbled or out-of-range field raises :class:`ModelIntegrityError`
        naming the file and the field."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ModelIntegrityError(f"{path}: cannot read the lean model's card ({error})") from error
        if not isinstance(data, dict) or tuple(data.get("classes", ())) != LEAN_CLASSES:
            raise ModelIntegrityError(f"{path}: classes must be {list(LEAN_CLASSES)}")
        fields = {"crop_px": (int, lambda v: v >= 16, "at least 16"),
                  "margin": (float, lambda v: 0.0 < v < 2.0, "within (0, 2)"),
                  "threshold": (float, lambda v: 0.0 < v <= 1.0, "within (0, 1]"),
                  "sha256": (str, lambda v: re.fullmatch(r"[0-9a-f]{64}", v) is not None, "64 hex digits")}
        values = {}
        for name, (kind, valid, rule) in fields.items():
            value = data.get(name)
            if isinstance(value, bool) or not isinstance(value, (str,) if kind is str else (int, float)):
                raise ModelIntegrityError(f"{path}: {name} must be {rule}, got {value!r}")
            values[name] = kind(value)
            if not valid(values[name]):
                raise ModelIntegrityError(f"{path}: {name} must be {rule}, got {value!r}")
        return cls(**values)


class DieLeanModel(CardedModel):
    """The lean classifier loaded from an ONNX file whose SHA-256 its card vouches for."""

    CARD = LeanCard
    DEFAULT = DEFAULT_LEAN_MODEL
    card: LeanCard

    @property
    def threshold(self) -> float:
        """A die does not lie flat when its probability of not lying flat (1 - P(flat)) reaches this."""
        return self.card.threshold

    def probabilities(self, image: np.ndarray, squares: Sequence[DieSquare]) -> np.ndarray:
        """(N, 3) the probabilities that each die of ``squares`` (its up face read in ``image``) lies flat, leans or
        rests on another die."""
        return self.probabilities_of_crops([self.crop(image, square) for square in squares])

    def probabilities_of_crops(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """(N, 3) the class probabilities of a batch of crops cut by :meth:`crop`."""
        if len(crops) == 0:
            return np.zeros((0, len(LEAN_CLASSES)), np.float32)
        return softmax_of(self._session, crops, self.card.crop_px)
