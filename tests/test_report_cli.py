"""``bench report``: languages, output, and the rules for writing into a signed run directory."""

from __future__ import annotations

from pathlib import Path

from test_report_journal import build_run
from typer.testing import CliRunner

from bench.cli import app
from reports.manifest import MANIFEST_FILE, sign_run
from reports.signing import init_key
from reports.verify import verify_run

runner = CliRunner()


def test_report_of_an_unsigned_run_and_bad_arguments(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run")
    result = runner.invoke(app, ["report", str(run), "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert (run / "report.en.html").is_file() and not (run / MANIFEST_FILE).exists()
    assert "Test certificate" in (run / "report.en.html").read_text(encoding="utf-8")
    assert runner.invoke(app, ["report", str(run), "--lang", "fr"]).exit_code == 2
    assert runner.invoke(app, ["report", str(tmp_path / "nothing")]).exit_code == 2


def test_signed_run_is_verified_then_re_signed_and_outside_output_leaves_it_alone(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run")
    key = init_key(tmp_path / "keys")
    sign_run(run, key)
    manifest = (run / MANIFEST_FILE).read_bytes()

    outside = tmp_path / "copy" / "certificate.html"
    result = runner.invoke(app, ["report", str(run), "-o", str(outside), "--key-dir", str(tmp_path / "no-key")])
    assert result.exit_code == 0, result.output
    assert outside.is_file() and (run / MANIFEST_FILE).read_bytes() == manifest  # the run is not touched
    assert key.fingerprint in outside.read_text(encoding="utf-8")  # the manifest's key is named

    result = runner.invoke(app, ["report", str(run), "--key-dir", str(tmp_path / "no-key")])
    assert result.exit_code == 2 and not (run / "report.html").exists()  # cannot re-sign: nothing written

    result = runner.invoke(app, ["report", str(run), "--key-dir", str(key.directory)])
    assert result.exit_code == 0, result.output
    assert (run / "report.html").is_file()
    verification = verify_run(run, key.public)
    assert verification.intact, verification.problems
    assert b"report.html" in (run / MANIFEST_FILE).read_bytes()


def test_a_tampered_signed_run_is_refused(tmp_path: Path) -> None:
    run = build_run(tmp_path / "run")
    key = init_key(tmp_path / "keys")
    sign_run(run, key)
    wire_log = next(path for path in (run / "attachments").rglob("*.jsonl"))
    wire_log.write_text(wire_log.read_text(encoding="utf-8") + '{"dir": "rx", "text": "forged"}\n', encoding="utf-8")
    result = runner.invoke(app, ["report", str(run), "--key-dir", str(key.directory)])
    assert result.exit_code == 2
    assert "not intact" in result.output and wire_log.name in result.output
    assert not (run / "report.html").exists()
