"""Everything the certificate shows, read from a run's evidence journal into plain dataclasses.

The report reads only the journal and the run directory (DESIGN.md, data flow).
:func:`load_run` gathers: the run and its laboratory, the equipment's identity
as configured and as the device reported it, the profile's instruments, every
applicable clause with its verdict (:mod:`reports.clause_verdicts`), the
measurements, attachments and attestations behind it, the sample size of every
observation stream, declined or disputed reads with their frames, wire-log
excerpts around line faults, and the series the plots draw.

Measurements are the evidence model (:class:`bench.evidence.Measurement`), seen through
:class:`ReportedMeasurement` (the model plus its anchor in the certificate); rows of a journal
of an earlier schema version are mapped to the model as they are read
(:mod:`bench.evidence.upgrade`; schema 1 kept its pocket counts as a JSON object whose sorted
keys lost the wheel order, so only for those is the profile's wheel order consulted).

Series (the contract between the evidence and :mod:`reports.plots`), each taken from the
final attempt's measurements unless stated:

* ``pockets`` and ``sectors``: a measurement's :class:`~bench.evidence.PocketCounts`, (pocket,
  count) pairs in wheel order (``suites/test_roulette.py``);
* ``dice``: the observation stream ``dice/throws``, values ``{"faces": [int, ...]}``;
* ``cards``: :class:`~bench.evidence.PositionCounts`: rows = card (or block of cards) by its
  input position, columns = output position (or block), counts over the shuffles;
* ``sequential``: :class:`~bench.evidence.SequentialPath` (natural log of the likelihood ratio,
  the boundaries log(1/α) and log(β) of :class:`rng_tests.sequential.SequentialTest`);
* ``jackpot``: :class:`~bench.evidence.JackpotPath` (cumulative amount bet, displayed value,
  start value, increment percent);
* ``rtp``: :class:`~bench.evidence.RtpInterval` (the return with its interval and the floor).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.catalogue import Catalogue
from bench.evidence import (
    Attachment,
    JackpotPath,
    Measurement,
    PocketCounts,
    PositionCounts,
    RtpInterval,
    SequentialPath,
    columns,
    measurement_from_row,
)
from bench.journal import DICE_READER_EVENT, Journal
from bench.profiles import Profile, load_profile_text
from reports.clause_verdicts import (
    ERROR,
    FAIL,
    INCOMPLETE,
    PASS,
    VERDICTS,
    clause_verdicts,
    lost_games,
    run_games,
    run_kinds,
)
from reports.signoff import SignOff, read_signoff

DEFAULT_OPERATOR = "unknown operator"
WIRE_CONTEXT_LINES = 3
"""Wire-log lines shown before and after each fault."""
WIRE_FAULTS_SHOWN = 5
"""Faults shown per device's wire log (all are counted)."""
FAULT_DIRECTIONS = {"rx-partial", "rx-discarded"}
FAULT_NOTE_MARKERS = ("reconnecting", "timeout", "cannot", "before the timeout", "failed", "error")
DECLINE_STREAM_MARKERS = ("declined", "void", "no-reads")
"""Streams whose observations are reads declined, voided, or lost on the line (``<device>/no-reads``)."""


IDENTITY_FIELDS = ("manufacturer", "model", "serial", "firmware")


def _flattened(values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the fields of nested records lifted to the top (a top-level field wins)."""
    flat: dict[str, Any] = {}
    for value in values.values():
        if isinstance(value, dict):
            for key, inner in _flattened(value).items():
                flat.setdefault(key, inner)
    return {**flat, **{key: value for key, value in values.items() if not isinstance(value, dict)}}


@dataclass(frozen=True)
class Identity:
    """Manufacturer, model, serial and firmware of a device."""

    manufacturer: str = ""
    model: str = ""
    serial: str = ""
    firmware: str = ""

    @classmethod
    def from_mapping(cls, values: dict[str, Any] | None) -> Identity | None:
        """The identity in ``values``; a field a device reports inside a nested record (a slot machine's serial in
        its SAS long poll 54 reply, ``{"version": {"serial": ...}}``) is found there when not at the top."""
        if not values:
            return None
        flat = _flattened(values)
        return cls(**{key: str(flat.get(key) or "") for key in IDENTITY_FIELDS})

    def merged_over(self, other: Identity) -> Identity:
        """Each field as stated here, else as ``other`` states it (what a device reported over its profile)."""
        return Identity(**{key: getattr(self, key) or getattr(other, key) for key in IDENTITY_FIELDS})

    def differences(self, other: Identity) -> list[str]:
        """Fields both state that differ (firmware is often absent from a profile)."""
        return [key for key in IDENTITY_FIELDS
                if getattr(self, key) and getattr(other, key) and getattr(self, key) != getattr(other, key)]


@dataclass
class DeviceInfo:
    """A piece of equipment or an instrument, as configured and as it reported itself."""

    name: str
    kind: str
    configured: Identity
    reported: Identity | None
    simulated: bool
    role: str = ""

    @property
    def mismatches(self) -> list[str]:
        return [] if self.reported is None else self.configured.differences(self.reported)

    @property
    def shown(self) -> Identity:
        """The identity the certificate prints: each field as the device reported it, else as its profile
        declares it (a slot machine reports its serial over SAS, not its manufacturer)."""
        return self.configured if self.reported is None else self.reported.merged_over(self.configured)


class ReportedMeasurement(Measurement):
    """A measurement of a final test attempt as the certificate shows it: the evidence model and its anchor."""

    anchor: str = ""

    @classmethod
    def of(cls, measurement: Measurement, anchor: str) -> ReportedMeasurement:
        """``measurement`` anchored at ``anchor`` (``m<seq>``)."""
        return cls.model_validate(dict(measurement) | {"anchor": anchor})

    @property
    def power_alternative(self) -> str | None:
        """The named alternative the power is stated against, when the measurement names it."""
        for key in ("power_alternative", "alternative"):
            if isinstance(self.details.get(key), str):
                return self.details[key]
        return None

    def limits(self) -> str:
        """The pass criterion in symbols (language-neutral)."""
        if self.p_value is not None and self.alpha is not None:
            return f"p ≥ α = {self.alpha:g}"
        parts = []
        if self.expected is not None:
            parts.append(f"= {_short(self.expected)}")
        if self.low is not None and self.high is not None:
            parts.append(f"[{self.low:g}, {self.high:g}]")
        elif self.low is not None:
            parts.append(f"≥ {self.low:g}")
        elif self.high is not None:
            parts.append(f"≤ {self.high:g}")
        return "; ".join(parts)


@dataclass(frozen=True)
class Attestation:
    """A person's statement that a procedure clause was checked."""

    clause_id: str
    attested_by: str
    attested_at: str
    statement: str


@dataclass
class ClauseRow:
    """One line of the clause matrix."""

    clause_id: str
    verdict: str
    reason: str
    testability: str
    text_pt: str
    summary_en: str
    regulation_title: str
    section_pt: str
    section_en: str
    measurements: list[ReportedMeasurement]
    tests: list[tuple[str, str]]
    attestations: list[Attestation]
    attachments: list[Attachment]
    plots: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class StreamInfo:
    """An observation stream: how many observations, when, from where."""

    name: str
    count: int
    first_at: str
    last_at: str
    sources: tuple[str, ...]


@dataclass
class DeclineGroup:
    """Declined or disputed reads of one stream for one reason, with the frames of the first few."""

    stream: str
    reason: str
    count: int
    examples: list[str]
    frames: list[Attachment]


@dataclass
class WireExcerpt:
    """Lines of one device's wire log around its first faults."""

    device: str
    attachment: Attachment
    lines: int
    faults: int
    blocks: list[list[dict[str, Any]]]


@dataclass
class RunInfo:
    """The run, who ran it and with what."""

    run_id: str
    created_at: str
    finished_at: str
    profile_name: str
    profile_source: str
    software_version: str
    host: str
    command: str
    laboratory: str
    operator: str
    account: str
    resumed: int


@dataclass(frozen=True)
class DiceReaderInfo:
    """The reader of a dice camera, as journalled when the camera was opened (:data:`bench.journal.DICE_READER_EVENT`)."""

    device: str
    reader: str
    """``staged``, or ``classical`` (the pip-counting reader, since removed) in an older run's journal."""
    model_sha256: str | None = None
    threshold: float | None = None
    settings_file: str | None = None
    settings_sha256: str | None = None
    lean_model_sha256: str | None = None
    """The staged reader's lean model (whether a die read leans), when it has one."""
    arena_corners: int | None = None
    """Corners of the arena outline the reader was told (``camera.arena_px``); None when it was told none."""

    SHORT_HASH = 16
    """Hex digits of a hash the certificate prints (the journal holds all 64)."""

    @property
    def model_short(self) -> str:
        return (self.model_sha256 or "")[: self.SHORT_HASH]

    @property
    def settings_short(self) -> str:
        return (self.settings_sha256 or "")[: self.SHORT_HASH]

    @property
    def lean_short(self) -> str:
        return (self.lean_model_sha256 or "")[: self.SHORT_HASH]

    @classmethod
    def from_event(cls, detail: dict[str, Any]) -> DiceReaderInfo:
        threshold = detail.get("threshold")
        arena = detail.get("arena_px")
        return cls(str(detail.get("device", "")), str(detail.get("reader", "")), detail.get("model_sha256"),
                   None if threshold is None else float(threshold), detail.get("settings_file"),
                   detail.get("settings_sha256"), detail.get("lean_model_sha256"),
                   len(arena) if isinstance(arena, list) and arena else None)


def _dice_readers(events: list[dict[str, Any]]) -> list[DiceReaderInfo]:
    """Each dice camera's reader, in the order first journalled; every session of a resumed run journals it
    again, and a reader that changed between sessions is listed beside the one it replaced."""
    found = [DiceReaderInfo.from_event(event["detail"]) for event in events
             if event["kind"] == DICE_READER_EVENT and isinstance(event["detail"], dict)]
    return list(dict.fromkeys(found))


@dataclass
class RunData:
    """Everything the certificate renders."""

    run_dir: Path
    run: RunInfo
    profile: Profile
    equipment: list[DeviceInfo]
    instruments: list[DeviceInfo]
    clauses: list[ClauseRow]
    measurements: list[ReportedMeasurement]
    attachments: list[Attachment]
    streams: list[StreamInfo]
    declines: list[DeclineGroup]
    wire: list[WireExcerpt]
    series: dict[str, list[dict[str, Any]]]
    chain_rows: int
    chain_head: str
    chain_intact: bool
    signed_fingerprint: str | None = None
    lost_games: int = 0
    """Games a killed session lost (result on the wire, not in the journal), journalled on resume."""
    signoff: SignOff = field(default_factory=lambda: SignOff(None, ()))
    """The certificate number and the reviewer's and approver's signed approvals (:mod:`reports.signoff`)."""
    games: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
    """(games the run's equipment plays, games it could be set to play): :func:`reports.clause_verdicts.run_games`."""
    dice_readers: list[DiceReaderInfo] = field(default_factory=list)
    """The reader of every dice camera the run opened (classical, or staged with its model and threshold)."""

    @property
    def counts(self) -> dict[str, int]:
        found = Counter(row.verdict for row in self.clauses)
        return {verdict: found[verdict] for verdict in VERDICTS if found[verdict]}

    @property
    def overall(self) -> str:
        """FAIL, ERROR, INCOMPLETE or PASS over the clauses (:func:`reports.clause_verdicts.overall_verdict`);
        NONE when no clause was measured."""
        states = {row.verdict for row in self.clauses}
        for state in (FAIL, ERROR, INCOMPLETE, PASS):
            if state in states:
                return state
        return "NONE"


def _short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def load_run(run_dir: Path, catalogue: Catalogue) -> RunData:
    """Read the run in ``run_dir`` (its ``journal.sqlite``) into :class:`RunData`; JournalError without one."""
    run_dir = Path(run_dir)
    journal = Journal(run_dir / Journal.FILENAME, create=False)
    try:
        return _load(journal, run_dir, catalogue)
    finally:
        journal.close()


def _load(journal: Journal, run_dir: Path, catalogue: Catalogue) -> RunData:
    runs = journal.rows("runs")
    if not runs:
        raise ValueError(f"{journal.path}: the journal holds no run")
    run_row = runs[0]
    run_id = run_row["run_id"]
    profile = load_profile_text(run_row["profile_text"], run_row["profile_source"])
    verdicts = clause_verdicts(journal, catalogue, run_kinds(journal), applicable=True)
    events = journal.rows("events", "run_id = ?", (run_id,))
    attachments = [Attachment.model_validate({name: row[name] for name in columns(Attachment, journal.schema_version)})
                   for row in journal.rows("attachments", "run_id = ?", (run_id,))]
    by_sha = {item.sha256: item for item in attachments}
    measurements: list[ReportedMeasurement] = []
    anchors: dict[int, ReportedMeasurement] = {}
    orders = _pocket_orders(profile)
    for verdict in verdicts:
        for row in verdict.measurements:
            if row["seq"] not in anchors:
                anchors[row["seq"]] = ReportedMeasurement.of(
                    measurement_from_row(row, journal.schema_version, orders), f"m{row['seq']}")
                measurements.append(anchors[row["seq"]])
    measurements.sort(key=lambda item: int(item.anchor[1:]))
    series = _series(journal, run_id, measurements)
    plot_clauses = {name: sorted({clause for entry in entries for clause in entry["clauses"]})
                    for name, entries in series.items()}
    position = {clause.id: index for index, clause in enumerate(catalogue.clauses())}
    verdicts = sorted(verdicts, key=lambda verdict: position.get(verdict.clause_id, len(position)))
    rows = [_clause_row(verdict, catalogue, anchors, attachments, plot_clauses) for verdict in verdicts]
    chain = journal.verify_chain()
    return RunData(
        run_dir=run_dir,
        run=_run_info(run_row, profile, events),
        profile=profile,
        equipment=_equipment(journal, run_id, profile),
        instruments=_instruments(journal, run_id, profile),
        clauses=rows,
        measurements=measurements,
        attachments=attachments,
        streams=_streams(journal, run_id),
        declines=_declines(journal, run_id, by_sha),
        wire=_wire_excerpts(run_dir, attachments),
        series=series,
        chain_rows=chain.rows,
        chain_head=chain.head,
        chain_intact=chain.intact,
        signed_fingerprint=_manifest_fingerprint(run_dir),
        lost_games=lost_games(journal, run_id),
        games=run_games(journal),
        signoff=read_signoff(journal, run_id),
        dice_readers=_dice_readers(events),
    )


def _manifest_fingerprint(run_dir: Path) -> str | None:
    try:
        manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
    value = manifest.get("key_fingerprint") if isinstance(manifest, dict) else None
    return value if isinstance(value, str) else None


def _run_info(run: dict[str, Any], profile: Profile, events: list[dict[str, Any]]) -> RunInfo:
    """Operator: ``bench certify --operator`` (an ``operator`` event), else the profile's laboratory
    operator, else the account that started the run."""
    started = next((event for event in events if event["kind"] == "started"), None)
    account = str((started or {}).get("detail", {}).get("operator", "")) if started else ""
    named = [event["detail"].get("operator") for event in events
             if event["kind"] == "operator" and isinstance(event["detail"], dict) and event["detail"].get("operator")]
    operator = ", ".join(dict.fromkeys(str(name) for name in named)) if named else (
        profile.laboratory.operator if profile.laboratory.operator != DEFAULT_OPERATOR else account)
    ends = [event["at"] for event in events if event["kind"] == "session-end"]
    return RunInfo(
        run_id=run["run_id"], created_at=run["created_at"], finished_at=ends[-1] if ends else "",
        profile_name=run["profile_name"], profile_source=run["profile_source"],
        software_version=run["software_version"], host=run["host"], command=run["command"],
        laboratory=profile.laboratory.name, operator=str(operator), account=account,
        resumed=sum(1 for event in events if event["kind"] == "resumed"),
    )


def _identity_of(model: Any) -> Identity:
    identity = getattr(model, "identity", None)
    return Identity.from_mapping(identity.model_dump() if identity is not None else None) or Identity()


def _equipment(journal: Journal, run_id: str, profile: Profile) -> list[DeviceInfo]:
    reported = {row["name"]: row for row in journal.rows("equipment", "run_id = ?", (run_id,))}
    devices = []
    for name, item in profile.equipment.items():
        row = reported.get(name)
        devices.append(DeviceInfo(name, item.kind, _identity_of(item),
                                  Identity.from_mapping(row["reported"]) if row else None,
                                  getattr(item, "simulator", None) is not None))
    return devices


def _instruments(journal: Journal, run_id: str, profile: Profile) -> list[DeviceInfo]:
    reported = {row["name"]: row for row in journal.rows("equipment", "run_id = ?", (run_id,))}
    devices = []
    for name, item in profile.instruments.items():
        powers = getattr(item, "powers", None)
        measures = getattr(item, "measures", None)
        role = f"powers: {', '.join(powers)}" if powers else (f"measures: {measures}" if measures else "")
        row = reported.get(name)
        devices.append(DeviceInfo(name, item.kind, _identity_of(item),
                                  Identity.from_mapping(row["reported"]) if row else None,
                                  getattr(item, "simulator", None) is not None, role))
    return devices


def _clause_row(verdict: Any, catalogue: Catalogue, anchors: dict[int, ReportedMeasurement],
                attachments: list[Attachment], plot_clauses: dict[str, list[str]]) -> ClauseRow:
    clause = catalogue[verdict.clause_id] if verdict.clause_id in catalogue else None  # noqa: SIM401 - no .get
    regulation = catalogue.regulations.get(clause.regulation) if clause else None
    section = regulation.sections.get(clause.section) if clause and regulation else None
    nodeids = {test["nodeid"] for test in verdict.tests}
    return ClauseRow(
        clause_id=verdict.clause_id,
        verdict=verdict.verdict,
        reason=verdict.reason,
        testability=verdict.testability if clause is None else clause.testability.value,
        text_pt=clause.text_pt if clause else "",
        summary_en=clause.summary_en if clause else "",
        regulation_title=regulation.title if regulation else "",
        section_pt=section.pt if section else "",
        section_en=section.en if section else "",
        measurements=[anchors[row["seq"]] for row in verdict.measurements],
        tests=[(test["nodeid"], test["outcome"]) for test in verdict.tests],
        attestations=[Attestation(row["clause_id"], row["attested_by"], row["attested_at"], row["statement"])
                      for row in verdict.attestations],
        attachments=[item for item in attachments if item.nodeid in nodeids],
        plots=[name for name, clauses in plot_clauses.items() if verdict.clause_id in clauses],
    )


def _query(journal: Journal, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """An aggregate query the journal's row API has no call for, on a read-only connection."""
    connection = sqlite3.connect(f"file:{journal.path}?mode=ro", uri=True)
    try:
        return connection.execute(sql, params).fetchall()
    finally:
        connection.close()


def _streams(journal: Journal, run_id: str) -> list[StreamInfo]:
    rows = _query(journal, "SELECT stream, COUNT(*), MIN(at), MAX(at), GROUP_CONCAT(DISTINCT source) FROM observations "
                  "WHERE run_id = ? GROUP BY stream ORDER BY MIN(seq)", (run_id,))
    return [StreamInfo(row[0], int(row[1]), row[2], row[3], tuple(sorted((row[4] or "").split(","))))
            for row in rows]


def _declines(journal: Journal, run_id: str, by_sha: dict[str, Attachment],
              frames_per_reason: int = 3) -> list[DeclineGroup]:
    """Declined and void reads by stream and reason, and camera reads that contradict the device."""
    groups: dict[tuple[str, str], DeclineGroup] = {}

    def add(stream: str, reason: str, example: str, frames: list[str]) -> None:
        group = groups.setdefault((stream, reason), DeclineGroup(stream, reason, 0, [], []))
        group.count += 1
        if len(group.examples) < 3:
            group.examples.append(example)
        if len(group.frames) < frames_per_reason and frames and frames[0] in by_sha:
            group.frames.append(by_sha[frames[0]])  # the first frame of each of the first reads

    streams = [row[0] for row in _query(journal, "SELECT DISTINCT stream FROM observations WHERE run_id = ?",
                                        (run_id,))]
    for stream in streams:
        if any(marker in stream for marker in DECLINE_STREAM_MARKERS):
            for row in journal.observations(run_id, stream):
                value = row["value"] if isinstance(row["value"], dict) else {}
                if stream.endswith("/no-reads"):  # grouped by what could not be confirmed, numbers left out
                    reason = "no-read: " + re.sub(r"\d+", "N", str(value.get("what") or "read"))
                    subject, detail = "", str(value.get("reason") or "")
                else:
                    reason = str(value.get("reason") or value.get("code") or "declined")
                    subject = next((f"{key} {value[key]}" for key in ("game", "throw", "index") if key in value), "")
                    detail = value.get("detail") or value.get("text") or ""
                add(stream, reason, f"{subject}: {detail}".strip(": "), list(value.get("frames") or []))
    disputed = journal.rows(
        "observations", "run_id = ? AND json_extract(value, '$.camera_number') IS NOT NULL "
        "AND json_extract(value, '$.sensor_number') IS NOT NULL "
        "AND json_extract(value, '$.camera_number') != json_extract(value, '$.sensor_number')", (run_id,))
    for row in disputed:
        value = row["value"]
        add(row["stream"], "camera read disputes the device", f"game {value.get('game')}: device "
            f"{value['sensor_number']}, camera {value['camera_number']}", list(value.get("camera_frames") or []))
    return sorted(groups.values(), key=lambda group: (group.stream, -group.count))


def is_fault(entry: dict[str, Any]) -> bool:
    """A wire-log entry that records a line fault (partial or stale reply, timeout, reconnect)."""
    if entry.get("dir") in FAULT_DIRECTIONS:
        return True
    note = str(entry.get("note", "")).lower()
    return bool(note) and any(marker in note for marker in FAULT_NOTE_MARKERS)


def wire_excerpt(entries: list[dict[str, Any]], context: int = WIRE_CONTEXT_LINES,
                 faults_shown: int = WIRE_FAULTS_SHOWN) -> tuple[int, list[list[dict[str, Any]]]]:
    """(number of faults, blocks of entries around the first ``faults_shown``), overlapping blocks merged.

    Each entry of a block gains ``line`` (1-based line of the log) and ``fault`` (bool)."""
    faults = [index for index, entry in enumerate(entries) if is_fault(entry)]
    spans: list[list[int]] = []
    for index in faults[:faults_shown]:
        start, stop = max(0, index - context), min(len(entries), index + context + 1)
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], stop)
        else:
            spans.append([start, stop])
    blocks = [[entries[i] | {"line": i + 1, "fault": is_fault(entries[i])} for i in range(start, stop)]
              for start, stop in spans]
    return len(faults), blocks


def _wire_excerpts(run_dir: Path, attachments: list[Attachment]) -> list[WireExcerpt]:
    excerpts = []
    for item in attachments:
        if item.media_type != "application/jsonl" or not item.name.endswith("wire log"):
            continue
        try:
            text = (run_dir / item.path).read_text(encoding="utf-8")
        except (FileNotFoundError, UnicodeDecodeError):
            continue
        entries = []
        for line in text.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                entry = {"dir": "?", "text": line, "note": "unparsable log line"}
            entries.append(entry if isinstance(entry, dict) else {"dir": "?", "text": str(entry)})
        faults, blocks = wire_excerpt(entries)
        excerpts.append(WireExcerpt(item.name.removesuffix(" wire log"), item, len(entries), faults, blocks))
    return excerpts


def _pocket_orders(profile: Profile) -> list[tuple[int, ...]]:
    """The pocket orders of the profile's wheels (``options.pocket_order``): the wheel order of the pocket counts
    of a schema-1 journal, whose JSON objects lost it (:func:`bench.evidence.upgrade.wheel_order`)."""
    orders = []
    for item in profile.equipment.values():
        order = getattr(getattr(item, "options", None), "pocket_order", None)
        if order is not None:
            orders.append(tuple(order))
    return orders


def _series(journal: Journal, run_id: str, measurements: list[ReportedMeasurement]) -> dict[str, list[dict[str, Any]]]:
    """The data of every plot the run has (see the module docstring); plots without data are absent."""
    series: dict[str, list[dict[str, Any]]] = {}

    def add(name: str, measurement: ReportedMeasurement | None, clauses: list[str], **data: Any) -> None:
        title = measurement.name if measurement else data.pop("title", name)
        series.setdefault(name, []).append({"title": title, "clauses": clauses,
                                            "anchor": measurement.anchor if measurement else "", **data})

    for m in measurements:
        clauses = list(m.clauses)
        for entry in m.series:
            if isinstance(entry, PocketCounts):
                add("pockets", m, clauses, order=entry.order, counts=entry.values, alpha=m.alpha or 0.01)
            elif isinstance(entry, PositionCounts):
                add("cards", m, clauses, counts=[list(row) for row in entry.counts], block=entry.block_cards)
            elif isinstance(entry, SequentialPath):
                add("sequential", m, clauses, n=list(entry.n), log_lr=list(entry.log_lr), upper=entry.upper,
                    lower=entry.lower)
            elif isinstance(entry, JackpotPath):
                add("jackpot", m, clauses, bets_cents=list(entry.bets_cents), value_cents=list(entry.value_cents),
                    start_cents=entry.start_cents, increment_percent=entry.increment_percent)
            elif isinstance(entry, RtpInterval):
                add("rtp", m, clauses, rtp=entry.rtp, low=entry.low, high=entry.high, floor=entry.floor,
                    alpha=m.alpha or m.details.get("alpha"), sample_size=m.sample_size)
    throws = journal.observations(run_id, "dice/throws")
    faces = [row["value"]["faces"] for row in throws if isinstance(row["value"], dict) and row["value"].get("faces")]
    if faces and len({len(entry) for entry in faces}) == 1:
        clauses = sorted({clause for m in measurements if m.name.startswith("dice:") for clause in m.clauses})
        dice_m = next((m for m in measurements if m.name.startswith("dice:")), None)
        add("dice", None, clauses, title="dice/throws", faces=faces, alpha=dice_m.alpha if dice_m else 0.01,
            anchor_measurement=dice_m.anchor if dice_m else "")
    if "pockets" in series:
        series["sectors"] = [dict(entry) for entry in series["pockets"]]
    return series


__all__ = [
    "Attestation", "ClauseRow", "DeclineGroup", "DeviceInfo", "Identity", "ReportedMeasurement", "RunData",
    "RunInfo", "StreamInfo", "WireExcerpt", "is_fault", "load_run", "wire_excerpt",
]
