"""bench.games.stakes: the stake limits of the texts, the money type and the settlement record."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bench.games import stakes as s

ROULETTE_RATIOS = {  # p217-2007/roleta-americana/32, roleta-francesa/24, srij-804-2015/roleta-americana/11
    "pleno": 30, "cavalo": 60, "rua": 90, "quadro": 120, "linha": 180, "duzia": 360, "coluna": 360,
    "cavalo-de-duzia": 720, "cavalo-de-coluna": 720, "par": 540, "impar": 540, "menor": 540, "maior": 540,
    "encarnado": 540, "preto": 540,
}


@pytest.mark.parametrize("key", ["p217-2007/roleta-americana", "p217-2007/roleta-francesa",
                                 "srij-804-2015/roleta-americana"])
def test_roulette_maxima_at_the_ratio_pass_and_one_cent_over_fails(key: str) -> None:
    table = s.LIMIT_TABLES[key]
    assert {name: limit.max_multiple for name, limit in table.limits.items()} == ROULETTE_RATIOS
    minimum = 250
    at_limit = {chance: ratio * minimum for chance, ratio in ROULETTE_RATIOS.items()}
    assert s.check_table_limits(table, minimum, at_limit) == ()
    over = s.check_table_limits(table, minimum, {"pleno": 30 * minimum + 1, "par": 540 * minimum})
    assert len(over) == 1 and over[0].chance == "pleno" and over[0].clause.startswith(key)
    assert "exceeds 30 x the minimum" in over[0].message


def test_other_games_ratios_of_the_texts() -> None:
    ratios = {key: {name: limit.max_multiple for name, limit in table.limits.items()}
              for key, table in s.LIMIT_TABLES.items()}
    assert ratios["p217-2007/banca-francesa"] == {"ases": 6, "pequeno": 200, "grande": 200}
    assert ratios["p217-2007/blackjack"] == {"aposta": 30}
    assert ratios["srij-805-2015/blackjack"] == {"aposta": 100}
    assert ratios["p217-2007/bacara-ponto-e-banca"] == {"ponto": 70, "banca": 70, "empate": 15,
                                                         "par-do-ponto": 8, "par-da-banca": 8}
    for regulation in ("p217-2007", "p461-2001", "srij-803-2015"):
        assert ratios[f"{regulation}/poquer-sem-descarte"] == {"aposta-inicial": 25}
    bf = s.LIMIT_TABLES["p217-2007/banca-francesa"]
    found = s.check_table_limits(bf, {"ases": 1000, "pequeno": 500}, {"ases": 7000, "pequeno": 100_000})
    assert [(v.chance, v.clause) for v in found] == [("ases", "p217-2007/banca-francesa/17")]


def test_single_stakes_and_multiples_of_the_minimum() -> None:
    blackjack = s.LIMIT_TABLES["p217-2007/blackjack"]
    assert s.check_stake(blackjack, "aposta", 1500, 500, 15_000) == ()
    found = s.check_stake(blackjack, "aposta", 1250, 500, 15_000)
    assert [v.clause for v in found] == ["p217-2007/blackjack/14"]
    found = s.check_stake(blackjack, "aposta", 250, 500, 15_000)
    assert {v.clause for v in found} == {"p217-2007/blackjack/37", "p217-2007/blackjack/14"}
    craps = s.LIMIT_TABLES["p217-2007/craps"]
    assert s.check_stake(craps, "place-6", 1200, 600, 60_000) == ()
    assert [v.clause for v in s.check_stake(craps, "place-to-lose-4", 1000, 600, 60_000)] == ["p217-2007/craps/12"]
    roulette = s.LIMIT_TABLES["p217-2007/roleta-francesa"]
    assert "above the maximum" in s.check_stake(roulette, "pleno", 20_000, 500, 15_000)[0].message
    with pytest.raises(ValueError, match="unknown chance 'orfaos'"):
        s.check_stake(roulette, "orfaos", 500, 500, 15_000)
    with pytest.raises(ValueError, match="no minimum given"):
        s.check_table_limits(roulette, {"pleno": 500}, {"cavalo": 1000})


def test_series_chips_rule_32_c() -> None:
    for series, (fewest, most, step) in {"serie-grande": (9, 135, 9), "serie-pequena": (6, 120, 6),
                                         "orfaos": (5, 50, 5)}.items():
        assert s.check_series_chips(series, fewest) == () and s.check_series_chips(series, most) == ()
        assert len(s.check_series_chips(series, most + step)) == 1
        assert len(s.check_series_chips(series, fewest + 1)) == 1
    with pytest.raises(ValueError, match="unknown série"):
        s.check_series_chips("tiers", 9)


def test_straight_exposure_player_cap_line_bets_and_odds() -> None:
    assert s.check_straight_exposure({0: 15_000, 32: 100}, 15_000) == ()
    found = s.check_straight_exposure({0: 15_100, 32: 100}, 15_000)
    assert [v.clause for v in found] == ["p217-2007/roleta-americana/32"] and "number 0" in found[0].message
    assert s.check_player_total(10_000, None) == () and s.check_player_total(10_000, 10_000) == ()
    assert s.check_player_total(10_001, 10_000)[0].clause == "srij-804-2015/roleta-americana/12"
    assert s.check_banca_francesa_line(2000, 1000, 200_000) == ()
    assert len(s.check_banca_francesa_line(1999, 1000, 200_000)) == 1
    assert len(s.check_banca_francesa_line(400_001, 1000, 200_000)) == 1
    assert s.check_craps_odds(1000, 1000) == ()
    assert s.check_craps_odds(1001, 1000)[0].clause == "p217-2007/craps/11.1"


def test_money_is_exact_and_settlements_conserve_the_stake() -> None:
    assert s.as_money(Fraction(5, 2)) == Fraction(5, 2) and s.as_money(3) == 3
    for bad in (1.5, True, "100", None):
        with pytest.raises(ValueError, match="never a float"):
            s.as_money(bad)
    with pytest.raises(ValueError, match="negative"):
        s.as_money(-1)
    assert s.as_money(0) == 0
    with pytest.raises(ValueError, match="stake must be positive"):
        s.as_money(0, positive=True)
    assert s.as_money(300, whole=True) == 300
    with pytest.raises(ValueError, match="chips must be a whole number of cents"):
        s.as_money(Fraction(300), "chips", whole=True)
    with pytest.raises(ValueError, match="does not conserve"):
        s.Settlement("win", Fraction(100), Fraction(100), Fraction(50), Fraction(0))
    win = s.Settlement.win(100, Fraction(50))
    assert (win.net, win.paid) == (50, 150)
    assert (s.Settlement.lose(100).net, s.Settlement.lose(100).paid) == (-100, 0)
    assert s.Settlement.push(100).paid == 100 and s.Settlement.push(100).decision == "push"
    assert s.Settlement.lose(100, 40) == s.Settlement("lose", Fraction(100), Fraction(0), Fraction(60), Fraction(40))
    with pytest.raises(ValueError, match="more than the stake"):
        s.Settlement.lose(100, 101)


def test_bet_limits_and_raising_the_violations() -> None:
    """check_bet_limits = the table's maximum against the ratio, then the stake; raise_violations names each clause."""
    bacara = s.LIMIT_TABLES["p217-2007/bacara-ponto-e-banca"]
    assert s.check_bet_limits(bacara, "empate", 1500, 100, 1500) == ()
    found = s.check_bet_limits(bacara, "empate", 1600, 100, 1600)
    assert [v.message for v in found] == ["maximum 1600 exceeds 15 x the minimum 100 = 1500"]
    s.raise_violations(())
    with pytest.raises(ValueError, match=r"^empate: maximum 1600 exceeds .* \(p217-2007/bacara-ponto-e-banca/21\)$"):
        s.raise_violations(found)
    two = s.check_bet_limits(bacara, "ponto", 50, 100, 8000)
    with pytest.raises(ValueError, match="exceeds 70 x.*; ponto: stake 50 is below the minimum 100"):
        s.raise_violations(two)
