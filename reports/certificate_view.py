"""What the certificate says, arranged for a reader: findings first, the run's scope, the evidence by test.

From :class:`reports.run_data.RunData` (verdicts as :mod:`reports.clause_verdicts` gave them, never
recomputed) this module decides only the arrangement:

* scope: a regulation's section is examined when a test of the run cites one of its clauses (it measured
  it, skipped it with its reason, or did not finish) or a person attested one; the clause matrix lists the
  examined sections, every other catalogued section is one line of the appendix with its
  clause count and why it was not examined ("no such equipment in this run");
* findings: each FAIL, ERROR and INCOMPLETE clause with its key measurement, for the first page;
* evidence: the measurements grouped by the test that took them, the method said once per group, the
  groups of a clause ordered smallest first (so a slot's return comes before its RNG battery).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from bench.catalogue import Catalogue
from reports.clause_verdicts import ERROR, FAIL, INCOMPLETE, NOT_TESTED, VERDICTS
from reports.i18n import N_, RecordedText
from reports.measurement_view import MeasurementPresenter, MeasurementView
from reports.recorded_reasons import RecordedReason, plain_test_name
from reports.run_data import ClauseRow, RunData

Translate = Callable[[str], str]

FINDING_VERDICTS = (FAIL, ERROR, INCOMPLETE)
"""Verdicts the first page names clause by clause."""

KIND_NAMES = {
    "roulette-wheel": N_("roulette wheel"), "roulette-ball": N_("roulette ball"), "dice": N_("dice"),
    "dice-shaker": N_("dice shaker"), "card-shuffler": N_("card shuffler"), "card-shoe": N_("card shoe"),
    "playing-cards": N_("playing cards"), "jackpot-display": N_("jackpot display"),
    "slot-machine": N_("slot machine"), "progressive-controller": N_("progressive jackpot controller"),
    "rng": N_("random number generator"), "online-game": N_("online game"), "gaming-table": N_("gaming table"),
    "chips": N_("chips"), "table-procedure": N_("table procedure"), "tournament": N_("tournament"),
    "administrative": N_("administrative rule"), "cussec-dome": N_("cussec dome"),
    "power-supply": N_("power supply"), "camera": N_("camera"),
}
"""Display names of equipment and instrument kinds (``bench.catalogue.model.EquipmentKind`` and profiles)."""


@dataclass
class EvidenceGroup:
    """The measurements one test took, its method said once when they share it."""

    anchor: str
    nodeid: str
    title: str
    clauses: list[str]
    methods: list[str]
    measurements: list[MeasurementView]


@dataclass(frozen=True)
class ClauseEvidence:
    """One test's evidence for a clause: the group, the measurement shown for the clause, how many more."""

    group: EvidenceGroup
    key: MeasurementView
    more: int


@dataclass
class ClauseLine:
    """A judged clause of the matrix: its row, the reason in words, its evidence by test."""

    row: ClauseRow
    reason: str
    evidence: list[ClauseEvidence]


def clause_evidence(row: ClauseRow, groups: list[EvidenceGroup]) -> list[ClauseEvidence]:
    """The row's evidence by test, the tests with a failure first, then the smallest (a slot's return before its
    RNG battery); in each, the clause's first failed measurement, else its first."""
    own = {measurement.anchor for measurement in row.measurements}
    found = []
    for group in groups:
        mine = [view for view in group.measurements if view.anchor in own]
        if mine:
            key = next((view for view in mine if not view.passed), mine[0])
            found.append(ClauseEvidence(group, key, len(mine) - 1))
    return sorted(found, key=lambda item: (item.key.passed, len(item.group.measurements)))


@dataclass
class SectionView:
    """An examined section: its judged clauses and its NOT TESTED clauses by reason (rule numbers only)."""

    key: str
    title: str
    regulation_title: str
    judged: list[ClauseLine]
    not_tested: list[tuple[str, list[str]]]


@dataclass(frozen=True)
class OutOfScope:
    """A catalogued section this run did not examine."""

    key: str
    title: str
    count: int
    reason: str


@dataclass(frozen=True)
class Finding:
    """A FAIL, ERROR or INCOMPLETE clause for the first page."""

    clause_id: str
    verdict: str
    requirement: str
    measurement: MeasurementView | None
    group: EvidenceGroup | None
    reason: str


@dataclass
class CertificateView:
    """Everything the template arranges (see the module docstring)."""

    findings: list[Finding]
    sections: list[SectionView]
    out_of_scope: list[OutOfScope]
    groups: list[EvidenceGroup]
    counts: dict[str, int]
    examined_kinds: list[str]
    unexamined_kinds: list[str]
    outside_count: int


def has_evidence(row: ClauseRow) -> bool:
    """Whether this run examined the clause: a measurement or an attestation cites it, or a test of the run
    (finished, skipped, failed in error or unfinished) does."""
    return bool(row.measurements or row.attestations or row.tests or row.verdict in FINDING_VERDICTS)


def section_key(clause_id: str) -> str:
    return "/".join(clause_id.split("/")[:2])


class ReasonText:
    """A NOT TESTED, ERROR or INCOMPLETE reason of :mod:`reports.clause_verdicts` in the certificate's words."""

    def __init__(self, _: Translate, recorded: RecordedText) -> None:
        self._, self.recorded = _, recorded
        self.recorded_reason = RecordedReason(recorded.lang, _, recorded)

    def __call__(self, reason: str) -> str:
        _ = self._
        if reason.startswith("procedure (checked by a person)"):
            return _("procedure clause: awaiting a person's attestation")
        if reason.startswith("no suite test of this bench cites it"):
            return _("no test of the bench examines it yet")
        if reason.startswith("not applicable to this profile's equipment"):
            return _("not examined with this profile's equipment")
        if reason.startswith("outside the bench's scope"):
            return _("outside the bench's scope (checked by other means)")
        if reason.startswith("out of scope: a clause of"):
            return _("a game the equipment of this run does not play")
        if reason.startswith("an attestation does not replace"):
            return _("an attestation does not replace a measurement")
        if reason.startswith("skipped: "):
            return _("test not run: {reason}").format(reason=self.recorded_reason(reason.removeprefix("skipped: ")))
        unfinished = re.match(r"(\S+::\S+) (started|did not run)", reason)
        if unfinished:
            title = self.recorded(plain_test_name(unfinished.group(1)))
            if unfinished.group(2) == "started":
                return _("the test “{test}” started and did not finish: the run was interrupted").format(test=title)
            return _("the test “{test}” did not run: the run ended before it").format(test=title)
        return self.recorded_reason(reason)


def _evidence_groups(data: RunData, presenter: MeasurementPresenter, recorded: RecordedText) -> list[EvidenceGroup]:
    """The measurements by test, each distinct method said once (a measurement refers to it by number)."""
    by_node: dict[str, list] = {}
    for measurement in data.measurements:
        by_node.setdefault(measurement.nodeid, []).append(measurement)
    groups = []
    for index, (nodeid, measurements) in enumerate(by_node.items(), start=1):
        methods = list(dict.fromkeys(m.method for m in measurements if m.method))
        views = []
        for m in measurements:
            view = presenter.view(m)
            number = methods.index(m.method) + 1 if m.method else 0
            views.append(dataclasses.replace(view, method=str(number) if number and len(methods) > 1 else ""))
        clauses = sorted({clause for m in measurements for clause in m.clauses})
        groups.append(EvidenceGroup(f"e{index}", nodeid, recorded(plain_test_name(nodeid)), clauses,
                                    [recorded(method) for method in methods], views))
    return groups


def _game_title(catalogue: Catalogue, game: str, lang: str) -> str:
    """A game's name as the regulations' section of that name calls it (the game id when none does)."""
    for regulation in catalogue.regulations.values():
        section = regulation.sections.get(game)
        if section is not None:
            return section.pt if lang == "pt" else section.en
    return game


def _section_reason(_: Translate, rows: list[ClauseRow], kinds: set[str], catalogue: Catalogue, key: str,
                    games: tuple[frozenset[str], frozenset[str]], reason: ReasonText, lang: str) -> str:
    section = key.split("/")[1]
    clause_kinds = {kind.value for clause in catalogue.clauses() if section_key(clause.id) == key
                    for kind in clause.kinds}
    if not clause_kinds & kinds:
        return _("no such equipment in this run")
    played, possible = games
    if section in possible and section not in played:
        return _("a game the equipment of this run does not play (it plays {games})").format(
            games=", ".join(sorted(_game_title(catalogue, game, lang) for game in played)))
    skipped = next((row.reason for row in rows if row.reason.startswith("skipped: ")), "")
    return reason(skipped) if skipped else _("not examined in this run")


@dataclass(frozen=True)
class ScopeCounts:
    """What the certificate's first page counts: the clauses of the examined sections per verdict, and the
    catalogued clauses outside them (appendix D). The terminal's summary says the same (:func:`scope_counts`)."""

    counts: dict[str, int]
    outside: int


def clauses_by_section(data: RunData) -> dict[str, list[ClauseRow]]:
    """The run's clause rows by ``regulation/section``, in the catalogue's order."""
    by_section: dict[str, list[ClauseRow]] = {}
    for row in data.clauses:
        by_section.setdefault(section_key(row.clause_id), []).append(row)
    return by_section


def is_examined(key: str, rows: list[ClauseRow], games: tuple[frozenset[str], frozenset[str]]) -> bool:
    """Whether this run examined the section ``key`` (see the module docstring): a measurement, an attestation or
    an unfinished or errored test cites one of its clauses, or a test of the run does and the section is not a game
    the run's equipment could play but does not (a test of every game cites every game's section)."""
    played, possible = games
    other_game = key.split("/")[1] in possible - played
    return any(row.measurements or row.attestations or row.verdict in FINDING_VERDICTS for row in rows) or (
        not other_game and any(has_evidence(row) for row in rows))


def scope_counts(data: RunData, catalogue: Catalogue) -> ScopeCounts:
    """The clauses of the examined sections per verdict (in :data:`reports.clause_verdicts.VERDICTS` order) and
    how many catalogued clauses lie outside them: the counts of the certificate's first page and of the
    terminal's overall line."""
    by_section = clauses_by_section(data)
    examined = [key for key, rows in by_section.items() if is_examined(key, rows, data.games)]
    found = Counter(row.verdict for key in examined for row in by_section[key])
    listed = {row.clause_id for row in data.clauses}
    outside = sum(len(rows) for key, rows in by_section.items() if key not in examined) + sum(
        1 for clause in catalogue.clauses() if clause.id not in listed)
    return ScopeCounts({verdict: found[verdict] for verdict in VERDICTS if found[verdict]}, outside)


def build_view(data: RunData, catalogue: Catalogue, lang: str, _: Translate) -> CertificateView:
    """The arrangement of ``data`` in ``lang`` (``_`` translates the certificate's messages)."""
    recorded = RecordedText(lang)
    presenter = MeasurementPresenter(lang, _)
    reason = ReasonText(_, recorded)
    groups = _evidence_groups(data, presenter, recorded)
    groups_by_node = {group.nodeid: group for group in groups}
    by_section = clauses_by_section(data)
    games = data.games
    kinds = {item.kind for item in data.profile.equipment.values()}
    sections, outside = [], []
    for key, rows in by_section.items():
        first = rows[0]
        title = first.section_pt if lang == "pt" else first.section_en
        if not is_examined(key, rows, games):
            outside.append(OutOfScope(key, title, len(rows),
                                      _section_reason(_, rows, kinds, catalogue, key, games, reason, lang)))
            continue
        judged, waiting = [], {}
        for row in rows:
            if row.verdict == NOT_TESTED and not row.measurements:
                waiting.setdefault(reason(row.reason), []).append(row.clause_id.split("/", 2)[2])
                continue
            nodes = dict.fromkeys(nodeid for nodeid, _outcome in row.tests if nodeid in groups_by_node)
            judged.append(ClauseLine(row, reason(row.reason) if row.verdict != FAIL else "",
                                     clause_evidence(row, [groups_by_node[nodeid] for nodeid in nodes])))
        sections.append(SectionView(key, title, first.regulation_title, judged, list(waiting.items())))
    listed = {row.clause_id for row in data.clauses}
    merged = {item.key: item for item in outside}
    examined_keys = {section.key for section in sections}
    for clause in catalogue.clauses():
        if clause.id in listed:
            continue
        key = section_key(clause.id)
        if key in merged:
            merged[key] = dataclasses.replace(merged[key], count=merged[key].count + 1)
            continue
        regulation = catalogue.regulations.get(clause.regulation)
        section = regulation.sections.get(clause.section) if regulation else None
        title = (section.pt if lang == "pt" else section.en) if section else key
        merged[key] = OutOfScope(key, title, 1, _("clauses about other equipment than this run's")
                                 if key in examined_keys else _("no such equipment in this run"))
    examined_kinds = {kind.value for row in data.clauses if has_evidence(row) and row.clause_id in catalogue
                      for kind in catalogue[row.clause_id].kinds} & kinds
    scope = scope_counts(data, catalogue)
    findings = []
    for row in data.clauses:
        if row.verdict not in FINDING_VERDICTS:
            continue
        nodes = dict.fromkeys(nodeid for nodeid, _outcome in row.tests if nodeid in groups_by_node)
        evidence = clause_evidence(row, [groups_by_node[nodeid] for nodeid in nodes])
        first = evidence[0] if evidence else None
        findings.append(Finding(row.clause_id, row.verdict, row.text_pt if lang == "pt" else row.summary_en,
                                first.key if first else None, first.group if first else None,
                                reason(row.reason) if row.verdict != FAIL else ""))
    return CertificateView(
        findings=findings, sections=sections, out_of_scope=sorted(merged.values(), key=lambda item: item.key),
        groups=groups, counts=scope.counts, examined_kinds=sorted(examined_kinds),
        unexamined_kinds=sorted(kinds - examined_kinds), outside_count=scope.outside)
