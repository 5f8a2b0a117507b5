"""Certification suite: electronic gaming tables (roulette, craps, cussec, banca francesa, blackjack, bacará,
póquer sem descarte, and the non-banked hold'em, omaha and póquer sintético), and online games whose server
reports its rounds the same way.

The table reports each round it plays (:class:`drivers.gaming_table.GamingTable`): the outcome (the pocket,
the dice, the cards in the order dealt), every bet on the layout (chance, stake) and what the table did
with it (won, lost, pushed or left standing; the prize paid; the part of the stake collected).
``options.rounds`` rounds are read, each committed to the journal as it is read (a killed run resumes).

Every check is exact, so no verdict here is statistical and none has an error rate:

* Settlements: EVERY bet is settled again by the oracle of its game (:mod:`bench.games`: the regulation's
  rules as executable code, exact fractions of a cent) on the outcome the table reported, and compared with
  what the table paid. The table pays whole cents: it agrees when the decision is the oracle's, the prize and
  the part of the stake collected are each within one cent of the exact amounts (a prize of 7 for 6 on
  100 cents is 116 2/3: 116 or 117 agree, 115 does not) and a bet left standing became what the oracle says.
  Each bet is judged under the clause whose rule decides it (a cavalo won: the prizes clause; a chance
  simples lost on 0: the zero clause; a pequeno lost on a triple: cussec/9 ...), so a wrong rule fails its
  own clause only. The measurement per clause is the number of disagreements (0 required) over the bets it
  judged, with the first few disagreements in its details. A bet the oracle refuses (a chance not on the
  layout, an insurance above half the bet) is a disagreement of the clause defining the chances.
* Cards: at póquer sem descarte every round's hands must come from one 52-card deck (no card twice, five
  cards each), and a second bet is twice the ante and made only by a player who did not fold.
* Pots (non-banked poker): every deal's end is settled again by :func:`bench.games.poker_showdown.settle_deal`
  from what each player put in, who folded, the cards shown and the house's stated percentage; each
  player's share of the pots and the house's take must agree to the chip. A deal is judged under every rule
  it exercises: the hand rules of its variant (every deal with a showdown), side pots (a deal with more than
  one pot), divided pots (a tie), the pot won unseen (everyone else folded), the house's percentage, and the
  cards (one deck of the variant's size, the variant's number of own cards).
* Drawing rules: the blackjack dealer's hand (stands on 17 or more, soft 17 included; p217-2007/blackjack/6
  and /19) whenever a player's hand still needs the dealer's total; the bacará coup against the tableau
  (p217-2007/bacara-ponto-e-banca/13). A blackjack hand settled against a dealer hand that broke the
  drawing rule has no oracle settlement: it is counted apart (reported), never guessed.
* Limits: the maxima the table is configured with against the regulation's multiples of the minimum
  (:func:`bench.games.stakes.check_table_limits`), and every stake placed against the table's minimum and
  maximum for its chance (and a whole multiple of the minimum where the rules say so).

A test of a game the table does not play is skipped with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pytest

from bench.games import bacara, banca_francesa, blackjack, craps, cussec, holdem, poker_showdown, roulette
from bench.games import poquer_sem_descarte as poquer
from bench.games.cards import parse_cards
from bench.games.poker_hands import POQUER_SEM_DESCARTE, Category, evaluate
from bench.games.stakes import (
    Settlement,
    Violation,
    check_banca_francesa_line,
    check_stake,
    check_table_limits,
)
from bench.profiles.gaming_table import limit_table
from drivers.gaming_table import TableConfiguration, TableRound
from drivers.gaming_table_protocol import TableBet
from fixtures.no_reads import NoReads
from fixtures.session import BenchSession, ObservationStream, collect_observations

ROUNDS_STREAM = "gaming-table/rounds"
ROUNDS_NODEID = "suites/test_gaming_tables.py::rounds"
NO_READ_STREAM = "gaming-table/no-reads"
"""Reads of a round that failed within the driver's retry budget (fixtures.no_reads: at most 5 % of the planned
rounds, at least 1); the round is asked for again, never guessed."""
SHOWN = 5
"""Disagreements shown in a measurement's details (all are counted)."""
P217 = "p217-2007"

pytestmark = pytest.mark.equipment("gaming-table")

ROULETTE_CLAUSES = {  # (game, rules): chances, prizes, zero rule
    ("roleta-francesa", P217): ("p217-2007/roleta-francesa/16", "p217-2007/roleta-francesa/18",
                                "p217-2007/roleta-francesa/19"),
    ("roleta-americana", P217): ("p217-2007/roleta-americana/24", "p217-2007/roleta-americana/27",
                                 "p217-2007/roleta-americana/28"),
    ("roleta-americana", "srij-804-2015"): ("srij-804-2015/roleta-americana/18", "srij-804-2015/roleta-americana/13",
                                            "srij-804-2015/roleta-americana/19"),
}
CRAPS_CLAUSES = {
    "pass-line": "10.1", "dont-pass": "10.2", "come": "10.3", "dont-come": "10.4", "big-6": "10.5", "big-8": "10.6",
    "under-seven": "10.7", "over-seven": "10.8", "odds": "11.1", "dont-odds": "11.1", "craps": "11.2",
    "hardway": "11.3", "total-7": "11.4", "total-2": "11.5", "total-3": "11.6", "total-11": "11.7",
    "total-12": "11.8", "place": "12", "place-to-lose": "12", "field": "13.1",
}
CRAPS_STAYS = "p217-2007/craps/13.2"
BLACKJACK_CLAUSES = {  # rules: category -> clause
    P217: {"insurance": "33", "surrender": "36", "even-money": "34", "special": "35", "double": "29", "split": "26",
           "BLACKJACK": "21", "WIN": "23", "LOSE": "23", "PUSH": "24", "BUST": "22", "stays": "25"},
    "srij-805-2015": {"insurance": "25", "surrender": "15", "even-money": "20", "special": "25", "double": "15",
                      "split": "21", "BLACKJACK": "25", "WIN": "25", "LOSE": "25", "PUSH": "25", "BUST": "25",
                      "stays": "26"},
}
DEALER_CLAUSES = {P217: ("p217-2007/blackjack/6", "p217-2007/blackjack/19"),
                  "srij-805-2015": ("srij-805-2015/blackjack/8", "srij-805-2015/blackjack/17")}
BACARA = "p217-2007/bacara-ponto-e-banca"
BANCA = "p217-2007/banca-francesa"
CUSSEC = "p217-2007/cussec"
LINE_CLAUSE = f"{BANCA}/11"
LIMIT_CLAUSES = tuple(dict.fromkeys(clause for table in (limit_table(game, rules) for game, rules in (
    ("roleta-francesa", P217), ("roleta-americana", P217), ("roleta-americana", "srij-804-2015"),
    ("banca-francesa", P217), ("blackjack", P217), ("blackjack", "srij-805-2015"), ("bacara-ponto-e-banca", P217),
    ("craps", P217), ("poquer-sem-descarte", P217), ("poquer-sem-descarte", "p461-2001"),
    ("poquer-sem-descarte", "srij-803-2015"))) if table is not None for clause in table.limits[next(iter(table.limits))].clauses))
POQUER = "poquer-sem-descarte"
_POQUER_CASINO = {"deck": "1", "fold": "18", "qualification": "18", "unqualified-ante": "18", "ante": "18",
                  "prize": "6", "lose": "18", "same-combination": "7", "second-bet": "18"}
POQUER_CLAUSES = {  # rules: what decides a bet -> rule
    P217: _POQUER_CASINO,
    "p461-2001": _POQUER_CASINO,
    "srij-803-2015": {"deck": "19", "fold": "22", "qualification": "25", "unqualified-ante": "26", "ante": "28",
                      "prize": "12", "lose": "29", "same-combination": "13", "second-bet": "23"},
}
NAO_BANCADO = f"{P217}/poquer-nao-bancado"
SINTETICO_P461 = "p461-2001/poquer-sintetico"
_P217_POTS = {"side-pots": ("38", "49", "50"), "split": ("66", "67"), "unseen": ("51",), "rake": ("7",),
              "equal-bets": ("48",)}
SHOWDOWN_CLAUSES: dict[tuple[str, str], dict[str, tuple[str, ...]]] = {  # (variant, rules): what is judged -> rules
    ("holdem", P217): {"cards": ("93",), "hands": ("17", "18", "94"), **_P217_POTS},
    ("omaha", P217): {"cards": ("72",), "hands": ("17", "18", "73"), **_P217_POTS},
    ("poquer-sintetico", P217): {"cards": ("95", "96"), "hands": ("97", "103", "105"), **_P217_POTS,
                                 "split": ("66", "67", "104")},
    ("poquer-sintetico", "p461-2001"): {"cards": ("1", "4"), "hands": ("1", "24"), "side-pots": ("48",),
                                        "split": ("26", "56"), "unseen": (), "rake": ("55",), "equal-bets": ()},
}
SINTETICO_CATEGORY_RULES = {  # p461-2001/poquer-sintetico: the rule defining and ranking each combination
    Category.ROYAL_FLUSH: "27", Category.STRAIGHT_FLUSH: "28", Category.FOUR_OF_A_KIND: "29", Category.FLUSH: "30",
    Category.FULL_HOUSE: "31", Category.STRAIGHT: "32", Category.THREE_OF_A_KIND: "33",
    Category.FIGURES_WITH_PAIRS: "34", Category.SIMPLE_FIGURES: "35", Category.TWO_PAIR: "36",
    Category.ONE_PAIR: "37", Category.HIGH_CARD: "25",
}
STAKE_CLAUSES = {("blackjack", "srij-805-2015"): ("srij-805-2015/blackjack/9",)}
"""Clauses on each stake (between the table's minimum and maximum) beyond those of the limit table."""


# -- rounds ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def configuration(gaming_table: Any) -> TableConfiguration:
    """The table's own configuration; the suite stops if it is not the game and rules of the profile."""
    options = gaming_table.equipment.options
    configuration = gaming_table.driver.configuration()
    if (configuration.game, configuration.rules) != (options.game, options.rules):
        pytest.fail(f"the table is set up for {configuration.game} ({configuration.rules}), the profile says "
                    f"{options.game} ({options.rules})")
    return configuration


@pytest.fixture(scope="module")
def rounds(bench: BenchSession, gaming_table: Any, configuration: TableConfiguration) -> list[TableRound]:
    """``options.rounds`` rounds, each committed to the journal as it is read (resumable)."""
    table = gaming_table.driver
    no_reads = NoReads(bench, NO_READ_STREAM, ROUNDS_NODEID, gaming_table.equipment.options.rounds,
                       gaming_table.name, "rounds")
    following: int | None = None

    def read_next() -> TableRound:
        """The next round the table plays; a round not read within the retry budget is asked for again."""
        nonlocal following
        if following is None:
            following = table.last_round() + 1
        played = table.read_round(following)
        following += 1
        return played

    def one_round() -> tuple[dict[str, Any], str, str | None]:
        return no_reads.taking(read_next)().to_json(), gaming_table.name, None

    stream: ObservationStream = collect_observations(bench, ROUNDS_STREAM, ROUNDS_NODEID,
                                                     gaming_table.equipment.options.rounds, one_round, "table rounds")
    return [TableRound.from_json(value) for value in stream.values()]


def _game(gaming_table: Any, *games: str) -> str:
    game = gaming_table.equipment.options.game
    if game not in games:
        pytest.skip(f"the table plays {game}, not {' or '.join(games)}")
    return game


# -- judging settlements ---------------------------------------------------------------------------


@dataclass
class Tally:
    """Bets judged per clause, and the disagreements found."""

    checked: dict[str, int] = field(default_factory=dict)
    disagreements: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    apart: list[dict[str, Any]] = field(default_factory=list)

    def add(self, clause: str, problem: str | None, round_: TableRound, bet: TableBet,
            exact: Settlement | None = None) -> None:
        self.checked[clause] = self.checked.get(clause, 0) + 1
        if problem is not None:
            self.disagreements.setdefault(clause, []).append({
                "round": round_.round, "outcome": round_.outcome, "context": dict(round_.context),
                "bet": bet.to_json(), "problem": problem,
                "oracle": None if exact is None else {"decision": exact.decision, "prize": str(exact.prize),
                                                      "lost": str(exact.lost)}})

    def record(self, measure: Callable[..., Any], game: str, clauses: tuple[str, ...], method: str) -> None:
        """One measurement per clause that judged at least one bet: its disagreements (0 required)."""
        for clause in clauses:
            count = self.checked.get(clause, 0)
            if not count:
                continue  # no bet of the rounds read exercised this rule: the clause stays NOT TESTED
            found = self.disagreements.get(clause, [])
            details: dict[str, Any] = {"bets_checked": count, "first_disagreements": found[:SHOWN]}
            if self.apart:
                details["not_settleable"] = len(self.apart)
                details["first_not_settleable"] = self.apart[:SHOWN]
            measure(f"{game}: settlements disagreeing with the oracle under {clause}", len(found), unit="bets",
                    expected=0, clauses=[clause], method=method, sample_size=count, details=details)


METHOD = ("every bet settled again by the oracle of bench.games on the reported outcome; agreement: same "
          "decision, prize and collected stake each within one cent of the exact amount, same standing bet")


def _problem(bet: TableBet, exact: Settlement, after: str | None = None, *,
             parts: tuple[str, ...] = ("decision", "prize", "lost", "next")) -> str | None:
    """What the table's settlement of ``bet`` gets wrong against ``exact`` (None: it agrees)."""
    wrong = []
    if "decision" in parts and bet.decision != exact.decision:
        wrong.append(f"decision {bet.decision}, oracle {exact.decision}")
    if "prize" in parts and abs(Fraction(bet.prize) - exact.prize) >= 1:
        wrong.append(f"prize {bet.prize}, oracle {exact.prize}")
    if "lost" in parts and abs(Fraction(bet.lost) - exact.lost) >= 1:
        wrong.append(f"collected {bet.lost}, oracle {exact.lost}")
    if "next" in parts and bet.next != after:
        wrong.append(f"stands as {bet.next}, oracle {after}")
    return "; ".join(wrong) or None


def _judge(tally: Tally, round_: TableRound, bet: TableBet, clause: str, exact: Settlement,
           stays: str | None = None, after: str | None = None) -> None:
    """Judge one bet under ``clause``; a won bet's kept stake under ``stays`` when that is another clause."""
    if stays is None or stays == clause or exact.decision != "win":
        tally.add(clause, _problem(bet, exact, after), round_, bet, exact)
        return
    tally.add(clause, _problem(bet, exact, after, parts=("decision", "prize", "next")), round_, bet, exact)
    tally.add(stays, _problem(bet, exact, parts=("lost",)), round_, bet, exact)


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def _refused(tally: Tally, clause: str, round_: TableRound, bet: TableBet, error: Exception) -> None:
    tally.add(clause, f"the oracle refuses this bet or outcome: {error}", round_, bet)


# -- roulette --------------------------------------------------------------------------------------


@pytest.mark.clause(*dict.fromkeys(clause for clauses in ROULETTE_CLAUSES.values() for clause in clauses))
def test_roulette_settlements(gaming_table: Any, configuration: TableConfiguration, rounds: list[TableRound],
                              measure: Any) -> None:
    """Every roulette bet against :func:`bench.games.roulette.settle`: a chance wins exactly when it covers the
    number (chances clause), is paid its multiple with the stake kept (prizes clause), and on 0 (and 00
    online) the chances not covering it lose the whole stake (zero clause)."""
    game = _game(gaming_table, "roleta-francesa", "roleta-americana")
    rules = _roulette_rules(game, configuration.rules)
    chances, prizes, zero = ROULETTE_CLAUSES[(game, configuration.rules)]
    tally = Tally()
    for round_ in rounds:
        for bet in round_.bets:
            try:
                number = roulette.parse_pocket(round_.outcome)
                chance = roulette.Chance(roulette.Kind(bet.chance), frozenset(
                    roulette.parse_pocket(n) for n in bet.spec.get("n", "").split(".")))
                exact = roulette.settle(roulette.Bet(chance, bet.stake), number, rules)
            except ValueError as error:
                _refused(tally, chances, round_, bet, error)
                continue
            clause = prizes if exact.decision == "win" else zero if number in (0, roulette.DOUBLE_ZERO) else chances
            _judge(tally, round_, bet, clause, exact)
    tally.record(measure, game, (chances, prizes, zero), METHOD)


def _roulette_rules(game: str, rules: str) -> roulette.RouletteRules:
    if game == "roleta-francesa":
        return roulette.FRENCH
    return roulette.AMERICAN_ONLINE if rules == "srij-804-2015" else roulette.AMERICAN_FRENCH_WHEEL


# -- dice games ------------------------------------------------------------------------------------


@pytest.mark.clause(*dict.fromkeys(f"{P217}/craps/{rule}" for rule in CRAPS_CLAUSES.values()), CRAPS_STAYS)
def test_craps_settlements(gaming_table: Any, configuration: TableConfiguration, rounds: list[TableRound],
                           measure: Any) -> None:
    """Every craps bet against :func:`bench.games.craps.resolve` on the roll: each chance under its own rule
    (p217-2007/craps/10.1-13.1); a won stake stays the player's (/13.2); a bet left standing becomes what
    the rules say (a line bet its point)."""
    game = _game(gaming_table, "craps")
    tally = Tally()
    for round_ in rounds:
        for bet in round_.bets:
            key = f"total-{bet.spec.get('n')}" if bet.chance == "total" else bet.chance
            clause = f"{P217}/craps/{CRAPS_CLAUSES.get(key, '10.1')}"
            try:
                roll = craps.Roll(*_numbers(round_.outcome))
                oracle_bet = craps.Bet(craps.Chance(bet.chance), bet.stake,
                                       int(bet.spec["n"]) if "n" in bet.spec else None,
                                       craps.Bar(int(bet.spec["bar"])) if "bar" in bet.spec else None)
                result = craps.resolve(oracle_bet, roll)
            except (ValueError, TypeError) as error:
                _refused(tally, clause, round_, bet, error)
                continue
            if isinstance(result, Settlement):
                _judge(tally, round_, bet, clause, result, CRAPS_STAYS)
            else:
                after = None if result.number is None else str(result.number)
                _judge(tally, round_, bet, clause, Settlement.no_decision(bet.stake), after=after)
    clauses = (*dict.fromkeys(f"{P217}/craps/{rule}" for rule in CRAPS_CLAUSES.values()), CRAPS_STAYS)
    tally.record(measure, game, clauses, METHOD)


@pytest.mark.clause(f"{CUSSEC}/7", f"{CUSSEC}/8", f"{CUSSEC}/9", f"{CUSSEC}/10")
def test_cussec_settlements(gaming_table: Any, rounds: list[TableRound], measure: Any) -> None:
    """Every cussec bet against :func:`bench.games.cussec.settle`: what each chance wins on (/7), its prize
    (/8), pequeno and grande lost on every triple (/9), the won stake kept (/10)."""
    game = _game(gaming_table, "cussec")
    tally = Tally()
    for round_ in rounds:
        for bet in round_.bets:
            try:
                faces = cussec.dice(_numbers(round_.outcome))
                numbers = _numbers(bet.spec["n"]) if "n" in bet.spec else ()
                exact = cussec.settle(cussec.Bet(cussec.Kind(bet.chance), bet.stake, numbers), faces)
            except ValueError as error:
                _refused(tally, f"{CUSSEC}/7", round_, bet, error)
                continue
            triple = faces[0] == faces[2]
            if exact.decision == "win":
                clause = f"{CUSSEC}/8"
            elif triple and bet.chance in ("pequeno", "grande"):
                clause = f"{CUSSEC}/9"
            else:
                clause = f"{CUSSEC}/7"
            _judge(tally, round_, bet, clause, exact, f"{CUSSEC}/10")
    tally.record(measure, game, (f"{CUSSEC}/7", f"{CUSSEC}/8", f"{CUSSEC}/9", f"{CUSSEC}/10"), METHOD)


@pytest.mark.clause(f"{BANCA}/9", LINE_CLAUSE, f"{BANCA}/13", f"{BANCA}/14")
def test_banca_francesa_settlements(gaming_table: Any, rounds: list[TableRound], measure: Any) -> None:
    """Every banca francesa bet against :func:`bench.games.banca_francesa.settle`: the totals each chance wins
    on and the totals that decide nothing (/9), the prizes (/13), the won stake kept (/14), and line bets
    playing for half their chips in whole multiples of EUR 10 (/11)."""
    game = _game(gaming_table, "banca-francesa")
    tally = Tally()
    for round_ in rounds:
        for bet in round_.bets:
            on_line = bet.spec.get("line") == "1"
            try:
                oracle_bet = banca_francesa.Bet(banca_francesa.Chance(bet.chance), bet.stake, on_line)
                exact = banca_francesa.settle(oracle_bet, _numbers(round_.outcome))
            except ValueError as error:
                _refused(tally, f"{BANCA}/9", round_, bet, error)
                continue
            clause = LINE_CLAUSE if on_line else f"{BANCA}/13" if exact.decision == "win" else f"{BANCA}/9"
            _judge(tally, round_, bet, clause, exact, f"{BANCA}/14")
    tally.record(measure, game, (f"{BANCA}/9", LINE_CLAUSE, f"{BANCA}/13", f"{BANCA}/14"), METHOD)


# -- blackjack -------------------------------------------------------------------------------------


def _cards(text: str) -> tuple[Any, ...]:
    return parse_cards(text.replace(".", " "), distinct=False)


def _live(bet: TableBet) -> bool:
    """Whether a hand still needs the dealer's total: not bust, not surrendered, not paid at once."""
    cards = _cards(bet.spec["cards"])
    if bet.spec.get("play") in ("surrender", "even-money") or blackjack.hand_total(cards).bust:
        return False
    return not (blackjack.is_blackjack(cards) and bet.spec.get("split") != "1")


def _blackjack_rules(rules: str) -> blackjack.BlackjackRules:
    return blackjack.SRIJ_805_2015 if rules == "srij-805-2015" else blackjack.P217_2007


def _dealer_breaks_rule(dealer: tuple[Any, ...]) -> str | None:
    try:
        blackjack.check_dealer_hand(dealer)
    except ValueError as error:
        return str(error)
    return None


def _blackjack_clauses(rules: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f"{rules}/blackjack/{rule}" for rule in BLACKJACK_CLAUSES[rules].values()))


@pytest.mark.clause(*_blackjack_clauses(P217), *_blackjack_clauses("srij-805-2015"))
def test_blackjack_settlements(gaming_table: Any, configuration: TableConfiguration, rounds: list[TableRound],
                               measure: Any) -> None:
    """Every hand and insurance bet against :func:`bench.games.blackjack.settle_hand` and
    :func:`~bench.games.blackjack.settle_insurance`, judged under the rule that decides it: insurance,
    surrender, even money, the 6-7-8 / 7-7-7 prize, a doubled or split hand, else the hand's outcome
    (blackjack 3 to 2, win / lose 1 to 1, push, bust); a won stake kept. A hand settled against a dealer hand
    that broke the drawing rule cannot be settled by the oracle: it is counted apart (see
    ``test_blackjack_dealer_draws``)."""
    game = _game(gaming_table, "blackjack")
    rules = _blackjack_rules(configuration.rules)
    clause_of = {key: f"{configuration.rules}/blackjack/{rule}" for key, rule in
                 BLACKJACK_CLAUSES[configuration.rules].items()}
    tally = Tally()
    for round_ in rounds:
        dealer = _cards(round_.outcome)
        broken = _dealer_breaks_rule(dealer) if any(_live(b) for b in round_.bets if b.chance == "hand") else None
        for bet in round_.bets:
            if bet.chance == "insurance":
                try:
                    exact = blackjack.settle_insurance(bet.stake, int(bet.spec["bet"]), dealer, rules)
                except (ValueError, KeyError) as error:
                    _refused(tally, clause_of["insurance"], round_, bet, error)
                    continue
                _judge(tally, round_, bet, clause_of["insurance"], exact, clause_of["stays"])
                continue
            play, split = bet.spec.get("play", "stand"), bet.spec.get("split") == "1"
            category = {"surrender": "surrender", "even-money": "even-money"}.get(play, "")
            try:
                cards = _cards(bet.spec["cards"])
                if not category and blackjack.special_prize(cards, bet.stake // (2 if play == "double" else 1), rules):
                    category = "special"
                category = category or ("double" if play == "double" else "split" if split else "")
                initial = bet.stake // 2 if play == "double" else bet.stake  # a doubled hand reports both halves
                hand = blackjack.settle_hand(cards, dealer, initial, doubled=play == "double", split=split,
                                             surrendered=play == "surrender", even_money=play == "even-money",
                                             rules=rules)
            except (ValueError, KeyError) as error:
                if broken is not None and _live(bet):
                    tally.apart.append({"round": round_.round, "bet": bet.to_json(), "dealer": round_.outcome,
                                        "reason": broken})
                else:
                    _refused(tally, clause_of[category or "WIN"], round_, bet, error)
                continue
            exact = Settlement(hand.decision, hand.staked, hand.prize + hand.special, hand.returned, hand.lost)
            _judge(tally, round_, bet, clause_of[category or hand.outcome.value], exact, clause_of["stays"])
    tally.record(measure, game, _blackjack_clauses(configuration.rules), METHOD
                 + "; a hand's prize includes the 6-7-8 / 7-7-7 special prize")


@pytest.mark.clause(*DEALER_CLAUSES[P217], *DEALER_CLAUSES["srij-805-2015"])
def test_blackjack_dealer_draws(gaming_table: Any, configuration: TableConfiguration, rounds: list[TableRound],
                                measure: Any) -> None:
    """The dealer draws on 16 or less and stands on 17 or more, the ace counting 11 whenever that makes 17-21
    (so a soft 17 stands), checked by :func:`bench.games.blackjack.check_dealer_hand` in every round where a
    player's hand still needs the dealer's total."""
    game = _game(gaming_table, "blackjack")
    checked, broken = 0, []
    for round_ in rounds:
        if not any(_live(bet) for bet in round_.bets if bet.chance == "hand"):
            continue
        checked += 1
        problem = _dealer_breaks_rule(_cards(round_.outcome))
        if problem is not None:
            broken.append({"round": round_.round, "dealer": round_.outcome, "problem": problem})
    if not checked:
        pytest.skip("no round read needed the dealer to draw")
    measure(f"{game}: dealer hands breaking the drawing rule", len(broken), unit="rounds", expected=0,
            clauses=list(DEALER_CLAUSES[configuration.rules]), sample_size=checked,
            method="every dealer hand that had to be played out, replayed card by card against the drawing rule",
            details={"rounds_checked": checked, "first_broken": broken[:SHOWN]})


# -- bacará ----------------------------------------------------------------------------------------


def _coup(outcome: str) -> bacara.Coup:
    ponto, _, banca = outcome.partition("/")
    return bacara.Coup(_cards(ponto), _cards(banca))


@pytest.mark.clause(f"{BACARA}/17", f"{BACARA}/18", f"{BACARA}/19", f"{BACARA}/20")
def test_bacara_settlements(gaming_table: Any, configuration: TableConfiguration, rounds: list[TableRound],
                            measure: Any) -> None:
    """Every bet against :func:`bench.games.bacara.settle` on the coup's cards as dealt: the higher point wins
    1 to 1 (/17), a tie pays 8 to 1 and leaves ponto and banca bets standing (/18), pairs pay 11 to 1 (/19),
    the banca's wins less the table's concession (/20)."""
    game = _game(gaming_table, "bacara-ponto-e-banca")
    commission = bacara.Commission(configuration.options.get("commission", "FIVE_PERCENT"))
    tally = Tally()
    for round_ in rounds:
        for bet in round_.bets:
            try:
                coup = _coup(round_.outcome)
                chance = bacara.Chance(bet.chance)
                exact = bacara.settle(chance, bet.stake, coup, commission)
            except ValueError as error:
                _refused(tally, f"{BACARA}/17", round_, bet, error)
                continue
            if chance in (bacara.Chance.PAR_PONTO, bacara.Chance.PAR_BANCA):
                clause = f"{BACARA}/19"
            elif chance is bacara.Chance.EMPATE or coup.winner is bacara.Side.EMPATE:
                clause = f"{BACARA}/18"
            elif chance is bacara.Chance.BANCA and exact.decision == "win":
                clause = f"{BACARA}/20"
            else:
                clause = f"{BACARA}/17"
            _judge(tally, round_, bet, clause, exact)
    tally.record(measure, game, (f"{BACARA}/17", f"{BACARA}/18", f"{BACARA}/19", f"{BACARA}/20"),
                 METHOD + f"; concession {commission.value}")


@pytest.mark.clause(f"{BACARA}/13")
def test_bacara_tableau(gaming_table: Any, rounds: list[TableRound], measure: Any) -> None:
    """Every coup's cards against the tableau (:func:`bench.games.bacara.check_coup`): ponto draws on 0-5,
    banca by its point and the ponto's third card, no card after a natural."""
    game = _game(gaming_table, "bacara-ponto-e-banca")
    broken = []
    for round_ in rounds:
        ponto, _, banca = round_.outcome.partition("/")
        try:
            bacara.check_coup(_cards(ponto), _cards(banca))
        except ValueError as error:
            broken.append({"round": round_.round, "coup": round_.outcome, "problem": str(error)})
    measure(f"{game}: coups breaking the tableau", len(broken), unit="coups", expected=0, sample_size=len(rounds),
            method="each coup's cards replayed against the tableau of p217-2007/bacara-ponto-e-banca/13",
            details={"coups_checked": len(rounds), "first_broken": broken[:SHOWN]})


# -- póquer sem descarte ---------------------------------------------------------------------------


def _poquer_clauses(rules: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f"{rules}/{POQUER}/{rule}" for rule in POQUER_CLAUSES[rules].values()))


def _seats(round_: TableRound) -> dict[str, dict[str, TableBet]]:
    """Each seat's ``ante`` and ``bet`` (the second bet) of a póquer sem descarte round."""
    seats: dict[str, dict[str, TableBet]] = {}
    for bet in round_.bets:
        seats.setdefault(bet.spec.get("seat", "?"), {})[bet.chance] = bet
    return seats


def _deal_problem(round_: TableRound) -> str | None:
    """What is wrong with the round's cards as one 52-card deck dealt five to each hand (None: nothing)."""
    hands = [round_.outcome] + [bet.spec.get("cards", "") for bet in round_.bets if bet.chance == "ante"]
    try:
        cards = [card for hand in hands for card in parse_cards(hand.replace(".", " "), 5, distinct=False)]
    except ValueError as error:
        return str(error)
    repeated = sorted({card.code for card in cards if cards.count(card) > 1})
    return f"cards dealt twice: {' '.join(repeated)}" if repeated else None


@pytest.mark.clause(*_poquer_clauses(P217), *_poquer_clauses("p461-2001"), *_poquer_clauses("srij-803-2015"))
def test_poquer_sem_descarte_settlements(gaming_table: Any, configuration: TableConfiguration,
                                         rounds: list[TableRound], measure: Any) -> None:
    """Every ante and second bet against :func:`bench.games.poquer_sem_descarte.settle`, judged under the rule
    that decides it: a fold loses the ante and makes no second bet; against a bank without ace-king or better
    the ante is paid 1 to 1 and the second bet stands (the qualification rule); against a qualified bank a
    better combination wins the ante 1 to 1 and the second bet at the pay table's multiple, a worse one loses
    both, and hands of the same combination are decided by the tie-break rule; the second bet is twice the
    ante. Every round's hands come from one 52-card deck."""
    game = _game(gaming_table, POQUER)
    rules = configuration.rules
    clause_of = {key: f"{rules}/{POQUER}/{rule}" for key, rule in POQUER_CLAUSES[rules].items()}
    tally = Tally()
    broken_deals = []
    for round_ in rounds:
        problem = _deal_problem(round_)
        if problem is not None:
            broken_deals.append({"round": round_.round, "outcome": round_.outcome, "problem": problem})
            continue
        dealer = _cards(round_.outcome)
        for seat, bets in _seats(round_).items():
            ante, second = bets.get("ante"), bets.get("bet")
            if ante is None:
                tally.add(clause_of["second-bet"], f"seat {seat} has a second bet and no ante", round_, second)
                continue
            folded = ante.spec.get("play") == "fold"
            if folded == (second is not None):
                tally.add(clause_of["fold" if folded else "second-bet"], "a folded hand with a second bet" if folded
                          else "a hand that went on without a second bet", round_, second or ante)
                continue
            if second is not None:
                tally.add(clause_of["second-bet"], None if second.stake == 2 * ante.stake
                          else f"second bet {second.stake}, twice the ante is {2 * ante.stake}", round_, second)
            exact = poquer.settle(ante.stake, _cards(ante.spec["cards"]), dealer, folded=folded)
            if exact.result is poquer.Result.FOLD:
                _judge(tally, round_, ante, clause_of["fold"], exact.ante)
                continue
            assert second is not None and exact.bet is not None
            if exact.result is poquer.Result.DEALER_NOT_QUALIFIED:
                _judge(tally, round_, ante, clause_of["unqualified-ante"], exact.ante)
                _judge(tally, round_, second, clause_of["qualification"], exact.bet)
            elif evaluate(dealer, POQUER_SEM_DESCARTE).category is exact.category:
                _judge(tally, round_, ante, clause_of["same-combination"], exact.ante)
                _judge(tally, round_, second, clause_of["same-combination"], exact.bet)
            elif exact.result is poquer.Result.WIN:
                _judge(tally, round_, ante, clause_of["ante"], exact.ante)
                _judge(tally, round_, second, clause_of["prize"], exact.bet)
            else:
                _judge(tally, round_, ante, clause_of["lose"], exact.ante)
                _judge(tally, round_, second, clause_of["lose"], exact.bet)
    measure(f"{game}: rounds whose hands are not five cards each from one 52-card deck", len(broken_deals),
            unit="rounds", expected=0, clauses=[clause_of["deck"]], sample_size=len(rounds),
            method="every card of the bank's and the players' hands, no card twice in a round",
            details={"first_broken": broken_deals[:SHOWN]})
    tally.record(measure, game, _poquer_clauses(rules), METHOD)


# -- non-banked poker ------------------------------------------------------------------------------


def _showdown_prefix(rules: str) -> str:
    return SINTETICO_P461 if rules == "p461-2001" else NAO_BANCADO


def _showdown_clauses(variant: str, rules: str) -> tuple[str, ...]:
    table = SHOWDOWN_CLAUSES[(variant, rules)]
    numbers = [rule for rules_ in table.values() for rule in rules_]
    if (variant, rules) == ("poquer-sintetico", "p461-2001"):
        numbers += list(SINTETICO_CATEGORY_RULES.values())
    return tuple(dict.fromkeys(f"{_showdown_prefix(rules)}/{rule}" for rule in numbers))


ALL_SHOWDOWN_CLAUSES = tuple(dict.fromkeys(clause for key in SHOWDOWN_CLAUSES for clause in _showdown_clauses(*key)))


def _received(bet: TableBet) -> int:
    """What the pots gave a player: his chips, plus what he won or less what he lost of them."""
    return bet.stake + bet.prize - bet.lost


def _deal_problems(round_: TableRound, deal: poker_showdown.DealSettlement, rake_taken: int) -> dict[str, str]:
    """How the table's end of a deal differs from the oracle's: by seat, and ``rake`` for the house's take."""
    problems = {}
    for bet in round_.bets:
        if bet.chance == "hand":
            seat = int(bet.spec["seat"])
            if _received(bet) != deal.won.get(seat, 0):
                problems[str(seat)] = f"seat {seat} received {_received(bet)}, oracle {deal.won.get(seat, 0)}"
    if rake_taken != deal.rake:
        problems["rake"] = f"the house took {rake_taken}, oracle {deal.rake}"
    return problems


@pytest.mark.clause(*ALL_SHOWDOWN_CLAUSES)
def test_poker_pots(gaming_table: Any, configuration: TableConfiguration, rounds: list[TableRound],
                    measure: Any) -> None:
    """Every deal of non-banked poker settled again by :func:`bench.games.poker_showdown.settle_deal` (the
    variant's hand rules, side pots for all-in players, divided pots with the odd chips from the hand onwards,
    the pot won unseen, the house's percentage per pot in chips of the table minimum), each player's share and
    the house's take compared to the chip; the house's stated percentage against the regulation's (at most 5 %
    under p217-2007/poquer-nao-bancado/7 a), 3 % under p461-2001/poquer-sintetico/55); every player who saw the
    end without being all-in put in the same amount (p217-2007/poquer-nao-bancado/48)."""
    variant = _game(gaming_table, *poker_showdown.OWN_CARDS)
    rules = configuration.rules
    if (variant, rules) not in SHOWDOWN_CLAUSES:
        pytest.skip(f"{variant} is not played under {rules}")
    prefix = _showdown_prefix(rules)
    clause_of = {key: tuple(f"{prefix}/{rule}" for rule in rules_) for key, rules_ in
                 SHOWDOWN_CLAUSES[(variant, rules)].items()}
    stated = Fraction(configuration.options.get("rake", "0"))
    limit = poker_showdown.MAX_RAKE_PERCENT[rules]
    criterion = {"expected": float(limit)} if rules == "p461-2001" else {"high": float(limit)}
    for clause in clause_of["rake"]:
        measure(f"{variant}: the house's stated percentage per hand", float(stated), unit="%", **criterion,
                clauses=[clause], sample_size=1,
                method="the percentage the table states in its configuration against the regulation's")
    if "minimum" not in configuration.options:
        pytest.fail("the table's configuration states no table minimum (option minimum=): the pots' chips are "
                    "unknown")
    unit = int(configuration.options["minimum"])
    checked: dict[str, int] = {}
    disagreements: dict[str, list[dict[str, Any]]] = {}
    not_divided: list[int] = []

    def judge(keys: tuple[str, ...], problem: str | None, round_: TableRound) -> None:
        for key in keys:
            for clause in clause_of[key]:
                checked[clause] = checked.get(clause, 0) + 1
                if problem is not None:
                    disagreements.setdefault(clause, []).append({"round": round_.round, "outcome": round_.outcome,
                                                                 "problem": problem})

    for round_ in rounds:
        hands = [bet for bet in round_.bets if bet.chance == "hand"]
        contributions = {int(bet.spec["seat"]): bet.stake for bet in hands}
        folded = [int(bet.spec["seat"]) for bet in hands if bet.spec.get("play") == "fold"]
        own = {int(bet.spec["seat"]): _cards(bet.spec["cards"]) for bet in hands if "cards" in bet.spec}
        order = [int(seat) for seat in round_.context.get("order", "").split(".") if seat]
        rake_taken = sum(bet.lost for bet in round_.bets if bet.chance == "rake")
        try:
            deal = poker_showdown.settle_deal(variant, rules, contributions, own, _cards(round_.outcome),
                                              folded=folded, rake_percent=stated, unit=unit,
                                              hand_order=order or None)
        except (ValueError, KeyError) as error:
            judge(("cards",), f"the oracle refuses the deal: {error}", round_)
            continue
        judge(("cards",), None, round_)
        showing = [bet.stake for bet in hands if bet.spec.get("play") == "show"]
        all_in = [bet.stake for bet in hands if bet.spec.get("play") == "allin"]
        judge(("equal-bets",), None if len(set(showing)) <= 1 and all(a <= max(showing, default=a) for a in all_in)
              else f"players who saw the end put in {sorted(showing)}, all-in {sorted(all_in)}", round_)
        problems = _deal_problems(round_, deal, rake_taken)
        rake_problem = problems.pop("rake", None)
        judge(("rake",), rake_problem, round_)
        if rake_problem is not None:
            not_divided.append(round_.round)  # the shares cannot be judged apart from a wrong house take
            continue
        problem = "; ".join(problems.values()) or None
        if not deal.showdown:
            judge(("unseen",), problem, round_)
            continue
        keys = ["hands"]
        if len(deal.pots) > 1:
            keys.append("side-pots")
        if any(sum(1 for seat in pot.eligible if deal.values[seat] == max(deal.values[s] for s in pot.eligible)) > 1
               for pot in deal.pots):
            keys.append("split")
        cause = _cause(round_, deal, order, unit, keys) if problem is not None else None
        for key in keys:
            judge((key,), problem if key == cause else None, round_)
        if (variant, rules) == ("poquer-sintetico", "p461-2001"):
            best = max(deal.values.values()).category
            clause = f"{prefix}/{SINTETICO_CATEGORY_RULES[best]}"
            checked[clause] = checked.get(clause, 0) + 1
            if problem is not None and cause == "hands":
                disagreements.setdefault(clause, []).append({"round": round_.round, "outcome": round_.outcome,
                                                             "problem": problem})
    for clause in _showdown_clauses(variant, rules):
        if not checked.get(clause):
            continue  # no deal read exercised this rule: the clause stays NOT TESTED
        found = disagreements.get(clause, [])
        measure(f"{variant}: deals whose pots disagree with the oracle under {clause}", len(found), unit="deals",
                expected=0, clauses=[clause], sample_size=checked[clause],
                method="each deal's pots settled again by bench.games.poker_showdown on the contributions, folds, "
                       "cards shown and stated percentage; every share and the house's take compared to the chip",
                details={"deals_checked": checked[clause], "first_disagreements": found[:SHOWN],
                         "deals_whose_shares_were_not_judged_for_a_wrong_house_take": len(not_divided)})


def _cause(round_: TableRound, deal: poker_showdown.DealSettlement, order: list[int], unit: int,
           keys: list[str]) -> str:
    """The rule a disagreeing showdown breaks: side pots when the table's shares are those of one pot for every
    player who saw the end (an all-in player winning beyond what was matched); the division of a pot when the
    deal has a tie; else the hand rules (who holds the best hand)."""
    received = {int(bet.spec["seat"]): _received(bet) for bet in round_.bets if bet.chance == "hand"}
    if "side-pots" in keys:
        one_pot = holdem.Pot(sum(pot.amount for pot in deal.pots), tuple(sorted(deal.values)))
        won = holdem.award([one_pot], deal.values, unit=unit, hand_order=order or None)
        if all(received.get(seat, 0) == won.get(seat, 0) for seat in received):
            return "side-pots"
    return "split" if "split" in keys else "hands"


# -- limits ----------------------------------------------------------------------------------------


def _limit_name(game: str, bet: TableBet) -> str | None:
    """The limit table's name of the chance ``bet`` is on (None: no regulation limit applies to it)."""
    if game in ("roleta-francesa", "roleta-americana"):
        return bet.chance
    if game == "banca-francesa":
        return None if bet.spec.get("line") == "1" else bet.chance
    if game == "blackjack":
        return "aposta" if bet.chance == "hand" else None
    if game == "bacara-ponto-e-banca":
        return {"PONTO": "ponto", "BANCA": "banca", "EMPATE": "empate", "PAR_PONTO": "par-do-ponto",
                "PAR_BANCA": "par-da-banca"}.get(bet.chance)
    if game == "craps" and bet.chance in ("place", "place-to-lose"):
        return f"{bet.chance}-{bet.spec.get('n')}"
    if game == POQUER:
        return "aposta-inicial" if bet.chance == "ante" else None
    return None


def _violations(found: list[Violation]) -> list[dict[str, Any]]:
    return [{"clause": v.clause, "chance": v.chance, "problem": v.message} for v in found[:SHOWN]]


@pytest.mark.clause(*LIMIT_CLAUSES, *(clause for clauses in STAKE_CLAUSES.values() for clause in clauses), LINE_CLAUSE)
def test_table_limits(gaming_table: Any, configuration: TableConfiguration, rounds: list[TableRound],
                      measure: Any) -> None:
    """The table's configured maximum of every chance is at most the regulation's multiple of the minimum (a
    whole multiple of it where the rules say so), and every stake placed is within the table's minimum and
    maximum for its chance (:func:`bench.games.stakes.check_table_limits`, :func:`~bench.games.stakes.check_stake`);
    banca francesa line bets between twice the minimum and twice the maximum (/11)."""
    game = _game(gaming_table, "roleta-francesa", "roleta-americana", "banca-francesa", "blackjack",
                 "bacara-ponto-e-banca", "craps", "cussec", POQUER)
    table = limit_table(game, configuration.rules)
    if table is None:
        pytest.skip(f"the regulation sets no stake multiples for {game} ({configuration.rules})")
    clauses = list(table.limits[next(iter(table.limits))].clauses)
    stated = {name: limit for name, limit in configuration.limits.items() if name in table.limits}
    minimum = {name: limit.minimum for name, limit in stated.items()}
    maxima = {name: limit.maximum for name, limit in stated.items()}
    found = list(check_table_limits(table, minimum, maxima))
    unstated = sorted(set(table.limits) - set(stated))
    measure(f"{game}: configured maxima beyond the regulation's multiples", len(found), unit="chances", expected=0,
            clauses=clauses[:1], sample_size=len(stated),
            method="each chance's configured maximum against the regulation's multiple of its minimum",
            details={"limits": {name: [minimum[name], maxima[name]] for name in stated},
                     "chances_without_a_stated_limit": unstated, "violations": _violations(found)})
    stakes: list[Violation] = []
    checked = 0
    lines: list[Violation] = []
    line_checked = 0
    for round_ in rounds:
        for bet in round_.bets:
            if game == "banca-francesa" and bet.spec.get("line") == "1" and bet.chance in stated:
                line_checked += 1
                limit = stated[bet.chance]
                lines += check_banca_francesa_line(bet.stake, limit.minimum, limit.maximum)
                continue
            name = _limit_name(game, bet)
            if name is None:
                continue
            checked += 1
            if name not in stated:
                stakes.append(Violation(clauses[0], name, f"the table states no limit for the chance of round "
                                                          f"{round_.round}'s bet {bet.index}"))
                continue
            stake = bet.stake // 2 if bet.spec.get("play") == "double" else bet.stake  # the bet before doubling
            stakes += [Violation(v.clause, v.chance, f"round {round_.round} bet {bet.index}: {v.message}")
                       for v in check_stake(table, name, stake, stated[name].minimum, stated[name].maximum)]
    if checked:
        measure(f"{game}: stakes outside the table's limits", len(stakes), unit="bets", expected=0,
                clauses=[*clauses, *STAKE_CLAUSES.get((game, configuration.rules), ())],
                sample_size=checked, method="each stake against its chance's configured minimum and maximum (and a "
                "whole multiple of the minimum where the rules say so)", details={"violations": _violations(stakes)})
    if line_checked:
        measure(f"{game}: line bets outside twice the limits", len(lines), unit="bets", expected=0,
                clauses=[LINE_CLAUSE], sample_size=line_checked,
                method="chips on a line between twice the minimum and twice the maximum of the chance",
                details={"violations": _violations(lines)})

