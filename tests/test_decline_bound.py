"""Declined throws bounded (fixtures/decline_bound.py, ``options.max_declined_share``): a dice camera declining more
than the stated share of the planned throws stops the dice test INCOMPLETE instead of reading on for ever."""

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
    assert balance["message"].startswith("too many throws declined: dice declined 3 throws; the bound is 2")
