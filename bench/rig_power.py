"""The rig's power supplies: bring up the supply feeding a device, and power-cycle the device through it.

A profile's ``instruments`` may hold programmable DC power supplies
(:class:`bench.profiles.instruments.PowerSupplyInstrument`), each naming in ``powers`` the
equipment it feeds. Before the rig opens a fed device it brings up the device's supply: a
simulated supply's process is started (:mod:`drivers.sim.psu_server`; its output drives the
power rail file that the fed simulators read, :mod:`drivers.sim.power_rail`), a real supply is
reached on its VISA resource. Either way the real driver (:func:`drivers.instruments.open_instrument`)
checks the identity the profile gives, sets the profile's voltage and switches the output on,
each setting read back and checked against the supply's error queue.

A power cycle switches the output off and on and asks the device, through its own driver's
``identify``, whether it really went dark and came back
(:func:`drivers.instruments.checked_power_cycle`): a supply whose relay sticks says its output is
off while the device keeps answering, which only the device shows. Every device fed by the same
output is cycled with it, as on a bench.

Processes are started by the thread that calls the rig (the one that starts the device
simulators): ``PR_SET_PDEATHSIG`` kills a simulator when the *thread* that started it ends.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.profiles.base import Identity
from bench.profiles.instruments import PowerSupplyInstrument
from bench.profiles.model import Profile
from drivers.instruments import (
    InstrumentError,
    InstrumentIdentity,
    PowerCycleCheck,
    ScpiPowerSupply,
    checked_power_cycle,
    open_instrument,
    responds,
)
from drivers.serial_link import DeviceError
from drivers.sim.psu_server import PsuProcess, psu_simulator_config, start_psu_simulator

SIMULATED_SUPPLY_TIMEOUT_S = 2.0
SIMULATED_SUPPLY_RETRIES = 3


@dataclass
class RigSupply:
    """One opened power supply: its profile entry, driver, wire log, simulator and rail (each if any)."""

    name: str
    instrument: PowerSupplyInstrument
    driver: ScpiPowerSupply
    wire_log: Path
    simulator: PsuProcess | None
    rail: Path | None
    reported: InstrumentIdentity
    """What the supply's ``*IDN?`` reported when it was opened."""


class RigPower:
    """The profile's power supplies, opened on demand; closed by the rig's exit stack."""

    def __init__(self, profile: Profile, work_dir: Path, stack: ExitStack) -> None:
        self.profile = profile
        self.work_dir = Path(work_dir)
        self._stack = stack
        self._supplies: dict[str, RigSupply] = {}
        self.supplies = {name: instrument for name, instrument in profile.instruments.items()
                         if isinstance(instrument, PowerSupplyInstrument)}

    # -- which supply feeds what ---------------------------------------------------------------

    def supply_name_for(self, equipment: str) -> str | None:
        """The name of the supply feeding ``equipment``; ``None`` when none does. ValueError when several do."""
        feeding = [name for name, instrument in self.supplies.items() if equipment in instrument.powers]
        if len(feeding) > 1:
            raise ValueError(f"equipment {equipment!r} is fed by several power supplies ({', '.join(feeding)}): "
                             f"a power cycle through one of them would not cut its power")
        return feeding[0] if feeding else None

    def rail_path(self, supply: str) -> Path:
        """The power rail file of simulated supply ``supply`` (written by its simulator)."""
        return self.work_dir / f"{supply}.rail.json"

    def rail_for(self, equipment: str) -> Path | None:
        """The rail a simulated ``equipment`` must read: its supply's, when that supply is simulated."""
        name = self.supply_name_for(equipment)
        if name is None or self.supplies[name].simulator is None:
            return None
        return self.rail_path(name)

    # -- opening -------------------------------------------------------------------------------

    def supply(self, name: str) -> RigSupply:
        """The named supply, opened (simulator started, voltage set, output on) on first use."""
        if name not in self._supplies:
            if name not in self.supplies:
                raise KeyError(f"profile {self.profile.name!r} has no power supply named {name!r} "
                               f"(have: {', '.join(self.supplies) or 'none'})")
            self._supplies[name] = self._open(name, self.supplies[name])
        return self._supplies[name]

    def supply_for(self, equipment: str) -> RigSupply | None:
        """The opened supply feeding ``equipment``, ``None`` when no supply of the profile feeds it."""
        name = self.supply_name_for(equipment)
        return None if name is None else self.supply(name)

    def opened_supplies(self) -> list[RigSupply]:
        """Supplies opened so far, in opening order."""
        return list(self._supplies.values())

    def power_up(self, equipment: str) -> RigSupply | None:
        """Before ``equipment`` is opened: its supply opened and its output on (switched on again if a suite left
        it off). ``None`` when no supply feeds it."""
        name = self.supply_name_for(equipment)
        if name is None:
            return None
        opened = name in self._supplies
        supply = self.supply(name)
        if opened and not supply.driver.output_state():
            supply.driver.output(True)
        return supply

    def _open(self, name: str, instrument: PowerSupplyInstrument) -> RigSupply:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        simulator: PsuProcess | None = None
        rail: Path | None = None
        if instrument.simulator is not None:
            rail = self.rail_path(name)
            simulator = self._stack.enter_context(start_psu_simulator(
                psu_simulator_config(instrument, rail), self.work_dir / f"{name}.sim-state.json"))
            options: dict[str, Any] = {"backend": "@py", "timeout_s": SIMULATED_SUPPLY_TIMEOUT_S,
                                       "retries": SIMULATED_SUPPLY_RETRIES}
            resource = simulator.resource
        else:
            connection = instrument.connection
            assert connection is not None  # the profile model guarantees one or the other
            options = {"backend": connection.backend, "timeout_s": connection.timeout_s,
                       "retries": connection.retries}
            resource = connection.resource
        wire_log = self.work_dir / f"{name}.wire.jsonl"
        driver = open_instrument(resource, kind="power-supply", name=name, channel=instrument.channel,
                                 wire_log=wire_log, **options)
        assert isinstance(driver, ScpiPowerSupply)
        self._stack.callback(driver.close)
        reported = driver.identify()
        _check_identity(driver, instrument, reported)
        driver.set_voltage(instrument.voltage)
        driver.output(True)
        return RigSupply(name=name, instrument=instrument, driver=driver, wire_log=wire_log, simulator=simulator,
                         rail=rail, reported=reported)

    # -- power cycle ---------------------------------------------------------------------------

    def power_cycle(self, equipment: str, driver: object, off_s: float | None = None, *,
                    back_within_s: float = 10.0) -> PowerCycleCheck:
        """Cycle the output feeding ``equipment`` (off for ``off_s``, default the profile's ``off_s``) and check
        through ``driver.identify`` that the equipment went dark and came back; afterwards its driver works again
        (a link the cycle left closed is reopened, when the equipment is back).

        ``off_s`` is stretched to one ``identify`` of a dark device (the driver's timeout times its attempts)."""
        supply = self.supply_for(equipment)
        if supply is None:
            raise ValueError(f"no power supply of profile {self.profile.name!r} feeds {equipment!r}")
        identify: Callable[[], object] | None = getattr(driver, "identify", None)
        if identify is None:
            raise TypeError(f"the driver of {equipment!r} ({type(driver).__name__}) has no identify() to probe with")
        check = checked_power_cycle(supply.driver, off_s if off_s is not None else supply.instrument.off_s,
                                    responds(identify), back_within_s=back_within_s)
        _reopen_if_closed(driver)
        return check


class WrongInstrument(InstrumentError):
    """Another instrument answers on the resource than the one the profile names."""

    def __init__(self, instrument: str, mismatches: list[tuple[str, str, str]]) -> None:
        self.mismatches = mismatches
        """Each differing field of ``*IDN?``: (field, what the instrument reported, what the profile says)."""
        wrong = "; ".join(f"{field} {got!r}, the profile says {wanted!r}" for field, got, wanted in mismatches)
        super().__init__(instrument, "identify (*IDN?)", [f"another instrument answers: {wrong}"])


def identity_mismatches(expected: Identity | None, reported: InstrumentIdentity) -> list[tuple[str, str, str]]:
    """The fields of ``*IDN?`` where the instrument differs from the profile's ``identity`` (field, reported,
    expected); none when the profile gives no identity (the firmware is compared only when the profile gives one)."""
    if expected is None:
        return []
    wanted = {"manufacturer": expected.manufacturer, "model": expected.model, "serial": expected.serial}
    if expected.firmware:
        wanted["firmware"] = expected.firmware
    return [(field, getattr(reported, field), value) for field, value in wanted.items()
            if getattr(reported, field) != value]


def _check_identity(driver: ScpiPowerSupply, instrument: PowerSupplyInstrument, reported: InstrumentIdentity) -> None:
    """The supply on the resource must be the one the profile names (its ``identity``, when given)."""
    mismatches = identity_mismatches(instrument.identity, reported)
    if mismatches:
        raise WrongInstrument(driver.name, mismatches)


def _reopen_if_closed(driver: object) -> None:
    """Reopen a serial link the power cycle left closed (a USB adapter powered by the device disappears with it).
    A link that does not come back is left closed: the driver's next request tries again and reports."""
    link = getattr(driver, "link", None)
    if link is None or getattr(link, "is_open", True):
        return
    try:
        link.open()
    except DeviceError:
        pass
