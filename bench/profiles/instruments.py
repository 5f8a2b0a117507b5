"""Profile model of the bench's lab instruments, reached over VISA.

* :class:`PowerSupplyInstrument`: a programmable DC power supply (SCPI) feeding equipment under
  test, used to power-cycle it (``powers`` names that equipment). Real: a VISA resource opened
  with pyvisa-py (``@py``); simulated: a ``simulator`` table for :mod:`drivers.sim.psu_server`,
  whose output drives the power rail of the simulated devices it feeds.
* :class:`FrequencyCounterInstrument`: a frequency counter or optical tachometer reading the
  roulette rotor's speed (``MEAS:FREQ?``) from ``pulses_per_revolution`` marks on the rotor.
  Simulated: the pyvisa-sim description ``drivers/sim/instruments.yaml``.

The protocol is described in ``docs/protocols/scpi-instruments.md``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, PositiveFloat, PositiveInt, model_validator

from bench.profiles.base import Identity, SimulatorBase, Strict


class VisaConnection(Strict):
    """A VISA resource (``TCPIP::10.0.0.5::5025::SOCKET``, ``ASRL/dev/ttyUSB1::INSTR``, ``USB0::…::INSTR``).

    ``backend`` is the pyvisa backend: ``@py`` (pyvisa-py, the default), ``@sim`` or
    ``<path to a YAML description>@sim`` (pyvisa-sim), or ``@ivi`` for a vendor VISA library.
    """

    resource: str = Field(min_length=1)
    backend: str = "@py"
    timeout_s: PositiveFloat = 2.0
    retries: Annotated[int, Field(ge=0, le=10)] = 3


class PowerSupplySimulator(SimulatorBase):
    """The simulated power supply's model and faults (see :mod:`drivers.sim.psu_server`).

    The output feeds a resistive load of ``load_ohms`` (so ``MEAS:CURR?`` reads V/R while the
    output is on, 0 A when off); ``max_voltage`` is the settable range; ``output_at_power_on``
    is the output state when the supply starts (real supplies start with it off).

    Line faults are the ``wire_faults`` every simulator has (:class:`bench.profiles.base.WireFaults`),
    at most one per received line here, so their rates must add up to less than 1: ``garbage_rate``
    (random bytes before the reply), ``flipped_bit_rate``, ``dropped_byte_rate``, ``silent_rate``
    (the reply never comes), ``late_rate`` (the reply comes ``late_s`` seconds later),
    ``disconnect_rate`` (per received command: instead of acting on it the supply closes the
    connection, ``hangup``, or ignores everything for ``disconnect_s``, ``silence``).
    ``relay_fault = "sticky"``: the output relay does not open, so ``OUTP OFF`` is accepted and
    ``OUTP?`` then reads 0 while the rail stays powered; only the fed equipment shows it.
    """

    load_ohms: PositiveFloat = 40.0
    max_voltage: PositiveFloat = 30.0
    output_at_power_on: bool = False
    relay_fault: Literal["none", "sticky"] = "none"

    @model_validator(mode="after")
    def _rates_leave_room_for_good_replies(self) -> PowerSupplySimulator:
        total = self.wire_faults.total_rate
        if total >= 1.0:
            raise ValueError(f"wire_faults rates add up to {total:g}: they must leave some replies intact (sum < 1)")
        return self


class PowerSupplyInstrument(Strict):
    """A programmable DC power supply feeding equipment under test.

    Give ``connection`` for a real supply or ``simulator`` for a simulated one. ``channel`` selects
    the output of a multi-output supply (``INST:NSEL``; omit it for a single-output supply).
    ``voltage`` is the supply voltage of the fed equipment, ``powers`` the names of the profile's
    equipment it feeds, ``off_s`` how long a power cycle keeps the output off. ``identity``, when
    given, is what ``*IDN?`` must report (and what the simulator reports).
    """

    kind: Literal["power-supply"]
    identity: Identity | None = None
    connection: VisaConnection | None = None
    simulator: PowerSupplySimulator | None = None
    channel: Annotated[int, Field(ge=1, le=16)] | None = None
    voltage: Annotated[float, Field(gt=0.0, le=1000.0)] = 12.0
    powers: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list)
    off_s: Annotated[float, Field(gt=0.0, le=600.0)] = 2.0

    @model_validator(mode="after")
    def _one_source(self) -> PowerSupplyInstrument:
        _check_one_source(self.connection, self.simulator is not None)
        if self.simulator is not None and self.voltage > self.simulator.max_voltage:
            raise ValueError(f"voltage {self.voltage:g} V is above the simulated supply's max_voltage "
                             f"{self.simulator.max_voltage:g} V")
        if len(set(self.powers)) != len(self.powers):
            raise ValueError("powers lists the same equipment twice")
        return self


FREQUENCY_COUNTER_YAML = "drivers/sim/instruments.yaml"
"""The pyvisa-sim description of the simulated instruments (relative to the repository root)."""


class FrequencyCounterInstrument(Strict):
    """A frequency counter or optical tachometer reading a rotor's speed.

    Give ``connection`` for a real instrument or ``simulated = true`` for the pyvisa-sim tachometer
    (``drivers/sim/instruments.yaml``, resource ``simulated_resource``). ``pulses_per_revolution``
    is the number of marks (reflective strips, slots) the sensor sees per turn of the rotor;
    ``measures`` optionally names the equipment whose rotor it watches.
    """

    kind: Literal["frequency-counter"]
    identity: Identity | None = None
    connection: VisaConnection | None = None
    simulated: bool = False
    simulated_resource: str = "TCPIP0::192.168.0.40::INSTR"
    pulses_per_revolution: PositiveInt = 1
    measures: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> FrequencyCounterInstrument:
        _check_one_source(self.connection, self.simulated)
        return self


def _check_one_source(connection: VisaConnection | None, simulated: bool) -> None:
    if simulated and connection is not None:
        raise ValueError("give either connection.resource (real instrument) or a simulator, not both")
    if not simulated and connection is None:
        raise ValueError("needs connection.resource (real instrument) or a simulator (simulated instrument)")


Instrument = Annotated[PowerSupplyInstrument | FrequencyCounterInstrument, Field(discriminator="kind")]
"""One entry of a profile's ``instruments`` table."""
