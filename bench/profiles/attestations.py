"""Attestations: a person's record that a ``procedure`` clause was checked (who, when, what they saw).

Clauses marked ``procedure`` in the catalogue are things a person checks (the fiscal-chefe present at
the loading of a shuffler, the dealer's display of the cards...). The bench cannot measure them; the
certificate shows them ATTESTED with the attestation the profile records, never PASS. An attestation
of a ``bench`` clause would stand in for a measurement, so it is refused, as is one naming a clause
that is not in the catalogue.

In a profile::

    [[attestations]]
    clause = "p217-2007/blackjack/54"
    by = "Rui Costa, fiscal-chefe"
    at = 2026-11-20T10:15:00Z
    statement = "Shuffler loaded once, in two packs, in my presence."
"""

from __future__ import annotations

from datetime import datetime

from pydantic import AwareDatetime, Field, field_validator

from bench.profiles.base import Strict


class Attestation(Strict):
    """One person's attestation of one procedure clause."""

    clause: str
    by: str = Field(min_length=1, description="who attests (name and role)")
    at: AwareDatetime = Field(description="when the check was made (with its time zone)")
    statement: str = Field(min_length=1, description="what the person checked and saw")

    @field_validator("clause")
    @classmethod
    def _procedure_clause_of_the_catalogue(cls, clause: str) -> str:
        from bench.catalogue import load_catalogue
        from bench.catalogue.model import Testability

        catalogue = load_catalogue()
        if clause not in catalogue:
            raise ValueError(f"{clause!r} is not a clause of the catalogue")
        testability = catalogue[clause].testability
        if testability != Testability.PROCEDURE:
            raise ValueError(f"{clause} is a {testability.value!r} clause: only procedure clauses are attested "
                             "(a bench clause needs a measurement)")
        return clause

    def when(self) -> str:
        """``at`` as the journal's ISO 8601 text."""
        return datetime.isoformat(self.at)
