"""The rig's cameras: a dice table's camera and reader, a roulette wheel's calibrated camera.

A simulated device is watched by a simulated camera that renders its physical state
(:mod:`drivers.sim.dice_camera`, :mod:`drivers.sim.wheel_camera`); a real device by the
camera source the profile names (:func:`drivers.camera.open_camera`). A real wheel's
camera needs the calibration file written by ``bench calibrate roulette``; a simulated
camera is calibrated from its first still. A dice camera reads with the reader its profile chooses
(``camera.dice_reader``: :mod:`bench.rig_dice_reader`); :func:`check_dice_readers` builds every one when the
profile is loaded for a run, so a reader configuration that cannot be used stops the run before it starts.
"""

from __future__ import annotations

from pathlib import Path

from bench.profiles import ProfileError
from bench.profiles.camera import CameraConnection
from bench.profiles.cussec_dome import CussecDomeEquipment
from bench.profiles.model import DiceTableEquipment, Profile, RouletteWheelEquipment
from bench.rig_dice_reader import ChosenDiceReader, RemovedDiceReader, choose_dice_reader
from drivers.camera import Camera, open_camera
from drivers.dice_table import CameraDiceTable
from drivers.line_frame import DeviceIdentity
from drivers.roulette_camera import RouletteCamera
from vision.dice_reader_settings import ReaderSettingsError
from vision.die_reader_model import ModelIntegrityError
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
                                             state_file, votes=frames_to_read(connection),
                                             target_marker_mm=connection.target_marker_mm,
                                             arena_px=connection.arena_px)
    else:
        camera = _real_camera(connection)
    return _dice_reading(camera, equipment)


def frames_to_read(connection: CameraConnection) -> int:
    """The settled frames a dice camera's throw may have read: its votes and the unreadable frames they may
    replace (a simulated camera renders that many still frames, and a few more, per throw)."""
    return connection.votes + connection.unreadable_replacements


def expected_dice(equipment: DiceTableEquipment | CussecDomeEquipment) -> int:
    """The dice in every frame of the equipment's camera: the game's dice per throw (a cussec dome's three)."""
    return 3 if isinstance(equipment, CussecDomeEquipment) else equipment.options.dice_per_throw


def dice_reader_of(equipment: DiceTableEquipment | CussecDomeEquipment) -> ChosenDiceReader:
    """The frame reader the equipment's camera profile chooses (:func:`bench.rig_dice_reader.choose_dice_reader`)."""
    return choose_dice_reader(equipment.camera, expected_dice(equipment))


def check_dice_readers(profile: Profile, origin: str) -> None:
    """Build the reader of every dice camera of ``profile`` (loaded from ``origin``, or read back from a journal
    to resume its run); a reader configuration that cannot be used (or whose model is missing or not the one its
    card vouches for), or the removed classical reader, raises :class:`bench.profiles.ProfileError` naming the
    profile file, the key and the configuration's own file and field."""
    problems = []
    for name, equipment in profile.equipment.items():
        if isinstance(equipment, DiceTableEquipment | CussecDomeEquipment):
            try:
                dice_reader_of(equipment)
            except (ReaderSettingsError, ModelIntegrityError, RemovedDiceReader) as error:
                problems.append(f"{origin}: key equipment.{name}.camera.dice_reader: {error}")
    if problems:
        raise ProfileError("\n".join(problems))


def open_dome_camera(equipment: CussecDomeEquipment, dome_state_file: Path) -> CameraDiceTable:
    """The camera over a cussec dome's glass dome and its reader of the three dice. A simulated dome is watched
    by a simulated camera that renders the dice the dome threw (it reads the round from the dome simulator's
    state file, ``dome_state_file``: the dome's physical state, :mod:`drivers.sim.dome_camera`)."""
    connection = equipment.camera
    if equipment.simulator is not None:
        from drivers.sim.dome_camera import SimulatedDomeCamera

        camera: Camera = SimulatedDomeCamera(equipment.simulator, dome_state_file, connection.simulation,
                                             votes=frames_to_read(connection),
                                             target_marker_mm=connection.target_marker_mm,
                                             arena_px=connection.arena_px)
    else:
        camera = _real_camera(connection)
    return _dice_reading(camera, equipment)


def _dice_reading(camera: Camera, equipment: DiceTableEquipment | CussecDomeEquipment) -> CameraDiceTable:
    """``camera`` with the reader the profile chooses for the equipment's dice, voting over the connection's
    frames, under the equipment's identity; the reader is named in every throw."""
    identity = equipment.identity
    reader = dice_reader_of(equipment)
    return CameraDiceTable(
        camera,
        DeviceIdentity(identity.manufacturer, identity.model, identity.serial, identity.firmware or ""),
        reader.read,
        reader_identity=reader.identity.to_json(),
        votes=equipment.camera.votes,
        unreadable_replacements=equipment.camera.unreadable_replacements,
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
