"""The end of ``bench certify`` in the terminal: one line with the overall verdict and the count per verdict,
then only the clauses that need attention (FAIL, ERROR, INCOMPLETE), each with its key measurement or reason;
``--verbose`` first prints every judged clause. Laid out for an 80-column terminal: clause ids are never cut,
the text beside them wraps under itself."""

from __future__ import annotations

from pathlib import Path

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from reports.clause_verdicts import ERROR, FAIL, INCOMPLETE, PASS, ClauseVerdict, overall_verdict
from reports.result_export import verdict_counts

ATTENTION = (FAIL, ERROR, INCOMPLETE)
"""Verdicts whose clauses the summary lists after the overall line."""

STYLES = {PASS: "green", FAIL: "bold red", ERROR: "yellow", INCOMPLETE: "yellow"}


def key_text(verdict: ClauseVerdict) -> str:
    """What to show beside a clause: its key measurement (name = value unit, p) for a FAIL or PASS, else the
    reason (what errored, what did not finish, why it was not tested)."""
    key = verdict.key_measurement
    if key is None or verdict.verdict in (ERROR, INCOMPLETE):
        return verdict.reason
    unit = f" {key['unit']}" if key["unit"] else ""
    p_text = f", p = {key['p_value']:.3g}" if key["p_value"] is not None else ""
    return f"{key['name']} = {key['value']}{unit}{p_text}"


def overall_text(verdicts: list[ClauseVerdict], run_dir: Path) -> str:
    """The overall line (rich markup): verdict, what it means, and the count of clauses per verdict."""
    overall = overall_verdict(verdicts)
    style = {PASS: "bold green", FAIL: "bold red", ERROR: "bold yellow", INCOMPLETE: "bold yellow"}.get(overall, "dim")
    text = {PASS: "PASS on every tested clause", FAIL: "FAIL: at least one clause failed",
            ERROR: "ERROR: at least one clause could not be tested because of an error",
            INCOMPLETE: "INCOMPLETE: at least one planned test did not finish; no compliance is stated "
                        f"(`bench certify --resume {run_dir}` completes it)",
            }.get(overall, "no clause was tested")
    counts = ", ".join(f"{count} {verdict}" for verdict, count in verdict_counts(verdicts).items())
    return f"Overall result: [{style}]{escape(text)}[/] ({counts})"


def verdict_table(verdicts: list[ClauseVerdict], *, title: str | None = None) -> Table:
    """Clause, verdict and key measurement or reason; the clause id is never cut, the text wraps."""
    table = Table(title=title, show_lines=False, box=None if title is None else box.HEAVY_HEAD, pad_edge=False,
                  show_header=title is not None)
    table.add_column("Clause", no_wrap=True)
    table.add_column("Verdict", no_wrap=True)
    table.add_column("Key measurement or reason", overflow="fold", ratio=1)
    for verdict in verdicts:
        style = STYLES.get(verdict.verdict, "dim")
        table.add_row(verdict.clause_id, f"[{style}]{verdict.verdict}[/]", escape(key_text(verdict)))
    return table


def print_verdicts(console: Console, verdicts: list[ClauseVerdict], run_dir: Path, *, verbose: bool = False) -> None:
    """With ``verbose`` every clause a test cites (the table), then the overall line and the clauses needing
    attention."""
    if verbose:
        cited = [verdict for verdict in verdicts if verdict.verdict in (PASS, *ATTENTION) or verdict.tests]
        console.print(verdict_table(cited, title="Clause verdicts"))
        uncovered = sum(1 for verdict in verdicts if not verdict.tests)
        if uncovered:
            console.print(f"{uncovered} bench clause(s) of this equipment are not covered by any suite yet "
                          "(see the report).")
    console.print(overall_text(verdicts, run_dir))
    attention = [verdict for verdict in verdicts if verdict.verdict in ATTENTION]
    if attention:
        console.print(verdict_table(attention))
