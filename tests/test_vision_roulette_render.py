"""The roulette wheel renderer (vision/render/roulette.py): geometry, truth and validation.

Everything is seeded; the clean renders (Nuisance.none, no tilt) let the tests check the drawn
geometry pixel by pixel against the layout tables of bench/games/roulette_layout.py.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from bench.games.roulette_layout import Direction, colour, order_for
from vision.declines import Decline
from vision.render.nuisance import Nuisance
from vision.render.roulette import (
    GEOMETRY,
    WheelScene,
    random_scene,
    render_settle_clip,
    render_spin_clip,
    render_wheel,
)
from vision.render.target import TargetSpec
from vision.roulette_calibration import detect_surround

CLEAN = Nuisance.none()


def _classify(bgr: np.ndarray) -> str:
    b, g, r = (float(v) for v in bgr)
    if g > r + 40 and g > b + 40:
        return "green"
    if r > g + 60 and r > b + 60:
        return "red"
    return "black" if max(b, g, r) < 60 else "other"


@pytest.mark.parametrize("layout", ["french", "american"])
def test_pockets_are_drawn_clockwise_in_layout_order(layout: str) -> None:
    rng = np.random.default_rng(1)
    scene = WheelScene(layout=layout, rotor_angle_deg=33.0, ball_state="absent")
    image, truth = render_wheel(scene, CLEAN, rng)
    assert image.shape == (480, 640, 3) and image.dtype == np.uint8
    cx, cy = truth.world_centre_px
    radius = (GEOMETRY.pocket_inner + GEOMETRY.number_inner) / 2 * scene.bowl_radius_mm * scene.px_per_mm
    order = order_for(layout)
    for k in range(37):
        a = np.radians(scene.rotor_angle_deg + k * scene.pitch_deg)  # clockwise on screen: y points down
        x, y = cx + radius * np.cos(a), cy + radius * np.sin(a)
        assert _classify(image[round(y), round(x)]) == colour(order[k]), f"pocket {k} ({order[k]})"


def test_ball_truth_points_at_a_white_ball() -> None:
    rng = np.random.default_rng(2)
    scene = random_scene(rng, "french", "in-pocket")
    image, truth = render_wheel(scene, CLEAN, rng)
    x, y = truth.ball_centre_px
    assert image[round(y), round(x)].min() > 150
    assert truth.number == scene.ball_number and truth.decline is None
    assert abs(truth.ball_pocket_offset_deg) <= scene.max_pocket_offset_deg(scene.pocket_radius_range_mm()[1]) + 1e-9
    assert truth.px_per_mm == scene.px_per_mm and truth.ball_diameter_mm == 21.0


def test_truth_follows_the_camera_homography() -> None:
    rng = np.random.default_rng(3)
    scene = random_scene(rng, "american", "in-pocket")
    tilted = replace(Nuisance.realistic(rng), perspective=0.08)
    _, truth = render_wheel(scene, tilted, rng)
    h = truth.homography
    centre = h @ np.array([*truth.world_centre_px, 1.0])
    assert np.allclose(centre[:2] / centre[2], truth.wheel_centre_px)
    (ex, ey), (a, b), _ = truth.rim_ellipse_px
    assert abs(ex - truth.wheel_centre_px[0]) < 6 and abs(ey - truth.wheel_centre_px[1]) < 6
    assert 300 < min(a, b) <= max(a, b) < 420


@pytest.mark.parametrize(("state", "decline"), [("on-fret", Decline.ON_FRET), ("moving", Decline.MOTION),
                                                ("hidden", Decline.HIDDEN), ("absent", Decline.HIDDEN)])
def test_expected_declines(state: str, decline: Decline) -> None:
    rng = np.random.default_rng(4)
    _, truth = render_wheel(random_scene(rng, "french", state), CLEAN, rng)  # type: ignore[arg-type]
    assert truth.number is None and truth.decline is decline


def test_glare_over_the_ball_is_a_glare_decline() -> None:
    rng = np.random.default_rng(5)
    scene = replace(random_scene(rng, "french", "in-pocket"), ball_glare=1.0)
    image, truth = render_wheel(scene, CLEAN, rng)
    assert truth.decline is Decline.GLARE
    x, y = truth.ball_centre_px
    assert image[int(y) - 6:int(y) + 7, int(x) - 6:int(x) + 7].min() >= 250   # washed out


def test_surround_markers_are_detectable_where_the_truth_says() -> None:
    rng = np.random.default_rng(6)
    image, truth = render_wheel(random_scene(rng, "french", "absent", markers=True), CLEAN, rng)
    found = detect_surround(image)
    assert set(found) == {10, 11, 12, 13}
    errors = np.concatenate([np.linalg.norm(found[i] - truth.marker_corners_px[i], axis=1) for i in found])
    assert np.median(errors) < 0.5 and errors.max() < 2.5   # the sub-pixel refinement misses a corner or so


def test_target_beside_the_wheel() -> None:
    rng = np.random.default_rng(7)
    scene = WheelScene(ball_state="absent", target=TargetSpec())
    _, truth = render_wheel(scene, CLEAN, rng)
    assert truth.target_corners_px.shape == (4, 4, 2)
    with pytest.raises(ValueError, match="overlaps the wheel"):
        render_wheel(replace(scene, target_top_left_px=(250.0, 200.0)), CLEAN, rng)


def test_tampered_wheels_and_validation() -> None:
    rng = np.random.default_rng(8)
    colours = tuple(colour(n) for n in order_for("french"))[:36]
    _, truth = render_wheel(WheelScene(ball_state="absent", colours_override=colours), CLEAN, rng)
    assert truth.pocket_count == 36
    with pytest.raises(ValueError, match="37-pocket"):
        WheelScene(ball_number=3, colours_override=colours)
    with pytest.raises(ValueError, match="unknown colours"):
        WheelScene(ball_state="absent", colours_override=("blue",) * 37)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="layout"):
        WheelScene(layout="triple-zero")
    with pytest.raises(ValueError, match="ball_number"):
        WheelScene(ball_number=37)
    with pytest.raises(ValueError, match="ball_angle_deg"):
        WheelScene(ball_state="moving")


def test_rendering_is_deterministic() -> None:
    def once() -> np.ndarray:
        rng = np.random.default_rng(9)
        return render_wheel(random_scene(rng, "american", "in-pocket"), Nuisance.realistic(rng), rng)[0]

    assert np.array_equal(once(), once())


def test_spin_clip_angles_turn_the_right_way() -> None:
    rng = np.random.default_rng(10)
    frames, truth = render_spin_clip(rng, "french", Direction.CLOCKWISE, Direction.ANTICLOCKWISE, 5)
    assert len(frames) == 5 and frames[0].shape == (480, 640, 3)
    assert np.all(np.diff(truth.ball_angles_deg) > 0) and np.all(np.diff(truth.rotor_angles_deg) < 0)
    assert truth.ball_direction is Direction.CLOCKWISE and truth.rotor_direction is Direction.ANTICLOCKWISE


def test_settle_clip_truth() -> None:
    rng = np.random.default_rng(11)
    frames, truth = render_settle_clip(rng, "american", 8, rest_from=5)
    assert len(frames) == 8 and truth.settle_frame == 5
    assert all(t.decline is Decline.MOTION for t in truth.frame_truths[:5])
    assert all(t.number == truth.number for t in truth.frame_truths[5:])
    rel = [(b - r) % 360 for b, r in zip(truth.ball_angles_deg[5:], truth.rotor_angles_deg[5:], strict=True)]
    assert np.ptp(rel) < 1e-9                                   # at rest: the ball turns with the rotor
