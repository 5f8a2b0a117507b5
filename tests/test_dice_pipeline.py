"""The staged dice reader wires its stages: bodies, squares, crops read, bodies explained, the scene judged.

On synthetic frames (white dice, black pips, green table), with the real body and proposal stages and a
stand-in crop reader that counts the dark spots in the crop's middle. What is tested is the wiring: which
crops reach the reader, how its probabilities decide, and that every read names the reader.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pytest
from synthetic_dice import LeansAt, SpotCounter, die_frame, sure_reading

from vision.declines import Decline
from vision.dice_confirmation import ConfirmationSettings
from vision.dice_explanation import BodyExplanation, DieReading
from vision.dice_pipeline import ExplainedFrame, StagedDiceReader, lost_in
from vision.dice_scene import SceneSettings, SceneVerdict
from vision.dice_size_from_reads import SizeSource
from vision.dice_stage_config import DiceStageConfig
from vision.die_crop import DieSquare

UPRIGHT = ConfirmationSettings(turns=())
"""The stand-in reader counts spots in an upright crop's middle, so it does not read a turned square as the learned
reader does: its dice are confirmed at the other dice's size only (tests/test_dice_confirmation.py reads turned
squares with the learned reader)."""


def reader(counter: SpotCounter, **scene: object) -> StagedDiceReader:
    return StagedDiceReader(counter, SceneSettings(**scene), lean=LeansAt(0.0), confirmation=UPRIGHT)


def test_each_die_is_read_from_its_own_upright_crop() -> None:
    frame, _ = die_frame([(60, 60), (160, 120), (250, 180)], faces=[3, 6, 1])
    counter = SpotCounter()
    read = reader(counter, expected_dice=3).read(frame)
    assert read.accepted and read.faces == (1, 3, 6)
    assert [die.face for die in read.dice] == [3, 6, 1]  # left to right
    assert len(counter.crops) >= 3 and all(crop.shape == (48, 48, 3) for crop in counter.crops)
    assert (read.bodies, read.reader_sha256) == (3, "ab" * 32) and read.readings == len(counter.crops)


class UnsureOfBlue(SpotCounter):
    """Sure of nothing where the crop is bluish (confidence 0.6, under the threshold of 0.9)."""

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        rows = super().probabilities(crops)
        for row, crop in zip(rows, crops, strict=True):
            if float(crop[..., 0].mean()) - float(crop[..., 2].mean()) > 20:
                row[:] = 0.4 / 6
                row[int(row.argmax())] = 0.6
        return rows


def paint_blue(frame: np.ndarray, x: int, y: int) -> None:
    """The white die at (x, y) of :func:`die_frame` painted bluish (its pips left black)."""
    die = frame[y - 20:y + 21, x - 20:x + 21]
    die[(die > 200).all(axis=2)] = (250, 200, 150)


def test_a_die_the_reader_is_not_sure_of_declines_the_frame() -> None:
    def reader_with(lean: LeansAt) -> StagedDiceReader:
        return StagedDiceReader(UnsureOfBlue(), SceneSettings(expected_dice=2), lean=lean, confirmation=UPRIGHT)

    frame, _ = die_frame([(60, 60), (160, 120)], faces=[3, 6])
    paint_blue(frame, 160, 120)
    read = reader(UnsureOfBlue(), expected_dice=2).read(frame)
    # the reader takes the blue die for a face but is sure of none: unreadable, never cocked
    assert read.decline is Decline.UNREADABLE and read.faces == ()
    assert "face with 0.933 (most likely a 1, at 0.600), but no face reads surely" in read.detail
    assert "the lean model gives that square 0.100 of not lying flat" in read.detail
    # the lean model is asked of its square most like a face, with the die read: when it leans, the die is cocked
    flat = LeansAt(0.0)
    assert reader_with(flat).read(frame).decline is Decline.UNREADABLE
    assert flat.asked and set(flat.asked) == {2}  # each judgement asks of both dice in one batch
    leaning = LeansAt(200.0)
    read = reader_with(leaning).read(frame)
    assert read.decline is Decline.COCKED and "dice reads no face surely; its square most like a face leans" in read.detail
    assert reader(SpotCounter(), expected_dice=2).read(frame).faces == (3, 6)  # read when the reader is sure


def test_the_lean_model_is_asked_of_the_dice_read_and_of_where_a_die_may_lie_unread() -> None:
    frame, _ = die_frame([(60, 60), (160, 120)], faces=[3, 6])
    read_die = sure_reading(3, (60, 60), 40)
    rest = DieSquare((60.0, 100.0), 40.0)
    unsure = DieReading(DieSquare((160.0, 120.0), 40.0), (0.6, 0.1, 0.1, 0.05, 0.05, 0.05, 0.05))
    explanations = [BodyExplanation((read_die,), "unexplained", "beside", 1600, leftover_square=rest),
                    BodyExplanation((), "unexplained", "no die is read in it", 1600, unsure_reading=unsure),
                    BodyExplanation((read_die,))]  # a die read twice is asked of once
    lean = LeansAt(100.0)
    judged = StagedDiceReader(SpotCounter(), SceneSettings(), lean=lean, confirmation=UPRIGHT)._lean(frame,
                                                                                                       explanations)
    assert lean.asked == [3] and list(judged.probabilities) == [read_die.square, unsure.square, rest]
    assert judged.probabilities[rest] == (0.1, 0.8, 0.1) and judged.probabilities[unsure.square] == (0.9, 0.05, 0.05)



def test_an_empty_table_is_a_wrong_count_and_no_crop_is_read() -> None:
    counter = SpotCounter()
    frame = np.full((240, 320, 3), (40, 110, 40), np.uint8)
    read = reader(counter, expected_dice=2).read(frame)
    assert read.decline is Decline.WRONG_COUNT and counter.crops == []


def test_a_reader_giving_the_wrong_number_of_rows_is_an_error_naming_it() -> None:
    class Short(SpotCounter):
        def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
            return super().probabilities(crops)[:-1]

    frame, _ = die_frame([(60, 60), (160, 120)], faces=[3, 6])
    with pytest.raises(ValueError, match="the per-die reader ababababab"):
        reader(Short()).read(frame)


def test_a_camera_over_the_table_is_not_judged_without_a_lean_model() -> None:
    frame, _ = die_frame([(60, 60)], faces=[3])
    with pytest.raises(ValueError, match="a camera over the table .* needs a lean model"):
        StagedDiceReader(SpotCounter(), SceneSettings(expected_dice=1), confirmation=UPRIGHT).read(frame)
    explained = StagedDiceReader(SpotCounter(), SceneSettings(expected_dice=1), confirmation=UPRIGHT).explain(frame)
    assert [die.face for die in explained.dice] == [3]  # the stages before the scene need none


def test_with_a_camera_over_the_table_the_lean_model_judges_every_die_read_in_one_batch() -> None:
    frame, _ = die_frame([(60, 60), (160, 120), (250, 180)], faces=[3, 6, 1])
    flat = LeansAt(0.0)
    read = StagedDiceReader(SpotCounter(), SceneSettings(expected_dice=3), confirmation=UPRIGHT,
                            lean=flat).read(frame)
    assert read.accepted and read.faces == (1, 3, 6) and flat.asked == [3]  # one batch of the three dice
    assert read.lean_sha256 == "cd" * 32 and read.to_json()["lean_sha256"] == "cd" * 32
    read = StagedDiceReader(SpotCounter(), SceneSettings(expected_dice=3), confirmation=UPRIGHT,
                            lean=LeansAt(100.0)).read(frame)
    assert read.decline is Decline.COCKED and read.detail.startswith("die at (60, 60) read 3 leans: the lean model")
    assert StagedDiceReader(SpotCounter(), SceneSettings(expected_dice=3), confirmation=UPRIGHT,
                            lean=LeansAt(0.0)).read(
        np.full((240, 320, 3), (40, 110, 40), np.uint8)).decline is Decline.WRONG_COUNT  # no die: none asked about
    oblique = LeansAt(100.0)
    read = StagedDiceReader(SpotCounter(), SceneSettings(expected_dice=3), confirmation=UPRIGHT, side_share=0.45,
                            lean=oblique).read(frame)
    assert read.accepted and oblique.asked == [] and read.lean_sha256 is None  # an oblique camera: not asked


def test_every_read_names_the_size_it_was_explained_at_and_where_that_size_came_from() -> None:
    frame, _ = die_frame([(60, 60), (160, 120), (250, 180)], faces=[3, 6, 1])
    estimated = reader(SpotCounter()).read(frame)
    assert estimated.accepted and estimated.size_source is SizeSource.BODIES
    assert estimated.to_json()["size_source"] == "bodies" and estimated.to_json()["die_edge_px"] == pytest.approx(
        estimated.die_edge_px, abs=0.05)
    told = dataclasses.replace(reader(SpotCounter()), stages=DiceStageConfig(die_edge_px=(30.0, 50.0))).read(frame)
    assert told.accepted and told.size_source is SizeSource.TOLD and 30.0 <= told.die_edge_px <= 50.0


def test_a_later_read_that_loses_a_die_the_first_read_saw_is_named() -> None:
    """lost_in: each die read surely must keep its centre under a later read's square, and each body found unreadable
    must lie at least half under them."""
    _, bodies = die_frame([(60, 60), (160, 120), (250, 180)], faces=[3, 6, 1])
    first = ExplainedFrame(40.0, bodies, [BodyExplanation((sure_reading(3, (60, 60), 40),)),
                                          BodyExplanation((sure_reading(6, (160, 120), 40),)),
                                          BodyExplanation((), "unreadable", "a die read, then declined")], 3)
    kept = [sure_reading(3, (62, 58), 52), sure_reading(6, (158, 121), 52), sure_reading(1, (250, 180), 52)]
    assert lost_in(first, kept) is None
    assert lost_in(first, kept[1:]) == "the die read 3 at (60, 60) px"
    assert lost_in(first, kept[:2]) == "the unreadable body at (250, 180) px"
    assert lost_in(first, kept[:2] + [sure_reading(1, (250, 200), 52)]) is None  # 30 of its 40 rows under the square
    assert lost_in(first, kept[:2] + [sure_reading(1, (250, 215), 52)]) is not None  # under half of it


def test_a_frame_read_again_at_a_larger_size_is_not_accepted_with_a_die_missing() -> None:
    """Declined at the size its bodies gave, a frame is read again at larger sizes; a read there that accepts the frame
    but loses a die the first read saw (a die far smaller than the others drops out as a speck) is not taken, and
    the first decline stands; one that keeps every die is."""
    frame, bodies = die_frame([(60, 60), (160, 120), (250, 180)], faces=[3, 6, 1])
    both = [sure_reading(3, (60, 60), 40), sure_reading(6, (160, 120), 40)]
    first = ExplainedFrame(40.0, bodies, [BodyExplanation((both[0],)), BodyExplanation((both[1],)),
                                          BodyExplanation((), "unreadable", "the small die reads 1, then not")], 3)

    @dataclasses.dataclass(frozen=True)
    class ReadAgain(StagedDiceReader):
        again: tuple[DieReading, ...] = ()

        def explain(self, frame: np.ndarray) -> ExplainedFrame:
            if self.stages.die_edge_px is None:
                return first
            return ExplainedFrame(52.0, bodies[:2], [BodyExplanation((die,)) for die in self.again], readings=2,
                                  size_source=SizeSource.TOLD)

        def _judge(self, frame: np.ndarray, explained: ExplainedFrame, scene: SceneSettings
                   ) -> tuple[SceneVerdict, str | None]:
            if explained is first:
                return SceneVerdict((), Decline.UNREADABLE, "the small die reads 1, then not"), None
            return SceneVerdict(tuple(explained.dice), None), None

    losing = ReadAgain(SpotCounter(), confirmation=UPRIGHT, side_share=0.45, again=tuple(both))
    read = losing.read(frame)
    assert read.decline is Decline.UNREADABLE
    assert read.detail == ("the small die reads 1, then not; read again at 52.0 px the frame loses the unreadable body "
                           "at (250, 180) px")
    keeping = dataclasses.replace(losing, again=(*both, sure_reading(1, (250, 180), 40)))
    read = keeping.read(frame)
    assert read.accepted and read.faces == (1, 3, 6) and read.size_source is SizeSource.AFTER_DECLINE
