"""SerialCussecDome (drivers.cussec_dome) against the real simulator process behind a pseudo-terminal, the fault
models seen through the driver, and the simulated camera showing the dice the dome threw.

Expected rounds come from the simulator's model run in this process (:class:`drivers.sim.cussec_dome.DomeModel`,
seeded by round), so what the driver reads over a damaged line must be exactly what was played.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.games.cussec import winning_zones
from bench.profiles.cussec_dome import CussecDomeEquipment
from bench.rig import make_driver
from bench.rig_cameras import open_dome_camera
from drivers.cussec_dome import NoActuator, SerialCussecDome
from drivers.cussec_dome_protocol import DomeRound, RoundReader, decode, encode
from drivers.serial_link import DeviceError, LinkSettings, SerialLink, WireLog
from drivers.sim.cussec_dome import DomeDevice, DomeModel, dome_dice
from drivers.sim.host import start_simulator
from drivers.sim.state_file import save_state

IDENTITY = {"manufacturer": "Acme Domes", "model": "CD-3", "serial": "SN-217", "firmware": "1.4"}


def equipment(**simulator: Any) -> CussecDomeEquipment:
    return CussecDomeEquipment(kind="dice-shaker", identity={"manufacturer": "Acme", "model": "CD-3", "serial": "1"},
                               simulator={"seed": 11, **simulator},
                               camera={"source": "sim", "simulation": {"nuisance": "none"}})


class Opened:
    """A simulator process and the driver on its tty."""

    def __init__(self, directory: Path, *, retries: int = 4, round_timeout_s: float = 5.0, **simulator: Any) -> None:
        self.equipment = equipment(**simulator)
        assert self.equipment.simulator is not None
        self.config: dict[str, Any] = {"simulator": self.equipment.simulator.model_dump(), "identity": IDENTITY}
        directory.mkdir(parents=True, exist_ok=True)
        self.state_file = directory / "state.json"
        self.wire_log = directory / "wire.jsonl"
        self.retries, self.round_timeout_s = retries, round_timeout_s
        self.start()

    def start(self) -> None:
        self.process = start_simulator("dice-shaker", self.config, self.state_file)
        self.link = SerialLink(LinkSettings(port=self.process.tty_path, timeout_s=0.5, retries=self.retries),
                               WireLog(self.wire_log))
        self.link.open()
        self.dome = SerialCussecDome(self.link, round_timeout_s=self.round_timeout_s, poll_s=0.1)

    def restart(self) -> None:
        """A power cycle: the process ends and starts again on the same state file."""
        self.close()
        self.start()

    def close(self) -> None:
        self.dome.close()
        self.process.close()


def expected(numbers: range, **simulator: Any) -> list[DomeRound]:
    """The rounds the simulator logs, computed here from the same model and seed."""
    model = DomeModel(equipment(**simulator).simulator)  # type: ignore[arg-type]
    played = []
    for number in numbers:
        reader = RoundReader(number)
        for line in model.round_frames(number):
            result = reader.feed(decode(line))
        assert result is not None
        played.append(result)
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


def test_rounds_played_by_the_bench_awaited_and_kept_over_a_power_cycle(opened: Any) -> None:
    device = opened(round_timeout_s=0.3)
    dome = device.dome
    assert (dome.identify().model, dome.identify().firmware) == ("CD-3", "1.4")
    status = dome.status()
    assert (status.round, status.tx, status.latched, status.lamp, status.actuator) == (0, 0, False, False, True)
    read = [dome.next_round() for _ in range(3)]
    assert read == expected(range(1, 4))
    assert [r.round for r in read] == [1, 2, 3] and {r.mode for r in read} == {"BENCH"}
    assert dome.read_round(2) == read[1]  # a round already played is reported again, unchanged
    for played in read:  # fair: three strokes, the lamp by itself, the zones of the dice thrown
        assert played.strokes_before_lamp == 3 and played.lamp_by == "AUTO"
        assert 0 < played.lamp_after_third_stroke_ms < 2000  # type: ignore[operator]
        assert played.dice == dome_dice(11, played.round)
        assert set(played.zones) == set(winning_zones(played.dice))
    with pytest.raises(DeviceError, match="round not played within 0.3 s"):
        dome.read_round(4)  # the bench did not play it: NOT_PLAYED until the timeout
    assert dome.refusals == 0 and dome.garbled_frames == 0  # NOT_PLAYED is an answer, not a refusal
    with pytest.raises(ValueError, match="positive integer"):
        dome.read_round(0)
    device.restart()  # a power cycle: the numbering continues from the state file
    status = device.dome.status()
    assert (status.round, status.tx) == (3, 3)
    after = [device.dome.next_round() for _ in range(2)]
    assert [*read, *after] == expected(range(1, 6))


def test_a_repeated_play_never_plays_twice(tmp_path: Path) -> None:
    model = DomeModel(equipment().simulator, tmp_path / "state.json")  # type: ignore[arg-type]
    device = DomeDevice(model, IDENTITY)
    first = device.handle(encode("PLAY", 1))
    assert device.handle(encode("PLAY", 1)) == first and model.last == 1  # the bench's retry: same answer
    assert device.handle(encode("PLAY", 3))[0][1] == encode("NAK", "PLAY", "BAD_SEQUENCE") and model.last == 1
    assert device.handle(encode("PLAY", 2))[0][1] == encode("ACK", 2, "PLAY", 2)
    assert DomeModel(equipment().simulator, tmp_path / "state.json").tx == 2  # type: ignore[arg-type]


def test_the_dealers_rounds_are_awaited_without_an_actuator(opened: Any) -> None:
    device = opened(actuator=False, retries=0)
    with pytest.raises(NoActuator):
        device.dome.play_round()
    read = [device.dome.next_round() for _ in range(2)]
    assert [r.round for r in read] == [1, 2] and {r.mode for r in read} == {"DEALER"}
    assert read == expected(range(1, 3), actuator=False)


def test_garbled_frames_are_retried_and_never_become_a_round(opened: Any) -> None:
    device = opened(garble_rate=0.05, retries=10)
    assert [device.dome.next_round() for _ in range(6)] == expected(range(1, 7), garble_rate=0.05)
    assert device.dome.garbled_frames > 0  # the seed garbles some frames: each cost a repeat
    assert device.dome.last_round() == 6  # a garbled ACK of PLAY was asked again, never played twice
    device.dome.link.settings = dataclasses.replace(device.dome.link.settings, retries=0)
    device.dome.exchanges.garbled_frames = 0
    with pytest.raises(DeviceError, match="failed after 1 attempt"):
        for _ in range(20):  # without retries a garbled reply is reported, never guessed
            device.dome.read_round(1)
    assert device.dome.garbled_frames > 0


def test_a_damaged_and_silenced_line_is_retried(opened: Any) -> None:
    faults = {"seed": 5, "dropped_byte_rate": 0.02, "flipped_bit_rate": 0.02, "garbage_rate": 0.05,
              "disconnect_rate": 0.1, "disconnect_model": "silence", "disconnect_s": 0.2}
    device = opened(wire_faults=faults, retries=10)
    assert [device.dome.next_round() for _ in range(5)] == expected(range(1, 6), wire_faults=faults)
    assert device.dome.last_round() == 5


@pytest.mark.parametrize("model", ["lamp-manual", "short-shake", "zone-miswired", "sensor-misread"])
def test_each_fault_model_shows_in_the_rounds_log(model: str) -> None:
    """The same bytes the driver reads (the simulator's handler, in this process)."""
    options: dict[str, Any] = {"misread_rate": 0.5} if model == "sensor-misread" else {}
    device = DomeDevice(DomeModel(equipment(model=model, **options).simulator), IDENTITY)  # type: ignore[arg-type]
    rounds = []
    for number in range(1, 13):
        assert device.handle(encode("PLAY", number))[0][1] == encode("ACK", number, "PLAY", number)
        reader = RoundReader(number)
        for _, line in device.handle(encode("ROUND?", number)):
            result = reader.feed(decode(line))
        rounds.append(result)
    truth = {r.round: dome_dice(11, r.round) for r in rounds}
    if model == "lamp-manual":
        assert {r.lamp_by for r in rounds} == {"MANUAL"}
        assert all(r.lamp_after_third_stroke_ms >= 1500 for r in rounds)
    if model == "short-shake":
        assert {r.strokes_before_lamp for r in rounds} == {2}
    if model == "zone-miswired":
        swapped = {"dupla-4": "dupla-5", "dupla-5": "dupla-4"}
        assert all(set(r.zones) == {swapped.get(z, z) for z in winning_zones(truth[r.round])} for r in rounds)
        assert any(set(r.zones) != set(winning_zones(truth[r.round])) for r in rounds)  # seed 11 throws a double
    if model == "sensor-misread":  # the zones are those of what the sensor read: wrong in some rounds
        assert all(set(r.zones) == set(winning_zones(r.dice)) for r in rounds)
        assert 0 < sum(r.dice != truth[r.round] for r in rounds) < len(rounds)
    else:
        assert all(r.dice == truth[r.round] for r in rounds)
    if model in ("zone-miswired", "sensor-misread"):
        assert all(r.strokes_before_lamp == 3 and r.lamp_by == "AUTO" for r in rounds)


def test_the_simulated_camera_shows_the_dice_the_dome_threw(tmp_path: Path) -> None:
    """The camera reads the round from the dome's state file and renders :func:`dome_dice` of it; clean frames
    (nuisance none) so that every read is accepted."""
    item = equipment()
    state = tmp_path / "dome.sim-state.json"
    camera = open_dome_camera(item, state)
    for number in (1, 2, 3, 7):
        save_state(state, {"round": number, "tx": number, "tx_round": number})  # the dome played round ``number``
        throw = camera.next_throw()
        assert throw.accepted, throw.detail
        assert sorted(throw.faces) == sorted(dome_dice(11, number))
        assert throw.frames[0].truth is not None
    camera.close()


def test_the_simulated_camera_lays_the_dice_within_the_arena_its_profile_states(tmp_path: Path) -> None:
    """A dome camera whose profile states ``camera.arena_px`` (the dome's floor, as the reader is told it) shows the
    dice within it, and the rig's reader, told it too, reads them."""
    outline = ((300.0, 200.0), (600.0, 200.0), (600.0, 440.0), (300.0, 440.0))
    item = CussecDomeEquipment(kind="dice-shaker", identity={"manufacturer": "Acme", "model": "CD-3", "serial": "1"},
                               simulator={"seed": 11},
                               camera={"source": "sim", "simulation": {"nuisance": "none"},
                                       "arena_px": [list(corner) for corner in outline]})
    state = tmp_path / "dome.sim-state.json"
    camera = open_dome_camera(item, state)
    for number in (1, 2, 3):
        save_state(state, {"round": number, "tx": number, "tx_round": number})
        throw = camera.next_throw()
        assert throw.accepted, throw.detail
        assert sorted(throw.faces) == sorted(dome_dice(11, number))
        truth = throw.frames[0].truth
        corners = np.concatenate([np.asarray(die.corners_px) for die in truth.dice])
        assert corners[:, 0].min() >= 300 and corners[:, 0].max() <= 600
        assert corners[:, 1].min() >= 200 and corners[:, 1].max() <= 440
    camera.close()


def test_the_rig_builds_the_driver(tmp_path: Path) -> None:
    item = equipment()
    link = SerialLink(LinkSettings(port="loop://"), WireLog(tmp_path / "wire.jsonl"))
    driver = make_driver(item, link)
    assert isinstance(driver, SerialCussecDome) and driver.round_timeout_s == item.options.round_timeout_s


def test_the_profile_refuses_what_cannot_be(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a cussec zone"):
        equipment(model="zone-miswired", miswired_zone="dupla-7")
    with pytest.raises(ValueError, match="camera source 'sim' renders a simulated dome"):
        CussecDomeEquipment(kind="dice-shaker", identity={"manufacturer": "A", "model": "B", "serial": "C"},
                            connection={"port": "/dev/ttyUSB0"}, camera={"source": "sim"})
    with pytest.raises(ValueError, match="only be watched by camera source 'sim'"):
        CussecDomeEquipment(kind="dice-shaker", identity={"manufacturer": "A", "model": "B", "serial": "C"},
                            simulator={}, camera={"source": "0"})
