"""Póquer sem descarte against p461-2001, p217-2007 and srij-803-2015: qualification, pay table, jackpot."""

import numpy as np
import pytest

from bench.games import jackpot_rules
from bench.games.poker_hands import Category
from bench.games.poquer_sem_descarte import (
    JACKPOT_P461,
    PAY_TABLE,
    Result,
    check_ante,
    check_start_value,
    dealer_qualifies,
    jackpot_combination,
    settle,
    settle_jackpot,
)
from bench.games.stakes import LIMIT_TABLES, Settlement

C = Category
DEALER_PAIR = "2C 2D 7C 9S JC"  # qualifies (a pair beats ace-king)

# The prize of each combination as the texts print it (p461-2001/6, p217-2007/6, srij-803-2015/12), with a
# player hand of that combination that beats DEALER_PAIR.
TEXT_PRIZES = [
    ("AS KS QS JS TS", C.ROYAL_FLUSH, 100),
    ("9H 8H 7H 6H 5H", C.STRAIGHT_FLUSH, 50),
    ("QC QD QH QS 3C", C.FOUR_OF_A_KIND, 20),
    ("JH JD JS 4S 4C", C.FULL_HOUSE, 7),
    ("AD 9D 7D 4D 3D", C.FLUSH, 5),
    ("TC 9D 8H 7S 6C", C.STRAIGHT, 4),
    ("5C 5H 5S KS 3H", C.THREE_OF_A_KIND, 3),
    ("KC KD 3H 3S 9C", C.TWO_PAIR, 2),
    ("AC AD 8H 6S 3C", C.ONE_PAIR, 1),
]


@pytest.mark.parametrize(("player", "category", "multiple"), TEXT_PRIZES)
def test_pay_table_of_the_texts(player, category, multiple):
    result = settle(1000, player, DEALER_PAIR)
    assert result.result is Result.WIN and result.category is category
    assert result.ante.net == 1000  # ante paid 1 to 1 (p461-2001/18, srij-803-2015/28.b)
    assert result.bet.net == multiple * 2000  # second bet = 2 x ante, paid at the multiple (srij-803-2015/28.a)
    assert PAY_TABLE[category] == multiple


def test_high_card_win_pays_one_to_one():
    """Cartas maiores: the dealer's ace-king qualifies and loses to ace-king-queen (p461-2001/6.j)."""
    result = settle(500, "AS KD QC 5H 3S", "AH KC JD 9S 2C")
    assert (result.result, result.ante.net, result.bet.net) == (Result.WIN, 500, 1000)


def test_dealer_qualification_with_ace_king():
    assert dealer_qualifies("AH KC 4D 3S 2C")  # the least qualifying hand
    assert not dealer_qualifies("AH QC JD 9S 8C")  # ace-queen high does not
    assert not dealer_qualifies("KH QC JD 9S 7C")
    assert dealer_qualifies("2H 2C 4D 5S 7C")
    assert dealer_qualifies("AH 2C 3D 4S 5C")  # the ace-low straight is a combination


def test_dealer_not_qualified_pays_the_ante_and_returns_the_bet():
    result = settle(1000, "2S 3D 5C 8H 9S", "AH QC JD 7S 6C")  # the player would lose to the dealer
    assert (result.result, result.ante.net, result.bet.net) == (Result.DEALER_NOT_QUALIFIED, 1000, 0)


def test_fold_lose_tie():
    assert settle(1000, "AS AD 8H 6S 3C", DEALER_PAIR, folded=True).net == -1000  # p461-2001/17
    lost = settle(1000, "2S 3D 5C 8H 9S", "AH KC JD 7S 6C")
    assert (lost.result, lost.ante.net, lost.bet.net) == (Result.LOSE, -1000, -2000)  # p461-2001/18
    tie = settle(1000, "AS KD 9C 5H 3S", "AH KC 9D 5S 3D")  # equal ranks, no three of a suit on either
    assert (tie.result, tie.net) == (Result.TIE, 0)  # "conserva a sua aposta" (p461-2001/6)


def test_three_of_the_same_colour_decides_equal_high_cards():
    won = settle(1000, "AS KS 9S 5H 3D", "AH KC 9D 5C 3H")
    assert won.result is Result.WIN and won.bet.net == 2000
    assert settle(1000, "AH KC 9D 5C 3H", "AS KS 9S 5H 3D").result is Result.LOSE


def test_bad_inputs():
    with pytest.raises(ValueError, match="share a card"):
        settle(1000, "AS KS 9S 5H 3D", "AS KC 9D 5C 3H")
    with pytest.raises(ValueError, match="ante"):
        settle(0, "AS KS 9S 5H 3D", DEALER_PAIR)


def test_ante_limits():
    check_ante(2500, 100, 2500)
    with pytest.raises(ValueError, match="exceeds 25 x the minimum"):
        check_ante(100, 100, 2600)  # p461-2001/14, srij-803-2015/18
    with pytest.raises(ValueError, match="below the minimum"):
        check_ante(50, 100, 2500)
    for regulation in ("p461-2001", "p217-2007", "srij-803-2015"):  # one table per text, all 25x
        assert LIMIT_TABLES[f"{regulation}/poquer-sem-descarte"].limit("aposta-inicial").max_multiple == 25
        check_ante(100, 100, 2500, regulation)
        with pytest.raises(ValueError, match=f"{regulation}/poquer-sem-descarte/1[48]"):
            check_ante(100, 100, 2501, regulation)
    with pytest.raises(ValueError, match="no stake limits"):
        check_ante(100, 100, 2500, "p217-2008")


def test_a_round_is_two_stake_settlements():
    """Ante and second bet are each a stakes.Settlement: the unqualified dealer's second bet is returned
    (p461-2001/18), a fold never made the second bet (p461-2001/17)."""
    unqualified = settle(1000, "2S 3D 5C 8H 9S", "AH QC JD 7S 6C")
    assert (unqualified.ante, unqualified.bet) == (Settlement.win(1000, 1000), Settlement.push(2000))
    folded = settle(1000, "AS AD 8H 6S 3C", DEALER_PAIR, folded=True)
    assert (folded.ante, folded.bet) == (Settlement.lose(1000), None)
    won = settle(1000, "9H 8H 7H 6H 5H", DEALER_PAIR)
    assert won.bet == Settlement.win(2000, 100_000) and won.net == 101_000


# -- jackpot (p461-2001/poquer-sem-descarte/9-12) ----------------------------------------------------------------

POOL, BET, START = 2_000_000, 100, 1_000_000


def test_jackpot_combinations():
    assert jackpot_combination("AS KS QS JS TS") is C.ROYAL_FLUSH
    assert jackpot_combination("AD 9D 7D 4D 3D") is C.FLUSH
    assert jackpot_combination("TC 9D 8H 7S 6C") is None  # a straight wins no jackpot prize


def test_single_prizes_of_rule_9():
    assert settle_jackpot(POOL, BET, START, {3: C.FLUSH}).paid_to(3) == 50 * BET  # 9.e
    assert settle_jackpot(POOL, BET, START, {3: C.FULL_HOUSE}).paid_to(3) == 100 * BET  # 9.d
    assert settle_jackpot(POOL, BET, START, {3: C.FOUR_OF_A_KIND}).paid_to(3) == 500 * BET  # 9.c
    straight_flush = settle_jackpot(POOL, BET, START, {3: C.STRAIGHT_FLUSH})
    assert straight_flush.paid_to(3) == POOL // 10 and straight_flush.pool_after == POOL - POOL // 10  # 9.b
    royal = settle_jackpot(POOL, BET, START, {3: C.ROYAL_FLUSH})
    assert royal.paid_to(3) == POOL and royal.restarted and royal.pool_after == START  # 9.a


def test_smaller_prizes_first_royal_takes_the_remainder():
    """12.a: paid from the smallest to the largest, the royal flush gets what remains."""
    round_ = settle_jackpot(POOL, BET, START, {1: C.ROYAL_FLUSH, 2: C.STRAIGHT_FLUSH, 5: C.FLUSH, 7: C.FOUR_OF_A_KIND})
    assert [(p.seat, p.combination) for p in round_.payments] == [
        (5, C.FLUSH), (7, C.FOUR_OF_A_KIND), (2, C.STRAIGHT_FLUSH), (1, C.ROYAL_FLUSH)]
    assert round_.paid_to(2) == POOL // 10  # 10 % of the pool before the round's prizes
    assert round_.paid_to(1) == POOL - 50 * BET - 500 * BET - POOL // 10
    assert sum(p.cents for p in round_.payments) == POOL


def test_shared_prizes_of_rule_12():
    royals = settle_jackpot(1_000_001, BET, START, {2: C.ROYAL_FLUSH, 6: C.ROYAL_FLUSH})  # 12.b
    assert royals.paid_to(2) == royals.paid_to(6) == 500_000
    assert royals.pool_after == START + 1  # the cent that cannot be split stays in the pool
    flushes = settle_jackpot(POOL, BET, START, {2: C.STRAIGHT_FLUSH, 3: C.STRAIGHT_FLUSH, 4: C.STRAIGHT_FLUSH})
    assert [p.cents for p in flushes.payments] == [POOL // 10 // 3] * 3  # 12.c: the 10 % is divided
    fours = settle_jackpot(POOL, BET, START, {2: C.FOUR_OF_A_KIND, 3: C.FOUR_OF_A_KIND})
    assert fours.paid_to(2) == fours.paid_to(3) == 500 * BET  # p461-2001 shares only 12.b/12.c prizes
    shared = settle_jackpot(POOL, BET, START, {2: C.FOUR_OF_A_KIND, 3: C.FOUR_OF_A_KIND}, JACKPOT_P461.share_all())
    assert shared.paid_to(2) == shared.paid_to(3) == 250 * BET  # p217-2007/poquer-sem-descarte/12.c


def test_short_pool_pays_what_remains():
    round_ = settle_jackpot(30_000, BET, START, {1: C.FOUR_OF_A_KIND})
    assert round_.payments[0].short and round_.paid_to(1) == 30_000 and round_.pool_after == 0


def test_start_value_and_bad_hits():
    check_start_value(10_000 * BET, BET)
    with pytest.raises(ValueError, match="10000 x"):
        check_start_value(10_000 * BET - 1, BET)  # p461-2001/10, p217-2007/blackjack/44
    with pytest.raises(ValueError, match="seat 8"):
        settle_jackpot(POOL, BET, START, {8: C.FLUSH})
    with pytest.raises(ValueError, match="STRAIGHT wins no jackpot prize"):
        settle_jackpot(POOL, BET, START, {1: C.STRAIGHT})


def test_jackpot_simulator_agrees_with_the_oracle():
    """bench/games/jackpot_rules must pay what this oracle pays: 300 random sequences of 20 rounds, 2000 single rounds.

    Each round adds jackpot bets to the pool (1 to 7 seats, 2.5 %) and, with probability 1/2, settles
    1 to 7 winning seats with random combinations (royals made common on purpose). Seed fixed.
    """
    rng = np.random.default_rng(803)
    names = [prize.combination for prize in JACKPOT_P461.prizes]
    disagreements = []
    for _ in range(300):
        bet = int(rng.integers(1, 2000))
        start = 10_000 * bet + int(rng.integers(0, 10_000))
        pool = start
        for _ in range(20):
            seats_betting = int(rng.integers(1, 8))
            pool = jackpot_rules.expected_value(pool, [bet] * seats_betting, jackpot_rules.parse_percent("2.5"))
            if rng.random() < 0.5:
                continue
            seats = rng.choice(np.arange(1, 8), size=int(rng.integers(1, 8)), replace=False)
            hands = {int(seat): names[int(rng.integers(0, len(names)))] for seat in seats}
            mine = settle_jackpot(pool, bet, start, hands)
            theirs = jackpot_rules.settle(pool, bet, start, [jackpot_rules.Hit(seat, hand.value)
                                                             for seat, hand in hands.items()])
            ours = [(p.seat, p.combination.value, p.cents, p.short) for p in mine.payments]
            sims = [(p.seat, p.hand, p.amount_cents, p.short) for p in theirs.payouts]
            if ours != sims or mine.pool_after != theirs.pool_after_cents or mine.restarted != theirs.restarted:
                disagreements.append((pool, bet, start, hands, ours, sims))
            pool = mine.pool_after
    for _ in range(2000):  # single rounds from any pool, short pools included (an unlawful start value)
        pool, bet = int(rng.integers(0, 2_000_000)), int(rng.integers(1, 5000))
        seats = rng.choice(np.arange(1, 8), size=int(rng.integers(1, 8)), replace=False)
        hands = {int(seat): names[int(rng.integers(0, len(names)))] for seat in seats}
        mine = settle_jackpot(pool, bet, 1, hands)
        hits = [jackpot_rules.Hit(seat, hand.value) for seat, hand in hands.items()]
        theirs = jackpot_rules.settle(pool, bet, 1, hits)
        ours = [(p.seat, p.combination.value, p.cents, p.short) for p in mine.payments]
        sims = [(p.seat, p.hand, p.amount_cents, p.short) for p in theirs.payouts]
        if ours != sims or mine.pool_after != theirs.pool_after_cents:
            disagreements.append((pool, bet, 1, hands, ours, sims))
    assert not disagreements, disagreements[:3]
