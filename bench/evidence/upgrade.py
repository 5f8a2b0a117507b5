"""Reading journal rows of every readable schema version into the current evidence model.

Rows are never rewritten (the journal is append-only and hash-chained over what was
stored); a row of an earlier version is mapped to the model when it is read.

Schema 1 carried the plot data as untyped ``details`` keys of a measurement (the shapes
:mod:`reports.run_data` documented then):

* ``counts_in_wheel_order``: pocket number (as text) -> count. The journal stores JSON
  objects with sorted keys, so the wheel order was lost; it is the order of the profile's
  wheel whose pockets are those counted (``options.pocket_order``), else numeric order;
* ``position_counts`` (rows of counts) and ``position_block_cards`` (default 1);
* ``sequential_path``: ``{"n", "log_lr", "upper", "lower"}``;
* ``jackpot_series``: ``{"bets_cents", "value_cents", "start_cents", "increment_percent"}``;
* ``rtp``, ``lower_bound``, ``upper_bound`` (numbers) and ``floor`` (default 0.80).

They become the typed :attr:`~bench.evidence.record.Measurement.series`, in that order;
``details`` stay as they were stored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from bench.evidence.record import (
    EVIDENCE_SCHEMA_VERSION,
    READABLE_SCHEMA_VERSIONS,
    JackpotPath,
    Measurement,
    PocketCounts,
    PositionCounts,
    RtpInterval,
    SequentialPath,
    columns,
)


class SchemaVersionError(ValueError):
    """Evidence of a schema version this bench cannot read."""


def check_readable(schema_version: int) -> None:
    """SchemaVersionError unless this bench reads ``schema_version``."""
    if schema_version not in READABLE_SCHEMA_VERSIONS:
        newer = schema_version > EVIDENCE_SCHEMA_VERSION
        raise SchemaVersionError(
            f"schema version {schema_version}"
            + (", written by a newer bench" if newer else "")
            + f"; this bench reads schema versions {READABLE_SCHEMA_VERSIONS[0]} to {EVIDENCE_SCHEMA_VERSION}"
            + (": read it with that bench or a later one" if newer else "")
        )


def wheel_order(counts: Mapping[str, Any], pocket_orders: Iterable[Sequence[int]]) -> list[int]:
    """The pockets of schema-1 ``counts_in_wheel_order`` in wheel order: the first of ``pocket_orders`` (the
    profile's wheels) that holds exactly the counted pockets, else numeric order."""
    numbers = {int(key) for key in counts}
    for order in pocket_orders:
        if set(order) == numbers:
            return list(order)
    return sorted(numbers)


def series_of_schema1(details: Mapping[str, Any], pocket_orders: Iterable[Sequence[int]] = ()) -> list[Any]:
    """The typed series a schema-1 measurement's ``details`` carried (see the module docstring). Data of a series
    that does not fit its model (which schema 1 never checked) stays in ``details`` only, not drawn."""
    series: list[Any] = []

    def add(build: Callable[[], Any]) -> None:
        try:
            series.append(build())
        except (ValidationError, KeyError, TypeError, ValueError):
            pass

    counts = details.get("counts_in_wheel_order")
    if isinstance(counts, dict) and counts:
        add(lambda: PocketCounts(counts=tuple((number, int(counts[str(number)]))
                                              for number in wheel_order(counts, pocket_orders))))
    if isinstance(details.get("position_counts"), list) and details["position_counts"]:
        add(lambda: PositionCounts(counts=details["position_counts"],
                                   block_cards=int(details.get("position_block_cards", 1))))
    path = details.get("sequential_path")
    if isinstance(path, dict) and path.get("n"):
        add(lambda: SequentialPath(n=path["n"], log_lr=path["log_lr"], upper=path["upper"], lower=path.get("lower")))
    jackpot = details.get("jackpot_series")
    if isinstance(jackpot, dict) and jackpot.get("bets_cents"):
        add(lambda: JackpotPath(bets_cents=jackpot["bets_cents"], value_cents=jackpot["value_cents"],
                                start_cents=jackpot["start_cents"],
                                increment_percent=float(jackpot["increment_percent"])))
    if all(isinstance(details.get(key), int | float) and not isinstance(details.get(key), bool)
           for key in ("rtp", "lower_bound", "upper_bound")):
        add(lambda: RtpInterval(rtp=float(details["rtp"]), low=float(details["lower_bound"]),
                                high=float(details["upper_bound"]), floor=float(details.get("floor", 0.80))))
    return series


def measurement_from_row(row: Mapping[str, Any], schema_version: int,
                         pocket_orders: Iterable[Sequence[int]] = ()) -> Measurement:
    """A decoded ``measurements`` row of ``schema_version`` as the current :class:`Measurement`; a schema-1 row
    gains the series its ``details`` carried, in the wheel order of ``pocket_orders`` (the profile's wheels)."""
    check_readable(schema_version)
    fields = {name: row[name] for name in columns(Measurement, schema_version)}
    if schema_version == 1:
        fields["series"] = series_of_schema1(fields.get("details") or {}, pocket_orders)
    fields["details"] = fields.get("details") or {}
    return Measurement.model_validate(fields)
