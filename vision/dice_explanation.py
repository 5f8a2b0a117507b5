"""Accept a dice body only when exactly one set of die readings explains all of it.

A body (one connected region the table model does not explain) may hold one die, several touching dice, a
die leaning on another, or something that is no die. The stage before proposes squares where dice may be
and the per-die reader reads each square's crop; this stage decides what the body holds:

1. The *sure* readings (a face 1..6 at or above the calibrated acceptance threshold) are gathered into
   *sites*: readings whose centres lie within ``same_die_share`` of an edge of each other are of one die.
   A sure reading of a square well inside a larger square read as another face frames a part of that die's
   face (two pips of a four are a two, three of a six a three) and is set aside (``part_share``). Any other
   two sure readings of one site that give different faces make the body unreadable (the reader does not
   know which face it sees) — never the more confident one.
2. Two sites closer than ``apart_share`` of an edge would be two dice in one place: unreadable. Unless they
   read the same face and a sure reading of that face lies between them, within ``same_die_share`` of an edge
   of both: then they are one die read from two squares off its centre on either side (a four or a five reads
   so from a square a quarter of an edge off along a diagonal), and the reading between them is its site. The
   pipeline reads the square midway between two such sites (:func:`bridge_squares`) for that.
3. The sites must explain the body: its pixels outside every site's square, grown by the side faces a
   flat die may show to this camera (``side_share`` of an edge on each side), its shadow aside (pixels
   darker than the table but of its colour), must stay under
   ``unexplained_share`` of a die's area, and the body may not be larger than its dice could make it. A
   body not so explained is returned *unexplained*, with the pixels its sites leave: what it holds beyond
   its sites (a leaning die, a die on another, a smear, glare, or nothing but a shadow) is for the scene's
   judge to name, never read.

A site is one die; its reading is its most confident sure reading. Nothing here is a guess: a body is
either explained whole, or declined with the reason and the figures that made it so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.die_crop import DieSquare
from vision.die_reader_model import FACES, sure_face


@dataclass(frozen=True)
class DieReading:
    """The per-die reader's reading of one proposed square: a probability per class (faces 1..6 first)."""

    square: DieSquare
    probabilities: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.probabilities) < FACES or not all(0.0 <= p <= 1.0 for p in self.probabilities):
            raise ValueError(f"a reading needs a probability within 0..1 for each of at least {FACES} classes, "
                             f"got {self.probabilities}")

    @property
    def best_class(self) -> int:
        """The most probable class (the first of equals, as :func:`numpy.argmax` gives it), without building an array
        for a tuple of seven numbers: the stages ask it about 175 times a frame."""
        probabilities = self.probabilities
        return max(range(len(probabilities)), key=probabilities.__getitem__)

    @property
    def face(self) -> int | None:
        """The face read (1..6), or None when the best class is "not a flat readable die"."""
        return self.best_class + 1 if self.best_class < FACES else None

    @property
    def confidence(self) -> float:
        return float(self.probabilities[self.best_class])

    @property
    def centre_px(self) -> tuple[float, float]:
        return self.square.centre_px

    @property
    def likeliest_face(self) -> tuple[int, float]:
        """The face (1..6) given the most probability, and that probability, whatever "not a flat readable die"
        is given."""
        probabilities = self.probabilities
        best = max(range(FACES), key=probabilities.__getitem__)
        return best + 1, float(probabilities[best])

    @property
    def face_likelihood(self) -> float:
        """The probability the reader gives the faces together (1 - "not a flat readable die")."""
        return float(sum(self.probabilities[:FACES]))

    def to_json(self) -> dict:
        """A JSON-ready dict: the face, the square (centre, edge, turn) and the confidence."""
        square = self.square
        return {"face": self.face, "centre_px": [round(v, 2) for v in square.centre_px],
                "edge_px": round(square.edge_px, 2), "angle_deg": round(square.angle_deg, 2),
                "confidence": round(self.confidence, 4)}

    def sure(self, threshold: float) -> bool:
        """A face at or above the acceptance threshold (:func:`vision.die_reader_model.sure_face`)."""
        return sure_face(self.probabilities, threshold) is not None


@dataclass(frozen=True)
class BodyPixels:
    """A body's pixels: ``mask`` (bool, rows x columns) placed at ``origin`` (x, y) in the frame."""

    mask: np.ndarray
    origin: tuple[int, int]
    pips: int = 0
    """Pip-like spots the proposal stage found on or beside the body (none: no die shows in it)."""
    shade: np.ndarray | None = None
    """bool, as ``mask``: pixels darker than the table but of its colour (a die's shadow), which a die read in
    the body explains."""

    @property
    def area_px(self) -> int:
        return int(np.count_nonzero(self.mask))

    @property
    def centre_px(self) -> tuple[float, float]:
        """The centroid of the body's pixels in the frame (its ``origin`` when it has none)."""
        ys, xs = np.nonzero(self.mask)
        return (self.origin[0] + float(xs.mean()), self.origin[1] + float(ys.mean())) if xs.size else self.origin

    def covered_by(self, squares: Sequence[DieSquare]) -> np.ndarray:
        """bool, as ``mask``: the pixels of the body's box under any of ``squares`` (frame px), body or not."""
        covered = np.zeros(self.mask.shape, np.uint8)
        origin = np.asarray(self.origin, np.float32)
        for square in squares:
            cv2.fillPoly(covered, [np.round(square.corners() - origin).astype(np.int32)], 1)
        return covered > 0

    def under(self, squares: Sequence[DieSquare]) -> np.ndarray:
        """bool, as ``mask``: the body's pixels under any of ``squares`` (frame px)."""
        return self.mask & self.covered_by(squares)


@dataclass(frozen=True)
class ExplanationSettings:
    """How strict the explanation is; see the module's steps."""

    threshold: float
    """The calibrated acceptance threshold of the per-die reader."""
    side_share: float = 0.12
    """Side face a flat die may show to this camera, as a share of its edge (0.12 overhead, ~0.45 oblique)."""
    same_die_share: float = 0.5
    apart_share: float = 0.75
    part_share: float | None = 0.85
    """A sure reading whose square is at most this share of another sure reading's, centred inside it, and read
    as another face, reads a part of that die's face, and is set aside (``None``: it makes the body
    unreadable)."""
    unexplained_share: float = 0.25
    """Body pixels no site explains, as a share of one die's area, above which the body is unexplained."""

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"the acceptance threshold must be within (0, 1], got {self.threshold}")
        if not 0.0 <= self.side_share < 1.0:
            raise ValueError(f"side_share must be within 0..1, got {self.side_share}")
        if not 0.0 < self.same_die_share <= self.apart_share:
            raise ValueError("same_die_share must be positive and at most apart_share")


@dataclass(frozen=True)
class BodyExplanation:
    """What a body holds: the dice read (``dice``), or why it is not explained (``problem`` and ``detail``).

    ``problem`` is ``None`` (explained), ``"unreadable"`` (readings disagree: declined here) or
    ``"unexplained"`` (part of the body is no die read: the scene's judge names it)."""

    dice: tuple[DieReading, ...]
    problem: str | None = None
    detail: str = ""
    unexplained_px: int = 0
    face_likelihood: float = 1.0
    """The most probability any square of the body gave to the faces together (1 - "not a flat readable die"):
    near 0 when the reader is sure no square holds a die's face."""
    unsure_reading: DieReading | None = None
    """With no die read in the body, the reading of its squares that gave one face the most probability (under the
    acceptance threshold, since no die is read; None: no square was read)."""
    leftover: np.ndarray | None = None
    """bool, as the body's mask: with dice read in a body they do not explain, its pixels they leave (for the
    scene's judge to tell a shadow or a glare spot on the cloth from a die)."""
    leftover_face_likelihood: float = 0.0
    """The most probability a square centred on the leftover pixels gave to the faces together."""
    leftover_square: DieSquare | None = None
    """With ``leftover``, a square of the dice read's mean edge centred on the leftover pixels (turned as the die read
    nearest it): where the lean model is asked whether the die there leans against the dice read or rests on one."""
    beside_dice: np.ndarray | None = None
    """bool, as the body's mask: with ``leftover``, the body's pixels outside the dice's squares grown by the side
    faces a flat die shows to this camera, its shade included (a leaning die's side face may pass for shade)."""

    @property
    def explained(self) -> bool:
        return self.problem is None

    @property
    def best_face(self) -> int | None:
        """The face :attr:`unsure_reading` gave the most probability (None without it)."""
        return None if self.unsure_reading is None else self.unsure_reading.likeliest_face[0]

    @property
    def best_face_probability(self) -> float:
        """The probability :attr:`unsure_reading` gave :attr:`best_face` (0 without it)."""
        return 0.0 if self.unsure_reading is None else self.unsure_reading.likeliest_face[1]


def _distance(a: DieSquare, b: DieSquare) -> float:
    return math.hypot(a.centre_px[0] - b.centre_px[0], a.centre_px[1] - b.centre_px[1])


def _where(square: DieSquare) -> str:
    return f"({square.centre_px[0]:.0f}, {square.centre_px[1]:.0f})"


def _within(inner: DieSquare, outer: DieSquare, share: float) -> bool:
    """Whether ``inner`` is at most ``share`` of ``outer``'s edge and its centre lies inside ``outer``."""
    return inner.edge_px <= share * outer.edge_px and outer.contains(inner.centre_px)


def _part_reads(sure: Sequence[DieReading], share: float) -> set[int]:
    """The indices of sure readings of a part of a die: a square at most ``share`` of the edge of another sure
    reading's square and centred inside it, read as another face (a square smaller than the die frames a part
    of its face: two pips of a four read as a two, three of a six as a three)."""
    return {i for i, small in enumerate(sure)
            if any(small.face != large.face and _within(small.square, large.square, share) for large in sure)}


def _sites(readings: Sequence[DieReading], settings: ExplanationSettings) -> tuple[list[DieReading], str]:
    """The sure readings gathered into sites (the most confident reading of each), or a disagreement."""
    best, disagreement = _bridged_sites(readings, settings)
    if disagreement:
        return [], disagreement
    for i, a in enumerate(best):
        for b in best[i + 1:]:
            if _would_overlap(a, b, settings):
                return [], f"dice read at {_where(a.square)} and {_where(b.square)} would overlap"
    return best, ""


def _would_overlap(a: DieReading, b: DieReading, settings: ExplanationSettings) -> bool:
    """Whether two sites are closer than ``apart_share`` of an edge: two dice cannot lie so."""
    return squares_overlap(a.square, b.square, settings.apart_share)


def squares_overlap(a: DieSquare, b: DieSquare, apart_share: float) -> bool:
    """Whether two dice read in ``a`` and ``b`` lie closer, centre to centre, than ``apart_share`` of the larger
    edge: two flat dice cannot (the scene holds it across bodies, :func:`vision.dice_scene.judge_scene`)."""
    return _distance(a, b) < apart_share * max(a.edge_px, b.edge_px)


def _bridged_sites(readings: Sequence[DieReading], settings: ExplanationSettings) -> tuple[list[DieReading], str]:
    """Each site's reading (steps 1 and 2, before the overlap test), or the disagreement that makes the body
    unreadable."""
    sure = [r for r in readings if r.sure(settings.threshold)]
    if settings.part_share is not None:
        parts = _part_reads(sure, settings.part_share)
        sure = [r for i, r in enumerate(sure) if i not in parts]
    sure.sort(key=lambda r: -r.confidence)
    sites: list[list[DieReading]] = []
    for reading in sure:
        edge = reading.square.edge_px
        home = next((site for site in sites if _distance(site[0].square, reading.square)
                     <= settings.same_die_share * max(edge, site[0].square.edge_px)), None)
        if home is None:
            sites.append([reading])
            continue
        if reading.face != home[0].face:
            return [], (f"the die at {_where(home[0].square)} reads {home[0].face} ({home[0].confidence:.3f}) "
                        f"and {reading.face} ({reading.confidence:.3f})")
        home.append(reading)
    return _bridged([site[0] for site in sites], sure, settings), ""


def _overlapping_same_face(best: Sequence[DieReading], settings: ExplanationSettings
                           ) -> list[tuple[DieReading, DieReading]]:
    """The pairs of sites that read the same face and would overlap (closer than ``apart_share`` of an edge)."""
    return [(a, b) for i, a in enumerate(best) for b in best[i + 1:] if a.face == b.face and _would_overlap(a, b, settings)]


def _bridged(best: list[DieReading], sure: Sequence[DieReading], settings: ExplanationSettings) -> list[DieReading]:
    """``best`` with each pair of overlapping sites of one face that a sure reading of that face lies between
    (within ``same_die_share`` of an edge of both) replaced by that reading, the most confident such."""
    joined = True
    while joined:
        joined = False
        for a, b in _overlapping_same_face(best, settings):
            reach = settings.same_die_share * max(a.square.edge_px, b.square.edge_px)
            between = [r for r in sure if r is not a and r is not b and r.face == a.face
                       and _distance(r.square, a.square) <= reach and _distance(r.square, b.square) <= reach]
            if between:
                bridge = max(between, key=lambda r: r.confidence)
                best = [site for site in best if site is not a and site is not b] + [bridge]
                joined = True
                break
    return best


def bridge_squares(readings: Sequence[DieReading], settings: ExplanationSettings) -> list[DieSquare]:
    """The squares midway between two sites of one face that would overlap (see the module's step 2), at their
    mean size and the more confident one's turn, for the pipeline to read."""
    dice, disagreement = _bridged_sites(readings, settings)
    if disagreement:
        return []
    squares = []
    for a, b in _overlapping_same_face(dice, settings):
        first = a if a.confidence >= b.confidence else b
        centre = ((a.square.centre_px[0] + b.square.centre_px[0]) / 2.0,
                  (a.square.centre_px[1] + b.square.centre_px[1]) / 2.0)
        squares.append(DieSquare(centre, (a.square.edge_px + b.square.edge_px) / 2.0, first.square.angle_deg))
    return squares


def _beside_dice(body: BodyPixels, dice: Sequence[DieReading], side_share: float) -> np.ndarray:
    """bool, as the body's mask: its pixels outside every die's square grown by its side faces."""
    grown = [DieSquare(die.square.centre_px, die.square.edge_px * (1.0 + 2.0 * side_share), die.square.angle_deg)
             for die in dice]
    return body.mask & ~body.under(grown)


def _centred_on(body: BodyPixels, pixels: np.ndarray, square: DieSquare) -> bool:
    col, row = int(square.centre_px[0] - body.origin[0]), int(square.centre_px[1] - body.origin[1])
    return 0 <= row < pixels.shape[0] and 0 <= col < pixels.shape[1] and bool(pixels[row, col])


def _leftover_square(body: BodyPixels, leftover: np.ndarray, dice: Sequence[DieReading], die_area: float
                     ) -> DieSquare:
    """A square of ``die_area`` centred on the ``leftover`` pixels' centroid, turned as the die read nearest it."""
    rows, columns = np.nonzero(leftover)
    centre = (float(columns.mean()) + body.origin[0], float(rows.mean()) + body.origin[1])
    nearest = min(dice, key=lambda die: math.dist(die.square.centre_px, centre))
    return DieSquare(centre, math.sqrt(die_area), nearest.square.angle_deg)


def explain_body(body: BodyPixels, readings: Sequence[DieReading], settings: ExplanationSettings) -> BodyExplanation:
    """What ``body`` holds, from the readings of the squares proposed in it (see the module's steps)."""
    dice, disagreement = _sites(readings, settings)
    if disagreement:
        return BodyExplanation((), "unreadable", disagreement)
    if not dice:
        likelihood = max((r.face_likelihood for r in readings), default=0.0)
        unsure = max(readings, key=lambda r: r.likeliest_face[1], default=None)
        return BodyExplanation((), "unexplained", "no die is read in it", body.area_px, min(float(likelihood), 1.0),
                               unsure_reading=unsure)
    die_area = float(np.mean([die.square.edge_px ** 2 for die in dice]))
    beside = _beside_dice(body, dice, settings.side_share)
    leftover = beside if body.shade is None else beside & ~body.shade  # its shadow aside
    left = int(np.count_nonzero(leftover))
    if left > settings.unexplained_share * die_area:
        likelihood = max((r.face_likelihood for r in readings if _centred_on(body, leftover, r.square)), default=0.0)
        return BodyExplanation(tuple(dice), "unexplained",
                               f"{left / die_area:.2f} of a die's area beside the {len(dice)} read is no die read",
                               left, leftover=leftover, leftover_face_likelihood=min(float(likelihood), 1.0),
                               beside_dice=beside, leftover_square=_leftover_square(body, leftover, dice, die_area))
    return BodyExplanation(tuple(dice))
