"""The per-die model alone about the labelled squares (benchmarks/die_reader_crops.py): the best of the squares read
decides, sure or not, right or wrong, and an image counts as sure only when every die in it is."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
from benchmark_scripts import load_benchmark

from vision.yolo_labels import labelled_images

crops = load_benchmark("die_reader_crops")


class ScriptedModel:
    """A model whose probabilities for a square depend on the die (by its centre's x) and the square's size and turn:
    ``script[die_x][(size, turn)] = (class, probability)``; any other square reads "not a die" at 0.5."""

    card = SimpleNamespace(threshold=0.95)

    def __init__(self, script: dict[int, dict[tuple[float, int], tuple[int, float]]], edge_px: float) -> None:
        self.script, self.edge_px = script, edge_px

    def crop(self, image: np.ndarray, square) -> tuple:
        return round(square.centre_px[0]), round(square.edge_px / self.edge_px, 2), round(square.angle_deg)

    def probabilities(self, crops):
        rows = []
        for x, size, turn in crops:
            face, p = self.script.get(x, {}).get((size, turn), (6, 0.5))
            row = np.full(7, (1 - p) / 6)
            row[face] = p
            rows.append(row)
        return SimpleNamespace(probabilities=np.array(rows))


def _photo_folder(tmp_path: Path) -> Path:
    """One 200 x 100 image with two dice labelled (faces 3 and 5, centres at x 50 and 150, 20 px boxes)."""
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((100, 200, 3), np.uint8))
    (tmp_path / "a.txt").write_text("2 0.25 0.5 0.1 0.2\n4 0.75 0.5 0.1 0.2\n")
    return tmp_path


def test_the_likeliest_face_of_the_squares_decides(tmp_path: Path) -> None:
    photos = labelled_images(_photo_folder(tmp_path))
    script = {50: {(1.1, 30): (2, 0.99), (1.0, 0): (2, 0.90)},  # face 3: sure only at a turned, larger square
              150: {(1.0, 0): (4, 0.97), (0.9, 45): (5, 0.99)}}  # face 5: sure at its square, a surer 6 elsewhere
    tally = crops.best_of_squares(ScriptedModel(script, edge_px=20.0), photos, "die")
    assert (tally.dice, tally.images) == (2, 1)
    assert tally.sure_right == 1 and tally.sure_wrong == 1
    assert tally.images_all_sure == 1


def test_a_die_read_not_surely_or_as_not_a_die_leaves_its_image_unsure(tmp_path: Path) -> None:
    photos = labelled_images(_photo_folder(tmp_path))
    script = {50: {(1.0, 0): (2, 0.99)}, 150: {(1.0, 15): (4, 0.93)}}  # the 5 near, not sure
    tally = crops.best_of_squares(ScriptedModel(script, edge_px=20.0), photos, "die")
    assert (tally.sure_right, tally.sure_wrong, tally.images_all_sure) == (1, 0, 0)
    assert tally.line() == ("  best of 18 squares about each labelled one: 1 of 2 (50.0%) read surely and right, "
                            "0 surely but wrong; every die read surely in 0 of 1 images")


def test_a_die_whose_squares_read_surest_as_not_a_die_is_not_read_surely(tmp_path: Path) -> None:
    photos = labelled_images(_photo_folder(tmp_path))
    script = {50: {(1.0, 0): (6, 0.999), (1.0, 15): (2, 0.94)}, 150: {(1.1, 75): (4, 0.96)}}
    tally = crops.best_of_squares(ScriptedModel(script, edge_px=20.0), photos, "die")
    assert (tally.sure_right, tally.sure_wrong, tally.images_all_sure) == (1, 0, 0)
