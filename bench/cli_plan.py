"""The ``bench plan`` command: spins, rolls or shuffles and lab hours needed to detect a named alternative.

Registered in bench/cli.py as ``app.command("plan")(plan)``; the planning itself is in bench/plan.py.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table


class PlanKind(str, Enum):
    """Equipment kinds that ``bench plan`` knows."""

    roulette = "roulette"
    dice = "dice"
    shuffler = "shuffler"


_EXAMPLES = {"roulette": "sector:5@1.2", "dice": "loaded:6@0.2", "shuffler": "riffle:7"}


def plan(
    kind: Annotated[PlanKind, typer.Option(help="Kind of equipment.")] = PlanKind.roulette,
    alternative: Annotated[str | None, typer.Option(
        help="Named alternative: roulette sector:W@F or pocket:P; dice loaded:FACE@P or die-bias:E; "
             "shuffler riffle:K. Default: sector:5@1.2, loaded:6@0.2, riffle:7.")] = None,
    alpha: Annotated[float, typer.Option(help="Significance level.")] = 0.01,
    power: Annotated[float, typer.Option(help="Target power against the alternative.")] = 0.9,
    rate: Annotated[float | None, typer.Option(
        help="Outcomes per hour (default: roulette 40, dice 100, shuffler 30; see bench/plan.py).")] = None,
    simulations: Annotated[int, typer.Option(help="Monte-Carlo runs per simulated figure.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the simulations.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
) -> None:
    """Sample size and lab hours per test to reach the target power against a named alternative."""
    from bench.plan import make_plan

    error_console = Console(stderr=True, soft_wrap=True)
    kind_name = kind.value
    text = alternative if alternative is not None else _EXAMPLES[kind_name]
    try:
        result = make_plan(kind_name, text, alpha=alpha, power=power, rate=rate, simulations=simulations, seed=seed)
    except ValueError as error:
        error_console.print(f"[red]error:[/] {escape(str(error))}", highlight=False)
        raise typer.Exit(2) from error
    if as_json:
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
        return
    console = Console(soft_wrap=True)
    console.print(f"[bold]{kind_name}[/] against [bold]{result.alternative}[/]: {result.description}", highlight=False)
    console.print(f"alpha = {result.alpha:g}, target power = {result.power:g}, rate = {result.rate:g} "
                  f"{result.unit}/hour ({result.rate_rationale}); {result.simulations} simulations, seed {result.seed}",
                  highlight=False)
    table = Table(show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("Test")
    table.add_column(result.unit.capitalize(), justify="right")
    table.add_column("Lab hours", justify="right")
    table.add_column("Power", justify="right")
    for number, row in enumerate(result.rows, start=1):
        table.add_row(
            str(number),
            row.test,
            "-" if row.sample_size is None else f"{row.sample_size:,}",
            "-" if row.hours is None else f"{row.hours:,.1f}",
            "-" if row.power is None else (f"{row.power:.3f}" + (
                "" if row.standard_error is None else f" ± {row.standard_error:.3f}")),
        )
    console.print(table)
    for number, row in enumerate(result.rows, start=1):
        console.print(f"{number}. {row.method}" + (f"; {row.note}" if row.note else ""), highlight=False)
