"""The dice's edge measured on a lab's labelled photos (vision.die_size_calibration)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.die_reader_model import NOT_A_DIE
from vision.die_size_calibration import fit_die_size


def rows(faces: list[int], confidence: float = 0.999) -> np.ndarray:
    """Probability rows reading each face index of ``faces`` (or NOT_A_DIE) at ``confidence``."""
    out = np.full((len(faces), NOT_A_DIE + 1), (1.0 - confidence) / NOT_A_DIE)
    out[np.arange(len(faces)), faces] = confidence
    return out


def test_the_edges_of_squares_read_surely_and_rightly_give_the_dice_size() -> None:
    rng = np.random.default_rng(7)
    edges = rng.normal(44.0, 1.5, 40)
    truth = rng.integers(0, 6, 40)
    fit = fit_die_size(edges, rows(list(truth)), truth, threshold=0.99)
    assert fit.edge_px is not None and fit.dice == 40
    assert fit.edge_px == pytest.approx((0.8 * np.median(edges), 1.2 * np.median(edges)), abs=0.06)
    # squares read wrong, read unsure, or lying on no die say nothing of the size
    wrong = (truth + 1) % 6
    extra = np.concatenate([edges, [90.0] * 30])
    extra_truth = np.concatenate([truth, truth[:10], truth[:10], [NOT_A_DIE] * 10])
    extra_rows = np.vstack([rows(list(truth)), rows(list(wrong[:10])), rows(list(truth[:10]), 0.9),
                            rows([0] * 10)])
    assert fit_die_size(extra, extra_rows, extra_truth, threshold=0.99).edge_px == fit.edge_px


def test_too_few_dice_or_dice_of_several_sizes_write_no_size() -> None:
    few = fit_die_size(np.full(5, 44.0), rows([0] * 5), np.zeros(5, int), threshold=0.99)
    assert few.edge_px is None and "only 5 squares" in few.reason
    sizes = np.concatenate([np.full(20, 30.0), np.full(20, 50.0)])
    spread = fit_die_size(sizes, rows([2] * 40), np.full(40, 2), threshold=0.99)
    assert spread.edge_px is None and "several distances" in spread.reason and spread.median_px == 40.0
    nothing = fit_die_size(np.zeros(0), np.zeros((0, NOT_A_DIE + 1)), np.zeros(0, int), threshold=0.99)
    assert nothing.edge_px is None and nothing.as_dict()["squares_read_right"] == 0
    with pytest.raises(ValueError, match="3 edges, 2 probability rows"):
        fit_die_size(np.zeros(3), rows([0, 1]), np.zeros(2, int), threshold=0.99)
