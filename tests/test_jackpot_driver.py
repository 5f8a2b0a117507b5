"""SerialJackpotController (drivers.jackpot) against the real simulator process behind a pseudo-terminal.

Expected values come from the regulation's arithmetic in :mod:`bench.games.jackpot_rules`
(exact rationals), never from the simulator: a fair controller must match it to the cent, a
faulty one must visibly not.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from bench.games.jackpot_rules import Hit, expected_value, minimum_start, settle
from bench.profiles.jackpot import JackpotEquipment, JackpotLevel, JackpotOptions, JackpotSimulator, PrizeRule
from drivers.jackpot import SerialJackpotController, make_jackpot_controller
from drivers.jackpot_protocol import encode
from drivers.sas_progressive import SasProgressiveListener
from drivers.serial_link import DeviceError, LinkSettings, SerialLink, WireLog
from drivers.sim.host import start_simulator
from drivers.sim.power_rail import RailState, read_rail, write_rail

IDENTITY = {"manufacturer": "Acme Jackpots", "model": "JP-7", "serial": "SN-0461", "firmware": "2.0.1"}
BET = 100  # 1 EUR jackpot bet
# level 1 at 29 %: 100 x 0.29 is 28.999... in binary floating point; level 2 at 2.5 %: half a cent per bet
OPTIONS = JackpotOptions(levels=[JackpotLevel(start_cents=1_000_000, increment_percent="29"),
                                 JackpotLevel(start_cents=2_000_000, increment_percent="2.5")],
                         jackpot_bet_cents=BET)


def equipment(**simulator: Any) -> JackpotEquipment:
    return JackpotEquipment(kind="jackpot-display", identity={"manufacturer": "Acme", "model": "JP-7", "serial": "1"},
                            options=OPTIONS, simulator=JackpotSimulator(**simulator))


class Opened:
    """A simulator process and the driver on its tty."""

    def __init__(self, directory: Path, rail: Path | None = None, **simulator: Any) -> None:
        sim = equipment(**simulator).simulator
        assert sim is not None
        self.config: dict[str, Any] = {"simulator": sim.model_dump(), "identity": IDENTITY}
        if rail is not None:
            self.config["power_rail"] = str(rail)
        self.state_file = directory / "state.json"
        self.wire_log = directory / "wire.jsonl"
        self.start()

    def start(self) -> None:
        self.process = start_simulator("jackpot-display", self.config, self.state_file)
        self.link = SerialLink(LinkSettings(port=self.process.tty_path, timeout_s=1.0, retries=4),
                               WireLog(self.wire_log))
        self.link.open()
        self.jackpot = SerialJackpotController(self.link)

    def restart(self) -> None:
        """A power cycle: the process ends and starts again on the same state file."""
        self.close()
        self.start()

    def close(self) -> None:
        self.jackpot.close()
        self.process.close()


FLEET: dict[str, dict[str, Any]] = {
    "fair": {}, "rounding": {"model": "rounding"}, "low-start": {"model": "low-start"},
    "garbled": {"garble_rate": 0.3}, "display-lag": {"model": "display-lag", "display_lag_bets": 2},
    "volatile": {"model": "volatile"}, "railed": {"model": "volatile", "rail": True},
    "sas": {"line": "sas", "sas_interval_s": 0.05, "garble_rate": 0.3},
    "sas-railed": {"line": "sas", "sas_interval_s": 0.05, "rail": True},
}


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Opened]]:
    """One simulator per model, started in parallel (each start imports the profile models: about a second)."""
    root = tmp_path_factory.mktemp("jackpot")
    rail = root / "rail.json"
    write_rail(rail, RailState(True, 12.0, 1, time.time()))

    def start(name: str) -> Opened:
        options = dict(FLEET[name])
        return Opened(root / name, rail=rail if options.pop("rail", False) else None, **options)

    devices: dict[str, Opened] = {}
    errors: list[BaseException] = []
    started, stop = threading.Semaphore(0), threading.Event()

    def keep(name: str) -> None:
        # PR_SET_PDEATHSIG kills a simulator when the *thread* that started it ends: this one waits for teardown
        try:
            (root / name).mkdir()
            devices[name] = start(name)
        except BaseException as error:  # noqa: BLE001 - reported by the fixture below
            errors.append(error)
        finally:
            started.release()
        stop.wait()

    for name in FLEET:
        threading.Thread(target=keep, args=(name,), daemon=True).start()
    for _ in FLEET:
        started.acquire()
    try:
        if errors:
            raise errors[0]
        devices["railed"].rail = rail  # type: ignore[attr-defined]
        devices["sas-railed"].rail = rail  # type: ignore[attr-defined]
        yield devices
    finally:
        for device in devices.values():
            device.process.process.terminate()  # all at once: each takes a select period to stop
        for device in devices.values():
            device.close()
        stop.set()


@pytest.fixture
def opened(fleet: dict[str, Opened], request: pytest.FixtureRequest) -> Opened:
    """The simulator of the model named by the test's parameter (default: the shared fair one, reset to its start)."""
    device = fleet[getattr(request, "param", "fair")]
    if getattr(request, "param", "fair") == "fair":
        device.jackpot.reset(1)
        device.jackpot.reset(2)
    return device


def test_identity_configuration_and_pay_table(opened: Opened) -> None:
    jackpot = opened.jackpot
    assert jackpot.identify().serial == "SN-0461"
    conf = jackpot.configuration()
    assert (conf.game, conf.jackpot_bet_cents, conf.levels) == ("poquer-sem-descarte", BET, 2)
    levels = jackpot.levels()
    assert [(lv.value_cents, lv.start_cents, lv.increment_percent) for lv in levels] == [
        (1_000_000, 1_000_000, Decimal(29)), (2_000_000, 2_000_000, Decimal("2.5"))]
    assert all(lv.start_cents >= minimum_start(conf.jackpot_bet_cents) for lv in levels)
    assert jackpot.pay_table() == OPTIONS.prize_table()
    assert jackpot.display_text(2) == "JACKPOT 20.000,00 EUR"
    assert make_jackpot_controller("jp", opened.link).values().values == (1_000_000, 2_000_000)  # reset by fixture
    with pytest.raises(ValueError, match="unknown jackpot protocol"):
        make_jackpot_controller("ipx", opened.link)


def test_fair_increments_are_exact_to_the_cent(opened: Opened) -> None:
    meters = opened.jackpot.status()
    bets = [BET] * 30 + [250, 333, 1]
    for count in range(1, len(bets) + 1):
        values = opened.jackpot.register_bet(bets[count - 1])
        assert values == (expected_value(1_000_000, bets[:count], Decimal(29)),
                          expected_value(2_000_000, bets[:count], Decimal("2.5")))
    assert opened.jackpot.display(1).amount_cents == values[0]
    status = opened.jackpot.status()
    assert (status.bets - meters.bets, status.bet_total_cents - meters.bet_total_cents) == (len(bets), sum(bets))


@pytest.mark.parametrize("opened", ["rounding"], indirect=True)
def test_rounding_model_drifts(opened: Opened) -> None:
    for _ in range(20):
        values = opened.jackpot.register_bet(BET)
    exact = (expected_value(1_000_000, [BET] * 20, Decimal(29)), expected_value(2_000_000, [BET] * 20, Decimal("2.5")))
    assert exact[0] - values[0] == 20  # a cent lost on every bet: 28 instead of 29
    assert exact[1] - values[1] == 10  # half a cent lost on every bet


@pytest.mark.parametrize("opened", ["low-start"], indirect=True)
def test_low_start_is_visible(opened: Opened) -> None:
    bet = opened.jackpot.configuration().jackpot_bet_cents
    starts = [level.start_cents for level in opened.jackpot.levels()]
    assert starts == [5_000 * bet, 5_000 * bet]
    assert all(start < minimum_start(bet) for start in starts)


def test_hits_are_paid_by_the_regulation(opened: Opened) -> None:
    jackpot = opened.jackpot
    hits_before = jackpot.status().hits
    for _ in range(3):
        jackpot.register_bet(BET)
    pool = jackpot.values().values[0]
    round_hits = [Hit(1, "ROYAL_FLUSH"), Hit(2, "STRAIGHT_FLUSH"), Hit(4, "FLUSH"), Hit(6, "FOUR_OF_A_KIND")]
    paid = jackpot.report_hit(round_hits)
    oracle = settle(pool, BET, 1_000_000, round_hits)
    assert paid.payouts == oracle.payouts and paid.pool_before_cents == pool
    assert [p.hand for p in paid.payouts] == ["FLUSH", "FOUR_OF_A_KIND", "STRAIGHT_FLUSH", "ROYAL_FLUSH"]
    assert paid.payouts[2].amount_cents == pool // 10  # 10 % of the pool before the round
    assert paid.paid_cents == pool and paid.pool_after_cents == 1_000_000  # the royal takes what remains
    # the fraction of a cent (3 x 0.29 EUR = 87 cents exactly here) stays; level 2 untouched by a level-1 hit
    assert jackpot.values().values == (1_000_000, expected_value(2_000_000, [BET] * 3, Decimal("2.5")))
    shared = jackpot.report_hit([Hit(3, "ROYAL_FLUSH"), Hit(5, "ROYAL_FLUSH")], level=2)
    assert [p.amount_cents for p in shared.payouts] == [1_000_003, 1_000_003]  # 20 000,07 EUR split in two
    assert shared.pool_after_cents == 2_000_000 + 1  # the odd cent stays in the pool
    assert jackpot.status().hits == hits_before + 2
    assert jackpot.reset(2) == 2_000_000


def test_refusals_are_counted_and_raised(opened: Opened) -> None:
    bets = opened.jackpot.status().bets
    with pytest.raises(DeviceError, match="BAD_HAND"):
        opened.jackpot.report_hit([Hit(1, "TWO_PAIRS")])
    assert opened.jackpot.refusals >= 1
    with pytest.raises(ValueError, match="level must be 1-2"):
        opened.jackpot.display(3)
    with pytest.raises(ValueError, match="positive whole number of cents"):
        opened.jackpot.register_bet(1.5)  # type: ignore[arg-type]
    opened.link.write_line(encode("BET", 9999, 1, 100))  # out of sequence: refused, nothing registered
    assert b"BAD_SEQUENCE" in (opened.link.read_line() or b"")
    assert opened.jackpot.status().bets == bets


@pytest.mark.parametrize("opened", ["garbled"], indirect=True)
def test_garbled_replies_are_retried_without_registering_a_bet_twice(opened: Opened) -> None:
    # seed fixed: with 30 % of replies garbled, 25 bets see several garbled replies
    for _ in range(25):
        values = opened.jackpot.register_bet(BET)
    assert opened.jackpot.garbled_frames > 0
    assert values == (expected_value(1_000_000, [BET] * 25, Decimal(29)),
                      expected_value(2_000_000, [BET] * 25, Decimal("2.5")))
    assert opened.jackpot.status().bets == 25


@pytest.mark.parametrize("opened", ["display-lag"], indirect=True)
def test_display_lag_is_visible(opened: Opened) -> None:
    history = [opened.jackpot.values().values[0]]
    for _ in range(4):
        history.append(opened.jackpot.register_bet(BET)[0])
    assert opened.jackpot.display(1).amount_cents == history[-3] != history[-1]


def test_fair_pool_survives_a_power_cycle(opened: Opened) -> None:
    before = [opened.jackpot.register_bet(BET) for _ in range(3)][-1]
    opened.restart()
    assert opened.jackpot.values().values == before
    assert opened.jackpot.register_bet(BET) == (expected_value(1_000_000, [BET] * 4, Decimal(29)),
                                                expected_value(2_000_000, [BET] * 4, Decimal("2.5")))


@pytest.mark.parametrize("opened", ["volatile"], indirect=True)
def test_volatile_pool_is_lost_in_a_power_cycle(opened: Opened) -> None:
    assert opened.jackpot.register_bet(BET)[0] == 1_000_029
    opened.restart()
    assert opened.jackpot.values().values == (1_000_000, 2_000_000)
    assert opened.jackpot.status().bets == 1  # meters kept: only the pools were volatile


def test_silent_device_times_out_and_a_reconnect_recovers(opened: Opened, tmp_path: Path) -> None:
    master, slave = os.openpty()
    try:
        link = SerialLink(LinkSettings(port=os.ttyname(slave), timeout_s=0.1, retries=1))
        with pytest.raises(DeviceError, match="no reply"):
            SerialJackpotController(link).values()
        link.close()
    finally:
        os.close(master)
        os.close(slave)
    opened.link.close()  # a disconnect: the next request opens the port again
    assert opened.jackpot.values().values == (1_000_000, 2_000_000)  # reset by the fixture
    entries = [json.loads(line) for line in opened.wire_log.read_text().splitlines()]
    assert [entry["note"] for entry in entries[-4:-2]] == ["closed", f"opened {opened.process.tty_path}"]


@pytest.mark.parametrize("opened", ["railed"], indirect=True)
def test_power_rail_darkens_the_controller_and_a_power_cycle_reloads_it(opened: Opened) -> None:
    rail: Path = opened.rail  # type: ignore[attr-defined]
    opened.link.settings = LinkSettings(port=opened.process.tty_path, timeout_s=0.3, retries=0)
    assert opened.jackpot.register_bet(BET)[0] == 1_000_029
    write_rail(rail, RailState(False, 0.0, 1, time.time()))
    with pytest.raises(DeviceError, match="no reply"):
        opened.jackpot.values()
    write_rail(rail, RailState(True, 12.0, 2, time.time()))
    assert opened.jackpot.values().values[0] == 1_000_000  # volatile: rebuilt from the state file, pool lost
    assert opened.jackpot.status().bets == 1  # the meters were in the state file


@pytest.mark.parametrize("opened", ["sas"], indirect=True)
def test_sas_progressive_broadcasts_are_read_and_garbled_ones_never_become_amounts(opened: Opened) -> None:
    listener = SasProgressiveListener(opened.link, "pty-escape", group=1)
    seen = [listener.next_broadcast(timeout_s=2.0) for _ in range(15)]
    assert all(broadcast.command == 0x86 and broadcast.group == 1 for broadcast in seen)
    counts = []
    for broadcast in seen:  # one jackpot bet contributed per broadcast: level 1 gains exactly 29 cents each
        contributions, rest = divmod(broadcast.amounts[1] - 1_000_000, 29)
        assert rest == 0
        assert broadcast.amounts[2] == expected_value(2_000_000, [BET] * contributions, Decimal("2.5"))
        counts.append(contributions)
    assert counts == sorted(counts) and counts[-1] > counts[0]
    assert listener.crc_errors > 0  # seed fixed: 30 % of broadcasts carry a corrupted CRC
    assert listener.levels(timeout_s=2.0).keys() == {1, 2}
    with pytest.raises(DeviceError, match="no valid broadcast"):
        SasProgressiveListener(opened.link, group=7).next_broadcast(timeout_s=0.3)


@pytest.mark.parametrize("opened", ["sas-railed"], indirect=True)
def test_a_sas_progressive_controller_on_the_rail_broadcasts_only_while_powered(opened: Opened) -> None:
    rail: Path = opened.rail  # type: ignore[attr-defined]
    before = SasProgressiveListener(opened.link, group=1).next_broadcast(timeout_s=2.0).amounts[1]
    generation = read_rail(rail).generation
    write_rail(rail, RailState(False, 0.0, generation, time.time()))
    time.sleep(0.15)  # a broadcast already on the line
    opened.link.discard_input()
    with pytest.raises(DeviceError, match="no valid broadcast"):
        SasProgressiveListener(opened.link, group=1).next_broadcast(timeout_s=0.4)
    write_rail(rail, RailState(True, 12.0, generation + 1, time.time()))
    after = SasProgressiveListener(opened.link, group=1).next_broadcast(timeout_s=2.0).amounts[1]
    assert after > before  # booted from its state file: the fair pool survived the power cycle and grows on


def test_profile_fills_the_simulator_and_refuses_bad_setups() -> None:
    sim = equipment().simulator
    assert sim is not None and sim.setup is not None and sim.setup.levels == OPTIONS.levels
    with pytest.raises(ValueError, match="more than 4 decimals|pattern"):
        JackpotLevel(start_cents=1, increment_percent="1.23456")
    with pytest.raises(ValueError, match="less than 10000"):
        JackpotSimulator(low_start_multiple=10_000)
    with pytest.raises(ValueError, match="REMAINDER"):
        JackpotOptions(pay_table=[PrizeRule(hand="FLUSH", kind="MULTIPLE", value="50")])
    with pytest.raises(ValueError, match="connection.port"):
        JackpotEquipment(kind="jackpot-display", identity={"manufacturer": "A", "model": "B", "serial": "C"})
