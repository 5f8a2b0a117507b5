"""The session's shared suite runs (``tests/suite_runs.py``): each distinct run made once, whoever asks."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import suite_runs
from suite_runs import FinishedRun, SessionRuns, session_root


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, bool]]:
    """Every run actually made, with a stand-in for the subprocess that takes a while."""
    calls: list[tuple[str, str, bool]] = []

    def fake_run_suite(suite: str, profile: str, directory: Path, *, certificate: bool = True) -> FinishedRun:
        calls.append((suite, profile, certificate))
        threading.Event().wait(0.2)  # long enough for the other asker to arrive while this one runs
        (directory / "run").mkdir()
        return FinishedRun(len(calls), f"output of {profile}", directory / "run", 0.2)

    monkeypatch.setattr(suite_runs, "run_suite", fake_run_suite)
    return calls


def test_two_askers_of_one_run_get_the_same_run_made_once(tmp_path: Path, made: list) -> None:
    results: list[FinishedRun] = []

    def ask() -> None:  # each thread as another xdist worker: its own SessionRuns on the shared directory
        results.append(SessionRuns(tmp_path).run("jackpot", "sim-jackpot-rounding"))

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert made == [("jackpot", "sim-jackpot-rounding", True)]
    assert results[0] == results[1] and results[0].code == 1 and results[0].output == "output of sim-jackpot-rounding"


def test_another_suite_profile_or_command_is_another_run(tmp_path: Path, made: list) -> None:
    runs = SessionRuns(tmp_path)
    runs.run("jackpot", "sim")
    runs.run("slot", "sim")
    runs.run("slot", "sim", certificate=False)
    runs.run("slot", 'name = "text-profile"\n[equipment]\n')
    runs.run("slot", "sim")
    assert [call[:2] for call in made] == [("jackpot", "sim"), ("slot", "sim"), ("slot", "sim"),
                                           ("slot", 'name = "text-profile"\n[equipment]\n')]
    assert [call[2] for call in made] == [True, True, False, True]


def test_a_run_interrupted_before_it_finished_is_made_again(tmp_path: Path, made: list) -> None:
    runs = SessionRuns(tmp_path)
    first = runs.run("roulette", "sim")
    (first.run_dir.parent / "finished.json").unlink()  # as if the worker died before writing it
    (first.run_dir / "left-over").write_text("partial", encoding="utf-8")
    again = runs.run("roulette", "sim")
    assert len(made) == 2 and not (again.run_dir / "left-over").exists()


def test_workers_of_one_session_share_the_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert session_root(tmp_path / "popen-gw1") == tmp_path / "session-runs"
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    assert session_root(tmp_path) == tmp_path / "session-runs"
