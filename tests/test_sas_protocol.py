"""SAS message formats (drivers.sas_protocol) and the pty escape framing (drivers.sas_transport).

Expected frames are written out byte by byte from the SAS 6.02 layouts; CRCs are checked against
the CRC catalogue's check value, a bit-by-bit reference implementation, and two messages widely
quoted in SAS documentation (long polls 01 and 02 to address 1).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers import sas_protocol as sas
from drivers.sas_protocol import Command, FrameError, MachineInfo
from drivers.sas_transport import ESCAPE, Unescaper, escape, escape_message, escape_reply


def _crc_bitwise(data: bytes) -> int:
    """CRC-16/KERMIT bit by bit: reflected poly 0x8408, init 0 (independent of the table)."""
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x8408 if crc & 1 else 0)
    return crc


# -- CRC ------------------------------------------------------------------------------------------


def test_crc_check_value() -> None:
    assert sas.crc16_kermit(b"123456789") == sas.CRC_CHECK_VALUE == 0x2189


@given(st.binary(max_size=64))
def test_table_crc_equals_bitwise_crc(data: bytes) -> None:
    assert sas.crc16_kermit(data) == _crc_bitwise(data)


def test_known_shutdown_and_startup_messages_carry_their_published_crc_lsb_first() -> None:
    assert sas.encode_long_poll(1, Command.SHUTDOWN) == bytes.fromhex("01 01 51 08")
    assert sas.encode_long_poll(1, Command.STARTUP) == bytes.fromhex("01 02 CA 3A")


def test_check_crc_returns_the_body_and_names_a_mismatch() -> None:
    frame = sas.append_crc(b"\x01\x11\x00\x00\x12\x34")
    assert sas.check_crc(frame) == b"\x01\x11\x00\x00\x12\x34"
    corrupted = frame[:-1] + bytes([frame[-1] ^ 0xFF])
    with pytest.raises(FrameError, match="CRC mismatch: received 0x"):
        sas.check_crc(corrupted)
    with pytest.raises(FrameError, match="too short"):
        sas.check_crc(b"\x01\x02")


# -- BCD ------------------------------------------------------------------------------------------


def test_bcd_encode_packs_two_digits_per_byte_most_significant_first() -> None:
    assert sas.bcd_encode(12345678, 4) == bytes([0x12, 0x34, 0x56, 0x78])
    assert sas.bcd_encode(907, 4) == bytes([0x00, 0x00, 0x09, 0x07])
    assert sas.bcd_encode(0, 5) == bytes(5)


@pytest.mark.parametrize(("value", "length", "message"), [
    (100_000_000, 4, "more than the 8 digits"), (-1, 4, "non-negative"), (5, 0, "at least 1 byte"),
])
def test_bcd_encode_refuses_what_does_not_fit(value: int, length: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sas.bcd_encode(value, length)


@pytest.mark.parametrize(("data", "fault"), [
    (bytes([0x00, 0x12, 0x3A, 0x00]), "byte 2 (0x3A)"), (bytes([0xA0, 0x00]), "byte 0 (0xA0)"),
])
def test_bcd_decode_names_the_byte_at_fault(data: bytes, fault: str) -> None:
    with pytest.raises(FrameError, match=re.escape(f"coin in: {fault} is not packed BCD")):
        sas.bcd_decode(data, "coin in")
    with pytest.raises(FrameError, match="empty"):
        sas.bcd_decode(b"")


@given(st.integers(min_value=0, max_value=10**10 - 1))
def test_bcd_round_trip(value: int) -> None:
    assert sas.bcd_decode(sas.bcd_encode(value, 5)) == value


# -- host messages --------------------------------------------------------------------------------


def test_general_poll_and_type_r_long_polls() -> None:
    assert sas.encode_general_poll(1) == b"\x81"
    assert sas.encode_general_poll(127) == b"\xff"
    assert sas.encode_long_poll(1, Command.METERS_10_15) == bytes.fromhex("01 0F")  # no CRC on type R
    assert sas.encode_long_poll(3, Command.VERSION_SERIAL) == bytes.fromhex("03 54")
    for bad in (0, 128):
        with pytest.raises(ValueError, match="SAS address must be 1-127"):
            sas.encode_general_poll(bad)


def test_selected_meters_poll_layout() -> None:
    message = sas.encode_selected_meters_poll(1, [0x00, 0x01, 0x05])
    body = bytes.fromhex("01 2F 05 00 00 00 01 05")  # address, 2F, length 5, game 0000 (BCD), 3 meter codes
    assert message == body + _crc_bitwise(body).to_bytes(2, "little")
    request = sas.decode_request(message)
    assert (request.address, request.command, request.data) == (1, Command.SELECTED_METERS, bytes.fromhex("0000000105"))
    with pytest.raises(ValueError, match="not implemented"):
        sas.encode_selected_meters_poll(1, [0x7F])


def test_progressive_broadcast_layouts() -> None:
    single = sas.encode_single_progressive(0, group=1, level=2, amount_cents=1_234_567)
    body = bytes.fromhex("00 80 01 02 00 01 23 45 67")  # broadcast, 80, group, level, 5 BCD cents
    assert single == body + _crc_bitwise(body).to_bytes(2, "little")
    assert len(single) == 11
    multi = sas.encode_multi_progressive(5, group=7, levels={2: 99, 1: 250_000})
    body = bytes.fromhex("05 86 0D 07 01 00 00 25 00 00 02 00 00 00 00 99")  # length 13: group + 2 × 6
    assert multi == body + _crc_bitwise(body).to_bytes(2, "little")
    assert sas.decode_request(multi).data == body[3:]
    with pytest.raises(ValueError, match="level must be 1-32"):
        sas.encode_single_progressive(0, 1, 33, 5)
    with pytest.raises(ValueError, match="group must be 1-255"):
        sas.encode_multi_progressive(0, 0, {1: 5})


def test_request_length_tells_when_a_message_is_complete() -> None:
    assert sas.request_length(b"") is None
    assert sas.request_length(b"\x81") == 1
    assert sas.request_length(b"\x01") is None
    assert sas.request_length(b"\x01\x0f") == 2
    assert sas.request_length(b"\x01\x80") == 11
    assert sas.request_length(b"\x01\x2f") is None
    assert sas.request_length(b"\x01\x2f\x05") == 10
    with pytest.raises(FrameError, match="long poll 0x6F is not implemented"):
        sas.request_length(b"\x01\x6f")


def test_decode_request_refuses_a_bad_crc_and_a_wrong_length() -> None:
    message = bytearray(sas.encode_long_poll(1, Command.STARTUP))
    message[-2] ^= 1
    with pytest.raises(FrameError, match="CRC mismatch"):
        sas.decode_request(bytes(message))
    with pytest.raises(FrameError, match="expected 2"):
        sas.decode_request(b"\x01\x0f\x00")
    bad_game = sas.append_crc(bytes.fromhex("01 2F 03 00 0A 00"))
    with pytest.raises(FrameError, match=r"2F game number: byte 1 \(0x0A\)"):
        sas.decode_request(bad_game)


# -- machine replies ------------------------------------------------------------------------------


def test_meters_long_poll_reply_layout_and_parse() -> None:
    meters = {"cancelled_credits": 0, "coin_in": 1234, "coin_out": 1100, "drop": 2000, "jackpot": 5,
              "games_played": 1234}
    reply = sas.encode_response(1, Command.METERS_10_15, sas.meters_10_15_payload(meters))
    body = bytes.fromhex("01 0F 00000000 00001234 00001100 00002000 00000005 00001234")
    assert reply == body + _crc_bitwise(body).to_bytes(2, "little")
    assert len(reply) == 28
    assert sas.parse_meters_10_15(sas.check_crc(reply)[2:]) == meters
    with pytest.raises(FrameError, match="24 meter bytes"):
        sas.parse_meters_10_15(bytes(20))
    with pytest.raises(FrameError, match=r"0F meter coin_out: byte 3 \(0xFF\)"):
        sas.parse_meters_10_15(bytes(8) + bytes([0, 0, 0, 0xFF]) + bytes(12))


def test_selected_meters_reply_round_trip_and_errors() -> None:
    payload = sas.selected_meters_payload(0, [(0x00, 50), (0x24, 1300)])
    assert payload == bytes.fromhex("0C 0000 00 00000050 24 00001300")
    assert sas.parse_selected_meters(payload) == (0, {0x00: 50, 0x24: 1300})
    with pytest.raises(FrameError, match="length byte"):
        sas.parse_selected_meters(payload[:-1])
    with pytest.raises(FrameError, match="meter code 0x33 at byte 3"):
        sas.parse_selected_meters(bytes.fromhex("07 0000 33 00000001"))
    assert sas.response_data_length(Command.SELECTED_METERS, b"") is None
    assert sas.response_data_length(Command.SELECTED_METERS, b"\x0c") == 13


def test_machine_info_reply_round_trip() -> None:
    info = MachineInfo(game_id="SB", additional_id="000", denomination_code=0x03, max_bet=5, progressive_group=1,
                       game_options=0x0102, paytable_id="SB9039", base_percent=90.39)
    payload = sas.machine_info_payload(info)
    assert payload == b"SB000" + bytes([0x03, 5, 1, 0x02, 0x01]) + b"SB9039" + b"9039"
    parsed = sas.parse_machine_info(payload)
    assert parsed == info and parsed.denomination_cents == 10
    with pytest.raises(FrameError, match="non-ASCII byte at data byte 1"):
        sas.parse_machine_info(b"S\xff" + payload[2:])
    with pytest.raises(FrameError, match="not 4 digits"):
        sas.parse_machine_info(payload[:16] + b"90.3")


def test_version_and_serial_reply_round_trip() -> None:
    payload = sas.version_serial_payload("602", "SIM-SM-0001")
    assert payload == bytes([14]) + b"602SIM-SM-0001"
    assert sas.parse_version_serial(payload) == sas.VersionSerial("602", "SIM-SM-0001")
    with pytest.raises(FrameError, match="length byte"):
        sas.parse_version_serial(bytes([20]) + b"602X")


# -- pty escape framing ---------------------------------------------------------------------------


def test_escape_framing_marks_the_first_byte_and_doubles_a_literal_escape() -> None:
    assert ESCAPE == 0x80
    assert escape_message(bytes.fromhex("01 0F")) == bytes.fromhex("80 01 0F")
    assert escape_message(b"\x81") == bytes.fromhex("80 81")
    assert escape_reply(bytes.fromhex("01 80 7F")) == bytes.fromhex("01 80 80 7F")
    with pytest.raises(ValueError, match="general poll of address 0"):
        escape([(0x80, True)])


@given(st.lists(st.tuples(st.integers(0, 255), st.booleans()).filter(lambda u: u != (0x80, True)), max_size=40),
       st.integers(1, 8))
def test_unescaper_recovers_the_units_whatever_the_chunking(units: list[tuple[int, bool]], step: int) -> None:
    wire = escape(units)
    decoder = Unescaper()
    decoded = [unit for start in range(0, len(wire), step) for unit in decoder.feed(wire[start:start + step])]
    assert decoded == units
