"""Póquer sem descarte (Caribbean stud): dealer qualification, settlement, pay table, stakes and jackpot.

Texts: p461-2001/poquer-sem-descarte (the original rules, with the jackpot pay table),
p217-2007/poquer-sem-descarte (the casino rules; same game, jackpot table left to the
concession) and srij-803-2015/poquer-sem-descarte (online; no jackpot). Hands are ranked by
:data:`bench.games.poker_hands.POQUER_SEM_DESCARTE` (ace-low straight, "three of the same colour").

The main game (the same in the three texts):

* The player bets the ante, sees the cards, folds (loses the ante) or goes on with a second bet of
  twice the ante (p461-2001/poquer-sem-descarte/17, p217-2007/poquer-sem-descarte/17,
  srij-803-2015/poquer-sem-descarte/20-23).
* The dealer plays with ace-king or better; otherwise every player who went on is paid the ante
  1 to 1 and keeps the second bet (p461-2001/poquer-sem-descarte/18, srij-803-2015/poquer-sem-descarte/25, /26).
* Against a qualified dealer a better hand wins the ante 1 to 1 and the second bet at the pay-table
  multiple of its combination (100, 50, 20, 7, 5, 4, 3, 2, 1, 1: p461-2001/poquer-sem-descarte/6,
  /18; srij-803-2015/poquer-sem-descarte/12, /28); a worse hand loses both; equal hands keep both
  (p461-2001/poquer-sem-descarte/6 last paragraph, /7; srij-803-2015/poquer-sem-descarte/13, /29).
  The pay table's "valor da aposta" is read as the second bet, as srij-803-2015/12 writes it.
* The ante lies between the table minimum and 25 times it (p461-2001/poquer-sem-descarte/14,
  p217-2007/poquer-sem-descarte/14, srij-803-2015/poquer-sem-descarte/16, /18): the tables
  ``<regulation>/poquer-sem-descarte`` of :data:`bench.games.stakes.LIMIT_TABLES`.
* A round settles two bets, each a :class:`bench.games.stakes.Settlement`: :class:`RoundSettlement`.

The jackpot (p461-2001/poquer-sem-descarte/9-12; p217-2007/poquer-sem-descarte/9-12 with the
concession's table): prizes paid whether or not the dealer qualifies; royal flush 100 % of the pool
or what remains after the smaller prizes, straight flush 10 % of the pool, four of a kind 500,
full house 100, flush 50 times the jackpot bet; paid from the smallest to the largest; several royal
flushes share the pool (or its remainder), several straight flushes share the 10 %. Readings:

* "10 % do acumulado" is 10 % of the pool as it stood before the round's prizes (the royal's prize
  is the one the text calls "remanescente").
* Shares are whole cents, rounded down; the cents that do not divide stay in the pool.
* p461-2001/12.c shares only the straight flush; p217-2007/poquer-sem-descarte/12.c shares "a
  mesma combinação premiada", every combination: :class:`JackpotTable` ``share_all`` says which.
* A prize the pool cannot cover is paid with what remains (``short``).
* After a royal flush the pool starts again at the start value, plus the cents left over.
* The start value is at least 10 000 jackpot bets (p461-2001/poquer-sem-descarte/10,
  p217-2007/poquer-sem-descarte/10, p217-2007/blackjack/44).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from bench.games.cards import ACE, KING, Card
from bench.games.poker_hands import POQUER_SEM_DESCARTE, Category, HandValue, compare, evaluate
from bench.games.stakes import LIMIT_TABLES, Settlement, as_money, check_bet_limits, raise_violations

__all__ = [
    "JACKPOT_P461", "MAX_SEATS", "PAY_TABLE", "START_MULTIPLE", "JackpotPayment", "JackpotPrize", "JackpotRound",
    "JackpotTable", "PrizeBasis", "Result", "RoundSettlement", "check_ante", "check_start_value", "dealer_qualifies",
    "jackpot_combination", "settle", "settle_jackpot",
]

PAY_TABLE: Mapping[Category, int] = {
    Category.ROYAL_FLUSH: 100, Category.STRAIGHT_FLUSH: 50, Category.FOUR_OF_A_KIND: 20, Category.FULL_HOUSE: 7,
    Category.FLUSH: 5, Category.STRAIGHT: 4, Category.THREE_OF_A_KIND: 3, Category.TWO_PAIR: 2,
    Category.ONE_PAIR: 1, Category.HIGH_CARD: 1,
}
"""Multiples of the second bet (p461-2001/poquer-sem-descarte/6, p217-2007/6, srij-803-2015/12)."""
MAX_SEATS = 7
"""Players at a table, at most (p461-2001/poquer-sem-descarte/5, srij-803-2015/poquer-sem-descarte/6.a)."""
START_MULTIPLE = 10_000
"""Jackpot start value, at least this many jackpot bets (p461-2001/poquer-sem-descarte/10)."""


def _value(cards: Sequence[Card] | str | HandValue) -> HandValue:
    return cards if isinstance(cards, HandValue) else evaluate(cards, POQUER_SEM_DESCARTE)


def dealer_qualifies(dealer: Sequence[Card] | str | HandValue) -> bool:
    """The dealer plays with ace and king or any higher combination (p461-2001/18, srij-803-2015/25)."""
    value = _value(dealer)
    if value.category is not Category.HIGH_CARD:
        return True
    ranks = {card.rank for card in value.cards}
    return ACE in ranks and KING in ranks


class Result(StrEnum):
    FOLD = "FOLD"
    DEALER_NOT_QUALIFIED = "DEALER_NOT_QUALIFIED"
    WIN = "WIN"
    LOSE = "LOSE"
    TIE = "TIE"


@dataclass(frozen=True)
class RoundSettlement:
    """A player's round: the ante and the second bet (None when he folded, so never made it) settled."""

    result: Result
    category: Category
    ante: Settlement
    bet: Settlement | None

    @property
    def net(self) -> Fraction:
        """The player's gain (negative: loss) on the round, both bets together."""
        return self.ante.net + (self.bet.net if self.bet is not None else 0)


def settle(ante_cents: int, player: Sequence[Card] | str, dealer: Sequence[Card] | str, *,
           folded: bool = False) -> RoundSettlement:
    """Settle a player's ante and second bet (twice the ante) against the dealer's five cards."""
    ante = as_money(ante_cents, "ante", positive=True, whole=True)
    mine, theirs = _value(player), _value(dealer)
    if set(mine.cards) & set(theirs.cards):
        raise ValueError("player and dealer hands share a card (one 52-card deck)")
    bet = 2 * ante  # p461-2001/poquer-sem-descarte/17, srij-803-2015/23
    if folded:
        return RoundSettlement(Result.FOLD, mine.category, Settlement.lose(ante), None)
    if not dealer_qualifies(theirs):
        return RoundSettlement(Result.DEALER_NOT_QUALIFIED, mine.category, Settlement.win(ante, ante),
                               Settlement.push(bet))
    outcome = compare(mine, theirs)
    if outcome > 0:
        return RoundSettlement(Result.WIN, mine.category, Settlement.win(ante, ante),
                               Settlement.win(bet, PAY_TABLE[mine.category] * bet))
    if outcome < 0:
        return RoundSettlement(Result.LOSE, mine.category, Settlement.lose(ante), Settlement.lose(bet))
    return RoundSettlement(Result.TIE, mine.category, Settlement.push(ante), Settlement.push(bet))


def check_ante(ante_cents: int, minimum_cents: int, maximum_cents: int, regulation: str = "p461-2001") -> None:
    """ValueError unless minimum <= ante <= maximum <= 25 x minimum (p461-2001/13, /14; p217-2007/14;
    srij-803-2015/16, /18): a thin wrapper of :func:`bench.games.stakes.check_bet_limits` on the table
    ``<regulation>/poquer-sem-descarte``; amounts are whole cents."""
    for value, what in ((ante_cents, "ante"), (minimum_cents, "table minimum"), (maximum_cents, "table maximum")):
        as_money(value, what, positive=True, whole=True)
    key = f"{regulation}/poquer-sem-descarte"
    if key not in LIMIT_TABLES:
        raise ValueError(f"no stake limits for {key!r}; regulation is p461-2001, p217-2007 or srij-803-2015")
    raise_violations(check_bet_limits(LIMIT_TABLES[key], "aposta-inicial", ante_cents, minimum_cents, maximum_cents))


# -- jackpot --------------------------------------------------------------------------------------


class PrizeBasis(StrEnum):
    REMAINDER = "REMAINDER"
    """The pool, or what remains of it after the round's smaller prizes."""
    POOL_PERCENT = "POOL_PERCENT"
    """A percentage of the pool before the round's prizes."""
    BET_MULTIPLE = "BET_MULTIPLE"
    """A multiple of the jackpot bet."""


@dataclass(frozen=True)
class JackpotPrize:
    combination: Category
    basis: PrizeBasis
    value: int = 0
    shared: bool = False


@dataclass(frozen=True)
class JackpotTable:
    """A jackpot pay table, highest first; the first prize is the pool remainder."""

    prizes: tuple[JackpotPrize, ...]

    def __post_init__(self) -> None:
        if not self.prizes or self.prizes[0].basis is not PrizeBasis.REMAINDER or any(
                prize.basis is PrizeBasis.REMAINDER for prize in self.prizes[1:]):
            raise ValueError("a jackpot table starts with the one pool-remainder prize")

    def prize(self, combination: Category) -> JackpotPrize:
        for prize in self.prizes:
            if prize.combination == combination:
                return prize
        raise ValueError(f"{combination} wins no jackpot prize (prizes: "
                         f"{', '.join(p.combination for p in self.prizes)})")

    def share_all(self) -> JackpotTable:
        """The same table with every prize shared by its winners (p217-2007/poquer-sem-descarte/12.c)."""
        return JackpotTable(tuple(JackpotPrize(p.combination, p.basis, p.value, True) for p in self.prizes))


JACKPOT_P461 = JackpotTable((
    JackpotPrize(Category.ROYAL_FLUSH, PrizeBasis.REMAINDER, shared=True),  # 9.a, 12.a, 12.b
    JackpotPrize(Category.STRAIGHT_FLUSH, PrizeBasis.POOL_PERCENT, 10, shared=True),  # 9.b, 12.c
    JackpotPrize(Category.FOUR_OF_A_KIND, PrizeBasis.BET_MULTIPLE, 500),  # 9.c
    JackpotPrize(Category.FULL_HOUSE, PrizeBasis.BET_MULTIPLE, 100),  # 9.d
    JackpotPrize(Category.FLUSH, PrizeBasis.BET_MULTIPLE, 50),  # 9.e
))
"""p461-2001/poquer-sem-descarte/9 with the sharing of /12."""


def jackpot_combination(cards: Sequence[Card] | str | HandValue, table: JackpotTable = JACKPOT_P461) -> Category | None:
    """The player's combination if it wins a jackpot prize, else None (whatever the dealer has: /9)."""
    category = _value(cards).category
    return category if any(prize.combination == category for prize in table.prizes) else None


@dataclass(frozen=True)
class JackpotPayment:
    order: int
    seat: int
    combination: Category
    cents: int
    short: bool = False


@dataclass(frozen=True)
class JackpotRound:
    payments: tuple[JackpotPayment, ...]
    pool_before: int
    pool_after: int
    restarted: bool

    def paid_to(self, seat: int) -> int:
        return sum(payment.cents for payment in self.payments if payment.seat == seat)


def check_start_value(start_cents: int, jackpot_bet_cents: int) -> None:
    """ValueError unless the start value is at least 10 000 jackpot bets (p461-2001/poquer-sem-descarte/10)."""
    as_money(start_cents, "start value", positive=True, whole=True)
    as_money(jackpot_bet_cents, "jackpot bet", positive=True, whole=True)
    if start_cents < START_MULTIPLE * jackpot_bet_cents:
        raise ValueError(f"start value {start_cents} is below {START_MULTIPLE} x the jackpot bet "
                         f"{jackpot_bet_cents} (p461-2001/poquer-sem-descarte/10)")


def settle_jackpot(pool_cents: int, jackpot_bet_cents: int, start_cents: int, hits: Mapping[int, Category],
                   table: JackpotTable = JACKPOT_P461) -> JackpotRound:
    """Pay one round's jackpot winners ``{seat: combination}`` from a pool of ``pool_cents``.

    The module docstring states the rules and their reading. Payments come in the order paid:
    smallest prize per winner first, the pool remainder last (p461-2001/poquer-sem-descarte/12.a).
    """
    as_money(pool_cents, "pool", whole=True)
    as_money(jackpot_bet_cents, "jackpot bet", positive=True, whole=True)
    as_money(start_cents, "start value", positive=True, whole=True)
    if not hits:
        raise ValueError("a jackpot round needs at least one winning seat")
    for seat in hits:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= MAX_SEATS:
            raise ValueError(f"seat {seat!r} is not 1-{MAX_SEATS} (p461-2001/poquer-sem-descarte/5)")
    winners: dict[Category, list[int]] = {}
    for seat, combination in sorted(hits.items()):
        table.prize(combination)
        winners.setdefault(combination, []).append(seat)

    def owed_total(combination: Category) -> Fraction:
        prize, count = table.prize(combination), len(winners[combination])
        if prize.basis is PrizeBasis.BET_MULTIPLE:
            one = Fraction(prize.value * jackpot_bet_cents)
        else:
            one = Fraction(pool_cents * prize.value, 100)
        return one if prize.shared else one * count

    rank = {prize.combination: index for index, prize in enumerate(table.prizes)}
    fixed = [c for c in winners if table.prize(c).basis is not PrizeBasis.REMAINDER]
    fixed.sort(key=lambda c: (owed_total(c) / len(winners[c]), -rank[c]))
    remaining, payments = pool_cents, []
    for combination in fixed:
        seats = winners[combination]
        owed = int(owed_total(combination))  # whole cents, rounded down
        paid = min(owed, remaining)
        each = paid // len(seats)
        for seat in seats:
            payments.append(JackpotPayment(len(payments) + 1, seat, combination, each, owed > remaining))
        remaining -= each * len(seats)
    top = table.prizes[0].combination
    restarted = top in winners
    if restarted:
        seats = winners[top]
        each = remaining // len(seats)
        for seat in seats:
            payments.append(JackpotPayment(len(payments) + 1, seat, top, each))
        remaining -= each * len(seats)
    return JackpotRound(tuple(payments), pool_cents, start_cents + remaining if restarted else remaining, restarted)
