"""A run directory's lifecycle: one writer at a time, and files that are either whole or absent.

* :class:`RunLock`: an exclusive ``fcntl.flock`` on ``RUN_DIR/bench.lock``, taken by every command that writes
  into a run directory (``bench certify`` and its ``--resume``, ``bench report``, ``bench sign``). A second
  writer does not wait: it gets :class:`RunLocked`, naming the PID of the holder (written in the lock file).
  The kernel drops the lock when its holder dies, so a killed run never leaves a stale lock behind.
* :func:`atomic_write_bytes`: every file the bench writes into a run directory goes through a temporary file
  in the same directory, is flushed to disk (``fsync``) and renamed over its final name, and the directory is
  synced, so a kill leaves the old file or the new one, never a truncated one. A temporary left by a killed
  writer is named ``.NAME.tmp-PID``; the next writer under the lock removes it (:func:`remove_stale_temporaries`),
  and ``bench verify`` reports one it finds as a file that is not in the manifest.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
from pathlib import Path
from types import TracebackType
from typing import Self

LOCK_FILE = "bench.lock"
"""The lock file of a run directory (not evidence: the manifest does not list it)."""

_TEMPORARY = re.compile(r"^\..+\.tmp-\d+(-wal|-shm|-journal)?$")


class RunLocked(RuntimeError):
    """Another process writes into the run directory (the message names its PID)."""


class RunLock:
    """Exclusive lock on a run directory, held from :meth:`acquire` (or ``with``) until :meth:`release`."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> Self:
        """Take the lock at once, or raise :class:`RunLocked` naming the holder's PID; creates the directory."""
        if self._fd is not None:
            return self
        self.run_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            holder = _read_holder(fd)
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise RunLocked(f"{self.run_dir} is being written by another bench process (PID {holder}); "
                                "one writer at a time: wait for it to end") from None
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        os.fsync(fd)
        self._fd = fd
        remove_stale_temporaries(self.run_dir)
        return self

    def release(self) -> None:
        """Drop the lock (the lock file stays: removing it would let two writers lock two different files)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> Self:
        return self.acquire()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


def _read_holder(fd: int) -> str:
    """The PID the lock's holder wrote into the lock file ("unknown" when it has not written it yet)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip()
    except OSError:
        text = ""
    return text if text.isdigit() else "unknown"


def fsync_directory(directory: Path) -> None:
    """Make a rename or a removal in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def temporary_path(path: Path) -> Path:
    """Where :func:`atomic_write_bytes` stages ``path``: ``.NAME.tmp-PID`` beside it."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


def atomic_write_bytes(path: Path, data: bytes, *, sync_directory: bool = True) -> None:
    """Replace ``path`` with ``data`` all at once: temporary file, ``fsync``, rename, directory ``fsync``."""
    path = Path(path)
    temporary = temporary_path(path)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        temporary.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(temporary, path)
    if sync_directory:
        fsync_directory(path.parent)


def atomic_write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    """:func:`atomic_write_bytes` of ``text``."""
    atomic_write_bytes(path, text.encode(encoding))


def atomic_copy(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` through a synced temporary file (``target`` is whole or absent)."""
    atomic_write_bytes(target, Path(source).read_bytes())


def stale_temporaries(run_dir: Path) -> list[Path]:
    """Temporary files left in ``run_dir`` by a writer that was killed mid-write."""
    return sorted(path for path in Path(run_dir).rglob(".*.tmp-*") if path.is_file() and _TEMPORARY.match(path.name))


def remove_stale_temporaries(run_dir: Path) -> list[Path]:
    """Remove :func:`stale_temporaries` (call only under the run's lock); returns what was removed."""
    removed = stale_temporaries(run_dir)
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def is_run_dir(run_dir: Path) -> bool:
    """Whether ``run_dir`` holds a run's journal."""
    from bench.journal import Journal

    return (Path(run_dir) / Journal.FILENAME).is_file()
