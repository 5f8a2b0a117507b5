"""The evidence journal: an append-only, hash-chained SQLite record of a run.

Everything a verdict rests on is written here as it happens: the run and its
profile, the equipment's identity (as configured and as the device reports it),
every observation (spin, roll, card) committed on its own so that a killed run
loses nothing, the measurements and test outcomes, and the attachments.

Integrity:

* SQLite in WAL mode with ``synchronous=FULL``: a committed row survives a
  crash of the process (and of the machine).
* Append-only: triggers refuse ``UPDATE`` and ``DELETE`` on every table.
* Hash chain: every row carries a global sequence number ``seq``, the hash of
  the previous row ``prev_hash`` and its own ``row_hash`` =
  SHA-256(prev_hash ‖ table ‖ canonical JSON of the row). :meth:`Journal.verify_chain`
  recomputes it; any edited, removed or re-ordered row breaks it.

Observations are unique per ``(run_id, stream, idx)``, so a resumed run can
never record the same observation twice.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
import re
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

GENESIS_HASH = "0" * 64
SCHEMA_VERSION = 1

# table -> columns written by the application (seq, prev_hash and row_hash are added)
_TABLES: dict[str, tuple[str, ...]] = {
    "runs": ("run_id", "created_at", "profile_name", "profile_source", "profile_text", "software_version", "host", "command"),
    "events": ("run_id", "at", "kind", "detail"),
    "equipment": ("run_id", "at", "name", "kind", "configured", "reported"),
    "tests": ("run_id", "at", "nodeid", "attempt", "phase", "outcome", "duration_s", "clauses", "message"),
    "observations": ("run_id", "at", "stream", "idx", "nodeid", "source", "value", "raw_ref"),
    "measurements": (
        "run_id", "at", "nodeid", "attempt", "name", "value", "unit", "low", "high", "expected",
        "passed", "clauses", "method", "sample_size", "p_value", "alpha", "power", "details",
    ),
    "attachments": ("run_id", "at", "nodeid", "attempt", "name", "sha256", "media_type", "size", "path"),
    "attestations": ("run_id", "at", "clause_id", "attested_by", "attested_at", "statement"),
}

_JSON_COLUMNS = {"configured", "reported", "value", "clauses", "details", "detail", "expected"}

_DDL = {
    "runs": "run_id TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, profile_name TEXT NOT NULL, "
    "profile_source TEXT NOT NULL, profile_text TEXT NOT NULL, software_version TEXT NOT NULL, "
    "host TEXT NOT NULL, command TEXT NOT NULL",
    "events": "run_id TEXT NOT NULL, at TEXT NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL",
    "equipment": "run_id TEXT NOT NULL, at TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, "
    "configured TEXT NOT NULL, reported TEXT NOT NULL",
    "tests": "run_id TEXT NOT NULL, at TEXT NOT NULL, nodeid TEXT NOT NULL, attempt INTEGER NOT NULL, "
    "phase TEXT NOT NULL, outcome TEXT NOT NULL, duration_s REAL NOT NULL, clauses TEXT NOT NULL, message TEXT NOT NULL",
    "observations": "run_id TEXT NOT NULL, at TEXT NOT NULL, stream TEXT NOT NULL, idx INTEGER NOT NULL, "
    "nodeid TEXT NOT NULL, source TEXT NOT NULL, value TEXT NOT NULL, raw_ref TEXT, "
    "UNIQUE (run_id, stream, idx)",
    "measurements": "run_id TEXT NOT NULL, at TEXT NOT NULL, nodeid TEXT NOT NULL, attempt INTEGER NOT NULL, "
    "name TEXT NOT NULL, value TEXT NOT NULL, unit TEXT, low REAL, high REAL, expected TEXT, passed INTEGER NOT NULL, "
    "clauses TEXT NOT NULL, method TEXT, sample_size INTEGER, p_value REAL, alpha REAL, power REAL, details TEXT NOT NULL",
    "attachments": "run_id TEXT NOT NULL, at TEXT NOT NULL, nodeid TEXT NOT NULL, attempt INTEGER NOT NULL, "
    "name TEXT NOT NULL, sha256 TEXT NOT NULL, media_type TEXT NOT NULL, size INTEGER NOT NULL, path TEXT NOT NULL",
    "attestations": "run_id TEXT NOT NULL, at TEXT NOT NULL, clause_id TEXT NOT NULL, attested_by TEXT NOT NULL, "
    "attested_at TEXT NOT NULL, statement TEXT NOT NULL",
}


# table -> column -> declared SQLite type; values are stored (and hashed) as SQLite will return them
_COLUMN_TYPES: dict[str, dict[str, str]] = {
    table: dict(re.findall(r"\b(\w+) (TEXT|INTEGER|REAL)\b", ddl)) for table, ddl in _DDL.items()
}


def _as_stored(table: str, column: str, value: Any) -> Any:
    """``value`` as SQLite returns it from ``column``, so the row hash covers what is stored.

    SQLite's column affinity rewrites some values on insert (an int in a REAL column comes back
    as a float, ``True`` in an INTEGER column as 1); hashing the value before that rewrite would
    make :meth:`Journal.verify_chain` report an untouched row as tampered.
    """
    declared = _COLUMN_TYPES[table][column]
    if value is None or column in _JSON_COLUMNS:
        return value
    if declared == "REAL" and isinstance(value, int):
        return float(value)
    if declared == "INTEGER":
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) < 2**63:
            return int(value)
    if declared == "TEXT" and not isinstance(value, str):
        raise TypeError(f"journal column {table}.{column} holds text, got {type(value).__name__} {value!r}")
    return value


class JournalError(RuntimeError):
    """The journal is missing, of another schema, or its integrity is broken."""


def utc_now() -> str:
    """Current time, UTC, ISO 8601 with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def canonical_json(value: Any) -> str:
    """The JSON text that row hashes are computed over (sorted keys, no spaces)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_plain_scalar
    )


def _plain_scalar(value: Any) -> Any:
    """numpy scalars (counts, statistics) as the Python numbers they stand for."""
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def row_hash(prev_hash: str, table: str, seq: int, row: Mapping[str, Any]) -> str:
    """SHA-256 of the previous hash, the table name, the sequence number and the row."""
    payload = canonical_json({"table": table, "seq": seq, "row": dict(row)})
    return hashlib.sha256((prev_hash + payload).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ChainCheck:
    """Result of re-computing the hash chain."""

    rows: int
    head: str
    problems: list[str]

    @property
    def intact(self) -> bool:
        return not self.problems


class Journal:
    """One run directory's evidence journal (``journal.sqlite``).

    Single writer: the process that runs the suites. Readers (the report,
    ``bench verify``, progress displays) may open it concurrently.
    """

    FILENAME = "journal.sqlite"

    def __init__(self, path: Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.exists():
            raise JournalError(f"{self.path}: no journal here")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._create_schema()
        self._seq, self._head = self._load_head()

    # -- schema -------------------------------------------------------------

    def _create_schema(self) -> None:
        with self._transaction():
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            version = self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if version is None:
                self._db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            elif int(version[0]) != SCHEMA_VERSION:
                raise JournalError(f"{self.path}: schema version {version[0]}, this bench reads {SCHEMA_VERSION}")
            for table, columns in _DDL.items():
                self._db.execute(
                    f"CREATE TABLE IF NOT EXISTS {table} (seq INTEGER PRIMARY KEY, prev_hash TEXT NOT NULL, "
                    f"row_hash TEXT NOT NULL, {columns})"
                )
                for action in ("UPDATE", "DELETE"):
                    self._db.execute(
                        f"CREATE TRIGGER IF NOT EXISTS {table}_no_{action.lower()} BEFORE {action} ON {table} "
                        f"BEGIN SELECT RAISE(ABORT, 'journal is append-only: {action} on {table} refused'); END"
                    )
            self._db.execute("CREATE INDEX IF NOT EXISTS observations_stream ON observations (run_id, stream, idx)")
            self._db.execute("CREATE INDEX IF NOT EXISTS measurements_node ON measurements (run_id, nodeid, attempt)")

    def _load_head(self) -> tuple[int, str]:
        best_seq, best_hash = 0, GENESIS_HASH
        for table in _TABLES:
            row = self._db.execute(f"SELECT seq, row_hash FROM {table} ORDER BY seq DESC LIMIT 1").fetchone()
            if row is not None and row["seq"] > best_seq:
                best_seq, best_hash = row["seq"], row["row_hash"]
        return best_seq, best_hash

    class _Tx:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> None:
            self.db.execute("BEGIN IMMEDIATE")

        def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
            self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")

    def _transaction(self) -> Journal._Tx:
        return Journal._Tx(self._db)

    # -- writing ------------------------------------------------------------

    def append(self, table: str, **values: Any) -> int:
        """Append one row to ``table`` and commit it; returns its sequence number."""
        columns = _TABLES[table]
        unknown = set(values) - set(columns)
        missing = set(columns) - set(values)
        if unknown or missing:
            raise ValueError(f"journal table {table}: unknown columns {sorted(unknown)}, missing {sorted(missing)}")
        row = {column: values[column] for column in columns}
        stored = {
            column: (
                canonical_json(value) if column in _JSON_COLUMNS and value is not None
                else _as_stored(table, column, value)
            )
            for column, value in row.items()
        }
        with self._transaction():
            seq, prev = self._load_head()  # another writer cannot interleave (BEGIN IMMEDIATE)
            seq += 1
            digest = row_hash(prev, table, seq, stored)
            placeholders = ", ".join("?" for _ in range(len(columns) + 3))
            self._db.execute(
                f"INSERT INTO {table} (seq, prev_hash, row_hash, {', '.join(columns)}) VALUES ({placeholders})",
                (seq, prev, digest, *stored.values()),
            )
        self._seq, self._head = seq, digest
        return seq

    # -- reading ------------------------------------------------------------

    @property
    def head(self) -> str:
        """Hash of the newest row (the chain head)."""
        return self._head

    def rows(self, table: str, where: str = "", params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        """Rows of ``table`` in sequence order, JSON columns decoded."""
        if table not in _TABLES:
            raise ValueError(f"no journal table {table!r}")
        query = f"SELECT * FROM {table}" + (f" WHERE {where}" if where else "") + " ORDER BY seq"
        return [self._decode(row) for row in self._db.execute(query, params)]

    @staticmethod
    def _decode(row: sqlite3.Row) -> dict[str, Any]:
        decoded = dict(row)
        for column in _JSON_COLUMNS & decoded.keys():
            if decoded[column] is not None:
                decoded[column] = json.loads(decoded[column])
        return decoded

    def observations(self, run_id: str, stream: str) -> list[dict[str, Any]]:
        """Observations of one stream, in index order."""
        return self.rows("observations", "run_id = ? AND stream = ?", (run_id, stream))

    def iter_all_rows(self) -> Iterator[tuple[str, sqlite3.Row]]:
        """Every row of every table, in global sequence order (raw, as stored)."""
        def table_rows(table: str) -> Iterator[tuple[str, sqlite3.Row]]:
            for row in self._db.execute(f"SELECT * FROM {table} ORDER BY seq"):
                yield table, row

        yield from heapq.merge(*(table_rows(table) for table in _TABLES), key=lambda entry: entry[1]["seq"])

    def verify_chain(self) -> ChainCheck:
        """Recompute every row hash and link; report each break."""
        problems: list[str] = []
        prev = GENESIS_HASH
        expected_seq = 1
        count = 0
        for table, row in self.iter_all_rows():
            count += 1
            seq = row["seq"]
            if seq != expected_seq:
                problems.append(f"seq {expected_seq}: missing (next row found is {table} seq {seq})")
            if row["prev_hash"] != prev:
                problems.append(f"{table} seq {seq}: prev_hash does not match the previous row")
            stored = {column: row[column] for column in _TABLES[table]}
            if row_hash(row["prev_hash"], table, seq, stored) != row["row_hash"]:
                problems.append(f"{table} seq {seq}: content does not match its row_hash")
            prev = row["row_hash"]
            expected_seq = seq + 1
        return ChainCheck(rows=count, head=prev, problems=problems)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
