"""The jackpot arithmetic of bench.games.jackpot_rules against the texts of p461-2001/poquer-sem-descarte/9, /10, /12.

Expected amounts are worked out by hand from the clauses in each test, not taken from the code.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.games.jackpot_rules import (
    BLACKJACK_EXAMPLE,
    POQUER_SEM_DESCARTE,
    Hit,
    PayTable,
    Prize,
    PrizeKind,
    contribution_units,
    expected_value,
    format_percent,
    minimum_start,
    parse_percent,
    settle,
)

BET, START = 100, 1_000_000  # 1 EUR jackpot bet, 10 000 EUR start value (10 000 bets: poquer-sem-descarte/10)


def test_percent_parsing_is_exact_and_names_faults() -> None:
    assert parse_percent("2.5") == Decimal("2.5")
    assert format_percent(Decimal("70.00")) == "70"
    assert format_percent(Decimal("2.5000")) == "2.5"
    for bad, fault in [("abc", "not a decimal"), ("0", "above 0"), ("100.5", "at most 100"),
                       ("1.23456", "more than 4 decimals")]:
        with pytest.raises(ValueError, match=fault):
            parse_percent(bad)


def test_contributions_keep_the_fraction_of_a_cent() -> None:
    # 2.5 % of 1 EUR is 2.5 cents: after 3 bets 7.5 cents, shown as 7; after 4, exactly 10
    assert contribution_units(100, Decimal("2.5")) == 2_500_000
    assert expected_value(START, [100] * 3, Decimal("2.5")) == START + 7
    assert expected_value(START, [100] * 4, Decimal("2.5")) == START + 10
    assert expected_value(0, [100] * 1000, Decimal(29)) == 29_000
    assert minimum_start(250) == 2_500_000
    with pytest.raises(ValueError, match="positive whole number of cents"):
        contribution_units(0, Decimal(1))


def test_royal_flush_alone_takes_the_whole_pool_and_the_pool_restarts() -> None:
    result = settle(1_234_567, BET, START, [Hit(3, "ROYAL_FLUSH")])
    assert [(p.seat, p.amount_cents) for p in result.payouts] == [(3, 1_234_567)]
    assert result.restarted and result.pool_after_cents == START


def test_straight_flush_takes_ten_percent_of_the_pool() -> None:
    result = settle(1_234_567, BET, START, [Hit(1, "STRAIGHT_FLUSH")])
    assert result.payouts[0].amount_cents == 123_456  # floor(10 % of 12 345,67 EUR)
    assert result.pool_after_cents == 1_234_567 - 123_456 and not result.restarted


def test_several_winners_are_paid_smallest_first_and_the_royal_gets_the_remainder() -> None:
    pool = 2_000_000
    hits = [Hit(1, "ROYAL_FLUSH"), Hit(2, "STRAIGHT_FLUSH"), Hit(3, "FOUR_OF_A_KIND"), Hit(4, "FULL_HOUSE"),
            Hit(5, "FLUSH")]
    result = settle(pool, BET, START, hits)
    paid = [(p.hand, p.amount_cents) for p in result.payouts]
    # 9.e 50x, 9.d 100x, 9.c 500x the bet; 9.b 10 % of the pool before the round; 9.a what remains
    assert paid == [("FLUSH", 5_000), ("FULL_HOUSE", 10_000), ("FOUR_OF_A_KIND", 50_000),
                    ("STRAIGHT_FLUSH", 200_000), ("ROYAL_FLUSH", pool - 265_000)]
    assert [p.order for p in result.payouts] == [1, 2, 3, 4, 5]
    assert result.pool_after_cents == START


def test_two_royal_flushes_share_the_remainder_and_the_odd_cent_stays_in_the_pool() -> None:
    result = settle(1_000_001, BET, START, [Hit(6, "ROYAL_FLUSH"), Hit(2, "ROYAL_FLUSH")])
    assert [(p.seat, p.amount_cents) for p in result.payouts] == [(2, 500_000), (6, 500_000)]
    assert result.pool_after_cents == START + 1


def test_two_straight_flushes_share_ten_percent_and_fixed_prizes_are_paid_to_each() -> None:
    result = settle(3_000_000, BET, START, [Hit(1, "STRAIGHT_FLUSH"), Hit(4, "STRAIGHT_FLUSH"),
                                            Hit(2, "FULL_HOUSE"), Hit(7, "FULL_HOUSE")])
    assert [(p.seat, p.hand, p.amount_cents) for p in result.payouts] == [
        (2, "FULL_HOUSE", 10_000), (7, "FULL_HOUSE", 10_000), (1, "STRAIGHT_FLUSH", 150_000),
        (4, "STRAIGHT_FLUSH", 150_000)]
    assert result.pool_after_cents == 3_000_000 - 320_000


def test_a_prize_never_exceeds_the_pool() -> None:
    result = settle(30_000, BET, START, [Hit(1, "FOUR_OF_A_KIND")])  # 500 x 1 EUR owed, 300 EUR held
    assert result.payouts[0].amount_cents == 30_000 and result.payouts[0].short
    assert result.pool_after_cents == 0


def test_bad_rounds_are_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="not in the jackpot pay table"):
        settle(START, BET, START, [Hit(1, "TWO_PAIRS")])
    with pytest.raises(ValueError, match="repeat"):
        settle(START, BET, START, [Hit(1, "FLUSH"), Hit(1, "FULL_HOUSE")])
    with pytest.raises(ValueError, match="seats must be 1-7"):
        settle(START, BET, START, [Hit(8, "FLUSH")])
    with pytest.raises(ValueError, match="at least one"):
        settle(START, BET, START, [])


def test_pay_tables_need_exactly_one_remainder_at_the_top() -> None:
    with pytest.raises(ValueError, match="REMAINDER"):
        PayTable((Prize("A", PrizeKind.MULTIPLE, Fraction(5)),))
    with pytest.raises(ValueError, match="twice"):
        PayTable((Prize("A", PrizeKind.REMAINDER), Prize("A", PrizeKind.MULTIPLE, Fraction(5))))
    assert BLACKJACK_EXAMPLE.rank("SUITED_77") == 3


@settings(max_examples=200, deadline=None)
@given(pool=st.integers(0, 10**9), bet=st.integers(1, 10_000),
       hands=st.lists(st.sampled_from([p.hand for p in POQUER_SEM_DESCARTE.prizes]), min_size=1, max_size=7))
def test_every_cent_is_paid_or_kept(pool: int, bet: int, hands: list[str]) -> None:
    result = settle(pool, bet, 10_000 * bet, [Hit(seat, hand) for seat, hand in enumerate(hands, start=1)])
    kept = result.pool_after_cents - (10_000 * bet if result.restarted else 0)
    assert result.paid_cents + kept == pool and kept >= 0
    if not any(p.short for p in result.payouts):  # a short pool pays less than owed: order is by what is owed
        amounts = [p.amount_cents for p in result.payouts if p.hand != "ROYAL_FLUSH"]
        assert amounts == sorted(amounts)  # smallest first (poquer-sem-descarte/12.a)
