"""Profile model of an automatic card shuffler (shuffler-shoe, continuous shuffler, two-deck shuffler).

The options say how the bench drives and certifies the shuffler (mode, decks and their
back colours, sample size); the simulator table chooses the simulated machine's shuffle
model and its injected faults (see :mod:`drivers.sim.shuffler`). Clauses served:
p217-2007/blackjack/51 (jam warning, damaged cards), blackjack/55 (every card of every deck
comes back), blackjack/57 (continuous shuffler keeps the cards inside),
poquer-nao-bancado/76 (two decks of different colours used alternately).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, PositiveFloat, model_validator

from bench.profiles.base import EquipmentBase, SimulatorBase, Strict

BackColour = Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9]{0,7}$")]
"""A deck's back colour as the shuffler names it on the wire (upper-case, e.g. ``RED``, ``BLUE``)."""


class ShufflerOptions(Strict):
    """How the shuffler is driven and certified.

    ``protocol`` names the line protocol of the machine (``cs``: the bench's own protocol,
    ``docs/protocols/card-shuffler.md``; a vendor protocol registers another name in
    :mod:`drivers.shuffler`). ``mode``: ``batch`` (shuffle a whole shoe, deal it, reload),
    ``continuous`` (dealt cards go back into the machine and are mixed in again,
    p217-2007/blackjack/57) or ``alternate`` (two decks of different back colours used in turn,
    p217-2007/poquer-nao-bancado/76). ``backs`` lists one back colour per deck loaded (so its
    length is the number of decks). ``shuffles`` is the sample size of the randomness tests and
    ``alpha`` their family-wise level.
    """

    protocol: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")] = "cs"
    mode: Literal["batch", "continuous", "alternate"] = "batch"
    backs: Annotated[list[BackColour], Field(min_length=1, max_length=8)] = Field(default_factory=lambda: ["RED"])
    shuffles: Annotated[int, Field(ge=2, le=100_000)] = 40
    alpha: Annotated[float, Field(gt=0.0, lt=0.5)] = 0.01
    shuffle_timeout_s: PositiveFloat = 120.0
    deal_timeout_s: PositiveFloat = 10.0

    @model_validator(mode="after")
    def _alternate_needs_two_colours(self) -> ShufflerOptions:
        if self.mode == "alternate" and (len(self.backs) != 2 or self.backs[0] == self.backs[1]):
            raise ValueError("mode 'alternate' needs exactly two decks of different back colours "
                             "(p217-2007/poquer-nao-bancado/76), e.g. backs = ['RED', 'BLUE']")
        return self

    @property
    def decks(self) -> int:
        return len(self.backs)


class ShufflerSimulator(SimulatorBase):
    """The simulated shuffler's model (see :mod:`drivers.sim.shuffler`).

    * ``fair``: every shuffle is a uniformly random permutation (Fisher-Yates, numpy PCG64).
    * ``riffle``: ``riffles`` Gilbert-Shannon-Reeds riffles per shuffle (3 is detectably not
      random, 7 or more near uniform for one deck).
    * ``clumped``: cards stay in clumps of mean size ``mean_clump``, clumps in random order.

    Faults, each a per-event probability drawn from generators seeded with ``seed``:
    ``jam_rate`` (per deal: the card jams, warning light, dealing stops until cleared),
    ``damaged_card_rate`` (per deal: the card comes out damaged, warning until cleared),
    ``misread_rate`` (per card read at a deal or an unload: the recognition reports another card),
    ``lost_card_rate`` (per shuffle: one card disappears inside the machine),
    ``duplicate_card_rate`` (per shuffle: an extra copy of a card appears), ``garble_rate`` (per
    reply: a corrupted checksum on the line). ``alternation_fault = "same-deck"`` makes a
    two-deck machine keep using the same deck. ``shuffle_time_s`` is how long a shuffle takes.
    """

    model: Literal["fair", "riffle", "clumped"] = "fair"
    seed: int = 20070226
    riffles: Annotated[int, Field(ge=0, le=62)] = 7
    mean_clump: Annotated[float, Field(ge=1.0, le=52.0)] = 4.0
    jam_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    damaged_card_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    misread_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    lost_card_rate: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0
    duplicate_card_rate: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0
    garble_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    alternation_fault: Literal["none", "same-deck"] = "none"
    shuffle_time_s: Annotated[float, Field(ge=0.0, le=600.0)] = 0.0

    @model_validator(mode="after")
    def _clumped_needs_clumps(self) -> ShufflerSimulator:
        if self.model == "clumped" and self.mean_clump == 1.0:
            raise ValueError("model 'clumped' needs a mean_clump above 1 (1 is a uniform shuffle)")
        return self


class ShufflerEquipment(EquipmentBase):
    """An automatic card shuffler with card recognition on a serial line."""

    kind: Literal["card-shuffler"]
    options: ShufflerOptions = ShufflerOptions()
    simulator: ShufflerSimulator | None = None

    @model_validator(mode="after")
    def _connection_or_simulator(self) -> ShufflerEquipment:
        self._check_connection(self.simulator is not None)
        return self
