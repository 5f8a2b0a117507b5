"""Simulated slot machine answering a SAS host on a pseudo-terminal (escape framing, :mod:`drivers.sas_transport`).

The machine plays its PAR sheet (:class:`~bench.profiles.slot.ParSheet`) at ``plays_per_second``
while play is enabled (SAS long polls 02 / 01): each game stops every reel uniformly
(:func:`bench.games.slots.random_stops`), wins what the pay table says
(:func:`~bench.games.slots.spin_wins`), and moves the meters a real machine keeps
(p217-2007/maquinas-automaticas/9): coin in, coin out, jackpot (hand-paid wins), drop (bills
inserted whenever the credits do not cover a bet), games played / won / lost, current credits.

Games are drawn in blocks of :data:`BLOCK` from a generator seeded ``(seed, block)``; the game
counter (the RNG position) is always kept in the state file, so a restarted machine continues
reproducibly. The meters are kept there too (non-volatile), except under ``volatile-meters``,
where a power cycle loses them: a process restart, or, for a machine fed by a simulated power
supply (``power_rail`` in the config, :mod:`drivers.sim.power_rail`), the supply's output going off
and on. While the rail is off the machine is dark: it neither answers nor plays. ``dropped-meter`` lets one meter miss its
increment in a share of games; ``low-return`` plays a PAR sheet under 80 %.

A simulated progressive controller linking this machine (:mod:`drivers.sim.progressive_controller`)
reads the coin-in meter from the state file, as a real controller polls it; the machine itself
only stores the levels broadcast to its group (long polls 80 / 86).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from bench.games.slots import DENOMINATIONS_CENTS, random_stops, spin_wins
from bench.profiles.slot import SlotSimulator
from drivers import sas_protocol as sas
from drivers.sas_protocol import Command, FrameError, MachineInfo
from drivers.sas_transport import Unescaper, escape_reply
from drivers.sim.power_rail import PoweredDevice
from drivers.sim.pty_server import Reply, serve_bytes
from drivers.sim.state_file import load_state, save_state

BLOCK = 256
SAS_VERSION = "602"
EXCEPTION_QUEUE = 128
METER_ROLLOVER = 10**8  # 4 BCD bytes
METERS = ("coin_in", "coin_out", "jackpot", "cancelled_credits", "games_played", "games_won", "games_lost",
          "current_credits", "drop")
_DENOMINATION_CODE = {cents: code for code, cents in DENOMINATIONS_CENTS.items()}


class SlotModel:
    """The game and the meters of one simulated machine."""

    def __init__(self, config: SlotSimulator, state_file: Path | None = None) -> None:
        if config.par is None:
            raise ValueError("the slot machine simulator needs a PAR sheet (simulator.par)")
        self.config = config
        self.par = config.par
        self.machine = config.par.machine
        self.bet = config.par.bet_per_play
        self.state_file = state_file
        state = load_state(state_file, "slot machine")
        self.game = int(state.get("game", 0))  # games really played since manufacture: the RNG position
        saved = state.get("meters") if config.model != "volatile-meters" else None
        self.meters: dict[str, int] = {name: int((saved or {}).get(name, 0)) for name in METERS}
        self.enabled = bool(state.get("enabled", config.start_enabled))
        self.progressive: dict[str, Any] = state.get("progressive", {})
        self.events: deque[int] = deque([0x17])  # AC power was applied
        self._overflowed = False
        self._block: tuple[int, np.ndarray, np.ndarray, np.ndarray] | None = None

    def _outcomes(self, block: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Wins (credits), dropped-meter and door draws of the games of ``block``."""
        if self._block is None or self._block[0] != block:
            rng = np.random.default_rng([self.config.seed, block])
            stops = random_stops(self.machine, rng, BLOCK)
            wins = spin_wins(self.machine, stops) * self.par.credits_per_line
            self._block = (block, np.rint(wins).astype(np.int64), rng.random(BLOCK), rng.random(BLOCK))
        return self._block[1], self._block[2], self._block[3]

    def outcome(self, game: int) -> tuple[int, bool, bool]:
        """Game ``game`` (1-based): its win in credits, whether its meter increment is dropped, whether the door opens."""
        wins, drop_draws, door_draws = self._outcomes((game - 1) // BLOCK)
        index = (game - 1) % BLOCK
        dropped = self.config.model == "dropped-meter" and drop_draws[index] < self.config.dropped_meter_rate
        return int(wins[index]), bool(dropped), bool(door_draws[index] < self.config.door_open_rate)

    def _add(self, name: str, amount: int, dropped: bool) -> None:
        if amount and not (dropped and name == self.config.dropped_meter):
            self.meters[name] += amount

    def _event(self, code: int) -> None:
        if len(self.events) < EXCEPTION_QUEUE:
            self.events.append(code)
        elif not self._overflowed:
            self.events[-1] = 0x70  # exception buffer overflow
            self._overflowed = True

    def play(self, games: int) -> None:
        """Play ``games`` games (bills into the drop as needed), moving the meters."""
        meters, bet, limit = self.meters, self.bet, self.par.handpay_limit_credits
        for _ in range(games):
            self.game += 1
            win, dropped, door = self.outcome(self.game)
            if meters["current_credits"] < bet:
                bills = -(-(bet - meters["current_credits"]) // self.config.bill_credits)
                self._add("drop", bills * self.config.bill_credits, dropped)
                meters["current_credits"] += bills * self.config.bill_credits
            self._event(0x7E)
            meters["current_credits"] -= bet
            self._add("coin_in", bet, dropped)
            self._add("games_played", 1, dropped)
            self._add("games_won" if win > 0 else "games_lost", 1, dropped)
            if limit is not None and win >= limit:
                self._add("jackpot", win, dropped)
                self._event(0x51)
                self._event(0x52)
            else:
                self._add("coin_out", win, dropped)
                meters["current_credits"] += win
            self._event(0x7F)
            if door:
                self._event(0x11)
                self._event(0x12)

    def next_event(self) -> int:
        if not self.events:
            return 0x00
        self._overflowed = False
        return self.events.popleft()

    def meter(self, name: str) -> int:
        return self.meters[name] % METER_ROLLOVER

    def save(self) -> None:
        state: dict[str, Any] = {"game": self.game, "enabled": self.enabled, "progressive": self.progressive}
        if self.config.model != "volatile-meters":
            state["meters"] = self.meters
        save_state(self.state_file, state)


class SasMachineSimulator:
    """Answers SAS polls for one :class:`SlotModel` and plays it at the configured rate."""

    def __init__(self, model: SlotModel, identity: dict[str, str]) -> None:
        self.model = model
        self.config = model.config
        self.address = self.config.address or 1
        self.identity = identity
        self._unescape = Unescaper()
        self._message = bytearray()
        self._collecting = False
        self._garble = np.random.default_rng([self.config.seed, 0x5A5])
        self.replies_with_crc = 0
        self.garbled_replies = 0
        self._enabled_since = time.monotonic()
        self._played_since_enable = 0
        self._request_bytes = 0

    # -- bytes in ----------------------------------------------------------------------------

    def handle(self, chunk: bytes) -> Iterable[Reply]:
        replies: list[Reply] = []
        for value, wakeup in self._unescape.feed(chunk):
            if wakeup:  # a wakeup byte starts a message, discarding any unfinished one
                self._message = bytearray([value])
                self._collecting = True
            elif self._collecting:
                self._message.append(value)
            else:
                continue
            try:
                length = sas.request_length(bytes(self._message))
            except FrameError:
                self._collecting = False  # a long poll this machine does not implement: ignored
                continue
            if length is not None and len(self._message) >= length:
                self._collecting = False
                self._request_bytes = len(self._message)
                replies.extend(self.respond(bytes(self._message)))
        return replies

    # -- replies -----------------------------------------------------------------------------

    def _reply(self, data: bytes) -> list[Reply]:
        """The reply, sent after the configured delay and, on a simulated 19,200-baud line, after the time the
        request and the reply itself would take on the wire (11-bit characters)."""
        wire_s = 0.0
        if self.config.line_baud:
            wire_s = (self._request_bytes + len(data)) * 11 / self.config.line_baud
        return [(self.config.reply_delay_s + wire_s, escape_reply(data))]

    def _long_reply(self, command: int, payload: bytes) -> list[Reply]:
        frame = bytearray(sas.encode_response(self.address, command, payload))
        self.replies_with_crc += 1
        if self.config.garble_rate and self._garble.random() < self.config.garble_rate:
            frame[-1] ^= 0x5A  # corrupt the CRC's high byte
            self.garbled_replies += 1
        return self._reply(bytes(frame))

    def respond(self, message: bytes) -> list[Reply]:
        try:
            request = sas.decode_request(message)
        except FrameError:
            return []  # a message with a bad CRC is ignored, as on a real machine
        broadcast = request.address == sas.BROADCAST
        if request.address != self.address and not broadcast:
            return []
        if request.general_poll:
            return self._reply(bytes([self.model.next_event()]))
        command = request.command
        if command in (Command.SHUTDOWN, Command.STARTUP):
            self.set_enabled(command == Command.STARTUP)
            return [] if broadcast else self._reply(bytes([self.address]))
        if command in (Command.SINGLE_PROGRESSIVE, Command.MULTI_PROGRESSIVE):
            self._progressive(command, request.data)
            return [] if broadcast else self._reply(bytes([self.address]))
        if broadcast:
            return []
        return self._long_reply(command, self._payload(command, request.data))

    def _payload(self, command: int, data: bytes) -> bytes:
        model = self.model
        if command == Command.METERS_10_15:
            return sas.meters_10_15_payload({name: model.meter(name) for name in sas.METERS_10_15_ORDER})
        if command in sas.SINGLE_METER_COMMANDS:
            return sas.bcd_encode(model.meter(sas.SINGLE_METER_COMMANDS[command]), 4)
        if command == Command.MACHINE_INFO:
            par = model.par
            return sas.machine_info_payload(MachineInfo(
                game_id=par.game_id, additional_id=par.additional_id,
                denomination_code=_DENOMINATION_CODE[par.denomination_cents], max_bet=par.bet_per_play,
                progressive_group=par.progressive_group, game_options=0, paytable_id=par.paytable_id,
                base_percent=round(par.theory.rtp * 100, 2)))
        if command == Command.VERSION_SERIAL:
            return sas.version_serial_payload(SAS_VERSION, self.identity.get("serial", ""))
        if command == Command.SELECTED_METERS:
            game = sas.bcd_decode(data[:2])
            codes = [code for code in data[2:] if code in sas.METER_CODES]  # unknown meters are left out
            return sas.selected_meters_payload(game, [(code, model.meter(sas.METER_CODES[code])) for code in codes])
        raise AssertionError(f"long poll 0x{command:02X} has no reply layout")

    def _progressive(self, command: int, data: bytes) -> None:
        if command == Command.SINGLE_PROGRESSIVE:
            group, levels = data[0], {data[1]: sas.bcd_decode(data[2:7])}
        else:
            group = data[0]
            levels = {data[i]: sas.bcd_decode(data[i + 1: i + 6]) for i in range(1, len(data), 6)}
        if group != self.model.par.progressive_group:
            return  # another group's broadcast
        current = self.model.progressive.setdefault("levels", {})
        current.update({str(level): amount for level, amount in levels.items()})
        self.model.progressive["group"] = group
        self.model.save()

    # -- play --------------------------------------------------------------------------------

    def set_enabled(self, enabled: bool) -> None:
        if enabled and not self.model.enabled:
            self._enabled_since = time.monotonic()
            self._played_since_enable = 0
        self.model.enabled = enabled
        self.model.save()

    def tick(self) -> Iterable[Reply]:
        """Play the games due at the configured rate since play was enabled."""
        if not self.model.enabled:
            return []
        due = int((time.monotonic() - self._enabled_since) * self.config.plays_per_second)
        games = min(due - self._played_since_enable, 10_000)
        if games > 0:
            self.model.play(games)
            self._played_since_enable += games
            self.model.save()
        return []


def boot(config: SlotSimulator, identity: dict[str, str], state_file: Path | None) -> SasMachineSimulator:
    """The machine as it is after a power-up: loaded from its state file (non-volatile memory). The meters and
    credits come back, except under ``volatile-meters``; play resumes if it was enabled; the exception queue
    holds "AC power applied" (0x17)."""
    model = SlotModel(config, state_file)
    model.save()
    return SasMachineSimulator(model, identity)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Simulated slot machine (SAS, pty escape framing)")
    parser.add_argument("--config", required=True,
                        help="JSON: simulator model (with PAR sheet), identity, optional power_rail")
    parser.add_argument("--state", type=Path, default=None, help="state file (game counter, meters)")
    args = parser.parse_args(argv)
    config = json.loads(args.config)
    simulator = SlotSimulator.model_validate(config["simulator"])
    identity = config.get("identity", {})
    rail = config.get("power_rail")
    if not rail:
        machine = boot(simulator, identity, args.state)
        serve_bytes(machine.handle, tick=machine.tick, tick_interval_s=0.02, faults=simulator.wire_faults)
        return 0
    # fed by a simulated power supply: dark while the rail is off (no reply, no play), booted again from the
    # state file after every loss of power; the handler and the tick share the one device
    fed = PoweredDevice(lambda: boot(simulator, identity, args.state), rail)

    def handle(chunk: bytes) -> Iterable[Reply]:
        machine = fed.current()
        return [] if machine is None else machine.handle(chunk)

    def tick() -> Iterable[Reply]:
        machine = fed.current()
        return [] if machine is None else machine.tick()

    serve_bytes(handle, tick=tick, tick_interval_s=0.02, faults=simulator.wire_faults)
    return 0


if __name__ == "__main__":
    sys.exit(main())
