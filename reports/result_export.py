"""A run's verdicts for machines: a JSON document of a stable, versioned shape and a JUnit XML file.

``bench certify --json FILE`` writes :class:`RunResults` (its JSON schema is ``docs/results.schema.json``,
kept equal to the model by the project's tests): the run id and profile, the overall verdict and the count
per verdict, then every clause of the run's summary with its verdict, reason and the measurements behind it.
``--junit-xml FILE`` writes one ``testcase`` per clause (classname = regulation.section, name = the clause
id): a FAIL is a ``failure`` naming the failed measurements, an ERROR an ``error``, a NOT TESTED or
INCOMPLETE clause is ``skipped`` with its reason. Both present the verdicts of
:mod:`reports.clause_verdicts` as they are; both files are written atomically.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Literal
from xml.etree import ElementTree

from pydantic import BaseModel, ConfigDict, Field

from bench.catalogue import Catalogue
from bench.journal import Journal
from bench.rundir import atomic_write_bytes, atomic_write_text
from reports.clause_verdicts import (
    ATTESTED,
    ERROR,
    FAIL,
    INCOMPLETE,
    NOT_TESTED,
    PASS,
    VERDICTS,
    ClauseVerdict,
    overall_verdict,
)

SCHEMA_VERSION = 1
"""Version of the shape of :class:`RunResults`; a change that is not only an added optional field raises it."""

Verdict = Literal["PASS", "FAIL", "ERROR", "INCOMPLETE", "ATTESTED", "NOT TESTED"]
Overall = Literal["PASS", "FAIL", "ERROR", "INCOMPLETE", "NONE"]


class MeasurementResult(BaseModel):
    """One measurement behind a clause's verdict, as the journal holds it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="what was measured")
    test: str = Field(description="pytest node id of the test that measured it")
    value: Any = Field(description="the measured value (number, text, boolean, list)")
    unit: str | None = None
    low: float | None = Field(None, description="lower limit, inclusive")
    high: float | None = Field(None, description="upper limit, inclusive")
    expected: Any = Field(None, description="the exact value required, when the limit is one")
    passed: bool
    p_value: float | None = None
    alpha: float | None = Field(None, description="significance level of the test")
    sample_size: int | None = None
    power: float | None = Field(None, description="power against the named alternative")
    method: str | None = None


class ClauseResult(BaseModel):
    """A clause's verdict and the measurements behind it."""

    model_config = ConfigDict(extra="forbid")

    clause: str = Field(description="clause id, <regulation>/<section>/<rule>")
    verdict: Verdict
    reason: str = Field(description="why it is not PASS (failed measurements, error, what did not finish); may be empty")
    summary: str = Field(description="the clause's English summary from the catalogue; empty for an unknown clause")
    testability: str = Field(description="bench, procedure or n/a")
    tests: list[str] = Field(description="pytest node ids of the tests citing it")
    measurements: list[MeasurementResult]


class RunResults(BaseModel):
    """The document ``bench certify --json FILE`` writes."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = SCHEMA_VERSION
    run_id: str
    profile: str
    started_at: str = Field(description="ISO 8601 time the run was created")
    bench_version: str
    overall: Overall = Field(description="FAIL if any clause failed, else ERROR, else INCOMPLETE, else PASS")
    counts: dict[str, int] = Field(description="number of clauses per verdict (verdicts with none left out)")
    clauses: list[ClauseResult]


def _measurement(row: dict[str, Any]) -> MeasurementResult:
    return MeasurementResult(
        name=row["name"], test=row["nodeid"], value=row["value"], unit=row.get("unit") or None,
        low=row.get("low"), high=row.get("high"), expected=row.get("expected"), passed=bool(row["passed"]),
        p_value=row.get("p_value"), alpha=row.get("alpha"), sample_size=row.get("sample_size"),
        power=row.get("power"), method=row.get("method") or None)


def verdict_counts(verdicts: list[ClauseVerdict]) -> dict[str, int]:
    """Clauses per verdict, in :data:`reports.clause_verdicts.VERDICTS` order, verdicts with none left out."""
    found = Counter(verdict.verdict for verdict in verdicts)
    return {verdict: found[verdict] for verdict in VERDICTS if found[verdict]}


def run_results(run_dir: Path, verdicts: list[ClauseVerdict], catalogue: Catalogue) -> RunResults:
    """The :class:`RunResults` of the run in ``run_dir`` whose clause verdicts are ``verdicts``."""
    with Journal(Path(run_dir) / Journal.FILENAME, create=False) as journal:
        run = journal.rows("runs")[0]
    clauses = [
        ClauseResult(
            clause=verdict.clause_id, verdict=verdict.verdict, reason=verdict.reason,  # type: ignore[arg-type]
            summary=catalogue[verdict.clause_id].summary_en if verdict.clause_id in catalogue else "",
            testability=verdict.testability, tests=list(dict.fromkeys(test["nodeid"] for test in verdict.tests)),
            measurements=[_measurement(row) for row in verdict.measurements])
        for verdict in verdicts
    ]
    return RunResults(run_id=run["run_id"], profile=run["profile_name"], started_at=run["created_at"],
                      bench_version=run["software_version"], overall=overall_verdict(verdicts),  # type: ignore[arg-type]
                      counts=verdict_counts(verdicts), clauses=clauses)


def write_json(path: Path, results: RunResults) -> None:
    """``results`` as indented UTF-8 JSON, written atomically."""
    atomic_write_text(Path(path), results.model_dump_json(indent=2) + "\n")


def results_schema() -> dict[str, Any]:
    """The JSON schema of :class:`RunResults` (``docs/results.schema.json``)."""
    return RunResults.model_json_schema()


def _failed_text(clause: ClauseResult) -> str:
    lines = []
    for measurement in clause.measurements:
        if not measurement.passed:
            unit = f" {measurement.unit}" if measurement.unit else ""
            limit = (f"expected {measurement.expected}" if measurement.expected is not None
                     else f"limits [{measurement.low}, {measurement.high}]")
            lines.append(f"{measurement.name} = {measurement.value}{unit} ({limit}; {measurement.test})")
    return "\n".join(lines)


def junit_xml(results: RunResults) -> bytes:
    """One ``testcase`` per clause in one ``testsuite`` named after the run (see the module docstring)."""
    counts = Counter(clause.verdict for clause in results.clauses)
    skipped = counts[NOT_TESTED] + counts[INCOMPLETE]
    totals = {"tests": str(len(results.clauses)), "failures": str(counts[FAIL]), "errors": str(counts[ERROR]),
              "skipped": str(skipped)}
    root = ElementTree.Element("testsuites", {"name": "bench certify", **totals})
    suite = ElementTree.SubElement(root, "testsuite", {"name": results.run_id, "timestamp": results.started_at,
                                                       **totals})
    properties = ElementTree.SubElement(suite, "properties")
    for name, value in (("run_id", results.run_id), ("profile", results.profile), ("overall", results.overall),
                        ("bench_version", results.bench_version)):
        ElementTree.SubElement(properties, "property", {"name": name, "value": value})
    for clause in results.clauses:
        regulation, section, _ = (clause.clause.split("/", 2) + ["", ""])[:3]
        case = ElementTree.SubElement(suite, "testcase", {"classname": f"{regulation}.{section}",
                                                          "name": clause.clause})
        if clause.verdict == FAIL:
            ElementTree.SubElement(case, "failure", {"message": f"FAIL: {clause.reason}", "type": FAIL}).text = (
                _failed_text(clause))
        elif clause.verdict == ERROR:
            ElementTree.SubElement(case, "error", {"message": f"ERROR: {clause.reason}", "type": ERROR})
        elif clause.verdict in (NOT_TESTED, INCOMPLETE):
            ElementTree.SubElement(case, "skipped", {"message": f"{clause.verdict}: {clause.reason}".rstrip(": ")})
        elif clause.verdict in (PASS, ATTESTED):
            described = [f"{m.name} = {m.value}{' ' + m.unit if m.unit else ''}" for m in clause.measurements]
            text = "\n".join([f"{clause.verdict}: {clause.summary}", *described])
            ElementTree.SubElement(case, "system-out").text = text
    ElementTree.indent(root)
    return ElementTree.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write_junit_xml(path: Path, results: RunResults) -> None:
    """:func:`junit_xml` of ``results``, written atomically."""
    atomic_write_bytes(Path(path), junit_xml(results))
