"""``suites/test_rng.py`` end to end on simulated RNG interfaces: fair passes, each defect fails its family.

Sample sizes are reduced from the built-in profiles' (55 × 10^6 bits, 20,000 draws) to keep the
run short: 6 sequences of 10^6 bits, 5 MB for dieharder's 3-D spheres test and 12,000 draws. The fair profile fails a family with
probability at most α = 0.01 per family (Holm); the seeds are fixed, so the outcome is
deterministic. The defects are far beyond what these sizes detect: a low-byte LCG has period 256
(the rank and universal tests, among others, reject it; a 500-bit block of it still has
the linear complexity of a random one), and byte % 37 makes outcomes 0-33 7/6 as likely as 34-36
(power of the modulo-bias test at 12,000 draws: above 0.99).
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow(seconds=15)
"""Every test here runs a whole certification of its own."""

BENCH = str(Path(sys.executable).with_name("bench"))


def _profile(tmp_path: Path, simulator: str, name: str = "rng-test") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\n[equipment.rng]\nkind = "rng"\n'
        'identity = { manufacturer = "Bench Simulators", model = "RG-1", serial = "T-RG" }\n'
        "options = { nist_sequences = 6, nist_sequence_bits = 1000000, draw_range = 37, draws = 12000,"
        ' dieharder_tests = ["diehard_3dsphere"], dieharder_bytes = 5000000 }\n'
        f"simulator = {{ {simulator} }}\n"
    )
    return path


def _certify(profile: Path, run: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BENCH, "certify", "--no-progress", "--suite", "rng", "--profile", str(profile),
                           "--out", str(run)], check=False, capture_output=True, text=True, timeout=600)


def _measurements(run: Path) -> dict[str, tuple[str, int]]:
    with sqlite3.connect(run / "journal.sqlite") as connection:
        return {name: (value, passed) for name, value, passed in
                connection.execute("select name, value, passed from measurements")}


def test_fair_generator_and_mapping_pass(tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = _certify(_profile(tmp_path, 'model = "fair", seed = 11'), run)
    assert result.returncode == 0, result.stdout + result.stderr
    measured = _measurements(run)
    assert all(passed for _, passed in measured.values()), measured
    assert measured["SP 800-22 2.10 linear_complexity: hypotheses rejected"] == ("0", 1)
    assert "outcomes: modulo bias (8-bit raw)" in measured and "outcomes: gap" in measured
    assert measured["dieharder diehard_3dsphere"] == ('"PASSED"', 1)


def test_weak_generator_fails_sp800_22(tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = _certify(_profile(tmp_path, 'model = "lcg-low-byte", seed = 11'), run)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "p217-2007/maquinas-automaticas/2" in result.stdout and "FAIL" in result.stdout
    measured = _measurements(run)
    failed = {name for name, (_, passed) in measured.items() if not passed and name.startswith("SP 800-22")}
    assert {"SP 800-22 2.5 binary_matrix_rank: hypotheses rejected",
            "SP 800-22 2.9 universal: hypotheses rejected"} <= failed
    assert measured["dieharder diehard_3dsphere"] == ('"FAILED"', 0)


def test_modulo_mapping_fails_the_outcome_tests_while_raw_output_passes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = _certify(_profile(tmp_path, 'model = "fair", seed = 11, draw_mapping = "modulo", raw_bits = 8'), run)
    assert result.returncode == 1, result.stdout + result.stderr
    measured = _measurements(run)
    assert measured["outcomes: modulo bias (8-bit raw)"][1] == 0
    assert all(passed for name, (_, passed) in measured.items() if name.startswith("SP 800-22")), measured
