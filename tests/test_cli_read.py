"""``bench read dice|roulette`` and ``bench calibrate roulette`` on rendered images (bench/cli_read.py)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
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
