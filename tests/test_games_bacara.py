"""Bacará ponto e banca / Macau / chemin de fer against p217-2007: the tableau, the prizes, the exact odds."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.games.bacara import (
    Action,
    Chance,
    Commission,
    Coup,
    Side,
    banker_draws,
    card_value,
    check_coup,
    check_macau_player,
    check_macau_table,
    check_stake,
    chemin_banker_action,
    chemin_player_action,
    deal_coup,
    exact_outcome_counts,
    player_draws,
    points,
    settle,
)
from bench.games.cards import DECK_52, Card, parse_cards
from bench.games.stakes import Settlement

# The banca's rows of the table of p217-2007/bacara-ponto-e-banca/13 as printed: point -> (third cards on
# which it draws, third cards on which it stands); "10" is every card worth 0.
TEXT_TABLEAU = {
    3: ({1, 2, 3, 4, 5, 6, 7, 9, 10}, {8}),
    4: ({2, 3, 4, 5, 6, 7}, {1, 8, 9, 10}),
    5: ({4, 5, 6, 7}, {1, 2, 3, 8, 9, 10}),
    6: ({6, 7}, {1, 2, 3, 4, 5, 8, 9, 10}),
}


def card_worth(value: int) -> Card:
    return Card(14 if value == 1 else value if value > 1 else 10, "S")  # value 0: a ten


def test_card_values_and_points():
    """bacara-ponto-e-banca/9: ace 1, 10 and figures 0, over 10 or 20 only the excess counts."""
    assert [card_value(Card(rank, "H")) for rank in range(2, 15)] == [2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0, 1]
    assert points("9S 8D") == 7 and points("KS QD") == 0 and points("9S 9D 9C") == 7


def test_banca_tableau_is_the_text():
    for point, (draw, stand) in TEXT_TABLEAU.items():
        assert draw | stand == set(range(1, 11))
        for value in draw:
            assert banker_draws(point, card_worth(value % 10)), (point, value)
        for value in stand:
            assert not banker_draws(point, card_worth(value % 10)), (point, value)
    for third in range(10):
        assert all(banker_draws(point, card_worth(third)) for point in (0, 1, 2))  # "tem de tirar"
        assert not banker_draws(7, card_worth(third))  # "fica"
    assert [banker_draws(point, None) for point in range(8)] == [True] * 6 + [False] * 2  # the ponto stood


def test_ponto_draws_on_0_to_5():
    assert [player_draws(point) for point in range(8)] == [True] * 6 + [False] * 2


def test_a_natural_ends_the_coup():
    coup = deal_coup(parse_cards("4S 9D 4C KH 9C 9H", distinct=False))  # ponto 8: no card drawn
    assert (len(coup.ponto), len(coup.banca), coup.winner) == (2, 2, Side.BANCA)
    coup = deal_coup(parse_cards("2S 9D 2C KH 9C 9H", distinct=False))  # banca 9: the ponto's 4 does not draw
    assert len(coup.ponto) == 2 and coup.winner is Side.BANCA


def test_deal_order_and_third_cards():
    coup = deal_coup(parse_cards("2S 3D 3C 2H 4C 5H", distinct=False))  # ponto 2+3=5, banca 3+2=5
    assert coup.ponto == tuple(parse_cards("2S 3C 4C")) and coup.banca == tuple(parse_cards("3D 2H 5H"))
    assert (coup.ponto_points, coup.banca_points, coup.winner) == (9, 0, Side.PONTO)


def test_check_coup_rejects_a_wrong_draw():
    assert check_coup("2S 3C 4C", "3D 2H 5H").winner is Side.PONTO
    with pytest.raises(ValueError, match="banca on 6 must stand"):
        check_coup("2S 3C 4C", "3D 3H 5H")  # banca 6 against a third card 4 stands
    with pytest.raises(ValueError, match="ponto on 5 must draw"):
        check_coup("2S 3C", "3D 2H 5H")
    with pytest.raises(ValueError, match="8 or 9"):
        check_coup("4S 4C 2D", "3D 2H")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DECK_52), min_size=6, max_size=6))
def test_every_dealt_coup_passes_the_check(shoe):
    coup = deal_coup(shoe)
    assert check_coup(coup.ponto, coup.banca) == coup


def _coup(ponto: str, banca: str) -> Coup:
    return check_coup(ponto, banca)


def test_prizes():
    ponto_wins, banca_wins, tie = _coup("4S 5D", "2C 5H"), _coup("2C 5H", "4S 5D"), _coup("4S 3D", "4C 3H")
    assert settle(Chance.PONTO, 1000, ponto_wins).net == 1000  # /17: 1 to 1
    assert settle(Chance.BANCA, 1000, ponto_wins).net == -1000
    assert settle(Chance.BANCA, 1000, banca_wins).net == 950  # /20.a: 5 % deducted
    assert settle(Chance.BANCA, 1000, banca_wins, Commission.NONE).net == 1000
    assert settle(Chance.PONTO, 1000, tie).net == settle(Chance.BANCA, 1000, tie).net == 0  # /18: bets stay
    assert settle(Chance.EMPATE, 1000, tie).net == 8000  # /18: 8 to 1
    assert settle(Chance.EMPATE, 1000, ponto_wins).net == -1000
    pairs = _coup("4S 4D", "KC KH")  # pairs of ranks
    assert settle(Chance.PAR_PONTO, 1000, pairs).net == settle(Chance.PAR_BANCA, 1000, pairs).net == 11_000  # /19
    assert settle(Chance.PAR_BANCA, 1000, _coup("4S 4D", "KC QH")).net == -1000  # K-Q: same value, not a pair
    with pytest.raises(ValueError, match="unknown bacará chance 'DRAGON'"):
        settle("DRAGON", 1000, tie)


def test_half_commission_on_a_banca_five():
    """/20.b: 50 % deducted when the banca wins with 5, nothing otherwise."""
    stood_on_five = _coup("TS 4D 9C", "AH 4D")  # ponto 4 draws 9 (13 = 3); banca 5 against 9 stands
    assert (stood_on_five.banca_points, stood_on_five.winner) == (5, Side.BANCA)
    assert settle(Chance.BANCA, 1001, stood_on_five, Commission.HALF_ON_FIVE).net == Fraction(1001, 2)
    assert settle(Chance.BANCA, 1000, _coup("TS 4D 9C", "AH 5D"), Commission.HALF_ON_FIVE).net == 1000


def test_exact_odds_of_an_eight_deck_shoe():
    """Full enumeration of an 8-deck shoe: the published win rates (0.458597 banca, 0.446247 ponto,
    0.095156 tie; Wizard of Odds, baccarat) and so the house edges 1.06 % banca with 5 %, 1.24 % ponto,
    14.36 % on the tie at 8 to 1."""
    counts = exact_outcome_counts(8)
    total = counts["TOTAL"]
    assert total == 416 * 415 * 414 * 413 * 412 * 411
    banca, ponto, tie = (Fraction(counts[key], total) for key in ("BANCA", "PONTO", "EMPATE"))
    assert (round(float(banca), 6), round(float(ponto), 6), round(float(tie), 6)) == (0.458597, 0.446247, 0.095156)
    assert round(float(ponto - banca * Fraction(95, 100)), 6) == 0.010579  # banca's edge with /20.a
    assert round(float(banca - ponto), 6) == 0.012351  # ponto's edge
    assert round(float(1 - 9 * tie), 6) == 0.143596  # tie at 8 to 1 (/18)
    half_on_five = banca - ponto - Fraction(counts["BANCA_ON_5"], 2 * total)
    assert half_on_five < 0 < banca - ponto  # /20.b also gives the house the edge


def test_pair_edge_over_every_first_two_cards():
    """/19 pays 11 to 1 on two cards of one rank: over the 416 x 415 ordered first two cards of 8 decks the
    expected return is -43/415 (P(pair) = 31/415, a 10.36 % edge)."""
    expected = Fraction(0)
    for first in range(2, 15):
        for second in range(2, 15):
            ways = 32 * (32 - (first == second))
            coup = Coup((Card(first, "S"), Card(second, "H")), (Card(2, "C"), Card(3, "C")))
            expected += ways * settle(Chance.PAR_PONTO, 1, coup).net
    assert expected / (416 * 415) == Fraction(-43, 415)


def test_stake_limits_ponto_e_banca():
    check_stake(Chance.PONTO, 7000, 100, 7000)
    with pytest.raises(ValueError, match="70 x"):
        check_stake(Chance.BANCA, 100, 100, 7100)
    with pytest.raises(ValueError, match="15 x"):
        check_stake(Chance.EMPATE, 100, 100, 1600)
    with pytest.raises(ValueError, match="8 x"):
        check_stake(Chance.PAR_PONTO, 100, 100, 900)
    with pytest.raises(ValueError, match="below the minimum"):
        check_stake(Chance.PONTO, 50, 100, 7000)
    with pytest.raises(ValueError, match="whole number of cents"):
        check_stake(Chance.PONTO, Fraction(100), 100, 7000)


@pytest.mark.parametrize(("chance", "ratio"), [(Chance.PONTO, 70), (Chance.BANCA, 70), (Chance.EMPATE, 15),
                                             (Chance.PAR_PONTO, 8), (Chance.PAR_BANCA, 8)])
def test_stake_limits_are_the_text_through_the_stakes_table(chance, ratio):
    """/21: 70, 15 and 8 times the minimum; check_stake reads them from bench.games.stakes (clause in the error)."""
    check_stake(chance, 100, 100, ratio * 100)
    with pytest.raises(ValueError, match=f"exceeds {ratio} x .*p217-2007/bacara-ponto-e-banca/21"):
        check_stake(chance, 100, 100, ratio * 100 + 1)


def test_settlements_are_stake_settlements():
    """A tie leaves ponto and banca bets in place: a push, stake returned (/18)."""
    tie = _coup("4S 3D", "4C 3H")
    assert settle(Chance.PONTO, 1000, tie) == Settlement.push(1000)
    assert settle(Chance.BANCA, 1000, _coup("2C 5H", "4S 5D")) == Settlement.win(1000, 950)
    assert settle(Chance.EMPATE, 1000, _coup("4S 5D", "2C 5H")) == Settlement.lose(1000)


def test_macau_limits():
    check_macau_table(100_000, 50_000, 5_000, 4_000, 4_000, 50_000)
    with pytest.raises(ValueError, match="differ by more"):
        check_macau_table(100_001, 50_000, 0, 0, 0, 50_000)  # bacara-macau/22, /23
    with pytest.raises(ValueError, match="10 %"):
        check_macau_table(0, 0, 5_001, 0, 0, 50_000)  # /24
    with pytest.raises(ValueError, match="8 %"):
        check_macau_table(0, 0, 0, 0, 4_001, 50_000)  # /25
    with pytest.raises(ValueError, match="less than the minimum"):
        check_macau_player(1000, 950, 100)  # /11
    check_macau_player(1000, 900, 100)
    with pytest.raises(ValueError, match="tie total must not be negative"):
        check_macau_table(0, 0, -1, 0, 0, 50_000)
    with pytest.raises(ValueError, match="maximum difference must be positive"):
        check_macau_table(0, 0, 0, 0, 0, 0)
    with pytest.raises(ValueError, match="minimum must be an int number of cents .*never a float"):
        check_macau_player(1000, 900, 100.0)


def test_chemin_de_fer_is_the_same_tableau_with_three_choices():
    """chemin-de-fer/64 and /67: the ponto at will on 5, the banker at will on 3 v 9 and 5 v 4, else identical."""
    assert [chemin_player_action(p) for p in range(10)] == (
        [Action.DRAW] * 5 + [Action.OPTIONAL] + [Action.STAND] * 2 + [Action.NATURAL] * 2)
    optional = []
    for point in range(8):
        for third in [None, *range(10)]:
            card = None if third is None else card_worth(third)
            action = chemin_banker_action(point, card)
            if action is Action.OPTIONAL:
                optional.append((point, third))
            else:
                assert (action is Action.DRAW) == banker_draws(point, card), (point, third)
    assert optional == [(3, 9), (5, 4)]
    assert chemin_banker_action(2, None, player_natural=True) is Action.STAND  # "salvo se o ponto abater"
    assert chemin_banker_action(9, None) is Action.NATURAL
