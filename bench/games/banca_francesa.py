"""Banca francesa settlement: ases, pequeno and grande on the total of three dice.

Chances (p217-2007/banca-francesa/9): ``ases`` total 3, ``pequeno`` total 5, 6 or 7,
``grande`` total 14, 15 or 16. Prizes (/13): ases 61 times the stake, pequeno and grande
even money; the winning stake stays the player's (/14).

Any other total (4, 8-13, 17, 18) decides nothing: the bets stay and the dice are thrown
again. The text does not say it in so many words; it follows from /9 and /13 naming only
these totals, and it is how the game is played. Under this reading every chance has the same
house edge, 1/63 of the stake per decision (1/216 per throw), which is a useful check on it.
A chance loses when another chance comes up (ases beats pequeno and grande).

Line bets (/10, /11): chips on the outer line of pequeno or the inner line of grande play for
half their value, counted in whole multiples of EUR 10: the excess over a multiple of EUR 10 is
not in play (:func:`line_stake_in_play`); the half not in play and the excess stay the
player's. Their limits (twice the minimum to twice the maximum) are checked by
:func:`bench.games.stakes.check_banca_francesa_line`.

Rule /7 d): if the dealer lifts or touches the dice before announcing the chance, the throw
stands, the chance shown wins and no other chance loses (``announced=False``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from bench.games.dice import every_throw
from bench.games.dice import faces as dice_faces
from bench.games.stakes import BANCA_FRANCESA_LINE_UNIT, Money, Settlement, as_money

__all__ = ["PRIZES", "TOTALS", "Bet", "Chance", "decision_total", "expected_net", "line_stake_in_play", "settle"]


class Chance(StrEnum):
    """The chances of p217-2007/banca-francesa/9."""

    ASES = "ases"
    PEQUENO = "pequeno"
    GRANDE = "grande"


TOTALS = {Chance.ASES: frozenset({3}), Chance.PEQUENO: frozenset({5, 6, 7}), Chance.GRANDE: frozenset({14, 15, 16})}
"""Totals each chance wins on, p217-2007/banca-francesa/9."""
PRIZES = {Chance.ASES: Fraction(61), Chance.PEQUENO: Fraction(1), Chance.GRANDE: Fraction(1)}
"""Prize as a multiple of the stake in play, p217-2007/banca-francesa/13."""


def line_stake_in_play(chips: Money) -> Fraction:
    """The stake in play of chips worth ``chips`` cents on a line: half of the largest multiple of
    EUR 10 they make up (p217-2007/banca-francesa/11)."""
    value = as_money(chips, "chips on the line")
    return Fraction((value // BANCA_FRANCESA_LINE_UNIT) * BANCA_FRANCESA_LINE_UNIT, 2)


@dataclass(frozen=True)
class Bet:
    """Chips worth ``chips`` cents on ``chance``; ``on_line`` for the line bets of /10
    (pequeno on the outer line, grande on the inner line)."""

    chance: Chance
    chips: Money
    on_line: bool = False

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "chance", Chance(self.chance))
        except ValueError:
            raise ValueError(f"unknown banca francesa chance {self.chance!r}; known: {', '.join(Chance)}") from None
        as_money(self.chips, "chips", positive=True)
        if self.on_line and self.chance is Chance.ASES:
            raise ValueError("only pequeno and grande take line bets (p217-2007/banca-francesa/10)")

    @property
    def in_play(self) -> Fraction:
        """The stake the bet plays for: the chips, or for a line bet :func:`line_stake_in_play`."""
        return line_stake_in_play(self.chips) if self.on_line else as_money(self.chips, "chips")


def decision_total(roll: Iterable[int]) -> Chance | None:
    """The chance a throw decides, or None when its total decides nothing (thrown again)."""
    total = sum(dice_faces(roll, 3, "banca francesa"))
    return next((chance for chance, totals in TOTALS.items() if total in totals), None)


def settle(bet: Bet, roll: Iterable[int], *, announced: bool = True) -> Settlement:
    """Settle ``bet`` on a throw of three dice.

    The chips at risk are ``bet.chips``; only the stake in play can be lost or paid, the rest is
    returned. Winning: prize of /13 on the stake in play. Another chance's total: the stake in
    play is lost, unless ``announced`` is False (/7 d)). Other totals: no decision.
    """
    chips = as_money(bet.chips, "chips")
    in_play = bet.in_play
    decided = decision_total(roll)
    if decided is None:
        return Settlement.no_decision(chips)
    if decided is bet.chance:
        return Settlement.win(chips, in_play * PRIZES[bet.chance])
    if not announced:
        return Settlement.push(chips)
    if in_play == 0:
        return Settlement.push(chips)
    return Settlement.lose(chips, in_play)


def expected_net(bet: Bet, *, per: str = "decision") -> Fraction:
    """Exact expected gain of ``bet`` on fair dice, over the 216 outcomes: ``per="throw"`` counts
    every throw, ``per="decision"`` conditions on the throw deciding (/9)."""
    if per not in ("decision", "throw"):
        raise ValueError(f"per must be 'decision' or 'throw', got {per!r}")
    rolls = every_throw(3)
    nets = [settle(bet, roll).net for roll in rolls]
    if per == "throw":
        return sum(nets, Fraction(0)) / len(rolls)
    deciding = sum(1 for roll in rolls if decision_total(roll) is not None)
    return sum(nets, Fraction(0)) / deciding
