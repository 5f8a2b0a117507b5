"""Blackjack/21: hand totals, the dealer's drawing rule and the settlement of every bet.

Two texts, one game: the casino rules p217-2007/blackjack (rules 1-37) and the online rules
srij-805-2015/blackjack. Where they differ, :class:`BlackjackRules` carries the difference
(:data:`P217_2007`, :data:`SRIJ_805_2015`). Money is in whole cents in, exact
:class:`~fractions.Fraction` out (a 3:2 prize or a surrender of an odd number of cents has a
half cent: the rules do not say how to round, so the oracle gives the exact amount).

Rules implemented (clause ids):

* Card values: ace 1 or 11, figures 10, others face value (p217-2007/blackjack/6,
  srij-805-2015/blackjack/8). A hand is *soft* when an ace counts 11.
* Dealer: the ace counts 11 whenever that makes 17-21 (blackjack/6.a), and the dealer stands on
  17 or more and must draw on 16 or less (p217-2007/blackjack/19, srij-805-2015/blackjack/17): so
  the dealer **stands on soft 17**. :func:`check_dealer_hand` rejects a dealer hand that broke this.
* Blackjack: ace and a ten-value card as the first two cards, not after a split; it beats any 21
  and pays 3 to 2; against a dealer blackjack it is a push (p217-2007/blackjack/1.a, /20, /21;
  srij-805-2015/blackjack/18, /19, /25.a, /25.h). Even money when the dealer shows an ace
  (p217-2007/blackjack/34, srij-805-2015/blackjack/20.b).
* Win 1 to 1, push on equal totals, bust loses at once (p217-2007/blackjack/22-25;
  srij-805-2015/blackjack/25.b-e, /25.h).
* Dealer's hole card is dealt face down and seen after the players have played (p217-2007/blackjack/17,
  srij-805-2015/blackjack/14, /17): a dealer blackjack takes the whole stake of a doubled or split hand.
* Double: on a first-two-card total of 9, 10 or 11, one card only (p217-2007/blackjack/29,
  srij-805-2015/blackjack/15.b; the online operator may allow any total, /16.a), also after a split
  (p217-2007/blackjack/31, srij-805-2015/blackjack/23). An ace doubled as 1 stays 1
  (p217-2007/blackjack/32, srij-805-2015/blackjack/8.a.ii).
* Split: two cards of the same value, even of different ranks (10 and king), again after a split,
  split aces take one card each (p217-2007/blackjack/26, /27; srij-805-2015/blackjack/21, /22; the
  online operator may restrict to pairs and cap the splits, /16.b, /16.c).
* Insurance: only against a dealer ace, at most half the bet, pays 2 to 1 on a dealer blackjack
  (p217-2007/blackjack/33, srij-805-2015/blackjack/15.f, /25.f, /25.g).
* Surrender: lose half the bet, not against a dealer ace, decided on the first two cards
  (p217-2007/blackjack/36, srij-805-2015/blackjack/15.e).
* Special prize: 6-7-8 of one suit or three 7s pays 3 times the bet whatever the hand's outcome
  (p217-2007/blackjack/35, srij-805-2015/blackjack/25.i; optional online, /16.e). Read as a hand of
  exactly these three cards (a fourth card would bust 6-7-8 and cannot be drawn on 7-7-7's 21).
* Stakes: a multiple of the minimum, at most 30 times it (p217-2007/blackjack/14, /37); online
  between the minimum and the maximum, the maximum at most 100 times the minimum
  (srij-805-2015/blackjack/9, /11). The limits are those of :data:`bench.games.stakes.LIMIT_TABLES`
  (``p217-2007/blackjack``, ``srij-805-2015/blackjack``); :func:`check_bet` raises their violations.

Every settlement is a :class:`bench.games.stakes.Settlement` of the hand's main bet;
:class:`HandSettlement` adds how the hand ended and the special prize.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from bench.games.cards import ACE, Card, parse_cards
from bench.games.stakes import LIMIT_TABLES, LimitTable, Settlement, as_money, check_bet_limits, raise_violations

__all__ = [
    "P217_2007", "SRIJ_805_2015", "BlackjackRules", "HandSettlement", "Outcome", "Total", "can_double", "can_split",
    "card_points", "check_bet", "check_dealer_hand", "dealer_must_draw", "dealer_play", "hand_total", "is_blackjack",
    "settle_hand", "settle_insurance", "special_prize",
]


@dataclass(frozen=True)
class BlackjackRules:
    """What differs between the casino and the online rules (and the online operator's options)."""

    name: str
    limits: LimitTable
    """The stake limits (maximum as a multiple of the minimum, bets in multiples of it or not)."""
    decks: frozenset[int]
    double_totals: frozenset[int] | None = frozenset({9, 10, 11})
    """First-two-card totals that may double; None: any total (srij-805-2015/blackjack/16.a)."""
    special_prize: bool = True
    insurance: bool = True
    split_pairs_only: bool = False
    max_splits: int | None = None


P217_2007 = BlackjackRules("p217-2007", LIMIT_TABLES["p217-2007/blackjack"], decks=frozenset({4, 6}))
"""Casino rules: p217-2007/blackjack/3 (4 or 6 decks), /14, /29, /37."""
SRIJ_805_2015 = BlackjackRules("srij-805-2015", LIMIT_TABLES["srij-805-2015/blackjack"], decks=frozenset({4, 6, 8}))
"""Online rules: srij-805-2015/blackjack/4.b (4, 6 or 8 decks), /9-/11, /15.b; options of /16 are fields."""


@dataclass(frozen=True)
class Total:
    """A hand's best total not over 21 where possible; ``soft`` when an ace counts 11 in it."""

    value: int
    soft: bool

    @property
    def bust(self) -> bool:
        return self.value > 21


def card_points(card: Card) -> int:
    """Ace 1 (or 11, see :func:`hand_total`), king/queen/jack 10, others their face value (blackjack/6)."""
    return 1 if card.rank == ACE else min(card.rank, 10)


def _cards(cards: Sequence[Card] | str, what: str, minimum: int = 1) -> tuple[Card, ...]:
    hand = parse_cards(cards, distinct=False)  # 4-8 decks: the same card may appear twice
    if len(hand) < minimum:
        raise ValueError(f"{what} needs at least {minimum} cards, got {len(hand)}")
    return hand


def hand_total(cards: Sequence[Card] | str, *, ace_as_one: bool = False) -> Total:
    """The total of ``cards``: one ace counts 11 when that does not pass 21 (unless ``ace_as_one``)."""
    hand = _cards(cards, "a hand")
    hard = sum(card_points(card) for card in hand)
    if not ace_as_one and any(card.rank == ACE for card in hand) and hard + 10 <= 21:
        return Total(hard + 10, True)
    return Total(hard, False)


def is_blackjack(cards: Sequence[Card] | str, *, split: bool = False) -> bool:
    """Ace and a ten-value card as a hand's first two cards, not from a split pair (blackjack/1.a, /20)."""
    hand = _cards(cards, "a hand")
    return not split and len(hand) == 2 and sorted(card_points(c) for c in hand) == [1, 10]


def dealer_must_draw(cards: Sequence[Card] | str) -> bool:
    """The dealer draws on 16 or less and stands on 17 or more, soft 17 included (blackjack/6.a, /19)."""
    return hand_total(cards).value < 17


def dealer_play(initial: Sequence[Card] | str, shoe: Iterable[Card]) -> tuple[Card, ...]:
    """The dealer's final hand: ``initial`` two cards, then cards from ``shoe`` while the rule says draw."""
    hand = list(_cards(initial, "the dealer's initial hand", 2))
    if len(hand) != 2:
        raise ValueError(f"the dealer starts with two cards, got {len(hand)}")
    cards = iter(shoe)
    while dealer_must_draw(hand):
        try:
            hand.append(next(cards))
        except StopIteration:
            raise ValueError(f"shoe ran out with the dealer on {hand_total(hand).value}") from None
    return tuple(hand)


def check_dealer_hand(cards: Sequence[Card] | str) -> Total:
    """The total of a completed dealer hand; ValueError if it drew on 17+ or stopped below 17 (blackjack/19)."""
    hand = _cards(cards, "the dealer's hand", 2)
    for drawn in range(2, len(hand)):
        if not dealer_must_draw(hand[:drawn]):
            raise ValueError(f"dealer drew {hand[drawn].code} on {hand_total(hand[:drawn]).value}: the dealer "
                             "stands on 17 or more (p217-2007/blackjack/19)")
    total = hand_total(hand)
    if total.value < 17:
        raise ValueError(f"dealer stopped on {total.value}: the dealer draws to 17 (p217-2007/blackjack/19)")
    return total


def can_double(cards: Sequence[Card] | str, rules: BlackjackRules = P217_2007, *, split: bool = False) -> bool:
    """A two-card hand may double on 9, 10 or 11, the ace as 1 or 11 (blackjack/29, /31; srij-805/15.b, /16.a)."""
    hand = _cards(cards, "a hand")
    if len(hand) != 2 or is_blackjack(hand, split=split):
        return False
    if rules.double_totals is None:
        return True
    hard = hand_total(hand, ace_as_one=True).value
    totals = {hard, hard + 10} if any(card.rank == ACE for card in hand) else {hard}
    return bool(totals & rules.double_totals)


def can_split(cards: Sequence[Card] | str, rules: BlackjackRules = P217_2007, *, splits_done: int = 0) -> bool:
    """Two first cards of the same value may be split, again after a split (blackjack/26, /27; srij-805/16.b-c)."""
    hand = _cards(cards, "a hand")
    if len(hand) != 2:
        return False
    if rules.max_splits is not None and splits_done >= rules.max_splits:
        return False
    if rules.split_pairs_only:
        return hand[0].rank == hand[1].rank
    return card_points(hand[0]) == card_points(hand[1])


def special_prize(cards: Sequence[Card] | str, bet_cents: int, rules: BlackjackRules = P217_2007) -> int:
    """3 times the bet for 6-7-8 of one suit or three 7s, else 0 (p217-2007/blackjack/35, srij-805-2015/25.i)."""
    hand = _cards(cards, "a hand")
    as_money(bet_cents, "bet", positive=True, whole=True)
    if not rules.special_prize or len(hand) != 3:
        return 0
    ranks = sorted(card.rank for card in hand)
    suited_678 = ranks == [6, 7, 8] and len({card.suit for card in hand}) == 1
    return 3 * bet_cents if suited_678 or ranks == [7, 7, 7] else 0


class Outcome(StrEnum):
    """How a hand's main bet ended."""

    BLACKJACK = "BLACKJACK"
    WIN = "WIN"
    PUSH = "PUSH"
    LOSE = "LOSE"
    BUST = "BUST"
    SURRENDER = "SURRENDER"
    EVEN_MONEY = "EVEN_MONEY"


@dataclass(frozen=True)
class HandSettlement(Settlement):
    """One hand's main bet settled (``staked``: the bet, doubled if it was; ``net``: the player's gain on it),
    how the hand ended, and the special prize of 6-7-8 suited / 7-7-7, paid on top whatever the outcome."""

    outcome: Outcome
    special: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.special, Fraction) or self.special < 0:
            raise ValueError(f"special prize must be a non-negative Fraction, got {self.special!r}")

    @property
    def paid_back(self) -> Fraction:
        """What the player gets back at the end: the main bet's :attr:`paid` plus the special prize."""
        return self.paid + self.special

    @classmethod
    def of(cls, outcome: Outcome, main: Settlement, special: int) -> HandSettlement:
        """The main bet's settlement ``main`` with the hand's ``outcome`` and ``special`` prize."""
        return cls(main.decision, main.staked, main.prize, main.returned, main.lost, outcome, Fraction(special))


def settle_hand(player: Sequence[Card] | str, dealer: Sequence[Card] | str, bet_cents: int, *,
                doubled: bool = False, split: bool = False, surrendered: bool = False, even_money: bool = False,
                rules: BlackjackRules = P217_2007) -> HandSettlement:
    """Settle one player hand of initial bet ``bet_cents`` against the dealer's cards (first card: the upcard).

    ``doubled``: the bet was doubled on the first two cards and one card drawn; ``split``: the hand
    comes from a split pair (its first card is the card of the pair); ``surrendered``/``even_money``:
    the player's decision. The dealer's hand must be complete (:func:`check_dealer_hand`) whenever
    the comparison needs it. ValueError names a decision the rules do not allow or a hand that
    cannot occur.
    """
    hand = _cards(player, "the player's hand", 2)
    table = _cards(dealer, "the dealer's hand", 1)
    as_money(bet_cents, "bet", positive=True, whole=True)
    upcard = table[0]
    special = special_prize(hand, bet_cents, rules)
    if even_money:
        if not (is_blackjack(hand, split=split) and upcard.rank == ACE):
            raise ValueError("even money is only for a player blackjack against a dealer ace "
                             "(p217-2007/blackjack/34)")
        return HandSettlement.of(Outcome.EVEN_MONEY, Settlement.win(bet_cents, bet_cents), special)
    if surrendered:
        if upcard.rank == ACE:
            raise ValueError("no surrender against a dealer ace (p217-2007/blackjack/36)")
        if len(hand) != 2 or doubled or split:
            raise ValueError("surrender is decided on the first two cards, before any double or split "
                             "(p217-2007/blackjack/36)")
        return HandSettlement.of(Outcome.SURRENDER, Settlement.lose(bet_cents, Fraction(bet_cents, 2)), special)
    stake = 2 * bet_cents if doubled else bet_cents
    ace_as_one = False
    if doubled:
        if len(hand) != 3 or not can_double(hand[:2], rules, split=split):
            raise ValueError(f"a doubled hand is two cards allowed to double plus exactly one card, got "
                             f"{' '.join(c.code for c in hand)} (p217-2007/blackjack/29)")
        ace_as_one = any(card.rank == ACE for card in hand[:2])  # blackjack/32, srij-805-2015/8.a.ii
    if split and hand[0].rank == ACE and len(hand) != 2:
        raise ValueError("split aces take one card each (p217-2007/blackjack/26)")
    total = hand_total(hand, ace_as_one=ace_as_one)
    dealer_blackjack = len(table) == 2 and is_blackjack(table)
    if is_blackjack(hand, split=split):
        if dealer_blackjack:
            return HandSettlement.of(Outcome.PUSH, Settlement.push(stake), special)
        return HandSettlement.of(Outcome.BLACKJACK, Settlement.win(stake, Fraction(3 * bet_cents, 2)), special)
    if total.bust:
        return HandSettlement.of(Outcome.BUST, Settlement.lose(stake), special)
    if dealer_blackjack:
        return HandSettlement.of(Outcome.LOSE, Settlement.lose(stake), special)
    dealer_total = check_dealer_hand(table)
    if dealer_total.bust or total.value > dealer_total.value:
        return HandSettlement.of(Outcome.WIN, Settlement.win(stake, stake), special)
    if total.value == dealer_total.value:
        return HandSettlement.of(Outcome.PUSH, Settlement.push(stake), special)
    return HandSettlement.of(Outcome.LOSE, Settlement.lose(stake), special)


def settle_insurance(insurance_cents: int, bet_cents: int, dealer: Sequence[Card] | str,
                     rules: BlackjackRules = P217_2007) -> Settlement:
    """The insurance bet: paid twice the insurance on a dealer blackjack, else lost (blackjack/33)."""
    table = _cards(dealer, "the dealer's hand", 2)
    as_money(insurance_cents, "insurance", positive=True, whole=True)
    as_money(bet_cents, "bet", positive=True, whole=True)
    if not rules.insurance:
        raise ValueError(f"insurance is not offered under {rules.name} (srij-805-2015/blackjack/16.d)")
    if table[0].rank != ACE:
        raise ValueError(f"insurance only against a dealer ace, the upcard is {table[0].code} "
                         "(p217-2007/blackjack/33)")
    if 2 * insurance_cents > bet_cents:
        raise ValueError(f"insurance {insurance_cents} is more than half the bet {bet_cents} "
                         "(p217-2007/blackjack/33)")
    if is_blackjack(table[:2]) and len(table) == 2:
        return Settlement.win(insurance_cents, 2 * insurance_cents)
    return Settlement.lose(insurance_cents)


def check_bet(bet_cents: int, minimum_cents: int, maximum_cents: int, rules: BlackjackRules = P217_2007) -> None:
    """ValueError unless the table limits and the bet obey ``rules.limits`` (blackjack/14, /37; srij-805/9-11).

    A thin wrapper of :func:`bench.games.stakes.check_bet_limits`: bets are whole cents.
    """
    for value, what in ((bet_cents, "bet"), (minimum_cents, "table minimum"), (maximum_cents, "table maximum")):
        as_money(value, what, positive=True, whole=True)
    raise_violations(check_bet_limits(rules.limits, "aposta", bet_cents, minimum_cents, maximum_cents))
