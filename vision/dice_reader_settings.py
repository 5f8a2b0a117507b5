"""The dice reader's configuration file: which per-die model, its acceptance threshold, and the stages' settings.

A lab keeps one file per camera and arena (JSON), written by ``bench calibrate dice`` and named in the
profile. It states:

- ``model``: the per-die reader's ONNX file (relative to the configuration file; default: the model that
  ships with the bench) and ``model_sha256``, the hash the threshold was fitted for: a configuration whose
  model is another is refused, since its threshold would vouch for a reader it never measured; and
  ``model_views``, the views of each crop the reading averaged when it was fitted (the model card's ``views``;
  absent: 1, the crop alone): a configuration fitted on another reading is refused the same way;
- ``threshold``: the acceptance threshold (``None``: the model card's, fitted on the bench's own
  validation photos) and ``calibration``, the figures of the fit on the lab's photos;
- ``side_share``: the side face a flat die shows to this camera (0.12 overhead, about 0.45 for an oblique
  webcam);
- ``scene`` and ``stages``: any setting of :class:`vision.dice_scene.SceneSettings` (but the game's count
  and the arena, which come from the profile) and of :class:`vision.dice_stage_config.DiceStageConfig`.

Every error names the file and the field at fault.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vision.dice_scene import SceneSettings
from vision.dice_stage_config import DiceStageConfig

_GAME_FIELDS = ("expected_dice", "arena")
"""Scene settings that come from the profile (the game and the arena), never from the reader's file."""


class ReaderSettingsError(ValueError):
    """A reader configuration that cannot be used; the message names the file and field."""


class DiceReaderSettings(BaseModel):
    """The content of a dice reader configuration file (see the module's docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None = None
    model_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    model_views: int | None = Field(default=None, ge=1)
    threshold: float | None = Field(default=None, gt=0.0, le=1.0)
    calibration: dict[str, Any] | None = None
    side_share: float = Field(default=0.12, ge=0.0, lt=1.0)
    scene: dict[str, Any] = Field(default_factory=dict)
    stages: dict[str, Any] = Field(default_factory=dict)

    def scene_settings(self, *, expected_dice: int | None, arena: tuple[tuple[float, float], ...] | None,
                       where: str = "reader settings") -> SceneSettings:
        """The scene's settings: the file's, with the game's count and the arena from the profile."""
        return _dataclass(SceneSettings, {**self.scene, "expected_dice": expected_dice, "arena": arena},
                          f"{where}: scene")

    def stage_config(self, *, die_edge_px: tuple[float, float] | None = None,
                     where: str = "reader settings") -> DiceStageConfig:
        """The body and proposal stages' settings; ``die_edge_px`` from the bench's scale when known."""
        values = dict(self.stages)
        if die_edge_px is not None:
            values["die_edge_px"] = die_edge_px
        return _dataclass(DiceStageConfig, values, f"{where}: stages")

    def model_path(self, settings_file: Path | None) -> Path | None:
        """The model file, relative paths taken from the configuration file's folder; ``None``: the bench's own."""
        if self.model is None:
            return None
        path = Path(self.model)
        return path if path.is_absolute() or settings_file is None else settings_file.parent / path


def _dataclass(kind: type, values: dict[str, Any], where: str) -> Any:
    known = {field.name for field in dataclasses.fields(kind)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ReaderSettingsError(f"{where}: unknown setting(s) {', '.join(unknown)}")
    if "die_edge_px" in values and isinstance(values["die_edge_px"], list):
        values["die_edge_px"] = tuple(values["die_edge_px"])
    try:
        return kind(**values)
    except (TypeError, ValueError) as error:
        raise ReaderSettingsError(f"{where}: {error}") from None


def load_reader_settings(path: Path) -> DiceReaderSettings:
    """The configuration in ``path``; an unreadable file, bad JSON or a bad field is an error naming it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ReaderSettingsError(f"{path}: cannot be read ({error.strerror or error})") from None
    except json.JSONDecodeError as error:
        raise ReaderSettingsError(f"{path}: not JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    try:
        settings = DiceReaderSettings.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "the file"
        raise ReaderSettingsError(f"{path}: {field}: {first['msg']}") from None
    for game_field in _GAME_FIELDS:
        if game_field in settings.scene:
            raise ReaderSettingsError(f"{path}: scene.{game_field} comes from the profile (the game and its arena), "
                                      "not from the reader's configuration")
    settings.scene_settings(expected_dice=None, arena=None, where=str(path))
    settings.stage_config(where=str(path))
    return settings


def settings_json(settings: DiceReaderSettings) -> str:
    """The configuration as the file holds it (unset fields left out); written atomically by the command line
    (:func:`bench.rundir.atomic_write_text`), so a lab's earlier file is never left half written."""
    return settings.model_dump_json(indent=2, exclude_none=True) + "\n"
