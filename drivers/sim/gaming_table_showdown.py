"""Simulated deals of non-banked poker (hold'em, omaha, póquer sintético) for the simulated gaming table.

A deal is drawn from the round's generator: 2 to ``seats`` players; what each put in the pot (whole multiples
of the table minimum: folded players a little, players who saw the end the same amount, all-in players
less, which makes side pots); the cards from one shuffled deck (52 cards, 28 for póquer sintético); the five
common cards. The end of the deal (the house's percentage taken from each pot, the pots divided) is settled
by :func:`bench.games.poker_showdown.settle_deal`, with one named rule broken under a fault model
(:class:`bench.profiles.gaming_table.GamingTableSimulator`).

On the wire (``docs/protocols/gaming-table.md``) the outcome is the five common cards, the context ``order``
the seats from the player who has the hand; each player is a ``hand`` bet (spec ``seat``, ``cards`` (his
own, only when he stayed to the end), ``play=show|fold|allin|unseen``) whose stake is what he put in and
whose prize / lost is what he won beyond it / lost of it; the house's take is a ``rake`` item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from bench.games.cards import Card
from bench.games.holdem import Pot, award
from bench.games.poker_hands import Category, Ranking
from bench.games.poker_showdown import OWN_CARDS, DealSettlement, hand_value, ranking_of, settle_deal
from bench.games.stakes import Settlement
from drivers.sim.gaming_table_bets import BetFields, RoundSource, bet_fields, cards_text

FOLD_SHARE = 0.35
ALL_IN_SHARE = 0.2


class ShowdownRound:
    """One deal at a non-banked poker table: contributions, cards, the pots divided."""

    def __init__(self, maker: RoundSource) -> None:
        self.maker = maker
        self.rng = maker.rng
        self.variant = maker.setup.game
        self.rules = maker.setup.rules
        self.unit = maker.setup.minimum

    def play(self) -> tuple[str, dict[str, object], list[BetFields]]:
        rng, unit = self.rng, self.unit
        players = int(rng.integers(2, self.maker.config.seats + 1))
        seats = [int(seat) + 1 for seat in sorted(rng.choice(self.maker.config.seats, players, replace=False))]
        level = unit * int(rng.integers(2, 21))
        contributions: dict[int, int] = {}
        play: dict[int, str] = {}
        for seat in seats:
            draw = rng.random()
            if draw < FOLD_SHARE:
                contributions[seat], play[seat] = unit * int(rng.integers(0, level // unit)) or unit, "fold"
            elif draw < FOLD_SHARE + ALL_IN_SHARE:
                contributions[seat], play[seat] = unit * int(rng.integers(1, level // unit)), "allin"
            else:
                contributions[seat], play[seat] = level, "show"
        live = [seat for seat in seats if play[seat] != "fold"]
        if not live:
            play[seats[0]], contributions[seats[0]] = "show", level
            live = [seats[0]]
        if len(live) == 1:
            play[live[0]] = "unseen"
        deck = ranking_of(self.variant, self.rules).deck
        cards = [deck[int(i)] for i in rng.permutation(len(deck))]
        own = {seat: cards[index * OWN_CARDS[self.variant]:(index + 1) * OWN_CARDS[self.variant]]
               for index, seat in enumerate(seats)}
        board = cards[len(seats) * OWN_CARDS[self.variant]:][:5]
        start = int(rng.integers(len(seats)))
        order = seats[start:] + seats[:start]
        folded = [seat for seat in seats if play[seat] == "fold"]
        deal = self._settle(contributions, {seat: own[seat] for seat in live}, board, folded, order)
        bets: list[BetFields] = []
        for seat in seats:
            spec: dict[str, object] = {"seat": seat, "play": play[seat]}
            if play[seat] in ("show", "allin"):
                spec["cards"] = cards_text(own[seat])
            bets.append(bet_fields("hand", spec, contributions[seat], _result(contributions[seat],
                                                                              deal.won.get(seat, 0))))
        if deal.rake:
            bets.append(bet_fields("rake", {}, deal.rake, Settlement.lose(deal.rake)))
        return cards_text(board), {"order": ".".join(str(seat) for seat in order)}, bets

    def _settle(self, contributions: dict[int, int], own: dict[int, Sequence[Card]], board: Sequence[Card],
                folded: list[int], order: list[int]) -> DealSettlement:
        setup, model = self.maker.setup, self.maker.model
        percent = Fraction(setup.rake_percent) + (1 if model == "rake-above-limit" else 0)
        deal = settle_deal(self.variant, self.rules, contributions, own, board, folded=folded, rake_percent=percent,
                           unit=self.unit, hand_order=order)
        if model == "side-pots-ignored" and deal.showdown and len(deal.pots) > 1:
            # the fault: one pot for everything, the best hand among all who stayed wins it all
            everyone = Pot(sum(pot.amount for pot in deal.pots), tuple(sorted(deal.values)))
            return DealSettlement((everyone,), deal.rake, award([everyone], deal.values, unit=self.unit,
                                                                  hand_order=order), True, deal.values)
        if model == "sintetico-full-above-flush" and deal.showdown:
            ranking = _full_above_flush(self.rules)
            values = {seat: hand_value(self.variant, cards, board, ranking) for seat, cards in own.items()}
            return DealSettlement(deal.pots, deal.rake, award(list(deal.pots), values, unit=self.unit,
                                                              hand_order=order), True, values)
        return deal


def _full_above_flush(rules: str) -> Ranking:
    """The fault ``sintetico-full-above-flush``: the 28-card ranking with the full house and the flush in the
    52-card deck's order (p461-2001/poquer-sintetico/24 and p217-2007/poquer-nao-bancado/103 put the flush
    above)."""
    ranking = ranking_of("poquer-sintetico", rules)
    order = list(ranking.order)
    flush, full = order.index(Category.FLUSH), order.index(Category.FULL_HOUSE)
    order[flush], order[full] = order[full], order[flush]
    return replace(ranking, name=f"{ranking.name} (full house above flush)", order=tuple(order))


def _result(put_in: int, received: int) -> Settlement:
    """What the pots gave a player against what he put in, as a settlement of his chips."""
    if received > put_in:
        return Settlement.win(put_in, received - put_in)
    if received == put_in:
        return Settlement.push(put_in)
    return Settlement.lose(put_in, put_in - received)


__all__ = ["ShowdownRound"]
