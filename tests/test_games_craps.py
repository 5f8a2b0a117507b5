"""bench.games.craps against the text of p217-2007/craps/10-13.

Exact probabilities are derived here from the 36 two-dice outcomes (ways to roll a total:
2:1, 3:2, 4:3, 5:4, 6:5, 7:6, 8:5, 9:4, 10:3, 11:2, 12:1) by the textbook formulas, independently
of the code, and compared with what the code's own settlement rules give when solved exactly.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.games import craps as c
from bench.games.stakes import Settlement

WAYS = {total: 6 - abs(total - 7) for total in range(2, 13)}


def p(total: int) -> Fraction:
    return Fraction(WAYS[total], 36)


def before_seven(total: int) -> Fraction:
    """Probability that ``total`` comes before a 7."""
    return Fraction(WAYS[total], WAYS[total] + 6)


def edge_before_seven(win_ways: int, lose_ways: int, prize: Fraction) -> Fraction:
    """Expected net per unit of a bet won by ``win_ways`` outcomes and lost by ``lose_ways``, others ignored."""
    win = Fraction(win_ways, win_ways + lose_ways)
    return win * prize - (1 - win)


def test_pass_line_wins_244_in_495() -> None:
    # /10.1: 7 or 11 win on the come-out; 2, 3, 12 lose; a point wins if it repeats before 7.
    win = p(7) + p(11) + sum(p(n) * before_seven(n) for n in c.POINTS)
    assert win == Fraction(244, 495)
    for chance in ("pass-line", "come"):
        probabilities = c.decision_probabilities(c.Bet(chance, 1))
        assert probabilities["win"] == win and probabilities["lose"] == 1 - win and probabilities["push"] == 0
        assert c.expected_net(c.Bet(chance, 1)) == Fraction(-7, 495)


@pytest.mark.parametrize("bar", list(c.Bar))
def test_dont_pass_with_either_bar(bar: c.Bar) -> None:
    # /10.2: barred total pushes; the other two of 2, 3, 12 win; 7, 11 lose; after a point 7 wins.
    push = p(bar)
    win = p(2) + p(3) + p(12) - push + sum(p(n) * (1 - before_seven(n)) for n in c.POINTS)
    for chance in ("dont-pass", "dont-come"):
        probabilities = c.decision_probabilities(c.Bet(chance, 1, bar=bar))
        assert probabilities["push"] == push == Fraction(1, 36)
        assert probabilities["win"] == win == Fraction(949, 1980)
        assert c.expected_net(c.Bet(chance, 1, bar=bar)) == win - (1 - win - push) == Fraction(-3, 220)


def test_one_roll_bets_exact_returns() -> None:
    def one_roll(winning: dict[int, Fraction]) -> Fraction:
        return sum(p(t) * winning[t] if t in winning else -p(t) for t in WAYS)

    cases = {
        c.Bet("craps", 1): one_roll({2: Fraction(7), 3: Fraction(7), 12: Fraction(7)}),  # /11.2
        c.Bet("total", 1, 7): one_roll({7: Fraction(4)}),  # /11.4
        c.Bet("total", 1, 2): one_roll({2: Fraction(30)}),  # /11.5
        c.Bet("total", 1, 3): one_roll({3: Fraction(15)}),  # /11.6
        c.Bet("total", 1, 11): one_roll({11: Fraction(15)}),  # /11.7
        c.Bet("total", 1, 12): one_roll({12: Fraction(30)}),  # /11.8
        c.Bet("under-seven", 1): one_roll({t: Fraction(1) for t in range(2, 7)}),  # /10.7
        c.Bet("over-seven", 1): one_roll({t: Fraction(1) for t in range(8, 13)}),  # /10.8
        c.Bet("field", 1): one_roll({3: Fraction(1), 4: Fraction(1), 9: Fraction(1), 10: Fraction(1),
                                     11: Fraction(1), 2: Fraction(2), 12: Fraction(2)}),  # /13.1
    }
    for bet, expected in cases.items():
        assert c.expected_net(bet) == expected, bet
    # The familiar figures: any craps 1/9, any seven 1/6, 2 and 12 5/36, field 1/18.
    assert [c.expected_net(bet) for bet in list(cases)[:3]] == [Fraction(-1, 9), Fraction(-1, 6), Fraction(-5, 36)]
    assert c.expected_net(c.Bet("field", 1)) == Fraction(-1, 18)


def test_standing_bets_exact_returns() -> None:
    for number in c.POINTS:
        ways = WAYS[number]
        place = c.PLACE_PAYOUTS[number]
        assert c.expected_net(c.Bet("place", 1, number)) == edge_before_seven(ways, 6, place)
        to_lose = c.PLACE_TO_LOSE_PAYOUTS[number]
        assert c.expected_net(c.Bet("place-to-lose", 1, number)) == edge_before_seven(6, ways, to_lose)
        # Odds are paid at true odds both ways: no house edge (/11.1).
        assert c.expected_net(c.Bet("odds", 1, number)) == 0 == c.expected_net(c.Bet("dont-odds", 1, number))
    assert [c.expected_net(c.Bet("place", 1, n)) for n in (6, 5, 4)] == [Fraction(-1, 66), Fraction(-1, 25),
                                                                          Fraction(-1, 15)]
    for number, prize in ((4, 7), (10, 7), (6, 9), (8, 9)):  # /11.3: hard way 1 outcome, easy way or 7 lose
        easy = WAYS[number] - 1
        assert c.expected_net(c.Bet("hardway", 1, number)) == edge_before_seven(1, 6 + easy, Fraction(prize))
    assert c.expected_net(c.Bet("hardway", 1, 4)) == Fraction(-1, 9)
    assert c.expected_net(c.Bet("hardway", 1, 8)) == Fraction(-1, 11)
    for chance in ("big-6", "big-8"):  # /10.5, /10.6: 5 ways against 6, even money
        assert c.expected_net(c.Bet(chance, 1)) == edge_before_seven(5, 6, Fraction(1)) == Fraction(-1, 11)


def test_worked_rolls() -> None:
    pass_bet = c.Bet("pass-line", 500)
    on_four = c.resolve(pass_bet, c.Roll(1, 3))
    assert on_four == c.Bet("pass-line", 500, number=4)
    assert c.resolve(on_four, c.Roll(4, 5)) == on_four
    assert c.resolve(on_four, c.Roll(2, 2)) == Settlement.win(500, 500)
    assert c.resolve(on_four, c.Roll(3, 4)) == Settlement.lose(500)
    assert c.resolve(pass_bet, c.Roll(5, 6)) == Settlement.win(500, 500)
    assert c.resolve(pass_bet, c.Roll(6, 6)) == Settlement.lose(500)
    six_bar, aces_bar = c.Bet("dont-pass", 500, bar=c.Bar.DOUBLE_SIX), c.Bet("dont-pass", 500, bar=c.Bar.DOUBLE_ACES)
    assert c.resolve(six_bar, c.Roll(6, 6)) == Settlement.push(500)
    assert c.resolve(six_bar, c.Roll(1, 1)) == Settlement.win(500, 500)
    assert c.resolve(aces_bar, c.Roll(1, 1)) == Settlement.push(500)
    assert c.resolve(aces_bar, c.Roll(6, 6)) == Settlement.win(500, 500)
    assert c.resolve(aces_bar, c.Roll(1, 2)) == Settlement.win(500, 500)
    assert c.resolve(aces_bar, c.Roll(5, 6)) == Settlement.lose(500)
    assert c.resolve(c.Bet("dont-pass", 500, 6, c.Bar.DOUBLE_SIX), c.Roll(3, 4)) == Settlement.win(500, 500)
    # Odds /11.1: 6 for 5, 3 for 2, 2 for 1; the don't side the other way round.
    assert c.resolve(c.Bet("odds", 1000, 6), c.Roll(2, 4)).prize == 1200
    assert c.resolve(c.Bet("odds", 1000, 5), c.Roll(1, 4)).prize == 1500
    assert c.resolve(c.Bet("odds", 1000, 10), c.Roll(5, 5)).prize == 2000
    assert c.resolve(c.Bet("dont-odds", 1000, 4), c.Roll(3, 4)).prize == 500
    assert c.resolve(c.Bet("odds", 5, 9), c.Roll(4, 5)).prize == Fraction(15, 2)
    # Place /12: 7 for 6 on 6; 10 for 13 on "7 before 6".
    assert c.resolve(c.Bet("place", 600, 6), c.Roll(3, 3)) == Settlement.win(600, 700)
    assert c.resolve(c.Bet("place-to-lose", 1300, 8), c.Roll(1, 6)) == Settlement.win(1300, 1000)
    assert c.resolve(c.Bet("place-to-lose", 1300, 8), c.Roll(2, 6)) == Settlement.lose(1300)
    # Hardways /11.3: 9x on a pair of fours; lose on 5-3 or on 7; stay on anything else.
    hard8 = c.Bet("hardway", 100, 8)
    assert c.resolve(hard8, c.Roll(4, 4)) == Settlement.win(100, 900)
    assert c.resolve(hard8, c.Roll(5, 3)) == Settlement.lose(100)
    assert c.resolve(hard8, c.Roll(6, 1)) == Settlement.lose(100)
    assert c.resolve(hard8, c.Roll(6, 6)) == hard8
    assert c.resolve(c.Bet("field", 100), c.Roll(6, 6)) == Settlement.win(100, 200)
    assert c.resolve(c.Bet("field", 100), c.Roll(4, 4)) == Settlement.lose(100)


def test_table_point_and_placement() -> None:
    assert c.table_point(None, c.Roll(3, 3)) == 6
    assert c.table_point(None, c.Roll(3, 4)) is None
    assert c.table_point(6, c.Roll(3, 4)) is None and c.table_point(6, c.Roll(1, 5)) is None
    assert c.table_point(6, c.Roll(1, 1)) == 6
    c.check_placement(c.Bet("come", 100), 6)
    with pytest.raises(ValueError, match="after the point"):
        c.check_placement(c.Bet("dont-come", 100, bar=12), None)
    with pytest.raises(ValueError, match="before its come-out"):
        c.check_placement(c.Bet("pass-line", 100, 8), 8)


def test_bad_bets_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="needs the table's bar"):
        c.Bet("dont-pass", 100)
    with pytest.raises(ValueError, match="one of"):
        c.Bet("hardway", 100, 5)
    with pytest.raises(ValueError, match="one of"):
        c.Bet("odds", 100)
    with pytest.raises(ValueError, match="takes no number"):
        c.Bet("field", 100, 4)
    with pytest.raises(ValueError, match="unknown craps chance"):
        c.Bet("horn", 100)
    with pytest.raises(ValueError, match="1-6"):
        c.Roll(0, 7)
    with pytest.raises(ValueError, match="never a float"):
        c.Bet("field", 0.5)


ANY_BET = st.one_of(
    st.builds(c.Bet, st.sampled_from(["pass-line", "come"]), st.integers(1, 10**6), st.sampled_from([None, *c.POINTS])),
    st.builds(c.Bet, st.sampled_from(["dont-pass", "dont-come"]), st.integers(1, 10**6),
              st.sampled_from([None, *c.POINTS]), st.sampled_from(list(c.Bar))),
    st.builds(c.Bet, st.sampled_from(["odds", "dont-odds", "place", "place-to-lose"]), st.integers(1, 10**6),
              st.sampled_from(c.POINTS)),
    st.builds(c.Bet, st.just("hardway"), st.integers(1, 10**6), st.sampled_from([4, 6, 8, 10])),
    st.builds(c.Bet, st.just("total"), st.integers(1, 10**6), st.sampled_from([2, 3, 7, 11, 12])),
    st.builds(c.Bet, st.sampled_from(["big-6", "big-8", "under-seven", "over-seven", "craps", "field"]),
              st.integers(1, 10**6)),
)


@settings(max_examples=300, deadline=None)
@given(ANY_BET, st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=40))
def test_a_bet_is_settled_once_and_never_pays_negative(bet: c.Bet, rolls: list[tuple[int, int]]) -> None:
    current: c.Bet | Settlement = bet
    for dice in rolls:
        if isinstance(current, Settlement):
            break
        previous = current
        current = c.resolve(previous, c.Roll(*dice))
        if isinstance(current, c.Bet):  # standing: same chance and stake, a line bet may only gain its point
            assert (current.chance, current.stake, current.bar) == (previous.chance, previous.stake, previous.bar)
            assert current.number == previous.number or previous.number is None
    if isinstance(current, Settlement):
        assert current.staked == bet.stake and current.prize >= 0 and current.net >= -current.staked
        assert current.returned + current.lost == current.staked
