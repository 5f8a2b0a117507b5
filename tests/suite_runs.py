"""Running a certification suite in a subprocess and reading what its run journalled (shared by the suite tests).

``bench certify --suite X`` on a profile (a built-in name, a path, or TOML text written to a file), the
run read back from its journal alone, and a pool that starts every profile's run at once on two workers
(one per core) so that each test waits only for its own.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from bench.journal import Journal

BENCH = str(Path(sys.executable).with_name("bench"))
RUN_TIMEOUT_S = 600
WAIT_TIMEOUT_S = 900

R = TypeVar("R")


class SuiteRun:
    """One finished run: exit code, output, and the journal's measurements, final tests, equipment, attachments."""

    def __init__(self, code: int, output: str, run_dir: Path) -> None:
        self.code, self.output, self.run_dir = code, output, run_dir
        with Journal(run_dir / Journal.FILENAME, create=False) as journal:
            self.measurements = journal.rows("measurements")
            self.tests = {row["nodeid"].split("::")[-1]: row for row in journal.rows("tests", "phase = 'final'")}
            self.equipment = {row["name"]: row for row in journal.rows("equipment")}
            self.attachments = [row["name"] for row in journal.rows("attachments")]
            self.read_more(journal)

    def read_more(self, journal: Journal) -> None:
        """What a particular suite's tests also need from the journal (nothing by default)."""

    def verdicts(self) -> dict[str, str]:
        """Clause → PASS or FAIL over the measurements citing it (clauses no measurement cites are absent)."""
        verdicts: dict[str, str] = {}
        for row in self.measurements:
            for clause in row["clauses"]:
                verdicts[clause] = "FAIL" if not row["passed"] else verdicts.get(clause, "PASS")
        return verdicts

    def failed(self) -> set[str]:
        """Names of the failed measurements."""
        return {row["name"] for row in self.measurements if not row["passed"]}

    def named(self, name: str) -> dict[str, Any]:
        """The one measurement of this name."""
        [row] = [row for row in self.measurements if row["name"] == name]
        return row

    def starting(self, prefix: str) -> list[dict[str, Any]]:
        """Every measurement whose name starts with ``prefix``."""
        return [row for row in self.measurements if row["name"].startswith(prefix)]


def certify_suite(suite: str, profile: str, directory: Path) -> SuiteRun:
    """``bench certify --suite suite`` on ``profile`` (TOML text is written to ``directory/profile.toml``)."""
    if "\n" in profile:
        path = directory / "profile.toml"
        path.write_text(profile, encoding="utf-8")
        profile = str(path)
    run_dir = directory / "run"
    result = subprocess.run([BENCH, "certify", "--no-progress", "--suite", suite, "--profile", profile,
                             "--out", str(run_dir)], capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                            check=False)
    return SuiteRun(result.returncode, result.stdout + result.stderr, run_dir)


@contextmanager
def runs_in_parallel(jobs: Mapping[str, Callable[[Path], R]], directories: Callable[[str], Path]
                     ) -> Iterator[dict[str, Future[R]]]:
    """Every job started at once on two workers, each in its own directory; a test waits for its own."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield {key: pool.submit(job, directories(key)) for key, job in jobs.items()}


def result(runs: Mapping[str, Future[R]], key: str) -> R:
    """The run of ``key``, waited for."""
    return runs[key].result(timeout=WAIT_TIMEOUT_S)
