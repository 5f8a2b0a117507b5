"""The arena's outline told to the dice reader (bench/profiles/arena_outline.py; ``camera.arena_px`` in a profile,
bench/profiles/camera.py and bench/rig_dice_reader.py; ``bench read dice --arena``; the certificate's reader line):
a die read beyond it voids the throw (p217-2007/banca-francesa/8 b, p217-2007/craps/7 a)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from test_dice_reader_choice import _with_reader_event
from test_report_journal import build_run
from typer.testing import CliRunner

from bench.catalogue import load_catalogue
from bench.cli import app
from bench.profiles import ProfileError, load_profile
from bench.profiles.arena_outline import checked_arena, parse_arena
from bench.profiles.camera import CameraConnection
from bench.rig_dice_reader import choose_dice_reader
from reports.certificate import render_certificate
from reports.run_data import load_run
from vision.declines import Decline
from vision.render.dice_frames import fault_seed, frames

runner = CliRunner()
SQUARE = ((10.0, 10.0), (600.0, 10.0), (600.0, 400.0), (10.0, 400.0))


@pytest.fixture(scope="module")
def thrown_out() -> tuple[np.ndarray, object]:
    """A rendered throw of two dice, one of them beyond the arena's drawn outline, and its truth (frame 10 of the
    benchmark's outside-arena frames of seed 20240611: opaque white dice, a two and a five)."""
    for index, (_, image, truth) in enumerate(frames(fault_seed(("outside-arena",), 20240611), 11, ("outside-arena",))):
        if index == 10:
            return image, truth
    raise AssertionError("the renderer gave fewer than 11 frames")


def test_an_outline_is_checked_corner_by_corner() -> None:
    assert checked_arena([[10, 10], [600, 10], [600, 400], [10, 400]]) == SQUARE
    with pytest.raises(ValueError, match="3 to 64 corners, got 2"):
        checked_arena([(0, 0), (100, 100)])
    with pytest.raises(ValueError, match=r"corner 2 .* two finite numbers \(x, y px\), got \(nan, 5\)"):
        checked_arena([(0, 0), (float("nan"), 5), (100, 100)])
    with pytest.raises(ValueError, match="corner 3 .* two finite numbers"):
        checked_arena([(0, 0), (100, 0), (100, 100, 7), (0, 100)])
    with pytest.raises(ValueError, match="sides 1 and 3 of the arena outline cross"):  # a bow tie
        checked_arena([(0, 0), (100, 100), (100, 0), (0, 100)])
    with pytest.raises(ValueError, match="encloses 0 px²"):  # corners in a line
        checked_arena([(0, 0), (50, 50), (100, 100)])
    with pytest.raises(ValueError, match="encloses 100 px², less than 400"):
        checked_arena([(0, 0), (10, 0), (10, 10), (0, 10)])


def test_an_outline_is_parsed_from_corners_apart_by_spaces_or_semicolons() -> None:
    assert parse_arena("10,10 600,10 600,400 10,400") == SQUARE
    assert parse_arena(" 10,10;600,10 ; 600,400;10,400 ") == SQUARE
    with pytest.raises(ValueError, match=r"corner 2 of the arena outline, '600', is not 'x,y' in px"):
        parse_arena("10,10 600 10,400")
    with pytest.raises(ValueError, match=r"corner 1 of the arena outline, 'a,b', is not 'x,y'"):
        parse_arena("a,b 1,2 3,4")


DICE_PROFILE = """name = "lab"
[equipment.dice]
kind = "dice"
identity = { manufacturer = "M", model = "Arena", serial = "7" }
"""


def test_a_dice_camera_takes_its_arena_outline_and_a_wheel_camera_none(tmp_path: Path) -> None:
    path = tmp_path / "lab.toml"
    path.write_text(DICE_PROFILE + 'camera = { source = "/data/arena-frames", arena_px = [[10, 10], [600, 10], '
                                   '[600, 400], [10, 400]] }\n', encoding="utf-8")
    assert load_profile(str(path))[0].equipment["dice"].camera.arena_px == SQUARE
    path.write_text(DICE_PROFILE + 'camera = { source = "/data/arena-frames", arena_px = [[0, 0], [100, 100], '
                                   '[100, 0], [0, 100]] }\n', encoding="utf-8")
    with pytest.raises(ProfileError, match=r"equipment\.dice\.camera\.arena_px.*sides 1 and 3 of the arena outline "
                                           r"cross"):
        load_profile(str(path))
    path.write_text("""name = "lab"
[equipment.wheel]
kind = "roulette-wheel"
identity = { manufacturer = "M", model = "W", serial = "1" }
simulator = { model = "fair" }
camera = { source = "sim", arena_px = [[10, 10], [600, 10], [600, 400]] }
""", encoding="utf-8")
    with pytest.raises(ProfileError, match="camera.arena_px outlines a dice camera's arena"):
        load_profile(str(path))


def test_the_rig_s_reader_declines_a_die_beyond_the_outline_and_journals_it(thrown_out) -> None:
    """Told no arena, the reader counts the die off the cloth as thrown (the throw accepted: a void throw counted);
    told the profile's outline, it declines the throw outside-arena. The identity names the outline."""
    image, truth = thrown_out
    untold = choose_dice_reader(CameraConnection(source="/data/arena-frames"), truth.expected_dice)
    read = untold.read(image)
    assert read.accepted and tuple(sorted(read.faces)) == tuple(sorted(truth.faces))
    assert untold.identity.arena_px is None and "arena_px" not in untold.identity.to_json()
    told = choose_dice_reader(CameraConnection(source="/data/arena-frames", arena_px=truth.arena_px),
                              truth.expected_dice)
    read = told.read(image)
    assert read.decline is Decline.OUTSIDE_ARENA and "outside the arena" in read.detail
    assert told.identity.to_json()["arena_px"] == [list(corner) for corner in truth.arena_px]


def test_bench_read_dice_takes_the_arena_outline_and_names_a_bad_one(tmp_path: Path, thrown_out) -> None:
    image, truth = thrown_out
    path = tmp_path / "throw.png"
    cv2.imwrite(str(path), image)
    outline = " ".join(f"{x:.1f},{y:.1f}" for x, y in truth.arena_px)
    dice = str(truth.expected_dice)
    told = runner.invoke(app, ["read", "dice", str(path), "--dice", dice, "--arena", outline, "--json"])
    assert told.exit_code == 1, told.output
    assert json.loads(told.stdout)["decline"] == "outside-arena"
    untold = runner.invoke(app, ["read", "dice", str(path), "--dice", dice, "--json"])
    assert untold.exit_code == 0 and json.loads(untold.stdout)["accepted"]
    bad = runner.invoke(app, ["read", "dice", str(path), "--dice", dice, "--arena", "10,10 600,10"])
    assert bad.exit_code == 2 and "--arena: an arena outline needs 3 to 64 corners, got 2" in bad.output
    nan = runner.invoke(app, ["read", "dice", str(path), "--dice", dice, "--arena", "10,10 600,10 nan,400"])
    assert nan.exit_code == 2 and "corner 3 of the arena outline must be two finite numbers (x, y px), got (nan, " \
        "400.0)" in nan.output


def test_the_certificate_says_whether_the_reader_was_told_an_arena(tmp_path: Path) -> None:
    staged = {"device": "dice", "reader": "staged", "model_sha256": "0123456789abcdef" + "e" * 48, "threshold": 0.93}
    told = _with_reader_event(build_run(tmp_path / "told"), staged | {"arena_px": [list(c) for c in SQUARE]})
    data = load_run(told, load_catalogue())
    assert data.dice_readers[0].arena_corners == 4
    assert "acceptance threshold 0.930, arena outlined by 4 corners." in render_certificate(data, "en")
    assert "limiar de aceitação 0,930, pista delimitada por 4 vértices." in render_certificate(data, "pt")
    untold = load_run(_with_reader_event(build_run(tmp_path / "untold"), staged), load_catalogue())
    assert ("acceptance threshold 0.930, no arena outline told (a die outside the arena is not declined)."
            in render_certificate(untold, "en"))


@pytest.fixture(scope="module")
def corner_throw() -> tuple[np.ndarray, object, tuple[tuple[float, float], ...]]:
    """Throw 29 of the `sim` profile's dice camera (its arena outline told): a five and a two in the arena's top-left
    corner, against its border line, where the stretch of cloth the first stage finds stops short (the cells there
    mix the cloth with the line), and a four in the open."""
    from bench.profiles import load_profile
    from drivers.sim.dice_camera import SimulatedDiceCamera

    dice = load_profile("sim")[0].equipment["dice"]
    camera = SimulatedDiceCamera(dice.simulator, dice.options, dice.camera.simulation, None,
                                 arena_px=dice.camera.arena_px)
    camera.throw = 28
    frame = camera.read()
    while frame.truth is None:  # the tumbling frames come first
        frame = camera.read()
    return frame.image, frame.truth, dice.camera.arena_px


def test_a_die_in_a_corner_of_the_outline_told_is_a_body_and_read(corner_throw) -> None:
    """Told the outline, the first stage keeps the bodies within the hull of the cloth it finds and the outline:
    the corner's dice are read (the throw accepted with its faces); without it, the stretch's hull cuts the corner
    off and one die is lost (the throw declined for a short count)."""
    from vision.dice_bodies import find_bodies
    from vision.dice_staged_reader import staged_reader

    image, truth, outline = corner_throw
    assert len(find_bodies(image, told_arena=np.asarray(outline)).bodies) > len(find_bodies(image).bodies)
    told = staged_reader(expected_dice=3, arena=outline).read(image)
    assert told.accepted and tuple(sorted(told.faces)) == tuple(sorted(truth.faces))
    assert staged_reader(expected_dice=3).read(image).decline is Decline.WRONG_COUNT


def _labelled_corner_throw(folder: Path, image: np.ndarray, truth: object) -> None:
    """The corner throw as a lab's labelled photo: the image and a YOLO line per die, an upright box round it."""
    folder.mkdir()
    cv2.imwrite(str(folder / "corner.png"), image)
    height, width = image.shape[:2]
    boxes = [(die.face, np.asarray(die.corners_px)) for die in truth.dice]
    (folder / "corner.txt").write_text("".join(
        f"{face - 1} {c[:, 0].mean() / width:.5f} {c[:, 1].mean() / height:.5f} "
        f"{np.ptp(c[:, 0]) / width:.5f} {np.ptp(c[:, 1]) / height:.5f}\n" for face, c in boxes))


def test_calibration_told_the_outline_proposes_squares_on_the_corner_s_dice(corner_throw) -> None:
    """The threshold is fitted on the squares certification proposes: told the outline, the corner's lost die has
    squares too (vision/dice_calibration_samples.py)."""
    from vision.dice_calibration_samples import calibration_samples
    from vision.dice_staged_reader import staged_reader
    from vision.yolo_labels import LabelledDie

    image, truth, outline = corner_throw
    labels = [LabelledDie(die.face, tuple(np.asarray(die.corners_px).mean(axis=0)),
                          float(np.ptp(np.asarray(die.corners_px)[:, 0])),
                          float(np.ptp(np.asarray(die.corners_px)[:, 1])), line)
              for line, die in enumerate(truth.dice, start=1)]
    reader = staged_reader(expected_dice=3)
    untold = calibration_samples([(image, labels)], reader.reader, reader.stages, reader.looks, reader.side_share)
    told = calibration_samples([(image, labels)], reader.reader, reader.stages, reader.looks, reader.side_share,
                               np.asarray(outline))
    assert (untold.labelled, told.labelled) == (3, 3)
    assert told.labelled_with_a_square == 3 and untold.labelled_with_a_square < 3
    assert len(told.truth) > len(untold.truth)


def test_bench_calibrate_dice_takes_the_outline_records_it_and_names_a_bad_one(tmp_path: Path, corner_throw) -> None:
    image, truth, outline = corner_throw
    photos = tmp_path / "photos"
    _labelled_corner_throw(photos, image, truth)
    text = " ".join(f"{x:g},{y:g}" for x, y in outline)
    output = tmp_path / "reader.json"
    result = runner.invoke(app, ["calibrate", "dice", str(photos), "-o", str(output), "--arena", text])
    assert result.exit_code == 0, result.output
    calibration = json.loads(output.read_text())["calibration"]
    assert calibration["arena_px"] == [list(corner) for corner in outline]
    assert calibration["labelled_with_a_square"] == 3 and "arena outlined by 4 corners" in result.stdout
    untold = runner.invoke(app, ["calibrate", "dice", str(photos), "-o", str(tmp_path / "untold.json")])
    assert untold.exit_code == 0 and "no arena outline told" in untold.stdout
    untold_calibration = json.loads((tmp_path / "untold.json").read_text())["calibration"]
    assert untold_calibration["arena_px"] is None and untold_calibration["labelled_with_a_square"] < 3
    bad = runner.invoke(app, ["calibrate", "dice", str(photos), "-o", str(tmp_path / "bad.json"), "--arena",
                              "40,40 600,40"])
    assert bad.exit_code == 2 and "--arena: an arena outline needs 3 to 64 corners, got 2" in bad.output
    assert not (tmp_path / "bad.json").exists()


def test_the_share_of_a_frame_within_an_outline() -> None:
    from bench.profiles.arena_outline import frame_share_inside

    assert frame_share_inside(SQUARE, 640, 480) == pytest.approx(590 * 390 / (640 * 480), abs=0.02)
    assert frame_share_inside(((0, 0), (640, 0), (0, 480)), 640, 480) == pytest.approx(0.5, abs=0.02)  # a triangle
    assert frame_share_inside(((700, 10), (900, 10), (900, 400)), 640, 480) == 0.0  # beside the frame
    assert frame_share_inside(((-10, -10), (2000, -10), (2000, 2000), (-10, 2000)), 640, 480) == 1.0
