"""VISA foundation shared by the SCPI instrument drivers (pyvisa with pyvisa-py, or pyvisa-sim).

* Opens a VISA resource (``TCPIP::host::port::SOCKET``, ``ASRL…::INSTR``, ``USB…::INSTR``) with a
  chosen backend (``@py``, ``@sim``, ``<yaml>@sim``, ``@ivi``), with bounded attempts.
* Every command and reply is logged, with its time and direction, to the same JSON-lines wire
  log as the serial drivers (:class:`drivers.serial_link.WireLog`).
* A query whose reply is late, lost or does not parse is retried a bounded number of times;
  a timeout or link failure costs a reconnect (so a late reply cannot be taken for the answer
  to the next query); then :class:`InstrumentError` names the instrument, the command and every
  attempt's reason. A reply is never guessed.
* SCPI replies carry no checksum. A query of a state that does not change between two reads
  (``*IDN?``, ``VOLT?``, ``OUTP?``) can be *confirmed*: it is repeated until two well-formed
  replies agree, so one corrupted reply that still parses cannot become the value. A measurement
  (``MEAS:CURR?``) is confirmed by two readings that agree within the instrument's noise: a
  corruption that moves the value by less than that is inside the measurement's own uncertainty.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Self, TypeVar

import pyvisa
from pyvisa import constants
from pyvisa.errors import VisaIOError

from drivers.serial_link import DeviceError, WireLog

T = TypeVar("T")


class InstrumentError(DeviceError):
    """An instrument did not give a valid answer to a command within the allowed attempts."""

    def __init__(self, instrument: str, command: str, attempts: list[str]) -> None:
        self.instrument = instrument
        self.command = command
        super().__init__(instrument, repr(command), attempts)


class InstrumentRefused(InstrumentError):
    """The instrument answered, and its SCPI error queue says it refused the command."""

    def __init__(self, instrument: str, command: str, errors: list[tuple[int, str]]) -> None:
        self.errors = errors
        super().__init__(instrument, command, [f"instrument reports error {code}, {message!r}" for code, message in errors])


class ReplyError(ValueError):
    """A reply does not parse (garbage, a corrupted number, a wrong token)."""


@dataclass(frozen=True)
class VisaSettings:
    """How to open and talk to a VISA instrument."""

    resource: str
    backend: str = "@py"
    timeout_s: float = 2.0
    retries: int = 3
    name: str = "instrument"
    open_attempts: int = 3
    open_backoff_s: float = 0.2
    termination: str = "\n"

    def __post_init__(self) -> None:
        if not self.resource:
            raise ValueError("VISA resource must not be empty")
        if self.timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {self.timeout_s!r}")
        if self.retries < 0:
            raise ValueError(f"retries must be >= 0, got {self.retries!r}")

    @property
    def label(self) -> str:
        """The instrument as error messages name it: ``psu (TCPIP::127.0.0.1::5025::SOCKET)``."""
        return f"{self.name} ({self.resource})"


class VisaLink:
    """A message-based VISA session with bounded timeouts, retries, reconnects and a wire log.

    Counters for the evidence: ``garbled_replies`` (replies that did not parse), ``timeouts``
    (no complete reply in time), ``link_failures``, ``reconnects``, ``disagreements`` (two
    well-formed replies to a confirmed query that differ).
    """

    def __init__(self, settings: VisaSettings, wire_log: WireLog | None = None,
                 setup_commands: Sequence[str] = ()) -> None:
        self.settings = settings
        self.wire_log = wire_log or WireLog()
        self.setup_commands = tuple(setup_commands)
        self._manager: pyvisa.ResourceManager | None = None
        self._resource: pyvisa.resources.MessageBasedResource | None = None
        self.garbled_replies = 0
        self.timeouts = 0
        self.link_failures = 0
        self.reconnects = 0
        self.disagreements = 0

    # -- connection ---------------------------------------------------------

    def open(self) -> None:
        """Open the resource (bounded attempts) and send the setup commands (e.g. select a channel)."""
        reasons: list[str] = []
        for attempt in range(self.settings.open_attempts):
            try:
                if self._manager is None:
                    self._manager = pyvisa.ResourceManager(self.settings.backend)
                resource = self._manager.open_resource(
                    self.settings.resource,
                    timeout=int(self.settings.timeout_s * 1000),
                    read_termination=self.settings.termination,
                    write_termination=self.settings.termination,
                )
                self._resource = resource  # type: ignore[assignment]
                _no_delay(resource)
                self.wire_log.record("event", b"", note=f"opened {self.settings.resource} ({self.settings.backend})")
                for command in self.setup_commands:
                    self.write(command)
                return
            except Exception as error:  # noqa: BLE001 - backends raise plain Exception on a refused connection
                reasons.append(f"{type(error).__name__}: {error}")
                self._drop_resource()
                if attempt + 1 < self.settings.open_attempts:
                    time.sleep(self.settings.open_backoff_s * (attempt + 1))
        raise InstrumentError(self.settings.label, "open", reasons)

    def _drop_resource(self) -> None:
        if self._resource is not None:
            try:
                self._resource.close()
            except Exception:  # noqa: BLE001, S110 - the session is already broken; closing is best effort
                pass
            self._resource = None

    def close(self) -> None:
        if self._resource is not None:
            self._drop_resource()
            self.wire_log.record("event", b"", note="closed")
        if self._manager is not None:
            try:
                self._manager.close()
            except Exception:  # noqa: BLE001, S110 - best effort at shutdown
                pass
            self._manager = None

    def reconnect(self) -> None:
        """Drop the session (and whatever late bytes it holds) and open a new one."""
        self.reconnects += 1
        self.wire_log.record("event", b"", note="reconnecting")
        self._drop_resource()
        self.open()

    @property
    def is_open(self) -> bool:
        return self._resource is not None

    def __enter__(self) -> Self:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- messages -----------------------------------------------------------

    def write(self, command: str) -> None:
        """Send one command line (no reply expected). Link failures propagate (OSError, VisaIOError)."""
        if self._resource is None:
            raise OSError(f"{self.settings.label} is not open")
        data = (command + self.settings.termination).encode("ascii")
        self.wire_log.record("tx", data)
        self._resource.write_raw(data)

    def _read(self) -> bytes:
        if self._resource is None:
            raise OSError(f"{self.settings.label} is not open")
        data = self._resource.read_raw()
        self.wire_log.record("rx", data)
        return data

    def recover(self) -> str:
        """Reconnect after a failed exchange; ``""``, or the reason the reconnect failed (to add to the attempt's)."""
        try:
            self.reconnect()
        except InstrumentError as error:
            return f"; reconnect failed ({error.attempts[-1] if error.attempts else error})"
        return ""

    def query(self, command: str, parse: Callable[[str], T], *, what: str,
              confirm: bool | Callable[[T, T], bool] = False) -> T:
        """Send ``command`` and return ``parse`` of its reply (terminator stripped).

        ``parse`` raises :class:`ReplyError` for a reply that does not parse: that costs an
        attempt (counted in ``garbled_replies``), as do a timeout and a link failure (followed by
        a reconnect). With ``confirm`` the value is returned only once two well-formed replies
        agree (``confirm=True``: are equal; a function ``agree(first, second)``: e.g. two
        measurements within the instrument's noise, and then the second is returned), which takes
        one more attempt than without. After ``1 + retries`` attempts (``2 + retries`` when
        confirming) :class:`InstrumentError` is raised.
        """
        agree: Callable[[T, T], bool] | None = (
            (lambda first, second: first == second) if confirm is True else confirm or None
        )
        attempts: list[str] = []
        allowed = 1 + self.settings.retries + (1 if agree else 0)
        candidate: list[T] = []
        for _ in range(allowed):
            try:
                if not self.is_open:
                    self.open()
                self.write(command)
                raw = self._read()
            except VisaIOError as error:
                if error.error_code == constants.StatusCode.error_timeout:
                    self.timeouts += 1
                    reason = f"no reply within {self.settings.timeout_s:g} s"
                else:
                    self.link_failures += 1
                    reason = f"link failure ({error})"
                attempts.append(reason + self.recover())
                continue
            except InstrumentError as error:  # the (re)open itself failed: the next attempt opens again
                self.link_failures += 1
                attempts.append(_describe(error))
                continue
            except OSError as error:
                self.link_failures += 1
                attempts.append(f"link failure ({_describe(error)})" + self.recover())
                continue
            try:
                text = raw.decode("ascii")
                if not text.endswith(self.settings.termination):
                    raise ReplyError("reply lacks its terminator")
                value = parse(text[: -len(self.settings.termination)].rstrip("\r"))
            except (UnicodeDecodeError, ReplyError) as error:
                self.garbled_replies += 1
                attempts.append(f"reply does not parse ({error}; raw {raw!r})")
                continue
            if agree is None or (candidate and agree(candidate[0], value)):
                return value
            if candidate:
                self.disagreements += 1
                attempts.append(f"replies disagree ({candidate[0]!r} then {value!r})")
            candidate[:] = [value]
        raise InstrumentError(self.settings.label, f"{what} ({command})", attempts)


def _no_delay(resource: object) -> None:
    """Best effort: TCP_NODELAY on a pyvisa-py socket session. A setting command followed by ``SYST:ERR?`` is two
    small writes; without it Nagle's algorithm and the peer's delayed ACK hold the second back about 40 ms.
    (pyvisa refuses ``VI_ATTR_TCPIP_NODELAY`` on SOCKET resources, so the socket is reached directly.)"""
    sessions = getattr(getattr(resource, "visalib", None), "sessions", None)
    session = sessions.get(getattr(resource, "session", None)) if isinstance(sessions, dict) else None
    interface = getattr(session, "interface", None)
    if isinstance(interface, socket.socket):
        interface.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _describe(error: Exception) -> str:
    if isinstance(error, InstrumentError) and error.attempts:
        return f"cannot open: {error.attempts[-1]}"
    return f"{type(error).__name__}: {error}"


# -- SCPI reply parsers ------------------------------------------------------

_SCPI_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
SCPI_NOT_A_NUMBER = 9.91e37
SCPI_OVERFLOW = 9.9e37


def parse_number(text: str) -> float:
    """An SCPI decimal (NR1, NR2 or NR3: ``12``, ``0.300``, ``+3.2000E+00``), finite and not the SCPI NaN."""
    if re.fullmatch(_SCPI_NUMBER, text.strip()) is None:
        raise ReplyError(f"not an SCPI number: {text!r}")
    value = float(text)
    if abs(value) >= SCPI_OVERFLOW:
        raise ReplyError(f"instrument reports no valid measurement ({text.strip()}: SCPI not-a-number / overflow)")
    return value


def parse_boolean(text: str) -> bool:
    """An SCPI boolean: ``0``/``1`` (or ``OFF``/``ON``, which some instruments send)."""
    token = text.strip().upper()
    if token in ("1", "ON"):
        return True
    if token in ("0", "OFF"):
        return False
    raise ReplyError(f"not an SCPI boolean: {text!r}")


def parse_error(text: str) -> tuple[int, str]:
    """A ``SYST:ERR?`` reply ``<code>,"<message>"``; code 0 must say "No error" (else the reply is corrupt)."""
    match = re.fullmatch(r'\s*([+-]?\d+)\s*,\s*"?([^"]*)"?\s*', text)
    if match is None:
        raise ReplyError(f"not an SCPI error-queue entry: {text!r}")
    code, message = int(match.group(1)), match.group(2)
    if (code == 0) != message.strip().lower().startswith("no error"):
        raise ReplyError(f"error code and message do not match: {text!r}")
    return code, message


def within(absolute: float, relative: float) -> Callable[[float, float], bool]:
    """Agreement of two readings: ``|a - b| <= absolute + relative * max(|a|, |b|)``."""
    if absolute < 0 or relative < 0:
        raise ValueError(f"tolerances must be non-negative, got {absolute!r} and {relative!r}")

    def agree(first: float, second: float) -> bool:
        return abs(first - second) <= absolute + relative * max(abs(first), abs(second))

    return agree
