"""Profile model of a table-game jackpot controller and its display (póquer sem descarte, blackjack).

The options state what the regulator approved for the table (game, jackpot bet, each level's
start value and increment percentage, the jackpot pay table) and how the bench certifies it; the
simulator table chooses the simulated controller's model and faults (see
:mod:`drivers.sim.jackpot_controller`). Money is in whole cents; a percentage is decimal text
(``"70"``, ``"2.5"``, at most 4 decimals) so that no float ever touches it. Clauses served:
p461-2001/poquer-sem-descarte/3, /4, /8, /9, /10, /12; p217-2007/blackjack/40, /41, /43, /44, /50.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Annotated, Literal

from pydantic import Field, PositiveInt, field_validator, model_validator

from bench.games.jackpot_rules import (
    DEFAULT_PAY_TABLES,
    START_MULTIPLE,
    PayTable,
    Prize,
    PrizeKind,
    parse_percent,
)
from bench.profiles.base import EquipmentBase, SimulatorBase, Strict

PercentText = Annotated[str, Field(pattern=r"^\d{1,3}(\.\d{1,4})?$")]
"""A percentage as decimal text, at most 4 decimals (``"70"``, ``"2.5"``)."""
Game = Literal["poquer-sem-descarte", "blackjack"]


class JackpotLevel(Strict):
    """One jackpot level (pool): its start (reset) value in cents and the percentage of each jackpot bet it gets."""

    start_cents: PositiveInt
    increment_percent: PercentText

    @field_validator("increment_percent")
    @classmethod
    def _percent(cls, value: str) -> str:
        parse_percent(value)
        return value

    @property
    def percent(self) -> Decimal:
        return parse_percent(self.increment_percent)


class PrizeRule(Strict):
    """One line of a jackpot pay table: ``REMAINDER`` (the pool or what remains), ``PERCENT`` of the pool,
    or a ``MULTIPLE`` of the jackpot bet; ``shared``: several winners split it (else each is paid it)."""

    hand: Annotated[str, Field(pattern=r"^[A-Z0-9_]+$")]
    kind: Literal["REMAINDER", "PERCENT", "MULTIPLE"]
    value: Annotated[str, Field(pattern=r"^\d{1,6}(\.\d{1,4})?$")] = "0"
    shared: bool = False

    def prize(self) -> Prize:
        return Prize(self.hand, PrizeKind(self.kind), Fraction(self.value), self.shared)


class JackpotSetup(Strict):
    """How a jackpot controller is set up: game, jackpot bet, levels and pay table.

    ``pay_table`` empty means the game's default: p461-2001/poquer-sem-descarte/9 for póquer sem
    descarte; for blackjack the combinations are the concession's, approved by the regulator
    (p217-2007/blackjack/43), so a profile of a real blackjack table states them (the default is
    :data:`bench.games.jackpot_rules.BLACKJACK_EXAMPLE`).
    """

    game: Game = "poquer-sem-descarte"
    jackpot_bet_cents: PositiveInt = 100
    levels: Annotated[list[JackpotLevel], Field(min_length=1, max_length=8)] = Field(
        default_factory=lambda: [JackpotLevel(start_cents=1_000_000, increment_percent="70")])
    pay_table: list[PrizeRule] = Field(default_factory=list)

    @model_validator(mode="after")
    def _valid_table(self) -> JackpotSetup:
        self.prize_table()  # raises ValueError naming what is wrong
        return self

    def prize_table(self) -> PayTable:
        """The pay table: the one given, else the game's default."""
        if not self.pay_table:
            return DEFAULT_PAY_TABLES[self.game]
        return PayTable(tuple(rule.prize() for rule in self.pay_table))


class JackpotOptions(JackpotSetup):
    """What was approved for the table (the :class:`JackpotSetup` fields) and how the bench certifies it.

    ``protocol``: ``jp`` (the bench's line protocol, ``docs/protocols/jackpot-display.md``).
    ``table`` is the table number the bench registers bets under; ``bets`` how many jackpot bets the
    increment suite registers (each of ``jackpot_bet_cents``).
    """

    protocol: Literal["jp"] = "jp"
    table: Annotated[int, Field(ge=1, le=999)] = 1
    bets: Annotated[int, Field(ge=1, le=100_000)] = 200

    def setup(self) -> JackpotSetup:
        return JackpotSetup.model_validate(self.model_dump(include=set(JackpotSetup.model_fields)))


class JackpotSimulator(SimulatorBase):
    """The simulated jackpot controller (see :mod:`drivers.sim.jackpot_controller`).

    * ``fair``: exact contributions (the fraction of a cent kept), pools in non-volatile memory,
      display in step, hits paid by the pay table.
    * ``volatile``: the pools live in RAM only: a power cycle (process restart) brings every level
      back to its start value.
    * ``rounding``: each contribution computed in binary floating point and truncated to the cent,
      so cents drift away from the approved percentage.
    * ``display-lag``: the display shows the value of ``display_lag_bets`` bets ago.
    * ``low-start``: every level starts at ``low_start_multiple`` jackpot bets (below the 10 000 of
      p461-2001/poquer-sem-descarte/10 and p217-2007/blackjack/44).

    ``setup`` is the controller's own setup (filled from the options when not given);
    ``garble_rate`` corrupts the checksum of that share of replies.

    ``line = "sas"`` makes the controller a slot-machine progressive instead: no JP requests, but
    every ``sas_interval_s`` one jackpot bet is contributed (the linked machines' play) and every
    level is broadcast on the SAS line (long poll 0x80 for one level, 0x86 for several, group
    ``sas_group``, pseudo-terminal escape framing), for :class:`drivers.sas_progressive.SasProgressiveListener`.
    """

    model: Literal["fair", "volatile", "rounding", "display-lag", "low-start"] = "fair"
    seed: int = 20010406
    setup: JackpotSetup | None = None
    garble_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    display_lag_bets: Annotated[int, Field(ge=1, le=1000)] = 2
    low_start_multiple: Annotated[int, Field(ge=1, lt=START_MULTIPLE)] = 5_000
    line: Literal["jp", "sas"] = "jp"
    sas_group: Annotated[int, Field(ge=1, le=255)] = 1
    sas_interval_s: Annotated[float, Field(ge=0.01, le=60.0)] = 0.1


class JackpotEquipment(EquipmentBase):
    """A table-game jackpot controller with its display, on a serial line."""

    kind: Literal["jackpot-display"]
    options: JackpotOptions = JackpotOptions()
    simulator: JackpotSimulator | None = None

    @model_validator(mode="after")
    def _connection_or_simulator(self) -> JackpotEquipment:
        self._check_connection(self.simulator is not None)
        if self.simulator is not None and self.simulator.setup is None:
            # the simulator process receives only simulator.model_dump(): give it the approved setup
            self.simulator.setup = self.options.setup()
        return self
