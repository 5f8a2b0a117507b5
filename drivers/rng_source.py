"""RNG output source: the protocol suites use, and its RS-232 implementation (RG protocol).

Suites see only :class:`RngSource`. :class:`SerialRngSource` speaks the RG protocol
(:mod:`drivers.rng_protocol`) to a game's RNG test interface or to the simulator in
:mod:`drivers.sim.rng_device`, which speaks the same bytes behind a pseudo-terminal.
A garbled or missing reply is retried within the link's bounds and then raised as a
:class:`~drivers.serial_link.DeviceError`; it never becomes data.

Replies are matched to their requests: block numbers count replies of each type since power-on and a
block is never sent twice, so a ``RAW`` or ``DRAW`` block numbered at or below the last one taken is an
earlier request's late reply, discarded and counted (the link's ``stale_replies``), never data taken
twice. A ``DRAW`` does not echo its range, so a draw (and an identity) first waits out the late replies
of any attempt that timed out (:meth:`SerialLink.settle`): a late draw of another range is never taken.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from drivers.line_frame import DeviceIdentity, Frame, parse_identity, reply_acceptor
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
        self._last_block = {"RAW": 0, "DRAW": 0}

    @property
    def stale_replies(self) -> int:
        """Replies discarded because they answered another request."""
        return self.link.stale_replies

    def _after_last_block(self, frame_type: str) -> Callable[[Frame], str | None]:
        last = self._last_block[frame_type]

        def matches(frame: Frame) -> str | None:
            text = frame.fields[0] if frame.fields else ""
            if text.isdigit() and int(text) <= last:
                return f"{frame_type} block {text} is not after block {last}, the last one taken"
            return None

        return matches

    def identify(self) -> RngIdentity:
        return self.link.transact(encode("ID?"), reply_acceptor(decode, "ID", "device", parse_identity),
                                  what="identify", settle=True)

    def raw_block(self, size: int) -> RawBlock:
        block = self.link.transact(encode("RAW?", size),
                                   reply_acceptor(decode, "RAW", "device", lambda frame: parse_raw(frame, size),
                                                  matches=self._after_last_block("RAW")),
                                   what=f"read {size} raw bytes")
        self._last_block["RAW"] = block.block
        return block

    def draw_block(self, outcome_range: int, count: int) -> DrawBlock:
        block = self.link.transact(
            encode("DRAW?", outcome_range, count),
            reply_acceptor(decode, "DRAW", "device", lambda frame: parse_draw(frame, outcome_range, count),
                           matches=self._after_last_block("DRAW")),
            what=f"draw {count} outcomes in 0-{outcome_range - 1}", settle=True,
        )
        self._last_block["DRAW"] = block.block
        return block

    def close(self) -> None:
        self.link.close()
