"""The staged dice reader: one frame in, the dice read or the reason the frame is declined.

Stages, each a module with a typed result:

1. find the arena's dice bodies and the die's size in the frame (a :class:`BodyFinder`);
2. propose die squares in each body (a :class:`SquareProposer`);
3. read each square's upright crop (:mod:`vision.die_crop`) with the learned per-die reader (a
   :class:`CropReader`: faces 1..6 and "not a flat readable die", each with its probability);
4. explain each body by its sure readings (:mod:`vision.dice_explanation`: at or above the reader's
   calibrated acceptance threshold, exactly one set of dice for the whole body);
5. judge the scene (:mod:`vision.dice_scene`: motion, glare, stacked, cocked, outside the arena, the
   game's count).

Every read names the per-die reader that made it (its model's SHA-256), so a certificate names the exact
reader. A declined read is never an outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from vision.declines import Decline
from vision.dice_explanation import Body, BodyExplanation, DieReading, ExplanationSettings, explain_body
from vision.dice_scene import SceneSettings, judge_scene
from vision.die_crop import DieSquare, rectified_crop
from vision.frame import check_image


@dataclass(frozen=True)
class FoundBodies:
    """Stage 1's result: the bodies in the frame and the die's edge there (px)."""

    bodies: tuple[Body, ...]
    die_edge_px: float


class BodyFinder(Protocol):
    def __call__(self, frame: np.ndarray) -> FoundBodies: ...


class SquareProposer(Protocol):
    def __call__(self, frame: np.ndarray, body: Body, die_edge_px: float) -> Sequence[DieSquare]: ...


class CropReader(Protocol):
    """The learned per-die reader: crops of ``crop_px`` with ``margin`` in, one probability row per crop out."""

    crop_px: int
    margin: float
    threshold: float
    sha256: str

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray: ...


@dataclass(frozen=True)
class StagedRead:
    """What the staged reader made of one frame: the verdict, and the work behind it for the evidence."""

    dice: tuple[DieReading, ...]
    decline: Decline | None
    detail: str
    reader_sha256: str
    bodies: int
    readings: int

    @property
    def accepted(self) -> bool:
        return self.decline is None

    @property
    def faces(self) -> tuple[int, ...]:
        """Faces up, sorted; empty when declined (a declined read is never an outcome)."""
        return tuple(sorted(die.face or 0 for die in self.dice)) if self.accepted else ()


@dataclass(frozen=True)
class StagedDiceReader:
    """The five stages wired together with one configuration each."""

    find_bodies: BodyFinder
    propose: SquareProposer
    reader: CropReader
    scene: SceneSettings
    side_share: float = 0.12
    """Side face a flat die shows to this camera, as a share of its edge (0.12 overhead, ~0.45 oblique)."""

    def read(self, frame: np.ndarray) -> StagedRead:
        """Read one BGR uint8 frame."""
        frame = check_image(frame)
        found = self.find_bodies(frame)
        squares = [list(self.propose(frame, body, found.die_edge_px)) for body in found.bodies]
        flat = [square for body_squares in squares for square in body_squares]
        rows = self._read_squares(frame, flat)
        settings = ExplanationSettings(threshold=self.reader.threshold, side_share=self.side_share)
        explanations: list[BodyExplanation] = []
        start = 0
        for body, body_squares in zip(found.bodies, squares, strict=True):
            readings = [DieReading(square, tuple(float(p) for p in rows[start + i]))
                        for i, square in enumerate(body_squares)]
            start += len(body_squares)
            explanations.append(explain_body(body, readings, settings))
        verdict = judge_scene(frame, found.bodies, explanations, found.die_edge_px, self.scene)
        return StagedRead(verdict.dice, verdict.decline, verdict.detail, self.reader.sha256, len(found.bodies),
                          len(flat))

    def _read_squares(self, frame: np.ndarray, squares: Sequence[DieSquare]) -> np.ndarray:
        if not squares:
            return np.zeros((0, 7))
        crops = [rectified_crop(frame, square, self.reader.crop_px, self.reader.margin) for square in squares]
        rows = np.asarray(self.reader.probabilities(crops), np.float64)
        if rows.shape[0] != len(squares) or rows.ndim != 2 or rows.shape[1] < 7:
            raise ValueError(f"the per-die reader {self.reader.sha256[:12]} gave {rows.shape} probabilities for "
                             f"{len(squares)} crops")
        return rows
