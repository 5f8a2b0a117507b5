"""Typed model of the clause catalogue, validated on load.

A clause identifier is ``<regulation>/<section>/<rule>[.<item>]`` in
lower-case ASCII (DESIGN.md, "Clause identifiers").
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

CLAUSE_ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*/[a-z0-9]+(?:-[a-z0-9]+)*/[0-9]+(?:\.[0-9]+)*(?:-bis)?$"
_CLAUSE_ID = re.compile(CLAUSE_ID_PATTERN)

NonEmptyText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class EquipmentKind(StrEnum):
    """What a clause is about: a kind of equipment, or a kind of procedure."""

    ROULETTE_WHEEL = "roulette-wheel"
    ROULETTE_BALL = "roulette-ball"
    DICE = "dice"
    DICE_SHAKER = "dice-shaker"
    CARD_SHUFFLER = "card-shuffler"
    CARD_SHOE = "card-shoe"
    PLAYING_CARDS = "playing-cards"
    JACKPOT_DISPLAY = "jackpot-display"
    SLOT_MACHINE = "slot-machine"
    PROGRESSIVE_CONTROLLER = "progressive-controller"  # a slot-machine progressive link (jackpot, superjackpot)
    RNG = "rng"
    ONLINE_GAME = "online-game"
    GAMING_TABLE = "gaming-table"
    CHIPS = "chips"
    TABLE_PROCEDURE = "table-procedure"
    TOURNAMENT = "tournament"
    ADMINISTRATIVE = "administrative"


class Testability(StrEnum):
    """How a clause is verified.

    ``bench``: measured by the bench on the equipment; ``procedure``: checked by
    a person and recorded as an attestation; ``n/a``: outside the bench's scope.
    """

    BENCH = "bench"
    PROCEDURE = "procedure"
    NOT_APPLICABLE = "n/a"


def is_clause_id(value: str) -> bool:
    """True when ``value`` is a syntactically valid clause identifier."""
    return bool(_CLAUSE_ID.match(value))


class Clause(BaseModel):
    """One numbered rule of a regulation, as catalogued."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Annotated[str, StringConstraints(pattern=CLAUSE_ID_PATTERN)]
    text_pt: NonEmptyText = Field(description="Portuguese text, verbatim (obvious OCR errors corrected)")
    summary_en: NonEmptyText = Field(description="English summary of the rule")
    kinds: list[EquipmentKind] = Field(min_length=1)
    testability: Testability
    reason: NonEmptyText = Field(description="Why the clause has this testability; for bench clauses, what is measured")
    source: str = Field(default="", description="regulation file the text comes from (filled from the regulation)")

    @property
    def regulation(self) -> str:
        return self.id.split("/", 1)[0]

    @property
    def section(self) -> str:
        return self.id.split("/")[1]

    @property
    def rule(self) -> str:
        return self.id.split("/")[2]


class Section(BaseModel):
    """A section (game) of a regulation."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pt: NonEmptyText
    en: NonEmptyText


class Regulation(BaseModel):
    """One regulation text and all of its numbered rules."""

    model_config = ConfigDict(extra="forbid")

    regulation: Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(?:-[a-z0-9]+)*$")]
    title: NonEmptyText
    source: NonEmptyText
    note: str = ""
    sections: dict[str, Section]
    clauses: list[Clause] = Field(min_length=1)

    @field_validator("clauses")
    @classmethod
    def _unique_ids(cls, clauses: list[Clause]) -> list[Clause]:
        seen: dict[str, int] = {}
        for index, clause in enumerate(clauses):
            if clause.id in seen:
                raise ValueError(
                    f"entry clauses[{index}] ({clause.id}), field id: duplicate of clauses[{seen[clause.id]}]"
                )
            seen[clause.id] = index
        return clauses

    @model_validator(mode="after")
    def _clauses_belong_here(self) -> Regulation:
        for index, clause in enumerate(self.clauses):
            if clause.regulation != self.regulation:
                raise ValueError(
                    f"entry clauses[{index}] ({clause.id}), field id: regulation part must be {self.regulation!r}"
                )
            if clause.section not in self.sections:
                raise ValueError(
                    f"entry clauses[{index}] ({clause.id}), field id: "
                    f"section {clause.section!r} is not listed under 'sections'"
                )
        self.clauses = [clause.model_copy(update={"source": self.source}) for clause in self.clauses]
        return self


class Catalogue:
    """All regulations, with look-ups by clause id."""

    def __init__(self, regulations: list[Regulation]) -> None:
        self.regulations = {regulation.regulation: regulation for regulation in regulations}
        self._clauses = {clause.id: clause for regulation in regulations for clause in regulation.clauses}

    def __contains__(self, clause_id: object) -> bool:
        return clause_id in self._clauses

    def __getitem__(self, clause_id: str) -> Clause:
        return self._clauses[clause_id]

    def __len__(self) -> int:
        return len(self._clauses)

    def clauses(
        self,
        *,
        regulation: str | None = None,
        kind: EquipmentKind | str | None = None,
        testability: Testability | str | None = None,
    ) -> list[Clause]:
        """Clauses in catalogue order, filtered by regulation, kind and testability."""
        selected = list(self._clauses.values())
        if regulation is not None:
            selected = [clause for clause in selected if clause.regulation == regulation]
        if kind is not None:
            selected = [clause for clause in selected if EquipmentKind(kind) in clause.kinds]
        if testability is not None:
            selected = [clause for clause in selected if clause.testability == Testability(testability)]
        return selected
