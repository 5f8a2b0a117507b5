"""The die's square and its upright crop: geometry the per-die reader relies on."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.die_crop import DieSquare, crop_transform, rectified_crop


def test_corners_of_a_turned_square_lie_at_half_the_diagonal_from_the_centre() -> None:
    square = DieSquare((100.0, 50.0), 20.0, 30.0)
    corners = square.corners()
    assert np.allclose(np.linalg.norm(corners - [100.0, 50.0], axis=1), 10.0 * np.sqrt(2), atol=1e-4)
    assert np.allclose(np.linalg.norm(corners[1] - corners[0]), 20.0, atol=1e-4)
    # the top edge is turned by 30 degrees
    dx, dy = corners[1] - corners[0]
    assert np.degrees(np.arctan2(dy, dx)) == pytest.approx(30.0, abs=1e-3)


def test_the_crop_maps_the_square_onto_the_middle_of_the_crop() -> None:
    square = DieSquare((100.0, 50.0), 20.0, 30.0)
    matrix = crop_transform(square, 60, margin=0.25)
    mapped = square.corners() @ matrix[:, :2].T + matrix[:, 2]
    # the square spans 20 of the crop's 30 px (edge + 2 x 0.25 edge), i.e. 40 of 60 px, centred
    assert np.allclose(mapped, [[10, 10], [50, 10], [50, 50], [10, 50]], atol=1e-3)


def test_a_turned_die_is_cut_upright() -> None:
    image = np.zeros((200, 200, 3), np.uint8)
    square = DieSquare((100.0, 100.0), 60.0, 20.0)
    cv2.fillPoly(image, [np.round(square.corners()).astype(np.int32)], (255, 255, 255))
    marker = np.round(square.corners()[0] * 0.8 + np.array([100.0, 100.0]) * 0.2).astype(int)
    cv2.circle(image, tuple(int(v) for v in marker), 5, (0, 0, 255), -1)
    crop = rectified_crop(image, square, 48, margin=0.25)
    assert crop.shape == (48, 48, 3)
    grey = crop[..., 1]
    # the die fills the middle 32 x 32 px, its margin is table; the red marker sits near the top-left corner
    assert grey[10:38, 10:38].mean() > 200 and grey[:6].mean() < 40 and grey[:, -6:].mean() < 40
    red = (crop[..., 2] > 150) & (crop[..., 1] < 100)
    ys, xs = np.nonzero(red)
    assert ys.mean() < 20 and xs.mean() < 20


def test_a_die_at_the_frame_edge_is_not_framed_in_black() -> None:
    image = np.full((100, 100), 180, np.uint8)
    crop = rectified_crop(image, DieSquare((2.0, 2.0), 30.0), 32)
    assert crop.min() == 180


@pytest.mark.parametrize("edge", [0.0, -3.0, float("nan"), float("inf")])
def test_a_square_without_a_positive_edge_is_refused(edge: float) -> None:
    with pytest.raises(ValueError, match="edge"):
        DieSquare((1.0, 1.0), edge)


def test_a_crop_too_small_to_read_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 4 px"):
        crop_transform(DieSquare((1.0, 1.0), 10.0), 3)
