"""SerialCardShuffler (drivers.shuffler) against the real simulator process behind a pseudo-terminal.

The simulator draws every shuffle, deal and unload from generators seeded ``(seed, stream,
counter)``, so a :class:`ShufflerMachine` with the same configuration, run in this process,
predicts what the simulator does. The driver must return exactly that.
"""

from __future__ import annotations

import json
import os
import select
import threading
import tty
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import serial

from bench.games.physical_cards import Card, card_ids, factory_order
from bench.profiles.shuffler import ShufflerEquipment, ShufflerOptions, ShufflerSimulator
from drivers.serial_link import DeviceError, FrameError, LinkSettings, SerialLink, WireLog
from drivers.shuffler import (
    SHUFFLER_PROTOCOLS,
    CardShuffler,
    OperatorActionRequired,
    SerialCardShuffler,
    ShufflerIdentity,
    make_shuffler,
    register_shuffler_protocol,
)
from drivers.shuffler_protocol import Ack, DealtCard, LoadSource, Mode, ShuffleDone, ShufflerState, Stop, decode, encode
from drivers.sim.host import SimulatorProcess, start_simulator
from drivers.sim.shuffler import ShufflerDevice, ShufflerMachine
from rng_tests.fairness.cards import rising_sequence_test

IDENTITY = {"manufacturer": "Acme Shufflers", "model": "CS-8", "serial": "SN-0815", "firmware": "4.2.1"}


class OpenedShuffler:
    """A simulator process, the driver on its tty, and the wire log."""

    def __init__(self, tmp_path: Path, simulator: dict[str, Any], state: str, log: str, **link: Any) -> None:
        self.simulator_config = ShufflerSimulator(**simulator)
        self.config = {"simulator": self.simulator_config.model_dump(), "identity": IDENTITY}
        self.state_file = tmp_path / state
        self.wire_log = tmp_path / log
        self.process: SimulatorProcess = start_simulator("card-shuffler", self.config, self.state_file)
        settings = LinkSettings(port=self.process.tty_path, timeout_s=link.pop("timeout_s", 2.0),
                                retries=link.pop("retries", 3))
        self.link = SerialLink(settings, WireLog(self.wire_log))
        self.link.open()
        self.shuffler = SerialCardShuffler(self.link, **link)

    def wire(self, *directions: str) -> list[bytes]:
        entries = [json.loads(line) for line in self.wire_log.read_text(encoding="utf-8").splitlines()]
        return [bytes.fromhex(entry["hex"]) for entry in entries if entry["dir"] in directions]

    def close(self) -> None:
        self.shuffler.close()
        self.process.close()


@pytest.fixture
def open_shuffler(tmp_path: Path) -> Iterator[Callable[..., OpenedShuffler]]:
    opened: list[OpenedShuffler] = []

    def start(simulator: dict[str, Any] | None = None, *, state: str = "shuffler.sim-state.json",
              log: str = "shuffler.wire.jsonl", **link: Any) -> OpenedShuffler:
        device = OpenedShuffler(tmp_path, simulator or {}, state, log, **link)
        opened.append(device)
        return device

    yield start
    for device in reversed(opened):
        device.close()


class Predicted:
    """The same machine in this process, driven by the same request bytes as the driver sends."""

    def __init__(self, simulator: dict[str, Any]) -> None:
        self.device = ShufflerDevice(ShufflerMachine(ShufflerSimulator(**simulator)), IDENTITY)
        self.tx = 0

    def transaction(self, request: str, *fields: object) -> bytes:
        self.tx += 1
        return self.device.reply(encode(request, self.tx, *fields))[0]


def clear_jam(shuffler: CardShuffler) -> None:
    """What the fiscal-chefe does (p217-2007/blackjack/51): open the lid, free the card, reset, close."""
    assert isinstance(shuffler.open_door(), Ack)
    assert isinstance(shuffler.clear(), Ack)
    assert isinstance(shuffler.close_door(), Ack)


def deal_all(shuffler: CardShuffler) -> list[DealtCard]:
    dealt = []
    while isinstance(result := shuffler.deal(), DealtCard):
        dealt.append(result)
    assert isinstance(result, Stop) and result.reason == "EMPTY"
    return dealt


# -- identity, status, the registry -----------------------------------------------------------


def test_identify_and_status_of_a_fresh_machine(open_shuffler) -> None:
    shuffler = open_shuffler().shuffler
    assert shuffler.identify() == ShufflerIdentity(**IDENTITY)
    status = shuffler.status()
    assert (status.state, status.warning_light, status.door_open, status.mode) == (
        ShufflerState.READY, False, False, Mode.BATCH)
    assert (status.inside, status.out, status.shuffles, status.deals, status.tx) == (0, 0, 0, 0, 0)


def test_protocols_are_chosen_by_name_and_a_vendor_protocol_is_one_more_class(open_shuffler) -> None:
    opened = open_shuffler()
    assert isinstance(make_shuffler("cs", opened.link, deal_timeout_s=1.0), SerialCardShuffler)
    with pytest.raises(ValueError, match=r"unknown shuffler protocol 'acme-v2' \(registered: .*cs"):
        make_shuffler("acme-v2", opened.link)

    class VendorShuffler(SerialCardShuffler):
        """Stands in for a vendor protocol: any CardShuffler subclass registered by name."""

    try:
        register_shuffler_protocol("vendor-test")(VendorShuffler)
        assert isinstance(make_shuffler("vendor-test", opened.link), VendorShuffler)
        with pytest.raises(ValueError, match="already registered"):
            register_shuffler_protocol("vendor-test")(VendorShuffler)
    finally:
        SHUFFLER_PROTOCOLS.pop("vendor-test", None)


def test_the_profile_builds_a_simulated_shuffler_and_checks_two_deck_mode() -> None:
    equipment = ShufflerEquipment.model_validate({
        "kind": "card-shuffler", "identity": {"manufacturer": "A", "model": "B", "serial": "C"},
        "options": {"mode": "alternate", "backs": ["RED", "BLUE"]}, "simulator": {"model": "riffle", "riffles": 3},
    })
    assert equipment.options.decks == 2 and equipment.simulator.riffles == 3
    with pytest.raises(ValueError, match="two decks of different back colours"):
        ShufflerOptions(mode="alternate", backs=["RED", "RED"])
    with pytest.raises(ValueError, match="connection.port"):
        ShufflerEquipment.model_validate({"kind": "card-shuffler",
                                          "identity": {"manufacturer": "A", "model": "B", "serial": "C"}})
    with pytest.raises(ValueError, match="mean_clump above 1"):
        ShufflerSimulator(model="clumped", mean_clump=1.0)


# -- integrity: every card once and only once (p217-2007/blackjack/55) ------------------------


def test_a_fair_shuffler_returns_every_loaded_card_once_over_several_shuffles(open_shuffler) -> None:
    opened = open_shuffler({"seed": 3})
    shuffler = opened.shuffler
    backs = ["RED", "BLUE"]
    loaded = Counter(factory_order(backs))
    assert isinstance(shuffler.load(backs), Ack)
    orders = []
    for _ in range(3):
        done = shuffler.shuffle()
        assert isinstance(done, ShuffleDone) and done.cards == 104
        dealt = deal_all(shuffler)
        assert Counter(result.card for result in dealt) == loaded
        assert [result.deal for result in dealt] == list(range(dealt[0].deal, dealt[0].deal + 104))
        orders.append(tuple(result.card for result in dealt))
        assert isinstance(shuffler.return_cards(), Ack)
        inventory = shuffler.inventory()
        assert Counter(inventory.inside) == loaded and inventory.out == ()
    assert len(set(orders)) == 3  # three different orders
    unloaded = shuffler.unload()
    assert Counter(unloaded.cards) == loaded and unloaded.out_at_unload == 0
    assert shuffler.status().inside == 0


@pytest.mark.parametrize(("fault", "difference"), [("lost_card_rate", -1), ("duplicate_card_rate", +1)])
def test_a_lost_or_duplicated_card_shows_in_the_inventory_and_the_unload(open_shuffler, fault: str,
                                                                        difference: int) -> None:
    shuffler = open_shuffler({"seed": 8, fault: 1.0}).shuffler
    loaded = Counter(factory_order(["RED"]))
    shuffler.load(["RED"])
    done = shuffler.shuffle()
    assert isinstance(done, ShuffleDone) and done.cards == 52 + difference
    inventory = shuffler.inventory()
    assert len(inventory.inside) == 52 + difference
    unloaded = Counter(shuffler.unload().cards)
    missing, extra = loaded - unloaded, unloaded - loaded
    assert (sum(missing.values()), sum(extra.values())) == ((1, 0) if difference < 0 else (0, 1))
    assert unloaded != loaded  # a suite comparing the unload with the load fails this machine


def test_misreads_make_the_unload_disagree_with_the_load(open_shuffler) -> None:
    shuffler = open_shuffler({"seed": 21, "misread_rate": 0.1}).shuffler
    shuffler.load(["RED"])
    shuffler.shuffle()
    cards = shuffler.unload().cards
    assert len(cards) == 52 and Counter(cards) != Counter(factory_order(["RED"]))
    # the physical cards are all there: reloading the tray and unloading again reads them afresh
    assert isinstance(shuffler.load(["RED"], LoadSource.UNLOADED), Ack)


# -- jams and damaged cards (p217-2007/blackjack/51) ------------------------------------------


def test_a_jam_lights_the_warning_and_stops_dealing_until_the_lid_is_opened_and_cleared(open_shuffler) -> None:
    opened = open_shuffler({"seed": 5, "jam_rate": 0.2})
    shuffler = opened.shuffler
    shuffler.load(["RED"])
    shuffler.shuffle()
    dealt: list[Card] = []
    while isinstance(result := shuffler.deal(), DealtCard):
        dealt.append(result.card)
    assert isinstance(result, Stop) and result.reason == "CARD_JAMMED" and result.state is ShufflerState.JAM
    status = shuffler.status()
    assert status.state is ShufflerState.JAM and status.warning_light
    refused = [shuffler.deal() for _ in range(3)]
    assert all(isinstance(r, Stop) and r.state is ShufflerState.JAM and r.reason == "JAM" for r in refused)
    assert shuffler.status().deals == len(dealt)  # nothing was dealt while jammed

    assert isinstance(still := shuffler.clear(), Stop) and still.reason == "DOOR_CLOSED"
    assert isinstance(shuffler.open_door(), Ack)
    assert shuffler.status().state is ShufflerState.DOOR_OPEN
    assert isinstance(shuffler.deal(), Stop)
    assert isinstance(shuffler.clear(), Ack)
    assert shuffler.status().warning_light is False
    assert isinstance(shuffler.close_door(), Ack)
    assert shuffler.status().state is ShufflerState.READY

    # the rest of the deck, jammed card first; further jams are cleared the same way
    while len(dealt) < 52:
        result = shuffler.deal()
        if isinstance(result, Stop):
            assert result.reason == "CARD_JAMMED"
            clear_jam(shuffler)
        else:
            dealt.append(result.card)
    assert Counter(dealt) == Counter(factory_order(["RED"]))


def test_a_damaged_card_is_flagged_and_dealing_waits_for_its_replacement(open_shuffler) -> None:
    shuffler = open_shuffler({"seed": 2, "damaged_card_rate": 0.3}).shuffler
    shuffler.load(["RED"])
    shuffler.shuffle()
    while not (result := shuffler.deal()).damaged:
        pass
    status = shuffler.status()
    assert status.state is ShufflerState.DAMAGED and status.warning_light
    assert isinstance(refused := shuffler.deal(), Stop) and refused.reason == "DAMAGED"
    assert isinstance(shuffler.clear(), Ack)  # no lid needed: the fiscal-chefe replaced the card
    assert shuffler.status().state is ShufflerState.READY
    assert result.card in shuffler.inventory().out


# -- continuous and two-deck modes -------------------------------------------------------------


def test_continuous_mode_keeps_every_card_inside_or_accounted_for(open_shuffler) -> None:
    shuffler = open_shuffler({"seed": 13}).shuffler
    backs = ["RED", "RED"]  # a two-deck shoe with one back colour: cards counted with multiplicity
    loaded = Counter(factory_order(backs))
    assert isinstance(shuffler.set_mode(Mode.CONTINUOUS), Ack)
    shuffler.load(backs)
    shuffler.shuffle()
    for _ in range(4):  # four rounds of play
        hand = [shuffler.deal() for _ in range(9)]
        assert all(isinstance(result, DealtCard) for result in hand)
        assert shuffler.inventory().counts() == loaded
        assert isinstance(ack := shuffler.return_cards([result.card for result in hand]), Ack)
        assert ack.fields == ("9", "104", "0")
        inventory = shuffler.inventory()
        assert Counter(inventory.inside) == loaded and inventory.out == ()
    status = shuffler.status()
    assert (status.inside, status.out, status.deals) == (104, 0, 36)
    assert status.shuffles == 5  # the first shuffle and one mix per return
    assert Counter(shuffler.unload().cards) == loaded


def test_continuous_mode_refuses_to_return_a_card_that_is_not_out(open_shuffler) -> None:
    shuffler = open_shuffler().shuffler
    shuffler.set_mode(Mode.CONTINUOUS)
    shuffler.load(["RED"])
    shuffler.shuffle()
    with pytest.raises(DeviceError, match="NOT_OUT"):
        shuffler.return_cards([Card("RED", "S", "A")])
    assert shuffler.status().inside == 52  # the refusal changed nothing, and the next request works


def test_two_decks_alternate_hand_by_hand(open_shuffler) -> None:
    shuffler = open_shuffler({"seed": 17}).shuffler
    shuffler.set_mode(Mode.ALTERNATE)
    assert isinstance(refused := shuffler.load(["RED", "RED"]), Stop) and refused.reason == "BAD_DECKS"
    shuffler.load(["RED", "BLUE"])
    backs_used = []
    for _ in range(4):
        done = shuffler.shuffle()
        assert isinstance(done, ShuffleDone) and done.cards == 52
        hand = [shuffler.deal() for _ in range(7)]
        assert {result.card.back for result in hand} == {done.back}
        shuffler.return_cards()
        backs_used.append(done.back)
    assert backs_used == ["RED", "BLUE", "RED", "BLUE"]  # p217-2007/poquer-nao-bancado/76
    assert Counter(shuffler.unload().cards) == Counter(factory_order(["RED", "BLUE"]))


def test_a_machine_that_keeps_one_deck_is_visible(open_shuffler) -> None:
    shuffler = open_shuffler({"alternation_fault": "same-deck"}).shuffler
    shuffler.set_mode(Mode.ALTERNATE)
    shuffler.load(["RED", "BLUE"])
    assert [shuffler.shuffle().back for _ in range(3)] == ["RED", "RED", "RED"]


# -- the link: garbled replies, timeouts, disconnects, power cycles ----------------------------


def _session(shuffler: CardShuffler) -> list[object]:
    """A fixed sequence of requests; what each returned, without the raw bytes."""
    results: list[object] = [shuffler.load(["RED"]), shuffler.shuffle()]
    results += [shuffler.deal() for _ in range(10)]
    results += [shuffler.return_cards(), shuffler.inventory(), shuffler.unload().cards, shuffler.status().deals]
    return [getattr(result, "card", getattr(result, "fields", result)) for result in results]


def test_garbled_replies_are_retried_counted_and_never_change_a_result(open_shuffler) -> None:
    clean = _session(open_shuffler({"seed": 31}, state="clean.json", log="clean.jsonl").shuffler)
    noisy_device = open_shuffler({"seed": 31, "garble_rate": 0.35}, state="noisy.json", log="noisy.jsonl", retries=8)
    noisy = _session(noisy_device.shuffler)
    assert noisy == clean
    bad = []
    for frame in noisy_device.wire("rx"):
        try:
            decode(frame)
        except FrameError as error:
            assert "checksum" in str(error)
            bad.append(frame)
    assert len(bad) >= 3 and any(frame.startswith(b"$CARD") for frame in bad)  # the seed exercises the retries
    assert noisy_device.shuffler.garbled_frames == len(bad)
    # a retried DEAL is the same transaction: the machine dealt ten cards, not ten plus retries
    assert noisy[-1] == 10


def test_a_late_reply_gives_device_error_and_the_driver_resynchronises(open_shuffler) -> None:
    opened = open_shuffler({"shuffle_time_s": 0.8}, timeout_s=0.5, retries=1, shuffle_timeout_s=0.2)
    shuffler = opened.shuffler
    shuffler.load(["RED"])
    with pytest.raises(DeviceError) as caught:
        shuffler.shuffle()
    assert caught.value.what == "shuffle" and len(caught.value.attempts) == 2
    assert all("no reply within 0.2 s" in attempt for attempt in caught.value.attempts)
    # the machine did shuffle (once); the driver reads its transaction number again and goes on
    while shuffler.status().state is ShufflerState.SHUFFLING:
        pass
    assert isinstance(shuffler.deal(), DealtCard)
    assert shuffler.status().shuffles == 1


def test_a_disconnect_during_a_deal_reconnects_and_gets_the_same_card(open_shuffler, monkeypatch) -> None:
    opened = open_shuffler({"seed": 41})
    shuffler = opened.shuffler
    shuffler.load(["RED"])
    shuffler.shuffle()
    port = opened.link._port
    real_read = port.read
    failures = iter([True])

    def unplugged_once(size: int = 1) -> bytes:
        if next(failures, False):
            raise serial.SerialException("device disconnected")
        return real_read(size)

    monkeypatch.setattr(port, "read", unplugged_once)
    result = shuffler.deal()
    assert isinstance(result, DealtCard) and result.deal == 1
    predicted = Predicted({"seed": 41})
    predicted.transaction("LOAD", "NEW", "RED")
    predicted.transaction("SHUFFLE")
    assert result.raw == predicted.transaction("DEAL")
    assert [frame for frame in opened.wire("tx") if frame.startswith(b"$DEAL")] == [encode("DEAL", 3)] * 2
    assert shuffler.status().deals == 1


def test_a_power_cycle_keeps_the_cards_counters_and_a_jam(open_shuffler, tmp_path: Path) -> None:
    simulator = {"seed": 23, "jam_rate": 0.15}
    first = open_shuffler(simulator)
    first.shuffler.load(["RED"])
    first.shuffler.shuffle()
    before = []
    while isinstance(result := first.shuffler.deal(), DealtCard):
        before.append(result)
    first.close()
    assert json.loads((tmp_path / "shuffler.sim-state.json").read_text())["jam"] is True

    second = open_shuffler(simulator, log="restarted.jsonl")
    status = second.shuffler.status()
    assert (status.state, status.warning_light) == (ShufflerState.JAM, True)  # still jammed after power-up
    assert (status.inside, status.out, status.deals, status.shuffles) == (52 - len(before), len(before),
                                                                         len(before), 1)
    clear_jam(second.shuffler)
    after = second.shuffler.deal()

    # the same machine never switched off deals the same next card
    predicted = Predicted(simulator)
    predicted.transaction("LOAD", "NEW", "RED")
    predicted.transaction("SHUFFLE")
    frames = [predicted.transaction("DEAL") for _ in range(len(before) + 1)]
    assert [result.raw for result in before] == frames[:-1]
    for action in (("DOOR", "OPEN"), ("CLEAR",), ("DOOR", "CLOSE")):
        predicted.transaction(*action)
    assert after.raw == predicted.transaction("DEAL")


@pytest.fixture
def scripted_shuffler(tmp_path: Path) -> Iterator[Callable[[dict[bytes, bytes]], SerialCardShuffler]]:
    """A driver on a pseudo-terminal whose far end answers each request line with a fixed frame (a real machine)."""
    stop = threading.Event()
    cleanups: list[Callable[[], None]] = []

    def start(script: dict[bytes, bytes]) -> SerialCardShuffler:
        master, slave = os.openpty()
        tty.setraw(slave)

        def serve() -> None:
            buffer = bytearray()
            while not stop.is_set():
                if select.select([master], [], [], 0.02)[0]:
                    buffer.extend(os.read(master, 4096))
                while (end := buffer.find(b"\n")) >= 0:
                    line = bytes(buffer[: end + 1])
                    del buffer[: end + 1]
                    if line in script:
                        os.write(master, script[line])

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        link = SerialLink(LinkSettings(port=os.ttyname(slave), timeout_s=0.3, retries=1),
                          WireLog(tmp_path / "scripted.jsonl"))
        link.open()
        shuffler = SerialCardShuffler(link)

        def cleanup() -> None:
            shuffler.close()
            stop.set()
            thread.join(timeout=2.0)
            os.close(master)
            os.close(slave)

        cleanups.append(cleanup)
        return shuffler

    yield start
    for cleanup in cleanups:
        cleanup()


def test_a_lid_the_machine_cannot_open_asks_for_a_person(scripted_shuffler) -> None:
    shuffler = scripted_shuffler({
        encode("STATUS?"): encode("STATUS", "JAM", "ON", "CLOSED", "BATCH", 51, 1, 1, 1, 7),
        encode("DOOR", 8, "OPEN"): encode("NAK", "DOOR", "OPERATOR_ONLY"),
    })
    with pytest.raises(OperatorActionRequired, match="a person must open the shuffler's lid"):
        shuffler.open_door()
    assert shuffler.refusals == 2  # asked twice (one retry), refused twice, never taken for an answer


def test_a_machine_that_never_answers_gives_device_error(scripted_shuffler) -> None:
    shuffler = scripted_shuffler({})
    with pytest.raises(DeviceError) as caught:
        shuffler.deal()
    assert caught.value.what == "read status" and len(caught.value.attempts) == 2
    assert shuffler.garbled_frames == 0


# -- shuffle randomness through the driver (statistics of rng_tests.fairness.cards) ------------


def _shuffled_orders(shuffler: CardShuffler, shuffles: int) -> np.ndarray:
    """``shuffles`` orders of one new deck each: load in factory order, shuffle, unload in order."""
    orders = []
    for _ in range(shuffles):
        shuffler.load(["RED"])
        shuffler.shuffle()
        orders.append(card_ids(shuffler.unload().cards, ["RED"]))
    return np.array(orders)


def test_three_riffles_are_detectably_not_random_and_a_fair_shuffler_passes(open_shuffler) -> None:
    """Rising-sequence test (two-sided, exact law) on 10 shuffles of a 52-card deck, alpha = 0.01.

    A fair shuffler fails with probability 0.01; 3 GSR riffles give at most 8 rising sequences
    against a null mean of 26.5 (sd 2.1), so they fail with probability 1 - 1e-12 or more.
    Seeds are fixed, so the outcome is deterministic.
    """
    start = card_ids(factory_order(["RED"]), ["RED"])
    fair = _shuffled_orders(open_shuffler({"seed": 101}, state="fair.json", log="fair.jsonl").shuffler, 10)
    riffled = _shuffled_orders(open_shuffler({"seed": 101, "model": "riffle", "riffles": 3},
                                             state="riffle.json", log="riffle.jsonl").shuffler, 10)
    assert len({tuple(order) for order in fair}) == 10
    fair_result = rising_sequence_test(start, fair)
    riffle_result = rising_sequence_test(start, riffled)
    assert fair_result.passed(0.01), fair_result
    assert not riffle_result.passed(0.01) and riffle_result.p_value < 1e-6, riffle_result
    assert riffle_result.details["mean_per_shuffle"] <= 8
