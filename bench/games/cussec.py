"""Cussec (sic bo) settlement: every chance of p217-2007/cussec/7 with the prizes of /8.

Three dice under the dome (p217-2007/cussec/1, /5: the result is the pips on the upper faces).
Chances (p217-2007/cussec/7 a)-h)) and prizes as a multiple of the stake, the stake staying
the bettor's (p217-2007/cussec/8, /10):

=====================================  =============================  =======================================
chance                                 wins when                      prize
=====================================  =============================  =======================================
``pequeno`` (a)                        total 4-10, not a triple (/9)  1x
``grande`` (b)                         total 11-17, not a triple (/9) 1x
``numero`` n (c)                       n on at least one die          1x, 2x on two dice, 3x on three
``combinacao`` {a, b}, a != b (d)      a and b both shown             5x
``dupla`` n (e)                        n on two or three dice         10x, 30x on three
``triplo`` n (f)                       all three dice show n          190x
``qualquer-triplo`` (g)                any triple                     32x
``total`` t, 4-17 (h)                  the three dice total t         65x (4, 17), 32x (5, 16), 19x (6, 15),
                                                                      12x (7, 14), 8x (8, 13), 7x (9, 12),
                                                                      6x (10, 11)
=====================================  =============================  =======================================

"Lost small/big on triples": p217-2007/cussec/9, "as apostas efectuadas no pequeno e no grande
perdem quando as pintas dos três dados forem iguais". A total bet still wins on a triple that
makes its total (rule 9 names only pequeno and grande). Totals 3 and 18 are not a chance.

The layout's chance zones (:data:`ZONES`: ``pequeno``, ``grande``, ``numero-<n>``,
``combinacao-<a>-<b>`` with a < b, ``dupla-<n>``, ``triplo-<n>``, ``qualquer-triplo``, ``total-<t>``)
are the names a dome controller lights the winning chances by (p217-2007/cussec/5);
:func:`winning_zones` gives those of three dice.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import cache
from itertools import combinations
from types import MappingProxyType

from bench.games.dice import every_throw
from bench.games.dice import faces as dice_faces
from bench.games.stakes import Money, Settlement, as_money

__all__ = [
    "TOTAL_PRIZES", "ZONES", "Bet", "Kind", "dice", "expected_net", "prize_multiple", "settle", "winning_zones",
    "zone_bet",
]


class Kind(StrEnum):
    """The chances of p217-2007/cussec/7."""

    PEQUENO = "pequeno"
    GRANDE = "grande"
    NUMERO = "numero"
    COMBINACAO = "combinacao"
    DUPLA = "dupla"
    TRIPLO = "triplo"
    QUALQUER_TRIPLO = "qualquer-triplo"
    TOTAL = "total"


TOTAL_PRIZES: Mapping[int, int] = MappingProxyType({
    4: 65, 17: 65, 5: 32, 16: 32, 6: 19, 15: 19, 7: 12, 14: 12, 8: 8, 13: 8, 9: 7, 12: 7, 10: 6, 11: 6,
})
"""Prize multiple of each total bet, p217-2007/cussec/8 h)."""

_NUMBER_ARITY = {Kind.NUMERO: 1, Kind.DUPLA: 1, Kind.TRIPLO: 1, Kind.COMBINACAO: 2, Kind.TOTAL: 1}


@dataclass(frozen=True)
class Bet:
    """A stake (cents) on one chance; ``numbers`` names the face(s) or the total it is on.

    ``numero``, ``dupla``, ``triplo``: one face 1-6; ``combinacao``: two different faces;
    ``total``: one total 4-17; ``pequeno``, ``grande``, ``qualquer-triplo``: none.
    """

    kind: Kind
    stake: Money
    numbers: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        try:
            kind = Kind(self.kind)
        except ValueError:
            raise ValueError(f"unknown cussec chance {self.kind!r}; known: {', '.join(Kind)}") from None
        object.__setattr__(self, "kind", kind)
        as_money(self.stake, positive=True)
        numbers = tuple(self.numbers)
        arity = _NUMBER_ARITY.get(kind, 0)
        if len(numbers) != arity or any(isinstance(n, bool) or not isinstance(n, int) for n in numbers):
            raise ValueError(f"a {kind} bet names {arity} number(s), got {self.numbers!r}")
        if kind is Kind.TOTAL:
            if numbers[0] not in TOTAL_PRIZES:
                raise ValueError(f"total bets are on 4-17 (p217-2007/cussec/7 h)), got {numbers[0]}")
        elif any(not 1 <= n <= 6 for n in numbers):
            raise ValueError(f"dice faces are 1-6, got {numbers}")
        if kind is Kind.COMBINACAO:
            if numbers[0] == numbers[1]:
                raise ValueError(f"a combinação is two different faces (p217-2007/cussec/7 d)), got {numbers}")
            numbers = tuple(sorted(numbers))
        object.__setattr__(self, "numbers", numbers)


def dice(values: Iterable[int]) -> tuple[int, int, int]:
    """Three dice faces, each 1-6, as a sorted tuple; ValueError otherwise."""
    return tuple(sorted(dice_faces(values, 3, "cussec")))  # type: ignore[return-value]


def prize_multiple(bet: Bet, roll: Iterable[int]) -> Fraction | None:
    """The prize as a multiple of the stake, or None when the bet loses (p217-2007/cussec/8)."""
    faces = dice(roll)
    total = sum(faces)
    triple = faces[0] == faces[2]
    kind = bet.kind
    if kind is Kind.PEQUENO:
        return Fraction(1) if 4 <= total <= 10 and not triple else None
    if kind is Kind.GRANDE:
        return Fraction(1) if 11 <= total <= 17 and not triple else None
    if kind is Kind.NUMERO:
        count = faces.count(bet.numbers[0])
        return Fraction(count) if count else None
    if kind is Kind.COMBINACAO:
        a, b = bet.numbers
        return Fraction(5) if a in faces and b in faces else None
    if kind is Kind.DUPLA:
        count = faces.count(bet.numbers[0])
        return Fraction(30) if count == 3 else Fraction(10) if count == 2 else None
    if kind is Kind.TRIPLO:
        return Fraction(190) if faces.count(bet.numbers[0]) == 3 else None
    if kind is Kind.QUALQUER_TRIPLO:
        return Fraction(32) if triple else None
    return Fraction(TOTAL_PRIZES[bet.numbers[0]]) if total == bet.numbers[0] else None


def settle(bet: Bet, roll: Iterable[int]) -> Settlement:
    """Settle ``bet`` on the three dice ``roll``: the prize of p217-2007/cussec/8 with the stake
    kept (/10), or the stake lost."""
    multiple = prize_multiple(bet, roll)
    stake = as_money(bet.stake)
    if multiple is None:
        return Settlement.lose(stake)
    return Settlement.win(stake, stake * multiple)


def expected_net(bet: Bet) -> Fraction:
    """Exact expected gain of ``bet`` per throw of three fair dice, over all 216 outcomes."""
    throws = every_throw(3)
    return sum((settle(bet, roll).net for roll in throws), Fraction(0)) / len(throws)


# -- the layout's chance zones ----------------------------------------------------------------------


def _zones() -> tuple[str, ...]:
    names = ["pequeno", "grande", *(f"numero-{n}" for n in range(1, 7))]
    names += [f"combinacao-{a}-{b}" for a, b in combinations(range(1, 7), 2)]
    names += [f"dupla-{n}" for n in range(1, 7)] + [f"triplo-{n}" for n in range(1, 7)] + ["qualquer-triplo"]
    names += [f"total-{t}" for t in range(4, 18)]
    return tuple(names)


ZONES: tuple[str, ...] = _zones()
"""Every chance zone of a cussec layout (p217-2007/cussec/7 a)-h)), in layout order: 50 zones."""


@cache
def zone_bet(name: str) -> Bet:
    """The chance a zone stands for, as a bet of one unit (ValueError for a name that is no zone)."""
    if name not in ZONES:
        raise ValueError(f"{name!r} is not a cussec zone (e.g. pequeno, numero-3, combinacao-1-3, total-9)")
    kind, *numbers = name.split("-") if not name.startswith("qualquer") else (name,)
    return Bet(Kind(kind), 1, tuple(int(n) for n in numbers))


def winning_zones(faces: Iterable[int]) -> tuple[str, ...]:
    """The zones that win on the three dice ``faces`` (the oracle :func:`prize_multiple`),
    in layout order."""
    roll = dice(faces)
    return tuple(name for name in ZONES if prize_multiple(zone_bet(name), roll) is not None)
