"""The scene's judge: each clause check declines a frame for its own reason, and a clean frame is accepted."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest
from synthetic_dice import die_frame, sure_reading

from vision.declines import Decline
from vision.dice_explanation import BodyExplanation, BodyPixels, DieReading, ExplanationSettings, explain_body
from vision.dice_glare_die import glare_object
from vision.dice_scene import (
    LeanJudgement,
    SceneSettings,
    _pip_centres_beside,
    anisotropy,
    glare_pixels,
    glare_px,
    judge_scene,
)
from vision.die_crop import DieSquare
from vision.render.nuisance import add_glare

EDGE = 40.0


def read(x: float, y: float, face: int = 5) -> DieReading:
    return sure_reading(face, (x, y), EDGE)


def explained(*dice: DieReading) -> BodyExplanation:
    return BodyExplanation(tuple(dice))


def test_a_still_frame_of_the_games_dice_is_accepted_in_reading_order() -> None:
    frame, bodies = die_frame([(200, 100), (80, 120), (140, 60)])
    dice = [read(200, 100, 2), read(80, 120, 6), read(140, 60, 3)]
    verdict = judge_scene(frame, bodies, [explained(d) for d in dice], EDGE, SceneSettings(expected_dice=3))
    assert verdict.accepted and [d.face for d in verdict.dice] == [6, 3, 2]


def test_a_smeared_die_is_motion_and_a_sharp_one_is_not() -> None:
    sharp, bodies = die_frame([(150, 120)])
    smeared, smeared_bodies = die_frame([(150, 120)], blur=25)
    x0, y0 = bodies[0].origin
    grey = cv2.cvtColor(sharp, cv2.COLOR_BGR2GRAY)[y0:y0 + bodies[0].mask.shape[0], x0:x0 + bodies[0].mask.shape[1]]
    assert anisotropy(grey, bodies[0].mask) > 0.6
    verdict = judge_scene(smeared, smeared_bodies, [explained(read(150, 120))], EDGE, SceneSettings())
    assert verdict.decline is Decline.MOTION and "anisotropy" in verdict.detail


def test_an_unexplained_body_is_named_by_what_it_shows() -> None:
    frame, bodies = die_frame([(150, 120)])
    pipped = [BodyPixels(bodies[0].mask, bodies[0].origin, pips=4)]
    leaning = BodyExplanation((), "unexplained", "no die is read in it", bodies[0].area_px, face_likelihood=0.1)
    verdict = judge_scene(frame, pipped, [leaning], EDGE, SceneSettings())
    assert verdict.decline is Decline.COCKED and "no flat face" in verdict.detail
    # squares the reader takes for a face, none of them surely one: a die it cannot read, not a cocked one
    square = DieSquare((150.0, 120.0), EDGE)
    unsure = BodyExplanation((), "unexplained", "no die is read in it", bodies[0].area_px, face_likelihood=0.97,
                             unsure_reading=DieReading(square, (0.01, 0.1, 0.02, 0.02, 0.81, 0.01, 0.03)))
    verdict = judge_scene(frame, bodies, [unsure], EDGE, SceneSettings())
    assert verdict.decline is Decline.UNREADABLE
    assert "face with 0.970 (most likely a 5, at 0.810), but no face reads surely (a flat die" in verdict.detail
    # the lean model, asked of that square: flat leaves it unreadable, leaning makes it cocked
    flat = LeanJudgement({square: (0.95, 0.03, 0.02)}, 0.4, "ab" * 32)
    verdict = judge_scene(frame, bodies, [unsure], EDGE, SceneSettings(), flat)
    assert verdict.decline is Decline.UNREADABLE and "the lean model gives that square 0.050 of not" in verdict.detail
    leaning = LeanJudgement({square: (0.3, 0.6, 0.1)}, 0.4, "ab" * 32)
    verdict = judge_scene(frame, bodies, [unsure], EDGE, SceneSettings(), leaning)
    assert verdict.decline is Decline.COCKED
    assert verdict.detail.startswith("body at (150, 120) of 1.16 dice reads no face surely; its square most like a "
                                     "face leans: the lean model abababababab gives it 0.700 of not lying flat")
    oblique = SceneSettings(leaning_check=False)  # the lean model is not asked of an oblique camera's dice
    verdict = judge_scene(frame, bodies, [unsure], EDGE, oblique, leaning)
    assert verdict.decline is Decline.UNREADABLE and "lean model" not in verdict.detail
    beside = BodyExplanation((read(150, 120),), "unexplained", "0.9 of a die's area beside the 1 read", 1400)
    verdict = judge_scene(frame, bodies, [beside], EDGE, SceneSettings())
    assert verdict.decline is Decline.STACKED and verdict.detail.endswith("read (a die on or under another)")
    # a square there the reader takes for a face it cannot read: the reason says what else it may be
    unsure = dataclasses.replace(beside, leftover_face_likelihood=0.93)
    verdict = judge_scene(frame, bodies, [unsure], EDGE, SceneSettings())
    assert verdict.decline is Decline.STACKED
    assert verdict.detail.endswith("shows a die's face with 0.930, but none reads surely (a die on or under another, "
                                   "or a die beside them the reader is unsure of)")
    # the lean model, asked of the square over the rest: a die leaning against the one read is cocked
    rest = DieSquare((150.0, 150.0), EDGE)
    leaning = dataclasses.replace(beside, leftover_square=rest)
    lean = LeanJudgement({rest: (0.2, 0.7, 0.1)}, 0.4, "ab" * 32)
    verdict = judge_scene(frame, bodies, [leaning], EDGE, SceneSettings(), lean)
    assert verdict.decline is Decline.COCKED
    assert verdict.detail.startswith("body at (150, 120): 0.9 of a die's area beside the 1 read; the die there leans: "
                                     "the lean model abababababab gives it 0.800 of not lying flat")
    beneath = LeanJudgement({rest: (0.2, 0.1, 0.7)}, 0.4, "ab" * 32)  # one the die read rests on: stacked
    assert judge_scene(frame, bodies, [leaning], EDGE, SceneSettings(), beneath).decline is Decline.STACKED
    flat = LeanJudgement({rest: (0.9, 0.05, 0.05)}, 0.4, "ab" * 32)
    assert judge_scene(frame, bodies, [leaning], EDGE, SceneSettings(), flat).decline is Decline.STACKED
    oblique = SceneSettings(leaning_check=False)
    assert judge_scene(frame, bodies, [leaning], EDGE, oblique, lean).decline is Decline.STACKED
    disagree = BodyExplanation((), "unreadable", "the die at (150, 120) reads 3 (0.99) and 5 (0.95)")
    verdict = judge_scene(frame, bodies, [disagree], EDGE, SceneSettings())
    assert verdict.decline is Decline.UNREADABLE and "reads 3" in verdict.detail


def test_glare_over_an_unexplained_body_is_glare() -> None:
    frame, bodies = die_frame([(150, 120)])
    frame[:] = (40, 110, 40)
    cv2.rectangle(frame, (130, 100), (170, 140), (150, 60, 60), -1)  # a coloured die...
    cv2.circle(frame, (150, 120), 9, (255, 255, 255), -1)  # ...under a glare spot wider than a pip
    x0, y0 = bodies[0].origin
    patch = frame[y0:y0 + bodies[0].mask.shape[0], x0:x0 + bodies[0].mask.shape[1]]
    assert glare_px(patch, bodies[0].mask, 0.45) > 200
    unexplained = BodyExplanation((), "unexplained", "no die is read in it", bodies[0].area_px)
    assert judge_scene(frame, bodies, [unexplained], EDGE, SceneSettings()).decline is Decline.GLARE
    # readings that disagree on a body glare whitens: the glare is why, and names the decline
    disagree = BodyExplanation((), "unreadable", "the die at (150, 120) reads 3 (0.99) and 5 (0.95)")
    verdict = judge_scene(frame, bodies, [disagree], EDGE, SceneSettings())
    assert verdict.decline is Decline.GLARE and "whitened by glare" in verdict.detail


def test_a_die_outside_the_arena_and_a_wrong_count_decline() -> None:
    frame, bodies = die_frame([(60, 60), (200, 150)])
    dice = [explained(read(60, 60)), explained(read(200, 150))]
    arena = ((100.0, 100.0), (300.0, 100.0), (300.0, 230.0), (100.0, 230.0))
    outside = judge_scene(frame, bodies, dice, EDGE, SceneSettings(arena=arena))
    assert outside.decline is Decline.OUTSIDE_ARENA and "(60, 60)" in outside.detail
    count = judge_scene(frame, bodies, dice, EDGE, SceneSettings(expected_dice=3))
    assert count.decline is Decline.WRONG_COUNT and "2 dice read, the game throws 3" in count.detail


def test_the_first_reason_in_the_order_is_given() -> None:
    frame, bodies = die_frame([(60, 60), (200, 150)])
    cocked = BodyExplanation((), "unexplained", "no die is read in it", bodies[0].area_px)
    stacked = BodyExplanation((read(200, 150),), "unexplained", "beside", 1400)
    verdict = judge_scene(frame, bodies, [cocked, stacked], EDGE, SceneSettings(expected_dice=2))
    assert verdict.decline is Decline.STACKED and "no face reads surely" in verdict.detail
    # the reason's fault is named first, though its body was judged second
    first, second = verdict.detail.split("; ")
    assert "(200, 150)" in first and "no face reads surely" not in first and "no face reads surely" in second


def test_mismatched_inputs_and_bad_settings_are_refused() -> None:
    frame, bodies = die_frame([(60, 60)])
    with pytest.raises(ValueError, match="1 bodies but 0 explanations"):
        judge_scene(frame, bodies, [], EDGE, SceneSettings())
    with pytest.raises(ValueError, match="expected_dice"):
        SceneSettings(expected_dice=0)


def test_a_body_beyond_the_arena_with_no_die_read_is_not_judged() -> None:
    frame, bodies = die_frame([(60, 60), (200, 150)])
    arena = ((100.0, 100.0), (300.0, 100.0), (300.0, 230.0), (100.0, 230.0))
    marker = BodyExplanation((), "unexplained", "no die is read in it", bodies[0].area_px)
    verdict = judge_scene(frame, bodies, [marker, explained(read(200, 150))], EDGE,
                          SceneSettings(arena=arena, expected_dice=1))
    assert verdict.accepted and [die.face for die in verdict.dice] == [5]
    inside = judge_scene(frame, bodies, [marker, explained(read(200, 150))], EDGE, SceneSettings(expected_dice=1))
    assert inside.decline is Decline.UNREADABLE  # the same body inside the arena is judged


def test_a_count_short_of_a_die_beyond_the_arena_that_shows_one_is_outside_the_arena() -> None:
    frame, bodies = die_frame([(60, 60), (200, 150)])
    arena = ((100.0, 100.0), (300.0, 100.0), (300.0, 230.0), (100.0, 230.0))
    game = SceneSettings(arena=arena, expected_dice=2)
    half_believed = BodyExplanation((), "unexplained", "no die is read in it", bodies[0].area_px, face_likelihood=0.7)
    verdict = judge_scene(frame, bodies, [half_believed, explained(read(200, 150))], EDGE, game)
    assert verdict.decline is Decline.OUTSIDE_ARENA
    assert verdict.detail == ("1 dice read, the game throws 2, and the body at (60, 60) beyond the arena shows a die "
                              "(0 pip-like spots; its squares give a die's face 0.700)")
    # beyond the arena, a body that shows no die (a marker, the lit floor) leaves the count short, no more
    marker = BodyExplanation((), "unexplained", "no die is read in it", bodies[0].area_px, face_likelihood=0.02)
    verdict = judge_scene(frame, bodies, [marker, explained(read(200, 150))], EDGE, game)
    assert verdict.decline is Decline.WRONG_COUNT
    # with the count met, a body beyond the arena is not judged
    one = SceneSettings(arena=arena, expected_dice=1)
    assert judge_scene(frame, bodies, [half_believed, explained(read(200, 150))], EDGE, one).accepted


def showing_no_die(body_area: float) -> BodyExplanation:
    """No die read, and the reader sure no square holds a face (a shadow, a stain, a glare spot on the cloth)."""
    return BodyExplanation((), "unexplained", "no die is read in it", int(body_area), face_likelihood=0.02)


def test_a_body_that_shows_no_die_is_left_aside_and_a_die_missed_so_leaves_the_count_short() -> None:
    frame, bodies = die_frame([(60, 60), (200, 150)])
    dice = [explained(read(60, 60, 2)), showing_no_die(bodies[1].area_px)]
    verdict = judge_scene(frame, bodies, dice, EDGE, SceneSettings())
    assert verdict.accepted and [d.face for d in verdict.dice] == [2]
    short = judge_scene(frame, bodies, dice, EDGE, SceneSettings(expected_dice=2))
    assert short.decline is Decline.WRONG_COUNT and "1 dice read, the game throws 2" in short.detail
    # pips seen on it, or a face the reader half believes, make it a die that is not read: never left aside
    with_pips = [dice[0], showing_no_die(bodies[1].area_px)]
    pips_body = [bodies[0], BodyPixels(bodies[1].mask, bodies[1].origin, pips=5)]
    assert judge_scene(frame, pips_body, with_pips, EDGE, SceneSettings()).decline is Decline.COCKED
    believed = BodyExplanation((), "unexplained", "no die is read in it", bodies[1].area_px, face_likelihood=0.7)
    assert judge_scene(frame, bodies, [dice[0], believed], EDGE, SceneSettings()).decline is Decline.UNREADABLE


def test_a_smeared_body_that_shows_no_die_names_motion_when_the_count_is_short() -> None:
    frame, bodies = die_frame([(60, 60), (200, 150)], blur=25)
    still, _ = die_frame([(60, 60)])
    frame[:120, :120] = still[:120, :120]  # the first die has stopped, the second still slides
    dice = [explained(read(60, 60, 2)), showing_no_die(bodies[1].area_px)]
    verdict = judge_scene(frame, [bodies[0], bodies[1]], dice, EDGE, SceneSettings(expected_dice=2))
    assert verdict.decline is Decline.MOTION and "smeared" in verdict.detail
    calm, calm_bodies = die_frame([(60, 60), (200, 150)])
    calm[calm_bodies[1].origin[1]:, calm_bodies[1].origin[0]:] = (40, 110, 40)  # a flat stain: no edges at all
    verdict = judge_scene(calm, calm_bodies, dice, EDGE, SceneSettings(expected_dice=2))
    assert verdict.decline is Decline.WRONG_COUNT
    # short of the count, a body where no die shows is taken for the die missing, still moving, at a looser
    # anisotropy (0.44 here) than a body judged on its own
    slight, slight_bodies = die_frame([(60, 60), (200, 150)], blur=9)
    slight[:120, :120] = still[:120, :120]
    verdict = judge_scene(slight, slight_bodies, dice, EDGE, SceneSettings(expected_dice=2))
    assert verdict.decline is Decline.MOTION and "anisotropy 0.4" in verdict.detail, verdict.detail
    strict = SceneSettings(expected_dice=2, naming_motion_anisotropy=0.4)
    assert judge_scene(slight, slight_bodies, dice, EDGE, strict).decline is Decline.WRONG_COUNT
    # a rail's strip, its edges all one way, is too narrow to be a die
    railed, _ = die_frame([(60, 60)])
    cv2.rectangle(railed, (130, 200), (310, 207), (200, 200, 200), -1)
    strip = np.zeros((12, 190), bool)
    strip[2:10, 5:185] = True
    rail = BodyPixels(strip, (125, 198))
    verdict = judge_scene(railed, [bodies[0], rail], [dice[0], showing_no_die(rail.area_px)], EDGE,
                          SceneSettings(expected_dice=2))
    assert verdict.decline is Decline.WRONG_COUNT, verdict.detail


def test_a_faint_smear_that_shows_a_die_names_motion_when_the_count_is_short() -> None:
    """A translucent die smeared by its motion has faint edges: its body's mean gradient (5.0 grey levels per px here)
    is under ``motion_min_gradient`` (6). Showing a die (its squares half believe a face), in a frame short of the
    game's count, it is the die missing, still moving, below ``faint_motion_anisotropy``; one that shows no die (a
    stain, the cloth's vignetting) is not."""
    frame, bodies = die_frame([(60, 60), (200, 150)], blur=25)
    still, _ = die_frame([(60, 60)])
    frame[:120, :120] = still[:120, :120]
    x0, y0 = bodies[1].origin
    h, w = bodies[1].mask.shape
    cloth = frame[5, 200].astype(float)
    faint = cloth + 0.22 * (frame[y0:y0 + h, x0:x0 + w].astype(float) - cloth)
    frame[y0:y0 + h, x0:x0 + w] = faint.clip(0, 255).astype(np.uint8)
    not_read = BodyExplanation((), "unexplained", "no die is read in it", bodies[1].area_px, face_likelihood=0.8)
    dice = [explained(read(60, 60, 2)), not_read]
    short = judge_scene(frame, bodies, dice, EDGE, SceneSettings(expected_dice=2))
    assert short.decline is Decline.MOTION and "short of the game's count" in short.detail, short.detail
    floor = SceneSettings(expected_dice=2, faint_motion_min_gradient=6.0)
    assert judge_scene(frame, bodies, dice, EDGE, floor).decline is Decline.UNREADABLE
    stricter = SceneSettings(expected_dice=2, faint_motion_anisotropy=0.05)
    assert judge_scene(frame, bodies, dice, EDGE, stricter).decline is Decline.UNREADABLE
    no_die = [dice[0], showing_no_die(bodies[1].area_px)]
    assert judge_scene(frame, bodies, no_die, EDGE, SceneSettings(expected_dice=2)).decline is Decline.WRONG_COUNT


def test_glare_over_a_die_read_declines_even_a_sure_reading_and_a_white_face_is_no_glare() -> None:
    frame, bodies = die_frame([(150, 120)])
    sure = [explained(read(150, 120, 5))]
    assert judge_scene(frame, bodies, sure, EDGE, SceneSettings(expected_dice=1)).accepted  # white at 235: no glare
    cv2.circle(frame, (160, 130), 7, (255, 255, 255), -1)  # a saturated spot over the lower right pip
    verdict = judge_scene(frame, bodies, sure, EDGE, SceneSettings(expected_dice=1))
    assert verdict.decline is Decline.GLARE and "glare" in verdict.detail


def test_with_a_lean_model_its_verdict_decides_whether_a_die_read_lies_flat() -> None:
    """At the threshold on the probability of not lying flat the die declines the frame, as cocked when the model
    finds leaning likelier than resting on another die, else as stacked, naming the model; a die the model was not
    asked about lies flat; an oblique camera's scene does not look."""
    frame, bodies = die_frame([(150, 120), (60, 60)])
    dice = [read(150, 120, 5), read(60, 60, 2)]
    sure = [explained(dice[0]), explained(dice[1])]
    settings = SceneSettings(expected_dice=2)

    def lean(first: tuple[float, float, float], second: tuple[float, float, float]) -> LeanJudgement:
        return LeanJudgement({dice[0].square: first, dice[1].square: second}, 0.4, "ab" * 32)

    flat = (0.9, 0.05, 0.05)
    assert judge_scene(frame, bodies, sure, EDGE, settings, lean((0.61, 0.2, 0.19), flat)).accepted
    verdict = judge_scene(frame, bodies, sure, EDGE, settings, lean(flat, (0.6, 0.3, 0.1)))
    assert verdict.decline is Decline.COCKED
    assert verdict.detail == ("die at (60, 60) read 2 leans: the lean model abababababab gives it 0.400 of not lying "
                              "flat (leaning 0.300, on another die 0.100), at or above 0.400")
    short = SceneSettings(expected_dice=3)  # a die of the game not read may lie beneath one read
    verdict = judge_scene(frame, bodies, sure, EDGE, short, lean((0.2, 0.3, 0.5), flat))
    assert verdict.decline is Decline.STACKED and "read 5 rests on another die: the lean model" in verdict.detail
    assert judge_scene(frame, bodies, sure, EDGE, settings, LeanJudgement({}, 0.4, "ab" * 32)).accepted
    oblique = SceneSettings(expected_dice=2, leaning_check=False)
    assert judge_scene(frame, bodies, sure, EDGE, oblique, lean((0.1, 0.8, 0.1), (0.1, 0.1, 0.8))).accepted


def test_a_die_the_lean_model_finds_on_another_is_judged_by_its_leaning_alone_when_no_die_lies_beneath_it() -> None:
    """Two dice read 5 and 2, each alone in its body, 90 px apart, and the game throws two: no die lies beneath
    either. A die the model gives 0.4 of not lying flat, mostly for resting on another die, is then judged by
    leaning / (flat + leaning): 0.05 / 0.65 and 0.24 / 0.64 read, 0.28 / 0.68 declines as cocked. With a die of the game not read,
    with the other die in its body, or with the other die read nearer than an edge (split into a body of its own),
    a die may lie beneath it: stacked."""
    frame, bodies = die_frame([(150, 120), (60, 60)])
    dice = [read(150, 120, 5), read(60, 60, 2)]
    sure = [explained(dice[0]), explained(dice[1])]
    flat = (0.9, 0.05, 0.05)

    def lean(first: tuple[float, float, float], squares: list[DieSquare] | None = None) -> LeanJudgement:
        keys = squares or [dice[0].square, dice[1].square]
        return LeanJudgement({keys[0]: first, keys[1]: flat}, 0.4, "ab" * 32)

    game = SceneSettings(expected_dice=2)
    resting = (0.6, 0.05, 0.35)
    assert judge_scene(frame, bodies, sure, EDGE, game, lean(resting)).accepted
    assert judge_scene(frame, bodies, sure, EDGE, game, lean((0.4, 0.24, 0.36))).accepted  # 0.24 / 0.64 = 0.375
    verdict = judge_scene(frame, bodies, sure, EDGE, game, lean((0.4, 0.28, 0.32)))  # 0.28 / 0.68 = 0.412
    assert verdict.decline is Decline.COCKED
    assert verdict.detail == ("die at (150, 120) read 5 leans: the lean model abababababab gives it 0.600 of not lying "
                              "flat (leaning 0.280, on another die 0.320); no die lies beneath it, and it leans with "
                              "0.412 given that, at or above 0.400")
    assert judge_scene(frame, bodies, sure, EDGE, SceneSettings(expected_dice=3),
                       lean(resting)).decline is Decline.STACKED
    one_body = [BodyPixels(np.ones((160, 200), bool), (20, 20))]
    both = [BodyExplanation((dice[0], dice[1]))]
    verdict = judge_scene(frame, one_body, both, EDGE, game, lean(resting))
    assert verdict.decline is Decline.STACKED and "read 5 rests on another die" in verdict.detail
    near = read(150 + 0.9 * EDGE, 120, 2)
    near_frame, near_bodies = die_frame([(150, 120), (150 + 0.9 * EDGE, 120)])
    verdict = judge_scene(near_frame, near_bodies, [explained(dice[0]), explained(near)], EDGE, game,
                          lean(resting, [dice[0].square, near.square]))
    assert verdict.decline is Decline.STACKED and "read 5 rests on another die" in verdict.detail


def test_a_smeared_body_that_shows_a_die_not_read_is_motion_not_cocked() -> None:
    smeared_frame, bodies = die_frame([(150, 120)], blur=25)
    not_read = BodyExplanation((), "unexplained", "no die is read in it", bodies[0].area_px, face_likelihood=0.8)
    assert judge_scene(smeared_frame, bodies, [not_read], EDGE, SceneSettings()).decline is Decline.MOTION
    sharp, sharp_bodies = die_frame([(150, 120)])
    still = BodyExplanation((), "unexplained", "no die is read in it", sharp_bodies[0].area_px, face_likelihood=0.8)
    assert judge_scene(sharp, sharp_bodies, [still], EDGE, SceneSettings()).decline is Decline.UNREADABLE


def test_a_body_not_read_is_named_smeared_at_a_looser_anisotropy_than_a_die_read_is_declined_at() -> None:
    smeared_frame, bodies = die_frame([(150, 120)], blur=10)  # anisotropy 0.38 over the body
    x0, y0 = bodies[0].origin
    grey = cv2.cvtColor(smeared_frame, cv2.COLOR_BGR2GRAY)[y0:y0 + bodies[0].mask.shape[0],
                                                           x0:x0 + bodies[0].mask.shape[1]]
    assert 0.3 < anisotropy(grey, bodies[0].mask) < 0.4
    not_read = BodyExplanation((), "unexplained", "no die is read in it", bodies[0].area_px, face_likelihood=0.8)
    verdict = judge_scene(smeared_frame, bodies, [not_read], EDGE, SceneSettings())
    assert verdict.decline is Decline.MOTION and "anisotropy 0.38" in verdict.detail
    strict = SceneSettings(unread_motion_anisotropy=0.3)
    assert judge_scene(smeared_frame, bodies, [not_read], EDGE, strict).decline is Decline.UNREADABLE
    # a die read there is judged by its faces (0.27) at motion_anisotropy alone: whether a frame is accepted
    die_read = [explained(read(150, 120))]
    assert judge_scene(smeared_frame, bodies, die_read, EDGE, SceneSettings()).decline is Decline.MOTION
    loose = SceneSettings(motion_anisotropy=0.25, unread_motion_anisotropy=0.9)
    assert judge_scene(smeared_frame, bodies, die_read, EDGE, loose).accepted
    with pytest.raises(ValueError, match="unread_motion_anisotropy"):
        SceneSettings(unread_motion_anisotropy=1.0)


def die_with_beside(paint) -> tuple[np.ndarray, list[BodyPixels]]:
    """A die read 5 at (150, 120) whose body also holds the 40 x 30 px below it, painted by ``paint``."""
    frame, _ = die_frame([(150, 120)])
    paint(frame)
    body = np.zeros((72, 42), bool)
    body[:, :] = True
    return frame, [BodyPixels(body, (129, 99))]


def judged_with_beside(frame: np.ndarray, bodies: list[BodyPixels], beside: DieReading | None = None,
                       **settings: object) -> object:
    readings = [read(150, 120)] + ([beside] if beside is not None else [])
    explanation = explain_body(bodies[0], readings, ExplanationSettings(threshold=0.9))
    assert explanation.problem == "unexplained" and explanation.leftover is not None
    return judge_scene(frame, bodies, [explanation], EDGE, SceneSettings(expected_dice=1, **settings))


def soft_shadow(frame: np.ndarray) -> None:
    cv2.rectangle(frame, (129, 141), (171, 171), (20, 60, 20), -1)
    frame[135:175, 120:180] = cv2.GaussianBlur(frame[135:175, 120:180], (0, 0), 2.0)


def test_plain_pixels_beside_a_die_read_are_no_die_but_pips_glare_or_a_face_there_decline() -> None:
    frame, bodies = die_with_beside(soft_shadow)
    verdict = judged_with_beside(frame, bodies)
    assert verdict.accepted and [d.face for d in verdict.dice] == [5]  # a shadow the table model took for a body
    assert judged_with_beside(frame, bodies, plain_leftovers=False).decline is Decline.STACKED

    def die_beneath(frame: np.ndarray) -> None:
        cv2.rectangle(frame, (129, 141), (171, 171), (225, 225, 225), -1)
        for x in (140, 160):
            cv2.circle(frame, (x, 156), 4, (20, 20, 20), -1)
    frame, bodies = die_with_beside(die_beneath)
    verdict = judged_with_beside(frame, bodies)
    assert verdict.decline is Decline.STACKED and "beside the 1 read" in verdict.detail

    def one_spot(frame: np.ndarray) -> None:  # a single round spot beside it: a corner pip, a glint, a notch
        soft_shadow(frame)
        cv2.circle(frame, (150, 156), 4, (200, 200, 200), -1)
    frame, bodies = die_with_beside(one_spot)
    assert judged_with_beside(frame, bodies).accepted
    assert judged_with_beside(frame, bodies, leftover_pips=1).decline is Decline.STACKED

    def glare_beside(frame: np.ndarray) -> None:
        cv2.circle(frame, (150, 158), 12, (255, 255, 255), -1)  # on the cloth, it may hide the rest of the die read
    frame, bodies = die_with_beside(glare_beside)
    assert judged_with_beside(frame, bodies).decline is Decline.GLARE

    half_believed = DieReading(DieSquare((150, 160), EDGE), (0.1, 0.1, 0.1, 0.2, 0.1, 0.1, 0.3))
    frame, bodies = die_with_beside(soft_shadow)
    assert judged_with_beside(frame, bodies, half_believed).decline is Decline.STACKED


def test_spots_on_the_rim_of_a_die_read_are_no_pips_and_spots_further_out_are() -> None:
    """Two round spots 8 px (0.2 of an edge) below the square read, beyond its side faces but on its rim (a square
    read surely may sit a tenth of an edge off its die), are its corners' glints: the frame reads. The same spots
    16 px (0.4 of an edge) below are pips of a die beneath, as they are at 8 px with no clearance."""
    def spots_at(y: int):
        def paint(frame: np.ndarray) -> None:
            soft_shadow(frame)
            for x in (140, 160):
                cv2.circle(frame, (x, y), 3, (220, 220, 220), -1)
        return paint
    frame, bodies = die_with_beside(spots_at(148))
    verdict = judged_with_beside(frame, bodies)
    assert verdict.accepted and [d.face for d in verdict.dice] == [5]
    assert judged_with_beside(frame, bodies, leftover_pip_clearance=0.0).decline is Decline.STACKED
    frame, bodies = die_with_beside(spots_at(156))
    assert judged_with_beside(frame, bodies).decline is Decline.STACKED
    with pytest.raises(ValueError, match="leftover_pip_clearance"):
        SceneSettings(leftover_pip_clearance=0.5)


def test_a_square_read_smaller_than_the_frames_dice_has_no_known_rim() -> None:
    """Beside a square of the frame's die size, the pixels within 0.22 of an edge of it are its die's rim, where no
    pip is counted; beside a square read at 0.75 of it (perhaps part of its die) they may hold its die's pips."""
    body = BodyPixels(np.ones((100, 100), bool), (100, 70))
    settings = ExplanationSettings(threshold=0.9)
    below = (120 + 20 + 7 - 70, 150 - 100)  # row, column: 7 px below the 40 px square
    of_size = explain_body(body, [read(150, 120)], settings)
    assert not _pip_centres_beside(body, of_size, EDGE, 0.22)[below]
    assert _pip_centres_beside(body, of_size, EDGE, 0.0)[below]
    small = DieReading(DieSquare((150, 125), 30.0), read(150, 125).probabilities)  # its bottom edge where the 40's is
    assert _pip_centres_beside(body, explain_body(body, [small], settings), EDGE, 0.22)[below]


def test_glare_on_the_face_of_a_die_read_from_a_smaller_square_declines() -> None:
    """A die of the frame's 40 px read from a 30 px square about its centre: a saturated spot on its face beyond
    that square (0.4 of it under the square) may hide a pip as surely, and declines the frame."""
    frame, bodies = die_frame([(150, 120)])
    cv2.circle(frame, (166, 120), 5, (255, 255, 255), -1)
    small = DieReading(DieSquare((150, 120), 30.0), read(150, 120).probabilities)
    verdict = judge_scene(frame, bodies, [explained(small)], EDGE, SceneSettings(expected_dice=1))
    assert verdict.decline is Decline.GLARE
    x, y = bodies[0].origin
    h, w = bodies[0].mask.shape
    under_square = glare_px(frame[y:y + h, x:x + w], bodies[0].under([small.square]), 0.45, 245.0)
    assert under_square < np.pi * (0.18 * EDGE / 2.0) ** 2  # the square read alone holds less than a pip of it


def test_a_glare_spot_on_the_cloth_away_from_the_dice_read_declines_only_while_a_die_of_the_game_is_missing() -> None:
    """A body holding a die read 5 at (150, 120) and the cloth below it down to y = 200, lit by a saturated spot.
    Further than ``glare_clearance`` of an edge from the square it can hide no die read; with every die of the game
    read it hides none of the game's either, so the frame reads. With a die of the game missing, or with the spot
    near the square, the spot may hide a die and the frame is declined for glare."""
    def spot_at(y: int) -> tuple[np.ndarray, list[BodyPixels]]:
        frame, _ = die_frame([(150, 120)])
        soft_shadow(frame)
        cv2.circle(frame, (150, y), 10, (255, 255, 255), -1)
        return frame, [BodyPixels(np.ones((102, 42), bool), (129, 99))]

    def judged(frame: np.ndarray, bodies: list[BodyPixels], expected_dice: int, **settings: object) -> object:
        explanation = explain_body(bodies[0], [read(150, 120)], ExplanationSettings(threshold=0.9))
        assert explanation.problem == "unexplained" and explanation.leftover is not None
        return judge_scene(frame, bodies, [explanation], EDGE, SceneSettings(expected_dice=expected_dice, **settings))

    far = spot_at(180)  # 30 px (0.75 of an edge) below the square
    verdict = judged(*far, expected_dice=1)
    assert verdict.accepted and [d.face for d in verdict.dice] == [5]
    assert judged(*far, expected_dice=1, glare_clearance=1.2).decline is Decline.GLARE
    assert judged(*far, expected_dice=2).decline is Decline.GLARE  # a die of the game may lie under it
    near = spot_at(156)  # 6 px (0.15 of an edge) below the square: it may hide part of the die read
    assert judged(*near, expected_dice=1).decline is Decline.GLARE


def test_the_halo_of_a_glare_spot_hides_pips_beyond_its_saturated_core() -> None:
    """A red die read 5 with a glare spot between its pips: a saturated core of 29 px (less than a pip's 41 px) in a
    halo whitened 0.9 of the way to white (least channel 236, unsaturated) of 3.7 pips' area. The halo hides a pip as
    the core does, so the frame is declined for glare; counting saturated pixels only it would read. The same halo
    with no saturated core is a light patch of the face (a light pip is one), not glare."""
    def lit(core: tuple[int, int, int]) -> tuple[np.ndarray, list[BodyPixels]]:
        frame, bodies = die_frame([(150, 120)])
        cv2.rectangle(frame, (130, 100), (170, 140), (60, 60, 200), -1)  # least channel 60
        for dx, dy in ((-10, -10), (10, -10), (0, 0), (-10, 10), (10, 10)):
            cv2.circle(frame, (150 + dx, 120 + dy), 4, (20, 20, 20), -1)
        cv2.circle(frame, (161, 120), 7, (236, 236, 255), -1)  # 60 + 0.9 * (255 - 60) = 235.5
        cv2.circle(frame, (161, 120), 3, core, -1)
        return frame, bodies

    frame, bodies = lit((255, 255, 255))
    x, y = bodies[0].origin
    h, w = bodies[0].mask.shape
    pip_area = np.pi * (0.18 * EDGE / 2.0) ** 2
    assert glare_px(frame[y:y + h, x:x + w], bodies[0].mask, 0.45, 245.0) < pip_area  # the core alone
    verdict = judge_scene(frame, bodies, [explained(read(150, 120))], EDGE, SceneSettings(expected_dice=1))
    assert verdict.decline is Decline.GLARE and "3.7 pips' area" in verdict.detail
    saturated_only = judge_scene(frame, bodies, [explained(read(150, 120))], EDGE,
                                 SceneSettings(expected_dice=1, glare_hiding_weight=1.0))
    assert saturated_only.accepted
    unsaturated = judge_scene(*lit((236, 236, 255)), [explained(read(150, 120))], EDGE, SceneSettings(expected_dice=1))
    assert unsaturated.accepted and [d.face for d in unsaturated.dice] == [5]
    with pytest.raises(ValueError, match="glare_hiding_weight"):
        SceneSettings(glare_hiding_weight=0.0)


def test_one_die_read_in_two_bodies_is_never_two_dice() -> None:
    """A die whose body was cut in two (a shadow across its side face, glare across its face) may be read in each
    part: the two reads lie 5 px apart, an eighth of an edge, where two flat dice cannot lie. Read as one face, it
    is one die counted once (a game of two dice is then a die short; of one, the die is read); read as two faces,
    the frame is unreadable. Dice an edge and a half apart are two."""
    frame, [body] = die_frame([(150, 120)])
    left, right = body.mask.copy(), body.mask.copy()
    left[:, 21:], right[:, :21] = False, False
    halves = [BodyPixels(left, body.origin), BodyPixels(right, body.origin)]
    same_face = [explained(read(148, 120)), explained(read(153, 120))]
    short = judge_scene(frame, halves, same_face, EDGE, SceneSettings(expected_dice=2))
    assert short.decline is Decline.WRONG_COUNT and short.detail == "1 dice read, the game throws 2"
    one = judge_scene(frame, halves, same_face, EDGE, SceneSettings(expected_dice=1))
    assert one.accepted and [(d.face, d.square.centre_px) for d in one.dice] == [(5, (148, 120))]
    two_faces = [explained(read(148, 120)), explained(read(153, 120, face=6))]
    verdict = judge_scene(frame, halves, two_faces, EDGE, SceneSettings(expected_dice=2))
    assert verdict.decline is Decline.UNREADABLE
    assert verdict.detail == "dice read at (148, 120) and (153, 120) px would overlap (5 px apart, an edge is 40)"
    apart, bodies = die_frame([(100, 120), (160, 120)])
    assert judge_scene(apart, bodies, [explained(read(100, 120)), explained(read(160, 120))], EDGE,
                       SceneSettings(expected_dice=2)).accepted
    near = judge_scene(apart, bodies, [explained(read(100, 120)), explained(read(125, 120))], EDGE,
                       SceneSettings(expected_dice=2))  # one face 25 px apart: beyond half an edge, not one die
    assert not near.accepted and "would overlap (25 px apart" in near.detail
    with pytest.raises(ValueError, match="same_die_share"):
        SceneSettings(same_die_share=0.8)
    with pytest.raises(ValueError, match="apart_share"):
        SceneSettings(apart_share=0.0)


def _shadow_scene(shade_share: float = 1.0, die_at: tuple[float, float] = (40.0, 40.0), size: int = 36):
    """A frame of 320 x 240 px: a die read at ``die_at`` in a body of its own, and a body of ``size`` px square at
    (200, 130) in which no die is read, ``shade_share`` of its pixels shade (a die's shadow,
    :attr:`BodyPixels.shade`)."""
    frame, bodies = die_frame([die_at])
    frame[112:148, 182:218] = (25, 70, 25)  # darker than the cloth, of its colour
    mask = np.ones((size, size), bool)
    shade = np.zeros_like(mask)
    shade.flat[:round(shade_share * mask.size)] = True
    shadow = BodyPixels(mask, (200 - size // 2, 130 - size // 2), shade=shade)
    explanations = [explained(read(*die_at, 2)), BodyExplanation((), "unexplained", "no die is read in it",
                                                                 shadow.area_px, face_likelihood=0.01)]
    return frame, [bodies[0], shadow], explanations


FOUND_ARENA = np.array([[0, 0], [320, 0], [320, 240], [0, 240]], np.float32)


def test_a_shadow_with_no_die_read_near_it_is_the_shadow_of_a_die_not_found() -> None:
    """With a die too many on the table, one die unseen meets the game's count: a body that is a shadow, with no
    die read within 1.5 edges of it, declines a frame that would be accepted; a die read beside it casts it."""
    frame, bodies, explanations = _shadow_scene()
    verdict = judge_scene(frame, bodies, explanations, EDGE, SceneSettings(expected_dice=1), found_arena=FOUND_ARENA)
    assert verdict.decline is Decline.UNREADABLE
    assert verdict.detail == ("a shadow at (200, 130) with no die read within 1.5 edges of it: the die casting it "
                              "was not found")
    frame, bodies, explanations = _shadow_scene(die_at=(200.0 - 1.4 * EDGE, 130.0))
    assert judge_scene(frame, bodies, explanations, EDGE, SceneSettings(expected_dice=1),
                       found_arena=FOUND_ARENA).accepted


@pytest.mark.parametrize(("case", "shade_share", "size", "arena"), [
    ("partly shade: a stain, no shadow", 0.7, 36, FOUND_ARENA),
    ("a speck under a quarter of a die", 1.0, 18, FOUND_ARENA),
    ("0.3 of an edge from the found arena's edge: vignetting", 1.0, 36,
     np.array([[0, 0], [230, 0], [230, 240], [0, 240]], np.float32)),
])
def test_what_is_no_shadow_of_an_unseen_die_is_left_aside(case: str, shade_share: float, size: int,
                                                           arena: np.ndarray) -> None:
    frame, bodies, explanations = _shadow_scene(shade_share, size=size)
    assert judge_scene(frame, bodies, explanations, EDGE, SceneSettings(expected_dice=1), found_arena=arena).accepted


def test_a_frame_with_no_die_read_and_no_count_told_is_hidden() -> None:
    frame, bodies = die_frame([(150, 120)])
    empty = BodyExplanation((), "unexplained", "no die is read in it", bodies[0].area_px, face_likelihood=0.0)
    verdict = judge_scene(frame, bodies, [empty], EDGE, SceneSettings())
    assert verdict.decline is Decline.HIDDEN and verdict.detail == "no die is read in the frame"
    assert judge_scene(frame, [], [], EDGE, SceneSettings()).decline is Decline.HIDDEN


def _lit_table(die: bool, radius_px: float = 14.0, strength: float = 1.0) -> tuple[np.ndarray, list[BodyPixels]]:
    """A die read 2 at (60, 60) and, at (200, 150), a glare spot: over a blank white die (``die``: a one whose pip
    the spot washes out) or on the bare cloth. The second body is the pixels there that differ from the cloth."""
    frame, bodies = die_frame([(60, 60)], faces=[2])
    if die:
        cv2.rectangle(frame, (180, 130), (220, 170), (235, 235, 235), -1)
    add_glare(frame, (200.0, 150.0), radius_px, strength)
    box = frame[110:191, 160:241]
    differs = np.abs(box.astype(int) - (40, 110, 40)).max(axis=2) > 40
    return frame, [bodies[0], BodyPixels(differs, (160, 110))]


def test_glare_over_a_die_stands_on_a_sharp_object_and_glare_on_the_cloth_does_not() -> None:
    """The object under the spot, a die's area or more with an outline as sharp as the die's, tells a die whose pips
    glare hides from a spot on the cloth, which whitens it along a smooth fall-off (p217-2007/cussec/6)."""
    measured = {}
    for name, die, radius in (("die", True, 14.0), ("cloth, a wide spot", False, 30.0),
                              ("cloth, a small spot", False, 8.0)):
        frame, bodies = _lit_table(die, radius)
        patch = frame[110:191, 160:241]
        glare = glare_pixels(patch, bodies[1].mask, 0.45, 245.0, 0.85)
        assert glare.any()
        measured[name] = glare_object(frame, bodies[1], bodies[1].mask, glare, EDGE, 60.0, 45.0)
    assert measured["die"].dice >= 0.9 and measured["die"].sharp_rim >= 0.5
    assert measured["cloth, a wide spot"].sharp_rim == 0.0  # wide: smooth
    assert measured["cloth, a small spot"].dice < 0.3  # steep, but small
    frame, bodies = _lit_table(True)
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)  # a grey camera: the distance from the cloth's grey level
    patch = frame[110:191, 160:241]
    glare = glare_pixels(patch, bodies[1].mask, 0.45, 245.0, 0.85)
    assert glare_object(grey, bodies[1], bodies[1].mask, glare, EDGE, 60.0, 45.0).sharp_rim >= 0.5
    whole = BodyPixels(np.ones((50, 50), bool), (0, 0))  # the body fills the frame: no cloth shows about it
    assert glare_object(np.zeros((50, 50, 3), np.uint8), whole, whole.mask, whole.mask, EDGE, 60.0, 45.0) is None


def test_a_die_whose_pips_glare_hides_never_meets_the_count_as_a_spot_on_the_cloth() -> None:
    """With one die read and a game of one, a second body where no face reads would be a spot on the cloth; when it
    is a die whose only pip the glare washes out, a die too many lies on the table, so the frame is declined for
    glare instead of accepted with it unseen. The same spot on the bare cloth leaves the frame read."""
    settings = SceneSettings(expected_dice=1)
    frame, bodies = _lit_table(die=True)
    dice = [explained(read(60, 60, 2)), showing_no_die(bodies[1].area_px)]
    verdict = judge_scene(frame, bodies, dice, EDGE, settings)
    assert verdict.decline is Decline.GLARE and "may be a die whose pips it hides" in verdict.detail
    assert "of its outline sharp" in verdict.detail
    cloth, cloth_bodies = _lit_table(die=False, radius_px=30.0, strength=0.7)
    spot = [dice[0], showing_no_die(cloth_bodies[1].area_px)]
    accepted = judge_scene(cloth, cloth_bodies, spot, EDGE, settings)
    assert accepted.accepted and [d.face for d in accepted.dice] == [2]
    # the per-die reader half seeing a face there (above glare_die_likelihood, below die_likelihood) is a die too
    seen = BodyExplanation((), "unexplained", "no die is read in it", cloth_bodies[1].area_px, face_likelihood=0.1)
    verdict = judge_scene(cloth, cloth_bodies, [dice[0], seen], EDGE, settings)
    assert verdict.decline is Decline.GLARE and "reads as a face with 0.100" in verdict.detail
    plain = judge_scene(cloth, cloth_bodies, [dice[0], seen], EDGE, SceneSettings(expected_dice=1,
                                                                                   glare_die_likelihood=0.2))
    assert plain.accepted


def _die_beside_a_smear(smear_px: int, *, pips: bool = True) -> tuple[np.ndarray, list[BodyPixels], np.ndarray]:
    """A still die (a five, 40 px at (100, 120)) and, touching it on its right, ``smear_px`` wide of a die smeared
    along x by its motion (its pips drawn when ``pips``): the frame, the one body, and the pixels the die read
    leaves."""
    frame = np.zeros((240, 320, 3), np.uint8)
    frame[:] = (40, 110, 40)
    moving = frame.copy()
    cv2.rectangle(moving, (125, 100), (165, 140), (235, 235, 235), -1)
    if pips:
        for dx, dy in ((-10, -10), (10, 10), (0, 0), (-10, 10), (10, -10)):
            cv2.circle(moving, (145 + dx, 120 + dy), 4, (20, 20, 20), -1)
    moving = cv2.filter2D(moving, -1, np.full((1, 25), 1.0 / 25))
    frame[:, 121:121 + smear_px] = moving[:, 121:121 + smear_px]
    cv2.rectangle(frame, (80, 100), (120, 140), (235, 235, 235), -1)
    for dx, dy in ((-10, -10), (10, 10), (0, 0), (-10, 10), (10, -10)):
        cv2.circle(frame, (100 + dx, 120 + dy), 4, (20, 20, 20), -1)
    x0, y0 = 70, 90
    mask = frame[y0:y0 + 60, x0:x0 + 130].min(axis=2) > 70
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((11, 11), np.uint8)).astype(bool)
    leftover = mask.copy()
    leftover[:, :121 - x0] = False
    return frame, [BodyPixels(mask, (x0, y0))], leftover


def test_a_die_smeared_beside_a_still_one_is_motion_not_a_die_on_it() -> None:
    """The pixels the die read leaves in its body are a die smeared by its motion: the body is declined for motion
    (p217-2007/cussec/6 names a die on another stacked; a moving die is no throw yet), where a narrow band of them
    (a still die's rim, which a square read too small leaves) stays stacked."""
    frame, bodies, leftover = _die_beside_a_smear(60)
    beside = BodyExplanation((read(100, 120),), "unexplained", "1.20 of a die's area beside the 5 read is no die read",
                             int(np.count_nonzero(leftover)), leftover=leftover, beside_dice=leftover,
                             leftover_face_likelihood=0.7)
    verdict = judge_scene(frame, bodies, [beside], EDGE, SceneSettings(expected_dice=2))
    assert verdict.decline is Decline.MOTION and "a die moving beside the dice read" in verdict.detail, verdict.detail
    band = leftover.copy()
    band[:, 121 - 70 + 8:] = False  # 8 px of it: no disc of 0.35 of an edge fits
    narrow = dataclasses.replace(beside, leftover=band, beside_dice=band, unexplained_px=int(np.count_nonzero(band)) * 3)
    verdict = judge_scene(frame, bodies, [narrow], EDGE, SceneSettings(expected_dice=2))
    assert verdict.decline is Decline.STACKED, verdict.detail
    # the smear measures 0.21: below beside_motion_anisotropy, not below a stricter one (nor, the count being short,
    # below a stricter narrow_motion_anisotropy)
    strict = SceneSettings(expected_dice=2, beside_motion_anisotropy=0.2, narrow_motion_anisotropy=0.2)
    assert judge_scene(frame, bodies, [beside], EDGE, strict).decline is Decline.STACKED


def test_a_count_short_beside_a_plain_smear_is_motion() -> None:
    """A smear without pips beside the die read is plain (no die the reader or the pips show): the body is judged as
    read, and with the count short by one the die missing is the one smeared there."""
    frame, bodies, leftover = _die_beside_a_smear(60, pips=False)
    beside = BodyExplanation((read(100, 120),), "unexplained", "beside", int(np.count_nonzero(leftover)),
                             leftover=leftover, beside_dice=leftover, leftover_face_likelihood=0.0)
    short = judge_scene(frame, bodies, [beside], EDGE, SceneSettings(expected_dice=2))
    assert short.decline is Decline.MOTION, short.detail
    assert short.detail.startswith("1 dice read, the game throws 2, and the pixels beside the dice read in the body at")
    met = judge_scene(frame, bodies, [beside], EDGE, SceneSettings(expected_dice=1))
    assert met.accepted and [die.face for die in met.dice] == [5]
    # a plain smear (0.37) is judged at naming_motion_anisotropy, not at beside_motion_anisotropy
    beside_strict = SceneSettings(expected_dice=2, beside_motion_anisotropy=0.2)
    assert judge_scene(frame, bodies, [beside], EDGE, beside_strict).decline is Decline.MOTION
    strict = SceneSettings(expected_dice=2, naming_motion_anisotropy=0.3, narrow_motion_anisotropy=0.3)
    assert judge_scene(frame, bodies, [beside], EDGE, strict).decline is Decline.WRONG_COUNT


def test_a_count_short_beside_a_narrow_smear_is_motion() -> None:
    """A moving die half over a still one leaves beside it a plain smear 20 px wide (half a die's area, a disc of
    0.25 of an edge, anisotropy 0.38): too narrow for ``motion_reach`` (0.3), wide enough for
    ``narrow_motion_reach`` (0.18) and below ``narrow_motion_anisotropy`` (0.42), so a frame short of its count names
    motion; a narrower band (14 px, 0.36 of a die's area) is no die's. Where a square there half believes a face,
    the same holds in a frame short of its count only."""
    frame, bodies, leftover = _die_beside_a_smear(20, pips=False)
    beside = BodyExplanation((read(100, 120),), "unexplained", "beside", int(np.count_nonzero(leftover)),
                             leftover=leftover, beside_dice=leftover, leftover_face_likelihood=0.0)
    short = judge_scene(frame, bodies, [beside], EDGE, SceneSettings(expected_dice=2))
    assert short.decline is Decline.MOTION and "anisotropy 0.38" in short.detail, short.detail
    wider = SceneSettings(expected_dice=2, narrow_motion_reach=0.3)
    assert judge_scene(frame, bodies, [beside], EDGE, wider).decline is Decline.WRONG_COUNT
    stricter = SceneSettings(expected_dice=2, narrow_motion_anisotropy=0.35)
    assert judge_scene(frame, bodies, [beside], EDGE, stricter).decline is Decline.WRONG_COUNT
    frame, bodies, band = _die_beside_a_smear(14, pips=False)
    thin = BodyExplanation((read(100, 120),), "unexplained", "beside", int(np.count_nonzero(band)),
                           leftover=band, beside_dice=band, leftover_face_likelihood=0.0)
    assert judge_scene(frame, bodies, [thin], EDGE, SceneSettings(expected_dice=2)).decline is Decline.WRONG_COUNT
    # where a square there half believes a face (no plain leftover), it is judged so too, but only in a frame short
    # of its count: with the count met, such pixels beside a die read are a die on or under it
    frame, bodies, leftover = _die_beside_a_smear(20, pips=False)
    believed = dataclasses.replace(beside, leftover_face_likelihood=0.7)
    short = judge_scene(frame, bodies, [believed], EDGE, SceneSettings(expected_dice=2))
    assert short.decline is Decline.MOTION and "a die moving beside the dice read" in short.detail, short.detail
    assert judge_scene(frame, bodies, [believed], EDGE, SceneSettings(expected_dice=1)).decline is Decline.STACKED


def test_a_body_not_read_in_a_frame_short_of_its_count_is_named_smeared_at_the_naming_anisotropy() -> None:
    """A die-sized body showing a die (its squares half believe a face) that no square reads: its anisotropy 0.44 is
    above ``unread_motion_anisotropy`` (0.4), so alone it is unreadable; in a frame short of the game's count it is
    the die missing, smeared by its motion, below ``naming_motion_anisotropy`` (0.5)."""
    frame, bodies = die_frame([(60, 60), (200, 150)], blur=9)
    still, _ = die_frame([(60, 60)])
    frame[:120, :120] = still[:120, :120]
    not_read = BodyExplanation((), "unexplained", "no die is read in it", bodies[1].area_px, face_likelihood=0.8)
    dice = [explained(read(60, 60, 2)), not_read]
    alone = judge_scene(frame, bodies, dice, EDGE, SceneSettings())
    assert alone.decline is Decline.UNREADABLE, alone.detail
    short = judge_scene(frame, bodies, dice, EDGE, SceneSettings(expected_dice=2))
    assert short.decline is Decline.MOTION and "short of the game's count" in short.detail, short.detail
    strict = SceneSettings(expected_dice=2, naming_motion_anisotropy=0.4)
    assert judge_scene(frame, bodies, dice, EDGE, strict).decline is Decline.UNREADABLE


LINED_ARENA = ((20.0, 180.0), (300.0, 180.0), (300.0, 20.0), (20.0, 20.0))
"""An arena whose outline is drawn on the cloth; its lower side runs along y = 180."""


def _on_the_arena_line(smeared_die: bool) -> tuple[np.ndarray, list[BodyPixels]]:
    """A die read 2 at (60, 60) and, lying across the arena's drawn line at (200, 180), a soft light patch on the
    cloth or a die smeared by its motion: the second body is the pixels there that differ from the cloth."""
    frame, bodies = die_frame([(60, 60)], faces=[2])
    cv2.polylines(frame, [np.int32(LINED_ARENA)], True, (30, 80, 30), 2)
    if smeared_die:
        moving, _ = die_frame([(200, 180)], blur=25)
        frame[150:212, 160:250] = moving[150:212, 160:250]
        cv2.line(frame, (20, 180), (300, 180), (30, 80, 30), 2)
    else:
        add_glare(frame, (200.0, 180.0), 14.0, 0.3)  # far from saturating: no glare, a lighter patch of cloth
    differs = np.abs(frame[150:211, 160:241].astype(int) - (40, 110, 40)).max(axis=2) > 8
    return frame, [bodies[0], BodyPixels(differs, (160, 150))]


@pytest.mark.parametrize("smeared_die", [False, True])
def test_the_arena_line_through_a_body_is_no_smear_of_the_die_missing(smeared_die: bool) -> None:
    """Short of the game's count, a body where no die shows is taken for the die missing, still moving, when smeared;
    the arena's drawn line running through it has edges all one way, so it is measured without the line: a light
    patch on the cloth there leaves the count short (a wrong count), a die smeared across it is still motion."""
    frame, bodies = _on_the_arena_line(smeared_die)
    explanations = [explained(read(60, 60, 2)), showing_no_die(bodies[1].area_px)]

    def judged(share: float) -> object:
        settings = SceneSettings(expected_dice=2, arena=LINED_ARENA, arena_line_share=share)
        return judge_scene(frame, bodies, explanations, EDGE, settings)

    if smeared_die:
        assert judged(0.1).decline is Decline.MOTION and "smeared" in judged(0.1).detail
    else:
        assert judged(0.1).decline is Decline.WRONG_COUNT, judged(0.1).detail
        assert judged(0.0).decline is Decline.MOTION  # measured with the line, its edges smear the patch
    with pytest.raises(ValueError, match="arena_line_share"):
        SceneSettings(arena_line_share=1.0)
