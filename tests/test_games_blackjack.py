"""Blackjack/21 against p217-2007/blackjack and srij-805-2015/blackjack."""

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.games.blackjack import (
    P217_2007,
    SRIJ_805_2015,
    Outcome,
    Total,
    can_double,
    can_split,
    check_bet,
    check_dealer_hand,
    dealer_must_draw,
    dealer_play,
    hand_total,
    is_blackjack,
    settle_hand,
    settle_insurance,
    special_prize,
)
from bench.games.cards import DECK_52
from bench.games.stakes import LIMIT_TABLES, Settlement


@pytest.mark.parametrize(("cards", "value", "soft"), [
    ("AS 6D", 17, True), ("AS 6D TC", 17, False), ("AS AD 9C", 21, True), ("AS AD AC AH 7S", 21, True),
    ("KS QD", 20, False), ("AS AD", 12, True), ("9S 7D 8C", 24, False), ("AS 5D 5C AH", 12, False),
])
def test_hand_totals_with_soft_aces(cards, value, soft):
    """Ace 1 or 11, figures 10 (p217-2007/blackjack/6)."""
    assert hand_total(cards) == Total(value, soft)


def test_dealer_stands_on_soft_17():
    """blackjack/6.a: the dealer's ace is 11 when that makes 17-21, and /19: 17 or more stands."""
    assert not dealer_must_draw("AS 6D")
    assert dealer_must_draw("AS 5D")
    assert dealer_must_draw("TS 6D")
    assert not dealer_must_draw("TS 7D")
    assert dealer_play("AS 5D", parse_shoe("AH 9C 5C")) == tuple(parse_shoe("AS 5D AH"))  # soft 17 after a draw
    assert hand_total(dealer_play("TS 2D", parse_shoe("3C 4H 9S"))).value == 19


def parse_shoe(text):
    from bench.games.cards import parse_cards

    return list(parse_cards(text, distinct=False))


def test_a_dealer_hand_that_broke_the_rule_is_rejected():
    with pytest.raises(ValueError, match="drew 2C on 17"):
        check_dealer_hand("AS 6D 2C")
    with pytest.raises(ValueError, match="stopped on 16"):
        check_dealer_hand("TS 6D")
    assert check_dealer_hand("TS 6D 5C") == Total(21, False)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DECK_52), min_size=20, max_size=20))
def test_dealer_play_always_ends_between_17_and_bust(shoe):
    """Property: the dealer stops at the first total of 17 or more, never before, never after."""
    final = dealer_play(shoe[:2], shoe[2:])
    assert check_dealer_hand(final).value >= 17


def test_blackjack_pays_three_to_two_exactly():
    won = settle_hand("AS KD", "9C 8D", 1000)
    assert (won.outcome, won.net) == (Outcome.BLACKJACK, Fraction(1500))  # blackjack/21
    assert settle_hand("AS KD", "9C 8D", 5).net == Fraction(15, 2)  # half a cent: exact, not rounded
    assert settle_hand("AS KD", "AC QH", 1000).outcome is Outcome.PUSH  # both blackjack: "jogada nula"
    assert settle_hand("AS KD", "9C 7D 5S", 1000).outcome is Outcome.BLACKJACK  # blackjack beats 21 (/20)


def test_split_twenty_one_is_not_blackjack():
    """blackjack/20: an ace and a ten after a split is 21, not blackjack."""
    assert not is_blackjack("AS KD", split=True)
    assert settle_hand("AS KD", "9C 7D 5S", 1000, split=True).outcome is Outcome.PUSH
    assert settle_hand("AS KD", "9C 8D", 1000, split=True).net == 1000


def test_win_lose_push_bust():
    assert settle_hand("TS 9D", "TC 8D", 1000).net == 1000  # /23
    assert settle_hand("TS 7D", "TC 8D", 1000).net == -1000
    assert settle_hand("TS 8D", "TC 8H", 1000).outcome is Outcome.PUSH  # /24
    assert settle_hand("TS 6D 9C", "TC 6H 9D", 1000).outcome is Outcome.BUST  # the player busts first (/22)
    assert settle_hand("TS 6D", "TC 6H 9D", 1000).net == 1000  # dealer busts


def test_double_on_nine_ten_eleven_one_card():
    assert can_double("5S 4D") and can_double("6S 4D") and can_double("9S 2D") and can_double("AS 8D")
    assert not can_double("TS 2D") and not can_double("5S 3D")  # blackjack/29: 9, 10 or 11 only
    assert can_double("TS 2D", replace(SRIJ_805_2015, double_totals=None))
    doubled = settle_hand("6S 4D TC", "TS 8D", 1000, doubled=True)
    assert (doubled.staked, doubled.net) == (2000, 2000)
    with pytest.raises(ValueError, match="doubled hand"):
        settle_hand("TS 2D 5C", "TS 8D", 1000, doubled=True)
    with pytest.raises(ValueError, match="doubled hand"):
        settle_hand("6S 4D 2C 3C", "TS 8D", 1000, doubled=True)


def test_ace_doubled_as_one_stays_one():
    """blackjack/32, srij-805-2015/8.a.ii: A-8 doubled as 9 plus a 2 is 11, not a soft 21."""
    assert settle_hand("AS 8D 2C", "TS 7D", 1000, doubled=True).net == -2000
    assert settle_hand("AS 8D 2C", "TS 7D", 1000).net == 1000  # not doubled: soft 21 wins


def test_dealer_blackjack_takes_doubled_stakes():
    """The hole card is seen after the players play (blackjack/17): a dealer blackjack beats a doubled 21."""
    assert settle_hand("6S 4D AC", "AS KD", 1000, doubled=True).net == -2000


def test_split_rules():
    assert can_split("8S 8D") and can_split("TS KD")  # same value, different ranks (/26)
    assert not can_split("TS KD", replace(SRIJ_805_2015, split_pairs_only=True))
    assert not can_split("8S 9D")
    with pytest.raises(ValueError, match="split aces take one card"):
        settle_hand("AS 5D 4C", "TS 8D", 1000, split=True)


def test_insurance_pays_two_to_one():
    assert settle_insurance(500, 1000, "AS KD").net == 1000  # blackjack/33
    assert settle_insurance(500, 1000, "AS 7D").net == -500
    with pytest.raises(ValueError, match="more than half"):
        settle_insurance(501, 1000, "AS KD")
    with pytest.raises(ValueError, match="only against a dealer ace"):
        settle_insurance(500, 1000, "KS AD")


def test_even_money_and_surrender():
    assert settle_hand("AS KD", "AC 7D", 1000, even_money=True).net == 1000  # blackjack/34
    with pytest.raises(ValueError, match="even money"):
        settle_hand("AS KD", "TC 7D", 1000, even_money=True)
    surrendered = settle_hand("TS 6D", "9C", 1001, surrendered=True)
    assert (surrendered.outcome, surrendered.net) == (Outcome.SURRENDER, Fraction(-1001, 2))  # blackjack/36
    with pytest.raises(ValueError, match="no surrender against a dealer ace"):
        settle_hand("TS 6D", "AC", 1000, surrendered=True)


def test_special_prize_6_7_8_suited_and_7_7_7():
    """blackjack/35: three times the bet, paid whatever the hand's outcome."""
    assert special_prize("6H 7H 8H", 1000) == 3000
    assert special_prize("6H 7H 8D", 1000) == 0
    assert special_prize("7S 7D 7C", 1000) == 3000
    assert special_prize("7S 7D 7C", 1000, replace(SRIJ_805_2015, special_prize=False)) == 0  # srij-805-2015/16.e
    lost = settle_hand("7S 7D 7C", "AS KD", 1000)
    assert (lost.net, lost.special, lost.paid_back) == (-1000, 3000, 3000)


def test_stake_limits():
    check_bet(3000, 100, 3000, P217_2007)
    with pytest.raises(ValueError, match="exceeds 30 x the minimum"):
        check_bet(100, 100, 3100, P217_2007)  # blackjack/37
    with pytest.raises(ValueError, match="not a whole multiple of the minimum 100 \\(p217-2007/blackjack/14\\)"):
        check_bet(150, 100, 3000, P217_2007)  # blackjack/14
    check_bet(150, 100, 10_000, SRIJ_805_2015)  # srij-805-2015/9, /11
    with pytest.raises(ValueError, match="exceeds 100 x the minimum"):
        check_bet(150, 100, 10_001, SRIJ_805_2015)
    # /14 "igual ao mínimo ... ou múltiplo dele, até atingir o máximo": the maximum itself is a multiple.
    with pytest.raises(ValueError, match="maximum 2950 is not a whole multiple"):
        check_bet(100, 100, 2950, P217_2007)
    check_bet(150, 100, 2950, SRIJ_805_2015)
    with pytest.raises(ValueError, match="whole number of cents"):
        check_bet(Fraction(300), 100, 3000, P217_2007)


def test_stake_limits_are_the_stakes_tables():
    """One source: the rules carry the tables of bench.games.stakes, whose ratios are the texts' (30, 100)."""
    assert P217_2007.limits is LIMIT_TABLES["p217-2007/blackjack"]
    assert SRIJ_805_2015.limits is LIMIT_TABLES["srij-805-2015/blackjack"]
    for rules in (P217_2007, SRIJ_805_2015):
        ratio = rules.limits.limit("aposta").max_multiple
        check_bet(500, 500, ratio * 500, rules)
        with pytest.raises(ValueError, match=f"exceeds {ratio} x"):
            check_bet(500, 500, ratio * 500 + 100, rules)


def test_hand_settlements_are_stake_settlements():
    """A hand is a stakes.Settlement of its main bet (stake conserved) plus outcome and special prize."""
    surrendered = settle_hand("TS 6D", "9C", 1001, surrendered=True)
    assert isinstance(surrendered, Settlement)
    assert (surrendered.decision, surrendered.returned, surrendered.lost) == ("lose", Fraction(1001, 2),
                                                                               Fraction(1001, 2))
    assert settle_hand("TS 8D", "TC 8H", 1000).decision == "push"
    won = settle_hand("6S 4D TC", "TS 8D", 1000, doubled=True)
    assert (won.decision, won.prize, won.paid) == ("win", 2000, 4000)
    assert settle_insurance(500, 1000, "AS KD") == Settlement.win(500, 1000)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DECK_52), min_size=20, max_size=20), st.integers(1, 100_000))
def test_settlement_never_loses_more_than_the_stake(cards, bet):
    """Property: a standing hand's loss is at most its stake and a win at most 3:2 of the bet."""
    player = cards[:2]
    dealer = dealer_play(cards[2:4], cards[4:])
    result = settle_hand(player, dealer, bet)
    assert -result.staked <= result.net <= Fraction(3 * bet, 2)
    assert result.paid_back >= 0


def _dealer_bust_probability(upcard: int) -> Fraction:
    """Exact P(dealer busts) from ``upcard`` on an infinite deck, by recursion over dealer_must_draw."""
    from bench.games.cards import Card

    draws = {Card(rank, "S"): Fraction(4 if rank == 10 else 1, 13) for rank in (2, 3, 4, 5, 6, 7, 8, 9, 10, 14)}

    def bust(hand: list) -> Fraction:
        if not dealer_must_draw(hand):
            return Fraction(int(hand_total(hand).bust))
        return sum((p * bust([*hand, card]) for card, p in draws.items()), Fraction(0))

    return bust([Card(upcard, "H")])


@pytest.mark.parametrize(("upcard", "published"), [(2, 0.3536), (6, 0.4232), (14, 0.1153)])
def test_dealer_bust_probabilities_match_published_s17_tables(upcard, published):
    """Infinite deck, dealer stands on soft 17, no peek: the dealer bust rates published by the Wizard of Odds
    (blackjack "dealer bust" tables, 4 decimals). A dealer that hit soft 17 would bust 0.4395 from a 6."""
    assert round(float(_dealer_bust_probability(upcard)), 4) == published
