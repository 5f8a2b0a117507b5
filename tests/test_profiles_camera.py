"""Profiles with cameras: dice tables and roulette wheels read by camera (bench/profiles/camera.py, model.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.profiles import ProfileError, load_profile
from bench.profiles.model import DiceTableEquipment, RouletteWheelEquipment

WHEEL = """
name = "lab"
[equipment.wheel]
kind = "roulette-wheel"
identity = { manufacturer = "M", model = "W", serial = "1" }
"""
DICE = """
name = "lab"
[equipment.dice]
kind = "dice"
identity = { manufacturer = "M", model = "Arena", serial = "7" }
"""


def _load(tmp_path: Path, text: str):
    path = tmp_path / "lab.toml"
    path.write_text(text, encoding="utf-8")
    return load_profile(str(path))[0]


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ProfileError) as caught:
        _load(tmp_path, text)
    return str(caught.value)


def test_a_simulated_wheel_read_by_a_simulated_camera_and_its_sensor(tmp_path: Path) -> None:
    profile = _load(tmp_path, WHEEL + """simulator = { model = "fair", sensor_error_rate = 0.005 }
options = { outcome_source = "both" }
camera = { source = "sim", votes = 3, keep_frames = "disputed", simulation = { fret_rate = 0.01 } }
""")
    wheel = profile.equipment["wheel"]
    assert isinstance(wheel, RouletteWheelEquipment)
    assert wheel.options.outcome_source == "both" and wheel.camera is not None and wheel.camera.simulated
    assert wheel.camera.simulation is not None and wheel.camera.simulation.fret_rate == 0.01


def test_camera_outcomes_need_a_camera(tmp_path: Path) -> None:
    message = _error(tmp_path, WHEEL + 'simulator = { model = "fair" }\noptions = { outcome_source = "camera" }\n')
    assert "needs a camera" in message


def test_a_simulated_camera_cannot_watch_a_real_wheel_nor_a_real_camera_a_simulated_one(tmp_path: Path) -> None:
    real_wheel = WHEEL + 'connection = { port = "/dev/ttyUSB0" }\ncamera = { source = "sim" }\n'
    assert "renders a simulated device" in _error(tmp_path, real_wheel)
    sim_wheel = WHEEL + 'simulator = { model = "fair" }\ncamera = { source = "0" }\n'
    assert "only be watched by camera source 'sim'" in _error(tmp_path, sim_wheel)


def test_a_dice_table_takes_its_dice_per_throw_and_edge_limits_from_the_game(tmp_path: Path) -> None:
    profile = _load(tmp_path, DICE + """options = { game = "craps", throws = 500 }
camera = { source = "sim" }
simulator = { model = "loaded", loaded_face = 6, loaded_probability = 0.2 }
""")
    dice = profile.equipment["dice"]
    assert isinstance(dice, DiceTableEquipment)
    assert dice.options.dice_per_throw == 2 and dice.options.edge_limits_mm == (18.0, 20.0)
    banca = _load(tmp_path, DICE + 'camera = { source = "/data/arena-frames" }\n').equipment["dice"]
    assert banca.options.dice_per_throw == 3 and banca.options.edge_limits_mm == (12.0, 15.0)


def test_a_dice_table_needs_a_camera_and_a_loaded_die_needs_a_load(tmp_path: Path) -> None:
    assert "camera" in _error(tmp_path, DICE)
    message = _error(tmp_path, DICE + 'camera = { source = "sim" }\nsimulator = { model = "loaded" }\n')
    assert "loaded_probability" in message
    message = _error(tmp_path, DICE + 'camera = { source = "sim", launch_clips = 5 }\nsimulator = { model = "fair" }\n')
    assert "launch_clips" in message and "dice table" in message


def test_a_dice_camera_sets_aside_two_unreadable_frames_by_default_and_a_wheel_camera_none(tmp_path: Path) -> None:
    dice = _load(tmp_path, DICE + 'camera = { source = "/data/arena-frames" }\n').equipment["dice"]
    assert dice.camera.unreadable_replacements == 2
    none = _load(tmp_path, DICE + 'camera = { source = "/data/arena", unreadable_replacements = 0 }\n')
    assert none.equipment["dice"].camera.unreadable_replacements == 0
    assert "unreadable_replacements" in _error(tmp_path, DICE + 'camera = { source = "0", unreadable_replacements = 11 }\n')
    wheel = WHEEL + ('connection = { port = "/dev/ttyUSB0" }\noptions = { outcome_source = "both" }\n'
                     'camera = { source = "0", calibration = "c.json", unreadable_replacements = 1 }\n')
    assert "a wheel camera's votes are consecutive frames" in _error(tmp_path, wheel)


def test_a_real_wheel_camera_needs_its_calibration_file(tmp_path: Path) -> None:
    wheel = WHEEL + 'connection = { port = "/dev/ttyUSB0" }\noptions = { outcome_source = "both" }\n'
    assert "bench calibrate roulette" in _error(tmp_path, wheel + 'camera = { source = "0" }\n')
    profile = _load(tmp_path, wheel + 'camera = { source = "0", calibration = "wheel-cal.json" }\n')
    assert profile.equipment["wheel"].camera.calibration == "wheel-cal.json"


def test_camera_decline_rates_adding_up_above_one_are_refused_naming_the_field(tmp_path: Path) -> None:
    wheel = WHEEL + """simulator = { model = "fair" }
camera = { source = "sim", simulation = { fret_rate = 0.7, hidden_rate = 0.6 } }
"""
    message = _error(tmp_path, wheel)
    assert "key equipment.wheel.camera.simulation:" in message
    assert "fret_rate + hidden_rate add up to 1.3, above 1" in message


def test_the_dice_model_s_edge_definition_is_declared_in_millimetres_and_checked(tmp_path: Path) -> None:
    """0 by default (sharp-edged precision dice); a declared value enters every width's uncertainty
    (suites/test_dice.py); a negative one, or one wider than 2 mm, is refused naming the field."""
    dice = _load(tmp_path, DICE + 'simulator = { model = "fair" }\ncamera = { source = "sim" }\n').equipment["dice"]
    assert isinstance(dice, DiceTableEquipment) and dice.options.edge_definition_mm == 0.0
    declared = (DICE + 'simulator = { model = "fair" }\ncamera = { source = "sim" }\n'
                + 'options = { edge_definition_mm = %s }\n')
    loaded = _load(tmp_path, declared % "0.098").equipment["dice"]
    assert isinstance(loaded, DiceTableEquipment) and loaded.options.edge_definition_mm == 0.098
    for bad in ("-0.1", "2.5"):
        assert "edge_definition_mm" in _error(tmp_path, declared % bad)


def test_the_measurement_benchmark_declares_the_edge_definition_the_simulated_dice_s_profiles_do() -> None:
    """benchmarks/measure_accuracy.py's cross-check on the rendered dice declares, for each die, the edge definition a
    lab would: for the simulated dice's 14 mm, the 0.098 mm the built-in profiles declare."""
    from benchmark_scripts import load_benchmark

    declared = load_benchmark("measure_accuracy").declared_edge_definition_mm
    dice = load_profile("sim")[0].equipment["dice"]
    assert isinstance(dice, DiceTableEquipment)
    assert declared(14.0) == pytest.approx(dice.options.edge_definition_mm, abs=5e-4)
    assert declared(19.0) > declared(14.0) > declared(12.0) > 0
