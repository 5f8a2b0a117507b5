"""RNG output source: the protocol suites use, and its RS-232 implementation (RG protocol).

Suites see only :class:`RngSource`. :class:`SerialRngSource` speaks the RG protocol
(:mod:`drivers.rng_protocol`) to a game's RNG test interface or to the simulator in
:mod:`drivers.sim.rng_device`, which speaks the same bytes behind a pseudo-terminal.
A garbled or missing reply is retried within the link's bounds and then raised as a
:class:`~drivers.serial_link.DeviceError`; it never becomes data.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from drivers.line_frame import DeviceIdentity, parse_identity, reply_acceptor
from drivers.rng_protocol import DrawBlock, RawBlock, decode, encode, parse_draw, parse_raw
from drivers.serial_link import SerialLink

RngIdentity = DeviceIdentity  # what the RNG interface says it is (frame ``ID``)


class RngSource(ABC):
    """What a suite can ask of a game's random number generator."""

    @abstractmethod
    def identify(self) -> RngIdentity:
        """The device's own identity report."""

    @abstractmethod
    def raw_block(self, size: int) -> RawBlock:
        """The generator's next ``size`` raw output bytes."""

    @abstractmethod
    def draw_block(self, outcome_range: int, count: int) -> DrawBlock:
        """The game's next ``count`` outcomes in ``0..outcome_range-1``."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""


class SerialRngSource(RngSource):
    """An RNG test interface on a serial line, speaking the RG protocol."""

    def __init__(self, link: SerialLink) -> None:
        self.link = link

    def identify(self) -> RngIdentity:
        return self.link.transact(encode("ID?"), reply_acceptor(decode, "ID", "device", parse_identity),
                                  what="identify")

    def raw_block(self, size: int) -> RawBlock:
        return self.link.transact(encode("RAW?", size),
                                  reply_acceptor(decode, "RAW", "device", lambda frame: parse_raw(frame, size)),
                                  what=f"read {size} raw bytes")

    def draw_block(self, outcome_range: int, count: int) -> DrawBlock:
        return self.link.transact(
            encode("DRAW?", outcome_range, count),
            reply_acceptor(decode, "DRAW", "device", lambda frame: parse_draw(frame, outcome_range, count)),
            what=f"draw {count} outcomes in 0-{outcome_range - 1}",
        )

    def close(self) -> None:
        self.link.close()
