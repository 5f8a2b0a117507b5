"""Profile model of an electronic gaming table: an automated roulette or dice table with betting terminals, an
electronic blackjack, bacará or póquer sem descarte table (or an online game's round log), that reports every round it plays (outcome, bets, what each bet paid).

The options state what the table is approved for (game, rules variant, table minimum and maxima per chance,
in whole cents) and how the bench certifies it (how many rounds it observes); the simulator table chooses the
simulated table's model (``fair`` or a named fault) and seed (see :mod:`drivers.sim.gaming_table`).

Every check of ``suites/test_gaming_tables.py`` is exact (each settlement against the oracles of
:mod:`bench.games` to the cent, the drawing rules, the configured limits against the regulation's
multiples), so there is no significance level to set.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, PositiveFloat, PositiveInt, model_validator

from bench.games.stakes import LIMIT_TABLES, LimitTable
from bench.profiles.base import EquipmentBase, SimulatorBase, Strict

Game = Literal["roleta-francesa", "roleta-americana", "craps", "cussec", "banca-francesa", "blackjack",
               "bacara-ponto-e-banca", "poquer-sem-descarte", "holdem", "omaha", "poquer-sintetico"]
Rules = Literal["p217-2007", "p461-2001", "srij-803-2015", "srij-804-2015", "srij-805-2015"]
GAMES: tuple[str, ...] = Game.__args__  # type: ignore[attr-defined]
ROULETTES = ("roleta-francesa", "roleta-americana")
OTHER_CHANCES = "other"
"""The limit name of every chance the regulation sets no multiple for (craps line bets, every cussec chance)."""
DEFAULT_OTHER_MULTIPLE = 100
"""The default maximum of those chances, as a multiple of the minimum (the bench's choice, not a rule)."""

_RULES_FOR_GAME: dict[str, tuple[str, ...]] = {
    "roleta-americana": ("p217-2007", "srij-804-2015"),
    "blackjack": ("p217-2007", "srij-805-2015"),
    "poquer-sem-descarte": ("p217-2007", "p461-2001", "srij-803-2015"),
    "poquer-sintetico": ("p217-2007", "p461-2001"),
}
NON_BANKED_POKER = ("holdem", "omaha", "poquer-sintetico")
MAX_SEATS = {"blackjack": 7, "poquer-sem-descarte": 7, "holdem": 10, "omaha": 10, "poquer-sintetico": 11}
"""Players at a table, at most (p217-2007/blackjack/2 and poquer-sem-descarte/5: 7; poquer-nao-bancado/6: 10
for hold'em and omaha, 11 for póquer sintético)."""
"""Poker played between the players for a pot, the house taking a percentage (p217-2007/poquer-nao-bancado)."""

FAULT_GAMES: dict[str, tuple[str, ...]] = {
    "split-pays-16": ROULETTES,
    "zero-loses-half": ROULETTES,
    "field-12-pays-triple": ("craps",),
    "triple-wins-small": ("cussec",),
    "line-bets-play-whole": ("banca-francesa",),
    "dealer-hits-soft-17": ("blackjack",),
    "blackjack-pays-6-5": ("blackjack",),
    "banca-draws-like-ponto": ("bacara-ponto-e-banca",),
    "two-pairs-pays-1": ("poquer-sem-descarte",),
    "dealer-qualifies-ace-queen": ("poquer-sem-descarte",),
    "side-pots-ignored": NON_BANKED_POKER,
    "rake-above-limit": NON_BANKED_POKER,
    "sintetico-full-above-flush": ("poquer-sintetico",),
    "limit-too-high": ("roleta-francesa", "roleta-americana", "banca-francesa", "blackjack", "bacara-ponto-e-banca",
                       "poquer-sem-descarte"),
}
"""Each fault model and the games it applies to (see :class:`GamingTableSimulator`)."""


def limit_table(game: str, rules: str) -> LimitTable | None:
    """The regulation's stake rules of ``game`` under ``rules`` (None: the regulation sets none, cussec)."""
    return LIMIT_TABLES.get(f"{rules}/{game}")


def limit_names(game: str, rules: str) -> tuple[str, ...]:
    """The chances a table of ``game`` states a maximum for: those of the regulation's limit table, and
    :data:`OTHER_CHANCES` where the game has chances the regulation sets no multiple for."""
    table = limit_table(game, rules)
    names = tuple(table.limits) if table is not None else ()
    if game in ("craps", "cussec"):
        names += (OTHER_CHANCES,)
    return names


class GamingTableSetup(Strict):
    """What the table is set up to play: game, rules variant, limits and the game's options.

    ``rules``: the regulation whose rules the table applies (``p217-2007`` casino rules; ``p461-2001`` the
    original póquer sem descarte rules; the online ``srij-803-2015`` póquer sem descarte, ``srij-804-2015``
    American roulette with 0 and 00 and ``srij-805-2015`` blackjack).
    ``minimum``: the table minimum in cents, for every chance. ``maxima``: the maximum per chance (names
    of :func:`limit_names`); a chance left out gets the regulation's multiple of the minimum, or
    ``DEFAULT_OTHER_MULTIPLE`` times it where the regulation sets none. ``commission``: bacará's deduction on
    the banca's wins (p217-2007/bacara-ponto-e-banca/20); ``bar``: craps' barred come-out total
    (p217-2007/craps/10.2); ``rake_percent``: the house's percentage of each pot at non-banked poker (at most
    5 under p217-2007/poquer-nao-bancado/7 a); 3 under p461-2001/poquer-sintetico/55), its chips those of the
    table minimum.
    """

    game: Game = "roleta-francesa"
    rules: Rules = "p217-2007"
    minimum: PositiveInt = 100
    maxima: dict[str, PositiveInt] = Field(default_factory=dict)
    commission: Literal["NONE", "FIVE_PERCENT", "HALF_ON_FIVE"] = "FIVE_PERCENT"
    bar: Literal[2, 12] = 12
    rake_percent: Annotated[float, Field(ge=0.0, le=100.0)] = 0.0

    @model_validator(mode="after")
    def _rules_and_limits(self) -> GamingTableSetup:
        allowed = _RULES_FOR_GAME.get(self.game, ("p217-2007",))
        if self.rules not in allowed:
            raise ValueError(f"game {self.game!r} has no {self.rules!r} rules (known: {', '.join(allowed)})")
        names = limit_names(self.game, self.rules)
        unknown = sorted(set(self.maxima) - set(names))
        if unknown:
            raise ValueError(f"maxima name chances {unknown} that {self.game} ({self.rules}) does not limit; "
                             f"known: {', '.join(names)}")
        return self

    def limits(self) -> dict[str, tuple[int, int]]:
        """Every limited chance's (minimum, maximum) in cents, defaults filled in."""
        table = limit_table(self.game, self.rules)
        limits: dict[str, tuple[int, int]] = {}
        for name in limit_names(self.game, self.rules):
            ratio = table.limits[name].max_multiple if table is not None and name in table.limits else None
            default = (ratio or DEFAULT_OTHER_MULTIPLE) * self.minimum
            limits[name] = (self.minimum, self.maxima.get(name, default))
        return limits


class GamingTableOptions(GamingTableSetup):
    """The approved setup (the :class:`GamingTableSetup` fields) and how the bench certifies the table.

    ``rounds``: how many rounds the suite reads (each committed to the journal as it is read);
    ``round_timeout_s``: how long the driver waits for the table to finish a round.
    """

    rounds: Annotated[int, Field(ge=1, le=10_000_000)] = 300
    round_timeout_s: PositiveFloat = 120.0

    def setup(self) -> GamingTableSetup:
        return GamingTableSetup.model_validate(self.model_dump(include=set(GamingTableSetup.model_fields)))


class GamingTableSimulator(SimulatorBase):
    """The simulated table (see :mod:`drivers.sim.gaming_table`): seeded outcomes, seeded bets across every
    chance within the configured limits, settled by the oracles of :mod:`bench.games`.

    * ``fair``: the regulation's rules.
    * roulette ``split-pays-16``: a cavalo is paid 16 to 1 instead of 17 (p217-2007/roleta-francesa/18);
      ``zero-loses-half``: on 0 the chances simples lose only half the stake (la partage, a rule of other
      roulettes; the Portuguese texts make them lose it all, roleta-francesa/19, roleta-americana/28).
    * craps ``field-12-pays-triple``: the field pays triple on 12 instead of double (p217-2007/craps/13.1).
    * cussec ``triple-wins-small``: pequeno and grande win on a triple of their range (p217-2007/cussec/9).
    * banca francesa ``line-bets-play-whole``: a line bet plays for all its chips instead of half of their
      whole multiple of EUR 10 (p217-2007/banca-francesa/11).
    * blackjack ``dealer-hits-soft-17`` (p217-2007/blackjack/19 and /6), ``blackjack-pays-6-5`` (/21).
    * bacará ``banca-draws-like-ponto``: the banca ignores the tableau and draws on 0-5, stands on 6-7
      (p217-2007/bacara-ponto-e-banca/13).
    * póquer sem descarte ``two-pairs-pays-1``: a winning two pairs is paid 1 times the second bet instead of
      2 (p217-2007/poquer-sem-descarte/6, srij-803-2015/poquer-sem-descarte/12); ``dealer-qualifies-ace-queen``:
      the bank plays with ace-queen high, not only ace-king or better (p217-2007/poquer-sem-descarte/18,
      srij-803-2015/poquer-sem-descarte/25).
    * non-banked poker ``side-pots-ignored``: an all-in player can win everything in the pot, not only what
      each other player matched of his stake (p217-2007/poquer-nao-bancado/38, /49, /50);
      ``rake-above-limit``: the house takes one percentage point more than the table states (/7);
      ``sintetico-full-above-flush``: póquer sintético ranks the full house above the flush, as 52-card poker
      does (p461-2001/poquer-sintetico/24, p217-2007/poquer-nao-bancado/103).
    * ``limit-too-high``: the table's first limited chance has a maximum one minimum above the
      regulation's multiple (e.g. p217-2007/roleta-francesa/24).

    ``setup``: the table's own setup (filled from the options when not given); ``bets_per_round`` bets on
    the roulette, dice and bacará layouts; ``seats`` players at blackjack and poker; ``garble_rate`` corrupts the
    checksum of that share of reply frames; ``round_time_s`` is how long a round takes to play.
    """

    model: Literal["fair", "split-pays-16", "zero-loses-half", "field-12-pays-triple", "triple-wins-small",
                   "line-bets-play-whole", "dealer-hits-soft-17", "blackjack-pays-6-5", "banca-draws-like-ponto",
                   "two-pairs-pays-1", "dealer-qualifies-ace-queen", "side-pots-ignored", "rake-above-limit",
                   "sintetico-full-above-flush", "limit-too-high"] = "fair"
    seed: int = 20070226
    setup: GamingTableSetup | None = None
    bets_per_round: Annotated[int, Field(ge=1, le=64)] = 8
    seats: Annotated[int, Field(ge=1, le=11)] = 5
    garble_rate: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    round_time_s: Annotated[float, Field(ge=0.0, le=600.0)] = 0.0

    @model_validator(mode="after")
    def _seats_fit_game(self) -> GamingTableSimulator:
        game = self.setup.game if self.setup is not None else None
        most = MAX_SEATS.get(game or "", 11)
        if self.seats > most:
            raise ValueError(f"{game} is played by at most {most} players, not seats = {self.seats}")
        return self

    @model_validator(mode="after")
    def _fault_fits_game(self) -> GamingTableSimulator:
        if self.setup is not None and self.model != "fair" and self.setup.game not in FAULT_GAMES[self.model]:
            raise ValueError(f"fault model {self.model!r} applies to {', '.join(FAULT_GAMES[self.model])}, "
                             f"not {self.setup.game!r}")
        return self


class GamingTableEquipment(EquipmentBase):
    """An electronic gaming table reporting its rounds on a serial line (GT protocol,
    ``docs/protocols/gaming-table.md``)."""

    kind: Literal["gaming-table"]
    options: GamingTableOptions = GamingTableOptions()
    simulator: GamingTableSimulator | None = None

    @model_validator(mode="after")
    def _connection_or_simulator(self) -> GamingTableEquipment:
        self._check_connection(self.simulator is not None)
        if self.simulator is not None and self.simulator.setup is None:
            # the simulator process receives only simulator.model_dump(): give it the approved setup
            self.simulator.setup = self.options.setup()
            self.simulator._fault_fits_game()
        return self
