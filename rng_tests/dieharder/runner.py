"""Run dieharder 3.31 as a subprocess on a sample of RNG output and collect its results.

H0 of every dieharder test: the sample is a sequence of independent, uniformly
distributed 32-bit words (consecutive 4-byte little-endian words of the sample, as
dieharder's raw input generators read them). Each test computes ``psamples``
first-level p-values and reports the Kuiper-KS p-value of their uniformity; dieharder
assesses it two-sided: FAILED when p < 1e-6 or p > 1 - 1e-6, WEAK when p < 0.005 or
p > 0.995 (its ``-X`` / ``-W`` defaults), PASSED otherwise. Source: R. G. Brown,
dieharder 3.31 (``dieharder -h``; ``run_test.c``).

How a sample is fed (``-g 200``, raw binary on stdin): a feeder thread writes the sample
into dieharder's stdin and counts what dieharder read. dieharder never rewinds stdin:
when the sample runs out it stops, and the test is reported NOT_APPLICABLE ("sample
exhausted after N bytes; test needs more"), a defect of the sample, never PASS or FAIL.
Each test is its own process (so a timeout, an exhausted sample or a rewind is tied to
one test); by default tests read consecutive, non-overlapping parts of the sample.

Reading a file (``-g 201``, ``from_file=True``): dieharder reads the file itself and
rewinds it when it reaches the end, reusing data; its only trace is a notice on stderr,
which makes the test NOT_APPLICABLE. Every test reads the file from its start.

dieharder exits 0 whatever happens (failed test, missing file, unknown generator) and
segfaults on an unknown ``-d``, so results are read from its output, never its exit
code, and test ids are checked against ``dieharder -l`` before anything runs.

WEAK results (probability about 1 % per row under H0) are re-tested as dieharder's
``-Y 1`` "resolve ambiguity" mode does, with more psamples: the test is run again on
fresh data (stdin) with psamples doubled, up to ``weak_reruns`` times; each WEAK row
takes its first non-WEAK re-test result. A row still WEAK after the last re-test makes
the test FAILED (under H0 that happens with probability about 0.01 ** (reruns + 1) per
row). Any FAILED row in any attempt makes the test FAILED. With ``from_file`` the re-run
re-reads the file from its start, so its psamples include the earlier ones (cumulative,
as dieharder's ``-Y 1`` is).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from typing import Any

from bench.paths import child_environment
from rng_tests.dieharder import catalogue
from rng_tests.dieharder.catalogue import DO_NOT_USE, NTUPLE_SWEEPS, SHORT_NAMES, DieharderTest, Invocation
from rng_tests.dieharder.errors import DieharderError, DieharderOutputError
from rng_tests.dieharder.feed import ByteSource, Feeder, FileSource, as_source
from rng_tests.dieharder.parser import (
    OUTPUT_FLAGS,
    parse_prefixed_output,
    parse_stderr,
    parse_test_list,
    parse_version,
)
from rng_tests.dieharder.results import (
    Assessment,
    Attempt,
    DieharderRow,
    DieharderRun,
    DieharderTestResult,
    Status,
)

DEFAULT_LOCATIONS: tuple[str, ...] = ("/usr/bin/dieharder", "/usr/local/bin/dieharder")
TestSelection = str | int | Sequence[str | int]


def locate(binary: str | os.PathLike[str] | None = None) -> tuple[str | None, tuple[str, ...]]:
    """(path of an executable dieharder or None, the places looked at)."""
    if binary is not None:
        candidates: tuple[str, ...] = (os.fspath(binary),)
    else:
        on_path = shutil.which("dieharder")
        candidates = ((on_path,) if on_path else ("dieharder on PATH",)) + DEFAULT_LOCATIONS
    for candidate in candidates:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate, candidates
    return None, candidates


class Dieharder:
    """A dieharder installation: its test list, and runs of selected tests on a sample."""

    def __init__(self, binary: str | os.PathLike[str] | None = None) -> None:
        self.path, self.looked_for = locate(binary)

    @property
    def available(self) -> bool:
        return self.path is not None

    @property
    def missing_reason(self) -> str:
        return f"dieharder not installed (looked for {', '.join(self.looked_for)})"

    @functools.cached_property
    def _listing(self) -> tuple[str | None, dict[int, DieharderTest]]:
        if self.path is None:
            raise DieharderError(self.missing_reason)
        done = subprocess.run([self.path, "-l"], capture_output=True, text=True, timeout=60, env=_environment(), check=False)
        tests = {}
        for listed in parse_test_list(done.stdout):
            name = SHORT_NAMES.get(listed.number, f"test_{listed.number}")
            tests[listed.number] = DieharderTest(listed.number, name, listed.title, listed.reliability)
        return parse_version(done.stdout), tests

    @property
    def version(self) -> str | None:
        return self._listing[0]

    @property
    def tests(self) -> dict[int, DieharderTest]:
        """Tests this dieharder lists with ``-l``, by number."""
        return self._listing[1]

    def select(self, tests: TestSelection = "all", ntuple: int | None = None,
               include_do_not_use: bool = False) -> list[Invocation]:
        """Resolve a selection to invocations, validated against ``dieharder -l``.

        ``tests`` is ``"all"`` (every listed test but those rated "Do Not Use", unless
        ``include_do_not_use``), a test number, a short name (``diehard_birthdays``), a
        ``-l`` title, or a sequence of those. Unknown ids raise ValueError listing the
        valid ones: dieharder itself segfaults on an unknown ``-d``. When dieharder is
        missing, ids are checked against the built-in catalogue instead.
        """
        known = self.tests if self.available else {
            number: DieharderTest(number, name, name, "unknown") for number, name in SHORT_NAMES.items()}
        if isinstance(tests, str) and tests.strip().lower() == "all":
            if ntuple is not None:
                raise ValueError("ntuple applies to one selected test, not to 'all'")
            chosen = [test for test in known.values() if include_do_not_use or test.reliability != DO_NOT_USE]
        else:
            items = [tests] if isinstance(tests, (str, int)) else list(tests)
            if not items:
                raise ValueError("no dieharder test selected")
            chosen = [_lookup(item, known) for item in items]
        invocations = []
        for test in chosen:
            if ntuple is not None:
                sweep = NTUPLE_SWEEPS.get(test.number)
                if sweep is None:
                    raise ValueError(f"ntuple applies only to tests {sorted(NTUPLE_SWEEPS)}, not {test.number}")
                if ntuple not in sweep:
                    raise ValueError(f"ntuple for test {test.number} must be in {sweep[0]}..{sweep[-1]}, got {ntuple}")
            for number, value in catalogue.invocations_for(test.number, ntuple):
                invocations.append(Invocation(known[number], value))
        return invocations

    def plan(self, sample_bytes: int, tests: TestSelection = "all", *, psamples: int | None = None,
             ntuple: int | None = None, share_sample: bool = False) -> list[dict[str, Any]]:
        """Tell up front which selected tests a sample of ``sample_bytes`` can feed.

        One dict per invocation: ``test`` label, ``bytes_needed`` (measured table, with
        margins) and ``enough``. Consecutive use (the default) counts what earlier tests
        take; WEAK re-tests need more and are not counted.
        """
        invocations = self.select(tests, ntuple)
        keys = [(inv.test.number, inv.ntuple) for inv in invocations]
        rows = catalogue.sample_plan(sample_bytes, keys, psamples, share_sample)
        return [{"test": inv.label, "bytes_needed": need, "enough": enough}
                for inv, (_key, need, enough) in zip(invocations, rows)]

    def run(self, sample: Any, tests: TestSelection = "all", *, psamples: int | None = None,
            ntuple: int | None = None, timeout: float = 900.0, weak_reruns: int = 3, share_sample: bool = False,
            from_file: bool = False, skip_insufficient: bool = False, include_do_not_use: bool = False) -> DieharderRun:
        """Run the selected tests on ``sample`` and return structured results.

        ``sample``: a path, bytes-like or numpy array (streamed on stdin, ``-g 200``), or
        a path read by dieharder itself with ``from_file=True`` (``-g 201``).
        ``psamples``: ``-p`` for every test (default: each test's own). ``timeout``:
        seconds per dieharder process. ``share_sample``: every test reads the sample from
        its start instead of the part the previous tests left. ``skip_insufficient``:
        report tests the measured table says the sample cannot feed as NOT_APPLICABLE
        without running them.

        Keep ``psamples`` at or near the defaults for verdicts: with few psamples the KS
        p-value is coarse, and some tests give WEAK far more often than the nominal 1 %
        on fair data (diehard_birthdays, p > 0.995: 28 of 392 PCG64 seeds at psamples 20,
        6 of 150 at 100), which only the re-tests resolve.
        """
        if psamples is not None and psamples < 1:
            raise ValueError(f"psamples must be >= 1, got {psamples}")
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0 s, got {timeout}")
        if weak_reruns < 0:
            raise ValueError(f"weak_reruns must be >= 0, got {weak_reruns}")
        invocations = self.select(tests, ntuple, include_do_not_use)
        if from_file:
            if not isinstance(sample, (str, os.PathLike)):
                raise ValueError("from_file=True needs the sample as a file path")
            source: ByteSource = FileSource(sample)
        else:
            source = as_source(sample)
        settings = {"psamples": psamples, "timeout_s": timeout, "weak_reruns": weak_reruns,
                    "share_sample": share_sample, "input": "file (-g 201)" if from_file else "stdin (-g 200)",
                    "sample_bytes": source.size, "tests": [inv.label for inv in invocations]}
        if self.path is None:
            return DieharderRun(results=(), binary=None, version=None, reason=self.missing_reason, settings=settings)
        cursor = 0
        results = []
        for invocation in invocations:
            start = 0 if share_sample or from_file else cursor
            skip = self._insufficient(invocation, psamples, source, start) if skip_insufficient else None
            if skip is not None:
                results.append(DieharderTestResult(invocation.test.number, invocation.test.name, invocation.ntuple,
                                                   Status.NOT_APPLICABLE, reason=skip,
                                                   reliability=invocation.test.reliability))
                continue
            result, end = self._run_test(invocation, source, start, psamples, timeout, weak_reruns, from_file)
            results.append(result)
            if not share_sample:
                cursor = end
        return DieharderRun(results=tuple(results), binary=self.path, version=self.version, settings=settings)

    @staticmethod
    def _insufficient(invocation: Invocation, psamples: int | None, source: ByteSource, start: int) -> str | None:
        if source.size is None or (invocation.test.number, invocation.ntuple) not in catalogue.CONSUMPTION:
            return None
        need = catalogue.bytes_needed(invocation.test.number, invocation.ntuple, psamples)
        left = source.size - start
        if need <= left:
            return None
        return (f"sample too short: {left} bytes left of {source.size}; test needs about {need} bytes "
                f"(measured consumption table), not run")

    def _run_test(self, invocation: Invocation, source: ByteSource, start: int, psamples: int | None,
                  timeout: float, weak_reruns: int, from_file: bool) -> tuple[DieharderTestResult, int]:
        """Run one invocation with WEAK resolution; return its result and the next free offset."""
        test = invocation.test
        attempts: list[Attempt] = []
        offset = start

        def attempt(count: int | None) -> Attempt:
            nonlocal offset
            done = self._attempt(invocation, count, source, offset, timeout, from_file)
            attempts.append(done)
            if done.bytes_read is not None:  # stdin: the next attempt reads fresh data
                offset += done.bytes_read
            return done

        def result(status: Status, reason: str | None, rows: Sequence[DieharderRow] = ()) -> DieharderTestResult:
            return DieharderTestResult(test.number, test.name, invocation.ntuple, status, tuple(rows),
                                       tuple(attempts), reason, test.reliability)

        first = attempt(psamples)
        if first.problem is not None:
            return result(first.problem, first.reason), offset
        final = list(first.rows)
        count = first.rows[0].psamples
        reruns = 0
        while _has(final, Assessment.WEAK) and not _has(final, Assessment.FAILED) and reruns < weak_reruns:
            count *= 2
            reruns += 1
            again = attempt(count)
            if again.problem is not None:
                return result(again.problem, f"while re-testing a WEAK result with psamples={count}: {again.reason}",
                              final), offset
            if len(again.rows) != len(final):
                raise DieharderOutputError(f"{invocation.label}: re-test printed {len(again.rows)} rows, "
                                           f"first run {len(final)}")
            final = [new if old.assessment is Assessment.WEAK else old for old, new in zip(final, again.rows)]
        failed = [row for done in attempts for row in done.rows if row.assessment is Assessment.FAILED]
        if failed:
            shown = ", ".join(f"p={row.p_value:.8f} (ntup {row.ntuple}, psamples {row.psamples})" for row in failed)
            return result(Status.FAILED, f"{len(failed)} row(s) FAILED: {shown}", final), offset
        if _has(final, Assessment.WEAK):
            return result(Status.FAILED, f"WEAK not resolved after {reruns} re-test(s), last with psamples={count}",
                          final), offset
        return result(Status.PASSED, None, final), offset

    def _attempt(self, invocation: Invocation, psamples: int | None, source: ByteSource, offset: int,
                 timeout: float, from_file: bool) -> Attempt:
        """One dieharder process for one invocation, fed from ``offset`` (stdin) or reading the file."""
        if self.path is None:
            raise DieharderError(self.missing_reason)
        command = [self.path, "-g", "201" if from_file else "200"]
        if from_file:
            command += ["-f", os.fspath(source.path)]  # type: ignore[attr-defined]
        command += ["-d", str(invocation.test.number)]
        if invocation.ntuple is not None:
            command += ["-n", str(invocation.ntuple)]
        if psamples is not None:
            command += ["-p", str(psamples)]
        command += list(OUTPUT_FLAGS)
        read_fd = write_fd = None
        if not from_file:
            read_fd, write_fd = os.pipe()
            os.set_blocking(write_fd, False)
        began = time.monotonic()
        try:
            process = subprocess.Popen(command, stdin=read_fd if read_fd is not None else subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                                       env=_environment())
        except BaseException:
            for fd in (read_fd, write_fd):
                if fd is not None:
                    os.close(fd)
            raise
        if read_fd is not None:
            os.close(read_fd)
        feeder = Feeder(write_fd, source, offset) if write_fd is not None else None
        if feeder is not None:
            feeder.start()
        timed_out = False
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(process)
            out, err = process.communicate()
        except BaseException:  # interrupted: never leave dieharder running
            _kill_group(process)
            process.wait()
            raise
        finally:
            bytes_read = feeder.finish() if feeder is not None else None
        seconds = time.monotonic() - began
        stdout = out.decode("utf-8", errors="replace")
        stderr = err.decode("utf-8", errors="replace")

        def made(problem: Status | None = None, reason: str | None = None,
                 rows: tuple[DieharderRow, ...] = ()) -> Attempt:
            return Attempt(tuple(command), psamples or (rows[0].psamples if rows else 0), offset, bytes_read,
                           seconds, rows, stdout, stderr, problem, reason)

        if timed_out:
            read = f"after reading {bytes_read} bytes" if bytes_read is not None else ""
            return made(Status.NOT_COMPLETED, f"timed out after {timeout:g} s; dieharder killed {read}".strip())
        notices = parse_stderr(stderr)
        if notices.other:
            raise DieharderError(f"{invocation.label}: unexpected dieharder stderr: {list(notices.other)}")
        if process.returncode < 0:
            raise DieharderError(f"{invocation.label}: dieharder died with signal {-process.returncode}; "
                                 f"command {' '.join(command)}")
        if notices.read_error is not None:
            raise DieharderError(f"{invocation.label}: dieharder could not read its stdin: {notices.read_error}")
        if notices.file_error is not None:
            return made(Status.NOT_APPLICABLE, f"dieharder could not use the sample file: {notices.file_error}")
        if notices.eof:
            if feeder is None or not feeder.exhausted:
                raise DieharderError(f"{invocation.label}: dieharder reported EOF before the sample ended")
            return made(Status.NOT_APPLICABLE, f"sample exhausted after {bytes_read} bytes; test needs more")
        rows = parse_prefixed_output(stdout)
        if not rows:
            raise DieharderOutputError(f"{invocation.label}: dieharder printed no result rows; stderr {stderr!r}")
        for row in rows:
            if row.test_name != invocation.test.name:
                raise DieharderOutputError(f"-d {invocation.test.number} printed rows of {row.test_name!r}, "
                                           f"expected {invocation.test.name!r}")
            if psamples is not None and row.psamples != psamples:
                raise DieharderOutputError(f"{invocation.label}: asked for psamples={psamples}, row says "
                                           f"{row.psamples}")
        if notices.rewinds:
            return made(Status.NOT_APPLICABLE, f"sample too short: dieharder rewound the file {notices.rewinds} "
                                               f"time(s), so the test reused data", rows)
        return made(rows=rows)


def _environment() -> dict[str, str]:
    """dieharder's environment: the bench's, in the C locale, without the laboratory's secrets."""
    return child_environment(LC_ALL="C")


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL dieharder's process group (it runs in a session of its own)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def _has(rows: Sequence[DieharderRow], assessment: Assessment) -> bool:
    return any(row.assessment is assessment for row in rows)


def _lookup(item: str | int, known: dict[int, DieharderTest]) -> DieharderTest:
    """The listed test an id (number, short name or title) names; ValueError listing valid ids."""
    key = item.strip() if isinstance(item, str) else item
    if isinstance(key, str) and key.lstrip("-").isdigit():
        key = int(key)
    if isinstance(key, int) and not isinstance(key, bool) and key in known:
        return known[key]
    if isinstance(key, str):
        for test in known.values():
            if key.lower() in (test.name.lower(), test.title.lower()):
                return test
    valid = ", ".join(f"{test.number} ({test.name})" for test in known.values())
    raise ValueError(f"unknown dieharder test {item!r}; valid tests: {valid}")


def run_dieharder(sample: Any, tests: TestSelection = "all", *, binary: str | os.PathLike[str] | None = None,
                  **options: Any) -> DieharderRun:
    """Convenience: ``Dieharder(binary).run(sample, tests, **options)``."""
    return Dieharder(binary).run(sample, tests, **options)
