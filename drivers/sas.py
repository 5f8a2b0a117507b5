"""Slot machine driver: what suites ask of a gaming machine, and a SAS host that asks it.

Suites see only :class:`SlotMachine`. :class:`SasSlotMachine` is a SAS 6.0x host
(:mod:`drivers.sas_protocol`) on a serial link; the bytes go through a
:class:`~drivers.sas_transport.SasTransport`, mark/space parity on a real UART or the escape
framing on the simulator's pseudo-terminal. The same host code runs on both.

Timing and link rules (SAS 6.02 section 2, see ``docs/protocols/sas.md``): the host waits
``response_timeout_s`` for a reply (SAS allows a machine 20 ms to start it; the bench's default
is the link's timeout, lenient for simulators on a loaded PC); a late, short or CRC-corrupted reply
is retried up to the link's ``retries`` and counted, then :class:`DeviceError`. The link is
*down* after ``link_down_polls`` consecutive unanswered polls or ``link_down_s`` (5 s) without a
reply since the first unanswered one; any valid reply brings it up again.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from drivers import sas_protocol as sas
from drivers.sas_protocol import Command, MachineInfo, VersionSerial
from drivers.sas_transport import EscapedPtyTransport, SasTransport
from drivers.serial_link import LINK_FAILURES, DeviceError, FrameError, SerialLink

T = TypeVar("T")

METER_NAMES = ("coin_in", "coin_out", "jackpot", "cancelled_credits", "games_played", "games_won", "games_lost",
               "current_credits", "drop")
_CODE_OF = {name: code for code, name in sas.METER_CODES.items()}
_COMMAND_OF = {name: command for command, name in sas.SINGLE_METER_COMMANDS.items()}


@dataclass(frozen=True)
class SlotIdentity:
    """What the machine reports about itself: long polls 1F and 54 (p217-2007/maquinas-automaticas/10)."""

    info: MachineInfo
    version: VersionSerial

    @property
    def serial(self) -> str:
        return self.version.serial

    @property
    def denomination_cents(self) -> int | None:
        return self.info.denomination_cents

    @property
    def max_bet_credits(self) -> int:
        return self.info.max_bet


@dataclass(frozen=True)
class SlotMeters:
    """One consistent snapshot of the machine's meters, in credits (games in games), from one 2F reply."""

    coin_in: int
    coin_out: int
    jackpot: int
    cancelled_credits: int
    games_played: int
    games_won: int
    games_lost: int
    current_credits: int
    drop: int


@dataclass(frozen=True)
class SlotEvent:
    """One general poll exception."""

    code: int

    @property
    def name(self) -> str:
        return sas.EXCEPTIONS.get(self.code, f"exception 0x{self.code:02X}")


class SlotMachine(ABC):
    """What a suite can ask of a slot machine."""

    @abstractmethod
    def identify(self) -> SlotIdentity:
        """Game and pay table IDs, denomination, maximum bet, base percentage, SAS version and serial number."""

    @abstractmethod
    def meters(self) -> SlotMeters:
        """Every meter the suites reconcile, read at one instant."""

    @abstractmethod
    def meter(self, name: str) -> int:
        """One meter by its own long poll (``coin_in``, ``coin_out``, ``drop``, ``jackpot``, ``games_played``,
        ``cancelled_credits``, ``current_credits``)."""

    @abstractmethod
    def events(self, limit: int = 256) -> list[SlotEvent]:
        """Pending exceptions, oldest first (general polls until "no activity", at most ``limit``)."""

    @abstractmethod
    def enable_play(self) -> None:
        """Allow play (SAS long poll 02)."""

    @abstractmethod
    def disable_play(self) -> None:
        """Lock out play (SAS long poll 01): the meters stop moving."""

    @abstractmethod
    def broadcast_progressive(self, group: int, levels: Mapping[int, int], *, broadcast: bool = True) -> None:
        """Send progressive level amounts in cents (long poll 80 for one level, 86 for several)."""

    @property
    @abstractmethod
    def link_up(self) -> bool:
        """Whether the machine is answering (SAS link-down rules)."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""


class _NoReply(Exception):
    """Nothing (or only part of a reply) arrived in time."""


class SasSlotMachine(SlotMachine):
    """A SAS host polling one gaming machine."""

    def __init__(
        self,
        link: SerialLink,
        transport: SasTransport | None = None,
        *,
        address: int = 1,
        response_timeout_s: float | None = None,
        link_down_polls: int = 3,
        link_down_s: float = 5.0,
    ) -> None:
        if not 1 <= address <= 127:
            raise ValueError(f"SAS address must be 1-127, got {address}")
        if link_down_polls < 1 or link_down_s <= 0:
            raise ValueError("link_down_polls must be at least 1 and link_down_s positive")
        self.link = link
        self.transport = transport or EscapedPtyTransport(link)
        self.address = address
        self.response_timeout_s = link.settings.timeout_s if response_timeout_s is None else response_timeout_s
        self.link_down_polls = link_down_polls
        self.link_down_s = link_down_s
        self.crc_errors = 0
        self.garbled_frames = 0  # every malformed reply, CRC errors included
        self.timeouts = 0
        self.nacks = 0
        self.busy_replies = 0
        self._unanswered = 0
        self._first_unanswered: float | None = None

    # -- link state ---------------------------------------------------------------------------

    @property
    def link_up(self) -> bool:
        if self._first_unanswered is None:
            return True
        return (self._unanswered < self.link_down_polls
                and time.monotonic() - self._first_unanswered < self.link_down_s)

    def _answered(self) -> None:
        self._unanswered = 0
        self._first_unanswered = None

    def _not_answered(self) -> None:
        self._unanswered += 1
        if self._first_unanswered is None:
            self._first_unanswered = time.monotonic()

    # -- exchanges ----------------------------------------------------------------------------

    def _exchange(self, request: bytes, read_reply: Callable[[], T], what: str) -> T:
        attempts: list[str] = []
        for _ in range(1 + self.link.settings.retries):
            sent_at = time.monotonic()
            try:
                if not self.link.is_open:
                    self.link.open()
                # SAS replies carry no sequence number: a late reply to a poll that timed out must never be read
                # as this poll's (the same long poll's meters from before, say): wait it out and discard it
                self.link.settle()
                self.transport.discard_input()
                sent_at = time.monotonic()
                self.transport.send(request, note=what)
                value = read_reply()
            except _NoReply as error:
                self.timeouts += 1
                self._not_answered()
                attempts.append(str(error))
                self.link.late_reply_possible(sent_at)
            except FrameError as error:
                self.garbled_frames += 1
                if "CRC mismatch" in str(error):
                    self.crc_errors += 1
                if "cut short" in str(error):  # the rest of the reply may still come
                    self.link.late_reply_possible(sent_at)
                attempts.append(f"garbled reply ({error})")
                self.transport.discard_input()
            except LINK_FAILURES as error:
                self._not_answered()
                attempts.append(f"link failure ({error})")
                try:
                    self.link.reconnect()
                except DeviceError as reopen:
                    attempts.append(f"reconnect failed ({reopen})")
            else:
                self._answered()
                return value
        raise DeviceError(self.link.settings.port, what, attempts)

    def _read(self, count: int, what: str) -> bytes:
        data = self.transport.read(count, self.response_timeout_s)
        if not data:
            raise _NoReply(f"no reply to {what} within {self.response_timeout_s:g} s")
        if len(data) < count:
            raise FrameError(f"reply to {what} cut short: {len(data)} of {count} byte(s)", data)
        return data

    def _read_long_reply(self, command: int, what: str) -> bytes:
        """The payload (after address and command, before the CRC) of a long poll reply, CRC checked."""
        head = self._read(2, what)
        if head[0] == (self.address | 0x80):
            self.nacks += 1
            raise FrameError(f"NACK to {what}", head)
        if head[0] != self.address:
            raise FrameError(f"reply from address {head[0]} to a poll of address {self.address}", head)
        if head[1] == 0x00:
            self.busy_replies += 1
            raise FrameError("machine busy (command byte 00)", head)
        if head[1] != command:
            raise FrameError(f"reply to long poll 0x{command:02X} carries command 0x{head[1]:02X}", head)
        length = sas.response_data_length(command, b"")
        prefix = b""
        if length is None:
            prefix = self._read(1, what)
            length = sas.response_data_length(command, prefix)
            assert length is not None
        rest = self._read(length - len(prefix) + 2, what)
        frame = head + prefix + rest
        sas.check_crc(frame)
        return frame[2:-2]

    def _long_poll(self, request: bytes, command: int, what: str) -> bytes:
        return self._exchange(request, lambda: self._read_long_reply(command, what), what)

    def _acknowledged(self, request: bytes, what: str) -> None:
        def read_ack() -> None:
            reply = self._read(1, what)
            if reply[0] == (self.address | 0x80):
                self.nacks += 1
                raise FrameError(f"NACK to {what}", reply)
            if reply[0] != self.address:
                raise FrameError(f"ACK from address {reply[0]}, expected {self.address}", reply)

        self._exchange(request, read_ack, what)

    # -- what suites ask ----------------------------------------------------------------------

    def identify(self) -> SlotIdentity:
        info = sas.parse_machine_info(self._long_poll(
            sas.encode_long_poll(self.address, Command.MACHINE_INFO), Command.MACHINE_INFO, "long poll 1F (machine ID)"))
        version = sas.parse_version_serial(self._long_poll(
            sas.encode_long_poll(self.address, Command.VERSION_SERIAL), Command.VERSION_SERIAL,
            "long poll 54 (SAS version and serial)"))
        return SlotIdentity(info, version)

    def meters(self) -> SlotMeters:
        codes = [_CODE_OF[name] for name in METER_NAMES]
        payload = self._long_poll(sas.encode_selected_meters_poll(self.address, codes), Command.SELECTED_METERS,
                                  "long poll 2F (selected meters)")
        game, values = sas.parse_selected_meters(payload)
        missing = [name for name in METER_NAMES if _CODE_OF[name] not in values]
        if game != 0 or missing:
            raise DeviceError(self.link.settings.port, "long poll 2F (selected meters)",
                              [f"reply for game {game} lacks meter(s) {', '.join(missing) or 'none'}"])
        return SlotMeters(**{name: values[_CODE_OF[name]] for name in METER_NAMES})

    def meters_10_15(self) -> dict[str, int]:
        """Long poll 0F: cancelled credits, coin in, coin out, drop, jackpot and games played, in one reply."""
        return sas.parse_meters_10_15(self._long_poll(
            sas.encode_long_poll(self.address, Command.METERS_10_15), Command.METERS_10_15, "long poll 0F (meters)"))

    def meter(self, name: str) -> int:
        if name not in _COMMAND_OF:
            raise ValueError(f"no single-meter long poll for {name!r} (have: {', '.join(_COMMAND_OF)})")
        command = _COMMAND_OF[name]
        payload = self._long_poll(sas.encode_long_poll(self.address, command), command,
                                  f"long poll 0x{command:02X} ({name})")
        return sas.parse_meter(command, payload)

    def poll_exception(self) -> SlotEvent:
        """One general poll."""
        reply = self._exchange(sas.encode_general_poll(self.address), lambda: self._read(1, "general poll"),
                               "general poll")
        return SlotEvent(reply[0])

    def events(self, limit: int = 256) -> list[SlotEvent]:
        found: list[SlotEvent] = []
        while len(found) < limit:
            event = self.poll_exception()
            if event.code == 0x00:
                break
            found.append(event)
        return found

    def enable_play(self) -> None:
        self._acknowledged(sas.encode_long_poll(self.address, Command.STARTUP), "long poll 02 (enable play)")

    def disable_play(self) -> None:
        self._acknowledged(sas.encode_long_poll(self.address, Command.SHUTDOWN), "long poll 01 (disable play)")

    def broadcast_progressive(self, group: int, levels: Mapping[int, int], *, broadcast: bool = True) -> None:
        """Long poll 80 (one level) or 86 (several); to address 0 (no reply) or to this machine (ACK)."""
        address = sas.BROADCAST if broadcast else self.address
        if len(levels) == 1:
            ((level, amount),) = levels.items()
            message = sas.encode_single_progressive(address, group, level, amount)
            what = "long poll 80 (single level progressive)"
        else:
            message = sas.encode_multi_progressive(address, group, levels)
            what = "long poll 86 (multiple level progressive)"
        if broadcast:
            if not self.link.is_open:
                self.link.open()
            self.transport.send(message, note=f"{what}, broadcast")
            return
        self._acknowledged(message, what)

    def close(self) -> None:
        self.link.close()
