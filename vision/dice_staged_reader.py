"""The staged dice reader built from a reader configuration (:mod:`vision.dice_reader_settings`) and a game.

:func:`staged_reader` loads the per-die model the configuration names (the bench's own by default), refuses
one whose hash is not the one the configuration's threshold was fitted for, and wires the stages
(:class:`vision.dice_pipeline.StagedDiceReader`) with the game's count of dice and the arena.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.dice_pipeline import StagedDiceReader
from vision.dice_reader_settings import DiceReaderSettings, ReaderSettingsError
from vision.die_lean_model import DEFAULT_LEAN_MODEL, DieLeanModel
from vision.die_reader_model import DEFAULT_MODEL, DieReaderModel
from vision.heap import keep_freed_memory


@dataclass(frozen=True)
class ModelCropReader:
    """The per-die model as the pipeline reads crops with it, at the acceptance threshold in force."""

    model: DieReaderModel
    threshold: float

    @property
    def crop_px(self) -> int:
        return self.model.card.crop_px

    @property
    def margin(self) -> float:
        return self.model.card.margin

    @property
    def sha256(self) -> str:
        return self.model.sha256

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        return self.model.probabilities(crops).probabilities


def staged_reader(settings: DiceReaderSettings | None = None, settings_file: Path | None = None, *,
                  expected_dice: int | None = None, arena: tuple[tuple[float, float], ...] | None = None,
                  die_edge_px: tuple[float, float] | None = None,
                  lean_model: Path | None = DEFAULT_LEAN_MODEL) -> StagedDiceReader:
    """The staged reader of ``settings`` (read from ``settings_file``, whose folder relative paths start from)
    for a game of ``expected_dice`` dice in ``arena``; ``die_edge_px`` when the bench knows the scale;
    ``lean_model``: the model that tells whether a die read leans (:mod:`vision.die_lean_model`; None: a reader
    that explains frames but cannot judge those of a camera over the table). The first reader in a process keeps
    the process's freed working memory (:mod:`vision.heap`)."""
    keep_freed_memory()
    settings = settings or DiceReaderSettings()
    where = str(settings_file) if settings_file is not None else "reader settings"
    model = DieReaderModel.load(settings.model_path(settings_file) or DEFAULT_MODEL)
    if settings.model_sha256 is not None and settings.model_sha256 != model.sha256:
        raise ReaderSettingsError(f"{where}: its threshold was fitted for the model {settings.model_sha256[:16]}…, "
                                  f"not {model.path.name} ({model.sha256[:16]}…): calibrate again "
                                  "(bench calibrate dice)")
    fitted_views = settings.model_views or 1
    if settings.threshold is not None and settings.model_sha256 is not None and fitted_views != model.card.views:
        raise ReaderSettingsError(f"{where}: its threshold was fitted on readings of {fitted_views} view(s) of each "
                                  f"crop, but {model.path.name}'s card reads {model.card.views}: calibrate again "
                                  "(bench calibrate dice)")
    threshold = settings.threshold if settings.threshold is not None else model.card.threshold
    return StagedDiceReader(ModelCropReader(model, threshold),
                            settings.scene_settings(expected_dice=expected_dice, arena=arena, where=where),
                            settings.stage_config(die_edge_px=die_edge_px, where=where), settings.side_share,
                            lean=None if lean_model is None else DieLeanModel.load(lean_model))
