"""The sensitivity matrix: one faulty simulated model per clause family, and the clauses it must fail.

Issue 6 §3: the bench must catch what it exists to catch. Each row names a built-in
profile whose simulator carries one fault, the suite that judges it, and the clauses
that fault must make FAIL; no other clause the run judges may FAIL or ERROR (it PASSes,
or, for a procedure clause only supported by measurements, stays NOT TESTED / ATTESTED). The fair ``sim`` profile must fail nothing. The rows are
proven by the project's tests (each row's profile is run by a test that asserts
exactly these verdicts) and printed with the sample each verdict took by
``benchmarks/sensitivity_matrix.py``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.paths import child_environment


@dataclass(frozen=True)
class FaultRow:
    """One fault of the matrix."""

    fault: str
    profile: str
    suite: str
    must_fail: frozenset[str]


def _row(fault: str, profile: str, suite: str, *clauses: str) -> FaultRow:
    return FaultRow(fault, profile, suite, frozenset(clauses))


_JACKPOT_INCREMENT = tuple(f"{regulation}/poquer-sem-descarte/{rule}" for regulation in ("p461-2001", "p217-2007")
                           for rule in (3, 8))

FAIR = _row("none (fair rig)", "sim", "")
"""The fair simulated rig: every suite, nothing may fail."""

MATRIX: tuple[FaultRow, ...] = (
    _row("sector bias (9 pockets x1.3)", "sim-biased-wheel", "roulette",
         "p217-2007/roleta-francesa/5", "p217-2007/roleta-francesa/9"),
    _row("wheel sensor misreports 1 game in 200", "sim-wheel-sensor", "roulette", "p217-2007/roleta-francesa/5"),
    _row("loaded die (six at 1/4)", "sim-loaded-dice", "dice", "p217-2007/banca-francesa/3"),
    _row("weak RNG", "sim-weak-rng", "rng", "p217-2007/maquinas-automaticas/2"),
    _row("3-riffle shuffler", "sim-weak-shuffler", "shuffler", "p217-2007/blackjack/53"),
    _row("lost card", "sim-lossy-shuffler", "shuffler", "p217-2007/blackjack/55"),
    _row("jackpot increment rounding error", "sim-jackpot-rounding", "jackpot", *_JACKPOT_INCREMENT),
    _row("jackpot start value too low", "sim-jackpot-low-start", "jackpot",
         "p461-2001/poquer-sem-descarte/10", "p217-2007/poquer-sem-descarte/10"),
    _row("jackpot value lost on power loss", "sim-volatile-jackpot", "jackpot", *_JACKPOT_INCREMENT),
    _row("return 78 %", "sim-low-rtp-slot", "slot", "p217-2007/maquinas-automaticas/2"),
    _row("a meter dropping counts", "sim-meter-drop-slot", "slot",
         "p217-2007/maquinas-automaticas/9", "p217-2007/maquinas-automaticas/14"),
    _row("meters lost on power loss", "sim-volatile-slot", "slot",
         "p217-2007/maquinas-automaticas/9", "p217-2007/maquinas-automaticas/14"),
    _row("roulette table pays a split 16 to 1", "sim-table-split-pays-16", "gaming_tables",
         "p217-2007/roleta-francesa/18"),
    _row("roulette table takes half the even chances on zero", "sim-table-zero-loses-half", "gaming_tables",
         "p217-2007/roleta-francesa/19"),
    _row("roulette table maximum above the regulation's multiple", "sim-table-limit-too-high", "gaming_tables",
         "p217-2007/roleta-francesa/24"),
    _row("craps field pays 12 triple", "sim-table-field-12-pays-triple", "gaming_tables", "p217-2007/craps/13.1"),
    _row("cussec small wins on a triple", "sim-table-triple-wins-small", "gaming_tables", "p217-2007/cussec/9"),
    _row("banca francesa line bets play whole", "sim-table-line-bets-play-whole", "gaming_tables",
         "p217-2007/banca-francesa/11"),
    _row("blackjack dealer hits soft 17", "sim-table-dealer-hits-soft-17", "gaming_tables",
         "p217-2007/blackjack/6", "p217-2007/blackjack/19"),
    _row("blackjack pays 6 to 5", "sim-table-blackjack-pays-6-5", "gaming_tables", "p217-2007/blackjack/21"),
    _row("bacará bank draws like the player", "sim-table-banca-draws-like-ponto", "gaming_tables",
         "p217-2007/bacara-ponto-e-banca/13"),
    _row("póquer sem descarte pays two pairs 1 times the bet", "sim-table-two-pairs-pays-1", "gaming_tables",
         "p217-2007/poquer-sem-descarte/6"),
    _row("online póquer sem descarte bank plays with ace-queen", "sim-table-dealer-qualifies-ace-queen",
         "gaming_tables", "srij-803-2015/poquer-sem-descarte/25", "srij-803-2015/poquer-sem-descarte/26"),
    _row("hold'em all-in player wins beyond what was matched", "sim-table-side-pots-ignored", "gaming_tables",
         "p217-2007/poquer-nao-bancado/38", "p217-2007/poquer-nao-bancado/49", "p217-2007/poquer-nao-bancado/50"),
    _row("omaha house takes 6 % when it states 5 %", "sim-table-rake-above-limit", "gaming_tables",
         "p217-2007/poquer-nao-bancado/7"),
    _row("póquer sintético ranks the full house above the flush", "sim-table-sintetico-full-above-flush",
         "gaming_tables", "p461-2001/poquer-sintetico/1", "p461-2001/poquer-sintetico/24",
         "p461-2001/poquer-sintetico/30"),
    _row("progressive jackpot takes 0.9 x its declared percentage", "sim-progressive-skim", "progressive",
         "p217-2007/maquinas-automaticas/3"),
    _row("progressive jackpot loses the fractions of a cent", "sim-progressive-rounding-loss", "progressive",
         "p217-2007/maquinas-automaticas/3"),
    _row("superjackpot ignores one linked machine", "sim-progressive-unlinked-machine", "progressive",
         "p217-2007/maquinas-automaticas/4"),
    _row("cussec dome lamp switched on by hand", "sim-dome-lamp-manual", "cussec_dome", "p217-2007/cussec/4"),
    _row("cussec dome disc moved only twice", "sim-dome-short-shake", "cussec_dome", "p217-2007/cussec/4"),
    _row("cussec dome zones dupla-4 and dupla-5 swapped", "sim-dome-zone-miswired", "cussec_dome",
         "p217-2007/cussec/5"),
    _row("cussec dome lights the zones of a misread 1 round in 40", "sim-dome-sensor-misread", "cussec_dome",
         "p217-2007/cussec/5"),
)


def expectations() -> dict[str, FaultRow]:
    """What each profile of the matrix must do, by profile name: the fair ``sim`` (its row fails nothing) and
    each faulty profile with the clauses it must fail (``bench profiles`` shows them)."""
    return {row.profile: row for row in (FAIR, *MATRIX)}


@dataclass(frozen=True)
class RowRun:
    """What one row's certification judged."""

    verdicts: dict[str, str]
    """Verdict of every clause a measurement of the run cites."""
    samples: dict[str, int]
    """Largest sample size behind each judged clause."""
    seconds: float
    exit_code: int

    def failed(self) -> set[str]:
        return {clause for clause, verdict in self.verdicts.items() if verdict == "FAIL"}

    def others_pass(self, row: FaultRow) -> bool:
        """No judged clause outside the row's ``must_fail`` failed or errored (a procedure clause whose supporting
        measurements passed is NOT TESTED or ATTESTED, never PASS)."""
        return all(verdict not in ("FAIL", "ERROR") for clause, verdict in self.verdicts.items()
                   if clause not in row.must_fail)

    def as_expected(self, row: FaultRow) -> bool:
        return self.failed() == set(row.must_fail) and self.others_pass(row)


def run_row(row: FaultRow, out: Path) -> RowRun:
    """Certify the row's profile into ``out`` (``bench certify`` in a subprocess) and judge it from the journal."""
    command = [str(Path(sys.executable).with_name("bench")), "certify", "--no-progress", "--profile", row.profile,
               "--out", str(out)]
    if row.suite:
        command += ["--suite", row.suite]
    started = time.monotonic()
    # the nested run gets neither the laboratory key's passphrase nor a terminal to ask for it: it is not signed
    completed = subprocess.run(command, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL,
                               env=child_environment())
    return judge_run(row, out, completed.returncode, completed.stdout + completed.stderr,
                     time.monotonic() - started)


def judge_run(row: FaultRow, out: Path, exit_code: int, output: str, seconds: float) -> RowRun:
    """What the certification of ``row`` in run directory ``out`` judged, read from its journal alone."""
    from bench.catalogue import load_catalogue
    from bench.journal import Journal
    from reports.clause_verdicts import clause_verdicts

    if not (out / Journal.FILENAME).is_file():
        raise RuntimeError(f"{row.profile}: the run recorded nothing (exit {exit_code}):\n{output[-4000:]}")
    with Journal(out / Journal.FILENAME, create=False) as journal:
        judged = [verdict for verdict in clause_verdicts(journal, load_catalogue()) if verdict.measurements]
    return RowRun(
        verdicts={verdict.clause_id: verdict.verdict for verdict in judged},
        samples={verdict.clause_id: max(row_["sample_size"] or 0 for row_ in verdict.measurements) for verdict in judged},
        seconds=seconds,
        exit_code=exit_code,
    )
