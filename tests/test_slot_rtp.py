"""Slot-machine return to player (p217-2007/maquinas-automaticas/2): exact theory and tests from play.

Statistical assertions state their error rates; seeds are fixed, so outcomes are deterministic.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from bench.games.slots import PayTable, SlotMachine, random_stops, spin_wins, theoretical_rtp
from rng_tests.fairness.slots import plays_needed, rtp_consistency_test, rtp_floor_test
from rng_tests.result import TestResult

STRIP = ["7", "BAR", "CHERRY", "BAR2", "BLANK", "BAR", "BLANK", "CHERRY", "BAR3", "BLANK", "BAR", "BLANK"]
REELS = [STRIP, STRIP[::-1], [*STRIP[1:], "WILD"]]
SETS = {"ANY BAR": {"BAR", "BAR2", "BAR3"}}
FIVE_LINES = ((1, 1, 1), (0, 0, 0), (2, 2, 2), (0, 1, 2), (2, 1, 0))


def _pays(top: int, bar3: int, bar2: int, bar: int, any_bar: int, two_cherries: int, cherry: int) -> dict:
    return {("7", "7", "7"): top, ("BAR3",) * 3: bar3, ("BAR2",) * 3: bar2, ("BAR",) * 3: bar,
            ("ANY BAR",) * 3: any_bar, ("CHERRY", "CHERRY"): two_cherries, ("CHERRY",): cherry}


GENEROUS = _pays(100, 40, 20, 10, 5, 4, 1)  # RTP 90.39 %
TIGHT = _pays(60, 25, 12, 8, 3, 2, 1)  # RTP 62.96 %


def _machine(pays: dict, lines: tuple[tuple[int, ...], ...] = ()) -> SlotMachine:
    return SlotMachine(REELS, PayTable.from_mapping(pays, sets=SETS, wild=["WILD"]), lines=lines)


def _naive_theory(pays: dict, lines: tuple[tuple[int, ...], ...]) -> tuple[Fraction, Fraction, Fraction]:
    """RTP, hit frequency and variance per credit by looping over every stop combination in pure Python."""

    def matches(element: str, symbol: str) -> bool:
        return symbol == "WILD" or element == "*" or symbol in SETS.get(element, {element})

    def line_win(symbols: list[str]) -> int:
        return max([credits for pattern, credits in pays.items()
                    if all(matches(e, s) for e, s in zip(pattern, symbols, strict=False))], default=0)

    totals = []
    for stops in itertools.product(*(range(len(reel)) for reel in REELS)):
        totals.append(sum(line_win([reel[(stop + row - 1) % len(reel)] for reel, stop, row in zip(REELS, stops, line,
                                                                                                  strict=True)])
                          for line in lines))
    count = len(totals)
    bet = len(lines)
    mean = Fraction(sum(totals), count * bet)
    second = Fraction(sum(t * t for t in totals), count * bet * bet)
    return mean, Fraction(sum(t > 0 for t in totals), count), second - mean * mean


@pytest.mark.parametrize("lines", [((1, 1, 1),), FIVE_LINES])
def test_theory_matches_brute_force(lines: tuple[tuple[int, ...], ...]) -> None:
    theory = theoretical_rtp(_machine(GENEROUS, lines))
    rtp, hits, variance = _naive_theory(GENEROUS, lines)
    assert theory.rtp_exact == rtp
    assert theory.hit_frequency == pytest.approx(float(hits), rel=1e-12)
    assert theory.variance == pytest.approx(float(variance), rel=1e-12)
    assert theory.combinations == 12**3
    assert theory.bet_per_play == len(lines)


def test_every_line_returns_the_same_on_average() -> None:
    """RTP is linear in the lines and every row shows each strip symbol equally often, so five lines
    return what one does; their wins are dependent, so hit frequency and variance differ."""
    one, five = theoretical_rtp(_machine(GENEROUS)), theoretical_rtp(_machine(GENEROUS, FIVE_LINES))
    assert five.rtp_exact == one.rtp_exact
    assert five.hit_frequency > one.hit_frequency
    assert five.variance < one.variance
    # two copies of the centre line go through stop enumeration and must agree with symbol counting
    doubled = theoretical_rtp(_machine(GENEROUS, ((1, 1, 1), (1, 1, 1))))
    assert "enumeration" in doubled.method and "symbol counts" in one.method
    assert doubled.rtp_exact == one.rtp_exact and doubled.variance == pytest.approx(one.variance)


def test_hand_computed_machine() -> None:
    """Three reels of ['7', 'X']: 777 with probability 1/8 paying 8 gives RTP 1, variance 64/8 − 1 = 7."""
    machine = SlotMachine([["7", "X"]] * 3, PayTable.from_mapping({("7", "7", "7"): 8}))
    theory = theoretical_rtp(machine)
    assert theory.rtp_exact == 1
    assert theory.hit_frequency == 0.125
    assert theory.variance == 7.0
    assert theory.win_counts == {Fraction(0): 7, Fraction(8): 1}


def test_fractional_pays_stay_exact() -> None:
    machine = SlotMachine([["7", "X"]] * 2, PayTable.from_mapping({("7",): 0.5, ("7", "7"): Fraction(7, 3)}))
    # P(7 on reel 1 only) = 1/4 pays 1/2; P(7 7) = 1/4 pays 7/3 (highest entry wins)
    assert theoretical_rtp(machine).rtp_exact == Fraction(1, 4) * Fraction(1, 2) + Fraction(1, 4) * Fraction(7, 3)


def test_simulated_play_matches_theory() -> None:
    """Mean win per credit of 400,000 simulated plays within 4 standard errors of the exact RTP
    (a correct simulator fails with probability 6e-5)."""
    machine = _machine(GENEROUS, FIVE_LINES)
    theory = theoretical_rtp(machine)
    wins = spin_wins(machine, random_stops(machine, np.random.default_rng(5), 400_000)) / machine.bet_per_play
    assert abs(wins.mean() - theory.rtp) < 4 * np.sqrt(theory.variance / wins.size)


def _play(pays: dict, plays: int, seed: int) -> tuple[np.ndarray, np.ndarray, object]:
    machine = _machine(pays)
    wins = spin_wins(machine, random_stops(machine, np.random.default_rng(seed), plays))
    return np.ones(plays), wins, theoretical_rtp(machine)


def test_generous_machine_passes_with_enough_plays() -> None:
    """RTP 90.4 %: plays_needed gives N with PASS probability 0.9; at 2N it is about 0.998."""
    declared = theoretical_rtp(_machine(GENEROUS))
    bets, wins, theory = _play(GENEROUS, 2 * plays_needed(declared.rtp, declared.variance), seed=11)
    result = rtp_floor_test(bets, wins, theory=theory)
    assert isinstance(result, TestResult)
    assert result.details["verdict"] == "PASS" and result.passed(0.01)
    assert result.details["lower_bound"] >= 0.80


def test_tight_machine_fails() -> None:
    """RTP 63.0 %: at 5,000 plays the upper bound is below 80 % with probability about 1 (17 sd)."""
    bets, wins, theory = _play(TIGHT, 5000, seed=12)
    for method in ("normal", "conservative"):
        result = rtp_floor_test(bets, wins, theory=theory, method=method)
        assert result.details["verdict"] == "FAIL"
        assert not result.passed(0.01)
    assert rtp_floor_test(bets, wins).details["verdict"] == "FAIL"  # with the sample variance


def test_few_plays_are_inconclusive_and_conservative_bounds_are_wider() -> None:
    """500 plays of the 90.4 % machine: standard error 0.15, so neither bound clears 80 % (probability
    about 0.99)."""
    bets, wins, theory = _play(GENEROUS, 500, seed=13)
    normal = rtp_floor_test(bets, wins, theory=theory)
    conservative = rtp_floor_test(bets, wins, theory=theory, method="conservative")
    assert normal.details["verdict"] == "INCONCLUSIVE" and normal.passed(0.01)
    assert conservative.details["lower_bound"] < normal.details["lower_bound"]
    assert conservative.details["upper_bound"] > normal.details["upper_bound"]


def test_false_fail_rate_at_the_floor() -> None:
    """A machine returning exactly 80 % (777 paying 6.4 on ['7','X'] reels) gets FAIL at alpha = 0.01
    in 300 runs of 2,000 plays no more than 9 times: Binomial(300, 0.01) exceeds 8 with probability
    0.004, so a correctly calibrated test fails this check that rarely."""
    machine = SlotMachine([["7", "X"]] * 3, PayTable.from_mapping({("7", "7", "7"): 6.4}))
    theory = theoretical_rtp(machine)
    assert theory.rtp_exact == Fraction(4, 5)
    rng = np.random.default_rng(14)
    wins = spin_wins(machine, random_stops(machine, rng, 300 * 2000)).reshape(300, 2000)
    fails = sum(rtp_floor_test(np.ones(2000), row, theory=theory).details["verdict"] == "FAIL" for row in wins)
    assert fails <= 8


def test_plays_needed_gives_the_stated_power() -> None:
    """At N = plays_needed the 90.4 % machine gets PASS in about 90 % of runs: 200 runs, the count is
    Binomial(200, 0.9) (sd 4.2), accepted within 160..193 (a correct formula fails with prob. < 0.001)."""
    theory = theoretical_rtp(_machine(GENEROUS))
    plays = plays_needed(theory.rtp, theory.variance)
    machine = _machine(GENEROUS)
    wins = spin_wins(machine, random_stops(machine, np.random.default_rng(15), 200 * plays)).reshape(200, plays)
    passes = sum(rtp_floor_test(np.ones(plays), row, theory=theory).details["verdict"] == "PASS" for row in wins)
    assert 160 <= passes <= 193


def test_variable_bets_weight_the_plays() -> None:
    bets = np.array([1.0, 3.0, 1.0, 5.0])
    wins = np.array([0.0, 6.0, 2.0, 0.0])
    result = rtp_floor_test(bets, wins)
    assert result.statistic == pytest.approx(8.0 / 10.0)


def test_consistency_with_the_pay_table() -> None:
    """Play of the tight machine checked against the generous machine's declared math: rejected
    (difference 0.27 at standard error 0.03); against its own math: accepted (probability 0.99)."""
    bets, wins, tight = _play(TIGHT, 20_000, seed=16)
    generous = theoretical_rtp(_machine(GENEROUS))
    assert not rtp_consistency_test(bets, wins, generous).passed(0.01)
    assert rtp_consistency_test(bets, wins, tight).passed(0.01)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: _machine({("7", "LEMON"): 5}), "symbols on no reel"),
        (lambda: _machine({("7", "7", "7", "7"): 5}), "longer than"),
        (lambda: _machine(GENEROUS, ((1, 1),)), "pay line"),
        (lambda: _machine(GENEROUS, ((1, 1, 3),)), "pay line"),
        (lambda: _machine({("7",): -1}), "non-negative"),
        (lambda: SlotMachine([[], ["7"]], PayTable.from_mapping({("7",): 1})), "at least one symbol"),
        (lambda: theoretical_rtp(_machine(GENEROUS, FIVE_LINES), max_combinations=1000), "max_combinations"),
        (lambda: rtp_floor_test([1, 1], [1, -1]), "non-negative"),
        (lambda: rtp_floor_test([1, 0], [1, 1]), "positive"),
        (lambda: rtp_floor_test([1, 1, 1], [1, 1]), "same length"),
        (lambda: rtp_floor_test([1, 1], [1, 1], method="conservative"), "needs the pay-table"),
        (lambda: rtp_floor_test([1, 1], [1, 1], alpha=0.7), "alpha"),
        (lambda: plays_needed(0.8, 10.0), "different from floor"),
    ],
)
def test_bad_input_raises(build, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build()
