"""Start device simulators as their own processes, each behind a pseudo-terminal.

A lab PC sees ``/dev/ttyUSB0``; the simulated rig hands drivers the
simulator's ``/dev/pts/N`` instead, so the real driver code runs unchanged.
Every simulator is started with ``PR_SET_PDEATHSIG`` so it dies with the
process that started it, even when that process is killed with SIGKILL, and is
stopped (SIGTERM, then SIGKILL) when its :class:`SimulatorProcess` closes.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from bench.paths import child_environment

SIMULATOR_MODULES: dict[str, str] = {
    "roulette-wheel": "drivers.sim.roulette_wheel",
    "rng": "drivers.sim.rng_device",
    "card-shuffler": "drivers.sim.shuffler",
    "slot-machine": "drivers.sim.slot_machine",
    "jackpot-display": "drivers.sim.jackpot_controller",
    "gaming-table": "drivers.sim.gaming_table",
    "dice-shaker": "drivers.sim.cussec_dome",
    "progressive-controller": "drivers.sim.progressive_controller",
}

_PR_SET_PDEATHSIG = 1


class SimulatorError(RuntimeError):
    """A simulator could not be started."""


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


def simulator_command(kind: str, config: dict[str, Any], state_file: Path | None) -> list[str]:
    """The command line that runs the simulator of ``kind``."""
    try:
        module = SIMULATOR_MODULES[kind]
    except KeyError as error:
        raise SimulatorError(f"no simulator for equipment kind {kind!r} (have: {', '.join(SIMULATOR_MODULES)})") from error
    command = [sys.executable, "-m", module, "--config", json.dumps(config)]
    if state_file is not None:
        command += ["--state", str(state_file)]
    return command


class ProcessHandle:
    """A simulator child process (``self.process``) that can be stopped: SIGTERM, then SIGKILL."""

    process: subprocess.Popen[str]

    @property
    def pid(self) -> int:
        return self.process.pid

    def close(self, timeout_s: float = 5.0) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=timeout_s)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class SimulatorProcess(ProcessHandle):
    """A running simulator and the tty path its driver opens."""

    kind: str
    process: subprocess.Popen[str]
    tty_path: str


def launch_announced(command: list[str], prefix: str, what: str, address: str, startup_timeout_s: float
                     ) -> tuple[subprocess.Popen[str], str]:
    """Start ``command`` (dying with this process) and wait for its first output line ``<prefix> <address>``;
    returns the process and the address. :class:`SimulatorError` with its stderr when it does not announce
    (``what`` and ``address`` name the simulator and what it should have announced)."""
    root = str(Path(__file__).resolve().parents[2])
    environment = child_environment()  # never the laboratory key's passphrase
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [root, environment.get("PYTHONPATH")]))
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_die_with_parent,  # noqa: PLW1509 - the child only calls prctl before exec
        env=environment,
    )
    announced: list[str] = []
    reader = threading.Thread(target=lambda: announced.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(startup_timeout_s)
    line = announced[0].strip() if announced else ""
    if not line.startswith(prefix + " "):
        process.kill()
        error_text = process.stderr.read() if process.stderr else ""
        process.wait()
        raise SimulatorError(
            f"{what} did not announce its {address} within {startup_timeout_s:g} s "
            f"(got {line!r}); stderr: {error_text.strip()[-2000:]}"
        )
    return process, line[len(prefix) + 1:]


def start_simulator(
    kind: str, config: dict[str, Any], state_file: Path | None = None, *, startup_timeout_s: float = 20.0
) -> SimulatorProcess:
    """Start the simulator of ``kind`` and wait for it to announce its tty."""
    process, tty_path = launch_announced(simulator_command(kind, config, state_file), "TTY", f"{kind} simulator", "tty",
                                         startup_timeout_s)
    return SimulatorProcess(kind=kind, process=process, tty_path=tty_path)
