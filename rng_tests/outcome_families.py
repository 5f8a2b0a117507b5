"""Which tests make up the fairness family of each kind of game outcome, and reading outcome files.

A family tests one null hypothesis several ways; its verdict is Holm's step-down procedure at
the family level α (:func:`rng_tests.fairness.multiple_testing.adjust`), so a fair device fails a
family with probability at most α.

Kinds and their files (one outcome per line; blank lines and ``#`` comments ignored):

* ``roulette-french`` / ``roulette-american``: the winning number, 0-36, in the French or
  American wheel order of p217-2007 (37 pockets); an American file may also hold ``00``
  (the 38-pocket online roulette of srij-804-2015), which switches to the double-zero wheel.
* ``dice-2`` / ``dice-3``: the faces of one throw, 1-6, separated by spaces or commas.
* ``cards-52xK``: one shuffle per line, the 52·K card ids 0..52K−1 in the order the shuffler
  delivered them, each exactly once; every shuffle started from the cards in id order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from bench.games.roulette_layout import AMERICAN_ORDER, FRENCH_ORDER
from rng_tests.fairness.cards import (
    COLLAPSED_BINS,
    FULL_TABLE_MAX_CARDS,
    adjacent_pairs_test,
    position_frequency_test,
    rising_sequence_test,
    successor_test,
)
from rng_tests.fairness.dice import dice_fairness_tests
from rng_tests.fairness.integer_streams import integer_stream_tests
from rng_tests.fairness.roulette import (
    DOUBLE_ZERO,
    DOUBLE_ZERO_ORDER,
    dealer_signature_test,
    derived_chance_tests,
    distance_test,
    pockets_test,
    sector_test,
)
from rng_tests.result import TestResult

OUTCOME_KINDS = ("roulette-french", "roulette-american", "dice-2", "dice-3", "cards-52xK")
ShuffleCriterion = Literal["riffle-7", "uniform"]
REFERENCE_RIFFLES = 7


class OutcomeFileError(ValueError):
    """An outcome file that cannot be read; the message names the file, line and fault."""


@dataclass(frozen=True)
class OutcomeSample:
    """Outcomes read from a file: ``values`` is 1-D (roulette), (N, dice) or (S, n) (shuffles)."""

    kind: str
    values: np.ndarray
    order: tuple[int, ...] | None = None  # the wheel order, for roulette


def parse_kind(kind: str) -> tuple[str, int]:
    """Split a kind into its family and size: ``dice-3`` → ("dice", 3), ``cards-52x6`` → ("cards", 312)."""
    if kind in ("roulette-french", "roulette-american"):
        return "roulette", 37
    if kind in ("dice-2", "dice-3"):
        return "dice", int(kind[-1])
    match = re.fullmatch(r"cards-52x([1-9][0-9]?)", kind)
    if match:
        return "cards", 52 * int(match.group(1))
    raise OutcomeFileError(f"unknown kind {kind!r} (kinds: roulette-french, roulette-american, dice-2, dice-3, "
                           "cards-52xK with K decks, e.g. cards-52x6)")


def _lines(path: Path) -> list[tuple[int, str]]:
    try:
        text = path.read_text(encoding="ascii")
    except UnicodeDecodeError as error:
        line = path.read_bytes()[: error.start].count(b"\n") + 1
        raise OutcomeFileError(f"{path}:{line}: byte {error.start} is not ASCII") from error
    except OSError as error:
        raise OutcomeFileError(f"{path}: cannot read ({error.strerror or error})") from error
    lines = [(number, line.split("#", 1)[0].strip()) for number, line in enumerate(text.splitlines(), start=1)]
    lines = [(number, line) for number, line in lines if line]
    if not lines:
        raise OutcomeFileError(f"{path}: no outcomes (the file is empty or only comments)")
    return lines


def read_outcomes(path: Path, kind: str) -> OutcomeSample:
    """Read and validate an outcome file of ``kind``; errors name the file, the line and the fault."""
    family, size = parse_kind(kind)
    lines = _lines(path)
    if family == "roulette":
        values = []
        for number, text in lines:
            if text == "00" and kind == "roulette-american":
                values.append(DOUBLE_ZERO)
                continue
            if text == "00":
                raise OutcomeFileError(f"{path}:{number}: '00' is the double zero, a pocket the French wheel "
                                       "(37 pockets, 0-36) does not have")
            allowed = "0-36 or 00" if kind == "roulette-american" else "0-36"
            if re.fullmatch(r"0[0-9]+", text):
                raise OutcomeFileError(f"{path}:{number}: {text!r} is not a pocket number ({allowed}, "
                                       "written without leading zeros)")
            if not text.isdigit() or not 0 <= int(text) <= 36:
                raise OutcomeFileError(f"{path}:{number}: {text!r} is not a pocket number ({allowed})")
            values.append(int(text))
        array = np.array(values, dtype=np.int64)
        if kind == "roulette-french":
            order = FRENCH_ORDER
        else:
            order = DOUBLE_ZERO_ORDER if np.any(array == DOUBLE_ZERO) else AMERICAN_ORDER
        return OutcomeSample(kind, array, tuple(order))
    rows = []
    for number, text in lines:
        fields = [field for field in re.split(r"[\s,;]+", text) if field]
        if not all(field.isdigit() for field in fields):
            bad = next(field for field in fields if not field.isdigit())
            raise OutcomeFileError(f"{path}:{number}: {bad!r} is not a whole number")
        row = [int(field) for field in fields]
        if len(row) != size:
            what = "dice faces" if family == "dice" else "card ids"
            raise OutcomeFileError(f"{path}:{number}: {len(row)} {what}, expected {size} for {kind}")
        if family == "dice" and not all(1 <= face <= 6 for face in row):
            raise OutcomeFileError(f"{path}:{number}: face {next(f for f in row if not 1 <= f <= 6)} outside 1-6")
        if family == "cards" and sorted(row) != list(range(size)):
            missing = sorted(set(range(size)) - set(row))
            repeated = sorted({card for card in row if row.count(card) > 1})
            raise OutcomeFileError(f"{path}:{number}: not a permutation of 0-{size - 1} "
                                   f"(missing {missing[:5]}, repeated {repeated[:5]})")
        rows.append(row)
    return OutcomeSample(kind, np.array(rows, dtype=np.int64))


MIN_EXPECTED_PER_CATEGORY = 5
"""Roulette and dice: a sample must expect every pocket (every face) at least this often (Cochran's rule)."""


def minimum_outcomes(sample: OutcomeSample) -> tuple[int, str]:
    """The fewest outcomes the family of ``sample``'s kind needs, and the rule that sets it.

    Roulette: every pocket expected at least 5 times (185 spins on 37 pockets, 190 with a double
    zero); dice: every face of every die expected at least 5 times (30 throws). Shuffles: every
    card (block) expected at least once at every position (block) of the card-by-position table
    (52 shuffles of one deck); its p-value is Monte-Carlo below 5 per cell. Below these, a
    family has little or no power against any unfairness, so a PASS would certify nothing.
    """
    family, size = parse_kind(sample.kind)
    if family == "roulette":
        pockets = len(sample.order) if sample.order is not None else size
        return (MIN_EXPECTED_PER_CATEGORY * pockets,
                f"every one of the {pockets} pockets expected at least {MIN_EXPECTED_PER_CATEGORY} times")
    if family == "dice":
        return (MIN_EXPECTED_PER_CATEGORY * 6,
                f"every face of each die expected at least {MIN_EXPECTED_PER_CATEGORY} times")
    blocks = size if size <= FULL_TABLE_MAX_CARDS else COLLAPSED_BINS
    cells = -(-blocks * blocks // size)
    return cells, f"every card expected at least once at every position of the {blocks}x{blocks} card-by-position table"


def check_sample_size(path: Path, sample: OutcomeSample) -> None:
    """Raise :class:`OutcomeFileError` naming the file and the minimum when ``sample`` is too small."""
    needed, rule = minimum_outcomes(sample)
    count = int(sample.values.shape[0])
    if count < needed:
        what = {"roulette": "spins", "dice": "throws", "cards": "shuffles"}[parse_kind(sample.kind)[0]]
        raise OutcomeFileError(f"{path}: {count:,} {what}, below the minimum of {needed:,} {what} for {sample.kind} "
                               f"({rule})")


def roulette_family(numbers: np.ndarray, order: tuple[int, ...], *, seed: int = 0) -> dict[str, TestResult]:
    """Pockets, derived chances, sectors, successive distances, dealer signature and the stream tests."""
    family: dict[str, TestResult] = {"pockets": pockets_test(numbers, order, seed=seed)}
    family |= {f"chance/{name}": result for name, result in derived_chance_tests(numbers, order, seed=seed).items()}
    family["sectors"] = sector_test(numbers, order, seed=seed)
    family["successive distance"] = distance_test(numbers, order, seed=seed)
    family["dealer signature"] = dealer_signature_test(numbers, order, seed=seed)
    family |= {f"stream/{name}": result for name, result in
               integer_stream_tests(numbers, len(order), seed=seed).items()}
    return family


def shuffle_family(outputs: np.ndarray, *, criterion: ShuffleCriterion = "riffle-7",
                   seed: int = 0) -> dict[str, TestResult]:
    """Card-by-position, successor and rising sequences; adjacent pairs too under the uniform criterion.

    ``riffle-7`` (default) certifies that shuffles mix at least as well as 7 Gilbert-Shannon-Reeds
    riffles ("seven shuffles suffice", Bayer & Diaconis 1992): rising sequences are tested against
    the exact law of 7 riffles, one-sided. ``uniform`` tests against exactly uniform permutations,
    under which 7 riffles are rejected by a few dozen shuffles (their total variation from uniform
    is 0.334 for 52 cards).
    """
    input_order = np.arange(outputs.shape[1])
    family = {
        "position frequency": position_frequency_test(input_order, outputs, seed=seed),
        "successor": successor_test(input_order, outputs, seed=seed),
    }
    if criterion == "riffle-7":
        family["rising sequences (vs 7 riffles)"] = rising_sequence_test(input_order, outputs,
                                                                          reference_riffles=REFERENCE_RIFFLES)
    else:
        family["rising sequences"] = rising_sequence_test(input_order, outputs)
        family["adjacent pairs"] = adjacent_pairs_test(input_order, outputs)
    return family


def outcome_family(sample: OutcomeSample, *, criterion: ShuffleCriterion = "riffle-7",
                   seed: int = 0) -> dict[str, TestResult]:
    """The fairness family of a sample, by its kind."""
    family, _ = parse_kind(sample.kind)
    if family == "roulette":
        assert sample.order is not None
        return roulette_family(sample.values, sample.order, seed=seed)
    if family == "dice":
        return dice_fairness_tests(sample.values, seed=seed)
    return shuffle_family(sample.values, criterion=criterion, seed=seed)
