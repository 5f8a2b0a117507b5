"""Bacará: card points, the drawing tableau, the coup, the settlement of every chance, stake limits.

Texts: p217-2007/bacara-ponto-e-banca and p217-2007/bacara-macau (the same game and the same
tableau, rule 13 of both; they differ in stake limits), and p217-2007/chemin-de-fer (the
non-banked game).

* Points: ace 1, 10 and figures 0, others face value, counted modulo 10
  (p217-2007/bacara-ponto-e-banca/9, p217-2007/bacara-macau/9, p217-2007/chemin-de-fer/9-11).
* Deal: ponto, banca, ponto, banca; then at most one more card each, the ponto's first
  (bacara-ponto-e-banca/13). Ponto draws on 0-5, stands on 6-7; 8 or 9 on either side ends the
  coup at once. Banca draws on 0-2; on 3-6 as the tableau says from the ponto's third card; on 3-5
  if the ponto stood; stands on 6 if the ponto stood, and on 7 (bacara-ponto-e-banca/13). The
  tableau's "10" is read as every card worth 0 (10 and figures).
* Settlement: the higher point wins, paid 1 to 1 (/17); on a tie the ponto and banca bets stay
  (neither won nor lost) and the tie pays 8 to 1 (/18); a pair in the first two cards of a side
  ("a mesma denominação", same rank) pays 11 to 1 (/19); the concession takes either 5 % of the
  banca's wins or 50 % of the banca's wins on a point of 5 (/20).
* Stakes, ponto e banca: maximum 70 times the minimum on ponto and banca, 15 on the tie, 8 on the
  pairs (bacara-ponto-e-banca/21), the table ``p217-2007/bacara-ponto-e-banca`` of
  :data:`bench.games.stakes.LIMIT_TABLES`. Macau: no individual maximum (bacara-macau/21); a player
  on both sides must keep them at least a minimum apart (/11); the table's ponto and banca totals
  differ by at most the approved maximum, the tie total is at most 10 % and each pair total at
  most 8 % of it (/22-/25).
* Every settlement is a :class:`bench.games.stakes.Settlement`; a tie leaves ponto and banca bets
  in place (a push).

Chemin de fer uses **the same tableau with three choices left to the players**: the ponto may draw
or stand on 5 (chemin-de-fer/64.d), and the banker may draw or stand on 3 against a third card
of 9 and on 5 against a third card of 4 (chemin-de-fer/67, the cells marked "0"), where the banca
of ponto e banca must draw. :func:`chemin_player_action` and :func:`chemin_banker_action` give it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

import numpy as np

from bench.games.cards import ACE, Card, parse_cards
from bench.games.stakes import LIMIT_TABLES, Settlement, as_money, check_bet_limits, raise_violations

__all__ = [
    "BANKER_DRAWS",
    "Action",
    "Chance",
    "Commission",
    "Coup",
    "Side",
    "banker_draws",
    "card_value",
    "check_coup",
    "check_macau_player",
    "check_macau_table",
    "check_stake",
    "chemin_banker_action",
    "chemin_player_action",
    "deal_coup",
    "exact_outcome_counts",
    "player_draws",
    "points",
    "settle",
]

BANKER_DRAWS = np.array([
    # ponto's third card worth:  0  1  2  3  4  5  6  7  8  9
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],  # banca 0
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],  # banca 1
    [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],  # banca 2
    [1, 1, 1, 1, 1, 1, 1, 1, 0, 1],  # banca 3: draws unless 8
    [0, 0, 1, 1, 1, 1, 1, 1, 0, 0],  # banca 4: draws on 2-7
    [0, 0, 0, 0, 1, 1, 1, 1, 0, 0],  # banca 5: draws on 4-7
    [0, 0, 0, 0, 0, 0, 1, 1, 0, 0],  # banca 6: draws on 6-7
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0],  # banca 7: stands
], dtype=bool)
"""Does the banca (row: its two-card point 0-7) draw after the ponto drew a card worth the column
(p217-2007/bacara-ponto-e-banca/13, p217-2007/bacara-macau/13)."""


def card_value(card: Card) -> int:
    """Ace 1, 10/J/Q/K 0, others their face value (bacara-ponto-e-banca/9)."""
    return 1 if card.rank == ACE else card.rank % 10 if card.rank <= 10 else 0


def points(cards: Sequence[Card] | str) -> int:
    """The point of a side: the sum of its card values modulo 10 (bacara-ponto-e-banca/9)."""
    return sum(card_value(card) for card in parse_cards(cards, distinct=False)) % 10


def player_draws(player_points: int) -> bool:
    """The ponto draws on 0-5 and stands on 6-7 (8-9 is a natural: see :func:`deal_coup`)."""
    _check_point(player_points)
    return player_points <= 5


def banker_draws(banker_points: int, player_third: Card | None) -> bool:
    """Does the banca draw on ``banker_points`` after the ponto's third card (None: the ponto stood)."""
    _check_point(banker_points)
    if banker_points >= 8:
        return False
    if player_third is None:
        return banker_points <= 5  # 0-2 draw; 3-5 draw "se o ponto não receber carta"; 6 and 7 stand
    return bool(BANKER_DRAWS[banker_points, card_value(player_third)])


def _check_point(value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 9:
        raise ValueError(f"a bacará point is 0-9, got {value!r}")


class Side(StrEnum):
    PONTO = "PONTO"
    BANCA = "BANCA"
    EMPATE = "EMPATE"


@dataclass(frozen=True)
class Coup:
    """A completed coup: each side's cards (two or three) and points, and the winner."""

    ponto: tuple[Card, ...]
    banca: tuple[Card, ...]

    @property
    def ponto_points(self) -> int:
        return points(self.ponto)

    @property
    def banca_points(self) -> int:
        return points(self.banca)

    @property
    def winner(self) -> Side:
        """The higher point wins; equal points are a tie (bacara-ponto-e-banca/17, /18)."""
        if self.ponto_points == self.banca_points:
            return Side.EMPATE
        return Side.PONTO if self.ponto_points > self.banca_points else Side.BANCA

    @property
    def ponto_pair(self) -> bool:
        """The ponto's first two cards have the same rank (bacara-ponto-e-banca/19)."""
        return self.ponto[0].rank == self.ponto[1].rank

    @property
    def banca_pair(self) -> bool:
        return self.banca[0].rank == self.banca[1].rank


def deal_coup(shoe: Iterable[Card]) -> Coup:
    """Play a coup from the top of ``shoe`` by the tableau (deal order ponto, banca, ponto, banca)."""
    cards = iter(shoe)

    def draw() -> Card:
        try:
            return next(cards)
        except StopIteration:
            raise ValueError("the shoe ran out in the middle of a coup") from None

    first = [draw() for _ in range(4)]
    ponto, banca = [first[0], first[2]], [first[1], first[3]]
    if points(ponto) >= 8 or points(banca) >= 8:
        return Coup(tuple(ponto), tuple(banca))
    third = None
    if player_draws(points(ponto)):
        third = draw()
        ponto.append(third)
    if banker_draws(points(banca), third):
        banca.append(draw())
    return Coup(tuple(ponto), tuple(banca))


def check_coup(ponto: Sequence[Card] | str, banca: Sequence[Card] | str) -> Coup:
    """The coup of these cards if the tableau was followed, else ValueError saying which draw was wrong."""
    p, b = parse_cards(ponto, distinct=False), parse_cards(banca, distinct=False)
    if len(p) not in (2, 3) or len(b) not in (2, 3):
        raise ValueError(f"each side has two or three cards, got ponto {len(p)} and banca {len(b)}")
    shoe = [p[0], b[0], p[1], b[1]]
    natural = points(p[:2]) >= 8 or points(b[:2]) >= 8
    if natural and (len(p) == 3 or len(b) == 3):
        raise ValueError("no card is drawn once a side has 8 or 9 in two cards (bacara-ponto-e-banca/13)")
    if not natural and (len(p) == 3) != player_draws(points(p[:2])):
        raise ValueError(f"ponto on {points(p[:2])} must {'draw' if len(p) == 2 else 'stand'} "
                         "(bacara-ponto-e-banca/13)")
    if not natural and (len(b) == 3) != banker_draws(points(b[:2]), p[2] if len(p) == 3 else None):
        raise ValueError(f"banca on {points(b[:2])} must {'draw' if len(b) == 2 else 'stand'} against "
                         f"{'ponto third card ' + p[2].code if len(p) == 3 else 'a ponto that stood'} "
                         "(bacara-ponto-e-banca/13)")
    coup = deal_coup(shoe + list(p[2:]) + list(b[2:]))
    if coup.ponto != p or coup.banca != b:  # pragma: no cover - the checks above make this impossible
        raise AssertionError("coup reconstruction differs")
    return coup


class Chance(StrEnum):
    PONTO = "PONTO"
    BANCA = "BANCA"
    EMPATE = "EMPATE"
    PAR_PONTO = "PAR_PONTO"
    PAR_BANCA = "PAR_BANCA"


class Commission(StrEnum):
    """The concession's deduction on the banca's wins (bacara-ponto-e-banca/20), chosen per table."""

    NONE = "NONE"
    FIVE_PERCENT = "FIVE_PERCENT"
    """a) 5 % of every prize won on the banca."""
    HALF_ON_FIVE = "HALF_ON_FIVE"
    """b) 50 % of the prize when the banca wins with a point of 5."""


def settle(chance: Chance | str, stake_cents: int, coup: Coup, commission: Commission = Commission.FIVE_PERCENT
           ) -> Settlement:
    """``stake_cents`` bet on ``chance`` settled on ``coup`` (bacara-ponto-e-banca/17-20)."""
    try:
        chance = Chance(chance)
    except ValueError:
        raise ValueError(f"unknown bacará chance {chance!r} (one of {', '.join(Chance)})") from None
    stake = as_money(stake_cents, "stake", positive=True, whole=True)
    winner = coup.winner
    if chance is Chance.EMPATE:
        return Settlement.win(stake, 8 * stake) if winner is Side.EMPATE else Settlement.lose(stake)
    if chance is Chance.PAR_PONTO:
        return Settlement.win(stake, 11 * stake) if coup.ponto_pair else Settlement.lose(stake)
    if chance is Chance.PAR_BANCA:
        return Settlement.win(stake, 11 * stake) if coup.banca_pair else Settlement.lose(stake)
    if winner is Side.EMPATE:
        return Settlement.push(stake)
    if winner.value != chance.value:
        return Settlement.lose(stake)
    if chance is Chance.BANCA and commission is Commission.FIVE_PERCENT:
        return Settlement.win(stake, stake * Fraction(95, 100))
    if chance is Chance.BANCA and commission is Commission.HALF_ON_FIVE and coup.banca_points == 5:
        return Settlement.win(stake, stake / 2)
    return Settlement.win(stake, stake)


_LIMIT_CHANCE = {Chance.PONTO: "ponto", Chance.BANCA: "banca", Chance.EMPATE: "empate",
                 Chance.PAR_PONTO: "par-do-ponto", Chance.PAR_BANCA: "par-da-banca"}
"""The chance's name in the ``p217-2007/bacara-ponto-e-banca`` limit table."""


def check_stake(chance: Chance | str, stake_cents: int, minimum_cents: int, maximum_cents: int) -> None:
    """Ponto e banca: ValueError unless min <= stake <= max <= 70 / 15 / 8 x min (bacara-ponto-e-banca/21).

    A thin wrapper of :func:`bench.games.stakes.check_bet_limits`: stakes are whole cents.
    """
    chance = Chance(chance)
    for value, what in ((stake_cents, "stake"), (minimum_cents, "minimum"), (maximum_cents, "maximum")):
        as_money(value, what, positive=True, whole=True)
    raise_violations(check_bet_limits(LIMIT_TABLES["p217-2007/bacara-ponto-e-banca"], _LIMIT_CHANCE[chance],
                                      stake_cents, minimum_cents, maximum_cents))


def check_macau_table(ponto_cents: int, banca_cents: int, empate_cents: int, par_ponto_cents: int,
                      par_banca_cents: int, max_difference_cents: int) -> None:
    """Macau: the table's totals per chance against the approved maximum difference (bacara-macau/22-25)."""
    for value, what in ((ponto_cents, "ponto total"), (banca_cents, "banca total"), (empate_cents, "tie total"),
                        (par_ponto_cents, "par do ponto total"), (par_banca_cents, "par da banca total")):
        as_money(value, what, whole=True)
    as_money(max_difference_cents, "maximum difference", positive=True, whole=True)
    if abs(ponto_cents - banca_cents) > max_difference_cents:
        raise ValueError(f"ponto {ponto_cents} and banca {banca_cents} differ by more than "
                         f"{max_difference_cents} (p217-2007/bacara-macau/22, /23)")
    if 10 * empate_cents > max_difference_cents:
        raise ValueError(f"tie total {empate_cents} is above 10 % of {max_difference_cents} "
                         "(p217-2007/bacara-macau/24)")
    for total, name in ((par_ponto_cents, "par do ponto"), (par_banca_cents, "par da banca")):
        if 100 * total > 8 * max_difference_cents:
            raise ValueError(f"{name} total {total} is above 8 % of {max_difference_cents} "
                             "(p217-2007/bacara-macau/25)")


def check_macau_player(ponto_cents: int, banca_cents: int, minimum_cents: int) -> None:
    """A player on both ponto and banca keeps them at least the minimum apart (p217-2007/bacara-macau/11)."""
    as_money(ponto_cents, "ponto stake", whole=True)
    as_money(banca_cents, "banca stake", whole=True)
    as_money(minimum_cents, "minimum", positive=True, whole=True)
    if ponto_cents and banca_cents and abs(ponto_cents - banca_cents) < minimum_cents:
        raise ValueError(f"ponto {ponto_cents} and banca {banca_cents} differ by less than the minimum "
                         f"{minimum_cents} (p217-2007/bacara-macau/11)")


# -- chemin de fer ---------------------------------------------------------------------------------


class Action(StrEnum):
    NATURAL = "NATURAL"
    """8 or 9: shown at once ("abater")."""
    DRAW = "DRAW"
    STAND = "STAND"
    OPTIONAL = "OPTIONAL"
    """The rules leave the choice to the player ("à vontade")."""


def chemin_player_action(player_points: int) -> Action:
    """The ponto of chemin de fer: 8-9 shows, 6-7 stands, under 5 draws, 5 at will (chemin-de-fer/64)."""
    _check_point(player_points)
    if player_points >= 8:
        return Action.NATURAL
    if player_points >= 6:
        return Action.STAND
    return Action.OPTIONAL if player_points == 5 else Action.DRAW


_CHEMIN_OPTIONAL = {(3, 9), (5, 4)}
"""The "0" cells of the chemin-de-fer/67 table: banker's point, ponto's third card."""


def chemin_banker_action(banker_points: int, player_third: Card | None, *, player_natural: bool = False) -> Action:
    """The banker of chemin de fer after the ponto's decision (p217-2007/chemin-de-fer/67).

    8-9 shows; 7 stands; 0-2 draws unless the ponto showed a natural; 3-6 as the table says, which
    is :data:`BANKER_DRAWS` with two cells left at will (3 against 9, 5 against 4).
    """
    _check_point(banker_points)
    if banker_points >= 8:
        return Action.NATURAL
    if player_natural:
        return Action.STAND
    if banker_points == 7:
        return Action.STAND
    if player_third is not None and (banker_points, card_value(player_third)) in _CHEMIN_OPTIONAL:
        return Action.OPTIONAL
    return Action.DRAW if banker_draws(banker_points, player_third) else Action.STAND


# -- exact odds of a full shoe ---------------------------------------------------------------------


def exact_outcome_counts(decks: int = 8) -> dict[str, int]:
    """Exact counts of the ordered first-six-card sequences of a full shoe of ``decks`` decks, by outcome.

    Every coup uses at most six cards; enumerating the 10^6 sequences of six card *values* weighted
    by the number of ways to draw them without replacement gives integer counts whose total is
    ``N (N-1) ... (N-5)`` for ``N = 52 x decks``. Keys: ``PONTO``, ``BANCA``, ``EMPATE``,
    ``BANCA_ON_5`` (banca wins with a point of 5), ``TOTAL``. Vectorised (numpy).
    """
    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= 8:
        raise ValueError(f"decks must be 1-8, got {decks!r}")
    available = np.array([16] + [4] * 9, dtype=np.int64) * decks  # value 0: 10 J Q K
    values = np.indices((10,) * 6).reshape(6, -1).T
    weight = np.ones(len(values), dtype=np.int64)
    for position in range(6):
        before = (values[:, :position] == values[:, position:position + 1]).sum(axis=1)
        weight *= available[values[:, position]] - before
    p1, b1, p2, b2, c5, c6 = values.T
    ponto, banca = (p1 + p2) % 10, (b1 + b2) % 10
    natural = (ponto >= 8) | (banca >= 8)
    ponto_draws = ~natural & (ponto <= 5)
    third = np.where(ponto_draws, c5, 0)
    banca_draws = ~natural & np.where(ponto_draws, BANKER_DRAWS[np.minimum(banca, 7), third] & (banca <= 7),
                                      banca <= 5)
    ponto_final = np.where(ponto_draws, (ponto + c5) % 10, ponto)
    banca_final = np.where(banca_draws, (banca + np.where(ponto_draws, c6, c5)) % 10, banca)
    n = 52 * decks
    total = int(np.prod(np.arange(n - 5, n + 1, dtype=np.int64)))
    counts = {
        "PONTO": int(weight[ponto_final > banca_final].sum()),
        "BANCA": int(weight[banca_final > ponto_final].sum()),
        "EMPATE": int(weight[banca_final == ponto_final].sum()),
        "BANCA_ON_5": int(weight[(banca_final > ponto_final) & (banca_final == 5)].sum()),
        "TOTAL": total,
    }
    if counts["PONTO"] + counts["BANCA"] + counts["EMPATE"] != total:  # pragma: no cover - arithmetic invariant
        raise AssertionError("enumeration does not cover the shoe")
    return counts
