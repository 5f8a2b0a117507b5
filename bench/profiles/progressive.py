"""Profile model of a slot-machine progressive controller: the host of a progressive link on SAS.

A progressive controller builds prizes from a set percentage of the amounts played on the slot
machines linked to it (Portaria 217/2007): a **jackpot** level fed by one machine
(p217-2007/maquinas-automaticas/3) and a **superjackpot** level fed by a group of linked machines,
of one casino or several (p217-2007/maquinas-automaticas/4). It broadcasts every level's amount on
the SAS line (long poll 0x86, or 0x80 for a single level, :mod:`drivers.sas_progressive`), where
the bench listens.

Each level declares its start value, its contribution percentage, its rounding and the names of the
profile's slot machines that feed it. Rounding, as the controller's maker declares it:

* ``carry-fraction``: the level is kept exactly and shown in whole cents rounded down, the fraction
  of a cent carried to the next wager and never lost; over any interval the growth shown differs
  from contribution % x coin in by less than one cent;
* ``truncate-per-wager``: each wager's contribution is rounded down to whole cents; the growth shown
  is at most contribution % x coin in and at most one cent per wager below it.

A real controller has ``connection`` (the SAS line the bench taps, 19,200 baud); a simulated one a
``simulator`` table (:mod:`drivers.sim.progressive_controller`).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field, PlainSerializer, PositiveFloat, model_validator

from bench.profiles.base import EquipmentBase, SimulatorBase, Strict

SAS_BAUDRATE = 19_200
MAX_AMOUNT_CENTS = 10**10 - 1  # 5 BCD bytes
LevelKind = Literal["jackpot", "superjackpot"]
Rounding = Literal["carry-fraction", "truncate-per-wager"]


class ProgressiveLevel(Strict):
    """One progressive level: number on the link (1-32), kind, start value, contribution and its feeders."""

    level: Annotated[int, Field(ge=1, le=32)]
    kind: LevelKind
    start_cents: Annotated[int, Field(ge=0, le=MAX_AMOUNT_CENTS)]
    contribution_percent: Annotated[Decimal, Field(gt=0, lt=100)]
    rounding: Rounding = "carry-fraction"
    machines: list[str] = Field(min_length=1)
    """Names of the profile's slot machines whose play feeds this level."""

    @model_validator(mode="after")
    def _feeders_fit_the_kind(self) -> ProgressiveLevel:
        if len(set(self.machines)) != len(self.machines):
            raise ValueError(f"level {self.level} names a machine twice: {self.machines}")
        if self.kind == "jackpot" and len(self.machines) != 1:
            raise ValueError(f"level {self.level}: a jackpot is fed by one machine (p217-2007/maquinas-automaticas/3), "
                             f"got {len(self.machines)}")
        if self.kind == "superjackpot" and len(self.machines) < 2:
            raise ValueError(f"level {self.level}: a superjackpot is fed by two or more linked machines "
                             "(p217-2007/maquinas-automaticas/4)")
        return self


class ProgressiveOptions(Strict):
    """How the progressive link is certified.

    ``group`` is the link's SAS progressive group (the machines' PAR sheets declare the same);
    ``framing`` how the bench finds broadcasts on the line: ``pty-escape`` on a simulator's
    pseudo-terminal, ``crc-sync`` on a real UART (default: by the connection). ``plays`` is the number
    of games each feeding machine plays during the test; ``settle_broadcasts`` how many broadcasts the
    bench lets pass after reading the machines' meters before it takes the levels (a real controller
    polls its machines on its own schedule); ``broadcast_timeout_s`` how long it waits for one.
    """

    group: Annotated[int, Field(ge=1, le=255)]
    levels: list[ProgressiveLevel] = Field(min_length=1, max_length=32)
    framing: Literal["pty-escape", "crc-sync"] | None = None
    plays: Annotated[int, Field(ge=10, le=10_000_000)] = 2000
    settle_broadcasts: Annotated[int, Field(ge=1, le=50)] = 2
    broadcast_timeout_s: PositiveFloat = 5.0

    @model_validator(mode="after")
    def _levels_unique(self) -> ProgressiveOptions:
        numbers = [level.level for level in self.levels]
        if len(set(numbers)) != len(numbers):
            raise ValueError(f"progressive level numbers repeat: {numbers}")
        return self

    @property
    def machines(self) -> list[str]:
        """Every feeding machine, in the order the levels first name them."""
        return list(dict.fromkeys(name for level in self.levels for name in level.machines))

    def level(self, number: int) -> ProgressiveLevel:
        [found] = [level for level in self.levels if level.level == number]
        return found


class ProgressiveSimulator(SimulatorBase):
    """The simulated controller (see :mod:`drivers.sim.progressive_controller`).

    * ``fair``: every level grows by exactly its contribution percentage of its feeders' coin in, the
      fraction of a cent carried.
    * ``skim``: ``fault_level`` (default: the first jackpot level) contributes ``skim_factor`` times
      the declared percentage.
    * ``rounding-loss``: ``fault_level`` (default: the first jackpot level) truncates each wager's
      contribution to whole cents, the fractions lost.
    * ``unlinked-machine``: ``fault_level`` (default: the first superjackpot level) ignores the play of
      ``unlinked_machine`` (default: its last feeder).

    It broadcasts every ``broadcast_interval_s``; ``garble_rate`` corrupts the CRC of that share of
    broadcasts (seeded by ``seed``).
    """

    model: Literal["fair", "skim", "rounding-loss", "unlinked-machine"] = "fair"
    seed: int = 20070226
    broadcast_interval_s: Annotated[float, Field(ge=0.01, le=60.0)] = 0.1
    skim_factor: Annotated[Decimal, Field(gt=0, lt=1), PlainSerializer(str)] = Decimal("0.9")
    """Kept as text in the simulator's JSON config, so the factor stays exact."""
    fault_level: Annotated[int, Field(ge=1, le=32)] | None = None
    unlinked_machine: str | None = None
    garble_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0


class ProgressiveControllerEquipment(EquipmentBase):
    """A progressive controller linking slot machines into jackpot and superjackpot levels, heard on SAS."""

    kind: Literal["progressive-controller"]
    options: ProgressiveOptions
    simulator: ProgressiveSimulator | None = None

    @model_validator(mode="after")
    def _connection_and_fault(self) -> ProgressiveControllerEquipment:
        self._check_connection(self.simulator is not None)
        if self.simulator is None:
            assert self.connection is not None
            if self.connection.baudrate != SAS_BAUDRATE:
                raise ValueError(f"SAS runs at {SAS_BAUDRATE} baud: set connection.baudrate = {SAS_BAUDRATE}")
            return self
        simulator = self.simulator
        if simulator.model == "fair":
            if simulator.fault_level is not None or simulator.unlinked_machine is not None:
                raise ValueError("fault_level and unlinked_machine apply to a faulty model only")
            return self
        wanted: LevelKind = "superjackpot" if simulator.model == "unlinked-machine" else "jackpot"
        if simulator.fault_level is None:
            candidates = [level.level for level in self.options.levels if level.kind == wanted]
            if not candidates:
                raise ValueError(f"model {simulator.model!r} needs a {wanted} level (or fault_level)")
            simulator.fault_level = candidates[0]
        numbers = [level.level for level in self.options.levels]
        if simulator.fault_level not in numbers:
            raise ValueError(f"fault_level {simulator.fault_level} is not a level of the link ({numbers})")
        if simulator.model == "unlinked-machine":
            feeders = self.options.level(simulator.fault_level).machines
            if simulator.unlinked_machine is None:
                simulator.unlinked_machine = feeders[-1]
            if simulator.unlinked_machine not in feeders:
                raise ValueError(f"unlinked_machine {simulator.unlinked_machine!r} does not feed level "
                                 f"{simulator.fault_level} ({feeders})")
        elif simulator.unlinked_machine is not None:
            raise ValueError("unlinked_machine applies to model 'unlinked-machine' only")
        return self

    @property
    def framing(self) -> Literal["pty-escape", "crc-sync"]:
        """The options' choice, else escape framing on a simulator's pty and CRC search on a real UART."""
        if self.options.framing is not None:
            return self.options.framing
        return "pty-escape" if self.simulator is not None else "crc-sync"


def check_links(name: str, controller: ProgressiveControllerEquipment, equipment: Mapping[str, Any]) -> None:
    """The controller's levels against the profile's slot machines: each feeder exists, is a slot machine of the
    link's progressive group, and its PAR sheet declares the sum of the percentages of the levels it feeds; a
    simulated controller links only simulated machines (it reads their meters from their simulators).
    ValueError naming what is wrong."""
    for machine in controller.options.machines:
        item = equipment.get(machine)
        if item is None or item.kind != "slot-machine":
            raise ValueError(f"progressive controller {name!r} names {machine!r}, which is not a slot machine of "
                             "the profile")
        par = item.options.par
        if par.progressive_group != controller.options.group:
            raise ValueError(f"{machine!r} declares progressive group {par.progressive_group}, the controller "
                             f"{name!r} links group {controller.options.group}")
        fed = sum((level.contribution_percent for level in controller.options.levels if machine in level.machines),
                  Decimal(0))
        declared = Decimal(str(par.progressive_contribution_percent))
        if fed != declared:
            raise ValueError(f"{machine!r} feeds {fed} % to the levels of {name!r}, its PAR sheet declares "
                             f"{declared} % (progressive_contribution_percent)")
        if controller.simulator is not None and item.simulator is None:
            raise ValueError(f"the simulated controller {name!r} cannot link the real machine {machine!r}")
