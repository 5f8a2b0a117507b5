"""The third look over what a body's readings leave unexplained: which bodies get it, where its squares lie, and
that a die no proposed square was centred on is read by it."""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np
import pytest

from vision.dice_bodies import Body, find_bodies
from vision.dice_explanation import BodyExplanation, BodyPixels, DieReading, ExplanationSettings
from vision.dice_leftover_scan import LeftoverScanSettings, scan_squares
from vision.dice_looks import LookSettings, look_and_explain
from vision.dice_proposals import BodyProposals
from vision.dice_stage_config import DiceStageConfig
from vision.die_crop import DieSquare

EDGE = 40.0
FIVE = (0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def two_dice_body() -> tuple[BodyPixels, np.ndarray]:
    """A body of two dice side by side (80 x 40 px at (100, 100)) and the pixels beside the left one, read."""
    mask = np.ones((40, 80), bool)
    beside = mask.copy()
    beside[:, :45] = False  # the left die's square grown by its side faces
    return BodyPixels(mask, (100, 100)), beside


def test_the_squares_lie_on_a_grid_inside_what_is_unexplained_one_within_a_tenth_of_an_edge_of_the_die() -> None:
    body, beside = two_dice_body()
    left = DieReading(DieSquare((120.0, 120.0), EDGE), FIVE)
    unexplained = BodyExplanation((left,), "unexplained", "0.9 of a die's area beside the 1 read", int(beside.sum()),
                                  leftover=beside, beside_dice=beside)
    squares = scan_squares(body, unexplained, EDGE)
    assert squares and all(s.edge_px == EDGE and s.angle_deg == 0.0 for s in squares)
    inset = 0.3 * EDGE
    for square in squares:  # inside the unexplained pixels by the inset
        x, y = square.centre_px[0] - 100, square.centre_px[1] - 100
        assert 45 + inset - 1 <= x <= 80 - inset + 1 and inset - 1 <= y <= 40 - inset + 1
    steps = sorted({round(s.centre_px[0], 3) for s in squares})
    assert np.allclose(np.diff(steps), 0.15 * EDGE)
    assert min(math.dist(s.centre_px, (160.0, 120.0)) for s in squares) <= 0.15 * EDGE / math.sqrt(2) + 1e-6


def test_an_explained_unreadable_or_nearly_explained_body_gets_no_third_look() -> None:
    body, beside = two_dice_body()
    left = DieReading(DieSquare((120.0, 120.0), EDGE), FIVE)
    assert scan_squares(body, BodyExplanation((left,)), EDGE) == []
    assert scan_squares(body, BodyExplanation((), "unreadable", "the die reads 3 and 5"), EDGE) == []
    sliver = np.zeros_like(beside)
    sliver[:, 70:] = True  # a quarter of a die's area
    small = BodyExplanation((left,), "unexplained", "", int(sliver.sum()), leftover=sliver, beside_dice=sliver)
    assert scan_squares(body, small, EDGE) == []
    nothing = BodyExplanation((), "unexplained", "no die is read in it", body.area_px)
    assert scan_squares(body, nothing, EDGE) == []  # a smeared or cocked die: the scene judges the body whole


def test_a_large_body_gets_a_wider_grid_of_at_most_the_most_squares() -> None:
    body = BodyPixels(np.ones((400, 400), bool), (0, 0))
    beside = body.mask.copy()
    beside[:50, :50] = False
    one = DieReading(DieSquare((20.0, 20.0), EDGE), FIVE)
    large = BodyExplanation((one,), "unexplained", "", int(beside.sum()), leftover=beside, beside_dice=beside)
    squares = scan_squares(body, large, EDGE, LeftoverScanSettings(most_squares=100))
    assert 50 <= len(squares) <= 100
    with pytest.raises(ValueError, match="step_share"):
        LeftoverScanSettings(step_share=0.0)


class CentredWithin:
    """Sure of a face only in a crop whose middle (the square) is at least 90 % a die, centred within ``slack`` crop px
    of its middle: a reader that, like the learned one, needs a square about centred on a die. The face is the die's
    colour (its red channel is 200 + 5 x face, see :func:`coloured_dice`), so a square astride two dice reads none."""

    crop_px, margin, threshold, sha256 = 48, 0.25, 0.9, "ab" * 32

    def __init__(self, slack: float) -> None:
        self.slack = slack

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        rows = []
        for crop in crops:
            middle = crop[8:40, 8:40]
            die = middle.min(axis=2) > 150
            ys, xs = np.nonzero(die)
            centred = die.mean() >= 0.9 and math.hypot(xs.mean() - 15.5, ys.mean() - 15.5) <= self.slack
            reds = middle[..., 2][die]
            face = round((float(np.median(reds)) - 200.0) / 5.0) if reds.size else 0
            one_die = reds.size > 0 and float(np.ptp(reds)) <= 2.0
            row = np.full(7, 0.01 / 6)
            row[face - 1 if centred and one_die and 1 <= face <= 6 else 6] = 0.99
            rows.append(row)
        return np.asarray(rows)


def coloured_dice(centres: list[tuple[int, int]], faces: list[int]) -> np.ndarray:
    """Green table, dice of 40 px whose red channel tells their face (200 + 5 x face)."""
    frame = np.zeros((240, 320, 3), np.uint8)
    frame[:] = (40, 110, 40)
    for (x, y), face in zip(centres, faces, strict=True):
        cv2.rectangle(frame, (x - 20, y - 20), (x + 19, y + 19), (235, 235, 200 + 5 * face), -1)
    return frame


def test_a_die_no_proposed_square_was_centred_on_is_read_by_the_third_look() -> None:
    """Two dice 16 px apart in one body (as when a shadow joins them), the left one alone proposed."""
    frame = coloured_dice([(120, 120), (176, 120)], faces=[5, 3])
    found = find_bodies(frame, DiceStageConfig(die_edge_px=(36.0, 44.0)))
    outline = np.array([[100, 100], [196, 100], [196, 140], [100, 140]], np.float32)
    body = Body(outline, 96.0 * 40.0, cv2.minAreaRect(outline), (100, 100, 97, 41), 1)
    proposed = [BodyProposals(body, (DieSquare((120.0, 120.0), EDGE),), 2)]
    reader = CentredWithin(0.15 * EDGE / math.sqrt(2) * 48 / 60 + 0.5)
    settings = ExplanationSettings(threshold=0.9)
    without = look_and_explain(frame, found, proposed, reader, settings,
                               LookSettings(leftover=LeftoverScanSettings(least_share=100.0)))
    assert without.explanations[0].problem == "unexplained" and len(without.readings[0]) == 1
    assert [die.face for die in without.explanations[0].dice] == [5]
    looked = look_and_explain(frame, found, proposed, reader, settings)
    assert looked.explanations[0].explained
    assert sorted(die.face for die in looked.explanations[0].dice) == [3, 5]
    assert len(looked.readings[0]) > 1


class HalfBelieving(CentredWithin):
    """As :class:`CentredWithin`, but half believes a face (0.6 for the faces together) in every crop it is not
    sure of."""

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        rows = super().probabilities(crops)
        unsure = rows[:, 6] > 0.5
        rows[unsure] = [0.1] * 6 + [0.4]
        return rows


def test_the_third_look_only_adds_dice_a_grid_that_half_believes_a_face_leaves_the_first_explanation() -> None:
    """One die and, in its body, cloth no die lies on: the grid finds no die there, so the body keeps the
    explanation of the first looks (whose squares half believed no face on those pixels), which the scene judges."""
    frame = coloured_dice([(120, 120)], faces=[5])
    found = find_bodies(frame, DiceStageConfig(die_edge_px=(36.0, 44.0)))
    outline = np.array([[100, 100], [196, 100], [196, 140], [100, 140]], np.float32)
    body = Body(outline, 96.0 * 40.0, cv2.minAreaRect(outline), (100, 100, 97, 41), 1)
    proposed = [BodyProposals(body, (DieSquare((120.0, 120.0), EDGE),), 2)]
    reader = HalfBelieving(0.15 * EDGE / math.sqrt(2) * 48 / 60 + 0.5)
    looked = look_and_explain(frame, found, proposed, reader, ExplanationSettings(threshold=0.9))
    explanation = looked.explanations[0]
    assert len(looked.readings[0]) > 1  # the grid was read...
    assert [die.face for die in explanation.dice] == [5] and explanation.problem == "unexplained"
    assert explanation.leftover_face_likelihood == 0.0  # ...but its half beliefs did not replace the first look's
