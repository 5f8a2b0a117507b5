"""Where the bench finds its suites (the repository's ``suites/`` folder, or ``BENCH_SUITES``), and the
environment it hands the processes it starts."""

from __future__ import annotations

import os
from collections.abc import Mapping
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


SECRET_VARIABLES: tuple[str, ...] = ("BENCH_KEY_PASSPHRASE",)
"""Environment variables that hold secrets of the laboratory (the signing key's passphrase): read by the
bench itself only, never passed to a process it starts (a simulator, dieharder, a nested run)."""


def child_environment(base: Mapping[str, str] | None = None, **extra: str) -> dict[str, str]:
    """The environment for a process the bench starts: ``base`` (default: this process's), without
    :data:`SECRET_VARIABLES`, with ``extra`` added."""
    environment = {name: value for name, value in (os.environ if base is None else base).items()
                   if name not in SECRET_VARIABLES}
    environment.update(extra)
    return environment
