"""The die's size corrected by the dice read surely, when the bench tells none (vision.dice_size_from_reads)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

from vision.dice_size_from_reads import SizeFromReads, SizeSource, explained_at_read_size
from vision.dice_stage_config import DiceStageConfig


@dataclass(frozen=True)
class Explanation:
    die_edge_px: float
    dice: tuple[float, ...]
    """The edges of the dice read surely."""


class Frame:
    """A frame whose dice are ``true_edge`` px: an explanation at a size within ``reads_within`` of it reads them
    all surely (at their own edge); one further off reads none. Without a size told the bodies say ``estimate``.
    ``measurable``: whether the reader can measure the dice it reads surely (:mod:`vision.die_size_probe`)."""

    def __init__(self, true_edge: float, estimate: float, reads_within: float = 0.35, dice: int = 3,
                 measurable: bool = True) -> None:
        self.true_edge, self.estimate, self.reads_within, self.count = true_edge, estimate, reads_within, dice
        self.measurable = measurable
        self.asked: list[tuple[float, float] | None] = []

    def explain(self, stages: DiceStageConfig) -> Explanation:
        self.asked.append(stages.die_edge_px)
        told = stages.die_edge_px
        if told is None:
            size = self.estimate
        else:  # told a range, the bodies find the dice's own size in it, else take its middle
            size = self.true_edge if told[0] <= self.true_edge <= told[1] else (told[0] + told[1]) / 2
        readable = abs(size / self.true_edge - 1.0) <= self.reads_within
        return Explanation(size, (self.true_edge,) * self.count if readable else ())


def _explain(frame: Frame, stages: DiceStageConfig | None = None, settings: SizeFromReads | None = None
             ) -> tuple[Explanation, SizeSource]:
    return explained_at_read_size(frame.explain, stages or DiceStageConfig(), settings or SizeFromReads(),
                                  lambda edges: list(edges) if frame.measurable else [])


def test_a_size_the_bench_tells_is_kept_and_the_frame_explained_once() -> None:
    frame = Frame(true_edge=40.0, estimate=40.0)
    explained, source = _explain(frame, DiceStageConfig(die_edge_px=(55.0, 65.0)))
    assert source is SizeSource.TOLD and frame.asked == [(55.0, 65.0)]
    assert explained.die_edge_px == 60.0 and explained.dice == ()  # told wrong: declined, not second-guessed


def test_an_estimate_near_the_sure_reads_is_kept() -> None:
    frame = Frame(true_edge=40.0, estimate=44.0)  # 10 % off: within differ_share 0.15
    explained, source = _explain(frame)
    assert source is SizeSource.BODIES and frame.asked == [None] and explained.die_edge_px == 44.0


def test_sure_reads_far_from_the_estimate_explain_the_frame_again_told_their_size() -> None:
    frame = Frame(true_edge=40.0, estimate=50.0)  # 25 % off, yet still readable
    explained, source = _explain(frame)
    assert source is SizeSource.SURE_READS
    assert frame.asked == [None, pytest.approx((36.0, 44.0))]  # told the measured edge +- measured_share 0.1
    assert explained.die_edge_px == 40.0 and len(explained.dice) == 3


def test_a_frame_read_nowhere_at_the_estimate_is_explained_at_half_of_it_then_at_its_dice_s_size() -> None:
    frame = Frame(true_edge=40.0, estimate=110.0, reads_within=0.4)  # shadows and touching dice: 2.75 dice
    explained, source = _explain(frame)
    assert frame.asked == [None, pytest.approx((44.0, 66.0)), pytest.approx((36.0, 44.0))]
    assert source is SizeSource.SURE_READS and explained.die_edge_px == 40.0


def test_a_frame_read_nowhere_at_the_estimate_nor_at_half_of_it_is_explained_at_twice_it() -> None:
    frame = Frame(true_edge=40.0, estimate=24.0)  # a translucent die broken into pieces by its glare
    explained, source = _explain(frame)
    assert frame.asked == [None, pytest.approx((9.6, 14.4)), pytest.approx((38.4, 57.6))]
    assert source is SizeSource.RETRIED and explained.die_edge_px == 40.0


def test_the_retried_size_stands_when_its_reads_agree_with_it() -> None:
    frame = Frame(true_edge=42.0, estimate=84.0)
    explained, source = _explain(frame)
    assert source is SizeSource.RETRIED and frame.asked == [None, pytest.approx((33.6, 50.4))]
    assert explained.die_edge_px == 42.0


def test_a_retry_whose_dice_the_reader_cannot_measure_is_not_taken() -> None:
    frame = Frame(true_edge=40.0, estimate=24.0, measurable=False)  # a lone pip reads as a 1 at every size
    explained, source = _explain(frame)
    assert source is SizeSource.BODIES and explained.die_edge_px == 24.0 and explained.dice == ()
    assert len(frame.asked) == 5  # the estimate and its four shares


def test_unmeasurable_sure_reads_keep_the_size_they_were_read_at() -> None:
    frame = Frame(true_edge=40.0, estimate=50.0, measurable=False)
    explained, source = _explain(frame)
    assert source is SizeSource.BODIES and frame.asked == [None] and len(explained.dice) == 3


def test_a_frame_read_at_no_size_keeps_its_first_explanation() -> None:
    frame = Frame(true_edge=40.0, estimate=200.0)  # every share of it is still far off: nothing is read
    explained, source = _explain(frame)
    assert source is SizeSource.BODIES and explained.die_edge_px == 200.0 and explained.dice == ()
    assert frame.asked == [None, pytest.approx((80.0, 120.0)), pytest.approx((320.0, 480.0)),
                           pytest.approx((48.0, 72.0)), pytest.approx((480.0, 720.0))]


def test_an_estimate_three_times_too_small_is_retried_at_three_times_it() -> None:
    frame = Frame(true_edge=38.0, estimate=13.0, reads_within=0.2)  # a translucent die read as its glare's pieces
    explained, source = _explain(frame)
    assert frame.asked == [None, pytest.approx((5.2, 7.8)), pytest.approx((20.8, 31.2)), pytest.approx((3.12, 4.68)),
                           pytest.approx((31.2, 46.8))]
    assert source is SizeSource.RETRIED and explained.die_edge_px == 38.0 and len(explained.dice) == 3


def test_an_estimate_three_times_too_large_is_retried_at_0_3_of_it() -> None:
    frame = Frame(true_edge=40.0, estimate=160.0, reads_within=0.2)  # three dice touching in one body
    explained, source = _explain(frame)
    assert frame.asked == [None, pytest.approx((64.0, 96.0)), pytest.approx((256.0, 384.0)),
                           pytest.approx((38.4, 57.6))]
    assert source is SizeSource.RETRIED and explained.die_edge_px == 40.0


def test_turned_off_the_bodies_estimate_stands() -> None:
    frame = Frame(true_edge=40.0, estimate=50.0)
    explained, source = _explain(frame, settings=SizeFromReads(enabled=False))
    assert source is SizeSource.BODIES and frame.asked == [None] and explained.die_edge_px == 50.0


@pytest.mark.parametrize("field", ["differ_share", "told_share", "measured_share", "told_retry_least"])
@pytest.mark.parametrize("value", [0.0, 1.0, -0.2])
def test_shares_outside_zero_to_one_are_refused_naming_them(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=f"{field} must lie within 0..1"):
        dataclasses.replace(SizeFromReads(), **{field: value})


@pytest.mark.parametrize("shares", [(0.5, 1.0), (0.0,), (-2.0,), (float("nan"),)])
def test_retry_shares_that_are_not_positive_or_retry_the_estimate_itself_are_refused(shares: tuple) -> None:
    with pytest.raises(ValueError, match="a retry share must be positive and not 1.* in retry_shares"):
        SizeFromReads(retry_shares=shares)
    with pytest.raises(ValueError, match="a retry share must be positive and not 1.* in declined_shares"):
        SizeFromReads(declined_shares=shares)
    with pytest.raises(ValueError, match="a retry share must be positive and not 1.* in told_declined_shares"):
        SizeFromReads(told_declined_shares=shares)
