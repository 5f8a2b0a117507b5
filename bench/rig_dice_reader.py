"""The dice reader a camera's profile chooses (``camera.dice_reader``), built for the rig, and what names it.

``"staged"`` (the default) is the staged reader (:func:`vision.dice_staged_reader.staged_reader`) with the
bench's own per-die model at its model card's threshold; a reader configuration file (``bench calibrate dice``)
is the staged reader as that file sets it, refused when its threshold was fitted for another model.
``"classical"``, the pip-counting reader of earlier versions, is no longer part of the bench: a profile read back
from an older run's journal may name it, and such a run's dice cannot be read again (:class:`RemovedDiceReader`).

A staged reader is named in the journal by :class:`DiceReaderIdentity`: its model's SHA-256 and views, the
acceptance threshold in force, the arena outline it is told (``camera.arena_px``) and, when a configuration file was
given, that file and its SHA-256, so a certificate names the exact reader behind every throw.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from bench.digest import sha256_file
from bench.profiles.camera import CLASSICAL_DICE_READER, CameraConnection
from drivers.dice_table import DiceFrameReader
from vision.dice_reader_settings import load_reader_settings
from vision.dice_staged_reader import staged_reader


@dataclass(frozen=True)
class DiceReaderIdentity:
    """Which reader reads the dice, as the journal and the certificate name it."""

    reader: Literal["staged"]
    model_sha256: str | None = None
    """The staged reader's per-die model (ONNX), SHA-256."""
    threshold: float | None = None
    """The staged reader's acceptance threshold in force (the configuration's, else the model card's)."""
    settings_file: str | None = None
    """The reader configuration file the profile names, if any."""
    settings_sha256: str | None = None
    lean_model_sha256: str | None = None
    """The staged reader's lean model (ONNX, whether a die read leans), SHA-256."""
    model_views: int | None = None
    """Quarter turns of each crop the per-die model's reading averages (its card's ``views``), which the threshold
    was fitted on."""
    arena_px: list[list[float]] | None = None
    """The arena outline the reader is told (``camera.arena_px``: corners in frame px), if any."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict without the fields that do not apply."""
        return {key: value for key, value in asdict(self).items() if value is not None}


class RemovedDiceReader(ValueError):
    """The profile (read back from an older run's journal) names the classical reader, which the bench no longer
    has: that run's dice cannot be read again."""


@dataclass(frozen=True)
class ChosenDiceReader:
    """A frame reader for :class:`drivers.dice_table.CameraDiceTable` and its identity."""

    read: DiceFrameReader
    identity: DiceReaderIdentity


def choose_dice_reader(connection: CameraConnection, expected_dice: int | None) -> ChosenDiceReader:
    """The staged reader ``connection.dice_reader`` names, for frames of ``expected_dice`` dice in the arena
    ``connection.arena_px`` outlines (none told when it is None). Raises
    :class:`vision.dice_reader_settings.ReaderSettingsError` (naming the file and field) for a configuration
    that cannot be used, and :class:`RemovedDiceReader` for the removed classical reader."""
    if not connection.staged_dice_reader:
        raise RemovedDiceReader(f"{CLASSICAL_DICE_READER!r} (the pip-counting reader of earlier versions of the "
                                "bench) is no longer part of it: this run's dice cannot be read again; start a new "
                                "run, whose dice the staged reader reads")
    settings_file = connection.dice_reader_settings
    settings = load_reader_settings(settings_file) if settings_file is not None else None
    staged = staged_reader(settings, settings_file, expected_dice=expected_dice, arena=connection.arena_px)
    identity = DiceReaderIdentity(
        "staged", staged.reader.sha256, float(staged.reader.threshold),
        None if settings_file is None else str(settings_file),
        None if settings_file is None else sha256_file(Path(settings_file)),
        None if staged.lean is None else staged.lean.sha256,
        staged.reader.model.card.views,
        None if connection.arena_px is None else [list(corner) for corner in connection.arena_px],
    )
    return ChosenDiceReader(staged.read, identity)


def reader_evidence(identity: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a throw's (or a measurement's) journal entry says of the reader: ``{"dice_reader": identity}``
    (:attr:`drivers.dice_table.DiceThrow.reader`); nothing for a frame reader that names none (a test's)."""
    return {} if identity is None else {"dice_reader": dict(identity)}
