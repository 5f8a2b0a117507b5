"""A dice body is accepted only when exactly one set of sure readings explains all of it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dice_explanation import BodyPixels, DieReading, ExplanationSettings, bridge_squares, explain_body
from vision.die_crop import DieSquare

SETTINGS = ExplanationSettings(threshold=0.9)


def body_of(*squares: DieSquare, shape: tuple[int, int] = (200, 300)) -> BodyPixels:
    mask = np.zeros(shape, np.uint8)
    for square in squares:
        cv2.fillPoly(mask, [np.round(square.corners()).astype(np.int32)], 1)
    return BodyPixels(mask.astype(bool), (0, 0))


def reading(square: DieSquare, face: int | None, confidence: float) -> DieReading:
    probabilities = [(1.0 - confidence) / 6] * 7
    probabilities[6 if face is None else face - 1] = confidence
    return DieReading(square, tuple(probabilities))


A = DieSquare((60.0, 60.0), 40.0, 10.0)
B = DieSquare((101.0, 62.0), 40.0, 12.0)  # touching A


def test_one_die_read_surely_explains_its_body() -> None:
    result = explain_body(body_of(A), [reading(A, 4, 0.99), reading(DieSquare((70.0, 60.0), 40.0), None, 0.8)],
                          SETTINGS)
    assert result.explained and [d.face for d in result.dice] == [4]


def test_two_touching_dice_each_read_explain_their_body() -> None:
    result = explain_body(body_of(A, B), [reading(A, 2, 0.97), reading(B, 5, 0.95)], SETTINGS)
    assert result.explained and sorted(d.face for d in result.dice) == [2, 5]


def test_a_second_reading_of_the_same_die_is_one_die() -> None:
    shifted = DieSquare((64.0, 58.0), 42.0, 10.0)
    result = explain_body(body_of(A), [reading(A, 3, 0.99), reading(shifted, 3, 0.95)], SETTINGS)
    assert result.explained and len(result.dice) == 1 and result.dice[0].confidence == 0.99


def test_two_sure_readings_of_one_die_that_disagree_are_never_settled_by_confidence() -> None:
    shifted = DieSquare((64.0, 58.0), 42.0, 10.0)
    result = explain_body(body_of(A), [reading(A, 3, 0.99), reading(shifted, 5, 0.95)], SETTINGS)
    assert result.problem == "unreadable" and not result.dice
    assert "reads 3 (0.990) and 5 (0.950)" in result.detail


def test_dice_read_where_they_would_overlap_are_unreadable() -> None:
    near = DieSquare((85.0, 60.0), 40.0, 10.0)  # 25 px from A: under 0.75 of an edge, over 0.5
    result = explain_body(body_of(A, near), [reading(A, 3, 0.99), reading(near, 6, 0.95)], SETTINGS)
    assert result.problem == "unreadable" and "would overlap" in result.detail


def test_one_face_read_from_either_side_of_a_die_is_one_die_only_when_a_sure_reading_between_them_agrees() -> None:
    """A four read from two squares 0.27 of an edge off its centre on either side (0.55 of an edge apart: two
    sites that would overlap). The square between them is asked for; read surely as a four, the die is one four
    read there. Read as another face, or not surely, or with the two sides of different faces, it stays
    unreadable."""
    left, right = DieSquare((49.0, 60.0), 40.0, 10.0), DieSquare((71.0, 60.0), 40.0, 10.0)
    middle = DieSquare((60.0, 60.0), 40.0, 10.0)
    body = body_of(middle)
    sides = [reading(left, 4, 0.99), reading(right, 4, 0.98)]
    alone = explain_body(body, sides, SETTINGS)
    assert alone.problem == "unreadable" and "would overlap" in alone.detail
    assert bridge_squares(sides, SETTINGS) == [DieSquare((60.0, 60.0), 40.0, 10.0)]
    joined = explain_body(body, [*sides, reading(middle, 4, 0.97)], SETTINGS)
    assert joined.explained and [(d.face, d.square) for d in joined.dice] == [(4, middle)]
    for other in (reading(middle, 5, 0.97), reading(middle, 4, 0.5)):
        assert explain_body(body, [*sides, other], SETTINGS).problem == "unreadable"
    different = [reading(left, 4, 0.99), reading(right, 6, 0.98)]
    assert bridge_squares(different, SETTINGS) == []
    assert explain_body(body, [*different, reading(middle, 4, 0.97)], SETTINGS).problem == "unreadable"


def test_a_body_larger_than_its_read_dice_is_unexplained_not_read() -> None:
    # a die read on top of a body twice its size (a die leaning on it, a die beneath): the rest is no die read
    result = explain_body(body_of(A, B), [reading(A, 2, 0.99), reading(B, None, 0.9)], SETTINGS)
    assert result.problem == "unexplained" and result.unexplained_px > 0.9 * 40 * 40
    assert "beside the 1 read is no die read" in result.detail
    # the square the lean model is asked of lies over the rest, a die's size, turned as the die read
    square = result.leftover_square
    assert square is not None and square.edge_px == pytest.approx(40.0) and square.angle_deg == A.angle_deg
    assert square.centre_px[0] > B.centre_px[0] - 8 and abs(square.centre_px[1] - B.centre_px[1]) < 8


def test_readings_below_the_threshold_explain_nothing() -> None:
    result = explain_body(body_of(A), [reading(A, 6, 0.89), reading(A, 2, 0.5), reading(A, None, 0.95)], SETTINGS)
    assert result.problem == "unexplained" and result.detail == "no die is read in it"
    # the face one square gave the most, and its probability, for the scene's judge to name
    assert result.best_face == 6 and result.best_face_probability == pytest.approx(0.89)
    assert result.face_likelihood == pytest.approx(1 - 0.11 / 6)
    assert explain_body(body_of(A), [reading(A, 6, 0.89)], ExplanationSettings(threshold=0.85)).explained


def test_a_side_face_within_the_cameras_allowance_is_part_of_the_die() -> None:
    # the body reaches 8 px (0.2 of an edge) past the up face on one side: a side face seen by an oblique camera
    up = DieSquare((60.0, 60.0), 40.0)
    body = body_of(DieSquare((60.0, 64.0), 40.0), up)
    assert explain_body(body, [reading(up, 1, 0.99)], ExplanationSettings(threshold=0.9, side_share=0.2)).explained
    tight = explain_body(body, [reading(up, 1, 0.99)], ExplanationSettings(threshold=0.9, side_share=0.0,
                                                                            unexplained_share=0.05))
    assert tight.problem == "unexplained"


def test_a_body_placed_in_the_frame_is_measured_in_frame_pixels() -> None:
    far = DieSquare((460.0, 360.0), 40.0, 0.0)
    local = body_of(DieSquare((60.0, 60.0), 40.0, 0.0))
    placed = BodyPixels(local.mask, (400, 300))
    assert explain_body(placed, [reading(far, 2, 0.99)], SETTINGS).explained


@pytest.mark.parametrize("probabilities", [(0.5,) * 5, (1.2, 0, 0, 0, 0, 0, 0), (-0.1, 0, 0, 0, 0, 0, 1)])
def test_a_reading_that_is_not_probabilities_is_refused(probabilities: tuple[float, ...]) -> None:
    with pytest.raises(ValueError, match="probability"):
        DieReading(A, probabilities)


def test_settings_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="threshold"):
        ExplanationSettings(threshold=0.0)
    with pytest.raises(ValueError, match="same_die_share"):
        ExplanationSettings(threshold=0.9, same_die_share=0.8, apart_share=0.7)


def test_a_dies_shadow_joined_to_its_body_is_explained_by_the_die_and_the_shadow_alone_is_not() -> None:
    shadow = DieSquare((60.0, 100.0), 40.0, 10.0)  # a die's length of shadow below it
    joined = body_of(A, shadow)
    shade = body_of(shadow).mask & ~body_of(A).mask
    readings = [reading(A, 4, 0.99)]
    assert explain_body(joined, readings, SETTINGS).problem == "unexplained"  # the shadow taken for more body
    with_shade = BodyPixels(joined.mask, joined.origin, shade=shade)
    result = explain_body(with_shade, readings, SETTINGS)
    assert result.explained and [d.face for d in result.dice] == [4]
    alone = BodyPixels(body_of(shadow).mask, (0, 0), shade=body_of(shadow).mask)
    nothing = explain_body(alone, [reading(shadow, None, 0.99)], SETTINGS)
    assert nothing.problem == "unexplained" and not nothing.dice


def test_a_body_where_no_die_is_read_says_how_much_the_reader_believed_a_face_was_there() -> None:
    body = body_of(A)
    unsure = explain_body(body, [reading(A, 3, 0.6), reading(B, None, 0.99)], SETTINGS)
    assert not unsure.dice and unsure.face_likelihood == pytest.approx(0.6 + 5 * 0.4 / 6)
    none = explain_body(body, [reading(A, None, 0.99)], SETTINGS)
    assert none.face_likelihood == pytest.approx(6 * 0.01 / 6)


def test_a_square_well_inside_a_die_read_as_another_face_reads_a_part_of_it() -> None:
    part = DieSquare((62.0, 58.0), 30.0, 10.0)  # three quarters of A's edge, inside it: two pips of a four
    result = explain_body(body_of(A), [reading(A, 4, 0.995), reading(part, 2, 0.998)], SETTINGS)
    assert result.explained and [d.face for d in result.dice] == [4]
    # a square nearly the die's size is no part of it: the disagreement stands
    near = DieSquare((62.0, 58.0), 36.0, 10.0)
    assert explain_body(body_of(A), [reading(A, 4, 0.995), reading(near, 2, 0.998)], SETTINGS).problem == "unreadable"
    beside = DieSquare((60.0, 82.0), 30.0, 10.0)  # centred outside A: another die, where A lies
    assert explain_body(body_of(A), [reading(A, 4, 0.995), reading(beside, 2, 0.998)],
                        SETTINGS).problem == "unreadable"
    strict = ExplanationSettings(threshold=0.9, part_share=None)
    assert explain_body(body_of(A), [reading(A, 4, 0.995), reading(part, 2, 0.998)], strict).problem == "unreadable"
