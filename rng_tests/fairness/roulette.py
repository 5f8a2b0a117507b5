"""Fairness of roulette outcomes: pockets, derived chances, wheel sectors and dealer signature.

Clauses: p217-2007/roleta-francesa/2, /5 and /9 and p217-2007/roleta-americana/2, /5 and /17
(37 pockets in the printed clockwise order, uniformly separated; perfectly balanced balls), whose
observable consequence is that every pocket has probability 1/37 and spins are independent; the
even chances, dozens and columns paid under roleta-americana/24 and /27 then have their exact
probabilities (18/37, 12/37, ...).

Outcomes are the winning numbers as reported (``numbers``), and the wheel is described by its
clockwise pocket order (``order``: :data:`bench.games.roulette_layout.FRENCH_ORDER` or
``AMERICAN_ORDER``, 37 pockets). Portaria 217/2007 permits 37-pocket wheels only; the online
American roulette of srij-804-2015/roleta-americana (0 and 00, rule 19) has 38 pockets, analysed
with :data:`DOUBLE_ZERO_ORDER` (or any 38-pocket order) in which "00" is coded :data:`DOUBLE_ZERO`.

Tests (each returns a :class:`~rng_tests.result.TestResult`):

* :func:`pockets_test` — H0: every pocket 1/P. Pearson chi-square (P − 1 d.f.).
* :func:`chance_test` / :func:`derived_chance_tests` — colour, parity, manque/passe, dozens,
  columns: Pearson chi-square against the exact probabilities implied by the wheel.
* :func:`sector_test` — H0: every pocket 1/P. For every arc of ``w`` adjacent pockets (every
  start, every width in ``widths``) the standardised excess z = (X − N w/P) / √(N (w/P)(1 − w/P));
  the statistic is the largest z, and its null distribution is simulated by multinomial
  resampling under H0 (fixed seed), so the multiplicity of the overlapping arcs and widths is
  accounted for exactly up to Monte-Carlo error. The p-value is (k + 1)/(B + 1). The arc found
  (first pocket, width, count, expected) is reported. A deficient arc of width w is an excess of
  the complementary arc of width P − w, so it is seen when P − w is among ``widths``.
* :func:`distance_test` — serial independence: if spins are independent and uniform, the
  clockwise distance in pockets from one result to the next, D = (pos_{t+1} − pos_t) mod P, is
  uniform on 0..P−1 and the N − 1 distances are independent; Pearson GOF of the distances.
* :func:`dealer_signature_test` — the sector statistic applied to the distances: a dealer who
  launches the ball the same way each time makes the distances cluster on an arc.

Power simulation helpers: :func:`sector_max_statistic` is vectorised over a batch of count
vectors (shape (B, P)); :func:`sector_null_distribution` is cached by
(pockets, N, widths, samples, seed); :func:`sector_p_values` turns a batch of statistics into
Monte-Carlo p-values. :func:`sector_alternative` builds the "w adjacent pockets ×f" alternative.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

import numpy as np

from bench.games.roulette_layout import AMERICAN_ORDER, FRENCH_ORDER, RED_NUMBERS
from rng_tests.fairness.goodness_of_fit import pearson_chi_square
from rng_tests.result import TestResult

DOUBLE_ZERO = 37
"""Code of the "00" pocket in a 38-pocket order (numbers are otherwise the printed 0-36)."""

DOUBLE_ZERO_ORDER: tuple[int, ...] = AMERICAN_ORDER[:19] + (DOUBLE_ZERO,) + AMERICAN_ORDER[19:]
"""The usual clockwise order of a double-zero wheel: the American order with 00 between 1 and 27."""

DEFAULT_SECTOR_WIDTHS: tuple[int, ...] = tuple(range(3, 19))
"""Arc widths searched by default: 3 to 18 adjacent pockets (up to half the wheel)."""

DEFAULT_SECTOR_SAMPLES = 4999
"""Default number of multinomial resamples for the sector statistic's null distribution."""

_CHUNK_ROWS = 1000  # count vectors processed at once when simulating the null

Chance = Literal["colour", "parity", "manque_passe", "dozens", "columns"]
CHANCES: tuple[Chance, ...] = ("colour", "parity", "manque_passe", "dozens", "columns")

_CHANCE_LABELS: dict[str, tuple[str, ...]] = {
    "colour": ("red", "black", "green"),
    "parity": ("even", "odd", "zero"),
    "manque_passe": ("manque 1-18", "passe 19-36", "zero"),
    "dozens": ("1-12", "13-24", "25-36", "zero"),
    "columns": ("column 1 (1, 4, ..., 34)", "column 2 (2, 5, ..., 35)", "column 3 (3, 6, ..., 36)", "zero"),
}

POCKETS_NULL = "every pocket has probability 1/{pockets} and spins are independent"
DISTANCE_NULL = ("spins are independent and every pocket has probability 1/{pockets}, so the clockwise "
                 "distance between successive results is uniform on 0..{last}")


# -- wheel geometry and validation --------------------------------------------------------------


def _validate_order(order: Sequence[int]) -> np.ndarray:
    wheel = np.asarray(order)
    if wheel.ndim != 1 or wheel.size not in (37, 38) or sorted(wheel.tolist()) != list(range(wheel.size)):
        raise ValueError("order must list the 37 pocket numbers 0-36 (or 38 with 00 coded as 37) once each")
    return wheel.astype(np.int64)


def wheel_positions(numbers: Sequence[int] | np.ndarray, order: Sequence[int] = FRENCH_ORDER) -> np.ndarray:
    """Position (0 = the first pocket of ``order``, increasing clockwise) of each winning number."""
    wheel = _validate_order(order)
    values = np.asarray(numbers)
    if values.ndim != 1:
        raise ValueError("numbers must be a 1-D sequence of winning numbers")
    if values.size and (not np.issubdtype(values.dtype, np.integer)
                        or values.min() < 0 or values.max() >= wheel.size):
        raise ValueError(f"numbers must be whole pocket numbers 0-{wheel.size - 1}")
    lookup = np.empty(wheel.size, dtype=np.int64)
    lookup[wheel] = np.arange(wheel.size)
    return lookup[values.astype(np.int64)]


def pocket_counts(numbers: Sequence[int] | np.ndarray, order: Sequence[int] = FRENCH_ORDER) -> np.ndarray:
    """Counts of each pocket in wheel order (index i is pocket ``order[i]``)."""
    return np.bincount(wheel_positions(numbers, order), minlength=len(order))


def _require_spins(count: int, minimum: int = 1) -> None:
    if count < minimum:
        raise ValueError(f"need at least {minimum} spin(s), got {count}")


def sector_alternative(pockets: int, width: int, factor: float) -> np.ndarray:
    """Pocket probabilities (in wheel order) when ``width`` adjacent pockets are ``factor`` times as likely."""
    weights = np.ones(pockets)
    weights[:width] = factor
    return weights / weights.sum()


# -- pockets and derived chances ------------------------------------------------------------------


def pockets_test(
    numbers: Sequence[int] | np.ndarray, order: Sequence[int] = FRENCH_ORDER, **options: Any
) -> TestResult:
    """Every pocket equally likely (p217-2007/roleta-francesa/5, roleta-americana/5): Pearson GOF, P − 1 d.f.

    ``options`` go to :func:`~rng_tests.fairness.goodness_of_fit.pearson_chi_square`
    (``monte_carlo_samples``, ``seed``, ``exact_limit``).
    """
    counts = pocket_counts(numbers, order)
    _require_spins(int(counts.sum()))
    pockets = len(order)
    return pearson_chi_square(
        counts, test="roulette pockets", null_hypothesis=POCKETS_NULL.format(pockets=pockets),
        categories=[_pocket_name(number) for number in order], **options)


def _pocket_name(number: int) -> str:
    return "00" if number == DOUBLE_ZERO else str(int(number))


def chance_categories(chance: Chance, pockets: int = 37) -> tuple[tuple[str, ...], np.ndarray]:
    """Category labels of a derived chance and the category of every pocket number 0..pockets−1.

    Zero (and 00) form their own category: they lose every even chance, dozen and column bet
    (roleta-americana/28), so they are counted, not ignored.
    """
    if chance not in _CHANCE_LABELS:
        raise ValueError(f"unknown chance {chance!r} (expected one of {', '.join(CHANCES)})")
    if pockets not in (37, 38):
        raise ValueError("pockets must be 37 or 38")
    number = np.arange(pockets)
    zero = (number == 0) | (number == DOUBLE_ZERO)
    labels = _CHANCE_LABELS[chance]
    if chance == "colour":
        category = np.where(np.isin(number, sorted(RED_NUMBERS)), 0, 1)
    elif chance == "parity":
        category = number % 2  # 0 even, 1 odd
    elif chance == "manque_passe":
        category = (number > 18).astype(np.int64)
    elif chance == "dozens":
        category = (number - 1) // 12
    else:
        category = (number - 1) % 3
    return labels, np.where(zero, len(labels) - 1, category)


def chance_test(
    numbers: Sequence[int] | np.ndarray, chance: Chance, order: Sequence[int] = FRENCH_ORDER, **options: Any
) -> TestResult:
    """Outcome frequencies of one derived chance against its exact probabilities (Pearson GOF).

    H0: spins are independent with every pocket 1/P, so e.g. red/black/green have probabilities
    18/37, 18/37, 1/37. ``chance`` is one of :data:`CHANCES`.
    """
    positions = wheel_positions(numbers, order)
    _require_spins(positions.size)
    wheel = _validate_order(order)
    labels, category_of = chance_categories(chance, wheel.size)
    counts = np.bincount(category_of[wheel[positions]], minlength=len(labels))
    probabilities = np.bincount(category_of, minlength=len(labels)) / wheel.size
    return pearson_chi_square(
        counts, probabilities, test=f"roulette {chance.replace('_', '/')}",
        null_hypothesis=f"{POCKETS_NULL.format(pockets=wheel.size)}; hence the exact {chance} probabilities",
        categories=labels, **options)


def derived_chance_tests(
    numbers: Sequence[int] | np.ndarray, order: Sequence[int] = FRENCH_ORDER, **options: Any
) -> dict[str, TestResult]:
    """:func:`chance_test` for every chance in :data:`CHANCES`, keyed by chance name."""
    return {chance: chance_test(numbers, chance, order, **options) for chance in CHANCES}


# -- sector statistic -------------------------------------------------------------------------------


def _validate_widths(widths: Sequence[int], pockets: int) -> np.ndarray:
    values = np.unique(np.asarray(widths))
    if values.size == 0 or not np.issubdtype(values.dtype, np.integer) or values[0] < 1 or values[-1] >= pockets:
        raise ValueError(f"widths must be whole numbers of pockets between 1 and {pockets - 1}")
    return values.astype(np.int64)


def arc_counts(counts: np.ndarray, widths: Sequence[int]) -> np.ndarray:
    """Counts in every arc: ``out[..., j, s]`` = Σ counts[..., (s + i) mod P] for i < widths[j].

    ``counts`` has shape (P,) or (B, P) in wheel (or distance) order; the result has shape
    (..., len(widths), P), computed from circular cumulative sums.
    """
    values = np.asarray(counts)
    pockets = values.shape[-1]
    width_array = _validate_widths(widths, pockets)
    extended = np.concatenate([values, values[..., : width_array[-1]]], axis=-1)
    cumulative = np.concatenate([np.zeros(values.shape[:-1] + (1,), dtype=extended.dtype),
                                 np.cumsum(extended, axis=-1)], axis=-1)
    starts = np.arange(pockets)
    ends = starts[None, :] + width_array[:, None]  # (W, P)
    return cumulative[..., ends] - cumulative[..., starts][..., None, :]


def sector_max_statistic(
    counts: Sequence[int] | np.ndarray, widths: Sequence[int] = DEFAULT_SECTOR_WIDTHS
) -> tuple[np.ndarray, np.ndarray]:
    """The largest standardised arc excess and the arc where it occurs, for one or a batch of count vectors.

    ``counts``: shape (P,) or (B, P), in wheel order (index = position clockwise from ``order[0]``).
    For an arc of width w with count X out of N spins, z = (X − N w/P) / √(N (w/P)(1 − w/P)).
    Returns ``(value, arc)``: ``value`` has the batch shape (a 0-d array for one vector; use
    ``float(value)``), ``arc`` the batch shape + (2,) holding (start position, width). Ties go to
    the narrowest width, then the lowest start.
    """
    values = np.asarray(counts, dtype=float)
    if values.ndim not in (1, 2) or values.shape[-1] < 3:
        raise ValueError("counts must have shape (P,) or (B, P) with P >= 3 pockets")
    if np.any(values < 0):
        raise ValueError("counts must be non-negative")
    totals = values.sum(axis=-1)
    if np.any(totals <= 0):
        raise ValueError("every count vector needs at least one spin")
    pockets = values.shape[-1]
    width_array = _validate_widths(widths, pockets)
    share = width_array / pockets  # (W,)
    totals = totals[..., None, None]
    expected = totals * share[:, None]
    scale = np.sqrt(totals * (share * (1 - share))[:, None])
    z = (arc_counts(values, width_array) - expected) / scale  # (..., W, P)
    flat = z.reshape(z.shape[:-2] + (-1,))
    best = np.argmax(flat, axis=-1)
    value = np.take_along_axis(flat, best[..., None], axis=-1)[..., 0]
    arc = np.stack([best % pockets, width_array[best // pockets]], axis=-1)
    return value, arc


def _simulate_sector_null(pockets: int, sample_size: int, widths: tuple[int, ...], samples: int,
                          seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p0 = np.full(pockets, 1.0 / pockets)
    out = np.empty(samples)
    for start in range(0, samples, _CHUNK_ROWS):
        size = min(_CHUNK_ROWS, samples - start)
        out[start:start + size], _ = sector_max_statistic(rng.multinomial(sample_size, p0, size=size), widths)
    out.sort()
    out.flags.writeable = False
    return out


_cached_sector_null = lru_cache(maxsize=64)(_simulate_sector_null)


def sector_null_distribution(
    pockets: int,
    sample_size: int,
    widths: Sequence[int] = DEFAULT_SECTOR_WIDTHS,
    samples: int = DEFAULT_SECTOR_SAMPLES,
    seed: int = 0,
) -> np.ndarray:
    """Sorted, read-only draws of the sector max statistic under H0 (Multinomial(N, 1/P), fixed ``seed``).

    Cached by (pockets, N, widths, samples, seed), so a power simulation or a suite running
    several tests at the same N simulates it once.
    """
    if pockets < 3 or sample_size < 1 or samples < 1:
        raise ValueError("pockets must be >= 3, sample_size and samples positive")
    key_widths = tuple(int(width) for width in _validate_widths(widths, pockets))
    return _cached_sector_null(int(pockets), int(sample_size), key_widths, int(samples), int(seed))


def sector_p_values(values: float | np.ndarray, null: np.ndarray) -> np.ndarray:
    """Monte-Carlo p-values (k + 1)/(B + 1), k = #{null ≥ value}, for one or many statistics.

    ``null`` must be sorted ascending (as :func:`sector_null_distribution` returns it).
    """
    observed = np.asarray(values, dtype=float)
    tolerance = 1e-9 * np.maximum(1.0, np.abs(observed))
    exceed = null.size - np.searchsorted(null, observed - tolerance, side="left")
    return (exceed + 1) / (null.size + 1)


@dataclass(frozen=True)
class SectorArc:
    """The arc with the largest standardised excess: first pocket (clockwise), width, count, expected."""

    start_position: int
    width: int
    labels: tuple[str, ...]
    count: int
    expected: float
    z: float

    def to_details(self) -> dict[str, Any]:
        return {"start": self.labels[0], "width": self.width, "members": list(self.labels),
                "count": self.count, "expected": round(self.expected, 4), "z": round(self.z, 4)}


def _max_arc_result(
    counts: np.ndarray, labels: Sequence[str], widths: Sequence[int], samples: int, seed: int,
    *, test: str, null_hypothesis: str, what: str,
) -> TestResult:
    pockets = counts.size
    total = int(counts.sum())
    value, arc = sector_max_statistic(counts, widths)
    start, width = int(arc[0]), int(arc[1])
    members = tuple(labels[(start + step) % pockets] for step in range(width))
    arc_count = int(sum(counts[(start + step) % pockets] for step in range(width)))
    found = SectorArc(start, width, members, arc_count, total * width / pockets, float(value))
    null = sector_null_distribution(pockets, total, widths, samples, seed)
    width_list = [int(w) for w in _validate_widths(widths, pockets)]
    return TestResult(
        test=test, null_hypothesis=null_hypothesis, statistic=float(value),
        p_value=float(sector_p_values(float(value), null)), sample_size=total,
        method=(f"maximum standardised excess over every arc of adjacent {what} (widths {_describe(width_list)}), "
                f"Monte-Carlo null ({samples} multinomial resamples under H0, seed {seed})"),
        details={"arc": found.to_details(), "widths": width_list, "null_samples": samples, "seed": seed,
                 "counts": dict(zip(labels, counts.astype(int).tolist()))},
    )


def _describe(widths: list[int]) -> str:
    """"3-18" for a contiguous range of widths, else the list."""
    if len(widths) > 2 and widths == list(range(widths[0], widths[-1] + 1)):
        return f"{widths[0]}-{widths[-1]}"
    return ", ".join(str(width) for width in widths)


def sector_test(
    numbers: Sequence[int] | np.ndarray,
    order: Sequence[int] = FRENCH_ORDER,
    widths: Sequence[int] = DEFAULT_SECTOR_WIDTHS,
    *,
    samples: int = DEFAULT_SECTOR_SAMPLES,
    seed: int = 0,
) -> TestResult:
    """No favoured sector of adjacent pockets (a tilted or worn wheel): the max-arc statistic.

    H0: every pocket 1/P, spins independent. See the module docstring for the statistic and its
    Monte-Carlo null. ``details["arc"]`` gives the first pocket number clockwise, width, pocket
    numbers, count, expected count and z of the arc found.
    """
    counts = pocket_counts(numbers, order)
    _require_spins(int(counts.sum()))
    pockets = len(order)
    return _max_arc_result(
        counts, [_pocket_name(number) for number in order], widths, samples, seed,
        test="roulette sector", null_hypothesis=POCKETS_NULL.format(pockets=pockets), what="pockets")


# -- serial dependence ---------------------------------------------------------------------------------


def wheel_distances(numbers: Sequence[int] | np.ndarray, order: Sequence[int] = FRENCH_ORDER) -> np.ndarray:
    """Clockwise distance in pockets from each result to the next: (pos_{t+1} − pos_t) mod P, in 0..P−1."""
    positions = wheel_positions(numbers, order)
    return np.mod(np.diff(positions), len(order))


def distance_test(
    numbers: Sequence[int] | np.ndarray, order: Sequence[int] = FRENCH_ORDER, **options: Any
) -> TestResult:
    """Serial independence: Pearson GOF of the N − 1 successive clockwise distances against uniform.

    Not applicable with fewer than two spins. ``options`` go to ``pearson_chi_square``.
    """
    pockets = len(order)
    null = DISTANCE_NULL.format(pockets=pockets, last=pockets - 1)
    distances = wheel_distances(numbers, order)
    if distances.size == 0:
        return TestResult.inapplicable("roulette successive distances", null, 0, "Pearson chi-square",
                                       "fewer than two spins: no distance between successive results")
    return pearson_chi_square(np.bincount(distances, minlength=pockets), test="roulette successive distances",
                              null_hypothesis=null, categories=[str(d) for d in range(pockets)], **options)


def dealer_signature_test(
    numbers: Sequence[int] | np.ndarray,
    order: Sequence[int] = FRENCH_ORDER,
    widths: Sequence[int] = DEFAULT_SECTOR_WIDTHS,
    *,
    samples: int = DEFAULT_SECTOR_SAMPLES,
    seed: int = 0,
) -> TestResult:
    """Dealer signature: do successive clockwise distances concentrate on an arc of distances?

    The max-arc statistic of :func:`sector_test` applied to the distance counts (distances are
    circular: P − 1 is adjacent to 0). ``details["arc"]`` gives the first distance, width, count
    and expected count. Not applicable with fewer than two spins. Distances are measured in the
    wheel's frame regardless of ball direction; with alternating launches (roleta-francesa/13) a
    signature may split into two clusters, which this statistic still detects through the larger one.
    """
    pockets = len(order)
    null = DISTANCE_NULL.format(pockets=pockets, last=pockets - 1)
    distances = wheel_distances(numbers, order)
    if distances.size == 0:
        return TestResult.inapplicable("roulette dealer signature", null, 0, "maximum arc excess of distances",
                                       "fewer than two spins: no distance between successive results")
    return _max_arc_result(
        np.bincount(distances, minlength=pockets), [str(d) for d in range(pockets)], widths, samples, seed,
        test="roulette dealer signature", null_hypothesis=null, what="distances")
