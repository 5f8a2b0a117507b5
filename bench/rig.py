"""The rig: the drivers of every piece of equipment a profile names.

Profile → rig → suites: the rig starts a simulator for each simulated device,
opens each device's real driver on its connection (the simulator's tty for
simulated devices), and closes everything, simulators included, on exit.
A device fed by one of the profile's power supplies is opened after its supply
is up and its output on (:mod:`bench.rig_power`); suites power-cycle it with
:meth:`Rig.power_cycle`.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Self

from bench.profiles.cussec_dome import CussecDomeEquipment
from bench.profiles.gaming_table import GamingTableEquipment
from bench.profiles.jackpot import JackpotEquipment
from bench.profiles.model import DiceTableEquipment, Equipment, Profile, RngEquipment, RouletteWheelEquipment
from bench.profiles.progressive import ProgressiveControllerEquipment
from bench.profiles.shuffler import ShufflerEquipment
from bench.profiles.slot import SlotMachineEquipment
from bench.rig_cameras import open_dice_table, open_dome_camera, open_wheel_camera
from bench.rig_power import RigPower, RigSupply
from bench.rig_progressive import progressive_config
from drivers.cussec_dome import CussecDome, SerialCussecDome
from drivers.dice_table import CameraDiceTable, DiceTable
from drivers.gaming_table import GamingTable, SerialGamingTable
from drivers.instruments import PowerCycleCheck, PowerSupply
from drivers.jackpot import JackpotController, make_jackpot_controller
from drivers.rng_source import RngSource, SerialRngSource
from drivers.roulette import RouletteWheel, SerialRouletteWheel
from drivers.roulette_camera import RouletteCamera
from drivers.sas import SasSlotMachine, SlotMachine
from drivers.sas_progressive import SasProgressiveListener
from drivers.sas_transport import make_transport
from drivers.serial_link import LinkSettings, SerialLink, WireLog
from drivers.shuffler import CardShuffler, make_shuffler
from drivers.sim.host import SimulatorProcess, start_simulator


def simulator_config(equipment: Equipment) -> dict[str, object]:
    """What a simulator process needs from the profile: its model, the identity to report, the layout."""
    assert equipment.simulator is not None
    config: dict[str, object] = {
        "simulator": equipment.simulator.model_dump(),
        "identity": equipment.identity.model_dump(exclude_none=True) | {"firmware": equipment.identity.firmware or "sim-1.0"},
    }
    if isinstance(equipment, RouletteWheelEquipment):
        config["layout"] = equipment.options.layout
    return config


Driver = (RouletteWheel | RngSource | CardShuffler | SlotMachine | JackpotController | GamingTable
          | SasProgressiveListener | CussecDome)


def make_driver(equipment: Equipment, link: SerialLink) -> Driver:
    """The driver of the equipment's kind on an opened link."""
    if isinstance(equipment, RouletteWheelEquipment):
        return SerialRouletteWheel(link, spin_timeout_s=equipment.options.spin_timeout_s)
    if isinstance(equipment, RngEquipment):
        return SerialRngSource(link)
    if isinstance(equipment, ShufflerEquipment):
        return make_shuffler(equipment.options.protocol, link, shuffle_timeout_s=equipment.options.shuffle_timeout_s,
                             deal_timeout_s=equipment.options.deal_timeout_s)
    if isinstance(equipment, JackpotEquipment):
        return make_jackpot_controller(equipment.options.protocol, link)
    if isinstance(equipment, GamingTableEquipment):
        return SerialGamingTable(link, round_timeout_s=equipment.options.round_timeout_s)
    if isinstance(equipment, ProgressiveControllerEquipment):  # a progressive link: the bench only listens
        return SasProgressiveListener(link, equipment.framing, group=equipment.options.group)
    if isinstance(equipment, SlotMachineEquipment):
        options = equipment.options
        return SasSlotMachine(link, make_transport(equipment.framing, link), address=options.address,
                              link_down_polls=options.link_down_polls, link_down_s=options.link_down_s)
    if isinstance(equipment, CussecDomeEquipment):  # the dome's controller; the camera over it is opened beside it
        return SerialCussecDome(link, round_timeout_s=equipment.options.round_timeout_s)
    raise TypeError(f"no driver for equipment kind {equipment.kind!r}")


@dataclass
class RigDevice:
    """One opened device: its profile entry, driver, wire log, simulator and camera (each if any)."""

    name: str
    equipment: Equipment
    driver: Driver | DiceTable
    wire_log: Path | None
    simulator: SimulatorProcess | None
    camera: RouletteCamera | CameraDiceTable | None = None


class Rig:
    """Opens devices on demand and closes them all at the end."""

    def __init__(self, profile: Profile, work_dir: Path, *, cameras: bool = True) -> None:
        """``cameras``: open the camera beside a device on a data line (a wheel's, a dome's) with the device;
        without, :meth:`open_camera` opens it on its own (``bench doctor`` checks the two apart)."""
        self.profile = profile
        self.work_dir = Path(work_dir)
        self.cameras = cameras
        self._devices: dict[str, RigDevice] = {}
        self._stack = ExitStack()
        self.power = RigPower(profile, self.work_dir, self._stack)

    def device(self, name: str) -> RigDevice:
        """The named device, opened (and its simulator started) on first use."""
        if name not in self._devices:
            if name not in self.profile.equipment:
                raise KeyError(f"profile {self.profile.name!r} has no equipment named {name!r}")
            self._devices[name] = self._open(name, self.profile.equipment[name])
        return self._devices[name]

    def opened_devices(self) -> list[RigDevice]:
        """Devices opened so far, in opening order."""
        return list(self._devices.values())

    def names_of_kind(self, kind: str) -> list[str]:
        return list(self.profile.of_kind(kind))

    def power_supply_for(self, name: str) -> PowerSupply:
        """The (opened) power supply feeding the named device; KeyError when no supply of the profile feeds it."""
        supply = self.power.supply_for(name)
        if supply is None:
            raise KeyError(f"no power supply of profile {self.profile.name!r} feeds {name!r}")
        return supply.driver

    def power_cycle(self, name: str, off_s: float | None = None, *, back_within_s: float = 10.0) -> PowerCycleCheck:
        """Power-cycle the named device through its supply, checked through the device's own driver."""
        device = self.device(name)
        return self.power.power_cycle(name, device.driver, off_s, back_within_s=back_within_s)

    def opened_supplies(self) -> list[RigSupply]:
        """Power supplies opened so far (each with its reported identity and wire log)."""
        return self.power.opened_supplies()

    def state_file(self, name: str) -> Path:
        """The state file (non-volatile memory) of the named device's simulator, which its simulated camera reads."""
        return self.work_dir / f"{name}.sim-state.json"

    def open_camera(self, name: str) -> RouletteCamera | CameraDiceTable | None:
        """The camera watching the named device, opened (and closed with the rig); ``None`` when it has none.
        A dice table's camera and reader are the table itself."""
        equipment = self.profile.equipment[name]
        self.work_dir.mkdir(parents=True, exist_ok=True)
        camera: RouletteCamera | CameraDiceTable | None = None
        if isinstance(equipment, DiceTableEquipment):
            camera = open_dice_table(equipment, self.work_dir / f"{name}.camera-state.json")
        elif isinstance(equipment, RouletteWheelEquipment) and equipment.camera is not None:
            camera = open_wheel_camera(equipment, self.state_file(name))
        elif isinstance(equipment, CussecDomeEquipment):  # the camera over the glass dome reads the dice
            camera = open_dome_camera(equipment, self.state_file(name))
        if camera is not None:
            self._stack.callback(camera.close)
        return camera

    def _open(self, name: str, equipment: Equipment) -> RigDevice:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.power.power_up(name)  # the supply feeding the device first, its output on
        if isinstance(equipment, DiceTableEquipment):
            table = self.open_camera(name)
            assert isinstance(table, CameraDiceTable)
            return RigDevice(name=name, equipment=equipment, driver=table, wire_log=None, simulator=None)
        simulator = None
        connection = equipment.connection
        if equipment.simulator is not None:
            config = simulator_config(equipment)
            rail = self.power.rail_for(name)
            if rail is not None:
                config["power_rail"] = str(rail)
            if isinstance(equipment, ProgressiveControllerEquipment):  # it reads its linked machines' meters
                config |= progressive_config(equipment, self.profile, self.state_file)
            simulator = self._stack.enter_context(start_simulator(equipment.kind, config, self.state_file(name)))
            port = simulator.tty_path
        else:
            assert connection is not None  # the profile model guarantees one or the other
            port = connection.port
        settings = LinkSettings(
            port=port,
            baudrate=connection.baudrate if connection else 9600,
            bytesize=connection.bytesize if connection else 8,
            parity=connection.parity if connection else "N",
            stopbits=connection.stopbits if connection else 1,
            timeout_s=connection.timeout_s if connection else 2.0,
            retries=connection.retries if connection else 3,
        )
        wire_log = self.work_dir / f"{name}.wire.jsonl"
        link = SerialLink(settings, WireLog(wire_log))
        link.open()
        self._stack.callback(link.close)
        driver = make_driver(equipment, link)
        camera = self.open_camera(name) if self.cameras else None
        return RigDevice(name=name, equipment=equipment, driver=driver, wire_log=wire_log, simulator=simulator,
                         camera=camera)

    def close(self) -> None:
        self._stack.close()
        self._devices.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
