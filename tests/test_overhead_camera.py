"""A flat die off a camera's axis shows a band of side faces towards the frame's centre, r / H of an edge wide."""

from __future__ import annotations

import math

import pytest

from vision.die_crop import DieSquare
from vision.overhead_camera import OverheadCamera

CAMERA = OverheadCamera((320.0, 240.0), height_edges=50.0)


def test_a_die_under_the_lens_shows_no_band_and_its_base_is_under_its_up_face() -> None:
    square = DieSquare((320.0, 240.0), 30.0, 15.0)
    assert CAMERA.band_share(square) == 0.0
    assert CAMERA.base(square).centre_px == (320.0, 240.0)


def test_the_band_is_r_over_h_of_an_edge_and_the_base_lies_towards_the_centre() -> None:
    square = DieSquare((320.0 + 300.0, 240.0 + 400.0), 25.0, 30.0)  # 500 px = 20 edges off the axis
    assert CAMERA.band_share(square) == pytest.approx(20.0 / 50.0)
    base = CAMERA.base(square)
    shift = (base.centre_px[0] - square.centre_px[0], base.centre_px[1] - square.centre_px[1])
    assert math.hypot(*shift) == pytest.approx(0.4 * 25.0)  # the band's width in px
    assert shift[0] < 0 and shift[1] < 0 and shift[1] / shift[0] == pytest.approx(400.0 / 300.0)
    assert base.edge_px == 25.0 and base.angle_deg == 30.0
    assert CAMERA.base(square, 0.1).edge_px == pytest.approx(25.0 * 1.2)


def test_the_camera_is_over_the_frame_centre_and_must_be_above_the_dice() -> None:
    assert OverheadCamera.over_frame((480, 640, 3), 40.0).centre_px == (320.0, 240.0)
    with pytest.raises(ValueError, match="above 2 die edges"):
        OverheadCamera((0.0, 0.0), 1.5)
