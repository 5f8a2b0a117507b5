"""A simulator's non-volatile memory: a small JSON object in a file, written atomically.

Simulated devices keep their counters here (games played, blocks drawn, throws made) so a
restarted simulator continues where it stopped, reproducibly.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def load_state(state_file: Path | None, what: str) -> dict[str, Any]:
    """The saved state, ``{}`` when there is no file yet; ValueError naming the file when it is unreadable."""
    if state_file is None or not state_file.exists():
        return {}
    try:
        state = json.loads(state_file.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"{state_file}: unreadable {what} state ({error})") from error
    if not isinstance(state, dict):
        raise ValueError(f"{state_file}: unreadable {what} state (not a JSON object)")  # noqa: TRY004 - bad file content
    return state


def save_state(state_file: Path | None, state: dict[str, Any]) -> None:
    """Replace the saved state atomically (temporary file, then rename); nothing when there is no file."""
    if state_file is not None:
        temporary = state_file.with_suffix(".tmp")
        temporary.write_text(json.dumps(state))
        temporary.replace(state_file)


def load_counter(state_file: Path | None, key: str, what: str) -> int:
    """One counter of the saved state, 0 when there is no file yet; ValueError naming the file when the
    file lacks it or it is not an integer."""
    state = load_state(state_file, what)
    if state_file is None or not state_file.exists():
        return 0
    try:
        return int(state[key])
    except (KeyError, ValueError, TypeError) as error:
        raise ValueError(f"{state_file}: unreadable {what} state (no integer {key!r}: {error})") from error
