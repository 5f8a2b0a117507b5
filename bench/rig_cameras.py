"""The rig's cameras: a dice table's camera and reader, a roulette wheel's calibrated camera.

A simulated device is watched by a simulated camera that renders its physical state
(:mod:`drivers.sim.dice_camera`, :mod:`drivers.sim.wheel_camera`); a real device by the
camera source the profile names (:func:`drivers.camera.open_camera`). A real wheel's
camera needs the calibration file written by ``bench calibrate roulette``; a simulated
camera is calibrated from its first still.
"""

from __future__ import annotations

from pathlib import Path

from bench.profiles.camera import CameraConnection
from bench.profiles.cussec_dome import CussecDomeEquipment
from bench.profiles.model import DiceTableEquipment, RouletteWheelEquipment
from drivers.camera import Camera, open_camera
from drivers.dice_table import CameraDiceTable
from drivers.line_frame import DeviceIdentity
from drivers.roulette_camera import RouletteCamera
from vision.dice import DiceReaderConfig
from vision.roulette_calibration import WheelCalibration, calibrate_wheel


def _real_camera(connection: CameraConnection) -> Camera:
    options: dict[str, object] = {}
    if not Path(connection.source).is_dir():
        options = {"width": connection.width, "height": connection.height, "timeout_s": connection.timeout_s,
                   "retries": connection.retries}
    return open_camera(connection.source, **options)


def open_dice_table(equipment: DiceTableEquipment, state_file: Path) -> CameraDiceTable:
    """The dice table's camera and reader (the game's dice per throw are expected in every frame)."""
    connection = equipment.camera
    if equipment.simulator is not None:
        from drivers.sim.dice_camera import SimulatedDiceCamera

        camera: Camera = SimulatedDiceCamera(equipment.simulator, equipment.options, connection.simulation,
                                             state_file, votes=connection.votes,
                                             target_marker_mm=connection.target_marker_mm)
    else:
        camera = _real_camera(connection)
    return _dice_reading(camera, equipment, equipment.options.dice_per_throw, _height_in_edges(equipment))


def _height_in_edges(equipment: DiceTableEquipment) -> float | None:
    """The camera's height over the table in die edges (:attr:`vision.dice.DiceReaderConfig.camera_height_edges`):
    the connection's ``camera_height_mm`` over the die's edge (the simulated dice's, else the middle of the game's
    allowed range); ``None`` when the height is not given."""
    height = equipment.camera.camera_height_mm
    if height is None:
        return None
    low, high = equipment.options.edge_limits_mm
    simulated = equipment.simulator.edge_mm if equipment.simulator is not None else None
    return height / (simulated or (low + high) / 2)


def open_dome_camera(equipment: CussecDomeEquipment, dome_state_file: Path) -> CameraDiceTable:
    """The camera over a cussec dome's glass dome and its reader of the three dice. A simulated dome is watched
    by a simulated camera that renders the dice the dome threw (it reads the round from the dome simulator's
    state file, ``dome_state_file``: the dome's physical state, :mod:`drivers.sim.dome_camera`)."""
    connection = equipment.camera
    if equipment.simulator is not None:
        from drivers.sim.dome_camera import SimulatedDomeCamera

        camera: Camera = SimulatedDomeCamera(equipment.simulator, dome_state_file, connection.simulation,
                                             votes=connection.votes, target_marker_mm=connection.target_marker_mm)
    else:
        camera = _real_camera(connection)
    return _dice_reading(camera, equipment, 3)


def _dice_reading(camera: Camera, equipment: DiceTableEquipment | CussecDomeEquipment,
                  expected_dice: int, camera_height_edges: float | None = None) -> CameraDiceTable:
    """``camera`` with the reader of ``expected_dice`` dice per frame (told the camera's height in die edges when
    known), voting over the connection's frames, under the equipment's identity."""
    identity = equipment.identity
    return CameraDiceTable(
        camera,
        DeviceIdentity(identity.manufacturer, identity.model, identity.serial, identity.firmware or ""),
        DiceReaderConfig(expected_dice=expected_dice, camera_height_edges=camera_height_edges),
        votes=equipment.camera.votes,
    )


def open_wheel_camera(equipment: RouletteWheelEquipment, wheel_state_file: Path) -> RouletteCamera:
    """The wheel's camera, calibrated: from the profile's calibration file, or from a simulated camera's still."""
    connection = equipment.camera
    assert connection is not None
    if equipment.simulator is not None:
        from drivers.sim.roulette_wheel import WheelModel
        from drivers.sim.wheel_camera import SimulatedWheelCamera

        simulator = equipment.simulator
        camera: Camera = SimulatedWheelCamera(
            WheelModel(simulator, equipment.options.layout), connection.simulation, wheel_state_file,
            ball_diameter_mm=simulator.ball_diameter_mm, wheel_diameter_mm=simulator.wheel_diameter_mm,
        )
        calibration = calibrate_wheel(camera.read().image, equipment.options.layout)
    else:
        if connection.calibration is None:
            raise ValueError("a real wheel camera needs camera.calibration: run 'bench calibrate roulette' first")
        camera = _real_camera(connection)
        calibration = WheelCalibration.load(connection.calibration)
    return RouletteCamera(camera, calibration, votes=connection.votes)
