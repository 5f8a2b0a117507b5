"""Clause verdicts derived from the evidence journal (and nothing else).

For each clause cited by a test of the run, from the final attempt of each
test:

* FAIL: any measurement citing the clause failed;
* ERROR: a test citing it ended in error (device failure, no evidence) and no
  measurement failed;
* INCOMPLETE: a test of the run's plan (journalled before its first test) that cites
  it did not finish (the run was interrupted or killed before it ended, or the test
  stopped because its device was lost or more than the stated bound of its games
  could not be read: outcome :data:`bench.journal.TEST_INCOMPLETE`), and no
  measurement failed: what did finish cannot stand for what did not;
* PASS: measurements cite it, all passed, and every planned test citing it finished;
* NOT TESTED: no measurement cites it (the test was skipped, or the clause does
  not apply to the profile's equipment), with the reason.

``bench``-testable clauses of the profile's equipment kinds that no test cited
are listed as NOT TESTED too, so the matrix shows what is still uncovered.

With ``applicable=True`` every other catalogued clause about the profile's
equipment kinds is listed as well (the certificate's clause matrix):

* ATTESTED: a ``procedure`` clause (checked by a person) with an attestation
  row in the journal (who, when, statement). A procedure clause is never PASS:
  without an attestation it is NOT TESTED, "no attestation recorded", even when
  bench measurements support it (they are listed with it); a supporting
  measurement that fails makes it FAIL, since that is evidence against the
  equipment;
* NOT TESTED: an ``n/a`` clause, with the catalogue's reason it is outside the
  bench's scope.

An attestation never stands in for a measurement: a ``bench`` clause that only
has an attestation stays NOT TESTED.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.catalogue import Catalogue
from bench.catalogue.model import Testability
from bench.journal import TEST_INCOMPLETE, Journal
from bench.profiles import ProfileError, load_profile_text

PASS, FAIL, ERROR, NOT_TESTED, ATTESTED = "PASS", "FAIL", "ERROR", "NOT TESTED", "ATTESTED"
INCOMPLETE = "INCOMPLETE"
VERDICTS = (PASS, FAIL, ERROR, INCOMPLETE, ATTESTED, NOT_TESTED)
"""Every verdict, in the order a summary lists them."""


@dataclass
class ClauseVerdict:
    """The verdict on one clause and the evidence behind it."""

    clause_id: str
    verdict: str
    reason: str = ""
    measurements: list[dict[str, Any]] = field(default_factory=list)
    tests: list[dict[str, Any]] = field(default_factory=list)
    testability: str = Testability.BENCH.value
    attestations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def key_measurement(self) -> dict[str, Any] | None:
        """The first failed measurement, else the first statistical one, else the first."""
        for row in self.measurements:
            if not row["passed"]:
                return row
        for row in self.measurements:
            if row["p_value"] is not None:
                return row
        return self.measurements[0] if self.measurements else None


def final_tests(journal: Journal, run_id: str) -> dict[str, dict[str, Any]]:
    """The last final row of every test of the run, by node id."""
    finals: dict[str, dict[str, Any]] = {}
    for row in journal.rows("tests", "run_id = ? AND phase = 'final'", (run_id,)):
        finals[row["nodeid"]] = row
    return finals


UNFINISHED = "unfinished"
"""Outcome given to a planned test that has no final row (it was interrupted, or never started)."""


def planned_tests(journal: Journal, run_id: str) -> dict[str, list[str]] | None:
    """The run's plan (node id -> the clauses it cites), as journalled before its first test; None for a run
    journalled before plans were recorded."""
    for row in journal.rows("events", "run_id = ? AND kind = 'plan'", (run_id,)):
        return {str(test["nodeid"]): list(test["clauses"]) for test in row["detail"].get("tests", [])}
    return None


def unfinished_tests(journal: Journal, run_id: str, finals: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """A row (shaped like a ``tests`` row, outcome :data:`UNFINISHED`) for every planned test without a final
    row: started but interrupted, or never started."""
    plan = planned_tests(journal, run_id)
    if not plan:
        return []
    started: dict[str, dict[str, Any]] = {}
    for row in journal.rows("tests", "run_id = ? AND phase = 'start'", (run_id,)):
        started[row["nodeid"]] = row
    rows = []
    for nodeid, clauses in plan.items():
        if nodeid in finals:
            continue
        begun = started.get(nodeid)
        message = (f"{nodeid} started (attempt {begun['attempt']}) and did not finish: the run was interrupted"
                   if begun else f"{nodeid} did not run: the run ended before it")
        rows.append({"run_id": run_id, "at": begun["at"] if begun else "", "nodeid": nodeid,
                     "attempt": begun["attempt"] if begun else 0, "phase": "final", "outcome": UNFINISHED,
                     "duration_s": 0.0, "clauses": clauses, "message": message})
    return rows


def lost_games(journal: Journal, run_id: str) -> int:
    """How many games a killed session lost (their result reached the bench, the journal did not), as
    journalled on resume."""
    return sum(len(row["detail"].get("games", []))
               for row in journal.rows("events", "run_id = ? AND kind = 'lost-games'", (run_id,)))


def overall_verdict(verdicts: list[ClauseVerdict]) -> str:
    """The run's verdict: FAIL when any clause fails, else ERROR when any errored, else INCOMPLETE when any is
    incomplete, else PASS when any passed; NONE when no clause was measured."""
    states = {verdict.verdict for verdict in verdicts}
    for state in (FAIL, ERROR, INCOMPLETE, PASS):
        if state in states:
            return state
    return "NONE"


def run_id_of(journal: Journal) -> str:
    runs = journal.rows("runs")
    if not runs:
        raise ValueError(f"{journal.path}: the journal holds no run")
    return runs[0]["run_id"]


def clause_verdicts(
    journal: Journal, catalogue: Catalogue, kinds: list[str] | None = None, *, applicable: bool = False
) -> list[ClauseVerdict]:
    """Verdicts of every clause the run cites, then the uncovered bench clauses of ``kinds``; with
    ``applicable``, then every procedure and ``n/a`` clause of ``kinds`` too (see the module docstring)."""
    run_id = run_id_of(journal)
    finals = final_tests(journal, run_id)
    measurements = [
        row
        for row in journal.rows("measurements", "run_id = ?", (run_id,))
        if row["nodeid"] in finals and row["attempt"] == finals[row["nodeid"]]["attempt"]
    ]
    verdicts: dict[str, ClauseVerdict] = {}
    for test in finals.values():
        for clause_id in test["clauses"]:
            verdict = verdicts.setdefault(clause_id, ClauseVerdict(clause_id, NOT_TESTED))
            verdict.tests.append(test)
    unfinished = unfinished_tests(journal, run_id, finals)
    for test in unfinished:
        for clause_id in test["clauses"]:
            verdicts.setdefault(clause_id, ClauseVerdict(clause_id, NOT_TESTED)).tests.append(test)
    for row in measurements:
        for clause_id in row["clauses"]:
            verdicts.setdefault(clause_id, ClauseVerdict(clause_id, NOT_TESTED)).measurements.append(row)
    for verdict in verdicts.values():
        failed = [row for row in verdict.measurements if not row["passed"]]
        errored = [test for test in verdict.tests if test["outcome"] == "error"]
        not_finished = [test for test in verdict.tests if test["outcome"] in (UNFINISHED, TEST_INCOMPLETE)]
        if failed:
            verdict.verdict = FAIL
            verdict.reason = "; ".join(row["name"] for row in failed)
        elif errored:
            verdict.verdict = ERROR
            verdict.reason = _first_line(errored[0]["message"])
        elif not_finished:
            verdict.verdict = INCOMPLETE
            verdict.reason = "; ".join(dict.fromkeys(_first_line(test["message"]) for test in not_finished))
        elif verdict.measurements:
            verdict.verdict = PASS
        else:
            skipped = [test for test in verdict.tests if test["outcome"] == "skipped"]
            verdict.reason = (
                f"skipped: {_first_line(skipped[0]['message']).removeprefix('Skipped: ')}" if skipped
                else "not applicable to this profile's equipment (no measurement cites it)"
            )
    for verdict in verdicts.values():
        if verdict.clause_id in catalogue:
            verdict.testability = catalogue[verdict.clause_id].testability.value
    attested: dict[str, list[dict[str, Any]]] = {}
    for row in journal.rows("attestations", "run_id = ?", (run_id,)):
        attested.setdefault(row["clause_id"], []).append(row)
    ordered = [verdicts[clause.id] for clause in catalogue.clauses() if clause.id in verdicts]
    ordered += [verdict for clause_id, verdict in verdicts.items() if clause_id not in catalogue]
    for kind in kinds or []:
        for clause in catalogue.clauses(kind=kind, testability=Testability.BENCH):
            if clause.id not in verdicts:
                verdicts[clause.id] = ClauseVerdict(clause.id, NOT_TESTED, "no suite test of this bench cites it yet")
                ordered.append(verdicts[clause.id])
    if applicable:
        for kind in kinds or []:
            for clause in catalogue.clauses(kind=kind):
                if clause.id not in verdicts:
                    verdicts[clause.id] = ClauseVerdict(clause.id, NOT_TESTED, testability=clause.testability.value)
                    ordered.append(verdicts[clause.id])
    games = run_games(journal)
    for verdict in ordered:
        verdict.attestations = attested.get(verdict.clause_id, [])
        _judge_by_testability(verdict, catalogue)
        _judge_by_game(verdict, games)
    return ordered


def run_kinds(journal: Journal) -> list[str]:
    """The equipment kinds of the run's profile (as recorded in the journal)."""
    from bench.profiles import load_profile_text

    run = journal.rows("runs")[0] if journal.rows("runs") else None
    if run is None:
        raise ValueError(f"{journal.path}: the journal holds no run")
    profile = load_profile_text(run["profile_text"], run["profile_source"])
    return sorted({item.kind for item in profile.equipment.values()})


def run_games(journal: Journal) -> tuple[frozenset[str], frozenset[str]]:
    """(the games the run's equipment plays, every game that equipment could be set to play), from the
    ``game`` option of each piece of equipment in the profile the journal holds (empty when unknown)."""
    runs = journal.rows("runs")
    if not runs:
        return frozenset(), frozenset()
    try:
        profile = load_profile_text(runs[0]["profile_text"], runs[0]["profile_source"])
    except (ProfileError, KeyError, TypeError):
        return frozenset(), frozenset()
    played: set[str] = set()
    possible: set[str] = set()
    for item in profile.equipment.values():
        options = getattr(item, "options", None)
        if options is None or "game" not in type(options).model_fields:
            continue
        played.add(str(options.game))
        possible.update(str(game) for game in typing.get_args(type(options).model_fields["game"].annotation))
    return frozenset(played), frozenset(possible)


def _judge_by_game(verdict: ClauseVerdict, games: tuple[frozenset[str], frozenset[str]]) -> None:
    """A clause of a game no equipment of the run plays (roleta-americana on a French wheel) is out of the
    run's scope: NOT TESTED with that reason, not ERROR, when no measurement cites it; a suite test cites
    the clauses of every game its equipment may play, and measures those of the game it plays."""
    played, possible = games
    parts = verdict.clause_id.split("/")
    game = parts[1] if len(parts) > 2 else ""
    if verdict.measurements or game not in possible or game in played or verdict.verdict == ATTESTED:
        return
    verdict.verdict = NOT_TESTED
    verdict.reason = (f"out of scope: a clause of {game}, a game this run's equipment does not play "
                      f"(it plays {', '.join(sorted(played))})")


def verdicts_of_run(run_dir: Path, catalogue: Catalogue, *, applicable: bool = False) -> list[ClauseVerdict]:
    """:func:`clause_verdicts` of the run in ``run_dir`` for its profile's equipment kinds."""
    with Journal(Path(run_dir) / Journal.FILENAME, create=False) as journal:
        return clause_verdicts(journal, catalogue, run_kinds(journal), applicable=applicable)


def _judge_by_testability(verdict: ClauseVerdict, catalogue: Catalogue) -> None:
    """ATTESTED or the NOT TESTED reason of a procedure or ``n/a`` clause no measurement cites; a procedure
    clause whose supporting measurements all passed is not PASS either (a person's check is what it needs)."""
    if verdict.verdict in (FAIL, ERROR, INCOMPLETE):
        return  # evidence against the equipment is shown whatever the clause's testability
    if verdict.measurements and verdict.testability == Testability.PROCEDURE.value:
        verdict.verdict = ATTESTED if verdict.attestations else NOT_TESTED
        verdict.reason = "" if verdict.attestations else (
            "procedure (checked by a person): no attestation recorded; the bench's supporting measurements passed")
        return
    if verdict.measurements:
        return
    if verdict.testability == Testability.PROCEDURE.value:
        if verdict.attestations:
            verdict.verdict, verdict.reason = ATTESTED, ""
        else:
            verdict.reason = "procedure (checked by a person): no attestation recorded"
    elif verdict.testability == Testability.NOT_APPLICABLE.value and not verdict.tests:
        verdict.reason = f"outside the bench's scope: {catalogue[verdict.clause_id].reason}"
    elif verdict.attestations and not verdict.reason:
        verdict.reason = "an attestation does not replace a measurement of a bench clause"


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if line.startswith("E "):
            return line[2:].strip()[:300]
    return (lines[-1] if lines else "")[:300]


def exit_code(verdicts: list[ClauseVerdict]) -> int:
    """0 when every tested clause passes, 1 when any fails, 2 when any errored or is incomplete."""
    states = {verdict.verdict for verdict in verdicts}
    if FAIL in states:
        return 1
    if ERROR in states or INCOMPLETE in states:
        return 2
    return 0
