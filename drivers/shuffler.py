"""Card shuffler driver: the protocol suites use, its CS implementation, and a registry of protocols.

Suites see only :class:`CardShuffler`. :class:`SerialCardShuffler` speaks the bench's CS line
protocol (:mod:`drivers.shuffler_protocol`) to a real shuffler or to the simulator in
:mod:`drivers.sim.shuffler`. A vendor's own protocol is one more subclass of
:class:`CardShuffler`, registered by name with :func:`register_shuffler_protocol`; the rig builds
whichever the profile names with :func:`make_shuffler`.

What a suite can prove with it: every loaded card comes back once and only once
(:meth:`CardShuffler.unload`, p217-2007/blackjack/55), a jam lights the warning and stops dealing
(:meth:`CardShuffler.deal` returns a :class:`Stop`, never a card; p217-2007/blackjack/51), the
cards stay inside a continuous shuffler (:meth:`CardShuffler.inventory`, p217-2007/blackjack/57),
two decks alternate (:attr:`ShuffleDone.back`, p217-2007/poquer-nao-bancado/76), and the
shuffled orders for the randomness tests of :mod:`rng_tests.fairness.cards`.

A garbled, late or refused reply is retried within the link's bounds (the transaction number
makes a repeated request safe: the machine answers it again without acting twice) and then
raised as :class:`~drivers.serial_link.DeviceError`; it never becomes a card.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from bench.games.physical_cards import Card
from drivers.line_frame import DeviceIdentity, parse_identity
from drivers.numbered_exchanges import NumberedExchanges
from drivers.serial_link import DeviceError, FrameError, SerialLink
from drivers.shuffler_protocol import (
    Ack,
    DealtCard,
    Frame,
    LoadSource,
    Mode,
    Page,
    ShuffleDone,
    ShufflerState,
    ShufflerStatus,
    Stop,
    decode,
    encode,
    parse_ack,
    parse_dealt,
    parse_page,
    parse_shuffled,
    parse_status,
    parse_stop,
    parse_tx,
)

T = TypeVar("T")
ShufflerIdentity = DeviceIdentity  # what the shuffler says it is (frame ``ID``)


class OperatorActionRequired(RuntimeError):
    """The machine cannot do this itself (open the lid): a person must, and the suite waits on :meth:`status`."""


@dataclass(frozen=True)
class Inventory:
    """What the machine holds (``inside``: shoe and discard rack) and has dealt without getting back (``out``)."""

    inside: tuple[Card, ...]
    out: tuple[Card, ...]

    def counts(self) -> Counter[Card]:
        """Every card the machine accounts for, inside or out, with its multiplicity."""
        return Counter(self.inside) + Counter(self.out)


@dataclass(frozen=True)
class Unloaded:
    """The cards taken out of the machine, in the order they came out (top first), as recognised."""

    cards: tuple[Card, ...]
    out_at_unload: int
    """Cards that were dealt and never returned when the machine was unloaded."""


class CardShuffler(ABC):
    """What a suite can ask of an automatic card shuffler with card recognition."""

    @abstractmethod
    def identify(self) -> ShufflerIdentity:
        """Manufacturer, model, serial number and firmware, as the machine reports them."""

    @abstractmethod
    def status(self) -> ShufflerStatus:
        """State (ready, shuffling, jam, door open, damaged card), warning light, door, counters."""

    @abstractmethod
    def set_mode(self, mode: Mode) -> Ack | Stop:
        """Batch, continuous or two-deck alternate use; only while the machine is empty."""

    @abstractmethod
    def load(self, backs: Sequence[str], source: LoadSource = LoadSource.NEW) -> Ack | Stop:
        """Load one deck per back colour in ``backs`` (new decks, or the stack last unloaded)."""

    @abstractmethod
    def shuffle(self) -> ShuffleDone | Stop:
        """Shuffle (batch: everything inside; alternate: the other deck) into the shoe."""

    @abstractmethod
    def deal(self) -> DealtCard | Stop:
        """Deliver the top card of the shoe, or the machine's reason for not doing so (jam, empty, ...)."""

    @abstractmethod
    def return_cards(self, cards: Sequence[Card] | None = None) -> Ack | Stop:
        """Put dealt cards back into the machine (all cards out when ``cards`` is None)."""

    @abstractmethod
    def inventory(self) -> Inventory:
        """The cards inside and the cards out, as the machine accounts for them."""

    @abstractmethod
    def unload(self) -> Unloaded | Stop:
        """Take every card out of the machine, in order, as recognised."""

    @abstractmethod
    def clear(self) -> Ack | Stop:
        """Reset the warning after a jam (lid open) or a damaged card has been dealt with."""

    @abstractmethod
    def open_door(self) -> Ack | Stop:
        """Open the lid (raises :class:`OperatorActionRequired` where a person must do it)."""

    @abstractmethod
    def close_door(self) -> Ack | Stop:
        """Close the lid (raises :class:`OperatorActionRequired` where a person must do it)."""

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""


class SerialCardShuffler(CardShuffler):
    """A shuffler on a serial line speaking the CS protocol.

    ``garbled_frames`` counts replies that failed framing or checksum, ``refusals`` the NAKs
    received; both are retried within the link's bounds. The transaction number is read from the
    machine (``STATUS``) before the first request that changes it, so a restarted host continues
    the machine's numbering.
    """

    def __init__(self, link: SerialLink, *, shuffle_timeout_s: float = 120.0, deal_timeout_s: float = 10.0) -> None:
        self.link = link
        self.shuffle_timeout_s = shuffle_timeout_s
        self.deal_timeout_s = deal_timeout_s
        self.exchanges = NumberedExchanges(link, decode, "shuffler", self.status)

    @property
    def garbled_frames(self) -> int:
        return self.exchanges.garbled_frames

    @property
    def refusals(self) -> int:
        return self.exchanges.refusals

    # -- exchanges ---------------------------------------------------------------------------------

    def _query(self, request: bytes, frame_type: str, parse: Callable[[Frame], T], what: str,
               matches: Callable[[Frame], str | None] | None = None) -> T:
        return self.exchanges.query(request, frame_type, parse, what, matches)

    def _transaction(self, request: str, *fields: object, reply_type: str, parse: Callable[[Frame], T],
                     what: str, timeout_s: float | None = None) -> T | Stop:
        """Send transaction ``request`` with the next transaction number; its reply or the machine's STOP."""
        replies: dict[str, Callable[[Frame], T | Stop]] = {reply_type: parse, "STOP": parse_stop}
        return self.exchanges.transaction(lambda tx: encode(request, tx, *fields), replies, parse_tx, what,
                                          timeout_s)

    def _pages(self, request: str, kind: str, *selector: str) -> tuple[tuple[Card, ...], int]:
        """Every page of a listing, checked to come from one machine state: (cards, transaction)."""
        pages: list[Page] = []
        number, total = 1, 1
        while number <= total:
            echo = ((0, kind), (1, str(number))) if request == "INV?" else ((0, str(number)),)
            page = self._query(encode(request, *selector, number), "INV" if request == "INV?" else "TRAY",
                               lambda frame, n=number: parse_page(frame, kind, n), f"read {kind} page {number}",
                               self.exchanges.echoes(*echo, tx_at=len(echo) + 2))
            if pages and (page.count, page.tx, page.pages) != (pages[0].count, pages[0].tx, pages[0].pages):
                raise FrameError(f"{kind} page {number} is from another machine state than page 1", page.raw)
            pages.append(page)
            total = page.pages
            number += 1
        return tuple(card for page in pages for card in page.cards), pages[0].tx

    # -- what a suite asks ---------------------------------------------------------------------------

    def identify(self) -> ShufflerIdentity:
        return self._query(encode("ID?"), "ID", parse_identity, "identify")

    def status(self) -> ShufflerStatus:
        return self._query(encode("STATUS?"), "STATUS", parse_status, "read status", self.exchanges.echoes(tx_at=8))

    def set_mode(self, mode: Mode) -> Ack | Stop:
        return self._transaction("MODE", Mode(mode).value, reply_type="ACK", what=f"set mode {Mode(mode).value}",
                                 parse=lambda frame: parse_ack(frame, "MODE"))

    def load(self, backs: Sequence[str], source: LoadSource = LoadSource.NEW) -> Ack | Stop:
        if not backs:
            raise ValueError("load needs at least one deck (one back colour per deck)")
        return self._transaction("LOAD", LoadSource(source).value, *backs, reply_type="ACK",
                                 parse=lambda frame: parse_ack(frame, "LOAD"), what=f"load {len(backs)} deck(s)")

    def shuffle(self) -> ShuffleDone | Stop:
        return self._transaction("SHUFFLE", reply_type="SHUFFLED", parse=parse_shuffled, what="shuffle",
                                 timeout_s=self.shuffle_timeout_s)

    def deal(self) -> DealtCard | Stop:
        return self._transaction("DEAL", reply_type="CARD", parse=parse_dealt, what="deal a card",
                                 timeout_s=self.deal_timeout_s)

    def return_cards(self, cards: Sequence[Card] | None = None) -> Ack | Stop:
        codes = [card.code for card in cards] if cards is not None else []
        if cards is not None and not codes:
            raise ValueError("return_cards needs at least one card, or None for every card out")
        return self._transaction("RETURN", *codes, reply_type="ACK", parse=lambda frame: parse_ack(frame, "RETURN"),
                                 what=f"return {len(codes) if codes else 'all'} card(s)")

    def inventory(self) -> Inventory:
        for _ in range(1 + self.link.settings.retries):
            inside, inside_tx = self._pages("INV?", "IN", "IN")
            out, out_tx = self._pages("INV?", "OUT", "OUT")
            if inside_tx == out_tx:
                return Inventory(inside, out)
        raise FrameError("inventory changed while it was being read", b"")

    def unload(self) -> Unloaded | Stop:
        ack = self._transaction("UNLOAD", reply_type="ACK", parse=lambda frame: parse_ack(frame, "UNLOAD"),
                                what="unload", timeout_s=self.shuffle_timeout_s)
        if isinstance(ack, Stop):
            return ack
        try:
            count, out = (int(field) for field in ack.fields)
        except ValueError as error:
            raise FrameError("ACK to UNLOAD must carry the cards unloaded and the cards out", ack.raw) from error
        cards, _ = self._pages("TRAY?", "TRAY")
        if len(cards) != count:
            raise FrameError(f"tray holds {len(cards)} cards, UNLOAD reported {count}", ack.raw)
        return Unloaded(cards, out)

    def clear(self) -> Ack | Stop:
        return self._transaction("CLEAR", reply_type="ACK", parse=lambda frame: parse_ack(frame, "CLEAR"),
                                 what="clear the warning")

    def _door(self, action: str) -> Ack | Stop:
        try:
            return self._transaction("DOOR", action, reply_type="ACK", parse=lambda frame: parse_ack(frame, "DOOR"),
                                     what=f"door {action.lower()}")
        except DeviceError as error:
            if any("OPERATOR_ONLY" in attempt for attempt in error.attempts):
                raise OperatorActionRequired(f"a person must {action.lower()} the shuffler's lid") from error
            raise

    def open_door(self) -> Ack | Stop:
        return self._door("OPEN")

    def close_door(self) -> Ack | Stop:
        return self._door("CLOSE")

    def close(self) -> None:
        self.link.close()


# -- protocols by name ----------------------------------------------------------------------------

ShufflerFactory = Callable[..., CardShuffler]
SHUFFLER_PROTOCOLS: dict[str, ShufflerFactory] = {}


def register_shuffler_protocol(name: str) -> Callable[[ShufflerFactory], ShufflerFactory]:
    """Register a factory ``(link, *, shuffle_timeout_s, deal_timeout_s) -> CardShuffler`` under ``name``."""

    def register(factory: ShufflerFactory) -> ShufflerFactory:
        if name in SHUFFLER_PROTOCOLS:
            raise ValueError(f"shuffler protocol {name!r} is already registered")
        SHUFFLER_PROTOCOLS[name] = factory
        return factory

    return register


register_shuffler_protocol("cs")(SerialCardShuffler)


def make_shuffler(protocol: str, link: SerialLink, **options: Any) -> CardShuffler:
    """The driver for ``protocol`` (a profile's ``options.protocol``) on an opened link."""
    try:
        factory = SHUFFLER_PROTOCOLS[protocol]
    except KeyError as error:
        raise ValueError(f"unknown shuffler protocol {protocol!r} (registered: {', '.join(sorted(SHUFFLER_PROTOCOLS))})"
                         ) from error
    return factory(link, **options)


__all__ = [
    "SHUFFLER_PROTOCOLS", "CardShuffler", "Inventory", "OperatorActionRequired", "SerialCardShuffler",
    "ShufflerIdentity", "ShufflerState", "Unloaded", "make_shuffler", "register_shuffler_protocol",
]
