"""The per-die reader's training script: its augmentation of a die's colours, and its crops at the model's size."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from benchmark_scripts import load_benchmark

train = load_benchmark("train_die_reader")


def _crop() -> np.ndarray:
    """A dark blue die with red pips on a pale table, as in the real photos the reader reads least surely."""
    crop = np.full((48, 48, 3), (200, 205, 210), np.uint8)
    crop[8:40, 8:40] = (90, 30, 20)
    for x, y in ((16, 16), (32, 32), (24, 24)):
        cv2.circle(crop, (x, y), 3, (30, 30, 200), -1)
    return crop


def test_appearance_leaves_a_crop_alone_at_its_default_shares() -> None:
    crop = _crop()
    rng = np.random.default_rng(1)
    assert all(np.array_equal(train.appearance(crop, rng), crop) for _ in range(50))


def test_appearance_inverts_or_turns_hues_at_the_shares_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    crop = _crop()
    monkeypatch.setattr(train, "INVERT_SHARE", 1.0)
    assert np.array_equal(train.appearance(crop, np.random.default_rng(2)), 255 - crop)
    monkeypatch.setattr(train, "INVERT_SHARE", 0.0)
    monkeypatch.setattr(train, "HUE_SHARE", 1.0)
    turned = train.appearance(crop, np.random.default_rng(3))
    before, after = (cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(int) for image in (crop, turned))
    assert not np.array_equal(before[..., 0], after[..., 0])  # the hues turned...
    assert np.abs(before[..., 2] - after[..., 2]).max() <= 2  # ...the brightness (the pips' contrast) kept
    assert turned.dtype == np.uint8 and turned.shape == crop.shape


def test_a_patch_is_cut_at_the_size_the_model_reads() -> None:
    patch = np.zeros((train.CONTEXT_PX, train.CONTEXT_PX, 3), np.uint8)
    assert train.centre_crop(patch).shape == (train.CROP_PX, train.CROP_PX, 3)
    assert train.centre_crop(patch, 32).shape == (32, 32, 3)
