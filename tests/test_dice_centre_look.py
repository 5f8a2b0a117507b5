"""The fourth look at a body of about one die's area where no die is read: which bodies get it, which squares it
reads, and that a die whose proposed squares are all turned off its sides is read by it."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.test_dice_leftover_scan import CentredWithin
from vision.dice_bodies import Body, find_bodies
from vision.dice_centre_look import CentreLookSettings, centre_squares
from vision.dice_explanation import BodyExplanation, BodyPixels, DieReading, ExplanationSettings
from vision.dice_looks import LookSettings, look_and_explain
from vision.dice_proposals import BodyProposals
from vision.dice_stage_config import DiceStageConfig
from vision.die_crop import DieSquare

EDGE = 40.0
NOTHING_READ = BodyExplanation((), "unexplained", "no die is read in it", 0)


def square_body(side: int, origin: tuple[int, int] = (100, 100), pips: int = 1) -> BodyPixels:
    return BodyPixels(np.ones((side, side), bool), origin, pips)


def test_a_body_of_one_die_with_nothing_read_gets_every_size_at_every_turn_at_its_centre() -> None:
    squares = centre_squares(square_body(44), NOTHING_READ, EDGE)
    assert len(squares) == 3 * 6
    assert {square.centre_px for square in squares} == {(121.5, 121.5)}
    assert sorted({square.edge_px for square in squares}) == pytest.approx([36.0, 40.0, 44.0])
    assert sorted({square.angle_deg for square in squares}) == [0.0, 15.0, 30.0, 45.0, 60.0, 75.0]
    settings = CentreLookSettings(edge_shares=(1.0,), turn_step_deg=30.0)
    assert [square.angle_deg for square in centre_squares(square_body(44), NOTHING_READ, EDGE, settings)] == [
        0.0, 30.0, 60.0]


def test_a_body_with_a_die_read_without_a_spot_or_not_about_one_die_gets_no_fourth_look() -> None:
    read = BodyExplanation((DieReading(DieSquare((120.0, 120.0), EDGE), (0.0,) * 4 + (1.0, 0.0, 0.0)),))
    assert centre_squares(square_body(44), read, EDGE) == []
    unreadable = BodyExplanation((), "unreadable", "the die reads 3 and 5")
    assert len(centre_squares(square_body(44), unreadable, EDGE)) == 18  # no die read in it: looked at
    assert centre_squares(square_body(27), NOTHING_READ, EDGE) == []  # 0.46 of a die's area: a speck
    assert centre_squares(square_body(51), NOTHING_READ, EDGE) == []  # 1.63 dice: not one die
    assert len(centre_squares(square_body(29), NOTHING_READ, EDGE)) == 18  # 0.53
    assert len(centre_squares(square_body(50), NOTHING_READ, EDGE)) == 18  # 1.56
    assert centre_squares(square_body(44), NOTHING_READ, EDGE, CentreLookSettings(enabled=False)) == []
    assert centre_squares(square_body(44, pips=0), NOTHING_READ, EDGE) == []  # no pip-like spot: no face shows
    assert len(centre_squares(square_body(44, pips=0), NOTHING_READ, EDGE, CentreLookSettings(needs_pips=False))) == 18


@pytest.mark.parametrize("bad, field", [({"area_shares": (0.0, 1.0)}, "area_shares"),
                                        ({"area_shares": (1.6, 0.5)}, "area_shares"),
                                        ({"edge_shares": ()}, "edge_shares"),
                                        ({"edge_shares": (1.0, -0.1)}, "edge_shares"),
                                        ({"turn_step_deg": 0.0}, "turn_step_deg"),
                                        ({"turn_step_deg": 120.0}, "turn_step_deg")])
def test_settings_out_of_range_are_refused_by_name(bad: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        CentreLookSettings(**bad)


def turned_die(face: int, centre: tuple[float, float], turn_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Green table, one die of 40 px turned ``turn_deg`` whose red channel tells its face (200 + 5 x face, as
    :class:`tests.test_dice_leftover_scan.CentredWithin` reads it), and its outline."""
    frame = np.zeros((240, 320, 3), np.uint8)
    frame[:] = (40, 110, 40)
    outline = cv2.boxPoints((centre, (EDGE, EDGE), turn_deg)).astype(np.float32)
    cv2.fillPoly(frame, [np.round(outline).astype(np.int32)], (235, 235, 200 + 5 * face))
    return frame, outline


def test_a_die_whose_proposed_square_is_turned_off_its_sides_is_read_by_the_fourth_look() -> None:
    """A die turned 30 degrees, proposed upright at its centre: no square of the first two looks lies on it (the
    reader needs 90 % of a square to be die), the third reads only beside dice read, the fourth reads it."""
    frame, outline = turned_die(4, (160.0, 120.0), 30.0)
    found = find_bodies(frame, DiceStageConfig(die_edge_px=(36.0, 44.0)))
    x, y, w, h = cv2.boundingRect(np.round(outline).astype(np.int32))
    body = Body(outline, EDGE * EDGE, cv2.minAreaRect(outline), (x, y, w, h), 1)
    proposed = [BodyProposals(body, (DieSquare((160.0, 120.0), EDGE, 0.0),), 1, pips=4)]
    reader = CentredWithin(2.0)
    settings = ExplanationSettings(threshold=0.9)
    without = look_and_explain(frame, found, proposed, reader, settings,
                               LookSettings(centre=CentreLookSettings(enabled=False)))
    assert without.explanations[0].dice == () and not without.explanations[0].explained
    looked = look_and_explain(frame, found, proposed, reader, settings)
    assert looked.explanations[0].explained
    assert [die.face for die in looked.explanations[0].dice] == [4]
    turn = looked.explanations[0].dice[0].square.angle_deg
    assert turn % 90.0 in (30.0, 60.0)  # the die's sides, whichever way a turn is counted
    assert len(looked.readings[0]) > len(without.readings[0])
