"""Simulated table-game jackpot controller with its display, speaking the JP protocol.

The controller holds one pool per level in micro-cents (:data:`~bench.games.jackpot_rules.UNITS_PER_CENT`
a cent), so the fraction of a cent of every contribution is kept; it shows and pays whole cents.
Every jackpot bet (``BET``) adds each level's approved percentage of it; a round's winning hands
(``HIT``) are paid by :func:`bench.games.jackpot_rules.settle` (p461-2001/poquer-sem-descarte/9 and
/12, p217-2007/blackjack/50). Pools, meters, the display's history and the last transaction with
its reply live in the state file (non-volatile memory): a power cycle (a process restart, or the
simulated supply's rail through :func:`drivers.sim.power_rail.powered`) keeps them.

Models (profile ``simulator.model``, :class:`bench.profiles.jackpot.JackpotSimulator`):
``fair``; ``volatile`` (pools in RAM only: back to the start values after a power cycle);
``rounding`` (each contribution computed in binary floating point and truncated to the cent:
``int(bet * (percent / 100))``, which loses the fraction of a cent and, for percentages such as
29 %, a whole cent: 100 x 0.29 = 28.999...); ``display-lag`` (the display shows the value of
``display_lag_bets`` changes ago); ``low-start`` (start values of ``low_start_multiple`` jackpot
bets, under the 10 000 of p461-2001/poquer-sem-descarte/10). ``garble_rate`` corrupts the checksum
of that share of replies, drawn from a generator seeded with ``seed``.

``line = "sas"``: a slot-machine progressive controller on a SAS line (:class:`SasBroadcaster`):
every ``sas_interval_s`` it takes one jackpot bet's contribution and broadcasts every level with
long poll 0x80 (one level) or 0x86 (several) to address 0, in the pseudo-terminal escape framing of
:mod:`drivers.sas_transport`; ``garble_rate`` corrupts that share of broadcasts' CRC.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from bench.games.jackpot_rules import UNITS_PER_CENT, Hit, contribution_units, format_percent, settle
from bench.profiles.jackpot import JackpotSimulator
from drivers.jackpot_protocol import (
    TRANSACTIONS,
    decode,
    encode,
    format_display,
    format_payout,
    pay_table_fields,
)
from drivers.line_frame import encode_identity
from drivers.sas_protocol import encode_multi_progressive, encode_single_progressive
from drivers.sas_transport import escape_message
from drivers.serial_link import FrameError
from drivers.sim.line_simulator import parse_simulator_arguments, run_line_simulator
from drivers.sim.power_rail import PoweredDevice
from drivers.sim.pty_server import Handler, Reply, serve_bytes
from drivers.sim.state_file import load_state, save_state
from drivers.sim.wire_faults import ChecksumGarbler

_GARBLE_STREAM = 9


class Refused(Exception):
    """A request its own fields make impossible: NAK, the transaction is not used up."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _whole(text: str, reason: str, low: int, high: int | None = None) -> int:
    if not text.isascii() or not text.isdigit():
        raise Refused(reason)
    value = int(text)
    if value < low or (high is not None and value > high):
        raise Refused(reason)
    return value


class JackpotMachine:
    """The controller's pools, meters and display, and what each transaction does to them."""

    def __init__(self, config: JackpotSimulator, state_file: Path | None = None) -> None:
        if config.setup is None:
            raise ValueError("the jackpot simulator needs its setup (simulator.setup, filled from the options)")
        self.config = config
        self.setup = config.setup
        self.table = config.setup.prize_table()
        self.state_file = state_file
        bet = self.setup.jackpot_bet_cents
        self.starts = [config.low_start_multiple * bet if config.model == "low-start" else level.start_cents
                       for level in self.setup.levels]
        self.percents = [level.percent for level in self.setup.levels]
        state = load_state(state_file, "jackpot controller")
        saved_units = state.get("units") if config.model != "volatile" else None
        self.units: list[int] = ([int(u) for u in saved_units] if saved_units is not None
                                 else [start * UNITS_PER_CENT for start in self.starts])
        if len(self.units) != len(self.starts):
            raise ValueError(f"{state_file}: state has {len(self.units)} levels, the setup {len(self.starts)}")
        self.history: list[list[int]] = [list(map(int, values)) for values in state.get("history", [])]
        if config.model == "volatile" or not self.history:
            self.history = [self.values()]
        self.bets = int(state.get("bets", 0))
        self.bet_total = int(state.get("bet_total", 0))
        self.hits = int(state.get("hits", 0))
        self.paid_total = int(state.get("paid_total", 0))
        self.tx = int(state.get("tx", 0))
        self.last_request: str = state.get("last_request", "")
        self.last_reply: bytes = str(state.get("last_reply", "")).encode("ascii")

    # -- persistence and readings -------------------------------------------------------------------

    def save(self) -> None:
        state: dict[str, Any] = {
            "history": self.history, "bets": self.bets, "bet_total": self.bet_total, "hits": self.hits,
            "paid_total": self.paid_total, "tx": self.tx, "last_request": self.last_request,
            "last_reply": self.last_reply.decode("ascii"),
        }
        if self.config.model != "volatile":
            state["units"] = self.units
        save_state(self.state_file, state)

    def values(self) -> list[int]:
        """Every level's value in whole cents (the fraction of a cent is kept, not shown)."""
        return [units // UNITS_PER_CENT for units in self.units]

    def displayed(self, level: int) -> int:
        """What the display shows for ``level``: the value now, or ``display_lag_bets`` changes ago."""
        if self.config.model == "display-lag":
            return self.history[max(0, len(self.history) - 1 - self.config.display_lag_bets)][level - 1]
        return self.values()[level - 1]

    def _changed(self) -> None:
        self.history.append(self.values())
        del self.history[: max(0, len(self.history) - (self.config.display_lag_bets + 1))]

    def level(self, text: str) -> int:
        return _whole(text, "BAD_LEVEL", 1, len(self.units))

    # -- transactions ------------------------------------------------------------------------------

    def do_bet(self, tx: int, fields: tuple[str, ...]) -> bytes:
        if len(fields) != 2:
            raise Refused("BAD_FIELDS")
        _whole(fields[0], "BAD_TABLE", 1, 999)
        amount = _whole(fields[1], "BAD_AMOUNT", 1)
        for index, percent in enumerate(self.percents):
            if self.config.model == "rounding":
                self.units[index] += int(amount * (float(percent) / 100)) * UNITS_PER_CENT
            else:
                self.units[index] += contribution_units(amount, percent)
        self.bets += 1
        self.bet_total += amount
        self._changed()
        return encode("ACK", tx, "BET", *self.values())

    def do_hit(self, tx: int, fields: tuple[str, ...]) -> bytes:
        if len(fields) < 2:
            raise Refused("BAD_FIELDS")
        level = self.level(fields[0])
        hits = []
        for text in fields[1:]:
            seat, colon, hand = text.partition(":")
            if not colon:
                raise Refused("BAD_FIELDS")
            hits.append(Hit(_whole(seat, "BAD_SEAT", 1, 9), hand))
        units = self.units[level - 1]
        try:
            settlement = settle(units // UNITS_PER_CENT, self.setup.jackpot_bet_cents, self.starts[level - 1], hits,
                                self.table)
        except ValueError as error:
            raise Refused("BAD_HAND" if "not in the jackpot pay table" in str(error) else "BAD_SEAT") from error
        self.units[level - 1] = settlement.pool_after_cents * UNITS_PER_CENT + units % UNITS_PER_CENT
        self.hits += 1
        self.paid_total += settlement.paid_cents
        self._changed()
        return encode("PAID", tx, level, settlement.pool_before_cents, self.values()[level - 1],
                      *(format_payout(payout) for payout in settlement.payouts))

    def do_reset(self, tx: int, fields: tuple[str, ...]) -> bytes:
        if len(fields) != 1:
            raise Refused("BAD_FIELDS")
        level = self.level(fields[0])
        self.units[level - 1] = self.starts[level - 1] * UNITS_PER_CENT
        self._changed()
        return encode("ACK", tx, "RESET", level, self.values()[level - 1])

    def transaction(self, request: str, tx: int, fields: tuple[str, ...]) -> bytes:
        """Run transaction ``tx`` (new) or repeat its reply (the same request again)."""
        body = ",".join((request, str(tx), *fields))
        if tx == self.tx and body == self.last_request:
            return self.last_reply
        if tx != self.tx + 1:
            raise Refused("BAD_SEQUENCE")
        reply = getattr(self, f"do_{request.lower()}")(tx, fields)
        self.tx, self.last_request, self.last_reply = tx, body, reply
        self.save()
        return reply

    # -- queries -----------------------------------------------------------------------------------

    def query(self, request: str, fields: tuple[str, ...]) -> bytes | None:
        """The reply to a query, None when ``request`` is not one."""
        if request == "CONF?" and not fields:
            return encode("CONF", self.setup.game, self.setup.jackpot_bet_cents, len(self.units))
        if request == "LEVEL?" and len(fields) == 1:
            level = self.level(fields[0])
            return encode("LEVEL", level, self.values()[level - 1], self.starts[level - 1],
                          format_percent(self.percents[level - 1]), self.tx)
        if request == "VAL?" and not fields:
            return encode("VAL", self.tx, *self.values())
        if request == "DISP?" and len(fields) == 1:
            level = self.level(fields[0])
            return encode("DISP", level, format_display(self.displayed(level)))
        if request == "PAYTABLE?" and not fields:
            return encode("PAYTABLE", *pay_table_fields(self.table))
        if request == "STATUS?" and not fields:
            return encode("STATUS", self.tx, self.bets, self.bet_total, self.hits, self.paid_total)
        if request in ("CONF?", "LEVEL?", "VAL?", "DISP?", "PAYTABLE?", "STATUS?"):
            raise Refused("BAD_FIELDS")
        return None


class JackpotDevice:
    """Answers JP protocol requests for one :class:`JackpotMachine`."""

    def __init__(self, machine: JackpotMachine, identity: dict[str, str]) -> None:
        self.machine = machine
        self.identity = identity
        self._line = ChecksumGarbler(machine.config.garble_rate, machine.config.seed, _GARBLE_STREAM)

    def reply(self, line: bytes) -> bytes:
        """The reply frame to one request line."""
        try:
            frame = decode(line)
        except FrameError:
            return encode("NAK", "?", "BAD_FRAME")
        try:
            if frame.type in TRANSACTIONS:
                if not frame.fields or not frame.fields[0].isdigit() or not frame.fields[0].isascii():
                    return encode("NAK", frame.type, "BAD_TX")
                return self._line(self.machine.transaction(frame.type, int(frame.fields[0]), frame.fields[1:]))
            if frame.type == "ID?":
                return self._line(encode_identity(self.identity))
            reply = self.machine.query(frame.type, frame.fields)
            if reply is not None:
                return self._line(reply)
        except Refused as refusal:
            return encode("NAK", frame.type, refusal.reason)
        return encode("NAK", frame.type, "UNKNOWN_COMMAND")

    def handle(self, line: bytes) -> Iterable[Reply]:
        return [(0.0, self.reply(line))]


class SasBroadcaster:
    """The controller as a SAS progressive host: contributes one jackpot bet and broadcasts its levels per tick."""

    def __init__(self, machine: JackpotMachine) -> None:
        self.machine = machine
        self._garble = np.random.default_rng([machine.config.seed, _GARBLE_STREAM])

    def message(self) -> bytes:
        """The broadcast of every level's value (0x80 for a single level, 0x86 for several)."""
        values, group = self.machine.values(), self.machine.config.sas_group
        if len(values) == 1:
            return encode_single_progressive(0, group, 1, values[0])
        return encode_multi_progressive(0, group, dict(enumerate(values, start=1)))

    def tick(self) -> list[Reply]:
        machine = self.machine
        machine.transaction("BET", machine.tx + 1, ("1", str(machine.setup.jackpot_bet_cents)))
        message = self.message()
        if machine.config.garble_rate and self._garble.random() < machine.config.garble_rate:
            message = message[:-2] + bytes([message[-2] ^ 0xFF, message[-1]])
        return [(0.0, escape_message(message))]

    def handle(self, _chunk: bytes) -> list[Reply]:
        return []  # the machines never answer a broadcast; anything heard is ignored


def boot(simulator: JackpotSimulator, config: dict[str, Any], state_file: Path | None) -> Handler:
    """A fresh device loaded from ``state_file``: what the controller is after a power-up."""
    return JackpotDevice(JackpotMachine(simulator, state_file), config.get("identity", {})).handle


def main(argv: list[str] | None = None) -> int:
    description = "Simulated jackpot controller (JP protocol, or SAS broadcasts) on a pseudo-terminal"
    config, state = parse_simulator_arguments(description, argv)
    simulator = JackpotSimulator.model_validate(config["simulator"])
    if simulator.line != "sas":
        return run_line_simulator(description, JackpotSimulator, boot, argv)
    rail = config.get("power_rail")
    if not rail:
        broadcaster = SasBroadcaster(JackpotMachine(simulator, state))
        serve_bytes(broadcaster.handle, tick=broadcaster.tick, tick_interval_s=simulator.sas_interval_s,
                    faults=simulator.wire_faults)
        return 0
    fed = PoweredDevice(lambda: SasBroadcaster(JackpotMachine(simulator, state)), rail)  # dark while unpowered

    def tick() -> list[Reply]:
        broadcaster = fed.current()
        return [] if broadcaster is None else broadcaster.tick()

    serve_bytes(lambda _chunk: [], tick=tick, tick_interval_s=simulator.sas_interval_s, faults=simulator.wire_faults)
    return 0


if __name__ == "__main__":
    sys.exit(main())
