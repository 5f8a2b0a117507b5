"""The per-die reader's acceptance threshold, fitted on labelled crops it was never trained on.

:func:`fit_threshold` takes the model's class probabilities over a validation set and the true classes,
and returns the smallest threshold at which the share of wrong reads among accepted ones is at most
``max_wrong_rate`` (1 per 1,000 by default) at that threshold and at every higher one (so a threshold a
little above the fit is no worse). A read is accepted when its best class is a face and its probability
reaches the threshold; it is wrong when that face is not the truth (a face read on a crop that is not a
flat readable die counts as wrong). The fit also states the Clopper-Pearson 95 % interval's upper end of
the wrong rate, which tells how far so many validation crops can vouch for the target: with no wrong
read among n accepted it is about 3.7 / n. A lab calls it on its own labelled photos.

:func:`lab_threshold` decides what a lab's fit may write: a threshold above the model card's is always
kept (it declines more), one below it only when the lab's photos vouch for the target at 95 % (the upper
bound of the wrong rate at that threshold is within it). A dozen photos with no wrong read among 40
accepted squares vouch only for 88 wrong per 1,000, so they keep the card's threshold.

The squares are not independent trials: the stages propose several squares on one die (shifted, turned, of
other sizes), and their reads are of the same die under the same light. Given each square's **group** (the
labelled die it lies on, or the body it lies in where it lies on none), the bound that vouches is taken over
groups instead: a group is accepted when one of its squares is, and wrong when one of its accepted squares is
wrong. Counting squares would vouch for a rate lower than the photos show: at the shipped model card's
threshold, 637 accepted squares of the Byler validation photos lie on 309 dice or bodies (2.1 each), and 83 of the
matteop65 ones on 47 (1.8 each).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import beta

TARGET_WRONG_RATE = 0.001
"""At most 1 wrong read per 1,000 accepted."""


@dataclass(frozen=True)
class Calibration:
    """A fitted threshold and what it gives on the crops it was fitted on."""

    threshold: float
    crops: int
    accepted: int
    wrong: int
    max_wrong_rate: float
    groups_accepted: int | None = None
    """Groups (see the module) with a square accepted, when the squares' groups are known."""
    groups_wrong: int | None = None
    """Groups with an accepted square read wrong."""

    @property
    def wrong_rate(self) -> float:
        """Wrong reads among accepted ones (0 when none is accepted)."""
        return self.wrong / self.accepted if self.accepted else 0.0

    @property
    def wrong_rate_upper_95(self) -> float:
        """Upper end of the Clopper-Pearson two-sided 95 % interval of the wrong rate among accepted."""
        return clopper_pearson_upper(self.wrong, self.accepted)

    @property
    def groups_wrong_rate_upper_95(self) -> float | None:
        """Upper end of the Clopper-Pearson 95 % interval of the wrong rate among accepted groups (None: groups
        not known)."""
        if self.groups_accepted is None or self.groups_wrong is None:
            return None
        return clopper_pearson_upper(self.groups_wrong, self.groups_accepted)

    @property
    def vouching_upper_95(self) -> float:
        """The upper bound that says what these reads vouch for: over groups where they are known, else over
        squares."""
        by_group = self.groups_wrong_rate_upper_95
        return self.wrong_rate_upper_95 if by_group is None else by_group

    @property
    def accepted_share(self) -> float:
        """Accepted crops among all crops."""
        return self.accepted / self.crops if self.crops else 0.0

    def as_dict(self) -> dict[str, float | int]:
        """The figures for a model's card or a report."""
        figures: dict[str, float | int] = {
            "threshold": self.threshold, "crops": self.crops, "accepted": self.accepted, "wrong": self.wrong,
            "max_wrong_rate": self.max_wrong_rate, "wrong_rate": self.wrong_rate,
            "wrong_rate_upper_95": self.wrong_rate_upper_95}
        if self.groups_accepted is not None and self.groups_wrong is not None:
            figures |= {"groups_accepted": self.groups_accepted, "groups_wrong": self.groups_wrong,
                        "groups_wrong_rate_upper_95": self.vouching_upper_95}
        return figures


@dataclass(frozen=True)
class LabThreshold:
    """The threshold a lab's calibration writes, and why."""

    threshold: float
    fitted: float
    card: float
    vouched: bool
    reason: str

    def as_dict(self) -> dict[str, float | bool | str]:
        """The figures for the reader configuration's ``calibration``."""
        return {"fitted_threshold": self.fitted, "card_threshold": self.card, "vouched": self.vouched,
                "threshold_rule": self.reason}


def lab_threshold(fit: Calibration, card_threshold: float) -> LabThreshold:
    """The threshold to write from a lab's ``fit``, never below ``card_threshold`` unless the fit vouches for
    its target at 95 % (see the module's docstring)."""
    vouched = fit.accepted > 0 and fit.vouching_upper_95 <= fit.max_wrong_rate
    if fit.threshold >= card_threshold:
        return LabThreshold(fit.threshold, fit.threshold, card_threshold, vouched,
                            "the lab's fit, at or above the model card's threshold")
    if vouched:
        return LabThreshold(fit.threshold, fit.threshold, card_threshold, vouched,
                            "the lab's fit, below the model card's threshold: its photos vouch for the target")
    return LabThreshold(card_threshold, fit.threshold, card_threshold, vouched,
                        "the model card's threshold: the lab's fit lies below it and its photos do not vouch "
                        "for the target")


def clopper_pearson_upper(wrong: int, total: int, confidence: float = 0.95) -> float:
    """Upper end of the Clopper-Pearson (exact binomial) two-sided interval of ``wrong / total``."""
    if total <= 0:
        return 1.0
    if wrong >= total:
        return 1.0
    return float(beta.ppf(1 - (1 - confidence) / 2, wrong + 1, total - wrong))


def _face_reads(probabilities: np.ndarray, truth: np.ndarray, max_wrong_rate: float, not_a_die: int | None,
                groups: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """The reads whose best class is a face: their confidence, whether each is wrong (int 0/1) and its group (None
    without ``groups``); and every read's confidence. Shapes and the rate are checked (see :func:`fit_threshold`)."""
    probabilities = np.asarray(probabilities, np.float64)
    truth = np.asarray(truth)
    if probabilities.ndim != 2 or len(probabilities) != len(truth):
        raise ValueError(f"probabilities {probabilities.shape} and truth {truth.shape} do not match")
    if not 0 <= max_wrong_rate < 1:
        raise ValueError(f"max_wrong_rate must be within 0..1, got {max_wrong_rate}")
    if groups is not None and np.shape(groups) != truth.shape:
        raise ValueError(f"groups {np.shape(groups)} and truth {truth.shape} do not match")
    rejected_class = probabilities.shape[1] - 1 if not_a_die is None else not_a_die
    best = probabilities.argmax(axis=1)
    confidence = probabilities.max(axis=1)
    face_reads = best != rejected_class
    return (confidence[face_reads], (best[face_reads] != truth[face_reads]).astype(np.int64),
            None if groups is None else np.asarray(groups)[face_reads], confidence)


def _group_figures(accepted: np.ndarray, wrong: np.ndarray, groups: np.ndarray | None) -> tuple[int | None, int | None]:
    """Groups with an accepted read, and groups with an accepted read wrong (None, None without groups)."""
    if groups is None:
        return None, None
    return len(np.unique(groups[accepted])), len(np.unique(groups[accepted & (wrong == 1)]))


def figures_at(probabilities: np.ndarray, truth: np.ndarray, threshold: float,
               max_wrong_rate: float = TARGET_WRONG_RATE, not_a_die: int | None = None,
               groups: np.ndarray | None = None) -> Calibration:
    """What ``threshold`` gives on these reads (accepted, wrong, and by ``groups`` when given), by the rule
    :func:`fit_threshold` fits: for a threshold in force that is not the fitted one (a lab's fit kept at the model
    card's threshold)."""
    conf, wrong, face_groups, _ = _face_reads(probabilities, truth, max_wrong_rate, not_a_die, groups)
    accepted = conf >= threshold
    return Calibration(threshold, len(truth), int(accepted.sum()), int(wrong[accepted].sum()), max_wrong_rate,
                       *_group_figures(accepted, wrong, face_groups))


def fit_threshold(probabilities: np.ndarray, truth: np.ndarray, max_wrong_rate: float = TARGET_WRONG_RATE,
                  not_a_die: int | None = None, groups: np.ndarray | None = None) -> Calibration:
    """The smallest threshold whose wrong rate among accepted reads is at most ``max_wrong_rate`` there and at
    every higher threshold (see the module's docstring).

    ``probabilities``: (N, C) class probabilities, the last class (or ``not_a_die``) being "not a flat
    readable die"; ``truth``: (N,) true class indices; ``groups``: (N,) each read's group (see the module), whose
    figures the fit then states too (the threshold is fitted on the reads either way). When no threshold below 1
    qualifies the threshold is just above the highest confidence, so nothing of this set is accepted.
    """
    conf, wrong, face_groups, confidence = _face_reads(probabilities, truth, max_wrong_rate, not_a_die, groups)
    order = np.argsort(-conf, kind="stable")
    conf, wrong = conf[order], wrong[order]
    face_groups = None if face_groups is None else face_groups[order]
    # accepting the k most confident reads: wrong among them, over k
    accepted = np.arange(1, len(conf) + 1)
    wrong_so_far = np.cumsum(wrong)
    # the threshold conf[k-1] accepts every read with confidence >= it: take the last of each run of ties
    last_of_tie = np.ones(len(conf), bool)
    last_of_tie[:-1] = conf[:-1] != conf[1:]
    ok = (wrong_so_far <= max_wrong_rate * accepted) | ~last_of_tie
    # every higher threshold must qualify too: the qualifying prefix of the sorted reads
    failing = np.nonzero(~ok)[0]
    prefix = len(conf) if len(failing) == 0 else int(failing[0])
    candidates = np.nonzero(last_of_tie[:prefix])[0]
    if len(candidates) == 0:
        threshold = float(np.nextafter(confidence.max(), 2.0)) if len(confidence) else 1.0
        return Calibration(min(threshold, 1.0), len(truth), 0, 0, max_wrong_rate,
                           *_group_figures(np.zeros(len(conf), bool), wrong, face_groups))
    k = int(candidates[-1])
    return Calibration(float(conf[k]), len(truth), k + 1, int(wrong_so_far[k]), max_wrong_rate,
                       *_group_figures(accepted <= k + 1, wrong, face_groups))
