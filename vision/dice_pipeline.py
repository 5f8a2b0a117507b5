"""The staged dice reader: one frame in, the dice read or the reason the frame is declined.

Stages, each a module with a typed result:

1. find the arena's dice bodies and the die's size in the frame (:mod:`vision.dice_bodies`);
2. propose die squares in each body (:mod:`vision.dice_proposals`; both stages' settings are one
   :class:`vision.dice_stage_config.DiceStageConfig`);
3. read each square's upright crop (:mod:`vision.die_crop`) with the learned per-die reader (a
   :class:`vision.dice_looks.CropReader`: faces 1..6 and "not a flat readable die", each with its probability),
   then the squares of the later looks (:mod:`vision.dice_looks`, their settings one
   :class:`vision.dice_looks.LookSettings`): a second look where it half believes a face
   (:mod:`vision.dice_second_look`);
4. explain each body by its sure readings (:mod:`vision.dice_explanation`: at or above the reader's
   calibrated acceptance threshold, exactly one set of dice for the whole body); a body left unexplained beside
   the dice read in it gets a third look, squares of the die's size on a grid over what they leave
   (:mod:`vision.dice_leftover_scan`), and is explained again with every reading; a body of about one die's area
   in which no die is read gets a fourth look, squares at its centre at every turn (:mod:`vision.dice_centre_look`);
   every die read must read its face again from its square turned about its centre and, of another size than the
   frame's other dice, from a square of theirs (:mod:`vision.dice_confirmation`);
5. judge the scene (:mod:`vision.dice_scene`: motion, glare, stacked, cocked, outside the arena, the
   game's count); with a camera over the table, whether each die read leans is the lean model's verdict
   (:mod:`vision.die_lean_model`, one batch for the frame's dice).

Every read names the per-die reader that made it (its model's SHA-256) and the lean model that judged it, so a
certificate names the exact reader. A declined read is never an outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from vision.declines import Decline
from vision.dice_beyond_arena import bodies_beyond
from vision.dice_bodies import Bodies, find_bodies
from vision.dice_confirmation import ConfirmationSettings, confirm_dice
from vision.dice_explanation import BodyExplanation, BodyPixels, DieReading, ExplanationSettings
from vision.dice_looks import CropReader, LookedBodies, LookSettings, look_and_explain, read_squares
from vision.dice_proposals import propose_squares
from vision.dice_scene import LeanJudgement, SceneSettings, SceneVerdict, judge_scene, shown_beyond_arena
from vision.dice_size_from_reads import SizeFromReads, SizeSource, explained_at_read_size, told
from vision.dice_stage_config import DiceStageConfig
from vision.die_crop import DieSquare
from vision.die_size_probe import SureDie, probed_edges
from vision.frame import check_image


class LeanReader(Protocol):
    """The learned lean check (:class:`vision.die_lean_model.DieLeanModel`): the probabilities that each die read
    lies flat, leans or rests on another die, and the threshold on its probability of not lying flat."""

    threshold: float
    sha256: str

    def probabilities(self, image: np.ndarray, squares: Sequence[DieSquare]) -> np.ndarray: ...


@dataclass(frozen=True)
class StagedRead:
    """What the staged reader made of one frame: the verdict, and the work behind it for the evidence."""

    dice: tuple[DieReading, ...]
    decline: Decline | None
    detail: str
    reader_sha256: str
    bodies: int
    readings: int
    lean_sha256: str | None = None
    """The lean model that judged whether the dice read lean (None: an oblique camera, or no model)."""
    die_edge_px: float | None = None
    """The die's edge the frame was explained at, px, and where it came from (:class:`SizeSource`)."""
    size_source: SizeSource | None = None

    @property
    def accepted(self) -> bool:
        return self.decline is None

    @property
    def faces(self) -> tuple[int, ...]:
        """Faces up, sorted; empty when declined (a declined read is never an outcome)."""
        return tuple(sorted(die.face or 0 for die in self.dice)) if self.accepted else ()

    def to_json(self) -> dict:
        """A JSON-ready dict: accepted, the faces, the decline and its detail, each die read
        (:meth:`vision.dice_explanation.DieReading.to_json`), the per-die and lean models' hashes and the die's edge
        with where it came from."""
        return {"accepted": self.accepted, "faces": list(self.faces),
                "decline": None if self.decline is None else str(self.decline), "detail": self.detail,
                "dice": [die.to_json() for die in self.dice], "reader_sha256": self.reader_sha256,
                **({} if self.lean_sha256 is None else {"lean_sha256": self.lean_sha256}),
                **({} if self.die_edge_px is None else {"die_edge_px": round(self.die_edge_px, 1),
                                                       "size_source": str(self.size_source)})}


OVERHEAD_SIDE_SHARE = 0.2
"""A camera whose flat dice show side faces of at most this share of an edge looks down on the table: a side
face beside a die read is a die that leans, and the lean model (:mod:`vision.die_lean_model`) judges every die
read."""


@dataclass(frozen=True)
class ExplainedFrame:
    """A frame after the first four stages: the die's size in it, its bodies and each body's explanation."""

    die_edge_px: float
    bodies: list[BodyPixels]
    explanations: list[BodyExplanation]
    readings: int
    """Squares read for the frame: both looks, at every size it was explained at, and the size probes."""
    size_source: SizeSource = SizeSource.BODIES
    """Where ``die_edge_px`` came from."""
    arena_px: np.ndarray | None = None
    """The arena the first stage found (:attr:`vision.dice_bodies.Bodies.arena_px`), within which it looked for
    bodies."""
    found: Bodies | None = None
    """What the first stage found, with what differs from the table beyond its arena."""

    @property
    def dice(self) -> list[DieReading]:
        """The dice the explanations read, body by body."""
        return [die for explanation in self.explanations for die in explanation.dice]


@dataclass(frozen=True)
class StagedDiceReader:
    """The five stages wired together, each with its settings."""

    reader: CropReader
    scene: SceneSettings = field(default_factory=SceneSettings)
    stages: DiceStageConfig = field(default_factory=DiceStageConfig)
    side_share: float = 0.12
    """Side face a flat die shows to this camera, as a share of its edge (0.12 overhead, ~0.45 oblique)."""

    looks: LookSettings = field(default_factory=LookSettings)
    """The looks after the proposed squares (:mod:`vision.dice_looks`)."""
    size_from_reads: SizeFromReads = field(default_factory=SizeFromReads)
    confirmation: ConfirmationSettings = field(default_factory=ConfirmationSettings)
    lean: LeanReader | None = None
    """Whether a die read leans, with a camera over the table; :meth:`read` refuses to judge such a camera's frames
    without it (None serves :meth:`explain` only, or an oblique camera)."""

    def for_table(self, *, expected_dice: int | None, arena: tuple[tuple[float, float], ...] | None,
                  die_edge_px: tuple[float, float] | None) -> StagedDiceReader:
        """This reader for one table: the game's dice per throw, the arena polygon (frame px) and the die's edge
        the bench knows from its calibrated scale (``None``: derived from the frame)."""
        return replace(self, scene=replace(self.scene, expected_dice=expected_dice, arena=arena),
                       stages=replace(self.stages, die_edge_px=die_edge_px))

    def explain(self, frame: np.ndarray) -> ExplainedFrame:
        """Stages 1 to 4 on one BGR uint8 frame: its bodies, each explained by its sure readings; without a size
        told (``stages.die_edge_px``), at the size the dice read surely give (:mod:`vision.dice_size_from_reads`)."""
        frame = check_image(frame)
        counted = _CountingReader(self.reader)
        explained, source = explained_at_read_size(lambda stages: self._explain(frame, stages, counted), self.stages,
                                                   self.size_from_reads,
                                                   lambda dice: self._measured_edges(frame, dice, counted))
        return replace(explained, size_source=source, readings=counted.squares)

    def _measured_edges(self, frame: np.ndarray, dice: Sequence[DieReading], reader: CropReader) -> list[float]:
        """The edges the per-die reader measures of ``dice`` read surely (:mod:`vision.die_size_probe`)."""
        sure = [SureDie(die.square, die.face, die.confidence) for die in dice if die.face is not None]
        return probed_edges(sure, lambda squares: read_squares(frame, squares, reader), reader.threshold,
                            self.size_from_reads.probe)

    def _explain(self, frame: np.ndarray, stages: DiceStageConfig, reader: CropReader) -> ExplainedFrame:
        """Stages 1 to 4 with ``stages`` (the size told, or not)."""
        found = find_bodies(frame, stages, None if self.scene.arena is None else np.asarray(self.scene.arena))
        looked = self._look(frame, found, stages, reader)
        explanations = confirm_dice(looked.explanations, lambda squares: read_squares(frame, squares, reader),
                                    self.confirmation)
        return ExplainedFrame(found.die_edge_px, looked.bodies, explanations,
                              sum(len(readings) for readings in looked.readings), arena_px=found.arena_px, found=found)

    def _look(self, frame: np.ndarray, found: Bodies, stages: DiceStageConfig, reader: CropReader) -> LookedBodies:
        """Stages 2 to 4 but the confirmation on ``found``'s bodies: their squares proposed with ``stages``, read in
        every look and each body explained by its sure readings."""
        return look_and_explain(frame, found, propose_squares(frame, found, stages), reader,
                                ExplanationSettings(threshold=reader.threshold, side_share=self.side_share), self.looks)

    def read(self, frame: np.ndarray) -> StagedRead:
        """Read one BGR uint8 frame. A frame declined unreadable or stacked at a size the bench did not tell is read
        again at the larger sizes of ``size_from_reads.declined_shares`` (:mod:`vision.dice_size_from_reads`); one
        declined unreadable at a size told as a range, at other sizes within it (``told_declined_shares``). The first
        such read accepted that keeps every die the first read saw (:func:`lost_in`) is the frame's, else the first
        read's decline stands."""
        frame = check_image(frame)
        scene = self.scene if self.side_share <= OVERHEAD_SIDE_SHARE else replace(self.scene, leaning_check=False)
        if scene.leaning_check and self.lean is None:
            raise ValueError(f"a camera over the table (side faces {self.side_share:g} of an edge) needs a lean model "
                             "to judge whether the dice read lie flat (p217-2007/banca-francesa/7 b, cussec/6)")
        explained = self.explain(frame)
        verdict, lean_sha256 = self._judge(frame, explained, scene)
        readings, source = explained.readings, explained.size_source
        retried = (self.size_from_reads.told_retried_declines if source is SizeSource.TOLD
                   else self.size_from_reads.retried_declines)
        if not verdict.accepted and self.size_from_reads.enabled and verdict.decline in retried:
            for stages in self._declined_sizes(explained.die_edge_px, source):
                again = replace(self, stages=stages).explain(frame)
                readings += again.readings
                judged, sha256 = self._judge(frame, again, scene)
                if not judged.accepted:
                    continue
                lost = lost_in(explained, judged.dice)
                if lost is None:
                    explained, verdict, lean_sha256, source = again, judged, sha256, SizeSource.AFTER_DECLINE
                    break
                # the evidence says why the read that accepted the frame was not taken
                verdict = replace(verdict, detail=f"{verdict.detail}; read again at {again.die_edge_px:.1f} px the "
                                                  f"frame loses {lost}")
        if verdict.decline is Decline.WRONG_COUNT:
            verdict, looked_beyond = self._beyond_arena(frame, explained, verdict, scene)
            readings += looked_beyond
        return StagedRead(verdict.dice, verdict.decline, verdict.detail, self.reader.sha256, len(explained.bodies),
                          readings, lean_sha256, explained.die_edge_px, source)

    def _declined_sizes(self, edge: float, source: SizeSource) -> list[DiceStageConfig]:
        """The stages a frame declined at ``edge`` px is explained again with (:mod:`vision.dice_size_from_reads`):
        at each of ``declined_shares`` of it, told within +-``told_share``; with a size told (a range), at each of
        ``told_declined_shares`` of it brought into that range, told within +-``told_share`` and that range, unless
        that is within ``told_retry_least`` of ``edge``."""
        settings = self.size_from_reads
        if source is not SizeSource.TOLD:
            return [told(self.stages, share * edge, settings.told_share) for share in settings.declined_shares]
        low, high = self.stages.die_edge_px
        sizes = [float(np.clip(share * edge, low, high)) for share in settings.told_declined_shares]
        return [replace(self.stages, die_edge_px=(max(low, (1.0 - settings.told_share) * size),
                                                  min(high, (1.0 + settings.told_share) * size)))
                for size in sizes if abs(size / edge - 1.0) >= settings.told_retry_least]

    def _beyond_arena(self, frame: np.ndarray, explained: ExplainedFrame, verdict: SceneVerdict, scene: SceneSettings
                      ) -> tuple[SceneVerdict, int]:
        """``verdict`` (a short count) declined ``outside-arena`` when a body beyond the arena shows the die missing
        (:mod:`vision.dice_beyond_arena`, :func:`vision.dice_scene.shown_beyond_arena`), and the squares read there.
        Only the reason changes: the frame is declined either way."""
        if (explained.found is None or scene.arena is None or scene.expected_dice is None
                or len(verdict.dice) >= scene.expected_dice):
            return verdict, 0
        beyond = bodies_beyond(explained.found, self.stages)
        if not beyond.bodies:
            return verdict, 0
        counted = _CountingReader(self.reader)
        looked = self._look(frame, beyond, self.stages, counted)
        shown = shown_beyond_arena(looked.bodies, looked.explanations, len(verdict.dice), scene)
        if shown is None:
            return verdict, counted.squares
        return replace(verdict, decline=Decline.OUTSIDE_ARENA, detail=shown), counted.squares

    def _judge(self, frame: np.ndarray, explained: ExplainedFrame, scene: SceneSettings
               ) -> tuple[SceneVerdict, str | None]:
        """The scene's verdict on ``explained`` (stage 5), and the lean model's hash when it judged the dice."""
        lean = self._lean(frame, explained.explanations) if scene.leaning_check else None
        verdict = judge_scene(frame, explained.bodies, explained.explanations, explained.die_edge_px, scene, lean,
                              found_arena=explained.arena_px)
        return verdict, None if lean is None else lean.model_sha256

    def _lean(self, frame: np.ndarray, explanations: Sequence[BodyExplanation]) -> LeanJudgement:
        """The lean model's verdict on every die read, on the square most like a face of each body where no die is
        read (a leaning die, or a flat one the reader is unsure of: :func:`vision.dice_scene.judge_body`) and on the
        square over the pixels beside the dice read that they leave unexplained (a die leaning against them, or one
        beneath them), in one batch."""
        assert self.lean is not None
        read = [die.square for explanation in explanations for die in explanation.dice]
        unsure = [explanation.unsure_reading.square for explanation in explanations
                  if not explanation.dice and explanation.unsure_reading is not None]
        beside = [explanation.leftover_square for explanation in explanations
                  if explanation.dice and explanation.leftover_square is not None]
        squares = list(dict.fromkeys(read + unsure + beside))
        rows = np.asarray(self.lean.probabilities(frame, squares), np.float64) if squares else np.zeros((0, 3))
        if rows.shape != (len(squares), 3):
            raise ValueError(f"the lean model {self.lean.sha256[:12]} gave {rows.shape} probabilities for "
                             f"{len(squares)} dice, not three classes each")
        return LeanJudgement({square: (float(a), float(b), float(c)) for square, (a, b, c) in zip(squares, rows,
                                                                                                 strict=True)},
                             self.lean.threshold, self.lean.sha256)


UNREADABLE_KEPT_SHARE = 0.5
"""A body the first read found unreadable is kept by a later read whose dice cover at least this share of it."""


def lost_in(first: ExplainedFrame, dice: Sequence[DieReading]) -> str | None:
    """Where ``dice`` (a read at a larger size) lose a die ``first`` saw, or None: each die ``first`` read surely must
    have its centre in one of their squares, and each body ``first`` found unreadable (a die read there, then
    declined) must lie at least :data:`UNREADABLE_KEPT_SHARE` under them. A frame read again at a larger size loses
    its smaller dice as specks (dice of several sizes, or one die far smaller than the others): without the game's
    count such a read would be accepted with a die missing."""
    squares = [die.square for die in dice]
    for body, explanation in zip(first.bodies, first.explanations, strict=True):
        for die in explanation.dice:
            if not any(square.contains(die.square.centre_px) for square in squares):
                x, y = die.square.centre_px
                return f"the die read {die.face} at ({x:.0f}, {y:.0f}) px"
        if explanation.problem == "unreadable" and \
                np.count_nonzero(body.under(squares)) < UNREADABLE_KEPT_SHARE * body.area_px:
            x, y = body.centre_px
            return f"the unreadable body at ({x:.0f}, {y:.0f}) px"
    return None


@dataclass
class _CountingReader:
    """A :class:`CropReader` that counts the squares it reads (a frame's evidence states them all)."""

    reader: CropReader
    squares: int = 0

    @property
    def crop_px(self) -> int:
        return self.reader.crop_px

    @property
    def margin(self) -> float:
        return self.reader.margin

    @property
    def threshold(self) -> float:
        return self.reader.threshold

    @property
    def sha256(self) -> str:
        return self.reader.sha256

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        self.squares += len(crops)
        return self.reader.probabilities(crops)
