"""``bench read dice|roulette`` and ``bench calibrate roulette`` on rendered images (bench/cli_read.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest
from typer.testing import CliRunner

from bench.cli import app
from vision.render.dice import DieStyle, random_dice_scene, render_dice
from vision.render.nuisance import Nuisance
from vision.render.roulette import random_scene, render_wheel

runner = CliRunner()


def _dice_image(tmp_path: Path, seed: int, faults: tuple[str, ...] = ()) -> tuple[Path, object]:
    rng = np.random.default_rng(seed)
    image, truth = render_dice(random_dice_scene(rng, 3, DieStyle.opaque_white(), faults=faults), Nuisance.none(), rng)
    path = tmp_path / f"dice-{seed}.png"
    cv2.imwrite(str(path), image)
    return path, truth


def test_read_dice_prints_one_json_object_per_image_with_the_faces(tmp_path: Path) -> None:
    images = [_dice_image(tmp_path, seed) for seed in (1, 2, 3)]
    result = runner.invoke(app, ["read", "dice", *(str(path) for path, _ in images), "--dice", "3", "--json"])
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 3
    for line, (path, truth) in zip(lines, images):
        assert line["image"] == str(path)
        if line["accepted"]:
            assert line["faces"] == sorted(die.face for die in truth.dice)
            assert all(0.0 <= die["confidence"] <= 1.0 for die in line["dice"])
    assert result.exit_code == (0 if all(line["accepted"] for line in lines) else 1)
    assert sum(line["accepted"] for line in lines) >= 2


def test_read_dice_reads_with_the_staged_reader_and_refuses_one_it_cannot_build(tmp_path: Path) -> None:
    """The command reads as certification does by default (the staged reader, naming its model), and refuses a
    reader it cannot build, naming it: a configuration file that is not there, or the removed classical reader."""
    from vision.die_reader_model import DEFAULT_MODEL, DieReaderModel

    path, truth = _dice_image(tmp_path, 1)
    staged = json.loads(runner.invoke(app, ["read", "dice", str(path), "--dice", "3", "--json"]).stdout)
    assert staged["reader_sha256"] == DieReaderModel.load(DEFAULT_MODEL).sha256
    assert staged["accepted"] and staged["faces"] == sorted(die.face for die in truth.dice)
    missing = runner.invoke(app, ["read", "dice", str(path), "--reader", str(tmp_path / "stagd.json")])
    assert missing.exit_code == 2 and "stagd.json" in missing.stderr
    classical = runner.invoke(app, ["read", "dice", str(path), "--reader", "classical"])
    assert classical.exit_code == 2 and "--reader classical" in classical.stderr
    assert "no longer part of the bench" in classical.stderr and classical.stdout == ""


def test_a_declined_frame_gives_its_reason_and_exit_1(tmp_path: Path) -> None:
    path, _ = _dice_image(tmp_path, 5, faults=("cocked",))
    result = runner.invoke(app, ["read", "dice", str(path), "--dice", "3", "--json"])
    line = json.loads(result.stdout)
    assert result.exit_code == 1
    assert not line["accepted"] and line["decline"] and line["detail"]


def test_an_unreadable_image_is_an_error_naming_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "not-an-image.png"
    bad.write_bytes(b"garbage")
    result = runner.invoke(app, ["read", "dice", str(bad)])
    assert result.exit_code == 2
    assert "not-an-image.png" in result.stderr


def test_calibrate_then_read_roulette(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    homography = np.eye(3)
    still, _ = render_wheel(random_scene(rng, state="absent", markers=True), Nuisance.none(), rng, homography=homography)
    still_path = tmp_path / "still.png"
    cv2.imwrite(str(still_path), still)
    calibration = tmp_path / "wheel.json"
    result = runner.invoke(app, ["calibrate", "roulette", str(still_path), "-o", str(calibration)])
    assert result.exit_code == 0, result.stdout + result.stderr
    assert json.loads(calibration.read_text())["layout"] == "french"

    paths, numbers = [], []
    for index in range(3):
        image, truth = render_wheel(random_scene(rng, markers=True), Nuisance.none(), rng, homography=homography)
        path = tmp_path / f"game-{index}.png"
        cv2.imwrite(str(path), image)
        paths.append(str(path))
        numbers.append(truth.number)
    result = runner.invoke(app, ["read", "roulette", *paths, "--calibration", str(calibration), "--json"])
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert [line["number"] for line in lines if line["decline"] is None] == \
        [n for n, line in zip(numbers, lines) if line["decline"] is None]
    assert sum(line["decline"] is None for line in lines) >= 2


def test_a_corrupt_calibration_file_is_named(tmp_path: Path) -> None:
    calibration = tmp_path / "wheel.json"
    calibration.write_text("{not json")
    image = tmp_path / "x.png"
    cv2.imwrite(str(image), np.zeros((480, 640, 3), np.uint8))
    result = runner.invoke(app, ["read", "roulette", str(image), "--calibration", str(calibration)])
    assert result.exit_code == 2 and "wheel.json" in result.stderr


# -- truncated and oversized images are refused ---------------------


def _png_header_only_image(path: Path, width: int, height: int) -> None:
    """A valid 1-bit grey PNG of ``width`` x ``height`` (all black): small on disk, huge once decoded to BGR."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    compressor = zlib.compressobj(9)
    row = b"\x00" * (1 + (width + 7) // 8)
    data = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0))
                     + chunk(b"IDAT", data) + chunk(b"IEND", b""))


def test_a_truncated_image_is_an_error_naming_the_file(tmp_path: Path) -> None:
    path, _ = _dice_image(tmp_path, 1)
    image = cv2.imread(str(path))
    for extension in (".png", ".jpg"):
        data = cv2.imencode(extension, image)[1].tobytes()
        for keep in (0.5, 0.9):
            cut = tmp_path / f"cut-{keep}{extension}"
            cut.write_bytes(data[: int(len(data) * keep)])
            result = runner.invoke(app, ["read", "dice", str(cut), "--dice", "3", "--json"])
            assert result.exit_code == 2, (cut.name, result.output)
            assert f"{cut}: truncated" in result.stderr.replace("\n", "") and not result.stdout.strip()


def test_an_image_above_the_pixel_limit_is_refused_from_its_header(tmp_path: Path) -> None:
    import resource
    import subprocess
    import sys

    big = tmp_path / "big.png"
    _png_header_only_image(big, 20_000, 20_000)  # 400 MP: 1.2 GB once decoded to BGR

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    result = subprocess.run([sys.executable, "-c", "from bench.cli import app; app()", "read", "dice", str(big)],
                            capture_output=True, text=True, timeout=120, preexec_fn=cap, check=False)
    assert result.returncode == 2, result.stderr
    message = " ".join(result.stderr.split())
    assert f"{big}: 20,000 x 20,000 pixels (400,000,000) is above the limit of 40,000,000 pixels" in message
    assert "Traceback" not in result.stderr
    path, _ = _dice_image(tmp_path, 2)
    height, width = cv2.imread(str(path)).shape[:2]
    result = runner.invoke(app, ["read", "dice", str(path), "--max-pixels", str(width * height - 1)])
    assert result.exit_code == 2 and "above the limit" in result.stderr
    result = runner.invoke(app, ["read", "dice", str(path), "--max-pixels", "0"])
    assert result.exit_code == 2 and "--max-pixels 0" in result.stderr


def test_a_truncated_image_is_refused_even_when_a_library_made_pillow_lenient(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """WeasyPrint (the PDF certificate) sets Pillow's LOAD_TRUNCATED_IMAGES for the whole process when imported:
    the completeness check still finds a cut image, and leaves the library's setting as it found it."""
    from PIL import ImageFile

    path, _ = _dice_image(tmp_path, 1)
    cut = tmp_path / "cut.png"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    result = runner.invoke(app, ["read", "dice", str(cut), "--dice", "3", "--json"])
    assert result.exit_code == 2 and f"{cut}: truncated" in result.stderr.replace("\n", "")
    assert runner.invoke(app, ["read", "dice", str(path), "--dice", "3", "--json"]).exit_code in (0, 1)
    assert ImageFile.LOAD_TRUNCATED_IMAGES is True


def _labelled(tmp_path: Path, seeds: tuple[int, ...], mislabel: int | None = None) -> list[object]:
    """Rendered images with YOLO labels beside them; ``mislabel``: that seed's first die labelled one face off."""
    truths = []
    for seed in seeds:
        path, truth = _dice_image(tmp_path, seed)
        height, width = cv2.imread(str(path)).shape[:2]
        lines = []
        for index, die in enumerate(truth.dice):
            face = die.face % 6 + 1 if seed == mislabel and index == 0 else die.face
            lines.append(f"{face - 1} {die.centre_px[0] / width:.5f} {die.centre_px[1] / height:.5f} "
                         f"{die.edge_px / width:.5f} {die.edge_px / height:.5f}")
        path.with_suffix(".txt").write_text("\n".join(lines) + "\n")
        truths.append(truth)
    return truths


def test_read_dice_with_labels_scores_the_reader_on_a_folder(tmp_path: Path) -> None:
    _labelled(tmp_path, (1, 2, 3), mislabel=2)
    result = runner.invoke(app, ["read", "dice", str(tmp_path), "--dice", "3", "--labels", "yolo", "--json"])
    assert result.exit_code == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["images"] == 3 and figures["labelled"] == 9
    assert figures["correct"] + figures["wrong"] + figures["not_read"] == 9
    accepted_2 = any("dice-2.png" in line for line in figures["disagreements"])
    assert figures["wrong"] == int(accepted_2)  # the one mislabelled die, when its frame is read
    assert figures["correct"] >= 5
    declined = figures["images"] - figures["images_accepted"]
    assert len(figures["declined_images"]) == declined  # each named, with its reason and first fault
    assert all(line.startswith(str(tmp_path / "dice-")) and ", " in line for line in figures["declined_images"])
    text = runner.invoke(app, ["read", "dice", str(tmp_path), "--dice", "3", "--labels", "yolo"])
    assert text.exit_code == 0 and "read correctly" in text.stdout and "confusion" in text.stdout
    assert all(len(line) <= 80 for line in text.stdout.splitlines()[1:] if "dice-" not in line)  # after the title


def test_read_dice_with_a_bad_label_names_the_file_and_line(tmp_path: Path) -> None:
    _labelled(tmp_path, (1,))
    label = tmp_path / "dice-1.txt"
    label.write_text(label.read_text() + "7 0.5 0.5 0.1 0.1\n")
    result = runner.invoke(app, ["read", "dice", str(tmp_path), "--labels", "yolo"])
    assert result.exit_code == 2
    assert "dice-1.txt:4: class '7' must be 0..5" in result.stderr.replace("\n", "")


def test_calibrate_dice_writes_the_readers_threshold_and_read_uses_it(tmp_path: Path) -> None:
    from vision.die_reader_model import DEFAULT_MODEL, DieReaderModel

    photos = tmp_path / "photos"
    photos.mkdir()
    _labelled(photos, (1, 2, 3, 4))
    output = tmp_path / "reader.json"
    result = runner.invoke(app, ["calibrate", "dice", str(photos), "-o", str(output), "--side-share", "0.2"])
    assert result.exit_code == 0, result.stdout + result.stderr
    written = json.loads(output.read_text())
    assert written["model_sha256"] == DieReaderModel.load(DEFAULT_MODEL).sha256 and written["side_share"] == 0.2
    assert 0.0 < written["threshold"] <= 1.0 and written["threshold"] == written["calibration"]["threshold"]
    # 4 photos cannot vouch for 1 wrong per 1,000: the written threshold is never below the model card's
    card = DieReaderModel.load(DEFAULT_MODEL).card.threshold
    assert written["threshold"] >= card and not written["calibration"]["vouched"]
    assert written["calibration"]["card_threshold"] == card
    # the figures beside the threshold are those at the threshold written; the fit's own are kept under "fit"
    assert written["calibration"]["fit"]["threshold"] == written["calibration"]["fitted_threshold"]
    assert written["calibration"]["accepted"] <= written["calibration"]["fit"]["accepted"]
    assert written["calibration"]["images"] == 4 and written["calibration"]["labelled_dice"] == 12
    # photos at four scales tell no one size of the dice: none is written for the stages
    assert "die_edge_px" not in written["stages"] and "several distances" in written["calibration"]["die_size"]["reason"]
    assert "squares read" in result.stdout and "95 % upper bound" in result.stdout
    read = runner.invoke(app, ["read", "dice", str(photos), "--labels", "yolo", "--reader", str(output), "--json"])
    assert read.exit_code == 0, read.stderr
    figures = json.loads(read.stdout)
    assert figures["labelled"] == 12 and figures["wrong"] == 0
    one = runner.invoke(app, ["read", "dice", str(photos / "dice-1.png"), "--reader", str(output), "--json"])
    assert json.loads(one.stdout)["reader_sha256"] == written["model_sha256"]


def test_calibrate_dice_measures_a_fixed_cameras_dice_and_fits_the_threshold_told_their_size(tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    photos.mkdir()
    for seed in range(1, 9):  # a camera on its mount: every photo at one scale
        rng = np.random.default_rng(seed)
        scene = random_dice_scene(rng, 3, DieStyle.opaque_white(), edge_px=(44.0, 44.0))
        image, truth = render_dice(scene, Nuisance.none(), rng)
        cv2.imwrite(str(photos / f"dice-{seed}.png"), image)
        height, width = image.shape[:2]
        boxes = [(die.face, np.asarray(die.corners_px)) for die in truth.dice]  # upright boxes, as a person draws
        (photos / f"dice-{seed}.txt").write_text("".join(
            f"{face - 1} {c[:, 0].mean() / width:.5f} {c[:, 1].mean() / height:.5f} "
            f"{np.ptp(c[:, 0]) / width:.5f} {np.ptp(c[:, 1]) / height:.5f}\n" for face, c in boxes))
    output = tmp_path / "reader.json"
    result = runner.invoke(app, ["calibrate", "dice", str(photos), "-o", str(output)])
    assert result.exit_code == 0, result.stdout + result.stderr
    written = json.loads(output.read_text())
    size = written["calibration"]["die_size"]
    assert size["squares_read_right"] >= 20 and abs(size["median_px"] - 44.0) < 3.0
    assert written["stages"]["die_edge_px"] == size["die_edge_px"] == pytest.approx([0.8 * size["median_px"],
                                                                                     1.2 * size["median_px"]], abs=0.06)
    assert "dice's edge: [" in result.stdout
    read = runner.invoke(app, ["read", "dice", str(photos), "--labels", "yolo", "--reader", str(output), "--json"])
    assert read.exit_code == 0 and json.loads(read.stdout)["wrong"] == 0
    # a size the configuration states is kept; --no-die-size writes none
    again = runner.invoke(app, ["calibrate", "dice", str(photos), "-o", str(tmp_path / "again.json"), "--reader",
                                str(output)])
    assert again.exit_code == 0
    kept = json.loads((tmp_path / "again.json").read_text())
    assert kept["stages"]["die_edge_px"] == written["stages"]["die_edge_px"]
    assert kept["calibration"]["die_size"]["reason"] == "stated by the configuration"
    runner.invoke(app, ["calibrate", "dice", str(photos), "-o", str(tmp_path / "none.json"), "--no-die-size"])
    assert "die_edge_px" not in json.loads((tmp_path / "none.json").read_text())["stages"]


def test_calibrate_dice_refuses_a_bad_label_and_a_configuration_for_another_model(tmp_path: Path) -> None:
    _labelled(tmp_path, (1,))
    (tmp_path / "dice-1.txt").write_text("0 0.5 0.5 0.1\n")
    result = runner.invoke(app, ["calibrate", "dice", str(tmp_path), "-o", str(tmp_path / "r.json")])
    assert result.exit_code == 2 and "dice-1.txt:1: expected 5 fields" in result.stderr.replace("\n", "")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"model_sha256": "0" * 64}))
    result = runner.invoke(app, ["calibrate", "dice", str(tmp_path), "-o", str(tmp_path / "r.json"), "--reader",
                                 str(other)])
    assert result.exit_code == 2 and "fitted for the model 0000000000000000" in result.stderr.replace("\n", "")
    assert not (tmp_path / "r.json").exists()


def test_read_dice_refuses_a_folder_without_labels_saying_what_to_give(tmp_path: Path) -> None:
    _labelled(tmp_path, (1,))
    result = runner.invoke(app, ["read", "dice", str(tmp_path)])
    assert result.exit_code == 2 and result.stdout == ""
    assert "is a folder" in result.stderr and "--labels yolo" in result.stderr.replace("\n", " ")


def test_an_interrupted_labels_run_prints_the_score_of_the_images_read_so_far(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C during ``--labels yolo`` keeps what was read: the score of those images, said to be a part, exit 130."""
    from bench import cli_read

    _labelled(tmp_path, (1, 2, 3))
    built = cli_read._dice_reader
    calls = []

    def interrupted_reader(dice: int | None, reader: str, arena=None):
        read = built(dice, reader, arena)

        def read_frame(image):
            calls.append(1)
            if len(calls) == 3:
                raise KeyboardInterrupt
            return read(image)
        return read_frame

    monkeypatch.setattr(cli_read, "_dice_reader", interrupted_reader)
    result = runner.invoke(app, ["read", "dice", str(tmp_path), "--dice", "3", "--labels", "yolo", "--json"])
    assert result.exit_code == 130
    figures = json.loads(result.stdout)
    assert figures["images"] == 2 and figures["labelled"] == 6
    assert figures["of_images"] == 3 and figures["interrupted"] is True
    assert "interrupted after 2 of 3 images" in result.stderr.replace("\n", " ")
    calls.clear()
    text = runner.invoke(app, ["read", "dice", str(tmp_path), "--dice", "3", "--labels", "yolo"])
    assert text.exit_code == 130 and "(interrupted: 2 of 3 images read)" in text.stdout.replace("\n", " ")


def test_read_dice_with_labels_names_each_image_declined_whole_and_why(tmp_path: Path) -> None:
    """A lab scoring the reader on its own photos sees which were declined and the fault the reader names."""
    _labelled(tmp_path, (1,))
    blank = tmp_path / "dice-blank.png"
    cv2.imwrite(str(blank), np.full((240, 320, 3), 128, np.uint8))
    blank.with_suffix(".txt").write_text("2 0.5 0.5 0.1 0.1\n")
    result = runner.invoke(app, ["read", "dice", str(tmp_path), "--dice", "3", "--labels", "yolo", "--json"])
    assert result.exit_code == 0, result.stderr
    figures = json.loads(result.stdout)
    (line,) = [line for line in figures["declined_images"] if "dice-blank.png" in line]
    named = re.fullmatch(r".*dice-blank\.png: 1 die, ([a-z-]+): (.+)", line)
    assert named is not None, line
    assert named.group(1) in figures["not_read_by_reason"]  # the reason its labelled die is counted under
    text = runner.invoke(app, ["read", "dice", str(tmp_path), "--dice", "3", "--labels", "yolo"])
    assert "images declined whole" in text.stdout and "dice-blank.png: 1 die" in text.stdout.replace("\n", "")


def test_calibrate_dice_interrupted_fits_nothing_and_leaves_the_configuration_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bench.cli_calibrate_dice as calibrate

    photos = tmp_path / "photos"
    photos.mkdir()
    _labelled(photos, (1,))

    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(calibrate, "_samples", interrupted)
    output = tmp_path / "reader.json"
    result = runner.invoke(app, ["calibrate", "dice", str(photos), "-o", str(output)])
    assert result.exit_code == 130 and not output.exists()
    assert f"interrupted while reading the photos: no threshold fitted, {output} is not written" in \
        result.stderr.replace("\n", "")
    output.write_text('{"threshold": 0.99}')
    again = runner.invoke(app, ["calibrate", "dice", str(photos), "-o", str(output)])
    assert again.exit_code == 130 and output.read_text() == '{"threshold": 0.99}'
    assert f"{output} is left as it was" in again.stderr.replace("\n", "")
