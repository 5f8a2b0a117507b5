"""The CS line protocol (drivers.shuffler_protocol) and the simulated machine's handling of it, in process."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from bench.games.physical_cards import Card, card_ids, factory_order, parse_card
from bench.profiles.shuffler import ShufflerSimulator
from drivers.line_frame import corrupt_checksum
from drivers.serial_link import FrameError
from drivers.shuffler_protocol import (
    Condition,
    Mode,
    ShufflerState,
    decode,
    encode,
    parse_ack,
    parse_dealt,
    parse_page,
    parse_shuffled,
    parse_status,
    parse_stop,
)
from drivers.sim.shuffler import ShufflerDevice, ShufflerMachine

# -- cards ---------------------------------------------------------------------------------------


def test_card_codes_round_trip_and_bad_codes_name_the_fault() -> None:
    card = parse_card("TD/BLUE")
    assert card == Card("BLUE", "D", "T") and card.code == "TD/BLUE" and str(card) == "TD/BLUE"
    for text, message in [("TD", "not <rank><suit>/<back>"), ("10D/RED", "not <rank><suit>/<back>"),
                          ("1D/RED", "rank"), ("AX/RED", "suit"), ("AS/red", "back colour"),
                          ("AS/", "back colour"), ("AS/TOOLONGBK", "back colour"), ("AS/9RED", "back colour")]:
        with pytest.raises(ValueError, match=message):
            parse_card(text)


def test_factory_order_is_deck_by_deck_spades_hearts_diamonds_clubs_ace_to_king() -> None:
    order = factory_order(["RED", "BLUE"])
    assert len(order) == 104 and len(set(order)) == 104
    assert [card.code for card in order[:3]] == ["AS/RED", "2S/RED", "3S/RED"]
    assert order[12].code == "KS/RED" and order[13].code == "AH/RED" and order[51].code == "KC/RED"
    assert order[52].code == "AS/BLUE"


def test_card_ids_number_the_factory_order_and_need_distinct_backs() -> None:
    backs = ["RED", "BLUE"]
    assert card_ids(factory_order(backs), backs).tolist() == list(range(104))
    with pytest.raises(ValueError, match="distinct back colours"):
        card_ids(factory_order(["RED"]), ["RED", "RED"])
    with pytest.raises(ValueError, match="'GREEN' is not in"):
        card_ids([Card("GREEN", "S", "A")], backs)


# -- framing -------------------------------------------------------------------------------------


def test_frames_round_trip_and_errors_name_the_cs_protocol() -> None:
    raw = encode("CARD", 4, 1, "5S/RED", "OK")
    assert raw == b"$CARD,4,1,5S/RED,OK*0F\r\n"
    assert decode(raw).fields == ("4", "1", "5S/RED", "OK")
    with pytest.raises(FrameError, match="checksum 00 should be 0F"):
        decode(corrupt_checksum(raw))
    with pytest.raises(FrameError, match=r"not an CS frame \(missing '\$' start character\)"):
        decode(raw[1:])
    with pytest.raises(FrameError, match="missing CR LF"):
        decode(raw[:-2])


# -- reply parsers -------------------------------------------------------------------------------


def test_every_reply_parses_to_its_fields() -> None:
    dealt = parse_dealt(decode(encode("CARD", 12, 3, "4S/RED", "DAMAGED")))
    assert (dealt.tx, dealt.deal, dealt.card, dealt.condition, dealt.damaged) == (
        12, 3, Card("RED", "S", "4"), Condition.DAMAGED, True)
    stop = parse_stop(decode(encode("STOP", 6, "JAM", "CARD_JAMMED")))
    assert (stop.tx, stop.state, stop.reason) == (6, ShufflerState.JAM, "CARD_JAMMED")
    done = parse_shuffled(decode(encode("SHUFFLED", 8, 2, "BLUE", 52)))
    assert (done.tx, done.shuffle, done.back, done.cards) == (8, 2, "BLUE", 52)
    assert parse_shuffled(decode(encode("SHUFFLED", 3, 1, "", 52))).back is None
    ack = parse_ack(decode(encode("ACK", 13, "RETURN", 3, 52, 0)), "RETURN")
    assert (ack.tx, ack.request, ack.fields) == (13, "RETURN", ("3", "52", "0"))
    status = parse_status(decode(encode("STATUS", "JAM", "ON", "CLOSED", "CONTINUOUS", 50, 2, 1, 2, 6)))
    assert (status.state, status.warning_light, status.door_open, status.mode) == (
        ShufflerState.JAM, True, False, Mode.CONTINUOUS)
    assert (status.inside, status.out, status.shuffles, status.deals, status.tx) == (50, 2, 1, 2, 6)
    page = parse_page(decode(encode("INV", "OUT", 1, 1, 2, 12, "4S/RED", "5S/RED")), "OUT", 1)
    assert (page.count, page.tx, page.cards) == (2, 12, (Card("RED", "S", "4"), Card("RED", "S", "5")))
    tray = parse_page(decode(encode("TRAY", 2, 2, 53, 14, "AS/RED")), "TRAY", 2)
    assert tray.cards == (Card("RED", "S", "A"),)
    assert parse_page(decode(encode("TRAY", 1, 1, 0, 14)), "TRAY", 1).cards == ()


@pytest.mark.parametrize(
    ("parser", "frame", "message"),
    [
        (parse_dealt, ("CARD", 4, 1, "5S/RED"), "CARD frame needs tx, deal, card and condition"),
        (parse_dealt, ("CARD", 4, 1, "5X/RED", "OK"), r"bad card in CARD \(card suit"),
        (parse_dealt, ("CARD", 4, 1, "5S/RED", "BENT"), "condition must be OK or DAMAGED"),
        (parse_dealt, ("CARD", 4, 0, "5S/RED", "OK"), "deal number 0 must be at least 1"),
        (parse_dealt, ("CARD", "x", 1, "5S/RED", "OK"), "transaction number must be an integer"),
        (parse_stop, ("STOP", 6, "JAMMED", "CARD_JAMMED"), "unknown shuffler state 'JAMMED'"),
        (parse_stop, ("STOP", 6, "JAM", ""), "STOP frame needs a reason"),
        (parse_stop, ("STOP", 6, "JAM"), "STOP frame needs tx, state and reason"),
        (parse_shuffled, ("SHUFFLED", 3, 1, "red", 52), "bad back colour 'red'"),
        (parse_shuffled, ("SHUFFLED", 3, 1, "", -1), "card count -1 must be at least 0"),
        (parse_shuffled, ("SHUFFLED", 3, 1, 52), "SHUFFLED frame needs tx, shuffle, back and cards"),
        (parse_status, ("STATUS", "READY", "OFF", "CLOSED", "BATCH", 0, 0, 0, 0), "STATUS frame needs 9 fields"),
        (parse_status, ("STATUS", "IDLE", "OFF", "CLOSED", "BATCH", 0, 0, 0, 0, 0), "bad STATUS state or mode"),
        (parse_status, ("STATUS", "READY", "YES", "CLOSED", "BATCH", 0, 0, 0, 0, 0), "field 2 must be ON or OFF"),
        (parse_status, ("STATUS", "READY", "OFF", "SHUT", "BATCH", 0, 0, 0, 0, 0), "field 3 must be OPEN or CLOSED"),
        (parse_status, ("STATUS", "READY", "OFF", "CLOSED", "BATCH", "x", 0, 0, 0, 0),
         "inside count must be an integer"),
    ],
)
def test_malformed_replies_are_frame_errors_naming_the_fault(parser, frame: tuple[object, ...], message: str) -> None:
    raw = encode(*frame)
    with pytest.raises(FrameError, match=message) as caught:
        parser(decode(raw))
    assert caught.value.raw == raw


def test_an_ack_for_another_request_is_refused() -> None:
    with pytest.raises(FrameError, match="ACK is for 'LOAD', not 'UNLOAD'"):
        parse_ack(decode(encode("ACK", 2, "LOAD", 52)), "UNLOAD")
    with pytest.raises(FrameError, match="ACK frame needs tx and request"):
        parse_ack(decode(encode("ACK", 2)), "LOAD")


@pytest.mark.parametrize(
    ("frame", "kind", "page", "message"),
    [
        (("INV", "IN", 2, 2, 53, 1, "AS/RED"), "OUT", 2, "INV page is of 'IN', not 'OUT'"),
        (("INV", "IN", 1, 2, 53, 1, "AS/RED"), "IN", 1, "carries 1 cards, 52 expected for 53 cards"),
        (("INV", "IN", 1, 1, 53, 1, *["AS/RED"] * 52), "IN", 1, "carries 52 cards, 52 expected for 53"),
        (("TRAY", 2, 2, 53, 14, "AS/RED"), "TRAY", 1, "TRAY page 2 sent, page 1 asked for"),
        (("TRAY", 3, 2, 53, 14), "TRAY", 3, "beyond page count 2"),
        (("TRAY", 1, 1, 1, 14, "AS/red"), "TRAY", 1, "bad card in TRAY"),
        (("TRAY", 1, 1), "TRAY", 1, "TRAY frame needs page, pages, count and tx"),
        (("INV", "IN", 1, 1), "IN", 1, "INV frame needs kind, page, pages, count and tx"),
    ],
)
def test_inconsistent_pages_are_refused(frame: tuple[object, ...], kind: str, page: int, message: str) -> None:
    with pytest.raises(FrameError, match=message):
        parse_page(decode(encode(*frame)), kind, page)


# -- the simulated machine's answers (in process) ------------------------------------------------


def machine(**simulator: object) -> ShufflerDevice:
    return ShufflerDevice(ShufflerMachine(ShufflerSimulator(**simulator)), {"manufacturer": "Acme"})


def ask(device: ShufflerDevice, *request: object) -> bytes:
    return device.reply(encode(*request))[0]


def test_the_machine_refuses_malformed_and_out_of_sequence_requests_without_acting() -> None:
    device = machine()
    assert device.reply(b"$DEAL,1*00\r\n")[0] == encode("NAK", "?", "BAD_FRAME")
    assert ask(device, "FOO?") == encode("NAK", "FOO?", "UNKNOWN_COMMAND")
    assert ask(device, "DEAL") == encode("NAK", "DEAL", "BAD_TX")
    assert ask(device, "DEAL", 2) == encode("NAK", "DEAL", "BAD_SEQUENCE")
    assert ask(device, "MODE", 1, "FAST") == encode("NAK", "MODE", "BAD_MODE")
    assert ask(device, "LOAD", 1, "OLD", "RED") == encode("NAK", "LOAD", "BAD_FIELDS")
    assert ask(device, "LOAD", 1, "NEW", "red") == encode("NAK", "LOAD", "BAD_FIELDS")
    assert ask(device, "LOAD", 1, "NEW") == encode("NAK", "LOAD", "BAD_FIELDS")
    assert ask(device, "DOOR", 1, "AJAR") == encode("NAK", "DOOR", "BAD_FIELDS")
    assert ask(device, "INV?", "ALL", 1) == encode("NAK", "INV?", "BAD_FIELDS")
    assert ask(device, "TRAY?", "x") == encode("NAK", "TRAY?", "BAD_PAGE")
    assert ask(device, "INV?", "IN", 2) == encode("NAK", "INV?", "BAD_PAGE")
    assert device.machine.tx == 0  # none of these used up a transaction number
    assert ask(device, "DEAL", 1) == encode("STOP", 1, "READY", "NOT_SHUFFLED")
    assert device.machine.tx == 1  # a STOP is an answer: the number is used


def test_a_repeated_transaction_gets_the_same_reply_and_is_not_done_twice() -> None:
    device = machine(seed=4)
    ask(device, "LOAD", 1, "NEW", "RED")
    ask(device, "SHUFFLE", 2)
    first = ask(device, "DEAL", 3)
    assert ask(device, "DEAL", 3) == first
    assert device.machine.deals == 1 and len(device.machine.shoe) == 51
    assert ask(device, "RETURN", 3) == encode("NAK", "RETURN", "BAD_SEQUENCE")  # same number, other request
    assert parse_dealt(decode(ask(device, "DEAL", 4))).deal == 2


def test_listings_page_by_deck_and_never_show_the_shoe_order() -> None:
    device = machine(seed=6)
    ask(device, "LOAD", 1, "NEW", "RED", "BLUE")
    ask(device, "SHUFFLE", 2)
    pages = [parse_page(decode(ask(device, "INV?", "IN", page)), "IN", page) for page in (1, 2)]
    inside = [card for page in pages for card in page.cards]
    assert [len(page.cards) for page in pages] == [52, 52] and pages[0].pages == 2
    assert inside == list(factory_order(["BLUE", "RED"]))  # sorted, whatever the shoe order
    assert inside != device.machine.shoe
    assert parse_page(decode(ask(device, "INV?", "OUT", 1)), "OUT", 1).count == 0


def test_a_restarted_machine_keeps_its_cards_and_counters(tmp_path: Path) -> None:
    state = tmp_path / "shuffler.state"
    config = ShufflerSimulator(seed=9)
    first = ShufflerDevice(ShufflerMachine(config, state), {})
    ask(first, "MODE", 1, "CONTINUOUS")
    ask(first, "LOAD", 2, "NEW", "RED")
    ask(first, "SHUFFLE", 3)
    dealt = parse_dealt(decode(ask(first, "DEAL", 4)))
    restarted = ShufflerDevice(ShufflerMachine(config, state), {})
    status = parse_status(decode(ask(restarted, "STATUS?")))
    assert (status.mode, status.inside, status.out, status.shuffles, status.deals, status.tx) == (
        Mode.CONTINUOUS, 51, 1, 1, 1, 4)
    assert restarted.machine.shoe == first.machine.shoe
    assert ask(restarted, "DEAL", 4) == dealt.raw  # the last reply survives too
    assert ask(restarted, "DEAL", 5) == ask(first, "DEAL", 5)


def test_the_shuffle_models_use_the_shared_models() -> None:
    """A riffle machine keeps few rising sequences (at most 2^k after k riffles); a fair one about (n+1)/2."""
    for model, riffles, limit in (("riffle", 1, 2), ("riffle", 3, 8)):
        device = machine(model=model, riffles=riffles, seed=riffles)
        ask(device, "LOAD", 1, "NEW", "RED")
        ask(device, "SHUFFLE", 2)
        positions = np.argsort(card_ids(device.machine.shoe, ["RED"]))
        assert 1 + int(np.sum(positions[1:] < positions[:-1])) <= limit
    clumped = machine(model="clumped", mean_clump=8.0, seed=1)
    ask(clumped, "LOAD", 1, "NEW", "RED")
    ask(clumped, "SHUFFLE", 2)
    ids = card_ids(clumped.machine.shoe, ["RED"])
    assert int(np.sum(np.diff(ids) == 1)) >= 20  # clumps of mean 8 keep about 45 of 51 neighbours


def test_lost_and_duplicated_cards_change_the_machine_contents() -> None:
    device = machine(seed=1, lost_card_rate=1.0, duplicate_card_rate=1.0)
    ask(device, "LOAD", 1, "NEW", "RED")
    ask(device, "SHUFFLE", 2)
    contents = Counter(device.machine.inside)
    assert sum(contents.values()) == 52 and contents != Counter(factory_order(["RED"]))
    assert len(device.machine.lost) == 1


# -- the protocol document -----------------------------------------------------------------------

PROTOCOL_DOCUMENT = Path(__file__).resolve().parents[1] / "docs" / "protocols" / "card-shuffler.md"


def test_every_frame_in_the_protocol_document_has_the_right_checksum() -> None:
    checked = 0
    for line in PROTOCOL_DOCUMENT.read_text(encoding="utf-8").splitlines():
        for text in re.findall(r"\$[A-Z?][^`\n*]*\*[0-9A-F]{2}", line):
            raw = text.encode("ascii") + b"\r\n"
            if "garbled" in line:
                with pytest.raises(FrameError, match="checksum"):
                    decode(raw)
            else:
                frame = decode(raw)
                assert encode(frame.type, *frame.fields) == raw, text
            checked += 1
    assert checked >= 45
