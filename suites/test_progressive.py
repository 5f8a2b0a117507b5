"""Certification suite: jackpot and superjackpot contributions of linked slot machines (Portaria 217/2007).

Without affecting the 80 % return of p217-2007/maquinas-automaticas/2, a **jackpot** may be built
by automatically deducting a set percentage of the amounts played on a machine (/3), and machines
of one or several casinos may be linked to build a collective **superjackpot** from a set
percentage of the amounts played on all of them (/4). The profile's progressive controller
(``kind = "progressive-controller"``) declares each level: kind, start value, contribution
percentage, rounding, and the slot machines feeding it; each machine's PAR sheet declares the
progressive group and the total percentage it contributes (the profile refuses a mismatch).

Method (once per controller, the first of the profile, with all its feeding machines): the bench
reads each feeding machine's coin in (SAS long poll 2F, play disabled and settled) and then the
levels from the controller's broadcasts (0x80 / 0x86, :class:`drivers.sas_progressive.SasProgressiveListener`),
letting ``settle_broadcasts`` broadcasts pass after the meter reads so the controller has seen them;
it lets every feeding machine play ``options.plays`` games, disables play, and reads the coin in and
the levels again the same way. For each level, H0: growth shown = contribution % x coin-in growth
of its feeders, in cents (a jackpot: its one machine; a superjackpot: the **sum** over every linked
machine), within the level's declared rounding:

* ``carry-fraction``: |growth - contribution % x coin in| < 1 cent, so the growth (whole cents) must
  lie in [floor(E), ceil(E)] where E is the exact contribution;
* ``truncate-per-wager``: each wager may lose less than a cent, so the growth must lie in
  [floor(E - W) + 1, floor(E)] over W wagers.

The arithmetic is exact (``fractions.Fraction`` of the declared decimal percentage, the meters in
credits x the denomination in cents): no sampling, no error rate, no float in the verdict. A
controller that skims part of the percentage, loses the fractions of a cent beyond its declared
rounding, or leaves one linked machine's play out of the superjackpot fails its level's clause.
A level hit (won) during the test would also fail it: on real equipment run it with no winner.

Contributions are judged here, apart from the return to player: the verdict of /2 in
``suites/test_slot.py`` stays the base game's return (pay table and reel strips, contributions
excluded), as the law keeps the two separate. On a real link ``enable_play`` only unlocks the
machines: the operator (or their test mode) plays the games while the bench reads.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from bench.profiles.progressive import ProgressiveControllerEquipment, ProgressiveLevel
from bench.profiles.slot import SlotMachineEquipment
from drivers.sas_progressive import SasProgressiveListener
from fixtures.no_reads import NoReads
from fixtures.session import BenchSession

JACKPOT, SUPERJACKPOT = "p217-2007/maquinas-automaticas/3", "p217-2007/maquinas-automaticas/4"
POLL_S = 0.1
SETTLE_S = 0.3
STALL_S = 15.0
NO_READ_STREAM = "progressive/no-reads"
"""Meter reads and play commands of the feeding machines that failed within their driver's retry budget
(fixtures.no_reads: at most 5 % of the reads made, at least 1): a poll during play is skipped, a read before or
after play taken again."""
PLAY_NODEID = "suites/test_progressive.py::contribution_play"

pytestmark = pytest.mark.equipment("progressive-controller")


@dataclass(frozen=True)
class Reading:
    """The feeding machines' meters (play disabled) and the levels broadcast after them."""

    meters: dict[str, dict[str, int]]
    levels: dict[int, int]


@dataclass(frozen=True)
class ContributionPlay:
    """What the contribution tests judge: the controller, its machines' PAR data, readings before and after play."""

    name: str
    controller: ProgressiveControllerEquipment
    denominations: dict[str, int]
    before: Reading
    after: Reading
    broadcasts: int
    crc_errors: int
    no_reads: dict[str, Any]


def _read(bench: BenchSession, controller: ProgressiveControllerEquipment, listener: SasProgressiveListener,
          no_reads: NoReads) -> Reading:
    machines = controller.options.machines
    for name in machines:
        no_reads.surely(bench.rig.device(name).driver.disable_play)
    time.sleep(SETTLE_S)  # a game under way ends
    meters = {name: asdict(no_reads.surely(bench.rig.device(name).driver.meters)) for name in machines}
    listener.discard_input()  # broadcasts older than the meter reads
    timeout = controller.options.broadcast_timeout_s
    levels: dict[int, int] = {}
    for _ in range(controller.options.settle_broadcasts):
        levels = listener.next_broadcast(timeout).amounts
    missing = sorted({level.level for level in controller.options.levels} - set(levels))
    if missing:
        raise RuntimeError(f"the controller's broadcast lacks level(s) {missing} (it carries {sorted(levels)})")
    return Reading(meters, levels)


def _play(bench: BenchSession, controller: ProgressiveControllerEquipment, start: Reading, no_reads: NoReads) -> None:
    """Every feeding machine plays ``options.plays`` games; each is disabled once it has played them."""
    plays = controller.options.plays
    playing = set(controller.options.machines)
    last = {name: start.meters[name]["games_played"] for name in playing}
    moved = time.monotonic()
    for name in sorted(playing):
        no_reads.surely(bench.rig.device(name).driver.enable_play)
    while playing:
        time.sleep(POLL_S)
        for name in sorted(playing):
            driver = bench.rig.device(name).driver
            meters = no_reads.polled(driver.meters, machine=name)  # a poll lost on the line: counted, skipped
            if meters is None:
                continue
            games = meters.games_played
            if games != last[name]:
                last[name], moved = games, time.monotonic()
            if games - start.meters[name]["games_played"] >= plays:
                no_reads.surely(driver.disable_play)
                playing.discard(name)
        if playing and time.monotonic() - moved > STALL_S:
            for name in playing:
                no_reads.surely(bench.rig.device(name).driver.disable_play)
            raise RuntimeError(f"{', '.join(sorted(playing))} played no game for {STALL_S:g} s with play enabled")


@pytest.fixture(scope="module")
def contribution_play(bench: BenchSession) -> ContributionPlay:
    """The profile's first progressive controller and its feeding machines, opened and identified; the levels
    and the coin in read before and after every feeding machine plays ``options.plays`` games."""
    names = bench.rig.names_of_kind("progressive-controller")
    if not names:
        pytest.skip(f"profile {bench.profile.name!r} has no progressive controller")
    device = bench.rig.device(names[0])
    controller = device.equipment
    assert isinstance(controller, ProgressiveControllerEquipment)
    listener = device.driver
    assert isinstance(listener, SasProgressiveListener)
    heard = listener.next_broadcast(controller.options.broadcast_timeout_s)
    bench.record_equipment(device, {"group": heard.group, "command": f"0x{heard.command:02X}",
                                    "levels_cents": {str(level): amount for level, amount in heard.amounts.items()}})
    denominations: dict[str, int] = {}
    for name in controller.options.machines:
        machine = bench.rig.device(name)
        bench.record_equipment(machine, asdict(machine.driver.identify()))
        assert isinstance(machine.equipment, SlotMachineEquipment)
        denominations[name] = machine.equipment.options.par.denomination_cents
    bench.record_instruments()
    no_reads = NoReads(bench, NO_READ_STREAM, PLAY_NODEID, 0, names[0], "meter reads")
    before = _read(bench, controller, listener, no_reads)
    _play(bench, controller, before, no_reads)
    after = _read(bench, controller, listener, no_reads)
    return ContributionPlay(names[0], controller, denominations, before, after, listener.broadcasts,
                            listener.crc_errors, no_reads.details())


def _growth_limits(expected: Fraction, rounding: str, wagers: int) -> tuple[int, int]:
    """The whole-cent growths the declared rounding allows around the exact contribution ``expected``."""
    if rounding == "carry-fraction":
        return math.floor(expected), math.ceil(expected)
    return math.floor(expected - wagers) + 1, math.floor(expected)


def _decimal(value: Fraction) -> str:
    """``value`` to four decimals (for reading; the verdict uses the exact fraction)."""
    return str((Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal("0.0001")))


def _judge_level(play: ContributionPlay, level: ProgressiveLevel, clause: str, measure: Any) -> None:
    coin_in = {name: (play.after.meters[name]["coin_in"] - play.before.meters[name]["coin_in"]) for name in
               level.machines}
    cents = {name: credits * play.denominations[name] for name, credits in coin_in.items()}
    wagers = sum(play.after.meters[name]["games_played"] - play.before.meters[name]["games_played"]
                 for name in level.machines)
    expected = Fraction(level.contribution_percent) / 100 * sum(cents.values())
    low, high = _growth_limits(expected, level.rounding, wagers)
    growth = play.after.levels[level.level] - play.before.levels[level.level]
    fed_by = "its machine" if level.kind == "jackpot" else f"the {len(level.machines)} linked machines together"
    measure(f"level {level.level} ({level.kind}) growth against {level.contribution_percent} % of the coin in",
            growth, unit="cents", low=low, high=high, clauses=[clause], sample_size=wagers,
            method=(f"coin in of {fed_by} (SAS 2F, credits x denomination) and the level broadcast by the "
                    f"controller (SAS 0x80/0x86), read before and after play, play disabled; exact arithmetic; "
                    f"declared rounding {level.rounding}"),
            details={"controller": play.name, "level": level.level, "kind": level.kind,
                     "contribution_percent": str(level.contribution_percent), "rounding": level.rounding,
                     "expected_growth_cents": str(expected), "expected_growth_cents_decimal": _decimal(expected),
                     "shortfall_cents": str(expected - growth), "coin_in_growth_credits": coin_in,
                     "coin_in_growth_cents": cents, "coin_in_growth_cents_total": sum(cents.values()),
                     "wagers": wagers, "level_before_cents": play.before.levels[level.level],
                     "level_after_cents": play.after.levels[level.level],
                     "broadcasts_heard": play.broadcasts, "broadcast_crc_errors": play.crc_errors}
            | play.no_reads)


def _levels(play: ContributionPlay, kind: str) -> list[ProgressiveLevel]:
    levels = [level for level in play.controller.options.levels if level.kind == kind]
    if not levels:
        pytest.skip(f"progressive controller {play.name!r} declares no {kind} level: nothing to test")
    return levels


@pytest.mark.clause(JACKPOT)
def test_jackpot_grows_by_the_declared_percentage_of_its_machines_play(contribution_play: ContributionPlay,
                                                                       measure: Any) -> None:
    """Each jackpot level grows by its contribution percentage of its one machine's coin in, within its rounding."""
    for level in _levels(contribution_play, "jackpot"):
        _judge_level(contribution_play, level, JACKPOT, measure)


@pytest.mark.clause(SUPERJACKPOT)
def test_superjackpot_grows_by_the_declared_percentage_of_the_linked_machines_play(
        contribution_play: ContributionPlay, measure: Any) -> None:
    """Each superjackpot level grows by its contribution percentage of the summed coin in of every linked machine,
    within its rounding."""
    for level in _levels(contribution_play, "superjackpot"):
        _judge_level(contribution_play, level, SUPERJACKPOT, measure)
