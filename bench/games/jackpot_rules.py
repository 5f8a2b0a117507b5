"""The arithmetic of a table-game jackpot: contributions of jackpot bets and the settlement of a round's hits.

Pure functions on integer cents, no I/O, so that the simulated controller
(:mod:`drivers.sim.jackpot_controller`) and a certification oracle compute the same thing
from the same text, and either can be checked against the other.

Contributions (p461-2001/poquer-sem-descarte/3 and /8, p217-2007/blackjack/40): the regulator
approves a percentage of every jackpot bet that goes into the pool. The percentage has at most
four decimals, so one contribution is an exact whole number of micro-cents
(``bet_cents x percent x 10^4``, :data:`UNITS_PER_CENT` units a cent). A correct controller
keeps the fraction of a cent in the pool: after bets ``b_1..b_n`` the pool shows exactly
``start + floor(sum(b_i) x percent / 100)`` cents (:func:`expected_value`), never a cent of drift.

Settlement of one round (p461-2001/poquer-sem-descarte/9 and /12; p217-2007/blackjack/43 and /50).
Interpretations made explicit here, since the texts leave them open:

* "10 % do acumulado" (poquer-sem-descarte/9.b and 12.c) is 10 % of the pool as it stood when the
  round's hits were reported, before any of the round's prizes: clause 9.a names the pool after
  smaller prizes "remanescente", so "acumulado" is the pool before them.
* Prizes are paid from the smallest to the largest amount (12.a; ties in pay-table order, the
  lower combination first); the pool-remainder prize (royal flush; the top combination of
  blackjack) is always paid last, with what remains.
* A prize shared by several winners (12.b, 12.c) is split in equal whole cents; the cents that
  cannot be split equally stay in the pool. A fixed prize (multiples of the jackpot bet) is paid
  to every winner in full (p461-2001 shares only the royal and the straight flush).
* A prize is never more than the pool holds: a prize the pool cannot cover is paid with what is
  left and marked ``short`` (impossible while the start value is at least 10 000 jackpot bets,
  poquer-sem-descarte/10, and at most seven players sit at a table, poquer-sem-descarte/5).
* After the pool-remainder prize the pool starts again at its start value, plus any cents of the
  remainder that could not be split equally and the fraction of a cent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from fractions import Fraction

UNITS_PER_CENT = 1_000_000
"""Pool units (micro-cents) per cent: a percentage with up to 4 decimals of a whole-cent bet is exact."""
MAX_SEATS = 7
"""Players at a table, at most (p461-2001/poquer-sem-descarte/5)."""
START_MULTIPLE = 10_000
"""The start value is at least this many jackpot bets (p461-2001/poquer-sem-descarte/10, p217-2007/blackjack/44)."""


# -- percentages and contributions ------------------------------------------------------------------


def parse_percent(text: str | Decimal) -> Decimal:
    """A percentage (0 < p <= 100, at most 4 decimals) from its decimal text; ValueError naming the fault."""
    try:
        value = Decimal(str(text).strip())
    except InvalidOperation as error:
        raise ValueError(f"percentage {text!r} is not a decimal number") from error
    if not value.is_finite() or not 0 < value <= 100:
        raise ValueError(f"percentage {text!r} must be above 0 and at most 100")
    if value * 10_000 != (value * 10_000).to_integral_value():
        raise ValueError(f"percentage {text!r} has more than 4 decimals")
    return value


def format_percent(percent: Decimal) -> str:
    """The wire form of a percentage: plain decimal, no exponent, no trailing zeros (``"2.5"``, ``"70"``)."""
    text = format(parse_percent(percent), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def contribution_units(bet_cents: int, percent: Decimal) -> int:
    """Pool units (micro-cents) one jackpot bet of ``bet_cents`` adds at ``percent`` (exact)."""
    if not isinstance(bet_cents, int) or bet_cents <= 0:
        raise ValueError(f"jackpot bet must be a positive whole number of cents, got {bet_cents!r}")
    return bet_cents * int(parse_percent(percent) * 10_000)


def expected_value(start_cents: int, bets_cents: Iterable[int], percent: Decimal) -> int:
    """The pool in cents after ``bets_cents`` from ``start_cents`` with no hit: start + floor(sum x p / 100)."""
    units = start_cents * UNITS_PER_CENT + sum(contribution_units(bet, percent) for bet in bets_cents)
    return units // UNITS_PER_CENT


def minimum_start(jackpot_bet_cents: int) -> int:
    """The lowest lawful start value (p461-2001/poquer-sem-descarte/10, p217-2007/blackjack/44)."""
    return START_MULTIPLE * jackpot_bet_cents


# -- the pay table ----------------------------------------------------------------------------------


class PrizeKind(StrEnum):
    """How a prize is computed."""

    REMAINDER = "REMAINDER"
    """The pool, or what remains of it after the round's smaller prizes (royal flush, 9.a)."""
    PERCENT = "PERCENT"
    """A percentage of the pool before the round's prizes (straight flush: 10 %, 9.b)."""
    MULTIPLE = "MULTIPLE"
    """A multiple of the jackpot bet (four of a kind 500x, full house 100x, flush 50x; 9.c-e)."""


@dataclass(frozen=True)
class Prize:
    """One line of a jackpot pay table. ``value`` is the percentage or the multiple (unused for REMAINDER)."""

    hand: str
    kind: PrizeKind
    value: Fraction = Fraction(0)
    shared: bool = False

    def __post_init__(self) -> None:
        if not self.hand or not all(c.isascii() and (c.isupper() or c.isdigit() or c == "_") for c in self.hand):
            raise ValueError(f"hand name {self.hand!r} must be upper-case letters, digits and '_'")
        if self.kind is PrizeKind.REMAINDER and self.value != 0:
            raise ValueError(f"{self.hand}: a REMAINDER prize takes no value")
        if self.kind is PrizeKind.PERCENT and not 0 < self.value <= 100:
            raise ValueError(f"{self.hand}: a PERCENT prize needs 0 < value <= 100, got {self.value}")
        if self.kind is PrizeKind.MULTIPLE and self.value <= 0:
            raise ValueError(f"{self.hand}: a MULTIPLE prize needs a positive value, got {self.value}")


@dataclass(frozen=True)
class PayTable:
    """A jackpot pay table, highest combination first; exactly one REMAINDER prize, the first."""

    prizes: tuple[Prize, ...]

    def __post_init__(self) -> None:
        if not self.prizes:
            raise ValueError("a jackpot pay table needs at least one prize")
        hands = [prize.hand for prize in self.prizes]
        if len(set(hands)) != len(hands):
            raise ValueError(f"pay table names a hand twice: {hands}")
        remainders = [prize.hand for prize in self.prizes if prize.kind is PrizeKind.REMAINDER]
        if remainders != [self.prizes[0].hand]:
            raise ValueError("the pay table's first (top) prize, and only it, must be the pool REMAINDER")

    def prize(self, hand: str) -> Prize:
        for prize in self.prizes:
            if prize.hand == hand:
                return prize
        raise ValueError(f"hand {hand!r} is not in the jackpot pay table ({', '.join(p.hand for p in self.prizes)})")

    def rank(self, hand: str) -> int:
        """0 for the top combination, larger for lower ones."""
        return [prize.hand for prize in self.prizes].index(self.prize(hand).hand)


POQUER_SEM_DESCARTE = PayTable((
    Prize("ROYAL_FLUSH", PrizeKind.REMAINDER, shared=True),  # 9.a, 12.a, 12.b
    Prize("STRAIGHT_FLUSH", PrizeKind.PERCENT, Fraction(10), shared=True),  # 9.b, 12.c
    Prize("FOUR_OF_A_KIND", PrizeKind.MULTIPLE, Fraction(500)),  # 9.c
    Prize("FULL_HOUSE", PrizeKind.MULTIPLE, Fraction(100)),  # 9.d
    Prize("FLUSH", PrizeKind.MULTIPLE, Fraction(50)),  # 9.e
))
"""The jackpot pay table of p461-2001/poquer-sem-descarte/9 (sharing: /12)."""

BLACKJACK_EXAMPLE = PayTable((
    Prize("SUITED_777", PrizeKind.REMAINDER, shared=True),  # blackjack/50.a, 50.b
    Prize("UNSUITED_777", PrizeKind.PERCENT, Fraction(10), shared=True),
    Prize("SUITED_678", PrizeKind.MULTIPLE, Fraction(200)),
    Prize("SUITED_77", PrizeKind.MULTIPLE, Fraction(50)),
))
"""An illustrative blackjack jackpot table: p217-2007/blackjack/43 leaves the combinations and their
proportions to the concession's proposal approved by the regulator, so a profile states the approved
one; clause /50 fixes only the order of payment and the sharing of the top prize."""

DEFAULT_PAY_TABLES: dict[str, PayTable] = {"poquer-sem-descarte": POQUER_SEM_DESCARTE, "blackjack": BLACKJACK_EXAMPLE}


# -- settlement -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    """A winning jackpot hand: the seat (1-7) that bet on the jackpot and its combination."""

    seat: int
    hand: str


@dataclass(frozen=True)
class Payout:
    """One payment, in the order paid (``order`` from 1)."""

    order: int
    seat: int
    hand: str
    amount_cents: int
    short: bool = False
    """The pool could not cover the prize in full (never with a lawful start value)."""


@dataclass(frozen=True)
class Settlement:
    """A round's payments and the pool around them (all in whole cents)."""

    payouts: tuple[Payout, ...]
    pool_before_cents: int
    pool_after_cents: int
    """The pool once every prize is paid, restarted at the start value after a REMAINDER prize."""
    restarted: bool

    @property
    def paid_cents(self) -> int:
        return sum(payout.amount_cents for payout in self.payouts)


def _check_hits(hits: Sequence[Hit], table: PayTable) -> None:
    if not hits:
        raise ValueError("a jackpot hit needs at least one winning hand")
    seats = [hit.seat for hit in hits]
    if any(not isinstance(seat, int) or not 1 <= seat <= MAX_SEATS for seat in seats):
        raise ValueError(f"seats must be 1-{MAX_SEATS}, got {seats}")
    if len(set(seats)) != len(seats):
        raise ValueError(f"a seat has one jackpot bet per round: seats {seats} repeat")
    for hit in hits:
        table.prize(hit.hand)


def settle(pool_cents: int, jackpot_bet_cents: int, start_cents: int, hits: Sequence[Hit],
           table: PayTable = POQUER_SEM_DESCARTE) -> Settlement:
    """Pay one round's winning jackpot hands from a pool of ``pool_cents`` (the module docstring states the rules).

    Returns every payment in the order paid and the pool after the round. ValueError for an unknown
    hand, a seat outside 1-7 or repeated, or a non-positive bet or start value.
    """
    if pool_cents < 0 or jackpot_bet_cents <= 0 or start_cents <= 0:
        raise ValueError("pool must be >= 0 cents, jackpot bet and start value > 0 cents")
    _check_hits(hits, table)
    groups: dict[str, list[int]] = {}
    for hit in hits:
        groups.setdefault(hit.hand, []).append(hit.seat)

    def each(hand: str) -> Fraction:
        prize = table.prize(hand)
        if prize.kind is PrizeKind.MULTIPLE:
            total = prize.value * jackpot_bet_cents * (len(groups[hand]) if not prize.shared else 1)
        elif prize.kind is PrizeKind.PERCENT:
            total = Fraction(pool_cents) * prize.value / 100 * (len(groups[hand]) if not prize.shared else 1)
        else:
            return Fraction(0)  # what remains: sorted after every other prize below
        return total / len(groups[hand])

    order = sorted(groups, key=lambda hand: (table.prize(hand).kind is PrizeKind.REMAINDER, each(hand),
                                             -table.rank(hand)))
    remaining, payouts, restarted = pool_cents, [], False
    for hand in order:
        prize, seats = table.prize(hand), sorted(groups[hand])
        if prize.kind is PrizeKind.REMAINDER:
            total, short = remaining, False
            restarted = True
        else:
            owed = int(each(hand) * len(seats)) if prize.shared else int(each(hand)) * len(seats)
            total, short = min(owed, remaining), owed > remaining
        share = total // len(seats)
        for seat in seats:
            payouts.append(Payout(len(payouts) + 1, seat, hand, share, short))
        remaining -= share * len(seats)
    after = start_cents + remaining if restarted else remaining
    return Settlement(tuple(payouts), pool_cents, after, restarted)
