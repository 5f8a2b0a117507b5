"""Registers the bench's pytest plugin (``fixtures/plugin.py``) for the suites and the project's tests."""

pytest_plugins = ["fixtures.plugin"]
