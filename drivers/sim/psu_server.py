"""Simulated programmable DC power supply: an SCPI server on a loopback TCP socket.

Run as its own process::

    python -m drivers.sim.psu_server --config JSON [--state FILE] [--port N]

It announces ``VISA TCPIP::127.0.0.1::<port>::SOCKET`` on standard output; the real driver
(:mod:`drivers.instruments`, pyvisa with pyvisa-py) opens that resource exactly as it opens a
supply on the lab network. The config is ``{"simulator": PowerSupplySimulator, "identity":
{...}, "power_rail": "<path>"}``. Its output drives the power rail (:mod:`drivers.sim.power_rail`)
that the simulated devices it feeds read, so switching the output off really silences them.

Faults: the simulator's ``wire_faults`` (:class:`bench.profiles.base.WireFaults`), at most one per
received line, each line's draw from a generator seeded ``(wire_faults.seed, n)`` where ``n``
counts the lines the supply has received, kept in the state file so a restarted supply continues
reproducibly: garbage before the reply, a flipped bit, a dropped byte, no reply, a late reply, a
disconnect (the connection closed, or everything ignored for ``disconnect_s``); and the
``sticky`` output relay. Non-volatile state: the voltage setting and ``n``.
The SCPI subset and the faults are described in ``docs/protocols/scpi-instruments.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.profiles.instruments import PowerSupplyInstrument, PowerSupplySimulator
from drivers.sim.host import ProcessHandle, launch_announced
from drivers.sim.power_rail import PowerRail
from drivers.sim.state_file import load_state, save_state

DEFAULT_IDENTITY = {"manufacturer": "Bench Sim", "model": "PSU-30-5", "serial": "SIM-0001", "firmware": "1.0"}

# SCPI mnemonics: long form -> short form; OPTIONAL nodes may be left out of a header.
_NODES = {
    "OUTPUT": "OUTP", "STATE": "STAT", "SOURCE": "SOUR", "VOLTAGE": "VOLT", "LEVEL": "LEV", "IMMEDIATE": "IMM",
    "AMPLITUDE": "AMPL", "MEASURE": "MEAS", "SCALAR": "SCAL", "CURRENT": "CURR", "SYSTEM": "SYST", "ERROR": "ERR",
    "NEXT": "NEXT", "INSTRUMENT": "INST", "NSELECT": "NSEL", "DC": "DC",
}
_SHORT = set(_NODES.values())
_OPTIONAL = {"SOUR", "STAT", "LEV", "IMM", "AMPL", "SCAL", "DC", "NEXT"}

NO_ERROR = (0, "No error")
UNDEFINED_HEADER = (-113, "Undefined header")
MISSING_PARAMETER = (-109, "Missing parameter")
DATA_TYPE_ERROR = (-104, "Data type error")
OUT_OF_RANGE = (-222, "Data out of range")
ILLEGAL_VALUE = (-224, "Illegal parameter value")
QUEUE_OVERFLOW = (-350, "Queue overflow")


def canonical_header(header: str) -> str | None:
    """``:SOURce:VOLTage:LEVel`` -> ``VOLT``; ``None`` for a header with an unknown mnemonic."""
    nodes = []
    for node in header.strip(":").upper().split(":"):
        short = _NODES.get(node, node if node in _SHORT else None)
        if short is None:
            return None
        if short not in _OPTIONAL:
            nodes.append(short)
    return ":".join(nodes)


@dataclass
class Action:
    """What the supply does in answer to one received line."""

    reply: bytes | None = None
    delay_s: float = 0.0
    disconnect: bool = False
    fault: str = "none"


class PsuModel:
    """The supply's settings, its error queue, its output relay and its faults."""

    def __init__(self, config: PowerSupplySimulator, identity: dict[str, str], rail: PowerRail | None,
                 state_file: Path | None = None) -> None:
        self.config = config
        self.faults = config.wire_faults
        self.silent_until = 0.0  # monotonic time until which a ``silence`` disconnect drops every line
        self.identity = {**DEFAULT_IDENTITY, **{key: value for key, value in identity.items() if value}}
        self.rail = rail
        self.state_file = state_file
        state = load_state(state_file, "power supply")
        try:
            self.voltage = float(state.get("voltage", 0.0))
            self.received = int(state.get("received", 0))
        except (TypeError, ValueError) as error:
            raise ValueError(f"{state_file}: unreadable power supply state ({error})") from error
        self.output = config.output_at_power_on
        self.relay_closed = self.output
        self.errors: deque[tuple[int, str]] = deque()
        self._drive_rail()

    # -- physics --------------------------------------------------------------

    def _drive_rail(self) -> None:
        if self.rail is not None:
            self.rail.set(self.relay_closed and self.voltage > 0.0, self.voltage if self.relay_closed else 0.0)

    def _switch(self, on: bool) -> None:
        self.output = on
        if on:
            self.relay_closed = True
        elif self.config.relay_fault != "sticky":
            self.relay_closed = False
        self._drive_rail()

    def current(self) -> float:
        """What the supply measures: V/R while it believes its output on (a relay welded downstream of the
        current sense, the ``sticky`` fault, does not show here)."""
        return self.voltage / self.config.load_ohms if self.output else 0.0

    # -- SCPI -----------------------------------------------------------------

    def _error(self, error: tuple[int, str]) -> None:
        if len(self.errors) >= 10:
            self.errors[-1] = QUEUE_OVERFLOW
        else:
            self.errors.append(error)

    def execute(self, line: str) -> str | None:
        """Carry out one command line; the reply text (no terminator) for a query, else ``None``."""
        text = line.strip()
        if not text:
            return None
        header, _, argument = text.partition(" ")
        argument = argument.strip()
        upper = header.upper()
        if upper == "*IDN?":
            return ",".join(self.identity[key] for key in ("manufacturer", "model", "serial", "firmware"))
        if upper == "*RST":
            self.voltage = 0.0
            self._switch(False)
            self._save()
            return None
        if upper == "*CLS":
            self.errors.clear()
            return None
        if upper == "*OPC?":
            return "1"
        query = upper.endswith("?")
        path = canonical_header(upper[:-1] if query else upper)
        handler = {"OUTP": self._output, "VOLT": self._voltage, "MEAS:CURR": self._measure_current,
                   "MEAS:VOLT": self._measure_voltage, "SYST:ERR": self._system_error,
                   "INST:NSEL": self._select}.get(path or "")
        if handler is None:
            self._error(UNDEFINED_HEADER)
            return None
        return handler(query, argument)

    def _output(self, query: bool, argument: str) -> str | None:
        if query:
            return "1" if self.output else "0"
        token = argument.upper()
        if not token:
            self._error(MISSING_PARAMETER)
        elif token in ("ON", "1"):
            self._switch(True)
        elif token in ("OFF", "0"):
            self._switch(False)
        else:
            self._error(DATA_TYPE_ERROR)
        return None

    def _voltage(self, query: bool, argument: str) -> str | None:
        if query:
            return f"{self.voltage:+.6E}"
        if not argument:
            self._error(MISSING_PARAMETER)
            return None
        try:
            volts = float(argument)
        except ValueError:
            self._error(DATA_TYPE_ERROR)
            return None
        if not 0.0 <= volts <= self.config.max_voltage:
            self._error(OUT_OF_RANGE)
            return None
        self.voltage = round(volts, 3)  # 1 mV setting resolution
        self._drive_rail()
        self._save()
        return None

    def _measure_current(self, query: bool, argument: str) -> str | None:
        if not query:
            self._error(UNDEFINED_HEADER)
            return None
        return f"{self.current():+.6E}"

    def _measure_voltage(self, query: bool, argument: str) -> str | None:
        if not query:
            self._error(UNDEFINED_HEADER)
            return None
        return f"{(self.voltage if self.output else 0.0):+.6E}"

    def _system_error(self, query: bool, argument: str) -> str | None:
        if not query:
            self._error(UNDEFINED_HEADER)
            return None
        code, message = self.errors.popleft() if self.errors else NO_ERROR
        return f'{code:+d},"{message}"'

    def _select(self, query: bool, argument: str) -> str | None:
        if query:
            return "1"
        if argument != "1":
            self._error(ILLEGAL_VALUE)  # a single-output supply
        return None

    # -- faults ---------------------------------------------------------------

    def _save(self) -> None:
        save_state(self.state_file, {"voltage": self.voltage, "received": self.received})

    def receive(self, raw: bytes) -> Action:
        """One received line: draw its fault, execute it (unless the line goes down), shape the reply.

        A line that arrives while the line is silenced (a ``silence`` disconnect) never reaches the supply.
        """
        if time.monotonic() < self.silent_until:
            return Action(fault="silenced")
        self.received += 1
        rng = np.random.default_rng([self.faults.seed, self.received])
        self._save()
        f = self.faults
        u = float(rng.random())
        if u < f.disconnect_rate:
            if f.disconnect_model == "silence":
                self.silent_until = time.monotonic() + f.disconnect_s
                return Action(fault="silence")
            return Action(disconnect=True, fault="disconnect")
        try:
            line = raw.decode("ascii")
        except UnicodeDecodeError:
            self._error(UNDEFINED_HEADER)
            return Action()
        reply = self.execute(line)
        if reply is None:
            return Action()
        data = (reply + "\n").encode("ascii")
        edges = np.cumsum([f.disconnect_rate, f.silent_rate, f.late_rate, f.garbage_rate, f.flipped_bit_rate,
                           f.dropped_byte_rate])
        fault = ["no-reply", "late", "garbage", "flip", "drop-byte", "none"][int(np.searchsorted(edges, u, "right")) - 1]
        if fault == "no-reply":
            return Action(fault=fault)
        if fault == "late":
            return Action(reply=data, delay_s=f.late_s, fault=fault)
        if fault == "garbage":  # random bytes (never a line end) before the reply: one unreadable line
            noise = rng.integers(0, 256, size=int(rng.integers(4, 24)), dtype=np.uint8)
            noise[noise == ord("\n")] = ord("~")
            return Action(reply=noise.tobytes() + data, fault=fault)
        if fault == "flip":
            corrupted = bytearray(data)
            corrupted[int(rng.integers(len(corrupted)))] ^= 1 << int(rng.integers(8))
            return Action(reply=bytes(corrupted), fault=fault)
        if fault == "drop-byte":
            position = int(rng.integers(len(data)))
            return Action(reply=data[:position] + data[position + 1:], fault=fault)
        return Action(reply=data)


# -- server ---------------------------------------------------------------------


async def _serve(model: PsuModel, port: int, announce: Callable[[str], None]) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                line = await reader.readline()
                if not line:
                    break
                action = model.receive(line)
                if action.disconnect:
                    break
                if action.reply is not None:
                    if action.delay_s:
                        await asyncio.sleep(action.delay_s)
                    writer.write(action.reply)
                    await writer.drain()
        except (ConnectionError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(connection, "127.0.0.1", port)
    bound = server.sockets[0].getsockname()[1]
    announce(f"TCPIP::127.0.0.1::{bound}::SOCKET")
    async with server:
        await stop.wait()


def psu_simulator_config(instrument: PowerSupplyInstrument, power_rail: Path | None) -> dict[str, Any]:
    """The ``--config`` of a profile's simulated supply; ``power_rail`` is the rail file its fed devices read."""
    if instrument.simulator is None:
        raise ValueError("this power supply is not simulated (no simulator table)")
    return {
        "simulator": instrument.simulator.model_dump(),
        "identity": instrument.identity.model_dump(exclude_none=True) if instrument.identity else {},
        "power_rail": str(power_rail) if power_rail is not None else None,
    }


def run_psu_simulator(config: dict[str, Any], state_file: Path | None = None, *, port: int = 0,
                      announce: Callable[[str], None] | None = None) -> None:
    """Serve the simulated supply in this process until SIGTERM/SIGINT (what ``bench sim serve psu`` runs)."""
    rail_path = config.get("power_rail")
    model = PsuModel(PowerSupplySimulator.model_validate(config.get("simulator", {})), config.get("identity", {}),
                     PowerRail(Path(rail_path)) if rail_path else None, state_file)
    asyncio.run(_serve(model, port, announce or (lambda resource: print(f"VISA {resource}", flush=True))))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Simulated SCPI power supply on a loopback TCP socket")
    parser.add_argument("--config", required=True, help="JSON: simulator model, identity, power_rail")
    parser.add_argument("--state", type=Path, default=None, help="state file (voltage setting, fault counter)")
    parser.add_argument("--port", type=int, default=0, help="TCP port (default: any free port)")
    args = parser.parse_args(argv)
    run_psu_simulator(json.loads(args.config), args.state, port=args.port)
    return 0


# -- starting it as a process -----------------------------------------------------


@dataclass
class PsuProcess(ProcessHandle):
    """A running PSU simulator and the VISA resource its driver opens."""

    process: subprocess.Popen[str]
    resource: str

    @property
    def port(self) -> int:
        return int(self.resource.split("::")[2])


def start_psu_simulator(config: dict[str, Any], state_file: Path | None = None, *, port: int = 0,
                        startup_timeout_s: float = 20.0) -> PsuProcess:
    """Start the PSU simulator process (dies with its parent) and wait for it to announce its resource."""
    command = [sys.executable, "-m", "drivers.sim.psu_server", "--config", json.dumps(config), "--port", str(port)]
    if state_file is not None:
        command += ["--state", str(state_file)]
    process, resource = launch_announced(command, "VISA", "power supply simulator", "resource",
                                          startup_timeout_s)
    return PsuProcess(process=process, resource=resource)


if __name__ == "__main__":
    sys.exit(main())
