"""SHA-256 digests of files, read in blocks of 1 MiB.

One function for everything that proves a file unchanged: the evidence store
names an attachment by its digest, the signed manifest lists the digest of
every file of a run, and ``bench verify`` recomputes them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def sha256_file(path: Path) -> str:
    """The SHA-256 of the file at ``path``, as 64 lower-case hex digits."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
