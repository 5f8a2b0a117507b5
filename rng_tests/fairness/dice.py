"""Fairness of dice outcomes: faces per die, sums of dice, independence between dice.

Clauses: p217-2007/banca-francesa/3 e), p217-2007/craps/2 e) and p217-2007/cussec/1 e) require
"perfectly balanced" dice; the observable consequence is that each die shows each face with
probability 1/6, independently of the other dice and of earlier throws. The sums the games pay
on (banca-francesa/9: 3, 5-7, 14-16 with three dice; cussec/7 h): 4-17; craps: 2-12 with two
dice) then have the exact convolution probabilities computed by :func:`sum_probabilities`.

Outcomes are an array of shape (N, d): one row per throw, one column per die, faces 1..6.
Column j is die j when the dice can be told apart (craps dice are numbered, craps/2), or a
position (e.g. left to right in the arena) when they cannot; the caller labels the columns.

Tests (each returns a :class:`~rng_tests.result.TestResult`; p-values follow the policy of
:mod:`rng_tests.fairness.goodness_of_fit`: asymptotic when every expected count is ≥ 5, else
exact or Monte-Carlo with a fixed seed):

* :func:`face_tests` — per column, H0: faces uniform; Pearson chi-square, 5 d.f.
* :func:`pooled_face_test` — all N·d faces pooled (valid under H0 since all faces are independent).
* :func:`sum_test` — H0: the sum of the d dice follows the exact convolution of d fair dice.
* :func:`pair_independence_tests` — for every pair of columns, the 6×6 contingency table;
  H0: the two dice are independent (whatever their face probabilities).
* :func:`joint_independence_test` — the full 6^d table; H0: the d dice are mutually independent.
* :func:`joint_uniformity_test` — the full 6^d table against 1/6^d (fair and independent),
  which is what bets on given combinations (cussec/7 d)-g)) rely on.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from rng_tests.fairness.goodness_of_fit import contingency_independence, pearson_chi_square
from rng_tests.result import TestResult

FACES = 6
FAIR_FACE_NULL = "the die shows each face 1-6 with probability 1/6, independently from throw to throw"


def validate_outcomes(outcomes: Sequence[Sequence[int]] | Sequence[int] | np.ndarray) -> np.ndarray:
    """Outcomes as an (N, d) int array of faces 1..6 (a 1-D array is one die), else ValueError."""
    values = np.asarray(outcomes)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2 or values.shape[1] < 1:
        raise ValueError("outcomes must have shape (N, dice): one row per throw, one column per die")
    if values.shape[0] == 0:
        raise ValueError("no throws")
    if not np.issubdtype(values.dtype, np.integer) or values.min() < 1 or values.max() > FACES:
        raise ValueError(f"outcomes must be whole faces 1-{FACES}")
    return values.astype(np.int64)


def _labels(labels: Sequence[str] | None, dice: int) -> list[str]:
    if labels is None:
        return [f"die {index + 1}" for index in range(dice)]
    if len(labels) != dice:
        raise ValueError(f"labels must name each of the {dice} columns")
    return [str(label) for label in labels]


def face_counts(outcomes: Sequence[Sequence[int]] | np.ndarray) -> np.ndarray:
    """Counts of faces 1..6 per column: shape (d, 6)."""
    values = validate_outcomes(outcomes)
    return np.stack([np.bincount(values[:, j] - 1, minlength=FACES) for j in range(values.shape[1])])


_FACE_NAMES = [str(face) for face in range(1, FACES + 1)]


def face_tests(
    outcomes: Sequence[Sequence[int]] | np.ndarray, labels: Sequence[str] | None = None, **options: Any
) -> list[TestResult]:
    """One Pearson GOF per column (die or position) against faces 1/6; ``options`` go to pearson_chi_square."""
    counts = face_counts(outcomes)
    names = _labels(labels, counts.shape[0])
    return [pearson_chi_square(row, test=f"dice faces, {name}", null_hypothesis=FAIR_FACE_NULL,
                               categories=_FACE_NAMES, **options)
            for name, row in zip(names, counts)]


def pooled_face_test(outcomes: Sequence[Sequence[int]] | np.ndarray, **options: Any) -> TestResult:
    """Pearson GOF of all N·d faces pooled against 1/6 (detects a bias shared by every die)."""
    counts = face_counts(outcomes).sum(axis=0)
    return pearson_chi_square(counts, test="dice faces, all dice pooled",
                              null_hypothesis="every die shows each face with probability 1/6, all independently",
                              categories=_FACE_NAMES, **options)


def sum_probabilities(dice: int, faces: int = FACES) -> tuple[np.ndarray, np.ndarray]:
    """Exact distribution of the sum of ``dice`` fair dice: (sums dice..faces·dice, probabilities).

    The number of ways is the ``dice``-fold convolution of ``faces`` ones (integers, exact);
    probabilities are ways / faces**dice (e.g. two dice: 1, 2, ..., 6, ..., 1 over 36).
    """
    if dice < 1 or faces < 2:
        raise ValueError("need at least one die with at least two faces")
    ways = np.ones(1, dtype=np.int64)
    for _ in range(dice):
        ways = np.convolve(ways, np.ones(faces, dtype=np.int64))
    return np.arange(dice, dice * faces + 1), ways / float(faces**dice)


def sum_test(outcomes: Sequence[Sequence[int]] | np.ndarray, **options: Any) -> TestResult:
    """The sum of the d dice of each throw against its exact distribution (Pearson GOF, 5d d.f.).

    Two dice: sums 2-12; three dice: 3-18. Tail sums are rare (3 and 18 have probability 1/216),
    so below ~1,100 throws of three dice the p-value is Monte-Carlo rather than asymptotic.
    """
    values = validate_outcomes(outcomes)
    dice = values.shape[1]
    if dice < 2:
        raise ValueError("the sum test needs at least two dice per throw")
    sums, probabilities = sum_probabilities(dice)
    counts = np.bincount(values.sum(axis=1) - dice, minlength=sums.size)
    return pearson_chi_square(
        counts, probabilities, test=f"sum of {dice} dice",
        null_hypothesis=f"the sum of {dice} fair, independent dice: exact convolution probabilities",
        categories=[str(s) for s in sums], **options)


def _joint_table(values: np.ndarray) -> np.ndarray:
    dice = values.shape[1]
    flat = np.ravel_multi_index(tuple((values - 1).T), (FACES,) * dice)
    return np.bincount(flat, minlength=FACES**dice).reshape((FACES,) * dice)


def pair_independence_tests(
    outcomes: Sequence[Sequence[int]] | np.ndarray, labels: Sequence[str] | None = None, **options: Any
) -> list[TestResult]:
    """For every pair of columns (i < j), independence in the 6×6 table of their faces.

    H0: die i and die j are independent. ``options`` go to
    :func:`~rng_tests.fairness.goodness_of_fit.contingency_independence` (``statistic``,
    ``monte_carlo_samples``, ``seed``).
    """
    values = validate_outcomes(outcomes)
    names = _labels(labels, values.shape[1])
    results = []
    for i, j in itertools.combinations(range(values.shape[1]), 2):
        table = _joint_table(values[:, [i, j]])
        results.append(contingency_independence(
            table, test=f"dice independence, {names[i]} vs {names[j]}",
            null_hypothesis=f"the faces of {names[i]} and {names[j]} are independent", **options))
    return results


def joint_independence_test(outcomes: Sequence[Sequence[int]] | np.ndarray, **options: Any) -> TestResult:
    """Mutual independence of all d dice in the full 6^d table (d ≥ 2).

    Degrees of freedom 6^d − 1 − 5d (200 for three dice); with fewer than ~1,100 throws of three
    dice the expected counts are below 5 and the p-value is Monte-Carlo conditional on each die's
    face counts.
    """
    values = validate_outcomes(outcomes)
    if values.shape[1] < 2:
        raise ValueError("independence needs at least two dice per throw")
    return contingency_independence(
        _joint_table(values), test=f"dice joint independence ({values.shape[1]} dice)",
        null_hypothesis="the faces of all the dice of a throw are mutually independent", **options)


def joint_uniformity_test(outcomes: Sequence[Sequence[int]] | np.ndarray, **options: Any) -> TestResult:
    """Every ordered combination of faces equally likely, 1/6^d (dice fair and independent); Pearson GOF."""
    values = validate_outcomes(outcomes)
    dice = values.shape[1]
    combinations = ["-".join(str(face) for face in combo)
                    for combo in itertools.product(range(1, FACES + 1), repeat=dice)]
    return pearson_chi_square(
        _joint_table(values).ravel(), test=f"dice combinations ({dice} dice)",
        null_hypothesis=f"every ordered combination of {dice} faces has probability 1/{FACES**dice}",
        categories=combinations, **options)


def dice_fairness_tests(
    outcomes: Sequence[Sequence[int]] | np.ndarray, labels: Sequence[str] | None = None, **options: Any
) -> dict[str, TestResult]:
    """The whole family for a set of dice, keyed by a stable name (feed it to Holm's adjustment).

    Faces per column, pooled faces; with two or more dice also the sum, every pair's independence
    and the joint independence. ``options`` (``monte_carlo_samples``, ``seed``) go to every test.
    """
    values = validate_outcomes(outcomes)
    names = _labels(labels, values.shape[1])
    family: dict[str, TestResult] = {}
    for name, result in zip(names, face_tests(values, names, **options)):
        family[f"faces/{name}"] = result
    family["faces/pooled"] = pooled_face_test(values, **options)
    if values.shape[1] >= 2:
        family["sum"] = sum_test(values, **options)
        pairs = itertools.combinations(names, 2)
        for (a, b), result in zip(pairs, pair_independence_tests(values, names, **options)):
            family[f"independence/{a}~{b}"] = result
        if values.shape[1] >= 3:
            family["independence/joint"] = joint_independence_test(values, **options)
    return family
