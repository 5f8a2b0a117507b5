"""Copies of the bench's learned models, for tests that change or garble one without touching the shipped file."""

from __future__ import annotations

import shutil
from pathlib import Path

from vision.die_reader_model import card_path


def copy_with_card(model: Path, folder: Path) -> Path:
    """``model`` and the card beside it copied into ``folder``; the copy's path."""
    target = folder / model.name
    shutil.copy(model, target)
    shutil.copy(card_path(model), card_path(target))
    return target
