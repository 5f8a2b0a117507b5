"""Sign-off: certificate numbers from the laboratory's sequence, and ``bench approve`` (signed, journalled, verified)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_report_journal import build_run

from bench.catalogue import load_catalogue
from bench.certificate_numbers import SEQUENCE_FILE, SequenceError, assign_certificate_number, next_certificate_number
from bench.journal import Journal
from reports.certificate import render_certificate
from reports.manifest import sign_run
from reports.run_data import load_run
from reports.signing import init_key
from reports.signoff import read_signoff
from reports.verify import verify_run

BENCH = str(Path(sys.executable).with_name("bench"))


def test_numbers_follow_the_sequence_and_survive_between_calls(tmp_path: Path) -> None:
    assert next_certificate_number(tmp_path, year=2026) == "2026/0001"
    assert next_certificate_number(tmp_path, year=2026) == "2026/0002"
    assert (tmp_path / SEQUENCE_FILE).read_text() == "2\n"
    assert next_certificate_number(tmp_path, year=2027) == "2027/0003"  # a number is never given twice


def test_runs_taking_numbers_at_once_never_share_one(tmp_path: Path) -> None:
    taken: list[str] = []

    def take() -> None:
        for _ in range(20):
            taken.append(next_certificate_number(tmp_path, year=2026))

    threads = [threading.Thread(target=take) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(taken) == 120 and len(set(taken)) == 120


def test_a_damaged_sequence_file_is_named(tmp_path: Path) -> None:
    (tmp_path / SEQUENCE_FILE).write_text("twelve\n")
    with pytest.raises(SequenceError, match=SEQUENCE_FILE):
        next_certificate_number(tmp_path)


def test_a_run_keeps_its_number(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run")
    first = assign_certificate_number(run, tmp_path / "keys")
    assert assign_certificate_number(run, tmp_path / "keys") == first  # journalled: not taken again
    assert next_certificate_number(tmp_path / "keys") != first


def approve(run: Path, keys: Path, name: str, role: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BENCH, "approve", str(run), "--by", name, "--role", role, "--key-dir", str(keys)],
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.slow(seconds=15)
def test_approvals_are_signed_journalled_shown_and_keep_the_run_verifiable(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run", biased=True)
    key = init_key(tmp_path / "keys")
    sign_run(run, key)
    early = approve(run, key.directory, "Rita Lopes", "approver")
    assert early.returncode == 2 and "after a reviewer" in early.stderr
    assert verify_run(run, key.public).intact  # a refused approval leaves the run signed as it was
    reviewed = approve(run, key.directory, "Maria Sousa", "reviewer")
    assert reviewed.returncode == 0, reviewed.stdout + reviewed.stderr
    approved = approve(run, key.directory, "Rita Lopes", "approver")
    assert approved.returncode == 0, approved.stdout + approved.stderr
    assert approve(run, key.directory, "Rita Lopes", "approver").returncode == 2  # each role once
    verification = verify_run(run, key.public)
    assert verification.intact, verification.problems  # re-signed under the run's lock
    with Journal(run / Journal.FILENAME, create=False) as journal:
        assert journal.verify_chain().intact
        signoff = read_signoff(journal, "report-test-1")
    assert signoff.number is not None and signoff.number.endswith("/0001")
    reviewer, approver = signoff.approvals
    assert (reviewer.role, reviewer.name, approver.role, approver.name) == (
        "reviewer", "Maria Sousa", "approver", "Rita Lopes")
    assert reviewer.valid("report-test-1", key.public) and approver.valid("report-test-1", key.public)
    assert not reviewer.valid("another-run", key.public)  # the signature binds the run
    other = init_key(tmp_path / "other-keys")
    assert not approver.valid("report-test-1", other.public)
    for name, words in (("report.html", ("Revisto por", "Aprovado por", "Certificado n.º")),
                        ("report.en.html", ("Reviewed by", "Approved by", "Certificate number"))):
        html = (run / name).read_text(encoding="utf-8")
        assert all(word in html for word in words) and "Maria Sousa" in html and "Rita Lopes" in html
        assert signoff.number in html


def test_approving_an_altered_run_is_refused(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run")
    key = init_key(tmp_path / "keys")
    sign_run(run, key)
    attachment = next(path for path in (run / "attachments").rglob("*") if path.is_file())
    attachment.write_bytes(attachment.read_bytes() + b"x")
    result = approve(run, key.directory, "Maria Sousa", "reviewer")
    assert result.returncode == 2 and "not intact" in result.stderr
    with Journal(run / Journal.FILENAME, create=False) as journal:
        assert read_signoff(journal, "report-test-1").approvals == ()


def test_pending_sign_off_and_unassigned_number_are_said(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run")
    html = render_certificate(load_run(run, load_catalogue()), "en", rendered=[])
    assert "not assigned yet: the laboratory key assigns it when it signs the run" in html
    assert html.count("pending: bench approve RUN_DIR --by NAME --role") == 2


def test_verify_catches_an_approval_the_laboratory_key_did_not_sign(tmp_path: Path) -> None:
    import base64

    from bench.journal import utc_now
    from reports.signoff import APPROVAL_EVENT, approval_payload

    run = build_run(tmp_path / "run")
    key, forger = init_key(tmp_path / "keys"), init_key(tmp_path / "forger")
    with Journal(run / Journal.FILENAME, create=False) as journal:
        at, head = utc_now(), journal.head
        forged = forger.sign(approval_payload("report-test-1", "approver", "Somebody", at, head))
        journal.append("events", run_id="report-test-1", at=at, kind=APPROVAL_EVENT, detail={
            "role": "approver", "name": "Somebody", "at": at, "chain_head": head,
            "key_fingerprint": key.fingerprint, "signature": base64.b64encode(forged).decode("ascii")})
    sign_run(run, key)  # the manifest itself is the laboratory's: only the approval is forged
    verification = verify_run(run, key.public)
    assert [problem.kind for problem in verification.problems] == ["approval"]
    assert "Somebody" in verification.problems[0].detail
