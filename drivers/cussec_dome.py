"""Cussec dome ("campânula") driver: the protocol suites use, and its serial (CD) implementation.

Suites see only :class:`CussecDome`: who the controller is, its status, and its log of every round (the disc's
lever strokes, when and how the betting lamp lit, when the cover was lifted, the zones lit on the layout:
:class:`~drivers.cussec_dome_protocol.DomeRound`). :class:`SerialCussecDome` speaks the bench's CD line protocol
(:mod:`drivers.cussec_dome_protocol`, ``docs/protocols/cussec-dome.md``) to a real controller or to the
simulator in :mod:`drivers.sim.cussec_dome`. The dice themselves are read by the bench's camera
(:class:`drivers.dice_table.CameraDiceTable`), never taken from the controller.

A round is played by the bench's actuator when the dome has one (``PLAY``, a numbered transaction: a repeat
after a lost reply never plays twice), else by the dealer: the driver waits for it (``NOT_PLAYED`` is polled
up to ``round_timeout_s``). A garbled frame anywhere in a round's block, a frame lost from it or a late reply
costs one attempt: the whole round is asked for again, within the link's bounds, then
:class:`~drivers.serial_link.DeviceError`. A round is never assembled from parts of two replies and never
guessed.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from drivers.cussec_dome_protocol import (
    DomeRound,
    DomeStatus,
    RoundReader,
    decode,
    encode,
    parse_play_ack,
    parse_status,
    parse_tx,
)
from drivers.line_frame import DeviceIdentity, parse_identity
from drivers.numbered_exchanges import NumberedExchanges
from drivers.serial_link import DeviceError, SerialLink

DomeIdentity = DeviceIdentity  # what the controller says it is (frame ``ID``)

__all__ = ["CussecDome", "DomeIdentity", "DomeRound", "DomeStatus", "NoActuator", "SerialCussecDome"]


class NoActuator(RuntimeError):
    """The dome has no actuator the bench can drive (``NAK,PLAY,NO_ACTUATOR``): its rounds are the dealer's."""


class CussecDome(ABC):
    """What a suite can ask of a cussec dome's controller."""

    @abstractmethod
    def identify(self) -> DomeIdentity:
        """Manufacturer, model, serial number and firmware, as the controller reports them."""

    @abstractmethod
    def status(self) -> DomeStatus:
        """Cover latched, lamp lit, strokes since latching, last round, and whether an actuator is fitted."""

    @abstractmethod
    def play_round(self) -> int:
        """Have the actuator play a round (latch, three lever presses, open); the round's number.
        :class:`NoActuator` when the dome has none."""

    @abstractmethod
    def read_round(self, number: int) -> DomeRound:
        """Round ``number`` as the controller logged it, waiting for it to be played if it has not been yet."""

    def last_round(self) -> int:
        """The number of the last round the dome played (0 before the first)."""
        return self.status().round

    def next_round(self, *, command: bool = True) -> DomeRound:
        """The next round: played by the actuator when ``command`` and the dome has one, else the dealer's
        (waited for)."""
        status = self.status()
        if command and status.actuator:
            return self.read_round(self.play_round())
        return self.read_round(status.round + 1)

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""


class SerialCussecDome(CussecDome):
    """A cussec dome controller on a serial line speaking the CD protocol.

    ``garbled_frames`` counts reply frames that failed framing or checksum and round blocks refused as
    incomplete, ``refusals`` the NAKs received; both are retried within the link's bounds.
    ``round_timeout_s`` bounds the wait for a round not finished yet (polled every ``poll_s``).
    """

    def __init__(self, link: SerialLink, *, round_timeout_s: float = 300.0, poll_s: float = 0.5) -> None:
        self.link = link
        self.round_timeout_s = round_timeout_s
        self.poll_s = poll_s
        self.exchanges = NumberedExchanges(link, decode, "cussec dome", self.status)
        self._actuator: bool | None = None  # as the last STATUS said

    @property
    def garbled_frames(self) -> int:
        return self.exchanges.garbled_frames + self.exchanges.blocks_refused

    @property
    def refusals(self) -> int:
        return self.exchanges.refusals

    def identify(self) -> DomeIdentity:
        return self.exchanges.query(encode("ID?"), "ID", parse_identity, "identify")

    def status(self) -> DomeStatus:
        status = self.exchanges.query(encode("STATUS?"), "STATUS", parse_status, "read status")
        self._actuator = status.actuator
        return status

    def play_round(self) -> int:
        if self._actuator is None:
            self.status()
        if not self._actuator:
            raise NoActuator(f"{self.link.settings.port}: the dome has no actuator the bench can drive")
        try:
            return self.exchanges.transaction(lambda tx: encode("PLAY", tx), {"ACK": parse_play_ack}, parse_tx,
                                              "play a round")
        except DeviceError as error:
            if any("NO_ACTUATOR" in str(reason) for reason in error.attempts):
                raise NoActuator(f"{self.link.settings.port}: the dome has no actuator the bench can drive") from error
            raise

    def read_round(self, number: int) -> DomeRound:
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise ValueError(f"round number must be a positive integer, got {number!r}")
        what = f"read round {number}"

        def read_once() -> DomeRound | object:
            reader = RoundReader(number)  # another round's block is refused as stale: discarded by the link
            return self.exchanges.block(encode("ROUND?", number), reader.feed, lambda: reader.held, what,
                                        may_be_unplayed=True)

        return self.exchanges.until_played(read_once, what, self.round_timeout_s, self.poll_s)

    def close(self) -> None:
        self.link.close()
