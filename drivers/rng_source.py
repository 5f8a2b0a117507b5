"""RNG output source: the protocol suites use, and its RS-232 implementation (RG protocol).

Suites see only :class:`RngSource`. :class:`SerialRngSource` speaks the RG protocol
(:mod:`drivers.rng_protocol`) to a game's RNG test interface or to the simulator in
:mod:`drivers.sim.rng_device`, which speaks the same bytes behind a pseudo-terminal.
A garbled or missing reply is retried within the link's bounds and then raised as a
:class:`~drivers.serial_link.DeviceError`; it never becomes data.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from drivers.line_frame import Frame
from drivers.rng_protocol import DrawBlock, RawBlock, decode, encode, parse_draw, parse_raw
from drivers.serial_link import FrameError, SerialLink


@dataclass(frozen=True)
class RngIdentity:
    """What the RNG interface says it is (frame ``ID``)."""

    manufacturer: str
    model: str
    serial: str
    firmware: str


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

    def _expect(self, frame_type: str, parse: Callable[[Frame], object] | None = None) -> Callable[[bytes], object]:
        def accept(line: bytes) -> object:
            frame = decode(line)
            if frame.type == "NAK":
                raise FrameError(f"device refused the request ({','.join(frame.fields)})", line)
            if frame.type != frame_type:
                return None
            return parse(frame) if parse is not None else frame

        return accept

    def identify(self) -> RngIdentity:
        frame = self.link.transact(encode("ID?"), self._expect("ID"), what="identify")
        assert isinstance(frame, Frame)
        if len(frame.fields) != 4:
            raise FrameError("ID frame needs 4 fields", frame.raw)
        return RngIdentity(*frame.fields)

    def raw_block(self, size: int) -> RawBlock:
        block = self.link.transact(encode("RAW?", size), self._expect("RAW", lambda frame: parse_raw(frame, size)),
                                   what=f"read {size} raw bytes")
        assert isinstance(block, RawBlock)
        return block

    def draw_block(self, outcome_range: int, count: int) -> DrawBlock:
        block = self.link.transact(
            encode("DRAW?", outcome_range, count),
            self._expect("DRAW", lambda frame: parse_draw(frame, outcome_range, count)),
            what=f"draw {count} outcomes in 0-{outcome_range - 1}",
        )
        assert isinstance(block, DrawBlock)
        return block

    def close(self) -> None:
        self.link.close()
