"""The simulated progressive controller (drivers.sim.progressive_controller), its profile and its broadcasts.

Contributions in process against hand-computed exact values (fair carry, each fault model, baselines,
power cycle), then the controller process behind a pty heard by SasProgressiveListener while the test
moves a linked machine's coin-in meter in its state file, as a playing slot-machine simulator does.
Everything is exact arithmetic on fixed inputs: no error rate.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from bench.profiles import load_profile_text
from bench.profiles.progressive import ProgressiveControllerEquipment, ProgressiveLevel, ProgressiveSimulator
from drivers.sas_progressive import ProgressiveScanner, SasProgressiveListener, parse_progressive
from drivers.sas_transport import Unescaper
from drivers.serial_link import DeviceError, LinkSettings, SerialLink
from drivers.sim.host import start_simulator
from drivers.sim.progressive_controller import LinkedMachine, ProgressiveBroadcaster, ProgressiveLink

IDENTITY = {"manufacturer": "Test", "model": "PC", "serial": "PC-1"}
LEVELS = [
    {"level": 1, "kind": "jackpot", "start_cents": 1000, "contribution_percent": "1.5", "machines": ["a"]},
    {"level": 2, "kind": "superjackpot", "start_cents": 5000, "contribution_percent": "1", "machines": ["a", "b"]},
]


def set_coin_in(state_file: Path, credits: int) -> None:
    """What a slot-machine simulator keeps in its state file (only the coin-in meter matters here)."""
    state_file.write_text(json.dumps({"game": credits, "meters": {"coin_in": credits}}))


def make_link(tmp_path: Path, model: str = "fair", *, denominations: tuple[int, int] = (10, 10), **extra: Any
              ) -> ProgressiveLink:
    equipment = ProgressiveControllerEquipment.model_validate(
        {"kind": "progressive-controller", "identity": IDENTITY, "options": {"group": 3, "levels": LEVELS},
         "simulator": {"model": model, **extra}})
    machines = {name: LinkedMachine(name, tmp_path / f"{name}.json", denomination, 1)
                for name, denomination in zip("ab", denominations, strict=True)}
    assert equipment.simulator is not None
    return ProgressiveLink(equipment.simulator, 3, equipment.options.levels, machines, tmp_path / "pc.json")


def play(link: ProgressiveLink, tmp_path: Path, **coin_in: int) -> dict[int, int]:
    for name, credits in coin_in.items():
        set_coin_in(tmp_path / f"{name}.json", credits)
    link.update()
    return link.amounts()


def test_fair_levels_carry_the_fraction_of_a_cent_and_the_superjackpot_sums_the_linked_machines(tmp_path: Path) -> None:
    link = make_link(tmp_path)
    assert play(link, tmp_path, a=0, b=0) == {1: 1000, 2: 5000}  # first readings: the baselines
    amounts = {}
    for credits in range(1, 8):  # seven 10-cent wagers on "a", read one at a time: 0.15 cent each to level 1
        amounts = play(link, tmp_path, a=credits)
    assert amounts[1] == 1001 and link.exact[1] == 1000 + Fraction(105, 100)  # 1.05 cents: the 0.05 carried
    amounts = play(link, tmp_path, b=30)  # 30 wagers on "b": 3 cents to level 2 only
    assert amounts == {1: 1001, 2: 5000 + 3} and link.exact[2] == 5000 + Fraction(7, 10) + 3


def test_a_meter_going_back_is_a_new_baseline_and_only_whole_wagers_count(tmp_path: Path) -> None:
    link = make_link(tmp_path, denominations=(100, 10))
    play(link, tmp_path, a=500, b=0)  # a machine already played before the link started: its baseline
    assert play(link, tmp_path, a=600)[1] == 1000 + 150  # 100 wagers of 1 euro at 1.5 %
    assert play(link, tmp_path, a=10)[1] == 1150  # meters lost: a new baseline, no contribution
    assert play(link, tmp_path, a=12)[1] == 1153


@pytest.mark.parametrize(("model", "extra", "level_1", "level_2"), [
    ("skim", {"skim_factor": "0.9"}, 1000 + 135, 5000 + 200),  # 0.9 x 1.5 % of 10,000 cents on level 1
    ("rounding-loss", {}, 1000 + 100, 5000 + 200),  # 1.5 cents a 1-euro wager truncated to 1 (denomination 100)
    ("unlinked-machine", {}, 1000 + 150, 5000 + 100),  # level 2 ignores "b", its last feeder
])
def test_each_fault_shows_on_its_own_level(tmp_path: Path, model: str, extra: dict[str, Any], level_1: int,
                                           level_2: int) -> None:
    denominations = (100, 100) if model == "rounding-loss" else (10, 10)
    link = make_link(tmp_path, model, denominations=denominations, **extra)
    play(link, tmp_path, a=0, b=0)
    credits = 100 if model == "rounding-loss" else 1000
    assert play(link, tmp_path, a=credits, b=credits) == {1: level_1, 2: level_2}


def test_levels_and_baselines_survive_a_power_cycle_and_play_while_off_is_counted(tmp_path: Path) -> None:
    link = make_link(tmp_path)
    play(link, tmp_path, a=0, b=0)
    play(link, tmp_path, a=7, b=3)
    exact = dict(link.exact)
    set_coin_in(tmp_path / "a.json", 27)  # 20 more wagers while the controller is off
    rebooted = make_link(tmp_path)
    assert rebooted.exact == exact and rebooted.seen == {"a": 7, "b": 3}
    rebooted.update()
    assert rebooted.exact[1] == exact[1] + Fraction(3)  # 20 x 0.15 cent


def test_broadcasts_round_trip_through_the_escape_framing_and_the_scanner(tmp_path: Path) -> None:
    link = make_link(tmp_path)
    play(link, tmp_path, a=0, b=0)
    play(link, tmp_path, a=1000, b=500)
    broadcaster = ProgressiveBroadcaster(link)
    message = broadcaster.message()
    assert message[:4] == bytes([0, 0x86, 13, 3])
    assert parse_progressive(message).amounts == {1: 1150, 2: 5150}
    [(_, framed)] = broadcaster.tick()
    scanner = ProgressiveScanner()
    assert [found.amounts for found in scanner.feed(Unescaper().feed(framed))] == [{1: 1150, 2: 5150}]
    single = ProgressiveLink(link.config, 3, [link.levels[0]], {"a": link.machines["a"]}, None)
    assert parse_progressive(ProgressiveBroadcaster(single).message()).command == 0x80


def test_the_profile_refuses_wrong_links_and_fills_the_fault_level() -> None:
    with pytest.raises(ValidationError, match="superjackpot is fed by two or more"):
        ProgressiveLevel(level=1, kind="superjackpot", start_cents=0, contribution_percent=Decimal(1), machines=["a"])
    with pytest.raises(ValidationError, match="jackpot is fed by one machine"):
        ProgressiveLevel(level=1, kind="jackpot", start_cents=0, contribution_percent=Decimal(1), machines=["a", "b"])
    base = {"kind": "progressive-controller", "identity": IDENTITY, "options": {"group": 3, "levels": LEVELS}}
    skim = ProgressiveControllerEquipment.model_validate(base | {"simulator": {"model": "skim"}})
    unlinked = ProgressiveControllerEquipment.model_validate(base | {"simulator": {"model": "unlinked-machine"}})
    assert skim.simulator.fault_level == 1 and unlinked.simulator.fault_level == 2  # type: ignore[union-attr]
    assert unlinked.simulator.unlinked_machine == "b"  # type: ignore[union-attr]
    with pytest.raises(ValidationError, match="does not feed level 2"):
        ProgressiveControllerEquipment.model_validate(
            base | {"simulator": {"model": "unlinked-machine", "unlinked_machine": "c"}})
    assert ProgressiveSimulator(skim_factor=Decimal("0.9")).model_dump()["skim_factor"] == "0.9"  # exact in JSON


def _profile(percent: str, group: int = 1) -> str:
    return f"""
name = "t"
[equipment.slot]
kind = "slot-machine"
identity = {{ manufacturer = "T", model = "S", serial = "S-1" }}
simulator = {{ model = "fair" }}
[equipment.slot.options.par]
paytable_id = "X1"
reels = [["A", "B"], ["A", "B"], ["A", "B"]]
pays = [{{ pattern = ["A", "A", "A"], credits = 6 }}]
progressive_group = {group}
progressive_contribution_percent = {percent}
[equipment.pc]
kind = "progressive-controller"
identity = {{ manufacturer = "T", model = "P", serial = "P-1" }}
simulator = {{ model = "fair" }}
options = {{ group = 1, levels = [{{ level = 1, kind = "jackpot", start_cents = 100, contribution_percent = "1.5", machines = ["slot"] }}] }}
"""


def test_the_profile_checks_each_machines_par_sheet_against_the_levels_it_feeds() -> None:
    assert load_profile_text(_profile("1.5"), "t").equipment["pc"].kind == "progressive-controller"
    with pytest.raises(Exception, match=r"feeds 1.5 % to the levels of 'pc', its PAR sheet declares 2.0 %"):
        load_profile_text(_profile("2.0"), "t")
    with pytest.raises(Exception, match="declares progressive group 2"):
        load_profile_text(_profile("1.5", group=2), "t")
    with pytest.raises(Exception, match="not a slot machine"):
        load_profile_text(_profile("1.5").replace('machines = ["slot"]', 'machines = ["pc"]'), "t")


def test_the_controller_process_broadcasts_growing_levels_to_the_listener_and_keeps_them_over_a_restart(
        tmp_path: Path) -> None:
    for name in "ab":
        set_coin_in(tmp_path / f"{name}.json", 0)
    config = {"simulator": {"model": "fair", "broadcast_interval_s": 0.05, "garble_rate": 0.3, "seed": 5},
              "identity": IDENTITY, "link": {"group": 3, "levels": LEVELS},
              "machines": {name: {"state_file": str(tmp_path / f"{name}.json"), "denomination_cents": 10,
                                  "bet_per_play": 1} for name in "ab"}}
    state = tmp_path / "controller.json"

    def listen(process: Any) -> tuple[SerialLink, SasProgressiveListener]:
        link = SerialLink(LinkSettings(port=process.tty_path, timeout_s=0.5, retries=0))
        link.open()
        return link, SasProgressiveListener(link, "pty-escape", group=3)

    with start_simulator("progressive-controller", config, state) as process:
        link, listener = listen(process)
        assert listener.levels(timeout_s=2.0) == {1: 1000, 2: 5000}
        set_coin_in(tmp_path / "a.json", 1000)  # 1,000 wagers of 10 cents on "a"
        set_coin_in(tmp_path / "b.json", 400)
        listener.discard_input()  # what the suite does after reading the meters: the second broadcast is fresh
        amounts = [listener.next_broadcast(2.0).amounts for _ in range(2)]
        assert amounts[-1] == {1: 1150, 2: 5140}
        for _ in range(10):
            listener.next_broadcast(2.0)
        assert listener.crc_errors > 0  # seed fixed: 30 % of broadcasts carry a corrupted CRC, none became a level
        with pytest.raises(DeviceError, match="no valid broadcast"):
            SasProgressiveListener(link, group=9).next_broadcast(timeout_s=0.3)
        link.close()
    set_coin_in(tmp_path / "b.json", 500)  # play while the controller is off
    with start_simulator("progressive-controller", config, state) as process:
        link, listener = listen(process)
        assert listener.levels(broadcasts=2, timeout_s=2.0) == {1: 1150, 2: 5150}
        link.close()
