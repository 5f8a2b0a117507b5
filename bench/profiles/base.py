"""Building blocks shared by every equipment kind's profile model.

A profile names each piece of equipment with its identity and, for a device on a
data line, its serial connection; a simulated device has a ``simulator`` table
instead. Each kind's options and simulator model live beside :mod:`bench.profiles.model`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, model_validator


class Strict(BaseModel):
    """A profile table: unknown keys are errors (a misspelt option must not be silently ignored)."""

    model_config = ConfigDict(extra="forbid")


class Identity(Strict):
    """Who made the equipment and which unit it is (as the lab records it)."""

    manufacturer: str = Field(min_length=1)
    model: str = Field(min_length=1)
    serial: str = Field(min_length=1)
    firmware: str | None = None


class SerialConnection(Strict):
    """A serial line: a tty path (``/dev/ttyUSB0``) or a pyserial URL (``spy://…``, ``socket://…``)."""

    port: str = Field(min_length=1)
    baudrate: PositiveInt = 9600
    bytesize: Literal[7, 8] = 8
    parity: Literal["N", "E", "O", "M", "S"] = "N"
    stopbits: Literal[1, 2] = 1
    timeout_s: PositiveFloat = 2.0
    retries: Annotated[int, Field(ge=0, le=10)] = 3


class EquipmentBase(Strict):
    """Equipment on a data line: a real device has ``connection``, a simulated one a ``simulator`` table."""

    identity: Identity
    connection: SerialConnection | None = None

    def _check_connection(self, simulated: bool) -> None:
        if simulated and self.connection is not None and self.connection.port != "sim":
            raise ValueError("give either connection.port (real device) or simulator (simulated device), not both")
        if not simulated and self.connection is None:
            raise ValueError("needs connection.port (real device) or a simulator table (simulated device)")


_RATE_FIELDS = ("dropped_byte_rate", "flipped_bit_rate", "late_rate", "garbage_rate", "silent_rate",
                "disconnect_rate")


class WireFaults(Strict):
    """Line faults a simulator injects into its replies, each the share of replies affected (seeded).

    ``dropped_byte_rate``: one byte of the reply is lost; ``flipped_bit_rate``: one bit is flipped
    (a checksum or CRC error); ``late_rate``: the reply comes ``late_s`` late (past the driver's
    timeout); ``garbage_rate``: random bytes arrive before the reply; ``silent_rate``: no reply at all.
    ``disconnect_rate``: after that share of replies the line goes down (the reply is lost with it) for
    ``disconnect_s`` seconds, as when a cable is pulled and plugged back: ``disconnect_model = "hangup"``
    (the simulator closes its side of the line, so the driver's reads and writes fail and it must
    reconnect; a pseudo-terminal is reopened behind the same path, a socket connection is closed) or
    ``"silence"`` (the line stays open but carries nothing either way, as a cable pulled beyond a
    USB adapter: the driver times out).
    Drivers must retry within their bounds, reconnect, and report; a faulty reply never becomes a value.
    """

    seed: int = 0
    dropped_byte_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    flipped_bit_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    late_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    late_s: Annotated[float, Field(gt=0.0, le=600.0)] = 5.0
    garbage_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    silent_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    disconnect_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    disconnect_model: Literal["hangup", "silence"] = "hangup"
    disconnect_s: Annotated[float, Field(gt=0.0, le=60.0)] = 0.5

    @property
    def any(self) -> bool:
        """Whether any fault is injected."""
        return any((self.dropped_byte_rate, self.flipped_bit_rate, self.late_rate, self.garbage_rate,
                    self.silent_rate, self.disconnect_rate))

    @model_validator(mode="after")
    def _rates_add_up_to_at_most_one(self) -> WireFaults:
        """Each rate is a share of the replies: together they cannot exceed all of them."""
        if self.total_rate > 1.0:
            rates = ", ".join(f"{name} = {getattr(self, name):g}" for name in _RATE_FIELDS if getattr(self, name))
            raise ValueError(f"the rates add up to {self.total_rate:g}, above 1 (every reply): {rates}")
        return self

    @property
    def total_rate(self) -> float:
        """The sum of the rates (the share of replies hit when at most one fault hits a reply)."""
        return (self.dropped_byte_rate + self.flipped_bit_rate + self.late_rate + self.garbage_rate
                + self.silent_rate + self.disconnect_rate)


class SimulatorBase(Strict):
    """What every simulated device's table has: the line faults it injects into its replies."""

    wire_faults: WireFaults = WireFaults()
