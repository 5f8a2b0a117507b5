"""Simulated electronic gaming table speaking the GT protocol: roulette, craps, cussec, banca francesa,
blackjack, bacará, póquer sem descarte (:mod:`drivers.sim.gaming_table_poker`) and non-banked poker
(:mod:`drivers.sim.gaming_table_showdown`), each played with seeded outcomes and seeded bets, settled by the oracles of
:mod:`bench.games` (with one named rule broken under a fault model).

Round ``n`` is drawn from its own generator seeded with ``(seed, n)``: its outcome (a fair pocket, fair dice,
a freshly shuffled shoe as from a continuous shuffler), the bets of the players (every chance of the game,
stakes whole multiples of the table minimum within the configured maximum of the chance) and, for
blackjack, the players' decisions. A round is thus the same however often it is asked for, and the state file
(the table's non-volatile memory) only keeps the last round played: a restarted table continues the
numbering.

Each round is self-contained: it reports the bets on the layout before the outcome. At craps that includes
bets standing from earlier rolls (line bets on their point, come bets moved to a number), drawn with the
table's point; a bet still standing after the roll is reported with decision ``N`` and what it became.

Amounts go on the wire as whole cents: a prize that falls between cents (7 for 6 on a place bet of 100)
is paid rounded down and a part of a stake collected is rounded up; the bank keeps the fraction of a cent.

Fault models: see :class:`bench.profiles.gaming_table.GamingTableSimulator`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from bench.games import bacara, banca_francesa, blackjack, craps, cussec, roulette
from bench.games.cards import ACE, DECK_52, Card
from bench.games.stakes import Settlement
from bench.profiles.gaming_table import (
    NON_BANKED_POKER,
    OTHER_CHANCES,
    GamingTableSetup,
    GamingTableSimulator,
    limit_table,
)
from drivers.gaming_table_protocol import decode, encode, encode_block, encode_pairs
from drivers.line_frame import encode_identity
from drivers.serial_link import FrameError
from drivers.sim.gaming_table_bets import BetFields, bet_fields, cards_text
from drivers.sim.gaming_table_poker import PoquerRound
from drivers.sim.gaming_table_showdown import ShowdownRound
from drivers.sim.line_simulator import run_line_simulator
from drivers.sim.pty_server import Handler, Reply
from drivers.sim.state_file import load_counter, save_state
from drivers.sim.wire_faults import ChecksumGarbler

_GARBLE_STREAM = 0x67


def roulette_rules(setup: GamingTableSetup) -> roulette.RouletteRules:
    """The oracle's rule set of a roulette table."""
    if setup.game == "roleta-francesa":
        return roulette.FRENCH
    return roulette.AMERICAN_ONLINE if setup.rules == "srij-804-2015" else roulette.AMERICAN_FRENCH_WHEEL


def configured_limits(config: GamingTableSimulator) -> dict[str, tuple[int, int]]:
    """The limits the table is set up with: the setup's, or under ``limit-too-high`` the first chance with a
    regulation multiple set one minimum above it."""
    assert config.setup is not None
    limits = config.setup.limits()
    table = limit_table(config.setup.game, config.setup.rules)
    if config.model == "limit-too-high" and table is not None:
        name = next(name for name, rule in table.limits.items() if rule.max_multiple is not None)
        low = limits[name][0]
        limits[name] = (low, (table.limits[name].max_multiple + 1) * low)  # type: ignore[operator]
    return limits


class RoundMaker:
    """Plays one round of the table's game from a generator: outcome, bets, settlements."""

    def __init__(self, config: GamingTableSimulator, rng: np.random.Generator) -> None:
        assert config.setup is not None
        self.config = config
        self.setup = config.setup
        self.model = config.model
        self.rng = rng
        self.limits = configured_limits(config)

    def stake(self, limit: str, low_multiple: int = 1, high_multiple: int = 1) -> int:
        """A whole multiple of the chance's minimum within its limits (line bets: ``low_multiple`` = 2 and
        ``high_multiple`` = 2, between twice the minimum and twice the maximum)."""
        low, high = self.limits[limit]
        return low * int(self.rng.integers(low_multiple, high_multiple * high // low + 1))

    def pick(self, items: Sequence[Any]) -> Any:
        return items[int(self.rng.integers(len(items)))]

    def play(self) -> tuple[str, dict[str, object], list[BetFields]]:
        game = self.setup.game
        if game in ("roleta-francesa", "roleta-americana"):
            return self.roulette()
        return {"craps": self.craps, "cussec": self.cussec, "banca-francesa": self.banca_francesa,
                "blackjack": self.blackjack, "bacara-ponto-e-banca": self.bacara,
                "poquer-sem-descarte": self.poquer_sem_descarte, "holdem": self.showdown, "omaha": self.showdown,
                "poquer-sintetico": self.showdown}[game]()

    # -- roulette ---------------------------------------------------------------------------------

    def roulette(self) -> tuple[str, dict[str, object], list[BetFields]]:
        rules = roulette_rules(self.setup)
        number = int(rules.pockets[int(self.rng.integers(len(rules.pockets)))])
        simples = [kind for kind in roulette.Kind if len(_roulette_sets(rules, kind)[0]) == 18]
        kinds = [self.pick(simples)] + [self.pick(list(roulette.Kind)) for _ in range(self.config.bets_per_round - 1)]
        bets = []
        for kind in kinds:
            numbers = self.pick(_roulette_sets(rules, kind))
            stake = self.stake(kind.value)
            settlement = roulette.settle(roulette.Bet(roulette.Chance(kind, frozenset(numbers)), stake), number, rules)
            if self.model == "split-pays-16" and kind is roulette.Kind.CAVALO and settlement.decision == "win":
                settlement = Settlement.win(stake, 16 * stake)
            if self.model == "zero-loses-half" and number == 0 and len(numbers) == 18:
                settlement = Settlement.lose(stake, Fraction(stake, 2))
            spec = {"n": ".".join(roulette.pocket_label(n) for n in numbers)}
            bets.append(bet_fields(kind.value, spec, stake, settlement))
        return roulette.pocket_label(number), {}, bets

    # -- dice -------------------------------------------------------------------------------------

    def dice(self, count: int) -> tuple[int, ...]:
        return tuple(int(face) for face in self.rng.integers(1, 7, count))

    def craps(self) -> tuple[str, dict[str, object], list[BetFields]]:
        point = self.pick([None, None, None, 4, 5, 6, 8, 9, 10])
        roll = craps.Roll(*self.dice(2))
        chances = [craps.Chance.FIELD] + [self.pick(list(craps.Chance)) for _ in range(self.config.bets_per_round - 1)]
        bets = []
        for chance in chances:
            bet = self._craps_bet(chance, point)
            result = craps.resolve(bet, roll)
            if isinstance(result, Settlement):
                settlement, after = result, None
                if self.model == "field-12-pays-triple" and chance is craps.Chance.FIELD and roll.total == 12:
                    settlement = Settlement.win(bet.stake, 3 * bet.stake)
            else:
                settlement, after = Settlement.no_decision(bet.stake), result.number
            spec: dict[str, object] = {}
            if bet.number is not None:
                spec["n"] = bet.number
            if bet.bar is not None:
                spec["bar"] = int(bet.bar)
            bets.append(bet_fields(bet.chance.value, spec, int(bet.stake), settlement, after))
        return f"{roll.die1}.{roll.die2}", {"point": point or "off"}, bets

    def _craps_bet(self, chance: craps.Chance, point: int | None) -> craps.Bet:
        numbers = {craps.Chance.HARDWAY: (4, 6, 8, 10), craps.Chance.TOTAL: (2, 3, 7, 11, 12)}
        bar = craps.Bar(self.setup.bar) if chance in (craps.Chance.DONT_PASS, craps.Chance.DONT_COME) else None
        number: int | None = None
        if chance in (craps.Chance.PASS_LINE, craps.Chance.DONT_PASS):
            number = point
        elif chance in (craps.Chance.COME, craps.Chance.DONT_COME):
            if point is None:
                chance, bar = craps.Chance.FIELD, None  # come bets only once a point is set (craps/10.3)
            elif self.rng.random() < 0.5:
                number = self.pick(craps.POINTS)  # a come bet standing on its number
        elif chance in (craps.Chance.ODDS, craps.Chance.DONT_ODDS, craps.Chance.PLACE, craps.Chance.PLACE_TO_LOSE):
            number = self.pick(craps.POINTS)
        elif chance in numbers:
            number = self.pick(numbers[chance])
        limit = f"{chance.value}-{number}" if chance in (craps.Chance.PLACE, craps.Chance.PLACE_TO_LOSE) else OTHER_CHANCES
        return craps.Bet(chance, self.stake(limit), number, bar)

    def cussec(self) -> tuple[str, dict[str, object], list[BetFields]]:
        faces = self.dice(3)
        kinds = [cussec.Kind.PEQUENO, cussec.Kind.GRANDE]
        kinds += [self.pick(list(cussec.Kind)) for _ in range(max(0, self.config.bets_per_round - 2))]
        bets = []
        for kind in kinds:
            numbers: tuple[int, ...] = ()
            if kind is cussec.Kind.TOTAL:
                numbers = (int(self.rng.integers(4, 18)),)
            elif kind is cussec.Kind.COMBINACAO:
                numbers = tuple(int(n) + 1 for n in sorted(self.rng.choice(6, 2, replace=False)))
            elif kind in (cussec.Kind.NUMERO, cussec.Kind.DUPLA, cussec.Kind.TRIPLO):
                numbers = (int(self.rng.integers(1, 7)),)
            stake = self.stake(OTHER_CHANCES)
            settlement = cussec.settle(cussec.Bet(kind, stake, numbers), faces)
            triple = faces[0] == faces[1] == faces[2]
            if self.model == "triple-wins-small" and triple and kind in (cussec.Kind.PEQUENO, cussec.Kind.GRANDE):
                small = 4 <= sum(faces) <= 10
                if small == (kind is cussec.Kind.PEQUENO) and 4 <= sum(faces) <= 17:
                    settlement = Settlement.win(stake, stake)
            spec = {"n": ".".join(str(n) for n in numbers)} if numbers else {}
            bets.append(bet_fields(kind.value, spec, stake, settlement))
        return ".".join(str(face) for face in faces), {}, bets

    def banca_francesa(self) -> tuple[str, dict[str, object], list[BetFields]]:
        faces = self.dice(3)
        bets = []
        for _ in range(self.config.bets_per_round):
            chance = self.pick(list(banca_francesa.Chance))
            on_line = chance is not banca_francesa.Chance.ASES and self.rng.random() < 0.3
            chips = self.stake(chance.value, 2, 2) if on_line else self.stake(chance.value)
            whole = self.model == "line-bets-play-whole"  # the fault: the chips on a line all in play
            settlement = banca_francesa.settle(banca_francesa.Bet(chance, chips, on_line and not whole), faces)
            bets.append(bet_fields(chance.value, {"line": 1} if on_line else {}, chips, settlement))
        return ".".join(str(face) for face in faces), {}, bets

    # -- cards ------------------------------------------------------------------------------------

    def shoe(self, decks: int) -> Iterator[Card]:
        cards = DECK_52 * decks
        return iter([cards[int(i)] for i in self.rng.permutation(len(cards))])

    def blackjack(self) -> tuple[str, dict[str, object], list[BetFields]]:
        return BlackjackRound(self).play()

    def poquer_sem_descarte(self) -> tuple[str, dict[str, object], list[BetFields]]:
        return PoquerRound(self).play()

    def showdown(self) -> tuple[str, dict[str, object], list[BetFields]]:
        return ShowdownRound(self).play()

    def bacara(self) -> tuple[str, dict[str, object], list[BetFields]]:
        shoe = self.shoe(8)
        coup = _coup_drawing_like_ponto(shoe) if self.model == "banca-draws-like-ponto" else bacara.deal_coup(shoe)
        names = {bacara.Chance.PONTO: "ponto", bacara.Chance.BANCA: "banca", bacara.Chance.EMPATE: "empate",
                 bacara.Chance.PAR_PONTO: "par-do-ponto", bacara.Chance.PAR_BANCA: "par-da-banca"}
        bets = []
        for _ in range(self.config.bets_per_round):
            chance = self.pick(list(bacara.Chance))
            stake = self.stake(names[chance])
            settlement = bacara.settle(chance, stake, coup, bacara.Commission(self.setup.commission))
            bets.append(bet_fields(chance.value, {}, stake, settlement))
        return f"{cards_text(coup.ponto)}/{cards_text(coup.banca)}", {}, bets


@cache
def _roulette_sets(rules: roulette.RouletteRules, kind: roulette.Kind) -> tuple[tuple[int, ...], ...]:
    """Every number set of a chance on the layout, in a fixed order (so that a seed gives the same bets)."""
    return tuple(sorted(tuple(sorted(numbers)) for numbers in rules.sets_for(kind)))


def _coup_drawing_like_ponto(shoe: Iterator[Card]) -> bacara.Coup:
    """The ``banca-draws-like-ponto`` fault: the banca draws on 0-5 whatever the ponto's third card."""
    first = [next(shoe) for _ in range(4)]
    ponto, banca = [first[0], first[2]], [first[1], first[3]]
    if bacara.points(ponto) >= 8 or bacara.points(banca) >= 8:
        return bacara.Coup(tuple(ponto), tuple(banca))
    if bacara.player_draws(bacara.points(ponto)):
        ponto.append(next(shoe))
    if bacara.points(banca) <= 5:
        banca.append(next(shoe))
    return bacara.Coup(tuple(ponto), tuple(banca))


class BlackjackRound:
    """One blackjack round: seats bet, cards are dealt, the players decide, the dealer draws, hands are settled."""

    def __init__(self, maker: RoundMaker) -> None:
        self.maker = maker
        self.rng = maker.rng
        self.rules = blackjack.SRIJ_805_2015 if maker.setup.rules == "srij-805-2015" else blackjack.P217_2007
        self.cards = maker.shoe(6)
        self.hands: list[dict[str, Any]] = []
        self.insurance: list[tuple[int, int, int]] = []

    def play(self) -> tuple[str, dict[str, object], list[BetFields]]:
        players = int(self.rng.integers(1, self.maker.config.seats + 1))
        stakes = [self.maker.stake("aposta") for _ in range(players)]
        first = [next(self.cards) for _ in range(players)]
        up = next(self.cards)
        second = [next(self.cards) for _ in range(players)]
        dealer = [up, next(self.cards)]
        for seat, (a, b, bet) in enumerate(zip(first, second, stakes, strict=True), start=1):
            self._seat(seat, [a, b], bet, up)
        live = any(not hand["done"] and not blackjack.hand_total(hand["cards"]).bust for hand in self.hands)
        if live:
            while self._dealer_draws(dealer):
                dealer.append(next(self.cards))
        bets = [self._settle_hand(hand, dealer) for hand in self.hands]
        for seat, bet, amount in self.insurance:
            settlement = blackjack.settle_insurance(amount, bet, dealer, self.rules)
            bets.append(bet_fields("insurance", {"seat": seat, "bet": bet}, amount, settlement))
        return cards_text(dealer), {}, bets

    def _dealer_draws(self, dealer: list[Card]) -> bool:
        total = blackjack.hand_total(dealer)
        if self.maker.model == "dealer-hits-soft-17" and total.value == 17 and total.soft:
            return True
        return total.value < 17

    def _seat(self, seat: int, cards: list[Card], bet: int, up: Card) -> None:
        rng = self.rng
        natural = blackjack.is_blackjack(cards)
        if up.rank == ACE and self.rules.insurance and not natural and bet >= 2 and rng.random() < 0.3:
            self.insurance.append((seat, bet, bet // 2))
        if natural:
            play = "even-money" if up.rank == ACE and rng.random() < 0.5 else "stand"
            self.hands.append({"seat": seat, "cards": cards, "bet": bet, "play": play, "split": False, "done": True})
            return
        total = blackjack.hand_total(cards)
        if up.rank != ACE and total.value in (15, 16) and not total.soft and rng.random() < 0.5:
            self.hands.append({"seat": seat, "cards": cards, "bet": bet, "play": "surrender", "split": False,
                               "done": True})
            return
        if blackjack.can_split(cards, self.rules) and (blackjack.card_points(cards[0]) in (1, 8) or rng.random() < 0.4):
            for card in cards:
                hand = [card, next(self.cards)]
                if card.rank == ACE:  # split aces take one card each (blackjack/26)
                    self.hands.append({"seat": seat, "cards": hand, "bet": bet, "play": "stand", "split": True,
                                       "done": False})
                else:
                    self._play(seat, hand, bet, up, split=True)
            return
        self._play(seat, cards, bet, up, split=False)

    def _play(self, seat: int, cards: list[Card], bet: int, up: Card, *, split: bool) -> None:
        if blackjack.can_double(cards, self.rules, split=split) and self.rng.random() < 0.6:
            self.hands.append({"seat": seat, "cards": [*cards, next(self.cards)], "bet": bet, "play": "double",
                               "split": split, "done": False})
            return
        stand_on = 17 if blackjack.card_points(up) in (1, 7, 8, 9, 10) else int(self.rng.integers(12, 18))
        while True:
            total = blackjack.hand_total(cards)
            if total.value >= 21 or (total.value >= stand_on and not (total.soft and total.value < 18)):
                break
            cards = [*cards, next(self.cards)]
        self.hands.append({"seat": seat, "cards": cards, "bet": bet, "play": "stand", "split": split, "done": False})

    def _settle_hand(self, hand: dict[str, Any], dealer: list[Card]) -> BetFields:
        cards, bet, play, split = hand["cards"], hand["bet"], hand["play"], hand["split"]
        flags = {"doubled": play == "double", "split": split, "surrendered": play == "surrender",
                 "even_money": play == "even-money"}
        try:
            settlement: Settlement = blackjack.settle_hand(cards, dealer, bet, rules=self.rules, **flags)
        except ValueError:  # only under dealer-hits-soft-17: the oracle refuses the dealer's hand; compare totals
            settlement = self._compare(cards, dealer, bet, doubled=flags["doubled"])
        if (self.maker.model == "blackjack-pays-6-5" and isinstance(settlement, blackjack.HandSettlement)
                and settlement.outcome is blackjack.Outcome.BLACKJACK):
            settlement = blackjack.HandSettlement.of(settlement.outcome, Settlement.win(bet, Fraction(6 * bet, 5)),
                                                     int(settlement.special))
        special = settlement.special if isinstance(settlement, blackjack.HandSettlement) else Fraction(0)
        paid = Settlement(settlement.decision, settlement.staked, settlement.prize + special, settlement.returned,
                          settlement.lost)
        spec: dict[str, object] = {"seat": hand["seat"], "cards": cards_text(cards), "play": play}
        if split:
            spec["split"] = 1
        return bet_fields("hand", spec, int(settlement.staked), paid)  # the chips at risk: a doubled bet twice

    def _compare(self, cards: list[Card], dealer: list[Card], bet: int, *, doubled: bool) -> Settlement:
        stake = 2 * bet if doubled else bet
        ace_as_one = doubled and any(card.rank == ACE for card in cards[:2])
        player = blackjack.hand_total(cards, ace_as_one=ace_as_one).value
        bank = blackjack.hand_total(dealer).value
        special = blackjack.special_prize(cards, bet, self.rules)
        if bank > 21 or player > bank:
            main = Settlement.win(stake, stake)
        elif player == bank:
            main = Settlement.push(stake)
        else:
            main = Settlement.lose(stake)
        outcome = {"win": blackjack.Outcome.WIN, "push": blackjack.Outcome.PUSH}.get(main.decision,
                                                                                  blackjack.Outcome.LOSE)
        return blackjack.HandSettlement.of(outcome, main, special)


class TableModel:
    """The simulated table: its configuration, its last round (non-volatile) and every round's frames."""

    def __init__(self, config: GamingTableSimulator, state_file: Path | None = None) -> None:
        if config.setup is None:
            raise ValueError("the gaming table simulator needs its setup (filled from the profile's options)")
        self.config = config
        self.setup = config.setup
        self.state_file = state_file
        self.last = load_counter(state_file, "round", "gaming table")

    def configuration_frames(self) -> list[bytes]:
        setup = self.setup
        options: dict[str, object] = {}
        if setup.game == "bacara-ponto-e-banca":
            options["commission"] = setup.commission
        if setup.game == "craps":
            options["bar"] = setup.bar
        if setup.game in NON_BANKED_POKER:
            options["rake"] = f"{setup.rake_percent:g}"
            options["minimum"] = setup.minimum
        limits = [[name, low, high] for name, (low, high) in configured_limits(self.config).items()]
        return encode_block("CONF", [setup.game, setup.rules, encode_pairs(options)], limits)

    def round_frames(self, number: int) -> list[bytes]:
        """Round ``number``'s block (the same whenever it is asked for)."""
        rng = np.random.default_rng([self.config.seed, number])
        outcome, context, bets = RoundMaker(self.config, rng).play()
        return encode_block("RND", [number, self.setup.game, outcome, encode_pairs(context)], bets)

    def play_next(self) -> int:
        self.last += 1
        save_state(self.state_file, {"round": self.last})
        return self.last


class GamingTableDevice:
    """Answers GT requests for one :class:`TableModel`."""

    def __init__(self, model: TableModel, identity: dict[str, str]) -> None:
        self.model = model
        self.identity = identity
        self.garble = ChecksumGarbler(model.config.garble_rate, model.config.seed, _GARBLE_STREAM)

    def _send(self, frames: Iterable[bytes], delay: float = 0.0) -> list[Reply]:
        return [(delay if index == 0 else 0.0, self.garble(frame)) for index, frame in enumerate(frames)]

    def handle(self, line: bytes) -> list[Reply]:
        try:
            frame = decode(line)
        except FrameError:
            return [(0.0, encode("NAK", "?", "BAD_FRAME"))]
        if frame.type == "ID?":
            return self._send([encode_identity(self.identity)])
        if frame.type == "STATUS?":
            return self._send([encode("STATUS", self.model.last)])
        if frame.type == "CONF?":
            return self._send(self.model.configuration_frames())
        if frame.type == "ROUND?":
            if len(frame.fields) != 1 or not frame.fields[0].isdigit() or int(frame.fields[0]) < 1:
                return [(0.0, encode("NAK", "ROUND?", "BAD_ROUND"))]
            number = int(frame.fields[0])
            if number > self.model.last + 1:
                return [(0.0, encode("NAK", "ROUND?", "NOT_PLAYED"))]
            delay = 0.0
            if number == self.model.last + 1:  # the simulated players are always ready: the round is played now
                self.model.play_next()
                delay = self.model.config.round_time_s
            return self._send(self.model.round_frames(number), delay)
        return [(0.0, encode("NAK", frame.type, "UNKNOWN_COMMAND"))]


def boot(simulator: GamingTableSimulator, config: dict[str, Any], state_file: Path | None) -> Handler:
    """What the table's firmware does at power-up: reload its last round number."""
    return GamingTableDevice(TableModel(simulator, state_file), config.get("identity", {})).handle


def main(argv: list[str] | None = None) -> int:
    return run_line_simulator("Simulated electronic gaming table (GT protocol) on a pseudo-terminal",
                              GamingTableSimulator, boot, argv)


__all__ = ["GamingTableDevice", "RoundMaker", "TableModel", "boot", "configured_limits", "roulette_rules"]

if __name__ == "__main__":
    sys.exit(main())
