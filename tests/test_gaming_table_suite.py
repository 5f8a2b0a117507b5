"""``suites/test_gaming_tables.py`` end to end on every built-in ``sim-table-*`` profile.

Every check of the suite is exact, so no verdict has a statistical error rate: a fair table passes every
clause it exercises with certainty, and each fault model fails exactly the clause(s) of the rule it breaks
(seeds fixed in the profiles, so which rounds expose the fault is deterministic).

Each faulty profile goes through ``bench certify --suite gaming_tables`` (exit code, clause verdicts,
certificate), the run the sensitivity matrix reads too; the fair profiles run the same suite file through pytest
with the bench plugin (the same journal and measurements, no certificate). Each run is made once per test session,
when a test first needs it (``tests/suite_runs.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from suite_runs import FinishedRun, ProfileRuns, SessionRuns, SuiteRun

from bench.journal import Journal

pytestmark = pytest.mark.slow(seconds=15)
"""Every test here reads a whole certification run (started by the first test that needs it)."""

ROOT = Path(__file__).resolve().parents[1]
NAO_BANCADO, SINTETICO = "p217-2007/poquer-nao-bancado", "p461-2001/poquer-sintetico"
FRANCESA, CRAPS, BJ, BACARA = ("p217-2007/roleta-francesa", "p217-2007/craps", "p217-2007/blackjack",
                               "p217-2007/bacara-ponto-e-banca")

EXPECTED_FAILURES: dict[str, set[str]] = {
    "roulette": set(), "online-roulette": set(), "craps": set(), "cussec": set(), "banca-francesa": set(),
    "blackjack": set(), "bacara": set(), "poquer": set(), "poquer-p461": set(), "poquer-online": set(),
    "holdem": set(), "omaha": set(), "sintetico": set(), "sintetico-p461": set(),
    "split-pays-16": {f"{FRANCESA}/18"},
    "zero-loses-half": {f"{FRANCESA}/19"},
    "limit-too-high": {f"{FRANCESA}/24"},
    "field-12-pays-triple": {f"{CRAPS}/13.1"},
    "triple-wins-small": {"p217-2007/cussec/9"},
    "line-bets-play-whole": {"p217-2007/banca-francesa/11"},
    "dealer-hits-soft-17": {f"{BJ}/6", f"{BJ}/19"},
    "blackjack-pays-6-5": {f"{BJ}/21"},
    "banca-draws-like-ponto": {f"{BACARA}/13"},
    "two-pairs-pays-1": {"p217-2007/poquer-sem-descarte/6"},
    "dealer-qualifies-ace-queen": {"srij-803-2015/poquer-sem-descarte/25", "srij-803-2015/poquer-sem-descarte/26"},
    "side-pots-ignored": {f"{NAO_BANCADO}/38", f"{NAO_BANCADO}/49", f"{NAO_BANCADO}/50"},
    "rake-above-limit": {f"{NAO_BANCADO}/7"},
    "sintetico-full-above-flush": {f"{SINTETICO}/1", f"{SINTETICO}/24", f"{SINTETICO}/30"},
}
"""Each profile (``sim-table-<key>``) and the clauses it must fail; every other clause it measures must pass."""
CERTIFIED = ("blackjack-pays-6-5",)
"""The faulty profile whose certificate and printed verdict are checked."""


class Run(SuiteRun):
    """One finished run, with the rounds it read and its certificate."""

    def read_more(self, journal: Journal) -> None:
        self.rounds = journal.observations(journal.rows("runs")[0]["run_id"], "gaming-table/rounds")
        self.certificate = self.run_dir / "report.html"

    def clauses(self, passed: bool) -> set[str]:
        return {clause for row in self.measurements if bool(row["passed"]) is passed for clause in row["clauses"]}


def _read(finished: FinishedRun) -> Run:
    return Run(finished.code, finished.output, finished.run_dir)


@pytest.fixture(scope="module")
def runs(session_runs: SessionRuns) -> ProfileRuns[Run]:
    """Every profile's run, made when a test first needs it: through ``bench certify`` for the faulty profiles
    (the sensitivity matrix certifies the same), through pytest for the fair ones."""
    return ProfileRuns(session_runs, "gaming_tables", {key: f"sim-table-{key}" for key in EXPECTED_FAILURES}, _read,
                       certificate=lambda key: bool(EXPECTED_FAILURES[key]))


@pytest.mark.parametrize("key", list(EXPECTED_FAILURES))
def test_each_profile_fails_exactly_its_clauses(runs: ProfileRuns[Run], key: str) -> None:
    run = runs.get(key)
    assert run.clauses(passed=False) == EXPECTED_FAILURES[key], run.output[-3000:]
    assert run.clauses(passed=True), "a run that measured nothing proves nothing"
    assert not [name for name, test in run.tests.items() if test["outcome"] == "error"], run.output[-3000:]
    assert len(run.rounds) >= 200  # every round read is committed to the journal
    if not EXPECTED_FAILURES[key]:
        assert run.code == 0, run.output[-3000:]
    else:
        assert run.code == 1, run.output[-3000:]


def test_certify_judges_the_clauses_and_writes_the_certificate(runs: ProfileRuns[Run]) -> None:
    faulty = runs.get(CERTIFIED[0])
    assert faulty.certificate.is_file()
    assert "FAIL" in faulty.output and f"{BJ}/21" in faulty.output
    fair = runs.get("roulette")
    assert f"{FRANCESA}/18" in fair.clauses(passed=True)
    # the other games' tests are skipped with their reason, not failed
    assert fair.tests["test_blackjack_settlements"]["outcome"] == "skipped"
    assert "plays roleta-francesa" in fair.tests["test_blackjack_settlements"]["message"]


def test_a_wrong_payout_is_shown_with_the_oracle_amount(runs: ProfileRuns[Run]) -> None:
    run = runs.get("split-pays-16")
    [row] = [row for row in run.measurements if not row["passed"]]
    first = row["details"]["first_disagreements"][0]
    assert first["bet"]["chance"] == "cavalo" and first["bet"]["decision"] == "win"
    assert first["bet"]["prize"] == 16 * first["bet"]["stake"]
    assert first["oracle"]["prize"] == str(17 * first["bet"]["stake"])
    assert row["value"] == len([1 for r in run.rounds for b in r["value"]["bets"]
                                if b["chance"] == "cavalo" and b["decision"] == "win"])


def test_hands_against_a_dealer_breaking_the_rule_are_counted_apart(runs: ProfileRuns[Run]) -> None:
    run = runs.get("dealer-hits-soft-17")
    [dealer] = [row for row in run.measurements if row["name"].endswith("dealer hands breaking the drawing rule")]
    assert dealer["value"] > 0 and "17" in dealer["details"]["first_broken"][0]["problem"]
    settlements = [row for row in run.measurements if "settlements disagreeing" in row["name"]]
    assert settlements and all(row["passed"] for row in settlements)
    assert all(row["details"].get("not_settleable", 0) > 0 for row in settlements)
