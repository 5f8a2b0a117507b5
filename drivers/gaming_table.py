"""Electronic gaming table driver: the protocol suites use, and its serial (GT) implementation.

Suites see only :class:`GamingTable`: who the table is, what it is set up for (game, rules variant, stake
limits) and the rounds it plays, each with its outcome, every bet placed and what each bet paid
(:class:`~drivers.gaming_table_protocol.TableRound`). :class:`SerialGamingTable` speaks the bench's GT line
protocol (:mod:`drivers.gaming_table_protocol`, ``docs/protocols/gaming-table.md``) to a real table or to the
simulator in :mod:`drivers.sim.gaming_table`.

A garbled frame in a round's block or a frame lost from it is filled in by asking for the round again: the
frames that arrived intact are kept (the table answers the same round whenever asked), and the retry budget
grows with the block (:meth:`~drivers.numbered_exchanges.NumberedExchanges.block`); then
:class:`~drivers.serial_link.DeviceError`. A round is never assembled from two replies that disagree, and
never guessed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import TypeVar

from drivers.gaming_table_protocol import (
    BlockReader,
    Frame,
    TableConfiguration,
    TableRound,
    decode,
    encode,
    parse_configuration,
    parse_round,
    parse_status,
)
from drivers.line_frame import DeviceIdentity, parse_identity
from drivers.numbered_exchanges import NumberedExchanges
from drivers.serial_link import FrameError, SerialLink

T = TypeVar("T")
TableIdentity = DeviceIdentity  # what the table says it is (frame ``ID``)

__all__ = ["GamingTable", "SerialGamingTable", "TableConfiguration", "TableIdentity", "TableRound"]


class GamingTable(ABC):
    """What a suite can ask of an electronic gaming table."""

    @abstractmethod
    def identify(self) -> TableIdentity:
        """Manufacturer, model, serial number and firmware, as the table reports them."""

    @abstractmethod
    def configuration(self) -> TableConfiguration:
        """Game, rules variant, the game's options and the minimum and maximum stake of every limited chance."""

    @abstractmethod
    def last_round(self) -> int:
        """The number of the last round the table played (0 before the first)."""

    @abstractmethod
    def read_round(self, number: int) -> TableRound:
        """Round ``number`` as the table reports it, waiting for it to be played if it has not been yet."""

    def rounds(self, count: int | None = None, start: int | None = None) -> Iterator[TableRound]:
        """``count`` rounds (None: without end) from round ``start`` (default: the next one the table plays)."""
        number = self.last_round() + 1 if start is None else start
        taken = 0
        while count is None or taken < count:
            yield self.read_round(number)
            number += 1
            taken += 1

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""


class SerialGamingTable(GamingTable):
    """A gaming table on a serial line speaking the GT protocol.

    ``garbled_frames`` counts reply frames that failed framing or checksum and blocks refused as incomplete,
    ``refusals`` the NAKs received; both are retried within the link's bounds. ``round_timeout_s`` bounds the
    wait for a round the table has not finished (polled every ``poll_s``).
    """

    def __init__(self, link: SerialLink, *, round_timeout_s: float = 120.0, poll_s: float = 0.5) -> None:
        self.link = link
        self.round_timeout_s = round_timeout_s
        self.poll_s = poll_s
        self.exchanges = NumberedExchanges(link, decode, "gaming table", self.last_round)

    @property
    def garbled_frames(self) -> int:
        return self.exchanges.garbled_frames + self.exchanges.blocks_refused

    @property
    def refusals(self) -> int:
        return self.exchanges.refusals

    def identify(self) -> TableIdentity:
        return self.exchanges.query(encode("ID?"), "ID", parse_identity, "identify")

    def last_round(self) -> int:
        return self.exchanges.query(encode("STATUS?"), "STATUS", parse_status, "read status")

    def configuration(self) -> TableConfiguration:
        result = self._block(encode("CONF?"), BlockReader("CONF"), parse_configuration, "read configuration")
        assert isinstance(result, TableConfiguration)
        return result

    def read_round(self, number: int) -> TableRound:
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise ValueError(f"round number must be a positive integer, got {number!r}")
        result = self.exchanges.until_played(
            lambda: self._block(encode("ROUND?", number), BlockReader("RND", str(number)), parse_round,
                                f"read round {number}", may_be_unplayed=True),
            f"read round {number}", self.round_timeout_s, self.poll_s)
        if result.round != number:  # pragma: no cover - the block reader only takes round ``number``
            raise FrameError(f"asked for round {number}, got round {result.round}", result.raw[0])
        return result

    def _block(self, request: bytes, reader: BlockReader, parse: Callable[[Frame, list[Frame]], T], what: str, *,
               may_be_unplayed: bool = False) -> T | object:
        """A block query whose whole block is parsed by ``parse`` (:meth:`NumberedExchanges.block`)."""
        def feed(frame: Frame) -> T | None:
            block = reader.feed(frame)  # another request's block is refused as stale: discarded by the link
            return None if block is None else parse(*block)

        return self.exchanges.block(request, feed, lambda: reader.held, what, may_be_unplayed=may_be_unplayed)

    def close(self) -> None:
        self.link.close()
