"""Attestations of procedure clauses: recorded in the profile, journalled with the run, ATTESTED on the certificate."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.catalogue import load_catalogue
from bench.profiles import ProfileError, load_profile
from reports.clause_verdicts import ATTESTED, NOT_TESTED, verdicts_of_run

BENCH = str(Path(sys.executable).with_name("bench"))
PROFILE = """name = "attested-shuffler"
[laboratory]
name = "Laboratório de Ensaios"
operator = "Ana Silva"

[equipment.shuffler]
kind = "card-shuffler"
identity = { manufacturer = "Bench Simulators", model = "CS-8", serial = "T-CS-1" }
options = { mode = "batch", backs = ["RED"], shuffles = 8, alpha = 0.01 }
simulator = { model = "fair", seed = 5 }
"""
ATTESTATION = """
[[attestations]]
clause = "{clause}"
by = "Rui Costa, fiscal-chefe"
at = {at}
statement = "Shuffler loaded once, in two packs, in my presence."
"""


def _write(tmp_path: Path, clause: str, at: str = "2026-11-20T10:15:00Z") -> Path:
    path = tmp_path / "profile.toml"
    path.write_text(PROFILE + ATTESTATION.format(clause=clause, at=at), encoding="utf-8")
    return path


def test_a_procedure_clause_is_attested_and_shown_attested(tmp_path: Path) -> None:
    profile, _, _ = load_profile(str(_write(tmp_path, "p217-2007/blackjack/54")))
    assert profile.attestations[0].by == "Rui Costa, fiscal-chefe"
    run = tmp_path / "run"
    result = subprocess.run([BENCH, "certify", "--no-progress", "--suite", "shuffler", "--profile",
                             str(tmp_path / "profile.toml"), "--out", str(run)], capture_output=True, text=True,
                            timeout=600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    verdicts = {verdict.clause_id: verdict for verdict in verdicts_of_run(run, load_catalogue(), applicable=True)}
    attested = verdicts["p217-2007/blackjack/54"]
    assert attested.verdict == ATTESTED
    assert attested.attestations[0]["attested_by"] == "Rui Costa, fiscal-chefe"
    assert attested.attestations[0]["attested_at"] == "2026-11-20T10:15:00+00:00"
    assert verdicts["p217-2007/blackjack/52"].verdict == NOT_TESTED  # a procedure nobody attested
    assert "Rui Costa, fiscal-chefe" in (run / "report.en.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(("clause", "at", "message"), [
    ("p217-2007/blackjack/51", "2026-11-20T10:15:00Z", "only procedure clauses are attested"),
    ("p217-2007/blackjack/999", "2026-11-20T10:15:00Z", "not a clause of the catalogue"),
    ("p217-2007/blackjack/54", "2026-11-20T10:15:00", "timezone info"),
])
def test_bad_attestations_are_refused_naming_the_key(tmp_path: Path, clause: str, at: str, message: str) -> None:
    with pytest.raises(ProfileError) as caught:
        load_profile(str(_write(tmp_path, clause, at)))
    assert "key attestations[0]" in str(caught.value) and message in str(caught.value)
