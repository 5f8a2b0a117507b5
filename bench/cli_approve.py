"""``bench approve``: a reviewer's or an approver's signed sign-off of a run's certificate."""

from __future__ import annotations

import base64
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console

if TYPE_CHECKING:
    from reports.signoff import SignOff

console = Console(soft_wrap=True)
error_console = Console(stderr=True, soft_wrap=True)


class Role(StrEnum):
    """Who signs off: the reviewer checks the run, then the approver issues the certificate."""

    reviewer = "reviewer"
    approver = "approver"


def approve(
    run_dir: Annotated[Path, typer.Argument(help="Run directory to approve.")],
    by: Annotated[str, typer.Option("--by", help="Name of the person signing off.")],
    role: Annotated[Role, typer.Option("--role", help="reviewer, then approver.")],
    key_dir: Annotated[Path | None, typer.Option(
        help="Laboratory key directory (default: $BENCH_KEY_DIR or ~/.bench/keys).")] = None,
) -> None:
    """Sign off a run's certificate as its reviewer or approver; exit 2 when it cannot be done.

    Under the run's lock: a signed run is verified first (an altered run is refused); the approval (role, name, time, the journal's chain head) is signed with the laboratory key and journalled; the run gets its certificate number if it has none; the certificates are written again and the run is re-signed. An approver signs after a reviewer; each role signs once.
    """
    from bench.certificate_numbers import SequenceError, assign_certificate_number
    from bench.certify import intact_before_writing, sign_with
    from bench.journal import Journal, JournalError, utc_now
    from bench.rundir import RunLock, RunLocked
    from reports.certificate import write_certificates
    from reports.signing import KeyFileError, load_key
    from reports.signoff import APPROVAL_EVENT, approval_payload, read_signoff

    name = by.strip()
    if not name:
        error_console.print("[red]error:[/] --by: the name of the person signing off is empty")
        raise typer.Exit(2)
    if not (run_dir / Journal.FILENAME).is_file():
        error_console.print(f"[red]error:[/] {run_dir}: no {Journal.FILENAME}")
        raise typer.Exit(2)
    try:
        key = load_key(key_dir)
    except KeyFileError as error:
        error_console.print(f"[red]error:[/] an approval is signed with the laboratory key: {error}")
        raise typer.Exit(2) from error
    try:
        with RunLock(run_dir):
            with Journal(run_dir / Journal.FILENAME, create=False) as journal:
                run_id = journal.rows("runs")[0]["run_id"]
                refusal = _refusal(read_signoff(journal, run_id), role.value)
            if refusal:
                error_console.print(f"[red]refused:[/] {run_dir}: {refusal}")
                raise typer.Exit(2)
            if not intact_before_writing(error_console, run_dir, key, "approved"):
                raise typer.Exit(2)
            with Journal(run_dir / Journal.FILENAME, create=False) as journal:
                at, head = utc_now(), journal.head
                signature = key.sign(approval_payload(run_id, role.value, name, at, head))
                journal.append("events", run_id=run_id, at=at, kind=APPROVAL_EVENT, detail={
                    "role": role.value, "name": name, "at": at, "chain_head": head,
                    "key_fingerprint": key.fingerprint, "signature": base64.b64encode(signature).decode("ascii")})
            number = assign_certificate_number(run_dir, key.directory)
            written = write_certificates(run_dir, key_fingerprint=key.fingerprint,
                                         pdf=(run_dir / "report.pdf").is_file(), allure=False)
            console.print(f"Certificate {number}: {role.value} {name} ({at}); "
                          f"written again: {', '.join(path.name for path in written.files)}")
            if not sign_with(console, run_dir, key):
                raise typer.Exit(2)
    except RunLocked as error:
        error_console.print(f"[red]error:[/] {error}")
        raise typer.Exit(2) from error
    except (JournalError, SequenceError) as error:
        error_console.print(f"[red]error:[/] {run_dir}: {error}")
        raise typer.Exit(2) from error


def _refusal(signoff: SignOff, role: str) -> str:
    """Why ``role`` may not sign now ("" when it may): each role once, the approver after a reviewer."""
    done = signoff.by_role(role)
    if done is not None:
        return f"the {role} already signed off ({done.name}, {done.at})"
    if role == "approver" and signoff.by_role("reviewer") is None:
        return "an approver signs after a reviewer: `bench approve RUN --by NAME --role reviewer` first"
    return ""
