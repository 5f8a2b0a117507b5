"""Jackpot controller and display driver: the protocol suites use and its JP implementation.

Suites see only :class:`JackpotController`. :class:`SerialJackpotController` speaks the bench's JP
line protocol (:mod:`drivers.jackpot_protocol`) to a real table-game jackpot controller or to the
simulator in :mod:`drivers.sim.jackpot_controller`. Slot-machine progressives broadcast their
levels on the SAS line instead: :mod:`drivers.sas_progressive` reads those.

What a suite can prove with it: every jackpot bet adds the approved percentage to the pool to the
cent (:meth:`JackpotController.register_bet`; p461-2001/poquer-sem-descarte/3 and /8,
p217-2007/blackjack/40), the start value is at least 10 000 jackpot bets
(:meth:`JackpotController.levels`; poquer-sem-descarte/10, blackjack/44), a round's winning hands
are paid by the pay table, smallest first, the remainder to the top combination and shared prizes
split (:meth:`JackpotController.report_hit`; poquer-sem-descarte/9 and /12, blackjack/50), the
display shows what the controller holds (:meth:`JackpotController.display`;
poquer-sem-descarte/4, blackjack/41), and the pool survives a power cycle.

Money is in whole cents everywhere. A garbled, late or refused reply is retried within the link's
bounds (the transaction number makes a repeated ``BET`` safe: the controller answers it again
without adding the bet twice) and then raised as :class:`~drivers.serial_link.DeviceError`; it
never becomes a value.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from bench.games.jackpot_rules import Hit, PayTable
from drivers.jackpot_protocol import (
    DisplayReading,
    Frame,
    HitSettlement,
    JackpotConfiguration,
    JackpotStatus,
    LevelState,
    LevelValues,
    decode,
    encode,
    encode_hit,
    parse_bet_ack,
    parse_configuration,
    parse_display,
    parse_level,
    parse_paid,
    parse_pay_table,
    parse_reset_ack,
    parse_status,
    parse_tx,
    parse_values,
)
from drivers.line_frame import DeviceIdentity, parse_identity
from drivers.numbered_exchanges import NumberedExchanges
from drivers.serial_link import FrameError, SerialLink

T = TypeVar("T")
JackpotIdentity = DeviceIdentity  # what the controller says it is (frame ``ID``)


class JackpotController(ABC):
    """What a suite can ask of a jackpot controller and its display (money in whole cents)."""

    @abstractmethod
    def identify(self) -> JackpotIdentity:
        """Manufacturer, model, serial number and firmware, as the controller reports them."""

    @abstractmethod
    def configuration(self) -> JackpotConfiguration:
        """Game, jackpot bet (cents) and number of levels, as the controller is set up."""

    @abstractmethod
    def levels(self) -> tuple[LevelState, ...]:
        """Every level: current value, start (reset) value and increment percentage as the controller declares it."""

    @abstractmethod
    def values(self) -> LevelValues:
        """Every level's current value in cents, read in one frame."""

    @abstractmethod
    def register_bet(self, amount_cents: int, table: int = 1) -> tuple[int, ...]:
        """Register a jackpot bet of ``amount_cents`` placed at ``table``; every level's new value (cents)."""

    @abstractmethod
    def report_hit(self, hits: Sequence[Hit], level: int = 1) -> HitSettlement:
        """Report a round's winning jackpot hands (seat and combination); the controller's payments, in order."""

    @abstractmethod
    def display(self, level: int = 1) -> DisplayReading:
        """What the display shows for ``level``, read back, with the amount it shows."""

    @abstractmethod
    def pay_table(self) -> PayTable:
        """The jackpot pay table the controller applies, top combination first."""

    @abstractmethod
    def reset(self, level: int = 1) -> int:
        """Restart ``level`` at its start value (a supervisor's reset); the value after it."""

    @abstractmethod
    def status(self) -> JackpotStatus:
        """Meters: bets, bet total, hits, paid total; the last transaction number."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""

    def display_text(self, level: int = 1) -> str:
        """The display's text for ``level``, as read back."""
        return self.display(level).text


class SerialJackpotController(JackpotController):
    """A jackpot controller on a serial line speaking the JP protocol.

    ``garbled_frames`` counts replies that failed framing or checksum, ``refusals`` the NAKs
    received; both are retried within the link's bounds. The transaction number is read from the
    controller (``STATUS``) before the first request that changes it, so a restarted host continues
    the controller's numbering.
    """

    def __init__(self, link: SerialLink) -> None:
        self.link = link
        self.exchanges = NumberedExchanges(link, decode, "jackpot controller", self.status)
        self._levels: int | None = None

    @property
    def garbled_frames(self) -> int:
        return self.exchanges.garbled_frames

    @property
    def refusals(self) -> int:
        return self.exchanges.refusals

    # -- exchanges ---------------------------------------------------------------------------------

    def _query(self, request: bytes, frame_type: str, parse: Callable[[Frame], T], what: str,
               matches: Callable[[Frame], str | None] | None = None, settle: bool | None = None) -> T:
        return self.exchanges.query(request, frame_type, parse, what, matches, settle)

    def _transaction(self, request: str, *fields: object, reply_type: str, parse: Callable[[Frame], T],
                     what: str) -> T:
        """Send transaction ``request`` with the next transaction number; its reply."""
        def raw(tx: int) -> bytes:
            return encode_hit(tx, *fields) if request == "HIT" else encode(request, tx, *fields)  # type: ignore[arg-type]

        return self.exchanges.transaction(raw, {reply_type: parse}, parse_tx, what)

    def _level_count(self) -> int:
        if self._levels is None:
            self._levels = self.configuration().levels
        return self._levels

    def _check_level(self, level: int) -> None:
        if not isinstance(level, int) or not 1 <= level <= self._level_count():
            raise ValueError(f"level must be 1-{self._level_count()}, got {level!r}")

    # -- what a suite asks ---------------------------------------------------------------------------

    def identify(self) -> JackpotIdentity:
        return self._query(encode("ID?"), "ID", parse_identity, "identify")

    def configuration(self) -> JackpotConfiguration:
        configuration = self._query(encode("CONF?"), "CONF", parse_configuration, "read configuration")
        self._levels = configuration.levels
        return configuration

    def levels(self) -> tuple[LevelState, ...]:
        count = self._level_count()
        for _ in range(1 + self.link.settings.retries):
            states = tuple(self._query(encode("LEVEL?", level), "LEVEL", lambda f, n=level: parse_level(f, n),
                                       f"read level {level}", self.exchanges.echoes((0, str(level)), tx_at=4))
                           for level in range(1, count + 1))
            if len({state.tx for state in states}) == 1:
                return states
        raise FrameError("levels changed while they were being read", b"")

    def values(self) -> LevelValues:
        count = self._level_count()
        return self._query(encode("VAL?"), "VAL", lambda frame: parse_values(frame, count), "read values",
                           self.exchanges.echoes(tx_at=0))

    def register_bet(self, amount_cents: int, table: int = 1) -> tuple[int, ...]:
        if not isinstance(amount_cents, int) or isinstance(amount_cents, bool) or amount_cents <= 0:
            raise ValueError(f"jackpot bet must be a positive whole number of cents, got {amount_cents!r}")
        if not isinstance(table, int) or not 1 <= table <= 999:
            raise ValueError(f"table must be 1-999, got {table!r}")
        count = self._level_count()
        ack = self._transaction("BET", table, amount_cents, reply_type="ACK", what=f"register a bet of {amount_cents}"
                                f" cents at table {table}", parse=lambda frame: parse_bet_ack(frame, count))
        return ack.values

    def report_hit(self, hits: Sequence[Hit], level: int = 1) -> HitSettlement:
        self._check_level(level)
        hits = tuple(hits)
        if not hits:
            raise ValueError("report_hit needs at least one winning hand")
        settlement = self._transaction("HIT", level, hits, reply_type="PAID", parse=parse_paid,
                                       what=f"report {len(hits)} winning hand(s) on level {level}")
        if settlement.level != level:
            raise FrameError(f"PAID is for level {settlement.level}, not {level}", settlement.raw)
        return settlement

    def display(self, level: int = 1) -> DisplayReading:
        self._check_level(level)
        # the level is echoed, but two readings of one level are told apart by nothing: settle first
        return self._query(encode("DISP?", level), "DISP", lambda frame: parse_display(frame, level),
                           f"read display of level {level}", self.exchanges.echoes((0, str(level))), settle=True)

    def pay_table(self) -> PayTable:
        return self._query(encode("PAYTABLE?"), "PAYTABLE", parse_pay_table, "read pay table")

    def reset(self, level: int = 1) -> int:
        self._check_level(level)
        _, answered, value = self._transaction("RESET", level, reply_type="ACK", what=f"reset level {level}",
                                               parse=parse_reset_ack)
        if answered != level:
            raise FrameError(f"RESET acknowledged for level {answered}, not {level}", b"")
        return value

    def status(self) -> JackpotStatus:
        return self._query(encode("STATUS?"), "STATUS", parse_status, "read status", self.exchanges.echoes(tx_at=0))

    def close(self) -> None:
        self.link.close()


# -- protocols by name ----------------------------------------------------------------------------

JackpotFactory = Callable[..., JackpotController]
JACKPOT_PROTOCOLS: dict[str, JackpotFactory] = {"jp": SerialJackpotController}


def make_jackpot_controller(protocol: str, link: SerialLink, **options: Any) -> JackpotController:
    """The driver for ``protocol`` (a profile's ``options.protocol``) on an opened link."""
    try:
        factory = JACKPOT_PROTOCOLS[protocol]
    except KeyError as error:
        raise ValueError(f"unknown jackpot protocol {protocol!r} (registered: {', '.join(sorted(JACKPOT_PROTOCOLS))})"
                         ) from error
    return factory(link, **options)


__all__ = [
    "JACKPOT_PROTOCOLS", "DisplayReading", "Hit", "HitSettlement", "JackpotConfiguration", "JackpotController",
    "JackpotIdentity", "JackpotStatus", "LevelState", "LevelValues", "SerialJackpotController",
    "make_jackpot_controller",
]
