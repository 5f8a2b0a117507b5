"""How well a dice reader reads labelled photos: dice read correctly, read wrong, declined (by reason) or
missed, the confusion of faces, and wrong reads per 1,000 accepted with an honest upper bound.

One module scores every such measurement, so ``bench read dice --labels yolo`` on a lab's own photos and the
benchmarks print the same figures from the same rules:

- The labelled dice are matched to the dice the reader reported (read or declined) by the pairing of least
  total distance, each pair within ``0.6 x`` the label's larger side ``+ 12 px``, each reported die at most
  once (so touching dice are matched to their own reads).
- A matched die read as a face counts in the confusion (right or wrong); a matched die declined counts as
  declined with its reason; a labelled die nothing matches is declined with the frame's reason when the frame
  was declined as a whole, else *missed* (the reader did not see it).
- A die read in an accepted frame where no label is ("read with no label": a die read twice, or a die read where
  none lies) is an accepted read and a wrong one: in a game it would give a wrong count, or a face no die shows.
- Each image declined as a whole is listed with its labelled dice, the reason and the first fault the reader
  names in it (which body, and why), so a lab sees which of its photos the reader declines and what to look at.

Wrong reads per 1,000 accepted are given with the upper end of the Clopper-Pearson 95 % interval: 0 wrong of
300 accepted bounds the rate at 12 per 1,000, not 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from vision.die_reader_calibration import clopper_pearson_upper
from vision.yolo_labels import LabelledDie

MISSED = "missed"
"""The reason counted for a labelled die the reader reported nothing near."""
MATCH_SHARE, MATCH_SLACK_PX = 0.6, 12.0
"""A reported die matches a label within ``MATCH_SHARE x`` the label's larger side plus ``MATCH_SLACK_PX``."""


@dataclass(frozen=True)
class ReportedDie:
    """One die as the reader reported it: read as ``face``, or declined (``face`` None) with ``reason``."""

    centre_px: tuple[float, float]
    face: int | None
    reason: str | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class ImageRead:
    """What the reader said of one image: the dice it reported and, when it declined the frame, why."""

    name: str
    dice: tuple[ReportedDie, ...]
    frame_decline: str | None = None
    frame_detail: str = ""
    """The reader's account of a declined frame: its faults, ``"; "`` between them (each naming a body or die)."""


def upper_bound_per_1000(wrong: int, accepted: int) -> float:
    """Upper end of the Clopper-Pearson 95 % interval of the wrong-read rate, per 1,000 accepted reads (the same
    bound the acceptance threshold's fit states: :func:`vision.die_reader_calibration.clopper_pearson_upper`)."""
    return 1000.0 * clopper_pearson_upper(wrong, accepted)


@dataclass
class DiceScore:
    """The tally over a set of labelled images (see the module's rules)."""

    images: int = 0
    images_accepted: int = 0
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((6, 6), int))
    """Rows: the labelled face 1..6; columns: the face read 1..6."""
    declined: Counter[str] = field(default_factory=Counter)
    """Labelled dice not read, by the reason (``missed`` for dice the reader reported nothing near)."""
    declined_by_face: np.ndarray = field(default_factory=lambda: np.zeros(6, int))
    reads_without_label: int = 0
    disagreements: list[str] = field(default_factory=list)
    """One line per image where an accepted read disagrees with its labels."""
    declined_images: list[str] = field(default_factory=list)
    """One line per image declined as a whole (:func:`declined_line`)."""

    @property
    def labelled(self) -> int:
        return int(self.confusion.sum() + self.declined_by_face.sum())

    @property
    def correct(self) -> int:
        return int(np.trace(self.confusion))

    @property
    def accepted(self) -> int:
        """Dice read as a face in accepted frames: the labelled dice read, and the reads where no label is."""
        return int(self.confusion.sum()) + self.reads_without_label

    @property
    def wrong(self) -> int:
        """Labelled dice read as another face, and the reads where no label is."""
        return self.accepted - self.correct

    @property
    def not_read(self) -> int:
        return int(self.declined_by_face.sum())

    def share(self, count: int) -> float:
        """``count`` as a share of the labelled dice."""
        return count / self.labelled if self.labelled else 0.0

    @property
    def wrong_per_1000(self) -> float:
        return 1000.0 * self.wrong / self.accepted if self.accepted else 0.0

    @property
    def wrong_upper_per_1000(self) -> float:
        return upper_bound_per_1000(self.wrong, self.accepted)

    def to_json(self) -> dict:
        """The figures as a JSON-ready dict."""
        return {"images": self.images, "images_accepted": self.images_accepted, "labelled": self.labelled,
                "correct": self.correct, "wrong": self.wrong, "not_read": self.not_read,
                "wrong_per_1000": round(self.wrong_per_1000, 3),
                "wrong_upper_per_1000": round(self.wrong_upper_per_1000, 3),
                "reads_without_label": self.reads_without_label, "confusion": self.confusion.tolist(),
                "not_read_by_face": self.declined_by_face.tolist(), "not_read_by_reason": dict(self.declined),
                "disagreements": list(self.disagreements), "declined_images": list(self.declined_images)}

    def add(self, labels: Sequence[LabelledDie], read: ImageRead) -> None:
        """Score one image."""
        self.images += 1
        self.images_accepted += read.frame_decline is None
        pairs = match(labels, read.dice)
        used = set(pairs.values())
        notes: list[str] = []
        for number, label in enumerate(labels):
            index = pairs.get(number)
            if index is None:
                reason = read.frame_decline or MISSED
                self._not_read(label.face, reason)
                if read.frame_decline is None:
                    notes.append(f"{label.face} at line {label.line}: missed")
                continue
            die = read.dice[index]
            if die.face is None:
                self._not_read(label.face, die.reason or read.frame_decline or "declined")
                continue
            self.confusion[label.face - 1, die.face - 1] += 1
            if die.face != label.face:
                notes.append(f"{label.face} at line {label.line} read {die.face}")
        extra = sum(1 for index, die in enumerate(read.dice) if index not in used and die.face is not None)
        self.reads_without_label += extra
        if extra:
            notes.append(f"{extra} read(s) with no label")
        if notes:
            self.disagreements.append(f"{read.name}: " + ", ".join(notes))
        if read.frame_decline is not None:
            self.declined_images.append(declined_line(read, len(labels)))

    def add_die(self, face: int, read_face: int | None, reason: str = "declined") -> None:
        """Count one labelled die of ``face`` (1..6) read as ``read_face``, or not read (None) for ``reason``: the
        tally of a reader's crops of labelled dice, where no frame is read whole."""
        if not 1 <= face <= 6 or read_face is not None and not 1 <= read_face <= 6:
            raise ValueError(f"faces are 1..6: labelled {face}, read {read_face}")
        if read_face is None:
            self._not_read(face, reason)
        else:
            self.confusion[face - 1, read_face - 1] += 1

    def add_reads(self, faces: Sequence[int], reads: Sequence[object]) -> None:
        """Count the per-die reader's ``reads`` (each with ``face``, None when declined, and ``detail``) of crops
        of labelled dice whose faces are ``faces``; a decline counts under its reason without its numbers."""
        if len(faces) != len(reads):
            raise ValueError(f"{len(faces)} labelled faces for {len(reads)} reads")
        for face, read in zip(faces, reads, strict=True):
            self.add_die(face, read.face, decline_reason(read.detail))

    def _not_read(self, face: int, reason: str) -> None:
        self.declined[reason] += 1
        self.declined_by_face[face - 1] += 1


def declined_line(read: ImageRead, labelled: int) -> str:
    """The line naming an image declined as a whole: its labelled dice, the reason, and the first fault of the
    reader's detail (the staged reader names the reason's faults first) with how many more it names ("a.jpg: 7 dice,
    unreadable: body at (382, 500) of 0.68 dice: its squares show a die's face with 1.000 (most likely a 2, at
    0.933), but no face reads surely (...) (and 2 more)")."""
    faults = [fault for fault in read.frame_detail.split("; ") if fault]
    first = faults[0] if faults else "no detail given"
    more = f" (and {len(faults) - 1} more)" if len(faults) > 1 else ""
    return f"{read.name}: {labelled} {'die' if labelled == 1 else 'dice'}, {read.frame_decline}: {first}{more}"


def decline_reason(detail: str) -> str:
    """A decline's reason without its numbers: "unsure: face 2 at confidence 0.600, below 0.900" is "unsure"."""
    return detail.split(" (")[0].split(":")[0]


def match(labels: Sequence[LabelledDie], dice: Sequence[ReportedDie]) -> dict[int, int]:
    """Each label's reported die (label index to die index): the pairing of least total distance (the Hungarian
    method), each pair within ``MATCH_SHARE`` of the label's larger side plus ``MATCH_SLACK_PX``. Touching dice's
    labels are so matched to their own dice, not each to whichever read lies nearest its box's centre."""
    if not labels or not dice:
        return {}
    centres = np.array([die.centre_px for die in dice], np.float64)
    reach = np.array([MATCH_SHARE * label.size_px + MATCH_SLACK_PX for label in labels])
    distance = np.linalg.norm(np.array([label.centre_px for label in labels])[:, None, :] - centres[None], axis=2)
    cost = np.where(distance <= reach[:, None], distance, 1e9)
    rows, columns = linear_sum_assignment(cost)
    return {int(r): int(c) for r, c in zip(rows, columns, strict=True) if distance[r, c] <= reach[r]}


def score(pairs: Iterable[tuple[Sequence[LabelledDie], ImageRead]]) -> DiceScore:
    """The score of (labels, read) pairs, one per image."""
    tally = DiceScore()
    for labels, read in pairs:
        tally.add(labels, read)
    return tally


def score_lines(tally: DiceScore, title: str) -> list[str]:
    """The score as plain lines of at most 80 columns: the figures, the confusion, the declines by reason."""
    head = f"{title}: {tally.images} images ({tally.images_accepted} accepted whole)" if tally.images else title
    lines = [head,
             f"  labelled dice     {tally.labelled:6d}",
             f"  read correctly    {tally.correct:6d}  {tally.share(tally.correct):7.1%}",
             f"  read wrong        {tally.wrong:6d}  {tally.share(tally.wrong):7.1%}"
             + (f"  ({tally.reads_without_label} with no label)" if tally.reads_without_label else ""),
             f"  not read          {tally.not_read:6d}  {tally.share(tally.not_read):7.1%}",
             f"  wrong per 1,000 accepted: {tally.wrong_per_1000:.1f} (95 % upper bound "
             + f"{tally.wrong_upper_per_1000:.1f})",
             "  confusion (rows: label; columns: read 1..6, then not read):",
             "         " + " ".join(f"{face:>5d}" for face in range(1, 7)) + "   none"]
    for face in range(1, 7):
        row = " ".join(f"{value:5d}" for value in tally.confusion[face - 1])
        lines.append(f"    {face}    {row}  {tally.declined_by_face[face - 1]:5d}")
    if tally.declined:
        lines.append("  not read, by reason:")
        lines += [f"    {reason:<24} {count:6d}" for reason, count in tally.declined.most_common()]
    return lines


def image_lines(tally: DiceScore) -> list[str]:
    """The images to look at, each under its heading (a heading only over images): those where an accepted read
    disagrees with the labels, then those declined whole. Lines may pass 80 columns: each names its image."""
    lines: list[str] = []
    for heading, images in (("accepted reads that disagree with the labels:", tally.disagreements),
                            ("images declined whole (the first fault the reader names):", tally.declined_images)):
        if images:
            lines += [f"  {heading}", *(f"    {line}" for line in images)]
    return lines


def image_read_of(name: str, read: object) -> ImageRead:
    """An :class:`ImageRead` from a frame read (``dice`` with ``face``, ``centre_px``, ``confidence``;
    ``decline``; ``detail``). A frame declined as a whole reports no die: none of its reads is an outcome."""
    decline = getattr(read, "decline", None)
    if decline is not None:
        return ImageRead(name, (), str(decline), str(getattr(read, "detail", "") or ""))
    return ImageRead(name, tuple(ReportedDie(tuple(die.centre_px), die.face, None, getattr(die, "confidence", None))
                                 for die in read.dice))
