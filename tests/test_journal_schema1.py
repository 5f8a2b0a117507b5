"""A journal of schema 1, written by the bench before the evidence record was versioned, still opens,
verifies and renders (tests/data/journal-schema1/README.md)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bench.catalogue import load_catalogue
from bench.evidence import PocketCounts, SequentialPath
from bench.journal import Journal, JournalError, utc_now
from reports.certificate import figures, render_certificate
from reports.run_data import RunData, load_run

DATA = Path(__file__).parent / "data" / "journal-schema1"
EXPECTED: dict[str, Any] = json.loads((DATA / "expected.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the schema-1 run directory (the kept file is never opened, so never touched)."""
    directory = tmp_path_factory.mktemp("schema1")
    with gzip.open(DATA / "journal.sqlite.gz") as source, (directory / Journal.FILENAME).open("wb") as target:
        shutil.copyfileobj(source, target)
    return directory


@pytest.fixture(scope="module")
def data(run_dir: Path) -> RunData:
    return load_run(run_dir, load_catalogue())


def test_it_opens_as_schema_1_and_its_chain_verifies_as_written(run_dir: Path) -> None:
    with Journal(run_dir / Journal.FILENAME, create=False) as journal:
        assert journal.schema_version == 1
        check = journal.verify_chain()
    assert check.intact, check.problems[:5]
    assert (check.rows, check.head) == (EXPECTED["chain"]["rows"], EXPECTED["chain"]["head"])


def test_it_is_read_only_to_this_bench(run_dir: Path) -> None:
    with Journal(run_dir / Journal.FILENAME, create=False) as journal:
        with pytest.raises(JournalError, match="schema version 1 was written by an earlier bench"):
            journal.append("events", run_id="x", at=utc_now(), kind="resumed", detail={})
        assert journal.verify_chain().rows == EXPECTED["chain"]["rows"]


def test_the_report_reads_its_verdicts_and_measurements(data: RunData) -> None:
    assert data.overall == EXPECTED["overall"] and data.chain_intact
    assert {row.clause_id: row.verdict for row in data.clauses if row.verdict != "NOT TESTED"} == EXPECTED["verdicts"]
    read = [{key: getattr(m, key) for key in expected} for m, expected in zip(data.measurements,
                                                                               EXPECTED["measurements"], strict=True)]
    for measurement, expected in zip(read, EXPECTED["measurements"], strict=True):
        assert measurement | {"clauses": list(measurement["clauses"])} == expected


def test_the_pocket_counts_come_out_in_wheel_order(data: RunData) -> None:
    pockets = EXPECTED["pockets"]
    [measurement] = [m for m in data.measurements if m.anchor == pockets["anchor"]]
    [counts] = [entry for entry in measurement.series if isinstance(entry, PocketCounts)]
    assert counts.order == pockets["order"] and counts.values == pockets["counts"]
    assert counts.order[:4] == [0, 32, 15, 19]  # the French wheel, which the sorted JSON of schema 1 had lost
    [entry] = data.series["pockets"]
    assert {key: entry[key] for key in pockets} == pockets | {"clauses": pockets["clauses"]}
    assert data.series["sectors"] == data.series["pockets"]
    [path] = [entry for entry in measurement.series if isinstance(entry, SequentialPath)]
    sequential = EXPECTED["sequential"]
    assert list(path.n) == sequential["n"] and list(path.log_lr) == sequential["log_lr"]
    assert {key: data.series["sequential"][0][key] for key in sequential} == sequential


def test_it_renders(data: RunData) -> None:
    drawn = figures(data)
    assert {figure.name for figure in drawn} == {"pockets", "sectors", "sequential"}
    assert all(figure.data_uri and not figure.error for figure in drawn)
    html = render_certificate(data, "en", rendered=drawn)
    assert "p217-2007/roleta-francesa/5" in html and EXPECTED["chain"]["head"] in html
