"""bench.games.roulette against the texts of p217-2007/roleta-americana, p217-2007/roleta-francesa
and srij-804-2015/roleta-americana.

Expected amounts are worked out by hand from the clauses quoted in each test; the house edges
follow from the prize tables (a chance covering k of N pockets paying m to 1 returns
(k (m + 1) - N) / N per unit), computed here independently of the code.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.games import roulette as r
from bench.games.roulette_layout import FRENCH_ORDER, arc
from bench.games.stakes import Settlement

CASINO = (r.FRENCH, r.AMERICAN_FRENCH_WHEEL, r.AMERICAN_AMERICAN_WHEEL)
ALL_RULES = (*CASINO, r.AMERICAN_ONLINE)


def every_chance(rules: r.RouletteRules) -> list[r.Chance]:
    return [r.Chance(kind, numbers) for kind in r.Kind for numbers in rules.sets_for(kind)]


def test_wheel_orders_are_those_printed_in_the_text() -> None:
    # p217-2007/roleta-americana/2 a) and b): "0-32-15-19-4-21-..." and "0-28-9-26-30-11-..."; 37 numbers 0-36.
    assert r.FRENCH.wheel[:7] == (0, 32, 15, 19, 4, 21, 2) and r.FRENCH.wheel[-3:] == (35, 3, 26)
    assert r.AMERICAN_AMERICAN_WHEEL.wheel[:7] == (0, 28, 9, 26, 30, 11, 7)
    assert r.AMERICAN_AMERICAN_WHEEL.wheel[-3:] == (35, 14, 2)
    for rules in CASINO:
        assert sorted(rules.wheel) == list(range(37)) == list(rules.pockets)
    assert r.AMERICAN_ONLINE.pockets == (*range(37), r.DOUBLE_ZERO) and r.AMERICAN_ONLINE.wheel is None


def test_layout_counts_of_every_chance() -> None:
    # 1-36 in 12 rows of 3: 24 horizontal + 33 vertical cavalos, 22 quadros, 11 linhas; next to 0 (37-number
    # table) cavalos 0-1 0-2 0-3, ruas 0-1-2 0-2-3, quadro 0-1-2-3; online 0-1 0-2 00-2 00-3 0-00, three ruas.
    single = {kind: len(r.FRENCH.sets_for(kind)) for kind in r.Kind}
    double = {kind: len(r.AMERICAN_ONLINE.sets_for(kind)) for kind in r.Kind}
    assert single[r.Kind.PLENO] == 37 and double[r.Kind.PLENO] == 38
    assert single[r.Kind.CAVALO] == 57 + 3 and double[r.Kind.CAVALO] == 57 + 5
    assert single[r.Kind.RUA] == 12 + 2 and double[r.Kind.RUA] == 12 + 3
    assert single[r.Kind.QUADRO] == 22 + 1 and double[r.Kind.QUADRO] == 22
    assert single[r.Kind.LINHA] == double[r.Kind.LINHA] == 11
    for kind in (r.Kind.DUZIA, r.Kind.COLUNA):
        assert single[kind] == 3
    for kind in (r.Kind.CAVALO_DE_DUZIA, r.Kind.CAVALO_DE_COLUNA):
        assert single[kind] == 2


def test_named_chances_cover_the_numbers_of_the_text() -> None:
    # p217-2007/roleta-americana/24: dúzias 1-12, 13-24, 25-36; colunas "alinhados no pano a partir do 34, 35, 36".
    assert r.duzia(2).numbers == frozenset(range(13, 25))
    assert max(r.coluna(1).numbers) == 34 and max(r.coluna(2).numbers) == 35 and max(r.coluna(3).numbers) == 36
    assert r.cavalo_de_coluna(2).numbers == r.coluna(2).numbers | r.coluna(3).numbers
    assert r.cavalo_de_duzia(1).numbers == frozenset(range(1, 25))
    assert r.simple("menor").numbers == frozenset(range(1, 19))
    assert len(r.simple("encarnado").numbers) == 18 and 0 not in r.simple("preto").numbers
    assert r.linha(12 - 1).numbers == frozenset(range(31, 37))


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda rules: rules.name)
def test_every_chance_returns_exactly_the_edge_the_rules_imply(rules: r.RouletteRules) -> None:
    # Casino tables: 37 numbers, 0 loses the simple chances, dúzias, colunas and their cavalos
    # (p217-2007/roleta-americana/28, roleta-francesa/19): every chance returns -1/37.
    # Online: 38 pockets, rule srij-804-2015/roleta-americana/19: -2/38 on every chance.
    pockets = len(rules.pockets)
    edge = Fraction(-1, 37) if pockets == 37 else Fraction(-2, 38)
    for chance in every_chance(rules):
        covered, multiple = len(chance.numbers), r.PRIZE_MULTIPLES[chance.kind]
        independent = (covered * (multiple + 1) - pockets) / Fraction(pockets)
        assert independent == edge, chance  # the prize table itself implies the edge
        assert r.expected_net(r.Bet(chance, 100), rules) == 100 * edge, chance


def test_prize_table_of_rule_27() -> None:
    # "35 vezes o seu valor no pleno ... metade do seu valor no cavalo de dúzia"; stake stays the player's.
    rules = r.FRENCH
    cases = [(r.pleno(17), 17, 3500), (r.cavalo(17, 20), 20, 1700), (r.rua(16, 17, 18), 16, 1100),
             (r.quadro(17, 18, 20, 21), 21, 800), (r.linha(6), 18, 500), (r.duzia(2), 13, 200),
             (r.coluna(2), 17, 200), (r.cavalo_de_duzia(1), 24, 50), (r.cavalo_de_coluna(1), 17, 50),
             (r.simple("par"), 36, 100), (r.simple("encarnado"), 1, 100), (r.simple("preto"), 2, 100)]
    for chance, outcome, prize in cases:
        result = r.settle(r.Bet(chance, 100), outcome, rules)
        assert result == Settlement("win", Fraction(100), Fraction(prize), Fraction(100), Fraction(0)), chance
    half = r.settle(r.Bet(r.cavalo_de_coluna(2), 5), 36, rules)
    assert half.prize == Fraction(5, 2) and half.paid == Fraction(15, 2)


@pytest.mark.parametrize("rules", CASINO, ids=lambda rules: rules.name)
def test_zero_loses_simple_chances_dozens_columns_and_their_splits(rules: r.RouletteRules) -> None:
    outside = [r.duzia(d) for d in (1, 2, 3)] + [r.coluna(c) for c in (1, 2, 3)] + [
        r.cavalo_de_duzia(1), r.cavalo_de_duzia(2), r.cavalo_de_coluna(1), r.cavalo_de_coluna(2)] + [
        r.simple(k) for k in ("par", "impar", "menor", "maior", "encarnado", "preto")]
    for chance in outside:
        assert r.settle(r.Bet(chance, 100), 0, rules) == Settlement.lose(100), chance
    for chance in (r.pleno(0), r.cavalo(0, 3), r.rua(0, 1, 2), r.quadro(0, 1, 2, 3)):
        assert r.settle(r.Bet(chance, 100), 0, rules).decision == "win"


def test_online_zero_and_double_zero_rule_19() -> None:
    # "A saída do 0 ou do 00 faz perder todas as apostas nas chances simples ... com exceção das apostas nos
    # plenos, cavalos, ruas e quadros que integrem aqueles números."
    online = r.AMERICAN_ONLINE
    for outcome in (0, "00"):
        winners = {c for c in every_chance(online) if r.settle(r.Bet(c, 10), outcome, online).decision == "win"}
        assert all(c.kind in (r.Kind.PLENO, r.Kind.CAVALO, r.Kind.RUA, r.Kind.QUADRO) for c in winners)
        assert winners == {c for c in every_chance(online) if r.parse_pocket(outcome) in c.numbers}
    assert r.settle(r.Bet(r.pleno("00"), 10), "00", online).prize == 350
    assert r.settle(r.Bet(r.cavalo(0, "00"), 10), "00", online).prize == 170
    assert r.settle(r.Bet(r.rua("00", 2, 3), 10), "00", online).prize == 110
    assert r.settle(r.Bet(r.simple("par"), 10), "00", online) == Settlement.lose(10)


def test_series_are_the_wheel_sectors_of_rule_25() -> None:
    # Série grande: 17 numbers, 9 chips; série pequena: 12 numbers, 6 chips; órfãos: 8 numbers, 5 chips.
    grande, pequena, orfaos = (r.serie(name, 100) for name in ("serie-grande", "serie-pequena", "orfaos"))
    assert (len(grande.numbers), grande.chips) == (17, 9)
    assert (len(pequena.numbers), pequena.chips) == (12, 6)
    assert (len(orfaos.numbers), orfaos.chips) == (8, 5)
    # On the French numbering they are the sectors 22..25 (around 0), 27..33 (opposite) and the rest.
    assert grande.numbers == frozenset(arc(FRENCH_ORDER, 22, 17))
    assert pequena.numbers == frozenset(arc(FRENCH_ORDER, 27, 12))
    assert orfaos.numbers == frozenset(range(37)) - grande.numbers - pequena.numbers
    assert r.serie("vadios", 100) == orfaos and r.serie("serie-0-2-3", 100) == grande


def test_series_worked_examples_rule_27_c() -> None:
    rules = r.AMERICAN_FRENCH_WHEEL
    grande = r.serie("serie-grande", 100)
    # 0: the rua 0-2-3 carries two chips, each paid 11x and kept; the other 7 chips are lost.
    assert r.settle(grande, 0, rules) == Settlement("partial", Fraction(900), Fraction(2200), Fraction(200),
                                                    Fraction(700))
    # 26: quadro 25-26-28-29, two chips at 8x.
    assert r.settle(grande, 26, rules).net == 1600 - 700
    assert r.settle(grande, 17, rules) == Settlement.lose(900)
    # Órfãos on 17: the cavalos 14-17 and 17-20 both win, 17x each; 3 chips lost.
    assert r.settle(r.serie("orfaos", 100), 17, rules).net == 2 * 1700 - 300
    # Each chip of a série returns -1/37, as its chance does.
    for name, chips in (("serie-grande", 9), ("serie-pequena", 6), ("orfaos", 5)):
        assert r.expected_net(r.serie(name, 100), rules) == Fraction(-100 * chips, 37)


def test_vizinhos_rule_25_b_and_27_d() -> None:
    rules = r.AMERICAN_FRENCH_WHEEL
    bet = r.vizinhos(0, 2, 100)  # 0 and two neighbours each side: 3-26-0-32-15, five chips
    assert bet.numbers == frozenset({3, 26, 0, 32, 15}) and bet.chips == 5
    assert r.settle(bet, 32, rules) == Settlement("partial", Fraction(500), Fraction(3500), Fraction(100),
                                                  Fraction(400))
    assert r.settle(bet, 19, rules) == Settlement.lose(500)
    assert r.vizinhos(26, 3, 10).numbers == frozenset({12, 35, 3, 26, 0, 32, 15})
    assert r.vizinhos(17, 1, 10).chips == 3
    exposure = r.straight_exposure([bet, r.Bet(r.pleno(0), 250), r.Bet(r.duzia(1), 1000)])
    assert exposure == {3: 100, 26: 100, 0: 350, 32: 100, 15: 100}


def test_announced_bets_only_on_the_american_table_with_french_numbering() -> None:
    for rules in (r.FRENCH, r.AMERICAN_AMERICAN_WHEEL, r.AMERICAN_ONLINE):
        with pytest.raises(ValueError, match="roleta-americana/25"):
            r.serie("serie-grande", 100, rules)
        with pytest.raises(ValueError, match="roleta-americana/25"):
            r.vizinhos(0, 1, 100, rules)
        with pytest.raises(ValueError, match="roleta-americana/25"):
            r.settle(r.serie("orfaos", 100), 1, rules)
    with pytest.raises(ValueError, match="1, 2 or 3"):
        r.vizinhos(0, 4, 100)
    with pytest.raises(ValueError, match="unknown série"):
        r.serie("tiers", 100)


def test_bad_bets_and_numbers_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="not a cavalo"):
        r.settle(r.Bet(r.cavalo(3, 4), 100), 3, r.FRENCH)  # 3 and 4 are not adjacent on the layout
    with pytest.raises(ValueError, match="not a quadro"):
        r.settle(r.Bet(r.quadro(0, 1, 2, 3), 100), 1, r.AMERICAN_ONLINE)
    with pytest.raises(ValueError, match="covers 4 numbers"):
        r.quadro(0, "00", 1, 2, 3)  # the American five-number bet is no chance of srij-804-2015/13
    with pytest.raises(ValueError, match="not on"):
        r.settle(r.Bet(r.pleno(5), 100), "00", r.FRENCH)
    with pytest.raises(ValueError, match="pocket"):
        r.pleno(38)
    with pytest.raises(ValueError, match="never a float"):
        r.Bet(r.pleno(5), 1.5)
    with pytest.raises(ValueError, match="positive"):
        r.Bet(r.pleno(5), 0)
    assert r.Chance("cavalo", {"00", 3}) == r.cavalo(3, "00")
    with pytest.raises(ValueError, match="unknown chance kind"):
        r.Chance("cinco-numeros", {0, 1, 2, 3, 37})
    with pytest.raises(ValueError, match="unknown chance simples"):
        r.simple("verde")
    declined = r.RouletteRules("online, no cavalo de dúzia", "srij-804-2015/roleta-americana", tuple(range(38)),
                               None, announced_bets=False, offers_split_dozens=False)
    with pytest.raises(ValueError, match="srij-804-2015/roleta-americana/12"):
        r.settle(r.Bet(r.cavalo_de_duzia(1), 100), 5, declined)
    assert r.settle(r.Bet(r.duzia(1), 100), 5, declined).prize == 200


def test_net_by_pocket_settles_many_spins_at_once() -> None:
    rules = r.AMERICAN_ONLINE
    bet = r.Bet(r.cavalo(0, "00"), 100)
    table = r.net_by_pocket(bet, rules)
    assert len(table) == 38 and table[0] == table[r.DOUBLE_ZERO] == 1700 and table[5] == -100
    spins = np.random.default_rng(20240517).integers(0, 38, size=2000)
    total = np.array(table, dtype=object)[spins].sum()
    assert total == sum(r.settle(bet, int(n), rules).net for n in spins[:2000])


@st.composite
def bets_and_outcomes(draw: st.DrawFn) -> tuple[r.RouletteRules, r.Bet | r.AnnouncedBet, int]:
    rules = draw(st.sampled_from(ALL_RULES))
    outcome = draw(st.sampled_from(rules.pockets))
    if rules.announced_bets and draw(st.booleans()):
        unit = draw(st.integers(1, 10_000))
        if draw(st.booleans()):
            return rules, r.serie(draw(st.sampled_from(["serie-grande", "serie-pequena", "orfaos"])), unit), outcome
        return rules, r.vizinhos(draw(st.sampled_from(rules.pockets)), draw(st.integers(1, 3)), unit), outcome
    kind = draw(st.sampled_from(list(r.Kind)))
    numbers = draw(st.sampled_from(sorted(rules.sets_for(kind), key=sorted)))
    stake = draw(st.one_of(st.integers(1, 10**7), st.fractions(min_value=Fraction(1, 100), max_value=10**5)))
    return rules, r.Bet(r.Chance(kind, numbers), stake), outcome


@settings(max_examples=300, deadline=None)
@given(bets_and_outcomes())
def test_settlement_conserves_the_stake_and_never_pays_negative(case: tuple) -> None:
    rules, bet, outcome = case
    result = r.settle(bet, outcome, rules)
    assert result.returned + result.lost == result.staked
    assert result.prize >= 0 and result.paid >= 0 and result.net >= -result.staked
    placements = (bet.chance,) if isinstance(bet, r.Bet) else bet.placements
    assert (result.prize > 0) == any(c.covers(outcome) for c in placements)
