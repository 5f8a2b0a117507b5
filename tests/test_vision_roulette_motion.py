"""Ball and rotor directions, alternating launches and ball settling (vision/roulette_motion.py).

Synthetic angle sequences test the arithmetic (wrap-around, gaps); rendered clips with fixed
seeds test it end to end through the reader.
"""

from __future__ import annotations

import numpy as np
import pytest

from bench.games.roulette_layout import Direction
from vision.declines import Decline
from vision.render.nuisance import Nuisance
from vision.render.roulette import random_scene, render_settle_clip, render_spin_clip, render_wheel
from vision.roulette import PocketRead, RouletteReader
from vision.roulette_calibration import calibrate_wheel
from vision.roulette_motion import (
    SpinMotion,
    direction_of,
    launches_alternate,
    motion_from_reads,
    settle_index,
    spin_motion,
)

CW, CCW = Direction.CLOCKWISE, Direction.ANTICLOCKWISE


def test_direction_of_unwraps_through_360_and_skips_gaps() -> None:
    direction, agree, steps, speed = direction_of([350.0, 355.0, None, 5.0, 10.0, 15.0])
    assert direction is CW and agree == 1.0 and steps == 4 and speed == pytest.approx(5.0)
    assert direction_of([10.0, 2.0, 354.0, 346.0])[0] is CCW
    assert direction_of([10.0, None, 12.0])[0] is None                      # too few steps to tell
    noisy = direction_of([0, 20, 40, 35, 60, 80, 100])
    assert noisy[0] is CW and noisy[1] == pytest.approx(5 / 6)


def _motion(ball: Direction | None, rotor: Direction | None) -> SpinMotion:
    counter = ball is not None and rotor is not None and ball is not rotor
    return SpinMotion(ball, rotor, counter, 1.0, 9, 9, 10.0, -5.0, "")


def test_launches_alternate() -> None:
    assert launches_alternate([_motion(CW, CCW), _motion(CCW, CW), _motion(CW, CCW)]) == (True, None)
    assert launches_alternate([_motion(CW, CCW), _motion(CW, CCW)]) == (False, 1)       # same way twice
    assert launches_alternate([_motion(CW, CCW), _motion(CCW, CCW)]) == (False, 1)      # rotor with the ball
    assert launches_alternate([_motion(CW, CCW), _motion(None, CW)]) == (False, 1)      # not seen
    assert launches_alternate([]) == (True, None)


def _reader_for(truth_homography: np.ndarray, layout: str, seed: int, markers: bool) -> RouletteReader:
    """Calibrate the clip's camera on a still of the empty wheel (another rotor angle, its own nuisance)."""
    rng = np.random.default_rng(seed)
    still, _ = render_wheel(random_scene(rng, layout, "absent", markers=markers), Nuisance.realistic(rng), rng,
                            homography=truth_homography)
    return RouletteReader(calibrate_wheel(still, layout))


@pytest.mark.parametrize(("ball", "rotor", "seed"), [(CW, CCW, 1), (CCW, CW, 2), (CW, CW, 3)])
def test_spin_clip_directions(ball: Direction, rotor: Direction, seed: int) -> None:
    rng = np.random.default_rng(seed)
    frames, truth = render_spin_clip(rng, "french", ball, rotor, 8, markers=seed != 2)
    motion = spin_motion(frames, _reader_for(truth.homography, "french", seed + 10, seed != 2))
    assert motion.ball is ball and motion.rotor is rotor, motion.detail
    assert motion.counter_rotating is (ball is not rotor)
    assert motion.confidence > 0.8
    assert abs(motion.rotor_deg_per_frame) < abs(motion.ball_deg_per_frame)


def test_settling_is_found_when_the_ball_stops_turning_with_the_rotor() -> None:
    rng = np.random.default_rng(31)
    frames, truth = render_settle_clip(rng, "american", 18, rest_from=11)
    reader = _reader_for(truth.homography, "american", 32, False)
    reads = [reader.read(frame) for frame in frames]
    assert all(r.number is None for r in reads[:11])                   # the ball still runs: no number
    assert settle_index(reads, hold=5) == (truth.settle_frame, truth.number)
    assert motion_from_reads(reads[11:]).rotor is truth.rotor_direction


def test_settle_index_needs_a_steady_pocket() -> None:
    def read(number: int | None, ball: float, rotor: float) -> PocketRead:
        if number is None:
            return PocketRead(None, Decline.MOTION, "moving", None, ball, rotor)
        return PocketRead(number, None, "ok", (0.0, 0.0), ball, rotor, 0.9)

    moving = [read(None, 10.0 * i, 3.0 * i) for i in range(4)]
    bouncing = [read(7, 100.0, 50.0), read(7, 120.0, 53.0)]              # same number, ball moving on the rotor
    resting = [read(12, 200.0 + 3.0 * i, 150.0 + 3.0 * i) for i in range(5)]
    assert settle_index(moving + bouncing + resting, hold=5) == (6, 12)
    assert settle_index(moving + resting[:3], hold=5) == (None, None)
    with pytest.raises(ValueError, match="hold"):
        settle_index(resting, hold=0)
