"""``bench certify``: run the certification suites against a profile's rig and judge every clause.

Runs the suites through ``pytest.main`` with the bench plugin and allure
results, shows progress, then derives clause verdicts from the journal,
prints the clause summary, writes the certificate (HTML and, where WeasyPrint
is installed, PDF; Portuguese ``report.html`` and English ``report.en.html``)
naming the laboratory key about to sign, and signs the run directory.
Exit status: 0 when every tested clause passes, 1 when any fails, 2 on an error or when the run is
INCOMPLETE (a planned test did not finish: interrupted, killed; ``--resume`` completes it).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.table import Table

from bench.catalogue import Catalogue, load_catalogue
from bench.certificate_numbers import assign_certificate_number
from bench.cli_layout import INDENT, fingerprint_lines
from bench.cli_summary import print_verdicts
from bench.doctor import resumed_rig_not_ready, rig_not_ready
from bench.interrupts import watching
from bench.journal import Journal, JournalError, utc_now
from bench.paths import REPOSITORY_ROOT, suite_files
from bench.profiles import ProfileError, load_profile
from bench.rig_cameras import check_dice_readers
from bench.rundir import LOCK_FILE, RunLock, RunLocked
from bench.suite_times import suite_times
from fixtures.progress import RunProgress
from fixtures.session import SELECTION_EVENT, default_run_dir, missing_identity_message
from reports.allure_context import write_run_context
from reports.certificate import CertificateSet, write_certificates
from reports.clause_verdicts import (
    ERROR,
    FAIL,
    INCOMPLETE,
    PASS,
    ClauseVerdict,
    exit_code,
    lost_games,
    run_id_of,
    verdicts_of_run,
)
from reports.manifest import SIGNATURE_FILE, ManifestError, SignedManifest, sign_run, unsign
from reports.result_export import run_results, write_json, write_junit_xml
from reports.signing import KeyFileError, LabKey, load_key

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


@dataclass
class CertifyOutcome:
    """What a certification run produced."""

    exit_code: int
    run_dir: Path | None
    report: Path | None
    verdicts: list[ClauseVerdict]
    pytest_exit_code: int | None = None


@dataclass(frozen=True)
class ResultFiles:
    """Machine-readable copies of the verdicts ``bench certify`` writes besides the certificate."""

    json: Path | None = None
    """:class:`reports.result_export.RunResults` as JSON."""
    junit_xml: Path | None = None
    """One JUnit testcase per clause."""


def _pytest_arguments(files: list[Path], profile: str, run_dir: Path, operator: str | None = None,
                      selection: dict[str, Any] | None = None) -> list[str]:
    return [
        *(["--operator", operator] if operator else []),
        *(["--selection", json.dumps(selection)] if selection is not None else []),
        *(str(path) for path in files),
        "--profile", profile,
        "--evidence", str(run_dir),
        "--alluredir", str(run_dir / "allure-results"),
        "--rootdir", str(REPOSITORY_ROOT),
        "-p", "no:cacheprovider",
        "-p", "no:terminal",
        "-o", "addopts=",
    ]


def run_certification(
    console: Console,
    *,
    profile: str = "sim",
    suites: list[str] | None = None,
    out: Path | None = None,
    resume: Path | None = None,
    show_progress: bool = True,
    key_dir: Path | None = None,
    operator: str | None = None,
    pdf: bool = True,
    verbose: bool = False,
    result_files: ResultFiles = ResultFiles(),
) -> CertifyOutcome:
    """Run (or resume) a certification and judge it; ``operator`` is journalled and named on the report. With
    ``pdf`` false the certificate is written as HTML only (``bench report DIR --pdf`` writes it later). The run
    ends with its overall verdict and the clauses needing attention (with ``verbose``, every judged clause
    before them: :mod:`bench.cli_summary`); ``result_files`` names where to write the verdicts as JSON and JUnit
    XML (before the run is signed, so a file inside the run directory is signed with it).

    The run directory is locked for the whole run (:class:`bench.rundir.RunLock`: a second writer exits 2 at
    once). A resumed run continues exactly the suites it was started with, under the profile its journal
    holds; a journal without them, or a signed run that is not intact, is refused."""
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / Journal.FILENAME).is_file():
            console.print(f"[red]error:[/] {run_dir}: no journal to resume ({Journal.FILENAME} is missing)")
            return CertifyOutcome(EXIT_ERROR, None, None, [])
    else:
        try:
            loaded, profile_file, _ = load_profile(profile)
            check_dice_readers(loaded, str(profile_file))  # a reader configuration that cannot be used: no run
        except ProfileError as error:
            console.print(f"[red]profile error:[/]\n{error}")
            return CertifyOutcome(EXIT_ERROR, None, None, [])
        run_dir = Path(out) if out is not None else default_run_dir(loaded.name)
        if (run_dir / Journal.FILENAME).exists():
            try:
                with RunLock(run_dir):
                    pass
            except RunLocked as error:  # another certify is writing it this instant
                console.print(f"[red]error:[/] {error}")
                return CertifyOutcome(EXIT_ERROR, None, None, [])
            console.print(f"[red]error:[/] {run_dir} already holds a run; use --resume {run_dir} or another --out")
            return CertifyOutcome(EXIT_ERROR, None, None, [])
        if run_dir.exists() and (not run_dir.is_dir() or any(entry.name != LOCK_FILE for entry in run_dir.iterdir())):
            console.print(f"[red]error:[/] {run_dir} is not empty and holds no run: a run directory must be new or "
                          "empty (choose another --out)")
            return CertifyOutcome(EXIT_ERROR, None, None, [])
        if (not_ready := rig_not_ready(loaded, suites, profile)) is not None:  # before anything of the run is made
            console.print(not_ready, markup=False, highlight=False)
            return CertifyOutcome(EXIT_ERROR, None, None, [])
    lock = RunLock(run_dir)
    try:
        lock.acquire()
    except RunLocked as error:
        console.print(f"[red]error:[/] {error}")
        return CertifyOutcome(EXIT_ERROR, None, None, [])
    try:
        return _locked_certification(console, run_dir, profile=profile, suites=suites, resume=resume is not None,
                                     show_progress=show_progress, key_dir=key_dir, operator=operator, pdf=pdf,
                                     verbose=verbose, result_files=result_files)
    finally:
        lock.release()


def _locked_certification(console: Console, run_dir: Path, *, profile: str, suites: list[str] | None, resume: bool,
                          show_progress: bool, key_dir: Path | None, operator: str | None,
                          pdf: bool, verbose: bool = False, result_files: ResultFiles = ResultFiles()) -> CertifyOutcome:
    """:func:`run_certification` once the run directory is locked."""
    key: LabKey | KeyFileError | None = None
    if resume:
        identity = run_identity(run_dir)
        if isinstance(identity, str):
            console.print(f"[red]refused:[/] {identity}")
            return CertifyOutcome(EXIT_ERROR, run_dir, None, [])
        original = identity.get("suites")
        if suites and sorted(suites) != sorted(original or []):
            console.print(f"[red]refused:[/] {run_dir} was started with "
                          f"{'--suite ' + ' --suite '.join(original) if original else 'every suite'}; "
                          "a resumed run continues exactly that selection (leave out --suite)")
            return CertifyOutcome(EXIT_ERROR, run_dir, None, [])
        suites = list(original) if original else None
        if (not_ready := resumed_rig_not_ready(run_dir, suites)) is not None:  # before the run is written into
            console.print(not_ready, markup=False, highlight=False)
            return CertifyOutcome(EXIT_ERROR, run_dir, None, [])
        operator = operator or identity.get("operator")
        key = laboratory_key(key_dir)
        if not intact_before_writing(console, run_dir, key, "resumed"):
            return CertifyOutcome(EXIT_ERROR, run_dir, None, [])
        removed = remove_partial_allure_results(run_dir)
        if removed:
            console.print(f"Removed {len(removed)} allure result(s) a killed session left half-written: "
                          + ", ".join(removed))
    try:
        files = suite_files(suites)
    except FileNotFoundError as error:
        console.print(f"[red]error:[/] {error}")
        return CertifyOutcome(EXIT_ERROR, None, None, [])
    if key is None:  # loaded (and a passphrase asked for) before the first test, once: it names and signs the run
        key = laboratory_key(key_dir)
    if isinstance(key, KeyFileError):
        console.print(f"[yellow]warning:[/] the laboratory key cannot be loaded ({key}): the run is recorded and "
                      "judged but not signed (`bench sign` signs it later)")
    run_dir.mkdir(parents=True, exist_ok=True)
    console.print(f"{'Resuming' if resume else 'Certifying'} into [bold]{run_dir}[/]")
    selection = {"suites": sorted(suites) if suites else None, "operator": operator, "pdf": pdf}

    plugins: list[object] = []
    progress: RunProgress | None = None
    if show_progress:
        progress = RunProgress(os.fdopen(os.dup(2), "w", buffering=1))
        plugins.append(progress)
        progress.start()
    try:
        with watching():  # a Ctrl-C Python drops stops the run at the next test or observation
            pytest_code = int(pytest.main(_pytest_arguments(files, profile, run_dir, operator, selection),
                                          plugins=plugins))
    finally:
        if progress is not None:
            progress.stop()

    if not (run_dir / Journal.FILENAME).is_file():
        console.print(f"[red]error:[/] the suites did not run (pytest exit {pytest_code}); nothing was recorded")
        return CertifyOutcome(EXIT_ERROR, run_dir, None, [], pytest_code)
    if isinstance(run_identity(run_dir), str):
        console.print(f"[red]error:[/] the suites did not run (pytest exit {pytest_code}); the run has no identity")
        return CertifyOutcome(EXIT_ERROR, run_dir, None, [], pytest_code)
    catalogue = load_catalogue()
    verdicts = verdicts_of_run(run_dir, catalogue)
    print_suite_times(console, run_dir)
    if not isinstance(key, KeyFileError):
        assign_certificate_number(run_dir, key.directory)  # the laboratory's sequence numbers what it signs
    report = write_reports(console, run_dir, None if isinstance(key, KeyFileError) else key.fingerprint, pdf=pdf)
    code = exit_code(verdicts)
    if pytest_code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED):
        code = EXIT_ERROR
    if not any(verdict.verdict in (PASS, FAIL, ERROR, INCOMPLETE) for verdict in verdicts):
        console.print("[red]error:[/] no clause was tested")
        code = EXIT_ERROR
    try:
        write_run_context(run_dir, verdicts, catalogue)
    except (OSError, JournalError) as error:  # the browsing aid is incomplete; the evidence and verdicts are not
        console.print(f"[yellow]allure environment and clause results not written:[/] {error}")
    if not write_result_files(console, run_dir, verdicts, catalogue, result_files):
        code = EXIT_ERROR
    print_lost_games(console, run_dir)
    console.print(f"Evidence: {run_dir} (journal, attachments, allure-results)")
    sign_with(console, run_dir, key)  # an unsigned run keeps its verdict; verify reports it unsigned
    print_verdicts(console, verdicts, run_dir, verbose=verbose, scope=report.scope if report else None)
    return CertifyOutcome(code, run_dir, report.html if report else None, verdicts, pytest_code)


def write_result_files(console: Console, run_dir: Path, verdicts: list[ClauseVerdict], catalogue: Catalogue,
                       files: ResultFiles) -> bool:
    """The verdicts as JSON and JUnit XML where ``files`` asks (each written atomically); False, with the reason
    printed, when one could not be written."""
    if files.json is None and files.junit_xml is None:
        return True
    results = run_results(run_dir, verdicts, catalogue)
    for path, write in ((files.json, write_json), (files.junit_xml, write_junit_xml)):
        if path is None:
            continue
        try:
            write(path, results)
        except OSError as error:
            console.print(f"[bold red]NOT WRITTEN:[/] {path}: {error.strerror or error}")
            return False
        console.print(f"Results: {path}")
    return True


def remove_partial_allure_results(run_dir: Path) -> list[str]:
    """Remove the allure results (JSON written by allure-pytest, not through the bench's atomic writes) that a
    killed session left cut short, so that the resumed run never signs a half-written file; each removal is
    journalled (``partial-file-removed``). The journal, not allure, is the evidence: nothing a verdict rests on
    is lost. Call under the run's lock."""
    results = run_dir / "allure-results"
    removed: list[str] = []
    for path in sorted(results.glob("*.json")) if results.is_dir() else []:
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            removed.append(path.relative_to(run_dir).as_posix())
            path.unlink()
    if removed:
        with Journal(run_dir / Journal.FILENAME, create=False) as journal:
            journal.append("events", run_id=run_id_of(journal), at=utc_now(), kind="partial-file-removed",
                           detail={"files": removed, "reason": "cut short when the run was killed"})
    return removed


def run_identity(run_dir: Path) -> dict[str, Any] | str:
    """The suites and options a run was started with (its ``selection`` event, beside its ``runs`` row), or
    why the run has none (a kill before they were journalled): such a run is never resumed."""
    try:
        with Journal(run_dir / Journal.FILENAME, create=False) as journal:
            runs = journal.rows("runs")
            selections = journal.rows("events", "kind = ?", (SELECTION_EVENT,))
    except JournalError as error:
        return str(error)
    if not runs:
        return missing_identity_message(run_dir)
    if not selections:
        return (f"{run_dir}: the journal records no selection of suites and options (written by an earlier bench, "
                "or by pytest directly); it cannot be resumed exactly: start a new run")
    detail = selections[0]["detail"]
    return detail if isinstance(detail, dict) else {}


def intact_before_writing(console: Console, run_dir: Path, key: LabKey | KeyFileError, action: str) -> bool:
    """A signed run (it has ``manifest.sig``) is verified against the laboratory key before it is written into
    (resumed, re-signed): True when it is unsigned or intact; else the problems are printed and False. An intact
    run about to be written into (not only re-signed) is unsigned first (:func:`reports.manifest.unsign`)."""
    from reports.verify import verify_run

    if not (run_dir / SIGNATURE_FILE).is_file():
        return True  # never signed (or a signing killed before its signature): nothing signed to protect
    if isinstance(key, KeyFileError):
        console.print(f"[red]refused:[/] {run_dir} is signed; it is verified against the laboratory key before it "
                      f"is {action}, and the key cannot be loaded ({key})")
        return False
    verification = verify_run(run_dir, key.public)
    if verification.intact:
        if action != "re-signed":
            unsign(run_dir)  # a writer killed from here on leaves the run unsigned, never signed over other files
        return True
    for problem in verification.problems:
        console.print(f"[red]{problem.kind.upper()}[/] {problem.path}: {problem.detail}")
    console.print(f"[red]refused:[/] {run_dir} is not intact ({len(verification.problems)} problem(s)): the signed "
                  f"evidence was altered; it is not {action}")
    return False


def print_lost_games(console: Console, run_dir: Path) -> None:
    """How many games a killed session lost (journalled on resume), when any."""
    with Journal(run_dir / Journal.FILENAME, create=False) as journal:
        lost = lost_games(journal, run_id_of(journal))
    if lost:
        console.print(f"Games lost when the run was killed (journalled on resume, not outcomes): {lost}")


def laboratory_key(key_dir: Path | None) -> LabKey | KeyFileError:
    """The laboratory's signing key, or why it cannot be loaded (the run is then left unsigned, not lost)."""
    try:
        return load_key(key_dir)
    except KeyFileError as error:
        return error


def write_reports(console: Console, run_dir: Path, fingerprint: str | None, *, pdf: bool = True
                  ) -> CertificateSet | None:
    """The certificate in every language (HTML, and with ``pdf`` the PDF when WeasyPrint is installed), naming
    the laboratory key (``fingerprint``) that is about to sign the run; returns what was written (None when
    the report could not be written)."""
    try:
        written = write_certificates(run_dir, key_fingerprint=fingerprint, pdf=pdf)
    except (OSError, ValueError, JournalError) as error:
        console.print(f"[bold red]REPORT NOT WRITTEN:[/] {error}")
        return None
    console.print(f"Report: [bold]{written.html}[/]")
    console.print("Certificate files: " + ", ".join(path.name for path in written.files)
                  + ("" if written.pdf_error is None else f" (no PDF: {written.pdf_error})")
                  + ("" if pdf else " (no PDF asked for: `bench report RUN_DIR --pdf` writes it)"))
    return written


def print_suite_times(console: Console, run_dir: Path) -> None:
    """Per-suite wall time and test count of the run, from the journal."""
    with Journal(run_dir / Journal.FILENAME, create=False) as journal:
        times = suite_times(journal)
    if not times:
        return
    table = Table(title="Time per suite")
    table.add_column("Suite")
    table.add_column("Tests", justify="right")
    table.add_column("Time", justify="right")
    for item in times:
        table.add_row(item.suite, str(item.tests), f"{item.seconds:.1f} s")
    table.add_row("all suites", str(sum(item.tests for item in times)), f"{sum(item.seconds for item in times):.1f} s")
    console.print(table)


def sign_evidence(console: Console, run_dir: Path, key_dir: Path | None) -> bool:
    """Sign the run directory's manifest with the laboratory key in ``key_dir``; False when it could not be."""
    return sign_with(console, run_dir, laboratory_key(key_dir))


def sign_with(console: Console, run_dir: Path, key: LabKey | KeyFileError) -> bool:
    """Sign the run directory's manifest with the loaded laboratory key; False when it could not be."""
    if isinstance(key, KeyFileError):
        console.print(f"[bold red]NOT SIGNED:[/] {key}. The evidence is kept, but `bench verify` will report the "
                      "run unsigned; create the key, then sign with `bench sign RUN_DIR`.")
        return False
    try:
        signed = sign_run(run_dir, key)
    except ManifestError as error:
        console.print(f"[bold red]NOT SIGNED:[/] {error}")
        return False
    for line in signed_lines(signed):
        console.print(line, highlight=False)
    return True


def signed_lines(signed: SignedManifest) -> list[str]:
    """What a signed run prints, within 80 columns: the manifest, what it covers, and the key's fingerprint
    on lines of its own (:func:`bench.cli_layout.fingerprint_lines`: 86 characters do not fit on one)."""
    return [f"Signed: {signed.manifest_path}",
            f"{' ' * INDENT}{signed.files} files, journal of {signed.journal_rows} rows, laboratory key",
            *fingerprint_lines(signed.fingerprint, INDENT)]
