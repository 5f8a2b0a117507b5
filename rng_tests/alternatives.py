"""Named alternatives to fairness: the unfair equipment a test must detect.

Power and sample size only mean something against a named alternative (DESIGN.md,
"Statistics a statistician would sign"). Each alternative here gives

* ``null_probabilities()`` — the outcome distribution of fair equipment (H0);
* ``probabilities()`` — the outcome distribution of one unfair device (H1);
* ``orbit()`` — every member of the alternative when its *location* is unknown (the
  sector may sit anywhere on the wheel, any face may be the loaded one), one row each;
  sequential tests mix over this orbit so their power does not depend on the location;
* ``sample(rng, size)`` — outcomes drawn from ``probabilities()``.

Outcomes are indexed as the equipment reports them: roulette pocket *numbers* 0-36
(adjacency comes from the wheel order of bench/games/roulette_layout.py, p217-2007/roleta-francesa/2),
die faces 1-6 as indices 0-5, and for shufflers the number of rising sequences R of the
dealt deck (R = 1..deck size, index R - 1).

Why rising sequences for shufflers: under the Gilbert-Shannon-Reeds (GSR) model, after
k riffles (one 2^k-shuffle) a deck arrangement has probability C(2^k + n - R, n) / 2^(kn),
a function of R only (Bayer & Diaconis, "Trailing the dovetail shuffle to its lair",
Ann. Appl. Probab. 2(2), 1992, Theorem 1). R is therefore a sufficient statistic for
"GSR k times" against "uniform over the n! orders", and no test on the full permutation
can beat the best test on R. The number of arrangements with R rising sequences is the
Eulerian number A(n, R - 1), so both distributions of R are exact.

Command-line forms (``parse_alternative``):

=========  ==================  =====================================================
kind       form                meaning
=========  ==================  =====================================================
roulette   ``sector:W@F``      W adjacent pockets (wheel order) each F times as likely
roulette   ``pocket:P``        one pocket has probability P (e.g. ``pocket:1/35``)
dice       ``loaded:FACE@P``   face FACE has probability P, the others share the rest
dice       ``die-bias:E``      pip-drilling tilt: P(f) = (1 + E (2f - 7) / 5) / 6
shuffler   ``riffle:K``        the deck is a GSR riffle shuffle repeated K times
=========  ==================  =====================================================
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import ClassVar, Literal

import numpy as np

from bench.games.roulette_layout import order_for
from bench.games.shuffle_models import gsr_riffle

GameKind = Literal["roulette", "dice", "shuffler"]
GAME_KINDS: tuple[GameKind, ...] = ("roulette", "dice", "shuffler")

ACCEPTED_FORMS: dict[str, tuple[str, ...]] = {
    "roulette": ("sector:W@F (W adjacent pockets each F times as likely, e.g. sector:5@1.2)",
                 "pocket:P (one pocket with probability P, e.g. pocket:1/35)"),
    "dice": ("loaded:FACE@P (face FACE with probability P, e.g. loaded:6@0.2)",
             "die-bias:E (pip-drilling tilt, P(6) = (1+E)/6, P(1) = (1-E)/6, e.g. die-bias:0.1)"),
    "shuffler": ("riffle:K (GSR riffle shuffle repeated K times, e.g. riffle:7)",),
}

ROULETTE_POCKETS = 37
DIE_FACES = 6
DECK_SIZE = 52


class Alternative(ABC):
    """A named departure from fairness with its exact outcome distribution."""

    kind: ClassVar[GameKind]

    @property
    @abstractmethod
    def spec(self) -> str:
        """The canonical command-line form, e.g. ``sector:5@1.2``."""

    @property
    @abstractmethod
    def description(self) -> str:
        """One line in plain English for reports."""

    @property
    def outcomes(self) -> int:
        """Number of outcome categories."""
        return int(self.null_probabilities().size)

    @abstractmethod
    def null_probabilities(self) -> np.ndarray:
        """Outcome probabilities of fair equipment (H0)."""

    @abstractmethod
    def probabilities(self) -> np.ndarray:
        """Outcome probabilities of one unfair device of this alternative (H1)."""

    def orbit(self) -> np.ndarray:
        """All members of the alternative when its location is unknown, shape (members, outcomes)."""
        return self.probabilities()[None, :]

    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> np.ndarray:
        """Outcome indices drawn independently from ``probabilities()``."""
        return sample_categorical(rng, self.probabilities(), size)

    def sample_counts(self, rng: np.random.Generator, n: int, runs: int) -> np.ndarray:
        """Category counts of ``runs`` independent samples of ``n`` outcomes, shape (runs, outcomes)."""
        return rng.multinomial(n, self.probabilities(), size=runs)

    def __str__(self) -> str:
        return self.spec


def sample_categorical(rng: np.random.Generator, probabilities: np.ndarray, size: int | tuple[int, ...]) -> np.ndarray:
    """Independent draws of category indices with the given probabilities (vectorised inverse CDF)."""
    cdf = np.cumsum(np.asarray(probabilities, float))
    cdf /= cdf[-1]
    return np.searchsorted(cdf, rng.random(size), side="right").astype(np.intp)


# -- roulette -----------------------------------------------------------------


@dataclass(frozen=True)
class SectorAlternative(Alternative):
    """``width`` adjacent pockets (in wheel order) each ``factor`` times as likely as the others.

    The reference alternative of the product is ``SectorAlternative(5, 1.2)``: five adjacent
    pockets each 20 % more likely, a worn or tilted wheel (p217-2007/roleta-francesa/2).
    ``start`` is the wheel position (0 = the zero pocket) of the first favoured pocket.
    """

    width: int
    factor: float
    layout: str = "french"
    start: int = 0
    kind: ClassVar[GameKind] = "roulette"

    def __post_init__(self) -> None:
        order = order_for(self.layout)
        if not 1 <= self.width < len(order):
            raise ValueError(f"sector width must be between 1 and {len(order) - 1}, got {self.width}")
        if not (math.isfinite(self.factor) and self.factor > 0) or self.factor == 1:
            raise ValueError(f"sector factor must be positive and not 1, got {self.factor}")

    @property
    def spec(self) -> str:
        return f"sector:{self.width}@{self.factor:g}"

    @property
    def description(self) -> str:
        return (f"{self.width} adjacent pockets each {self.factor:g} times as likely "
                f"({self.layout} wheel, location unknown)")

    def null_probabilities(self) -> np.ndarray:
        pockets = len(order_for(self.layout))
        return np.full(pockets, 1.0 / pockets)

    def probabilities(self) -> np.ndarray:
        return self.orbit()[self.start % len(order_for(self.layout))]

    def orbit(self) -> np.ndarray:
        """Row s: the sector starting at wheel position s (all rotations), indexed by pocket number."""
        order = np.asarray(order_for(self.layout))
        pockets = order.size
        in_wheel_order = np.ones(pockets)
        in_wheel_order[: self.width] = self.factor
        in_wheel_order /= in_wheel_order.sum()
        shifts = (np.arange(pockets)[None, :] - np.arange(pockets)[:, None]) % pockets  # [s, i] = i - s
        by_position = in_wheel_order[shifts]  # [s, position]
        rows = np.empty_like(by_position)
        rows[:, order] = by_position
        return rows


@dataclass(frozen=True)
class PocketAlternative(Alternative):
    """One pocket has probability ``probability``; the other pockets share the rest equally."""

    probability: float
    pocket: int = 0
    pockets: int = ROULETTE_POCKETS
    kind: ClassVar[GameKind] = "roulette"

    def __post_init__(self) -> None:
        _check_single_category(self.probability, self.pockets, "pocket probability")
        if not 0 <= self.pocket < self.pockets:
            raise ValueError(f"pocket must be between 0 and {self.pockets - 1}, got {self.pocket}")

    @property
    def spec(self) -> str:
        return f"pocket:{_format_probability(self.probability)}"

    @property
    def description(self) -> str:
        return f"one pocket with probability {self.probability:.5g} instead of 1/{self.pockets} (pocket unknown)"

    def null_probabilities(self) -> np.ndarray:
        return np.full(self.pockets, 1.0 / self.pockets)

    def probabilities(self) -> np.ndarray:
        return self.orbit()[self.pocket]

    def orbit(self) -> np.ndarray:
        return _single_category_orbit(self.probability, self.pockets)


# -- dice ---------------------------------------------------------------------


@dataclass(frozen=True)
class LoadedDieAlternative(Alternative):
    """Face ``face`` (1-based) has probability ``probability``; the other faces share the rest equally."""

    face: int
    probability: float
    faces: int = DIE_FACES
    kind: ClassVar[GameKind] = "dice"

    def __post_init__(self) -> None:
        if not 1 <= self.face <= self.faces:
            raise ValueError(f"loaded face must be between 1 and {self.faces}, got {self.face}")
        _check_single_category(self.probability, self.faces, "loaded face probability")

    @property
    def spec(self) -> str:
        return f"loaded:{self.face}@{_format_probability(self.probability)}"

    @property
    def description(self) -> str:
        return (f"one face with probability {self.probability:.5g} instead of 1/{self.faces} "
                f"(named face {self.face}; the sequential test does not assume which)")

    def null_probabilities(self) -> np.ndarray:
        return np.full(self.faces, 1.0 / self.faces)

    def probabilities(self) -> np.ndarray:
        return self.orbit()[self.face - 1]

    def orbit(self) -> np.ndarray:
        return _single_category_orbit(self.probability, self.faces)


@dataclass(frozen=True)
class DieBiasAlternative(Alternative):
    """A pip-drilled die: P(face f) = (1 + E (2f - 7) / 5) / 6, so P(6) = (1+E)/6 and P(1) = (1-E)/6.

    Drilled pips remove most material from the 6 face, moving the centre of mass towards
    the 1 face, so high faces land up slightly more often; the linear tilt in the pip count
    is the first-order model of that effect (opposite faces sum to 7). The orbit holds
    both directions (E and -E), for a die whose pips are filled heavier than the body.
    """

    excess: float
    kind: ClassVar[GameKind] = "dice"

    def __post_init__(self) -> None:
        if not (math.isfinite(self.excess) and 0 < abs(self.excess) < 1):
            raise ValueError(f"die-bias excess E must satisfy 0 < |E| < 1, got {self.excess}")

    @property
    def spec(self) -> str:
        return f"die-bias:{self.excess:g}"

    @property
    def description(self) -> str:
        return f"pip-drilling tilt: P(6) = {(1 + self.excess) / 6:.5g}, P(1) = {(1 - self.excess) / 6:.5g}"

    def null_probabilities(self) -> np.ndarray:
        return np.full(DIE_FACES, 1.0 / DIE_FACES)

    def probabilities(self) -> np.ndarray:
        return self.orbit()[0]

    def orbit(self) -> np.ndarray:
        tilt = (2 * np.arange(1, DIE_FACES + 1) - 7) / 5
        return np.stack([(1 + self.excess * tilt) / 6, (1 - self.excess * tilt) / 6])


# -- shufflers ----------------------------------------------------------------


@dataclass(frozen=True)
class RiffleAlternative(Alternative):
    """The deck is a GSR riffle shuffle repeated ``riffles`` times (Bayer & Diaconis 1992).

    Outcome: the number of rising sequences R of the dealt deck, index R - 1
    (see :func:`rising_sequences`). Both distributions are exact (Eulerian numbers).
    """

    riffles: int
    deck: int = DECK_SIZE
    kind: ClassVar[GameKind] = "shuffler"

    def __post_init__(self) -> None:
        if self.riffles < 1:
            raise ValueError(f"number of riffles must be at least 1, got {self.riffles}")
        if not 2 <= self.deck <= 200:
            raise ValueError(f"deck size must be between 2 and 200, got {self.deck}")

    @property
    def spec(self) -> str:
        return f"riffle:{self.riffles}"

    @property
    def description(self) -> str:
        return (f"GSR riffle shuffle repeated {self.riffles} times on {self.deck} cards "
                f"(total variation {self.total_variation():.3f} from uniform)")

    def null_probabilities(self) -> np.ndarray:
        return rising_sequence_distribution(self.deck, None)

    def probabilities(self) -> np.ndarray:
        return rising_sequence_distribution(self.deck, self.riffles)

    def sample_decks(self, rng: np.random.Generator, shuffles: int) -> np.ndarray:
        """Dealt decks (shuffles, deck), card labels top to bottom, from the GSR model of
        bench/games/shuffle_models.py: for simulated power of tests on the full order."""
        return gsr_riffle(self.deck, rng, riffles=self.riffles, shuffles=shuffles)

    def total_variation(self) -> float:
        """Total variation distance between the k-riffle deck and a uniform deck (exact, via R)."""
        return 0.5 * float(np.abs(self.probabilities() - self.null_probabilities()).sum())


@lru_cache(maxsize=8)
def _eulerian_row(n: int) -> tuple[int, ...]:
    """Eulerian numbers A(n, d), d = 0..n-1: permutations of n with d descents (exact integers)."""
    row = [1]
    for size in range(2, n + 1):
        row = [(d + 1) * (row[d] if d < len(row) else 0) + (size - d) * (row[d - 1] if d >= 1 else 0)
               for d in range(size)]
    return tuple(row)


@lru_cache(maxsize=64)
def _rising_sequence_distribution(deck: int, riffles: int | None) -> tuple[float, ...]:
    eulerian = _eulerian_row(deck)
    if riffles is None:
        total = math.factorial(deck)
        return tuple(float(Fraction(count, total)) for count in eulerian)
    shuffles = 2**riffles
    denominator = shuffles**deck
    return tuple(float(Fraction(eulerian[r - 1] * math.comb(shuffles + deck - r, deck), denominator))
                 for r in range(1, deck + 1))


def rising_sequence_distribution(deck: int, riffles: int | None) -> np.ndarray:
    """P(R = r), r = 1..deck, for a uniform deck (``riffles=None``) or after ``riffles`` GSR riffles.

    Uniform: A(n, r-1) / n!. After k riffles: A(n, r-1) C(2^k + n - r, n) / 2^(kn)
    (Bayer & Diaconis 1992, Theorem 1), exact rational arithmetic rounded once to float.
    """
    return np.asarray(_rising_sequence_distribution(deck, riffles))


def rising_sequences(decks: np.ndarray) -> np.ndarray:
    """Number of rising sequences of each dealt deck.

    ``decks``: card labels 0..n-1 from top to bottom, shape (n,) or (runs, n), where the
    labels are the order in which the cards were loaded. R = 1 + #{v : card v+1 lies above card v}.
    """
    decks = np.asarray(decks)
    flat = decks[None, :] if decks.ndim == 1 else decks
    if flat.ndim != 2 or np.any(np.sort(flat, axis=1) != np.arange(flat.shape[1])):
        raise ValueError("each deck must be a permutation of the labels 0..n-1")
    position = np.argsort(flat, axis=1)
    counts = 1 + np.count_nonzero(position[:, 1:] < position[:, :-1], axis=1)
    return counts[0] if decks.ndim == 1 else counts


# -- parsing ------------------------------------------------------------------


def parse_alternative(text: str, kind: str, *, layout: str = "french", deck: int = DECK_SIZE) -> Alternative:
    """Parse a command-line alternative for ``kind`` (see the module table); ValueError names the string."""
    if kind not in ACCEPTED_FORMS:
        raise ValueError(f"unknown equipment kind {kind!r} (expected one of {', '.join(GAME_KINDS)})")
    name, _, argument = text.strip().partition(":")
    try:
        if kind == "roulette" and name == "sector":
            width, factor = _split_at(argument)
            return SectorAlternative(int(width), float(_number(factor)), layout=layout)
        if kind == "roulette" and name == "pocket":
            return PocketAlternative(float(_number(argument)), pockets=len(order_for(layout)))
        if kind == "dice" and name == "loaded":
            face, probability = _split_at(argument)
            return LoadedDieAlternative(int(face), float(_number(probability)))
        if kind == "dice" and name == "die-bias":
            return DieBiasAlternative(float(_number(argument)))
        if kind == "shuffler" and name == "riffle":
            return RiffleAlternative(int(argument), deck=deck)
    except (ValueError, ZeroDivisionError) as error:
        raise ValueError(f"bad {kind} alternative {text!r}: {error}; accepted forms: "
                         f"{'; '.join(ACCEPTED_FORMS[kind])}") from error
    raise ValueError(f"unknown {kind} alternative {text!r}; accepted forms: {'; '.join(ACCEPTED_FORMS[kind])}")


def _split_at(argument: str) -> tuple[str, str]:
    left, sep, right = argument.partition("@")
    if not sep or not left or not right:
        raise ValueError(f"expected A@B, got {argument!r}")
    return left, right


def _number(text: str) -> Fraction:
    """A decimal or a fraction such as 1/35."""
    return Fraction(text.strip())


def _format_probability(probability: float) -> str:
    """The short decimal when exact (``0.2``), else a simple fraction (``1/35``), else ``%g``."""
    if float(f"{probability:g}") == probability:
        return f"{probability:g}"
    fraction = Fraction(probability).limit_denominator(10_000)
    if fraction.denominator > 1 and math.isclose(float(fraction), probability, rel_tol=1e-12, abs_tol=0):
        return f"{fraction.numerator}/{fraction.denominator}"
    return f"{probability:g}"


def _check_single_category(probability: float, categories: int, what: str) -> None:
    if not (math.isfinite(probability) and 0 < probability < 1):
        raise ValueError(f"{what} must be strictly between 0 and 1, got {probability}")
    if math.isclose(probability, 1.0 / categories, rel_tol=1e-12):
        raise ValueError(f"{what} {probability} equals the fair 1/{categories}: not an alternative")


def _single_category_orbit(probability: float, categories: int) -> np.ndarray:
    rows = np.full((categories, categories), (1.0 - probability) / (categories - 1))
    np.fill_diagonal(rows, probability)
    return rows
