"""Line faults injected by the simulators (drivers/sim/wire_faults.py): drivers recover or report, never guess.

Each simulator shapes its replies through :class:`FaultyWire` (dropped bytes, flipped bits, late
replies, garbage before a reply, no reply) and its server takes the line down on a disconnect
(``hangup``: the pty is closed and reopened behind the announced path, the driver reconnects;
``silence``: nothing passes for a while, the driver reports and recovers after). Per fault and per driver the tests check that what the
driver returns is exactly what the device produced (compared with a clean run or with the
simulator's own model) and that the fault left its trace (retries counted, the wire log). Rates of
0.15-0.25 with 5-6 retries: with the fixed seeds every run is the same; a retry budget would be
exhausted with probability rate^(retries+1) < 1e-3 per request.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from bench.profiles.base import WireFaults
from bench.profiles.jackpot import JackpotEquipment
from bench.profiles.model import RngSimulator, RouletteSimulator
from bench.profiles.shuffler import ShufflerSimulator
from bench.profiles.slot import SlotMachineEquipment
from drivers.jackpot import make_jackpot_controller
from drivers.rng_source import SerialRngSource
from drivers.roulette import SerialRouletteWheel
from drivers.roulette_protocol import SpinResult
from drivers.sas import SasSlotMachine
from drivers.sas_transport import make_transport
from drivers.serial_link import DeviceError, LinkSettings, SerialLink, WireLog
from drivers.shuffler import make_shuffler
from drivers.sim.host import start_simulator
from drivers.sim.rng_device import RngModel
from drivers.sim.roulette_wheel import WheelModel
from drivers.sim.wire_faults import FaultyWire

IDENTITY = {"manufacturer": "Bench", "model": "Faulty line", "serial": "WF-1", "firmware": "1"}
FAULTS = {
    "dropped byte": {"dropped_byte_rate": 0.2},
    "flipped bit": {"flipped_bit_rate": 0.2},
    "late reply": {"late_rate": 0.25, "late_s": 1.5},  # past every timeout of these tests
    "garbage": {"garbage_rate": 0.25},
    "no reply": {"silent_rate": 0.15},
    "disconnect": {"disconnect_rate": 0.2, "disconnect_s": 0.15},  # a cable pulled and plugged back: reconnect
}


def _link(tty: str, log: Path, retries: int = 5) -> SerialLink:
    link = SerialLink(LinkSettings(port=tty, timeout_s=0.4, retries=retries), WireLog(log))
    link.open()
    return link


def _log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_faulty_wire_is_seeded_and_counts_what_it_did() -> None:
    faults = WireFaults(seed=3, dropped_byte_rate=0.3, flipped_bit_rate=0.3, garbage_rate=0.3, silent_rate=0.1)
    first, second = FaultyWire(faults), FaultyWire(faults)
    replies = [(0.0, b"$RES,1,17,CW,CCW,24.0*00\r\n")] * 200
    assert [first.shape(r) for r in replies] == [second.shape(r) for r in replies]
    assert all(first.injected[kind] > 10 for kind in ("dropped-byte", "flipped-bit", "garbage", "silent"))
    clean = FaultyWire(WireFaults())
    assert all(clean.shape(r) == [r] for r in replies[:5])


def test_disconnects_are_drawn_from_their_own_seeded_stream_and_counted() -> None:
    faults = WireFaults(seed=3, disconnect_rate=0.25)
    first, second = FaultyWire(faults), FaultyWire(faults)
    drawn = [first.disconnects() for _ in range(400)]
    assert drawn == [second.disconnects() for _ in range(400)]
    assert first.injected["disconnect"] == sum(drawn)
    assert 60 <= sum(drawn) <= 140  # binomial(400, 0.25): outside with probability < 1e-6
    assert not any(FaultyWire(WireFaults(seed=3)).disconnects() for _ in range(50))
    assert FaultyWire(faults).shape((0.0, b"x\r\n")) == [(0.0, b"x\r\n")]  # a disconnect is not a reply fault


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_wheel_driver_reports_only_results_the_wheel_produced(fault: str, tmp_path: Path) -> None:
    simulator = RouletteSimulator(seed=31, wire_faults=WireFaults(seed=7, **FAULTS[fault]))
    config = {"simulator": simulator.model_dump(), "identity": IDENTITY, "layout": "french"}
    log = tmp_path / "wire.jsonl"
    model = WheelModel(simulator, "french")
    outcomes, failures = [], 0
    with start_simulator("roulette-wheel", config, tmp_path / "state.json") as process:
        wheel = SerialRouletteWheel(_link(process.tty_path, log), spin_timeout_s=1.0)
        for _ in range(12):
            try:
                outcomes.append(wheel.spin())
            except DeviceError:
                failures += 1  # reported, never a value
        wheel.close()
    results = [outcome for outcome in outcomes if isinstance(outcome, SpinResult)]
    assert len(results) >= 9
    for result in results:  # every number is the one the wheel reported for that game
        assert result.number == model.physical_game(result.game).reported_number
    assert len({result.game for result in results}) == len(results)
    requests = sum(1 for entry in _log(log) if entry["dir"] == "tx")
    assert requests > 12 or failures or wheel.garbled_frames  # the faults cost retries (12 SPIN on a clean line)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_shuffler_driver_deals_the_same_cards_as_on_a_clean_line(fault: str, tmp_path: Path) -> None:
    def deal(faults: WireFaults, name: str) -> tuple[list[str], int]:
        simulator = ShufflerSimulator(seed=5, wire_faults=faults)
        config = {"simulator": simulator.model_dump(), "identity": IDENTITY}
        with start_simulator("card-shuffler", config, tmp_path / f"{name}.json") as process:
            link = _link(process.tty_path, tmp_path / f"{name}.jsonl", retries=6)
            shuffler = make_shuffler("cs", link, shuffle_timeout_s=1.0, deal_timeout_s=0.4)
            shuffler.load(["RED"])
            shuffler.shuffle()
            cards = [str(shuffler.deal().card) for _ in range(20)]
            garbled = shuffler.garbled_frames
            shuffler.close()
        return cards, garbled

    clean, _ = deal(WireFaults(), "clean")
    faulty, garbled = deal(WireFaults(seed=11, **FAULTS[fault]), "faulty")
    assert faulty == clean  # a retried DEAL never deals a second card, a damaged reply never becomes one
    retried = [entry for entry in _log(tmp_path / "faulty.jsonl") if entry["dir"] == "tx"]
    assert len(retried) > 3 + 20 or garbled  # the faults cost retries


@pytest.mark.parametrize("fault", ["dropped byte", "flipped bit", "garbage", "no reply", "disconnect"])
def test_the_sas_host_reads_the_same_meters_as_on_a_clean_line(fault: str, tmp_path: Path) -> None:
    def read(faults: WireFaults, name: str) -> tuple[list[dict[str, int]], int]:
        equipment = SlotMachineEquipment.model_validate({
            "kind": "slot-machine", "identity": IDENTITY,
            "simulator": {"model": "fair", "start_enabled": False, "line_baud": None,
                          "wire_faults": faults.model_dump()}})
        assert equipment.simulator is not None
        config = {"simulator": equipment.simulator.model_dump(), "identity": IDENTITY}
        with start_simulator("slot-machine", config, tmp_path / f"{name}.json") as process:
            link = _link(process.tty_path, tmp_path / f"{name}.jsonl", retries=6)
            host = SasSlotMachine(link, make_transport(equipment.framing, link), address=1)
            snapshots = [host.meters_10_15() for _ in range(8)]
            trouble = host.crc_errors + host.timeouts + host.garbled_frames + link.reconnects
            host.close()
        return snapshots, trouble

    clean, _ = read(WireFaults(), "clean")
    faulty, trouble = read(WireFaults(seed=13, **FAULTS[fault]), "faulty")
    assert faulty == clean and trouble > 0


# -- disconnects ---------------------------------------------------------------------------

HANGUPS = WireFaults(seed=17, **FAULTS["disconnect"])


def _reconnects(log: Path) -> int:
    return sum(1 for entry in _log(log) if entry.get("note") == "reconnecting")


def test_the_rng_driver_reconnects_after_a_pulled_cable_and_reads_only_real_blocks(tmp_path: Path) -> None:
    simulator = RngSimulator(seed=23, wire_faults=HANGUPS)
    config = {"simulator": simulator.model_dump(), "identity": IDENTITY}
    model = RngModel(simulator)
    log = tmp_path / "wire.jsonl"
    with start_simulator("rng", config, tmp_path / "state.json") as process:
        assert "bench-sim-tty-" in process.tty_path  # a stable path the pty is reopened behind
        source = SerialRngSource(_link(process.tty_path, log))
        blocks = [source.raw_block(32) for _ in range(12)]
        reconnects = source.link.reconnects
        source.close()
    assert reconnects > 0 and _reconnects(log) == reconnects
    numbers = [block.block for block in blocks]
    assert numbers == sorted(set(numbers))  # a block whose reply was lost is skipped, never repeated
    for block in blocks:  # every block is the one the generator produced under that number
        assert block.data == model._raw(32, "raw", block.block)


def test_the_jackpot_driver_reconnects_and_registers_every_bet_exactly_once(tmp_path: Path) -> None:
    equipment = JackpotEquipment.model_validate({"kind": "jackpot-display", "identity": IDENTITY,
                                                 "simulator": {"wire_faults": HANGUPS.model_dump()}})
    assert equipment.simulator is not None
    config = {"simulator": equipment.simulator.model_dump(), "identity": IDENTITY}
    with start_simulator("jackpot-display", config, tmp_path / "state.json") as process:
        controller = make_jackpot_controller("jp", _link(process.tty_path, tmp_path / "wire.jsonl"))
        values = [controller.register_bet(100)[0] for _ in range(12)]
        status = controller.status()
        reconnects = controller.link.reconnects
        controller.close()
    assert reconnects > 0
    assert values == [1_000_000 + 70 * bet for bet in range(1, 13)]  # a retried bet is never counted twice
    assert status.bets == 12


@pytest.mark.parametrize("kind", ["jackpot-display", "slot-machine"])
def test_a_line_silent_longer_than_the_retry_budget_is_reported_then_recovers(kind: str, tmp_path: Path) -> None:
    """Under the ``silence`` model the first reply is lost and the line carries nothing for 1.2 s, longer than the
    driver's 2 attempts of 0.25 s: DeviceError naming the lack of reply; once the line is back, the same
    driver reads again (seed 15 draws the disconnect on the first reply and on none of the next 5)."""
    silence = WireFaults(seed=15, disconnect_rate=0.3, disconnect_model="silence", disconnect_s=1.2)
    table: dict[str, Any] = {"kind": kind, "identity": IDENTITY, "simulator": {"wire_faults": silence.model_dump()}}
    if kind == "slot-machine":
        table["simulator"] |= {"start_enabled": False, "line_baud": None}
        equipment: Any = SlotMachineEquipment.model_validate(table)
    else:
        equipment = JackpotEquipment.model_validate(table)
    config = {"simulator": equipment.simulator.model_dump(), "identity": IDENTITY}
    with start_simulator(kind, config, tmp_path / "state.json") as process:
        link = SerialLink(LinkSettings(port=process.tty_path, timeout_s=0.25, retries=1), WireLog(tmp_path / "w.jsonl"))
        link.open()
        driver: Any = (SasSlotMachine(link, make_transport(equipment.framing, link), address=1, link_down_polls=2)
                       if kind == "slot-machine" else make_jackpot_controller("jp", link))
        with pytest.raises(DeviceError, match="failed after 2 attempt.*no reply"):
            driver.identify()
        if kind == "slot-machine":
            assert not driver.link_up  # SAS link-down rule: 2 unanswered polls
        time.sleep(1.2)
        assert driver.identify().serial == IDENTITY["serial"]
        if kind == "slot-machine":
            assert driver.link_up
        driver.close()
