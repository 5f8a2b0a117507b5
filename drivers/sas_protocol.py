"""SAS (Slot Accounting System, IGT / GSA, version 6.0x) message formats: CRC, BCD, encode and decode.

Only the bytes of a message live here; how the first byte of a host message carries the
wakeup bit (mark/space parity on a UART, an escape byte on a pseudo-terminal) is
:mod:`drivers.sas_transport`, and the host that polls a machine is :mod:`drivers.sas`.
Documented in ``docs/protocols/sas.md``.

Layouts (host → gaming machine; the first byte always carries the wakeup bit):

* general poll: ``0x80 | address`` (one byte); reply: one exception code byte, ``0x00`` = none;
* long poll, type R: ``address, command``; reply ``address, command, data…, CRC``;
* long poll, type S: ``address, command, data…, CRC``; reply ``address`` (ACK) or ``address | 0x80`` (NACK);
* long poll, type M: ``address, command, length, data…, CRC`` (``length`` counts the data bytes);
* address 0 is the broadcast address: the machines act on the message and never reply.

The CRC is CRC-16/KERMIT (polynomial 0x1021 reflected, initial value 0, no final XOR) over every
byte from the address to the last data byte, sent least significant byte first. Meters are
packed BCD, most significant digit first (4 bytes = 8 digits unless the table says otherwise).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum

from bench.games.slots import DENOMINATIONS_CENTS
from drivers.serial_link import FrameError

__all__ = [
    "BROADCAST", "CRC_CHECK_VALUE", "EXCEPTIONS", "METER_CODES", "METER_SIZES", "Command",
    "FrameError", "MachineInfo", "Request", "VersionSerial", "append_crc", "bcd_decode", "bcd_encode",
    "check_crc", "crc16_kermit", "decode_request", "encode_general_poll", "encode_long_poll",
    "encode_multi_progressive", "encode_response", "encode_selected_meters_poll", "encode_single_progressive",
    "machine_info_payload", "meters_10_15_payload", "parse_machine_info", "parse_meter", "parse_meters_10_15",
    "parse_selected_meters", "parse_version_serial", "request_length", "response_data_length",
    "selected_meters_payload", "version_serial_payload",
]

BROADCAST = 0x00
CRC_CHECK_VALUE = 0x2189  # CRC-16/KERMIT of b"123456789" (the catalogue's check value)


class Command(IntEnum):
    """The long polls this bench implements (SAS 6.02 section numbers in ``docs/protocols/sas.md``)."""

    SHUTDOWN = 0x01  # type S: disable play ("lock out play")
    STARTUP = 0x02  # type S: enable play
    METERS_10_15 = 0x0F  # type R: cancelled credits, coin in, coin out, drop, jackpot, games played
    CANCELLED_CREDITS = 0x10
    COIN_IN = 0x11
    COIN_OUT = 0x12
    DROP = 0x13
    JACKPOT = 0x14
    GAMES_PLAYED = 0x15
    CURRENT_CREDITS = 0x1A
    MACHINE_INFO = 0x1F  # type R: gaming machine ID and information
    SELECTED_METERS = 0x2F  # type M: selected meters for game N
    VERSION_SERIAL = 0x54  # type R: SAS version ID and gaming machine serial number
    SINGLE_PROGRESSIVE = 0x80  # type S: single level progressive broadcast
    MULTI_PROGRESSIVE = 0x86  # type M: multiple level progressive broadcast


TYPE_R = frozenset({Command.METERS_10_15, Command.CANCELLED_CREDITS, Command.COIN_IN, Command.COIN_OUT,
                    Command.DROP, Command.JACKPOT, Command.GAMES_PLAYED, Command.CURRENT_CREDITS,
                    Command.MACHINE_INFO, Command.VERSION_SERIAL})
TYPE_S_LENGTH = {Command.SHUTDOWN: 4, Command.STARTUP: 4, Command.SINGLE_PROGRESSIVE: 11}  # whole message, CRC incl.
TYPE_M = frozenset({Command.SELECTED_METERS, Command.MULTI_PROGRESSIVE})

SINGLE_METER_COMMANDS: dict[int, str] = {
    Command.CANCELLED_CREDITS: "cancelled_credits", Command.COIN_IN: "coin_in", Command.COIN_OUT: "coin_out",
    Command.DROP: "drop", Command.JACKPOT: "jackpot", Command.GAMES_PLAYED: "games_played",
    Command.CURRENT_CREDITS: "current_credits",
}
METERS_10_15_ORDER = ("cancelled_credits", "coin_in", "coin_out", "drop", "jackpot", "games_played")

# Meter codes of long poll 2F (SAS 6.02 table C-7), the ones this bench reads; all 4 BCD bytes.
METER_CODES: dict[int, str] = {
    0x00: "coin_in", 0x01: "coin_out", 0x02: "jackpot", 0x04: "cancelled_credits", 0x05: "games_played",
    0x06: "games_won", 0x07: "games_lost", 0x0C: "current_credits", 0x24: "drop",
}
METER_SIZES: dict[int, int] = dict.fromkeys(METER_CODES, 4)

# General poll exception codes (SAS 6.02 table 7.6a), the ones the simulator raises or the host names.
EXCEPTIONS: dict[int, str] = {
    0x00: "no activity", 0x11: "slot door was opened", 0x12: "slot door was closed",
    0x17: "AC power was applied to gaming machine", 0x18: "AC power was lost from gaming machine",
    0x51: "handpay is pending", 0x52: "handpay was reset", 0x70: "exception buffer overflow",
    0x7A: "gaming machine soft (lifetime-to-date) meters reset to zero",
    0x7E: "game has started", 0x7F: "game has ended",
}

# -- CRC-16/KERMIT --------------------------------------------------------------------------------


def _crc_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
        table.append(crc)
    return tuple(table)


_TABLE = _crc_table()


def crc16_kermit(data: bytes, crc: int = 0) -> int:
    """CRC-16/KERMIT (poly 0x1021 reflected = 0x8408, init 0, refin/refout, xorout 0) of ``data``."""
    for byte in data:
        crc = (crc >> 8) ^ _TABLE[(crc ^ byte) & 0xFF]
    return crc


def append_crc(body: bytes) -> bytes:
    """``body`` followed by its CRC, least significant byte first."""
    return body + crc16_kermit(body).to_bytes(2, "little")


def check_crc(frame: bytes) -> bytes:
    """The body of a frame whose last two bytes are its CRC; :class:`FrameError` when the CRC is wrong."""
    if len(frame) < 3:
        raise FrameError(f"frame of {len(frame)} byte(s) is too short to carry a CRC", frame)
    body, received = frame[:-2], int.from_bytes(frame[-2:], "little")
    expected = crc16_kermit(body)
    if received != expected:
        raise FrameError(f"CRC mismatch: received 0x{received:04X}, computed 0x{expected:04X}", frame)
    return body


# -- BCD ------------------------------------------------------------------------------------------


def bcd_encode(value: int, length: int) -> bytes:
    """``value`` as ``length`` bytes of packed BCD, most significant digit first."""
    if length < 1:
        raise ValueError(f"BCD length must be at least 1 byte, got {length}")
    if not isinstance(value, int) or value < 0:
        raise ValueError(f"BCD value must be a non-negative integer, got {value!r}")
    digits = f"{value:0{2 * length}d}"
    if len(digits) > 2 * length:
        raise ValueError(f"{value} needs more than the {2 * length} digits of {length} BCD byte(s)")
    return bytes.fromhex(digits)


def bcd_decode(data: bytes, what: str = "BCD field") -> int:
    """Packed BCD to an integer; :class:`FrameError` names the byte (index and value) that is not BCD."""
    if not data:
        raise FrameError(f"{what}: empty", data)
    for index, byte in enumerate(data):
        if byte >> 4 > 9 or byte & 0x0F > 9:
            raise FrameError(f"{what}: byte {index} (0x{byte:02X}) is not packed BCD", data)
    return int(data.hex())


# -- host → machine -------------------------------------------------------------------------------


def _check_address(address: int, *, broadcast: bool = False) -> None:
    low = 0 if broadcast else 1
    if not isinstance(address, int) or not low <= address <= 0x7F:
        raise ValueError(f"SAS address must be {low}-127, got {address!r}")


def encode_general_poll(address: int) -> bytes:
    """General poll of ``address`` (1-127): the single byte ``0x80 | address``."""
    _check_address(address)
    return bytes([0x80 | address])


def encode_long_poll(address: int, command: int) -> bytes:
    """A long poll without data: type R ``address, command``, or type S (0x01, 0x02) with its CRC."""
    _check_address(address)
    if command in TYPE_R:
        return bytes([address, command])
    if command in (Command.SHUTDOWN, Command.STARTUP):
        return append_crc(bytes([address, command]))
    raise ValueError(f"long poll 0x{command:02X} is not a data-less poll this bench implements")


def encode_selected_meters_poll(address: int, meter_codes: Sequence[int], game: int = 0) -> bytes:
    """Long poll 2F: ``address, 2F, length, game (2 BCD), meter codes…, CRC`` (game 0 = the whole machine)."""
    _check_address(address)
    if not 1 <= len(meter_codes) <= 10:
        raise ValueError(f"long poll 2F asks for 1-10 meters, got {len(meter_codes)}")
    unknown = [code for code in meter_codes if code not in METER_SIZES]
    if unknown:
        raise ValueError(f"meter code(s) {', '.join(f'0x{c:02X}' for c in unknown)} not implemented")
    data = bcd_encode(game, 2) + bytes(meter_codes)
    return append_crc(bytes([address, Command.SELECTED_METERS, len(data)]) + data)


def encode_single_progressive(address: int, group: int, level: int, amount_cents: int) -> bytes:
    """Long poll 80 (single level progressive broadcast): ``address, 80, group, level, amount (5 BCD), CRC``.

    ``address`` 0 broadcasts to every machine (no reply); a machine's own address gets an ACK.
    """
    _check_address(address, broadcast=True)
    _check_level(group, level)
    return append_crc(bytes([address, Command.SINGLE_PROGRESSIVE, group, level]) + bcd_encode(amount_cents, 5))


def encode_multi_progressive(address: int, group: int, levels: Mapping[int, int]) -> bytes:
    """Long poll 86 (multiple level progressive broadcast):
    ``address, 86, length, group, (level, amount 5 BCD)…, CRC``; ``length`` counts group and levels."""
    _check_address(address, broadcast=True)
    if not 1 <= len(levels) <= 32:
        raise ValueError(f"long poll 86 carries 1-32 levels, got {len(levels)}")
    data = bytearray([group])
    for level, amount in sorted(levels.items()):
        _check_level(group, level)
        data += bytes([level]) + bcd_encode(amount, 5)
    return append_crc(bytes([address, Command.MULTI_PROGRESSIVE, len(data)]) + bytes(data))


def _check_level(group: int, level: int) -> None:
    if not 1 <= group <= 255:
        raise ValueError(f"progressive group must be 1-255, got {group}")
    if not 1 <= level <= 32:
        raise ValueError(f"progressive level must be 1-32, got {level}")


@dataclass(frozen=True)
class Request:
    """A host message as a gaming machine decodes it."""

    address: int
    command: int | None  # None: general poll
    data: bytes = b""  # after the command (and length byte), before the CRC
    raw: bytes = b""

    @property
    def general_poll(self) -> bool:
        return self.command is None


def request_length(prefix: bytes) -> int | None:
    """How long the host message starting with ``prefix`` is, or ``None`` until enough of it has arrived.

    :class:`FrameError` for a long poll this bench does not implement (the machine ignores it).
    """
    if not prefix:
        return None
    if prefix[0] & 0x80:
        return 1
    if len(prefix) < 2:
        return None
    command = prefix[1]
    if command in TYPE_R:
        return 2
    if command in TYPE_S_LENGTH:
        return TYPE_S_LENGTH[command]
    if command in TYPE_M:
        return None if len(prefix) < 3 else 3 + prefix[2] + 2
    raise FrameError(f"long poll 0x{command:02X} is not implemented", prefix)


def decode_request(message: bytes) -> Request:
    """Decode one complete host message (as delimited by its wakeup byte)."""
    length = request_length(message)
    if length is None or len(message) != length:
        raise FrameError(f"message of {len(message)} byte(s), expected {length}", message)
    if length == 1:
        return Request(address=message[0] & 0x7F, command=None, raw=message)
    address, command = message[0], message[1]
    if command in TYPE_R:
        return Request(address, command, b"", message)
    body = check_crc(message)
    data = body[3:] if command in TYPE_M else body[2:]
    if command == Command.SELECTED_METERS:
        if len(data) < 3:
            raise FrameError("long poll 2F needs a game number and at least one meter code", message)
        bcd_decode(data[:2], "2F game number")
    if command == Command.MULTI_PROGRESSIVE and (len(data) - 1) % 6:
        raise FrameError("long poll 86 levels must be 6 bytes each (level, 5 BCD)", message)
    return Request(address, command, data, message)


# -- machine → host -------------------------------------------------------------------------------


def encode_response(address: int, command: int, payload: bytes) -> bytes:
    """A long poll reply: ``address, command, payload, CRC`` (payload includes a length byte where one is due)."""
    return append_crc(bytes([address, command]) + payload)


def response_data_length(command: int, header: bytes) -> int | None:
    """Bytes after ``address, command`` and before the CRC of the reply to ``command``.

    ``header`` is what has arrived after the command byte; ``None`` until the length byte of a
    variable-length reply (2F, 54) has arrived.
    """
    fixed = {Command.METERS_10_15: 24, Command.MACHINE_INFO: 20, **dict.fromkeys(SINGLE_METER_COMMANDS, 4)}
    if command in fixed:
        return fixed[command]
    if command in (Command.SELECTED_METERS, Command.VERSION_SERIAL):
        return None if not header else 1 + header[0]
    raise ValueError(f"no reply layout for long poll 0x{command:02X}")


def meters_10_15_payload(meters: Mapping[str, int]) -> bytes:
    return b"".join(bcd_encode(int(meters[name]), 4) for name in METERS_10_15_ORDER)


def parse_meters_10_15(payload: bytes) -> dict[str, int]:
    """The six meters of long poll 0F, in order: cancelled credits, coin in, coin out, drop, jackpot, games."""
    if len(payload) != 24:
        raise FrameError(f"long poll 0F reply carries 24 meter bytes, got {len(payload)}", payload)
    return {name: bcd_decode(payload[4 * i: 4 * i + 4], f"0F meter {name}")
            for i, name in enumerate(METERS_10_15_ORDER)}


def parse_meter(command: int, payload: bytes) -> int:
    if len(payload) != 4:
        raise FrameError(f"long poll 0x{command:02X} reply carries 4 meter bytes, got {len(payload)}", payload)
    return bcd_decode(payload, f"meter of long poll 0x{command:02X}")


def selected_meters_payload(game: int, values: Iterable[tuple[int, int]]) -> bytes:
    data = bytearray(bcd_encode(game, 2))
    for code, value in values:
        data += bytes([code]) + bcd_encode(value, METER_SIZES[code])
    return bytes([len(data)]) + bytes(data)


def parse_selected_meters(payload: bytes) -> tuple[int, dict[int, int]]:
    """Game number and ``{meter code: value}`` of a 2F reply (payload from the length byte on)."""
    if not payload or payload[0] != len(payload) - 1:
        raise FrameError("2F reply length byte does not match the data", payload)
    data = payload[1:]
    if len(data) < 2:
        raise FrameError("2F reply lacks the game number", payload)
    game = bcd_decode(data[:2], "2F game number")
    values: dict[int, int] = {}
    position = 2
    while position < len(data):
        code = data[position]
        if code not in METER_SIZES:
            raise FrameError(f"2F reply names meter code 0x{code:02X} at byte {position + 1}, not implemented", payload)
        size = METER_SIZES[code]
        field = data[position + 1: position + 1 + size]
        if len(field) != size:
            raise FrameError(f"2F reply meter 0x{code:02X} truncated", payload)
        values[code] = bcd_decode(field, f"2F meter 0x{code:02X}")
        position += 1 + size
    return game, values


@dataclass(frozen=True)
class MachineInfo:
    """Long poll 1F: gaming machine ID and information."""

    game_id: str  # 2 ASCII
    additional_id: str  # 3 ASCII
    denomination_code: int
    max_bet: int  # credits
    progressive_group: int
    game_options: int  # 2 bytes, binary, least significant byte first
    paytable_id: str  # 6 ASCII
    base_percent: float  # 4 ASCII digits, two decimals ("9039" = 90.39 %)

    @property
    def denomination_cents(self) -> int | None:
        return DENOMINATIONS_CENTS.get(self.denomination_code)


def _ascii(text: str, length: int, what: str) -> bytes:
    raw = text.encode("ascii")
    if len(raw) > length:
        raise ValueError(f"{what} {text!r} is longer than {length} characters")
    return raw.ljust(length)


def machine_info_payload(info: MachineInfo) -> bytes:
    percent = round(info.base_percent * 100)
    if not 0 <= percent <= 9999:
        raise ValueError(f"base percentage {info.base_percent} does not fit 4 digits with 2 decimals")
    return (_ascii(info.game_id, 2, "game ID") + _ascii(info.additional_id, 3, "additional ID")
            + bytes([info.denomination_code, info.max_bet, info.progressive_group])
            + info.game_options.to_bytes(2, "little") + _ascii(info.paytable_id, 6, "pay table ID")
            + f"{percent:04d}".encode("ascii"))


def parse_machine_info(payload: bytes) -> MachineInfo:
    if len(payload) != 20:
        raise FrameError(f"1F reply carries 20 data bytes, got {len(payload)}", payload)
    try:
        text = payload[:5].decode("ascii"), payload[10:16].decode("ascii"), payload[16:20].decode("ascii")
    except UnicodeDecodeError as error:
        raise FrameError(f"1F reply has a non-ASCII byte at data byte {error.start}", payload) from error
    if not text[2].isdigit():
        raise FrameError(f"1F base percentage {text[2]!r} is not 4 digits", payload)
    return MachineInfo(
        game_id=text[0][:2], additional_id=text[0][2:5], denomination_code=payload[5], max_bet=payload[6],
        progressive_group=payload[7], game_options=int.from_bytes(payload[8:10], "little"),
        paytable_id=text[1].rstrip(), base_percent=int(text[2]) / 100,
    )


@dataclass(frozen=True)
class VersionSerial:
    """Long poll 54: SAS version (3 ASCII, "602") and the gaming machine serial number (0-40 ASCII)."""

    sas_version: str
    serial: str


def version_serial_payload(version: str, serial: str) -> bytes:
    data = _ascii(version, 3, "SAS version") + _ascii(serial, 40, "serial number").rstrip()
    if len(version) != 3:
        raise ValueError(f"SAS version must be 3 characters, got {version!r}")
    return bytes([len(data)]) + data


def parse_version_serial(payload: bytes) -> VersionSerial:
    if not payload or payload[0] != len(payload) - 1 or len(payload) < 4:
        raise FrameError("54 reply length byte does not match the data", payload)
    try:
        text = payload[1:].decode("ascii")
    except UnicodeDecodeError as error:
        raise FrameError(f"54 reply has a non-ASCII byte at data byte {error.start + 1}", payload) from error
    return VersionSerial(sas_version=text[:3], serial=text[3:])
