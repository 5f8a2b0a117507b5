"""The simulated power rail between a simulated power supply and the simulated devices it feeds.

On a lab bench a programmable power supply feeds the equipment under test, and a
power-cycle test switches that supply off and on. In the simulated rig the PSU
simulator (:mod:`drivers.sim.psu_server`) writes the state of its output to a
small JSON file, the *rail*, and every simulated device fed by it reads the rail
before answering a request:

``{"on": true, "voltage": 12.0, "generation": 3, "updated": 1718000000.0}``

* ``on``: the output really delivers power (relay closed and a voltage set). Under
  the PSU simulator's ``sticky`` relay fault this stays ``true`` although the
  supply reports its output off; that is the point of the fault.
* ``generation``: how many times the rail went from off to on (power-ups). A device
  that sees the generation change has been without power in between, however short.
* The file is replaced atomically (temporary file, then rename), so a reader sees
  the old state or the new one, never half of one.

:func:`powered` wraps a device's line handler: unpowered, the device stays silent
(no reply at all, as a dark device on a serial line); after a power cycle it is
rebuilt from its state file, exactly what a process restart does, so volatile
memory is lost and non-volatile memory kept.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from drivers.sim.pty_server import Handler, Reply

D = TypeVar("D")


@dataclass(frozen=True)
class RailState:
    """One reading of the rail file."""

    on: bool
    voltage: float
    generation: int
    updated: float


def read_rail(path: Path) -> RailState | None:
    """The rail's state, ``None`` when the file does not exist (nothing feeds the rail: no power).

    Raises ValueError naming the file when it exists but is not a rail file.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    try:
        data = json.loads(text)
        return RailState(
            on=bool(data["on"]),
            voltage=float(data["voltage"]),
            generation=int(data["generation"]),
            updated=float(data.get("updated", 0.0)),
        )
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path}: not a power rail file ({error})") from error


def write_rail(path: Path, state: RailState) -> None:
    """Replace the rail file atomically (a reader never sees a half-written file)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(
        json.dumps({"on": state.on, "voltage": state.voltage, "generation": state.generation, "updated": state.updated}),
        encoding="utf-8",
    )
    temporary.replace(path)


class PowerRail:
    """The writer's side of a rail: the PSU simulator sets it whenever its real output changes."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        previous = read_rail(self.path)
        # a restarted supply continues the generation count, so devices still see every power-up
        self.generation = previous.generation if previous is not None else 0
        self.on = False
        self.voltage = 0.0

    def set(self, on: bool, voltage: float) -> None:
        """Record the output as it physically is; an off-to-on transition is a new generation."""
        if on and not self.on:
            self.generation += 1
        self.on = on
        self.voltage = voltage
        write_rail(self.path, RailState(on, voltage, self.generation, time.time()))


class PoweredDevice(Generic[D]):
    """A simulated device fed by a rail: ``current()`` is the device while it has power, ``None`` without.

    The device is built with ``factory()`` (which loads it from its state file) once here, so a bad
    configuration fails at start-up, and again whenever the rail's generation differs from the one
    it was built under, i.e. after every loss of power, however short.
    """

    def __init__(self, factory: Callable[[], D], rail_path: Path | str) -> None:
        self.factory = factory
        self.path = Path(rail_path)
        self.device = factory()
        initial = read_rail(self.path)
        self.built_under: int | None = initial.generation if initial is not None and initial.on else None
        self.boots = 1

    def current(self) -> D | None:
        rail = read_rail(self.path)
        if rail is None or not rail.on:
            return None
        if rail.generation != self.built_under:
            self.device = self.factory()
            self.built_under = rail.generation
            self.boots += 1
        return self.device


def powered(handler_factory: Callable[[], Handler], rail_path: Path | str) -> Handler:
    """A line handler for :func:`drivers.sim.pty_server.serve_lines` that behaves like a device fed by the rail.

    * Rail off or absent: the request is ignored (no reply), as by an unpowered device.
    * Rail on with a generation other than the one the current handler was built under (the
      device lost power since): the handler is rebuilt with ``handler_factory()``, which
      reloads the device from its state file (volatile memory lost, non-volatile kept).

    A device that also acts on its own (``serve_bytes``'s ``tick``) uses :class:`PoweredDevice`
    directly, so that its handler and its tick see the same device.
    """
    device = PoweredDevice(handler_factory, rail_path)

    def handle(line: bytes) -> list[Reply]:
        handler = device.current()
        return [] if handler is None else list(handler(line))

    return handle
