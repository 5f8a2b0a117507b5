"""Random bytes into every parser of device replies: a value or a clean ValueError, never a crash or a hang.

A device that sends garbage must never crash the bench nor be read as a value by accident: each
parser either accepts its input (and then the input was a well-formed message) or raises
ValueError (FrameError is one) naming what is wrong. Two kinds of input per protocol: raw bytes
(framing, checksum and CRC must reject almost all of them), and well-framed messages with random
fields (the checksum passes, so the field checks are what stands between garbage and a value).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.games import physical_cards
from drivers import (
    instruments,
    jackpot_protocol,
    line_frame,
    rng_protocol,
    roulette_protocol,
    sas_progressive,
    sas_protocol,
    shuffler_protocol,
    visa_link,
)

FUZZ = settings(max_examples=300, deadline=None)

ascii_field = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters=",*\r\n$"),
                      max_size=12)
fields = st.lists(ascii_field, max_size=8)
frame_types = st.sampled_from(["ID", "RES", "CONF", "LEVEL", "VAL", "PAID", "DISP", "PAYTABLE", "ERR", "NAK", "RAW", "DRAW", "CARD", "STOP", "ACK", "SHUFFLED",
                               "STATUS", "INV", "TRAY", "LAYOUT", "X?"])


def _clean(call: Callable[[], Any]) -> Any:
    """Run a parser: a value, or None when it refused the input with a ValueError."""
    try:
        return call()
    except ValueError as error:
        assert str(error), "a refusal must say what is wrong"
        return None


LINE_DECODERS = {
    "jackpot": jackpot_protocol.decode,
    "roulette": roulette_protocol.decode,
    "rng": rng_protocol.decode,
    "shuffler": shuffler_protocol.decode,
}


@pytest.mark.parametrize("protocol", sorted(LINE_DECODERS))
@FUZZ
@given(raw=st.binary(max_size=80))
def test_line_decoders_refuse_random_bytes_cleanly(protocol: str, raw: bytes) -> None:
    frame = _clean(lambda: LINE_DECODERS[protocol](raw))
    if frame is not None:  # accepted: then it really was a frame with a right checksum
        body = raw[1:raw.rindex(b"*")]
        assert raw.startswith(b"$") and line_frame.checksum(body) == raw[raw.rindex(b"*") + 1:][:2].decode()


def _framed(frame_type: str, values: list[str]) -> line_frame.Frame:
    return line_frame.decode(line_frame.encode(frame_type, *values), "test")


@FUZZ
@given(frame_type=frame_types, values=fields, pockets=st.sampled_from([37, 38]))
def test_roulette_results_with_random_fields(frame_type: str, values: list[str], pockets: int) -> None:
    frame = _framed(frame_type, values)
    result = _clean(lambda: roulette_protocol.parse_result(frame, pockets))
    if result is not None:
        assert 0 <= result.number < pockets and result.game >= 1
    _clean(lambda: roulette_protocol.parse_no_result(frame))
    _clean(lambda: line_frame.parse_identity(frame))


@FUZZ
@given(values=fields, expected=st.integers(1, 64), outcome_range=st.integers(2, 100))
def test_rng_blocks_with_random_fields(values: list[str], expected: int, outcome_range: int) -> None:
    raw = _clean(lambda: rng_protocol.parse_raw(_framed("RAW", values), expected))
    if raw is not None:
        assert len(raw.data) == expected
    draw = _clean(lambda: rng_protocol.parse_draw(_framed("DRAW", values), outcome_range, expected))
    if draw is not None:
        assert len(draw.values) == expected and all(0 <= value < outcome_range for value in draw.values)


SHUFFLER_PARSERS: dict[str, Callable[[line_frame.Frame], Any]] = {
    "STOP": shuffler_protocol.parse_stop,
    "CARD": shuffler_protocol.parse_dealt,
    "SHUFFLED": shuffler_protocol.parse_shuffled,
    "STATUS": shuffler_protocol.parse_status,
    "ACK": lambda frame: shuffler_protocol.parse_ack(frame, "DEAL"),
    "INV": lambda frame: shuffler_protocol.parse_page(frame, "INV", 1),
    "TRAY": lambda frame: shuffler_protocol.parse_page(frame, "TRAY", 1),
}


@FUZZ
@given(frame_type=st.sampled_from(sorted(SHUFFLER_PARSERS)), values=fields)
def test_shuffler_replies_with_random_fields(frame_type: str, values: list[str]) -> None:
    _clean(lambda: SHUFFLER_PARSERS[frame_type](_framed(frame_type, values)))


@FUZZ
@given(text=ascii_field)
def test_card_names_are_parsed_or_refused(text: str) -> None:
    card = _clean(lambda: physical_cards.parse_card(text))
    if card is not None:
        assert physical_cards.parse_card(str(card)) == card


SAS_PAYLOAD_PARSERS: dict[str, Callable[[bytes], Any]] = {
    "meters 0F": sas_protocol.parse_meters_10_15,
    "meter 11": lambda payload: sas_protocol.parse_meter(0x11, payload),
    "selected meters 2F": sas_protocol.parse_selected_meters,
    "machine info 1F": sas_protocol.parse_machine_info,
    "version and serial 54": sas_protocol.parse_version_serial,
    "BCD": sas_protocol.bcd_decode,
    "CRC": sas_protocol.check_crc,
    "host message": sas_protocol.decode_request,
}


@pytest.mark.parametrize("parser", sorted(SAS_PAYLOAD_PARSERS))
@FUZZ
@given(payload=st.binary(max_size=40))
def test_sas_parsers_refuse_random_bytes_cleanly(parser: str, payload: bytes) -> None:
    _clean(lambda: SAS_PAYLOAD_PARSERS[parser](payload))


@FUZZ
@given(body=st.binary(min_size=1, max_size=40))
def test_sas_crc_accepts_exactly_the_frames_it_made(body: bytes) -> None:
    assert sas_protocol.check_crc(sas_protocol.append_crc(body)) == body
    flipped = bytearray(sas_protocol.append_crc(body))
    flipped[len(body) // 2] ^= 0x10
    assert _clean(lambda: sas_protocol.check_crc(bytes(flipped))) is None  # one flipped bit is always caught


JACKPOT_PARSERS: dict[str, tuple[str, Callable[[line_frame.Frame], Any]]] = {  # name: (frame type, parser)
    "configuration": ("CONF", jackpot_protocol.parse_configuration),
    "level": ("LEVEL", lambda frame: jackpot_protocol.parse_level(frame, 1)),
    "values": ("VAL", jackpot_protocol.parse_values),
    "bet ack": ("ACK", jackpot_protocol.parse_bet_ack),
    "reset ack": ("ACK", jackpot_protocol.parse_reset_ack),
    "status": ("STATUS", jackpot_protocol.parse_status),
    "paid": ("PAID", jackpot_protocol.parse_paid),
    "pay table": ("PAYTABLE", jackpot_protocol.parse_pay_table),
    "display": ("DISP", lambda frame: jackpot_protocol.parse_display(frame, 1)),
}


@FUZZ
@given(parser=st.sampled_from(sorted(JACKPOT_PARSERS)), values=fields)
def test_jackpot_replies_with_random_fields(parser: str, values: list[str]) -> None:
    frame_type, parse = JACKPOT_PARSERS[parser]
    frame = _framed(frame_type, values)
    _clean(lambda: parse(frame))
    _clean(lambda: jackpot_protocol.parse_tx(frame))


@FUZZ
@given(text=st.text(max_size=40))
def test_jackpot_display_texts_show_one_amount_or_none(text: str) -> None:
    amount = _clean(lambda: jackpot_protocol.parse_display_amount(text))
    if amount is not None:
        assert amount >= 0


@FUZZ
@given(message=st.binary(max_size=60), framed=st.booleans())
def test_sas_progressive_broadcasts_refuse_random_bytes_cleanly(message: bytes, framed: bool) -> None:
    if framed and len(message) >= 2:  # a right CRC on random content: the field checks must hold alone
        message = sas_protocol.append_crc(bytes([message[0], 0x80 if message[1] % 2 else 0x86]) + message[2:])
    broadcast = _clean(lambda: sas_progressive.parse_progressive(message))
    if broadcast is not None:
        assert 1 <= broadcast.group <= 255 and all(1 <= level <= 32 for level in broadcast.amounts)
        assert all(amount >= 0 for amount in broadcast.amounts.values())


SCPI_PARSERS: dict[str, Callable[[str], Any]] = {
    "*IDN?": instruments.parse_idn,
    "number": visa_link.parse_number,
    "boolean": visa_link.parse_boolean,
}


@pytest.mark.parametrize("parser", sorted(SCPI_PARSERS))
@FUZZ
@given(text=st.text(max_size=60))
def test_scpi_replies_are_parsed_or_refused_cleanly(parser: str, text: str) -> None:
    value = _clean(lambda: SCPI_PARSERS[parser](text))
    if parser == "number" and value is not None:
        assert math.isfinite(value)  # never NaN or infinite from a reply
