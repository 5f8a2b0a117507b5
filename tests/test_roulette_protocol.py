"""The RW line protocol (drivers.roulette_protocol): framing, checksum, RES and ERR fields."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench.games.roulette_layout import Direction
from drivers.roulette_protocol import (
    Frame,
    NoResult,
    SpinResult,
    checksum,
    decode,
    encode,
    parse_no_result,
    parse_result,
)
from drivers.serial_link import FrameError

# -- checksum ----------------------------------------------------------------


def test_checksum_is_the_hand_computed_xor_of_the_body() -> None:
    # "ID?"  = 0x49 ^ 0x44 ^ 0x3F             = 0x0D ^ 0x3F = 0x32
    # "SPIN" = 0x53 ^ 0x50 ^ 0x49 ^ 0x4E      = 0x03 ^ 0x49 = 0x4A ^ 0x4E = 0x04
    assert checksum(b"ID?") == "32"
    assert checksum(b"SPIN") == "04"
    # two upper-case hex digits, zero-padded
    assert checksum(b"") == "00"
    assert checksum(b"\x0a") == "0A"
    assert checksum(b"AA") == "00"


def test_encode_builds_dollar_body_star_checksum_crlf() -> None:
    assert encode("ID?") == b"$ID?*32\r\n"
    assert encode("SPIN") == b"$SPIN*04\r\n"
    assert encode("RES", 17, 32, "CCW", "CW", "24.3") == b"$RES,17,32,CCW,CW,24.3*37\r\n"


def test_every_encoded_frame_xors_to_zero_with_its_checksum() -> None:
    raw = encode("ERR", 9, "NO_RESULT", "ball position not detected")
    body = raw[1 : raw.index(b"*")]
    assert checksum(body + bytes([int(raw[-4:-2], 16)])) == "00"


# -- round trip --------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame_type", "fields"),
    [
        ("ID?", ()),
        ("LAYOUT?", ()),
        ("SPIN", ()),
        ("RES?", ("42",)),
        ("STATUS?", ()),
        ("ID", ("Acme Wheels", "RW-37", "SN-0042", "2.1.0")),
        ("ACK", ("SPIN", "42")),
        ("RES", ("42", "0", "CW", "CCW", "23.9")),
        ("ERR", ("42", "NO_RESULT", "ball position not detected")),
        ("NAK", ("RES?", "UNKNOWN_GAME")),
        ("STATUS", ("IDLE", "42")),
        ("ERR", ("42", "NO_RESULT", "")),
    ],
)
def test_encode_decode_round_trip(frame_type: str, fields: tuple[str, ...]) -> None:
    raw = encode(frame_type, *fields)
    frame = decode(raw)
    assert frame == Frame(type=frame_type, fields=fields, raw=raw)


def test_decode_accepts_a_bare_lf_terminator() -> None:
    assert decode(b"$ID?*32\n").type == "ID?"


# -- decode rejects ----------------------------------------------------------


def test_decode_rejects_a_bad_checksum_naming_both_values() -> None:
    with pytest.raises(FrameError, match=r"checksum 00 should be 32") as caught:
        decode(b"$ID?*00\r\n")
    assert caught.value.raw == b"$ID?*00\r\n"


def test_decode_rejects_a_corrupted_body() -> None:
    good = encode("RES", 17, 32, "CCW", "CW", "24.3")
    corrupted = good.replace(b",32,", b",33,")
    with pytest.raises(FrameError, match=r"checksum 37 should be 36"):
        decode(corrupted)


def test_decode_rejects_a_missing_start_character() -> None:
    with pytest.raises(FrameError, match=r"missing '\$'") as caught:
        decode(b"ID?*32\r\n")
    assert caught.value.raw == b"ID?*32\r\n"


def test_decode_rejects_a_missing_terminator() -> None:
    with pytest.raises(FrameError, match=r"missing CR LF terminator"):
        decode(b"$ID?*32")
    with pytest.raises(FrameError, match=r"missing CR LF terminator"):
        decode(b"$ID?*32\r")


def test_decode_rejects_a_missing_checksum() -> None:
    with pytest.raises(FrameError, match=r"checksum"):
        decode(b"$ID?\r\n")
    with pytest.raises(FrameError, match=r"checksum"):
        decode(b"$ID?*3\r\n")
    with pytest.raises(FrameError, match=r"checksum"):
        decode(b"$STATUS?*2b\r\n")  # the right value (2B) in lower case is not allowed


def test_decode_rejects_an_empty_or_malformed_body() -> None:
    for raw in (b"$*00\r\n", b"$id?*52\r\n", b"$,ID*22\r\n"):
        with pytest.raises(FrameError, match=r"not an RW frame \(malformed type or fields\)"):
            decode(raw)


# -- RES ---------------------------------------------------------------------


def test_parse_result_reads_every_field() -> None:
    raw = encode("RES", 17, 32, "CCW", "CW", "24.3")
    result = parse_result(decode(raw))
    assert result == SpinResult(
        game=17,
        number=32,
        rotor_direction=Direction.ANTICLOCKWISE,
        ball_direction=Direction.CLOCKWISE,
        rotor_rpm=24.3,
        raw=raw,
    )


@pytest.mark.parametrize("number", [0, 36])
def test_parse_result_accepts_the_extreme_pockets(number: int) -> None:
    assert parse_result(decode(encode("RES", 1, number, "CW", "CCW", "20.0"))).number == number


@pytest.mark.parametrize("number", [37, 38, -1, 100])
def test_parse_result_rejects_numbers_outside_0_36(number: int) -> None:
    with pytest.raises(FrameError, match=r"winning number .* outside 0-36"):
        parse_result(decode(encode("RES", 1, number, "CW", "CCW", "20.0")))


def test_parse_result_honours_the_pocket_count() -> None:
    frame = decode(encode("RES", 1, 36, "CW", "CCW", "20.0"))
    with pytest.raises(FrameError, match=r"outside 0-35"):
        parse_result(frame, pockets=36)


@pytest.mark.parametrize(
    "fields",
    [
        (1, 17, "CW", "CCW"),
        (1, 17, "CW", "CCW", "20.0", "extra"),
        (),
    ],
)
def test_parse_result_rejects_wrong_field_counts(fields: tuple[object, ...]) -> None:
    with pytest.raises(FrameError, match=r"RES frame needs 5 fields"):
        parse_result(decode(encode("RES", *fields)))


def test_parse_result_rejects_another_frame_type() -> None:
    with pytest.raises(FrameError, match=r"RES frame"):
        parse_result(decode(encode("ERR", 1, 17, "CW", "CCW", "20.0")))


@pytest.mark.parametrize(
    ("rotor", "ball"),
    [("CW", "XX"), ("cw", "CCW"), ("CCW", ""), ("ACW", "CW"), ("LEFT", "RIGHT")],
)
def test_parse_result_rejects_bad_directions(rotor: str, ball: str) -> None:
    with pytest.raises(FrameError, match=r"bad RES field"):
        parse_result(decode(encode("RES", 1, 17, rotor, ball, "20.0")))


@pytest.mark.parametrize(
    ("game", "number", "rpm"),
    [("one", "17", "20.0"), ("1", "seventeen", "20.0"), ("1", "17", "fast"), ("1", "17.5", "20.0")],
)
def test_parse_result_rejects_non_numeric_fields(game: str, number: str, rpm: str) -> None:
    with pytest.raises(FrameError, match=r"bad RES field"):
        parse_result(decode(encode("RES", game, number, "CW", "CCW", rpm)))


@pytest.mark.parametrize("game", [0, -3])
def test_parse_result_rejects_non_positive_game_numbers(game: int) -> None:
    with pytest.raises(FrameError, match=r"game number .* must be positive"):
        parse_result(decode(encode("RES", game, 17, "CW", "CCW", "20.0")))


def test_direction_opposite() -> None:
    assert Direction.CLOCKWISE.opposite is Direction.ANTICLOCKWISE
    assert Direction.ANTICLOCKWISE.opposite is Direction.CLOCKWISE
    assert Direction("CW") is Direction.CLOCKWISE and Direction("CCW") is Direction.ANTICLOCKWISE


# -- ERR ---------------------------------------------------------------------


def test_parse_no_result_reads_game_code_and_text() -> None:
    raw = encode("ERR", 12, "NO_RESULT", "ball position not detected")
    assert parse_no_result(decode(raw)) == NoResult(
        game=12, code="NO_RESULT", text="ball position not detected", raw=raw
    )


def test_parse_no_result_keeps_commas_in_the_text_and_allows_no_text() -> None:
    assert parse_no_result(decode(encode("ERR", 3, "FOREIGN_OBJECT", "chip on rotor", "stopped"))).text == (
        "chip on rotor,stopped"
    )
    assert parse_no_result(decode(encode("ERR", 3, "NO_RESULT"))).text == ""


def test_parse_no_result_is_not_a_spin_result() -> None:
    outcome = parse_no_result(decode(encode("ERR", 12, "NO_RESULT", "x")))
    assert not isinstance(outcome, SpinResult)
    assert not hasattr(outcome, "number")


@pytest.mark.parametrize(
    ("frame_type", "fields", "message"),
    [
        ("ERR", (12,), r"ERR frame needs game and code"),
        ("ERR", (), r"ERR frame needs game and code"),
        ("RES", (12, "NO_RESULT"), r"ERR frame needs game and code"),
        ("ERR", ("twelve", "NO_RESULT"), r"bad ERR game number"),
    ],
)
def test_parse_no_result_rejects_malformed_frames(frame_type: str, fields: tuple[object, ...], message: str) -> None:
    with pytest.raises(FrameError, match=message):
        parse_no_result(decode(encode(frame_type, *fields)))


# -- the protocol document ---------------------------------------------------

PROTOCOL_DOCUMENT = Path(__file__).resolve().parents[1] / "docs" / "protocols" / "roulette-wheel.md"


def test_every_frame_in_the_protocol_document_has_the_right_checksum() -> None:
    checked = 0
    for line in PROTOCOL_DOCUMENT.read_text(encoding="utf-8").splitlines():
        for text in re.findall(r"\$[A-Z?][^`\n*]*\*[0-9A-F]{2}", line):
            raw = text.encode("ascii") + b"\r\n"
            if "garbled" in line:  # the example of a frame corrupted on the line
                with pytest.raises(FrameError, match="checksum"):
                    decode(raw)
            else:
                frame = decode(raw)
                assert encode(frame.type, *frame.fields) == raw, text
            checked += 1
    assert checked >= 30
