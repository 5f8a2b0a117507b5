"""Clause coverage reads the marks pytest sees, however the suite writes the clause ids."""

from __future__ import annotations

from pathlib import Path

from bench.coverage import citations

SUITE = '''
import pytest

FAMILY = ("p217-2007/craps/2", "p217-2007/cussec/1")
BY_GAME = {"banca": "p217-2007/banca-francesa/3"}

pytestmark = [pytest.mark.equipment("dice"), pytest.mark.clause("p217-2007/cussec/8")]


@pytest.mark.clause(*FAMILY)
def test_constants():
    pass


@pytest.mark.clause(*BY_GAME.values(), "p217-2007/craps/10.1")
def test_computed():
    pass


def helper_not_a_test():
    pass


def test_only_module_mark():
    pass
'''


def test_citations_follow_constants_computed_ids_and_module_marks(tmp_path: Path) -> None:
    suite = tmp_path / "suites" / "test_example.py"
    suite.parent.mkdir()
    suite.write_text(SUITE, encoding="utf-8")
    cited = citations([suite])
    assert cited["p217-2007/craps/2"] == ["suites/test_example.py::test_constants"]
    assert cited["p217-2007/banca-francesa/3"] == ["suites/test_example.py::test_computed"]
    assert cited["p217-2007/craps/10.1"] == ["suites/test_example.py::test_computed"]
    assert sorted(cited["p217-2007/cussec/8"]) == [
        "suites/test_example.py::test_computed", "suites/test_example.py::test_constants",
        "suites/test_example.py::test_only_module_mark"]
    assert not any("helper" in test for tests in cited.values() for test in tests)


def test_every_uncovered_bench_clause_has_a_reason_and_the_document_is_current() -> None:
    from bench.catalogue import load_catalogue
    from bench.catalogue.model import Testability
    from bench.coverage_reasons import DOCUMENT, coverage_markdown, uncovered_reason
    from bench.paths import suite_files

    catalogue = load_catalogue()
    cited = citations(suite_files())
    for clause in catalogue.clauses(testability=Testability.BENCH):
        if clause.id not in cited:
            assert not uncovered_reason(clause).startswith("Not covered yet"), f"{clause.id} has no reason"
    assert DOCUMENT.read_text(encoding="utf-8") == coverage_markdown(catalogue, cited), (
        "docs/coverage.md is out of date: run python -m bench.coverage_reasons")
