"""The CS line protocol: how an automatic card shuffler with card recognition talks to the bench.

Documented for manufacturers in ``docs/protocols/card-shuffler.md``. Frames use the bench's
line framing (:mod:`drivers.line_frame`, ``$TYPE,f1,f2*CC``). This module holds the protocol's
vocabulary (states, modes) and parses every reply; :mod:`drivers.shuffler` drives a
shuffler with it and :mod:`drivers.sim.shuffler` simulates one.

Every request that changes the machine (``MODE``, ``LOAD``, ``SHUFFLE``, ``DEAL``, ``RETURN``,
``UNLOAD``, ``CLEAR``, ``DOOR``) carries a transaction number ``tx`` (the machine's last one
plus 1). The machine remembers its last transaction and its reply: the same request sent
again (after a garbled or lost reply) gets the same reply again and is not executed twice, so a
retried ``DEAL`` never deals a second card.

A card is ``<rank><suit>/<back>``: rank ``A 2-9 T J Q K``, suit ``S H D C``, and the back
colour of its deck (``AS/RED``): what the shuffler's recognition reads from the index corner
and the back. Cards of decks with the same back cannot be told apart, by a shuffler or by us.
The card, its wire form and the ids of physical cards are :mod:`bench.games.physical_cards`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from bench.games.physical_cards import Card, parse_card, valid_back
from drivers import line_frame
from drivers.line_frame import Frame, encode
from drivers.serial_link import FrameError

__all__ = [
    "CARDS_PER_PAGE", "Ack", "Condition", "DealtCard", "Frame", "FrameError", "LoadSource", "Mode", "Page",
    "ShuffleDone", "ShufflerState", "ShufflerStatus", "Stop", "decode", "encode", "parse_ack", "parse_dealt",
    "parse_page", "parse_shuffled", "parse_status", "parse_stop", "parse_tx",
]

CARDS_PER_PAGE = 52
"""Cards per ``INV`` or ``TRAY`` page (one deck): frames stay under 400 bytes."""


def decode(raw: bytes) -> Frame:
    """Decode one CS line; :class:`FrameError` names what is wrong with it."""
    return line_frame.decode(raw, "CS")


# -- vocabulary ---------------------------------------------------------------------------------


class Mode(StrEnum):
    """How the machine uses its cards."""

    BATCH = "BATCH"
    CONTINUOUS = "CONTINUOUS"
    ALTERNATE = "ALTERNATE"


class ShufflerState(StrEnum):
    """The machine's state (field 1 of ``STATUS``)."""

    READY = "READY"
    SHUFFLING = "SHUFFLING"
    JAM = "JAM"
    DOOR_OPEN = "DOOR_OPEN"
    DAMAGED = "DAMAGED"


class Condition(StrEnum):
    """A dealt card's condition as the machine sees it."""

    OK = "OK"
    DAMAGED = "DAMAGED"


class LoadSource(StrEnum):
    """Where the cards put into the loading tray come from."""

    NEW = "NEW"
    """New decks in factory order (:func:`bench.games.physical_cards.factory_order`)."""
    UNLOADED = "UNLOADED"
    """The stack last unloaded, in the order it came out (top first)."""


# -- replies ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stop:
    """The machine did not do what was asked, and says why (frame ``STOP``): never a card.

    ``state`` is the machine's state at that moment, ``reason`` an upper-case code
    (``JAM``, ``DAMAGED``, ``DOOR_OPEN``, ``SHUFFLING``, ``EMPTY``, ``NOT_SHUFFLED``, ...).
    """

    tx: int
    state: ShufflerState
    reason: str
    raw: bytes


@dataclass(frozen=True)
class Ack:
    """A request carried out (frame ``ACK``): the request type and its result fields."""

    tx: int
    request: str
    fields: tuple[str, ...]
    raw: bytes


@dataclass(frozen=True)
class DealtCard:
    """One card delivered by the shoe (frame ``CARD``)."""

    tx: int
    deal: int
    """The machine's deal counter (every card delivered since manufacture, non-volatile)."""
    card: Card
    condition: Condition
    raw: bytes

    @property
    def damaged(self) -> bool:
        return self.condition is Condition.DAMAGED


@dataclass(frozen=True)
class ShuffleDone:
    """A completed shuffle (frame ``SHUFFLED``)."""

    tx: int
    shuffle: int
    """The machine's shuffle counter (non-volatile)."""
    back: str | None
    """Back colour of the deck now in the shoe (two-deck mode), else None."""
    cards: int
    """Cards in the shoe after the shuffle."""
    raw: bytes


@dataclass(frozen=True)
class ShufflerStatus:
    """The machine's state (frame ``STATUS``)."""

    state: ShufflerState
    warning_light: bool
    door_open: bool
    mode: Mode
    inside: int
    out: int
    shuffles: int
    deals: int
    tx: int
    raw: bytes


@dataclass(frozen=True)
class Page:
    """One page of an ``INV`` or ``TRAY`` listing."""

    kind: str
    """``IN``/``OUT`` for an inventory page, ``TRAY`` for the output tray."""
    page: int
    pages: int
    count: int
    tx: int
    cards: tuple[Card, ...]
    raw: bytes


def _integer(frame: Frame, index: int, name: str, minimum: int = 0) -> int:
    try:
        value = int(frame.fields[index])
    except (IndexError, ValueError) as error:
        raise FrameError(f"{frame.type} {name} must be an integer", frame.raw) from error
    if value < minimum:
        raise FrameError(f"{frame.type} {name} {value} must be at least {minimum}", frame.raw)
    return value


def _cards(frame: Frame, texts: Sequence[str]) -> tuple[Card, ...]:
    try:
        return tuple(parse_card(text) for text in texts)
    except ValueError as error:
        raise FrameError(f"bad card in {frame.type} ({error})", frame.raw) from error


def parse_tx(frame: Frame) -> int:
    """The transaction number a reply echoes (field 1 of ``ACK``, ``CARD``, ``SHUFFLED``, ``STOP``)."""
    return _integer(frame, 0, "transaction number", 1)


def parse_stop(frame: Frame) -> Stop:
    """Fields of a ``STOP`` frame: tx, state, reason."""
    if frame.type != "STOP" or len(frame.fields) != 3:
        raise FrameError("STOP frame needs tx, state and reason", frame.raw)
    try:
        state = ShufflerState(frame.fields[1])
    except ValueError as error:
        raise FrameError(f"unknown shuffler state {frame.fields[1]!r}", frame.raw) from error
    if not frame.fields[2]:
        raise FrameError("STOP frame needs a reason", frame.raw)
    return Stop(parse_tx(frame), state, frame.fields[2], frame.raw)


def parse_ack(frame: Frame, request: str) -> Ack:
    """Fields of an ``ACK`` frame for ``request``: tx, request type, results."""
    if frame.type != "ACK" or len(frame.fields) < 2:
        raise FrameError("ACK frame needs tx and request", frame.raw)
    if frame.fields[1] != request:
        raise FrameError(f"ACK is for {frame.fields[1]!r}, not {request!r}", frame.raw)
    return Ack(parse_tx(frame), request, frame.fields[2:], frame.raw)


def parse_dealt(frame: Frame) -> DealtCard:
    """Fields of a ``CARD`` frame: tx, deal number, card, condition."""
    if frame.type != "CARD" or len(frame.fields) != 4:
        raise FrameError("CARD frame needs tx, deal, card and condition", frame.raw)
    card = _cards(frame, frame.fields[2:3])[0]
    try:
        condition = Condition(frame.fields[3])
    except ValueError as error:
        raise FrameError(f"card condition must be OK or DAMAGED, got {frame.fields[3]!r}", frame.raw) from error
    return DealtCard(parse_tx(frame), _integer(frame, 1, "deal number", 1), card, condition, frame.raw)


def parse_shuffled(frame: Frame) -> ShuffleDone:
    """Fields of a ``SHUFFLED`` frame: tx, shuffle number, back colour (may be empty), cards."""
    if frame.type != "SHUFFLED" or len(frame.fields) != 4:
        raise FrameError("SHUFFLED frame needs tx, shuffle, back and cards", frame.raw)
    back = frame.fields[2] or None
    if back is not None and not valid_back(back):
        raise FrameError(f"bad back colour {back!r}", frame.raw)
    return ShuffleDone(parse_tx(frame), _integer(frame, 1, "shuffle number", 1), back,
                       _integer(frame, 3, "card count"), frame.raw)


def _flag(frame: Frame, index: int, on: str, off: str) -> bool:
    value = frame.fields[index]
    if value not in (on, off):
        raise FrameError(f"STATUS field {index + 1} must be {on} or {off}, got {value!r}", frame.raw)
    return value == on


def parse_status(frame: Frame) -> ShufflerStatus:
    """Fields of a ``STATUS`` frame: state, light, door, mode, inside, out, shuffles, deals, tx."""
    if frame.type != "STATUS" or len(frame.fields) != 9:
        raise FrameError("STATUS frame needs 9 fields", frame.raw)
    try:
        state, mode = ShufflerState(frame.fields[0]), Mode(frame.fields[3])
    except ValueError as error:
        raise FrameError(f"bad STATUS state or mode ({error})", frame.raw) from error
    return ShufflerStatus(
        state=state,
        warning_light=_flag(frame, 1, "ON", "OFF"),
        door_open=_flag(frame, 2, "OPEN", "CLOSED"),
        mode=mode,
        inside=_integer(frame, 4, "inside count"),
        out=_integer(frame, 5, "out count"),
        shuffles=_integer(frame, 6, "shuffle count"),
        deals=_integer(frame, 7, "deal count"),
        tx=_integer(frame, 8, "transaction number"),
        raw=frame.raw,
    )


def parse_page(frame: Frame, kind: str, page: int) -> Page:
    """Fields of an ``INV`` (kind ``IN``/``OUT``) or ``TRAY`` page; it must be the page asked for, and consistent."""
    if kind == "TRAY":
        if frame.type != "TRAY" or len(frame.fields) < 4:
            raise FrameError("TRAY frame needs page, pages, count and tx", frame.raw)
        fields = frame.fields
    else:
        if frame.type != "INV" or len(frame.fields) < 5:
            raise FrameError("INV frame needs kind, page, pages, count and tx", frame.raw)
        if frame.fields[0] != kind:
            raise FrameError(f"INV page is of {frame.fields[0]!r}, not {kind!r}", frame.raw)
        fields = frame.fields[1:]
    shifted = Frame(frame.type, fields, frame.raw)
    number, pages = _integer(shifted, 0, "page", 1), _integer(shifted, 1, "page count", 1)
    count, tx = _integer(shifted, 2, "card count"), _integer(shifted, 3, "transaction number")
    cards = _cards(frame, fields[4:])
    if number != page:
        raise FrameError(f"{frame.type} page {number} sent, page {page} asked for", frame.raw)
    if number > pages:
        raise FrameError(f"{frame.type} page {number} beyond page count {pages}", frame.raw)
    expected = min(CARDS_PER_PAGE, max(0, count - CARDS_PER_PAGE * (number - 1)))
    if len(cards) != expected or pages != max(1, -(-count // CARDS_PER_PAGE)):
        raise FrameError(f"{frame.type} page {number} of {pages} carries {len(cards)} cards, "
                         f"{expected} expected for {count} cards", frame.raw)
    return Page(kind, number, pages, count, tx, cards, frame.raw)
