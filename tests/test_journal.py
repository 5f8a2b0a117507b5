"""The evidence journal: append-only, hash-chained, crash-safe (bench/journal.py)."""

from __future__ import annotations

import itertools
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from bench.journal import _TABLES, GENESIS_HASH, SCHEMA_VERSION, Journal, JournalError

ROOT = Path(__file__).resolve().parents[1]
RUN = "run-1"
AT = "2024-01-01T00:00:00.000000+00:00"


def _row(table: str, i: int = 0) -> dict[str, Any]:
    """A valid row for ``table``; ``i`` varies the values that must be unique."""
    rows: dict[str, dict[str, Any]] = {
        "runs": {
            "run_id": f"{RUN}-{i}" if i else RUN,
            "created_at": AT,
            "profile_name": "sim",
            "profile_source": "sim.toml",
            "profile_text": "name = 'sim'",
            "software_version": "0.1.0",
            "host": "lab-pc",
            "command": "bench certify",
        },
        "events": {"run_id": RUN, "at": AT, "kind": "started", "detail": {"operator": "ana", "i": i}},
        "equipment": {
            "run_id": RUN,
            "at": AT,
            "name": "wheel",
            "kind": "roulette-wheel",
            "configured": {"serial": "SIM-RW-0001"},
            "reported": {"firmware": "1.2"},
        },
        "tests": {
            "run_id": RUN,
            "at": AT,
            "nodeid": "suites/test_roulette.py::test_x",
            "attempt": 1,
            "phase": "final",
            "outcome": "passed",
            "duration_s": 1.25,
            "clauses": ["p217-2007/roleta-francesa/2"],
            "message": "",
        },
        "observations": {
            "run_id": RUN,
            "at": AT,
            "stream": "spins",
            "idx": i,
            "nodeid": "suites/test_roulette.py::test_x",
            "source": "serial",
            "value": {"pocket": i % 37},
            "raw_ref": f"R{i:02d}",
        },
        "measurements": {
            "run_id": RUN,
            "at": AT,
            "nodeid": "suites/test_roulette.py::test_x",
            "attempt": 1,
            "name": "chi2",
            "value": 31.5,
            "unit": None,
            "low": None,
            "high": None,
            "expected": None,
            "passed": 1,
            "clauses": ["p217-2007/roleta-francesa/5"],
            "method": "Pearson chi-square",
            "sample_size": 3700,
            "p_value": 0.68,
            "alpha": 0.01,
            "power": 0.976,
            "details": {"dof": 36},
        },
        "attachments": {
            "run_id": RUN,
            "at": AT,
            "nodeid": "suites/test_roulette.py::test_x",
            "attempt": 1,
            "name": "frame",
            "sha256": "ab" * 32,
            "media_type": "image/png",
            "size": 1234,
            "path": "attachments/ab.png",
        },
        "attestations": {
            "run_id": RUN,
            "at": AT,
            "clause_id": "p217-2007/roleta-francesa/1",
            "attested_by": "ana",
            "attested_at": AT,
            "statement": "Checked the table felt.",
        },
    }
    return rows[table]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "run" / Journal.FILENAME


@pytest.fixture
def journal(path: Path) -> Journal:
    with Journal(path) as opened:
        yield opened


def _fill(journal: Journal, observations: int = 5) -> None:
    """One row in every table, then ``observations`` more observations (seq 1..8+observations)."""
    for table in _TABLES:
        journal.append(table, **_row(table))
    for i in range(1, observations + 1):
        journal.append("observations", **_row("observations", i))


def _raw(path: Path) -> sqlite3.Connection:
    """A plain sqlite3 connection, the way someone tampering with the file would open it."""
    return sqlite3.connect(path, isolation_level=None)


def _drop_triggers(db: sqlite3.Connection) -> None:
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        db.execute(f"DROP TRIGGER {name}")


# -- sequence and chain ------------------------------------------------------


def test_rows_get_consecutive_global_seq_across_tables_and_a_hash_chain(journal: Journal) -> None:
    seqs = [journal.append(table, **_row(table)) for table in _TABLES]
    seqs.append(journal.append("events", **_row("events", 1)))
    assert seqs == list(range(1, len(_TABLES) + 2))

    chain = list(journal.iter_all_rows())
    assert [row["seq"] for _, row in chain] == seqs
    assert [table for table, _ in chain] == [*_TABLES, "events"]
    assert chain[0][1]["prev_hash"] == GENESIS_HASH
    for (_, before), (_, after) in itertools.pairwise(chain):
        assert after["prev_hash"] == before["row_hash"]
    assert len({row["row_hash"] for _, row in chain}) == len(chain)
    assert journal.head == chain[-1][1]["row_hash"]


def test_fresh_and_filled_journals_verify_intact(journal: Journal) -> None:
    empty = journal.verify_chain()
    assert empty.intact and empty.rows == 0 and empty.head == GENESIS_HASH
    _fill(journal)
    check = journal.verify_chain()
    assert check.intact, check.problems
    assert check.rows == len(_TABLES) + 5
    assert check.head == journal.head


def test_sequence_continues_after_reopening(path: Path) -> None:
    with Journal(path) as journal:
        _fill(journal, observations=2)
        head = journal.head
    with Journal(path) as journal:
        assert journal.head == head
        assert journal.append("events", **_row("events", 7)) == len(_TABLES) + 3
        assert journal.verify_chain().intact


def test_values_sqlite_would_convert_are_hashed_as_stored(journal: Journal) -> None:
    # An int limit in a REAL column (the roulette suite records high=0) comes back from SQLite
    # as 0.0, and a bool in an INTEGER column as 1: the chain must still verify.
    row = _row("measurements") | {"value": 0, "high": 0, "low": -1, "passed": True, "alpha": 1, "sample_size": 37.0}
    journal.append("measurements", **row)
    journal.append("tests", **(_row("tests") | {"duration_s": 2}))
    check = journal.verify_chain()
    assert check.intact, check.problems
    stored = journal.rows("measurements")[0]
    assert stored["high"] == 0.0 and isinstance(stored["high"], float)
    assert stored["passed"] == 1 and stored["sample_size"] == 37


def test_a_number_in_a_text_column_is_refused_and_nothing_is_written(journal: Journal) -> None:
    with pytest.raises(TypeError, match="observations.raw_ref"):
        journal.append("observations", **(_row("observations") | {"raw_ref": 17}))
    assert journal.rows("observations") == []
    assert journal.append("events", **_row("events")) == 1


def test_unknown_or_missing_columns_are_refused(journal: Journal) -> None:
    with pytest.raises(ValueError, match=r"unknown columns \['colour'\]"):
        journal.append("events", **_row("events"), colour="red")
    incomplete = _row("events")
    del incomplete["detail"]
    with pytest.raises(ValueError, match=r"missing \['detail'\]"):
        journal.append("events", **incomplete)
    assert journal.verify_chain().rows == 0


# -- append-only -------------------------------------------------------------


@pytest.mark.parametrize("table", list(_TABLES))
def test_update_and_delete_are_refused_by_triggers(path: Path, table: str) -> None:
    with Journal(path) as journal:
        journal.append(table, **_row(table))
        head = journal.head
    db = _raw(path)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db.execute(f"UPDATE {table} SET run_id = 'forged'")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db.execute(f"DELETE FROM {table}")
    finally:
        db.close()
    with Journal(path) as journal:
        assert journal.rows(table)[0]["run_id"] != "forged"
        check = journal.verify_chain()
        assert check.intact and check.rows == 1 and check.head == head


def test_same_observation_twice_is_refused_and_the_chain_stays_whole(journal: Journal) -> None:
    journal.append("observations", **_row("observations", 3))
    with pytest.raises(sqlite3.IntegrityError, match="UNIQUE"):
        journal.append("observations", **(_row("observations", 3) | {"value": {"pocket": 99}}))
    # the same index in another stream or another run is a different observation
    assert journal.append("observations", **(_row("observations", 3) | {"stream": "rolls"})) == 2
    assert journal.append("observations", **(_row("observations", 3) | {"run_id": "run-2"})) == 3
    assert [row["value"] for row in journal.observations(RUN, "spins")] == [{"pocket": 3}]
    assert journal.verify_chain().intact


# -- tampering ---------------------------------------------------------------


def test_an_edited_observation_is_reported_with_its_table_and_seq(path: Path) -> None:
    with Journal(path) as journal:
        _fill(journal)
        target = journal.rows("observations")[2]
    db = _raw(path)
    _drop_triggers(db)
    db.execute("UPDATE observations SET value = ? WHERE seq = ?", ('{"pocket":17}', target["seq"]))
    db.close()

    with Journal(path) as journal:
        check = journal.verify_chain()
    assert not check.intact
    assert check.problems == [f"observations seq {target['seq']}: content does not match its row_hash"]


def test_a_rehashed_edit_still_breaks_the_link_to_the_next_row(path: Path) -> None:
    from bench.journal import row_hash

    with Journal(path) as journal:
        _fill(journal)
        target = journal.rows("observations")[2]
    stored = {column: target[column] for column in _TABLES["observations"]}
    stored["value"] = '{"pocket":17}'
    forged = row_hash(target["prev_hash"], "observations", target["seq"], stored)
    db = _raw(path)
    _drop_triggers(db)
    db.execute(
        "UPDATE observations SET value = ?, row_hash = ? WHERE seq = ?", (stored["value"], forged, target["seq"])
    )
    db.close()

    with Journal(path) as journal:
        check = journal.verify_chain()
    assert check.problems == [f"observations seq {target['seq'] + 1}: prev_hash does not match the previous row"]


def test_a_deleted_row_is_reported_as_a_missing_seq(path: Path) -> None:
    with Journal(path) as journal:
        _fill(journal)
        victim = journal.rows("observations")[1]["seq"]
    db = _raw(path)
    _drop_triggers(db)
    db.execute("DELETE FROM observations WHERE seq = ?", (victim,))
    db.close()

    with Journal(path) as journal:
        check = journal.verify_chain()
    assert not check.intact
    assert any(problem.startswith(f"seq {victim}: missing") for problem in check.problems), check.problems
    assert any(f"seq {victim + 1}: prev_hash does not match" in problem for problem in check.problems)


def test_a_truncated_tail_shows_only_as_a_different_head(path: Path) -> None:
    # Removing the newest rows leaves a valid shorter chain: only a head recorded elsewhere
    # (the signed manifest) reveals it. This pins that limit so nobody relies on verify_chain alone.
    with Journal(path) as journal:
        _fill(journal)
        head, last = journal.head, journal.verify_chain().rows
    db = _raw(path)
    _drop_triggers(db)
    db.execute("DELETE FROM observations WHERE seq = ?", (last,))
    db.close()
    with Journal(path) as journal:
        check = journal.verify_chain()
    assert check.intact and check.rows == last - 1
    assert check.head != head


# -- crash safety ------------------------------------------------------------


def test_rows_survive_a_sigkill_right_after_append_returns(path: Path) -> None:
    rows = 50
    child = textwrap.dedent(
        f"""
        import os, signal, sys
        sys.path.insert(0, {str(ROOT)!r})
        from bench.journal import Journal
        journal = Journal({str(path)!r})
        for i in range({rows}):
            journal.append("observations", run_id="run-1", at="t", stream="spins", idx=i, nodeid="n",
                           source="serial", value={{"pocket": i % 37}}, raw_ref=None)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    result = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == -signal.SIGKILL, result.stderr

    with Journal(path, create=False) as journal:
        observed = journal.observations("run-1", "spins")
        check = journal.verify_chain()
    assert [row["idx"] for row in observed] == list(range(rows))
    assert [row["value"]["pocket"] for row in observed] == [i % 37 for i in range(rows)]
    assert check.intact and check.rows == rows, check.problems


# -- JSON columns and opening ------------------------------------------------


def test_json_columns_round_trip(journal: Journal) -> None:
    detail = {
        "argv": ["bench", "certify", "--profile", "sim"],
        "nested": {"b": [1, 2.5, None, True]},
        "text": "roleta francesa — 0 à 36",
        "empty": {},
    }
    value = [0, 32, 15, {"ball": "cw", "rotor": "ccw"}]
    journal.append("events", **(_row("events") | {"detail": detail}))
    journal.append("observations", **(_row("observations") | {"value": value}))
    journal.append(
        "measurements",
        **(_row("measurements") | {"value": True, "expected": "0-32-15", "details": {"reported": list(range(37))}}),
    )
    assert journal.rows("events")[0]["detail"] == detail
    assert journal.rows("observations")[0]["value"] == value
    measurement = journal.rows("measurements")[0]
    assert measurement["value"] is True and measurement["expected"] == "0-32-15"
    assert measurement["details"] == {"reported": list(range(37))}
    assert measurement["clauses"] == ["p217-2007/roleta-francesa/5"]
    assert journal.verify_chain().intact


def test_nan_in_a_json_column_is_refused(journal: Journal) -> None:
    with pytest.raises(ValueError):
        journal.append("observations", **(_row("observations") | {"value": float("nan")}))
    assert journal.rows("observations") == []


def test_opening_a_missing_journal_without_create_fails(tmp_path: Path) -> None:
    with pytest.raises(JournalError, match="no journal here"):
        Journal(tmp_path / "absent.sqlite", create=False)
    assert not (tmp_path / "absent.sqlite").exists()


def test_a_journal_of_another_schema_version_is_refused(path: Path) -> None:
    Journal(path).close()
    db = _raw(path)
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    db.close()
    with pytest.raises(JournalError, match=f"schema version {SCHEMA_VERSION + 1}"):
        Journal(path)
