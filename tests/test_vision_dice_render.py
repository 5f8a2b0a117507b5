"""The dice renderer: its ground truth must match what it draws (the reader is measured against it)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.declines import Decline
from vision.render.dice import (
    FAULTS,
    PIP_LAYOUTS,
    DicePlacementError,
    DiceScene,
    DiePlacement,
    DieStyle,
    random_dice_scene,
    render_dice,
)
from vision.render.nuisance import Nuisance

STYLES = (DieStyle.casino_red(), DieStyle.opaque_white(), DieStyle.real_photo())


def _scene(style: DieStyle, dice: tuple[DiePlacement, ...], felt=(48, 112, 28)) -> DiceScene:
    arena = ((20.0, 20.0), (220.0, 20.0), (220.0, 160.0), (20.0, 160.0))
    return DiceScene(felt_bgr=felt, arena_mm=arena, px_per_mm=2.5, dice=dice, style=style)


def _dark_spots(image: np.ndarray, corners: tuple, translucent: bool) -> int:
    """Count pip-like spots inside a face quad (white on red, or black on white)."""
    mask = np.zeros(image.shape[:2], np.uint8)
    quad = np.asarray(corners, np.float32)
    centre = quad.mean(axis=0)
    cv2.fillConvexPoly(mask, np.round(centre + (quad - centre) * 0.9).astype(np.int32), 1)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    spots = (grey > 200) if translucent else (grey < 90)
    _, _, stats, _ = cv2.connectedComponentsWithStats((spots & (mask > 0)).astype(np.uint8))
    return int((stats[1:, cv2.CC_STAT_AREA] >= 6).sum())


@pytest.mark.parametrize("style", STYLES, ids=["casino-red", "opaque-white", "real-photo"])
def test_each_face_is_drawn_with_its_number_of_pips(style: DieStyle) -> None:
    for face in range(1, 7):
        scene = _scene(style, (DiePlacement(face=face, centre_mm=(120.0, 90.0), angle_deg=17.0 * face),))
        image, truth = render_dice(scene, Nuisance.none(), np.random.default_rng(face))
        (die,) = truth.dice
        assert die.face == face
        assert _dark_spots(image, die.corners_px, style.kind == "translucent-red") == len(PIP_LAYOUTS[face])


def test_truth_positions_and_sizes_match_the_scene() -> None:
    rng = np.random.default_rng(3)
    for style in STYLES:
        scene = random_dice_scene(rng, 4, style)
        image, truth = render_dice(scene, Nuisance.realistic(rng), rng)
        assert image.shape == (480, 640, 3) and image.dtype == np.uint8
        assert truth.px_per_mm == scene.px_per_mm and truth.edge_mm == style.edge_mm
        assert truth.expected_decline is None and truth.expected_dice == 4
        edge = style.edge_mm * scene.px_per_mm
        for die in truth.dice:
            x, y = die.centre_px
            assert 0 <= x < 640 and 0 <= y < 480
            assert 0.8 * edge < die.edge_px < 1.25 * edge  # perspective changes the size a little
            assert die.pip_diameter_px == pytest.approx(style.pip_ratio * die.edge_px, rel=1e-6)
            assert cv2.pointPolygonTest(np.asarray(truth.arena_px, np.float32), (x, y), False) > 0


def test_the_same_seed_draws_the_same_frame() -> None:
    def draw(seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        scene = random_dice_scene(rng, 3, DieStyle.casino_red())
        return render_dice(scene, Nuisance.realistic(rng), rng)[0]

    assert np.array_equal(draw(11), draw(11))
    assert not np.array_equal(draw(11), draw(12))


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_sets_the_expected_decline(fault: str) -> None:
    rng = np.random.default_rng(5)
    expected = {"cocked": Decline.COCKED, "stacked": Decline.STACKED, "outside-arena": Decline.OUTSIDE_ARENA,
                "motion": Decline.MOTION, "glare": Decline.GLARE, "wrong-count": Decline.WRONG_COUNT}[fault]
    for style in STYLES:
        scene = random_dice_scene(rng, 3, style, faults=(fault,))
        _, truth = render_dice(scene, Nuisance.none(), rng)
        assert truth.expected_decline == expected
        if fault == "wrong-count":
            assert len(truth.dice) != truth.expected_dice
        else:
            assert sum(d.expected_decline == expected for d in truth.dice) == 1


def test_a_stacked_die_looks_larger_and_a_cocked_die_is_foreshortened() -> None:
    rng = np.random.default_rng(8)
    scene = random_dice_scene(rng, 2, DieStyle.opaque_white(), faults=("stacked",))
    _, truth = render_dice(scene, Nuisance.none(), rng)
    upper = next(d for d in truth.dice if d.pose == "stacked")
    lower = next(d for d in truth.dice if d.pose == "flat")
    assert upper.edge_px > lower.edge_px  # nearer the camera by one die

    scene = random_dice_scene(rng, 1, DieStyle.opaque_white(), faults=("cocked",))
    _, truth = render_dice(scene, Nuisance.none(), rng)
    corners = np.asarray(truth.dice[0].corners_px)
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    assert sides.min() / sides.max() < 0.93  # the up face leans: one pair of its sides is shorter


def test_outside_arena_die_is_outside_the_polygon() -> None:
    rng = np.random.default_rng(9)
    scene = random_dice_scene(rng, 2, DieStyle.casino_red(), faults=("outside-arena",))
    _, truth = render_dice(scene, Nuisance.none(), rng)
    arena = np.asarray(truth.arena_px, np.float32)
    outside = [d for d in truth.dice if d.expected_decline == Decline.OUTSIDE_ARENA]
    assert len(outside) == 1
    assert cv2.pointPolygonTest(arena, outside[0].centre_px, False) < 0


def test_glare_spot_over_a_die_saturates_its_pips() -> None:
    rng = np.random.default_rng(10)
    scene = random_dice_scene(rng, 1, DieStyle.opaque_white(), faults=("glare",))
    image, truth = render_dice(scene, Nuisance.none(), rng)
    die = truth.dice[0]
    assert die.glare_weight >= 0.85
    x, y = (int(v) for v in die.centre_px)
    r = int(die.edge_px / 2)
    assert (image[y - r:y + r, x - r:x + r].min(axis=2) >= 250).sum() > 20


def test_a_moving_die_is_blurred() -> None:
    style = DieStyle.opaque_white()
    still = _scene(style, (DiePlacement(face=5, centre_mm=(120.0, 90.0), angle_deg=10.0),))
    moving = dataclasses.replace(still, dice=(dataclasses.replace(still.dice[0], moving=True, blur_px=18.0),))
    sharp, _ = render_dice(still, Nuisance.none(), np.random.default_rng(1))
    smeared, truth = render_dice(moving, Nuisance.none(), np.random.default_rng(1))
    assert truth.expected_decline == Decline.MOTION

    def detail(image: np.ndarray) -> float:
        return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)[200:260, 270:330], cv2.CV_64F).var())

    assert detail(smeared) < 0.5 * detail(sharp)


def test_target_corners_are_returned_in_image_pixels() -> None:
    from vision.render.target import TargetSpec

    rng = np.random.default_rng(2)
    scene = dataclasses.replace(random_dice_scene(rng, 1, DieStyle.opaque_white()), target=TargetSpec(),
                                target_top_left_mm=(8.0, 8.0))
    _, truth = render_dice(scene, Nuisance.none(), rng)
    assert truth.target_corners_px is not None and truth.target_corners_px.shape == (4, 4, 2)
    assert (truth.target_corners_px >= 0).all()


def test_bad_arguments_raise_value_errors_naming_them() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="unknown faults"):
        random_dice_scene(rng, 2, DieStyle.opaque_white(), faults=("upside-down",))
    with pytest.raises(ValueError, match="n_dice"):
        random_dice_scene(rng, 0, DieStyle.opaque_white())
    with pytest.raises(ValueError, match="kind"):
        DieStyle(kind="glass")
    with pytest.raises(ValueError, match="face"):
        DiePlacement(face=7, centre_mm=(0.0, 0.0))
    with pytest.raises(ValueError, match="rests_on"):
        DiePlacement(face=1, centre_mm=(0.0, 0.0), pose="stacked")
    with pytest.raises(DicePlacementError):
        random_dice_scene(rng, 8, DieStyle.casino_red(), edge_px=(120.0, 121.0))
