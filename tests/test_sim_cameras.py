"""Simulated cameras and the camera-reading drivers: dice table and wheel camera (drivers/sim/*_camera.py,
drivers/dice_table.py, drivers/roulette_camera.py)."""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

import numpy as np
import pytest

from bench.profiles.camera import CameraSimulation
from bench.profiles.model import DiceOptions, DiceSimulator, RouletteSimulator
from drivers.dice_table import CameraDiceTable
from drivers.line_frame import DeviceIdentity
from drivers.roulette_camera import RouletteCamera
from drivers.sim.dice_camera import SimulatedDiceCamera, face_probabilities
from drivers.sim.roulette_wheel import WheelModel
from drivers.sim.wheel_camera import SimulatedWheelCamera
from vision.declines import Decline
from vision.dice_pipeline import StagedDiceReader
from vision.dice_staged_reader import staged_reader
from vision.roulette_calibration import calibrate_wheel

IDENTITY = DeviceIdentity("Bench Simulators", "Arena", "SIM-1", "")


def _table(tmp_path: Path, simulator: DiceSimulator, simulation: CameraSimulation | None = None) -> CameraDiceTable:
    camera = SimulatedDiceCamera(simulator, DiceOptions(), simulation, tmp_path / "dice.json")
    return CameraDiceTable(camera, IDENTITY, _reader().read)


@functools.cache
def _reader() -> StagedDiceReader:
    """The staged reader as the rig builds it for a banca francesa camera (three dice, the bench's own model)."""
    return staged_reader(expected_dice=3)


def test_loaded_face_probabilities() -> None:
    assert np.allclose(face_probabilities(DiceSimulator()), 1 / 6)
    loaded = face_probabilities(DiceSimulator(model="loaded", loaded_face=6, loaded_probability=0.25))
    assert loaded[5] == 0.25 and np.allclose(loaded[:5], 0.15) and abs(loaded.sum() - 1) < 1e-12


def test_the_dice_table_reads_what_the_dice_really_show(tmp_path: Path) -> None:
    """Clean frames: every accepted throw matches the physical draw; wrong reads are never tolerated."""
    table = _table(tmp_path, DiceSimulator(style="opaque-white"), CameraSimulation(nuisance="none"))
    accepted = 0
    for _ in range(12):
        throw = table.next_throw()
        if throw.accepted:
            accepted += 1
            assert sorted(throw.faces) == sorted(table.camera.physical_faces(throw.index))
            assert len(throw.frames) == 3 and all(frame.truth is not None for frame in throw.frames)
    assert accepted >= 9


def test_a_settled_frame_declined_unreadable_is_replaced_within_the_bound(tmp_path: Path) -> None:
    """The first settled frame of every throw declined unreadable (a reader abstaining): with one replacement the
    next settled frame votes in its place, the throw reads what the dice show and keeps the set-aside frame; with
    none, every throw is declined unreadable."""
    reader = _reader()

    def abstaining_first(state: dict[str, bool]) -> object:
        def read(image: np.ndarray) -> object:
            result = reader.read(image)
            if state["fresh"]:
                state["fresh"] = False
                return dataclasses.replace(result, decline=Decline.UNREADABLE, detail="abstained (test)")
            return result
        return read

    for replacements in (1, 0):
        state = {"fresh": True}
        camera = SimulatedDiceCamera(DiceSimulator(style="opaque-white"), DiceOptions(),
                                     CameraSimulation(nuisance="none"), tmp_path / f"dice-{replacements}.json",
                                     votes=3 + replacements)
        table = CameraDiceTable(camera, IDENTITY, abstaining_first(state), unreadable_replacements=replacements)
        throws = []
        for _ in range(4):
            state["fresh"] = True
            throws.append(table.next_throw())
        if replacements:
            accepted = [throw for throw in throws if throw.accepted]
            assert len(accepted) >= 3
            for throw in accepted:
                assert sorted(throw.faces) == sorted(camera.physical_faces(throw.index))
                assert len(throw.frames) == 3 and len(throw.replaced_frames) == 1
                assert throw.replaced_frames[0].index < throw.frames[0].index
                assert "set aside and replaced by the next settled frame: 1" in throw.detail
            assert "up to 1 settled frames declined unreadable" in table.voting
        else:
            assert all(throw.decline is Decline.UNREADABLE and not throw.replaced_frames for throw in throws)
            assert table.voting == "unanimous votes over 3 consecutive settled frames"


def test_a_cocked_die_is_declined_never_read(tmp_path: Path) -> None:
    table = _table(tmp_path, DiceSimulator(style="opaque-white"), CameraSimulation(nuisance="none", cocked_rate=0.999))
    throws = [table.next_throw() for _ in range(6)]
    assert not any(throw.accepted for throw in throws)
    assert sum(throw.decline is Decline.COCKED for throw in throws) >= 4


def test_the_camera_names_the_faults_it_injects_into_each_throw() -> None:
    """``injected_faults`` names the cocked and stacked dice of the throw last rendered, as its scene lays them (so
    a benchmark can count the throws a simulation spoils on purpose apart from the fair ones)."""
    camera = SimulatedDiceCamera(DiceSimulator(style="opaque-white"), DiceOptions(game="banca-francesa"),
                                 CameraSimulation(nuisance="none", cocked_rate=0.4, stacked_rate=0.4))
    seen = set()
    for _ in range(16):
        frame = camera.still_frame()
        poses = {die.pose for die in frame.truth.dice} - {"flat"}
        assert poses == set(camera.injected_faults), (camera.throw, poses, camera.injected_faults)
        seen.add(camera.injected_faults)
    assert {(), ("cocked",), ("stacked",)} <= seen


def test_the_throw_counter_survives_a_restart(tmp_path: Path) -> None:
    first = _table(tmp_path, DiceSimulator(), CameraSimulation(nuisance="none"))
    first.next_throw()
    first.next_throw()
    again = _table(tmp_path, DiceSimulator(), CameraSimulation(nuisance="none"))
    assert again.camera.throw == 2
    assert again.next_throw().index == 1  # the table counts its own throws; the camera continues the physics
    assert again.camera.throw == 3


def test_same_seed_same_frames(tmp_path: Path) -> None:
    a = SimulatedDiceCamera(DiceSimulator(), DiceOptions(), None)
    b = SimulatedDiceCamera(DiceSimulator(), DiceOptions(), None)
    assert [a.read().sha256 for _ in range(4)] == [b.read().sha256 for _ in range(4)]


def _throw_edges(camera: SimulatedDiceCamera, throws: int) -> list[float]:
    """The true edge (px, the median of the throw's dice) of each of ``throws`` throws' still frames."""
    edges = []
    while len(edges) < throws:
        frame = camera.read()
        if frame.truth is not None:
            edges.append(float(np.median([die.edge_px for die in frame.truth.dice])))
            camera._queue.clear()  # the next throw
    return edges


def test_a_camera_fixed_over_the_table_keeps_its_scale_and_a_moved_one_does_not() -> None:
    fixed = SimulatedDiceCamera(DiceSimulator(), DiceOptions(), CameraSimulation(nuisance="none", die_edge_px=44.0))
    edges = _throw_edges(fixed, 6)
    assert all(abs(edge - 44.0) < 0.05 * 44.0 for edge in edges)  # perspective alone moves it
    moved = _throw_edges(SimulatedDiceCamera(DiceSimulator(), DiceOptions(), CameraSimulation(nuisance="none")), 6)
    assert max(moved) - min(moved) > 5.0
    with pytest.raises(ValueError, match="die_edge_px"):
        CameraSimulation(die_edge_px=4.0)


def _wheel(tmp_path: Path, simulator: RouletteSimulator, simulation: CameraSimulation) -> tuple[WheelModel, RouletteCamera]:
    state = tmp_path / "wheel.json"
    state.write_text(json.dumps({"game": 0}))
    wheel = WheelModel(simulator, "french", state_file=state)
    camera = SimulatedWheelCamera(WheelModel(simulator, "french"), simulation, state)
    return wheel, RouletteCamera(camera, calibrate_wheel(camera.read().image, "french"))


def test_the_wheel_camera_sees_the_physical_pocket_even_when_the_sensor_lies(tmp_path: Path) -> None:
    wheel, camera = _wheel(tmp_path, RouletteSimulator(sensor_error_rate=0.5), CameraSimulation())
    lies = 0
    for _ in range(12):
        game, _, _ = wheel.play()
        read = camera.read_pocket()
        physical = wheel.physical_game(game)
        lies += physical.reported_number != physical.number
        assert read.accepted, read.detail
        assert read.number == physical.number
        assert len(read.frames) == 3 and len({frame.sha256 for frame in read.frames}) == 3  # fresh noise per frame
    assert lies >= 2


def test_a_ball_on_a_fret_or_hidden_is_declined(tmp_path: Path) -> None:
    wheel, camera = _wheel(tmp_path, RouletteSimulator(), CameraSimulation(fret_rate=0.5, hidden_rate=0.499))
    reasons = []
    for _ in range(8):
        wheel.play()
        read = camera.read_pocket()
        assert not read.accepted
        reasons.append(read.decline)
    assert set(reasons) <= {Decline.ON_FRET, Decline.HIDDEN} and len(set(reasons)) == 2


def test_a_filmed_launch_shows_the_physical_directions_then_the_ball_rests(tmp_path: Path) -> None:
    """The camera films the ball and rotor the wheel physically turned, also when its sensor reports otherwise."""
    simulator = RouletteSimulator(launch_fault="co-rotation-misreported")
    wheel, camera = _wheel(tmp_path, simulator, CameraSimulation())
    for _ in range(2):
        game, _, _ = wheel.play()
        physical = wheel.physical_game(game)
        assert physical.rotor is physical.ball and physical.reported_rotor is not physical.ball
        clip = camera.record_launch(8)
        assert clip.seen, clip.motion.detail
        assert (clip.motion.ball, clip.motion.rotor) == (physical.ball, physical.rotor)
        assert all(frame.truth.game == game for frame in clip.frames)
        assert not any(read.accepted for read in clip.reads)  # a running ball is never an outcome
        read = camera.read_pocket()  # the result is in: the ball rests in its pocket
        assert read.accepted and read.number == physical.number, read.detail
    with pytest.raises(ValueError, match="at least 2 frames"):
        camera.record_launch(1)
