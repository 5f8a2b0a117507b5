"""SCPI instrument drivers (drivers.instruments, drivers.visa_link) and the PSU simulator (drivers.sim.psu_server).

The power supply driver runs over pyvisa-py (``@py``) against the simulator process on a loopback
socket, as against a supply on the lab network; the frequency counter over pyvisa-sim and
``drivers/sim/instruments.yaml``. Fault rates are high so that a few dozen exchanges meet every
fault; seeds are fixed, so each run meets the same faults.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from bench.profiles.base import WireFaults
from bench.profiles.instruments import (
    FrequencyCounterInstrument,
    Instrument,
    PowerSupplyInstrument,
    PowerSupplySimulator,
)
from drivers.instruments import (
    SIMULATED_INSTRUMENTS_YAML,
    InstrumentError,
    InstrumentIdentity,
    InstrumentRefused,
    ScpiFrequencyCounter,
    ScpiPowerSupply,
    open_instrument,
    parse_idn,
    rotor_rpm,
)
from drivers.serial_link import DeviceError
from drivers.sim.psu_server import PsuModel, PsuProcess, canonical_header, psu_simulator_config, start_psu_simulator
from drivers.visa_link import ReplyError, parse_boolean, parse_error, parse_number, within

PSU_IDENTITY = {"manufacturer": "Rigol", "model": "DP811A", "serial": "DP8B000123", "firmware": "00.01.16"}
VALID_REPLY = re.compile(r'[+-]\d\.\d{6}E[+-]\d\d|[01]|[+-]\d+,"[A-Za-z ]+"|Rigol,DP811A,DP8B000123,00\.01\.16')

# -- parsers -------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "value"), [("12", 12.0), ("0.300", 0.3), ("+3.2000E+00", 3.2), ("-.5", -0.5),
                                              ("1e3", 1000.0)])
def test_scpi_numbers_parse(text: str, value: float) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize(("text", "fault"), [("", "not an SCPI number"), ("1.2.3", "not an SCPI number"),
                                             ("+3.2#0E+00", "not an SCPI number"), ("nan", "not an SCPI number"),
                                             ("9.91E37", "no valid measurement"), ("-9.9E37", "no valid measurement")])
def test_malformed_numbers_are_refused_naming_the_fault(text: str, fault: str) -> None:
    with pytest.raises(ReplyError, match=fault):
        parse_number(text)


def test_booleans_error_entries_and_identities_parse_strictly() -> None:
    assert (parse_boolean("1"), parse_boolean("OFF")) == (True, False)
    with pytest.raises(ReplyError, match="not an SCPI boolean"):
        parse_boolean("0\x01")
    assert parse_error('+0,"No error"') == (0, "No error")
    assert parse_error('-222,"Data out of range"') == (-222, "Data out of range")
    with pytest.raises(ReplyError, match="do not match"):
        parse_error('+1,"No error"')  # a flipped bit in the code must not invent an error
    with pytest.raises(ReplyError, match="not an SCPI error-queue entry"):
        parse_error("No error")
    assert parse_idn("Rigol,DP811A,DP8B000123,00.01.16") == InstrumentIdentity(**PSU_IDENTITY)
    with pytest.raises(ReplyError, match="4 printable"):
        parse_idn("Rigol,DP811A,DP8B000123")


def test_rotor_rpm_and_agreement() -> None:
    assert rotor_rpm(3.2, 8) == pytest.approx(24.0)
    with pytest.raises(ValueError, match="pulses_per_revolution"):
        rotor_rpm(3.2, 0)
    agree = within(0.001, 0.02)
    assert agree(0.300, 0.305) and not agree(0.300, 0.03)


# -- the simulator's SCPI, in process ---------------------------------------------------


def test_scpi_headers_accept_short_long_and_optional_forms() -> None:
    assert canonical_header(":SOURce:VOLTage:LEVel:IMMediate:AMPLitude") == "VOLT"
    assert canonical_header("outp:stat") == "OUTP"
    assert canonical_header("MEASure:SCALar:CURRent:DC") == "MEAS:CURR"
    assert canonical_header("VOLTS") is None


def test_simulator_refuses_bad_settings_into_its_error_queue() -> None:
    model = PsuModel(PowerSupplySimulator(), {}, None)
    for line in ("VOLT 31", "VOLT abc", "FOO 1", "OUTP MAYBE", "INST:NSEL 2"):
        assert model.execute(line) is None
    entries = [model.execute("SYST:ERR?") for _ in range(6)]
    assert entries == ['-222,"Data out of range"', '-104,"Data type error"', '-113,"Undefined header"',
                       '-104,"Data type error"', '-224,"Illegal parameter value"', '+0,"No error"']


def test_simulator_faults_are_reproducible_and_continue_after_a_restart(tmp_path: Path) -> None:
    config = PowerSupplySimulator(wire_faults=WireFaults(seed=3, garbage_rate=0.2, flipped_bit_rate=0.2, silent_rate=0.1,
                                                         disconnect_rate=0.1))
    state = tmp_path / "psu.sim-state.json"
    first = PsuModel(config, {}, None, state)
    faults = [first.receive(b"VOLT?\n").fault for _ in range(60)]
    assert {"garbage", "flip", "no-reply", "disconnect", "none"} <= set(faults)
    again = PsuModel(config, {}, None)
    assert [again.receive(b"VOLT?\n").fault for _ in range(60)] == faults
    restarted = PsuModel(config, {}, None, state)
    assert [restarted.receive(b"VOLT?\n").fault for _ in range(20)] == [again.receive(b"VOLT?\n").fault
                                                                       for _ in range(20)]


# -- the power supply over pyvisa-py -------------------------------------------------------


@pytest.fixture
def supply(tmp_path: Path) -> Iterator[Callable[..., tuple[PsuProcess, ScpiPowerSupply]]]:
    started: list[tuple[PsuProcess, ScpiPowerSupply]] = []

    def start(simulator: dict[str, Any] | None = None, *, retries: int = 3, port: int = 0,
              state: str = "psu.sim-state.json") -> tuple[PsuProcess, ScpiPowerSupply]:
        faults = {"seed": 5, "late_s": 0.4, **(simulator or {})}
        config = {"simulator": {"wire_faults": faults}, "identity": PSU_IDENTITY}
        process = start_psu_simulator(config, tmp_path / state, port=port)
        psu = open_instrument(process.resource, kind="power-supply", name="psu1", timeout_s=0.2, retries=retries,
                              wire_log=tmp_path / "psu1.wire.jsonl")
        started.append((process, psu))
        return process, psu

    yield start
    for process, psu in reversed(started):
        psu.close()
        process.close()


def wire(path: Path, direction: str) -> list[bytes]:
    return [bytes.fromhex(entry["hex"]) for entry in map(json.loads, path.read_text().splitlines())
            if entry["dir"] == direction]


def exercise(psu: ScpiPowerSupply, rounds: int) -> None:
    """Set, switch and read back ``rounds`` times; every value must be the true one."""
    for index in range(rounds):
        volts = 5.0 + index
        on = index % 2 == 0
        psu.set_voltage(volts)
        psu.output(on)
        assert psu.voltage() == volts
        assert psu.output_state() is on
        assert psu.measure_current() == pytest.approx(volts / 40.0 if on else 0.0)


def test_identify_voltage_output_current_and_a_refused_setting(supply, tmp_path: Path) -> None:
    _, psu = supply()
    assert psu.identify() == InstrumentIdentity(**PSU_IDENTITY)
    psu.set_voltage(12.0)
    assert psu.voltage() == 12.0
    assert psu.output_state() is False  # a supply starts with its output off
    assert psu.measure_current() == 0.0
    psu.output(True)
    assert psu.output_state() is True
    assert psu.measure_current() == pytest.approx(12.0 / 40.0)  # the 40-ohm load
    psu.output(False)
    assert psu.measure_current() == 0.0
    log = tmp_path / "psu1.wire.jsonl"
    assert b"VOLT 12\n" in wire(log, "tx") and b"SYST:ERR?\n" in wire(log, "tx")
    assert b'+0,"No error"\n' in wire(log, "rx")
    assert (psu.link.garbled_replies, psu.link.timeouts, psu.link.reconnects) == (0, 0, 0)
    with pytest.raises(InstrumentRefused, match=r"psu1 \(TCPIP::127\.0\.0\.1::\d+::SOCKET\).*VOLT 45.*-222") as error:
        psu.set_voltage(45.0)
    assert error.value.errors == [(-222, "Data out of range")]
    assert psu.voltage() == 12.0  # the refused setting changed nothing
    with pytest.raises(ValueError, match="non-negative"):
        psu.set_voltage(-1.0)


def test_garbage_is_retried_and_every_garbled_reply_counted(supply, tmp_path: Path) -> None:
    _, psu = supply({"garbage_rate": 0.25}, retries=5)
    exercise(psu, 3)
    bad = [raw for raw in wire(tmp_path / "psu1.wire.jsonl", "rx")
           if VALID_REPLY.fullmatch(raw.decode("latin-1").removesuffix("\n")) is None]
    assert len(bad) > 3
    assert psu.link.garbled_replies == len(bad)  # each garbled reply counted once, none taken as a value


def test_flipped_bits_and_dropped_bytes_never_become_values(supply) -> None:
    _, psu = supply({"flipped_bit_rate": 0.2, "dropped_byte_rate": 0.2}, retries=6)
    exercise(psu, 3)
    assert psu.link.garbled_replies > 0
    assert psu.link.disagreements > 0  # a corrupted reply that still parsed, caught by confirmation


def test_lost_late_and_disconnected_replies_cost_a_timeout_and_a_reconnect(supply) -> None:
    _, psu = supply({"silent_rate": 0.06, "late_rate": 0.06, "disconnect_rate": 0.06}, retries=5)
    exercise(psu, 2)
    assert psu.link.timeouts > 0
    assert psu.link.reconnects == psu.link.timeouts + psu.link.link_failures


def test_a_line_silenced_longer_than_the_retry_budget_is_reported_then_the_supply_answers_again(supply) -> None:
    """``silence`` disconnect: seed 21 draws it on the second line (``*IDN?``; the first is the driver's ``*CLS``)
    and on none of the next six; for 1 s every line is dropped, longer than 3 attempts of 0.2 s."""
    _, psu = supply({"seed": 21, "disconnect_rate": 0.3, "disconnect_model": "silence", "disconnect_s": 1.0},
                    retries=1)
    with pytest.raises(InstrumentError, match=r"identify \(\*IDN\?\)' failed after 3 attempt.*no reply within 0.2 s"):
        psu.identify()
    assert psu.link.timeouts == 3
    time.sleep(1.0)
    assert psu.identify() == InstrumentIdentity(**PSU_IDENTITY)  # the same driver, once the line is back


def test_a_supply_that_goes_away_gives_a_clear_error_then_is_reconnected_when_back(supply) -> None:
    process, psu = supply(retries=1)
    psu.set_voltage(7.5)
    psu.link.settings = replace(psu.link.settings, open_backoff_s=0.05)
    state = Path(process.process.args[process.process.args.index("--state") + 1])
    process.close()  # the supply goes away: the connection drops, nothing listens any more
    with pytest.raises(InstrumentError, match=r"psu1 \(TCPIP::127\.0\.0\.1::\d+::SOCKET\): 'identify \(\*IDN\?\)' "
                                              r"failed after 3 attempt.*Connection refused") as error:
        psu.identify()
    assert isinstance(error.value, DeviceError)  # suites handle every device failure alike
    restarted = start_psu_simulator({"simulator": {}, "identity": PSU_IDENTITY}, state, port=process.port)
    try:
        assert psu.voltage() == 7.5  # the driver reconnected on its own; the setting is non-volatile
        assert psu.link.reconnects >= 1
    finally:
        restarted.close()


# -- the frequency counter over pyvisa-sim --------------------------------------------------


def counter(resource: str, tmp_path: Path) -> ScpiFrequencyCounter:
    return open_instrument(resource, kind="frequency-counter", backend=f"{SIMULATED_INSTRUMENTS_YAML}@sim",
                           name="tach", timeout_s=0.2, retries=2, wire_log=tmp_path / "tach.wire.jsonl")


def test_frequency_counter_reads_the_rotor_speed(tmp_path: Path) -> None:
    tach = counter("TCPIP0::192.168.0.40::INSTR", tmp_path)
    try:
        assert tach.identify() == InstrumentIdentity("Bench Sim", "TACH-8", "SIM-0040", "2.3")
        assert tach.measure_frequency() == pytest.approx(3.2)
        assert tach.rotor_rpm(8) == pytest.approx(24.0)  # 8 marks on a rotor turning at 24 rpm
        assert b"MEAS:FREQ?\n" in wire(tmp_path / "tach.wire.jsonl", "tx")
    finally:
        tach.close()


@pytest.mark.parametrize(("resource", "reason"), [("TCPIP0::192.168.0.41::INSTR", "no valid measurement"),
                                                  ("TCPIP0::192.168.0.42::INSTR", "not an SCPI number")])
def test_frequency_counter_never_guesses_a_bad_reading(resource: str, reason: str, tmp_path: Path) -> None:
    tach = counter(resource, tmp_path)
    try:
        with pytest.raises(InstrumentError, match=rf"tach .*measure the frequency \(MEAS:FREQ\?\).*{reason}"):
            tach.measure_frequency()
        assert tach.link.garbled_replies == 4  # 1 + retries + 1 confirming reading, every one refused
    finally:
        tach.close()


# -- profile model ---------------------------------------------------------------------------


def test_profile_instruments_validate_and_discriminate_by_kind(tmp_path: Path) -> None:
    adapter = TypeAdapter(Instrument)
    psu = adapter.validate_python({"kind": "power-supply", "simulator": {"relay_fault": "sticky"}, "voltage": 12,
                                   "powers": ["wheel1"], "off_s": 1.5})
    assert isinstance(psu, PowerSupplyInstrument) and psu.simulator.relay_fault == "sticky"
    tach = adapter.validate_python({"kind": "frequency-counter", "simulated": True, "pulses_per_revolution": 8})
    assert isinstance(tach, FrequencyCounterInstrument)
    real = adapter.validate_python({"kind": "power-supply", "connection": {"resource": "TCPIP::10.0.0.5::5025::SOCKET"}})
    assert real.connection.backend == "@py"
    config = psu_simulator_config(psu, tmp_path / "rail.json")
    assert config["power_rail"].endswith("rail.json") and config["simulator"]["relay_fault"] == "sticky"


@pytest.mark.parametrize(("table", "fault"), [
    ({"kind": "power-supply"}, "needs connection.resource"),
    ({"kind": "power-supply", "simulator": {}, "connection": {"resource": "x"}}, "not both"),
    ({"kind": "power-supply", "simulator": {"max_voltage": 10}, "voltage": 12}, "above the simulated"),
    ({"kind": "power-supply", "simulator": {"wire_faults": {"garbage_rate": 0.6, "late_rate": 0.5}}}, "add up to"),
    ({"kind": "power-supply", "simulator": {"garbage_rate": 0.1}}, "Extra inputs"),
    ({"kind": "power-supply", "simulator": {}, "powers": ["a", "a"]}, "twice"),
    ({"kind": "frequency-counter", "simulated": True, "pulses_per_revolution": 0}, "greater than 0"),
    ({"kind": "frequency-counter", "simulated": True, "speed": 1}, "Extra inputs"),
])
def test_bad_instrument_tables_are_refused_naming_the_fault(table: dict[str, Any], fault: str) -> None:
    with pytest.raises(ValidationError, match=fault):
        TypeAdapter(Instrument).validate_python(table)
