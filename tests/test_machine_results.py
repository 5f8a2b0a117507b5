"""A run's verdicts for machines: ``bench certify --json`` and ``--junit-xml``, and the allure results.

Read from the shared certification of the biased wheel (``sim-biased-wheel``, suite roulette: two clauses FAIL,
the other roulette clauses PASS, the rest NOT TESTED), as the sensitivity matrix runs it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree

import pytest
from suite_runs import RESULTS_JSON, RESULTS_JUNIT, FinishedRun, SessionRuns

from bench.catalogue import load_catalogue
from bench.journal import Journal
from reports.allure_context import write_run_context
from reports.certificate_view import scope_counts
from reports.clause_verdicts import INCOMPLETE, PASS, verdicts_of_run
from reports.result_export import RunResults, results_schema
from reports.run_data import load_run
from reports.signing import init_key
from reports.verify import verify_run

ROOT = Path(__file__).resolve().parents[1]
BENCH = str(Path(sys.executable).with_name("bench"))
FAILING = {"p217-2007/roleta-francesa/5", "p217-2007/roleta-francesa/9"}


@pytest.fixture(scope="module")
def biased(session_runs: SessionRuns) -> FinishedRun:
    return session_runs.run("roulette", "sim-biased-wheel")


def _results(run: FinishedRun) -> RunResults:
    return RunResults.model_validate_json((run.run_dir.parent / RESULTS_JSON).read_text(encoding="utf-8"))


def _allure(run: FinishedRun) -> tuple[list[dict], list[dict]]:
    """(test results, clause results) of the run's allure results."""
    results = [json.loads(path.read_text(encoding="utf-8"))
               for path in (run.run_dir / "allure-results").glob("*-result.json")]
    clauses = [result for result in results if result["fullName"].startswith("clauses#")]
    return [result for result in results if result not in clauses], clauses


@pytest.mark.slow(seconds=25)
def test_json_states_every_clause_with_its_measurements(biased: FinishedRun) -> None:
    assert biased.code == 1, biased.output
    results = _results(biased)
    with Journal(biased.run_dir / Journal.FILENAME, create=False) as journal:
        assert results.run_id == journal.rows("runs")[0]["run_id"]
    assert results.schema_version == 1 and results.profile == "sim-biased-wheel" and results.overall == "FAIL"
    by_clause = {clause.clause: clause for clause in results.clauses}
    assert {clause for clause, item in by_clause.items() if item.verdict == "FAIL"} == FAILING
    assert results.counts == dict(Counter(clause.verdict for clause in results.clauses))
    five = by_clause["p217-2007/roleta-francesa/5"]
    assert five.reason and any(not m.passed for m in five.measurements)
    assert all(m.test.startswith("suites/test_roulette.py::") for m in five.measurements)
    sequential = next(m for m in five.measurements if m.name == "sector fairness, sequential test")
    assert sequential.value == "reject H0" and sequential.alpha == 0.01 and sequential.sample_size
    assert by_clause["p217-2007/roleta-francesa/2"].verdict == PASS
    not_tested = [clause for clause in results.clauses if clause.verdict == "NOT TESTED"]
    assert not_tested and all(clause.reason and not clause.measurements for clause in not_tested)


def test_the_documented_schema_is_the_models() -> None:
    documented = json.loads((ROOT / "docs" / "results.schema.json").read_text(encoding="utf-8"))
    assert documented == results_schema()
    assert documented["properties"]["schema_version"]["const"] == 1


@pytest.mark.slow(seconds=25)
def test_junit_has_one_case_per_clause_failures_and_skips_with_reasons(biased: FinishedRun) -> None:
    results = _results(biased)
    root = ElementTree.parse(biased.run_dir.parent / RESULTS_JUNIT).getroot()
    [suite] = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert [case.get("name") for case in cases] == [clause.clause for clause in results.clauses]
    counts = Counter(clause.verdict for clause in results.clauses)
    assert suite.get("tests") == str(len(cases)) and suite.get("failures") == str(counts["FAIL"])
    assert suite.get("skipped") == str(counts["NOT TESTED"] + counts["INCOMPLETE"])
    properties = {item.get("name"): item.get("value") for item in suite.iter("property")}
    assert properties["run_id"] == results.run_id and properties["overall"] == "FAIL"
    by_name = {case.get("name"): case for case in cases}
    for clause in results.clauses:
        case = by_name[clause.clause]
        regulation, section, _ = clause.clause.split("/", 2)
        assert case.get("classname") == f"{regulation}.{section}"
        if clause.verdict == "FAIL":
            [failure] = case.findall("failure")
            assert failure.get("message") == f"FAIL: {clause.reason}"
            assert "sector fairness" in (failure.text or "")
        elif clause.verdict == "NOT TESTED":
            [skipped] = case.findall("skipped")
            assert skipped.get("message") == f"NOT TESTED: {clause.reason}"
        else:
            assert not case.findall("failure") and not case.findall("skipped") and not case.findall("error")


@pytest.mark.slow(seconds=25)
def test_the_terminal_summary_ends_the_run_without_a_cut_line(biased: FinishedRun) -> None:
    lines = biased.output.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("Overall result:"))
    summary = lines[start:]
    catalogue = load_catalogue()
    scope = scope_counts(load_run(biased.run_dir, catalogue), catalogue)  # the certificate's counts
    counts = ", ".join(f"{count} {verdict}" for verdict, count in scope.counts.items())
    overall = " ".join(" ".join(summary[:2]).split())
    assert overall == f"Overall result: FAIL ({counts}; {scope.outside} clauses outside this run)"
    assert all(len(line) <= 80 for line in summary) and not any(re.search(r"\S…", line) for line in summary)
    heads = [line.split()[0] for line in summary[1:] if line and not line.startswith(" ")]
    assert set(heads) == FAILING  # only the clauses needing attention; the passed ones are counted, not listed
    assert all(f"{clause}  FAIL" in summary for clause in FAILING)


def _title_clauses(title: str) -> tuple[set[str], int]:
    """The clause ids a title names and how many more it counts: ``reg/section/2, 5; reg/other/1 +2 more: Name``
    -> (the three ids, 2); a test that measured nothing: ``Name (reg/section/13 and 2 more)`` -> ({that id}, 2)."""
    unmeasured = re.fullmatch(r"[A-Z][^(]* \((\S+/\S+/\S+?)(?: and (\d+) more)?\)", title)
    if unmeasured:
        return {unmeasured.group(1)}, int(unmeasured.group(2) or 0)
    named, _, more = title.split(": ", 1)[0].partition(" +")
    ids = set()
    for group in named.split("; "):
        prefix, _, rules = group.rpartition("/")
        ids |= {f"{prefix}/{rule}" for rule in rules.split(", ")}
    return ids, int(more.removesuffix(" more")) if more else 0


@pytest.mark.slow(seconds=25)
def test_allure_results_read_as_a_report(biased: FinishedRun) -> None:
    results_dir = biased.run_dir / "allure-results"
    run_id = _results(biased).run_id
    environment = (results_dir / "environment.properties").read_text(encoding="utf-8")
    assert f"Run={run_id}" in environment and "Profile=sim-biased-wheel" in environment
    assert re.search(r"^Equipment\\ wheel=roulette-wheel\\: \S.* serial \S+", environment, re.MULTILINE)
    assert json.loads((results_dir / "executor.json").read_text())["buildName"] == run_id
    categories = json.loads((results_dir / "categories.json").read_text())
    assert {"FAIL: a measurement outside its limit", "NOT TESTED"} <= {category["name"] for category in categories}

    tests, clauses = _allure(biased)
    assert len(tests) == 7
    for result in tests:
        # the clauses a test's measurements cite; a test that measured nothing (skipped: no camera) is titled by its
        # plain name and its marker's first clause
        title = (r"p217-2007/roleta-francesa/[\d, ]+: [A-Z][a-z].*" if result["status"] != "skipped"
                 else r"[A-Z][a-z][^(]* \(p217-2007/[a-z-]+/[\d.]+(?: and \d+ more)?\)")
        assert re.fullmatch(title, result["name"]), result["name"]
        pairs = [(label["name"], label["value"]) for label in result["labels"]]
        assert len(pairs) == len(set(pairs)), pairs  # each label once
        assert [name for name, _ in pairs].count("epic") == 1 and ("feature", "p217-2007/roleta-francesa") in pairs
        assert ("parentSuite", "Certification suites") in pairs and ("suite", "Roulette wheels") in pairs
        assert [name for name, _ in pairs].count("suite") == 1  # not the module's name beside it
        stories = {value for name, value in pairs if name == "story"}
        named_ids, more = _title_clauses(result["name"])
        assert named_ids <= stories and len(stories) == len(named_ids) + more
        for parameter in result.get("parameters", []):
            assert not parameter["value"].startswith(("'", '"')), parameter
    assert sum(len(result.get("parameters", [])) for result in tests) >= 5  # the measurements are there
    fairness = next(result for result in tests if result["name"].endswith(": Pocket fairness"))
    assert fairness["status"] == "failed" and fairness["name"].startswith("p217-2007/roleta-francesa/5, 9")

    not_tested = {clause.clause: clause.reason for clause in _results(biased).clauses if clause.verdict == "NOT TESTED"}
    assert {result["fullName"].removeprefix("clauses#") for result in clauses} == set(not_tested)
    catalogue = load_catalogue()
    for result in clauses:
        clause_id = result["fullName"].removeprefix("clauses#")
        assert result["status"] == "skipped"
        assert result["statusDetails"]["message"] == f"NOT TESTED: {not_tested[clause_id]}"
        assert result["name"].endswith(f": {catalogue[clause_id].summary_en}")
        assert ("story", clause_id) in [(label["name"], label["value"]) for label in result["labels"]]


@pytest.mark.slow(seconds=25)
def test_an_incomplete_clause_is_a_skipped_result_until_it_is_judged(biased: FinishedRun, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(biased.run_dir, run)  # the shared run stays as it is
    catalogue = load_catalogue()
    verdicts = verdicts_of_run(run, catalogue)
    two = next(verdict for verdict in verdicts if verdict.clause_id == "p217-2007/roleta-francesa/2")
    two.verdict, two.reason = INCOMPLETE, "suites/test_roulette.py::test_wheel_numbering did not finish"
    written = write_run_context(run, verdicts, catalogue)
    _, clauses = _allure(FinishedRun(0, "", run, 0))
    assert written == len(clauses) == sum(verdict.verdict in ("NOT TESTED", INCOMPLETE) for verdict in verdicts)
    [incomplete] = [result for result in clauses if result["fullName"] == "clauses#p217-2007/roleta-francesa/2"]
    assert incomplete["statusDetails"]["message"] == f"INCOMPLETE: {two.reason}"
    two.verdict, two.reason = PASS, ""  # as a resumed run that finished the test judges it
    write_run_context(run, verdicts, catalogue)
    _, clauses = _allure(FinishedRun(0, "", run, 0))
    assert "clauses#p217-2007/roleta-francesa/2" not in {result["fullName"] for result in clauses}


def _small_profile(tmp_path: Path) -> Path:
    path = tmp_path / "profile.toml"
    path.write_text('name = "export-test"\n[equipment.wheel]\nkind = "roulette-wheel"\n'
                    'identity = { manufacturer = "Bench Simulators", model = "RW-37", serial = "T-2" }\n'
                    'options = { spins = 400 }\nsimulator = { model = "fair", seed = 7, spin_time_s = 0.002 }\n')
    return path


@pytest.mark.slow(seconds=30)
def test_result_files_inside_the_run_are_signed_with_it_and_an_unwritable_one_is_an_error(tmp_path: Path) -> None:
    key = init_key(tmp_path / "keys")
    run = tmp_path / "run"
    command = [BENCH, "certify", "--no-progress", "--no-pdf", "--profile", str(_small_profile(tmp_path)), "--out",
               str(run), "--key-dir", str(key.directory), "--json", str(run / "results.json"),
               "--junit-xml", str(tmp_path / "no-such-dir" / "junit.xml")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 2, result.stdout + result.stderr  # the run's verdict stands, the export failed
    assert "NOT WRITTEN:" in result.stdout and "junit.xml" in result.stdout
    assert RunResults.model_validate_json((run / "results.json").read_text()).profile == "export-test"
    manifest = json.loads((run / "manifest.json").read_text())
    assert "results.json" in {entry["path"] for entry in manifest["files"]}
    assert verify_run(run, key.public).intact
    assert not list(run.glob(".results.json.tmp-*"))


def test_a_test_that_measured_nothing_is_titled_by_its_name_and_first_clause() -> None:
    from bench.allure_labels import plain_test_name, unmeasured_title

    clauses = ["p217-2007/roleta-francesa/13", "p217-2007/roleta-francesa/2", "p217-2007/roleta-americana/9"]
    title = unmeasured_title(clauses, plain_test_name("test_launch_alternation_and_counter_rotation"))
    assert title == "Launch alternation and counter rotation (p217-2007/roleta-francesa/13 and 2 more)"
    assert _title_clauses(title) == ({"p217-2007/roleta-francesa/13"}, 2)
    assert unmeasured_title(clauses[:1], "Ball launch") == "Ball launch (p217-2007/roleta-francesa/13)"


def test_a_suite_is_filed_in_allure_under_the_equipment_it_certifies() -> None:
    from bench.allure_labels import suite_title

    doc = "Certification suite: roulette wheels (Portaria 217/2007, roleta francesa and roleta americana).\n\nMore."
    assert suite_title(doc, "suites.test_roulette") == "Roulette wheels"
    assert suite_title("Certification suite: a game's RNG, through its interface.", "x") == "A game's RNG"
    assert suite_title(None, "suites.test_cussec_dome") == "Cussec dome"
    assert suite_title("No subject here", "suites.test_slot") == "Slot"
