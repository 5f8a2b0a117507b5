"""The ``bench`` command line: clauses, profiles, report, sim serve."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench.regulation_text import find_regulations_dir, read_source_rules
from drivers.instruments import open_instrument
from drivers.roulette import SerialRouletteWheel
from drivers.serial_link import LinkSettings, SerialLink
from drivers.shuffler import make_shuffler

BENCH = str(Path(sys.executable).with_name("bench"))


def bench(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BENCH, *args], check=False, capture_output=True, text=True, timeout=timeout)


def test_clauses_json_lists_every_numbered_rule_of_every_regulation() -> None:
    result = bench("clauses", "--json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    listed = {clause["id"] for clause in payload["clauses"]}
    in_texts = {rule.clause_id for rules in read_source_rules(find_regulations_dir()).values() for rule in rules}
    assert listed == in_texts
    assert payload["count"] == len(listed) == 918
    first = payload["clauses"][0]
    assert set(first) >= {"id", "text_pt", "summary_en", "kinds", "testability", "reason", "source"}


def test_clauses_filters() -> None:
    payload = json.loads(bench("clauses", "--json", "--regulation", "p217-2007", "--kind", "roulette-wheel",
                               "--testable").stdout)
    ids = [clause["id"] for clause in payload["clauses"]]
    assert "p217-2007/roleta-francesa/2" in ids
    assert all(clause["testability"] == "bench" and "roulette-wheel" in clause["kinds"] for clause in payload["clauses"])
    assert all(clause_id.startswith("p217-2007/") for clause_id in ids)


def test_clauses_coverage_names_citing_tests_and_uncovered_clauses() -> None:
    payload = json.loads(bench("clauses", "--json", "--coverage", "--kind", "roulette-wheel").stdout)
    by_id = {clause["id"]: clause for clause in payload["clauses"]}
    assert "suites/test_roulette.py::test_wheel_numbering" in by_id["p217-2007/roleta-francesa/2"]["tests"]
    assert "suites/test_roulette.py::test_pocket_fairness" in by_id["p217-2007/roleta-francesa/5"]["tests"]
    assert payload["uncovered"], "some roulette clauses are still uncovered and must be listed"
    assert all(not by_id[clause_id]["tests"] for clause_id in payload["uncovered"])


def test_unknown_regulation_is_an_error() -> None:
    result = bench("clauses", "--regulation", "p999-1999")
    assert result.returncode == 2 and "p999-1999" in result.stderr


def test_profiles_lists_builtins_and_validates_files(tmp_path: Path) -> None:
    listing = bench("profiles")
    assert "sim-biased-wheel" in listing.stdout and listing.returncode == 0
    bad = tmp_path / "bad.toml"
    bad.write_text('[equipment.wheel]\nkind = "roulette-wheel"\n')
    result = bench("profiles", str(bad))
    assert result.returncode == 2 and "equipment.wheel.identity" in result.stderr and str(bad) in result.stderr


def test_sim_serve_prints_a_tty_the_real_driver_can_use() -> None:
    process = subprocess.Popen([BENCH, "sim", "serve", "roulette-wheel", "--profile", "sim"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        process.stdout.readline()  # the human-readable line
        tty_path = process.stdout.readline().strip()
        assert tty_path.startswith("/dev/pts/")
        with SerialLink(LinkSettings(port=tty_path, timeout_s=2.0)) as link:
            wheel = SerialRouletteWheel(link)
            assert wheel.identify().serial == "SIM-RW-0001"
            assert wheel.spin().game == 1
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_sim_serve_unknown_kind() -> None:
    result = bench("sim", "serve", "coffee-machine")
    assert result.returncode == 2 and "no simulator for 'coffee-machine'" in result.stderr


def test_sim_serve_takes_short_names() -> None:
    process = subprocess.Popen([BENCH, "sim", "serve", "shuffler", "--profile", "sim"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "card-shuffler simulator (shuffler of profile sim)" in process.stdout.readline()
        tty_path = process.stdout.readline().strip()
        with SerialLink(LinkSettings(port=tty_path, timeout_s=2.0)) as link:
            assert make_shuffler("cs", link).identify().serial == "SIM-CS-0001"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_sim_serve_psu_prints_a_visa_resource_the_driver_can_use() -> None:
    process = subprocess.Popen([BENCH, "sim", "serve", "psu"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        assert "power supply simulator on TCPIP::127.0.0.1::" in process.stdout.readline()
        resource = process.stdout.readline().strip()
        supply = open_instrument(resource, kind="power-supply")
        assert supply.identify().serial == "SIM-PS-0001"
        supply.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
