"""Roulette wheel driver: the protocol suites use, and its RS-232 implementation.

Suites see only :class:`RouletteWheel`. :class:`SerialRouletteWheel` speaks the
RW line protocol (:mod:`drivers.roulette_protocol`) to a real automated wheel
or to the simulator in :mod:`drivers.sim.roulette_wheel`, which speaks the same
bytes behind a pseudo-terminal.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable

from drivers.line_frame import DeviceIdentity, parse_identity, raise_if_refused, reply_acceptor
from drivers.roulette_protocol import Frame, NoResult, SpinResult, decode, encode, parse_no_result, parse_result
from drivers.serial_link import DeviceError, FrameError, SerialLink, StaleReply

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
    """An automated wheel on a serial line, speaking the RW protocol.

    Every reply is matched to its request (``docs/protocols/roulette-wheel.md`` §5): game numbers
    increase by exactly 1 per game started, so an ``ACK`` to ``SPIN`` must carry a game after every
    game seen so far, a ``RES``/``ERR`` the game awaited and a ``STATUS`` a last game no earlier than
    the last seen. Anything else is an earlier request's late reply or another game's frame: it is
    discarded and counted (``stale_replies``, and ``rx-discarded`` in the wire log), never taken for
    the answer. The camera reads the pocket of the wheel's latest game, so a game is only confirmed
    as the wheel's latest: after a ``SPIN`` that needed a retry (a second ``SPIN`` may have started
    a later game) or saw a stale reply the wheel's ``STATUS`` is read, and the game it names is the
    one awaited. After a game that could not be confirmed (a no-read, :class:`DeviceError`) the
    wheel's last game is read from ``STATUS`` before the next ``SPIN``.
    """

    def __init__(self, link: SerialLink, *, pockets: int = 37, spin_timeout_s: float = 120.0) -> None:
        self.link = link
        self.pockets = pockets
        self.spin_timeout_s = spin_timeout_s
        self.garbled_frames = 0
        self.resynchronisations = 0
        """How many times the wheel's last game was read from ``STATUS`` after an unconfirmed exchange."""
        self._last_game = 0
        """The highest game number the wheel has shown (ACK, RES, ERR or STATUS): a lower bound of its counter."""
        self._resync = False
        self._outcomes_seen: dict[int, SpinResult | NoResult] = {}
        """RES/ERR frames that arrived while another reply was awaited (a fast wheel's result before the STATUS
        that confirms its game), by game: the game's result when it is awaited, never lost nor waited for."""

    @property
    def stale_replies(self) -> int:
        """Replies discarded because they answered another request or game."""
        return self.link.stale_replies

    def _expect(self, frame_type: str, matches: Callable[[Frame], str | None] | None = None,
                ) -> Callable[[bytes], Frame | None]:
        """An ``accept`` for a ``frame_type`` reply that keeps any game result arriving meanwhile."""
        awaited = reply_acceptor(decode, frame_type, "wheel", matches=matches)

        def accept(line: bytes) -> Frame | None:
            outcome = self._outcome_in(line)
            return None if outcome is not None else awaited(line)

        return accept

    def _outcome_in(self, line: bytes) -> SpinResult | NoResult | None:
        """The game result a well-formed RES or ERR line carries (kept for :meth:`await_result`), else None."""
        if not line.startswith((b"$RES,", b"$ERR,")):
            return None
        try:
            frame = decode(line)
            outcome: SpinResult | NoResult = (parse_result(frame, self.pockets) if frame.type == "RES"
                                              else parse_no_result(frame))
        except FrameError:
            return None  # left to the awaited reply's decoding: a garbled line costs that attempt
        self._outcomes_seen[outcome.game] = outcome
        return outcome

    def identify(self) -> WheelIdentity:
        return parse_identity(self.link.transact(encode("ID?"), self._expect("ID"), what="identify", settle=True))

    def layout(self) -> tuple[int, ...]:
        frame = self.link.transact(encode("LAYOUT?"), self._expect("LAYOUT"), what="read layout", settle=True)
        try:
            return tuple(int(field) for field in frame.fields)
        except ValueError as error:
            raise FrameError("LAYOUT fields must be numbers", frame.raw) from error

    def _status_last_game(self, at_least: int, what: str) -> tuple[str, int]:
        """The wheel's ``STATUS``: (state, last game started); a STATUS naming a game before ``at_least`` is an
        earlier query's late reply (discarded and counted)."""
        def matches(frame: Frame) -> str | None:
            if len(frame.fields) == 2 and frame.fields[1].isdigit() and int(frame.fields[1]) < at_least:
                return f"STATUS names game {frame.fields[1]}, before game {at_least} already seen"
            return None

        frame = self.link.transact(encode("STATUS?"), self._expect("STATUS", matches), what=what)
        if len(frame.fields) != 2 or not frame.fields[1].isdigit():
            raise FrameError("STATUS must carry the state and the last game number", frame.raw)
        return frame.fields[0], int(frame.fields[1])

    def _resynchronise(self) -> None:
        """Read the wheel's last game from ``STATUS`` (waiting, within the spin timeout, while a game is in
        progress), so that no reply to an earlier, unconfirmed request can be taken for the next one."""
        self.resynchronisations += 1
        deadline = time.monotonic() + self.spin_timeout_s
        while True:
            state, last = self._status_last_game(self._last_game, "read the wheel's last game")
            self._last_game = max(self._last_game, last)
            if state == "IDLE" or time.monotonic() >= deadline:
                break
            time.sleep(min(0.2, self.spin_timeout_s / 10))
        self._resync = False

    def start_game(self) -> int:
        """Start one game; its number once the wheel acknowledges it and it is the wheel's latest game.

        DeviceError when that cannot be confirmed within the retry budget (a no-read: the caller counts it)."""
        if self._resync:
            self._resynchronise()
        floor = self._last_game

        def matches(ack: Frame) -> str | None:
            echoed = len(ack.fields) == 2 and ack.fields[0] == "SPIN" and ack.fields[1].isdigit()
            if echoed and int(ack.fields[1]) <= floor:
                return f"ACK names game {ack.fields[1]}, not after game {floor} already seen"
            return None

        try:
            ack = self.link.transact(encode("SPIN"), self._expect("ACK", matches), what="start a game")
            if len(ack.fields) != 2 or ack.fields[0] != "SPIN" or not ack.fields[1].isdigit():
                raise FrameError("ACK to SPIN must carry the game number", ack.raw)
            game = int(ack.fields[1])
            self._last_game = game
            if self.link.last_attempts > 1 or self.link.last_stale:
                # a repeated SPIN may have started a later game: the one awaited is the wheel's latest
                _, latest = self._status_last_game(game, f"confirm game {game} is the wheel's latest")
                game = self._last_game = max(game, latest)
        except (DeviceError, FrameError):
            self._resync = True
            raise
        return game

    def await_result(self, game: int) -> SpinResult | NoResult:
        """Game ``game``'s result: kept if it arrived while another reply was awaited, else read (``RES`` or
        ``ERR`` naming that game; another game's is stale), asked again with ``RES?`` when lost or garbled."""
        seen = self._outcomes_seen.pop(game, None)
        self._outcomes_seen.clear()  # results of earlier games are no longer awaited
        if seen is not None:
            return seen

        def accept_outcome(line: bytes) -> SpinResult | NoResult | None:
            try:
                frame = decode(line)
            except FrameError:
                self.garbled_frames += 1
                raise
            if frame.type in ("RES", "ERR"):
                outcome: SpinResult | NoResult = (parse_result(frame, self.pockets) if frame.type == "RES"
                                                  else parse_no_result(frame))
                if outcome.game != game:
                    raise StaleReply(f"{frame.type} of game {outcome.game}, not game {game}", frame.raw)
                return outcome
            raise_if_refused(frame, "wheel")  # a refused RES? is an answer: say so instead of waiting out the timeout
            return None

        try:
            try:
                return self.link.transact(
                    None, accept_outcome, what=f"result of game {game}", timeout_s=self.spin_timeout_s, retries=0
                )
            except DeviceError:
                # the result frame was garbled or lost: ask the wheel to repeat it (bounded)
                return self.link.transact(
                    encode("RES?", game), accept_outcome, what=f"repeat of game {game}'s result"
                )
        except DeviceError:
            self._resync = True
            raise

    def close(self) -> None:
        self.link.close()
