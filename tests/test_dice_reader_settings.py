"""The dice reader's configuration file: read back as written, every fault named by file and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.rundir import atomic_write_text
from vision.dice_reader_settings import (
    DiceReaderSettings,
    ReaderSettingsError,
    load_reader_settings,
    settings_json,
)


def test_a_configuration_is_read_back_as_written(tmp_path: Path) -> None:
    path = tmp_path / "reader.json"
    written = DiceReaderSettings(model="models/lab.onnx", model_sha256="a" * 64, threshold=0.97,
                                 calibration={"crops": 812, "wrong": 0}, side_share=0.4,
                                 scene={"motion_anisotropy": 0.25}, stages={"die_edge_px": [30, 60]})
    atomic_write_text(path, settings_json(written))
    read = load_reader_settings(path)
    assert read == written and [entry.name for entry in tmp_path.iterdir()] == ["reader.json"]
    assert read.model_path(path) == tmp_path / "models" / "lab.onnx"
    scene = read.scene_settings(expected_dice=3, arena=((0.0, 0.0), (10.0, 0.0), (10.0, 10.0)))
    assert (scene.expected_dice, scene.motion_anisotropy) == (3, 0.25)
    assert read.stage_config().die_edge_px == (30, 60)
    assert read.stage_config(die_edge_px=(40.0, 50.0)).die_edge_px == (40.0, 50.0)


@pytest.mark.parametrize(("content", "message"), [
    ('{"threshold": 1.5}', "threshold: Input should be less than or equal to 1"),
    ('{"model_sha256": "xyz"}', "model_sha256: String should match pattern"),
    ('{"thresold": 0.9}', "thresold: Extra inputs are not permitted"),
    ('{"scene": {"expected_dice": 3}}', "scene.expected_dice comes from the profile"),
    ('{"scene": {"glare": 0.3}}', "scene: unknown setting\\(s\\) glare"),
    ('{"stages": {"work_long_side": 320}}', "stages: unknown setting\\(s\\) work_long_side"),
    ('{"scene": {"motion_anisotropy": 2}}', "scene: motion_anisotropy must be within"),
    ('{"stages": {"die_edge_px": [40, "50"]}}', r"stages: die_edge_px must be \(least, most\) .*got \(40, '50'\)"),
    ('{"stages": {"die_edge_px": [40, 50, 60]}}', r"stages: die_edge_px must be \(least, most\)"),
    ('{"stages": {"die_edge_px": [50, 10]}}', r"stages: die_edge_px must be \(least, most\) with 0 < least <= most"),
    ('{"threshold": 0.9,\n "side_share" 0.3}', "not JSON \\(line 2, column 15"),
])
def test_a_bad_configuration_is_named_by_file_and_field(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "reader.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ReaderSettingsError, match=f"^{path}: .*{message}"):
        load_reader_settings(path)


def test_a_missing_configuration_is_named(tmp_path: Path) -> None:
    with pytest.raises(ReaderSettingsError, match="reader.json: cannot be read"):
        load_reader_settings(tmp_path / "reader.json")


def test_the_defaults_use_the_benchs_own_model_and_threshold(tmp_path: Path) -> None:
    path = tmp_path / "reader.json"
    path.write_text(json.dumps({}), encoding="utf-8")
    settings = load_reader_settings(path)
    assert settings.model_path(path) is None and settings.threshold is None and settings.side_share == 0.12
