"""The evidence record (bench/evidence): validation, the judging rule, typed series, schema versions."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError

from bench.evidence import (
    EVIDENCE_SCHEMA_VERSION,
    Attachment,
    JackpotPath,
    Measurement,
    Observation,
    PocketCounts,
    PositionCounts,
    RtpInterval,
    SchemaVersionError,
    SequentialPath,
    check_readable,
    columns,
    measurement_from_row,
)
from bench.evidence.upgrade import series_of_schema1
from bench.journal import SCHEMA_VERSION, Journal, JournalError
from fixtures.allure_bridge import parameter_text

RUN, AT = "run-1", "2026-01-02T10:00:00.000000+00:00"
NODE = "suites/test_roulette.py::test_pocket_fairness"
FAIRNESS = "p217-2007/roleta-francesa/5"
WHEEL = (0, 32, 15, 19, 4, 21, 2, 25, 17, 34, 6, 27, 13, 36, 11, 30, 8, 23, 10, 5, 24, 16, 33, 1, 20, 14, 31, 9,
         22, 18, 29, 7, 28, 12, 35, 3, 26)
"""The French wheel, clockwise from 0 (p217-2007/roleta-francesa/2): anything but numeric order."""


def _given(**fields: Any) -> dict[str, Any]:
    return {"run_id": RUN, "at": AT, "nodeid": NODE, "attempt": 1, "name": "pocket fairness", "value": 31.25,
            "clauses": [FAIRNESS]} | fields


def _series() -> list[Any]:
    return [
        PocketCounts(counts=[(pocket, 100 + index) for index, pocket in enumerate(WHEEL)]),
        PositionCounts(counts=[[3, 1], [1, 3]], block_cards=4),
        SequentialPath(n=[0, 100, 200], log_lr=[0.0, -0.5, 1.25], upper=math.log(100), lower=math.log(0.1)),
        JackpotPath(bets_cents=[0, 500, 1000], value_cents=[100000, 100010, 100020], start_cents=100000,
                    increment_percent=2.0),
        RtpInterval(rtp=0.91, low=0.88, high=0.94),
    ]


# -- validation names the field ------------------------------------------------------------------


@pytest.mark.parametrize(("fields", "field"), [
    ({"sample_size": "many"}, "sample_size"),
    ({"sample_size": -1}, "sample_size"),
    ({"attempt": 0}, "attempt"),
    ({"low": "zero"}, "low"),
    ({"value": object()}, "value"),
    ({"value": None}, "value"),
    ({"details": {"ratio": math.nan}}, "details.ratio"),
    ({"clauses": []}, "clauses"),
    ({"clauses": ["Roleta Francesa 5"]}, "clauses"),
    ({"colour": "red"}, "colour"),
    ({"series": [{"kind": "pockets", "counts": [[0, 1], [0, 2]]}]}, "series.0.pockets.counts"),
    ({"series": [{"kind": "sequential", "n": [0, 1], "log_lr": [0.0], "upper": 4.6}]}, "series.0.sequential"),
    ({"series": [{"kind": "histogram"}]}, "series.0"),
])
def test_a_measurement_refuses_a_bad_field_and_names_it(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as refused:
        Measurement.judged(**_given(high=40, **fields))
    assert any(".".join(str(part) for part in error["loc"]).startswith(field) for error in refused.value.errors()), \
        refused.value


@pytest.mark.parametrize(("model", "fields", "field"), [
    (Observation, {"idx": -1}, "idx"),
    (Observation, {"stream": ""}, "stream"),
    (Observation, {"raw_ref": 17}, "raw_ref"),
    (Attachment, {"sha256": "not a digest"}, "sha256"),
    (Attachment, {"size": -5}, "size"),
])
def test_observations_and_attachments_name_the_bad_field(model: type, fields: dict[str, Any], field: str) -> None:
    valid = {Observation: {"run_id": RUN, "at": AT, "stream": "wheel/spins", "idx": 0, "nodeid": NODE,
                           "source": "wheel", "value": {"number": 17}},
             Attachment: {"run_id": RUN, "at": AT, "nodeid": NODE, "attempt": 1, "name": "frame", "sha256": "ab" * 32,
                          "media_type": "image/jpeg", "size": 10, "path": "attachments/ab/ab.jpg"}}[model]
    model(**valid)
    with pytest.raises(ValidationError) as refused:
        model(**(valid | fields))
    assert [error["loc"][0] for error in refused.value.errors()] == [field]


# -- the judging rule lives with the model -----------------------------------------------------------


def test_judged_measurements_carry_the_verdict_of_their_criterion() -> None:
    assert Measurement.judged(**_given(value=36, low=0, high=36)).passed is True
    assert Measurement.judged(**_given(value=3, high=0)).passed is False
    assert Measurement.judged(**_given(value="accept H0", expected="accept H0", p_value=0.53, alpha=0.01)).passed
    assert not Measurement.judged(**_given(p_value=0.009, alpha=0.01)).passed
    assert Measurement.judged(**_given(value=np.float64(0.5), low=np.int64(0))).passed  # numpy numbers are numbers


@pytest.mark.parametrize(("fields", "message"), [
    ({}, "needs a criterion"),
    ({"p_value": 0.5}, "both p_value and alpha"),
    ({"alpha": 0.01, "low": 0}, "both p_value and alpha"),
    ({"p_value": 1.5, "alpha": 0.01}, "is not a probability"),
    ({"p_value": math.nan, "alpha": 0.01}, "is not a probability"),
    ({"value": "12", "low": 0}, "limits need a numeric value"),
])
def test_judged_refuses_what_judge_refuses_with_the_same_message(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Measurement.judged(**_given(**fields))


def test_the_verdict_is_judged_not_given() -> None:
    with pytest.raises(TypeError, match="judged"):
        Measurement.judged(**_given(high=40, passed=True))


def test_the_fields_a_test_gives_are_the_models_less_provenance_and_verdict() -> None:
    given = Measurement.given_by_test()
    assert given[:2] == ("name", "value") and "series" in given and "details" in given
    assert not {"run_id", "at", "nodeid", "attempt", "passed"} & set(given)
    assert set(given) | {"run_id", "at", "nodeid", "attempt", "passed"} == set(Measurement.model_fields)


def test_the_allure_parameter_states_the_fields_the_model_marks() -> None:
    measurement = Measurement.judged(**_given(unit="chi2", p_value=0.681234, alpha=0.01, sample_size=3700,
                                              power=0.9761))
    assert [name for name, _ in measurement.facts()] == ["p_value", "alpha", "sample_size", "power"]
    assert parameter_text(measurement) == "31.25 chi2 (p = 0.6812, α = 0.01, n = 3700, power 0.976, limit p ≥ α = 0.01): PASS"
    assert parameter_text(Measurement.judged(**_given(value=3, high=0))) == "3 (limit ≤ 0): FAIL"


# -- series keep their order through the journal -------------------------------------------------------


def test_series_keep_their_order_through_a_journal_round_trip(tmp_path: Path) -> None:
    written = Measurement.judged(**_given(p_value=0.5, alpha=0.01, details={"z": 1, "a": [3, 1, 2]}, series=_series()))
    with Journal(tmp_path / Journal.FILENAME) as journal:
        journal.record(written)
        [row] = journal.rows("measurements")
        read = measurement_from_row(row, journal.schema_version)
        assert journal.verify_chain().intact
    assert read == written
    assert read.series[0].order == list(WHEEL)  # not 0, 1, 2, ...: the wheel's order, as written
    assert read.series[0].values == [100 + index for index in range(37)]
    stored = json.loads(sqlite3.connect(tmp_path / Journal.FILENAME).execute("SELECT series FROM measurements")
                        .fetchone()[0])
    assert [pair[0] for pair in stored[0]["counts"]] == list(WHEEL)


def test_schema_1_details_become_the_typed_series_in_wheel_order() -> None:
    details = {"counts_in_wheel_order": {str(pocket): 100 + index for index, pocket in enumerate(WHEEL)},
               "position_counts": [[3, 1], [1, 3]], "position_block_cards": 4,
               "sequential_path": {"n": [0, 100, 200], "log_lr": [0.0, -0.5, 1.25], "upper": math.log(100),
                                   "lower": math.log(0.1)},
               "jackpot_series": {"bets_cents": [0, 500, 1000], "value_cents": [100000, 100010, 100020],
                                  "start_cents": 100000, "increment_percent": 2.0},
               "rtp": 0.91, "lower_bound": 0.88, "upper_bound": 0.94, "floor": 0.8}
    sorted_keys = json.loads(json.dumps(details, sort_keys=True))  # what a schema-1 journal gives back
    assert series_of_schema1(sorted_keys, [tuple(range(38)), WHEEL]) == _series()  # the wheel of these pockets
    assert series_of_schema1(sorted_keys)[0].order == list(range(37))  # no wheel of these pockets: numeric order
    malformed = sorted_keys | {"position_counts": [[1, 2], [3]], "sequential_path": {"n": [0, 1], "log_lr": [0.0]}}
    assert series_of_schema1(malformed, [WHEEL]) == [_series()[0], *_series()[3:]]  # not drawn, still in details


# -- schema versions -----------------------------------------------------------------------------------


def test_a_new_journal_is_written_in_the_current_schema(tmp_path: Path) -> None:
    path = tmp_path / Journal.FILENAME
    with Journal(path) as journal:
        assert journal.schema_version == SCHEMA_VERSION == EVIDENCE_SCHEMA_VERSION == 2
        journal.record(Measurement.judged(**_given(high=40, series=_series()[:1])))
        assert journal.verify_chain().intact
    db = sqlite3.connect(path)
    assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("2",)
    table = [row[1] for row in db.execute("PRAGMA table_info(measurements)")][3:]
    assert tuple(table) == columns(Measurement) and table[-1] == "series"
    types = {row[1]: (row[2], bool(row[3])) for row in db.execute("PRAGMA table_info(measurements)")}
    assert types["sample_size"] == ("INTEGER", False) and types["p_value"] == ("REAL", False)
    assert types["passed"] == ("INTEGER", True) and types["series"] == ("TEXT", True)
    db.close()


def test_the_journal_columns_of_schema_1_are_the_models_less_what_came_later() -> None:
    assert columns(Measurement, 1) == columns(Measurement)[:-1]
    assert columns(Observation, 1) == columns(Observation)
    assert columns(Attachment, 1) == columns(Attachment)


def test_a_journal_of_a_future_schema_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    path = tmp_path / Journal.FILENAME
    Journal(path).close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    db.close()
    with pytest.raises(JournalError, match=r"schema version 3, written by a newer bench; this bench reads schema "
                                           r"versions 1 to 2"):
        Journal(path, create=False)
    with pytest.raises(SchemaVersionError, match="newer bench"):
        check_readable(3)
    with pytest.raises(SchemaVersionError, match="schema version 0"):
        measurement_from_row({}, 0)
