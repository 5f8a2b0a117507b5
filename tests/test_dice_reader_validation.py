"""A verdict on dice read by the camera rests only on a reader that met its benchmark targets
(fixtures/dice_reader_validation.py, fixtures/incomplete.py)."""

from __future__ import annotations

import pytest

from fixtures.dice_reader_validation import require_validated_reader
from fixtures.incomplete import IncompleteTest, ReaderNotValidated, incomplete_reason

STAGED = {"reader": "staged", "model_sha256": "0123456789abcdef" + "e" * 48, "threshold": 0.99}


def test_observations_of_the_classical_reader_pass() -> None:
    require_validated_reader([{"faces": [1, 2, 3]}, {"faces": [4, 5, 6]}], "dice throws")
    require_validated_reader([], "dice throws")


def test_one_observation_of_the_staged_reader_stops_the_test_incomplete_naming_the_model() -> None:
    rows = [{"faces": [1, 2, 3]}, {"faces": [4, 5, 6], "dice_reader": STAGED}]
    with pytest.raises(ReaderNotValidated) as caught:
        require_validated_reader(rows, "dice throws")
    reason = incomplete_reason(caught)
    assert reason is not None and reason.startswith("reader not validated: the dice throws were read by the staged "
                                                    "dice reader (per-die model 0123456789abcdef…)")
    assert "declines may depend on the faces shown" in reason and "classical reader" in reason


def test_a_test_short_of_reads_still_says_so() -> None:
    with pytest.raises(IncompleteTest) as caught:
        raise IncompleteTest("4 throws could not be read")
    assert incomplete_reason(caught) == "not enough read: 4 throws could not be read"
