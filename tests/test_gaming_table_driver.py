"""SerialGamingTable (drivers.gaming_table) against the real simulator process behind a pseudo-terminal.

Expected rounds come from the simulator's model run in this process (:class:`drivers.sim.gaming_table.TableModel`,
seeded by round), so what the driver reads over a damaged line must be exactly what was played.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.profiles.gaming_table import GamingTableEquipment
from bench.rig import make_driver
from drivers.gaming_table import SerialGamingTable
from drivers.gaming_table_protocol import BlockReader, decode, parse_round
from drivers.serial_link import DeviceError, LinkSettings, SerialLink, WireLog
from drivers.sim.gaming_table import TableModel
from drivers.sim.host import start_simulator

IDENTITY = {"manufacturer": "Acme Tables", "model": "ET-21", "serial": "SN-805", "firmware": "3.1"}


def equipment(game: str = "blackjack", **simulator: Any) -> GamingTableEquipment:
    return GamingTableEquipment(kind="gaming-table", identity={"manufacturer": "Acme", "model": "ET-21", "serial": "1"},
                                options={"game": game, "minimum": 500}, simulator={"seed": 11, **simulator})


class Opened:
    """A simulator process and the driver on its tty."""

    def __init__(self, directory: Path, *, retries: int = 4, round_timeout_s: float = 5.0, **simulator: Any) -> None:
        sim = equipment(**simulator).simulator
        assert sim is not None
        self.config: dict[str, Any] = {"simulator": sim.model_dump(), "identity": IDENTITY}
        directory.mkdir(parents=True, exist_ok=True)
        self.state_file = directory / "state.json"
        self.wire_log = directory / "wire.jsonl"
        self.retries, self.round_timeout_s = retries, round_timeout_s
        self.start()

    def start(self) -> None:
        self.process = start_simulator("gaming-table", self.config, self.state_file)
        self.link = SerialLink(LinkSettings(port=self.process.tty_path, timeout_s=1.0, retries=self.retries),
                               WireLog(self.wire_log))
        self.link.open()
        self.table = SerialGamingTable(self.link, round_timeout_s=self.round_timeout_s, poll_s=0.1)

    def restart(self) -> None:
        """A power cycle: the process ends and starts again on the same state file."""
        self.close()
        self.start()

    def close(self) -> None:
        self.table.close()
        self.process.close()


def expected(numbers: range, **simulator: Any) -> list[Any]:
    """The rounds the simulator plays, computed here from the same model and seed."""
    sim = equipment(**simulator).simulator
    assert sim is not None
    model = TableModel(sim)
    played = []
    for number in numbers:
        reader = BlockReader("RND")
        for line in model.round_frames(number):
            block = reader.feed(decode(line))
        played.append(parse_round(*block))
    return played


@pytest.fixture
def opened(tmp_path: Path) -> Any:
    made: list[Opened] = []

    def make(**options: Any) -> Opened:
        made.append(Opened(tmp_path / str(len(made)), **options))
        return made[-1]

    yield make
    for item in made:
        item.close()


def test_identity_configuration_and_rounds(opened: Any) -> None:
    device = opened()
    table = device.table
    assert (table.identify().model, table.identify().firmware) == ("ET-21", "3.1")
    configuration = table.configuration()
    assert (configuration.game, configuration.rules) == ("blackjack", "p217-2007")
    assert (configuration.limits["aposta"].minimum, configuration.limits["aposta"].maximum) == (500, 30 * 500)
    assert table.last_round() == 0
    read = list(table.rounds(4))
    assert read == expected(range(1, 5))
    assert [r.round for r in read] == [1, 2, 3, 4] and table.last_round() == 4
    assert table.read_round(2) == read[1]  # a round already played is reported again, unchanged
    assert table.garbled_frames == 0


def test_garbled_frames_are_retried_and_never_become_a_round(opened: Any) -> None:
    device = opened(garble_rate=0.15, retries=10)
    read = list(device.table.rounds(8))
    assert read == expected(range(1, 9), garble_rate=0.15)
    assert device.table.garbled_frames > 0  # the seed garbles some frames: each cost a repeat of the round


def test_repeats_fill_the_gaps_of_a_long_block_within_a_small_retry_budget(opened: Any) -> None:
    """At 30 % of frames garbled a round of a dozen frames almost never arrives whole in one reply; kept frames
    and a budget spent only by asks that bring nothing new read every round exactly, with one retry allowed."""
    device = opened(garble_rate=0.3, retries=1)
    read = list(device.table.rounds(8))
    assert read == expected(range(1, 9), garble_rate=0.3)
    assert device.table.garbled_frames > 8


def test_a_damaged_line_is_retried(opened: Any) -> None:
    faults = {"seed": 5, "dropped_byte_rate": 0.02, "flipped_bit_rate": 0.02, "garbage_rate": 0.05}
    device = opened(wire_faults=faults, retries=10)
    assert list(device.table.rounds(6)) == expected(range(1, 7), wire_faults=faults)


def test_too_many_garbled_replies_raise_instead_of_guessing(opened: Any) -> None:
    device = opened(garble_rate=0.9, retries=1)
    with pytest.raises(DeviceError, match="read round 1 failed after 2 attempt"):
        device.table.read_round(1)


def test_a_round_not_played_is_awaited_then_reported(opened: Any) -> None:
    device = opened(round_timeout_s=0.3)
    with pytest.raises(DeviceError, match="round not played within 0.3 s"):
        device.table.read_round(3)
    assert device.table.refusals == 0  # NOT_PLAYED is an answer, not a refusal
    with pytest.raises(ValueError, match="positive integer"):
        device.table.read_round(0)


def test_a_power_cycle_keeps_the_round_numbering(opened: Any) -> None:
    device = opened()
    first = list(device.table.rounds(3))
    device.restart()
    assert device.table.last_round() == 3
    after = list(device.table.rounds(2))
    assert [r.round for r in after] == [4, 5]
    assert [*first, *after] == expected(range(1, 6))


def test_the_rig_builds_the_driver(tmp_path: Path) -> None:
    item = equipment()
    link = SerialLink(LinkSettings(port="loop://"), WireLog(tmp_path / "wire.jsonl"))
    driver = make_driver(item, link)
    assert isinstance(driver, SerialGamingTable) and driver.round_timeout_s == item.options.round_timeout_s
