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
