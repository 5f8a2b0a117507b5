"""The per-die reader measuring the edge of a die it read surely (vision.die_size_probe)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from vision.die_crop import DieSquare
from vision.die_size_probe import SizeProbe, SureDie, probed_edges

THRESHOLD = 0.99


class FakeReader:
    """Reads each die of ``dice`` (centre -> (true edge, face)) surely when the square's edge lies within
    ``sure_within`` of the true edge (as multiples of it), else as "not a flat readable die"; records every batch."""

    def __init__(self, dice: dict[tuple[float, float], tuple[float, int]],
                 sure_within: tuple[float, float] = (0.81, 1.32), other_face_beyond: float | None = None) -> None:
        self.dice, self.sure_within, self.other_face_beyond = dice, sure_within, other_face_beyond
        self.batches: list[int] = []

    def __call__(self, squares: Sequence[DieSquare]) -> np.ndarray:
        self.batches.append(len(squares))
        rows = np.zeros((len(squares), 7))
        for row, square in zip(rows, squares, strict=True):
            edge, face = self.dice[square.centre_px]
            share = square.edge_px / edge
            if self.other_face_beyond is not None and share > self.other_face_beyond:
                row[(face % 6)] = 0.999  # another face, surely
            elif self.sure_within[0] <= share <= self.sure_within[1]:
                row[face - 1] = 0.999
            else:
                row[6] = 0.9
        return rows


def _die(centre: tuple[float, float], read_edge: float, face: int = 4, confidence: float = 0.999) -> SureDie:
    return SureDie(DieSquare(centre, read_edge, 17.0), face, confidence)


@pytest.mark.parametrize("read_at", [0.85, 1.0, 1.3])
def test_a_die_read_surely_from_a_square_off_its_size_is_measured_within_eight_per_cent(read_at: float) -> None:
    reader = FakeReader({(100.0, 100.0): (42.0, 4)})
    edges = probed_edges([_die((100.0, 100.0), read_at * 42.0)], reader, THRESHOLD)
    # the middle of 0.81..1.32 is 1.034 of the edge; the 9 % steps add up to 4.5 % either way
    assert len(edges) == 1 and edges[0] == pytest.approx(42.0 * math.sqrt(0.81 * 1.32), rel=0.045)
    assert abs(edges[0] / 42.0 - 1.0) < 0.08
    assert reader.batches == [17]  # one batch: 17 sizes from half to twice the square read


def test_a_die_read_surely_at_every_size_probed_gives_no_edge() -> None:
    reader = FakeReader({(50.0, 60.0): (30.0, 1)}, sure_within=(0.1, 10.0))
    assert probed_edges([_die((50.0, 60.0), 30.0, face=1)], reader, THRESHOLD) == []


def test_a_die_read_surely_over_too_wide_a_run_of_sizes_gives_no_edge() -> None:
    # a black die's lone pip: read as a 1 from 0.6 to 1.3 of the square (2.2 times), within the probed range
    reader = FakeReader({(50.0, 60.0): (51.5, 1)}, sure_within=(0.6, 1.3))
    assert probed_edges([_die((50.0, 60.0), 51.5, face=1)], reader, THRESHOLD) == []
    wider = SizeProbe(widest_run=2.5)
    assert len(probed_edges([_die((50.0, 60.0), 51.5, face=1)], reader, THRESHOLD, wider)) == 1


def test_only_the_run_of_the_face_read_counts() -> None:
    # beyond 1.1 of its edge the die reads surely as another face: the run of its own face ends there
    reader = FakeReader({(10.0, 10.0): (40.0, 2)}, other_face_beyond=1.1)
    edges = probed_edges([_die((10.0, 10.0), 40.0, face=2)], reader, THRESHOLD)
    assert len(edges) == 1 and edges[0] < 40.0


def test_only_the_surest_dice_are_probed_in_one_batch() -> None:
    dice = {(10.0 * i, 10.0): (40.0, 1 + i % 6) for i in range(8)}
    reader = FakeReader(dice)
    sure = [_die(centre, 44.0, face, confidence=0.99 + 0.001 * i) for i, (centre, (_, face)) in enumerate(dice.items())]
    edges = probed_edges(sure, reader, THRESHOLD, SizeProbe(most_dice=3))
    assert len(edges) == 3 and reader.batches == [3 * 17]


def test_no_dice_read_no_batch() -> None:
    reader = FakeReader({})
    assert probed_edges([], reader, THRESHOLD) == [] and reader.batches == []


def test_a_reader_giving_the_wrong_number_of_rows_is_refused() -> None:
    with pytest.raises(ValueError, match=r"gave \(2, 7\) probabilities for 17 probe squares"):
        probed_edges([_die((0.0, 0.0), 30.0)], lambda squares: np.zeros((2, 7)), THRESHOLD)


@pytest.mark.parametrize("settings", [{"steps_per_octave": 1}, {"most_dice": 0}, {"widest_run": 1.0},
                                      {"widest_run": 5.0}])
def test_probe_settings_out_of_range_are_refused(settings: dict) -> None:
    with pytest.raises(ValueError, match="size probe"):
        SizeProbe(**settings)
