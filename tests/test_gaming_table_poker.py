"""The simulated póquer sem descarte table (``drivers/sim/gaming_table_poker.py``): rounds as the GT protocol
carries them, one deck per round, settlements by the oracle, and each fault model breaking only its rule.

Deterministic: every round comes from its own generator seeded with (seed, round), so no error rate applies.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from bench.games import poquer_sem_descarte as poquer
from bench.games.cards import parse_cards
from bench.games.poker_hands import POQUER_SEM_DESCARTE, Category, evaluate
from bench.profiles.gaming_table import GamingTableSetup, GamingTableSimulator
from drivers.gaming_table_protocol import TableRound, decode, parse_round
from drivers.sim.gaming_table import TableModel

ROUNDS = 300


def _rounds(model: str = "fair", rules: str = "p217-2007") -> list[TableRound]:
    table = TableModel(GamingTableSimulator(model=model, setup=GamingTableSetup(game="poquer-sem-descarte",
                                                                                rules=rules)))
    rounds = []
    for number in range(1, ROUNDS + 1):
        frames = [decode(raw) for raw in table.round_frames(number)]
        rounds.append(parse_round(frames[0], frames[1:-1]))
    return rounds


def _cards(text: str) -> tuple:
    return parse_cards(text.replace(".", " "), 5)


def _exact(round_: TableRound, seat: str) -> tuple[poquer.RoundSettlement, dict[str, object]]:
    bets = {bet.chance: bet for bet in round_.bets if bet.spec["seat"] == seat}
    ante = bets["ante"]
    exact = poquer.settle(ante.stake, _cards(ante.spec["cards"]), _cards(round_.outcome),
                          folded=ante.spec["play"] == "fold")
    return exact, bets


def _agrees(bet, settlement) -> bool:
    return (bet.decision == settlement.decision and abs(Fraction(bet.prize) - settlement.prize) < 1
            and abs(Fraction(bet.lost) - settlement.lost) < 1)


def test_every_round_is_dealt_from_one_deck_five_cards_a_hand() -> None:
    for round_ in _rounds():
        hands = [round_.outcome, *(bet.spec["cards"] for bet in round_.bets if bet.chance == "ante")]
        cards = [card for hand in hands for card in _cards(hand)]
        assert len(set(cards)) == len(cards) == 5 * len(hands)
        assert 1 <= len(hands) - 1 <= 5  # one to ``seats`` players and the bank


def test_fair_table_settles_every_bet_as_the_oracle_and_players_fold_only_weak_hands() -> None:
    results = set()
    for round_ in _rounds():
        for seat in {bet.spec["seat"] for bet in round_.bets}:
            exact, bets = _exact(round_, seat)
            results.add(exact.result)
            assert _agrees(bets["ante"], exact.ante)
            if exact.bet is None:
                assert "bet" not in bets
                value = evaluate(_cards(bets["ante"].spec["cards"]), POQUER_SEM_DESCARTE)
                assert value.category is Category.HIGH_CARD  # a pair or better always goes on
            else:
                assert bets["bet"].stake == 2 * bets["ante"].stake and _agrees(bets["bet"], exact.bet)
    # every way a round can end was played, but an exact tie (same five ranks) which is too rare for 300 rounds
    assert results == set(poquer.Result) - {poquer.Result.TIE}


def test_two_pairs_pays_1_breaks_only_the_two_pairs_prize() -> None:
    wrong = 0
    for round_ in _rounds("two-pairs-pays-1"):
        for seat in {bet.spec["seat"] for bet in round_.bets}:
            exact, bets = _exact(round_, seat)
            assert _agrees(bets["ante"], exact.ante)
            if exact.bet is not None and not _agrees(bets["bet"], exact.bet):
                wrong += 1
                assert exact.result is poquer.Result.WIN and exact.category is Category.TWO_PAIR
                assert bets["bet"].prize == bets["bet"].stake and exact.bet.prize == 2 * bets["bet"].stake
    assert wrong > 0


@pytest.mark.parametrize("rules", ["p217-2007", "srij-803-2015"])
def test_dealer_qualifying_with_ace_queen_changes_only_rounds_against_ace_queen_high(rules: str) -> None:
    wrong_rounds = set()
    for round_ in _rounds("dealer-qualifies-ace-queen", rules):
        dealer = _cards(round_.outcome)
        for seat in {bet.spec["seat"] for bet in round_.bets}:
            exact, bets = _exact(round_, seat)
            if exact.bet is not None and not _agrees(bets["bet"], exact.bet):
                wrong_rounds.add(round_.outcome)
                assert exact.result is poquer.Result.DEALER_NOT_QUALIFIED
                assert evaluate(dealer, POQUER_SEM_DESCARTE).category is Category.HIGH_CARD
    assert wrong_rounds
