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

Schema: the evidence tables (``observations``, ``measurements``, ``attachments``)
take their columns, SQLite types and DDL from the evidence model
(:mod:`bench.evidence`), and every row of them is validated by it; the run's
context tables (``runs``, ``events``, ``equipment``, ``tests``, ``attestations``)
are declared here. ``meta.schema_version`` records the model's version: new
journals are written in :data:`SCHEMA_VERSION`; a journal of an earlier readable
version opens for reading, verifying and reporting only (its rows are mapped to
the model by :mod:`bench.evidence.upgrade`, and hashed over the columns it had);
a journal of a later version is refused.
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
from types import UnionType
from typing import Any, Self, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from bench.evidence import (
    EVIDENCE_SCHEMA_VERSION,
    EVIDENCE_TABLES,
    READABLE_SCHEMA_VERSIONS,
    Journalled,
    SchemaVersionError,
    check_readable,
    columns,
)

GENESIS_HASH = "0" * 64
SCHEMA_VERSION = EVIDENCE_SCHEMA_VERSION
"""Schema version of the journals this bench writes (``meta.schema_version``); it reads every version of
:data:`bench.evidence.READABLE_SCHEMA_VERSIONS`."""

# Tables of the run's context, declared here. The evidence tables (observations, measurements,
# attachments) are derived from their models in bench.evidence (see _evidence_table).
_CONTEXT_DDL: dict[str, str] = {
    "runs": "run_id TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, profile_name TEXT NOT NULL, "
    "profile_source TEXT NOT NULL, profile_text TEXT NOT NULL, software_version TEXT NOT NULL, "
    "host TEXT NOT NULL, command TEXT NOT NULL",
    "events": "run_id TEXT NOT NULL, at TEXT NOT NULL, kind TEXT NOT NULL, detail TEXT NOT NULL",
    "equipment": "run_id TEXT NOT NULL, at TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, "
    "configured TEXT NOT NULL, reported TEXT NOT NULL",
    "tests": "run_id TEXT NOT NULL, at TEXT NOT NULL, nodeid TEXT NOT NULL, attempt INTEGER NOT NULL, "
    "phase TEXT NOT NULL, outcome TEXT NOT NULL, duration_s REAL NOT NULL, clauses TEXT NOT NULL, message TEXT NOT NULL",
    "attestations": "run_id TEXT NOT NULL, at TEXT NOT NULL, clause_id TEXT NOT NULL, attested_by TEXT NOT NULL, "
    "attested_at TEXT NOT NULL, statement TEXT NOT NULL",
}
TEST_INCOMPLETE = "incomplete"
"""A ``tests`` row's outcome (beside passed, failed, error and skipped) for a test stopped before its verdict
could be reached: its device was lost, or more was lost on the line than the stated bound. Its clauses are
INCOMPLETE, and a resumed run runs it again."""
DICE_READER_EVENT = "dice-reader"
"""Event kind naming the reader of a dice camera, journalled when the camera is opened for the suites: detail
``{"device": name, "reader": "staged"}`` with its model's SHA-256, the threshold in force, its lean model's
SHA-256, and its configuration file and that file's SHA-256 when one was given. An older run's journal may name
``"classical"`` (the pip-counting reader, since removed) with nothing more."""

_CONTEXT_JSON: dict[str, frozenset[str]] = {
    "events": frozenset({"detail"}),
    "equipment": frozenset({"configured", "reported"}),
    "tests": frozenset({"clauses"}),
}
_TABLE_ORDER = ("runs", "events", "equipment", "tests", "observations", "measurements", "attachments", "attestations")


@dataclass(frozen=True)
class TableSchema:
    """One journal table of one schema version: its columns (in order), their SQLite types, which hold JSON,
    and its DDL (without the ``seq``, ``prev_hash`` and ``row_hash`` every table has)."""

    columns: tuple[str, ...]
    types: dict[str, str]
    json: frozenset[str]
    ddl: str


def _sqlite_type(info: FieldInfo) -> tuple[str, bool, bool]:
    """(SQLite type, holds JSON, nullable) of a model field: bool and int are INTEGER, float REAL, str TEXT;
    anything else (lists, objects, models, any JSON value) is TEXT holding canonical JSON. A field is nullable
    when its type admits None, or when it may hold any value and defaults to None."""
    annotation = info.annotation
    members = get_args(annotation) if get_origin(annotation) in (Union, UnionType) else (annotation,)
    nullable = type(None) in members or (annotation is Any and not info.is_required() and info.default is None)
    plain = [member for member in members if member is not type(None)]
    if len(plain) == 1 and plain[0] in (bool, int):
        return "INTEGER", False, nullable
    if len(plain) == 1 and plain[0] is float:
        return "REAL", False, nullable
    if len(plain) == 1 and plain[0] is str:
        return "TEXT", False, nullable
    return "TEXT", True, nullable


def _evidence_table(model: type[BaseModel], schema_version: int) -> TableSchema:
    """The table of ``model``'s rows in a journal of ``schema_version``, derived from the model's fields."""
    names = columns(model, schema_version)
    types: dict[str, str] = {}
    json_columns: set[str] = set()
    parts = []
    for name in names:
        declared, is_json, nullable = _sqlite_type(model.model_fields[name])
        types[name] = declared
        if is_json:
            json_columns.add(name)
        parts.append(f"{name} {declared}" + ("" if nullable else " NOT NULL"))
    unique = getattr(model, "unique_together", ())
    if unique:
        parts.append(f"UNIQUE ({', '.join(unique)})")
    return TableSchema(names, types, frozenset(json_columns), ", ".join(parts))


def _context_table(table: str) -> TableSchema:
    ddl = _CONTEXT_DDL[table]
    types = dict(re.findall(r"\b(\w+) (TEXT|INTEGER|REAL)\b", ddl))
    return TableSchema(tuple(types), types, _CONTEXT_JSON.get(table, frozenset()), ddl)


def journal_schema(schema_version: int = SCHEMA_VERSION) -> dict[str, TableSchema]:
    """Every table of a journal of ``schema_version``, in the order they are created and read."""
    check_readable(schema_version)
    return {table: (_evidence_table(EVIDENCE_TABLES[table], schema_version) if table in EVIDENCE_TABLES
                    else _context_table(table)) for table in _TABLE_ORDER}


_SCHEMAS: dict[int, dict[str, TableSchema]] = {version: journal_schema(version) for version in READABLE_SCHEMA_VERSIONS}

_TABLES: dict[str, tuple[str, ...]] = {table: schema.columns for table, schema in _SCHEMAS[SCHEMA_VERSION].items()}
"""Table -> columns written by the application in the current schema (seq, prev_hash and row_hash are added)."""


def _as_stored(schema: TableSchema, table: str, column: str, value: Any) -> Any:
    """``value`` as SQLite returns it from ``column``, so the row hash covers what is stored.

    SQLite's column affinity rewrites some values on insert (an int in a REAL column comes back
    as a float, ``True`` in an INTEGER column as 1); hashing the value before that rewrite would
    make :meth:`Journal.verify_chain` report an untouched row as tampered.
    """
    declared = schema.types[column]
    if value is None or column in schema.json:
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
        try:
            self.schema_version = self._create_schema()
        except BaseException:
            self._db.close()
            raise
        self._schema = _SCHEMAS[self.schema_version]
        self._seq, self._head = self._load_head()

    # -- schema -------------------------------------------------------------

    def _create_schema(self) -> int:
        """Create the tables of a new journal (current schema); check an existing one's version and tables.
        Returns the journal's schema version."""
        with self._transaction():
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            stored = self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if stored is None:
                self._db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
                version = SCHEMA_VERSION
            else:
                try:
                    version = int(stored[0])
                    check_readable(version)
                except (ValueError, SchemaVersionError) as error:
                    detail = error if isinstance(error, SchemaVersionError) else f"schema version {stored[0]!r}"
                    raise JournalError(f"{self.path}: {detail}") from None
            for table, schema in _SCHEMAS[version].items():
                self._db.execute(
                    f"CREATE TABLE IF NOT EXISTS {table} (seq INTEGER PRIMARY KEY, prev_hash TEXT NOT NULL, "
                    f"row_hash TEXT NOT NULL, {schema.ddl})"
                )
                found = tuple(row[1] for row in self._db.execute(f"PRAGMA table_info({table})"))[3:]
                if found != schema.columns:
                    raise JournalError(f"{self.path}: table {table} has columns {list(found)}, schema version "
                                       f"{version} has {list(schema.columns)}")
                for action in ("UPDATE", "DELETE"):
                    self._db.execute(
                        f"CREATE TRIGGER IF NOT EXISTS {table}_no_{action.lower()} BEFORE {action} ON {table} "
                        f"BEGIN SELECT RAISE(ABORT, 'journal is append-only: {action} on {table} refused'); END"
                    )
            self._db.execute("CREATE INDEX IF NOT EXISTS observations_stream ON observations (run_id, stream, idx)")
            self._db.execute("CREATE INDEX IF NOT EXISTS measurements_node ON measurements (run_id, nodeid, attempt)")
        return version

    def _load_head(self) -> tuple[int, str]:
        best_seq, best_hash = 0, GENESIS_HASH
        for table in self._schema:
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
        """Append one row to ``table`` and commit it; returns its sequence number.

        A row of an evidence table (observations, measurements, attachments) is validated by its model
        (:mod:`bench.evidence`), which fills the fields it gives a default; see also :meth:`record`."""
        self._check_writable()
        if table not in self._schema:
            raise ValueError(f"no journal table {table!r}")
        schema = self._schema[table]
        model = EVIDENCE_TABLES.get(table)
        unknown = set(values) - set(schema.columns)
        missing = {column for column in schema.columns if column not in values
                   and (model is None or model.model_fields[column].is_required())}
        if unknown or missing:
            raise ValueError(f"journal table {table}: unknown columns {sorted(unknown)}, missing {sorted(missing)}")
        for column, value in values.items():
            _as_stored(schema, table, column, value)  # a number in a text column is refused before anything else
        if model is not None:
            return self.record(model.model_validate(values))
        return self._insert(table, values)

    def record(self, evidence: Journalled) -> int:
        """Append one piece of evidence (an :class:`~bench.evidence.Observation`, :class:`~bench.evidence.Measurement`
        or :class:`~bench.evidence.Attachment`) to its table and commit it; returns its sequence number."""
        table = next((name for name, model in EVIDENCE_TABLES.items() if isinstance(evidence, model)), None)
        if table is None:
            raise TypeError(f"{type(evidence).__name__} is not evidence the journal records")
        self._check_writable()
        return self._insert(table, evidence.model_dump(include=set(self._schema[table].columns)))

    def _check_writable(self) -> None:
        """JournalError unless this bench writes the journal's schema version (the journal is append-only: a
        journal of an earlier version is never extended with rows of another)."""
        if self.schema_version != SCHEMA_VERSION:
            raise JournalError(
                f"{self.path}: a journal of schema version {self.schema_version} was written by an earlier bench; "
                f"this bench reads it (report, verify) but appends only to journals of version {SCHEMA_VERSION}"
            )

    def append_together(self, rows: list[tuple[str, dict[str, Any]]]) -> list[int]:
        """Append several rows of context tables (``runs``, ``events``, ...) in one transaction: after a crash
        the journal holds all of them or none. Returns their sequence numbers."""
        self._check_writable()
        for table, values in rows:
            if table not in self._schema or table in EVIDENCE_TABLES:
                raise ValueError(f"append_together writes context tables only, not {table!r}")
            schema = self._schema[table]
            if set(values) != set(schema.columns):
                raise ValueError(f"journal table {table}: columns {sorted(values)}, expected {sorted(schema.columns)}")
            for column, value in values.items():
                _as_stored(schema, table, column, value)
        sequence: list[int] = []
        with self._transaction():
            for table, values in rows:
                sequence.append(self._insert_row(table, values))
        return sequence

    def _insert(self, table: str, values: dict[str, Any]) -> int:
        with self._transaction():
            return self._insert_row(table, values)

    def _insert_row(self, table: str, values: dict[str, Any]) -> int:
        """Insert one row inside the caller's transaction (another writer cannot interleave: BEGIN IMMEDIATE)."""
        schema = self._schema[table]
        row = {column: values[column] for column in schema.columns}
        stored = {
            column: (
                canonical_json(value) if column in schema.json and value is not None
                else _as_stored(schema, table, column, value)
            )
            for column, value in row.items()
        }
        seq, prev = self._load_head()
        seq += 1
        digest = row_hash(prev, table, seq, stored)
        placeholders = ", ".join("?" for _ in range(len(schema.columns) + 3))
        self._db.execute(
            f"INSERT INTO {table} (seq, prev_hash, row_hash, {', '.join(schema.columns)}) VALUES ({placeholders})",
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
        if table not in self._schema:
            raise ValueError(f"no journal table {table!r}")
        query = f"SELECT * FROM {table}" + (f" WHERE {where}" if where else "") + " ORDER BY seq"
        json_columns = self._schema[table].json
        return [self._decode(row, json_columns) for row in self._db.execute(query, params)]

    @staticmethod
    def _decode(row: sqlite3.Row, json_columns: frozenset[str]) -> dict[str, Any]:
        decoded = dict(row)
        for column in json_columns & decoded.keys():
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

        yield from heapq.merge(*(table_rows(table) for table in self._schema), key=lambda entry: entry[1]["seq"])

    def verify_chain(self) -> ChainCheck:
        """Recompute every row hash and link; report each break. Each row is hashed over the columns of the
        journal's schema version, as it was written."""
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
            stored = {column: row[column] for column in self._schema[table].columns}
            if row_hash(row["prev_hash"], table, seq, stored) != row["row_hash"]:
                problems.append(f"{table} seq {seq}: content does not match its row_hash")
            prev = row["row_hash"]
            expected_seq = seq + 1
        return ChainCheck(rows=count, head=prev, problems=problems)

    def checkpoint(self) -> None:
        """Move every committed row from the write-ahead log into the journal file and empty the log, so that
        a closed journal leaves no ``-wal`` or ``-shm`` file beside it."""
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
