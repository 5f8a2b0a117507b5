"""Certificate numbers from the laboratory's own sequence, and their assignment to a run.

The sequence is a counter file in the laboratory key directory (``certificate-sequence``, beside the key
that signs the certificates), read and advanced under an exclusive ``fcntl`` lock, so two runs finishing at
the same moment never get the same number; a number once taken is never given again. A number reads
``<year>/<n>`` (``2026/0042``); it is distinct from the run id, and journalled with the run (an event
``certificate-number``), so re-rendering, resuming or approving the run keeps it.
"""

from __future__ import annotations

import fcntl
import os
from datetime import UTC, datetime
from pathlib import Path

from bench.journal import Journal, utc_now
from reports.signoff import NUMBER_EVENT, read_signoff

SEQUENCE_FILE = "certificate-sequence"


class SequenceError(ValueError):
    """The sequence file holds something other than the last number taken (the message names the file)."""


def next_certificate_number(key_dir: Path, *, year: int | None = None) -> str:
    """Take the next number of the laboratory's sequence in ``key_dir`` (created at 1)."""
    path = Path(key_dir) / SEQUENCE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits for another run taking its number
        text = os.read(fd, 64).decode("ascii", errors="replace").strip()
        if text and not text.isdigit():
            raise SequenceError(f"{path}: expected the last certificate number taken (digits), found {text[:20]!r}")
        number = int(text or 0) + 1
        os.lseek(fd, 0, os.SEEK_SET)
        os.ftruncate(fd, 0)
        os.write(fd, f"{number}\n".encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)  # closing drops the lock
    return f"{year or datetime.now(UTC).year}/{number:04d}"


def assign_certificate_number(run_dir: Path, key_dir: Path) -> str:
    """The run's certificate number: the journalled one, else the next of the sequence, journalled now."""
    with Journal(Path(run_dir) / Journal.FILENAME, create=False) as journal:
        run_id = journal.rows("runs")[0]["run_id"]
        existing = read_signoff(journal, run_id).number
        if existing:
            return existing
        number = next_certificate_number(key_dir)
        journal.append("events", run_id=run_id, at=utc_now(), kind=NUMBER_EVENT, detail={"number": number})
        return number
