"""Certification suite: table-game jackpot controllers and their displays (póquer sem descarte, blackjack).

The controller is driven through :class:`drivers.jackpot.JackpotController`; every check is exact
(whole cents), so no verdict here is statistical and none has an error rate.

* Approved settings (p461-2001/poquer-sem-descarte/3 and /8; p217-2007/blackjack/40): the game, the
  jackpot bet and each level's increment percentage the controller declares are the approved ones
  (the profile's ``options``).
* Start value (p461-2001/poquer-sem-descarte/10; p217-2007/blackjack/44): each level starts at
  10,000 jackpot bets or more (:data:`bench.games.poquer_sem_descarte.START_MULTIPLE`).
* Increments (/3, /8; blackjack/40): ``options.bets`` jackpot bets are registered, each committed to
  the journal with every level's value before and after it and what the display shows. The pool is
  kept in fractions of a cent, so after bets of contributions c_1..c_k from a shown value V the shown
  value must be floor(V + f + c_1 + ... + c_k) for one fraction f in [0, 1) carried from before (the
  fraction a display cannot show). A bet whose value no such f explains departs from the approved
  percentage: a cent lost or gained, counted; the check restarts from it.
* Display (p461-2001/poquer-sem-descarte/4; p217-2007/blackjack/41): after every bet the display
  shows the value the controller holds, to the cent.
* Prize rules (p461-2001/poquer-sem-descarte/9 and /12): the controller's pay table is the one of
  clause 9, and rounds of winning hands (one prize; several prizes, smallest first; a shared
  straight flush; a royal flush after smaller prizes; three royal flushes sharing the pool) are
  paid as the independent oracle :func:`bench.games.poquer_sem_descarte.settle_jackpot` pays them.
  These rounds pay real prizes out of the pool: run them on a controller in test mode. A blackjack
  controller's table is the concession's (blackjack/43): it is compared with the approved table and
  its rounds are NOT TESTED (the bench has no independent blackjack jackpot oracle yet).
* Power (the pool is held for the players until won): a controller fed by one of the profile's
  power supplies is switched off and on (:meth:`bench.rig.Rig.power_cycle`, checked through the
  controller's own replies); every level's value and the meters must survive.
"""

from __future__ import annotations

from dataclasses import asdict
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from bench.evidence import JackpotPath
from bench.games.poker_hands import Category
from bench.games.poquer_sem_descarte import JACKPOT_P461, START_MULTIPLE, PrizeBasis, settle_jackpot
from drivers.jackpot import Hit
from fixtures.no_reads import NoReads
from fixtures.session import BenchSession, ObservationStream, collect_observations

BETS_STREAM = "jackpot/bets"
BETS_NODEID = "suites/test_jackpot.py::bets"
NO_READ_STREAM = "jackpot/no-reads"
"""Bets whose values, registration or display the driver could not read within its retry budget
(fixtures.no_reads: at most 5 % of the planned bets, at least 1)."""
ROUNDS_STREAM = "jackpot/prize-rounds"
ROUNDS_NODEID = "suites/test_jackpot.py::test_prize_rounds"

P461 = "p461-2001/poquer-sem-descarte"
P217 = "p217-2007/poquer-sem-descarte"
"""Portaria 217/2007 repeats the jackpot bet, increment, display and start-value rules of 461/2001 under the
same numbers (3, 4, 8, 10): a verdict on one is a verdict on both. Its prize rules differ (/9: combinations and
ratios approved per concession; /12: every combination shared), so the prize checks cite 461/2001 only."""
CLAUSES: dict[str, dict[str, list[str]]] = {
    "poquer-sem-descarte": {"increment": [f"{P461}/3", f"{P461}/8", f"{P217}/3", f"{P217}/8"],
                            "display": [f"{P461}/4", f"{P217}/4"], "start": [f"{P461}/10", f"{P217}/10"],
                            "prizes": [f"{P461}/9"], "sharing": [f"{P461}/12"]},
    "blackjack": {"increment": ["p217-2007/blackjack/40"], "display": ["p217-2007/blackjack/41"],
                  "start": ["p217-2007/blackjack/44"], "prizes": ["p217-2007/blackjack/43"],
                  "sharing": ["p217-2007/blackjack/50"]},
}
INCREMENT = (f"{P461}/3", f"{P461}/8", f"{P217}/3", f"{P217}/8", "p217-2007/blackjack/40")
DISPLAY = (f"{P461}/4", f"{P217}/4", "p217-2007/blackjack/41")

ROUNDS: tuple[tuple[str, dict[int, Category], int], ...] = (
    ("one flush", {3: Category.FLUSH}, 0),
    ("full house and four of a kind, smallest paid first", {2: Category.FULL_HOUSE, 5: Category.FOUR_OF_A_KIND}, 0),
    ("two straight flushes sharing 10 % of the pool", {1: Category.STRAIGHT_FLUSH, 4: Category.STRAIGHT_FLUSH}, 1),
    ("royal flush after a flush and a straight flush",
     {1: Category.FLUSH, 2: Category.STRAIGHT_FLUSH, 6: Category.ROYAL_FLUSH}, 0),
    ("three royal flushes sharing the pool", {1: Category.ROYAL_FLUSH, 3: Category.ROYAL_FLUSH,
                                              7: Category.ROYAL_FLUSH}, 1),
)
"""Each round: its name, the winning hands by seat, and the jackpot bets registered just before it (so that the
pool holds cents that do not divide among the sharing winners)."""
ROUND_LEVEL = 1
RETENTION_BETS = 10
"""Jackpot bets registered just before the power cycle, so that every pool holds contributions when it is cut."""

pytestmark = pytest.mark.equipment("jackpot-display")


def _game(jackpot_display: Any) -> str:
    return jackpot_display.equipment.options.game


def _clauses(jackpot_display: Any, what: str) -> list[str]:
    return CLAUSES[_game(jackpot_display)][what]


def _fraction(percent: Decimal) -> Fraction:
    return Fraction(str(percent))


@pytest.mark.clause(*INCREMENT)
def test_configuration_is_the_approved_one(jackpot_display: Any, measure: Any) -> None:
    """The game, jackpot bet and each level's increment percentage the controller declares are the approved ones."""
    options = jackpot_display.equipment.options
    driver = jackpot_display.driver
    configuration = driver.configuration()
    levels = driver.levels()
    clauses = _clauses(jackpot_display, "increment")
    method = "controller's CONF and LEVEL replies against the approved setup (profile options)"
    measure("game the controller is set up for", configuration.game, expected=options.game, clauses=clauses,
            method=method)
    measure("jackpot bet", configuration.jackpot_bet_cents, unit="cents", expected=options.jackpot_bet_cents,
            clauses=clauses, method=method)
    measure("jackpot levels", configuration.levels, unit="levels", expected=len(options.levels), clauses=clauses,
            method=method)
    for state, approved in zip(levels, options.levels, strict=False):
        measure(f"level {state.level} increment percentage", format(state.increment_percent, "f"),
                expected=format(approved.percent, "f"), clauses=clauses, method=method,
                details={"approved_start_cents": approved.start_cents, "declared_start_cents": state.start_cents})


@pytest.mark.clause(f"{P461}/10", f"{P217}/10", "p217-2007/blackjack/44")
def test_start_value_is_at_least_10000_jackpot_bets(jackpot_display: Any, measure: Any) -> None:
    """Every level's start (reset) value is at least 10,000 times the jackpot bet."""
    driver = jackpot_display.driver
    bet = driver.configuration().jackpot_bet_cents
    approved = jackpot_display.equipment.options.levels
    for state in driver.levels():
        details: dict[str, Any] = {"jackpot_bet_cents": bet, "multiple": str(Fraction(state.start_cents, bet))}
        if state.level <= len(approved):
            details["approved_start_cents"] = approved[state.level - 1].start_cents
        measure(f"level {state.level} start value", state.start_cents, unit="cents", low=START_MULTIPLE * bet,
                clauses=_clauses(jackpot_display, "start"), details=details,
                method=f"start value the controller declares (LEVEL) against {START_MULTIPLE:,} x the jackpot bet "
                       "it is set up for (CONF)")


# -- jackpot bets --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bets(bench: BenchSession, jackpot_display: Any) -> ObservationStream:
    """``options.bets`` jackpot bets, each committed with every level's value before and after it and the display."""
    options = jackpot_display.equipment.options
    driver = jackpot_display.driver
    count = driver.configuration().levels

    no_reads = NoReads(bench, NO_READ_STREAM, BETS_NODEID, options.bets, jackpot_display.name, "bets")

    def bet_once() -> dict[str, Any]:
        before = driver.values().values
        after = driver.register_bet(options.jackpot_bet_cents, options.table)
        shown = [driver.display(level) for level in range(1, count + 1)]
        return {"amount": options.jackpot_bet_cents, "before": list(before), "after": list(after),
                "display": [reading.amount_cents for reading in shown],
                "display_text": [reading.text for reading in shown]}

    def one_bet() -> tuple[dict[str, Any], str, str | None]:
        # a bet whose values, registration or display could not be read is a counted no-read: the next bet reads
        # its own "before" afresh, so a bet registered without its reply is never misattributed
        return no_reads.taking(bet_once)(), jackpot_display.name, None

    return collect_observations(bench, BETS_STREAM, BETS_NODEID, options.bets, one_bet, "jackpot bets")


def exact_keeping_departures(rows: list[dict[str, Any]], index: int, percent: Fraction) -> dict[str, Any]:
    """Bets of level ``index`` whose shown value no exact keeping of the fraction of a cent explains.

    H0: the controller adds exactly ``percent`` % of every bet and keeps the fraction of a cent, so from a
    shown value V (hiding a fraction f in [0, 1)) the value after contributions C is floor(V + f + C). Every
    bet narrows the interval of the f that explain the chain; an empty interval is a departure, and the chain
    restarts from that bet's value. A value that changed between two bets (a run resumed after a bet was sent
    but not journalled) restarts the chain too, without counting.
    """
    departures: list[int] = []
    restarts = 0
    anchor: int | None = None
    previous: int | None = None
    accrued, low, high = Fraction(0), Fraction(0), Fraction(1)
    for number, row in enumerate(rows, start=1):
        before, after = row["before"][index], row["after"][index]
        if anchor is None or before != previous:
            restarts += previous is not None
            anchor, accrued, low, high = before, Fraction(0), Fraction(0), Fraction(1)
        accrued += Fraction(row["amount"]) * percent / 100
        gap = after - anchor - accrued
        low, high = max(low, gap), min(high, gap + 1)
        if low >= high:
            departures.append(number)
            anchor, accrued, low, high = after, Fraction(0), Fraction(0), Fraction(1)
        previous = after
    contributed = sum(Fraction(row["amount"]) * percent / 100 for row in rows)
    gained = sum(row["after"][index] - row["before"][index] for row in rows)
    return {"departures": departures, "chain_restarts": restarts, "contributed_cents": float(contributed),
            "gained_cents": gained, "drift_cents": float(gained - contributed)}


@pytest.mark.clause(*INCREMENT)
def test_every_bet_adds_the_approved_percentage(jackpot_display: Any, bets: ObservationStream, bench: BenchSession,
                                               measure: Any) -> None:
    """Every jackpot bet adds the approved percentage of it to every level, to the cent (fractions kept).

    The percentage is the approved one (a controller declaring another fails the configuration test)."""
    rows = bets.values()
    approved_levels = jackpot_display.equipment.options.levels
    for index in range(min(len(approved_levels), len(rows[0]["after"]))):
        approved = approved_levels[index].percent
        percent = _fraction(approved)
        found = exact_keeping_departures(rows, index, percent)
        departures = found.pop("departures")
        measure(f"level {index + 1}: bets departing from {float(percent):g} % of the bet", len(departures),
                unit="bets", high=0, clauses=_clauses(jackpot_display, "increment"), sample_size=len(rows),
                method=("value before and after each BET (VAL, ACK) against floor(V + f + contributions), one "
                        "carried fraction of a cent f in [0, 1) per chain of bets; exact arithmetic"),
                details=found | {"percent": format(approved, "f"), "first_departures": departures[:20],
                                 "no_read_bets": bench.stream(NO_READ_STREAM, BETS_NODEID).count},
                series=[_series(rows, index, approved)])


def _series(rows: list[dict[str, Any]], index: int, percent: Decimal) -> JackpotPath:
    """What the certificate's jackpot plot draws: the displayed value against the cumulative amount bet (thinned to
    at most 500 points), from the value before the first bet."""
    step = max(1, len(rows) // 500)
    bets = np.cumsum([0] + [row["amount"] for row in rows]).tolist()
    values = [rows[0]["before"][index]] + [row["display"][index] if row["display"][index] is not None
                                           else row["after"][index] for row in rows]
    return JackpotPath(bets_cents=bets[::step], value_cents=values[::step], start_cents=rows[0]["before"][index],
                       increment_percent=float(percent))


@pytest.mark.clause(*DISPLAY)
def test_display_shows_the_controller_value(jackpot_display: Any, bets: ObservationStream, bench: BenchSession,
                                           measure: Any) -> None:
    """After every bet the display shows, to the cent, the value the controller holds for every level."""
    rows = bets.values()
    levels = len(rows[0]["after"]) if rows else 0
    for index in range(levels):
        wrong = [{"bet": number, "controller": row["after"][index], "display": row["display"][index],
                  "text": row["display_text"][index]}
                 for number, row in enumerate(rows, start=1) if row["display"][index] != row["after"][index]]
        measure(f"level {index + 1}: bets after which the display differs from the controller", len(wrong),
                unit="bets", high=0, clauses=_clauses(jackpot_display, "display"), sample_size=len(rows),
                method="display read back (DISP, amount parsed from its text) after each BET, against the ACK value",
                details={"first_differences": wrong[:20],
                         "no_read_bets": bench.stream(NO_READ_STREAM, BETS_NODEID).count})


# -- prize rules ---------------------------------------------------------------------------------


_BASIS_KIND = {PrizeBasis.REMAINDER: "REMAINDER", PrizeBasis.POOL_PERCENT: "PERCENT",
               PrizeBasis.BET_MULTIPLE: "MULTIPLE"}


@pytest.mark.clause(f"{P461}/9", f"{P461}/12", "p217-2007/blackjack/43")
def test_pay_table(jackpot_display: Any, measure: Any) -> None:
    """The controller's jackpot pay table: the one of p461-2001/poquer-sem-descarte/9 (sharing of /12), or for
    blackjack the approved table (blackjack/43; the payment order of /50 needs rounds, NOT TESTED for blackjack)."""
    table = jackpot_display.driver.pay_table()
    applied = [(prize.hand, prize.kind.value, str(prize.value)) for prize in table.prizes]
    shared = [(prize.hand, prize.shared) for prize in table.prizes]
    sharing = _clauses(jackpot_display, "sharing")
    if _game(jackpot_display) == "poquer-sem-descarte":
        source = "the table of p461-2001/poquer-sem-descarte/9 and the sharing of /12 (bench.games oracle)"
        expected = [(prize.combination.value, _BASIS_KIND[prize.basis], str(prize.value))
                    for prize in JACKPOT_P461.prizes]
        expected_shared = [(prize.combination.value, prize.shared) for prize in JACKPOT_P461.prizes]
    else:
        source = "the approved table (profile options.pay_table)"
        approved = jackpot_display.equipment.options.prize_table()
        expected = [(prize.hand, prize.kind.value, str(prize.value)) for prize in approved.prizes]
        expected_shared = [(prize.hand, prize.shared) for prize in approved.prizes]
        sharing = _clauses(jackpot_display, "prizes")  # the concession's sharing flags: part of its approved table
    measure("jackpot prizes (hand, kind, value), top first", _render(applied), expected=_render(expected),
            clauses=_clauses(jackpot_display, "prizes"), method=f"controller's PAYTABLE reply against {source}")
    measure("prizes shared among several winners", _shared_hands(shared), expected=_shared_hands(expected_shared),
            clauses=sharing, method=f"controller's PAYTABLE reply against {source}")


def _render(entries: list[tuple[Any, ...]]) -> str:
    return "; ".join(":".join(str(part) for part in entry) for entry in entries)


def _shared_hands(entries: list[tuple[str, bool]]) -> str:
    """The hands whose prize is shared among several winners, top first ("-" for none): a list of hand names
    reads the same in either language of the certificate, where True/False would not."""
    return "; ".join(hand for hand, shared in entries if shared) or "-"


@pytest.mark.clause(f"{P461}/9", f"{P461}/12")
def test_prize_rounds(jackpot_display: Any, bench: BenchSession, measure: Any) -> None:
    """Rounds of winning hands paid as p461-2001/poquer-sem-descarte/9 and /12 say, to the cent and in order."""
    if _game(jackpot_display) != "poquer-sem-descarte":
        pytest.skip("the bench has no independent oracle of a blackjack jackpot table (the concession's, "
                    "p217-2007/blackjack/43): rounds NOT TESTED")
    options = jackpot_display.equipment.options
    driver = jackpot_display.driver

    def one_round(number: int) -> dict[str, Any]:
        name, hands, bets_first = ROUNDS[number]
        for _ in range(bets_first):
            driver.register_bet(options.jackpot_bet_cents, options.table)
        pool = driver.values().values[ROUND_LEVEL - 1]
        start = driver.levels()[ROUND_LEVEL - 1].start_cents
        paid = driver.report_hit([Hit(seat, hand.value) for seat, hand in sorted(hands.items())], ROUND_LEVEL)
        value_after = driver.values().values[ROUND_LEVEL - 1]
        value = {"round": name, "hands": {str(seat): hand.value for seat, hand in hands.items()}, "pool": pool,
                 "start": start, "value_after": value_after, "pool_before": paid.pool_before_cents,
                 "pool_after": paid.pool_after_cents,
                 "paid": [asdict(payout) for payout in paid.payouts]}
        return value

    rounds = bench.stream(ROUNDS_STREAM, ROUNDS_NODEID)  # a resumed run continues with the next round
    progress = bench.stream_progress("prize rounds", len(ROUNDS), rounds.count)
    while rounds.count < len(ROUNDS):
        rounds.record(one_round(rounds.count), source=jackpot_display.name)
        progress.advance()
    bet = driver.configuration().jackpot_bet_cents
    for row in rounds.values():
        hands = {int(seat): Category(hand) for seat, hand in row["hands"].items()}
        oracle = settle_jackpot(row["pool"], bet, row["start"], hands)
        expected = {"payments": [[payment.seat, payment.combination.value, payment.cents, payment.short]
                                 for payment in oracle.payments],
                    "pool_before": oracle.pool_before, "pool_after": oracle.pool_after}
        observed = {"payments": [[payout["seat"], payout["hand"], payout["amount_cents"], payout["short"]]
                                 for payout in row["paid"]],
                    "pool_before": row["pool_before"], "pool_after": row["pool_after"]}
        several = len(hands) > 1
        clauses = _clauses(jackpot_display, "prizes") + (_clauses(jackpot_display, "sharing") if several else [])
        measure(f"round '{row['round']}' paid as the rules say", observed == expected, expected=True,
                clauses=clauses, sample_size=len(hands),
                method=("controller's PAID (payments in order, pool before and after) against "
                        "bench.games.poquer_sem_descarte.settle_jackpot from the pool read before the round and "
                        "the start value the controller declares"),
                details={"observed": observed, "expected": expected, "value_read_after": row["value_after"]})
        measure(f"round '{row['round']}': value after equals the pool the controller reports", row["value_after"],
                unit="cents", expected=row["pool_after"], clauses=_clauses(jackpot_display, "prizes"),
                method="VAL after the round against the pool after in PAID")


# -- power ---------------------------------------------------------------------------------------


@pytest.mark.clause(*INCREMENT, *DISPLAY)
def test_values_survive_a_power_cycle(jackpot_display: Any, rig: Any, measure: Any, attach: Any) -> None:
    """Switched off and on by its power supply, the controller keeps every level's value, its meters and its display.

    Run last: the cycle reboots every device on the same supply output."""
    name = jackpot_display.name
    supply_name = rig.power.supply_name_for(name)
    if supply_name is None:
        pytest.skip(f"no power supply of the profile feeds {name!r}: retention over a power cycle NOT TESTED")
    options = jackpot_display.equipment.options
    driver = jackpot_display.driver
    levels = driver.configuration().levels
    for _ in range(RETENTION_BETS):  # the pools hold players' contributions, not only their start values
        driver.register_bet(options.jackpot_bet_cents, options.table)
    before, status_before = driver.values().values, driver.status()
    check = rig.power_cycle(name)
    supply = rig.power.supply(supply_name)
    attach(supply.wire_log, f"{supply_name} wire log (power cycle)", "application/jsonl")
    if not check.went_dark:
        pytest.fail(f"the controller kept answering while {supply_name!r} reported its output off: the bench did "
                    "not cut its power, so retention was not tested", pytrace=False)
    context = {"supply": supply_name, "supply_identity": asdict(supply.reported),
               "off_s": supply.instrument.off_s, "went_dark": check.went_dark}
    measure("controller answering again after the power cycle", check.came_back, expected=True,
            clauses=_clauses(jackpot_display, "increment"), method="identify (ID?) polled after the output came on",
            details=context)
    if not check.came_back:
        return
    after, status_after = driver.values().values, driver.status()
    meters = {"before": _meters(status_before), "after": _meters(status_after)}
    for level in range(1, levels + 1):
        measure(f"level {level} value after the power cycle", after[level - 1], unit="cents",
                expected=before[level - 1], clauses=_clauses(jackpot_display, "increment"),
                method="VAL read before switching the output off and after it came back on",
                details=context | {"meters": meters})
        shown = driver.display(level).amount_cents
        measure(f"level {level} display after the power cycle", shown, unit="cents", expected=after[level - 1],
                clauses=_clauses(jackpot_display, "display"), method="DISP read back against VAL after the cycle")
    measure("meters after the power cycle", _render([tuple(meters["after"].values())]),
            expected=_render([tuple(meters["before"].values())]), clauses=_clauses(jackpot_display, "increment"),
            method="STATUS (bets, bet total, hits, paid total) before and after the cycle", details=meters)


def _meters(status: Any) -> dict[str, int]:
    return {"bets": status.bets, "bet_total_cents": status.bet_total_cents, "hits": status.hits,
            "paid_total_cents": status.paid_total_cents}

