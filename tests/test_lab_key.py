"""The laboratory key (reports/signing.py): a private directory, the passphrase asked at a terminal, and the
passphrase never handed to a process the bench starts (bench.paths.child_environment)."""

from __future__ import annotations

import io
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench.cli import app
from bench.paths import SECRET_VARIABLES, child_environment
from reports import signing
from reports.signing import KeyFileError, init_key, load_key

PASSPHRASE = "correct horse battery staple"


class _Terminal(io.StringIO):
    """A standard input that is a terminal."""

    def isatty(self) -> bool:
        return True


def _encrypted_key(directory: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("BENCH_KEY_PASSPHRASE", PASSPHRASE)
    fingerprint = init_key(directory).fingerprint
    monkeypatch.delenv("BENCH_KEY_PASSPHRASE")
    return fingerprint


def test_the_key_directory_is_created_readable_by_its_owner_only(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BENCH_KEY_PASSPHRASE", raising=False)
    directory = tmp_path / "home" / ".bench" / "keys"
    init_key(directory)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    init_key(shared)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o700
    result = CliRunner().invoke(app, ["keys", "init", "--key-dir", str(tmp_path / "cli" / "keys")])
    assert result.exit_code == 0, result.output
    assert stat.S_IMODE((tmp_path / "cli" / "keys").stat().st_mode) == 0o700


def test_an_encrypted_key_asks_its_passphrase_at_the_terminal(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    fingerprint = _encrypted_key(tmp_path / "k", monkeypatch)
    prompts: list[str] = []

    def typed(prompt: str) -> str:
        prompts.append(prompt)
        return PASSPHRASE

    monkeypatch.setattr(signing.sys, "stdin", _Terminal())
    monkeypatch.setattr(signing.getpass, "getpass", typed)
    assert load_key(tmp_path / "k").fingerprint == fingerprint
    assert len(prompts) == 1 and "lab_ed25519.pem" in prompts[0]
    monkeypatch.setattr(signing.getpass, "getpass", lambda prompt: "wrong")
    with pytest.raises(KeyFileError, match="cannot read the key"):
        load_key(tmp_path / "k")
    monkeypatch.setattr(signing.getpass, "getpass", lambda prompt: "")
    with pytest.raises(KeyFileError, match="no passphrase was given"):
        load_key(tmp_path / "k")


def test_the_variable_is_used_without_asking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fingerprint = _encrypted_key(tmp_path / "k", monkeypatch)
    monkeypatch.setenv("BENCH_KEY_PASSPHRASE", PASSPHRASE)
    monkeypatch.setattr(signing.sys, "stdin", _Terminal())
    monkeypatch.setattr(signing.getpass, "getpass", lambda prompt: pytest.fail("asked although the variable is set"))
    assert load_key(tmp_path / "k").fingerprint == fingerprint


def test_a_key_in_clear_is_loaded_without_asking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BENCH_KEY_PASSPHRASE", raising=False)
    fingerprint = init_key(tmp_path / "k").fingerprint
    monkeypatch.setattr(signing.sys, "stdin", _Terminal())
    monkeypatch.setattr(signing.getpass, "getpass", lambda prompt: pytest.fail("asked for a key in clear"))
    assert load_key(tmp_path / "k").fingerprint == fingerprint


def test_an_encrypted_key_without_the_variable_or_a_terminal_is_a_clear_error_exit_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _encrypted_key(tmp_path / "k", monkeypatch)
    monkeypatch.setattr(signing.getpass, "getpass", lambda prompt: pytest.fail("asked without a terminal"))
    result = CliRunner().invoke(app, ["keys", "show", "--key-dir", str(tmp_path / "k")])
    assert result.exit_code == 2, result.output
    message = " ".join(result.output.split())
    assert "lab_ed25519.pem: the key is encrypted and BENCH_KEY_PASSPHRASE is not set" in message
    assert "no terminal" in message and "cannot read the key" not in message


# -- the passphrase never reaches a process the bench starts ---------------------


def _environ_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    return dict(entry.split("=", 1) for entry in raw.decode("utf-8", "replace").split("\0") if "=" in entry)


def test_child_environment_drops_the_secrets_and_keeps_the_rest() -> None:
    base = {"PATH": "/usr/bin", "BENCH_KEY_PASSPHRASE": "secret", "BENCH_KEY_DIR": "/keys"}
    assert child_environment(base, LC_ALL="C") == {"PATH": "/usr/bin", "BENCH_KEY_DIR": "/keys", "LC_ALL": "C"}
    assert "BENCH_KEY_PASSPHRASE" in SECRET_VARIABLES


def test_a_simulator_process_never_sees_the_passphrase(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from drivers.sim.host import start_simulator

    monkeypatch.setenv("BENCH_KEY_PASSPHRASE", PASSPHRASE)
    monkeypatch.setenv("BENCH_TEST_MARKER", "inherited")
    config = {"simulator": {}, "identity": {"manufacturer": "Acme", "model": "RW-37", "serial": "SN-1"}}
    with start_simulator("roulette-wheel", config, tmp_path / "state.json") as simulator:
        environment = _environ_of(simulator.pid)
    assert environment.get("BENCH_TEST_MARKER") == "inherited"  # the environment was read, and inherited
    assert "BENCH_KEY_PASSPHRASE" not in environment


def test_the_psu_simulator_never_sees_the_passphrase(monkeypatch: pytest.MonkeyPatch) -> None:
    from drivers.sim.psu_server import start_psu_simulator

    monkeypatch.setenv("BENCH_KEY_PASSPHRASE", PASSPHRASE)
    monkeypatch.setenv("BENCH_TEST_MARKER", "inherited")
    with start_psu_simulator({}) as supply:
        environment = _environ_of(supply.pid)
    assert environment.get("BENCH_TEST_MARKER") == "inherited"
    assert "BENCH_KEY_PASSPHRASE" not in environment


def test_dieharder_and_nested_runs_never_see_the_passphrase(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import sensitivity
    from rng_tests.dieharder import runner

    monkeypatch.setenv("BENCH_KEY_PASSPHRASE", PASSPHRASE)
    environment = runner._environment()
    assert "BENCH_KEY_PASSPHRASE" not in environment and environment["LC_ALL"] == "C"
    seen: dict[str, Any] = {}

    def fake_run(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
        seen.update(options)
        return subprocess.CompletedProcess(command, 2, "", "")

    monkeypatch.setattr(sensitivity.subprocess, "run", fake_run)
    monkeypatch.setattr(sensitivity, "judge_run", lambda *args: None)
    row = sensitivity.FaultRow("fault", "sim", "roulette", frozenset())
    sensitivity.run_row(row, tmp_path / "run")
    assert "BENCH_KEY_PASSPHRASE" not in seen["env"] and seen["stdin"] == subprocess.DEVNULL


def test_certify_asks_the_passphrase_before_the_first_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lab engineer types the passphrase when the run starts, not after an hour of tests."""
    import sqlite3

    from benchmark_scripts import load_benchmark
    from rich.console import Console

    from bench.certify import run_certification

    sweep = load_benchmark("fault_sweep")
    wheel = sweep.DEVICES["wheel"]
    profile = tmp_path / "wheel.toml"
    profile.write_text(sweep.device_profile(wheel.profile, wheel.entry, {"seed": 1}, {**wheel.options, "spins": 40},
                                            wheel.drop), encoding="utf-8")
    fingerprint = _encrypted_key(tmp_path / "k", monkeypatch)
    run = tmp_path / "run"
    tests_run_when_asked: list[int] = []

    def typed(prompt: str) -> str:
        journal = run / "journal.sqlite"
        if not journal.is_file():
            tests_run_when_asked.append(0)
        else:
            with sqlite3.connect(journal) as connection:
                tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
                tests_run_when_asked.append(
                    connection.execute("SELECT COUNT(*) FROM tests").fetchone()[0] if "tests" in tables else 0)
        return PASSPHRASE

    monkeypatch.setattr(signing.sys, "stdin", _Terminal())
    monkeypatch.setattr(signing.getpass, "getpass", typed)
    console = Console(file=io.StringIO(), width=120)
    outcome = run_certification(console, profile=str(profile), suites=["roulette"], out=run, show_progress=False,
                                key_dir=tmp_path / "k", pdf=False)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert outcome.exit_code == 0, output
    assert tests_run_when_asked == [0], "asked once, before any test ran"
    assert "".join(output.split("laboratory key", 1)[1].split()).startswith(fingerprint)  # across its lines
