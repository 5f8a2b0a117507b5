"""Shared test configuration: pytester for the plugin's own tests, and no test near a real laboratory key."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest
from suite_runs import SessionRuns, session_root

pytest_plugins = ["pytester"]

# Runs started by the tests (in this process or as `bench certify` subprocesses) must never find and use the
# laboratory key of the machine they run on: point the key directory at an empty place.
# The folder is this process's: removed when it ends (after the subprocesses it started), never left in /tmp.
_EMPTY_KEY_DIR = tempfile.mkdtemp(prefix="bench-test-keys-")
atexit.register(shutil.rmtree, _EMPTY_KEY_DIR, ignore_errors=True)
os.environ["BENCH_KEY_DIR"] = _EMPTY_KEY_DIR
os.environ.pop("BENCH_KEY_PASSPHRASE", None)


@pytest.fixture(scope="session")
def session_runs(tmp_path_factory: pytest.TempPathFactory) -> SessionRuns:
    """Suite runs shared by every test of the session, on every pytest-xdist worker (each run once)."""
    return SessionRuns(session_root(tmp_path_factory.getbasetemp()))


SLOW_DEFAULT_SECONDS = 30.0
"""The duration assumed for a test marked ``slow`` without ``seconds``."""


def expected_seconds(item: pytest.Item) -> float:
    """A test's typical duration as its ``slow`` marker states it (0 for a test not marked slow)."""
    marker = item.get_closest_marker("slow")
    if marker is None:
        return 0.0
    return float(marker.kwargs.get("seconds", marker.args[0] if marker.args else SLOW_DEFAULT_SECONDS))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest tests first (stable otherwise): handed out two at a time to the xdist workers (``make test``),
    they then overlap with the many short ones instead of running alone at the end."""
    items.sort(key=lambda item: -expected_seconds(item))
