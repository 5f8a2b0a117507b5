"""Where the bench finds its suites (the repository's ``suites/`` folder, or ``BENCH_SUITES``)."""

from __future__ import annotations

import os
from pathlib import Path

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]


def suites_dir() -> Path:
    return Path(os.environ.get("BENCH_SUITES", REPOSITORY_ROOT / "suites"))


def suite_files(names: list[str] | None = None) -> list[Path]:
    """Suite files by short name (``roulette`` → ``suites/test_roulette.py``) or path; all when none given."""
    directory = suites_dir()
    if not names:
        return sorted(directory.glob("test_*.py"))
    files: list[Path] = []
    for name in names:
        candidate = Path(name)
        if not candidate.suffix:
            candidate = directory / f"test_{name}.py"
        if not candidate.is_file():
            available = ", ".join(path.stem.removeprefix("test_") for path in sorted(directory.glob("test_*.py")))
            raise FileNotFoundError(f"no suite {name!r} (available: {available})")
        files.append(candidate)
    return files
