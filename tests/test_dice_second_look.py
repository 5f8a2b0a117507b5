"""A second look where the per-die reader half believes a face: which readings are seeds, which squares are
read around them, and that a die whose proposed squares all lie off its centre is read by it."""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
import pytest
from synthetic_dice import LeansAt, SpotCounter, die_frame

from vision.dice_confirmation import ConfirmationSettings
from vision.dice_explanation import DieReading
from vision.dice_looks import read_bodies
from vision.dice_pipeline import StagedDiceReader
from vision.dice_scene import SceneSettings
from vision.dice_second_look import SecondLookSettings, around, seeds
from vision.die_crop import DieSquare

LOOK = SecondLookSettings()


def row(face: int | None, confidence: float) -> list[float]:
    values = [(1.0 - confidence) / 6] * 7
    values[6 if face is None else face - 1] = confidence
    return values


def test_seeds_are_unsure_readings_that_half_believe_a_face_away_from_sure_ones_most_likely_first() -> None:
    squares = [DieSquare((50.0, 50.0), 40.0), DieSquare((55.0, 50.0), 40.0), DieSquare((150.0, 50.0), 40.0),
               DieSquare((250.0, 50.0), 40.0), DieSquare((350.0, 50.0), 40.0)]
    rows = [row(4, 0.99), row(4, 0.6), row(2, 0.5), row(None, 0.9), row(5, 0.7)]
    readings = [DieReading(square, tuple(values)) for square, values in zip(squares, rows, strict=True)]
    found = seeds(readings, 0.95, LOOK)
    # the second is beside a sure reading; the fourth gives the faces only 0.1 together
    assert [s.centre_px for s in found] == [(350.0, 50.0), (150.0, 50.0)]
    assert seeds(readings, 0.95, SecondLookSettings(seeds_per_body=1)) == [squares[4]]


def test_around_a_seed_are_eight_steps_along_its_sides_and_nine_at_the_frames_die_size() -> None:
    seed = DieSquare((100.0, 100.0), 40.0, 90.0)
    own = around(seed, 41.0, LOOK)  # the frame's die size within a tenth: the seed's size only
    assert len(own) == 8 and all(s.edge_px == 40.0 and s.angle_deg == 90.0 for s in own)
    assert {round(math.dist(s.centre_px, seed.centre_px), 3) for s in own} == {6.0, round(6.0 * math.sqrt(2), 3)}
    both = around(seed, 60.0, LOOK)
    assert len(both) == 17 and sum(s.edge_px == 60.0 for s in both) == 9
    with pytest.raises(ValueError, match="step_share"):
        SecondLookSettings(step_share=0.6)


class NearSighted(SpotCounter):
    """Sure of a face only in a crop centred on the die within 2 px (as the stand-in reader); half sure (0.6) when
    the die's centre is within 9 px of the crop's middle; else sure it is no die."""

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        rows = super().probabilities(crops)
        for values, crop in zip(rows, crops, strict=True):
            grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
            ys, xs = np.nonzero(grey > 150)
            off = math.hypot(xs.mean() - 23.5, ys.mean() - 23.5) if xs.size else 99.0
            if values[6] > 0.5 and off <= 9:
                values[:] = 0.4 / 6
                values[4] = 0.6
        return rows


def test_a_die_whose_proposed_squares_lie_off_its_centre_is_read_by_the_second_look() -> None:
    frame, _ = die_frame([(160, 120)], faces=[5])
    off_centre = [[DieSquare((166.0, 126.0), 40.0)]]  # a fifth of an edge off the die
    reader = NearSighted()
    first = read_bodies(frame, off_centre, reader, 40.0, SecondLookSettings(seeds_per_body=0))
    assert [r.face for r in first[0]] == [5] and first[0][0].confidence == pytest.approx(0.6)
    looked = read_bodies(frame, off_centre, reader, 40.0)
    assert len(looked[0]) == 9 and any(r.sure(0.9) and r.face == 5 for r in looked[0])
    upright = ConfirmationSettings(turns=())  # the stand-in reads upright crops only
    read = StagedDiceReader(NearSighted(), SceneSettings(expected_dice=1), lean=LeansAt(0.0),
                            confirmation=upright).read(frame)
    assert read.accepted and read.faces == (5,)
