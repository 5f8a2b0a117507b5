"""Stakes: exact money, the settlement of one bet, and the stake limits the regulations set.

Money is exact: an ``int`` number of euro cents or a :class:`fractions.Fraction` of cents
(prizes such as "half the stake" or "6 for 5" can fall between cents; the oracle keeps the
exact value and leaves rounding to whoever compares it with equipment). Floats and booleans
are refused with a ValueError: never float money.

A :class:`Settlement` says what happens to one bet on one outcome: the stake at risk, the prize
the bank pays, the part of the stake that stays the player's and the part the bank collects.
Every game module of this package returns one.

Stake limits (maximum as a multiple of the minimum, per chance) are tables of
:class:`ChanceLimit`, one :class:`LimitTable` per game and regulation:

* p217-2007/roleta-americana/32 and p217-2007/roleta-francesa/24 (casino roulette),
  srij-804-2015/roleta-americana/11 (online American roulette);
* p217-2007/banca-francesa/17 (and the line bets of p217-2007/banca-francesa/11);
* p217-2007/blackjack/37 and /14, srij-805-2015/blackjack/11;
* p217-2007/poquer-sem-descarte/14, p461-2001/poquer-sem-descarte/14,
  srij-803-2015/poquer-sem-descarte/18 (the initial bet);
* p217-2007/bacara-ponto-e-banca/21;
* p217-2007/craps/12 (place bets in multiples of the minimum) and craps/11.1 (odds no larger
  than the line bet).

Check functions return a tuple of :class:`Violation` (empty when the rules are met), each
naming the clause it breaks; malformed input (an unknown chance, a float) raises ValueError.
These tables are the only copy of the limits: the card games' ``check_*`` functions
(:func:`bench.games.blackjack.check_bet`, :func:`bench.games.bacara.check_stake`,
:func:`bench.games.poquer_sem_descarte.check_ante`) read them and raise the violations
(:func:`raise_violations`). Every amount of the package is checked by :func:`as_money`.

"Até 30 vezes superior ao valor mínimo" (p217-2007) is read as maximum <= 30 x minimum, the
wording of srij-804-2015/roleta-americana/11 ("até 30 vezes o valor da aposta mínima").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Literal

__all__ = [
    "BANCA_FRANCESA_LINE_UNIT", "LIMIT_TABLES", "SERIES_CHIPS", "ChanceLimit", "Decision", "LimitTable", "Money",
    "Settlement", "Violation", "as_money", "check_banca_francesa_line", "check_bet_limits", "check_craps_odds",
    "check_player_total", "check_series_chips", "check_stake", "check_straight_exposure", "check_table_limits",
    "raise_violations",
]

Money = int | Fraction
"""An amount in euro cents: an int, or a Fraction where a prize falls between cents."""

Decision = Literal["win", "lose", "push", "partial", "none"]
"""How a bet was decided: ``partial`` when some chips of a multi-chip bet win and others lose,
``none`` when the outcome does not decide it (it stays on the layout)."""


def as_money(value: object, what: str = "stake", *, positive: bool = False, whole: bool = False) -> Fraction:
    """``value`` as an exact non-negative Fraction of cents; ValueError naming ``what`` otherwise.

    The one money check of the package. ``positive``: zero is refused too (a stake, a table
    minimum). ``whole``: only an ``int`` is accepted (chips, a pool, a contribution: whole cents;
    prizes may fall between cents, stakes of the card games may not).
    """
    if isinstance(value, bool) or not isinstance(value, int | Fraction):
        raise ValueError(f"{what} must be an int number of cents or a Fraction (never a float), got {value!r}")  # noqa: TRY004
    if whole and not isinstance(value, int):
        raise ValueError(f"{what} must be a whole number of cents (an int), got {value!r}")
    amount = Fraction(value)
    if amount < 0:
        raise ValueError(f"{what} must not be negative, got {value!r}")
    if positive and amount == 0:
        raise ValueError(f"{what} must be positive, got {value!r}")
    return amount


@dataclass(frozen=True)
class Settlement:
    """One bet settled on one outcome (amounts in cents, exact).

    ``staked`` = ``returned`` + ``lost``: the stake at risk is either kept by (returned to) the
    player or collected by the bank. ``prize`` is what the bank pays on top. The regulations
    state that winning stakes remain the player's (e.g. p217-2007/roleta-americana/27,
    p217-2007/banca-francesa/14, p217-2007/craps/13.2, p217-2007/cussec/10).
    """

    decision: Decision
    staked: Fraction
    prize: Fraction
    returned: Fraction
    lost: Fraction

    def __post_init__(self) -> None:
        for name in ("staked", "prize", "returned", "lost"):
            amount = getattr(self, name)
            if not isinstance(amount, Fraction) or amount < 0:
                raise ValueError(f"settlement {name} must be a non-negative Fraction, got {amount!r}")
        if self.returned + self.lost != self.staked:
            raise ValueError(
                f"settlement does not conserve the stake: returned {self.returned} + lost {self.lost}"
                f" != staked {self.staked}"
            )

    @property
    def net(self) -> Fraction:
        """The player's gain (positive) or loss (negative) on this outcome."""
        return self.prize - self.lost

    @property
    def paid(self) -> Fraction:
        """Everything handed to the player: the prize plus the stake he keeps."""
        return self.prize + self.returned

    @classmethod
    def win(cls, stake: Money, prize: Money) -> Settlement:
        """The whole stake wins ``prize`` and stays the player's."""
        return cls("win", as_money(stake), as_money(prize, "prize"), as_money(stake), Fraction(0))

    @classmethod
    def lose(cls, stake: Money, part: Money | None = None) -> Settlement:
        """The whole stake is collected, or only ``part`` of it and the rest returned (the stake in
        play of a line bet, p217-2007/banca-francesa/11; a surrender, p217-2007/blackjack/36)."""
        staked = as_money(stake)
        lost = staked if part is None else as_money(part, "part of the stake lost")
        if lost > staked:
            raise ValueError(f"part of the stake lost {lost} is more than the stake {staked}")
        return cls("lose", staked, Fraction(0), staked - lost, lost)

    @classmethod
    def push(cls, stake: Money) -> Settlement:
        """Neither won nor lost: the stake is returned (a barred total, a void round)."""
        return cls("push", as_money(stake), Fraction(0), as_money(stake), Fraction(0))

    @classmethod
    def no_decision(cls, stake: Money) -> Settlement:
        """The outcome does not decide the bet: it stays in play, nothing paid or collected."""
        return cls("none", as_money(stake), Fraction(0), as_money(stake), Fraction(0))


@dataclass(frozen=True)
class Violation:
    """One stake rule broken: the clause, the chance it concerns (if any) and what is wrong."""

    clause: str
    chance: str | None
    message: str


@dataclass(frozen=True)
class ChanceLimit:
    """The stake rules of one chance.

    ``max_multiple``: the maximum may be at most this many times the minimum (None: the rules
    set no ratio). ``multiple_of_minimum``: every stake must be a whole multiple of the minimum.
    ``clauses``: where the rules are written.
    """

    chance: str
    max_multiple: int | None
    clauses: tuple[str, ...]
    multiple_of_minimum: bool = False


@dataclass(frozen=True)
class LimitTable:
    """The stake rules of one game under one regulation, by chance name."""

    game: str
    regulation: str
    limits: Mapping[str, ChanceLimit] = field(default_factory=dict)

    def limit(self, chance: str) -> ChanceLimit:
        """The rules of ``chance``; ValueError naming the chance and the known ones otherwise."""
        try:
            return self.limits[chance]
        except KeyError:
            known = ", ".join(sorted(self.limits))
            raise ValueError(f"unknown chance {chance!r} for {self.game} ({self.regulation}); known: {known}") from None


def _table(game: str, regulation: str, entries: Mapping[str, int | None], clauses: tuple[str, ...],
           multiple_of_minimum: frozenset[str] = frozenset()) -> LimitTable:
    limits = {name: ChanceLimit(name, ratio, clauses, name in multiple_of_minimum) for name, ratio in entries.items()}
    return LimitTable(game, regulation, MappingProxyType(limits))


_ROULETTE_RATIOS: dict[str, int | None] = {
    "pleno": 30, "cavalo": 60, "rua": 90, "quadro": 120, "linha": 180, "duzia": 360, "coluna": 360,
    "cavalo-de-duzia": 720, "cavalo-de-coluna": 720,
    "par": 540, "impar": 540, "menor": 540, "maior": 540, "encarnado": 540, "preto": 540,
}

LIMIT_TABLES: Mapping[str, LimitTable] = MappingProxyType({
    "p217-2007/roleta-americana": _table(
        "roleta-americana", "p217-2007", _ROULETTE_RATIOS, ("p217-2007/roleta-americana/32",)),
    "p217-2007/roleta-francesa": _table(
        "roleta-francesa", "p217-2007", _ROULETTE_RATIOS, ("p217-2007/roleta-francesa/24",)),
    "srij-804-2015/roleta-americana": _table(
        "roleta-americana", "srij-804-2015", _ROULETTE_RATIOS, ("srij-804-2015/roleta-americana/11",)),
    "p217-2007/banca-francesa": _table(
        "banca-francesa", "p217-2007", {"ases": 6, "pequeno": 200, "grande": 200}, ("p217-2007/banca-francesa/17",)),
    "p217-2007/blackjack": _table(
        "blackjack", "p217-2007", {"aposta": 30}, ("p217-2007/blackjack/37", "p217-2007/blackjack/14"),
        frozenset({"aposta"})),
    "srij-805-2015/blackjack": _table(
        "blackjack", "srij-805-2015", {"aposta": 100}, ("srij-805-2015/blackjack/11",)),
    "p217-2007/poquer-sem-descarte": _table(
        "poquer-sem-descarte", "p217-2007", {"aposta-inicial": 25}, ("p217-2007/poquer-sem-descarte/14",)),
    "p461-2001/poquer-sem-descarte": _table(
        "poquer-sem-descarte", "p461-2001", {"aposta-inicial": 25}, ("p461-2001/poquer-sem-descarte/14",)),
    "srij-803-2015/poquer-sem-descarte": _table(
        "poquer-sem-descarte", "srij-803-2015", {"aposta-inicial": 25}, ("srij-803-2015/poquer-sem-descarte/18",)),
    "p217-2007/bacara-ponto-e-banca": _table(
        "bacara-ponto-e-banca", "p217-2007",
        {"ponto": 70, "banca": 70, "empate": 15, "par-do-ponto": 8, "par-da-banca": 8},
        ("p217-2007/bacara-ponto-e-banca/21",)),
    "p217-2007/craps": _table(
        "craps", "p217-2007",
        {f"place-{n}": None for n in (4, 5, 6, 8, 9, 10)} | {f"place-to-lose-{n}": None for n in (4, 5, 6, 8, 9, 10)},
        ("p217-2007/craps/12",),
        frozenset({f"place-{n}" for n in (4, 5, 6, 8, 9, 10)} | {f"place-to-lose-{n}" for n in (4, 5, 6, 8, 9, 10)})),
})
"""Stake rules by ``<regulation>/<game>``."""


def _minimum_for(minimum: Money | Mapping[str, Money], chance: str) -> Fraction:
    if isinstance(minimum, Mapping):
        if chance not in minimum:
            raise ValueError(f"no minimum given for chance {chance!r}")
        return as_money(minimum[chance], f"minimum of {chance!r}", positive=True)
    return as_money(minimum, "minimum", positive=True)


def check_table_limits(table: LimitTable, minimum: Money | Mapping[str, Money],
                       maxima: Mapping[str, Money]) -> tuple[Violation, ...]:
    """Check a table's configured maxima against the ratios of ``table``.

    H0 of the check: for every chance, minimum <= maximum <= ``max_multiple`` x minimum
    (e.g. pleno 30x, simples 540x: p217-2007/roleta-americana/32). ``minimum`` is the table
    minimum, or a mapping giving a minimum per chance. Chances the table does not offer may be
    left out of ``maxima``; a chance the rules do not know raises ValueError.
    """
    violations: list[Violation] = []
    for chance, maximum in maxima.items():
        limit = table.limit(chance)
        low = _minimum_for(minimum, chance)
        high = as_money(maximum, f"maximum of {chance!r}", positive=True)
        clause = limit.clauses[0]
        if high < low:
            violations.append(Violation(clause, chance, f"maximum {high} is below the minimum {low}"))
        if limit.max_multiple is not None and high > limit.max_multiple * low:
            violations.append(Violation(
                clause, chance,
                f"maximum {high} exceeds {limit.max_multiple} x the minimum {low} = {limit.max_multiple * low}"))
        if limit.multiple_of_minimum and high % low:
            violations.append(Violation(clause, chance, f"maximum {high} is not a whole multiple of the minimum {low}"))
    return tuple(violations)


def check_stake(table: LimitTable, chance: str, stake: Money, minimum: Money,
                maximum: Money) -> tuple[Violation, ...]:
    """Check one stake on ``chance`` against the table's minimum and maximum for that chance.

    Violations: below the minimum, above the maximum, or (where the rules ask for it, e.g.
    p217-2007/craps/12, p217-2007/blackjack/14) not a whole multiple of the minimum.
    """
    limit = table.limit(chance)
    amount = as_money(stake, "stake", positive=True)
    low = as_money(minimum, "minimum", positive=True)
    high = as_money(maximum, "maximum", positive=True)
    clause = limit.clauses[-1] if limit.multiple_of_minimum else limit.clauses[0]
    violations: list[Violation] = []
    if amount < low:
        violations.append(Violation(limit.clauses[0], chance, f"stake {amount} is below the minimum {low}"))
    if amount > high:
        violations.append(Violation(limit.clauses[0], chance, f"stake {amount} is above the maximum {high}"))
    if limit.multiple_of_minimum and amount % low:
        violations.append(Violation(clause, chance, f"stake {amount} is not a whole multiple of the minimum {low}"))
    return tuple(violations)


def check_bet_limits(table: LimitTable, chance: str, stake: Money, minimum: Money,
                     maximum: Money) -> tuple[Violation, ...]:
    """Every stake rule of one bet at one table: the table's minimum and maximum for ``chance``
    (:func:`check_table_limits`), then the stake against them (:func:`check_stake`)."""
    return check_table_limits(table, minimum, {chance: maximum}) + check_stake(table, chance, stake, minimum, maximum)


def raise_violations(violations: Iterable[Violation]) -> None:
    """Raise one ValueError listing every violation with its clause; return when there is none.

    For the check functions that treat a broken stake rule as bad input (for example
    :func:`bench.games.blackjack.check_bet`)."""
    found = [f"{v.chance + ': ' if v.chance else ''}{v.message} ({v.clause})" for v in violations]
    if found:
        raise ValueError("; ".join(found))


SERIES_CHIPS: Mapping[str, tuple[int, int, int]] = MappingProxyType({
    "serie-grande": (9, 135, 9),
    "serie-pequena": (6, 120, 6),
    "orfaos": (5, 50, 5),
})
"""Chips allowed on the séries of p217-2007/roleta-americana/32 c): (fewest, most, step)."""


def check_series_chips(series: str, chips: int) -> tuple[Violation, ...]:
    """Chips on a série: grande 9-135 in multiples of 9, pequena 6-120 in multiples of 6,
    órfãos ("vadios") 5-50 in multiples of 5 (p217-2007/roleta-americana/32 c))."""
    if series not in SERIES_CHIPS:
        raise ValueError(f"unknown série {series!r}; known: {', '.join(SERIES_CHIPS)}")
    if isinstance(chips, bool) or not isinstance(chips, int) or chips <= 0:
        raise ValueError(f"chips must be a positive int, got {chips!r}")
    fewest, most, step = SERIES_CHIPS[series]
    clause = "p217-2007/roleta-americana/32"
    violations: list[Violation] = []
    if not fewest <= chips <= most:
        violations.append(Violation(clause, series, f"{chips} chips is outside {fewest}-{most}"))
    if chips % step:
        violations.append(Violation(clause, series, f"{chips} chips is not a whole multiple of {step}"))
    return tuple(violations)


def check_straight_exposure(per_number: Mapping[int, Money], max_pleno: Money) -> tuple[Violation, ...]:
    """A player's stakes per number from vizinhos bets and plenos together may not exceed the
    table's maximum on a pleno (p217-2007/roleta-americana/32 d)).

    ``per_number`` maps each number to the player's total straight-up stake on it (see
    :func:`bench.games.roulette.straight_exposure`).
    """
    cap = as_money(max_pleno, "maximum pleno", positive=True)
    violations: list[Violation] = []
    for number, amount in sorted(per_number.items()):
        total = as_money(amount, f"stake on number {number}")
        if total > cap:
            violations.append(Violation(
                "p217-2007/roleta-americana/32", "vizinhos",
                f"stakes on number {number} total {total}, above the maximum pleno {cap}"))
    return tuple(violations)


def check_player_total(total: Money, cap: Money | None) -> tuple[Violation, ...]:
    """The operator's per-player cap on the total stake of one round, where its specific rules
    set one (srij-804-2015/roleta-americana/12); ``cap`` None means no cap."""
    amount = as_money(total, "total stake")
    if cap is None:
        return ()
    limit = as_money(cap, "per-player cap", positive=True)
    if amount > limit:
        return (Violation("srij-804-2015/roleta-americana/12", None,
                          f"total stake {amount} exceeds the per-player cap {limit}"),)
    return ()


BANCA_FRANCESA_LINE_UNIT = 1000
"""Line bets of banca francesa are counted in whole multiples of EUR 10 (1000 cents),
p217-2007/banca-francesa/11."""


def check_banca_francesa_line(chips: Money, minimum: Money, maximum: Money) -> tuple[Violation, ...]:
    """Chips placed on a line (risco) of banca francesa must be worth at least twice the
    minimum and at most twice the maximum of the chance (p217-2007/banca-francesa/11).

    Chips beyond a multiple of EUR 10 are not in play; that is a settlement rule, not a
    violation (see :func:`bench.games.banca_francesa.line_stake_in_play`).
    """
    amount = as_money(chips, "chips on the line", positive=True)
    low = as_money(minimum, "minimum", positive=True)
    high = as_money(maximum, "maximum", positive=True)
    clause = "p217-2007/banca-francesa/11"
    violations: list[Violation] = []
    if amount < 2 * low:
        violations.append(Violation(clause, "linha", f"chips {amount} are below twice the minimum ({2 * low})"))
    if amount > 2 * high:
        violations.append(Violation(clause, "linha", f"chips {amount} are above twice the maximum ({2 * high})"))
    return tuple(violations)


def check_craps_odds(odds_stake: Money, line_stake: Money) -> tuple[Violation, ...]:
    """Odds may not exceed the line (pass, don't pass, come, don't come) bet they back
    (p217-2007/craps/11.1: "importância que não exceda a das respectivas posturas")."""
    odds = as_money(odds_stake, "odds stake", positive=True)
    line = as_money(line_stake, "line stake", positive=True)
    if odds > line:
        return (Violation("p217-2007/craps/11.1", "odds", f"odds {odds} exceed the line bet {line}"),)
    return ()
