"""Roulette settlement: every chance of the casino and online rules, exactly as written.

Three rule sets (:class:`RouletteRules`):

* :data:`FRENCH` — roleta francesa of Portaria 217/2007: 37 numbers, French wheel
  (p217-2007/roleta-francesa/2), chances of /16, prizes of /18, the 0 rule of /19.
* :data:`AMERICAN_FRENCH_WHEEL` and :data:`AMERICAN_AMERICAN_WHEEL` — roleta americana of
  Portaria 217/2007: also 37 numbers, 0-36, with either wheel numbering
  (p217-2007/roleta-americana/2 a) or b)); chances of /24, prizes of /27, the 0 rule of /28.
  Only with the French numbering are the séries and "número e vizinhos" of /25 allowed.
* :data:`AMERICAN_ONLINE` — online American roulette of Regulamento SRIJ 804/2015: 0 and 00
  (38 pockets); prizes of srij-804-2015/roleta-americana/13, the 0 / 00 rule of /19; the
  operator may decline the cavalo de dúzia and de coluna (/12, ``offers_split_dozens``).

The 0 (and 00) rules: on the casino tables "a saída do 0 faz perder todas as apostas feitas
nas chances simples, nas dúzias, nas colunas e nos respectivos cavalos" (no en prison, no la
partage in either text); online "a saída do 0 ou do 00 faz perder todas as apostas nas
chances simples e em todas as chances múltiplas cujas apostas não integrem esses números"
while plenos, cavalos, ruas and quadros covering them win. Both are what :func:`settle` does:
a chance wins exactly when it covers the number drawn. Consequently every chance returns
-1/37 of its stake on the 37-number tables and -2/38 on the 38-pocket online table.

The 00 pocket is number :data:`DOUBLE_ZERO` (37); :func:`parse_pocket` reads ``"00"``.

The betting layout is the usual one: 1-36 in twelve rows of three, columns headed by 34, 35
and 36 at the far end (p217-2007/roleta-americana/24: "alinhados no pano a partir do 34, ou do
35, ou do 36"). Next to zero: on 37-number tables the cavalos 0-1, 0-2, 0-3, the ruas 0-1-2
and 0-2-3 (the série grande of /25 plays "rua 0-2-3") and the quadro 0-1-2-3; online the
cavalos 0-1, 0-2, 00-2, 00-3, 0-00 and the ruas 0-1-2, 0-00-2, 00-2-3. The five-number bet
0-00-1-2-3 of some American tables is not a chance of srij-804-2015/roleta-americana/13 and is
refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import cache

from bench.games.roulette_layout import AMERICAN_ORDER, FRENCH_ORDER, RED_NUMBERS
from bench.games.stakes import Money, Settlement, as_money

__all__ = [
    "AMERICAN_AMERICAN_WHEEL", "AMERICAN_FRENCH_WHEEL", "AMERICAN_ONLINE", "DOUBLE_ZERO", "FRENCH", "ORFAOS",
    "PRIZE_MULTIPLES", "SERIE_GRANDE", "SERIE_PEQUENA", "AnnouncedBet", "Bet", "Chance", "Kind", "RouletteRules",
    "cavalo", "cavalo_de_coluna", "cavalo_de_duzia", "coluna", "duzia", "expected_net", "linha", "net_by_pocket",
    "parse_pocket", "pleno", "pocket_label", "quadro", "rua", "serie", "settle", "simple", "straight_exposure",
    "vizinhos",
]

DOUBLE_ZERO = 37
"""The 00 pocket of the online American roulette (srij-804-2015/roleta-americana/19)."""


class Kind(StrEnum):
    """The chances of p217-2007/roleta-americana/24, p217-2007/roleta-francesa/16 and
    srij-804-2015/roleta-americana/13 (Portuguese names, as on the layout)."""

    PLENO = "pleno"
    CAVALO = "cavalo"
    RUA = "rua"
    QUADRO = "quadro"
    LINHA = "linha"
    DUZIA = "duzia"
    COLUNA = "coluna"
    CAVALO_DE_DUZIA = "cavalo-de-duzia"
    CAVALO_DE_COLUNA = "cavalo-de-coluna"
    PAR = "par"
    IMPAR = "impar"
    MENOR = "menor"
    MAIOR = "maior"
    ENCARNADO = "encarnado"
    PRETO = "preto"


PRIZE_MULTIPLES: Mapping[Kind, Fraction] = {
    Kind.PLENO: Fraction(35), Kind.CAVALO: Fraction(17), Kind.RUA: Fraction(11), Kind.QUADRO: Fraction(8),
    Kind.LINHA: Fraction(5), Kind.DUZIA: Fraction(2), Kind.COLUNA: Fraction(2),
    Kind.CAVALO_DE_DUZIA: Fraction(1, 2), Kind.CAVALO_DE_COLUNA: Fraction(1, 2),
    Kind.PAR: Fraction(1), Kind.IMPAR: Fraction(1), Kind.MENOR: Fraction(1), Kind.MAIOR: Fraction(1),
    Kind.ENCARNADO: Fraction(1), Kind.PRETO: Fraction(1),
}
"""Prize as a multiple of the stake, the stake staying the player's: p217-2007/roleta-americana/27,
p217-2007/roleta-francesa/18, srij-804-2015/roleta-americana/13 (identical tables)."""

_SIZES = {Kind.PLENO: 1, Kind.CAVALO: 2, Kind.RUA: 3, Kind.QUADRO: 4, Kind.LINHA: 6, Kind.DUZIA: 12,
          Kind.COLUNA: 12, Kind.CAVALO_DE_DUZIA: 24, Kind.CAVALO_DE_COLUNA: 24}
_SIMPLE: Mapping[Kind, frozenset[int]] = {
    Kind.PAR: frozenset(range(2, 37, 2)),
    Kind.IMPAR: frozenset(range(1, 37, 2)),
    Kind.MENOR: frozenset(range(1, 19)),
    Kind.MAIOR: frozenset(range(19, 37)),
    Kind.ENCARNADO: RED_NUMBERS,
    Kind.PRETO: frozenset(range(1, 37)) - RED_NUMBERS,
}


def parse_pocket(value: int | str) -> int:
    """A pocket number from an int 0-36 (or 37 for 00) or text (``"17"``, ``"0"``, ``"00"``)."""
    if isinstance(value, str):
        text = value.strip()
        if text == "00":
            return DOUBLE_ZERO
        if not text.isdigit():
            raise ValueError(f"pocket must be 0-36 or '00', got {value!r}")
        value = int(text)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= DOUBLE_ZERO:
        raise ValueError(f"pocket must be 0-36 or '00' (37), got {value!r}")
    return value


def pocket_label(number: int) -> str:
    """Text of a pocket: ``"00"`` for :data:`DOUBLE_ZERO`, the number otherwise."""
    return "00" if number == DOUBLE_ZERO else str(number)


def _row(number: int) -> int:
    return (number - 1) // 3


def _col(number: int) -> int:
    return (number - 1) % 3


@cache
def _grid_sets(kind: Kind) -> frozenset[frozenset[int]]:
    """Every number set a chance of ``kind`` may cover on the 1-36 part of the layout."""
    sets: set[frozenset[int]] = set()
    if kind is Kind.PLENO:
        sets = {frozenset({n}) for n in range(1, 37)}
    elif kind is Kind.CAVALO:
        sets = {frozenset({n, n + 1}) for n in range(1, 37) if _col(n) < 2}
        sets |= {frozenset({n, n + 3}) for n in range(1, 34)}
    elif kind is Kind.RUA:
        sets = {frozenset(range(3 * r + 1, 3 * r + 4)) for r in range(12)}
    elif kind is Kind.QUADRO:
        sets = {frozenset({n, n + 1, n + 3, n + 4}) for n in range(1, 34) if _col(n) < 2}
    elif kind is Kind.LINHA:
        sets = {frozenset(range(3 * r + 1, 3 * r + 7)) for r in range(11)}
    elif kind is Kind.DUZIA:
        sets = {frozenset(range(12 * d + 1, 12 * d + 13)) for d in range(3)}
    elif kind is Kind.COLUNA:
        sets = {frozenset(range(c, 37, 3)) for c in (1, 2, 3)}
    elif kind is Kind.CAVALO_DE_DUZIA:
        sets = {frozenset(range(1, 25)), frozenset(range(13, 37))}
    elif kind is Kind.CAVALO_DE_COLUNA:
        sets = {frozenset(n for n in range(1, 37) if _col(n) in pair) for pair in ((0, 1), (1, 2))}
    else:
        sets = {_SIMPLE[kind]}
    return frozenset(sets)


_ZERO_SINGLE: Mapping[Kind, frozenset[frozenset[int]]] = {
    Kind.PLENO: frozenset({frozenset({0})}),
    Kind.CAVALO: frozenset({frozenset({0, 1}), frozenset({0, 2}), frozenset({0, 3})}),
    Kind.RUA: frozenset({frozenset({0, 1, 2}), frozenset({0, 2, 3})}),
    Kind.QUADRO: frozenset({frozenset({0, 1, 2, 3})}),
}
_00 = DOUBLE_ZERO
_ZERO_DOUBLE: Mapping[Kind, frozenset[frozenset[int]]] = {
    Kind.PLENO: frozenset({frozenset({0}), frozenset({_00})}),
    Kind.CAVALO: frozenset({frozenset({0, 1}), frozenset({0, 2}), frozenset({_00, 2}), frozenset({_00, 3}),
                            frozenset({0, _00})}),
    Kind.RUA: frozenset({frozenset({0, 1, 2}), frozenset({0, _00, 2}), frozenset({_00, 2, 3})}),
}


@cache
def _layout_sets(double_zero: bool, kind: Kind) -> frozenset[frozenset[int]]:
    extra = (_ZERO_DOUBLE if double_zero else _ZERO_SINGLE).get(kind, frozenset())
    return _grid_sets(kind) | extra


@dataclass(frozen=True)
class RouletteRules:
    """One roulette's rules: its pockets, wheel order and which chances it offers.

    ``clause_prefix`` is the section of the regulation (``p217-2007/roleta-francesa``);
    ``wheel`` the clockwise pocket order from 0 (None where the rules print none, online);
    ``announced_bets`` whether the séries and vizinhos of p217-2007/roleta-americana/25 are
    played; ``offers_split_dozens`` whether the cavalo de dúzia / de coluna are offered
    (srij-804-2015/roleta-americana/12 lets the online operator decline them).
    """

    name: str
    clause_prefix: str
    pockets: tuple[int, ...]
    wheel: tuple[int, ...] | None
    announced_bets: bool
    offers_split_dozens: bool = True

    @property
    def double_zero(self) -> bool:
        """Whether the table has the 00 pocket."""
        return DOUBLE_ZERO in self.pockets

    def sets_for(self, kind: Kind) -> frozenset[frozenset[int]]:
        """Every number set a chance of ``kind`` may cover on this table."""
        return _layout_sets(self.double_zero, kind)

    def check(self, chance: Chance) -> None:
        """ValueError naming the chance if this table does not offer it."""
        if chance.kind in (Kind.CAVALO_DE_DUZIA, Kind.CAVALO_DE_COLUNA) and not self.offers_split_dozens:
            raise ValueError(f"{chance.kind} is not offered on {self.name} (srij-804-2015/roleta-americana/12)")
        if chance.numbers not in self.sets_for(chance.kind):
            shown = "-".join(pocket_label(n) for n in sorted(chance.numbers))
            raise ValueError(f"{shown} is not a {chance.kind} on the layout of {self.name} ({self.clause_prefix})")


FRENCH = RouletteRules("roleta francesa (p217-2007)", "p217-2007/roleta-francesa", tuple(range(37)),
                       FRENCH_ORDER, announced_bets=False)
AMERICAN_FRENCH_WHEEL = RouletteRules("roleta americana, numeração francesa (p217-2007)",
                                      "p217-2007/roleta-americana", tuple(range(37)), FRENCH_ORDER,
                                      announced_bets=True)
AMERICAN_AMERICAN_WHEEL = RouletteRules("roleta americana, numeração americana (p217-2007)",
                                        "p217-2007/roleta-americana", tuple(range(37)), AMERICAN_ORDER,
                                        announced_bets=False)
AMERICAN_ONLINE = RouletteRules("roleta americana online (srij-804-2015)", "srij-804-2015/roleta-americana",
                                tuple(range(38)), None, announced_bets=False)


@dataclass(frozen=True)
class Chance:
    """A chance on the layout: its kind and the numbers it covers (00 as :data:`DOUBLE_ZERO`)."""

    kind: Kind
    numbers: frozenset[int]

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "kind", Kind(self.kind))
        except ValueError:
            raise ValueError(f"unknown chance kind {self.kind!r}; known: {', '.join(Kind)}") from None
        object.__setattr__(self, "numbers", _numbers(self.numbers))
        expected = _SIZES.get(self.kind, 18)
        if len(self.numbers) != expected:
            raise ValueError(f"a {self.kind} covers {expected} numbers, got {sorted(self.numbers)}")

    def covers(self, number: int) -> bool:
        """Whether the chance wins when ``number`` comes up."""
        return number in self.numbers


def _numbers(values: Iterable[int | str]) -> frozenset[int]:
    return frozenset(parse_pocket(v) for v in values)


def pleno(number: int | str) -> Chance:
    """Pleno: one number, 35 to 1."""
    return Chance(Kind.PLENO, _numbers([number]))


def cavalo(a: int | str, b: int | str) -> Chance:
    """Cavalo: two adjacent numbers, 17 to 1."""
    return Chance(Kind.CAVALO, _numbers([a, b]))


def rua(*numbers: int | str) -> Chance:
    """Rua: three numbers of a row (or 0-1-2, 0-2-3 ...), 11 to 1."""
    return Chance(Kind.RUA, _numbers(numbers))


def quadro(*numbers: int | str) -> Chance:
    """Quadro: four numbers meeting at a corner (or 0-1-2-3 on 37-number tables), 8 to 1."""
    return Chance(Kind.QUADRO, _numbers(numbers))


def linha(first_row: int) -> Chance:
    """Linha: the six numbers of rows ``first_row`` and ``first_row + 1`` (rows 1-12), 5 to 1."""
    first_row = _index(first_row, 11, "linha first row")
    return Chance(Kind.LINHA, frozenset(range(3 * first_row - 2, 3 * first_row + 4)))


def _index(value: int, top: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
        raise ValueError(f"{what} must be 1-{top}, got {value!r}")
    return value


def duzia(which: int) -> Chance:
    """Dúzia 1 (1-12), 2 (13-24) or 3 (25-36), 2 to 1."""
    d = _index(which, 3, "dúzia")
    return Chance(Kind.DUZIA, frozenset(range(12 * d - 11, 12 * d + 1)))


def coluna(which: int) -> Chance:
    """Coluna 1 (1, 4, ... 34), 2 (... 35) or 3 (... 36), 2 to 1."""
    c = _index(which, 3, "coluna")
    return Chance(Kind.COLUNA, frozenset(range(c, 37, 3)))


def cavalo_de_duzia(first: int) -> Chance:
    """Cavalo de dúzia: dúzias ``first`` and ``first + 1`` (1: 1-24, 2: 13-36), half the stake."""
    d = _index(first, 2, "cavalo de dúzia first dúzia")
    return Chance(Kind.CAVALO_DE_DUZIA, frozenset(range(12 * d - 11, 12 * d + 13)))


def cavalo_de_coluna(first: int) -> Chance:
    """Cavalo de coluna: colunas ``first`` and ``first + 1``, half the stake."""
    c = _index(first, 2, "cavalo de coluna first coluna")
    return Chance(Kind.CAVALO_DE_COLUNA, frozenset(range(c, 37, 3)) | frozenset(range(c + 1, 37, 3)))


def simple(kind: Kind | str) -> Chance:
    """A chance simples: par, impar, menor, maior, encarnado or preto, even money."""
    try:
        k = Kind(kind)
    except ValueError:
        raise ValueError(f"unknown chance simples {kind!r}; known: {', '.join(_SIMPLE)}") from None
    if k not in _SIMPLE:
        raise ValueError(f"{k} is not a chance simples; known: {', '.join(_SIMPLE)}")
    return Chance(k, _SIMPLE[k])


@dataclass(frozen=True)
class Bet:
    """A stake (cents) on one chance."""

    chance: Chance
    stake: Money

    def __post_init__(self) -> None:
        as_money(self.stake, positive=True)


@dataclass(frozen=True)
class AnnouncedBet:
    """A série or "número e vizinhos" (p217-2007/roleta-americana/25): chips of one value
    (``unit``, cents) spread over several chances; a chance carrying two chips is listed twice."""

    name: str
    placements: tuple[Chance, ...]
    unit: Money

    def __post_init__(self) -> None:
        as_money(self.unit, "chip value", positive=True)
        if not self.placements:
            raise ValueError("an announced bet needs at least one placement")

    @property
    def chips(self) -> int:
        """Number of chips the bet is made of (9 for the série grande, 3/5/7 for vizinhos)."""
        return len(self.placements)

    @property
    def numbers(self) -> frozenset[int]:
        """Every number the bet covers."""
        return frozenset().union(*(c.numbers for c in self.placements))


def _series(name: str, placements: list[tuple[Chance, int]]) -> tuple[str, tuple[Chance, ...]]:
    return name, tuple(chance for chance, chips in placements for _ in range(chips))


SERIE_GRANDE = _series("serie-grande", [
    (rua(0, 2, 3), 2), (cavalo(4, 7), 1), (cavalo(12, 15), 1), (cavalo(18, 21), 1), (cavalo(19, 22), 1),
    (quadro(25, 26, 28, 29), 2), (cavalo(32, 35), 1)])
"""Série grande or série 0-2-3: 9 chips on 17 numbers (p217-2007/roleta-americana/25 a))."""
SERIE_PEQUENA = _series("serie-pequena", [
    (cavalo(5, 8), 1), (cavalo(10, 11), 1), (cavalo(13, 16), 1), (cavalo(23, 24), 1), (cavalo(27, 30), 1),
    (cavalo(33, 36), 1)])
"""Série pequena or série 5-8: 6 chips on 12 numbers (p217-2007/roleta-americana/25 a))."""
ORFAOS = _series("orfaos", [
    (pleno(1), 1), (cavalo(6, 9), 1), (cavalo(14, 17), 1), (cavalo(17, 20), 1), (cavalo(31, 34), 1)])
"""Série "vadios" or "órfãos": 5 chips on 8 numbers (p217-2007/roleta-americana/25 a))."""
_SERIES = {name: placements for name, placements in (SERIE_GRANDE, SERIE_PEQUENA, ORFAOS)}
_SERIES |= {"vadios": ORFAOS[1], "serie-0-2-3": SERIE_GRANDE[1], "serie-5-8": SERIE_PEQUENA[1]}


def _require_announced(rules: RouletteRules) -> None:
    if not rules.announced_bets:
        raise ValueError(
            f"séries and vizinhos are not played on {rules.name}: p217-2007/roleta-americana/25 allows them only on "
            "the roleta americana with the French numbering")


def serie(name: str, unit: Money, rules: RouletteRules = AMERICAN_FRENCH_WHEEL) -> AnnouncedBet:
    """A série of p217-2007/roleta-americana/25 a), one chip of ``unit`` cents per placement.

    ``name``: ``serie-grande`` (or ``serie-0-2-3``), ``serie-pequena`` (``serie-5-8``),
    ``orfaos`` (``vadios``). Stake the série several times for more chips (limits:
    :func:`bench.games.stakes.check_series_chips`).
    """
    _require_announced(rules)
    if name not in _SERIES:
        raise ValueError(f"unknown série {name!r}; known: {', '.join(_SERIES)}")
    canonical = {"vadios": "orfaos", "serie-0-2-3": "serie-grande", "serie-5-8": "serie-pequena"}.get(name, name)
    return AnnouncedBet(canonical, _SERIES[name], unit)


def vizinhos(number: int, neighbours: int, unit: Money, rules: RouletteRules = AMERICAN_FRENCH_WHEEL) -> AnnouncedBet:
    """"Número e vizinhos": a pleno on ``number`` and on ``neighbours`` numbers each side of it on
    the wheel, 1, 2 or 3 (3, 5 or 7 chips), p217-2007/roleta-americana/25 b)."""
    _require_announced(rules)
    if neighbours not in (1, 2, 3) or isinstance(neighbours, bool):
        raise ValueError(f"vizinhos take 1, 2 or 3 neighbours each side (3, 5 or 7 chips), got {neighbours!r}")
    centre = parse_pocket(number)
    if rules.wheel is None or centre not in rules.wheel:
        raise ValueError(f"number {number!r} is not on the wheel of {rules.name}")
    index = rules.wheel.index(centre)
    size = len(rules.wheel)
    arc = [rules.wheel[(index + step) % size] for step in range(-neighbours, neighbours + 1)]
    return AnnouncedBet(f"vizinhos-{2 * neighbours + 1}", tuple(pleno(n) for n in arc), unit)


def settle(bet: Bet | AnnouncedBet, outcome: int | str, rules: RouletteRules) -> Settlement:
    """Settle ``bet`` on the number drawn.

    A chance wins when it covers the number: it is paid its multiple of PRIZE_MULTIPLES and the
    stake stays the player's; otherwise the stake is lost, which on 0 (or 00) is the zero rule
    of p217-2007/roleta-americana/28, p217-2007/roleta-francesa/19 and
    srij-804-2015/roleta-americana/19. For a série or vizinhos only the winning chips are paid,
    as the chance they sit on, and the other chips are lost (p217-2007/roleta-americana/27 c), d)).
    ValueError if the number is not on the table or the chance is not on its layout.
    """
    number = parse_pocket(outcome)
    if number not in rules.pockets:
        raise ValueError(f"number {pocket_label(number)} is not on {rules.name}")
    if isinstance(bet, Bet):
        rules.check(bet.chance)
        stake = as_money(bet.stake)
        if bet.chance.covers(number):
            return Settlement.win(stake, stake * PRIZE_MULTIPLES[bet.chance.kind])
        return Settlement.lose(stake)
    if not isinstance(bet, AnnouncedBet):
        raise ValueError(f"bet must be a Bet or an AnnouncedBet, got {bet!r}")  # noqa: TRY004 - games raise ValueError
    _require_announced(rules)
    unit = as_money(bet.unit, "chip value")
    winners = [chance for chance in bet.placements if chance.covers(number)]
    for chance in set(bet.placements):
        rules.check(chance)
    staked = unit * bet.chips
    prize = sum((unit * PRIZE_MULTIPLES[c.kind] for c in winners), Fraction(0))
    returned = unit * len(winners)
    decision = "lose" if not winners else "win" if len(winners) == bet.chips else "partial"
    return Settlement(decision, staked, prize, returned, staked - returned)


def net_by_pocket(bet: Bet | AnnouncedBet, rules: RouletteRules) -> tuple[Fraction, ...]:
    """The player's net on ``bet`` for each pocket, indexed by pocket number (00 at 37).

    A simulator settles many spins at once by indexing it with the array of numbers drawn,
    e.g. ``np.array(net_by_pocket(bet, rules), dtype=object)[spins].sum()``, exactly.
    """
    return tuple(settle(bet, pocket, rules).net for pocket in rules.pockets)


def expected_net(bet: Bet | AnnouncedBet, rules: RouletteRules) -> Fraction:
    """Exact expected gain of ``bet`` per spin on a fair wheel: the mean net over every pocket."""
    nets = net_by_pocket(bet, rules)
    return sum(nets, Fraction(0)) / len(nets)


def straight_exposure(bets: Iterable[Bet | AnnouncedBet]) -> dict[int, Fraction]:
    """A player's total stake per number on plenos, from plenos and vizinhos together, for the
    limit of p217-2007/roleta-americana/32 d) (:func:`bench.games.stakes.check_straight_exposure`)."""
    totals: Counter[int] = Counter()
    for bet in bets:
        if isinstance(bet, Bet):
            if bet.chance.kind is Kind.PLENO:
                (number,) = bet.chance.numbers
                totals[number] += as_money(bet.stake)
        elif bet.name.startswith("vizinhos"):
            for chance in bet.placements:
                (number,) = chance.numbers
                totals[number] += as_money(bet.unit, "chip value")
    return {number: Fraction(total) for number, total in totals.items()}
