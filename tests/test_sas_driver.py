"""SasSlotMachine (drivers.sas) against the simulated machine process (drivers.sim.slot_machine) behind a pty.

The simulator draws game ``g`` from a generator seeded with ``(seed, block of g)``, so a
:class:`SlotModel` with the same configuration, run in this process, plays exactly the games the
simulator played: the meters the host reads must be those of the in-process replay. Play runs at
a rate while enabled; the tests disable play (long poll 01) before reading, so nothing moves.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import serial

from bench.profiles.slot import SlotMachineEquipment, SlotSimulator, standard_par, tight_par
from drivers import sas_protocol as sas
from drivers.sas import SasSlotMachine, SlotMeters
from drivers.sas_transport import ParityWakeupTransport, escape_message, make_transport
from drivers.serial_link import DeviceError, LinkSettings, SerialLink, WireLog
from drivers.sim.host import SimulatorProcess, start_simulator
from drivers.sim.slot_machine import EXCEPTION_QUEUE, SlotModel

IDENTITY = {"manufacturer": "Acme Slots", "model": "Reel-3", "serial": "SN-7781", "firmware": "1.4"}


def equipment(simulator: dict[str, Any], **options: Any) -> SlotMachineEquipment:
    return SlotMachineEquipment.model_validate(
        {"kind": "slot-machine", "identity": IDENTITY, "options": options, "simulator": simulator})


class OpenedSlot:
    """A simulator process, the SAS host on its tty, the wire log."""

    def __init__(self, tmp_path: Path, eq: SlotMachineEquipment, state: str, *, timeout_s: float, retries: int) -> None:
        assert eq.simulator is not None
        self.equipment = eq
        self.config = {"simulator": eq.simulator.model_dump(), "identity": IDENTITY}
        self.state_file = tmp_path / state
        self.wire_log = tmp_path / f"{state}.wire.jsonl"
        self.timeout_s, self.retries = timeout_s, retries
        self.simulator: SimulatorProcess | None = None
        self.start()

    def start(self) -> None:
        self.simulator = start_simulator("slot-machine", self.config, self.state_file)
        self.link = SerialLink(LinkSettings(port=self.simulator.tty_path, timeout_s=self.timeout_s,
                                            retries=self.retries), WireLog(self.wire_log))
        self.link.open()
        self.host = SasSlotMachine(self.link, make_transport(self.equipment.framing, self.link),
                                   address=self.equipment.options.address)

    def play(self, games: int, timeout_s: float = 10.0) -> SlotMeters:
        """Enable play until the games-played meter shows at least ``games``, then disable it and read the meters."""
        self.host.enable_play()
        deadline = time.monotonic() + timeout_s
        while self.host.meter("games_played") < games:
            assert time.monotonic() < deadline, "the machine did not play in time"
            time.sleep(0.02)
        self.host.disable_play()
        return self.host.meters()

    def replay(self, games: int) -> SlotModel:
        """The same machine played ``games`` games in this process."""
        model = SlotModel(SlotSimulator.model_validate(self.config["simulator"]))
        model.play(games)
        return model

    def wire(self, direction: str) -> list[bytes]:
        entries = [json.loads(line) for line in self.wire_log.read_text(encoding="utf-8").splitlines()]
        return [bytes.fromhex(entry["hex"]) for entry in entries if entry["dir"] == direction]

    def close(self) -> None:
        self.link.close()
        if self.simulator is not None:
            self.simulator.close()


def power_cycle(*slots: OpenedSlot) -> None:
    """Stop the processes, then start them again on their state files.

    Started from this thread: PR_SET_PDEATHSIG ties each simulator to the thread that forked it.
    """
    for slot in slots:
        slot.close()
    for slot in slots:
        slot.start()


@pytest.fixture
def open_slot(tmp_path: Path) -> Iterator[Callable[..., OpenedSlot]]:
    opened: list[OpenedSlot] = []

    def start(simulator: dict[str, Any] | None = None, *, state: str = "slot.sim-state.json", timeout_s: float = 1.0,
              retries: int = 3, **options: Any) -> OpenedSlot:
        config = {"plays_per_second": 400.0, "start_enabled": False, **(simulator or {})}
        slot = OpenedSlot(tmp_path, equipment(config, **options), state, timeout_s=timeout_s, retries=retries)
        opened.append(slot)
        return slot

    yield start
    for slot in reversed(opened):
        slot.close()


def _true_meters(model: SlotModel) -> SlotMeters:
    return SlotMeters(**{name: model.meter(name) for name in SlotMeters.__dataclass_fields__})


# -- identity (p217-2007/maquinas-automaticas/10) ----------------------------------------------------


def test_identity_bet_value_and_progressive_broadcasts(open_slot) -> None:
    par = standard_par().model_copy(update={"progressive_group": 4, "progressive_contribution_percent": 1.5})
    slot = open_slot(par=par.model_dump())
    identity = slot.host.identify()
    assert identity.serial == IDENTITY["serial"] and identity.version.sas_version == "602"
    assert identity.info.game_id == par.game_id and identity.info.paytable_id == par.paytable_id
    assert identity.denomination_cents == par.denomination_cents
    assert identity.max_bet_credits == par.bet_per_play
    assert identity.info.base_percent == pytest.approx(par.theory.rtp * 100, abs=0.005)
    assert identity.info.progressive_group == 4
    # the first message on the wire is long poll 1F to address 1, its address byte escaped as the wakeup byte
    assert slot.wire("tx")[0] == escape_message(bytes([1, 0x1F])) == bytes.fromhex("80 01 1F")
    # progressive levels (p217-2007/maquinas-automaticas/3, /4): 80 to the broadcast address, 86 to the machine
    slot.host.broadcast_progressive(4, {1: 123_456})  # address 0: no reply
    slot.host.broadcast_progressive(4, {1: 123_500, 2: 9_999}, broadcast=False)  # address 1: ACK
    slot.host.broadcast_progressive(5, {1: 1})  # another group's broadcast: ignored
    tx = slot.wire("tx")
    assert escape_message(sas.encode_single_progressive(0, 4, 1, 123_456)) in tx
    assert escape_message(sas.encode_multi_progressive(1, 4, {1: 123_500, 2: 9_999})) in tx
    slot.host.meter("coin_in")  # a reply after the broadcasts: the machine has handled them
    state = json.loads(slot.state_file.read_text())
    assert state["progressive"] == {"levels": {"1": 123_500, "2": 9_999}, "group": 4}


def test_low_return_machine_reports_its_own_pay_table(open_slot) -> None:
    slot = open_slot({"model": "low-return"})
    identity = slot.host.identify()
    assert identity.info.paytable_id == tight_par().paytable_id
    assert identity.info.base_percent == pytest.approx(62.96, abs=0.01)
    assert identity.info.base_percent < 80


# -- meters (p217-2007/maquinas-automaticas/9, /14) ----------------------------------------------------


def test_fair_machine_meters_equal_the_games_it_played(open_slot) -> None:
    slot = open_slot({"seed": 11, "door_open_rate": 0.25})
    meters = slot.play(60)
    model = slot.replay(meters.games_played)
    assert meters == _true_meters(model)
    bet = standard_par().bet_per_play
    assert meters.coin_in == bet * meters.games_played
    assert meters.games_won + meters.games_lost == meters.games_played
    assert meters.current_credits == meters.drop - meters.coin_in + meters.coin_out - meters.cancelled_credits
    assert meters.coin_out > 0 and meters.drop > 0
    # every other way of reading the meters agrees with the 2F snapshot
    assert slot.host.meters_10_15() == {name: getattr(meters, name) for name in sas.METERS_10_15_ORDER}
    assert [slot.host.meter(name) for name in ("coin_in", "coin_out", "drop", "current_credits")] == [
        meters.coin_in, meters.coin_out, meters.drop, meters.current_credits]
    # general poll exceptions: power applied, then each game started and ended, the door opened and closed after some
    expected = [0x17]
    for game in range(1, meters.games_played + 1):
        expected += [0x7E, 0x7F] + ([0x11, 0x12] if model.outcome(game)[2] else [])
    assert 0x11 in expected
    if len(expected) > EXCEPTION_QUEUE:  # the machine's buffer keeps the oldest, its last slot says "overflow"
        expected = [*expected[:EXCEPTION_QUEUE - 1], 0x70]
    assert [event.code for event in slot.host.events(limit=1000)] == expected
    assert slot.host.events() == []
    # after a disconnect the host reopens the link by itself
    slot.link.close()
    assert slot.host.meter("games_played") == meters.games_played and slot.link.is_open


def test_dropped_meter_model_shows_coin_in_inconsistent_with_games_played(open_slot) -> None:
    config = {"model": "dropped-meter", "dropped_meter": "coin_in", "dropped_meter_rate": 0.2, "seed": 3}
    slot = open_slot(config)
    meters = slot.play(40)
    model = slot.replay(meters.games_played)
    assert meters == _true_meters(model)
    true_games = model.game
    dropped = sum(model.outcome(game)[1] for game in range(1, true_games + 1))
    assert dropped >= 1  # with this seed the first 40 games include dropped counts
    assert meters.games_played == true_games
    assert meters.coin_in == standard_par().bet_per_play * (true_games - dropped) < meters.games_played


def test_volatile_meters_are_lost_on_a_power_cycle_and_fair_meters_kept(open_slot) -> None:
    kept = open_slot({"seed": 5}, state="fair.sim-state.json")
    lost = open_slot({"seed": 5, "model": "volatile-meters"}, state="volatile.sim-state.json")
    before = {"fair": kept.play(20), "volatile": lost.play(20)}
    power_cycle(kept, lost)
    assert kept.host.meters() == before["fair"]
    assert lost.host.meters() == SlotMeters(*([0] * 9))
    # both continue the same game sequence after the restart (the RNG position is non-volatile)
    assert json.loads(lost.state_file.read_text())["game"] == before["volatile"].games_played


# -- errors and link rules ------------------------------------------------------------------------------


def test_crc_corrupted_replies_are_retried_and_counted_and_silence_takes_the_link_down(open_slot) -> None:
    seed, rate, requests = 7, 0.3, 12
    slot = open_slot({"seed": seed, "garble_rate": rate}, timeout_s=0.15)
    # the simulator corrupts reply k when the k-th draw of its (seed, 0x5A5) generator is below the rate
    draws = iter(np.random.default_rng([seed, 0x5A5]).random(200))
    expected = 0
    for _ in range(requests):
        attempts = 1
        while next(draws) < rate:
            expected += 1
            attempts += 1
        assert attempts <= 4  # the seed needs no more than the three retries allowed
    assert expected >= 3  # the seed exercises the retry path
    values = [slot.host.meter("coin_in") for _ in range(requests)]
    assert values == [0] * requests
    assert slot.host.crc_errors == slot.host.garbled_frames == expected
    assert slot.host.link_up
    # a poll of an address no machine has goes unanswered: DeviceError after 1 + 3 attempts, link down
    stranger = SasSlotMachine(slot.link, slot.host.transport, address=9, link_down_polls=3)
    with pytest.raises(DeviceError, match="4 attempt"):
        stranger.meter("coin_in")
    assert stranger.timeouts == 4 and not stranger.link_up
    impatient = SasSlotMachine(slot.link, slot.host.transport, address=9, link_down_polls=100, link_down_s=0.3)
    with pytest.raises(DeviceError):
        impatient.meter("drop")
    assert not impatient.link_up  # 4 polls, fewer than link_down_polls, but no reply for longer than link_down_s


# -- real UART framing and the profile ------------------------------------------------------------------


class _RecordingLink(SerialLink):
    def __init__(self) -> None:
        super().__init__(LinkSettings(port="loop://", baudrate=19_200))
        self.calls: list[tuple[str, object]] = []

    def set_parity(self, parity: str) -> None:
        self.calls.append(("parity", parity))
        super().set_parity(parity)

    def write_bytes(self, data: bytes, note: str = "") -> None:
        self.calls.append(("write", data))
        super().write_bytes(data, note)


def test_uart_transport_sends_the_address_byte_with_mark_parity_and_the_rest_with_space() -> None:
    link = _RecordingLink()
    link.open()
    transport = ParityWakeupTransport(link)
    transport.send(sas.encode_long_poll(1, sas.Command.STARTUP))
    assert link.calls == [("parity", serial.PARITY_MARK), ("write", b"\x01"), ("parity", serial.PARITY_SPACE),
                          ("write", bytes.fromhex("02 CA 3A"))]
    assert transport.read(4, 0.2) == bytes.fromhex("01 02 CA 3A")  # loop:// echoes: raw bytes, no escaping
    link.close()


def test_profile_fills_the_simulator_and_checks_models() -> None:
    eq = equipment({}, address=12)
    assert eq.simulator is not None and eq.simulator.address == 12 and eq.simulator.par == eq.options.par
    assert eq.framing == "pty-escape"
    assert eq.options.par.theory.rtp == pytest.approx(0.9039, abs=5e-5)
    assert eq.options.par.bet_value_cents == 10
    with pytest.raises(ValueError, match="returns 90.39%"):
        SlotSimulator(model="low-return", par=standard_par())
    with pytest.raises(ValueError, match="needs a dropped_meter_rate"):
        SlotSimulator(model="dropped-meter")
    real = {"kind": "slot-machine", "identity": IDENTITY, "connection": {"port": "/dev/ttyUSB0"}}
    with pytest.raises(ValueError, match="19200 baud"):
        SlotMachineEquipment.model_validate(real)
    real["connection"] = {"port": "/dev/ttyUSB0", "baudrate": 19_200}
    assert SlotMachineEquipment.model_validate(real).framing == "wakeup-parity"
