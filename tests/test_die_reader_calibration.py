"""The per-die reader's acceptance threshold fitted on validation crops, and the figures it states."""

from __future__ import annotations

import numpy as np
import pytest

from vision.die_reader_calibration import (
    Calibration,
    clopper_pearson_upper,
    figures_at,
    fit_threshold,
    lab_threshold,
)


def _probabilities(best: np.ndarray, confidence: np.ndarray, classes: int = 7) -> np.ndarray:
    rest = (1 - confidence) / (classes - 1)
    probabilities = np.repeat(rest[:, None], classes, axis=1)
    probabilities[np.arange(len(best)), best] = confidence
    return probabilities


def _reference_threshold(best: np.ndarray, confidence: np.ndarray, truth: np.ndarray, rate: float) -> float:
    """Brute force: the smallest candidate threshold t such that at t and every higher candidate the
    wrong rate among accepted face reads is at most ``rate``."""
    faces = best != 6
    candidates = sorted(set(confidence[faces].tolist()))

    def qualifies(t: float) -> bool:
        accepted = faces & (confidence >= t)
        return (best[accepted] != truth[accepted]).sum() <= rate * accepted.sum()

    good = [t for t in candidates if all(qualifies(u) for u in candidates if u >= t)]
    return min(good)


def test_the_threshold_is_the_smallest_keeping_wrong_reads_within_the_target() -> None:
    rng = np.random.default_rng(11)
    n = 3000
    truth = rng.integers(0, 6, n)
    confidence = rng.uniform(0.5, 1.0, n)
    best = truth.copy()
    # 30 wrong reads, most of them unsure, two of them fairly confident
    wrong = rng.choice(n, 30, replace=False)
    best[wrong] = (truth[wrong] + 1) % 6
    confidence[wrong] = np.r_[rng.uniform(0.5, 0.8, 28), 0.93, 0.97]
    calibration = fit_threshold(_probabilities(best, confidence), truth, max_wrong_rate=0.001)
    assert calibration.threshold == pytest.approx(_reference_threshold(best, confidence, truth, 0.001))
    accepted = confidence >= calibration.threshold
    assert calibration.accepted == int(accepted.sum())
    assert calibration.wrong == int((best[accepted] != truth[accepted]).sum())
    assert calibration.wrong_rate <= 0.001
    # one threshold step lower lets in more wrong reads than the target allows somewhere
    assert calibration.threshold > 0.93


def test_reads_of_the_not_a_die_class_are_never_accepted_nor_counted() -> None:
    truth = np.array([0, 1, 6, 6])
    best = np.array([0, 1, 6, 6])
    confidence = np.array([0.9, 0.8, 0.99, 0.99])
    calibration = fit_threshold(_probabilities(best, confidence), truth)
    assert calibration.threshold == pytest.approx(0.8)
    assert (calibration.accepted, calibration.wrong, calibration.crops) == (2, 0, 4)


def test_a_face_read_on_a_crop_that_is_no_die_counts_as_wrong() -> None:
    truth = np.array([6, 2, 2])
    best = np.array([3, 2, 2])
    confidence = np.array([0.7, 0.9, 0.95])
    calibration = fit_threshold(_probabilities(best, confidence), truth, max_wrong_rate=0.0)
    assert calibration.threshold == pytest.approx(0.9)
    assert calibration.accepted == 2


def test_when_no_threshold_qualifies_nothing_is_accepted() -> None:
    truth = np.array([0, 0])
    best = np.array([1, 1])
    calibration = fit_threshold(_probabilities(best, np.array([0.9, 0.6])), truth)
    assert calibration.accepted == 0
    assert calibration.threshold > 0.9


def test_clopper_pearson_upper_end_matches_its_closed_form() -> None:
    # no failure among n: the upper end of the two-sided 95 % interval is 1 - 0.025 ** (1 / n)
    assert clopper_pearson_upper(0, 3000) == pytest.approx(1 - 0.025 ** (1 / 3000), rel=1e-9)
    assert clopper_pearson_upper(0, 0) == 1.0
    assert 0.001 < clopper_pearson_upper(1, 1000) < 0.0056


def test_mismatched_shapes_are_refused() -> None:
    with pytest.raises(ValueError, match="do not match"):
        fit_threshold(np.zeros((3, 7)), np.zeros(2))


def test_a_lab_fit_below_the_card_is_kept_only_when_its_photos_vouch_for_the_target() -> None:
    card = 0.99
    few = Calibration(threshold=0.71, crops=60, accepted=40, wrong=0, max_wrong_rate=0.001)
    assert few.wrong_rate_upper_95 > 0.08  # 0 of 40 vouches only for ~88 per 1,000
    kept = lab_threshold(few, card)
    assert kept.threshold == card and kept.fitted == 0.71 and not kept.vouched
    assert "card" in kept.reason
    many = Calibration(threshold=0.71, crops=6000, accepted=5000, wrong=0, max_wrong_rate=0.001)
    assert many.wrong_rate_upper_95 < 0.001  # 0 of 5,000: upper ~0.74 per 1,000
    lowered = lab_threshold(many, card)
    assert lowered.threshold == 0.71 and lowered.vouched
    one_wrong = Calibration(threshold=0.71, crops=6000, accepted=5000, wrong=1, max_wrong_rate=0.001)
    assert lab_threshold(one_wrong, card).threshold == card  # 1 of 5,000: upper ~1.1 per 1,000


def test_a_lab_fit_above_the_card_is_always_kept() -> None:
    stricter = Calibration(threshold=0.999, crops=30, accepted=5, wrong=0, max_wrong_rate=0.001)
    chosen = lab_threshold(stricter, 0.99)
    assert chosen.threshold == 0.999 and not chosen.vouched
    nothing = Calibration(threshold=1.0, crops=30, accepted=0, wrong=0, max_wrong_rate=0.001)
    assert lab_threshold(nothing, 0.99).threshold == 1.0


def test_the_figures_at_a_threshold_in_force_follow_the_fits_rule() -> None:
    rng = np.random.default_rng(5)
    best = rng.integers(0, 7, 400)
    confidence = rng.uniform(0.5, 1.0, 400)
    truth = np.where(rng.random(400) < 0.9, best, (best + 1) % 7)
    probabilities = _probabilities(best, confidence)
    fit = fit_threshold(probabilities, truth, 0.05)
    assert figures_at(probabilities, truth, fit.threshold, 0.05) == fit  # the fit's own figures, reproduced
    stricter = figures_at(probabilities, truth, 0.9, 0.05)
    faces = best != 6
    assert stricter.accepted == int((faces & (confidence >= 0.9)).sum())
    assert stricter.wrong == int((faces & (confidence >= 0.9) & (best != truth)).sum())
    assert stricter.threshold == 0.9 and stricter.crops == 400


def test_squares_on_one_die_vouch_once_not_once_each() -> None:
    """5,000 accepted squares, none wrong, vouch for 1 wrong per 1,000 at 95 % as independent trials (upper bound
    about 0.74 per 1,000); as 5 squares on each of 1,000 dice they vouch only for about 3.7, so a lab's fit below
    the card is not written."""
    card = 0.999
    best = np.zeros(6000, int)
    best[5000:] = 6  # 1,000 squares read as no die
    probabilities = _probabilities(best, np.full(6000, 0.995))
    truth = np.zeros(6000, int)
    independent = fit_threshold(probabilities, truth, 0.001, groups=np.arange(6000))
    assert independent.groups_accepted == 5000 and independent.vouching_upper_95 < 0.001
    assert lab_threshold(independent, card).threshold == independent.threshold < card
    five_a_die = fit_threshold(probabilities, truth, 0.001, groups=np.arange(6000) // 5)
    assert five_a_die.threshold == independent.threshold and five_a_die.accepted == 5000  # the same fit...
    assert five_a_die.groups_accepted == 1000 and five_a_die.groups_wrong == 0
    assert five_a_die.vouching_upper_95 == pytest.approx(clopper_pearson_upper(0, 1000))
    assert five_a_die.wrong_rate_upper_95 < 0.001 < five_a_die.vouching_upper_95  # ...vouching for less
    kept = lab_threshold(five_a_die, card)
    assert kept.threshold == card and not kept.vouched
    assert five_a_die.as_dict()["groups_accepted"] == 1000


def test_a_group_is_wrong_when_one_of_its_accepted_squares_is() -> None:
    best = np.array([0, 0, 1, 1, 2, 2])
    confidence = np.array([0.99, 0.98, 0.99, 0.6, 0.99, 0.99])
    truth = np.array([0, 1, 1, 0, 2, 2])  # group 0: one square wrong; group 1: its wrong square not accepted
    groups = np.array([0, 0, 1, 1, 2, 2])
    at = figures_at(_probabilities(best, confidence), truth, 0.9, 0.5, groups=groups)
    assert (at.accepted, at.wrong, at.groups_accepted, at.groups_wrong) == (5, 1, 3, 1)
    assert figures_at(_probabilities(best, confidence), truth, 0.9, 0.5).groups_accepted is None
    with pytest.raises(ValueError, match="groups"):
        fit_threshold(_probabilities(best, confidence), truth, 0.5, groups=groups[:4])
