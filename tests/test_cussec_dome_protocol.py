"""CD protocol frames (drivers.cussec_dome_protocol): zones, round blocks, status, and every malformed frame."""

from __future__ import annotations

from itertools import product

import pytest

from bench.games import cussec
from bench.games.cussec import ZONES, winning_zones, zone_bet
from drivers.cussec_dome_protocol import (
    DomeRound,
    RoundReader,
    decode,
    encode,
    encode_round,
    parse_play_ack,
    parse_round,
    parse_status,
)
from drivers.serial_link import FrameError, StaleReply


def _round(*args: object, zones: tuple[str, ...] = ("pequeno", "numero-2")) -> list[bytes]:
    fields = args or (1, "BENCH", (322, 894, 1557), 1776, "AUTO", 28067, 29075, (2, 2, 6))
    return encode_round(*fields, zones)  # type: ignore[arg-type]


def _read(frames: list[bytes], number: int = 1) -> DomeRound | None:
    """What the reader gives after these lines, another round's lines discarded as the link does."""
    reader = RoundReader(number)
    result = None
    for line in frames:
        try:
            result = reader.feed(decode(line))
        except StaleReply:
            continue
    return result


def test_the_layout_has_every_chance_of_rule_7_once() -> None:
    assert len(ZONES) == len(set(ZONES)) == 2 + 6 + 15 + 6 + 6 + 1 + 14
    assert {"pequeno", "combinacao-1-3", "dupla-3", "triplo-3", "qualquer-triplo", "total-9", "total-17"} <= set(ZONES)
    assert "combinacao-3-1" not in ZONES and "total-3" not in ZONES and "total-18" not in ZONES
    assert zone_bet("combinacao-2-5") == cussec.Bet(cussec.Kind.COMBINACAO, 1, (2, 5))
    assert zone_bet("qualquer-triplo").kind is cussec.Kind.QUALQUER_TRIPLO
    with pytest.raises(ValueError, match="not a cussec zone"):
        zone_bet("numero-7")


def test_winning_zones_of_every_throw() -> None:
    """Checked against the rules directly (not through the oracle) for all 216 throws."""
    for throw in product(range(1, 7), repeat=3):
        zones = set(winning_zones(throw))
        total, faces, triple = sum(throw), set(throw), len(set(throw)) == 1
        assert ("pequeno" in zones) == (4 <= total <= 10 and not triple)  # cussec/9: not on a triple
        assert ("grande" in zones) == (11 <= total <= 17 and not triple)
        assert {z for z in zones if z.startswith("numero")} == {f"numero-{n}" for n in faces}
        assert {z for z in zones if z.startswith("combinacao")} == {
            f"combinacao-{a}-{b}" for a in faces for b in faces if a < b}
        assert {z for z in zones if z.startswith("dupla")} == {f"dupla-{n}" for n in faces if throw.count(n) >= 2}
        assert {z for z in zones if z.startswith("triplo")} == ({f"triplo-{throw[0]}"} if triple else set())
        assert ("qualquer-triplo" in zones) == triple
        assert {z for z in zones if z.startswith("total")} == ({f"total-{total}"} if 4 <= total <= 17 else set())
    assert winning_zones((6, 2, 2)) == winning_zones((2, 6, 2))  # the order the dice lie in does not matter


def test_a_round_block_round_trips() -> None:
    frames = _round()
    assert frames[0] == encode("RND", 1, "BENCH", "322.894.1557", 1776, "AUTO", 28067, 29075, "2.2.6", 2)
    assert frames[-1] == encode("END", "RND", 1, 2)
    played = _read(frames)
    assert played is not None
    assert (played.strokes, played.lamp_ms, played.lamp_by, played.dice, played.zones) == (
        (322, 894, 1557), 1776, "AUTO", (2, 2, 6), ("pequeno", "numero-2"))
    assert played.strokes_before_lamp == 3 and played.lamp_after_third_stroke_ms == 219
    assert DomeRound.from_json(played.to_json()) == played
    assert played.frames_text()[1] == "$ZONE,1,1,pequeno*47"


def test_a_round_without_lamp_or_dice_sensor() -> None:
    played = _read(_round(2, "DEALER", (100, 200), None, None, 900, 950, None, zones=()), 2)
    assert played is not None and played.lamp_ms is None and played.lamp_by is None and played.dice is None
    assert played.strokes_before_lamp == 2 and played.lamp_after_third_stroke_ms is None and played.zones == ()
    early = _read(_round(3, "BENCH", (100, 200, 900), 500, "AUTO", 1000, 1100, (1, 2, 3)), 3)
    assert early is not None and early.strokes_before_lamp == 2 and early.lamp_after_third_stroke_ms == -400


@pytest.mark.parametrize(("header", "message"), [
    (("RND", 1, "ROBOT", "1.2.3", 5, "AUTO", 6, 7, "-", 0), "mode 'ROBOT'"),
    (("RND", 1, "BENCH", "3.2.1", 5, "AUTO", 6, 7, "-", 0), "in time order"),
    (("RND", 1, "BENCH", "1.x.3", 5, "AUTO", 6, 7, "-", 0), "whole milliseconds"),
    (("RND", 1, "BENCH", "1.2.3", 5, "-", 6, 7, "-", 0), "lamp source"),
    (("RND", 1, "BENCH", "1.2.3", "-", "AUTO", 6, 7, "-", 0), "lamp source"),
    (("RND", 1, "BENCH", "1.2.3", 5, "SWITCH", 6, 7, "-", 0), "lamp source"),
    (("RND", 1, "BENCH", "1.2.3", 5, "AUTO", 6, 7, "1.2.7", 0), "three faces"),
    (("RND", 1, "BENCH", "1.2.3", 5, "AUTO", 6, 7, "1.2", 0), "three faces"),
    (("RND", 1, "BENCH", "1.2.3", 5, "AUTO", "-6", 7, "-", 0), "must be a whole number"),
    (("RND", 0, "BENCH", "1.2.3", 5, "AUTO", 6, 7, "-", 0), "at least 1"),
    (("RND", 1, "BENCH", "1.2.3", 5, "AUTO", 6, "-", 0), "needs 9 fields"),
])
def test_malformed_round_headers_name_their_fault(header: tuple[object, ...], message: str) -> None:
    with pytest.raises(FrameError, match=message):
        parse_round(decode(encode(*header)), [])


@pytest.mark.parametrize(("zone", "message"), [
    (encode("ZONE", 1, 1, "numero-7"), "not a cussec zone"),
    (encode("ZONE", 2, 1, "pequeno"), "of round 2 inside round 1"),
    (encode("ZONE", 1, 1), "needs 3 fields"),
])
def test_malformed_zones_name_their_fault(zone: bytes, message: str) -> None:
    header = decode(encode("RND", 1, "BENCH", "1.2.3", 5, "AUTO", 6, 7, "-", 1))
    with pytest.raises(FrameError, match=message):
        parse_round(header, [decode(zone)])


def test_a_repeated_zone_is_refused() -> None:
    header = decode(encode("RND", 1, "BENCH", "1.2.3", 5, "AUTO", 6, 7, "-", 2))
    with pytest.raises(FrameError, match="repeated"):
        parse_round(header, [decode(encode("ZONE", 1, i, "grande")) for i in (1, 2)])


def test_the_reader_takes_a_block_only_whole() -> None:
    frames = _round()
    with pytest.raises(FrameError, match="RND 1: 1 of 2 items not received intact \\(first: 1\\)"):
        _read([frames[0], *frames[2:]])  # zone 1 lost
    with pytest.raises(FrameError, match="1 of 2 items not received intact \\(first: 2\\)"):
        _read([*frames[:2], frames[-1]])  # zone 2 lost just before END
    with pytest.raises(FrameError, match="does not close"):
        _read([*frames[:-1], encode("END", "RND", 1, 3)])
    # zones before a header (the tail of an abandoned reply) and another round's block are ignored; a repeat of
    # the same block fills the gaps of the first copy
    other = _round(2, "BENCH", (1, 2, 3), 5, "AUTO", 6, 7, (1, 1, 1))
    assert _read([frames[1], *other, frames[0], frames[1], *frames]) == _read(frames)
    assert _read(other) is None
    reader = RoundReader(1)
    with pytest.raises(FrameError, match="items not received intact"):
        for line in [frames[0], frames[2], frames[-1]]:
            reader.feed(decode(line))
    assert reader.feed(decode(frames[1])) is None and reader.feed(decode(frames[-1])) == _read(frames)


def test_status_and_play_ack() -> None:
    status = parse_status(decode(encode("STATUS", 4, 9, 1, 0, 2, 1)))
    assert (status.tx, status.round, status.latched, status.lamp, status.strokes, status.actuator) == (
        4, 9, True, False, 2, True)
    with pytest.raises(FrameError, match="latched '2' must be 0 or 1"):
        parse_status(decode(encode("STATUS", 4, 9, 2, 0, 2, 1)))
    with pytest.raises(FrameError, match="needs 6 fields"):
        parse_status(decode(encode("STATUS", 4, 9)))
    assert parse_play_ack(decode(encode("ACK", 3, "PLAY", 7))) == 7
    with pytest.raises(FrameError, match="ACK of 'RESET' where PLAY was due"):
        parse_play_ack(decode(encode("ACK", 3, "RESET", 7)))


@pytest.mark.parametrize(("raw", "message"), [
    (b"RND,1*00\r\n", "missing '\\$'"),
    (b"$ROUND?,1*61\r\n", "checksum 61 should be 60"),
    (b"$ROUND?,1\r\n", "missing '\\*'"),
])
def test_broken_framing_is_named(raw: bytes, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        decode(raw)


def test_zones_and_end_of_another_rounds_block_are_skipped_and_counted() -> None:
    """A late reply's ZONE and END (round 2) inside round 1's block are skipped and counted, never part of it."""
    mine = _round()
    other = _round(2, "BENCH", (322, 894, 1557), 1776, "AUTO", 28067, 29075, (1, 2, 6), zones=("grande",))
    reader = RoundReader(1)
    result = None
    for line in [mine[0], other[1], mine[1], other[-1], *mine[2:]]:
        if line in other:
            with pytest.raises(StaleReply, match="of another block than RND 1"):
                reader.feed(decode(line))
        else:
            result = reader.feed(decode(line))
    assert result is not None and result.round == 1 and reader.stale_frames == 2
