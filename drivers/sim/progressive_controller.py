"""Simulated progressive controller: the host of a SAS progressive link, broadcasting its levels on a pty.

The controller builds each level from a set percentage of the amounts played on the slot machines
linked to it (p217-2007/maquinas-automaticas/3: a jackpot fed by one machine; /4: a superjackpot
fed by the group of linked machines). Every ``broadcast_interval_s`` it

1. learns each linked machine's coin in. A real controller polls its machines' meters over SAS
   (or counts their game-start events); this simulator reads the coin-in meter each linked slot-machine
   simulator keeps in its state file (:mod:`drivers.sim.slot_machine`, the machine's non-volatile
   memory) as the stand-in for that polling. The meter is in credits; the machine's denomination turns
   it into cents. Only whole wagers are counted (coin in moves by the bet per play); a meter that goes
   back (a machine whose meters were lost) starts a new baseline, contributing nothing for it;
2. adds to each level its contribution: ``level = start + percent / 100 x coin in since the link
   started`` (the first coin-in reading of a machine is its baseline), kept **exactly** as a fraction of
   a cent in the state file (non-volatile: a power cycle keeps every level and every baseline, and the
   play while the controller was off is counted at its next reading);
3. broadcasts every level in whole cents, **rounded down, the fraction of a cent carried** (never
   lost), with long poll 0x86 (0x80 when the link has one level) to address 0, group ``group``, in
   the pty escape framing of :mod:`drivers.sas_transport`.

Fault models (:class:`~bench.profiles.progressive.ProgressiveSimulator`), each on ``fault_level``:
``skim`` contributes ``skim_factor`` times the declared percentage; ``rounding-loss`` truncates each
wager's contribution to whole cents, losing the fractions; ``unlinked-machine`` ignores the play of
``unlinked_machine``. ``garble_rate`` corrupts the CRC of that share of broadcasts.

Config (JSON, from :func:`bench.rig.progressive_config`): ``simulator`` (the model), ``identity``,
``link`` (``group`` and ``levels`` of the profile's options), ``machines`` (per linked machine: its
simulator's ``state_file``, ``denomination_cents``, ``bet_per_play`` in credits), optional ``power_rail``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from bench.profiles.progressive import MAX_AMOUNT_CENTS, ProgressiveLevel, ProgressiveSimulator
from drivers.sas_protocol import encode_multi_progressive, encode_single_progressive
from drivers.sas_transport import escape_message
from drivers.sim.power_rail import PoweredDevice
from drivers.sim.pty_server import Reply, serve_bytes
from drivers.sim.state_file import load_state, save_state

_GARBLE_STREAM = 0x9D0


@dataclass(frozen=True)
class LinkedMachine:
    """What the controller knows of one linked machine."""

    name: str
    state_file: Path
    denomination_cents: int
    bet_per_play: int  # credits

    def coin_in(self) -> int | None:
        """The machine's coin-in meter (credits) as its non-volatile memory holds it; None when it holds none."""
        try:
            state = load_state(self.state_file, f"slot machine {self.name!r}")
        except ValueError:
            return None  # caught mid-write by a foreign tool: read again at the next tick
        meters = state.get("meters")
        if not isinstance(meters, dict) or "coin_in" not in meters:
            return None
        return int(meters["coin_in"])


class ProgressiveLink:
    """The levels of one progressive link and the machines feeding them."""

    def __init__(self, config: ProgressiveSimulator, group: int, levels: list[ProgressiveLevel],
                 machines: dict[str, LinkedMachine], state_file: Path | None = None) -> None:
        self.config = config
        self.group = group
        self.levels = sorted(levels, key=lambda level: level.level)
        self.machines = machines
        self.state_file = state_file
        missing = sorted({name for level in levels for name in level.machines} - set(machines))
        if missing:
            raise ValueError(f"no state file given for linked machine(s) {', '.join(missing)}")
        state = load_state(state_file, "progressive controller")
        saved = state.get("levels", {})
        self.exact: dict[int, Fraction] = {level.level: Fraction(saved.get(str(level.level), level.start_cents))
                                           for level in self.levels}
        self.seen: dict[str, int] = {name: int(value) for name, value in state.get("seen", {}).items()}

    def _percent(self, level: ProgressiveLevel) -> Fraction:
        percent = Fraction(level.contribution_percent)
        if self.config.model == "skim" and level.level == self.config.fault_level:
            percent *= Fraction(self.config.skim_factor)
        return percent

    def _contribution(self, level: ProgressiveLevel, machine: LinkedMachine, wagers: int) -> Fraction:
        """What ``wagers`` whole wagers of ``machine`` add to ``level``, in cents."""
        faulty = level.level == self.config.fault_level
        if faulty and self.config.model == "unlinked-machine" and machine.name == self.config.unlinked_machine:
            return Fraction(0)
        per_wager = self._percent(level) / 100 * machine.bet_per_play * machine.denomination_cents
        if faulty and self.config.model == "rounding-loss":
            per_wager = Fraction(per_wager.numerator // per_wager.denominator)
        return per_wager * wagers

    def update(self) -> bool:
        """Read every linked machine's coin in and contribute its new wagers; whether anything changed."""
        changed = False
        for machine in self.machines.values():
            coin_in = machine.coin_in()
            if coin_in is None:
                continue
            last = self.seen.get(machine.name)
            if last is None or coin_in < last:  # first reading, or a meter that went back: a new baseline
                self.seen[machine.name] = coin_in
                changed = True
                continue
            wagers = (coin_in - last) // machine.bet_per_play
            if not wagers:
                continue
            self.seen[machine.name] = last + wagers * machine.bet_per_play
            for level in self.levels:
                if machine.name in level.machines:
                    self.exact[level.level] += self._contribution(level, machine, wagers)
            changed = True
        if changed:
            self.save()
        return changed

    def amounts(self) -> dict[int, int]:
        """Each level in whole cents, rounded down (the fraction of a cent carried in ``exact``)."""
        return {number: min(int(value), MAX_AMOUNT_CENTS) for number, value in self.exact.items()}

    def save(self) -> None:
        save_state(self.state_file, {"levels": {str(number): str(value) for number, value in self.exact.items()},
                                     "seen": self.seen})


class ProgressiveBroadcaster:
    """Per tick: learn the machines' play, then broadcast every level (0x80 for one level, 0x86 for several)."""

    def __init__(self, link: ProgressiveLink) -> None:
        self.link = link
        self._garble = np.random.default_rng([link.config.seed, _GARBLE_STREAM])

    def message(self) -> bytes:
        amounts = self.link.amounts()
        if len(amounts) == 1:
            [(level, amount)] = amounts.items()
            return encode_single_progressive(0, self.link.group, level, amount)
        return encode_multi_progressive(0, self.link.group, amounts)

    def tick(self) -> list[Reply]:
        self.link.update()
        message = self.message()
        if self.link.config.garble_rate and self._garble.random() < self.link.config.garble_rate:
            message = message[:-2] + bytes([message[-2] ^ 0xFF, message[-1]])
        return [(0.0, escape_message(message))]

    def handle(self, _chunk: bytes) -> Iterable[Reply]:
        return []  # the machines never answer a broadcast; anything heard is ignored


def link_from_config(config: dict[str, Any], state_file: Path | None) -> ProgressiveLink:
    """The link as the config describes it, loaded from ``state_file`` (what the controller is after a power-up)."""
    simulator = ProgressiveSimulator.model_validate(config["simulator"])
    link = config["link"]
    levels = [ProgressiveLevel.model_validate(level) for level in link["levels"]]
    machines = {name: LinkedMachine(name, Path(item["state_file"]), int(item["denomination_cents"]),
                                    int(item["bet_per_play"])) for name, item in config["machines"].items()}
    return ProgressiveLink(simulator, int(link["group"]), levels, machines, state_file)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Simulated progressive controller (SAS broadcasts, pty escape)")
    parser.add_argument("--config", required=True, help="JSON: simulator model, identity, link, machines")
    parser.add_argument("--state", type=Path, default=None, help="state file (levels, coin-in baselines)")
    args = parser.parse_args(argv)
    config = json.loads(args.config)
    simulator = ProgressiveSimulator.model_validate(config["simulator"])
    interval = simulator.broadcast_interval_s
    rail = config.get("power_rail")
    if not rail:
        broadcaster = ProgressiveBroadcaster(link_from_config(config, args.state))
        serve_bytes(broadcaster.handle, tick=broadcaster.tick, tick_interval_s=interval, faults=simulator.wire_faults)
        return 0
    fed = PoweredDevice(lambda: ProgressiveBroadcaster(link_from_config(config, args.state)), rail)

    def tick() -> list[Reply]:
        broadcaster = fed.current()
        return [] if broadcaster is None else broadcaster.tick()

    serve_bytes(lambda _chunk: [], tick=tick, tick_interval_s=interval, faults=simulator.wire_faults)
    return 0


if __name__ == "__main__":
    sys.exit(main())
