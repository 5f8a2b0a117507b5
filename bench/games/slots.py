"""Return to player (RTP) of slot machines, exact from the reel strips and the pay table.

Clause p217-2007/maquinas-automaticas/2: the prize plans must return at least 80 % of the
amounts played ("pelo menos, 80% dos montantes jogados sejam devolvidos em prémios").

Model. A machine has R reels, each a strip of symbols; a spin stops every reel independently
and uniformly on one of its positions. Stop ``t`` puts ``strip[t]`` on the centre row of a
window of ``window`` rows; row ``r`` shows ``strip[(t + r - window // 2) mod L]``. A pay line
names one row per reel (the default is the single centre line). The player bets one credit per
line; a line pays the *highest* pay-table entry it matches (one award per line), and a play
wins the sum over its lines. A pay-table entry lists symbols for the leftmost reels, consecutive
from reel 1 (``("CHERRY",)`` pays for a cherry on reel 1 whatever follows); each element is a
symbol, a set of symbols ("any bar") or ``"*"`` (any symbol); symbols declared ``wild``
substitute for any symbol. Scatter pays, features and progressive jackpots are outside this
model (jackpot contributions are p217-2007/maquinas-automaticas/3, separate from the 80 %).

Exact theory (:func:`theoretical_rtp`). RTP = E[win per play] / bet. For one line the win
depends on the reels only through the symbols on that line, so the distribution of the win is
obtained exactly from the symbol counts per reel: every combination of symbols present on each
reel, weighted by the product of their counts (cost: product of the numbers of distinct symbols,
not of reel lengths). With several lines the lines share the stops; the exact distribution of
the total win comes from enumerating every stop combination (vectorised in chunks; cost the
product of the reel lengths, up to ``max_combinations``). Pays are handled as exact fractions:
RTP, hit frequency and the variance are exact rationals, reported as floats (RTP also as a
:class:`fractions.Fraction`).

A machine's play is simulated by :func:`random_stops` (uniform independent stops) and
:func:`spin_wins`. Whether observed play shows the 80 % is tested by :mod:`rng_tests.fairness.slots`.

Denominations (:data:`DENOMINATIONS_CENTS`) are those a machine can declare over SAS (SAS 6.02
table C-4, the codes of long poll 1F), so that a PAR sheet's denomination is checked against them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

CLAUSE = "p217-2007/maquinas-automaticas/2"
RTP_FLOOR = 0.80
ANY = "*"
DEFAULT_MAX_COMBINATIONS = 50_000_000
_CHUNK = 1_000_000

PatternElement = str | frozenset[str] | set[str] | tuple[str, ...] | list[str]

# Denomination codes of long poll 1F (SAS 6.02 table C-4), value in cents.
DENOMINATIONS_CENTS: dict[int, int] = {
    0x01: 1, 0x17: 2, 0x02: 5, 0x03: 10, 0x0B: 20, 0x04: 25, 0x05: 50, 0x06: 100, 0x0C: 200, 0x0D: 250,
    0x07: 500, 0x08: 1000, 0x09: 2000, 0x0E: 2500, 0x0F: 5000, 0x0A: 10000,
}


@dataclass(frozen=True)
class PayEntry:
    """One pay-table entry: symbols (or symbol sets) for the leftmost reels and the credits it pays per credit."""

    pattern: tuple[frozenset[str] | None, ...]  # None: any symbol
    pays: Fraction
    label: str


@dataclass(frozen=True)
class PayTable:
    """Pay-table entries and the wild symbols; build it with :meth:`from_mapping`."""

    entries: tuple[PayEntry, ...]
    wild: frozenset[str] = frozenset()

    @classmethod
    def from_mapping(
        cls,
        pays: Mapping[tuple[PatternElement, ...], float | int | Fraction],
        *,
        sets: Mapping[str, Iterable[str]] | None = None,
        wild: Iterable[str] = (),
    ) -> PayTable:
        """A pay table from ``{pattern: credits}``.

        A pattern element is a symbol, ``"*"`` (any symbol), a collection of symbols, or a name in
        ``sets`` (e.g. ``sets={"ANY BAR": {"BAR", "2BAR", "3BAR"}}``). Credits are per credit bet on the
        line, given as int, Fraction or decimal (converted through ``str`` so 0.5 stays exact).
        """
        named = {name: frozenset(members) for name, members in (sets or {}).items()}
        entries = []
        for pattern, credits in pays.items():
            if not isinstance(pattern, tuple) or not pattern:
                raise ValueError(f"a pay-table pattern must be a non-empty tuple, got {pattern!r}")
            elements: list[frozenset[str] | None] = []
            for element in pattern:
                if isinstance(element, str):
                    elements.append(None if element == ANY else named.get(element, frozenset([element])))
                else:
                    members = frozenset(element)
                    if not members or not all(isinstance(m, str) for m in members):
                        raise ValueError(f"a symbol set in {pattern!r} must be a non-empty set of symbol names")
                    elements.append(members)
            value = credits if isinstance(credits, Fraction) else Fraction(str(credits))
            if value < 0:
                raise ValueError(f"pays for {pattern!r} must be non-negative, got {credits!r}")
            entries.append(PayEntry(tuple(elements), value, " ".join(str(e) for e in pattern)))
        if not entries:
            raise ValueError("the pay table has no entries")
        return cls(tuple(entries), frozenset(wild))


@dataclass(frozen=True)
class SlotMachine:
    """Reel strips, pay table and pay lines (one row index per reel; default: the centre line)."""

    reels: tuple[tuple[str, ...], ...]
    pay_table: PayTable
    lines: tuple[tuple[int, ...], ...] = ()
    window: int = 3

    def __post_init__(self) -> None:
        if not self.reels or any(len(reel) == 0 for reel in self.reels):
            raise ValueError("every reel needs at least one symbol")
        if any(not isinstance(symbol, str) for reel in self.reels for symbol in reel):
            raise ValueError("reel symbols must be strings")
        if self.window < 1:
            raise ValueError(f"window must be at least 1 row, got {self.window}")
        object.__setattr__(self, "reels", tuple(tuple(reel) for reel in self.reels))
        if not self.lines:
            object.__setattr__(self, "lines", ((self.window // 2,) * len(self.reels),))
        object.__setattr__(self, "lines", tuple(tuple(int(row) for row in line) for line in self.lines))
        for line in self.lines:
            if len(line) != len(self.reels) or not all(0 <= row < self.window for row in line):
                raise ValueError(f"pay line {line} must give a row in 0..{self.window - 1} for each of the "
                                 f"{len(self.reels)} reels")
        known = set(self.symbols)
        for entry in self.pay_table.entries:
            if len(entry.pattern) > len(self.reels):
                raise ValueError(f"pay-table entry {entry.label!r} is longer than the {len(self.reels)} reels")
            unknown = set().union(*(e for e in entry.pattern if e is not None)) - known
            if unknown:
                raise ValueError(f"pay-table entry {entry.label!r} names symbols on no reel: {sorted(unknown)}")
        if self.pay_table.wild - known:
            raise ValueError(f"wild symbols on no reel: {sorted(self.pay_table.wild - known)}")

    @property
    def symbols(self) -> tuple[str, ...]:
        return tuple(sorted({symbol for reel in self.reels for symbol in reel}))

    @property
    def bet_per_play(self) -> int:
        """Credits bet per play: one per line."""
        return len(self.lines)


@dataclass(frozen=True)
class SlotTheory:
    """Exact figures of a machine's pay plan, per play of one credit per line."""

    rtp: float
    rtp_exact: Fraction
    hit_frequency: float
    variance: float  # of the win per credit bet, X = win / bet, per play
    max_win_per_credit: float
    bet_per_play: int
    combinations: int
    win_counts: dict[Fraction, int]  # total win per play (credits) -> number of stop combinations
    method: str

    @property
    def second_moment(self) -> float:
        """E[X²] of the win per credit bet."""
        return self.variance + self.rtp**2


# -- exact theory ------------------------------------------------------------------------------


def _symbol_index(machine: SlotMachine) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per reel: the distinct symbols present (alphabet indices) and each strip position's index among them."""
    alphabet = {symbol: index for index, symbol in enumerate(machine.symbols)}
    supports, positions = [], []
    for reel in machine.reels:
        codes = np.array([alphabet[symbol] for symbol in reel])
        support, inverse = np.unique(codes, return_inverse=True)
        supports.append(support)
        positions.append(inverse)
    return supports, positions


def _win_grid(machine: SlotMachine, supports: list[np.ndarray], scale: int) -> np.ndarray:
    """Win of one line (in 1/scale credits) for every combination of the symbols present on each reel."""
    alphabet = machine.symbols
    grids = np.meshgrid(*supports, indexing="ij")
    shape = grids[0].shape
    symbols = [grid.ravel() for grid in grids]
    wild = np.array([symbol in machine.pay_table.wild for symbol in alphabet])
    win = np.zeros(symbols[0].size, dtype=np.int64)
    for entry in machine.pay_table.entries:
        match = np.ones(symbols[0].size, dtype=bool)
        for reel, element in enumerate(entry.pattern):
            if element is None:
                continue
            allowed = np.array([symbol in element for symbol in alphabet]) | wild
            match &= allowed[symbols[reel]]
        award = int(entry.pays * scale)
        win = np.where(match & (award > win), award, win)
    return win.reshape(shape)


def _scale(machine: SlotMachine) -> int:
    return math.lcm(*(entry.pays.denominator for entry in machine.pay_table.entries))


def _theory_from_counts(machine: SlotMachine, counts: dict[int, int], scale: int, method: str) -> SlotTheory:
    combinations = sum(counts.values())
    bet = machine.bet_per_play
    win_counts = {Fraction(value, scale): count for value, count in sorted(counts.items())}
    mean = sum(value * count for value, count in win_counts.items()) / Fraction(combinations)
    second = sum(value * value * count for value, count in win_counts.items()) / Fraction(combinations)
    hits = sum(count for value, count in win_counts.items() if value > 0)
    rtp = mean / bet
    return SlotTheory(
        rtp=float(rtp),
        rtp_exact=rtp,
        hit_frequency=hits / combinations,
        variance=float((second - mean * mean) / (bet * bet)),
        max_win_per_credit=float(max(win_counts) / bet),
        bet_per_play=bet,
        combinations=combinations,
        win_counts=win_counts,
        method=method,
    )


def theoretical_rtp(machine: SlotMachine, *, max_combinations: int = DEFAULT_MAX_COMBINATIONS) -> SlotTheory:
    """Exact RTP, hit frequency and per-play variance of the win per credit, from strips and pay table.

    One line: by symbol counts per reel (exact, cheap for any reel length). Several lines: by
    enumerating all stop combinations (exact; ValueError above ``max_combinations``).
    """
    supports, positions = _symbol_index(machine)
    scale = _scale(machine)
    grid = _win_grid(machine, supports, scale)
    lengths = [len(reel) for reel in machine.reels]
    combinations = math.prod(lengths)
    if len(machine.lines) == 1:
        weights = np.ones(1, dtype=object)
        for reel_positions, support in zip(positions, supports, strict=True):
            per_symbol = np.bincount(reel_positions, minlength=support.size).astype(object)
            weights = np.multiply.outer(weights, per_symbol)
        weights = weights.reshape(grid.shape)
        counts: dict[int, int] = {}
        for value in np.unique(grid):
            counts[int(value)] = int(weights[grid == value].sum())
        return _theory_from_counts(machine, counts, scale, "exact, by symbol counts per reel (one line)")
    if combinations > max_combinations:
        raise ValueError(f"{combinations:,} stop combinations exceed max_combinations={max_combinations:,}; "
                         "raise the limit or compute the lines one at a time")
    flat_grid = grid.ravel()
    centre = machine.window // 2
    # per line and reel: the grid coordinate shown at each stop
    shown = [[np.roll(positions[reel], centre - line[reel]) for reel in range(len(lengths))] for line in machine.lines]
    strides = np.array([math.prod(s.size for s in supports[reel + 1:]) for reel in range(len(lengths))])
    totals: dict[int, int] = {}
    for start in range(0, combinations, _CHUNK):
        flat = np.arange(start, min(combinations, start + _CHUNK), dtype=np.int64)
        stops = np.unravel_index(flat, lengths)
        total = np.zeros(flat.size, dtype=np.int64)
        for line_shown in shown:
            cell = sum(line_shown[reel][stops[reel]] * strides[reel] for reel in range(len(lengths)))
            total += flat_grid[cell]
        values, counts_ = np.unique(total, return_counts=True)
        for value, count in zip(values.tolist(), counts_.tolist(), strict=True):
            totals[value] = totals.get(value, 0) + count
    return _theory_from_counts(machine, totals, scale,
                               f"exact, by enumeration of all {combinations:,} stop combinations "
                               f"({len(machine.lines)} lines)")


def spin_wins(machine: SlotMachine, stops: np.ndarray) -> np.ndarray:
    """Total win (credits, one credit per line) of each play given its reel stops (``(N, R)`` array)."""
    stops = np.asarray(stops)
    lengths = np.array([len(reel) for reel in machine.reels])
    if stops.ndim != 2 or stops.shape[1] != lengths.size or not np.issubdtype(stops.dtype, np.integer):
        raise ValueError(f"stops must be an (N, {lengths.size}) integer array")
    if np.any(stops < 0) or np.any(stops >= lengths):
        raise ValueError("a stop is outside its reel")
    supports, positions = _symbol_index(machine)
    scale = _scale(machine)
    grid = _win_grid(machine, supports, scale)
    centre = machine.window // 2
    total = np.zeros(stops.shape[0], dtype=np.int64)
    for line in machine.lines:
        index = tuple(positions[reel][(stops[:, reel] + line[reel] - centre) % lengths[reel]]
                      for reel in range(lengths.size))
        total += grid[index]
    return total / scale


def random_stops(machine: SlotMachine, rng: np.random.Generator, plays: int) -> np.ndarray:
    """``(plays, R)`` uniform independent reel stops (the fair random number generator of a machine)."""
    return np.column_stack([rng.integers(0, len(reel), size=plays) for reel in machine.reels])
