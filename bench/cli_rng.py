"""``bench rng``: the statistical battery on files, from the command line.

Each command exits 0 when the sample passes, 1 when it fails, 2 on an error (unreadable or
empty file, wrong alphabet, bad parameter, missing tool), with a message naming the file and
the reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

rng_app = typer.Typer(help="Statistical tests of RNG output and game outcomes.", no_args_is_help=True)
console = Console(soft_wrap=True)
error_console = Console(stderr=True, soft_wrap=True)


def _fail_input(message: str) -> typer.Exit:
    error_console.print(f"[red]error:[/] {message}")
    return typer.Exit(2)


def _progress(enabled: bool) -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("ETA"),
                    TimeRemainingColumn(), console=Console(stderr=True), transient=True, disable=not enabled)


def _table(title: str, columns: tuple[str, ...]) -> Table:
    """A result table for an 80-column terminal: no vertical rules, one space between columns, no cell cut (the
    test names and figures are short enough; a longer explanation goes in a note under the table)."""
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, title_justify="left")
    for column in columns:
        table.add_column(column, no_wrap=True)
    return table


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.6f}"


@rng_app.command("nist")
def nist(
    file: Annotated[Path, typer.Argument(help="Raw bytes (MSB first) or, with --ascii, 0/1 text.")],
    ascii_bits: Annotated[bool, typer.Option("--ascii", help="The file is ASCII '0'/'1' characters.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
    param: Annotated[list[str] | None,
                     typer.Option(help="Override a parameter: TEST.PARAM=VALUE (repeatable).")] = None,
    tests: Annotated[str | None, typer.Option(help="Comma-separated test names (default: all 15).")] = None,
    length: Annotated[int | None, typer.Option(help="Bits per sequence (default: the whole file as one).")] = None,
    sequences: Annotated[int | None, typer.Option(help="Number of sequences (default: as many as fit).")] = None,
    alpha: Annotated[float, typer.Option(help="Family-wise level of the verdict (Holm).")] = 0.01,
) -> None:
    """NIST SP 800-22 Rev. 1a on FILE: one sequence, or second-level analysis over several (section 4.2).

    FILE is read in bounded blocks, never past the bits the sequences need (``--length`` x
    ``--sequences``); input that does not fit in memory is refused (exit 2), as is a sequence
    shorter than the smallest SP 800-22 test needs, or than a test named in ``--tests`` needs.
    """
    from rng_tests.fairness.multiple_testing import holm
    from rng_tests.nist.battery import (
        SECTIONS,
        TEST_NAMES,
        ParameterError,
        minimum_bits,
        parse_parameter_overrides,
        run_battery,
    )
    from rng_tests.nist.bits import (
        WORKING_BYTES_PER_BIT,
        BitInputError,
        iter_sequences,
        memory_budget_bytes,
        read_bits,
    )
    from rng_tests.nist.second_level import second_level

    if not 0 < alpha < 1:
        raise _fail_input(f"--alpha {alpha}: the family-wise level must lie strictly between 0 and 1")
    if length is not None and length <= 0:
        raise _fail_input(f"--length {length}: the bits per sequence must be a positive number")
    if sequences is not None and sequences <= 0:
        raise _fail_input(f"--sequences {sequences}: the number of sequences must be positive")
    if sequences is not None and length is None:
        raise _fail_input("--sequences needs --length (the bits per sequence)")
    try:
        overrides = parse_parameter_overrides(param or [])
        selected = [name.strip() for name in tests.split(",")] if tests else None
        unknown = [name for name in selected or [] if name not in TEST_NAMES]
        if unknown:
            raise ParameterError(f"--tests: unknown test(s) {', '.join(unknown)} (tests: {', '.join(TEST_NAMES)})")
        floors = {name: minimum_bits(name, overrides.get(name)) for name in (selected or TEST_NAMES)}
        if length is not None:
            _refuse_short(file, length, floors, explicit=selected is not None, what="--length gives sequences of")
        budget = memory_budget_bytes()
        if length is None:
            bits = read_bits(file, ascii_bits=ascii_bits, memory_limit_bits=budget // WORKING_BYTES_PER_BIT)
            _refuse_short(file, int(bits.size), floors, explicit=selected is not None, what="holds")
            pieces: Iterable[Any] = [bits]
            count: int | None = 1
        else:
            if length * WORKING_BYTES_PER_BIT > budget:
                raise _fail_input(f"{file}: --length {length:,}: a sequence of that many bits does not fit in memory "
                                  f"here (at most {budget // WORKING_BYTES_PER_BIT:,} bits)")
            if sequences is None and _endless(file):
                raise _fail_input(f"{file}: not a regular file (a device or a pipe has no known end): with --length, "
                                  "give --sequences, the number of sequences to read")
            pieces = iter_sequences(file, length, sequences, ascii_bits=ascii_bits)
            count = sequences if sequences is not None else (
                file.stat().st_size * 8 // length if not ascii_bits and file.is_file() else None)
    except (BitInputError, ParameterError, OSError) as error:
        raise _fail_input(str(error) if str(error).startswith(str(file)) else f"{file}: {error}") from error
    batteries = []
    with _progress(not as_json) as progress:
        per_sequence = len(selected) if selected else len(SECTIONS)
        task = progress.add_task("SP 800-22", total=count * per_sequence if count is not None else None)
        try:
            for piece in pieces:
                batteries.append(run_battery(piece, tests=selected, parameters=overrides,
                                             on_test_done=lambda _name: progress.advance(task)))
        except ParameterError as error:
            raise _fail_input(str(error)) from error
        except BitInputError as error:
            raise _fail_input(str(error)) from error
    _refuse_inapplicable(file, batteries, explicit=selected is not None)
    if len(batteries) == 1:
        battery = batteries[0]
        labelled = battery.p_values()
        rejections = holm(list(labelled.values()), alpha)[1] if labelled else []
        rejected = [label for label, reject in zip(labelled, rejections) if reject]
        passed = not rejected
        document: dict[str, Any] = {
            "file": str(file), "bits": battery.n, "alpha_per_test": 0.01, "family_alpha": alpha,
            "verdict": "PASS" if passed else "FAIL", "rejected_by_holm": rejected,
            "method": (f"each p-value against 0.01 as SP 800-22; "
                       f"verdict: Holm over the {len(labelled)} p-values at {alpha}"),
        } | battery.to_json()
        if as_json:
            console.print_json(json.dumps(document))
        else:
            table = _table(f"SP 800-22 on {file} ({battery.n:,} bits)", ("§", "test", "p-values", "lowest p",
                                                                           "at 0.01", "seconds"))
            notes: list[str] = []
            for result in battery.results:
                if not result.applicable:
                    notes.append(f"[{len(notes) + 1}] {SECTIONS[result.test]} {result.test}: {result.not_applicable}")
                state = f"n/a [{len(notes)}]" if not result.applicable else (
                    "yes" if result.passed() else f"no ({sum(p < 0.01 for p in result.p_values.values())} below)")
                table.add_row(SECTIONS[result.test], result.test, str(len(result.p_values)), _fmt(result.min_p_value),
                              state, f"{battery.seconds[result.test]:.3f}")
            console.print(table, soft_wrap=False)
            for note in notes:
                console.print(note, soft_wrap=False, highlight=False)
            console.print(f"Verdict: [bold]{'PASS' if passed else 'FAIL'}[/] ({document['method']})"
                          + (f"; rejected: {', '.join(rejected)}" if rejected else ""), soft_wrap=False)
    else:
        report = second_level(batteries, family_alpha=alpha)
        passed = report.passed
        document = {"file": str(file), "bits_per_sequence": length,
                    "verdict": "PASS" if passed else "FAIL"} | report.to_json()
        if as_json:
            console.print_json(json.dumps(document))
        else:
            table = _table(f"SP 800-22 second level on {file}: {report.sequences} sequences of {length:,} bits",
                           ("label", "n", "proportion", "NIST interval", "P-value_T"))
            for label in report.labels:
                flagged = label.label in report.nist_flags or any(entry.startswith(label.label + ":")
                                                                 for entry in report.rejected)
                if label.label.count("/") and not flagged:
                    continue  # one line per template/state only when it stands out
                table.add_row(label.label + (" *" if flagged else ""), str(label.sequences), f"{label.proportion:.4f}",
                              f"{label.interval[0]:.4f}-{label.interval[1]:.4f}", _fmt(label.uniformity_p_value))
            console.print(table, soft_wrap=False)
            console.print("n: sequences the test applied to; P-value_T: uniformity of their p-values (SP 800-22 "
                          "section 4.2.2); *: outside the NIST interval, or rejected", soft_wrap=False, highlight=False)
            console.print(f"Verdict: [bold]{'PASS' if passed else 'FAIL'}[/] ({report.to_json()['method']})",
                          soft_wrap=False)
    raise typer.Exit(0 if passed else 1)


def _endless(file: Path) -> bool:
    """True for a device, a pipe or a socket: an input whose end is not known before it is read."""
    import stat

    try:
        mode = file.stat().st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISBLK(mode)


def _refuse_short(file: Path, bits: int, floors: dict[str, int | None], *, explicit: bool, what: str) -> None:
    """Exit 2 when ``bits`` are too few for every test (or, for tests named by --tests, for any of them)."""
    if explicit:
        short = {name: floor for name, floor in floors.items() if floor is None or bits < floor}
        if short:
            raise _fail_input(f"{file}: {what} {bits:,} bits, too few for " + ", ".join(
                f"{name} (needs n >= {floor:,})" if floor is not None else f"{name} (never applies at these parameters)"
                for name, floor in short.items()))
        return
    usable = [floor for floor in floors.values() if floor is not None]
    smallest = min(usable) if usable else None
    if smallest is None or bits < smallest:
        needing = ", ".join(name for name, floor in floors.items() if floor == smallest)
        raise _fail_input(f"{file}: {what} {bits:,} bits, too few for any SP 800-22 test: the "
                          f"smallest needs n >= {smallest:,} bits ({needing})")


def _refuse_inapplicable(file: Path, batteries: list[Any], *, explicit: bool) -> None:
    """Exit 2 when no test gave a p-value, or a test named by --tests applied to no sequence."""
    reasons: dict[str, str] = {}
    applied: set[str] = set()
    for battery in batteries:
        for result in battery.results:
            if result.applicable and result.p_values:
                applied.add(result.test)
            else:
                reasons.setdefault(result.test, result.not_applicable or "no p-value")
    if not applied:
        raise _fail_input(f"{file}: no SP 800-22 test applied, nothing was tested: " + "; ".join(
            f"{name}: {reason}" for name, reason in reasons.items()))
    if explicit:
        missing = {name: reason for name, reason in reasons.items() if name not in applied}
        if missing:
            raise _fail_input(f"{file}: not tested: " + "; ".join(f"{name}: {reason}" for name, reason in missing.items()))


@rng_app.command("outcomes")
def outcomes(
    file: Annotated[Path, typer.Argument(help="One outcome per line (a shuffle per line for cards).")],
    kind: Annotated[str, typer.Option(help="roulette-french | roulette-american | dice-2 | dice-3 | cards-52xK")],
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
    alpha: Annotated[float, typer.Option(help="Family-wise level of the verdict (Holm).")] = 0.01,
    shuffle_criterion: Annotated[str, typer.Option(
        help="cards: riffle-7 (at least as mixed as 7 riffles) or uniform.")] = "riffle-7",
    seed: Annotated[int, typer.Option(help="Seed of Monte-Carlo p-values.")] = 0,
) -> None:
    """Fairness family of game outcomes in FILE (Holm over the family)."""
    from rng_tests.fairness.multiple_testing import adjust
    from rng_tests.outcome_families import OutcomeFileError, check_sample_size, outcome_family, read_outcomes

    if shuffle_criterion not in ("riffle-7", "uniform"):
        raise _fail_input(f"--shuffle-criterion {shuffle_criterion!r}: expected riffle-7 or uniform")
    if not 0 < alpha < 0.5:
        raise _fail_input(f"--alpha {alpha}: expected a level between 0 and 0.5")
    try:
        sample = read_outcomes(file, kind)
        check_sample_size(file, sample)
        with _progress(not as_json) as progress:
            progress.add_task(f"testing {len(sample.values):,} outcomes", total=None)
            family = outcome_family(sample, criterion=shuffle_criterion, seed=seed)  # type: ignore[arg-type]
    except (OutcomeFileError, ValueError) as error:
        raise _fail_input(str(error) if str(error).startswith(str(file)) else f"{file}: {error}") from error
    if all(result.not_applicable for result in family.values()):
        raise _fail_input(f"{file}: no test of the {kind} family applied, nothing was tested: " + "; ".join(
            f"{name}: {result.not_applicable}" for name, result in family.items()))
    adjustment = adjust(family, alpha, "holm")
    passed = not adjustment.any_rejected
    document = {
        "file": str(file), "kind": kind, "outcomes": len(sample.values), "family_alpha": alpha,
        "verdict": "PASS" if passed else "FAIL", "method": adjustment.description,
        "tests": [family[member.name].to_json() | {"name": member.name, "adjusted_p_value": member.adjusted_p_value,
                                                    "rejected": member.rejected} for member in adjustment.tests],
    }
    if as_json:
        console.print_json(json.dumps(document))
    else:
        table = Table(title=f"{kind} outcomes in {file} ({len(sample.values):,})")
        for column in ("test", "statistic", "p-value", "Holm p-value", "verdict"):
            table.add_column(column)
        for member in adjustment.tests:
            result = family[member.name]
            verdict = ("n/a: " + (member.not_applicable or "")) if member.not_applicable else (
                "REJECT" if member.rejected else "ok")
            table.add_row(member.name, f"{result.statistic:.4g}", _fmt(member.p_value), _fmt(member.adjusted_p_value),
                          verdict)
        console.print(table, soft_wrap=False)
        console.print(f"Verdict: [bold]{'PASS' if passed else 'FAIL'}[/] ({adjustment.description} at {alpha})")
    raise typer.Exit(0 if passed else 1)


@rng_app.command("dieharder")
def dieharder(
    file: Annotated[Path, typer.Argument(help="Raw generator output (bytes), streamed to dieharder -g 200.")],
    tests: Annotated[str | None, typer.Option(help="Comma-separated test names or numbers (default: every test the file is long enough for).")] = None,
    psamples: Annotated[int | None, typer.Option(help="dieharder -p for every test (default: each test's own).")] = None,
    timeout: Annotated[float, typer.Option(help="Seconds allowed per dieharder process.")] = 900.0,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
) -> None:
    """dieharder on FILE: each test reads the file from its start, never past its end (no rewind)."""
    from rng_tests.dieharder.runner import Dieharder

    if not file.is_file():
        raise _fail_input(f"{file}: no such file")
    size = file.stat().st_size
    if size == 0:
        raise _fail_input(f"{file}: the file is empty")
    tool = Dieharder()
    if not tool.available:
        raise _fail_input(f"{file}: not tested: {tool.missing_reason}")
    try:
        if tests is None:
            plan = tool.plan(size, "all", psamples=psamples, share_sample=True)
            selected: list[str] = [entry["test"] for entry in plan if entry["enough"]]
            if not selected:
                smallest = min(entry["bytes_needed"] for entry in plan)
                raise _fail_input(f"{file}: {size:,} bytes are too few for any dieharder test "
                                  f"(the smallest needs {smallest:,})")
        else:
            selected = [name.strip() for name in tests.split(",") if name.strip()]
            short = [entry for entry in tool.plan(size, selected, psamples=psamples, share_sample=True)
                     if not entry["enough"]]
            if short:
                raise _fail_input(f"{file}: {size:,} bytes are too few for " + ", ".join(
                    f"{entry['test']} (needs {entry['bytes_needed']:,})" for entry in short))
        with _progress(not as_json) as progress:
            progress.add_task(f"dieharder: {len(selected)} test(s)", total=None)
            run = tool.run(file, selected, psamples=psamples, timeout=timeout, share_sample=True)
    except ValueError as error:
        raise _fail_input(f"{file}: {error}") from error
    if as_json:
        document = run.to_json()
        for result in document["results"]:
            for attempt in result["attempts"]:
                attempt.pop("stdout", None)
                attempt.pop("stderr", None)
        console.print_json(json.dumps({"file": str(file)} | document))
    else:
        table = Table(title=f"dieharder {run.version} on {file} ({size:,} bytes)")
        for column in ("test", "p-values", "assessment", "bytes read", "note"):
            table.add_column(column)
        for result in run.results:
            table.add_row(result.label, ", ".join(f"{row.p_value:.6f}" for row in result.rows), str(result.status),
                          f"{result.bytes_read:,}" if result.bytes_read is not None else "-", result.reason or "")
        console.print(table, soft_wrap=False)
        console.print(f"Verdict: [bold]{run.verdict}[/]")
    raise typer.Exit({"PASS": 0, "FAIL": 1}.get(run.verdict, 2))
