"""How a clause is named in allure results: its labels and the titles of the results that cite it.

Shared by the pytest plugin (titles and labels of the tests, :mod:`fixtures.allure_bridge`) and the report
(results of the clauses no test examined, :mod:`reports.allure_context`), so a clause is filed under the same
epic, feature and story wherever it appears.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

TITLE_CLAUSES = 3
"""At most this many clause ids in a title; the rest are counted ("+4 more")."""


def plain_test_name(name: str) -> str:
    """A test function's name as words: ``test_wheel_numbering[x]`` -> ``Wheel numbering [x]``."""
    base, bracket, parameters = name.partition("[")
    words = base.removeprefix("test_").replace("_", " ").strip()
    text = words[:1].upper() + words[1:]
    return f"{text} [{parameters}" if bracket else text


SUITES_TITLE = "Certification suites"
"""The allure parent suite of every test of the bench's suites (the clauses no test examined are apart)."""


def suite_title(module_doc: str | None, module_name: str) -> str:
    """A suite module's allure suite: its docstring's subject (``Certification suite: roulette wheels (...)`` ->
    ``Roulette wheels``), else its plain name."""
    first = (module_doc or "").strip().splitlines()[0] if (module_doc or "").strip() else ""
    subject = re.split(r" \(|[,.;]", first.partition(":")[2].strip())[0].strip() if ":" in first else ""
    if not subject:
        return plain_test_name(module_name.rpartition(".")[2])
    return subject[:1].upper() + subject[1:]


def natural_order(clause_id: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key of a clause id with its numbers compared as numbers (``.../2`` before ``.../13``)."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", clause_id))


def clause_list(clause_ids: Iterable[str], limit: int | None = TITLE_CLAUSES) -> str:
    """Clause ids in natural order with their shared regulation and section said once:
    ``p217-2007/roleta-francesa/2, 5``; beyond ``limit`` ids (None: no limit) the rest are counted."""
    ids = sorted(dict.fromkeys(clause_ids), key=natural_order)
    limit = len(ids) if limit is None else limit
    shown, hidden = ids[:limit], len(ids) - limit
    groups: dict[str, list[str]] = {}
    for clause_id in shown:
        prefix, _, rule = clause_id.rpartition("/")
        groups.setdefault(prefix, []).append(rule)
    text = "; ".join(f"{prefix}/{', '.join(rules)}" for prefix, rules in groups.items())
    return text + (f" +{hidden} more" if hidden > 0 else "")


def allure_title(clause_ids: Iterable[str], plain_name: str) -> str:
    """A result's title: its clauses, then its plain name (``p217-2007/roleta-francesa/2, 5: Wheel numbering``)."""
    clauses = clause_list(clause_ids)
    return f"{clauses}: {plain_name}" if clauses else plain_name


def unmeasured_title(clause_ids: Iterable[str], plain_name: str) -> str:
    """The title of a test that measured nothing (skipped, in error, unfinished): its plain name, then the first
    clause of its marker and how many more it lists (``Ball launch (p217-2007/roleta-francesa/13 and 2 more)``)."""
    ids = list(dict.fromkeys(clause_ids))  # the marker's order: its first clause is the one the test is about
    if not ids:
        return plain_name
    more = f" and {len(ids) - 1} more" if len(ids) > 1 else ""
    return f"{plain_name} ({ids[0]}{more})"


def clause_labels(clause_ids: Iterable[str], titles: dict[str, str]) -> list[tuple[str, str]]:
    """(label, value) pairs of the clauses, each pair once: epic = the regulation's title (``titles``, by
    regulation id), feature = ``regulation/section``, story = the clause id."""
    labels: list[tuple[str, str]] = []
    for clause_id in clause_ids:
        regulation, section, _ = clause_id.split("/", 2)
        for pair in (("epic", titles.get(regulation, regulation)), ("feature", f"{regulation}/{section}"),
                     ("story", clause_id)):
            if pair not in labels:
                labels.append(pair)
    return labels
