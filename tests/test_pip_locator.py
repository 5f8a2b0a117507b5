"""Pips of a die already read are located for the pip-diameter measurement, or not at all."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from synthetic_dice import die_frame

from vision.die_crop import DieSquare
from vision.pip_locator import locate_pips
from vision.render.nuisance import Nuisance
from vision.render.target import reference_scene


def _square(outline: np.ndarray) -> DieSquare:
    corners = np.asarray(outline, float)
    edge = float(np.mean([np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)]))
    dx, dy = corners[1] - corners[0]
    return DieSquare(tuple(corners.mean(axis=0)), edge, math.degrees(math.atan2(dy, dx)))


@pytest.mark.parametrize("realistic", [False, True], ids=["perfect", "realistic"])
def test_the_pips_of_reference_dice_are_found_where_they_are(realistic: bool) -> None:
    """40 reference dice (10-22 mm at 3.5-8 px/mm, any face, turned): each pip within 0.3 of its radius of
    the truth and its radius within 1 px; at least 38 of 40 located on either camera."""
    located = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        nuisance = Nuisance.realistic(rng) if realistic else Nuisance.none()
        image, truth = reference_scene(rng, "die", nuisance)
        pips = locate_pips(image, _square(truth.outline_px), len(truth.pips_px))
        if not pips:
            continue
        located += 1
        true, found = np.asarray(truth.pips_px), np.asarray(pips)
        distances = np.linalg.norm(true[:, None, :2] - found[None, :, :2], axis=2).min(axis=1)
        assert distances.max() < 0.3 * true[:, 2].mean()
        assert np.abs(np.sort(true[:, 2]) - np.sort(found[:, 2])).max() < 1.0
    assert located >= 38


def test_a_face_other_than_the_one_shown_gives_no_pips() -> None:
    image, truth = reference_scene(np.random.default_rng(3), "die")
    shown = len(truth.pips_px)
    for face in range(1, 7):
        pips = locate_pips(image, _square(truth.outline_px), face)
        assert bool(pips) == (face == shown)


def test_a_face_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="a die's face is 1..6"):
        locate_pips(np.zeros((50, 50, 3), np.uint8), DieSquare((25.0, 25.0), 20.0), 7)


def test_a_pip_joined_to_a_glare_spot_gives_no_pips() -> None:
    frame, _ = die_frame([(100, 100)], faces=[3])
    square = DieSquare((100.0, 100.0), 40.0)
    assert len(locate_pips(frame, square, 3)) == 3
    cv2.circle(frame, (100, 100), 7, (20, 20, 20), -1)  # the middle pip 1.75 times as wide as the others
    assert locate_pips(frame, square, 3) == ()
