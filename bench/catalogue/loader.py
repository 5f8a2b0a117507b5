"""Load and validate the clause catalogue files.

An invalid file raises :class:`CatalogueError` whose message names the file,
the entry (clause id, or its index when the id itself is bad) and the field.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from bench.catalogue.model import Catalogue, Regulation

DATA_DIR = Path(__file__).with_name("data")


class CatalogueError(ValueError):
    """A catalogue file is unreadable or does not match the schema."""


def _problem(document: Any, detail: Any) -> str:
    location = tuple(detail["loc"])
    if detail["type"] == "value_error" and location in {(), ("clauses",)}:
        # a cross-entry check (duplicate id, section not listed): its message names the entry and field
        return str(detail["ctx"]["error"])
    return f"{_entry_name(document, location)}: {detail['msg']}"


def _entry_name(document: Any, location: tuple[Any, ...]) -> str:
    if len(location) >= 2 and location[0] == "clauses" and isinstance(location[1], int):
        try:
            clause_id = document["clauses"][location[1]].get("id")
        except (KeyError, IndexError, TypeError, AttributeError):
            clause_id = None
        entry = f"clauses[{location[1]}]" + (f" ({clause_id})" if clause_id else "")
        field = ".".join(str(part) for part in location[2:]) or "(entry)"
        return f"entry {entry}, field {field}"
    return "field " + (".".join(str(part) for part in location) or "(file)")


def load_regulation_file(path: Path) -> Regulation:
    """Parse and validate one catalogue file."""
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise CatalogueError(f"{path}: not valid YAML: {error}") from error
    except OSError as error:
        raise CatalogueError(f"{path}: cannot be read: {error}") from error
    if not isinstance(document, dict):
        raise CatalogueError(f"{path}: expected a mapping at the top level")
    try:
        return Regulation.model_validate(document)
    except ValidationError as error:
        problems = [
            f"{path}: {_problem(document, detail)}" for detail in error.errors()
        ]
        raise CatalogueError("\n".join(problems)) from error


def load_catalogue_from(directory: Path) -> Catalogue:
    """Load every ``*.yaml`` file of ``directory`` into one catalogue."""
    files = sorted(directory.glob("*.yaml"))
    if not files:
        raise CatalogueError(f"{directory}: no catalogue files (*.yaml)")
    regulations = [load_regulation_file(path) for path in files]
    seen: dict[str, Path] = {}
    for path, regulation in zip(files, regulations):
        if regulation.regulation in seen:
            raise CatalogueError(
                f"{path}: regulation {regulation.regulation!r} is already defined in {seen[regulation.regulation]}"
            )
        seen[regulation.regulation] = path
    return Catalogue(regulations)


@lru_cache(maxsize=1)
def load_catalogue() -> Catalogue:
    """The bench's own catalogue (cached)."""
    return load_catalogue_from(DATA_DIR)
