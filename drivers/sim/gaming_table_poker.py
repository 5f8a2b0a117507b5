"""Simulated póquer sem descarte (Caribbean stud) rounds for the simulated gaming table.

One 52-card deck, freshly shuffled each round (p217-2007/poquer-sem-descarte/1). After a burn card, one
card to each seated player and one to the bank, five times over (srij-803-2015/poquer-sem-descarte/19),
the bank's last card face up. Each player bets an ante (a whole multiple of the table minimum within the
``aposta-inicial`` limits), looks at his cards and goes on (second bet of twice the ante) or folds: the
simulated players go on with a pair or better or with ace-king, and otherwise fold four times in five.
The bets are settled by :func:`bench.games.poquer_sem_descarte.settle`, with one named rule broken under
a fault model (:class:`bench.profiles.gaming_table.GamingTableSimulator`).

On the wire (``docs/protocols/gaming-table.md``) the outcome is the bank's five cards in the order dealt;
each player has an ``ante`` bet (spec ``seat``, ``cards`` in the order dealt, ``play=call|fold``) and, when
he went on, a ``bet`` (spec ``seat``).
"""

from __future__ import annotations

from collections.abc import Sequence

from bench.games import poquer_sem_descarte as poquer
from bench.games.cards import ACE, KING, QUEEN, Card
from bench.games.poker_hands import POQUER_SEM_DESCARTE, Category, compare, evaluate
from bench.games.stakes import Settlement
from drivers.sim.gaming_table_bets import BetFields, RoundSource, bet_fields, cards_text

ANTE_LIMIT = "aposta-inicial"
FOLD_SHARE = 0.8
"""Share of the hands below ace-king the simulated players fold."""


def _worth_calling(cards: Sequence[Card]) -> bool:
    value = evaluate(cards, POQUER_SEM_DESCARTE)
    ranks = {card.rank for card in cards}
    return value.category is not Category.HIGH_CARD or {ACE, KING} <= ranks


def _ace_queen_only(dealer: Sequence[Card]) -> bool:
    """A bank hand the ``dealer-qualifies-ace-queen`` fault lets play: high card with ace and queen, no king."""
    value = evaluate(dealer, POQUER_SEM_DESCARTE)
    ranks = {card.rank for card in dealer}
    return value.category is Category.HIGH_CARD and {ACE, QUEEN} <= ranks and KING not in ranks


class PoquerRound:
    """One round at a póquer sem descarte table: antes, the deal, the players' decisions, the settlement."""

    def __init__(self, maker: RoundSource) -> None:
        self.maker = maker
        self.rng = maker.rng

    def play(self) -> tuple[str, dict[str, object], list[BetFields]]:
        players = int(self.rng.integers(1, self.maker.config.seats + 1))
        antes = [self.maker.stake(ANTE_LIMIT) for _ in range(players)]
        deck = self.maker.shoe(1)
        next(deck)  # the burn card
        hands: list[list[Card]] = [[] for _ in range(players + 1)]  # the bank's hand last
        for _ in range(5):
            for hand in hands:
                hand.append(next(deck))
        dealer = hands[-1]
        bets: list[BetFields] = []
        for seat, (cards, ante) in enumerate(zip(hands[:-1], antes, strict=True), start=1):
            folded = not _worth_calling(cards) and self.rng.random() < FOLD_SHARE
            settled = self._settle(ante, cards, dealer, folded=folded)
            bets.append(bet_fields("ante", {"seat": seat, "cards": cards_text(cards),
                                            "play": "fold" if folded else "call"}, ante, settled.ante))
            if settled.bet is not None:
                bets.append(bet_fields("bet", {"seat": seat}, 2 * ante, settled.bet))
        return cards_text(dealer), {}, bets

    def _settle(self, ante: int, cards: Sequence[Card], dealer: Sequence[Card], *,
                folded: bool) -> poquer.RoundSettlement:
        exact = poquer.settle(ante, cards, dealer, folded=folded)
        model = self.maker.model
        if model == "dealer-qualifies-ace-queen" and not folded and _ace_queen_only(dealer):
            outcome = compare(evaluate(cards, POQUER_SEM_DESCARTE), evaluate(dealer, POQUER_SEM_DESCARTE))
            bet = 2 * ante
            if outcome > 0:
                return poquer.RoundSettlement(poquer.Result.WIN, exact.category, Settlement.win(ante, ante),
                                              Settlement.win(bet, poquer.PAY_TABLE[exact.category] * bet))
            if outcome < 0:
                return poquer.RoundSettlement(poquer.Result.LOSE, exact.category, Settlement.lose(ante),
                                              Settlement.lose(bet))
            return poquer.RoundSettlement(poquer.Result.TIE, exact.category, Settlement.push(ante),
                                          Settlement.push(bet))
        if (model == "two-pairs-pays-1" and exact.result is poquer.Result.WIN
                and exact.category is Category.TWO_PAIR and exact.bet is not None):
            return poquer.RoundSettlement(exact.result, exact.category, exact.ante,
                                          Settlement.win(exact.bet.staked, exact.bet.staked))
        return exact


__all__ = ["ANTE_LIMIT", "PoquerRound"]
