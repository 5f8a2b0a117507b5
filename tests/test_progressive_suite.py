"""``suites/test_progressive.py`` on a fair progressive link and on faulty controllers.

The suite runs under pytest in a subprocess with the bench plugin (as ``bench certify`` runs it, without
the certificate), and the run is read back from its journal. The fair link is the fault profiles' rig with
the controller fair; the full ``sim`` profile and every fault profile also run through ``bench certify`` in
the sensitivity matrix (``tests/test_sensitivity_matrix.py``); each fault's arithmetic is checked in process
by ``tests/test_progressive_controller.py``. The verdicts are exact arithmetic on meters and broadcast
levels with fixed simulator seeds: no error rate.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from suite_runs import ProfileRuns, SessionRuns, SuiteRun, suite_run

pytestmark = pytest.mark.slow(seconds=12)
"""Every test here reads a whole certification run (started by the first test that needs it)."""

JACKPOT, SUPERJACKPOT = "p217-2007/maquinas-automaticas/3", "p217-2007/maquinas-automaticas/4"
ROOT = Path(__file__).resolve().parents[1]
UNLINKED = "sim-progressive-unlinked-machine"
FAULTY_CONTROLLER = 'simulator = { model = "unlinked-machine", unlinked_machine = "slot2", broadcast_interval_s = 0.1 }'


def fair_link() -> str:
    """The unlinked-machine profile with its controller fair: two machines, a jackpot and a superjackpot."""
    text = (ROOT / "bench" / "profiles" / "builtin" / f"{UNLINKED}.toml").read_text(encoding="utf-8")
    assert FAULTY_CONTROLLER in text
    return text.replace(FAULTY_CONTROLLER, 'simulator = { model = "fair", broadcast_interval_s = 0.1 }').replace(
        f'name = "{UNLINKED}"', 'name = "fair-progressive-link"')


PROFILES = {"fair": fair_link(), "unlinked": UNLINKED}


@pytest.fixture(scope="module")
def runs(session_runs: SessionRuns) -> ProfileRuns[SuiteRun]:
    """Both profiles' runs (the suite file through pytest), made when a test first needs them."""
    return ProfileRuns(session_runs, "progressive", PROFILES, suite_run, certificate=False)


def _level(run: SuiteRun, number: int) -> dict:
    [row] = run.starting(f"level {number} ")
    return row


def _check_arithmetic(row: dict) -> None:
    """The recorded figures agree with each other: expected = percent x summed coin in, limits around it."""
    details = row["details"]
    total = sum(details["coin_in_growth_cents"].values())
    expected = Fraction(details["contribution_percent"]) / 100 * total
    assert Fraction(details["expected_growth_cents"]) == expected and details["coin_in_growth_cents_total"] == total
    assert row["value"] == details["level_after_cents"] - details["level_before_cents"]
    assert row["low"] <= expected <= row["high"] and row["high"] - row["low"] <= 1


def test_a_fair_link_passes_both_clauses_with_every_linked_machine_counted(runs) -> None:
    run = runs.get("fair")
    assert run.code == 0, run.output
    assert run.verdicts() == {JACKPOT: "PASS", SUPERJACKPOT: "PASS"}
    jackpot, superjackpot = _level(run, 1), _level(run, 2)
    for row in (jackpot, superjackpot):
        _check_arithmetic(row)
    assert set(jackpot["details"]["coin_in_growth_cents"]) == {"slot"}
    assert set(superjackpot["details"]["coin_in_growth_cents"]) == {"slot", "slot2"}
    assert all(cents >= 2000 * 10 for cents in superjackpot["details"]["coin_in_growth_cents"].values())
    assert {"progressive", "slot", "slot2"} <= set(run.equipment)


def test_a_superjackpot_ignoring_a_linked_machine_fails_the_superjackpot_clause_only(runs) -> None:
    run = runs.get("unlinked")
    assert run.code == 1, run.output
    assert run.verdicts() == {JACKPOT: "PASS", SUPERJACKPOT: "FAIL"}
    row = _level(run, 2)
    _check_arithmetic(row)
    ignored = row["details"]["coin_in_growth_cents"]["slot2"]
    assert abs(Fraction(row["details"]["shortfall_cents"]) - Fraction(ignored, 100)) < 1  # 1 % of slot2's coin in
