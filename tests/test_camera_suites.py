"""The roulette and dice suites read by camera, end to end through ``bench certify`` on simulated rigs.

Small samples keep these fast; the faults are strong enough that the stated error rates hold:
* a wheel sensor misreporting 1 game in 10 over 150 games: disagreements ~ Binomial(150, ~0.1),
  mean 15, against a critical value of 2 under H0 (Binomial(150, 0.001)): missed with probability < 1e-4;
* a wheel whose ball turns with the rotor while its sensor reports otherwise: every filmed launch
  contradicts the report (the camera misread no direction in 1,000 rendered clips,
  ``benchmarks/launch_direction_accuracy.py``);
* dice with the six at 0.45 over 150 throws of 3 dice: the pooled face chi-square's power is > 0.999.
Seeds are fixed, so each outcome is deterministic.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.journal import Journal

pytestmark = pytest.mark.slow(seconds=45)
"""Every test here runs a whole certification of its own."""

BENCH = str(Path(sys.executable).with_name("bench"))

WHEEL = """name = "camera-wheel"
[equipment.wheel]
kind = "roulette-wheel"
identity = {{ manufacturer = "Bench Simulators", model = "RW-37", serial = "T-2" }}
options = {{ spins = 150, outcome_source = "both" }}
simulator = {{ model = "fair", seed = 11, sensor_error_rate = {error}, launch_fault = "{launch}" }}
camera = {{ source = "sim", keep_frames = "disputed", launch_clips = 12, simulation = {{ fret_rate = 0.02 }} }}
"""
DICE = """name = "camera-dice"
[equipment.dice]
kind = "dice"
identity = {{ manufacturer = "Bench Simulators", model = "Arena", serial = "T-3" }}
options = {{ game = "banca-francesa", throws = 150, edge_definition_mm = 0.098 }}
simulator = {{ {model}, seed = 5 }}
camera = {{ source = "sim", keep_frames = "disputed", camera_height_mm = 900.0 }}
"""


def _run(tmp_path: Path, text: str) -> tuple[int, str, Path]:
    profile = tmp_path / "profile.toml"
    profile.write_text(text)
    run = tmp_path / "run"
    result = subprocess.run([BENCH, "certify", "--no-progress", "--profile", str(profile), "--out", str(run)],
                            check=False, capture_output=True, text=True, timeout=600)
    return result.returncode, result.stdout + result.stderr, run


def _measurements(run: Path, prefix: str) -> list[dict]:
    with Journal(run / Journal.FILENAME, create=False) as journal:
        return [row for row in journal.rows("measurements") if row["name"].startswith(prefix)]


def test_an_honest_wheel_agrees_with_its_camera(tmp_path: Path) -> None:
    code, output, run = _run(tmp_path, WHEEL.format(error=0.0, launch="none"))
    assert code == 0, output
    [cross_check] = _measurements(run, "camera reads disagreeing")
    assert cross_check["passed"] == 1 and cross_check["sample_size"] >= 140
    details = cross_check["details"]
    assert details["camera_declines_by_reason"].get("on-fret", 0) >= 1  # declined reads are counted, not guessed
    launches = _measurements(run, "filmed ") + _measurements(run, "consecutive filmed")
    assert len(launches) == 3 and all(row["passed"] == 1 for row in launches)
    assert all(row["sample_size"] >= 11 for row in launches)  # 12 launches filmed, 11 consecutive pairs


def test_a_wheel_hiding_co_rotation_from_its_sensor_fails_on_camera_evidence(tmp_path: Path) -> None:
    code, output, run = _run(tmp_path, WHEEL.format(error=0.0, launch="co-rotation-misreported"))
    assert code == 1, output
    [reported] = _measurements(run, "games with ball and rotor turning the same way")
    assert reported["passed"] == 1  # the wheel's own reports look compliant
    [seen] = _measurements(run, "filmed launches with ball and rotor turning the same way")
    [contradicted] = _measurements(run, "filmed games whose reported directions")
    assert seen["passed"] == 0 and seen["value"] == seen["sample_size"] >= 11
    assert contradicted["passed"] == 0 and contradicted["value"] >= 11
    games = contradicted["details"]["games"]
    assert all(game["camera"][0] == game["camera"][1] != game["wheel"][1] for game in games)


def test_a_lying_wheel_sensor_fails_the_cross_check_with_its_games_as_evidence(tmp_path: Path) -> None:
    code, output, run = _run(tmp_path, WHEEL.format(error=0.1, launch="none"))
    assert code == 1, output
    [cross_check] = _measurements(run, "camera reads disagreeing")
    assert cross_check["passed"] == 0 and cross_check["value"] >= 5
    disputed = cross_check["details"]["disagreeing_games"]
    assert disputed and all(len(game["frames"]) == 3 for game in disputed)  # every vote frame kept
    with Journal(run / Journal.FILENAME, create=False) as journal:
        kept = {row["sha256"] for row in journal.rows("attachments")}
    assert {sha for game in disputed for sha in game["frames"]} <= kept


def test_fair_dice_read_by_camera_pass_and_their_size_is_measured(tmp_path: Path) -> None:
    code, output, run = _run(tmp_path, DICE.format(model='model = "fair"'))
    assert code == 0, output
    assert all(row["passed"] == 1 for row in _measurements(run, "dice: "))
    edges = _measurements(run, "die 1 edge")
    assert edges and all(12.0 <= row["value"] <= 15.0 for row in edges)
    declared = [row["details"]["uncertainty_budget_mm"]["edge-definition"] for row in edges]
    assert declared == pytest.approx([0.098] * len(edges), rel=0.03)  # declared on the table; a die is 1.5 % nearer


def test_loaded_dice_fail_the_balance_clause(tmp_path: Path) -> None:
    code, output, run = _run(tmp_path, DICE.format(model='model = "loaded", loaded_face = 6, loaded_probability = 0.45'))
    assert code == 1, output
    failing = [row for row in _measurements(run, "dice: ") if row["passed"] == 0]
    assert any(row["name"] == "dice: faces/pooled" for row in failing)


def test_camera_outcomes_replace_the_sensor_and_declined_games_are_not_outcomes(tmp_path: Path) -> None:
    """``outcome_source = "camera"``: each game's outcome is the camera's read; a game the camera declines
    (ball on a fret, 1 in 5 here) is counted apart and another game is played in its place."""
    text = WHEEL.format(error=0.2, launch="none").replace('outcome_source = "both"', 'outcome_source = "camera"')
    text = text.replace("fret_rate = 0.02", "fret_rate = 0.2").replace("spins = 150", "spins = 60")
    # 1 in 5 declined is above the 10 % the profile allows by default (tests/test_decline_bound.py): allowed here
    text = text.replace('outcome_source = "camera"', 'outcome_source = "camera", max_declined_share = 0.5')
    code, output, run = _run(tmp_path, text)
    assert code in (0, 1), output  # a verdict, not an error
    with Journal(run / Journal.FILENAME, create=False) as journal:
        run_id = journal.rows("runs")[0]["run_id"]
        spins = [row["value"] for row in journal.observations(run_id, "wheel/spins")]
        declined = [row["value"] for row in journal.observations(run_id, "wheel/camera-declined")]
    assert len(spins) == 60 and all(value["number"] == value["camera_number"] is not None for value in spins)
    assert any(value["sensor_number"] != value["camera_number"] for value in spins)  # the sensor lied, unused
    assert declined and {value["game"] for value in declined}.isdisjoint(value["game"] for value in spins)
    assert all(value["reason"] in ("on-fret", "hidden", "motion") for value in declined)
