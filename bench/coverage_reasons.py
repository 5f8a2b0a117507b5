"""Why a ``bench`` clause is not yet covered by any suite test, and the coverage document built from it.

Every ``bench`` clause of the catalogue is covered by a suite test, or listed with the
reason it is not. The reasons follow from what the clause is about (its equipment kinds and its
section): a rule that only equipment settling bets can show (an electronic table, an online game
server) needs a driver for such equipment, while its settlement rule is already written and proven
as an oracle in :mod:`bench.games`; a construction detail needs an inspection the camera does not
do yet. ``docs/coverage.md`` is generated from these rules (``python -m bench.coverage_reasons``)
and a test keeps it current.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from functools import cache
from pathlib import Path

from bench.catalogue import Catalogue, load_catalogue
from bench.catalogue.model import Clause, EquipmentKind, Testability

ORACLES = {
    "roleta-francesa": "roulette", "roleta-americana": "roulette", "banca-francesa": "banca_francesa",
    "craps": "craps", "cussec": "cussec", "blackjack": "blackjack", "bacara-ponto-e-banca": "bacara",
    "bacara-macau": "bacara", "chemin-de-fer": "bacara", "poquer-sem-descarte": "poquer_sem_descarte",
    "poquer-sintetico": "poquer_sintetico", "poquer-nao-bancado": "poquer_sintetico", "holdem": "holdem",
}
"""Section → the module of :mod:`bench.games` holding its settlement rules."""

DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "coverage.md"


@cache
def _oracle_text(module: str) -> str:
    """The source of a :mod:`bench.games` module (read once), empty when there is none."""
    path = Path(__file__).resolve().parent / "games" / f"{module}.py"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _oracle(clause: Clause) -> str:
    """A pointer to the oracle module when it cites the clause's section."""
    module = ORACLES.get(clause.section)
    if module is None or f"{clause.regulation}/{clause.section}" not in _oracle_text(module):
        return ""
    return f" The section's rules of settlement are written and tested in `bench/games/{module}.py`."


def uncovered_reason(clause: Clause) -> str:
    """Why no suite test covers ``clause`` yet (the first rule that applies)."""
    kinds = set(clause.kinds)
    if EquipmentKind.ONLINE_GAME in kinds:
        return ("Online game (SRIJ regulations of 2015), a rule of the player's client (what the screen shows, "
                "timers, sessions, interruptions): needs a driver of the game client (screen capture and input), "
                "which the bench does not have. The settlements of the games the GT round log carries (roulette, "
                "blackjack, póquer sem descarte) are judged by suites/test_gaming_tables.py." + _oracle(clause))
    if EquipmentKind.GAMING_TABLE in kinds and EquipmentKind.JACKPOT_DISPLAY in kinds:
        return ("Table jackpot rule applied at the gaming table (who qualifies, when it is paid): the GT round log "
                "does not carry the jackpot bets yet; the jackpot controller's own arithmetic is covered by "
                "suites/test_jackpot.py." + _oracle(clause))
    if EquipmentKind.GAMING_TABLE in kinds:
        return ("Gaming-table rule the GT round log does not show (the table and its cloth, the dealer's "
                "procedure, or a game the GT protocol does not carry yet): needs a camera inspection of the table "
                "or the game added to the protocol." + _oracle(clause))
    if kinds & {EquipmentKind.PLAYING_CARDS, EquipmentKind.CARD_SHOE}:
        return ("Playing cards and shoe (deck composition, card backs, cut card): needs a card-inspection "
                "camera procedure, not built yet.")
    if EquipmentKind.DICE_SHAKER in kinds:
        return ("Cussec dome construction (pedestal, disc and lever, glass dome, opaque cover and its catches): an "
                "inspection the camera does not do yet; the dome's play (lever strokes, lamp, lit zones) is covered "
                "by suites/test_cussec_dome.py.")
    if EquipmentKind.ROULETTE_WHEEL in kinds:
        return ("Wheel construction (deflectors, rotor handle): not yet part of the camera's layout audit; "
                "checked by the examiner.")
    if EquipmentKind.CHIPS in kinds:
        return "Gaming chips: not a kind of equipment the bench tests yet."
    return "Not covered yet: no suite test cites it."


def coverage_markdown(catalogue: Catalogue, cited: dict[str, list[str]]) -> str:
    """The coverage document: counts per regulation, then every uncovered clause grouped by its reason."""
    bench_clauses = catalogue.clauses(testability=Testability.BENCH)
    per_regulation: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_reason: dict[str, list[Clause]] = defaultdict(list)
    for clause in bench_clauses:
        counts = per_regulation[clause.regulation]
        counts[1] += 1
        if clause.id in cited:
            counts[0] += 1
        else:
            by_reason[uncovered_reason(clause)].append(clause)
    covered = sum(counts[0] for counts in per_regulation.values())
    lines = [
        "# Clause coverage",
        "",
        "Generated by `python -m bench.coverage_reasons` from the catalogue and the suites' `clause` marks;",
        "`tests/test_coverage.py` fails when it is out of date. `bench clauses --coverage` shows the tests",
        "citing each clause.",
        "",
        f"{covered} of {len(bench_clauses)} bench-testable clauses are covered by suite tests.",
        "",
        "| regulation | covered | bench clauses |",
        "|---|---:|---:|",
        *(f"| {regulation} | {counts[0]} | {counts[1]} |" for regulation, counts in sorted(per_regulation.items())),
        "",
        "## Not covered yet, and why",
        "",
    ]
    for reason, clauses in sorted(by_reason.items(), key=lambda item: (-len(item[1]), item[0])):
        lines += [f"### {len(clauses)} clause(s)", "", reason, ""]
        lines += [f"- `{clause.id}`: {clause.summary_en}" for clause in clauses]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Write (default) or ``--check`` the coverage document."""
    from bench.coverage import citations
    from bench.paths import suite_files

    arguments = sys.argv[1:] if argv is None else argv
    text = coverage_markdown(load_catalogue(), citations(suite_files()))
    if "--check" in arguments:
        current = DOCUMENT.read_text(encoding="utf-8") if DOCUMENT.exists() else ""
        if current != text:
            print(f"{DOCUMENT} is out of date: run python -m bench.coverage_reasons", file=sys.stderr)
            return 1
        return 0
    DOCUMENT.write_text(text, encoding="utf-8")
    print(f"wrote {DOCUMENT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
