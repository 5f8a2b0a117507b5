"""The rig's power supplies (bench/rig_power.py): a simulated supply feeds the simulated rig.

The chain under test: the rig starts the PSU simulator and opens its real driver (pyvisa-py on a
loopback socket), sets the voltage and switches the output on, then starts the fed devices'
simulators on the supply's power rail and opens their real drivers. A power cycle through the rig
switches the output off and on; the slot machine and the jackpot controller must go dark, boot
again from their state files, and keep what their model keeps: meters and pools (fair models), or
lose them visibly through the drivers (``volatile-meters``, ``volatile``). A supply whose relay
sticks is caught because the device never goes dark. Nothing here is random but the simulators'
fixed seeds.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bench.profiles.model import Profile
from bench.rig import Rig
from bench.rig_power import RigPower
from drivers.instruments import InstrumentError
from drivers.jackpot import JackpotController
from drivers.sas import SasSlotMachine
from drivers.sim.power_rail import read_rail
from drivers.sim.psu_server import start_psu_simulator

IDENTITY = {"manufacturer": "Bench", "model": "Fed device", "serial": "PW-1"}
PSU_IDENTITY = {"manufacturer": "Bench Simulators", "model": "PS-30-5", "serial": "SIM-PS-0009"}
FAST_LINE = {"port": "sim", "timeout_s": 0.3, "retries": 1}  # a dark device is found out in 0.6 s
START_CENTS = 1_000_000


def profile(*, slot_model: str = "fair", jackpot_model: str = "fair", psu: dict[str, Any] | None = None,
            supply: dict[str, Any] | None = None) -> Profile:
    return Profile.model_validate({
        "name": "powered",
        "equipment": {
            "slot": {"kind": "slot-machine", "identity": IDENTITY, "connection": FAST_LINE,
                     "simulator": {"model": slot_model, "start_enabled": False, "line_baud": None,
                                   "plays_per_second": 500.0}},
            "jackpot": {"kind": "jackpot-display", "identity": IDENTITY, "connection": FAST_LINE,
                        "simulator": {"model": jackpot_model}},
            "wheel": {"kind": "roulette-wheel", "identity": IDENTITY, "simulator": {}},
        },
        "instruments": {
            "psu": supply or {"kind": "power-supply", "identity": PSU_IDENTITY, "voltage": 12.0,
                              "powers": ["slot", "jackpot"], "off_s": 0.7, "simulator": psu or {}},
        },
    })


@contextmanager
def rig(tmp_path: Path, **options: Any) -> Iterator[Rig]:
    with Rig(profile(**options), tmp_path / "devices") as opened:
        yield opened


def _wire(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_which_supply_feeds_what_and_which_rail_a_simulator_reads(tmp_path: Path) -> None:
    power = RigPower(profile(), tmp_path, None)  # type: ignore[arg-type] - nothing is opened here
    assert power.supply_name_for("slot") == power.supply_name_for("jackpot") == "psu"
    assert power.supply_name_for("wheel") is None and power.rail_for("wheel") is None
    assert power.rail_for("slot") == tmp_path / "psu.rail.json"
    twice = profile().model_copy(deep=True)
    twice.instruments["psu2"] = twice.instruments["psu"].model_copy(update={"powers": ["slot"]})
    with pytest.raises(ValueError, match=r"'slot' is fed by several power supplies \(psu, psu2\)"):
        RigPower(twice, tmp_path, None).supply_name_for("slot")  # type: ignore[arg-type]


def test_a_real_supply_is_opened_on_its_resource_and_must_be_the_one_the_profile_names(tmp_path: Path) -> None:
    rail = tmp_path / "lab.rail.json"
    lab_identity = {**PSU_IDENTITY, "serial": "LAB-0001"}
    with start_psu_simulator({"simulator": {}, "identity": lab_identity, "power_rail": str(rail)},
                             tmp_path / "lab.sim-state.json") as lab_supply:  # stands in for a supply on the network
        real = {"kind": "power-supply", "identity": lab_identity, "voltage": 5.0, "powers": ["jackpot"],
                "connection": {"resource": lab_supply.resource, "timeout_s": 1.0}}
        with Rig(profile(supply=real), tmp_path / "real") as opened:
            assert opened.power.rail_for("jackpot") is None  # a real supply: no simulated rail to hand out
            supply = opened.power_supply_for("jackpot")
            assert supply.voltage() == 5.0 and supply.output_state() is True
            assert read_rail(rail).on  # the supply really switched its output on
        wrong = {**real, "identity": PSU_IDENTITY}
        refused = "another instrument answers: serial 'LAB-0001', the profile says 'SIM-PS-0009'"
        with Rig(profile(supply=wrong), tmp_path / "wrong") as opened, pytest.raises(InstrumentError, match=refused):
            opened.power_supply_for("jackpot")


def _supply_first_then_the_device(opened: Rig) -> None:
    """Opening a fed device starts its supply, sets the voltage and switches the output on, before the device."""
    slot = opened.device("slot")
    (supply,) = opened.opened_supplies()
    assert supply.name == "psu" and supply.reported.serial == "SIM-PS-0009"
    assert opened.power_supply_for("slot") is supply.driver
    assert supply.driver.voltage() == 12.0 and supply.driver.output_state() is True
    rail = read_rail(supply.rail)
    assert rail is not None and rail.on and rail.voltage == 12.0 and rail.generation == 1
    switched_on = min(entry["t"] for entry in _wire(supply.wire_log)
                      if entry["dir"] == "tx" and entry["text"] == "OUTP ON\n")
    slot_opened = min(entry["t"] for entry in _wire(slot.wire_log) if entry["dir"] == "event")
    assert switched_on < slot_opened  # supply first, then the device
    assert slot.driver.identify().serial == "PW-1"  # powered from its first request


def _play(slot: SasSlotMachine, games: int) -> None:
    slot.enable_play()
    deadline = time.monotonic() + 10.0
    while slot.meters().games_played < games and time.monotonic() < deadline:
        time.sleep(0.05)
    slot.disable_play()  # the meters stop moving: before and after the cycle compare exactly


@pytest.mark.parametrize(("slot_model", "jackpot_model", "kept"), [
    ("fair", "fair", True),
    ("volatile-meters", "volatile", False),  # "meters lost on power loss", "value lost on power loss"
])
def test_a_power_cycle_through_the_rig_keeps_or_loses_what_each_model_says(
    tmp_path: Path, slot_model: str, jackpot_model: str, kept: bool
) -> None:
    with rig(tmp_path, slot_model=slot_model, jackpot_model=jackpot_model) as opened:
        assert opened.opened_supplies() == []  # nothing is started before a device is asked for
        with pytest.raises(KeyError, match="no power supply of profile 'powered' feeds 'wheel'"):
            opened.power_supply_for("wheel")
        _supply_first_then_the_device(opened)
        slot = opened.device("slot").driver
        jackpot = opened.device("jackpot").driver
        assert isinstance(slot, SasSlotMachine) and isinstance(jackpot, JackpotController)
        _play(slot, 20)
        for _ in range(3):
            jackpot.register_bet(100)
        meters, pool = slot.meters(), jackpot.values().values
        assert meters.games_played >= 20 and pool[0] == START_CENTS + 3 * 70  # 70 % of each 100-cent bet
        slot.events()  # empty the exception queue: a reboot is then visible in it

        check = opened.power_cycle("slot")  # the supply feeds both: both go dark and boot again

        assert check.went_dark and check.came_back and check.ok
        assert 0x17 in [event.code for event in slot.events()]  # "AC power applied": the machine rebooted
        after, pool_after = slot.meters(), jackpot.values().values
        if kept:
            assert after == meters and pool_after == pool
        else:
            assert after.games_played == after.coin_in == after.current_credits == 0 < meters.games_played
            assert pool_after[0] == START_CENTS
        assert jackpot.register_bet(100)[0] == pool_after[0] + 70  # both drivers work on after the cycle
        assert read_rail(opened.opened_supplies()[0].rail).generation == 2


def test_a_sticky_relay_is_caught_through_the_device(tmp_path: Path) -> None:
    with rig(tmp_path, psu={"relay_fault": "sticky"}) as opened:
        jackpot = opened.device("jackpot").driver
        jackpot.register_bet(100)
        check = opened.power_cycle("jackpot", 0.5)
        assert check.came_back and not check.went_dark and not check.ok
        supply = opened.power_supply_for("jackpot")
        assert supply.output_state() is True  # the supply believes it cycled its output
        assert jackpot.values().values[0] == START_CENTS + 70
