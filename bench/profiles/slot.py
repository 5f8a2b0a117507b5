"""Profile model of a slot machine on SAS: its PAR sheet, how it is certified, and its simulator.

The PAR sheet (reel strips, pay table, pay lines, denomination, credits per line, progressive
contribution) is the machine's declared math; :meth:`ParSheet.theory` gives its exact return to
player through :func:`bench.games.slots.theoretical_rtp` (p217-2007/maquinas-automaticas/2).
A real machine has ``connection`` (19,200 baud, SAS); a simulated one a ``simulator`` table.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property
from typing import Annotated, Literal

from pydantic import Field, PositiveFloat, PositiveInt, model_validator

from bench.games import slots
from bench.games.slots import DENOMINATIONS_CENTS
from bench.profiles.base import EquipmentBase, SimulatorBase, Strict

SAS_BAUDRATE = 19_200
MeterName = Literal["coin_in", "coin_out", "jackpot", "drop", "games_played", "games_won", "games_lost"]


class ParPay(Strict):
    """One pay-table entry: symbols (or set names, or ``"*"``) for the leftmost reels and the credits per credit."""

    pattern: list[str | list[str]] = Field(min_length=1)
    credits: Annotated[float, Field(ge=0)]


class ParSheet(Strict):
    """A slot machine's PAR sheet, as declared by its manufacturer."""

    game_id: Annotated[str, Field(min_length=1, max_length=2)] = "SB"
    additional_id: Annotated[str, Field(max_length=3)] = "000"
    paytable_id: Annotated[str, Field(min_length=1, max_length=6)]
    denomination_cents: PositiveInt = 10
    credits_per_line: Annotated[int, Field(ge=1, le=255)] = 1
    reels: list[list[str]] = Field(min_length=1)
    pays: list[ParPay] = Field(min_length=1)
    sets: dict[str, list[str]] = Field(default_factory=dict)
    wild: list[str] = Field(default_factory=list)
    lines: list[list[int]] = Field(default_factory=list)  # row per reel; empty: the centre line
    window: Annotated[int, Field(ge=1, le=9)] = 3
    progressive_group: Annotated[int, Field(ge=0, le=255)] = 0
    progressive_contribution_percent: Annotated[float, Field(ge=0.0, lt=100.0)] = 0.0
    handpay_limit_credits: PositiveInt | None = None  # wins at or above are hand paid (jackpot meter)

    @model_validator(mode="after")
    def _consistent(self) -> ParSheet:
        if self.denomination_cents not in DENOMINATIONS_CENTS.values():
            raise ValueError(f"denomination {self.denomination_cents} cents has no SAS denomination code")
        machine = self.machine  # validates reels, pays and lines
        if machine.bet_per_play * self.credits_per_line > 255:
            raise ValueError("bet per play exceeds SAS's one-byte maximum bet (255 credits)")
        for pay in self.pays:
            if Fraction(str(pay.credits)) * self.credits_per_line % 1:
                raise ValueError(f"pay {pay.pattern} of {pay.credits} per credit is not a whole number of credits "
                                 f"at {self.credits_per_line} credit(s) per line")
        if self.progressive_contribution_percent > 0 and self.progressive_group == 0:
            raise ValueError("a progressive contribution needs a progressive_group (1-255)")
        return self

    @cached_property
    def machine(self) -> slots.SlotMachine:
        table = slots.PayTable.from_mapping(
            {tuple(e if isinstance(e, str) else tuple(e) for e in pay.pattern): pay.credits for pay in self.pays},
            sets=self.sets, wild=self.wild)
        return slots.SlotMachine(tuple(tuple(reel) for reel in self.reels), table,
                                 lines=tuple(tuple(line) for line in self.lines), window=self.window)

    @cached_property
    def theory(self) -> slots.SlotTheory:
        """Exact RTP, hit frequency and variance of the declared strips and pay table."""
        return slots.theoretical_rtp(self.machine)

    @property
    def bet_per_play(self) -> int:
        """Credits bet per play: credits per line times lines."""
        return self.machine.bet_per_play * self.credits_per_line

    @property
    def bet_value_cents(self) -> int:
        """Money bet per play (p217-2007/maquinas-automaticas/10)."""
        return self.bet_per_play * self.denomination_cents


_STRIP = ["7", "BAR", "CHERRY", "BAR2", "BLANK", "BAR", "BLANK", "CHERRY", "BAR3", "BLANK", "BAR", "BLANK"]
_REELS = [_STRIP, _STRIP[::-1], [*_STRIP[1:], "WILD"]]
_SETS = {"ANY BAR": ["BAR", "BAR2", "BAR3"]}


def _pays(top: int, bar3: int, bar2: int, bar: int, any_bar: int, two_cherries: int, cherry: int) -> list[ParPay]:
    return [ParPay(pattern=["7", "7", "7"], credits=top), ParPay(pattern=["BAR3"] * 3, credits=bar3),
            ParPay(pattern=["BAR2"] * 3, credits=bar2), ParPay(pattern=["BAR"] * 3, credits=bar),
            ParPay(pattern=["ANY BAR"] * 3, credits=any_bar), ParPay(pattern=["CHERRY", "CHERRY"], credits=two_cherries),
            ParPay(pattern=["CHERRY"], credits=cherry)]


def standard_par() -> ParSheet:
    """The bench's reference PAR sheet: 3 reels of 12 stops, one line, RTP 90.39 %."""
    return ParSheet(paytable_id="SB9039", reels=_REELS, pays=_pays(100, 40, 20, 10, 5, 4, 1), sets=_SETS,
                    wild=["WILD"])


def tight_par() -> ParSheet:
    """The same reels with a meaner pay table: RTP 62.96 %, below the 80 % of p217-2007/maquinas-automaticas/2."""
    return ParSheet(paytable_id="SB6296", reels=_REELS, pays=_pays(60, 25, 12, 8, 3, 2, 1), sets=_SETS,
                    wild=["WILD"])


class SlotOptions(Strict):
    """How the slot machine is certified.

    ``par`` is the declared PAR sheet; ``address`` the machine's SAS address (1-127);
    ``framing`` how the SAS wakeup bit travels: ``wakeup-parity`` on a real UART, ``pty-escape``
    on a simulator's pseudo-terminal (default: by the connection). ``plays`` is the number of
    games the suites let the machine play, ``alpha`` their significance level.
    """

    par: ParSheet = Field(default_factory=standard_par)
    address: Annotated[int, Field(ge=1, le=127)] = 1
    framing: Literal["wakeup-parity", "pty-escape"] | None = None
    plays: Annotated[int, Field(ge=10, le=100_000_000)] = 2000
    alpha: Annotated[float, Field(gt=0.0, lt=0.5)] = 0.01
    link_down_polls: Annotated[int, Field(ge=1, le=100)] = 3
    link_down_s: PositiveFloat = 5.0


class SlotSimulator(SimulatorBase):
    """The simulated gaming machine (see :mod:`drivers.sim.slot_machine`).

    * ``fair``: plays ``par`` (filled from the options' PAR sheet when not given) with uniform reel stops.
    * ``low-return``: plays a PAR sheet returning less than 80 % (default :func:`tight_par`).
    * ``dropped-meter``: ``dropped_meter`` misses its increment in a share ``dropped_meter_rate`` of games.
    * ``volatile-meters``: meters live in RAM only; a power cycle (process restart) loses them.

    The machine plays ``plays_per_second`` games while play is enabled (SAS long polls 02/01), a bill
    of ``bill_credits`` entering the drop whenever the credits do not cover a bet. ``garble_rate``
    corrupts the CRC of that share of long poll replies; ``door_open_rate`` opens and closes the slot
    door (exceptions 11, 12) after that share of games.
    """

    model: Literal["fair", "low-return", "dropped-meter", "volatile-meters"] = "fair"
    seed: int = 20070226
    par: ParSheet | None = None
    address: Annotated[int, Field(ge=1, le=127)] | None = None  # default: the options' address
    plays_per_second: Annotated[float, Field(gt=0.0, le=100_000.0)] = 50.0
    start_enabled: bool = True
    bill_credits: PositiveInt = 100
    dropped_meter: MeterName = "coin_in"
    dropped_meter_rate: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0
    garble_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    door_open_rate: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0
    reply_delay_s: Annotated[float, Field(ge=0.0, le=10.0)] = 0.0
    line_baud: Annotated[int, Field(ge=300, le=1_000_000)] | None = 19_200
    """The simulated line's speed: a reply comes after the request's and its own time on a real SAS line
    (11-bit characters), as on a UART; ``None`` answers at memory speed."""

    @model_validator(mode="after")
    def _model_parameters(self) -> SlotSimulator:
        if self.model == "low-return":
            if self.par is None:
                self.par = tight_par()
            if self.par.theory.rtp >= slots.RTP_FLOOR:
                raise ValueError(f"model 'low-return' needs a PAR sheet returning under 80 %, "
                                 f"{self.par.paytable_id} returns {self.par.theory.rtp:.2%}")
        if self.model == "dropped-meter" and self.dropped_meter_rate == 0.0:
            raise ValueError("model 'dropped-meter' needs a dropped_meter_rate above 0")
        if self.model != "dropped-meter" and self.dropped_meter_rate > 0.0:
            raise ValueError("dropped_meter_rate applies to model 'dropped-meter' only")
        return self


class SlotMachineEquipment(EquipmentBase):
    """A slot machine (máquina automática) reporting over SAS."""

    kind: Literal["slot-machine"]
    options: SlotOptions = SlotOptions()
    simulator: SlotSimulator | None = None

    @model_validator(mode="after")
    def _connection_or_simulator(self) -> SlotMachineEquipment:
        self._check_connection(self.simulator is not None)
        if self.simulator is None:
            assert self.connection is not None
            if self.connection.baudrate != SAS_BAUDRATE:
                raise ValueError(f"SAS runs at {SAS_BAUDRATE} baud: set connection.baudrate = {SAS_BAUDRATE}")
        else:
            # the simulator process receives only simulator.model_dump(): give it the declared PAR and address
            if self.simulator.par is None:
                self.simulator.par = self.options.par
            if self.simulator.address is None:
                self.simulator.address = self.options.address
        return self

    @property
    def framing(self) -> Literal["wakeup-parity", "pty-escape"]:
        """How the wakeup bit travels: the options' choice, else escape framing for a simulator, parity for a UART."""
        if self.options.framing is not None:
            return self.options.framing
        return "pty-escape" if self.simulator is not None else "wakeup-parity"
