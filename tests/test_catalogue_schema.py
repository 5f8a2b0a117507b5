"""The clause catalogue: the shipped files load, broken files are named precisely (bench/catalogue)."""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.catalogue import CatalogueError, EquipmentKind, load_catalogue
from bench.catalogue import Testability as Verification  # "Test*" names would be collected by pytest
from bench.catalogue.loader import DATA_DIR, load_catalogue_from, load_regulation_file
from bench.catalogue.model import is_clause_id

SMALL = DATA_DIR / "srij-806-2015.yaml"  # 7 clauses, two sections
DOCUMENT: dict[str, Any] = yaml.safe_load(SMALL.read_text(encoding="utf-8"))
THIRD = DOCUMENT["clauses"][2]["id"]  # srij-806-2015/deliberacao/3


def _broken(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> tuple[str, Path]:
    """Write a copy of the small file with ``change`` applied; return the loader's error and the file."""
    document = copy.deepcopy(DOCUMENT)
    change(document)
    path = tmp_path / "srij-806-2015.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False), encoding="utf-8")
    with pytest.raises(CatalogueError) as caught:
        load_regulation_file(path)
    return str(caught.value), path


# -- the shipped catalogue ---------------------------------------------------


def test_shipped_catalogue_loads_918_clauses_over_7_regulations() -> None:
    catalogue = load_catalogue()
    assert len(catalogue) == 918
    assert sorted(catalogue.regulations) == [
        "four-seasons-2020",
        "p217-2007",
        "p461-2001",
        "srij-803-2015",
        "srij-804-2015",
        "srij-805-2015",
        "srij-806-2015",
    ]
    assert sum(len(regulation.clauses) for regulation in catalogue.regulations.values()) == 918
    assert all(is_clause_id(clause.id) for clause in catalogue.clauses())


def test_clauses_carry_their_regulation_source_and_parts() -> None:
    catalogue = load_catalogue()
    clause = catalogue["p217-2007/roleta-francesa/2"]
    assert (clause.regulation, clause.section, clause.rule) == ("p217-2007", "roleta-francesa", "2")
    assert clause.source == catalogue.regulations["p217-2007"].source != ""
    assert "p217-2007/roleta-francesa/2" in catalogue and "p217-2007/roleta-francesa/9999" not in catalogue


def test_a_small_valid_file_loads_on_its_own(tmp_path: Path) -> None:
    shutil.copy(SMALL, tmp_path)
    catalogue = load_catalogue_from(tmp_path)
    assert len(catalogue) == 7 and list(catalogue.regulations) == ["srij-806-2015"]


# -- filtering ---------------------------------------------------------------


def test_clauses_filter_by_regulation_kind_and_testability() -> None:
    catalogue = load_catalogue()
    everything = catalogue.clauses()
    assert len(everything) == 918

    p217 = catalogue.clauses(regulation="p217-2007")
    assert p217 and all(clause.regulation == "p217-2007" for clause in p217)
    assert len(p217) == len(catalogue.regulations["p217-2007"].clauses)

    wheels = catalogue.clauses(kind="roulette-wheel")
    assert wheels and all(EquipmentKind.ROULETTE_WHEEL in clause.kinds for clause in wheels)
    assert catalogue.clauses(kind=EquipmentKind.ROULETTE_WHEEL) == wheels

    bench = catalogue.clauses(testability="bench")
    assert bench and all(clause.testability is Verification.BENCH for clause in bench)
    by_testability = {value: len(catalogue.clauses(testability=value)) for value in Verification}
    assert sum(by_testability.values()) == 918 and all(by_testability.values())

    combined = catalogue.clauses(regulation="p217-2007", kind="roulette-wheel", testability=Verification.BENCH)
    assert combined == [clause for clause in p217 if clause in wheels and clause in bench]
    assert "p217-2007/roleta-francesa/2" in {clause.id for clause in combined}
    assert combined == [clause for clause in everything if clause in combined]  # catalogue order kept


def test_filtering_by_an_unknown_kind_or_testability_is_an_error() -> None:
    catalogue = load_catalogue()
    with pytest.raises(ValueError):
        catalogue.clauses(kind="toaster")
    with pytest.raises(ValueError):
        catalogue.clauses(testability="maybe")
    assert catalogue.clauses(regulation="no-such-regulation") == []


# -- broken files: file, entry and field are named ----------------------------


def test_missing_summary_en(tmp_path: Path) -> None:
    message, path = _broken(tmp_path, lambda d: d["clauses"][2].pop("summary_en"))
    assert message == f"{path}: entry clauses[2] ({THIRD}), field summary_en: Field required"


def test_blank_summary_en(tmp_path: Path) -> None:
    message, path = _broken(tmp_path, lambda d: d["clauses"][2].update(summary_en="   "))
    assert message.startswith(f"{path}: entry clauses[2] ({THIRD}), field summary_en:")


def test_kind_not_in_the_vocabulary(tmp_path: Path) -> None:
    message, path = _broken(tmp_path, lambda d: d["clauses"][2]["kinds"].append("toaster"))
    assert message.startswith(f"{path}: entry clauses[2] ({THIRD}), field kinds.1:")
    assert "'roulette-wheel'" in message and "'administrative'" in message


def test_testability_maybe(tmp_path: Path) -> None:
    message, path = _broken(tmp_path, lambda d: d["clauses"][2].update(testability="maybe"))
    assert message.startswith(f"{path}: entry clauses[2] ({THIRD}), field testability:")
    assert "'bench', 'procedure' or 'n/a'" in message


def test_malformed_id_is_named_by_its_index(tmp_path: Path) -> None:
    message, path = _broken(tmp_path, lambda d: d["clauses"][2].update(id="SRIJ-806-2015/Deliberacao/3"))
    assert message.startswith(f"{path}: entry clauses[2] (SRIJ-806-2015/Deliberacao/3), field id:")
    assert "pattern" in message


def test_missing_id_is_named_by_its_index(tmp_path: Path) -> None:
    message, path = _broken(tmp_path, lambda d: d["clauses"][2].pop("id"))
    assert message == f"{path}: entry clauses[2], field id: Field required"


def test_duplicate_id(tmp_path: Path) -> None:
    message, path = _broken(tmp_path, lambda d: d["clauses"][4].update(id=THIRD))
    assert message == f"{path}: entry clauses[4] ({THIRD}), field id: duplicate of clauses[2]"


def test_clause_whose_section_is_not_listed(tmp_path: Path) -> None:
    message, path = _broken(tmp_path, lambda d: d["clauses"][2].update(id="srij-806-2015/roleta/3"))
    assert message == (
        f"{path}: entry clauses[2] (srij-806-2015/roleta/3), field id: section 'roleta' is not listed under 'sections'"
    )


def test_clause_of_another_regulation(tmp_path: Path) -> None:
    message, path = _broken(tmp_path, lambda d: d["clauses"][2].update(id="p217-2007/deliberacao/3"))
    assert message.startswith(f"{path}: entry clauses[2] (p217-2007/deliberacao/3), field id:")
    assert "'srij-806-2015'" in message


def test_unknown_field_in_an_entry(tmp_path: Path) -> None:
    message, path = _broken(tmp_path, lambda d: d["clauses"][2].update(colour="red"))
    assert message.startswith(f"{path}: entry clauses[2] ({THIRD}), field colour:")


def test_top_level_field_missing(tmp_path: Path) -> None:
    message, path = _broken(tmp_path, lambda d: d.pop("title"))
    assert message == f"{path}: field title: Field required"


def test_every_problem_is_reported(tmp_path: Path) -> None:
    def two_problems(document: dict[str, Any]) -> None:
        document["clauses"][0].pop("summary_en")
        document["clauses"][5].update(testability="maybe")

    message, path = _broken(tmp_path, two_problems)
    lines = message.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{path}: entry clauses[0] (") and "field summary_en" in lines[0]
    assert lines[1].startswith(f"{path}: entry clauses[5] (") and "field testability" in lines[1]


def test_invalid_yaml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "srij-806-2015.yaml"
    path.write_text(
        SMALL.read_text(encoding="utf-8").replace("clauses:\n- id: ", "clauses:\n- id: [", 1), encoding="utf-8"
    )
    with pytest.raises(CatalogueError) as caught:
        load_regulation_file(path)
    assert str(caught.value).startswith(f"{path}: not valid YAML:")


def test_a_file_that_is_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- just\n- a list\n", encoding="utf-8")
    with pytest.raises(CatalogueError, match="expected a mapping at the top level") as caught:
        load_regulation_file(path)
    assert str(path) in str(caught.value)


def test_a_regulation_defined_twice_names_both_files(tmp_path: Path) -> None:
    shutil.copy(SMALL, tmp_path / "a.yaml")
    shutil.copy(SMALL, tmp_path / "b.yaml")
    with pytest.raises(CatalogueError) as caught:
        load_catalogue_from(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'b.yaml'}: regulation 'srij-806-2015'")
    assert str(tmp_path / "a.yaml") in message


def test_an_empty_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(CatalogueError, match="no catalogue files"):
        load_catalogue_from(tmp_path)
