"""The staged dice reader wires its stages: bodies, squares, crops read, bodies explained, the scene judged.

The stages here are simple stand-ins on synthetic frames (white dice, black pips, green table): a body
finder by brightness, one square per body, and a crop reader that counts the dark spots in the die's
middle. What is tested is the wiring: which crops reach the reader, how its probabilities decide, and
that every read names the reader.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import pytest
from synthetic_dice import die_frame

from vision.declines import Decline
from vision.dice_explanation import Body
from vision.dice_pipeline import FoundBodies, StagedDiceReader
from vision.dice_scene import SceneSettings
from vision.die_crop import DieSquare


def find_bright_bodies(frame: np.ndarray) -> FoundBodies:
    bright = (frame.min(axis=2) > 100).astype(np.uint8)
    bright = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, np.ones((11, 11), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(bright)
    bodies = []
    for index in range(1, count):
        x, y, w, h = stats[index, :4]
        bodies.append(Body(labels[y:y + h, x:x + w] == index, (int(x), int(y))))
    return FoundBodies(tuple(bodies), 40.0)


def one_square(frame: np.ndarray, body: Body, die_edge_px: float) -> Sequence[DieSquare]:
    ys, xs = np.nonzero(body.mask)
    return [DieSquare((body.origin[0] + float(xs.mean()), body.origin[1] + float(ys.mean())), die_edge_px)]


class SpotCounter:
    """Reads a crop by counting dark spots in its middle; sure (0.99) when the count is a face."""

    crop_px, margin, threshold, sha256 = 48, 0.25, 0.9, "ab" * 32

    def __init__(self) -> None:
        self.crops: list[np.ndarray] = []

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        rows = []
        for crop in crops:
            self.crops.append(crop)
            dark = (cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)[8:40, 8:40] < 100).astype(np.uint8)
            spots = cv2.connectedComponents(dark)[0] - 1
            row = np.full(7, 0.01 / 6)
            row[spots - 1 if 1 <= spots <= 6 else 6] = 0.99
            rows.append(row)
        return np.asarray(rows)


def reader(counter: SpotCounter, **scene: object) -> StagedDiceReader:
    return StagedDiceReader(find_bright_bodies, one_square, counter, SceneSettings(**scene))


def test_each_die_is_read_from_its_own_upright_crop() -> None:
    frame, _ = die_frame([(60, 60), (160, 120), (250, 180)], faces=[3, 6, 1])
    counter = SpotCounter()
    read = reader(counter, expected_dice=3).read(frame)
    assert read.accepted and read.faces == (1, 3, 6)
    assert [die.face for die in read.dice] == [3, 6, 1]  # left to right
    assert len(counter.crops) == 3 and all(crop.shape == (48, 48, 3) for crop in counter.crops)
    assert (read.bodies, read.readings, read.reader_sha256) == (3, 3, "ab" * 32)


def test_a_die_the_reader_is_not_sure_of_declines_the_frame() -> None:
    frame, _ = die_frame([(60, 60), (160, 120)], faces=[3, 6])
    cv2.circle(frame, (160, 120), 3, (20, 20, 20), -1)  # a seventh spot: no face
    read = reader(SpotCounter(), expected_dice=2).read(frame)
    assert read.decline is Decline.COCKED and read.faces == ()


def test_an_empty_table_is_a_wrong_count_and_no_crop_is_read() -> None:
    counter = SpotCounter()
    frame = np.full((240, 320, 3), (40, 110, 40), np.uint8)
    read = reader(counter, expected_dice=2).read(frame)
    assert read.decline is Decline.WRONG_COUNT and counter.crops == []


def test_a_reader_giving_the_wrong_number_of_rows_is_an_error_naming_it() -> None:
    class Short(SpotCounter):
        def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
            return super().probabilities(crops)[:-1]

    frame, _ = die_frame([(60, 60), (160, 120)], faces=[3, 6])
    with pytest.raises(ValueError, match="the per-die reader ababababab"):
        reader(Short()).read(frame)
