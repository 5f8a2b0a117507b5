"""Running a certification suite in a subprocess and reading what its run journalled (shared by the suite tests).

``bench certify --suite X`` on a profile (a built-in name, a path, or TOML text written to a file), or the
suite file run by pytest with the bench plugin (the same journal and measurements, no certificate), and the
run read back from its journal alone.

:class:`SessionRuns` runs each distinct (command, suite, profile) once per test session, whichever test asks
first and on whichever pytest-xdist worker: the sensitivity matrix and the suite tests certify the same
faulty profiles, and a module's tests spread over the workers would otherwise each start the module's runs.
A run is computed under a file lock in a directory every worker of the session shares; the others read it.
Tests must treat a shared run directory as read-only.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from filelock import FileLock

from bench.journal import Journal

ROOT = Path(__file__).resolve().parents[1]
BENCH = str(Path(sys.executable).with_name("bench"))
RUN_TIMEOUT_S = 900
PYTEST_SUITE_OPTIONS = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:benchmark", "-q",
                        "-o", "addopts=")

RESULTS_JSON, RESULTS_JUNIT = "results.json", "junit.xml"
"""Beside a certified run's directory (``run``): its verdicts as ``bench certify --json`` and ``--junit-xml`` wrote them."""

R = TypeVar("R")


@dataclass(frozen=True)
class FinishedRun:
    """A finished subprocess run: its exit code, its output, its run directory and how long it took."""

    code: int
    output: str
    run_dir: Path
    seconds: float


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


def _profile_argument(profile: str, directory: Path) -> str:
    """A built-in name or a path as it is; TOML text written to ``directory/profile.toml``."""
    if "\n" not in profile:
        return profile
    path = directory / "profile.toml"
    path.write_text(profile, encoding="utf-8")
    return str(path)


def run_suite(suite: str, profile: str, directory: Path, *, certificate: bool = True) -> FinishedRun:
    """``bench certify --suite suite`` on ``profile`` into ``directory/run`` (the HTML certificate: the PDF is
    proven by ``tests/test_certify.py`` and ``tests/test_report_pdf.py``; the verdicts as JSON and JUnit XML in
    ``directory``: :data:`RESULTS_JSON`, :data:`RESULTS_JUNIT`), or with ``certificate=False`` the suite
    file ``suites/test_<suite>.py`` through pytest with the bench plugin (no certificate, no signature)."""
    run_dir = directory / "run"
    argument = _profile_argument(profile, directory)
    if certificate:
        command = [BENCH, "certify", "--no-progress", "--no-pdf", "--profile", argument, "--out", str(run_dir),
                   "--json", str(directory / RESULTS_JSON), "--junit-xml", str(directory / RESULTS_JUNIT)]
        command += ["--suite", suite] if suite else []
    else:
        command = [sys.executable, "-m", "pytest", str(ROOT / "suites" / f"test_{suite}.py"), "--profile", argument,
                   "--evidence", str(run_dir), "--rootdir", str(ROOT), *PYTEST_SUITE_OPTIONS]
    started = time.monotonic()
    completed = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False, cwd=ROOT)
    return FinishedRun(completed.returncode, completed.stdout + completed.stderr, run_dir, time.monotonic() - started)


class SessionRuns:
    """Runs shared by the whole test session: each distinct (command, suite, profile) is run once.

    ``root`` is a directory every pytest-xdist worker of the session sees (:func:`session_root`). The first
    worker to ask for a run takes its file lock, runs it and writes ``finished.json`` last; a worker that
    asks meanwhile waits on the lock and then reads the same run. A run directory left by an interrupted
    attempt (no ``finished.json``) is removed and run again.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)

    def run(self, suite: str, profile: str, *, certificate: bool = True) -> FinishedRun:
        spec = json.dumps({"suite": suite, "profile": profile, "certificate": certificate}, sort_keys=True)
        digest = hashlib.sha256(spec.encode("utf-8")).hexdigest()[:16]
        name = profile if "\n" not in profile else (re.search(r'name = "([^"]+)"', profile) or [None, "text"])[1]
        directory = self.root / f"{suite or 'all'}-{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}-{digest}"
        done = directory / "finished.json"
        with FileLock(str(directory) + ".lock"):
            if not done.is_file():
                shutil.rmtree(directory, ignore_errors=True)
                directory.mkdir(parents=True)
                finished = run_suite(suite, profile, directory, certificate=certificate)
                record = {"code": finished.code, "output": finished.output, "seconds": finished.seconds, "spec": spec}
                partial = directory / "finished.json.partial"
                partial.write_text(json.dumps(record), encoding="utf-8")
                partial.replace(done)
        record = json.loads(done.read_text(encoding="utf-8"))
        return FinishedRun(record["code"], record["output"], directory / "run", record["seconds"])


def session_root(base_temp: Path) -> Path:
    """The directory shared by every worker of this session: under pytest-xdist each worker's base temporary
    directory is ``<session>/popen-gwN``, so their parent; without xdist the base directory itself."""
    return (base_temp.parent if os.environ.get("PYTEST_XDIST_WORKER") else base_temp) / "session-runs"


class ProfileRuns(Generic[R]):
    """A test module's runs by key: each read once per process from the session's shared run."""

    def __init__(self, session: SessionRuns, suite: str, profiles: Mapping[str, str],
                 read: Callable[[FinishedRun], R], *, certificate: bool | Callable[[str], bool] = True) -> None:
        self.session, self.suite, self.profiles, self.read = session, suite, profiles, read
        self.certificate = certificate
        self._read: dict[str, R] = {}

    def get(self, key: str) -> R:
        if key not in self._read:
            certificate = self.certificate(key) if callable(self.certificate) else self.certificate
            self._read[key] = self.read(self.session.run(self.suite, self.profiles[key], certificate=certificate))
        return self._read[key]


def suite_run(finished: FinishedRun) -> SuiteRun:
    """A finished run read back as :class:`SuiteRun`."""
    return SuiteRun(finished.code, finished.output, finished.run_dir)
