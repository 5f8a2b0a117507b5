"""The end of ``bench certify`` in the terminal: one line with the overall verdict and the count per verdict (the
certificate's counts: :func:`reports.certificate_view.scope_counts`),
then only the clauses that need attention (FAIL, ERROR, INCOMPLETE), each with its key measurement or reason;
``--verbose`` first prints every judged clause. Laid out for an 80-column terminal
(:mod:`bench.cli_layout`): a clause id is never cut, its measurement or reason wraps indented under it."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console, Group
from rich.markup import escape
from rich.text import Text

from bench.cli_layout import INDENT, record
from reports.certificate_view import ScopeCounts
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


def overall_text(verdicts: list[ClauseVerdict], scope: ScopeCounts | None = None, width: int | None = None) -> str:
    """The overall line (rich markup): the verdict and the count of clauses per verdict. With the certificate's
    ``scope`` (:func:`reports.certificate_view.scope_counts`) the counts are the certificate's: the clauses of
    the sections the run examined, then how many catalogued clauses lie outside this run (on a line of its own,
    indented, when the whole would be wider than ``width``); without it (no certificate was written) every
    judged clause is counted."""
    overall = overall_verdict(verdicts)
    style = {PASS: "bold green", FAIL: "bold red", ERROR: "bold yellow", INCOMPLETE: "bold yellow"}.get(overall, "dim")
    text = overall if overall in STYLES else "no clause was tested"
    if scope is None:
        counts = ", ".join(f"{count} {verdict}" for verdict, count in verdict_counts(verdicts).items())
    else:
        counts = ", ".join(f"{count} {verdict}" for verdict, count in scope.counts.items())
        if scope.outside:
            outside = f"{scope.outside} clauses outside this run"
            wide = width is not None and len(f"Overall result: {text} ({counts}; {outside})") > width
            counts += f";\n{' ' * INDENT}{outside}" if wide else f"; {outside}"
    return f"Overall result: [{style}]{escape(text)}[/] ({counts})"


def verdict_records(verdicts: list[ClauseVerdict]) -> Group:
    """Each clause on a line with its verdict, its key measurement or reason indented under it (never cut)."""
    return Group(*(record(Text.assemble((verdict.clause_id, "bold"), "  ",
                                        (verdict.verdict, STYLES.get(verdict.verdict, "dim"))),
                          [key_text(verdict)] if key_text(verdict) else [])
                   for verdict in verdicts))


def print_verdicts(console: Console, verdicts: list[ClauseVerdict], run_dir: Path, *, verbose: bool = False,
                   scope: ScopeCounts | None = None) -> None:
    """With ``verbose`` every clause a test cites, then the overall line (counted as the certificate counts
    when its ``scope`` is given) and the clauses needing attention; an INCOMPLETE run says how to complete it."""
    if verbose:
        cited = [verdict for verdict in verdicts if verdict.verdict in (PASS, *ATTENTION) or verdict.tests]
        console.print("Clause verdicts", style="bold")
        console.print(verdict_records(cited), soft_wrap=False)
        uncovered = sum(1 for verdict in verdicts if not verdict.tests)
        if uncovered:
            console.print(f"{uncovered} bench clause(s) of this equipment are not covered by any suite yet "
                          "(see the report).", soft_wrap=False)
    console.print(overall_text(verdicts, scope, console.width), soft_wrap=False)
    if overall_verdict(verdicts) == INCOMPLETE:
        console.print(f"At least one planned test did not finish; no compliance is stated (`bench certify --resume "
                      f"{escape(str(run_dir))}` completes it).", soft_wrap=False)
    attention = [verdict for verdict in verdicts if verdict.verdict in ATTENTION]
    if attention:
        console.print(verdict_records(attention), soft_wrap=False)
