"""The JP line protocol: how a table-game jackpot controller and its display talk to the bench.

Documented for manufacturers in ``docs/protocols/jackpot-display.md``. Frames use the bench's
line framing (:mod:`drivers.line_frame`, ``$TYPE,f1,f2*CC``). This module builds requests and
parses every reply; :mod:`drivers.jackpot` drives a controller with it and
:mod:`drivers.sim.jackpot_controller` simulates one.

Money is always a whole number of cents on the wire and in Python (never a float); an increment
percentage is a plain decimal with at most 4 decimals (``70``, ``2.5``), read as
:class:`~decimal.Decimal`.

Requests that change the controller (``BET``, ``HIT``, ``RESET``) carry a transaction number
``tx`` (the controller's last one plus 1). The controller remembers its last transaction and its
reply: the same request sent again (after a garbled or lost reply) gets the same reply again and
is not executed twice, so a retried ``BET`` never adds its contribution twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from bench.games.jackpot_rules import Hit, Payout, PayTable, Prize, PrizeKind, parse_percent
from drivers import line_frame
from drivers.line_frame import Frame, encode, whole_number
from drivers.serial_link import FrameError

__all__ = [
    "GAMES", "TRANSACTIONS", "DisplayReading", "Frame", "FrameError", "HitSettlement", "JackpotConfiguration",
    "JackpotStatus", "LevelState", "LevelValues", "decode", "encode", "encode_hit", "format_display",
    "parse_bet_ack", "parse_configuration", "parse_display", "parse_display_amount", "parse_level",
    "parse_paid", "parse_pay_table", "parse_reset_ack", "parse_status", "parse_tx", "parse_values",
    "pay_table_fields",
]

GAMES = ("poquer-sem-descarte", "blackjack")
TRANSACTIONS = ("BET", "HIT", "RESET")
MAX_LEVELS = 8


def decode(raw: bytes) -> Frame:
    """Decode one JP line; :class:`FrameError` names what is wrong with it."""
    return line_frame.decode(raw, "JP")


# -- replies ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JackpotConfiguration:
    """What the controller is set up for (frame ``CONF``): game, jackpot bet, number of levels."""

    game: str
    jackpot_bet_cents: int
    levels: int
    raw: bytes


@dataclass(frozen=True)
class LevelState:
    """One jackpot level (frame ``LEVEL``): current value, start (reset) value and increment percentage."""

    level: int
    value_cents: int
    start_cents: int
    increment_percent: Decimal
    tx: int
    raw: bytes


@dataclass(frozen=True)
class LevelValues:
    """Every level's current value (frame ``VAL`` or the ``ACK`` to a ``BET``), level 1 first."""

    tx: int
    values: tuple[int, ...]
    raw: bytes


@dataclass(frozen=True)
class DisplayReading:
    """What the display shows for a level (frame ``DISP``) and the amount read from it (None: no amount shown)."""

    level: int
    text: str
    amount_cents: int | None
    raw: bytes


@dataclass(frozen=True)
class JackpotStatus:
    """The controller's meters (frame ``STATUS``), kept over a power cycle."""

    tx: int
    bets: int
    bet_total_cents: int
    hits: int
    paid_total_cents: int
    raw: bytes


@dataclass(frozen=True)
class HitSettlement:
    """The controller's payment of a round's winning hands (frame ``PAID``), payments in the order made."""

    tx: int
    level: int
    pool_before_cents: int
    pool_after_cents: int
    payouts: tuple[Payout, ...]
    raw: bytes

    @property
    def paid_cents(self) -> int:
        return sum(payout.amount_cents for payout in self.payouts)


def _expect(frame: Frame, frame_type: str, count: int | None, what: str, *, at_least: bool = False) -> None:
    if frame.type != frame_type:
        raise FrameError(f"expected a {frame_type} frame, got {frame.type}", frame.raw)
    if count is not None and (len(frame.fields) < count if at_least else len(frame.fields) != count):
        raise FrameError(f"{frame_type} frame needs {what}", frame.raw)


def parse_tx(frame: Frame) -> int:
    """The transaction number a transaction reply echoes (field 1 of ``ACK``, ``PAID``)."""
    return whole_number(frame, 0, "transaction number", 1)


def parse_configuration(frame: Frame) -> JackpotConfiguration:
    """Fields of a ``CONF`` frame: game, jackpot bet (cents), number of levels."""
    _expect(frame, "CONF", 3, "game, jackpot bet and levels")
    if frame.fields[0] not in GAMES:
        raise FrameError(f"CONF game {frame.fields[0]!r} is not one of {', '.join(GAMES)}", frame.raw)
    levels = whole_number(frame, 2, "level count", 1)
    if levels > MAX_LEVELS:
        raise FrameError(f"CONF level count {levels} above {MAX_LEVELS}", frame.raw)
    return JackpotConfiguration(frame.fields[0], whole_number(frame, 1, "jackpot bet", 1), levels, frame.raw)


def parse_level(frame: Frame, level: int) -> LevelState:
    """Fields of a ``LEVEL`` frame: level, value, start value (cents), increment percentage, tx; the level asked for."""
    _expect(frame, "LEVEL", 5, "level, value, start, percentage and tx")
    number = whole_number(frame, 0, "level", 1)
    if number != level:
        raise FrameError(f"LEVEL {number} sent, level {level} asked for", frame.raw)
    try:
        percent = parse_percent(frame.fields[3])
    except ValueError as error:
        raise FrameError(f"LEVEL increment ({error})", frame.raw) from error
    return LevelState(number, whole_number(frame, 1, "value"), whole_number(frame, 2, "start value", 1), percent,
                      whole_number(frame, 4, "transaction number"), frame.raw)


def _values(frame: Frame, fields: tuple[str, ...], levels: int | None) -> tuple[int, ...]:
    if not fields:
        raise FrameError(f"{frame.type} carries no level value", frame.raw)
    if levels is not None and len(fields) != levels:
        raise FrameError(f"{frame.type} carries {len(fields)} level values, the controller has {levels}", frame.raw)
    shifted = Frame(frame.type, fields, frame.raw)
    return tuple(whole_number(shifted, index, f"level {index + 1} value") for index in range(len(fields)))


def parse_values(frame: Frame, levels: int | None = None) -> LevelValues:
    """Fields of a ``VAL`` frame: tx, then each level's value in cents."""
    _expect(frame, "VAL", 2, "tx and at least one level value", at_least=True)
    return LevelValues(whole_number(frame, 0, "transaction number"), _values(frame, frame.fields[1:], levels), frame.raw)


def parse_bet_ack(frame: Frame, levels: int | None = None) -> LevelValues:
    """Fields of the ``ACK`` to a ``BET``: tx, ``BET``, each level's new value in cents."""
    _expect(frame, "ACK", 3, "tx, BET and at least one level value", at_least=True)
    if frame.fields[1] != "BET":
        raise FrameError(f"ACK is for {frame.fields[1]!r}, not 'BET'", frame.raw)
    return LevelValues(parse_tx(frame), _values(frame, frame.fields[2:], levels), frame.raw)


def parse_reset_ack(frame: Frame) -> tuple[int, int, int]:
    """Fields of the ``ACK`` to a ``RESET``: (tx, level, the level's value after the reset)."""
    _expect(frame, "ACK", 4, "tx, RESET, level and value")
    if frame.fields[1] != "RESET":
        raise FrameError(f"ACK is for {frame.fields[1]!r}, not 'RESET'", frame.raw)
    return parse_tx(frame), whole_number(frame, 2, "level", 1), whole_number(frame, 3, "value")


def parse_status(frame: Frame) -> JackpotStatus:
    """Fields of a ``STATUS`` frame: tx, bets, bet total (cents), hits, paid total (cents)."""
    _expect(frame, "STATUS", 5, "tx, bets, bet total, hits and paid total")
    return JackpotStatus(*(whole_number(frame, index, name) for index, name in enumerate(
        ("transaction number", "bet count", "bet total", "hit count", "paid total"))), raw=frame.raw)


_SEAT = re.compile(r"^(?P<seat>[1-9]):(?P<hand>[A-Z0-9_]+):(?P<amount>\d+)(?P<short>:SHORT)?$")


def parse_paid(frame: Frame) -> HitSettlement:
    """Fields of a ``PAID`` frame: tx, level, pool before, pool after, then ``seat:hand:amount[:SHORT]`` in payment
    order."""
    _expect(frame, "PAID", 5, "tx, level, pool before, pool after and at least one payment", at_least=True)
    payouts = []
    for order, text in enumerate(frame.fields[4:], start=1):
        match = _SEAT.match(text)
        if match is None:
            raise FrameError(f"PAID payment {order} {text!r} is not seat:hand:amount", frame.raw)
        payouts.append(Payout(order, int(match["seat"]), match["hand"], int(match["amount"]), bool(match["short"])))
    return HitSettlement(parse_tx(frame), whole_number(frame, 1, "level", 1), whole_number(frame, 2, "pool before"),
                         whole_number(frame, 3, "pool after"), tuple(payouts), frame.raw)


def encode_hit(tx: int, level: int, hits: list[Hit] | tuple[Hit, ...]) -> bytes:
    """The ``HIT`` request: tx, level, then ``seat:hand`` per winning hand."""
    if not hits:
        raise ValueError("a HIT needs at least one winning hand")
    for hit in hits:
        if not 1 <= hit.seat <= 9 or not re.fullmatch(r"[A-Z0-9_]+", hit.hand):
            raise ValueError(f"bad winning hand {hit!r}: seat 1-9, hand upper-case letters, digits and '_'")
    return encode("HIT", tx, level, *(f"{hit.seat}:{hit.hand}" for hit in hits))


def format_payout(payout: Payout) -> str:
    return f"{payout.seat}:{payout.hand}:{payout.amount_cents}" + (":SHORT" if payout.short else "")


# -- pay table --------------------------------------------------------------------------------------


def pay_table_fields(table: PayTable) -> list[str]:
    """The fields of a ``PAYTABLE`` reply: ``hand:kind:value:S|E`` (S shared among winners, E each paid), top first."""
    return [f"{p.hand}:{p.kind.value}:{p.value}:{'S' if p.shared else 'E'}" for p in table.prizes]


def parse_pay_table(frame: Frame) -> PayTable:
    """Fields of a ``PAYTABLE`` frame: the controller's jackpot pay table, top combination first."""
    _expect(frame, "PAYTABLE", 1, "at least one prize", at_least=True)
    prizes = []
    for text in frame.fields:
        parts = text.split(":")
        try:
            hand, kind, value, shared = parts
            if shared not in ("S", "E"):
                raise ValueError(f"sharing flag {shared!r} must be S or E")
            prizes.append(Prize(hand, PrizeKind(kind), Fraction(value), shared == "S"))
        except ValueError as error:
            raise FrameError(f"PAYTABLE prize {text!r} is not hand:kind:value:S|E ({error})", frame.raw) from error
    try:
        return PayTable(tuple(prizes))
    except ValueError as error:
        raise FrameError(f"PAYTABLE is not a valid pay table ({error})", frame.raw) from error


# -- display ----------------------------------------------------------------------------------------

_AMOUNT = re.compile(r"(?<![\d.,])(?P<euros>\d{1,3}(?:\.\d{3})*),(?P<cents>\d{2})(?![\d,])")


def format_display(cents: int, label: str = "JACKPOT", currency: str = "EUR") -> str:
    """The text a display shows for ``cents``, Portuguese style: ``JACKPOT 12.345,67 EUR``."""
    if not isinstance(cents, int) or cents < 0:
        raise ValueError(f"display amount must be a non-negative whole number of cents, got {cents!r}")
    euros = f"{cents // 100:,}".replace(",", ".")
    return f"{label} {euros},{cents % 100:02d} {currency}"


def parse_display_amount(text: str) -> int | None:
    """The amount in cents a display text shows (``12.345,67`` -> 1234567); None when it shows none.

    ValueError when the text shows more than one amount (which one is the jackpot cannot be told).
    """
    matches = list(_AMOUNT.finditer(text))
    if len(matches) > 1:
        raise ValueError(f"display text {text!r} shows {len(matches)} amounts")
    if not matches:
        return None
    return int(matches[0]["euros"].replace(".", "")) * 100 + int(matches[0]["cents"])


def parse_display(frame: Frame, level: int) -> DisplayReading:
    """Fields of a ``DISP`` frame: level, then the display text (the rest of the frame: it may contain commas)."""
    _expect(frame, "DISP", 2, "level and text", at_least=True)
    number = whole_number(frame, 0, "level", 1)
    if number != level:
        raise FrameError(f"DISP of level {number} sent, level {level} asked for", frame.raw)
    text = ",".join(frame.fields[1:])
    try:
        amount = parse_display_amount(text)
    except ValueError as error:
        raise FrameError(f"DISP text ambiguous ({error})", frame.raw) from error
    return DisplayReading(number, text, amount, frame.raw)
