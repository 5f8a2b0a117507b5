"""The reader's probabilities on every proposed square of labelled photos, each with its true class."""

from __future__ import annotations

import numpy as np
from synthetic_dice import SpotCounter, die_frame

from vision.dice_calibration_samples import NOT_A_DIE, calibration_samples, true_class
from vision.die_crop import DieSquare
from vision.yolo_labels import LabelledDie


def labels_of(centres: list[tuple[float, float]], faces: list[int]) -> list[LabelledDie]:
    return [LabelledDie(face, centre, 40.0, 40.0, line) for line, (centre, face) in
            enumerate(zip(centres, faces, strict=True), start=1)]


def test_a_square_takes_the_face_of_the_labelled_die_it_lies_on() -> None:
    labels = labels_of([(60, 60), (160, 120)], [3, 6])
    assert true_class(DieSquare((65.0, 58.0), 40.0), labels) == 2
    # matched as the scoring matches a die read to a label: within 0.6 x 40 + 12 = 36 px
    assert true_class(DieSquare((160.0, 155.0), 40.0), labels) == 5  # 35 px off
    assert true_class(DieSquare((160.0, 157.0), 40.0), labels) == NOT_A_DIE  # 37 px off
    assert true_class(DieSquare((110.0, 90.0), 40.0), labels) == NOT_A_DIE


def test_every_proposed_square_is_read_and_given_its_truth() -> None:
    centres, faces = [(60, 60), (160, 120), (250, 180)], [3, 6, 1]
    frame, _ = die_frame(centres, faces=faces)
    reader = SpotCounter()
    samples = calibration_samples([(frame, labels_of(centres, faces))], reader)
    assert samples.probabilities.shape == (len(reader.crops), 7) and len(samples.truth) == len(reader.crops)
    assert (samples.images, samples.labelled, samples.labelled_with_a_square) == (1, 3, 3)
    assert set(samples.truth.tolist()) >= {0, 2, 5}
    read = samples.probabilities.argmax(axis=1)
    faces_read = read != NOT_A_DIE  # the reader reads only centred squares, each right
    assert set(read[faces_read].tolist()) == {0, 2, 5} and np.all(read[faces_read] == samples.truth[faces_read])


def test_a_die_left_unlabelled_makes_its_squares_not_a_die() -> None:
    centres, faces = [(60, 60), (160, 120)], [3, 6]
    frame, _ = die_frame(centres, faces=faces)
    samples = calibration_samples([(frame, labels_of(centres[:1], faces[:1]))], SpotCounter())
    assert samples.labelled == 1 and (samples.truth == NOT_A_DIE).sum() >= 1


def test_squares_are_grouped_by_the_die_they_lie_on_or_else_by_their_body() -> None:
    centres, faces = [(60, 60), (160, 120), (250, 180)], [3, 6, 1]
    frame, _ = die_frame(centres, faces=faces)
    labels = labels_of(centres[:2], faces[:2])  # the third die left unlabelled: its squares lie on no die
    samples = calibration_samples([(frame, labels), (frame, labels)], SpotCounter())
    assert samples.groups is not None and samples.groups.shape == samples.truth.shape
    half = len(samples.truth) // 2  # the same photo twice: the same squares, in the same order
    first, second = samples.groups[:half], samples.groups[half:]
    assert not set(first.tolist()) & set(second.tolist())  # no group spans two photos
    for groups in (first, second):
        truth = samples.truth[:half]
        on_dice = {truth[i]: set() for i in range(half) if truth[i] != NOT_A_DIE}
        for group, face in zip(groups, truth, strict=True):
            if face != NOT_A_DIE:
                on_dice[face].add(int(group))
        assert all(len(found) == 1 for found in on_dice.values())  # one group for each labelled die...
        assert len({next(iter(found)) for found in on_dice.values()}) == len(on_dice)  # ...each its own
        off = {int(group) for group, face in zip(groups, truth, strict=True) if face == NOT_A_DIE}
        assert off and not off & set().union(*on_dice.values())  # squares on no die: their bodies' groups
    assert len(set(samples.groups.tolist())) < len(samples.groups)  # several squares share a group
