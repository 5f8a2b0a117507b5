"""Each die read is confirmed: from its square turned about its centre and, of another size than the frame's other
dice, from a square of theirs (vision.dice_confirmation)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.dice_confirmation import ConfirmationSettings, confirm_dice, confirmations
from vision.dice_explanation import BodyExplanation, DieReading
from vision.dice_pipeline import StagedDiceReader
from vision.dice_staged_reader import staged_reader
from vision.die_crop import DieSquare

FRAMES = Path(__file__).parent / "data" / "dice-frames"
SIZE_ONLY = ConfirmationSettings(turns=())


def die(face: int, centre: tuple[float, float], edge: float, confidence: float = 0.999) -> DieReading:
    probabilities = [0.0] * 7
    probabilities[face - 1] = confidence
    probabilities[6] = 1.0 - confidence
    return DieReading(DieSquare(centre, edge, 10.0), tuple(probabilities))


def frame_of(*edges: float) -> list[BodyExplanation]:
    """One body per die, each a 3 read from a square of the given edge."""
    return [BodyExplanation((die(3, (100.0 * i, 50.0), edge),)) for i, edge in enumerate(edges, 1)]


def reader_giving(face_probability: float | list[float], calls: list[list[DieSquare]]):
    """A read(squares) that gives face 3 ``face_probability`` (one for all squares, or one per square), and notes
    the squares asked."""
    def read(squares):
        calls.append(list(squares))
        given = np.broadcast_to(np.asarray(face_probability, float), (len(squares),))
        rows = np.zeros((len(squares), 7))
        rows[:, 2] = given
        rows[:, 6] = 1.0 - given
        return rows
    return read


def test_every_die_is_read_turned_and_only_one_of_another_size_at_the_others_median_edge() -> None:
    wanted = confirmations(frame_of(50.0, 51.0, 52.0, 40.0), ConfirmationSettings())
    turned = [c for c in wanted if "turned" in c.why]
    assert [(c.body, c.square.angle_deg) for c in turned[:3]] == [(0, 55.0), (0, 32.5), (0, -12.5)]
    assert len(turned) == 12 and all(c.least == 0.5 and c.square.edge_px == c.die.square.edge_px for c in turned)
    sized = [c for c in wanted if "turned" not in c.why]
    assert [(c.body, round(c.square.edge_px, 1), c.least) for c in sized] == [(3, 51.0, 0.9)]
    assert sized[0].square.centre_px == (400.0, 50.0) and sized[0].square.angle_deg == 10.0
    sized = confirmations(frame_of(50.0, 52.0, 40.0), SIZE_ONLY)  # 52 px against 50 and 40: median 45
    assert [(c.body, round(c.square.edge_px, 1)) for c in sized] == [(1, 45.0), (2, 51.0)]
    assert confirmations(frame_of(50.0, 54.0, 47.0), SIZE_ONLY) == []  # within 12 % of the others
    assert confirmations(frame_of(30.0), SIZE_ONLY) == []  # one die: nothing to compare with
    assert confirmations(frame_of(50.0, 52.0, 40.0), dataclasses.replace(SIZE_ONLY, alike=False)) == []
    assert confirmations(frame_of(50.0, 52.0, 40.0), ConfirmationSettings(enabled=False)) == []


@pytest.mark.parametrize(("given", "declined"), [(0.95, False), (0.9, False), (0.89, True), (0.3, True)])
def test_a_die_of_another_size_is_unreadable_unless_the_square_at_the_others_size_gives_its_face(
        given: float, declined: bool) -> None:
    calls: list[list[DieSquare]] = []
    explanations = frame_of(50.0, 51.0, 52.0, 40.0)
    result = confirm_dice(explanations, reader_giving(given, calls), SIZE_ONLY)
    assert len(calls) == 1 and len(calls[0]) == 1  # one batch, the one die
    assert result[:3] == explanations[:3]
    if declined:
        assert result[3].problem == "unreadable" and result[3].dice == ()
        assert f"reads 3 (0.999) from a square of 40.0 px but {given:.3f} from a square of the other dice's " \
            "51.0 px (a game's dice have equal edges)" in result[3].detail
    else:
        assert result[3] == explanations[3]


@pytest.mark.parametrize(("given", "declined"), [(0.6, False), (0.5, False), (0.49, True), (0.1, True)])
def test_a_die_is_unreadable_unless_every_turned_square_gives_its_face(given: float, declined: bool) -> None:
    calls: list[list[DieSquare]] = []
    explanations = frame_of(50.0, 50.0)
    per_square = [0.99, 0.99, 0.99, given, 0.99, 0.99]  # the second die's square turned 45 degrees
    result = confirm_dice(explanations, reader_giving(per_square, calls), ConfirmationSettings())
    assert len(calls) == 1 and len(calls[0]) == 6
    assert result[0] == explanations[0]
    if declined:
        assert result[1].problem == "unreadable"
        assert f"but {given:.3f} from its square turned 45 degrees" in result[1].detail
    else:
        assert result[1] == explanations[1]


def test_a_frame_whose_dice_read_the_same_turned_and_are_of_one_size_is_unchanged() -> None:
    calls: list[list[DieSquare]] = []
    explanations = frame_of(50.0, 52.0, 49.0)
    assert confirm_dice(explanations, reader_giving(0.0, calls), SIZE_ONLY) == explanations
    assert calls == []
    assert confirm_dice(explanations, reader_giving(0.99, calls), ConfirmationSettings()) == explanations
    assert len(calls[0]) == 9


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="alike_probability must lie within 0..1"):
        ConfirmationSettings(alike_probability=1.0)
    with pytest.raises(ValueError, match="differ_share must lie within 0..1"):
        ConfirmationSettings(differ_share=0.0)
    with pytest.raises(ValueError, match="a turn must be within -90..90 degrees and not 0"):
        ConfirmationSettings(turns=(0.0,))


@pytest.mark.parametrize(("frame", "truth"), [("sim-five-read-as-two.png", (2, 5, 5)),
                                               ("sim-four-read-as-two-under-glare.png", (4, 5, 6))])
def test_a_frame_with_a_die_read_wrong_from_one_square_is_never_accepted_wrong(frame: str, truth: tuple) -> None:
    """The sim camera's frames kept in tests/data/dice-frames, each with a die the per-die reader reads surely as a
    two from one square: declined, or read as the dice lie."""
    read = staged_reader(expected_dice=3).read(_kept(frame))
    assert read.faces in ((), truth)


KEPT_AT_THRESHOLD = 0.9793
"""The shipped model's threshold when the frame of a four under glare read as a two was kept (fitted again since on
the squares of the fourth look, :mod:`vision.dice_centre_look`, it is higher, and the wrong read no longer reaches
the confirmation)."""


def at_kept_threshold(reader: StagedDiceReader) -> StagedDiceReader:
    """``reader`` with its per-die model read at :data:`KEPT_AT_THRESHOLD`."""
    return dataclasses.replace(reader, reader=dataclasses.replace(reader.reader, threshold=KEPT_AT_THRESHOLD))


def test_the_confirmation_stops_a_four_under_glare_read_as_a_two() -> None:
    image = _kept("sim-four-read-as-two-under-glare.png")
    shipped = staged_reader(expected_dice=3)
    assert shipped.reader.threshold > KEPT_AT_THRESHOLD
    reader = at_kept_threshold(shipped)
    unconfirmed = dataclasses.replace(reader, confirmation=ConfirmationSettings(enabled=False)).read(image)
    assert unconfirmed.accepted and unconfirmed.faces == (2, 5, 6)  # the wrong read the confirmation stops
    assert not reader.read(image).accepted
    assert not shipped.read(image).accepted


def test_a_five_read_as_a_two_from_a_smaller_square_is_declined_naming_the_square_of_the_other_dice() -> None:
    """At the threshold the frame was kept at, the two (0.981) is read surely and the confirmation declines it; at
    the shipped threshold it is not read surely at all."""
    shipped = staged_reader(expected_dice=3)
    kept = at_kept_threshold(shipped)
    read = kept.read(_kept("sim-five-read-as-two.png"))
    assert not read.accepted and str(read.decline) == "unreadable"
    assert " reads 2 (" in read.detail and "from a square of the other dice's" in read.detail
    assert not shipped.read(_kept("sim-five-read-as-two.png")).accepted


def _kept(frame: str) -> np.ndarray:
    return cv2.imread(str(FRAMES / frame), cv2.IMREAD_COLOR)
