"""Reading a slot-machine progressive controller's level broadcasts from the SAS line.

A progressive controller on a SAS link acts as a host and broadcasts its current level amounts
to the gaming machines with long poll 0x80 (single level: ``address, 80, group, level, amount
5 BCD, CRC``) or 0x86 (multiple levels: ``address, 86, length, group, (level, amount 5 BCD)...,
CRC``), amounts in cents (:func:`drivers.sas_protocol.encode_single_progressive`,
:func:`~drivers.sas_protocol.encode_multi_progressive`; ``docs/protocols/sas.md``). The machines
never answer a broadcast, so the bench only listens: :class:`SasProgressiveListener` reports each
level's amount as last broadcast (p217-2007/maquinas-automaticas/3 and /4: the jackpot and the
collective superjackpot built from a percentage of the amounts played).

Framing: on the simulated rig's pseudo-terminal (``pty-escape``, :mod:`drivers.sas_transport`) the
wakeup bit marks the first byte of each host message and a message is read from it. A real UART
(``crc-sync``) is read with parity checking off, so the wakeup bit is not seen: the listener then
finds messages by their command byte and accepts only those whose CRC-16 checks (a random
candidate passes with probability 2^-16, and must also be a well-formed 0x80/0x86 with valid BCD).
A message whose CRC fails is counted in ``crc_errors`` and never becomes an amount.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from drivers.sas_protocol import Command, FrameError, bcd_decode, crc16_kermit, request_length
from drivers.sas_transport import Unescaper
from drivers.serial_link import DeviceError, SerialLink

ListenFraming = Literal["pty-escape", "crc-sync"]
_PROGRESSIVE = (Command.SINGLE_PROGRESSIVE, Command.MULTI_PROGRESSIVE)


@dataclass(frozen=True)
class ProgressiveBroadcast:
    """One progressive broadcast: the group and each level's amount in cents."""

    address: int
    command: int
    group: int
    amounts: dict[int, int]
    raw: bytes


def parse_progressive(message: bytes) -> ProgressiveBroadcast:
    """A complete 0x80 or 0x86 message (CRC included); :class:`FrameError` names what is wrong."""
    if len(message) < 2 or message[1] not in _PROGRESSIVE:
        raise FrameError("not a progressive broadcast (long poll 0x80 or 0x86)", message)
    length = request_length(message)
    if length != len(message):
        raise FrameError(f"progressive broadcast of {len(message)} byte(s), expected {length}", message)
    body, crc = message[:-2], int.from_bytes(message[-2:], "little")
    if crc16_kermit(body) != crc:
        raise FrameError(f"CRC mismatch: received 0x{crc:04X}, computed 0x{crc16_kermit(body):04X}", message)
    if message[1] == Command.SINGLE_PROGRESSIVE:
        group, entries = body[2], body[3:]
    else:
        group, entries = body[3], body[4:]
        if len(entries) % 6:
            raise FrameError("long poll 86 levels must be 6 bytes each (level, 5 BCD)", message)
    amounts: dict[int, int] = {}
    for start in range(0, len(entries), 6):
        level = entries[start]
        if not 1 <= level <= 32 or level in amounts:
            raise FrameError(f"progressive level {level} out of 1-32 or repeated", message)
        amounts[level] = bcd_decode(entries[start + 1: start + 6], f"level {level} amount")
    if not 1 <= group <= 255:
        raise FrameError(f"progressive group {group} out of 1-255", message)
    return ProgressiveBroadcast(message[0], message[1], group, amounts, message)


class ProgressiveScanner:
    """Finds progressive broadcasts in a stream of ``(byte, wakeup)`` units (wakeup None: not known)."""

    def __init__(self, crc_errors: int = 0) -> None:
        self._units: list[tuple[int, bool | None]] = []
        self.crc_errors = crc_errors

    def feed(self, units: list[tuple[int, bool | None]]) -> list[ProgressiveBroadcast]:
        self._units.extend(units)
        found: list[ProgressiveBroadcast] = []
        index = 0
        while index < len(self._units) - 1:
            value, wakeup = self._units[index]
            command = self._units[index + 1][0]
            if wakeup is False or command not in _PROGRESSIVE or value > 0x7F:
                index += 1
                continue
            message = bytes(unit[0] for unit in self._units[index: index + 3])
            length = request_length(message) if command == Command.SINGLE_PROGRESSIVE or len(message) == 3 else None
            if length is None or index + length > len(self._units):
                break  # wait for the rest
            message = bytes(unit[0] for unit in self._units[index: index + length])
            marked_inside = any(unit[1] for unit in self._units[index + 1: index + length])
            try:
                if marked_inside:
                    raise FrameError("a wakeup byte inside the message", message)
                found.append(parse_progressive(message))
            except FrameError:
                self.crc_errors += 1
                index += 1
                continue
            index += length
        del self._units[:index]
        return found


class SasProgressiveListener:
    """Listens to a SAS line and reports the progressive levels a controller broadcasts.

    ``group`` keeps only that progressive group's broadcasts (None: any). ``broadcasts`` counts
    valid broadcasts read, ``crc_errors`` candidates that failed their CRC or layout.
    """

    def __init__(self, link: SerialLink, framing: ListenFraming = "pty-escape", group: int | None = None) -> None:
        if framing not in ("pty-escape", "crc-sync"):
            raise ValueError(f"framing must be 'pty-escape' or 'crc-sync', got {framing!r}")
        self.link = link
        self.framing = framing
        self.group = group
        self.broadcasts = 0
        self._scanner = ProgressiveScanner()
        self._unescape = Unescaper()
        self._pending: list[ProgressiveBroadcast] = []

    @property
    def crc_errors(self) -> int:
        return self._scanner.crc_errors

    def _units(self, raw: bytes) -> list[tuple[int, bool | None]]:
        if self.framing == "pty-escape":
            return list(self._unescape.feed(raw))
        return [(value, None) for value in raw]

    def next_broadcast(self, timeout_s: float | None = None) -> ProgressiveBroadcast:
        """The next valid broadcast (of ``group``); :class:`DeviceError` when none arrives within ``timeout_s``."""
        if not self.link.is_open:
            self.link.open()
        wait = self.link.settings.timeout_s if timeout_s is None else timeout_s
        deadline = time.monotonic() + wait
        while True:
            while self._pending:
                broadcast = self._pending.pop(0)
                if self.group is None or broadcast.group == self.group:
                    self.broadcasts += 1
                    return broadcast
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DeviceError(self.link.settings.port, "read a progressive broadcast",
                                  [f"no valid broadcast within {wait:g} s ({self.crc_errors} garbled so far)"])
            raw = self.link.read_bytes(64, timeout_s=min(remaining, 0.05))
            self._pending.extend(self._scanner.feed(self._units(raw)))

    def levels(self, broadcasts: int = 1, timeout_s: float | None = None) -> dict[int, int]:
        """Each level's amount (cents) as last broadcast, over the next ``broadcasts`` valid broadcasts."""
        amounts: dict[int, int] = {}
        for _ in range(broadcasts):
            amounts.update(self.next_broadcast(timeout_s).amounts)
        return dict(sorted(amounts.items()))

    def discard_input(self) -> None:
        """Forget every broadcast heard so far, read or still buffered (the next one is sent after this call)."""
        self.link.discard_input()
        self._pending.clear()
        self._scanner = ProgressiveScanner(crc_errors=self._scanner.crc_errors)
        self._unescape.reset()

    def close(self) -> None:
        self.link.close()


__all__ = ["ProgressiveBroadcast", "ProgressiveScanner", "SasProgressiveListener", "parse_progressive"]
