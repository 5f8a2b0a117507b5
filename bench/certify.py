"""``bench certify``: run the certification suites against a profile's rig and judge every clause.

Runs the suites through ``pytest.main`` with the bench plugin and allure
results, shows progress, then derives clause verdicts from the journal,
prints the clause summary, writes the certificate (HTML and, where WeasyPrint
is installed, PDF; Portuguese ``report.html`` and English ``report.en.html``)
naming the laboratory key about to sign, and signs the run directory.
Exit status: 0 when every tested clause passes, 1 when any fails, 2 on an error.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table

from bench.catalogue import load_catalogue
from bench.journal import Journal, JournalError
from bench.paths import REPOSITORY_ROOT, suite_files
from bench.profiles import ProfileError, load_profile
from bench.suite_times import suite_times
from fixtures.progress import RunProgress
from fixtures.session import default_run_dir
from reports.certificate import write_certificates
from reports.clause_verdicts import ERROR, FAIL, PASS, ClauseVerdict, exit_code, verdicts_of_run
from reports.manifest import ManifestError, sign_run
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


def _pytest_arguments(files: list[Path], profile: str, run_dir: Path, operator: str | None = None) -> list[str]:
    return [
        *(["--operator", operator] if operator else []),
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
) -> CertifyOutcome:
    """Run (or resume) a certification and judge it; ``operator`` is journalled and named on the report. With
    ``pdf`` false the certificate is written as HTML only (``bench report DIR --pdf`` writes the PDF later)."""
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / Journal.FILENAME).is_file():
            console.print(f"[red]error:[/] {run_dir}: no journal to resume ({Journal.FILENAME} is missing)")
            return CertifyOutcome(EXIT_ERROR, None, None, [])
    else:
        try:
            loaded, _, _ = load_profile(profile)
        except ProfileError as error:
            console.print(f"[red]profile error:[/]\n{error}")
            return CertifyOutcome(EXIT_ERROR, None, None, [])
        run_dir = Path(out) if out is not None else default_run_dir(loaded.name)
        if (run_dir / Journal.FILENAME).exists():
            console.print(f"[red]error:[/] {run_dir} already holds a run; use --resume {run_dir} or another --out")
            return CertifyOutcome(EXIT_ERROR, None, None, [])
    try:
        files = suite_files(suites)
    except FileNotFoundError as error:
        console.print(f"[red]error:[/] {error}")
        return CertifyOutcome(EXIT_ERROR, None, None, [])
    run_dir.mkdir(parents=True, exist_ok=True)
    console.print(f"{'Resuming' if resume else 'Certifying'} into [bold]{run_dir}[/]")

    plugins: list[object] = []
    progress: RunProgress | None = None
    if show_progress:
        progress = RunProgress(os.fdopen(os.dup(2), "w", buffering=1))
        plugins.append(progress)
        progress.start()
    try:
        pytest_code = int(pytest.main(_pytest_arguments(files, profile, run_dir, operator), plugins=plugins))
    finally:
        if progress is not None:
            progress.stop()

    if not (run_dir / Journal.FILENAME).is_file():
        console.print(f"[red]error:[/] the suites did not run (pytest exit {pytest_code}); nothing was recorded")
        return CertifyOutcome(EXIT_ERROR, run_dir, None, [], pytest_code)
    catalogue = load_catalogue()
    verdicts = verdicts_of_run(run_dir, catalogue)
    print_summary(console, verdicts)
    print_suite_times(console, run_dir)
    key = laboratory_key(key_dir)  # loaded (and a passphrase asked for) once: it names and signs the run
    report = write_reports(console, run_dir, None if isinstance(key, KeyFileError) else key.fingerprint, pdf=pdf)
    code = exit_code(verdicts)
    if pytest_code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.INTERRUPTED):
        code = EXIT_ERROR
    if not any(verdict.verdict in (PASS, FAIL, ERROR) for verdict in verdicts):
        console.print("[red]error:[/] no clause was tested")
        code = EXIT_ERROR
    console.print(f"Evidence: {run_dir} (journal, attachments, allure-results)")
    sign_with(console, run_dir, key)  # an unsigned run keeps its verdict; verify reports it unsigned
    return CertifyOutcome(code, run_dir, report, verdicts, pytest_code)


def laboratory_key(key_dir: Path | None) -> LabKey | KeyFileError:
    """The laboratory's signing key, or why it cannot be loaded (the run is then left unsigned, not lost)."""
    try:
        return load_key(key_dir)
    except KeyFileError as error:
        return error


def write_reports(console: Console, run_dir: Path, fingerprint: str | None, *, pdf: bool = True) -> Path | None:
    """The certificate in every language (HTML, and with ``pdf`` the PDF when WeasyPrint is installed), naming
    the laboratory key (``fingerprint``) that is about to sign the run; returns the Portuguese HTML (None when
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
    return written.html


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


def print_summary(console: Console, verdicts: list[ClauseVerdict]) -> None:
    """The clause summary table: clause, verdict, key measurement."""
    table = Table(title="Clause verdicts", show_lines=False)
    table.add_column("Clause")
    table.add_column("Verdict")
    table.add_column("Key measurement")
    styles = {PASS: "green", FAIL: "bold red", ERROR: "yellow"}
    for verdict in verdicts:
        if verdict.verdict not in (PASS, FAIL, ERROR) and not verdict.tests:
            continue  # uncovered clauses are listed in the report, not here
        key = verdict.key_measurement
        if key is None:
            text = verdict.reason
        else:
            unit = f" {key['unit']}" if key["unit"] else ""
            p_text = f", p = {key['p_value']:.3g}" if key["p_value"] is not None else ""
            text = f"{key['name']} = {key['value']}{unit}{p_text}"
        style = styles.get(verdict.verdict, "dim")
        table.add_row(verdict.clause_id, f"[{style}]{verdict.verdict}[/]", text)
    console.print(table)
    uncovered = sum(1 for verdict in verdicts if not verdict.tests)
    if uncovered:
        console.print(f"{uncovered} bench clause(s) of this equipment are not covered by any suite yet (see the report).")


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
    console.print(f"Signed: {signed.manifest_path} ({signed.files} files, journal of {signed.journal_rows} rows, "
                  f"key {signed.fingerprint})")
    return True
