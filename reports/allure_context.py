"""What an allure report of a run needs besides the tests' own results, written from the journal and the verdicts.

* ``environment.properties``: the run id, profile, bench version, host, operator and each device's identity
  (allure's "Environment" panel);
* ``executor.json``: the bench as the executor and the run id as the build (allure's "Executors" panel);
* ``categories.json``: failures sorted by what they mean for a verdict (a measurement outside its limit, a test
  without evidence, a device or bench error, an unfinished test, a clause not tested);
* one ``skipped`` result per NOT TESTED or INCOMPLETE clause, titled with the clause and its summary, filed
  under the clause's labels, the reason as its message: the clauses no test result shows are in the report.

Rewritten whole each time (a resumed run's clause that is now judged loses its skipped result). Every file is
written atomically (:mod:`bench.rundir`).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.allure_labels import allure_title, clause_labels
from bench.catalogue import Catalogue
from bench.journal import Journal
from bench.rundir import atomic_write_text
from reports.allure_evidence import CLAUSE_RESULTS_PACKAGE, RESULTS_DIR
from reports.clause_verdicts import INCOMPLETE, NOT_TESTED, ClauseVerdict

SKIPPED_VERDICTS = (NOT_TESTED, INCOMPLETE)
"""Verdicts whose clauses get a skipped result of their own."""

CATEGORIES: list[dict[str, Any]] = [
    {"name": "FAIL: a measurement outside its limit", "matchedStatuses": ["failed"],
     "messageRegex": "(?s).*measurement failed.*"},
    {"name": "ERROR: a test recorded no measurement", "matchedStatuses": ["failed", "broken"],
     "messageRegex": "(?s).*recorded no measurement.*"},
    {"name": "ERROR: device or bench error", "matchedStatuses": ["broken"]},
    {"name": "INCOMPLETE: a planned test did not finish", "matchedStatuses": ["skipped"],
     "messageRegex": f"(?s){INCOMPLETE}.*"},
    {"name": "NOT TESTED", "matchedStatuses": ["skipped"], "messageRegex": f"(?s){NOT_TESTED}.*"},
]
"""allure categories, first match wins; the messages matched are those the bench's plugin and
:func:`write_run_context` write."""

_NAMESPACE = uuid.UUID("0b6f4f61-9a43-4f3c-8d0e-6f1c2b7a5d19")


def _properties(pairs: Iterable[tuple[str, str]]) -> str:
    """Java properties text (allure reads ``environment.properties`` as such): keys and values escaped."""

    def escape(text: str, key: bool) -> str:
        text = text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
        for char in ("=", ":", "#", "!") + ((" ",) if key else ()):
            text = text.replace(char, "\\" + char)
        return "".join(char if ord(char) < 0x7F else f"\\u{ord(char):04x}" for char in text)

    return "".join(f"{escape(key, True)}={escape(value, False)}\n" for key, value in pairs)


def _identity_text(row: dict[str, Any]) -> str:
    """A device's identity as it reported it (else as configured): manufacturer, model, serial, firmware."""
    reported = row.get("reported") or {}
    configured = (row.get("configured") or {}).get("identity") or {}
    identity = reported or configured
    parts = [str(identity.get(field)) for field in ("manufacturer", "model") if identity.get(field)]
    parts += [f"{field} {identity[field]}" for field in ("serial", "firmware") if identity.get(field)]
    return f"{row['kind']}: {' '.join(parts)}" if parts else str(row["kind"])


def environment(journal: Journal) -> list[tuple[str, str]]:
    """(key, value) pairs of ``environment.properties`` for the journal's run."""
    run = journal.rows("runs")[0]
    operators = [row["detail"].get("operator") for row in journal.rows("events", "kind = 'operator'")]
    pairs = [("Run", run["run_id"]), ("Profile", run["profile_name"]), ("Bench version", run["software_version"]),
             ("Host", run["host"])]
    operator = next((name for name in reversed(operators) if name), None)
    if operator:
        pairs.append(("Operator", str(operator)))
    seen: set[str] = set()
    for row in journal.rows("equipment"):
        if row["name"] not in seen:
            seen.add(row["name"])
            pairs.append((f"Equipment {row['name']}", _identity_text(row)))
    return pairs


def _millis(timestamp: str) -> int:
    return int(datetime.fromisoformat(timestamp).timestamp() * 1000)


def clause_result(verdict: ClauseVerdict, catalogue: Catalogue, run_id: str, started_ms: int) -> dict[str, Any]:
    """The skipped allure result of a NOT TESTED or INCOMPLETE clause: clause and summary as title, the verdict
    and its reason as the message, the Portuguese text as the description, the clause's labels."""
    clause = catalogue[verdict.clause_id] if verdict.clause_id in catalogue else None  # noqa: SIM401
    titles = {key: regulation.title for key, regulation in catalogue.regulations.items()}
    summary = clause.summary_en if clause is not None else verdict.clause_id
    history = hashlib.md5(f"{CLAUSE_RESULTS_PACKAGE}#{verdict.clause_id}".encode()).hexdigest()  # an id, not a secret
    labels = [{"name": name, "value": value} for name, value in clause_labels([verdict.clause_id], titles)]
    labels += [{"name": "suite", "value": f"clauses {verdict.verdict}"}, {"name": "package",
                                                                            "value": CLAUSE_RESULTS_PACKAGE}]
    return {
        "uuid": str(uuid.uuid5(_NAMESPACE, f"{run_id}/{verdict.clause_id}")),
        "historyId": history,
        "testCaseId": history,
        "fullName": f"{CLAUSE_RESULTS_PACKAGE}#{verdict.clause_id}",
        "name": allure_title([verdict.clause_id], summary),
        "status": "skipped",
        "statusDetails": {"message": f"{verdict.verdict}: {verdict.reason}" if verdict.reason else verdict.verdict},
        "description": clause.text_pt if clause is not None else "",
        "labels": labels,
        "parameters": [],
        "steps": [],
        "attachments": [],
        "start": started_ms,
        "stop": started_ms,
    }


def write_run_context(run_dir: Path, verdicts: list[ClauseVerdict], catalogue: Catalogue) -> int:
    """Write the environment, executor, categories and the skipped results of the NOT TESTED and INCOMPLETE
    clauses into ``run_dir/allure-results`` (replacing those an earlier call wrote); returns how many clause
    results were written (0 when the run has no allure results). Call under the run's lock."""
    results_dir = Path(run_dir) / RESULTS_DIR
    if not results_dir.is_dir():
        return 0
    with Journal(Path(run_dir) / Journal.FILENAME, create=False) as journal:
        pairs = environment(journal)
        run = journal.rows("runs")[0]
    run_id = run["run_id"]
    atomic_write_text(results_dir / "environment.properties", _properties(pairs))
    atomic_write_text(results_dir / "executor.json", json.dumps(
        {"name": "SRIJ certification bench", "type": "bench", "buildName": run_id,
         "reportName": f"Certification {run_id} ({run['profile_name']})"}, ensure_ascii=False, indent=1))
    atomic_write_text(results_dir / "categories.json", json.dumps(CATEGORIES, ensure_ascii=False, indent=1))
    for path in results_dir.glob("*-result.json"):
        try:
            earlier = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if str(earlier.get("fullName", "")).startswith(f"{CLAUSE_RESULTS_PACKAGE}#"):
            path.unlink()
    started = _millis(run["created_at"])
    written = 0
    for verdict in verdicts:
        if verdict.verdict in SKIPPED_VERDICTS:
            result = clause_result(verdict, catalogue, run_id, started)
            atomic_write_text(results_dir / f"{result['uuid']}-result.json", json.dumps(result, ensure_ascii=False))
            written += 1
    return written
