"""The dice reader's benchmark frames, rebuilt for tests, and the reader as the bench configures it.

``clean_frame`` and ``fault_frame`` give the same frames as parts 1 and 2 of
``benchmarks/dice_reader_accuracy.py`` (same seeds, same order), so a frame the benchmark reports can be
pinned in a test by its seed and index.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.dice import DiceReaderConfig
from vision.render.dice import FAULTS, DiceTruth, DieStyle, random_dice_scene, render_dice
from vision.render.nuisance import Nuisance

STYLES = {"casino-red": DieStyle.casino_red(), "opaque-white": DieStyle.opaque_white(),
          "real-photo": DieStyle.real_photo()}


def reader_config(truth: DiceTruth, **changes: object) -> DiceReaderConfig:
    """The reader as the bench sets it up: dice per throw, arena, die size from the calibrated scale, and the
    camera's height over the table in die edges when it looks straight down."""
    edge = truth.edge_mm * truth.px_per_mm
    height = None if truth.overhead_camera_mm is None else truth.overhead_camera_mm / truth.edge_mm
    base = DiceReaderConfig(expected_dice=truth.expected_dice, arena=truth.arena_px, die_edge_px=(0.8 * edge, 1.2 * edge),
                            camera_height_edges=height)
    return dataclasses.replace(base, **changes)


def clean_frame(seed: int, index: int) -> tuple[np.ndarray, DiceTruth]:
    """Frame ``index`` of ``benchmarks/dice_reader_accuracy.py`` part 1 run with base seed ``seed``."""
    rng = np.random.default_rng(seed)
    styles = list(STYLES.values())
    for i in range(index + 1):
        scene = random_dice_scene(rng, int(rng.integers(1, 6)), styles[i % 3])
        image, truth = render_dice(scene, Nuisance.realistic(rng), rng)
    return image, truth


def fault_frame(fault: str, index: int) -> tuple[np.ndarray, DiceTruth]:
    """Frame ``index`` of ``benchmarks/dice_reader_accuracy.py`` part 2 for ``fault`` (seed 20240611, same order)."""
    rng = np.random.default_rng(20240611 + 1000 * (FAULTS.index(fault) + 1))
    styles = list(STYLES.values())
    for i in range(index + 1):
        scene = random_dice_scene(rng, int(rng.integers(2 if fault == "stacked" else 1, 6)), styles[i % 3],
                                  faults=(fault,))
        image, truth = render_dice(scene, Nuisance.realistic(rng), rng)
    return image, truth
