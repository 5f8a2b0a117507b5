"""``bench keys`` and ``bench verify``: the laboratory's signing key and the check of a signed run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

keys_app = typer.Typer(help="The laboratory's signing key (Ed25519).", no_args_is_help=True)
console = Console(soft_wrap=True)
error_console = Console(stderr=True, soft_wrap=True)

KeyDirOption = Annotated[Path | None, typer.Option(
    help="Key directory (default: $BENCH_KEY_DIR or ~/.bench/keys).")]


@keys_app.command("init")
def keys_init(
    key_dir: KeyDirOption = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing key.")] = False,
) -> None:
    """Generate the laboratory's key pair; print the public key and its fingerprint."""
    from reports.signing import PUBLIC_KEY_FILE, init_key, public_key_text

    try:
        key = init_key(key_dir, force=force)
    except FileExistsError as error:
        error_console.print(f"[red]error:[/] {error}")
        raise typer.Exit(2) from error
    console.print(f"Laboratory key written to {key.directory}")
    console.print(f"Public key ({key.directory / PUBLIC_KEY_FILE}): {public_key_text(key.public)}")
    console.print(f"Fingerprint: {key.fingerprint}")


@keys_app.command("show")
def keys_show(key_dir: KeyDirOption = None) -> None:
    """Print the laboratory's public key and fingerprint."""
    from reports.signing import KeyFileError, load_key, public_key_text

    try:
        key = load_key(key_dir)
    except KeyFileError as error:
        error_console.print(f"[red]error:[/] {error}")
        raise typer.Exit(2) from error
    console.print(public_key_text(key.public))
    console.print(f"Fingerprint: {key.fingerprint}")


def sign(
    run_dir: Annotated[Path, typer.Argument(help="Run directory to sign.")],
    key_dir: KeyDirOption = None,
) -> None:
    """Write the run's manifest and sign it with the laboratory key (``bench certify`` does this itself).

    Under the run's lock (a second writer exits 2 at once). A run that is already signed is verified first
    against the laboratory key, and refused (exit 2) when it is not intact: an altered run is never re-signed."""
    from bench.certify import intact_before_writing, laboratory_key, sign_with
    from bench.journal import Journal
    from bench.rundir import RunLock, RunLocked

    if not (run_dir / Journal.FILENAME).is_file():
        error_console.print(f"[red]error:[/] {run_dir}: no {Journal.FILENAME}")
        raise typer.Exit(2)
    try:
        with RunLock(run_dir):
            key = laboratory_key(key_dir)
            if not intact_before_writing(error_console, run_dir, key, "re-signed"):
                raise typer.Exit(2)
            signed = sign_with(console, run_dir, key)
    except RunLocked as error:
        error_console.print(f"[red]error:[/] {error}")
        raise typer.Exit(2) from error
    raise typer.Exit(0 if signed else 2)


def verify(
    run_dir: Annotated[Path, typer.Argument(help="Run directory to verify.")],
    public_key: Annotated[Path | None, typer.Option(
        help="Trusted public key file (default: this machine's laboratory key, if any).")] = None,
    key_dir: KeyDirOption = None,
) -> None:
    """Check every hash, the journal chain and the signature of a run; exit 0 intact, 1 altered, 2 error (and
    on a directory that is not a run: no journal in it)."""
    from bench.rundir import is_run_dir
    from reports.signing import KeyFileError, load_key, load_public_key
    from reports.verify import verify_run

    if not run_dir.is_dir():
        error_console.print(f"[red]error:[/] {run_dir}: not a directory")
        raise typer.Exit(2)
    if not is_run_dir(run_dir):
        error_console.print(f"[red]error:[/] {run_dir}: not a run directory (no journal.sqlite in it)")
        raise typer.Exit(2)
    try:
        trusted = load_public_key(public_key) if public_key is not None else None
        if trusted is None:
            try:
                trusted = load_key(key_dir).public
            except KeyFileError:
                trusted = None
    except KeyFileError as error:
        error_console.print(f"[red]error:[/] {error}")
        raise typer.Exit(2) from error
    result = verify_run(run_dir, trusted)
    for problem in result.problems:
        console.print(f"[red]{problem.kind.upper()}[/] {problem.path}: {problem.detail}")
    key_note = "checked against the trusted key" if result.trusted_key_checked else (
        "NOT checked against a trusted key: compare it with the one printed in the certificate")
    console.print(f"{result.files_checked} files checked, journal rows {result.journal_rows}, "
                  f"signing key {result.fingerprint} ({key_note})")
    if result.intact:
        console.print(f"[green]INTACT[/] {run_dir}")
        raise typer.Exit(0)
    console.print(f"[red]NOT INTACT[/] {run_dir}: {len(result.problems)} problem(s)")
    raise typer.Exit(1)
