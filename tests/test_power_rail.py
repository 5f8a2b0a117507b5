"""The simulated power rail (drivers.sim.power_rail), and the whole power-cycle chain through it.

Chain: the PSU driver (pyvisa-py) talks SCPI to the PSU simulator process over a loopback socket;
the simulator's output writes the rail file; the roulette-wheel simulator process reads the rail
before answering; the wheel driver talks to it over its pty. Switching the PSU off must silence
the wheel, switching it on must bring it back as after a restart: the game counter (non-volatile,
in its state file) continues, the last results (volatile) are gone. A supply whose relay sticks
says its output is off while the wheel keeps answering: the check must see it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.profiles.model import RouletteSimulator
from drivers.instruments import ScpiPowerSupply, checked_power_cycle, open_instrument, responds
from drivers.line_frame import decode as line_decode
from drivers.line_frame import encode as line_encode
from drivers.roulette import SerialRouletteWheel, WheelIdentity
from drivers.roulette_protocol import SpinResult, decode, encode
from drivers.serial_link import DeviceError, LinkSettings, SerialLink, WireLog
from drivers.sim.host import SimulatorProcess, start_simulator
from drivers.sim.power_rail import PoweredDevice, PowerRail, RailState, powered, read_rail, write_rail
from drivers.sim.psu_server import PsuProcess, start_psu_simulator
from drivers.sim.roulette_wheel import read_game_counter

WHEEL_IDENTITY = {"manufacturer": "Acme Wheels", "model": "RW-37", "serial": "SN-0042", "firmware": "2.1.0"}


# -- the rail file -------------------------------------------------------------------


def test_a_missing_rail_file_means_no_power(tmp_path: Path) -> None:
    assert read_rail(tmp_path / "rail.json") is None


def test_a_rail_file_that_is_not_one_is_reported_with_its_path(tmp_path: Path) -> None:
    path = tmp_path / "rail.json"
    path.write_text('{"on": true}')
    with pytest.raises(ValueError, match=r"rail\.json: not a power rail file"):
        read_rail(path)


def test_the_rail_counts_power_ups_and_a_restarted_supply_continues_the_count(tmp_path: Path) -> None:
    path = tmp_path / "rail.json"
    rail = PowerRail(path)
    rail.set(False, 0.0)
    assert read_rail(path).generation == 0
    rail.set(True, 12.0)
    rail.set(True, 11.0)  # a new voltage is not a power-up
    assert (read_rail(path).on, read_rail(path).voltage, read_rail(path).generation) == (True, 11.0, 1)
    rail.set(False, 0.0)
    rail.set(True, 12.0)
    assert read_rail(path).generation == 2
    restarted = PowerRail(path)
    restarted.set(True, 12.0)
    assert read_rail(path).generation == 3
    assert not list(tmp_path.glob("*.tmp"))  # atomic writes leave no temporary file behind


def test_powered_device_is_silent_without_power_and_rebuilt_after_a_power_cycle(tmp_path: Path) -> None:
    path = tmp_path / "rail.json"
    builds: list[int] = []

    def factory():
        builds.append(len(builds))
        serial = len(builds)
        return lambda line: [(0.0, f"{serial}:{line.decode()}".encode())]

    write_rail(path, RailState(on=True, voltage=12.0, generation=1, updated=0.0))
    handle = powered(factory, path)
    assert handle(b"a") == [(0.0, b"1:a")] and handle(b"b") == [(0.0, b"1:b")]
    write_rail(path, RailState(on=False, voltage=0.0, generation=1, updated=0.0))
    assert handle(b"c") == []  # unpowered: no reply at all
    write_rail(path, RailState(on=True, voltage=12.0, generation=2, updated=0.0))
    assert handle(b"d") == [(0.0, b"2:d")]  # rebuilt once: volatile memory gone
    assert handle(b"e") == [(0.0, b"2:e")]
    assert len(builds) == 2
    path.unlink()
    assert handle(b"f") == []  # nothing feeds the rail


def test_a_device_started_without_power_boots_when_power_comes(tmp_path: Path) -> None:
    path = tmp_path / "rail.json"
    builds: list[int] = []

    def factory():
        builds.append(1)
        return lambda line: [(0.0, b"ok")]

    handle = powered(factory, path)  # built once at start-up (configuration checked)
    assert handle(b"x") == []
    write_rail(path, RailState(on=True, voltage=5.0, generation=1, updated=0.0))
    assert handle(b"x") == [(0.0, b"ok")]
    assert len(builds) == 2


# -- the whole chain ---------------------------------------------------------------------


@dataclass
class Chain:
    psu_process: PsuProcess
    psu: ScpiPowerSupply
    wheel_process: SimulatorProcess
    wheel: SerialRouletteWheel
    wheel_state: Path
    rail: Path

    def close(self) -> None:
        self.wheel.close()
        self.wheel_process.close()
        self.psu.close()
        self.psu_process.close()


@pytest.fixture
def chain(tmp_path: Path) -> Iterator[Callable[..., Chain]]:
    built: list[Chain] = []

    def build(relay_fault: str = "none") -> Chain:
        rail = tmp_path / "psu1.rail.json"
        wheel_state = tmp_path / "wheel.sim-state.json"
        config = {"simulator": RouletteSimulator(seed=7).model_dump(), "identity": WHEEL_IDENTITY,
                  "layout": "french", "power_rail": str(rail)}
        # started from this thread: PR_SET_PDEATHSIG kills a simulator when the *thread* that started it ends
        wheel_process = start_simulator("roulette-wheel", config, wheel_state)  # dark until the rail is on
        psu_process = start_psu_simulator(
            {"simulator": {"relay_fault": relay_fault}, "identity": {}, "power_rail": str(rail)},
            tmp_path / "psu1.sim-state.json",
        )
        psu = open_instrument(psu_process.resource, kind="power-supply", name="psu1", timeout_s=1.0, retries=2,
                              wire_log=tmp_path / "psu1.wire.jsonl")
        psu.set_voltage(12.0)
        psu.output(True)
        link = SerialLink(LinkSettings(port=wheel_process.tty_path, timeout_s=0.3, retries=1),
                          WireLog(tmp_path / "wheel.wire.jsonl"))
        link.open()
        made = Chain(psu_process, psu, wheel_process, SerialRouletteWheel(link, spin_timeout_s=2.0), wheel_state, rail)
        built.append(made)
        return made

    yield build
    for made in built:
        made.close()


def repeat_of(wheel: SerialRouletteWheel, game: int) -> bytes:
    """Ask the wheel to repeat game ``game``'s result frame; the raw reply (a result, or a NAK)."""
    return wheel.link.transact(encode("RES?", game), lambda line: decode(line).raw, what=f"repeat game {game}")


def test_a_power_cycle_through_the_supply_silences_the_wheel_and_it_boots_from_its_state_file(chain) -> None:
    opened = chain()
    played = [opened.wheel.spin() for _ in range(3)]
    assert [result.game for result in played] == [1, 2, 3]
    assert decode(repeat_of(opened.wheel, 3)).type == "RES"  # volatile memory holds the last results
    generation = read_rail(opened.rail).generation

    opened.psu.output(False)
    assert opened.psu.output_state() is False
    assert opened.psu.measure_current() == 0.0
    assert read_rail(opened.rail).on is False
    with pytest.raises(DeviceError, match="identify failed after 2 attempt"):
        opened.wheel.identify()  # an unpowered wheel does not answer: bounded retries, then an error

    opened.psu.output(True)
    assert opened.psu.measure_current() == pytest.approx(12.0 / 40.0)
    assert read_rail(opened.rail).generation == generation + 1
    assert opened.wheel.identify() == WheelIdentity(**WHEEL_IDENTITY)
    after = opened.wheel.spin()
    assert isinstance(after, SpinResult) and after.game == 4  # the game counter continued (non-volatile)
    assert read_game_counter(opened.wheel_state) == 4
    refused = decode(repeat_of(opened.wheel, 3))
    assert (refused.type, refused.fields) == ("NAK", ("RES?", "UNKNOWN_GAME"))  # last results lost (volatile)

    # the same cycle as a suite runs it: the wheel must go dark, then come back
    check = checked_power_cycle(opened.psu, 0.7, responds(opened.wheel.identify), back_within_s=3.0)
    assert check.went_dark and check.came_back and check.ok
    assert opened.wheel.spin().game == 5


def test_a_sticky_relay_is_caught_because_the_wheel_never_goes_dark(chain) -> None:
    opened = chain(relay_fault="sticky")
    opened.wheel.spin()
    opened.wheel.spin()
    check = checked_power_cycle(opened.psu, 0.7, responds(opened.wheel.identify), back_within_s=3.0)
    assert check.came_back and not check.went_dark and not check.ok
    # what the supply says hides it: it reports the output off during the cycle and draws no current
    opened.psu.output(False)
    assert opened.psu.output_state() is False and opened.psu.measure_current() == 0.0
    assert opened.wheel.identify() == WheelIdentity(**WHEEL_IDENTITY)  # ... yet the wheel still answers
    assert json.loads(opened.rail.read_text())["on"] is True
    assert decode(repeat_of(opened.wheel, 2)).type == "RES"  # and never rebooted: volatile memory intact


def test_powered_device_shares_one_device_between_handler_and_tick(tmp_path: Path) -> None:
    path = tmp_path / "rail.json"
    device = PoweredDevice(object, path)
    assert device.current() is None and device.boots == 1
    write_rail(path, RailState(on=True, voltage=12.0, generation=4, updated=0.0))
    booted = device.current()
    assert booted is not None and device.current() is booted and device.boots == 2


@pytest.mark.parametrize(("kind", "simulator", "protocol"), [
    ("rng", {}, "rng"),
    ("card-shuffler", {}, "shuffler"),
])
def test_the_rng_interface_and_the_shuffler_answer_only_while_powered(
    tmp_path: Path, kind: str, simulator: dict, protocol: str
) -> None:
    rail = tmp_path / "rail.json"
    write_rail(rail, RailState(on=True, voltage=12.0, generation=1, updated=0.0))
    config = {"simulator": simulator, "identity": WHEEL_IDENTITY, "power_rail": str(rail)}
    with start_simulator(kind, config, tmp_path / f"{kind}.sim-state.json") as process:
        link = SerialLink(LinkSettings(port=process.tty_path, timeout_s=0.3, retries=0))
        with link:
            def identify() -> bytes:
                return link.transact(line_encode("ID?"), lambda line: line_decode(line, protocol).raw, what="identify")

            assert line_decode(identify(), protocol).type == "ID"
            write_rail(rail, RailState(on=False, voltage=0.0, generation=1, updated=0.0))
            with pytest.raises(DeviceError, match="no reply"):
                identify()
            write_rail(rail, RailState(on=True, voltage=12.0, generation=2, updated=0.0))
            assert line_decode(identify(), protocol).type == "ID"
