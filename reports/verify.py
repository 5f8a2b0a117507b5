"""``bench verify RUN_DIR``: prove a run directory is exactly what the laboratory signed.

Checks, each reported by name:

* the manifest is present, well formed, and its Ed25519 signature is valid for the
  public key it names; when a trusted public key is given (``--public-key``, or the
  laboratory's own key on this machine), the manifest must name that key;
* every file the manifest lists exists with its size and SHA-256 (``altered``,
  ``missing``), and no other file has been put in the directory (``added``);
* the journal's hash chain is intact and ends on the head and row count the manifest
  recorded: a journal cut short after its last row (``journal-truncated``) or grown
  since signing (``journal-extended``) is caught, not only an edited row;
* every attachment the journal records exists with the hash the journal recorded;
* the journal was closed: no ``journal.sqlite-wal`` or ``-shm`` is left beside it (``journal-open``);
* a manifest without its signature (a signing killed between its renames) is unsigned, not intact.

The journal is read from a private copy; verifying never changes the run directory.
"""

from __future__ import annotations

import base64
import binascii
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from bench.digest import sha256_file
from bench.journal import Journal
from reports.manifest import (
    MANIFEST_FILE,
    MANIFEST_FORMAT,
    SIGNATURE_FILE,
    SQLITE_SIDE_FILES,
    chain_of_copy,
    evidence_files,
)
from reports.signing import KeyFileError, fingerprint, parse_public_key, signature_valid


@dataclass(frozen=True)
class Problem:
    """One thing that does not match what was signed."""

    kind: str
    path: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.path}: {self.detail}"


@dataclass
class Verification:
    """The outcome of verifying one run directory."""

    run_dir: Path
    problems: list[Problem] = field(default_factory=list)
    files_checked: int = 0
    journal_rows: int | None = None
    fingerprint: str | None = None
    trusted_key_checked: bool = False

    @property
    def intact(self) -> bool:
        return not self.problems

    def add(self, kind: str, path: str, detail: str) -> None:
        self.problems.append(Problem(kind, path, detail))


def verify_run(run_dir: Path, trusted_key: Ed25519PublicKey | None = None) -> Verification:
    """Check ``run_dir`` against its signed manifest; see the module docstring for what is checked."""
    run_dir = Path(run_dir)
    result = Verification(run_dir)
    manifest = _checked_manifest(run_dir, trusted_key, result)
    if manifest is None:
        return result
    _check_files(run_dir, manifest, result)
    _check_journal(run_dir, manifest, result)
    _check_approvals(run_dir, manifest, result)
    _check_journal_closed(run_dir, result)
    return result


def _check_approvals(run_dir: Path, manifest: dict[str, Any], result: Verification) -> None:
    """Each sign-off journalled by ``bench approve`` carries the laboratory key's signature of the approval
    (:mod:`reports.signoff`): checked with the key that signed the manifest."""
    from reports.signoff import APPROVAL_EVENT, Approval

    journal_path = run_dir / Journal.FILENAME
    if not journal_path.is_file():
        return
    connection = sqlite3.connect(f"file:{journal_path}?mode=ro&immutable=1", uri=True)
    try:
        run = connection.execute("SELECT run_id FROM runs ORDER BY seq LIMIT 1").fetchone()
        rows = connection.execute("SELECT detail FROM events WHERE kind = ? ORDER BY seq", (APPROVAL_EVENT,)).fetchall()
    except sqlite3.DatabaseError:
        return  # an unreadable journal is reported by the chain check
    finally:
        connection.close()
    public = parse_public_key(str(manifest["public_key"]), f"{MANIFEST_FILE} field public_key")
    for (detail,) in rows:
        fields = json.loads(detail) if isinstance(detail, str) else {}
        approval = Approval(**{key: str(fields.get(key, "")) for key in
                               ("role", "name", "at", "chain_head", "key_fingerprint", "signature")})
        if run is None or not approval.valid(run[0], public):
            result.add("approval", Journal.FILENAME, f"the {approval.role} sign-off of {approval.name} "
                                                     f"({approval.at}) is not signed by the laboratory key")


def _check_journal_closed(run_dir: Path, result: Verification) -> None:
    """A signed run's journal was checkpointed and closed before signing: a write-ahead log or shared-memory
    file beside it means a writer still has it open, or one was killed after signing."""
    for name in SQLITE_SIDE_FILES:
        if (run_dir / name).exists():
            result.add("journal-open", name, "beside a finished run: the journal was not closed after signing "
                                             "(a writer has it open, or was killed)")


def _checked_manifest(run_dir: Path, trusted_key: Ed25519PublicKey | None, result: Verification) -> dict[str, Any] | None:
    manifest_path, signature_path = run_dir / MANIFEST_FILE, run_dir / SIGNATURE_FILE
    if not manifest_path.is_file():
        result.add("missing", MANIFEST_FILE, "the run has no manifest: it was never signed, or the manifest was removed")
        return None
    data = manifest_path.read_bytes()
    try:
        manifest = json.loads(data)
        if not isinstance(manifest, dict) or manifest.get("format") != MANIFEST_FORMAT:
            raise ValueError(f"not a {MANIFEST_FORMAT} manifest")
        public = parse_public_key(str(manifest["public_key"]), f"{MANIFEST_FILE} field public_key")
        listed = manifest["files"]
        journal = manifest["journal"]
        if not isinstance(listed, list) or not isinstance(journal, dict):
            raise TypeError("fields files and journal must be a list and an object")
    except (ValueError, KeyError, TypeError, KeyFileError) as error:
        result.add("manifest", MANIFEST_FILE, f"unreadable: {error}")
        return None
    result.fingerprint = fingerprint(public)
    try:
        signature = base64.b64decode(signature_path.read_text(encoding="ascii").strip(), validate=True)
    except FileNotFoundError:
        result.add("missing", SIGNATURE_FILE, "the manifest is not signed")
        return manifest
    except (binascii.Error, UnicodeDecodeError, ValueError) as error:
        result.add("signature", SIGNATURE_FILE, f"not a base64 signature ({error})")
        return manifest
    if not signature_valid(public, data, signature):
        result.add("signature", MANIFEST_FILE, "the signature does not match the manifest: the manifest was altered")
    if trusted_key is not None:
        result.trusted_key_checked = True
        if fingerprint(trusted_key) != result.fingerprint:
            result.add("key", MANIFEST_FILE, f"signed with key {result.fingerprint}, not the trusted key "
                                             f"{fingerprint(trusted_key)}")
    return manifest


def _check_files(run_dir: Path, manifest: dict[str, Any], result: Verification) -> None:
    listed: dict[str, dict[str, Any]] = {}
    for entry in manifest["files"]:
        try:
            listed[str(entry["path"])] = entry
        except (KeyError, TypeError):
            result.add("manifest", MANIFEST_FILE, f"file entry without a path: {entry!r}")
    present = {relative.as_posix() for relative in evidence_files(run_dir)}
    for name, entry in listed.items():
        path = run_dir / name
        if name not in present or not path.is_file():
            result.add("missing", name, "listed in the manifest, not in the run directory")
            continue
        result.files_checked += 1
        size = path.stat().st_size
        if size != entry.get("size") or sha256_file(path) != entry.get("sha256"):
            result.add("altered", name, f"SHA-256 or size differs from the manifest ({size} bytes now, "
                                        f"{entry.get('size')} signed)")
    for name in sorted(present - listed.keys()):
        result.add("added", name, "in the run directory but not in the manifest")


def _check_journal(run_dir: Path, manifest: dict[str, Any], result: Verification) -> None:
    journal_path = run_dir / Journal.FILENAME
    if not journal_path.is_file():
        return  # already reported as missing by the file check
    signed_rows, signed_head = manifest["journal"].get("rows"), manifest["journal"].get("chain_head")
    try:
        chain = chain_of_copy(journal_path)
    except (sqlite3.DatabaseError, OSError, ValueError) as error:
        result.add("journal-chain", Journal.FILENAME, f"cannot be read as a journal ({error})")
        return
    result.journal_rows = chain.rows
    for problem in chain.problems:
        result.add("journal-chain", Journal.FILENAME, problem)
    if chain.problems:
        return
    if isinstance(signed_rows, int) and chain.rows < signed_rows:
        result.add("journal-truncated", Journal.FILENAME, f"{chain.rows} rows, {signed_rows} signed: "
                                                          f"the last {signed_rows - chain.rows} were removed")
    elif isinstance(signed_rows, int) and chain.rows > signed_rows:
        wal = SQLITE_SIDE_FILES[0]
        where = f" (the extra rows are in {wal})" if (run_dir / wal).exists() else ""
        result.add("journal-extended", Journal.FILENAME, f"{chain.rows} rows, {signed_rows} signed{where}")
    elif chain.head != signed_head:
        result.add("journal-chain", Journal.FILENAME, f"chain head {chain.head[:16]}... is not the signed "
                                                      f"{str(signed_head)[:16]}...")
    _check_attachments(run_dir, journal_path, result)


def _check_attachments(run_dir: Path, journal_path: Path, result: Verification) -> None:
    connection = sqlite3.connect(f"file:{journal_path}?mode=ro&immutable=1", uri=True)
    try:
        rows = connection.execute("SELECT path, sha256 FROM attachments ORDER BY seq").fetchall()
    finally:
        connection.close()
    for relative, digest in rows:
        path = run_dir / relative
        if not path.is_file():
            result.add("missing", str(relative), "an attachment the journal records is not in the run directory")
        elif sha256_file(path) != digest:
            result.add("altered", str(relative), "the attachment's SHA-256 is not the one the journal recorded")
