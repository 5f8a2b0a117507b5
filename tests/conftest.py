"""Shared test configuration: pytester for the plugin's own tests, and no test near a real laboratory key."""

from __future__ import annotations

import os
import tempfile

pytest_plugins = ["pytester"]

# Runs started by the tests (in this process or as `bench certify` subprocesses) must never find and use the
# laboratory key of the machine they run on: point the key directory at an empty place.
os.environ["BENCH_KEY_DIR"] = tempfile.mkdtemp(prefix="bench-test-keys-")
os.environ.pop("BENCH_KEY_PASSPHRASE", None)
