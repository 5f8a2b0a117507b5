"""bench.games.banca_francesa against the text of p217-2007/banca-francesa/7-14.

Ways per total of three dice are counted here by convolution, independently of the code: 1 way
to make 3, 6 + 10 + 15 = 31 to make 5-7, 15 + 10 + 6 = 31 to make 14-16.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from bench.games import banca_francesa as bf
from bench.games.stakes import Settlement

WAYS = dict(zip(range(3, 19), np.convolve(np.convolve(np.ones(6), np.ones(6)), np.ones(6)).astype(int), strict=True))


def test_chances_and_prizes_of_rules_9_and_13() -> None:
    assert bf.TOTALS == {bf.Chance.ASES: {3}, bf.Chance.PEQUENO: {5, 6, 7}, bf.Chance.GRANDE: {14, 15, 16}}
    assert bf.settle(bf.Bet("ases", 100), (1, 1, 1)) == Settlement.win(100, 6100)
    assert bf.settle(bf.Bet("pequeno", 100), (1, 2, 4)) == Settlement.win(100, 100)
    assert bf.settle(bf.Bet("grande", 100), (6, 6, 4)) == Settlement.win(100, 100)
    # Ases beats pequeno and grande; pequeno beats grande and ases.
    assert bf.settle(bf.Bet("pequeno", 100), (1, 1, 1)) == Settlement.lose(100)
    assert bf.settle(bf.Bet("grande", 100), (1, 1, 1)) == Settlement.lose(100)
    assert bf.settle(bf.Bet("ases", 100), (2, 2, 3)) == Settlement.lose(100)


def test_other_totals_decide_nothing() -> None:
    for roll in [(1, 1, 2), (2, 3, 3), (4, 4, 5), (6, 6, 5), (6, 6, 6)]:  # totals 4, 8, 13, 17, 18
        assert bf.decision_total(roll) is None
        for chance in bf.Chance:
            assert bf.settle(bf.Bet(chance, 100), roll) == Settlement.no_decision(100)


def test_every_chance_has_the_same_edge_1_in_63_per_decision() -> None:
    ases, pequeno, grande = WAYS[3], WAYS[5] + WAYS[6] + WAYS[7], WAYS[14] + WAYS[15] + WAYS[16]
    assert (ases, pequeno, grande) == (1, 31, 31)
    deciding = ases + pequeno + grande
    per_throw = {
        bf.Chance.ASES: Fraction(61 * ases - pequeno - grande, 216),
        bf.Chance.PEQUENO: Fraction(pequeno - ases - grande, 216),
        bf.Chance.GRANDE: Fraction(grande - ases - pequeno, 216),
    }
    for chance, expected in per_throw.items():
        assert bf.expected_net(bf.Bet(chance, 1), per="throw") == expected == Fraction(-1, 216)
        assert bf.expected_net(bf.Bet(chance, 1)) == expected * 216 / deciding == Fraction(-1, 63)


def test_line_bets_play_half_in_multiples_of_ten_euros() -> None:
    # /11: chips of EUR 25 on the line: EUR 20 make whole multiples of EUR 10, half of it (EUR 10) is in play.
    assert bf.line_stake_in_play(2500) == 1000 and bf.line_stake_in_play(2000) == 1000
    assert bf.line_stake_in_play(999) == 0
    bet = bf.Bet("pequeno", 2500, on_line=True)
    assert bf.settle(bet, (2, 2, 2)) == Settlement("win", Fraction(2500), Fraction(1000), Fraction(2500), Fraction(0))
    assert bf.settle(bet, (5, 5, 5)) == Settlement("lose", Fraction(2500), Fraction(0), Fraction(1500), Fraction(1000))
    assert bf.settle(bet, (4, 4, 4)) == Settlement.no_decision(2500)
    with pytest.raises(ValueError, match="only pequeno and grande"):
        bf.Bet("ases", 2000, on_line=True)


def test_dealer_touching_the_dice_before_announcing_rule_7_d() -> None:
    # The chance shown wins, "não perdendo nenhuma das outras chances".
    assert bf.settle(bf.Bet("pequeno", 100), (1, 2, 3), announced=False) == Settlement.win(100, 100)
    assert bf.settle(bf.Bet("grande", 100), (1, 2, 3), announced=False) == Settlement.push(100)
    assert bf.settle(bf.Bet("grande", 100), (1, 2, 3)) == Settlement.lose(100)


def test_bad_input_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="unknown banca francesa chance"):
        bf.Bet("medio", 100)
    with pytest.raises(ValueError, match="three dice"):
        bf.settle(bf.Bet("ases", 100), (1, 1))
    with pytest.raises(ValueError, match="never a float"):
        bf.Bet("ases", 10.0)
    with pytest.raises(ValueError, match="per must be"):
        bf.expected_net(bf.Bet("ases", 100), per="spin")
