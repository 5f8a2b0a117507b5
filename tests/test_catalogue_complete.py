"""The clause catalogue is complete and faithful to the regulation texts.

Completeness: every numbered rule found in each text of ``shared/regulations``
has a catalogue entry with the same id, and the catalogue has no entry the
texts do not number. Fidelity: a catalogue text is the printed text; for the
clean texts, at least 85 % of its word 6-grams occur in the source file (the
rest are line-join and heading-removal edges); for the OCR file, its
characters match the source rule at a ratio of at least 0.75 after OCR
correction.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from bench.catalogue import load_catalogue
from bench.regulation_text import REGULATION_SOURCES, find_regulations_dir, normalise_text, read_source_rules

OCR_FILES = {"srij-regulamentos-804-806-2015-ocr.txt"}


@pytest.fixture(scope="module")
def regulations_dir() -> Path:
    directory = find_regulations_dir()
    assert directory is not None, "shared/regulations not found beside the repository (set BENCH_REGULATIONS)"
    return directory


@pytest.fixture(scope="module")
def source_rules(regulations_dir: Path) -> dict:
    return read_source_rules(regulations_dir)


def test_every_regulation_file_is_catalogued(regulations_dir: Path) -> None:
    files = {path.name for path in regulations_dir.glob("*.txt")}
    assert files == {source.filename for source in REGULATION_SOURCES}
    assert set(load_catalogue().regulations) == {source.regulation for source in REGULATION_SOURCES}


@pytest.mark.parametrize("regulation", [source.regulation for source in REGULATION_SOURCES])
def test_every_numbered_rule_has_an_entry(regulation: str, source_rules: dict) -> None:
    found = {rule.clause_id for rule in source_rules[regulation]}
    catalogued = {clause.id for clause in load_catalogue().clauses(regulation=regulation)}
    assert found, f"no numbered rule found in the text of {regulation}"
    assert sorted(found - catalogued) == [], "rules in the text but missing from the catalogue"
    assert sorted(catalogued - found) == [], "catalogue entries the text does not number"


def test_rule_counts_per_regulation(source_rules: dict) -> None:
    counts = {regulation: len(rules) for regulation, rules in source_rules.items()}
    assert counts == {
        "p217-2007": 488,
        "p461-2001": 94,
        "srij-803-2015": 49,
        "srij-804-2015": 21,
        "srij-805-2015": 43,
        "srij-806-2015": 7,
        "four-seasons-2020": 216,
    }


def test_sections_of_portaria_217_are_all_present() -> None:
    sections = set(load_catalogue().regulations["p217-2007"].sections)
    assert sections == {
        "portaria", "roleta-americana", "roleta-francesa", "banca-francesa", "craps", "cussec", "blackjack",
        "poquer-sem-descarte", "bacara-ponto-e-banca", "bacara-macau", "chemin-de-fer", "poquer-nao-bancado",
        "maquinas-automaticas",
    }


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _grams(words: list[str], size: int = 6) -> set[tuple[str, ...]]:
    return {tuple(words[index : index + size]) for index in range(len(words) - size + 1)}


@pytest.mark.parametrize("source", REGULATION_SOURCES, ids=lambda source: source.regulation)
def test_catalogue_texts_are_the_printed_texts(source, regulations_dir: Path, source_rules: dict) -> None:
    catalogue = load_catalogue()
    raw = (regulations_dir / source.filename).read_text(encoding="utf-8")
    unfaithful = []
    if source.filename in OCR_FILES:
        for rule in source_rules[source.regulation]:
            printed = re.sub(r"\s+", " ", normalise_text(rule.text))
            catalogued = re.sub(r"\s+", " ", catalogue[rule.clause_id].text_pt)
            ratio = difflib.SequenceMatcher(None, printed, catalogued, autojunk=False).ratio()
            if ratio < 0.75:
                unfaithful.append((rule.clause_id, round(ratio, 3)))
    else:
        whole = _grams(_words(normalise_text(raw, keep_number=True)))
        for rule in source_rules[source.regulation]:
            grams = _grams(_words(catalogue[rule.clause_id].text_pt))
            share = len(grams & whole) / len(grams) if grams else 1.0
            if share < 0.85:
                unfaithful.append((rule.clause_id, round(share, 3)))
    assert unfaithful == []


def test_normalise_text_rejoins_printed_lines() -> None:
    raw = "4 — Na parte inclinada serão fixados obstácu-\nlos — «azares» — da Inspecção-\n-Geral:\na) item"
    assert normalise_text(raw) == "Na parte inclinada serão fixados obstáculos — «azares» — da Inspecção-Geral:\na) item"
