"""Dice thrown out of the arena: found beyond it, and named as the reason a short count is declined."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
from synthetic_dice import PIP_OFFSETS, die_frame, sure_reading

from vision.declines import Decline
from vision.dice_beyond_arena import bodies_beyond
from vision.dice_bodies import find_bodies
from vision.dice_explanation import BodyExplanation, BodyPixels
from vision.dice_scene import SceneSettings, judge_scene, shown_beyond_arena
from vision.dice_stage_config import DiceStageConfig

RAIL = (30, 70, 30)
CLOTH = (60, 150, 60)
EDGE = 36
TOLD = DiceStageConfig(die_edge_px=(30.0, 42.0))


def _die(frame: np.ndarray, centre: tuple[int, int], face: int = 3) -> None:
    x, y = centre
    cv2.rectangle(frame, (x - EDGE // 2, y - EDGE // 2), (x + EDGE // 2, y + EDGE // 2), (235, 235, 235), -1)
    for dx, dy in PIP_OFFSETS[face]:
        cv2.circle(frame, (int(x + dx * EDGE / 40), int(y + dy * EDGE / 40)), 3, (20, 20, 20), -1)


def _table(*, rail: bool = True) -> np.ndarray:
    """640 x 480: a cloth 90 px inside a darker rail (or cloth to the frame's edge), a die on the cloth."""
    frame = np.full((480, 640, 3), RAIL if rail else CLOTH, np.uint8)
    cv2.rectangle(frame, (90, 90), (550, 390), CLOTH, -1)
    _die(frame, (300, 240))
    return frame


def test_a_die_on_the_rail_is_a_body_beyond_the_arena() -> None:
    frame = _table()
    _die(frame, (45, 240), face=4)
    cv2.rectangle(frame, (150, 20), (500, 26), (200, 200, 200), -1)  # a strip of light along the rail: no die
    cv2.rectangle(frame, (560, 100), (635, 475), (20, 20, 180), -1)  # a chip rack of many dice's area: no die
    found = find_bodies(frame, TOLD)
    assert [tuple(round(v) for v in body.centre_px) for body in found.bodies] == [(300, 240)]
    beyond = bodies_beyond(found, TOLD)
    die = [body for body in beyond.bodies if abs(body.centre_px[0] - 45) <= 4 and abs(body.centre_px[1] - 240) <= 4]
    assert len(die) == 1 and 0.7 <= die[0].area_px / found.die_edge_px ** 2 <= 1.4
    # the strip and the rack are no bodies; what else is beyond the arena is a corner of the cloth its hull cuts off
    corners = [(90, 90), (550, 90), (550, 390), (90, 390)]
    for body in beyond.bodies:
        if body is not die[0]:
            assert min(np.hypot(body.centre_px[0] - x, body.centre_px[1] - y) for x, y in corners) < 2 * EDGE, body.centre_px
    assert beyond.arena_px is found.arena_px and beyond.die_edge_px == found.die_edge_px


def test_no_arena_seen_means_nothing_beyond_it() -> None:
    frame = _table(rail=False)
    _die(frame, (45, 240))
    found = find_bodies(frame, TOLD)
    assert found.off_table is None and bodies_beyond(found, TOLD).bodies == ()


def test_the_settings_of_the_look_beyond_are_checked() -> None:
    for bad in ({"beyond_clearance_share": -0.1}, {"beyond_most_dice": 0.1}):
        try:
            DiceStageConfig(**bad)
        except ValueError as error:
            assert next(iter(bad)) in str(error)
        else:
            raise AssertionError(f"{bad} accepted")


ARENA = ((100.0, 100.0), (300.0, 100.0), (300.0, 230.0), (100.0, 230.0))


def test_a_die_read_beyond_the_arena_names_a_short_count_outside_the_arena() -> None:
    _, bodies = die_frame([(60, 60)])
    game = SceneSettings(arena=ARENA, expected_dice=2)
    read = BodyExplanation((sure_reading(4, (60, 60), 40.0),))
    assert shown_beyond_arena(bodies, [read], 1, game) == (
        "1 dice read, the game throws 2, and the body at (60, 60) beyond the arena shows a die (a 4 is read there "
        "at 1.000)")
    nothing = BodyExplanation((), "unexplained", "no die is read in it", bodies[0].area_px, face_likelihood=0.02)
    assert shown_beyond_arena(bodies, [nothing], 1, game) is None  # a marker, the lit floor
    assert shown_beyond_arena(bodies, [read], 2, game) is None  # the count is met
    assert shown_beyond_arena(bodies, [read], 1, dataclasses.replace(game, arena=None)) is None
    inside = SceneSettings(arena=((0.0, 0.0), (320.0, 0.0), (320.0, 240.0), (0.0, 240.0)), expected_dice=2)
    assert shown_beyond_arena(bodies, [read], 1, inside) is None  # within the arena told: not beyond it


def test_a_die_read_beyond_the_arena_is_the_reason_whatever_else_its_body_shows() -> None:
    frame, bodies = die_frame([(60, 60), (200, 150)])
    beside = BodyExplanation((sure_reading(5, (60, 60), 40.0),), "unexplained", "beside", 1400)
    verdict = judge_scene(frame, bodies, [beside, BodyExplanation((sure_reading(5, (200, 150), 40.0),))], 40.0,
                          SceneSettings(arena=ARENA, expected_dice=2))
    assert verdict.decline is Decline.OUTSIDE_ARENA
    assert verdict.detail.startswith("die at (60, 60) is outside the arena (body at (60, 60): beside")


def test_a_die_inside_the_arena_whose_shadow_reaches_beyond_it_is_accepted() -> None:
    """The body (the die and its shadow) has its centre beyond the arena's edge; the die's centre is inside: the
    die lies in the arena."""
    frame, _ = die_frame([(120, 150)])
    cv2.rectangle(frame, (40, 130), (99, 170), (20, 55, 20), -1)  # its shadow, beyond the arena's edge at x = 100
    mask = np.ones((41, 101), bool)
    body = BodyPixels(mask, (40, 130))
    assert body.centre_px[0] < 100
    verdict = judge_scene(frame, [body], [BodyExplanation((sure_reading(5, (120, 150), 40.0),))], 40.0,
                          SceneSettings(arena=ARENA, expected_dice=1))
    assert verdict.accepted and [die.face for die in verdict.dice] == [5]
