"""JP frames (drivers.jackpot_protocol): every reply parsed, every malformed frame refused naming its fault."""

from __future__ import annotations

from decimal import Decimal

import pytest

from bench.games.jackpot_rules import BLACKJACK_EXAMPLE, POQUER_SEM_DESCARTE, Hit
from drivers.jackpot_protocol import (
    Frame,
    decode,
    encode,
    encode_hit,
    format_display,
    parse_bet_ack,
    parse_configuration,
    parse_display,
    parse_display_amount,
    parse_level,
    parse_paid,
    parse_pay_table,
    parse_reset_ack,
    parse_status,
    parse_values,
    pay_table_fields,
)
from drivers.line_frame import corrupt_checksum
from drivers.sas_progressive import ProgressiveScanner, parse_progressive
from drivers.sas_protocol import encode_multi_progressive, encode_single_progressive
from drivers.sas_transport import Unescaper, escape_message
from drivers.serial_link import FrameError


def frame(*parts: object) -> Frame:
    return decode(encode(*parts))


def test_framing_faults_are_named() -> None:
    good = encode("VAL", 3, 1000000)
    assert decode(good).fields == ("3", "1000000")
    with pytest.raises(FrameError, match="checksum"):
        decode(corrupt_checksum(good))
    with pytest.raises(FrameError, match="missing '\\$'"):
        decode(good[1:])
    with pytest.raises(FrameError, match="not an JP frame"):
        decode(good[:-2])


def test_configuration_and_levels() -> None:
    conf = parse_configuration(frame("CONF", "poquer-sem-descarte", 100, 2))
    assert (conf.game, conf.jackpot_bet_cents, conf.levels) == ("poquer-sem-descarte", 100, 2)
    level = parse_level(frame("LEVEL", 2, 1000025, 1000000, "2.5", 7), 2)
    assert (level.value_cents, level.start_cents, level.increment_percent, level.tx) == (1000025, 1000000,
                                                                                        Decimal("2.5"), 7)
    for bad, fault in [(("CONF", "roleta", 100, 1), "game 'roleta'"), (("CONF", "blackjack", 0, 1), "at least 1"),
                       (("CONF", "blackjack", 100, 9), "above 8"), (("CONF", "blackjack", "1.5", 1), "whole number"),
                       (("CONF", "blackjack", 100), "needs game")]:
        with pytest.raises(FrameError, match=fault):
            parse_configuration(frame(*bad))
    with pytest.raises(FrameError, match="level 1 asked for"):
        parse_level(frame("LEVEL", 2, 1, 1, "70", 0), 1)
    with pytest.raises(FrameError, match="more than 4 decimals"):
        parse_level(frame("LEVEL", 1, 1, 1, "7.00001", 0), 1)
    with pytest.raises(FrameError, match="value '-5' must be a whole number"):
        parse_level(frame("LEVEL", 1, -5, 1, "70", 0), 1)


def test_values_and_bet_acknowledgements() -> None:
    assert parse_values(frame("VAL", 4, 10, 20), 2).values == (10, 20)
    ack = parse_bet_ack(frame("ACK", 5, "BET", 1000070, 500002), 2)
    assert (ack.tx, ack.values) == (5, (1000070, 500002))
    with pytest.raises(FrameError, match="carries 1 level values, the controller has 2"):
        parse_values(frame("VAL", 4, 10), 2)
    with pytest.raises(FrameError, match="not 'BET'"):
        parse_bet_ack(frame("ACK", 5, "HIT", 1), 1)
    with pytest.raises(FrameError, match="transaction number 0 must be at least 1"):
        parse_bet_ack(frame("ACK", 0, "BET", 1), 1)
    assert parse_reset_ack(frame("ACK", 6, "RESET", 1, 1000000)) == (6, 1, 1000000)


def test_hits_and_payments() -> None:
    request = encode_hit(9, 1, [Hit(3, "ROYAL_FLUSH"), Hit(5, "FLUSH")])
    assert decode(request).fields == ("9", "1", "3:ROYAL_FLUSH", "5:FLUSH")
    paid = parse_paid(frame("PAID", 9, 1, 2000000, 1000000, "5:FLUSH:5000", "3:ROYAL_FLUSH:1995000"))
    assert [(p.order, p.seat, p.hand, p.amount_cents) for p in paid.payouts] == [(1, 5, "FLUSH", 5000),
                                                                             (2, 3, "ROYAL_FLUSH", 1995000)]
    assert paid.paid_cents == 2000000 and (paid.pool_before_cents, paid.pool_after_cents) == (2000000, 1000000)
    assert parse_paid(frame("PAID", 1, 1, 10, 0, "1:FLUSH:10:SHORT")).payouts[0].short
    with pytest.raises(FrameError, match="payment 1 '5:FLUSH' is not seat:hand:amount"):
        parse_paid(frame("PAID", 9, 1, 2000000, 1000000, "5:FLUSH"))
    with pytest.raises(ValueError, match="at least one winning hand"):
        encode_hit(1, 1, [])
    with pytest.raises(ValueError, match="bad winning hand"):
        encode_hit(1, 1, [Hit(1, "royal flush")])


def test_pay_tables_round_trip() -> None:
    for table in (POQUER_SEM_DESCARTE, BLACKJACK_EXAMPLE):
        assert parse_pay_table(frame("PAYTABLE", *pay_table_fields(table))) == table
    with pytest.raises(FrameError, match="sharing flag"):
        parse_pay_table(frame("PAYTABLE", "ROYAL_FLUSH:REMAINDER:0:X"))
    with pytest.raises(FrameError, match="not a valid pay table"):
        parse_pay_table(frame("PAYTABLE", "FLUSH:MULTIPLE:50:E"))


def test_display_text_and_its_amount() -> None:
    assert format_display(123456789) == "JACKPOT 1.234.567,89 EUR"
    assert format_display(5) == "JACKPOT 0,05 EUR"
    assert parse_display_amount("JACKPOT 1.234.567,89 EUR") == 123456789
    assert parse_display_amount("FORA DE SERVICO") is None
    with pytest.raises(ValueError, match="2 amounts"):
        parse_display_amount("1,00 EUR 2,00 EUR")
    reading = parse_display(frame("DISP", 1, format_display(1000070)), 1)  # the comma splits the frame's fields
    assert (reading.text, reading.amount_cents) == ("JACKPOT 10.000,70 EUR", 1000070)
    with pytest.raises(FrameError, match="level 2 asked for"):
        parse_display(frame("DISP", 1, "X"), 2)


def test_status() -> None:
    status = parse_status(frame("STATUS", 4, 3, 300, 1, 5000))
    assert (status.tx, status.bets, status.bet_total_cents, status.hits, status.paid_total_cents) == (4, 3, 300, 1,
                                                                                                   5000)
    with pytest.raises(FrameError, match="needs tx"):
        parse_status(frame("STATUS", 4, 3))


def test_sas_progressive_broadcasts_are_found_by_wakeup_or_by_crc() -> None:
    single = encode_single_progressive(0, 3, 1, 1_234_567)
    multi = encode_multi_progressive(0, 3, {1: 1_000_029, 2: 2_000_002})
    assert parse_progressive(single).amounts == {1: 1_234_567}
    assert parse_progressive(multi).amounts == {1: 1_000_029, 2: 2_000_002}
    broken = multi[:-1] + bytes([multi[-1] ^ 1])
    with pytest.raises(FrameError, match="CRC mismatch"):
        parse_progressive(broken)
    with pytest.raises(FrameError, match="not a progressive broadcast"):
        parse_progressive(bytes([1, 0x1F]))
    # pseudo-terminal: messages start at wakeup bytes, split anywhere across reads
    stream = escape_message(single) + escape_message(broken) + escape_message(multi)
    scanner, unescape, found = ProgressiveScanner(), Unescaper(), []
    for start in range(0, len(stream), 5):
        found += scanner.feed(list(unescape.feed(stream[start:start + 5])))
    assert [b.amounts for b in found] == [{1: 1_234_567}, {1: 1_000_029, 2: 2_000_002}]
    assert scanner.crc_errors >= 1
    # a real UART read without the wakeup bit: noise between messages, found by their CRC
    raw = b"\x81\x00\x86\x07" + single + b"\x01\x80" + multi
    scanner = ProgressiveScanner()
    assert [b.amounts for b in scanner.feed([(value, None) for value in raw])] == [{1: 1_234_567},
                                                                                   {1: 1_000_029, 2: 2_000_002}]
