"""``suites/test_cussec_dome.py`` end to end on a fair dome and on each fault model (small profiles).

The lamp and zone checks are exact, so a fair dome passes them with certainty and each fault fails exactly its
clause; the seeds are fixed, so which rounds expose a fault is deterministic. The dice balance family
(p217-2007/cussec/1, Holm at α = 0.01) passes fair dice with probability at least 0.99; with the seeds fixed
every run here is deterministic. The built-in profiles (``sim``, ``sim-dome-*``) run the same suite with
their full samples in the sensitivity matrix (``bench/sensitivity.py``).

Each profile runs the suite file through pytest with the bench plugin in a subprocess (the same journal and
measurements as ``bench certify``, no certificate), once per test session when a test first needs it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from suite_runs import FinishedRun, ProfileRuns, SessionRuns, SuiteRun

from bench.journal import Journal

pytestmark = pytest.mark.slow(seconds=10)
"""Every test here reads a whole certification run (started by the first test that needs it)."""

ROOT = Path(__file__).resolve().parents[1]
LAMP, ZONES, DICE = "p217-2007/cussec/4", "p217-2007/cussec/5", "p217-2007/cussec/1"

PROFILE = """
name = "dome-{key}"
[equipment.dome]
kind = "dice-shaker"
identity = {{ manufacturer = "Bench Simulators", model = "CD-3 cussec dome", serial = "T-{key}" }}
options = {{ rounds = {rounds}, alpha = 0.01 }}
simulator = {{ model = "{model}", seed = 20070226{extra} }}
camera = {{ source = "sim", votes = 3, keep_frames = "disputed", simulation = {{ cocked_rate = 0.05 }} }}
"""
"""At this rate the camera cocks a die in throw 18 of these seeds (and in no earlier one)."""
CASES: dict[str, tuple[str, int, str, set[str]]] = {
    # key: (model, rounds, extra simulator fields, clauses that must fail)
    "fair-dealer": ("fair", 24, ", actuator = false", set()),
    "lamp-manual": ("lamp-manual", 6, "", {LAMP}),
    "short-shake": ("short-shake", 6, "", {LAMP}),
    "zone-miswired": ("zone-miswired", 30, "", {ZONES}),
    "sensor-misread": ("sensor-misread", 12, ", misread_rate = 0.4", {ZONES}),
}


class Run(SuiteRun):
    """One finished run, with the rounds it journalled."""

    def read_more(self, journal: Journal) -> None:
        self.rounds = journal.observations(journal.rows("runs")[0]["run_id"], "cussec-dome/rounds")

    def clauses(self, passed: bool) -> set[str]:
        return {clause for row in self.measurements if bool(row["passed"]) is passed for clause in row["clauses"]}


def _profile(key: str) -> str:
    model, rounds, extra, _ = CASES[key]
    return PROFILE.format(key=key, model=model, rounds=rounds, extra=extra)


def _read(finished: FinishedRun) -> Run:
    return Run(finished.code, finished.output, finished.run_dir)


@pytest.fixture(scope="module")
def runs(session_runs: SessionRuns) -> ProfileRuns[Run]:
    """Every profile's run, made when a test first needs it."""
    return ProfileRuns(session_runs, "cussec_dome", {key: _profile(key) for key in CASES}, _read, certificate=False)


@pytest.mark.parametrize("key", list(CASES))
def test_each_profile_fails_exactly_its_clause(runs: ProfileRuns[Run], key: str) -> None:
    run = runs.get(key)
    must_fail = CASES[key][3]
    assert run.clauses(passed=False) == must_fail, run.output[-3000:]
    assert run.clauses(passed=True) >= {LAMP, ZONES, DICE} - must_fail, run.output[-3000:]
    assert not [name for name, test in run.tests.items() if test["outcome"] == "error"], run.output[-3000:]
    assert len(run.rounds) == CASES[key][1]  # every round read is committed to the journal
    assert run.code == (1 if must_fail else 0), run.output[-3000:]


def test_declined_reads_are_counted_apart_never_compared(runs: ProfileRuns[Run]) -> None:
    run = runs.get("fair-dealer")
    zones = run.named("cussec dome: rounds whose lit zones differ from the winning chances of the dice read")
    declined = [row for row in run.rounds if "faces" not in row["value"]["camera"]]
    assert declined, "the camera's cocked die (throw 18) gives a declined read"
    assert zones["details"]["declined_reads"] == len(declined)
    assert zones["sample_size"] == len(run.rounds) - len(declined)
    assert {row["value"]["round"]["mode"] for row in run.rounds} == {"DEALER"}  # no actuator: the dealer's rounds
    assert all(row["value"]["camera"]["frames"] for row in declined)  # a declined read keeps its frames


def test_a_miswired_zone_is_shown_with_both_witnesses(runs: ProfileRuns[Run]) -> None:
    run = runs.get("zone-miswired")
    zones = run.named("cussec dome: rounds whose lit zones differ from the winning chances of the dice read")
    first = zones["details"]["first_disagreements"][0]
    assert {*first["lit_not_winning"], *first["winning_not_lit"]} <= {"dupla-4", "dupla-5"}
    assert first["controller_frames"][0].startswith(f"$RND,{first['round']},BENCH,")
    assert first["camera_frames_sha256"]  # the camera's frames of a disagreeing round are kept as evidence
    # exactly the rounds read with two or three fours or fives: those whose dupla-4 or dupla-5 wins
    assert zones["value"] == sum(1 for row in run.rounds if "faces" in row["value"]["camera"]
                                 and max(row["value"]["camera"]["faces"].count(n) for n in (4, 5)) >= 2)


def test_a_misreading_sensor_is_caught_by_the_camera(runs: ProfileRuns[Run]) -> None:
    run = runs.get("sensor-misread")
    zones = run.named("cussec dome: rounds whose lit zones differ from the winning chances of the dice read")
    assert zones["value"] > 0
    for wrong in zones["details"]["first_disagreements"]:
        assert sorted(wrong["controller_dice"]) != sorted(wrong["camera_faces"])
