"""Print the sensitivity matrix: each fault's run, the clauses it failed, the sample each verdict took.

Runs ``bench certify`` on every row of :data:`bench.sensitivity.MATRIX` (and the fair ``sim``
profile), judges each run from its journal alone, and prints one line per row: the clauses
that had to FAIL, those that did, whether every other judged clause passed, the largest
sample behind the failing verdicts (spins, throws, shuffles, plays...), and the run time.

Usage: ``.venv/bin/python benchmarks/sensitivity_matrix.py [--only PROFILE ...] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from rich.console import Console
from rich.table import Table

from bench.sensitivity import FAIR, MATRIX, run_row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="profiles to run (default: all rows and sim)")
    parser.add_argument("--keep", type=Path, help="keep the run directories here")
    arguments = parser.parse_args()
    rows = [row for row in (*MATRIX, FAIR) if not arguments.only or row.profile in arguments.only]
    console = Console(width=190)
    table = Table(title="Sensitivity matrix: each fault against the suites")
    for column in ("fault", "profile", "must FAIL", "FAILED", "others pass", "sample", "time"):
        table.add_column(column)
    all_right = True
    with tempfile.TemporaryDirectory(prefix="bench-sensitivity-") as scratch:
        root = arguments.keep or Path(scratch)
        for row in rows:
            run = run_row(row, root / row.profile)
            failed, others_pass, right = run.failed(), run.others_pass(row), run.as_expected(row)
            all_right &= right
            sample = ", ".join(f"{run.samples[clause]}" for clause in sorted(failed)) or (
                f"max {max(run.samples.values())}" if run.samples else "-")
            table.add_row(row.fault, row.profile, "\n".join(sorted(row.must_fail)) or "-",
                          "\n".join(sorted(failed)) or "-", "yes" if others_pass else "[red]NO[/]", sample,
                          f"{run.seconds:.0f} s", style=None if right else "red")
    console.print(table)
    console.print("matrix " + ("[green]green[/]: every fault failed exactly its clauses" if all_right
                               else "[red]NOT green[/]: see the red rows"))
    return 0 if all_right else 1


if __name__ == "__main__":
    raise SystemExit(main())
