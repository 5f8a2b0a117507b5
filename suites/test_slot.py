"""Certification suite: slot machines (máquinas automáticas, Portaria 217/2007) on SAS.

The machine is read through :class:`drivers.sas.SlotMachine` only: its identity and information
(long polls 1F and 54), its meters (2F, one consistent snapshot; and the single-meter polls), play
enabled and disabled (02, 01). The declared PAR sheet (``options.par``: reel strips, pay table,
denomination) is what was approved.

Return to player (p217-2007/maquinas-automaticas/2). The law sets the floor on the *design*: the
pay plan must return at least 80 % of the amounts played. That verdict rests on the exact
theoretical return of the declared strips and pay table (:func:`bench.games.slots.theoretical_rtp`;
no sampling, no error rate). Play cannot carry it: wins are so skewed that demonstrating 80 % from
play takes 10^5 to 10^7 plays. What play can check is that the machine plays the declared PAR sheet:
``options.plays`` games are played, the meters read before, during and after (each snapshot
committed to the journal as it is read), and the total won over n games is tested against the
PAR sheet's exact distribution of the total of n plays (H0: the machine pays as declared; two-sided,
at the profile's α). The measurement states its power against a machine returning 78 % and the
number of plays that test needs for 90 % power; below useful power it says it cannot tell the two
apart. The one-sided comparison of the measured return with 80 % is reported beside it, as
information only.

Meters (/9, /14): over the play the bet, win and drop meters must reconcile exactly: games won +
games lost = games played; coin in = games played x bet; credits gained = drop + coin out - coin in
- cancelled credits; no meter going backwards; every single-meter poll agrees with the snapshot. A
machine fed by one of the profile's power supplies is switched off and on with play disabled, and
every meter must come back unchanged. Identity (/10) and the approved model's characteristics (/8):
serial number, denomination, bet value, game and pay-table IDs and base percentage as declared.

Jackpot and superjackpot contributions (/3, /4) are judged by ``suites/test_progressive.py``, once
per progressive controller of the profile, with every machine it links (a superjackpot needs their
combined play); here the test only says where, or why they are NOT TESTED. The verdict of /2 above
is the base game's return, contributions excluded, as the law keeps them apart.

On a real machine ``enable_play`` only unlocks it: the operator (or the machine's test mode) plays
the games while the bench reads the meters.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from itertools import pairwise
from typing import Any

import pytest

from bench.evidence import RtpInterval
from bench.games.slots import RTP_FLOOR
from bench.profiles.slot import ParSheet
from drivers.sas import METER_NAMES
from fixtures.no_reads import NoReads
from fixtures.session import BenchSession
from rng_tests.fairness.slot_play import play_test

METERS_STREAM = "slot/meter-snapshots"
NO_READ_STREAM = "slot/no-reads"
"""Meter reads and play commands that failed within the driver's retry budget (fixtures.no_reads: at most 5 % of
the reads made, at least 1): a snapshot polled during play is then skipped, one before or after the play is
taken again."""
PLAY_NODEID = "suites/test_slot.py::play"
POLL_S = 0.25
SETTLE_S = 0.3
STALL_S = 15.0
SINGLE_METERS = ("coin_in", "coin_out", "drop", "jackpot", "games_played", "cancelled_credits", "current_credits")
MONOTONE = tuple(name for name in METER_NAMES if name != "current_credits")

pytestmark = pytest.mark.equipment("slot-machine")


def _par(slot_machine: Any) -> ParSheet:
    return slot_machine.equipment.options.par


# -- identity ------------------------------------------------------------------------------------


@pytest.mark.clause("p217-2007/maquinas-automaticas/8", "p217-2007/maquinas-automaticas/10")
def test_identity_and_bet_value(slot_machine: Any, measure: Any) -> None:
    """The machine reports the serial number, denomination and bet value, game and pay table, and base percentage
    of the approved model."""
    par = _par(slot_machine)
    identity = slot_machine.driver.identify()
    info = identity.info
    model, shown = ["p217-2007/maquinas-automaticas/8"], ["p217-2007/maquinas-automaticas/10"]
    measure("serial number", identity.serial, expected=slot_machine.equipment.identity.serial, clauses=shown,
            method="long poll 54 against the profile's identity")
    measure("denomination", identity.denomination_cents, unit="cents", expected=par.denomination_cents,
            clauses=shown, method="long poll 1F denomination code against the PAR sheet")
    measure("bet value per play", (identity.denomination_cents or 0) * identity.max_bet_credits, unit="cents",
            expected=par.bet_value_cents, clauses=shown,
            method="long poll 1F: maximum bet (credits) x denomination, against the PAR sheet's bet per play",
            details={"max_bet_credits": identity.max_bet_credits, "par_bet_per_play_credits": par.bet_per_play})
    measure("pay table ID", info.paytable_id, expected=par.paytable_id, clauses=model + shown,
            method="long poll 1F against the approved PAR sheet")
    measure("game ID", info.game_id, expected=par.game_id, clauses=model, method="long poll 1F")
    theory = par.theory.rtp * 100
    measure("base percentage", info.base_percent, unit="%", low=round(theory - 0.005, 4),
            high=round(theory + 0.005, 4), clauses=model,
            method="long poll 1F base percentage (2 decimals) against the PAR sheet's exact return",
            details={"par_return_percent": theory, "sas_version": identity.version.sas_version})


# -- return to player ----------------------------------------------------------------------------


@pytest.mark.clause("p217-2007/maquinas-automaticas/2")
def test_theoretical_return_is_at_least_80_percent(slot_machine: Any, measure: Any) -> None:
    """The exact return of the declared reel strips and pay table is at least 80 % (the verdict of /2)."""
    par = _par(slot_machine)
    theory = par.theory
    measure("theoretical return to player of the declared PAR sheet", round(theory.rtp, 8), low=RTP_FLOOR,
            method=f"{theory.method}: exact over {theory.combinations:,} equally likely stop combinations",
            details={"rtp_exact": str(theory.rtp_exact), "hit_frequency": theory.hit_frequency,
                     "variance_per_credit": theory.variance, "max_win_per_credit": theory.max_win_per_credit,
                     "paytable_id": par.paytable_id, "bet_per_play_credits": par.bet_per_play,
                     "verdict_rests_on": "the exact theory; the play test checks the machine plays this PAR sheet"})


@pytest.fixture(scope="module")
def play(bench: BenchSession, slot_machine: Any) -> list[dict[str, Any]]:
    """``options.plays`` games, the meters read before (play disabled), every ``POLL_S`` during, and after (play
    disabled again); each snapshot committed as it is read, so a resumed run continues the same play."""
    options = slot_machine.equipment.options
    driver = slot_machine.driver
    stream = bench.stream(METERS_STREAM, PLAY_NODEID)
    no_reads = slot_no_reads(bench, slot_machine)

    def snapshot(phase: str) -> dict[str, Any]:
        value = {"phase": phase, **asdict(driver.meters())}
        stream.record(value, source=slot_machine.name)
        return value

    if not stream.count:
        no_reads.surely(driver.disable_play)
        time.sleep(SETTLE_S)  # a game under way ends
        no_reads.surely(lambda: snapshot("before"))
    rows = stream.values()
    if rows[-1]["phase"] != "after":
        target = rows[0]["games_played"] + options.plays
        progress = bench.stream_progress("slot games", options.plays,
                                         rows[-1]["games_played"] - rows[0]["games_played"])
        last, moved = rows[-1]["games_played"], time.monotonic()
        no_reads.surely(driver.enable_play)
        while last < target:
            time.sleep(POLL_S)
            polled = no_reads.polled(lambda: snapshot("during"), phase="during")  # a lost one: counted, skipped
            games = last if polled is None else polled["games_played"]
            if games != last:
                progress.advance(min(games, target) - min(last, target))
                last, moved = games, time.monotonic()
            elif time.monotonic() - moved > STALL_S:
                no_reads.surely(driver.disable_play)
                raise RuntimeError(f"the machine played no game for {STALL_S:g} s with play enabled "
                                   f"({last - rows[0]['games_played']} of {options.plays} played)")
        no_reads.surely(driver.disable_play)
        time.sleep(SETTLE_S)
        no_reads.surely(lambda: snapshot("after"))
    return stream.values()


def slot_no_reads(bench: BenchSession, slot_machine: Any) -> NoReads:
    """The no-reads of the play's meter reads and play commands (their bound grows with the reads made)."""
    return NoReads(bench, NO_READ_STREAM, PLAY_NODEID, 0, slot_machine.name, "meter reads")


def _no_read_details(bench: BenchSession, slot_machine: Any) -> dict[str, Any]:
    """The play's no-reads for a measurement's details (their bound is the share of the snapshots taken)."""
    no_reads = slot_no_reads(bench, slot_machine)
    no_reads.planning(bench.stream(METERS_STREAM, PLAY_NODEID).count + no_reads.count)
    return no_reads.details()


def _delta(rows: list[dict[str, Any]], name: str) -> int:
    return rows[-1][name] - rows[0][name]


@pytest.mark.clause("p217-2007/maquinas-automaticas/2")
def test_play_matches_the_par_sheet(slot_machine: Any, play: list[dict[str, Any]], bench: BenchSession,
                                    measure: Any) -> None:
    """The return measured from the meters over ``options.plays`` games agrees with the declared PAR sheet."""
    options = slot_machine.equipment.options
    par = options.par
    games = _delta(play, "games_played")
    won = _delta(play, "coin_out") + _delta(play, "jackpot")
    result = play_test(par.theory, par.credits_per_line, games, won, options.alpha)
    coin_in = _delta(play, "coin_in")
    measure("measured return to player against the PAR sheet", round(result["rtp"], 6), p_value=result["p_value"],
            alpha=options.alpha, sample_size=games, power=round(result["power"], 4),
            method=("meters before and after the play: return = (coin out + jackpot) / (games played x bet per "
                    "play); H0: the machine pays as its PAR sheet, two-sided"),
            details=result["details"] | {"return_on_coin_in_meter": won / coin_in if coin_in else None}
            | _no_read_details(bench, slot_machine),
            series=[RtpInterval(rtp=result["details"]["rtp"], low=result["details"]["lower_bound"],
                                high=result["details"]["upper_bound"], floor=result["details"]["floor"])])


# -- meters --------------------------------------------------------------------------------------


@pytest.mark.clause("p217-2007/maquinas-automaticas/9", "p217-2007/maquinas-automaticas/14")
def test_meters_reconcile_with_the_play(slot_machine: Any, play: list[dict[str, Any]], measure: Any) -> None:
    """Bet, win and drop meters account exactly for every game played; single-meter polls agree with the snapshot."""
    par = _par(slot_machine)
    games = _delta(play, "games_played")
    deltas = {name: _delta(play, name) for name in METER_NAMES}
    common = {"sample_size": games, "details": {"meter_changes": deltas, "snapshots": len(play)}}
    method = "2F meter snapshots with play disabled, before and after the play"
    measure("games won + games lost - games played", deltas["games_won"] + deltas["games_lost"] - games,
            unit="games", expected=0, method=method, **common)
    measure("coin in - games played x bet per play", deltas["coin_in"] - games * par.bet_per_play, unit="credits",
            expected=0, method=method + f"; fixed bet of {par.bet_per_play} credit(s) per play", **common)
    balance = deltas["drop"] + deltas["coin_out"] - deltas["coin_in"] - deltas["cancelled_credits"]
    measure("credits gained - (drop + coin out - coin in - cancelled credits)", deltas["current_credits"] - balance,
            unit="credits", expected=0, method=method + "; hand-paid jackpots never enter the credits", **common)
    backwards = [{"snapshot": number, "meter": name, "from": before[name], "to": after[name]}
                 for number, (before, after) in enumerate(pairwise(play), start=1)
                 for name in MONOTONE if after[name] < before[name]]
    measure("meters going backwards during the play", len(backwards), unit="steps", high=0, sample_size=len(play),
            method=f"every 2F snapshot (every {POLL_S:g} s) against the one before",
            details={"first": backwards[:20]})
    final = play[-1]
    single = {name: slot_machine.driver.meter(name) for name in SINGLE_METERS}
    differing = {name: {"single_poll": value, "snapshot": final[name]} for name, value in single.items()
                 if value != final[name]}
    measure("single-meter polls differing from the last snapshot", len(differing), unit="meters", expected=0,
            sample_size=len(single), method="long polls 10-15 and 1A with play disabled, against the last 2F",
            details={"differing": differing})


@pytest.mark.clause("p217-2007/maquinas-automaticas/3", "p217-2007/maquinas-automaticas/4")
def test_jackpot_and_superjackpot_contributions(slot_machine: Any, bench: BenchSession) -> None:
    """Jackpot and superjackpot grow by the declared percentage of the amounts played on the machine: judged by the
    progressive suite (``suites/test_progressive.py``) with the controller and every machine it links."""
    par = _par(slot_machine)
    if par.progressive_contribution_percent == 0:
        pytest.skip(f"the declared PAR sheet {par.paytable_id} contributes to no jackpot or superjackpot "
                    "(progressive_contribution_percent = 0): nothing to test")
    linking = [name for name, item in bench.profile.of_kind("progressive-controller").items()
               if slot_machine.name in item.options.machines]
    if linking:
        pytest.skip(f"contributions of {par.progressive_contribution_percent:g} % to progressive group "
                    f"{par.progressive_group} are judged by the progressive suite (suites/test_progressive.py) on "
                    f"controller {', '.join(linking)}")
    pytest.skip(f"the PAR sheet declares {par.progressive_contribution_percent:g} % to progressive group "
                f"{par.progressive_group}, but no progressive controller of the profile links this machine: "
                "contributions NOT TESTED")


@pytest.mark.clause("p217-2007/maquinas-automaticas/9", "p217-2007/maquinas-automaticas/14")
def test_meters_survive_a_power_cycle(slot_machine: Any, play: list[dict[str, Any]], rig: Any, measure: Any,
                                      attach: Any) -> None:
    """Switched off and on by its power supply with play disabled, the machine comes back with every meter unchanged.

    Run after the play: the cycle reboots every device on the same supply output."""
    del play  # the meters hold the play's counts when the power is cut
    name = slot_machine.name
    supply_name = rig.power.supply_name_for(name)
    if supply_name is None:
        pytest.skip(f"no power supply of the profile feeds {name!r}: meter retention over a power cycle NOT TESTED")
    driver = slot_machine.driver
    driver.disable_play()
    before = asdict(driver.meters())
    check = rig.power_cycle(name)
    supply = rig.power.supply(supply_name)
    attach(supply.wire_log, f"{supply_name} wire log (power cycle)", "application/jsonl")
    if not check.went_dark:
        pytest.fail(f"the machine kept answering while {supply_name!r} reported its output off: the bench did not "
                    "cut its power, so retention was not tested", pytrace=False)
    context = {"supply": supply_name, "supply_identity": asdict(supply.reported), "off_s": supply.instrument.off_s}
    measure("machine answering again after the power cycle", check.came_back, expected=True,
            method="long polls 1F and 54 polled after the output came on", details=context)
    if not check.came_back:
        return
    driver.disable_play()  # a machine that forgot it was locked out must not play on
    after = asdict(driver.meters())
    changed = {meter: {"before": before[meter], "after": after[meter]} for meter in METER_NAMES
               if before[meter] != after[meter]}
    measure("meters changed by the power cycle", len(changed), unit="meters", expected=0, sample_size=len(before),
            method="2F snapshot with play disabled before switching the output off and after it came back on",
            details=context | {"changed": changed, "before": before})
