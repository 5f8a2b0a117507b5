"""The per-die reader's score over labelled dice: confusion matrix, declines by reason, figures."""

from __future__ import annotations

import pytest

from vision.declines import Decline
from vision.die_reader_model import DieRead
from vision.die_reader_scores import ReaderScore


def test_reads_fill_the_confusion_matrix_and_the_figures() -> None:
    score = ReaderScore()
    unsure = DieRead(None, 0.6, Decline.UNREADABLE, "unsure: face 2 at confidence 0.600, below 0.900")
    no_die = DieRead(None, 0.8, Decline.UNREADABLE, "not a flat readable die (confidence 0.800)")
    score.add([1, 2, 2, 6, 3], [DieRead(1, 0.99), DieRead(2, 0.95), unsure, DieRead(5, 0.97), no_die])
    assert (score.dice, score.correct, score.declined, score.accepted, score.wrong) == (5, 2, 2, 3, 1)
    assert score.confusion[5, 4] == 1 and score.confusion[1, 6] == 1 and score.confusion[2, 6] == 1
    assert score.wrong_per_1000_accepted == pytest.approx(1000 / 3)
    assert dict(score.declines) == {"unsure": 1, "not a flat readable die": 1}
    assert "read correctly 2 (40.0 %)" in score.summary()
    assert "declines: " in score.table()


def test_a_face_outside_one_to_six_is_refused() -> None:
    with pytest.raises(ValueError, match="1..6"):
        ReaderScore().add([7], [DieRead(1, 0.9)])
