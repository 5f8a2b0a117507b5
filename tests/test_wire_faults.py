"""Line faults injected by the simulators (drivers/sim/wire_faults.py): drivers recover or report, never guess.

Each simulator shapes its replies through :class:`FaultyWire` (dropped bytes, flipped bits, late
replies, garbage before a reply, no reply). Per fault and per driver the tests check that what the
driver returns is exactly what the device produced (compared with a clean run or with the
simulator's own model) and that the fault left its trace (retries counted, the wire log). Rates of
0.15-0.25 with 5-6 retries: with the fixed seeds every run is the same; a retry budget would be
exhausted with probability rate^(retries+1) < 1e-3 per request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.profiles.base import WireFaults
from bench.profiles.model import RouletteSimulator
from bench.profiles.shuffler import ShufflerSimulator
from bench.profiles.slot import SlotMachineEquipment
from drivers.roulette import SerialRouletteWheel
from drivers.roulette_protocol import SpinResult
from drivers.sas import SasSlotMachine
from drivers.sas_transport import make_transport
from drivers.serial_link import DeviceError, LinkSettings, SerialLink, WireLog
from drivers.shuffler import make_shuffler
from drivers.sim.host import start_simulator
from drivers.sim.roulette_wheel import WheelModel
from drivers.sim.wire_faults import FaultyWire

IDENTITY = {"manufacturer": "Bench", "model": "Faulty line", "serial": "WF-1", "firmware": "1"}
FAULTS = {
    "dropped byte": {"dropped_byte_rate": 0.2},
    "flipped bit": {"flipped_bit_rate": 0.2},
    "late reply": {"late_rate": 0.25, "late_s": 1.5},  # past every timeout of these tests
    "garbage": {"garbage_rate": 0.25},
    "no reply": {"silent_rate": 0.15},
}


def _link(tty: str, log: Path, retries: int = 5) -> SerialLink:
    link = SerialLink(LinkSettings(port=tty, timeout_s=0.4, retries=retries), WireLog(log))
    link.open()
    return link


def _log(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_faulty_wire_is_seeded_and_counts_what_it_did() -> None:
    faults = WireFaults(seed=3, dropped_byte_rate=0.5, flipped_bit_rate=0.5, garbage_rate=0.5, silent_rate=0.1)
    first, second = FaultyWire(faults), FaultyWire(faults)
    replies = [(0.0, b"$RES,1,17,CW,CCW,24.0*00\r\n")] * 200
    assert [first.shape(r) for r in replies] == [second.shape(r) for r in replies]
    assert all(first.injected[kind] > 10 for kind in ("dropped-byte", "flipped-bit", "garbage", "silent"))
    clean = FaultyWire(WireFaults())
    assert all(clean.shape(r) == [r] for r in replies[:5])


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


@pytest.mark.parametrize("fault", ["dropped byte", "flipped bit", "garbage", "no reply"])
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
            trouble = host.crc_errors + host.timeouts + host.garbled_frames
            host.close()
        return snapshots, trouble

    clean, _ = read(WireFaults(), "clean")
    faulty, trouble = read(WireFaults(seed=13, **FAULTS[fault]), "faulty")
    assert faulty == clean and trouble > 0
