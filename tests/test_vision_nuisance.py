"""The camera nuisance model and the Frame record (vision/render/nuisance.py, vision/frame.py)."""

from __future__ import annotations

import hashlib

import cv2
import numpy as np
import pytest

from vision.frame import Frame, check_image
from vision.render.nuisance import (
    Nuisance,
    add_glare,
    apply_nuisance,
    map_points,
    motion_blur,
    perspective_homography,
)

WORLD = np.full((480, 640, 3), (40, 120, 30), dtype=np.uint8)


def test_no_nuisance_leaves_the_scene_unchanged() -> None:
    image, homography = apply_nuisance(WORLD, Nuisance.none(), np.random.default_rng(0))
    assert np.array_equal(image, WORLD)
    assert np.allclose(homography, np.eye(3))


def test_same_seed_same_frame_and_different_seed_different_frame() -> None:
    def render(seed: int) -> np.ndarray:
        rng = np.random.default_rng(seed)
        return apply_nuisance(WORLD, Nuisance.realistic(rng), rng)[0]

    assert np.array_equal(render(7), render(7))
    assert not np.array_equal(render(7), render(8))


def test_homography_maps_a_drawn_point_to_where_it_appears() -> None:
    world = WORLD.copy()
    cv2.circle(world, (400, 150), 6, (255, 255, 255), -1)
    rng = np.random.default_rng(3)
    image, homography = apply_nuisance(world, Nuisance(perspective=0.1), rng)
    expected = map_points(homography, np.array([[400.0, 150.0]]))[0]
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    ys, xs = np.nonzero(grey > 200)
    found = np.array([xs.mean(), ys.mean()])
    assert np.linalg.norm(found - expected) < 1.5


def test_lighting_gradient_darkens_the_side_away_from_the_light() -> None:
    image, _ = apply_nuisance(WORLD, Nuisance(light_direction_deg=0.0, light_gradient=0.4), np.random.default_rng(0))
    left, right = image[:, :50, 1].mean(), image[:, -50:, 1].mean()
    assert right > left * 1.4  # light from +x: the left edge gets 60 % of the right's light


def test_noise_has_the_stated_sigma() -> None:
    grey = np.full((480, 640, 3), 128, dtype=np.uint8)
    image, _ = apply_nuisance(grey, Nuisance(noise_sigma=4.0), np.random.default_rng(1))
    assert abs(float(image.astype(float).std()) - 4.0) < 0.2


def test_glare_saturates_at_full_strength_and_motion_blur_spreads_a_dot() -> None:
    image = WORLD.copy()
    add_glare(image, (100.0, 100.0), 20.0, 1.0)
    assert image[100, 100].min() == 255
    dot = np.zeros((64, 64), dtype=np.uint8)
    dot[32, 32] = 255
    blurred = motion_blur(dot, 15.0, 0.0)
    assert np.count_nonzero(blurred[32]) >= 13 and np.count_nonzero(blurred[:, 32]) == 1


def test_perspective_moves_corners_no_more_than_stated() -> None:
    homography = perspective_homography((640, 480), 0.08, np.random.default_rng(5))
    corners = np.array([[0, 0], [639, 0], [639, 479], [0, 479]], dtype=float)
    moved = map_points(homography, corners)
    shift = np.abs(moved - corners) / np.array([640, 480])
    assert 0 < shift.max() <= 0.08 * 0.8 + 0.08 * 0.2 + 1e-6


def test_bad_nuisance_values_are_named() -> None:
    with pytest.raises(ValueError, match="jpeg_quality"):
        Nuisance(jpeg_quality=0)
    with pytest.raises(ValueError, match="perspective"):
        Nuisance(perspective=0.5)


def test_frame_hash_is_the_hash_of_its_evidence_bytes() -> None:
    ok, jpeg = cv2.imencode(".jpg", WORLD)
    assert ok
    from_file = Frame(WORLD, 1.0, 0, "folder:x.jpg", encoded=jpeg.tobytes(), encoded_suffix=".jpg")
    assert from_file.sha256 == hashlib.sha256(jpeg.tobytes()).hexdigest()
    assert from_file.evidence_suffix == ".jpg"
    live = Frame(WORLD, 1.0, 1, "opencv:0")
    decoded = cv2.imdecode(np.frombuffer(live.evidence_bytes(), np.uint8), cv2.IMREAD_COLOR)
    assert np.array_equal(decoded, WORLD)  # PNG is lossless
    assert live.sha256 == hashlib.sha256(live.evidence_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("image", "fault"),
    [([[1, 2]], "numpy array"), (np.zeros((32, 32), np.float32), "uint8"), (np.zeros((32, 32, 4), np.uint8), "shape"),
     (np.zeros((4, 4), np.uint8), "too small")],
)
def test_check_image_names_the_fault(image: object, fault: str) -> None:
    with pytest.raises(ValueError, match=fault):
        check_image(image)
