"""Counted no-reads (fixtures/no_reads.py): a game the driver could not confirm is journalled with its reason
and skipped; beyond the stated bound (5 % of the planned games, at least 1) the test stops naming the bound,
and its clauses are INCOMPLETE, as they are when the device is lost (fixtures/incomplete.py)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from benchmark_scripts import load_benchmark

from drivers.serial_link import DeviceError
from fixtures.incomplete import incomplete_reason
from fixtures.no_reads import NO_READ_SHARE, NoReadBoundExceeded, NoReads, no_read_bound

sweep = load_benchmark("fault_sweep")


class _Stream:
    def __init__(self) -> None:
        self.rows: list[Any] = []

    @property
    def count(self) -> int:
        return len(self.rows)

    def values(self) -> list[Any]:
        return list(self.rows)

    def record(self, value: Any, *, source: str, raw_ref: str | None = None) -> int:
        self.rows.append(value)
        return len(self.rows)


class _Bench:
    def __init__(self) -> None:
        self.streams: dict[str, _Stream] = {}

    def stream(self, name: str, nodeid: str) -> _Stream:
        return self.streams.setdefault(name, _Stream())


def _error(what: str = "start a game") -> DeviceError:
    return DeviceError("/dev/pts/9", what, ["no reply within 0.5 s"] * 4)


def test_the_bound_is_five_percent_of_the_planned_games_and_at_least_one() -> None:
    assert NO_READ_SHARE == 0.05
    assert [no_read_bound(n) for n in (1, 19, 20, 100, 370, 3700)] == [1, 1, 1, 5, 18, 185]


def test_no_reads_are_journalled_with_their_reason_and_the_value_is_taken_again() -> None:
    bench = _Bench()
    no_reads = NoReads(bench, "wheel/no-reads", "node", 100, "wheel")  # type: ignore[arg-type]
    replies = iter([_error(), _error("result of game 7"), 17])

    def take_one() -> int:
        reply = next(replies)
        if isinstance(reply, DeviceError):
            raise reply
        return reply

    assert no_reads.taking(take_one)() == 17
    assert no_reads.count == 2
    assert [row["what"] for row in bench.streams["wheel/no-reads"].values()] == ["start a game", "result of game 7"]
    assert no_reads.details() == {"no_read_games": 2, "no_read_bound": 5,
                                  "no_reads_by_request": {"result of game 7": 1, "start a game": 1}}


def test_beyond_the_bound_the_test_stops_naming_the_bound() -> None:
    no_reads = NoReads(_Bench(), "wheel/no-reads", "node", 40, "wheel")  # type: ignore[arg-type]
    no_reads.record(_error()), no_reads.record(_error())  # 2 = 5 % of 40: still within
    with pytest.raises(NoReadBoundExceeded, match=r"3 games could not be read from wheel; the bound is 2 no-reads "
                                                  r"\(5% of the 40 planned games, at least 1\)"):
        no_reads.record(_error())


def test_a_bound_that_grows_with_the_reads_made() -> None:
    no_reads = NoReads(_Bench(), "slot/no-reads", "node", 0, "slot", "meter reads")  # type: ignore[arg-type]
    assert no_reads.bound == 1
    no_reads.planning(60)
    assert no_reads.bound == 3


# -- end to end: what a run says when too much is lost, or the device is gone ----------------------------------


def _certify_wheel(tmp_path: Path, wire_faults: dict[str, Any]) -> tuple[subprocess.CompletedProcess[str], Path]:
    """A 40-game fair wheel (sensor only) on a line with ``wire_faults``, one retry: ``bench certify``."""
    wheel = sweep.DEVICES["wheel"]
    text = sweep.device_profile(wheel.profile, wheel.entry, {"seed": 1, **wire_faults},
                                {**wheel.options, "spins": 40}, wheel.drop).replace("retries = 3", "retries = 1")
    profile, run = tmp_path / "wheel.toml", tmp_path / "run"
    profile.write_text(text, encoding="utf-8")
    bench = str(Path(sys.executable).with_name("bench"))
    completed = subprocess.run([bench, "certify", "--no-progress", "--no-pdf", "--profile", str(profile), "--suite",
                                "roulette", "--out", str(run)], capture_output=True, text=True, check=False,
                               timeout=300)
    return completed, run


def _finals(run: Path) -> dict[str, tuple[str, str]]:
    with sqlite3.connect(run / "journal.sqlite") as journal:
        return {nodeid.split("::")[-1]: (outcome, message) for nodeid, outcome, message in journal.execute(
            "SELECT nodeid, outcome, message FROM tests WHERE phase = 'final'")}


@pytest.mark.slow(seconds=45)
def test_beyond_the_no_read_bound_the_clauses_are_incomplete_not_in_error(tmp_path: Path) -> None:
    """60 % of the wheel's replies lost: more than 2 of the 40 games cannot be confirmed, the spins stop, and
    the fairness clause is INCOMPLETE (exit 2), naming the bound; never PASS on what was read, never ERROR."""
    completed, run = _certify_wheel(tmp_path, {"silent_rate": 0.6})
    assert completed.returncode == 2, completed.stdout[-2000:]
    assert "Overall result: INCOMPLETE" in completed.stdout
    outcome, message = _finals(run)["test_pocket_fairness"]
    assert outcome == "incomplete"
    assert message.startswith("not enough read: 3 games could not be read from wheel; the bound is 2 no-reads (5% of "
                              "the 40 planned games, at least 1): the test stops and its clauses are INCOMPLETE")
    assert _finals(run)["test_wheel_numbering"][0] == "passed"  # what finished stands on its own
    certificate = (run / "report.en.html").read_text(encoding="utf-8")
    assert "wheel/no-reads" in certificate and "no-read: " in certificate  # grouped by what was not confirmed
    bench = str(Path(sys.executable).with_name("bench"))
    resumed = subprocess.run([bench, "certify", "--no-progress", "--no-pdf", "--resume", str(run)],
                             capture_output=True, text=True, check=False, timeout=300)
    assert resumed.returncode in (0, 2), resumed.stdout[-2000:]
    with sqlite3.connect(run / "journal.sqlite") as journal:
        attempts = dict(journal.execute("SELECT nodeid, MAX(attempt) FROM tests WHERE phase = 'start' GROUP BY nodeid"))
    assert attempts["suites/test_roulette.py::test_pocket_fairness"] == 2  # the unfinished test runs again
    assert attempts["suites/test_roulette.py::test_wheel_numbering"] == 1  # what finished is not run again


def test_a_lost_device_or_too_few_reads_leave_a_test_unfinished_and_nothing_else_does() -> None:
    """fixtures.incomplete: what makes the plugin journal a test as ``incomplete`` (its clauses INCOMPLETE)."""
    def caught(error: Exception) -> pytest.ExceptionInfo[BaseException]:
        with pytest.raises(type(error)) as info:
            raise error
        return info  # type: ignore[return-value]

    error = _error("read the wheel's last game")
    assert incomplete_reason(caught(error)) == f"device lost: {error}"
    assert incomplete_reason(caught(NoReadBoundExceeded("3 games could not be read"))) == \
        "not enough read: 3 games could not be read"
    assert incomplete_reason(caught(ValueError("a bug"))) is None
    assert incomplete_reason(None) is None


@pytest.mark.slow(seconds=15)
def test_a_device_that_never_answers_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    """The rig is checked before a run (bench.doctor): a wheel that never answers leaves no run behind."""
    completed, run = _certify_wheel(tmp_path, {"silent_rate": 0.999})
    assert completed.returncode == 2
    assert completed.stdout.startswith("Rig not ready, nothing run: wheel serial: identify: no reply within 0.5 s")
    assert not run.exists()


def test_a_step_is_taken_again_and_a_lost_poll_is_skipped_each_counted_as_planned() -> None:
    no_reads = NoReads(_Bench(), "slot/no-reads", "node", 0, "slot", "meter reads")  # type: ignore[arg-type]
    answers = iter([_error("read meters"), 7])

    def flaky() -> int:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def _raising() -> int:
        raise _error("read meters")

    assert no_reads.surely(flaky) == 7 and no_reads.count == 1 and no_reads.planned == 1
    assert no_reads.polled(lambda: 3) == 3
    with pytest.raises(NoReadBoundExceeded):  # a second no-read over 3 planned reads passes the bound of 1
        no_reads.polled(_raising, phase="during")
    assert no_reads.planned == 3 and no_reads.stream.values()[-1]["phase"] == "during"
