"""The evidence record: one versioned model of what a run proves.

Three kinds of evidence are journalled as they happen (DESIGN.md, "Every verdict is a
measurement" and "Nothing is lost"):

* :class:`Observation`: one outcome read from the equipment (a spin, a throw, a card),
  committed on its own so that a killed run resumes after it;
* :class:`Measurement`: a named value with its unit, its pass criterion (limits, an expected
  value, or a p-value against α), the clauses it proves, the method, and for statistical tests
  the sample size, p-value, α and power (OpenHTF's measurements, with the statistics a lab
  needs), plus the typed plot series the certificate draws;
* :class:`Attachment`: a stored file (frame, wire log, plot) named by its SHA-256.

Everything else is derived from these models, never declared again: the journal's columns
and SQLite types (:mod:`bench.journal`), the keyword arguments of the ``measure`` fixture
(:meth:`Measurement.given_by_test`), the allure parameters (:meth:`Measurement.facts`) and
the report's view (:mod:`reports.run_data`).

Versions (:data:`EVIDENCE_SCHEMA_VERSION`, written to the journal's ``meta`` table):

1. measurements carried plot data as untyped ``details`` keys (``counts_in_wheel_order``,
   ``position_counts``, ``sequential_path``, ``jackpot_series``, ``rtp``/``lower_bound``/
   ``upper_bound``); :mod:`bench.evidence.upgrade` reads them into the typed series;
2. a measurement's plot data is the typed, ordered ``series`` column.

A field added in a later version says so (:func:`since`); :func:`columns` gives the fields
a journal of a given version holds, so rows of earlier versions hash as they were written.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterator
from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

from bench.catalogue.model import is_clause_id

EVIDENCE_SCHEMA_VERSION = 2
"""Version of the evidence record written by this bench (the journal's ``meta.schema_version``)."""

READABLE_SCHEMA_VERSIONS = (1, 2)
"""Versions this bench reads: every earlier one, mapped to the current model on reading."""


def _plain_scalar(value: Any) -> Any:
    """numpy scalars (counts, statistics) as the Python numbers they stand for."""
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def _json_compatible(value: Any) -> Any:
    """``value`` unchanged when the journal can store it as JSON (finite numbers, text keys); ValueError otherwise."""
    try:
        json.dumps(value, allow_nan=False, default=_plain_scalar, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise ValueError(f"not storable as JSON: {error}") from None
    return value


JsonData = Annotated[Any, AfterValidator(_json_compatible)]
"""Any value the journal stores as JSON: numbers (numpy scalars included), text, booleans, lists, objects."""


def since(version: int) -> dict[str, Any]:
    """Field metadata: the evidence schema version that introduced the field (``Field(json_schema_extra=...)``)."""
    return {"since": version}


def fact(template: str, rank: int) -> dict[str, Any]:
    """Field metadata: how the field is stated beside a measurement's value (allure parameter), e.g.
    ``"p = {:.4g}"``, and its place among the stated fields (``rank``, ascending)."""
    return {"fact": template, "rank": rank}


def _extra(info: Any, key: str) -> Any:
    extra = info.json_schema_extra
    return extra.get(key) if isinstance(extra, dict) else None


class EvidenceModel(BaseModel):
    """Common configuration: immutable, and a field the model does not know is an error naming it."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def columns(model: type[BaseModel], schema_version: int = EVIDENCE_SCHEMA_VERSION) -> tuple[str, ...]:
    """The fields of ``model`` a journal of ``schema_version`` holds, in declaration order (its table's columns)."""
    return tuple(name for name, info in model.model_fields.items() if (_extra(info, "since") or 1) <= schema_version)


# -- where and when ---------------------------------------------------------------------------


class Journalled(EvidenceModel):
    """Where and when a piece of evidence was taken: the run and the UTC time (ISO 8601)."""

    run_id: str = Field(min_length=1)
    at: str


# -- typed plot series ------------------------------------------------------------------------


class PocketCounts(EvidenceModel):
    """Outcomes per roulette pocket in wheel order: (pocket, count) pairs, clockwise from 0 (the numbering of
    p217-2007/roleta-francesa/2 on a French wheel).

    The order is the wheel's (the pocket plot and the sector statistic read neighbours from it),
    so the pairs are kept as a list, which the journal's sorted JSON cannot reorder. Pocket 37
    is the double zero (:data:`bench.games.roulette.DOUBLE_ZERO`)."""

    kind: Literal["pockets"] = "pockets"
    counts: tuple[tuple[int, int], ...] = Field(min_length=2)

    @field_validator("counts")
    @classmethod
    def _distinct_pockets(cls, counts: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
        pockets = [pocket for pocket, _ in counts]
        if len(set(pockets)) != len(pockets):
            raise ValueError("a pocket appears twice")
        if any(count < 0 for _, count in counts):
            raise ValueError("a count is negative")
        return counts

    @property
    def order(self) -> list[int]:
        """The pockets, in wheel order."""
        return [pocket for pocket, _ in self.counts]

    @property
    def values(self) -> list[int]:
        """The counts, in wheel order."""
        return [count for _, count in self.counts]


class PositionCounts(EvidenceModel):
    """Card-by-position counts over the shuffles: row = card (or block of cards) by its position before the
    shuffle, column = its position after; ``block_cards`` cards per block."""

    kind: Literal["cards"] = "cards"
    counts: tuple[tuple[int, ...], ...] = Field(min_length=2)
    block_cards: int = Field(default=1, ge=1)

    @field_validator("counts")
    @classmethod
    def _rectangular(cls, counts: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
        if len({len(row) for row in counts}) != 1 or len(counts[0]) < 2:
            raise ValueError("the counts must be a table of equal rows, at least 2 x 2")
        return counts


class SequentialPath(EvidenceModel):
    """A sequential test's natural-log likelihood ratio after ``n`` outcomes, and its boundaries log(1/α) and
    log(β) (:class:`rng_tests.sequential.SequentialTest`)."""

    kind: Literal["sequential"] = "sequential"
    n: tuple[int, ...] = Field(min_length=1)
    log_lr: tuple[float, ...] = Field(min_length=1)
    upper: float
    lower: float | None = None

    @model_validator(mode="after")
    def _same_length(self) -> Self:
        if len(self.n) != len(self.log_lr):
            raise ValueError(f"n has {len(self.n)} points and log_lr {len(self.log_lr)}")
        return self


class JackpotPath(EvidenceModel):
    """A jackpot level's displayed value against the cumulative amount bet (cents), with the level's start value
    and its approved increment (percent of each bet)."""

    kind: Literal["jackpot"] = "jackpot"
    bets_cents: tuple[int | float, ...] = Field(min_length=1)
    value_cents: tuple[int | float, ...] = Field(min_length=1)
    start_cents: int | float
    increment_percent: float

    @model_validator(mode="after")
    def _same_length(self) -> Self:
        if len(self.bets_cents) != len(self.value_cents):
            raise ValueError(f"bets_cents has {len(self.bets_cents)} points and value_cents {len(self.value_cents)}")
        return self


class RtpInterval(EvidenceModel):
    """A return to player with its confidence interval [low, high], against the floor
    (p217-2007/maquinas-automaticas/2: at least 80 %)."""

    kind: Literal["rtp"] = "rtp"
    rtp: float
    low: float
    high: float
    floor: float = 0.80


Series = Annotated[PocketCounts | PositionCounts | SequentialPath | JackpotPath | RtpInterval,
                   Field(discriminator="kind")]
"""One plot's data, told apart by ``kind``."""


# -- the judging rule ---------------------------------------------------------------------------


def check_criterion(*, low: float | None, high: float | None, expected: Any, p_value: float | None,
                    alpha: float | None) -> None:
    """ValueError unless the criterion is one a verdict can rest on: both p-value and α or neither, the p-value
    a probability, and some criterion at all (a measurement with none would prove nothing)."""
    if (p_value is None) != (alpha is None):
        raise ValueError("give both p_value and alpha, or neither")
    if p_value is None and expected is None and low is None and high is None:
        raise ValueError("a measurement needs a criterion: low/high limits, expected, or p_value with alpha")
    if p_value is not None and (math.isnan(p_value) or not 0.0 <= p_value <= 1.0):
        raise ValueError(f"p_value {p_value!r} is not a probability")


def judge(
    value: Any,
    *,
    low: float | None,
    high: float | None,
    expected: Any,
    p_value: float | None,
    alpha: float | None,
) -> bool:
    """Whether a measurement passes its criterion.

    Statistical: the null hypothesis (fair equipment) is kept when p ≥ α.
    Otherwise the value must equal ``expected`` and lie within ``[low, high]``
    (inclusive). A measurement with no criterion at all is refused: it would prove nothing.
    """
    check_criterion(low=low, high=high, expected=expected, p_value=p_value, alpha=alpha)
    passed = True
    if p_value is not None:
        passed = passed and p_value >= alpha
    if expected is not None:
        passed = passed and value == expected
    if low is not None or high is not None:
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
            raise ValueError(f"limits need a numeric value, got {value!r}")
        if low is not None:
            passed = passed and value >= low
        if high is not None:
            passed = passed and value <= high
    return bool(passed)


# -- the three kinds of evidence ---------------------------------------------------------------


class Observation(Journalled):
    """One outcome read from the equipment, index ``idx`` of its stream (``wheel/spins``), from ``source``
    (``serial``, ``camera``...), with a reference to its raw record (a frame's hash, a wire-log line)."""

    unique_together: ClassVar[tuple[str, ...]] = ("run_id", "stream", "idx")
    """An observation is recorded once per run, stream and index: a resumed run cannot record it twice."""

    stream: str = Field(min_length=1)
    idx: int = Field(ge=0)
    nodeid: str
    source: str
    value: JsonData
    raw_ref: str | None = None


class Measurement(Journalled):
    """One recorded measurement of a test attempt and its verdict (``passed``).

    ``details`` holds the method's further figures (free-form JSON); ``series`` the data of the
    certificate's plots, typed and in order. Build one from a test's values with :meth:`judged`.
    """

    nodeid: str
    attempt: int = Field(ge=1)
    name: str = Field(min_length=1)
    value: JsonData
    unit: str | None = None
    low: float | None = None
    high: float | None = None
    expected: JsonData = None
    passed: bool
    clauses: tuple[str, ...] = Field(min_length=1)
    method: str | None = None
    sample_size: int | None = Field(default=None, ge=0, json_schema_extra=fact("n = {}", 3))
    p_value: float | None = Field(default=None, json_schema_extra=fact("p = {:.4g}", 1))
    alpha: float | None = Field(default=None, json_schema_extra=fact("α = {:g}", 2))
    power: float | None = Field(default=None, json_schema_extra=fact("power {:.3g}", 4))
    details: dict[str, JsonData] = Field(default_factory=dict)
    series: tuple[Series, ...] = Field(default=(), json_schema_extra=since(2))

    PROVENANCE: ClassVar[tuple[str, ...]] = ("run_id", "at", "nodeid", "attempt")
    """Fields the bench fills in (the run, the time, the test and its attempt), not the test."""

    @field_validator("value")
    @classmethod
    def _has_value(cls, value: Any) -> Any:
        if value is None:
            raise ValueError("a measurement needs a value")
        return value

    @field_validator("p_value")
    @classmethod
    def _probability(cls, p_value: float | None) -> float | None:
        if p_value is not None and (math.isnan(p_value) or not 0.0 <= p_value <= 1.0):
            raise ValueError(f"p_value {p_value!r} is not a probability")
        return p_value

    @field_validator("clauses")
    @classmethod
    def _clause_ids(cls, clauses: tuple[str, ...]) -> tuple[str, ...]:
        malformed = [clause for clause in clauses if not is_clause_id(clause)]
        if malformed:
            raise ValueError(f"malformed clause id(s) {malformed}")
        return clauses

    @model_validator(mode="after")
    def _criterion(self) -> Self:
        check_criterion(low=self.low, high=self.high, expected=self.expected, p_value=self.p_value, alpha=self.alpha)
        return self

    @classmethod
    def given_by_test(cls) -> tuple[str, ...]:
        """The fields a test gives (the ``measure`` fixture's arguments): all but the provenance and the verdict."""
        return tuple(name for name in cls.model_fields if name not in cls.PROVENANCE and name != "passed")

    @classmethod
    def judged(cls, **fields: Any) -> Self:
        """The measurement of ``fields`` (every field but ``passed``), validated, with its verdict from :func:`judge`."""
        if "passed" in fields:
            raise TypeError("the verdict is judged from the criterion, not given")
        draft = cls.model_validate(fields | {"passed": False})
        passed = judge(draft.value, low=draft.low, high=draft.high, expected=draft.expected,
                       p_value=draft.p_value, alpha=draft.alpha)
        return draft.model_copy(update={"passed": passed})

    def limits_text(self) -> str:
        """The pass criterion, in words (the statistical one first when there are several)."""
        if self.p_value is not None and self.alpha is not None:
            return f"p ≥ α = {self.alpha:g}"
        if self.expected is not None:
            return f"= {self.expected}"
        if self.low is not None and self.high is not None:
            return f"[{self.low:g}, {self.high:g}]"
        if self.low is not None:
            return f"≥ {self.low:g}"
        if self.high is not None:
            return f"≤ {self.high:g}"
        return "recorded"

    def describe(self) -> str:
        """One line: name, value and unit, p-value, criterion and verdict."""
        unit = f" {self.unit}" if self.unit else ""
        verdict = "PASS" if self.passed else "FAIL"
        p_text = f", p = {self.p_value:.4g}" if self.p_value is not None else ""
        return f"{self.name} = {self.value}{unit}{p_text} (limit {self.limits_text()}): {verdict}"

    def facts(self) -> Iterator[tuple[str, str]]:
        """(field, text) of every stated field that is set, by rank: ``p = 0.53``, ``α = 0.01``, ``n = 1354``,
        ``power 0.9``."""
        stated = sorted((_extra(info, "rank"), name, _extra(info, "fact"))
                        for name, info in type(self).model_fields.items() if _extra(info, "fact") is not None)
        for _, name, template in stated:
            if getattr(self, name) is not None:
                yield name, template.format(getattr(self, name))


class Attachment(Journalled):
    """A file stored content-addressed in the run directory (``path``, relative), named by its SHA-256."""

    nodeid: str
    attempt: int = Field(ge=1)
    name: str = Field(min_length=1)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    media_type: str
    size: int = Field(ge=0)
    path: str = Field(min_length=1)


EVIDENCE_TABLES: dict[str, type[Journalled]] = {
    "observations": Observation,
    "measurements": Measurement,
    "attachments": Attachment,
}
"""Journal table -> the model of its rows."""
