"""``suites/test_shuffler.py`` end to end through ``bench certify --suite shuffler``, and the power it states.

Each fault must fail exactly its clauses. Seeds are fixed, so every outcome is deterministic; the
error rates at these sample sizes are:

* fair shuffles (``sim``, and every profile below but the 3-riffle one): the randomness family fails
  with probability at most α = 0.01 (Holm over four tests). Dealing, returning and the inventory are
  exact checks: a machine that loses, adds or misreads no card never fails them.
* 3 GSR riffles per shuffle, 40 shuffles of 52 cards: the rising-sequence test alone rejects at α/4
  with probability 1.000 (exact, :func:`rising_sequence_power`): a miss below 1e-6.
* a card lost in 1 shuffle in 5: no loss in 40 shuffles with probability 0.8^40 = 1.3e-4.
* a continuous shuffler with jams and damaged cards at 1 deal in 200 each, 2,080 deals: none of one kind
  with probability 3e-5.
* two decks with ``alternation_fault = "same-deck"``: every shuffle repeats the deck, a certain failure.

The runs take a few seconds each; each run is made once per test session, when a test first needs it (``tests/suite_runs.py``): the sensitivity
matrix reads the same runs of the built-in profiles.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from suite_runs import ProfileRuns, SessionRuns, SuiteRun, suite_run

from bench.games.shuffle_models import gsr_riffle
from rng_tests.fairness.cards import rising_sequence_test
from rng_tests.fairness.shuffle_power import rising_sequence_power

pytestmark = pytest.mark.slow(seconds=20)
"""Every test here reads a whole certification run (started by the first test that needs it)."""

RANDOMNESS, RECONCILED, WARNING = "p217-2007/blackjack/53", "p217-2007/blackjack/55", "p217-2007/blackjack/51"
CONTINUOUS, ALTERNATE = "p217-2007/blackjack/57", "p217-2007/poquer-nao-bancado/76"

TEMPORARY = """name = "{name}"
[equipment.shuffler]
kind = "card-shuffler"
identity = {{ manufacturer = "Bench Simulators", model = "CS-8", serial = "T-CS" }}
options = {{ mode = "{mode}", backs = {backs}, shuffles = 10, alpha = 0.01 }}
simulator = {{ model = "fair", seed = 7, {faults} }}
"""
PROFILES: dict[str, str] = {
    "sim": "sim",
    "weak": "sim-weak-shuffler",
    "lossy": "sim-lossy-shuffler",
    "jamming": "sim-jamming-shuffler",
    "same-deck": TEMPORARY.format(name="same-deck", mode="alternate", backs='["RED", "BLUE"]',
                                  faults='alternation_fault = "same-deck"'),
}


@pytest.fixture(scope="module")
def runs(session_runs: SessionRuns) -> ProfileRuns[SuiteRun]:
    """Every profile's run, made when a test first needs it (once per session: the sensitivity matrix shares them)."""
    return ProfileRuns(session_runs, "shuffler", PROFILES, suite_run)



# -- the suite on each profile ---------------------------------------------------------------------


def test_the_fair_sim_profile_passes_and_jam_handling_is_not_tested(runs: ProfileRuns[SuiteRun]) -> None:
    run = runs.get("sim")
    assert run.code == 0, run.output
    assert run.verdicts() == {RANDOMNESS: "PASS", RECONCILED: "PASS"}
    randomness = run.starting("shuffles: ")
    assert len(randomness) == 4 and all(row["sample_size"] == 40 and row["alpha"] == 0.01 for row in randomness)
    [rising] = run.starting("shuffles: rising sequences")
    assert rising["power"] >= 0.9999 and "3 Gilbert-Shannon-Reeds riffles" in rising["details"]["power_alternative"]
    assert "Holm-adjusted over a family of 4 tests" in rising["method"]
    for test in ("test_jammed_card_lights_the_warning_and_stops_dealing",
                 "test_damaged_card_lights_the_warning_and_stops_dealing"):
        assert run.tests[test]["outcome"] == "skipped"  # NOT TESTED with its reason, never PASS
        assert "could not be observed" in run.tests[test]["message"]
        assert "rate is 0.0" in run.tests[test]["message"]


def test_a_three_riffle_shuffler_fails_randomness_only(runs: ProfileRuns[SuiteRun]) -> None:
    run = runs.get("weak")
    assert run.code == 1, run.output
    assert run.verdicts() == {RANDOMNESS: "FAIL", RECONCILED: "PASS"}
    failed = {row["name"] for row in run.measurements if not row["passed"]}
    assert "shuffles: rising sequences" in failed and failed <= {row["name"] for row in run.starting("shuffles: ")}
    [rising] = run.starting("shuffles: rising sequences")
    assert rising["details"]["mean_per_shuffle"] <= 8  # 3 riffles leave at most 2^3 rising sequences
    heat = [entry["counts"] for row in run.starting("shuffles: ") for entry in row["series"] if entry["kind"] == "cards"]
    assert len(heat) == 1  # the certificate's card-by-position heat map, recorded once
    counts = np.array(heat[0])
    assert counts.shape == (13, 13) and (counts.sum(axis=1) == 4 * 40).all()
    # 3 riffles leave the top and bottom blocks of the deck near where they started: the corners are over-filled
    expected = 4 * 40 / 13
    assert counts[0, 0] > 1.5 * expected and counts[12, 12] > 1.5 * expected


def test_a_shuffler_losing_cards_fails_the_reconciliation_only(runs: ProfileRuns[SuiteRun]) -> None:
    run = runs.get("lossy")
    assert run.code == 1, run.output
    assert run.verdicts() == {RANDOMNESS: "PASS", RECONCILED: "FAIL"}
    [dealt] = run.starting("shuffles whose dealt cards were not the deck in play")
    assert dealt["passed"] == 0 and dealt["value"] >= 1
    assert dealt["details"]["cards_missing"] == dealt["value"] and dealt["details"]["cards_extra"] == 0
    [inventory] = run.starting("inventories not accounting")
    assert inventory["passed"] == 0
    [rising] = run.starting("shuffles: rising sequences")  # tested on the complete shuffles only, counted
    assert rising["details"]["shuffles_not_usable"] == dealt["value"]
    assert rising["sample_size"] == 40 - dealt["value"]


def test_jams_and_damaged_cards_light_the_warning_and_stop_dealing(runs: ProfileRuns[SuiteRun]) -> None:
    run = runs.get("jamming")
    assert run.code == 0, run.output
    assert run.verdicts() == {RANDOMNESS: "PASS", RECONCILED: "PASS", WARNING: "PASS", CONTINUOUS: "PASS"}
    for kind in ("jam", "damaged card"):
        handling = run.starting(f"{kind}s ") + run.starting(f"cards delivered after a {kind} ")
        assert len(handling) == 3 and all(row["passed"] == 1 and row["sample_size"] >= 3 for row in handling)
        assert all(row["clauses"] == [WARNING] for row in handling)
    [refused] = run.starting("cards delivered after a jam ")
    assert set(refused["details"]["refusals"]) == {"STOP JAM JAM"}


def test_a_continuous_shuffler_keeps_every_card_inside(runs: ProfileRuns[SuiteRun]) -> None:
    run = runs.get("jamming")
    continuous = [row for row in run.measurements if CONTINUOUS in row["clauses"]]
    assert continuous and all(row["passed"] for row in continuous)
    [mode] = run.starting("mode the machine reports")
    assert mode["value"] == "CONTINUOUS"
    [returns] = run.starting("returns whose cards were not back in play")
    assert returns["sample_size"] == 39  # every cycle after the first deals without a new SHUFFLE
    [checks] = run.starting("checks finding cards neither inside")
    assert checks["sample_size"] == 40
    [dealt] = run.starting("shuffles whose dealt cards were not the deck in play")
    assert dealt["clauses"] == [RECONCILED, CONTINUOUS]


def test_a_two_deck_shuffler_that_keeps_one_deck_fails_the_alternation(runs: ProfileRuns[SuiteRun]) -> None:
    run = runs.get("same-deck")
    assert run.code == 1, run.output
    assert run.verdicts() == {ALTERNATE: "FAIL"}
    failed = {row["name"] for row in run.measurements if not row["passed"]}
    assert failed == {"distinct back colours brought into play", "consecutive shuffles bringing the same deck into play"}
    [repeated] = run.starting("consecutive shuffles bringing the same deck")
    assert repeated["value"] == repeated["sample_size"] == 9
    assert all(row["passed"] for row in run.starting("shuffles: "))  # the deck it keeps is still shuffled fairly


# -- the stated power ------------------------------------------------------------------------------


def test_the_stated_power_matches_simulation() -> None:
    """Exact power against 7 riffles, 4 shuffles, α = 0.05 (0.374) against 2,000 simulated samples of
    :func:`rising_sequence_test`: Monte-Carlo standard error 0.011; the tolerance is 4 of them (seed fixed)."""
    exact = rising_sequence_power(52, 4, 0.05, 7)
    rng = np.random.default_rng(5)
    samples = gsr_riffle(52, rng, riffles=7, shuffles=4 * 2000, method="inverse").reshape(2000, 4, 52)
    rejected = np.mean([rising_sequence_test(np.arange(52), sample).p_value < 0.05 for sample in samples])
    assert 0.3 < exact < 0.45
    assert abs(rejected - exact) < 4 * np.sqrt(exact * (1 - exact) / 2000)


def test_the_power_is_the_level_under_uniform_shuffles_and_one_against_three_riffles() -> None:
    size = rising_sequence_power(52, 40, 0.01, 40)  # 40 riffles: within 1e-10 of uniform
    assert 0.005 < size <= 0.01  # a discrete test: at most its level
    assert rising_sequence_power(52, 40, 0.0025, 3) > 1 - 1e-6
    assert rising_sequence_power(52, 40, 0.0025, 7) > rising_sequence_power(52, 40, 0.0025, 8)


@pytest.mark.parametrize(("arguments", "message"), [
    ((1, 40, 0.01, 3), "cards"), ((52, 0, 0.01, 3), "shuffles"), ((52, 40, 0.01, -1), "riffles"),
    ((52, 40, 1.5, 3), "alpha"), ((52, 40, 0.01, True), "riffles"),
])
def test_bad_power_arguments_are_named(arguments: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rising_sequence_power(*arguments)
