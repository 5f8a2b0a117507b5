"""bench.games.cussec against the text of p217-2007/cussec/7-10.

Exact returns are counted here from the 216 outcomes of three dice with numpy (ways per total
by convolution, ways per face count by formula), independently of the code's settlement.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.games import cussec as cu
from bench.games.stakes import Settlement

FACES = np.arange(1, 7)
OUTCOMES = np.array(list(product(range(1, 7), repeat=3)))  # 216 x 3
TOTAL_WAYS = dict(zip(range(3, 19), np.convolve(np.convolve(np.ones(6), np.ones(6)), np.ones(6)).astype(int),
                      strict=True))


def edge(win_ways_by_prize: dict[int, int]) -> Fraction:
    """Expected net per unit: sum of ways x prize for the winning outcomes, minus the losing ways, over 216."""
    winning = sum(win_ways_by_prize.values())
    return Fraction(sum(prize * ways for prize, ways in win_ways_by_prize.items()) - (216 - winning), 216)


def test_total_prizes_are_the_table_of_rule_8_h() -> None:
    # "65 vezes ... se o número for 4 ou 17, 32 ... 5 ou 16, 19 ... 6 ou 15, 12 ... 7 ou 14, 8 ... 8 ou 13,
    # 7 ... 9 ou 12 e 6 vezes se o número for 10 ou 11".
    text = {4: 65, 5: 32, 6: 19, 7: 12, 8: 8, 9: 7, 10: 6}
    assert dict(cu.TOTAL_PRIZES) == {**text, **{21 - t: prize for t, prize in text.items()}}
    assert TOTAL_WAYS[4] == 3 and TOTAL_WAYS[10] == 27 and sum(TOTAL_WAYS.values()) == 216
    for total, prize in cu.TOTAL_PRIZES.items():
        assert cu.expected_net(cu.Bet("total", 1, (total,))) == edge({prize: TOTAL_WAYS[total]}), total
    assert cu.expected_net(cu.Bet("total", 1, (4,))) == Fraction(-1, 12)
    assert cu.expected_net(cu.Bet("total", 1, (7,))) == Fraction(-7, 72)


def test_every_chance_exact_return_over_216_outcomes() -> None:
    totals = OUTCOMES.sum(axis=1)
    triple = (OUTCOMES == OUTCOMES[:, :1]).all(axis=1)
    small = int(((totals >= 4) & (totals <= 10) & ~triple).sum())
    assert small == 105  # 108 outcomes total 3-10, less 1-1-1, 2-2-2 and 3-3-3
    assert cu.expected_net(cu.Bet("pequeno", 1)) == edge({1: small}) == Fraction(-1, 36)
    assert cu.expected_net(cu.Bet("grande", 1)) == Fraction(-1, 36)
    counts = (OUTCOMES == 3).sum(axis=1)
    one, two, three = (int((counts == k).sum()) for k in (1, 2, 3))
    assert (one, two, three) == (75, 15, 1)
    assert cu.expected_net(cu.Bet("numero", 1, (3,))) == edge({1: one, 2: two, 3: three}) == Fraction(-17, 216)
    both = int(((OUTCOMES == 2).any(axis=1) & (OUTCOMES == 5).any(axis=1)).sum())
    assert both == 30
    assert cu.expected_net(cu.Bet("combinacao", 1, (5, 2))) == edge({5: both}) == Fraction(-1, 6)
    assert cu.expected_net(cu.Bet("dupla", 1, (3,))) == edge({10: two, 30: three}) == Fraction(-5, 54)
    assert cu.expected_net(cu.Bet("triplo", 1, (6,))) == edge({190: 1}) == Fraction(-25, 216)
    assert cu.expected_net(cu.Bet("qualquer-triplo", 1)) == edge({32: int(triple.sum())}) == Fraction(-1, 12)


def test_worked_throws_of_rules_8_and_9() -> None:
    # Triples: pequeno and grande lose (/9); the total bet on the triple's total still wins; a face on three dice
    # pays 3x (/8 c)), the double of that face 30x (/8 e)), the triple 190x (/8 f)), any triple 32x (/8 g)).
    throw = (3, 3, 3)
    assert cu.settle(cu.Bet("pequeno", 100), throw) == Settlement.lose(100)
    assert cu.settle(cu.Bet("grande", 100), (5, 5, 5)) == Settlement.lose(100)
    assert cu.settle(cu.Bet("total", 100, (9,)), throw) == Settlement.win(100, 700)
    assert cu.settle(cu.Bet("numero", 100, (3,)), throw) == Settlement.win(100, 300)
    assert cu.settle(cu.Bet("dupla", 100, (3,)), throw) == Settlement.win(100, 3000)
    assert cu.settle(cu.Bet("triplo", 100, (3,)), throw) == Settlement.win(100, 19000)
    assert cu.settle(cu.Bet("qualquer-triplo", 100), throw) == Settlement.win(100, 3200)
    # Ordinary throws.
    assert cu.settle(cu.Bet("pequeno", 100), (1, 3, 6)) == Settlement.win(100, 100)
    assert cu.settle(cu.Bet("grande", 100), (1, 3, 6)) == Settlement.lose(100)
    assert cu.settle(cu.Bet("numero", 100, (4,)), (4, 4, 2)) == Settlement.win(100, 200)
    assert cu.settle(cu.Bet("dupla", 100, (4,)), (4, 2, 4)) == Settlement.win(100, 1000)
    assert cu.settle(cu.Bet("combinacao", 100, (2, 4)), (4, 2, 4)) == Settlement.win(100, 500)
    assert cu.settle(cu.Bet("combinacao", 100, (2, 5)), (4, 2, 4)) == Settlement.lose(100)
    assert cu.settle(cu.Bet("total", 100, (17,)), (6, 6, 5)) == Settlement.win(100, 6500)


def test_bad_bets_are_refused_by_name() -> None:
    for bad in [("total", (3,)), ("total", (18,)), ("combinacao", (2, 2)), ("numero", (7,)), ("numero", ()),
                ("pequeno", (1,)), ("sete", ())]:
        with pytest.raises(ValueError):
            cu.Bet(bad[0], 100, bad[1])
    with pytest.raises(ValueError, match="4-17"):
        cu.Bet("total", 100, (18,))
    with pytest.raises(ValueError, match="three dice"):
        cu.settle(cu.Bet("pequeno", 100), (1, 2))
    with pytest.raises(ValueError, match="three dice"):
        cu.settle(cu.Bet("pequeno", 100), (1, 2, 7))


ANY_BET = st.one_of(
    st.builds(cu.Bet, st.sampled_from(["pequeno", "grande", "qualquer-triplo"]), st.integers(1, 10**6)),
    st.builds(cu.Bet, st.sampled_from(["numero", "dupla", "triplo"]), st.integers(1, 10**6),
              st.tuples(st.integers(1, 6))),
    st.builds(cu.Bet, st.just("combinacao"), st.integers(1, 10**6),
              st.lists(st.integers(1, 6), min_size=2, max_size=2, unique=True).map(tuple)),
    st.builds(cu.Bet, st.just("total"), st.integers(1, 10**6), st.tuples(st.integers(4, 17))),
)


@settings(max_examples=300, deadline=None)
@given(ANY_BET, st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6)))
def test_settlement_is_order_free_and_never_negative(bet: cu.Bet, throw: tuple[int, int, int]) -> None:
    result = cu.settle(bet, throw)
    assert result == cu.settle(bet, throw[::-1]) == cu.settle(bet, (throw[1], throw[2], throw[0]))
    assert result.prize >= 0 and result.net >= -result.staked and result.returned + result.lost == result.staked
