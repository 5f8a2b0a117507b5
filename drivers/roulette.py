"""Roulette wheel driver: the protocol suites use, and its RS-232 implementation.

Suites see only :class:`RouletteWheel`. :class:`SerialRouletteWheel` speaks the
RW line protocol (:mod:`drivers.roulette_protocol`) to a real automated wheel
or to the simulator in :mod:`drivers.sim.roulette_wheel`, which speaks the same
bytes behind a pseudo-terminal.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from drivers.line_frame import DeviceIdentity, parse_identity, raise_if_refused, reply_acceptor
from drivers.roulette_protocol import Frame, NoResult, SpinResult, decode, encode, parse_no_result, parse_result
from drivers.serial_link import DeviceError, FrameError, SerialLink

WheelIdentity = DeviceIdentity  # what the wheel says it is (frame ``ID``)


class RouletteWheel(ABC):
    """What a suite can ask of a roulette wheel."""

    @abstractmethod
    def identify(self) -> WheelIdentity:
        """The wheel's own identity report."""

    @abstractmethod
    def layout(self) -> tuple[int, ...]:
        """Pocket numbers clockwise from 0, as the wheel reports them."""

    @abstractmethod
    def start_game(self) -> int:
        """Start one game; returns its number once the wheel acknowledges it (the ball is being launched)."""

    @abstractmethod
    def await_result(self, game: int) -> SpinResult | NoResult:
        """Wait for game ``game``'s result (the ball at rest), or the wheel's own "no result"."""

    def spin(self) -> SpinResult | NoResult:
        """Run one game and return its result, or the wheel's own "no result"."""
        return self.await_result(self.start_game())

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""


class SerialRouletteWheel(RouletteWheel):
    """An automated wheel on a serial line, speaking the RW protocol."""

    def __init__(self, link: SerialLink, *, pockets: int = 37, spin_timeout_s: float = 120.0) -> None:
        self.link = link
        self.pockets = pockets
        self.spin_timeout_s = spin_timeout_s
        self.garbled_frames = 0

    def _expect(self, frame_type: str) -> Callable[[bytes], Frame | None]:
        return reply_acceptor(decode, frame_type, "wheel")

    def identify(self) -> WheelIdentity:
        return parse_identity(self.link.transact(encode("ID?"), self._expect("ID"), what="identify"))

    def layout(self) -> tuple[int, ...]:
        frame = self.link.transact(encode("LAYOUT?"), self._expect("LAYOUT"), what="read layout")
        try:
            return tuple(int(field) for field in frame.fields)
        except ValueError as error:
            raise FrameError("LAYOUT fields must be numbers", frame.raw) from error

    def start_game(self) -> int:
        ack = self.link.transact(encode("SPIN"), self._expect("ACK"), what="start a game")
        if len(ack.fields) != 2 or ack.fields[0] != "SPIN" or not ack.fields[1].isdigit():
            raise FrameError("ACK to SPIN must carry the game number", ack.raw)
        return int(ack.fields[1])

    def await_result(self, game: int) -> SpinResult | NoResult:

        def accept_outcome(line: bytes) -> SpinResult | NoResult | None:
            try:
                frame = decode(line)
            except FrameError:
                self.garbled_frames += 1
                raise
            if frame.type == "RES":
                result = parse_result(frame, self.pockets)
                return result if result.game == game else None
            if frame.type == "ERR":
                outcome = parse_no_result(frame)
                return outcome if outcome.game == game else None
            raise_if_refused(frame, "wheel")  # a refused RES? is an answer: say so instead of waiting out the timeout
            return None

        try:
            return self.link.transact(
                None, accept_outcome, what=f"result of game {game}", timeout_s=self.spin_timeout_s, retries=0
            )
        except DeviceError:
            # the result frame was garbled or lost: ask the wheel to repeat it (bounded)
            return self.link.transact(
                encode("RES?", game), accept_outcome, what=f"repeat of game {game}'s result"
            )

    def close(self) -> None:
        self.link.close()
