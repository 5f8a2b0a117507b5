"""``suites/test_jackpot.py`` end to end through ``bench certify --suite jackpot``, and its increment check.

Every check of the jackpot suite is exact (whole cents), so no verdict has a statistical error rate: a
controller that keeps the fraction of a cent, shows its value, pays by clause 9 and keeps its pools never
fails, and each fault below fails with certainty:

* ``sim-jackpot-rounding``: at 29 % every bet of 100 cents adds 28; at 2.5 % every second bet is a cent short.
* ``sim-jackpot-low-start``: the start value is 5,000 jackpot bets.
* ``sim-volatile-jackpot``: after a power cycle the pool is back at its start value (10 bets of contributions lost).
* a display two bets behind its controller (temporary profile): it differs after every bet.

The runs take 10-30 s each; each run is made once per test session, when a test first needs it (``tests/suite_runs.py``): the sensitivity
matrix reads the same runs of the built-in profiles.
"""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from suite_runs import ProfileRuns, SessionRuns, SuiteRun, suite_run

pytestmark = pytest.mark.slow(seconds=20)
"""Every test here reads a whole certification run (started by the first test that needs it)."""

ROOT = Path(__file__).resolve().parents[1]
P461 = "p461-2001/poquer-sem-descarte"
P217 = "p217-2007/poquer-sem-descarte"
INCREMENT = (f"{P461}/3", f"{P461}/8", f"{P217}/3", f"{P217}/8")
DISPLAY = (f"{P461}/4", f"{P217}/4")
START = (f"{P461}/10", f"{P217}/10")
PRIZES, SHARING = f"{P461}/9", f"{P461}/12"
ALL = (*INCREMENT, *DISPLAY, PRIZES, SHARING, *START)

DISPLAY_LAG = """name = "display-lag"
[equipment.jackpot]
kind = "jackpot-display"
identity = { manufacturer = "Bench Simulators", model = "JP-2", serial = "T-JP" }
options = { game = "poquer-sem-descarte", jackpot_bet_cents = 100, levels = [{ start_cents = 1000000, increment_percent = "70" }], bets = 20 }
simulator = { model = "display-lag", display_lag_bets = 2, seed = 3 }
"""
PROFILES = {"sim": "sim", "rounding": "sim-jackpot-rounding", "low-start": "sim-jackpot-low-start",
            "volatile": "sim-volatile-jackpot", "display-lag": DISPLAY_LAG}


@pytest.fixture(scope="module")
def runs(session_runs: SessionRuns) -> ProfileRuns[SuiteRun]:
    """Every profile's run, made when a test first needs it (once per session: the sensitivity matrix shares them)."""
    return ProfileRuns(session_runs, "jackpot", PROFILES, suite_run)



def _expected(*failing: str) -> dict[str, str]:
    return {clause: "FAIL" if clause in failing else "PASS" for clause in ALL}



# -- the suite on each profile ---------------------------------------------------------------------


def test_the_fair_sim_controller_passes_every_clause(runs: ProfileRuns[SuiteRun]) -> None:
    run = runs.get("sim")
    assert run.code == 0, run.output
    assert run.verdicts() == _expected()
    [increment] = [row for row in run.measurements if row["name"].startswith("level 1: bets departing")]
    assert increment["value"] == 0 and increment["sample_size"] == 200
    assert increment["details"]["drift_cents"] == 0.0 and increment["details"]["gained_cents"] == 200 * 70
    assert len([row for row in run.measurements if row["name"].startswith("round ")]) == 10
    kept = run.named("level 1 value after the power cycle")
    assert kept["passed"] and kept["details"]["supply"] == "psu"
    assert run.tests["test_values_survive_a_power_cycle"]["outcome"] == "passed"


def test_a_controller_truncating_contributions_fails_the_increment_clauses_only(runs: ProfileRuns[SuiteRun]) -> None:
    run = runs.get("rounding")
    assert run.code == 1, run.output
    assert run.verdicts() == _expected(*INCREMENT)
    assert run.failed() == {"level 1: bets departing from 29 % of the bet", "level 2: bets departing from 2.5 % of the bet"}
    level_1 = run.named("level 1: bets departing from 29 % of the bet")
    assert level_1["value"] == 50 and level_1["details"]["drift_cents"] == -50.0  # one cent lost every bet
    level_2 = run.named("level 2: bets departing from 2.5 % of the bet")
    assert level_2["value"] == 25 and level_2["details"]["first_departures"][:3] == [2, 4, 6]


def test_a_controller_starting_at_5000_bets_fails_the_start_value_only(runs: ProfileRuns[SuiteRun]) -> None:
    run = runs.get("low-start")
    assert run.code == 1, run.output
    assert run.verdicts() == _expected(*START)
    assert run.failed() == {"level 1 start value"}
    start = run.named("level 1 start value")
    assert start["value"] == 500_000 and start["low"] == 1_000_000
    assert start["details"]["approved_start_cents"] == 1_000_000


def test_a_controller_losing_its_pool_on_power_loss_fails_retention_only(runs: ProfileRuns[SuiteRun]) -> None:
    run = runs.get("volatile")
    assert run.code == 1, run.output
    assert run.verdicts() == _expected(*INCREMENT)
    assert run.failed() == {"level 1 value after the power cycle"}
    # the supply that fed the controller: its identity as its *IDN? reported it, and its wire log, are evidence
    assert run.equipment["psu"]["reported"]["serial"] and run.equipment["psu"]["kind"] == "power-supply"
    assert "psu wire log" in run.attachments
    lost = run.named("level 1 value after the power cycle")
    assert lost["value"] == 1_000_000 and lost["expected"] >= 1_000_000 + 10 * 70  # back to the start value
    assert run.named("meters after the power cycle")["passed"]  # its meters are in non-volatile memory


def test_a_display_lagging_its_controller_fails_the_display_clause_only(runs: ProfileRuns[SuiteRun]) -> None:
    run = runs.get("display-lag")
    assert run.code == 1, run.output
    assert run.verdicts() == _expected(*DISPLAY)
    lag = run.named("level 1: bets after which the display differs from the controller")
    assert lag["value"] == lag["sample_size"] == 20
    first = lag["details"]["first_differences"][2]
    assert first["controller"] - first["display"] == 2 * 70  # two bets behind
    assert run.tests["test_values_survive_a_power_cycle"]["outcome"] == "skipped"  # no supply feeds it


# -- the increment check itself --------------------------------------------------------------------


def _suite() -> Any:
    spec = importlib.util.spec_from_file_location("jackpot_suite", ROOT / "suites" / "test_jackpot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(values: list[int], amount: int = 100) -> list[dict[str, Any]]:
    return [{"amount": amount, "before": [before], "after": [after]} for before, after in pairwise(values)]


def test_exact_keeping_explains_any_hidden_fraction_and_catches_each_lost_cent() -> None:
    departures = _suite().exact_keeping_departures
    percent = Fraction(5, 2)  # 2.5 %: 2.5 cents per bet of 100
    for hidden in (Fraction(0), Fraction(7, 10), Fraction(99, 100)):  # the fraction carried from before
        kept = [int(1_000_000 + hidden + Fraction(5, 2) * bets) for bets in range(41)]
        assert departures(_rows(kept), 0, percent)["departures"] == []
    truncated = [1_000_000 + 2 * bets for bets in range(41)]  # int(100 x 0.025) = 2 every bet
    found = departures(_rows(truncated), 0, percent)
    assert found["departures"] == list(range(2, 41, 2)) and found["drift_cents"] == -20.0
    gained = [1_000_000 + 3 * bets for bets in range(5)]  # a cent too many on every other bet
    assert departures(_rows(gained), 0, percent)["departures"] == [2, 4]


def test_a_value_changed_between_bets_restarts_the_chain_without_counting() -> None:
    rows = _rows([1_000_000, 1_000_070, 1_000_140]) + _rows([1_000_210, 1_000_280])  # one bet not journalled
    found = _suite().exact_keeping_departures(rows, 0, Fraction(70))
    assert found["departures"] == [] and found["chain_restarts"] == 1
