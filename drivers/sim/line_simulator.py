"""The command line every line-protocol simulator runs: ``python -m drivers.sim.<kind> --config JSON [--state FILE]``.

``--config`` carries the profile's ``simulator`` table, the ``identity`` to report and, for a device fed
by a simulated power supply, the ``power_rail`` file (:mod:`drivers.sim.power_rail`). ``boot`` is what
the device's firmware does at power-up: it loads the device from its state file (non-volatile memory)
and returns the line handler. The handler is served on a pseudo-terminal through the table's line faults.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from bench.profiles.base import SimulatorBase
from drivers.sim.power_rail import powered
from drivers.sim.pty_server import Handler, serve_lines

S = TypeVar("S", bound=SimulatorBase)


def parse_simulator_arguments(description: str, argv: list[str] | None) -> tuple[dict[str, Any], Path | None]:
    """``--config`` (parsed JSON) and ``--state`` of a simulator's command line."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config", required=True, help="JSON: simulator model, identity, optional power_rail")
    parser.add_argument("--state", type=Path, default=None, help="state file (the device's non-volatile memory)")
    args = parser.parse_args(argv)
    return json.loads(args.config), args.state


def run_line_simulator(description: str, model: type[S], boot: Callable[[S, dict[str, Any], Path | None], Handler],
                       argv: list[str] | None = None) -> int:
    """Validate the ``simulator`` table with ``model`` and serve ``boot``'s handler until SIGTERM."""
    config, state = parse_simulator_arguments(description, argv)
    simulator = model.model_validate(config["simulator"])

    def power_up() -> Handler:
        return boot(simulator, config, state)

    rail = config.get("power_rail")
    serve_lines(powered(power_up, rail) if rail else power_up(), faults=simulator.wire_faults)
    return 0
