"""Settling (frame differencing) and voting over settled frames, on synthetic sequences with sensor noise."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from vision.declines import Decline
from vision.frame import Frame
from vision.settle import SettleDetector, read_settled


def _background(kind: str, rng: np.random.Generator) -> np.ndarray:
    if kind == "felt":
        return np.full((480, 640, 3), (40, 110, 30), np.uint8)
    if kind == "texture":
        return cv2.GaussianBlur(rng.integers(40, 200, (480, 640, 3)).astype(np.uint8), (0, 0), 3)
    return rng.integers(0, 256, (480, 640, 3)).astype(np.uint8)  # "sharp": worst case for JPEG ringing


def _frame(background: np.ndarray, centre: tuple[float, float], index: int, rng: np.random.Generator,
           sigma: float = 5.0, quality: int | None = 60, radius: int = 30) -> Frame:
    image = background.copy()
    shift = 4  # sub-pixel centre
    cv2.circle(image, (round(centre[0] * 2**shift), round(centre[1] * 2**shift)), radius * 2**shift,
               (235, 235, 235), -1, cv2.LINE_AA, shift)
    image = np.clip(image + rng.normal(0.0, sigma, image.shape), 0, 255).astype(np.uint8)
    if quality is not None:
        image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
    return Frame(image=image, timestamp=float(index), index=index, source="synthetic")


def _sequence(rng: np.random.Generator, moving: int, still: int, speed: float, kind: str = "texture",
              sigma: float = 5.0, quality: int | None = 60) -> list[Frame]:
    """A blob moving ``speed`` px per frame for ``moving`` frames, then still for ``still`` frames."""
    background = _background(kind, rng)
    frames = []
    for i in range(moving + still):
        x = 150.0 + speed * min(i, moving - 1)
        frames.append(_frame(background, (x, 240.0), i, rng, sigma, quality))
    return frames


@pytest.mark.parametrize("speed", [1.0, 6.0])
def test_settles_only_after_motion_stops(speed: float) -> None:
    rng = np.random.default_rng(11)
    frames = _sequence(rng, moving=12, still=10, speed=speed)
    detector = SettleDetector(still_frames=3)
    settled = [detector.update(f) for f in frames]
    # the last move is between frames 10 and 11; three still differences later (frame 14) it is settled
    assert not any(settled[:14]), [detector.motion]
    assert all(settled[14:])


@pytest.mark.parametrize(("kind", "sigma", "quality"),
                         [("felt", 6.0, 40), ("texture", 6.0, 40), ("sharp", 4.0, 40), ("sharp", 6.0, 90),
                          ("texture", 6.0, None)])
def test_noise_and_jpeg_alone_are_not_motion(kind: str, sigma: float, quality: int | None) -> None:
    """A still scene with fresh sensor noise (sigma 4-6) and JPEG on every frame: no difference flags motion.

    Deterministic (fixed seed); a difference flags motion only if > 0.05 % of pixels change by > 10 grey
    levels, and no pixel of these scenes did in our trials (largest: 7.4 levels).
    """
    rng = np.random.default_rng(23)
    frames = _sequence(rng, moving=1, still=25, speed=0.0, kind=kind, sigma=sigma, quality=quality)
    detector = SettleDetector()
    flags = [detector.update(f) for f in frames]
    assert flags[:3] == [False, False, False]
    assert all(flags[3:])
    assert detector.motion is not None and detector.motion <= detector.threshold


def test_roi_ignores_motion_outside_it() -> None:
    rng = np.random.default_rng(5)
    frames = _sequence(rng, moving=20, still=0, speed=5.0)  # blob moves around x = 150..245
    inside = SettleDetector(roi=(100, 150, 200, 200))
    outside = SettleDetector(roi=(400, 100, 200, 300))
    assert not any(inside.update(f) for f in frames)
    assert all([outside.update(f) for f in frames][3:])
    with pytest.raises(ValueError, match="leaves the 640x480 frame"):
        SettleDetector(roi=(600, 0, 100, 100)).update(frames[0])


@dataclass(frozen=True)
class _Read:
    outcome: object | None
    decline: Decline | None = None


def _blob_reader(image: np.ndarray) -> _Read:
    """Reads the blob's column bucket (a stand-in for a dice or wheel reader)."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    columns = np.nonzero((grey > 220).sum(axis=0) > 20)[0]
    return _Read(int(columns.mean() // 50)) if columns.size else _Read(None, Decline.HIDDEN)


def test_read_settled_votes_on_consecutive_settled_frames() -> None:
    rng = np.random.default_rng(3)
    frames = _sequence(rng, moving=10, still=10, speed=8.0)   # stops at x = 150 + 72 = 222 -> bucket 4
    result = read_settled(iter(frames), _blob_reader, votes=3)
    assert result.accepted and result.outcome == 4 and result.agreeing == 3
    assert result.frame_indices == (12, 13, 14)              # settled at 12 (three still differences after 9)
    assert [f.index for f in result.frames] == [12, 13, 14] and len(result.reads) == 3
    assert result.frames_seen == 15


def test_motion_between_votes_restarts_the_vote() -> None:
    rng = np.random.default_rng(4)
    background = _background("texture", rng)
    xs = [150.0] * 5 + [180.0] + [260.0] * 8           # still, a jump at frame 5, still again
    frames = [_frame(background, (x, 240.0), i, rng) for i, x in enumerate(xs)]
    result = read_settled(frames, _blob_reader, votes=3)
    assert result.frame_indices == (9, 10, 11) and result.outcome == 5


def test_disagreeing_votes_decline() -> None:
    rng = np.random.default_rng(6)
    frames = _sequence(rng, moving=1, still=10, speed=0.0)
    script = iter([_Read(3), _Read(3), _Read(4)])
    result = read_settled(frames, lambda image: next(script), votes=3)
    assert not result.accepted and result.outcome is None
    assert result.decline is Decline.UNREADABLE and "disagree" in result.detail
    assert len(result.frames) == 3  # kept as evidence of the disagreement

    script = iter([_Read(3), _Read(3), _Read(4)])
    majority = read_settled(frames, lambda image: next(script), votes=3, min_agree=2)
    assert majority.accepted and majority.outcome == 3 and majority.agreeing == 2

    script = iter([_Read(3), _Read(None, Decline.COCKED), _Read(3)])
    cocked = read_settled(frames, lambda image: next(script), votes=3)
    assert cocked.decline is Decline.COCKED and "cocked x1" in cocked.detail


def test_an_unreadable_frame_is_replaced_by_the_next_settled_frame_within_the_bound() -> None:
    """A read that only abstains (declined unreadable) is set aside for the next settled frame, at most
    ``replacements`` times; the outcome still needs every one of the ``votes`` reads, and the set-aside frames stay
    evidence."""
    rng = np.random.default_rng(6)
    frames = _sequence(rng, moving=1, still=12, speed=0.0)
    unreadable = _Read(None, Decline.UNREADABLE)

    def scripted(*reads: _Read) -> object:
        script = iter(reads)
        return lambda image: next(script)

    kept = read_settled(frames, scripted(_Read(3), unreadable, _Read(3), _Read(3)), votes=3,
                        replaceable=(Decline.UNREADABLE,), replacements=1)
    assert kept.accepted and kept.outcome == 3 and kept.agreeing == 3
    assert [f.index for f in kept.replaced_frames] == [4] and kept.frame_indices == (3, 5, 6)
    assert kept.replaced_reads == (unreadable,)
    assert "set aside and replaced by the next settled frame: 1 (declined unreadable x1; frames 4)" in kept.detail

    strict = read_settled(frames, scripted(_Read(3), unreadable, _Read(3)), votes=3)
    assert strict.decline is Decline.UNREADABLE and not strict.replaced_frames

    spent = read_settled(frames, scripted(_Read(3), unreadable, unreadable, _Read(3)), votes=3,
                         replaceable=(Decline.UNREADABLE,), replacements=1)
    assert spent.decline is Decline.UNREADABLE and len(spent.replaced_frames) == 1
    assert spent.frame_indices == (3, 5, 6)

    cocked = read_settled(frames, scripted(_Read(3), _Read(None, Decline.COCKED), _Read(3), _Read(3)), votes=3,
                          replaceable=(Decline.UNREADABLE,), replacements=2)
    assert cocked.decline is Decline.COCKED and not cocked.replaced_frames

    disagree = read_settled(frames, scripted(_Read(3), unreadable, _Read(4), _Read(3)), votes=3,
                            replaceable=(Decline.UNREADABLE,), replacements=2)
    assert not disagree.accepted and "disagree" in disagree.detail

    with pytest.raises(ValueError, match="replacements"):
        read_settled(frames, _blob_reader, votes=3, replaceable=(Decline.UNREADABLE,), replacements=-1)


def test_replacements_spent_before_motion_restarts_the_votes_stay_spent() -> None:
    rng = np.random.default_rng(4)
    background = _background("texture", rng)
    xs = [150.0] * 5 + [180.0] + [260.0] * 8           # still, a jump at frame 5, still again
    frames = [_frame(background, (x, 240.0), i, rng) for i, x in enumerate(xs)]
    unreadable = _Read(None, Decline.UNREADABLE)
    script = iter([unreadable, _Read(3), unreadable, _Read(5), _Read(5)])
    result = read_settled(frames, lambda image: next(script), votes=3, replaceable=(Decline.UNREADABLE,),
                          replacements=1)
    assert result.decline is Decline.UNREADABLE and result.frame_indices == (9, 10, 11)
    assert [f.index for f in result.replaced_frames] == [3]


def test_never_settling_declines_motion() -> None:
    rng = np.random.default_rng(8)
    frames = _sequence(rng, moving=30, still=0, speed=4.0)
    calls: list[int] = []
    result = read_settled(frames, lambda image: calls.append(1) or _Read(1), votes=3, max_frames=25)
    assert result.decline is Decline.MOTION and result.frames_seen == 25 and not calls
    short = read_settled(frames[:2], _blob_reader, votes=3, max_frames=25)
    assert short.decline is Decline.MOTION and "source ended" in short.detail


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="min_agree"):
        read_settled([], _blob_reader, votes=3, min_agree=1)
    with pytest.raises(ValueError, match="threshold"):
        SettleDetector(threshold=1.5)
    with pytest.raises(ValueError, match="still_frames"):
        SettleDetector(still_frames=0)
