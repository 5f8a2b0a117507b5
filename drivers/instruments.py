"""Lab instruments over VISA: a programmable DC power supply and a frequency counter / optical tachometer.

Suites see only :class:`PowerSupply` and :class:`FrequencyCounter`. The SCPI implementations
talk through :class:`drivers.visa_link.VisaLink` (pyvisa with pyvisa-py on a lab PC; the PSU
simulator :mod:`drivers.sim.psu_server` on a loopback socket, or pyvisa-sim's YAML instruments,
in the simulated rig). The SCPI subset is in ``docs/protocols/scpi-instruments.md``.

Settings are verified twice: the SCPI error queue (``SYST:ERR?``) is read after each setting
command, and the setting is read back (a confirmed query) and compared; a refused command raises
:class:`InstrumentRefused`, a setting that does not take raises :class:`InstrumentError`.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from pyvisa.errors import VisaIOError

from drivers.line_frame import IDENTITY_FIELDS, DeviceIdentity
from drivers.serial_link import DeviceError, WireLog
from drivers.visa_link import (
    InstrumentError,
    InstrumentRefused,
    ReplyError,
    VisaLink,
    VisaSettings,
    parse_boolean,
    parse_error,
    parse_number,
    within,
)

T = TypeVar("T")

InstrumentIdentity = DeviceIdentity  # manufacturer, model, serial, firmware: the four fields of *IDN?

SIMULATED_INSTRUMENTS_YAML = Path(__file__).resolve().parent / "sim" / "instruments.yaml"
"""The pyvisa-sim description of the simulated stateless instruments (backend ``<this path>@sim``)."""

__all__ = [
    "FrequencyCounter",
    "InstrumentError",
    "InstrumentIdentity",
    "InstrumentRefused",
    "PowerCycleCheck",
    "PowerSupply",
    "ScpiFrequencyCounter",
    "ScpiPowerSupply",
    "checked_power_cycle",
    "open_instrument",
    "parse_idn",
    "responds",
    "rotor_rpm",
]


def parse_idn(text: str) -> InstrumentIdentity:
    """The ``*IDN?`` reply (IEEE 488.2 §10.14): ``<manufacturer>,<model>,<serial>,<firmware>``, four fields."""
    fields = [field.strip() for field in text.split(",")]
    if len(fields) != len(IDENTITY_FIELDS) or not all(fields[:2]) or any(not field.isprintable() for field in fields):
        raise ReplyError(f"*IDN? reply must be 4 printable comma-separated fields: {text!r}")
    return InstrumentIdentity(*fields)


# -- power supply --------------------------------------------------------------


class PowerSupply(ABC):
    """What a suite can ask of a programmable DC power supply feeding equipment under test."""

    @abstractmethod
    def identify(self) -> InstrumentIdentity:
        """The supply's ``*IDN?`` report."""

    @abstractmethod
    def output(self, on: bool) -> None:
        """Switch the output on or off (verified by reading it back)."""

    @abstractmethod
    def output_state(self) -> bool:
        """Whether the supply says its output is on."""

    @abstractmethod
    def set_voltage(self, volts: float) -> None:
        """Set the output voltage (verified by reading it back)."""

    @abstractmethod
    def voltage(self) -> float:
        """The voltage setting, in volts."""

    @abstractmethod
    def measure_current(self) -> float:
        """The measured output current, in amperes."""

    def power_cycle(self, off_s: float) -> None:
        """Output off, wait ``off_s`` seconds, output on."""
        if off_s <= 0:
            raise ValueError(f"off_s must be positive, got {off_s!r}")
        self.output(False)
        time.sleep(off_s)
        self.output(True)

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""


class ScpiPowerSupply(PowerSupply):
    """A power supply speaking SCPI (``*IDN?``, ``OUTP``, ``VOLT``, ``MEAS:CURR?``, ``SYST:ERR?``)."""

    def __init__(self, link: VisaLink, *, voltage_resolution_v: float = 0.001,
                 current_agreement: tuple[float, float] = (0.001, 0.02)) -> None:
        self.link = link
        self.voltage_resolution_v = voltage_resolution_v
        self._current_agree = within(*current_agreement)

    @property
    def name(self) -> str:
        return self.link.settings.label

    def identify(self) -> InstrumentIdentity:
        return self.link.query("*IDN?", parse_idn, what="identify", confirm=True)

    def output_state(self) -> bool:
        return self.link.query("OUTP?", parse_boolean, what="read the output state", confirm=True)

    def output(self, on: bool) -> None:
        self._set(f"OUTP {'ON' if on else 'OFF'}", "OUTP?", parse_boolean, lambda state: state is on,
                  what=f"switch the output {'on' if on else 'off'}")

    def voltage(self) -> float:
        return self.link.query("VOLT?", parse_number, what="read the voltage setting", confirm=True)

    def set_voltage(self, volts: float) -> None:
        if not volts >= 0.0:  # also rejects NaN
            raise ValueError(f"voltage must be a non-negative number of volts, got {volts!r}")
        tolerance = self.voltage_resolution_v / 2 + 1e-9
        self._set(f"VOLT {volts:.6g}", "VOLT?", parse_number, lambda read: abs(read - volts) <= tolerance,
                  what=f"set the voltage to {volts:g} V")

    def measure_current(self) -> float:
        # two readings must agree within (1 mA + 2 %): a corrupted digit cannot become the value
        return self.link.query("MEAS:CURR?", parse_number, what="measure the current", confirm=self._current_agree)

    def errors(self) -> list[tuple[int, str]]:
        """Empty the SCPI error queue (``SYST:ERR?`` until ``0,"No error"``; at most 20 entries)."""
        found: list[tuple[int, str]] = []
        for _ in range(20):
            code, message = self.link.query("SYST:ERR?", parse_error, what="read the error queue")
            if code == 0:
                return found
            found.append((code, message))
        return found

    def _set(self, command: str, readback: str, parse: Callable[[str], T], took: Callable[[T], bool], *,
             what: str) -> None:
        attempts: list[str] = []
        for _ in range(1 + self.link.settings.retries):
            try:
                if not self.link.is_open:
                    self.link.open()
                self.link.write(command)
            except InstrumentError as error:  # the (re)open failed: the next attempt opens again
                self.link.link_failures += 1
                attempts.append(str(error.attempts[-1]) if error.attempts else str(error))
                continue
            except (OSError, VisaIOError) as error:
                self.link.link_failures += 1
                attempts.append(f"link failure ({type(error).__name__}: {error})" + self.link.recover())
                continue
            refused = self.errors()
            if refused:
                raise InstrumentRefused(self.name, f"{what} ({command})", refused)
            value = self.link.query(readback, parse, what=f"read back after {command}", confirm=True)
            if took(value):
                return
            attempts.append(f"{readback} reads back {value!r}")
        raise InstrumentError(self.name, f"{what} ({command})", attempts)

    def close(self) -> None:
        self.link.close()


@dataclass(frozen=True)
class PowerCycleCheck:
    """What a power cycle did to the fed equipment, as seen through its own driver."""

    went_dark: bool
    """The equipment stopped answering while the output was off (it really lost power)."""
    came_back: bool
    """The equipment answered again after the output came back on."""

    @property
    def ok(self) -> bool:
        return self.went_dark and self.came_back


def checked_power_cycle(supply: PowerSupply, off_s: float, answers: Callable[[], bool], *,
                        back_within_s: float = 10.0, poll_s: float = 0.1) -> PowerCycleCheck:
    """Power-cycle ``supply`` and check, through ``answers`` (True when the equipment answered a request),
    that the equipment went dark while off and answers again once on.

    A supply whose output relay sticks reports its output off while the equipment keeps its power:
    only the equipment shows it, which is why this check asks it. ``off_s`` must be long enough for
    one ``answers()`` call (its driver's timeout times its attempts).
    """
    if off_s <= 0:
        raise ValueError(f"off_s must be positive, got {off_s!r}")
    supply.output(False)
    switched_off = time.monotonic()
    went_dark = not answers()
    time.sleep(max(0.0, off_s - (time.monotonic() - switched_off)))
    supply.output(True)
    deadline = time.monotonic() + back_within_s
    came_back = answers()
    while not came_back and time.monotonic() < deadline:
        time.sleep(poll_s)
        came_back = answers()
    return PowerCycleCheck(went_dark=went_dark, came_back=came_back)


def responds(request: Callable[[], Any]) -> Callable[[], bool]:
    """An ``answers`` probe for :func:`checked_power_cycle`: True when ``request()`` returns, False on DeviceError."""

    def probe() -> bool:
        try:
            request()
        except DeviceError:
            return False
        return True

    return probe


# -- frequency counter / tachometer ------------------------------------------------


def rotor_rpm(frequency_hz: float, pulses_per_revolution: int) -> float:
    """Rotor speed in revolutions per minute from the pulse frequency a sensor sees: 60 f / n."""
    if pulses_per_revolution < 1:
        raise ValueError(f"pulses_per_revolution must be at least 1, got {pulses_per_revolution!r}")
    if not frequency_hz >= 0.0:
        raise ValueError(f"frequency must be a non-negative number of hertz, got {frequency_hz!r}")
    return 60.0 * frequency_hz / pulses_per_revolution


class FrequencyCounter(ABC):
    """What a suite can ask of a frequency counter or optical tachometer."""

    @abstractmethod
    def identify(self) -> InstrumentIdentity:
        """The instrument's ``*IDN?`` report."""

    @abstractmethod
    def measure_frequency(self) -> float:
        """One frequency measurement, in hertz."""

    def rotor_rpm(self, pulses_per_revolution: int) -> float:
        """One rotor-speed measurement in rpm, for a rotor carrying ``pulses_per_revolution`` marks."""
        return rotor_rpm(self.measure_frequency(), pulses_per_revolution)

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""


class ScpiFrequencyCounter(FrequencyCounter):
    """A counter speaking SCPI (``*IDN?``, ``MEAS:FREQ?``)."""

    def __init__(self, link: VisaLink, *, max_frequency_hz: float = 1e9, agreement: float = 0.02) -> None:
        self.link = link
        self.max_frequency_hz = max_frequency_hz
        self._agree = within(0.0, agreement)

    def identify(self) -> InstrumentIdentity:
        return self.link.query("*IDN?", parse_idn, what="identify", confirm=True)

    def _parse_frequency(self, text: str) -> float:
        value = parse_number(text)
        if not 0.0 <= value <= self.max_frequency_hz:
            raise ReplyError(f"frequency {value!r} Hz is outside 0 … {self.max_frequency_hz:g} Hz")
        return value

    def measure_frequency(self) -> float:
        # two readings must agree within ``agreement`` (relative): a rotor slows slowly, a corrupted digit does not
        return self.link.query("MEAS:FREQ?", self._parse_frequency, what="measure the frequency", confirm=self._agree)

    def close(self) -> None:
        self.link.close()


# -- opening ------------------------------------------------------------------


def open_instrument(
    resource: str,
    *,
    kind: Literal["power-supply", "frequency-counter"],
    backend: str = "@py",
    timeout_s: float = 2.0,
    retries: int = 3,
    name: str | None = None,
    channel: int | None = None,
    wire_log: WireLog | Path | None = None,
) -> ScpiPowerSupply | ScpiFrequencyCounter:
    """Open an SCPI instrument and return its driver.

    ``backend``: ``@py`` (pyvisa-py), ``@sim`` (pyvisa-sim's default instruments) or
    ``<yaml path>@sim``. ``channel`` selects an output of a multi-output supply (``INST:NSEL``,
    sent again after each reconnect). The link opens at once (bounded attempts); the error queue
    is cleared (``*CLS``) on every (re)connection.
    """
    if kind not in ("power-supply", "frequency-counter"):
        raise ValueError(f"unknown instrument kind {kind!r} (have: power-supply, frequency-counter)")
    if channel is not None and kind != "power-supply":
        raise ValueError("channel applies to a power supply only")
    setup = ["*CLS"] + ([f"INST:NSEL {channel}"] if channel is not None else [])
    log = wire_log if isinstance(wire_log, WireLog) else WireLog(wire_log)
    settings = VisaSettings(resource=resource, backend=backend, timeout_s=timeout_s, retries=retries,
                            name=name or kind)
    link = VisaLink(settings, log, setup_commands=setup)
    link.open()
    return ScpiPowerSupply(link) if kind == "power-supply" else ScpiFrequencyCounter(link)
