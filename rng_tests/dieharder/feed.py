"""Sample sources and the thread that feeds a sample into dieharder's stdin.

The feeder writes into a non-blocking pipe and counts what it wrote; when dieharder
exits, the bytes still in the pipe (FIONREAD) are subtracted, so ``bytes read`` is exact
to dieharder's 4 KiB stdio read-ahead. At the end of the sample the feeder closes the
pipe, which dieharder sees as EOF ("# stdin_input_raw(): Error: EOF"): it never rewinds.
"""

from __future__ import annotations

import array
import fcntl
import os
import select
import termios
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from rng_tests.dieharder.errors import DieharderError

CHUNK = 1 << 20


class ByteSource(Protocol):
    """Where sample bytes come from: ``size`` (None when unbounded) and chunks from an offset."""

    size: int | None

    def chunks(self, offset: int) -> Iterator[memoryview]: ...


class BufferSource:
    """A sample held in memory (bytes, bytearray, memoryview or a numpy array)."""

    def __init__(self, data: bytes | bytearray | memoryview | np.ndarray) -> None:
        if isinstance(data, np.ndarray):
            data = np.ascontiguousarray(data)
        self._view = memoryview(data).cast("B")
        self.size: int | None = self._view.nbytes

    def chunks(self, offset: int) -> Iterator[memoryview]:
        for start in range(offset, self._view.nbytes, CHUNK):
            yield self._view[start:start + CHUNK]


class FileSource:
    """A sample in a file, read in chunks from an offset (never loaded whole)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise ValueError(f"sample file {self.path} does not exist or is not a regular file")
        self.size: int | None = self.path.stat().st_size

    def chunks(self, offset: int) -> Iterator[memoryview]:
        with self.path.open("rb") as handle:
            handle.seek(offset)
            while chunk := handle.read(CHUNK):
                yield memoryview(chunk)


class RandomSource:
    """Unbounded numpy PCG64 bytes (for measuring consumption and for reference runs)."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)
        self.size: int | None = None

    def chunks(self, offset: int) -> Iterator[memoryview]:
        while True:
            yield memoryview(self._rng.bytes(CHUNK))


def as_source(sample: Any) -> ByteSource:
    """Wrap a path, bytes-like or numpy array (or pass a ByteSource through)."""
    if isinstance(sample, (str, os.PathLike)):
        return FileSource(sample)
    if isinstance(sample, (bytes, bytearray, memoryview, np.ndarray)):
        return BufferSource(sample)
    if hasattr(sample, "chunks") and hasattr(sample, "size"):
        return sample  # type: ignore[no-any-return]
    raise ValueError(f"sample must be a path, bytes-like or numpy array, got {type(sample).__name__}")


class Feeder(threading.Thread):
    """Writes a source into a non-blocking pipe until the data end, a stop request or EPIPE."""

    def __init__(self, fd: int, source: ByteSource, offset: int) -> None:
        super().__init__(daemon=True, name="dieharder-feeder")
        self._fd = fd
        self._source = source
        self._offset = offset
        self._halt = threading.Event()
        self._closed = False
        self.written = 0
        self.exhausted = False
        self.error: BaseException | None = None

    def run(self) -> None:
        poller = select.poll()
        poller.register(self._fd, select.POLLOUT)
        chunks = self._source.chunks(self._offset)
        try:
            for chunk in chunks:
                view = chunk
                while view.nbytes:
                    if self._halt.is_set():
                        return
                    if not poller.poll(100):
                        continue
                    try:
                        count = os.write(self._fd, view)
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # dieharder finished (or died) and closed its stdin
                        return
                    self.written += count
                    view = view[count:]
            self.exhausted = True
            os.close(self._fd)  # end of sample: dieharder sees EOF
            self._closed = True
        except OSError as exc:  # a read error on the sample file, or a write error other than EPIPE
            self.error = exc
        finally:
            getattr(chunks, "close", lambda: None)()

    def finish(self) -> int:
        """Stop writing and return the bytes dieharder read (written minus what is left in the pipe)."""
        self._halt.set()
        self.join()
        if self._closed:
            read = self.written
        else:
            left = array.array("i", [0])
            fcntl.ioctl(self._fd, termios.FIONREAD, left)
            os.close(self._fd)
            read = self.written - left[0]
        if self.error is not None:
            raise DieharderError(f"feeding the sample to dieharder failed: {self.error!r}") from self.error
        return read
