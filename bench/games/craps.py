"""Craps settlement: every chance of p217-2007/craps/10-13, roll by roll.

A roll is two dice (p217-2007/craps/4); :func:`resolve` takes a bet and one roll and returns
either its :class:`~bench.games.stakes.Settlement` (decided: won, lost or, for a barred total,
push) or the bet that stays on the layout (undecided; a line bet that has just found its
point comes back carrying it in ``number``). Winning stakes stay the player's (/13.2); prizes
are the amounts the player "recebe" on top of the stake.

Chances and the rules implemented:

* ``pass-line`` (/10.1), ``come`` (/10.3): come-out 7 or 11 wins, 2, 3 or 12 loses, any other
  total becomes the point, which then wins before a 7 and loses after it; even money.
* ``dont-pass`` (/10.2), ``dont-come`` (/10.4) with the ``bar`` (double six or double aces):
  the come-out wins on 2 and 3 (bar 12) or 3 and 12 (bar 2), the barred total is a push, 7 or
  11 loses; after a point, 7 wins and the point loses; even money.
* ``odds`` (/11.1) behind a pass or come bet on point ``number``: 6 for 5 on 6 and 8, 3 for 2
  on 5 and 9, 2 for 1 on 4 and 10. ``dont-odds`` behind a don't pass or don't come bet: the
  text prints one table only; applied literally to the don't side it would pay 6 for 5 on a
  bet that wins 6 times in 11 (a 20 % player edge), so it is read as the same odds taken the
  other way: 5 for 6, 2 for 3, 1 for 2 (true odds, no house edge, like the right side).
* ``big-6``, ``big-8`` (/10.5, /10.6): the number before a 7, even money.
* ``under-seven``, ``over-seven`` (/10.7, /10.8): one roll, 2-6 or 8-12, even money.
* ``craps`` (/11.2): one roll, 2, 3 or 12, 7 times the stake.
* ``hardway`` on 4, 6, 8 or 10 (/11.3): the pair before a 7 or the easy way; 7 times (hard 4
  and 10) or 9 times (hard 6 and 8) the stake.
* ``total`` on 7, 2, 3, 11 or 12 (/11.4-11.8): one roll; 4, 30, 15, 15, 30 times the stake.
* ``place`` (/12, 1.a hipótese): the number before a 7; 7 for 6 (6, 8), 7 for 5 (5, 9),
  9 for 5 (4, 10). ``place-to-lose`` (/12, 2.a hipótese): a 7 before the number; 10 for 13
  (6, 8), 5 for 8 (5, 9), 5 for 11 (4, 10).
* ``field`` (/13.1): one roll; even money on 3, 4, 9, 10, 11, double on 2 and 12, loses on
  5-8.

The text does not switch any bet off on the come-out roll, so every standing bet (place,
big 6/8, hardways) is decided by every roll.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import IntEnum, StrEnum
from fractions import Fraction
from functools import cache
from types import MappingProxyType

from bench.games.dice import every_throw
from bench.games.dice import faces as dice_faces
from bench.games.stakes import Money, Settlement, as_money

__all__ = [
    "ODDS_PAYOUTS", "PLACE_PAYOUTS", "PLACE_TO_LOSE_PAYOUTS", "POINTS", "Bar", "Bet", "Chance", "Roll",
    "check_placement", "decision_probabilities", "expected_net", "resolve", "table_point",
]

POINTS = (4, 5, 6, 8, 9, 10)
"""The point numbers, p217-2007/craps/10.1."""


class Chance(StrEnum):
    """The chances of p217-2007/craps/10-13."""

    PASS_LINE = "pass-line"
    DONT_PASS = "dont-pass"
    COME = "come"
    DONT_COME = "dont-come"
    ODDS = "odds"
    DONT_ODDS = "dont-odds"
    BIG_6 = "big-6"
    BIG_8 = "big-8"
    UNDER_SEVEN = "under-seven"
    OVER_SEVEN = "over-seven"
    CRAPS = "craps"
    HARDWAY = "hardway"
    TOTAL = "total"
    PLACE = "place"
    PLACE_TO_LOSE = "place-to-lose"
    FIELD = "field"


class Bar(IntEnum):
    """The barred come-out total of the don't bets (p217-2007/craps/10.2): double six or double aces."""

    DOUBLE_SIX = 12
    DOUBLE_ACES = 2


ODDS_PAYOUTS: Mapping[int, Fraction] = MappingProxyType({
    6: Fraction(6, 5), 8: Fraction(6, 5), 5: Fraction(3, 2), 9: Fraction(3, 2), 4: Fraction(2), 10: Fraction(2)})
"""Prize per unit of odds on the point, p217-2007/craps/11.1."""
PLACE_PAYOUTS: Mapping[int, Fraction] = MappingProxyType({
    6: Fraction(7, 6), 8: Fraction(7, 6), 5: Fraction(7, 5), 9: Fraction(7, 5), 4: Fraction(9, 5), 10: Fraction(9, 5)})
"""Prize per unit on the number before 7, p217-2007/craps/12 (1.a hipótese)."""
PLACE_TO_LOSE_PAYOUTS: Mapping[int, Fraction] = MappingProxyType({
    6: Fraction(10, 13), 8: Fraction(10, 13), 5: Fraction(5, 8), 9: Fraction(5, 8), 4: Fraction(5, 11),
    10: Fraction(5, 11)})
"""Prize per unit on 7 before the number, p217-2007/craps/12 (2.a hipótese)."""
_HARDWAY_PRIZES = {4: Fraction(7), 10: Fraction(7), 6: Fraction(9), 8: Fraction(9)}
_TOTAL_PRIZES = {7: Fraction(4), 2: Fraction(30), 3: Fraction(15), 11: Fraction(15), 12: Fraction(30)}

_LINE = (Chance.PASS_LINE, Chance.COME)
_DONT = (Chance.DONT_PASS, Chance.DONT_COME)
_NUMBERS: Mapping[Chance, tuple[int, ...]] = {
    Chance.ODDS: POINTS, Chance.DONT_ODDS: POINTS, Chance.PLACE: POINTS, Chance.PLACE_TO_LOSE: POINTS,
    Chance.HARDWAY: (4, 6, 8, 10), Chance.TOTAL: (2, 3, 7, 11, 12),
    Chance.PASS_LINE: POINTS, Chance.COME: POINTS, Chance.DONT_PASS: POINTS, Chance.DONT_COME: POINTS,
}


@dataclass(frozen=True)
class Roll:
    """Two dice, each 1-6."""

    die1: int
    die2: int

    def __post_init__(self) -> None:
        dice_faces((self.die1, self.die2), 2, "craps")

    @property
    def total(self) -> int:
        """The sum of the two dice."""
        return self.die1 + self.die2

    @property
    def hard(self) -> bool:
        """Whether the dice form a pair ("the hard way")."""
        return self.die1 == self.die2


@dataclass(frozen=True)
class Bet:
    """A stake (cents) on ``chance``.

    ``number``: the point of a line bet once moved to it (None on its come-out), the point of
    odds, the box of place / place-to-lose, the pair total of a hardway, the total of a
    ``total`` bet. ``bar``: required on dont-pass and dont-come.
    """

    chance: Chance
    stake: Money
    number: int | None = None
    bar: Bar | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "chance", Chance(self.chance))
        except ValueError:
            raise ValueError(f"unknown craps chance {self.chance!r}; known: {', '.join(Chance)}") from None
        as_money(self.stake, positive=True)
        allowed = _NUMBERS.get(self.chance)
        if allowed is None and self.number is not None:
            raise ValueError(f"a {self.chance} bet takes no number, got {self.number!r}")
        optional = self.chance in _LINE or self.chance in _DONT
        if allowed is not None and not (optional and self.number is None) and self.number not in allowed:
            raise ValueError(f"a {self.chance} bet is on one of {allowed}, got {self.number!r}")
        if self.chance in _DONT:
            if self.bar is None:
                raise ValueError(f"a {self.chance} bet needs the table's bar (Bar.DOUBLE_SIX or Bar.DOUBLE_ACES)")
            object.__setattr__(self, "bar", Bar(self.bar))
        elif self.bar is not None:
            raise ValueError(f"only dont-pass and dont-come bets take a bar, not {self.chance}")


def _win(bet: Bet, multiple: Fraction) -> Settlement:
    return Settlement.win(bet.stake, as_money(bet.stake) * multiple)


def _standing(bet: Bet, win: bool, lose: bool, prize: Fraction) -> Settlement | Bet:
    if win:
        return _win(bet, prize)
    if lose:
        return Settlement.lose(bet.stake)
    return bet


def resolve(bet: Bet, roll: Roll) -> Settlement | Bet:
    """Decide ``bet`` on ``roll``: a Settlement when decided, else the bet still standing."""
    total, chance, number = roll.total, bet.chance, bet.number
    one = Fraction(1)
    if chance in _LINE:
        if number is None:  # come-out of pass (/10.1) or come (/10.3)
            if total in (7, 11):
                return _win(bet, one)
            if total in (2, 3, 12):
                return Settlement.lose(bet.stake)
            return replace(bet, number=total)
        return _standing(bet, total == number, total == 7, one)
    if chance in _DONT:
        if number is None:  # come-out of don't pass (/10.2) or don't come (/10.4)
            if total == bet.bar:
                return Settlement.push(bet.stake)
            if total in (2, 3, 12):
                return _win(bet, one)
            if total in (7, 11):
                return Settlement.lose(bet.stake)
            return replace(bet, number=total)
        return _standing(bet, total == 7, total == number, one)
    if chance is Chance.ODDS:
        return _standing(bet, total == number, total == 7, ODDS_PAYOUTS[number])
    if chance is Chance.DONT_ODDS:
        return _standing(bet, total == 7, total == number, 1 / ODDS_PAYOUTS[number])
    if chance in (Chance.BIG_6, Chance.BIG_8):
        target = 6 if chance is Chance.BIG_6 else 8
        return _standing(bet, total == target, total == 7, one)
    if chance is Chance.PLACE:
        return _standing(bet, total == number, total == 7, PLACE_PAYOUTS[number])
    if chance is Chance.PLACE_TO_LOSE:
        return _standing(bet, total == 7, total == number, PLACE_TO_LOSE_PAYOUTS[number])
    if chance is Chance.HARDWAY:
        hard_hit = total == number and roll.hard
        return _standing(bet, hard_hit, total == 7 or (total == number and not roll.hard), _HARDWAY_PRIZES[number])
    # one-roll bets
    if chance is Chance.UNDER_SEVEN:
        return _win(bet, one) if total < 7 else Settlement.lose(bet.stake)
    if chance is Chance.OVER_SEVEN:
        return _win(bet, one) if total > 7 else Settlement.lose(bet.stake)
    if chance is Chance.CRAPS:
        return _win(bet, Fraction(7)) if total in (2, 3, 12) else Settlement.lose(bet.stake)
    if chance is Chance.TOTAL:
        return _win(bet, _TOTAL_PRIZES[number]) if total == number else Settlement.lose(bet.stake)
    # field (/13.1)
    if total in (2, 12):
        return _win(bet, Fraction(2))
    if total in (3, 4, 9, 10, 11):
        return _win(bet, one)
    return Settlement.lose(bet.stake)


def table_point(point: int | None, roll: Roll) -> int | None:
    """The table's point after ``roll`` (the puck): set by a come-out total 4-10, cleared when the
    point is made or a 7 comes (p217-2007/craps/10.1, /8 b))."""
    if point is not None and point not in POINTS:
        raise ValueError(f"the table point is one of {POINTS} or None, got {point!r}")
    if point is None:
        return roll.total if roll.total in POINTS else None
    return None if roll.total in (point, 7) else point


def check_placement(bet: Bet, point: int | None) -> None:
    """ValueError if ``bet`` may not be placed while the table's point is ``point``.

    Come and don't come only once a point is set (/10.3, /10.4); pass and don't pass, come and
    don't come are placed before their own come-out (``number`` None); odds only on a point
    (/11.1; their size against the line bet: :func:`bench.games.stakes.check_craps_odds`).
    """
    if point is not None and point not in POINTS:
        raise ValueError(f"the table point is one of {POINTS} or None, got {point!r}")
    if bet.chance in (*_LINE, *_DONT) and bet.number is not None:
        raise ValueError(f"a new {bet.chance} bet is placed before its come-out roll, not on point {bet.number}")
    if bet.chance in (Chance.COME, Chance.DONT_COME) and point is None:
        raise ValueError(f"{bet.chance} bets are made only after the point is set (p217-2007/craps/10.3)")


_ROLLS = tuple(Roll(a, b) for a, b in every_throw(2))


@cache
def decision_probabilities(bet: Bet) -> Mapping[str, Fraction]:
    """Exact probability that ``bet`` is eventually won, lost or pushed, and its exact expected
    net gain (key ``net``), with fair dice.

    Solved from :func:`resolve` itself: a standing bet that stays unchanged on a roll is a
    self-loop (divided out); one that moves to a point is solved recursively.
    """
    totals = {"win": Fraction(0), "lose": Fraction(0), "push": Fraction(0), "net": Fraction(0)}
    stay = Fraction(0)
    p = Fraction(1, 36)
    for roll in _ROLLS:
        result = resolve(bet, roll)
        if isinstance(result, Settlement):
            totals[result.decision] += p
            totals["net"] += p * result.net
        elif result == bet:
            stay += p
        else:
            for key, value in decision_probabilities(result).items():
                totals[key] += p * value
    return MappingProxyType({key: value / (1 - stay) for key, value in totals.items()})


def expected_net(bet: Bet) -> Fraction:
    """Exact expected net gain of ``bet`` until it is decided, with fair dice."""
    return decision_probabilities(bet)["net"]
