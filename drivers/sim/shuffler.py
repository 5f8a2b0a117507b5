"""Simulated automatic card shuffler with card recognition, speaking the CS protocol.

The machine holds its cards in three places: the shoe (shuffled, dealt from the top), the
discard rack (inside, waiting for the next shuffle: cards just loaded, cards returned in batch
mode, the resting deck in two-deck mode) and, outside it, the cards dealt and not yet returned
("out"). Modes (``MODE``): ``BATCH`` (a shuffle mixes everything inside into the shoe),
``CONTINUOUS`` (returned cards are mixed back into the shoe at once, p217-2007/blackjack/57),
``ALTERNATE`` (two decks of different backs, each shuffle brings the other deck into the shoe,
p217-2007/poquer-nao-bancado/76).

Shuffle models (profile ``simulator.model``, :mod:`bench.games.shuffle_models`): ``fair``
(Fisher-Yates on numpy's PCG64), ``riffle`` (``riffles`` Gilbert-Shannon-Reeds riffles),
``clumped``. Faults, each drawn from its own generator seeded ``(seed, stream, counter)`` with
non-volatile counters, so a restarted simulator continues reproducibly: jams and damaged cards
per deal, misreads per card read (deal, unload), lost and duplicated cards per shuffle, garbled
reply frames. The whole machine (cards, counters, jam, door, last transaction and its reply)
lives in the state file: a power cycle does not take the cards out of a shuffler.

``DOOR`` models the operator opening and closing the lid (a real shuffler refuses it:
``NAK,DOOR,OPERATOR_ONLY``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from bench.games.physical_cards import RANKS, SUITS, Card, factory_order, parse_card
from bench.games.shuffle_models import shuffle
from bench.profiles.shuffler import ShufflerSimulator
from drivers.line_frame import encode_identity
from drivers.serial_link import FrameError
from drivers.shuffler_protocol import CARDS_PER_PAGE, LoadSource, Mode, ShufflerState, decode, encode
from drivers.sim.line_simulator import run_line_simulator
from drivers.sim.pty_server import Handler, Reply
from drivers.sim.state_file import load_state, save_state
from drivers.sim.wire_faults import ChecksumGarbler

TRANSACTIONS = ("MODE", "LOAD", "SHUFFLE", "DEAL", "RETURN", "UNLOAD", "CLEAR", "DOOR")
_SHUFFLE_STREAM, _DEAL_STREAM, _UNLOAD_STREAM, _GARBLE_STREAM = 1, 2, 3, 9
_MODEL_NAMES = {"fair": "fisher-yates", "riffle": "riffle", "clumped": "clumped"}


class Refused(Exception):
    """A transaction the request's own fields make impossible: NAK, the transaction is not used up."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _codes(cards: Iterable[Card]) -> list[str]:
    return [card.code for card in cards]


def _cards(codes: Iterable[str]) -> list[Card]:
    return [parse_card(code) for code in codes]


def _sort_key(card: Card) -> tuple[str, int, int]:
    return card.back, SUITS.index(card.suit), RANKS.index(card.rank)


class ShufflerMachine:
    """The machine's cards, counters and state, and what each transaction does to them."""

    def __init__(self, config: ShufflerSimulator, state_file: Path | None = None) -> None:
        self.config = config
        self.state_file = state_file
        state = load_state(state_file, "card shuffler")
        cards = lambda key: [parse_card(code) for code in state.get(key, [])]
        self.mode = Mode(state.get("mode", Mode.BATCH))
        self.backs: list[str] = list(state.get("backs", []))
        self.shoe: list[Card] = cards("shoe")
        self.discard: list[Card] = cards("discard")
        self.out: list[tuple[Card, Card]] = [(parse_card(a), parse_card(b)) for a, b in state.get("out", [])]
        """Cards dealt and not returned: (physical card, card as read at the deal)."""
        self.tray: list[Card] = cards("tray")
        self.tray_read: list[Card] = cards("tray_read")
        self.lost: list[Card] = cards("lost")
        self.shuffled = bool(state.get("shuffled", False))
        self.active_back: str | None = state.get("active_back")
        self.jam = bool(state.get("jam", False))
        self.damaged = bool(state.get("damaged", False))
        self.door_open = bool(state.get("door_open", False))
        self.shuffles = int(state.get("shuffles", 0))
        self.deals = int(state.get("deals", 0))
        self.deal_draws = int(state.get("deal_draws", 0))
        self.unloads = int(state.get("unloads", 0))
        self.tx = int(state.get("tx", 0))
        self.last_request: str = state.get("last_request", "")
        self.last_reply: bytes = str(state.get("last_reply", "")).encode("ascii")
        self.busy_until = 0.0  # a shuffle in progress (not kept: a power cycle ends it)

    # -- persistence and state ----------------------------------------------------------------

    def save(self) -> None:
        codes = lambda cards: [card.code for card in cards]
        save_state(self.state_file, {
            "mode": self.mode.value, "backs": self.backs, "shoe": codes(self.shoe), "discard": codes(self.discard),
            "out": [[a.code, b.code] for a, b in self.out], "tray": codes(self.tray),
            "tray_read": codes(self.tray_read), "lost": codes(self.lost), "shuffled": self.shuffled,
            "active_back": self.active_back, "jam": self.jam, "damaged": self.damaged, "door_open": self.door_open,
            "shuffles": self.shuffles, "deals": self.deals, "deal_draws": self.deal_draws, "unloads": self.unloads,
            "tx": self.tx, "last_request": self.last_request, "last_reply": self.last_reply.decode("ascii"),
        })

    @property
    def busy(self) -> bool:
        return time.monotonic() < self.busy_until

    def state(self) -> ShufflerState:
        if self.busy:
            return ShufflerState.SHUFFLING
        if self.door_open:
            return ShufflerState.DOOR_OPEN
        if self.jam:
            return ShufflerState.JAM
        if self.damaged:
            return ShufflerState.DAMAGED
        return ShufflerState.READY

    @property
    def inside(self) -> list[Card]:
        return self.shoe + self.discard

    def status_frame(self) -> bytes:
        return encode("STATUS", self.state().value, "ON" if self.jam or self.damaged else "OFF",
                      "OPEN" if self.door_open else "CLOSED", self.mode.value, len(self.inside), len(self.out),
                      self.shuffles, self.deals, self.tx)

    def _stop(self, tx: int, reason: str) -> bytes:
        return encode("STOP", tx, self.state().value, reason)

    def _not_ready(self, tx: int) -> bytes | None:
        state = self.state()
        return None if state is ShufflerState.READY else self._stop(tx, state.value)

    # -- the mechanism -----------------------------------------------------------------------------

    def _mix(self, cards: list[Card]) -> list[Card]:
        """One shuffle pass of ``cards`` (top first) with the model and the per-shuffle faults."""
        self.shuffles += 1
        rng = np.random.default_rng([self.config.seed, _SHUFFLE_STREAM, self.shuffles])
        cards = list(cards)
        lose, duplicate = rng.random(2)
        if lose < self.config.lost_card_rate and cards:
            self.lost.append(cards.pop(int(rng.integers(len(cards)))))
        if duplicate < self.config.duplicate_card_rate and cards:
            cards.insert(int(rng.integers(len(cards) + 1)), cards[int(rng.integers(len(cards)))])
        if len(cards) < 2:
            return cards
        order = shuffle(len(cards), rng, _MODEL_NAMES[self.config.model],  # type: ignore[arg-type]
                        riffles=self.config.riffles, mean_clump=self.config.mean_clump)[0]
        return [cards[int(index)] for index in order]

    def _misread(self, card: Card, rng: np.random.Generator) -> Card:
        """Another card of the same back, uniformly: what a recognition error reports."""
        true_index = 13 * SUITS.index(card.suit) + RANKS.index(card.rank)
        other = int(rng.integers(51))
        other += other >= true_index
        return Card(card.back, SUITS[other // 13], RANKS[other % 13])

    # -- transactions ------------------------------------------------------------------------------

    def do_mode(self, tx: int, fields: tuple[str, ...]) -> tuple[bytes, float]:
        try:
            mode = Mode(fields[0]) if len(fields) == 1 else None
        except ValueError:
            mode = None
        if mode is None:
            raise Refused("BAD_MODE")
        if self.inside or self.out:
            return self._stop(tx, "NOT_EMPTY"), 0.0
        self.mode = mode
        return encode("ACK", tx, "MODE", mode.value), 0.0

    def do_load(self, tx: int, fields: tuple[str, ...]) -> tuple[bytes, float]:
        try:
            source = LoadSource(fields[0])
            backs = list(fields[1:])
            factory_order(backs)  # validates every back colour
        except (IndexError, ValueError) as error:
            raise Refused("BAD_FIELDS") from error
        if not 1 <= len(backs) <= 8:
            raise Refused("BAD_FIELDS")
        if (refusal := self._not_ready(tx)) is not None:
            return refusal, 0.0
        if self.inside:
            return self._stop(tx, "NOT_EMPTY"), 0.0
        if self.mode is Mode.ALTERNATE and (len(backs) != 2 or backs[0] == backs[1]):
            return self._stop(tx, "BAD_DECKS"), 0.0
        if source is LoadSource.NEW:
            cards = list(factory_order(backs))
        else:
            if not self.tray:
                return self._stop(tx, "NO_TRAY"), 0.0
            if {card.back for card in self.tray} != set(backs):
                return self._stop(tx, "BAD_DECKS"), 0.0
            cards = list(self.tray)
        self.tray, self.tray_read = [], []
        self.backs, self.discard, self.shoe, self.out = backs, cards, [], []
        self.shuffled, self.active_back = False, None
        return encode("ACK", tx, "LOAD", len(cards)), 0.0

    def do_shuffle(self, tx: int, fields: tuple[str, ...]) -> tuple[bytes, float]:
        if fields:
            raise Refused("BAD_FIELDS")
        if (refusal := self._not_ready(tx)) is not None:
            return refusal, 0.0
        back = ""
        if self.mode is Mode.ALTERNATE:
            self.discard, self.shoe = self.shoe + self.discard, []
            if self.config.alternation_fault == "same-deck" or self.active_back is None:
                back = self.active_back or self.backs[0]
            else:
                back = self.backs[1 - self.backs.index(self.active_back)]
            cards = [card for card in self.discard if card.back == back]
            self.discard = [card for card in self.discard if card.back != back]
        else:
            cards, self.discard = self.shoe + self.discard, []
        if not cards:
            self.discard = cards + self.discard
            return self._stop(tx, "EMPTY"), 0.0
        self.shoe = self._mix(cards)
        self.shuffled, self.active_back = True, back or None
        self.busy_until = time.monotonic() + self.config.shuffle_time_s
        return encode("SHUFFLED", tx, self.shuffles, back, len(self.shoe)), self.config.shuffle_time_s

    def do_deal(self, tx: int, fields: tuple[str, ...]) -> tuple[bytes, float]:
        if fields:
            raise Refused("BAD_FIELDS")
        if (refusal := self._not_ready(tx)) is not None:
            return refusal, 0.0
        if not self.shuffled:
            return self._stop(tx, "NOT_SHUFFLED"), 0.0
        if not self.shoe:
            return self._stop(tx, "EMPTY"), 0.0
        self.deal_draws += 1
        rng = np.random.default_rng([self.config.seed, _DEAL_STREAM, self.deal_draws])
        jam, damaged, misread = rng.random(3)
        if jam < self.config.jam_rate:
            self.jam = True  # the card stays at the top of the shoe, stuck in the delivery path
            return self._stop(tx, "CARD_JAMMED"), 0.0
        card = self.shoe.pop(0)
        self.deals += 1
        read = self._misread(card, rng) if misread < self.config.misread_rate else card
        self.out.append((card, read))
        self.damaged = bool(damaged < self.config.damaged_card_rate)
        return encode("CARD", tx, self.deals, read.code, "DAMAGED" if self.damaged else "OK"), 0.0

    def do_return(self, tx: int, fields: tuple[str, ...]) -> tuple[bytes, float]:
        try:
            named = [parse_card(text) for text in fields]
        except ValueError as error:
            raise Refused("BAD_FIELDS") from error
        if self.busy:
            return self._stop(tx, ShufflerState.SHUFFLING.value), 0.0
        remaining = list(self.out)
        returned: list[Card] = []
        for card in named or [read for _, read in self.out]:
            match = next((index for index, (_, read) in enumerate(remaining) if read == card), None)
            if match is None:
                raise Refused("NOT_OUT")
            returned.append(remaining.pop(match)[0])
        self.out = remaining
        if self.mode is Mode.CONTINUOUS and self.shuffled:
            self.shoe = self._mix(self.shoe + returned)
        else:
            self.discard.extend(returned)
        return encode("ACK", tx, "RETURN", len(returned), len(self.inside), len(self.out)), 0.0

    def do_unload(self, tx: int, fields: tuple[str, ...]) -> tuple[bytes, float]:
        if fields:
            raise Refused("BAD_FIELDS")
        if (refusal := self._not_ready(tx)) is not None:
            return refusal, 0.0
        cards = self.inside
        self.unloads += 1
        rng = np.random.default_rng([self.config.seed, _UNLOAD_STREAM, self.unloads])
        misreads = rng.random(len(cards)) < self.config.misread_rate
        self.tray = cards
        self.tray_read = [self._misread(card, rng) if wrong else card for card, wrong in zip(cards, misreads,
                                                                                           strict=True)]
        forgotten = len(self.out)
        self.shoe, self.discard, self.out, self.shuffled, self.active_back = [], [], [], False, None
        return encode("ACK", tx, "UNLOAD", len(cards), forgotten), 0.0

    def do_clear(self, tx: int, fields: tuple[str, ...]) -> tuple[bytes, float]:
        if fields:
            raise Refused("BAD_FIELDS")
        if self.busy:
            return self._stop(tx, ShufflerState.SHUFFLING.value), 0.0
        if self.jam and not self.door_open:
            return self._stop(tx, "DOOR_CLOSED"), 0.0
        self.jam = self.damaged = False
        return encode("ACK", tx, "CLEAR", self.state().value), 0.0

    def do_door(self, tx: int, fields: tuple[str, ...]) -> tuple[bytes, float]:
        if fields not in (("OPEN",), ("CLOSE",)):
            raise Refused("BAD_FIELDS")
        if self.busy:
            return self._stop(tx, ShufflerState.SHUFFLING.value), 0.0
        self.door_open = fields[0] == "OPEN"
        return encode("ACK", tx, "DOOR", self.state().value), 0.0

    def transaction(self, request: str, tx: int, fields: tuple[str, ...]) -> tuple[bytes, float]:
        """Run transaction ``tx`` (new) or repeat its reply (the same request again)."""
        body = ",".join((request, str(tx), *fields))
        if tx == self.tx and body == self.last_request:
            return self.last_reply, max(0.0, self.busy_until - time.monotonic())
        if tx != self.tx + 1:
            raise Refused("BAD_SEQUENCE")
        reply, delay = getattr(self, f"do_{request.lower()}")(tx, fields)
        self.tx, self.last_request, self.last_reply = tx, body, reply
        self.save()
        return reply, delay

    def page(self, kind: str, number: int) -> bytes:
        """One page of the inventory inside (``IN``, sorted), out (``OUT``, sorted) or of the tray (``TRAY``)."""
        if kind == "IN":
            cards = sorted(self.inside, key=_sort_key)
        elif kind == "OUT":
            cards = sorted((read for _, read in self.out), key=_sort_key)
        else:
            cards = self.tray_read
        pages = max(1, -(-len(cards) // CARDS_PER_PAGE))
        if not 1 <= number <= pages:
            raise Refused("BAD_PAGE")
        chunk = [card.code for card in cards[CARDS_PER_PAGE * (number - 1): CARDS_PER_PAGE * number]]
        head = (number, pages, len(cards), self.tx)
        return encode("TRAY", *head, *chunk) if kind == "TRAY" else encode("INV", kind, *head, *chunk)


class ShufflerDevice:
    """Answers CS protocol requests for one :class:`ShufflerMachine`."""

    def __init__(self, machine: ShufflerMachine, identity: dict[str, str]) -> None:
        self.machine = machine
        self.identity = identity
        self._line = ChecksumGarbler(machine.config.garble_rate, machine.config.seed, _GARBLE_STREAM)

    def reply(self, line: bytes) -> tuple[bytes, float]:
        """The reply frame to one request line and the delay before it is sent."""
        try:
            frame = decode(line)
        except FrameError:
            return encode("NAK", "?", "BAD_FRAME"), 0.0
        machine = self.machine
        try:
            if frame.type in TRANSACTIONS:
                try:
                    tx = int(frame.fields[0])
                except (IndexError, ValueError):
                    return encode("NAK", frame.type, "BAD_TX"), 0.0
                reply, delay = machine.transaction(frame.type, tx, frame.fields[1:])
                return self._line(reply), delay
            if frame.type == "ID?":
                return self._line(encode_identity(self.identity)), 0.0
            if frame.type == "STATUS?":
                return self._line(machine.status_frame()), 0.0
            if frame.type in ("INV?", "TRAY?"):
                kind = frame.fields[0] if frame.type == "INV?" and frame.fields else "TRAY"
                if kind not in ("IN", "OUT", "TRAY") or len(frame.fields) != (2 if frame.type == "INV?" else 1):
                    raise Refused("BAD_FIELDS")
                try:
                    number = int(frame.fields[-1])
                except ValueError as error:
                    raise Refused("BAD_PAGE") from error
                return self._line(machine.page(kind, number)), 0.0
        except Refused as refusal:
            return encode("NAK", frame.type, refusal.reason), 0.0
        return encode("NAK", frame.type, "UNKNOWN_COMMAND"), 0.0

    def handle(self, line: bytes) -> Iterable[Reply]:
        reply, delay = self.reply(line)
        return [(delay, reply)]


def boot(simulator: ShufflerSimulator, config: dict[str, Any], state_file: Path | None) -> Handler:
    """What the shuffler does at power-up: reload its non-volatile memory."""
    return ShufflerDevice(ShufflerMachine(simulator, state_file), config.get("identity", {})).handle


def main(argv: list[str] | None = None) -> int:
    return run_line_simulator("Simulated card shuffler (CS protocol) on a pseudo-terminal", ShufflerSimulator, boot,
                              argv)

if __name__ == "__main__":
    sys.exit(main())
