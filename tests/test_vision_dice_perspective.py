"""The dice reader under a camera looking straight down: side faces seen at the perspective's slant.

A flat die far from the image centre shows the side face turned towards the centre, up to 0.2 of its edge
wide at the corners of the frame under a camera 900 mm up (:mod:`vision.dice_perspective`); a die leaning on
an edge (cocked, p217-2007/banca-francesa/7 b) shows 0.4 of an edge or more. Benchmark frames that were
declined as cocked are read when the reader knows the camera's height, and cocked dice far off the axis are
still declined. Also what the table's own lines look like: the arena's rail line is no side face's edge and
no smear.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.declines import Decline
from vision.dice import DiceReaderConfig, read_dice
from vision.dice_faults import side_face_pips
from vision.dice_perspective import perspective_side, side_allowance
from vision.dice_pips import Pips
from vision.dice_square import _beyond
from vision.render.dice import DiceScene, DiePlacement, DieStyle, render_dice
from vision.render.dice_frames import clean_frame, reader_config
from vision.render.nuisance import Nuisance

FRAME = (480, 640, 3)


def test_the_perspective_strip_widens_with_the_distance_from_the_image_centre() -> None:
    """Camera 47.4 die edges up (900 mm over a 19 mm die): a die under the lens shows no strip, one 8 edges
    off the centre a strip 8 / 47.4 = 0.169 of its edge wide, allowed with a margin of 0.04 when the body
    reaches beyond the up face towards the image centre (not away from it: a die leaning away); without the
    camera's height the configured ``max_side_ratio`` holds everywhere."""
    cfg = DiceReaderConfig(camera_height_edges=900.0 / 19.0)
    edge, strip = 30.0, 8 * 19.0 / 900.0
    face = (320.0 + 8 * edge, 240.0)
    towards = (face[0] - strip / 2 * edge, 240.0)  # the body reaches half a strip further towards the centre
    away = (face[0] + strip / 2 * edge, 240.0)
    assert perspective_side((320.0, 240.0), edge, FRAME, cfg) == 0.0
    assert perspective_side(face, edge, FRAME, cfg) == pytest.approx(strip)
    assert side_allowance((320.0, 240.0), (320.0, 240.0), edge, FRAME, cfg) == cfg.max_side_ratio
    assert side_allowance(towards, face, edge, FRAME, cfg) == pytest.approx(strip * (8 - strip / 2) / 8 + 0.04)
    assert side_allowance(away, face, edge, FRAME, cfg) == cfg.max_side_ratio
    assert side_allowance(towards, None, edge, FRAME, cfg) == cfg.max_side_ratio
    unknown = DiceReaderConfig()
    assert side_allowance(towards, face, edge, FRAME, unknown) == unknown.max_side_ratio
    with pytest.raises(ValueError, match="camera_height_edges"):
        DiceReaderConfig(camera_height_edges=1.0)


@pytest.mark.parametrize(("seed", "index"), [(777, 714), (777, 914), (20240611, 1443)])
def test_a_flat_die_far_off_the_camera_s_axis_is_read_when_the_camera_s_height_is_known(seed: int, index: int) -> None:
    """Benchmark frames with a flat die 8 to 9 edges off the image centre, its body 19-20 % longer than wide
    (the side face towards the centre): read right with the camera's height, declined as cocked without it."""
    image, truth = clean_frame(seed, index)
    result = read_dice(image, reader_config(truth))
    assert result.accepted, result.detail
    assert result.faces == truth.faces
    blind = read_dice(image, reader_config(truth, camera_height_edges=None))
    assert blind.decline == Decline.COCKED, blind.detail


def test_pips_of_a_flat_die_s_perspective_strip_are_not_a_leaning_die_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two touching red dice 7 edges off the centre: the strip of one shows two pips squashed across the line to
    the image centre, under a third of a pip's area. They are the perspective's slivers
    (:func:`vision.dice_perspective.perspective_slivers`), not a leaning die's side face: the frame is read;
    counted as a side face's pips, it is declined as cocked."""
    import vision.dice_verdict

    image, truth = clean_frame(777, 1236)
    result = read_dice(image, reader_config(truth))
    assert result.accepted, result.detail
    assert result.faces == truth.faces
    monkeypatch.setattr(vision.dice_verdict, "perspective_slivers", lambda spots, *args: np.zeros(len(spots), bool))
    assert read_dice(image, reader_config(truth)).decline == Decline.COCKED


@pytest.mark.parametrize(("turn", "tilt"), [(35.0, 24.0), (0.0, -24.0), (35.0, -24.0), (0.0, 28.0), (0.0, -28.0),
                                             (35.0, 28.0), (0.0, 32.0), (0.0, -32.0), (35.0, -32.0), (0.0, 40.0)])
def test_a_cocked_die_far_off_the_camera_s_axis_is_still_declined(turn: float, tilt: float) -> None:
    """A white die leaning 24 to 40 degrees, turned 0 or 35 degrees (its side face then towards, away from or
    across the line to the image centre), 9 edges off the centre, where a flat die shows a side face 0.14 of an
    edge wide towards the centre (and may show 0.18): declined as cocked. (Leaning 24 degrees straight away
    from the centre, its side face is foreshortened to under 0.3 of an edge and its pips to a third: the
    reader accepts that die with or without the camera's height; the benchmark's fault frames count such
    acceptances.)"""
    style = DieStyle.opaque_white()
    flat = DiePlacement(face=3, centre_mm=(110.0, 90.0), angle_deg=10.0)
    leaning = DiePlacement(face=5, centre_mm=(225.0, 165.0), angle_deg=turn, pose="cocked", tilt_deg=tilt)
    scene = DiceScene(felt_bgr=(48, 112, 28), arena_mm=((10.0, 10.0), (240.0, 10.0), (240.0, 180.0), (10.0, 180.0)),
                      px_per_mm=2.6, dice=(flat, leaning), style=style, expected_dice=2)
    image, truth = render_dice(scene, Nuisance.none(), np.random.default_rng(5))
    cfg = reader_config(truth)
    assert perspective_side(truth.dice[1].centre_px, truth.dice[1].edge_px, image.shape, cfg) > 0.13
    result = read_dice(image, cfg)
    assert result.decline == Decline.COCKED, result.detail


def test_a_thin_dark_line_beyond_a_die_s_side_is_no_side_face() -> None:
    """The square reader's outward steps (:func:`vision.dice_square._beyond`): a fall the brightness rises back
    from within 0.12 of an edge (the arena's rail line 0.4 of an edge beyond the die) does not count; a second
    fall to the table at the outer edge of a side face half an edge wide does."""
    edge = 40
    table = np.full((200, 200), 100.0, np.float32)
    left, top, right, bottom = 60, 60, 60 + edge, 60 + edge
    die = table.copy()
    die[top:bottom + 1, left:right + 1] = 200.0
    lined = die.copy()
    lined[:, right + 16:right + 19] = 40.0  # a 3 px dark line 0.4 of an edge beyond the right side
    assert _beyond(lined, (left, top, right, bottom), edge)[1] == pytest.approx(0.0, abs=0.05)
    leaning = die.copy()
    leaning[top:bottom + 1, right + 1:right + 21] = 150.0  # a side face half an edge wide, lit less than the top
    assert _beyond(leaning, (left, top, right, bottom), edge)[1] >= 0.3


def test_squashed_spots_out_of_reach_of_a_side_face_are_not_its_pips() -> None:
    """:func:`vision.dice_faults.side_face_pips`: two squashed spots, alike, along the die's side and 0.75 of
    an edge from its centre are a side face's pips; the same spots 1.5 edges away (texture of the table in a
    die's shade) are out of reach of any side face of it."""
    edge, centre = 40.0, (100.0, 100.0)
    nodes = [(90.0, 90.0), (110.0, 110.0)]  # a 2

    def spots(offset: float) -> Pips:
        centres = np.array([*nodes, (100.0 - 8.0, 100.0 + offset * edge), (100.0 + 8.0, 100.0 + offset * edge)])
        return Pips(centres=centres, areas=np.array([40.0, 40.0, 24.0, 24.0]), elongation=np.array([0.95, 0.95, 0.5, 0.5]),
                    contrast=np.array([0.8, 0.8, 0.7, 0.7]), major_angle=np.array([0.0, 0.0, 0.0, 0.0]))

    face = [(centre, edge, 0.0, tuple(nodes))]
    assert side_face_pips(spots(0.75), face, (0, 0), (200, 200)) == 2
    assert side_face_pips(spots(1.5), face, (0, 0), (200, 200)) == 0


def test_table_in_the_shade_of_white_dice_over_half_a_die_large_is_no_die() -> None:
    """Two white dice whose body took in their long shadow on the table (a quarter of a die, then a sliver no
    whiter than the table around the body): table in their shade (:func:`vision.dice_halo.rest_is_no_die`), so
    the dice are read (declined as cocked when a sliver of table level with its surround was not judged so)."""
    image, truth = clean_frame(777, 1057)
    result = read_dice(image, reader_config(truth))
    assert result.accepted, result.detail
    assert result.faces == truth.faces


def test_the_reader_as_configured_by_the_tests_knows_the_overhead_camera() -> None:
    """The benchmark frames come from a camera 900 mm over the image centre, and the reader is told so."""
    _, truth = clean_frame(777, 0)
    assert truth.overhead_camera_mm == 900.0
    assert dataclasses.replace(reader_config(truth)).camera_height_edges == pytest.approx(900.0 / truth.edge_mm)


def test_the_arena_s_line_across_a_body_is_no_smear() -> None:
    """:func:`vision.dice_faults.motion_problem`: a lit patch of textured table crossed by the arena's line (a
    straight dark line, all its gradient across it) looks smeared along the line; left out within 5 px of the
    arena's polygon (:meth:`vision.dice_types.Region.arena_band`), the rest of the patch is isotropic and no
    motion is seen."""
    from types import MethodType, SimpleNamespace

    from vision.dice_faults import motion_problem
    from vision.dice_types import Region

    rng = np.random.default_rng(3)
    patch = np.clip(150.0 + cv2.GaussianBlur(rng.normal(0.0, 25.0, (60, 60)), (0, 0), 1.2), 0, 255)
    patch[:, 29:31] = 60.0  # the arena's line, 2 px wide, at x = 130 in the frame
    body = np.zeros((60, 60), np.uint8)
    body[10:50, 10:50] = 1
    arena = ((130.0, 0.0), (600.0, 0.0), (600.0, 470.0), (130.0, 470.0))

    def region(with_arena: bool) -> SimpleNamespace:
        made = SimpleNamespace(patch=cv2.cvtColor(patch.astype(np.uint8), cv2.COLOR_GRAY2BGR), body=body, cache={},
                               origin=(100, 100), arena=arena if with_arena else None)
        made.arena_band = MethodType(Region.arena_band, made)
        return made

    assert motion_problem(region(False), 0.42) is not None
    assert motion_problem(region(True), 0.42) is None


def test_a_lit_patch_of_table_on_the_arena_s_line_is_not_a_moving_die() -> None:
    """Benchmark frames where a lit patch of table crossing the arena's line was declined as a smeared die: the
    line left out, the frame is read."""
    for seed, index in ((777, 607), (777, 866)):
        image, truth = clean_frame(seed, index)
        result = read_dice(image, reader_config(truth))
        assert result.accepted, result.detail
        assert result.faces == truth.faces
