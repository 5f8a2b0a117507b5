"""The ``bench`` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from bench import __version__
from bench.allure_labels import clause_list, plain_test_name
from bench.catalogue import CatalogueError, EquipmentKind, load_catalogue
from bench.catalogue.model import Testability
from bench.cli_approve import approve
from bench.cli_calibrate_dice import calibrate_dice
from bench.cli_doctor import doctor
from bench.cli_help import complete_profile, complete_suite, suite_names, use_plain_metavars
from bench.cli_integrity import keys_app, sign, verify
from bench.cli_layout import record
from bench.cli_plan import plan
from bench.cli_read import calibrate_app, read_app
from bench.cli_rng import rng_app

use_plain_metavars()
app = typer.Typer(help="Certification bench for casino equipment regulated by SRIJ.", no_args_is_help=True,
                  rich_markup_mode="markdown")
sim_app = typer.Typer(help="Device simulators.", no_args_is_help=True)
app.add_typer(sim_app, name="sim")
app.add_typer(rng_app, name="rng")
app.add_typer(read_app, name="read")
calibrate_app.command("dice")(calibrate_dice)
app.add_typer(calibrate_app, name="calibrate")
app.add_typer(keys_app, name="keys")
app.command("plan")(plan)
app.command("verify")(verify)
app.command("sign")(sign)
app.command("doctor")(doctor)
app.command("approve")(approve)
console = Console(soft_wrap=True)
error_console = Console(stderr=True, soft_wrap=True)


def _print_version(value: bool) -> None:
    if value:
        print(f"bench {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", callback=_print_version, is_eager=True,
                                          help="Print the bench's version and exit.")] = False,
) -> None:
    """Certification bench for casino equipment regulated by SRIJ."""


@app.command()
def certify(
    profile: Annotated[str, typer.Option(help="Built-in profile name (`bench profiles`) or TOML path.",
                                         autocompletion=complete_profile)] = "sim",
    suite: Annotated[list[str] | None, typer.Option(
        metavar="SUITE", autocompletion=complete_suite,
        help=f"Suite to run, repeatable (default: all): {', '.join(suite_names())}.")] = None,
    out: Annotated[Path | None, typer.Option(help="Run directory (default: runs/<profile>-<time>).")] = None,
    resume: Annotated[Path | None, typer.Option(help="Continue the run in this directory.")] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    key_dir: Annotated[Path | None, typer.Option(help="Laboratory key directory (default: $BENCH_KEY_DIR or "
                                                      "~/.bench/keys).")] = None,
    operator: Annotated[str | None, typer.Option(help="Name of the person running the bench (journalled, printed "
                                                      "on the report; default: the profile's laboratory operator).")]
    = None,
    pdf: Annotated[bool, typer.Option(help="Write the PDF certificate beside the HTML (--no-pdf: HTML only; "
                                           "`bench report RUN_DIR --pdf` writes it later).")] = True,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print every judged clause, not only those that "
                                                                  "failed, errored or did not finish.")] = False,
    json_file: Annotated[Path | None, typer.Option("--json", metavar="FILE", help="Write the verdicts and "
                                                   "measurements as JSON (schema: docs/results.schema.json).")] = None,
    junit_xml: Annotated[Path | None, typer.Option("--junit-xml", metavar="FILE", help="Write the verdicts as JUnit "
                                                   "XML, one test case per clause.")] = None,
) -> None:
    """Run the certification suites on the profile's rig; exit 0 pass, 1 fail, 2 error or incomplete."""
    from bench.certify import ResultFiles, run_certification

    outcome = run_certification(console, profile=profile, suites=suite, out=out, resume=resume, show_progress=progress,
                                key_dir=key_dir, operator=operator, pdf=pdf, verbose=verbose,
                                result_files=ResultFiles(json_file, junit_xml))
    raise typer.Exit(outcome.exit_code)


@app.command()
def clauses(
    regulation: Annotated[str | None, typer.Option(help="Only this regulation (e.g. p217-2007).")] = None,
    kind: Annotated[EquipmentKind | None, typer.Option(
        metavar="KIND", help=f"Only clauses about this kind: {', '.join(kind.value for kind in EquipmentKind)}.")] = None,
    testable: Annotated[bool, typer.Option("--testable", help="Only bench-testable clauses.")] = False,
    coverage: Annotated[bool, typer.Option("--coverage", help="For bench clauses: the suite tests citing each.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output.")] = False,
) -> None:
    """List the clause catalogue."""
    from bench.coverage import citations
    from bench.paths import suite_files

    try:
        catalogue = load_catalogue()
    except CatalogueError as error:
        error_console.print(f"[red]catalogue error:[/]\n{error}")
        raise typer.Exit(2) from error
    if regulation is not None and regulation not in catalogue.regulations:
        error_console.print(f"[red]error:[/] no regulation {regulation!r} (have: {', '.join(catalogue.regulations)})")
        raise typer.Exit(2)
    selected = catalogue.clauses(
        regulation=regulation, kind=kind, testability=Testability.BENCH if (testable or coverage) else None
    )
    cited = citations(suite_files()) if coverage else {}
    if as_json:
        rows = [
            clause.model_dump(mode="json") | ({"tests": cited.get(clause.id, [])} if coverage else {})
            for clause in selected
        ]
        payload: dict[str, object] = {"count": len(rows), "clauses": rows}
        if coverage:
            payload["uncovered"] = [clause.id for clause in selected if clause.id not in cited]
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
        return
    for clause in selected:
        kinds = ", ".join(kind.value for kind in clause.kinds)
        head = Text.assemble((clause.id, "bold"), "  ", (clause.testability.value, "cyan"))
        details: list[Text | str] = (cited_lines(cited.get(clause.id, [])) or [Text("uncovered", style="red")]
                                     if coverage else [clause.summary_en])
        if head.cell_len + 2 + len(kinds) <= console.width:
            head.append(f"  {kinds}", style="dim")
        else:  # the kinds on a line of their own rather than wrapped under the clause id
            details.insert(0, Text(kinds, style="dim"))
        console.print(record(head, details), soft_wrap=False)
    if coverage:
        covered = sum(1 for clause in selected if clause.id in cited)
        console.print(f"{covered} of {len(selected)} bench clauses covered by suite tests; "
                      f"{len(selected) - covered} uncovered", soft_wrap=False)
    else:
        console.print(f"{len(selected)} clauses")


def cited_lines(test_ids: list[str]) -> list[str]:
    """The suite tests citing a clause, one line per suite in plain words: ``roulette: Wheel numbering; Pocket
    fairness`` for ``suites/test_roulette.py::test_wheel_numbering`` and ``...::test_pocket_fairness``."""
    by_suite: dict[str, list[str]] = {}
    for test_id in test_ids:
        path, _, name = test_id.partition("::")
        by_suite.setdefault(Path(path).stem.removeprefix("test_"), []).append(plain_test_name(name))
    return [f"{suite}: {'; '.join(names)}" for suite, names in by_suite.items()]


@app.command()
def profiles(path: Annotated[Path | None, typer.Argument(help="Validate this profile file.")] = None) -> None:
    """List the built-in profiles, or validate a profile file."""
    from bench.profiles import ProfileError, builtin_profiles, load_profile
    from bench.profiles.loader import BUILTIN_DIR

    if path is not None:
        try:
            profile, _, _ = load_profile(str(path))
        except ProfileError as error:
            error_console.print(f"[red]profile error:[/]\n{error}")
            raise typer.Exit(2) from error
        console.print(f"{path}: valid profile {profile.name!r} with {len(profile.equipment)} piece(s) of equipment")
        return
    from bench.sensitivity import expectations

    expected = expectations()
    builtin = builtin_profiles()
    for name in sorted(builtin, key=lambda item: (item != "sim", item)):  # the default profile first
        profile, _, _ = load_profile(name)
        row = expected.get(name)
        head = Text(name, style="bold")
        details: list[Text | str] = [profile.description]
        if row is not None and row.must_fail:
            head.append(f"  expected to FAIL {len(row.must_fail)} clause(s)", style="red")
            details.append(f"fails {clause_list(sorted(row.must_fail), limit=None)}")
        elif row is not None:
            head.append("  expected to PASS", style="green")
        console.print(record(head, details), soft_wrap=False)
    console.print("Expected verdicts: the sensitivity matrix (bench/sensitivity.py), proven by the project's "
                  f"tests; other profiles carry none. Files: {BUILTIN_DIR}", soft_wrap=False)


@app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(help="Run directory.")],
    lang: Annotated[str, typer.Option(help="Language of the certificate: pt or en.")] = "pt",
    pdf: Annotated[bool, typer.Option("--pdf", help="Write the PDF too (beside the HTML).")] = False,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="File to write (.html, or .pdf for the PDF "
                                                                       "alone); default: report[.en].html in RUN_DIR.")]
    = None,
    key_dir: Annotated[Path | None, typer.Option(help="Laboratory key directory, to re-sign a signed run after "
                                                      "writing into it (default: $BENCH_KEY_DIR or ~/.bench/keys).")]
    = None,
    public_key: Annotated[Path | None, typer.Option(help="Trusted public key to verify a signed run with before "
                                                         "writing into it (default: the laboratory key's).")] = None,
) -> None:
    """Render a run's certificate (clause matrix, plots, evidence) from its journal; exit 2 on an error.

    Writing into a signed run directory first verifies it (a run that is not intact is refused), then
    re-signs it; a report written elsewhere (-o outside RUN_DIR) leaves the run directory untouched. Writing
    into the run directory takes its lock (a second writer exits 2 at once, naming the holder's PID).
    """
    from bench.journal import Journal, JournalError
    from bench.profiles import ProfileError
    from bench.rundir import RunLock, RunLocked
    from reports.certificate import report_filename, write_report
    from reports.i18n import LANGUAGES
    from reports.manifest import SIGNATURE_FILE
    from reports.pdf import PdfUnavailable

    if not (run_dir / Journal.FILENAME).is_file():
        error_console.print(f"[red]error:[/] {run_dir}: no {Journal.FILENAME}")
        raise typer.Exit(2)
    if lang not in LANGUAGES:
        error_console.print(f"[red]error:[/] --lang {lang!r}: use {' or '.join(LANGUAGES)}")
        raise typer.Exit(2)
    target = output if output is not None else run_dir / report_filename(lang, pdf=False)
    inside = target.resolve().is_relative_to(run_dir.resolve())
    lock = RunLock(run_dir)
    if inside:
        try:
            lock.acquire()
        except RunLocked as error:
            error_console.print(f"[red]error:[/] {error}")
            raise typer.Exit(2) from error
    try:
        signed = (run_dir / SIGNATURE_FILE).is_file()  # a manifest without its signature is an unsigned run
        fingerprint = _checked_for_resigning(run_dir, key_dir, public_key) if inside and signed else None
        try:
            written = write_report(run_dir, lang, output=target, pdf=pdf, key_fingerprint=fingerprint)
        except (PdfUnavailable, JournalError, ProfileError, ValueError) as error:
            error_console.print(f"[red]error:[/] {run_dir}: {error}")
            raise typer.Exit(2) from error
        for path in (written.html, written.pdf):
            if path is not None:
                console.print(f"Report: {path}")
        if fingerprint is not None:
            from bench.certify import sign_evidence

            if not sign_evidence(console, run_dir, key_dir):
                raise typer.Exit(2)
    finally:
        lock.release()


def _checked_for_resigning(run_dir: Path, key_dir: Path | None, public_key: Path | None) -> str:
    """Before writing into a signed run: verify it (refuse, exit 2, when it is not intact) and load the key
    that re-signs it; returns that key's fingerprint."""
    from reports.signing import KeyFileError, load_key, load_public_key
    from reports.verify import verify_run

    try:
        key = load_key(key_dir)
        trusted = load_public_key(public_key) if public_key is not None else key.public
    except KeyFileError as error:
        error_console.print(f"[red]error:[/] {run_dir} is signed; writing a report into it needs the laboratory key "
                            f"to re-sign it ({error}); or write elsewhere with -o")
        raise typer.Exit(2) from error
    verification = verify_run(run_dir, trusted)
    if not verification.intact:
        for problem in verification.problems:
            error_console.print(f"[red]{problem.kind.upper()}[/] {problem.path}: {problem.detail}")
        error_console.print(f"[red]refused:[/] {run_dir} is not intact ({len(verification.problems)} problem(s)); "
                            "no report written into it")
        raise typer.Exit(2)
    from reports.manifest import unsign

    unsign(run_dir)  # a report killed half-way leaves the run unsigned (`bench sign` signs it), never mis-signed
    return key.fingerprint


SIMULATOR_ALIASES = {"wheel": "roulette-wheel", "shuffler": "card-shuffler", "slot": "slot-machine",
                     "jackpot": "jackpot-display"}
"""Short names ``bench sim serve`` accepts for equipment kinds."""


@sim_app.command("serve")
def sim_serve(
    kind: Annotated[str, typer.Argument(help="Equipment kind or short name: wheel, rng, shuffler, slot, jackpot, psu.")],
    profile: Annotated[str, typer.Option(help="Profile whose simulator model to use.")] = "sim",
    name: Annotated[str | None, typer.Option(help="Equipment name in the profile (default: the first of KIND).")] = None,
    state: Annotated[Path | None, typer.Option(help="State file (the device's non-volatile memory).")] = None,
) -> None:
    """Run one device simulator standalone and print its tty path (until Ctrl-C)."""
    from bench.profiles import ProfileError, load_profile
    from bench.rig import simulator_config
    from drivers.sim.host import SIMULATOR_MODULES, SimulatorError, start_simulator

    if kind == "psu":
        _serve_power_supply(profile, name, state)
        return
    kind = SIMULATOR_ALIASES.get(kind, kind)
    if kind not in SIMULATOR_MODULES:
        error_console.print(f"[red]error:[/] no simulator for {kind!r} (have: {', '.join(SIMULATOR_MODULES)})")
        raise typer.Exit(2)
    try:
        loaded, _, _ = load_profile(profile)
    except ProfileError as error:
        error_console.print(f"[red]profile error:[/]\n{error}")
        raise typer.Exit(2) from error
    candidates = {key: item for key, item in loaded.of_kind(kind).items() if item.simulator is not None}
    if name is not None:
        candidates = {key: item for key, item in candidates.items() if key == name}
    if not candidates:
        error_console.print(f"[red]error:[/] profile {loaded.name!r} has no simulated {kind}" + (f" named {name!r}" if name else ""))
        raise typer.Exit(2)
    equipment_name, equipment = next(iter(candidates.items()))
    try:
        simulator = start_simulator(kind, simulator_config(equipment), state)
    except SimulatorError as error:
        error_console.print(f"[red]error:[/] {error}")
        raise typer.Exit(2) from error
    console.print(f"{kind} simulator ({equipment_name} of profile {loaded.name}) on {simulator.tty_path}")
    print(simulator.tty_path, flush=True)
    try:
        simulator.process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        simulator.close()


def _serve_power_supply(profile: str, name: str | None, state: Path | None) -> None:
    """``bench sim serve psu``: the profile's simulated power supply (a default one when it has none) on a
    loopback socket; its output drives the power rail file beside the state file."""
    from bench.profiles import ProfileError, load_profile
    from bench.profiles.instruments import PowerSupplyInstrument
    from drivers.sim.psu_server import psu_simulator_config, start_psu_simulator

    try:
        loaded, _, _ = load_profile(profile)
    except ProfileError as error:
        error_console.print(f"[red]profile error:[/]\n{error}")
        raise typer.Exit(2) from error
    supplies = {key: item for key, item in loaded.instruments.items()
                if isinstance(item, PowerSupplyInstrument) and item.simulator is not None and name in (None, key)}
    instrument = next(iter(supplies.values()), None) or PowerSupplyInstrument.model_validate({
        "kind": "power-supply", "identity": {"manufacturer": "Bench Simulators", "model": "PS-1", "serial": "SIM-PS-0001"},
        "simulator": {}})
    rail = state.with_suffix(".rail.json") if state is not None else None
    with start_psu_simulator(psu_simulator_config(instrument, rail), state) as supply:
        console.print(f"power supply simulator on {supply.resource}" + (f", power rail {rail}" if rail else ""))
        print(supply.resource, flush=True)
        try:
            supply.process.wait()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":  # pragma: no cover
    app()
