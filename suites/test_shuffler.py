"""Certification suite: automatic card shufflers (Portaria 217/2007: blackjack 51-57, poquer-nao-bancado 76).

How the bench plays the machine (every step through :class:`drivers.shuffler.CardShuffler`):
it empties the machine, sets the profile's mode, loads new decks (factory order) and then runs
``options.shuffles`` cycles, each committed to the journal as one observation (resumable):

* ``batch`` and ``alternate``: ``SHUFFLE``, deal until the shoe is empty, return every card;
* ``continuous``: the first cycle after a load shuffles; afterwards the returned cards must go
  straight back into play (p217-2007/blackjack/57), so a cycle only deals and returns; halfway
  through the deal the bench reads the inventory (the machine must account for every card,
  inside or out).

The cards are returned in the order they were dealt, in rounds of at most 52, so the order the
next shuffle starts from is known: the dealt order is compared with it card by card. (A continuous
machine mixes each round in as it comes back; with several decks the order its last mix started
from is then partly unknown to the bench, which can cost power but not the level of the tests: under
H0 every mix is uniform whatever it started from.) After every
return the inventory must hold every loaded card exactly once. A cycle whose dealt cards are not
the deck in play (a card lost, duplicated or misread) is counted, the machine is unloaded and new
decks are loaded, so the following cycles start from a known, complete deck. At the end of the
session every card is unloaded and reconciled deck by deck (p217-2007/blackjack/55).

A jam (``STOP CARD_JAMMED`` or a ``JAM`` state) or a card delivered ``DAMAGED`` is handled as
p217-2007/blackjack/51 prescribes and recorded: the state and warning light are read at once, one
more ``DEAL`` is sent (it must be refused, never a card), then the lid is opened (by the operator
where the machine cannot open it), ``CLEAR`` sent, the lid closed and the state read again. The
bench cannot make a healthy machine jam: when no jam or damaged card occurs during the run, the
handling tests are NOT TESTED with the reason (a laboratory provokes one, e.g. with a bent card).

Statistics. H0: the dealt orders are independent, uniformly random permutations of the order each
shuffle started from. The four tests of :mod:`rng_tests.fairness.cards` (card-by-position
frequencies, adjacent pairs kept, rising sequences, card successor; exact laws or Monte-Carlo
p-values) are adjusted with Holm's step-down at the profile's α. The power is stated against a
named alternative, every shuffle being 3 Gilbert-Shannon-Reeds riffles (total variation 1.000
from uniform for 52 cards): the exact power of the rising-sequence test at α/m, a lower bound on
the power of the Holm family (:mod:`rng_tests.fairness.shuffle_power`). Only cycles that started
from a complete deck and dealt every card of it once enter the statistics; the others are counted.

Clauses: the catalogue makes p217-2007/blackjack/51 and poquer-nao-bancado/76 bench clauses;
blackjack/53 (the cards are mixed and put in the shuffler-shoe), 55 (unloading and reconciliation
by deck) and 57 (the cards stay inside a continuous shuffler) are procedures attested by staff,
for which these measurements are the supporting evidence.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from bench.evidence import PositionCounts
from bench.games.physical_cards import Card, factory_order, parse_card
from drivers.serial_link import DeviceError
from drivers.shuffler import CardShuffler, OperatorActionRequired
from drivers.shuffler_protocol import (
    CARDS_PER_PAGE,
    DealtCard,
    LoadSource,
    Mode,
    ShuffleDone,
    ShufflerState,
    ShufflerStatus,
    Stop,
)
from fixtures.no_reads import NoReads
from fixtures.session import BenchSession, ObservationStream, collect_observations
from rng_tests.fairness.cards import card_shuffle_tests, riffle_total_variation
from rng_tests.fairness.multiple_testing import adjust
from rng_tests.fairness.shuffle_power import rising_sequence_power

SHUFFLES_STREAM = "shuffler/shuffles"
WARNINGS_STREAM = "shuffler/warnings"
UNLOADS_STREAM = "shuffler/unloads"
END_STREAM = "shuffler/end-of-session"
NO_READ_STREAM = "shuffler/no-reads"
"""Cycles (or the end-of-session unload) lost on the line within the driver's retry budget (fixtures.no_reads: at
most 5 % of the planned shuffles, at least 1): the machine is then emptied and loaded anew, and the cycle taken
again."""
SHUFFLES_NODEID = "suites/test_shuffler.py::shuffles"  # the module fixture that plays the machine
POWER_RIFFLES = 3
"""The named alternative of the randomness verdict: every shuffle is this many GSR riffles."""
REFERENCE_RIFFLES = 7
"""A second, harder alternative whose power is reported for information ("seven shuffles suffice")."""
OPERATOR_WAIT_S = 600.0
"""How long the bench waits for a person to open or close a lid the machine cannot move itself."""
POLL_S = 0.2

WARNING_CLAUSE = "p217-2007/blackjack/51"
SHUFFLED_CLAUSE = "p217-2007/blackjack/53"
RECONCILED_CLAUSE = "p217-2007/blackjack/55"
CONTINUOUS_CLAUSE = "p217-2007/blackjack/57"
ALTERNATE_CLAUSE = "p217-2007/poquer-nao-bancado/76"
JAM, DAMAGED = "jam", "damaged card"

pytestmark = pytest.mark.equipment("card-shuffler")


class ShufflerStopped(RuntimeError):
    """The machine refused a step the cycle cannot do without (its STOP reason is in the message)."""


def _codes(cards: Sequence[Card]) -> list[str]:
    return [card.code for card in cards]


def _difference(expected: Counter[Card], seen: Counter[Card]) -> tuple[list[str], list[str]]:
    """(missing, extra) card codes of ``seen`` against ``expected``, with multiplicity."""
    return sorted(_codes(list((expected - seen).elements()))), sorted(_codes(list((seen - expected).elements())))


def _frame(raw: bytes) -> str:
    return raw.decode("ascii", "replace").strip()


@dataclass
class ShufflerPlay:
    """The bench's side of a session at the shuffler: what is loaded and the order each deck went in.

    ``inputs`` maps the deck in play (its back colour in alternate mode, None otherwise) to the
    order its cards were last put into the machine (loaded or returned), top first.
    """

    name: str
    driver: CardShuffler
    mode: Mode
    backs: list[str]
    shuffle_timeout_s: float
    warnings: ObservationStream
    unloads: ObservationStream
    inputs: dict[str | None, list[Card]] | None = None
    loads: int = 0
    cycles_since_load: int = 0
    deals: int = 0
    """Cards dealt in this process (a resumed run counts afresh); recorded with each jam or damaged card."""
    reload_reason: str | None = None
    """Why the next cycle starts from new decks, when it does for a reason other than the start of a session."""

    @property
    def loaded(self) -> tuple[Card, ...]:
        return factory_order(self.backs)

    def deck_in_play(self, back: str | None) -> Counter[Card]:
        return Counter(card for card in self.loaded if back is None or card.back == back)

    # -- the machine's states ------------------------------------------------------------------------

    def _wait_while_shuffling(self) -> ShufflerStatus:
        deadline = time.monotonic() + self.shuffle_timeout_s
        status = self.driver.status()
        while status.state is ShufflerState.SHUFFLING and time.monotonic() < deadline:
            time.sleep(POLL_S)
            status = self.driver.status()
        return status

    def _lid(self, open_it: bool) -> None:
        """Open or close the lid: by request, or by the operator where the machine cannot (followed on STATUS)."""
        try:
            reply = self.driver.open_door() if open_it else self.driver.close_door()
        except OperatorActionRequired:
            deadline = time.monotonic() + OPERATOR_WAIT_S
            while self.driver.status().door_open is not open_it:
                if time.monotonic() > deadline:
                    raise ShufflerStopped(f"nobody {'opened' if open_it else 'closed'} the shuffler's lid "
                                          f"within {OPERATOR_WAIT_S:.0f} s") from None
                time.sleep(POLL_S)
            return
        if isinstance(reply, Stop):
            raise ShufflerStopped(f"the lid did not {'open' if open_it else 'close'}: {reply.state} {reply.reason}")

    def _clear(self, kind: str) -> tuple[str, ShufflerStatus]:
        """What the fiscal-chefe does: open the lid for a jam, reset the warning, close the lid."""
        if kind == JAM:
            self._lid(True)
        reply = self.driver.clear()
        answer = f"STOP {reply.state} {reply.reason}" if isinstance(reply, Stop) else "ACK"
        if kind == JAM or self.driver.status().door_open:
            self._lid(False)
        return answer, self.driver.status()

    def recover(self) -> str | None:
        """Bring a machine found jammed, damaged, open or shuffling back to READY; what was found, if anything."""
        status = self._wait_while_shuffling()
        if status.state is ShufflerState.READY:
            return None
        found = status.state.value
        self._clear(JAM if status.state in (ShufflerState.JAM, ShufflerState.DOOR_OPEN) else DAMAGED)
        if (after := self.driver.status()).state is not ShufflerState.READY:
            raise ShufflerStopped(f"the shuffler stays {after.state.value} after the lid was opened and CLEAR sent")
        return found

    def handle_warning(self, kind: str, cycle: int, trigger: bytes) -> list[DealtCard]:
        """Record how the machine behaves on a jam or a damaged card, clear it; cards it delivered meanwhile."""
        status = self.driver.status()
        probe = self.driver.deal()
        delivered = [probe] if isinstance(probe, DealtCard) else []
        clear_answer, after = self._clear(kind)
        self.warnings.record({
            "kind": kind, "cycle": cycle, "deal": self.deals,
            "state": status.state.value, "warning_light": status.warning_light,
            "probe": probe.card.code if isinstance(probe, DealtCard) else f"STOP {probe.state} {probe.reason}",
            "probe_delivered_card": bool(delivered),
            "clear": clear_answer, "state_after": after.state.value, "warning_light_after": after.warning_light,
        }, source=self.name, raw_ref=_frame(trigger))
        if after.state is not ShufflerState.READY:
            raise ShufflerStopped(f"the shuffler stays {after.state.value} after the {kind} was cleared")
        return delivered

    # -- loading and unloading ---------------------------------------------------------------------

    def empty(self, reason: str) -> None:
        """Take back every card out and unload everything inside (recorded)."""
        found = self.recover()
        status = self.driver.status()
        if status.out:
            self._return(None)
        if self.driver.status().inside:
            unloaded = self.driver.unload()
            if isinstance(unloaded, Stop):
                raise ShufflerStopped(f"the shuffler refused to unload: {unloaded.state} {unloaded.reason}")
            missing, extra = _difference(Counter(self.loaded), Counter(unloaded.cards))
            self.unloads.record({"reason": reason, "found": found, "cards": _codes(unloaded.cards),
                                 "out_at_unload": unloaded.out_at_unload, "missing": missing, "extra": extra},
                                source=self.name)

    def load_new(self, reason: str) -> None:
        """Empty the machine, set the mode and load new decks in factory order: a new, known starting point."""
        self.empty(reason)
        if self.loads == 0:
            reply = self.driver.set_mode(self.mode)
            if isinstance(reply, Stop):
                raise ShufflerStopped(f"the shuffler refused mode {self.mode.value}: {reply.state} {reply.reason}")
        reply = self.driver.load(self.backs, LoadSource.NEW)
        if isinstance(reply, Stop):
            raise ShufflerStopped(f"the shuffler refused to load {self.backs}: {reply.state} {reply.reason}")
        loaded = list(self.loaded)
        keys = self.backs if self.mode is Mode.ALTERNATE else [None]
        self.inputs = {key: [card for card in loaded if key is None or card.back == key] for key in keys}
        self.loads += 1
        self.cycles_since_load = 0

    def _return(self, cards: list[Card] | None) -> None:
        """Put dealt cards back in the order given, a round of at most 52 at a time (all out when None)."""
        rounds = [None] if cards is None else [cards[i:i + CARDS_PER_PAGE] for i in range(0, len(cards),
                                                                                           CARDS_PER_PAGE)]
        for chunk in rounds:
            reply = self.driver.return_cards(chunk)
            if isinstance(reply, Stop):
                raise ShufflerStopped(f"the shuffler refused the returned cards: {reply.state} {reply.reason}")

    # -- one cycle ---------------------------------------------------------------------------------

    def _shuffle(self) -> ShuffleDone:
        reply = self.driver.shuffle()
        if isinstance(reply, Stop):
            raise ShufflerStopped(f"the shuffler refused to shuffle: {reply.state} {reply.reason}")
        return reply

    def _deal_all(self, cycle: int, limit: int, halfway: Callable[[], dict[str, Any]] | None
                  ) -> tuple[list[DealtCard], str | None, dict[str, Any] | None]:
        """Deal until the machine says EMPTY: (cards, the refusal when not even one card came, halfway inventory)."""
        dealt: list[DealtCard] = []
        middle: dict[str, Any] | None = None
        deadline = time.monotonic() + self.shuffle_timeout_s
        while len(dealt) <= limit:
            if halfway is not None and middle is None and len(dealt) == limit // 2:
                middle = halfway()
            reply = self.driver.deal()
            if isinstance(reply, DealtCard):
                self.deals += 1
                dealt.append(reply)
                if reply.damaged:
                    dealt += self.handle_warning(DAMAGED, cycle, reply.raw)
                continue
            if reply.reason == "CARD_JAMMED" or reply.state in (ShufflerState.JAM, ShufflerState.DAMAGED):
                dealt += self.handle_warning(JAM if reply.state is ShufflerState.JAM else DAMAGED, cycle, reply.raw)
            elif reply.state is ShufflerState.SHUFFLING and time.monotonic() < deadline:
                time.sleep(POLL_S)
            elif reply.reason in ("EMPTY", "NOT_SHUFFLED") and not dealt:
                return dealt, reply.reason, middle
            elif reply.reason == "EMPTY":
                return dealt, None, middle
            else:
                raise ShufflerStopped(f"the shuffler refused to deal: {reply.state} {reply.reason}")
        raise ShufflerStopped(f"the shoe delivered more than {limit} cards ({len(dealt)}) without running empty")

    def _inventory(self) -> dict[str, Any]:
        inventory = self.driver.inventory()
        missing, extra = _difference(Counter(self.loaded), inventory.counts())
        return {"inside": len(inventory.inside), "out": len(inventory.out), "missing": missing, "extra": extra}

    def cycle(self, index: int) -> tuple[dict[str, Any], str, str | None]:
        """One shuffle (or continuous mixing), the whole deck in play dealt and returned: one observation."""
        if self.inputs is None:
            self.load_new(self.reload_reason or ("start of session" if index == 0 else "resumed session"))
            self.reload_reason = None
        assert self.inputs is not None
        continuous = self.mode is Mode.CONTINUOUS
        done = self._shuffle() if not continuous or self.cycles_since_load == 0 else None
        back = done.back if done is not None and self.mode is Mode.ALTERNATE else None
        key_known = back in self.inputs
        started_from = self.inputs.get(back) if key_known else None
        in_play = self.deck_in_play(back)
        limit = 2 * sum(in_play.values()) + 2
        dealt, refusal, middle = self._deal_all(index, limit, self._inventory if continuous else None)
        mixed_on_return = None
        if continuous and self.cycles_since_load > 0:
            mixed_on_return = refusal is None
            if refusal is not None:  # the returned cards were not put back into play: shuffle them in
                done = self._shuffle()
                dealt, _, middle = self._deal_all(index, limit, self._inventory)
        elif refusal is not None:
            raise ShufflerStopped(f"nothing to deal after the shuffle ({refusal})")
        cards = [deal.card for deal in dealt]
        self._return(cards)
        inventory = self._inventory()
        status = self.driver.status()
        missing, extra = _difference(in_play, Counter(cards))
        complete = not missing and not extra
        value = {
            "cycle": index, "load": self.loads, "mode": self.mode.value,
            "shuffle": done.shuffle if done is not None else None, "back": back,
            "shoe_cards": done.cards if done is not None else None,
            "started_from": _codes(started_from) if started_from is not None else None,
            "dealt": _codes(cards), "damaged": [i for i, deal in enumerate(dealt) if deal.damaged],
            "missing": missing, "extra": extra, "inventory": inventory, "halfway_inventory": middle,
            "mixed_on_return": mixed_on_return,
            "after_return": {"state": status.state.value, "warning_light": status.warning_light,
                             "mode": status.mode.value, "inside": status.inside, "out": status.out},
        }
        self.cycles_since_load += 1
        if complete and not inventory["missing"] and not inventory["extra"] and key_known:
            self.inputs[back] = cards
            value["reloaded"] = False
        else:
            self.load_new(f"cycle {index} did not deal the deck in play once each")
            value["reloaded"] = True
        return value, self.name, _frame(done.raw) if done is not None else None

    def lost_on_the_line(self, index: int) -> None:
        """Cycle ``index`` could not be completed on the line: what the machine holds is no longer known, so the
        next cycle empties it and starts from new decks."""
        self.inputs = None
        self.reload_reason = f"cycle {index} lost on the line"

    def end_of_session(self) -> tuple[dict[str, Any], str, str | None]:
        """Take every card out and reconcile it deck by deck (p217-2007/blackjack/55)."""
        found = self.recover()
        if self.driver.status().out:
            self._return(None)
        unloaded = self.driver.unload()
        if isinstance(unloaded, Stop):
            raise ShufflerStopped(f"the shuffler refused to unload: {unloaded.state} {unloaded.reason}")
        missing, extra = _difference(Counter(self.loaded), Counter(unloaded.cards))
        by_deck = {back: sum(1 for card in unloaded.cards if card.back == back) for back in dict.fromkeys(self.backs)}
        return ({"cards": _codes(unloaded.cards), "count": len(unloaded.cards), "by_back": by_deck,
                 "out_at_unload": unloaded.out_at_unload, "missing": missing, "extra": extra, "found": found},
                self.name, None)


@pytest.fixture(scope="module")
def shuffles(bench: BenchSession, card_shuffler: Any) -> ObservationStream:
    """``options.shuffles`` cycles of the machine, each committed to the journal as it ends (resumable),
    then the end-of-session unload."""
    options = card_shuffler.equipment.options
    play = ShufflerPlay(
        name=card_shuffler.name, driver=card_shuffler.driver, mode=Mode(options.mode.upper()),
        backs=list(options.backs), shuffle_timeout_s=options.shuffle_timeout_s,
        warnings=bench.stream(WARNINGS_STREAM, SHUFFLES_NODEID), unloads=bench.stream(UNLOADS_STREAM, SHUFFLES_NODEID))
    cycles = bench.stream(SHUFFLES_STREAM, SHUFFLES_NODEID)
    no_reads = shuffler_no_reads(bench, card_shuffler)

    def one_cycle() -> tuple[dict[str, Any], str, str | None]:
        index = cycles.count
        try:
            return play.cycle(index)
        except DeviceError:
            play.lost_on_the_line(index)
            raise

    stream = collect_observations(bench, SHUFFLES_STREAM, SHUFFLES_NODEID, options.shuffles,
                                  no_reads.taking(one_cycle), "shuffles")
    collect_observations(bench, END_STREAM, SHUFFLES_NODEID, 1, no_reads.taking(play.end_of_session), "final unload")
    return stream


def shuffler_no_reads(bench: BenchSession, card_shuffler: Any) -> NoReads:
    """The no-reads of the session's cycles (:data:`NO_READ_STREAM`)."""
    return NoReads(bench, NO_READ_STREAM, SHUFFLES_NODEID, card_shuffler.equipment.options.shuffles,
                   card_shuffler.name, "shuffles")


def _mode(card_shuffler: Any) -> str:
    return card_shuffler.equipment.options.mode


# -- every card once -----------------------------------------------------------------------------


@pytest.mark.clause(RECONCILED_CLAUSE, CONTINUOUS_CLAUSE, ALTERNATE_CLAUSE)
def test_every_card_comes_back_once(card_shuffler: Any, shuffles: ObservationStream, bench: BenchSession,
                                    measure: Any) -> None:
    """Every card of the loaded decks is dealt once and only once per shuffle, the machine accounts for every
    card after each return, and the end-of-session unload gives back each card of each deck exactly once."""
    mode = _mode(card_shuffler)
    clauses = {"batch": [RECONCILED_CLAUSE], "continuous": [RECONCILED_CLAUSE, CONTINUOUS_CLAUSE],
               "alternate": [ALTERNATE_CLAUSE]}[mode]
    cycles = shuffles.values()
    backs = card_shuffler.equipment.options.backs
    wrong = [{"cycle": c["cycle"], "back": c["back"], "missing": c["missing"], "extra": c["extra"]}
             for c in cycles if c["missing"] or c["extra"]]
    measure("shuffles whose dealt cards were not the deck in play, each card once", len(wrong), unit="shuffles",
            high=0, clauses=clauses, sample_size=len(cycles),
            method="every card dealt until the shoe ran empty, compared with the cards of the deck in play "
                   "(factory composition of the loaded backs)",
            details={"decks": backs, "cycles_with_differences": wrong[:50],
                     "cards_missing": sum(len(c["missing"]) for c in wrong),
                     "cards_extra": sum(len(c["extra"]) for c in wrong)})
    inventories = [c["inventory"] for c in cycles] + [c["halfway_inventory"] for c in cycles
                                                       if c["halfway_inventory"] is not None]
    unaccounted = [inv for inv in inventories if inv["missing"] or inv["extra"]]
    measure("inventories not accounting for every loaded card once", len(unaccounted), unit="inventories",
            high=0, clauses=clauses, sample_size=len(inventories),
            method="the machine's INV listing (inside and out) against the loaded decks, after every return"
                   + (" and halfway through every deal" if mode == "continuous" else ""),
            details={"differences": unaccounted[:50]})
    [end] = bench.stream(END_STREAM, SHUFFLES_NODEID).values()
    measure("cards missing or extra at the end-of-session unload", len(end["missing"]) + len(end["extra"]),
            unit="cards", high=0, clauses=clauses, sample_size=end["count"],
            method="every card taken out of the machine (UNLOAD, tray as recognised) and sorted by deck against "
                   "the loaded decks",
            details={"missing": end["missing"], "extra": end["extra"], "cards_by_back": end["by_back"],
                     "cards_out_at_unload": end["out_at_unload"],
                     "reloads_after_an_incomplete_deck": sum(1 for c in cycles if c["reloaded"])}
            | shuffler_no_reads(bench, card_shuffler).details())


# -- randomness ----------------------------------------------------------------------------------


def _relative_orders(cycles: list[dict[str, Any]]) -> tuple[np.ndarray, int]:
    """Each usable cycle's dealt order as positions in the order its shuffle started from; (rows, unusable)."""
    rows: list[list[int]] = []
    for cycle in cycles:
        start = cycle["started_from"]
        if start is None or cycle["missing"] or cycle["extra"] or len(set(start)) != len(start) \
                or sorted(start) != sorted(cycle["dealt"]):
            continue
        position = {code: index for index, code in enumerate(start)}
        rows.append([position[code] for code in cycle["dealt"]])
    if len({len(row) for row in rows}) > 1:
        raise ValueError("cycles of different deck sizes cannot be tested as one sample")
    return np.array(rows, dtype=np.int64), len(cycles) - len(rows)


@pytest.mark.clause(SHUFFLED_CLAUSE, ALTERNATE_CLAUSE)
def test_shuffles_are_random(card_shuffler: Any, shuffles: ObservationStream, measure: Any) -> None:
    """The dealt orders are uniformly random permutations of the order each shuffle started from: four tests of
    :mod:`rng_tests.fairness.cards`, Holm-adjusted at the profile's α, power stated against 3 GSR riffles."""
    options = card_shuffler.equipment.options
    if len(set(options.backs)) != len(options.backs):
        pytest.skip(f"decks share a back colour ({options.backs}): their cards cannot be told apart card by card, "
                    "so no dealt order can be compared with the order it started from")
    rows, unusable = _relative_orders(shuffles.values())
    if len(rows) < 2:
        pytest.skip(f"{len(rows)} of {len(shuffles.values())} shuffles started from a complete deck and dealt it "
                    "whole: too few to test")
    clauses = [ALTERNATE_CLAUSE] if options.mode == "alternate" else [SHUFFLED_CLAUSE]
    sample, cards = rows.shape
    family = card_shuffle_tests(np.arange(cards), rows, seed=0)
    adjustment = adjust(family, options.alpha, "holm")
    members = adjustment.family_size
    power = rising_sequence_power(cards, sample, options.alpha / members, POWER_RIFFLES)
    power_reference = rising_sequence_power(cards, sample, options.alpha / members, REFERENCE_RIFFLES)
    context = {
        "power_alternative": f"every shuffle {POWER_RIFFLES} Gilbert-Shannon-Reeds riffles of the {cards} cards "
                             f"(total variation {riffle_total_variation(cards, POWER_RIFFLES):.3f} from uniform)",
        "family_power_lower_bound": round(power, 6),
        "power_method": f"exact power of the rising-sequence test at alpha/m = {options.alpha / members:g} "
                        "(Holm rejects whenever a raw p-value is below alpha/m)",
        f"power_against_{REFERENCE_RIFFLES}_riffles": round(power_reference, 6),
        "shuffles_tested": sample, "shuffles_not_usable": unusable,
        "not_usable_because": "the cycle did not start from a complete deck or did not deal it whole once",
    }
    heat_map = PositionCounts(counts=_position_counts(rows).tolist(), block_cards=POSITION_BLOCK)
    for number, member in enumerate(adjustment.tests):
        result = family[member.name]
        measure(
            f"shuffles: {result.test}",
            round(float(result.statistic), 6),
            p_value=float(member.adjusted_p_value),
            alpha=options.alpha,
            clauses=clauses,
            method=f"{result.method}; H0: {result.null_hypothesis}; p-value {adjustment.description}",
            sample_size=result.sample_size,
            power=round(power, 6) if member.name == "rising_sequences" else None,
            details={"raw_p_value": result.p_value, "degrees_of_freedom": result.degrees_of_freedom}
            | dict(result.details) | context,
            series=[heat_map] if number == 0 else [],
        )


POSITION_BLOCK = 4
"""Cards per block of the certificate's card-by-position heat map (52 cards: 13 x 13 blocks)."""


def _position_counts(rows: np.ndarray) -> np.ndarray:
    """Counts of (block of the position a card started from, block of the position it was dealt at) over the
    shuffles: under H0 every cell expects shuffles x block² / cards; a weak riffle piles them near the diagonal."""
    cards = rows.shape[1]
    blocks = -(-cards // POSITION_BLOCK)
    counts = np.zeros((blocks, blocks), dtype=np.int64)
    dealt_at = np.broadcast_to(np.arange(cards), rows.shape)
    np.add.at(counts, (rows // POSITION_BLOCK, dealt_at // POSITION_BLOCK), 1)
    return counts


# -- jams and damaged cards ----------------------------------------------------------------------


def _warnings_or_skip(bench: BenchSession, card_shuffler: Any, shuffles: ObservationStream, kind: str,
                      rate_field: str) -> list[dict[str, Any]]:
    events = [row for row in bench.stream(WARNINGS_STREAM, SHUFFLES_NODEID).values() if row["kind"] == kind]
    if events:
        return events
    deals = sum(len(cycle["dealt"]) for cycle in shuffles.values())
    simulator = card_shuffler.equipment.simulator
    origin = (f"the simulator's {rate_field} is {getattr(simulator, rate_field)}" if simulator is not None
              else "a laboratory provokes one (e.g. a bent or marked card loaded into the shoe) and runs again")
    pytest.skip(f"no {kind} occurred in {deals} deals of this run, so its handling could not be observed ({origin})")


def _record_warning_handling(events: list[dict[str, Any]], kind: str, state: str, measure: Any) -> None:
    method = (f"at each {kind}: STATUS read at once, one more DEAL sent, then "
              + ("the lid opened, CLEAR sent and the lid closed" if kind == JAM else "CLEAR sent")
              + ", STATUS read again")
    unlit = [e for e in events if not (e["warning_light"] and e["state"] == state)]
    measure(f"{kind}s without the warning light on and state {state}", len(unlit), unit="events", high=0,
            clauses=[WARNING_CLAUSE], sample_size=len(events), method=method, details={"events": unlit[:50]})
    delivered = [e for e in events if e["probe_delivered_card"]]
    measure(f"cards delivered after a {kind} before it was cleared", len(delivered), unit="cards", high=0,
            clauses=[WARNING_CLAUSE], sample_size=len(events), method=method,
            details={"events": delivered[:50], "refusals": dict(Counter(e["probe"] for e in events))})
    stuck = [e for e in events if e["state_after"] != "READY" or e["warning_light_after"]]
    measure(f"{kind}s not cleared to READY with the light off", len(stuck), unit="events", high=0,
            clauses=[WARNING_CLAUSE], sample_size=len(events), method=method, details={"events": stuck[:50]})


@pytest.mark.clause(WARNING_CLAUSE)
def test_jammed_card_lights_the_warning_and_stops_dealing(card_shuffler: Any, shuffles: ObservationStream,
                                                          bench: BenchSession, measure: Any) -> None:
    """A jammed card lights the warning and the machine deals nothing more until the lid is opened and the jam
    cleared (p217-2007/blackjack/51)."""
    events = _warnings_or_skip(bench, card_shuffler, shuffles, JAM, "jam_rate")
    _record_warning_handling(events, JAM, ShufflerState.JAM.value, measure)


@pytest.mark.clause(WARNING_CLAUSE)
def test_damaged_card_lights_the_warning_and_stops_dealing(card_shuffler: Any, shuffles: ObservationStream,
                                                           bench: BenchSession, measure: Any) -> None:
    """A card delivered damaged is flagged, the warning lights and the machine deals nothing more until the
    card is replaced and the warning cleared (p217-2007/blackjack/51)."""
    events = _warnings_or_skip(bench, card_shuffler, shuffles, DAMAGED, "damaged_card_rate")
    _record_warning_handling(events, DAMAGED, ShufflerState.DAMAGED.value, measure)


# -- modes ---------------------------------------------------------------------------------------


@pytest.mark.clause(CONTINUOUS_CLAUSE)
def test_continuous_shuffler_keeps_the_cards_inside(card_shuffler: Any, shuffles: ObservationStream,
                                                    measure: Any) -> None:
    """In continuous mode the returned cards go straight back into play, with no reshuffle and no unloading, and
    every card is inside the machine (or out on the table) all session long (p217-2007/blackjack/57)."""
    if _mode(card_shuffler) != "continuous":
        pytest.skip(f"the profile uses the shuffler in {_mode(card_shuffler)} mode, not continuous")
    cycles = shuffles.values()
    clause = [CONTINUOUS_CLAUSE]
    modes = sorted({c["after_return"]["mode"] for c in cycles})
    measure("mode the machine reports", ",".join(modes), expected=Mode.CONTINUOUS.value, clauses=clause,
            sample_size=len(cycles), method="STATUS after every return")
    later = [c for c in cycles if c["mixed_on_return"] is not None]
    not_mixed = [c["cycle"] for c in later if not c["mixed_on_return"]]
    measure("returns whose cards were not back in play without a shuffle", len(not_mixed), unit="returns", high=0,
            clauses=clause, sample_size=len(later),
            method="after every card was returned, DEAL must deliver again without SHUFFLE, LOAD or UNLOAD",
            details={"cycles": not_mixed})
    pairs = [(c["cycle"], c["halfway_inventory"], c["after_return"]) for c in cycles]
    outside = [{"cycle": cycle, "halfway": half, "after_return": after} for cycle, half, after in pairs
               if (half is not None and (half["missing"] or half["extra"]))
               or after["out"] != 0 or after["inside"] != len(factory_order(card_shuffler.equipment.options.backs))]
    measure("checks finding cards neither inside the machine nor out on the table", len(outside), unit="checks",
            high=0, clauses=clause, sample_size=len(pairs),
            method="INV halfway through every deal (inside + out = every loaded card once) and STATUS after every "
                   "return (every card inside, none out)",
            details={"checks": outside[:50]})


@pytest.mark.clause(ALTERNATE_CLAUSE)
def test_two_decks_of_different_colours_alternate(card_shuffler: Any, shuffles: ObservationStream,
                                                  measure: Any) -> None:
    """Two decks of different back colours, each shuffle bringing the other one into play
    (p217-2007/poquer-nao-bancado/76)."""
    if _mode(card_shuffler) != "alternate":
        pytest.skip(f"the profile uses the shuffler in {_mode(card_shuffler)} mode, not with two alternating decks")
    cycles = shuffles.values()
    clause = [ALTERNATE_CLAUSE]
    seen = sorted({c["back"] for c in cycles if c["back"] is not None})
    measure("distinct back colours brought into play", len(seen), unit="decks", expected=2, clauses=clause,
            sample_size=len(cycles), method="the deck named by every SHUFFLED reply, checked by its dealt cards",
            details={"backs_seen": seen, "backs_loaded": card_shuffler.equipment.options.backs})
    pairs = [(before, after) for before, after in pairwise(cycles) if before["load"] == after["load"]]
    repeated = [after["cycle"] for before, after in pairs if after["back"] is None or before["back"] == after["back"]]
    measure("consecutive shuffles bringing the same deck into play", len(repeated), unit="shuffles", high=0,
            clauses=clause, sample_size=len(pairs),
            method="back colour of consecutive shuffles within one loading of the machine",
            details={"cycles": repeated})
    mismatched = [c["cycle"] for c in cycles if c["back"] is not None
                  and any(parse_card(code).back != c["back"] for code in c["dealt"])]
    measure("shuffles dealing cards of a deck other than the one named", len(mismatched), unit="shuffles", high=0,
            clauses=clause, sample_size=len(cycles), method="back colour of every dealt card against SHUFFLED",
            details={"cycles": mismatched})
