"""The signed manifest of a run directory: every evidence file with its SHA-256, the journal's chain head.

``manifest.json`` lists every file of the run directory (journal, attachments,
wire logs, allure results, the report) with its size and SHA-256, and the
journal's hash-chain head and row count, so that a journal cut short after its
last row is detected as surely as an edited one. ``manifest.sig`` holds the
laboratory's Ed25519 signature of the exact bytes of ``manifest.json``
(base64, one line). :mod:`reports.verify` checks all of it.

The journal is checkpointed before it is hashed, so every committed row is in
``journal.sqlite`` itself; the chain is then read from a private copy, never by
opening the signed file again.

The manifest and its signature change together: both are written to synced temporary files, the old
signature is removed, then the manifest and last the signature are renamed into place. A kill at any
instant leaves the old pair, the new pair, or a manifest without a signature, which :mod:`reports.verify`
reports as unsigned (not intact); never a signature over a manifest that does not describe the run.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.digest import sha256_file
from bench.journal import ChainCheck, Journal, utc_now
from bench.rundir import LOCK_FILE, fsync_directory, stale_temporaries, temporary_path
from reports.signing import LabKey, public_key_text

MANIFEST_FILE = "manifest.json"
SIGNATURE_FILE = "manifest.sig"
MANIFEST_FORMAT = "srij-bench-manifest/1"
SQLITE_SIDE_FILES = (f"{Journal.FILENAME}-wal", f"{Journal.FILENAME}-shm")
"""SQLite's write-ahead log and shared-memory index: transient, not evidence (see :mod:`reports.verify`)."""


class ManifestError(ValueError):
    """The run directory cannot be signed as it stands (the message names the file)."""


def evidence_files(run_dir: Path) -> Iterator[Path]:
    """Every file a manifest must cover, relative to ``run_dir``, sorted; not the manifest itself."""
    skipped = {MANIFEST_FILE, SIGNATURE_FILE, LOCK_FILE, *SQLITE_SIDE_FILES}
    for path in sorted(run_dir.rglob("*"), key=lambda item: item.relative_to(run_dir).as_posix()):
        relative = path.relative_to(run_dir)
        if path.is_dir() and not path.is_symlink():
            continue
        if relative.as_posix() in skipped:
            continue
        yield relative


def checkpoint_journal(journal_path: Path) -> None:
    """Move every committed row from the write-ahead log into the journal file itself."""
    connection = sqlite3.connect(journal_path)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


def chain_of_copy(journal_path: Path) -> ChainCheck:
    """The hash chain of a private copy of the journal (and its log, if any), leaving the original untouched."""
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as scratch:
        copy = Path(scratch) / Journal.FILENAME
        shutil.copyfile(journal_path, copy)
        wal = journal_path.with_name(journal_path.name + "-wal")
        if wal.exists():
            shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        journal = Journal(copy, create=False)
        try:
            return journal.verify_chain()
        finally:
            journal.close()


@dataclass(frozen=True)
class SignedManifest:
    """What :func:`sign_run` wrote."""

    manifest_path: Path
    signature_path: Path
    files: int
    journal_rows: int
    chain_head: str
    fingerprint: str


def build_manifest(run_dir: Path, key: LabKey) -> dict[str, Any]:
    """The manifest of ``run_dir`` as it is now (the journal checkpointed first)."""
    journal_path = run_dir / Journal.FILENAME
    if not journal_path.is_file():
        raise ManifestError(f"{journal_path}: no journal; there is nothing to sign")
    half_written = stale_temporaries(run_dir)
    if half_written:
        raise ManifestError(f"{half_written[0]}: a file left half-written by a killed writer; refusing to sign "
                            "(`bench sign` removes it under the run's lock)")
    checkpoint_journal(journal_path)
    chain = chain_of_copy(journal_path)
    if not chain.intact:
        raise ManifestError(f"{journal_path}: the hash chain is broken, refusing to sign: {chain.problems[0]}")
    for relative, digest in _journalled_attachments(journal_path):
        path = run_dir / relative
        if not path.is_file() or sha256_file(path) != digest:
            raise ManifestError(f"{path}: {'missing' if not path.is_file() else 'altered'}: the journal recorded this "
                                "attachment with another SHA-256; refusing to sign")
    run_rows = _run_rows(journal_path)
    files: list[dict[str, Any]] = []
    for relative in evidence_files(run_dir):
        path = run_dir / relative
        if path.is_symlink() or not path.is_file():
            raise ManifestError(f"{path}: not a regular file; a run directory holds only regular files")
        files.append({"path": relative.as_posix(), "size": path.stat().st_size, "sha256": sha256_file(path)})
    return {
        "format": MANIFEST_FORMAT,
        "signed_at": utc_now(),
        "run": run_rows,
        "journal": {"path": Journal.FILENAME, "rows": chain.rows, "chain_head": chain.head},
        "files": files,
        "public_key": public_key_text(key.public),
        "key_fingerprint": key.fingerprint,
    }


def _journalled_attachments(journal_path: Path) -> list[tuple[str, str]]:
    """(path, SHA-256) of every attachment the journal records."""
    connection = sqlite3.connect(f"file:{journal_path}?mode=ro&immutable=1", uri=True)  # checkpointed: no log
    try:
        return [(str(path), str(digest)) for path, digest in
                connection.execute("SELECT path, sha256 FROM attachments ORDER BY seq")]
    finally:
        connection.close()


def unsign(run_dir: Path) -> None:
    """Remove a run's signature before writing into it (report, resume): a writer killed half-way leaves an
    unsigned run, which ``bench sign`` signs again, never a signature over files it did not see."""
    signature = Path(run_dir) / SIGNATURE_FILE
    if signature.exists():
        signature.unlink()
        fsync_directory(Path(run_dir))


def _run_rows(journal_path: Path) -> list[dict[str, Any]]:
    """Run id, profile and software version of each run recorded in the journal (a resumed run has one)."""
    connection = sqlite3.connect(f"file:{journal_path}?mode=ro&immutable=1", uri=True)  # checkpointed: no log
    try:
        rows = connection.execute("SELECT run_id, profile_name, software_version, created_at FROM runs ORDER BY seq")
        return [{"run_id": run_id, "profile": profile, "software_version": version, "created_at": created}
                for run_id, profile, version, created in rows]
    finally:
        connection.close()


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """The exact bytes written and signed: sorted keys, two-space indent, UTF-8, final newline."""
    return (json.dumps(manifest, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode("utf-8")


def sign_run(run_dir: Path, key: LabKey) -> SignedManifest:
    """Write ``manifest.json`` and ``manifest.sig`` for ``run_dir`` (replacing earlier ones)."""
    run_dir = Path(run_dir)
    manifest = build_manifest(run_dir, key)
    data = manifest_bytes(manifest)
    manifest_path = run_dir / MANIFEST_FILE
    signature_path = run_dir / SIGNATURE_FILE
    signature = (base64.b64encode(key.sign(data)).decode("ascii") + "\n").encode("ascii")
    staged_manifest, staged_signature = temporary_path(manifest_path), temporary_path(signature_path)
    for staged, content in ((staged_manifest, data), (staged_signature, signature)):
        with staged.open("wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
    signature_path.unlink(missing_ok=True)  # from here until the last rename the run reads as unsigned
    fsync_directory(run_dir)
    os.replace(staged_manifest, manifest_path)
    fsync_directory(run_dir)
    os.replace(staged_signature, signature_path)
    fsync_directory(run_dir)
    return SignedManifest(manifest_path, signature_path, len(manifest["files"]), manifest["journal"]["rows"],
                          manifest["journal"]["chain_head"], key.fingerprint)
