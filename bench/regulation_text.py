"""Split the published regulation texts into their numbered rules.

The regulation files in ``shared/regulations/`` are plain-text renderings of
the official publications (Diário da República, SRIJ). This module finds every
numbered rule in them, section by section, so that the clause catalogue can be
proven complete against the source: each rule found here must have a
catalogue entry with the same identifier (see ``tests/test_catalogue_complete.py``).

The rules are located by their numbering conventions only; nothing here
interprets the text.

* Portarias 217/2007 and 461/2001: ``12 — text`` and ``10.1 — text`` inside
  headed sections; the preamble's ``1.o`` … ``4.o`` articles.
* SRIJ Regulamentos 803-806/2015: ``12 - text`` / ``12 — text`` in each annex;
  the deliberation's ``1.º`` … ``5.º`` points (OCR renders ``5.º`` as ``5.2``).
* Four Seasons 2020 tournament regulation: dotted points ``3.1.2.1.`` in the
  tournament rules, ``Artigo 12º`` articles in the annexed Portuguese poker
  tournament rules, and the numbered paragraphs (``1 -`` or ``1.``) inside
  articles, catalogued as ``<article>.<paragraph>``. Where the source repeats a
  number (point 9.1 appears twice), the second occurrence is ``9.1-bis``.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SourceRule:
    """One numbered rule as found in a regulation text."""

    clause_id: str
    regulation: str
    section: str
    number: str
    line: int  # 1-based line of the rule's first line in the source file
    text: str


@dataclass(frozen=True)
class _Section:
    """A section of a regulation: where it starts and how its rules are numbered."""

    slug: str
    start: re.Pattern[str]  # first line of the section (matched against stripped lines)
    rule: re.Pattern[str]  # a rule's first line; group "n" is its number
    paragraph: re.Pattern[str] | None = None  # numbered paragraphs inside a rule, catalogued as "N.k"


_DASH_RULE = re.compile(r"^(?P<n>\d+(?:\.\d+)?) — ")
_HYPHEN_RULE = re.compile(r"^(?P<n>\d+) [-—] ")
_PORTARIA_ARTICLE = re.compile(r"^(?P<n>[1-4])\.o ")
_DELIBERATION_POINT = re.compile(r"^(?P<n>[1-5])[.,]\s?[º°2] ")
_DOTTED_POINT = re.compile(r"^\s*(?P<n>[1-9](?:\.\d{1,2})+)\.\s")
_ARTICLE = re.compile(r"^A r t i g o\s+(?P<n>(?:\d\s?)+)º")
_ARTICLE_PARAGRAPH = re.compile(r"^\s*(?P<n>[1-9])(?:\. (?=[A-Z])|\s?[-–]\s?)")


def _heading(text: str) -> re.Pattern[str]:
    return re.compile(r"^" + re.escape(text) + r"\s*$")


def _prefix(text: str) -> re.Pattern[str]:
    return re.compile(r"^" + re.escape(text))


@dataclass(frozen=True)
class RegulationSource:
    """A regulation file and the layout of its numbered rules."""

    regulation: str
    filename: str
    title: str
    sections: tuple[_Section, ...]
    end: re.Pattern[str] | None = None  # text after this line holds no rules


REGULATION_SOURCES: tuple[RegulationSource, ...] = (
    RegulationSource(
        regulation="p217-2007",
        filename="portaria-217-2007.txt",
        title="Portaria n.º 217/2007, de 26 de Fevereiro",
        sections=(
            _Section("portaria", _prefix("Manda o Governo"), _PORTARIA_ARTICLE),
            _Section("roleta-americana", _heading("Roleta americana"), _DASH_RULE),
            _Section("roleta-francesa", _heading("Roleta francesa"), _DASH_RULE),
            _Section("banca-francesa", _heading("Banca francesa"), _DASH_RULE),
            _Section("craps", _heading("Craps"), _DASH_RULE),
            _Section("cussec", _heading("Cussec"), _DASH_RULE),
            _Section("blackjack", _heading("Blackjack/21"), _DASH_RULE),
            _Section("poquer-sem-descarte", _heading("Póquer sem descarte"), _DASH_RULE),
            _Section("bacara-ponto-e-banca", _heading("Bacará ponto e banca"), _DASH_RULE),
            _Section("bacara-macau", _heading("Bacará ponto e banca/Macau"), _DASH_RULE),
            _Section("chemin-de-fer", _heading("Bacará chemin de fer"), _DASH_RULE),
            _Section("poquer-nao-bancado", _heading("Póquer não bancado"), _DASH_RULE),
            _Section("maquinas-automaticas", _heading("Máquinas automáticas"), _DASH_RULE),
        ),
    ),
    RegulationSource(
        regulation="p461-2001",
        filename="portaria-461-2001.txt",
        title="Portaria n.º 461/2001, de 8 de Maio",
        sections=(
            _Section("portaria", _prefix("Manda o Governo"), _PORTARIA_ARTICLE),
            _Section("poquer-sem-descarte", _heading("I — Póquer sem descarte"), _DASH_RULE),
            _Section("poquer-sintetico", _heading("II — Póquer sintético"), _DASH_RULE),
        ),
    ),
    RegulationSource(
        regulation="srij-803-2015",
        filename="srij-regulamento-803-2015.txt",
        title="Regulamento n.º 803/2015 do SRIJ — Regras do Jogo Póquer sem Descarte Online",
        sections=(
            _Section("deliberacao", _prefix("Assim, ao abrigo"), _DELIBERATION_POINT),
            _Section("poquer-sem-descarte", _heading("ANEXO"), _HYPHEN_RULE),
        ),
    ),
    RegulationSource(
        regulation="srij-804-2015",
        filename="srij-regulamentos-804-806-2015-ocr.txt",
        title="Regulamento n.º 804/2015 do SRIJ — Regras do Jogo Roleta Americana Online",
        sections=(_Section("roleta-americana", re.compile(r"^"), _HYPHEN_RULE),),
        end=_prefix("13 de novembro de 2015."),
    ),
    RegulationSource(
        regulation="srij-805-2015",
        filename="srij-regulamentos-804-806-2015-ocr.txt",
        title="Regulamento n.º 805/2015 do SRIJ — Regras do Jogo Blackjack/21 Online",
        sections=(
            _Section("skip-804", re.compile(r"^"), re.compile(r"(?!)")),
            _Section("deliberacao", _prefix("Regulamento n.° 805/2015"), _DELIBERATION_POINT),
            _Section("blackjack", _heading("ANEXO"), _HYPHEN_RULE),
        ),
        end=_prefix("Regulamento n.° 806/2015"),
    ),
    RegulationSource(
        regulation="srij-806-2015",
        filename="srij-regulamentos-804-806-2015-ocr.txt",
        title="Regulamento n.º 806/2015 do SRIJ — Regras do Jogo Póquer Não Bancado «Hold'em» Online",
        sections=(
            _Section("skip-804-805", re.compile(r"^"), re.compile(r"(?!)")),
            _Section("deliberacao", _prefix("Regulamento n.° 806/2015"), _DELIBERATION_POINT),
            _Section("holdem", _heading("ANEXO"), _HYPHEN_RULE),
        ),
    ),
    RegulationSource(
        regulation="four-seasons-2020",
        filename="torneios-poker-four-seasons-2020.txt",
        title="Regulamento dos torneios de póquer «Four Seasons» 2020 (Casinos do Algarve)",
        sections=(
            _Section("torneio", re.compile(r"^1\.Apresentação"), _DOTTED_POINT),
            _Section(
                "regulamento-torneios",
                _heading("REGULAMENTO PORTUGUÊS PARA TORNEIOS DE POKER"),
                _ARTICLE,
                paragraph=_ARTICLE_PARAGRAPH,
            ),
        ),
    ),
)


def _paragraphs(rule: SourceRule, pattern: re.Pattern[str]) -> list[SourceRule]:
    """Numbered paragraphs inside a rule (article 80 of the tournament rules)."""
    found: list[SourceRule] = []
    body: list[str] = []
    number = ""
    first = 0
    lines = rule.text.splitlines()

    def close() -> None:
        if number:
            found.append(
                SourceRule(
                    clause_id=f"{rule.clause_id}.{number}",
                    regulation=rule.regulation,
                    section=rule.section,
                    number=f"{rule.number}.{number}",
                    line=rule.line + first,
                    text="\n".join(body).strip(),
                )
            )

    for offset, line in enumerate(lines):
        match = pattern.match(line)
        if match:
            close()
            number, first, body = match.group("n"), offset, [line]
        elif number:
            body.append(line)
    close()
    return found


def split_rules(source: RegulationSource, text: str) -> list[SourceRule]:
    """Return the numbered rules of ``text`` in the order they appear.

    A rule's text runs from its first line to the line before the next rule or
    section start; page furniture is not removed (the catalogue keeps the
    corrected text).
    """
    rules: list[SourceRule] = []
    section_index = -1
    current: tuple[_Section, str, int, list[str]] | None = None

    def close() -> None:
        if current is None or current[0].slug.startswith("skip-"):
            return
        section, number, line, body = current
        clause_id = f"{source.regulation}/{section.slug}/{number}"
        if any(earlier.clause_id == clause_id for earlier in rules):
            # the source numbers two points alike (four-seasons 9.1): the second is "bis"
            clause_id, number = f"{clause_id}-bis", f"{number}-bis"
        rule = SourceRule(
            clause_id=clause_id,
            regulation=source.regulation,
            section=section.slug,
            number=number,
            line=line,
            text="\n".join(body).strip(),
        )
        paragraphs = _paragraphs(rule, section.paragraph) if section.paragraph is not None else []
        if paragraphs:
            # the article keeps its title and any text before its first numbered paragraph
            head = rule.text.splitlines()[: paragraphs[0].line - rule.line]
            rule = dataclasses.replace(rule, text="\n".join(head).strip())
        rules.append(rule)
        rules.extend(paragraphs)

    for index, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if source.end is not None and source.end.match(stripped):
            break
        following = section_index + 1
        if following < len(source.sections) and source.sections[following].start.match(stripped):
            close()
            current = None
            section_index = following
        if section_index < 0:
            continue
        section = source.sections[section_index]
        match = section.rule.match(line)
        if match:
            close()
            current = (section, re.sub(r"\s+", "", match.group("n")), index, [line])
        elif current is not None:
            current[3].append(line)
    close()
    return rules


def find_regulations_dir(start: Path | None = None) -> Path | None:
    """Locate ``shared/regulations`` beside the repository (or via ``BENCH_REGULATIONS``)."""
    import os

    env = os.environ.get("BENCH_REGULATIONS")
    if env:
        return Path(env)
    here = (start or Path(__file__)).resolve()
    for parent in here.parents:
        candidate = parent / "shared" / "regulations"
        if candidate.is_dir():
            return candidate
    return None


def read_source_rules(regulations_dir: Path) -> dict[str, list[SourceRule]]:
    """All numbered rules of every regulation file, keyed by regulation id."""
    return {
        source.regulation: split_rules(source, (regulations_dir / source.filename).read_text(encoding="utf-8"))
        for source in REGULATION_SOURCES
    }


_LIST_ITEM = re.compile(r"^(?:[a-z]\)|[ivx]+\)|[A-Z]\.\s|- |Prémio —|Pleno —|Cavalo —|Transversal —|Quadrado —|Sisain —)")
_RULE_PREFIX = re.compile(
    r"^\s*(?:A r t i g o\s+(?:\d\s?)+º\s*|\d+(?:\.\d+)*(?:\.[oº°2]|\.)?\s?(?:—|-|–)?\s+)"
)


def normalise_text(raw: str, *, keep_number: bool = False) -> str:
    """Rejoin a rule's text broken over printed lines.

    Words split at a line end are rejoined (``obstácu-`` + ``los``), a hyphen
    that belongs to the word is kept (``Inspecção-`` + ``-Geral``), list items
    (``a)``, ``i)``, ``Prémio —``) start their own line, blank lines and page
    gaps vanish, and runs of spaces collapse. Without ``keep_number`` the
    rule's own leading number (``12 —``, ``3.1.2.``, ``Artigo 12º``) is removed.
    """
    lines = [line.strip() for line in raw.splitlines()]
    lines = [line for line in lines if line]
    if lines and not keep_number:
        lines[0] = _RULE_PREFIX.sub("", lines[0], count=1)
    out: list[str] = []
    for line in lines:
        line = re.sub(r"\s+", " ", line)
        if not out:
            out.append(line)
            continue
        previous = out[-1]
        if _LIST_ITEM.match(line):
            out.append(line)
        elif previous.endswith("-") and line.startswith("-"):
            out[-1] = previous + line[1:]
        elif previous.endswith("-") and not previous.endswith(" -") and line[:1].islower():
            out[-1] = previous[:-1] + line
        else:
            out[-1] = previous + " " + line
    return "\n".join(out).strip()
