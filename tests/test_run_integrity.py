"""The signed manifest and ``bench verify``: an intact run verifies; each kind of alteration is named.

Alter a byte of a frame, a row of the journal, the manifest, and prove each is detected;
also a journal cut short after its last row, files added or removed, and a run signed by another key.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench.cli import app
from bench.journal import Journal, utc_now
from fixtures.evidence_store import store
from reports.manifest import MANIFEST_FILE, SIGNATURE_FILE, ManifestError, sign_run
from reports.signing import (
    KeyFileError,
    init_key,
    load_key,
    load_public_key,
    parse_public_key,
    public_key_text,
)
from reports.verify import verify_run

FRAME = b"\xff\xd8\xff\xe0" + bytes(range(256)) * 4 + b"\xff\xd9"


def _make_run(run_dir: Path) -> Path:
    """A small but complete run: run row, observations, one attached frame, allure result, report."""
    with Journal(run_dir / Journal.FILENAME) as journal:
        journal.append("runs", run_id="r1", created_at=utc_now(), profile_name="sim", profile_source="builtin",
                       profile_text="name = 'sim'", software_version="0.1.0", host="lab-pc", command="bench certify")
        for index in range(5):
            journal.append("observations", run_id="r1", at=utc_now(), stream="wheel/spins", idx=index,
                           nodeid="suites/test_roulette.py::t", source="serial", value={"number": index}, raw_ref=None)
        digest, relative, size = store(run_dir, FRAME, ".jpg")
        journal.append("attachments", run_id="r1", at=utc_now(), nodeid="suites/test_roulette.py::t", attempt=1,
                       name="frame", sha256=digest, media_type="image/jpeg", size=size, path=relative.as_posix())
    (run_dir / "allure-results").mkdir()
    (run_dir / "allure-results" / "a-result.json").write_text('{"name": "t"}', encoding="utf-8")
    (run_dir / "report.html").write_text("<html>report</html>", encoding="utf-8")
    return relative


@pytest.fixture()
def key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("BENCH_KEY_PASSPHRASE", raising=False)
    return init_key(tmp_path / "keys")


@pytest.fixture()
def signed_run(tmp_path: Path, key) -> tuple[Path, Path]:
    run_dir = tmp_path / "run"
    frame = _make_run(run_dir)
    sign_run(run_dir, key)
    return run_dir, frame


def _kinds(result) -> set[tuple[str, str]]:
    return {(problem.kind, problem.path) for problem in result.problems}


def _tamper_journal(run_dir: Path, statement: str) -> None:
    """What a forger with SQLite would do: drop the append-only triggers, then change rows."""
    connection = sqlite3.connect(run_dir / Journal.FILENAME)
    for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        connection.execute(f"DROP TRIGGER {name}")
    connection.execute(statement)
    connection.commit()
    connection.close()


def test_intact_run_verifies_against_the_trusted_key(signed_run, key):
    run_dir, _ = signed_run
    result = verify_run(run_dir, key.public)
    assert result.intact, result.problems
    assert result.trusted_key_checked
    assert result.files_checked == 4  # journal, frame, allure result, report
    assert result.journal_rows == 7
    manifest = json.loads((run_dir / MANIFEST_FILE).read_text())
    assert manifest["journal"]["rows"] == 7
    assert manifest["key_fingerprint"] == key.fingerprint
    assert manifest["files"][0]["path"] == "allure-results/a-result.json"  # sorted by path


def test_reading_the_journal_after_signing_changes_nothing(signed_run, key):
    run_dir, _ = signed_run
    with Journal(run_dir / Journal.FILENAME, create=False) as journal:  # what the report does
        assert len(journal.rows("observations")) == 5
    assert verify_run(run_dir, key.public).intact


def test_a_byte_of_a_frame_altered_is_named(signed_run, key):
    run_dir, frame = signed_run
    data = bytearray((run_dir / frame).read_bytes())
    data[100] ^= 0x01
    (run_dir / frame).write_bytes(bytes(data))
    result = verify_run(run_dir, key.public)
    assert ("altered", frame.as_posix()) in _kinds(result)
    assert any("journal recorded" in problem.detail for problem in result.problems)


def test_a_row_of_the_journal_altered_is_named(signed_run, key):
    run_dir, _ = signed_run
    _tamper_journal(run_dir, "UPDATE observations SET value = '{\"number\":17}' WHERE idx = 2")
    kinds = _kinds(verify_run(run_dir, key.public))
    assert ("altered", Journal.FILENAME) in kinds
    assert ("journal-chain", Journal.FILENAME) in kinds


def test_a_journal_cut_after_its_last_row_is_named(signed_run, key):
    run_dir, _ = signed_run
    _tamper_journal(run_dir, "DELETE FROM attachments")  # the newest row: the chain alone stays consistent
    result = verify_run(run_dir, key.public)
    assert ("journal-truncated", Journal.FILENAME) in _kinds(result)
    assert result.journal_rows == 6


def test_the_manifest_altered_breaks_the_signature(signed_run, key):
    run_dir, _ = signed_run
    manifest = json.loads((run_dir / MANIFEST_FILE).read_text())
    manifest["files"][1]["sha256"] = "0" * 64
    (run_dir / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    kinds = _kinds(verify_run(run_dir, key.public))
    assert ("signature", MANIFEST_FILE) in kinds


def test_files_added_and_removed_are_named(signed_run, key):
    run_dir, _ = signed_run
    (run_dir / "report.html").unlink()
    (run_dir / "extra.txt").write_text("not signed")
    kinds = _kinds(verify_run(run_dir, key.public))
    assert kinds == {("missing", "report.html"), ("added", "extra.txt")}


def test_a_run_re_signed_with_another_key_fails_against_the_trusted_key(signed_run, key, tmp_path):
    run_dir, _ = signed_run
    forger = init_key(tmp_path / "forger")
    (run_dir / "report.html").write_text("<html>another verdict</html>")
    sign_run(run_dir, forger)
    assert verify_run(run_dir).intact  # self-consistent, so the trusted key is what matters
    assert _kinds(verify_run(run_dir, key.public)) == {("key", MANIFEST_FILE)}


def test_unsigned_or_missing_manifest(signed_run, key):
    run_dir, _ = signed_run
    (run_dir / SIGNATURE_FILE).unlink()
    assert ("missing", SIGNATURE_FILE) in _kinds(verify_run(run_dir, key.public))
    (run_dir / MANIFEST_FILE).unlink()
    assert _kinds(verify_run(run_dir, key.public)) == {("missing", MANIFEST_FILE)}


def test_signing_refuses_a_broken_chain(tmp_path, key):
    run_dir = tmp_path / "run"
    _make_run(run_dir)
    _tamper_journal(run_dir, "UPDATE observations SET nodeid = 'x' WHERE idx = 0")
    with pytest.raises(ManifestError, match="hash chain is broken"):
        sign_run(run_dir, key)


def test_key_init_refuses_to_overwrite_and_keeps_a_passphrase(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_KEY_PASSPHRASE", "correct horse")
    first = init_key(tmp_path / "k")
    with pytest.raises(FileExistsError, match="already exists"):
        init_key(tmp_path / "k")
    assert load_key(tmp_path / "k").fingerprint == first.fingerprint
    assert b"ENCRYPTED" in (tmp_path / "k" / "lab_ed25519.pem").read_bytes()
    monkeypatch.setenv("BENCH_KEY_PASSPHRASE", "wrong")
    with pytest.raises(KeyFileError, match="cannot read the key"):
        load_key(tmp_path / "k")
    assert (tmp_path / "k" / "lab_ed25519.pem").stat().st_mode & 0o077 == 0


def test_public_key_files_round_trip_and_bad_ones_are_named(tmp_path, key):
    assert load_public_key(key.directory / "lab_ed25519.pub").public_bytes_raw() == key.public.public_bytes_raw()
    assert parse_public_key(public_key_text(key.public)).public_bytes_raw() == key.public.public_bytes_raw()
    with pytest.raises(KeyFileError, match="bad.pub: not a bench public key"):
        parse_public_key("ssh-ed25519 AAAA", "bad.pub")
    with pytest.raises(KeyFileError, match="32 bytes"):
        parse_public_key("bench-ed25519 AAAA", "short.pub")
    with pytest.raises(KeyFileError, match="no laboratory key"):
        load_key(tmp_path / "nowhere")


def test_verify_command_exit_codes(signed_run, key):
    run_dir, frame = signed_run
    runner = CliRunner()
    public = str(key.directory / "lab_ed25519.pub")
    intact = runner.invoke(app, ["verify", str(run_dir), "--public-key", public])
    assert intact.exit_code == 0, intact.output
    assert "INTACT" in intact.output and "checked against the trusted key" in intact.output
    (run_dir / frame).write_bytes(b"forged")
    altered = runner.invoke(app, ["verify", str(run_dir), "--public-key", public])
    assert altered.exit_code == 1
    assert "ALTERED" in altered.output and frame.name in altered.output.replace("\n", "")
    missing = runner.invoke(app, ["verify", str(run_dir / "nope")])
    assert missing.exit_code == 2


def test_keys_commands(tmp_path, monkeypatch):
    monkeypatch.delenv("BENCH_KEY_PASSPHRASE", raising=False)
    runner = CliRunner()
    made = runner.invoke(app, ["keys", "init", "--key-dir", str(tmp_path / "k")])
    assert made.exit_code == 0, made.output
    assert "Fingerprint: SHA256:" in made.output
    again = runner.invoke(app, ["keys", "init", "--key-dir", str(tmp_path / "k")])
    assert again.exit_code == 2 and "already exists" in again.output.replace("\n", "")
    shown = runner.invoke(app, ["keys", "show", "--key-dir", str(tmp_path / "k")])
    assert shown.exit_code == 0 and shown.output.startswith("bench-ed25519 ")
