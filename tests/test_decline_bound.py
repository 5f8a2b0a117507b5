"""Declined throws bounded (fixtures/decline_bound.py, ``options.max_declined_share``): a dice camera declining more
than the stated share of the planned throws stops the dice test INCOMPLETE instead of reading on for ever; so do a
wheel voiding, and a camera giving a wheel's outcomes declining, more than that share of the planned games."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.journal import Journal
from bench.profiles import ProfileError, load_profile
from fixtures.decline_bound import DeclineBoundExceeded, check_declines
from fixtures.incomplete import IncompleteTest

BENCH = str(Path(sys.executable).with_name("bench"))

DECLINING = """name = "declining-camera"
[equipment.dice]
kind = "dice"
identity = { manufacturer = "Bench Simulators", model = "Arena", serial = "T-DB" }
options = { game = "banca-francesa", throws = 20%s }
simulator = { model = "fair", seed = 5 }
camera = { source = "sim", keep_frames = "disputed", camera_height_mm = 900.0, simulation = { cocked_rate = 0.6, stacked_rate = 0.39 } }
"""
"""A camera over dice of which 3 throws in 4 lie cocked or stacked (each throw drawn apart: 0.244 fall flat)."""


def test_the_bound_is_the_share_of_the_planned_throws_and_at_least_one() -> None:
    check_declines(60, 600, 0.1, "dice", "throw 61, cocked")  # 60 of 600 allowed at 10 %
    with pytest.raises(DeclineBoundExceeded, match=r"dice declined 61 throws; the bound is 60 \(10% of the 600 "
                                                    r"planned throws, at least 1\).*the last: throw 61, cocked"):
        check_declines(61, 600, 0.1, "dice", "throw 61, cocked")
    check_declines(1, 5, 0.1, "dice", "")  # floor(0.5) = 0, raised to 1
    with pytest.raises(DeclineBoundExceeded):
        check_declines(2, 5, 0.1, "dice", "")
    assert issubclass(DeclineBoundExceeded, IncompleteTest)  # its clauses INCOMPLETE, never PASS nor ERROR


def test_the_profile_states_the_share_within_0_and_1(tmp_path: Path) -> None:
    profile = tmp_path / "p.toml"
    profile.write_text(DECLINING % "")
    assert load_profile(str(profile))[0].equipment["dice"].options.max_declined_share == 0.1
    profile.write_text(DECLINING % ", max_declined_share = 0.25")
    assert load_profile(str(profile))[0].equipment["dice"].options.max_declined_share == 0.25
    profile.write_text(DECLINING % ", max_declined_share = 1.5")
    with pytest.raises(ProfileError, match="equipment.dice.options.max_declined_share"):
        load_profile(str(profile))


@pytest.mark.slow(seconds=30)
def test_a_camera_declining_most_throws_leaves_the_balance_clause_incomplete(tmp_path: Path) -> None:
    """20 throws planned, so at most 2 declined: the third decline stops the test, with the count and the last
    reason journalled; without the bound the camera would have been asked for throws until 20 were accepted."""
    profile = tmp_path / "p.toml"
    profile.write_text(DECLINING % "")
    run = tmp_path / "run"
    result = subprocess.run([BENCH, "certify", "--no-progress", "--no-pdf", "--profile", str(profile), "--suite",
                             "dice", "--out", str(run)], check=False, capture_output=True, text=True, timeout=600)
    assert result.returncode == 2, result.stdout + result.stderr  # INCOMPLETE
    assert "Overall result: INCOMPLETE" in result.stdout
    with Journal(run / Journal.FILENAME, create=False) as journal:
        run_id = journal.rows("runs")[0]["run_id"]
        declined = [row["value"] for row in journal.observations(run_id, "dice/declined-throws")]
        accepted = journal.observations(run_id, "dice/throws")
        outcomes = {row["nodeid"]: row for row in journal.rows("tests") if row["outcome"] != "started"}
    assert len(declined) == 3 and all(value["reason"] in ("cocked", "stacked") for value in declined)
    assert len(accepted) < 20
    balance = outcomes["suites/test_dice.py::test_dice_are_balanced"]
    assert balance["outcome"] == "incomplete"
    assert balance["message"].startswith("too many declined or voided: dice declined 3 throws; the bound is 2")


WHEEL = """name = "voiding-wheel"
[equipment.wheel]
kind = "roulette-wheel"
identity = { manufacturer = "Bench Simulators", model = "RW-37", serial = "T-DB" }
options = { spins = 60%s }
simulator = { model = "fair", seed = 11, misread_rate = %s }
%s
"""


def _certify(tmp_path: Path, text: str, suite: str) -> tuple[subprocess.CompletedProcess, dict, dict]:
    """``bench certify --suite suite`` on the profile ``text``: the process, each stream's values, each test's last
    outcome."""
    profile = tmp_path / "p.toml"
    profile.write_text(text)
    run = tmp_path / "run"
    result = subprocess.run([BENCH, "certify", "--no-progress", "--no-pdf", "--profile", str(profile), "--suite",
                             suite, "--out", str(run)], check=False, capture_output=True, text=True, timeout=600)
    with Journal(run / Journal.FILENAME, create=False) as journal:
        streams: dict[str, list] = {}
        for row in journal.rows("observations"):
            streams.setdefault(row["stream"], []).append(row["value"])
        outcomes = {row["nodeid"]: row for row in journal.rows("tests") if row["outcome"] != "started"}
    return result, streams, outcomes


@pytest.mark.slow(seconds=30)
def test_a_wheel_voiding_many_games_leaves_its_clauses_incomplete(tmp_path: Path) -> None:
    """Half the games void ("no result"), 60 planned, so at most 6 voided: the seventh stops the spins."""
    result, streams, outcomes = _certify(tmp_path, WHEEL % ("", 0.5, ""), "roulette")
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(streams["wheel/void-games"]) == 7 and len(streams.get("wheel/spins", [])) < 60
    incomplete = [row["message"] for row in outcomes.values() if row["outcome"] == "incomplete"]
    assert incomplete and all(message.startswith("too many declined or voided: wheel voided 7 games; the bound is 6")
                              for message in incomplete)


@pytest.mark.slow(seconds=30)
def test_a_camera_giving_the_outcomes_and_declining_many_leaves_the_clauses_incomplete(tmp_path: Path) -> None:
    """The camera gives the outcomes and a ball rests on a fret in 1 game of 5 (declined): 60 planned, so at most 6
    declined; the seventh stops the spins. The same wheel with a share of 0.5 allowed gives its verdict
    (tests/test_camera_suites.py)."""
    camera = 'camera = { source = "sim", keep_frames = "disputed", simulation = { fret_rate = 0.2 } }'
    result, streams, outcomes = _certify(tmp_path, WHEEL % (', outcome_source = "camera"', 0.0, camera), "roulette")
    assert result.returncode == 2, result.stdout + result.stderr
    assert len(streams["wheel/camera-declined"]) == 7 and "wheel/void-games" not in streams
    incomplete = [row["message"] for row in outcomes.values() if row["outcome"] == "incomplete"]
    assert incomplete and all(message.startswith("too many declined or voided: wheel's camera declined 7 games; the "
                                                 "bound is 6") for message in incomplete)


DOME = """name = "declining-dome-camera"
[equipment.dome]
kind = "dice-shaker"
identity = { manufacturer = "Bench Simulators", model = "CD-3 cussec dome", serial = "T-DB" }
options = { rounds = 20, alpha = 0.01 }
simulator = { model = "fair", seed = 20070226 }
camera = { source = "sim", votes = 3, keep_frames = "disputed", simulation = { cocked_rate = 0.6, stacked_rate = 0.39 } }
"""


@pytest.mark.slow(seconds=30)
def test_a_dome_camera_declining_most_rounds_leaves_the_clauses_on_its_reads_incomplete(tmp_path: Path) -> None:
    """Every round is played and logged (the lamp's clause is judged on the controller's log), but with 3 rounds
    in 4 declined the zones and the dice's balance, judged on the dice the camera read, are INCOMPLETE."""
    result, streams, outcomes = _certify(tmp_path, DOME, "cussec_dome")
    assert result.returncode == 2, result.stdout + result.stderr
    rounds = streams["cussec-dome/rounds"]
    declined = [row for row in rounds if "faces" not in row["camera"]]
    assert len(rounds) == 20 and len(declined) > 2
    by_test = {nodeid.split("::")[-1]: row for nodeid, row in outcomes.items()}
    assert by_test["test_three_strokes_then_the_lamp_lights_by_itself"]["outcome"] == "passed"
    for name in ("test_lit_zones_are_the_winning_chances_of_the_dice", "test_dome_dice_are_balanced"):
        assert by_test[name]["outcome"] == "incomplete"
        assert by_test[name]["message"].startswith(f"too many declined or voided: dome's camera declined "
                                                   f"{len(declined)} rounds; the bound is 2 (10% of the 20 planned")


@pytest.mark.slow(seconds=30)
def test_a_camera_declining_many_games_leaves_its_cross_check_of_the_sensor_incomplete(tmp_path: Path) -> None:
    """Sensor and camera both read the wheel and the camera declines 1 game in 5 (ball on a fret): the sensor's
    numbers still judge the wheel's fairness, but the cross-check compared too few games to vouch for the sensor."""
    camera = 'camera = { source = "sim", keep_frames = "disputed", simulation = { fret_rate = 0.2 } }'
    result, streams, outcomes = _certify(tmp_path, WHEEL % (', outcome_source = "both"', 0.0, camera), "roulette")
    assert result.returncode == 2, result.stdout + result.stderr
    declined = streams["wheel/camera-declined"]
    assert len(streams["wheel/spins"]) == 60 and len(declined) > 6
    by_test = {nodeid.split("::")[-1]: row for nodeid, row in outcomes.items()}
    cross_check = by_test["test_camera_agrees_with_the_wheel_sensor"]
    assert cross_check["outcome"] == "incomplete"
    assert cross_check["message"].startswith(f"too many declined or voided: wheel's camera declined {len(declined)} "
                                             "games; the bound is 6 (10% of the 60 planned games")
    assert by_test["test_pocket_fairness"]["outcome"] == "passed"
