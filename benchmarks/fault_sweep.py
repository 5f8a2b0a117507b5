"""Fault sweep: no line fault turns into a wrong verdict.

Each fair simulated device is certified on a line that damages, delays or loses a share of its
replies (``simulator.wire_faults``: one fault kind alone, or the five mixed in equal shares), at
line-fault rates 0, 1, 2, 5, 10 and 20 %, over several fault seeds. A fair device must PASS every
clause its suite judges, or, where too much was lost, end INCOMPLETE naming the reason (more no-reads than
the stated bound, a device lost): never FAIL, and never ERROR (a fault of the bench itself). Each biased profile of the
sensitivity matrix (:data:`bench.sensitivity.MATRIX`, wheel to dome) must still FAIL exactly its
clauses at 5 % mixed faults.

The device profiles are small (a few hundred games, rounds or bets) so that a cell takes seconds, and wait
at most a few seconds for a game's result or a shuffle (a lost result then costs seconds, not the
default two minutes).
A cell's verdict: ``PASS`` (every judged clause passes), ``FAIL`` (a clause failed: on a fair
device, a wrong verdict, unless the data it was judged on is shown to be exactly what the device generated:
``FAIL (α)``, below), ``INCOMPLETE`` (a test did not finish: too much was lost on the line; the reason is
the clause's), ``ERROR`` (a clause errored, or the run stopped without judging: a fault of the bench). ``no-reads`` is the number of games, rounds or blocks the drivers could not confirm
(``*/no-reads`` streams) and ``stale`` the replies discarded as answering another request.

A fair device still fails a statistical test with probability α: that is the test's type-I error, not the
line's. Where a line fault costs a block of RNG output, the interface's next block is taken instead, so the
sample is a different (equally fair) set of blocks, and its p-values move. The sweep checks every block the
journal recorded from the simulated RNG against the block of that number its generator gives; a FAIL on data
so checked is counted as a type-I error (``FAIL (α)``), apart from the wrong verdicts the line caused.

Usage::

    python benchmarks/fault_sweep.py                       # the whole matrix (hours on 2 cores)
    python benchmarks/fault_sweep.py --devices wheel shuffler --rates 0 5 20 --seeds 1 2
    python benchmarks/fault_sweep.py --biased              # the sensitivity rows at 5 % mixed faults
    python benchmarks/fault_sweep.py --jobs 3              # three certifications at once
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BUILTIN = ROOT / "bench" / "profiles" / "builtin"

RATES = (0.0, 0.01, 0.02, 0.05, 0.10, 0.20)
KINDS = ("dropped-byte", "flipped-bit", "garbage", "silent", "late", "mixed")
_RATE_KEYS = {"dropped-byte": "dropped_byte_rate", "flipped-bit": "flipped_bit_rate", "garbage": "garbage_rate",
              "silent": "silent_rate", "late": "late_rate"}
LATE_S = 1.0
"""How late a late reply comes: past the link timeout below, as in the issue's reproduction."""
CONNECTION = {"port": "sim", "timeout_s": 0.5, "retries": 3}
"""The line settings of every device of the sweep (the issue's reproduction)."""
NO_LINE = frozenset({"dice"})
"""Equipment read by cameras alone: no line to fault (its rows of the matrix run as they are)."""
SHORT_WAITS = {"roulette-wheel": {"spin_timeout_s": 2.0},
               "card-shuffler": {"shuffle_timeout_s": 5.0, "deal_timeout_s": 2.0}}
"""How long the sweep's devices wait for a game's result or a shuffle (a lost one costs seconds, not minutes)."""


@dataclass(frozen=True)
class Device:
    """A fair simulated device: its built-in profile, the equipment entry kept, the suite, smaller samples."""

    name: str
    profile: str
    entry: str
    suite: str
    options: Mapping[str, Any] = field(default_factory=dict)
    drop: tuple[str, ...] = ()


DEVICES: dict[str, Device] = {device.name: device for device in (
    Device("wheel", "sim", "wheel", "roulette",
           {"spins": 370, "outcome_source": "serial", "sequential": False, **SHORT_WAITS["roulette-wheel"]},
           drop=("camera",)),
    Device("shuffler", "sim", "shuffler", "shuffler", {"shuffles": 12, **SHORT_WAITS["card-shuffler"]}),
    Device("jackpot", "sim", "jackpot", "jackpot", {"bets": 60}),
    Device("slot", "sim", "slot", "slot", {"plays": 3000}),
    Device("table", "sim-table-roulette", "table", "gaming_tables", {"rounds": 120}),
    Device("dome", "sim", "dome", "cussec_dome", {"rounds": 60}),
    # sequences of 10^6 bits (shorter ones leave SP 800-22's excursion tests without enough cycles: the suite
    # fails a sample too small to judge, on any line); no dieharder run (it reads 10 MB)
    Device("rng", "sim", "rng", "rng", {"nist_sequences": 6, "nist_sequence_bits": 1_000_000, "draws": 3000,
                                        "dieharder_tests": [], "dieharder_bytes": 0}),
)}


def faults(kind: str, rate: float, seed: int) -> dict[str, Any]:
    """The ``wire_faults`` table for one fault kind (``mixed``: the five kinds in equal shares) at ``rate``."""
    table: dict[str, Any] = {"seed": seed}
    if rate <= 0:
        return table
    keys = list(_RATE_KEYS.values()) if kind == "mixed" else [_RATE_KEYS[kind]]
    for key in keys:
        table[key] = round(rate / len(keys), 6)
    if "late_rate" in keys:
        table["late_s"] = LATE_S
    return table


# -- profiles --------------------------------------------------------------------------------------------------


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else json.dumps(name)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(key)} = {_value(item)}" for key, item in value.items()) + " }"
    if isinstance(value, Iterable):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    raise TypeError(f"cannot write {value!r} as TOML")


def to_toml(profile: Mapping[str, Any]) -> str:
    """A profile as TOML: top-level values, then one table per equipment entry (nested tables inline)."""
    lines = [f"{_key(key)} = {_value(value)}" for key, value in profile.items() if not isinstance(value, Mapping)]
    for key, value in profile.items():
        if not isinstance(value, Mapping):
            continue
        if key in ("equipment", "instruments"):
            for name, entry in value.items():
                lines += ["", f"[{key}.{_key(name)}]"] + [f"{_key(k)} = {_value(v)}" for k, v in entry.items()]
        else:
            lines += ["", f"[{_key(key)}]"] + [f"{_key(k)} = {_value(v)}" for k, v in value.items()]
    return "\n".join(lines) + "\n"


def device_profile(base: str, entry: str, wire_faults: Mapping[str, Any], options: Mapping[str, Any] | None = None,
                   drop: Iterable[str] = (), name: str = "fault-sweep") -> str:
    """The built-in profile ``base`` with only equipment ``entry``, its simulator on a faulty line, as TOML."""
    source = tomllib.loads((BUILTIN / f"{base}.toml").read_text(encoding="utf-8"))
    equipment = dict(source["equipment"][entry])
    for key in drop:
        equipment.pop(key, None)
    equipment["options"] = {**equipment.get("options", {}), **(options or {})}
    equipment["connection"] = {**equipment.get("connection", {}), **CONNECTION}
    equipment["simulator"] = {**equipment.get("simulator", {}), "wire_faults": dict(wire_faults)}
    profile = {"name": name, "description": f"{source.get('description', base)}, on a faulty line",
               "laboratory": source.get("laboratory", {"name": "Simulated laboratory", "operator": "bench"}),
               "equipment": {entry: equipment}}
    return to_toml(profile)


# -- runs ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One certification of the sweep and what it judged."""

    device: str
    kind: str
    rate: float
    seed: int
    verdicts: dict[str, str]
    no_reads: int
    stale: int
    exit_code: int
    seconds: float
    reason: str
    as_generated: tuple[int, int] | None = None
    """(blocks checked, blocks differing) between what the journal recorded and what the simulated device
    generated, for a device whose simulator can say (the RNG interface); None elsewhere."""

    @property
    def sampling_fail(self) -> bool:
        """A FAIL of the statistics on data the device really generated (every recorded block checked equal to
        the simulator's): a fair sample's type-I error at the profile's α, not the line's doing."""
        return self.verdict == "FAIL" and self.as_generated is not None and self.as_generated[0] > 0 \
            and self.as_generated[1] == 0

    @property
    def verdict(self) -> str:
        """FAIL (any clause failed), else ERROR (a clause errored, or the run stopped before judging), else
        INCOMPLETE (a test did not finish), else PASS."""
        values = set(self.verdicts.values())
        if "FAIL" in values:
            return "FAIL"
        if not values or "ERROR" in values or self.exit_code not in (0, 1, 2):
            return "ERROR"
        if "INCOMPLETE" in values:
            return "INCOMPLETE"
        return "PASS"


def certify(profile_text: str, suite: str, out: Path) -> tuple[int, str, float]:
    """``bench certify`` of a profile text into ``out``: (exit code, output, seconds)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out.parent / f"{out.name}.toml"
    path.write_text(profile_text, encoding="utf-8")
    command = [str(Path(sys.executable).with_name("bench")), "certify", "--no-progress", "--no-pdf",
               "--profile", str(path), "--suite", suite, "--out", str(out)]
    started = time.monotonic()
    completed = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    return completed.returncode, completed.stdout + completed.stderr, time.monotonic() - started


def judge(out: Path) -> tuple[dict[str, str], int, int, str]:
    """(verdict of each clause a measurement cites or a test left unfinished or in error, no-reads journalled,
    stale replies in the wire logs, the reason of the first clause neither passed nor failed)."""
    from bench.catalogue import load_catalogue
    from bench.journal import Journal
    from reports.clause_verdicts import clause_verdicts

    journal_path = out / Journal.FILENAME
    if not journal_path.is_file():
        return {}, 0, 0, ""
    with Journal(journal_path, create=False) as journal:
        judged = [verdict for verdict in clause_verdicts(journal, load_catalogue())
                  if verdict.measurements or verdict.verdict in ("INCOMPLETE", "ERROR")]
    verdicts = {verdict.clause_id: verdict.verdict for verdict in judged}
    reason = next((verdict.reason for verdict in judged if verdict.verdict in ("INCOMPLETE", "ERROR")), "")
    import sqlite3

    with sqlite3.connect(journal_path) as connection:
        no_reads = connection.execute(
            "SELECT COUNT(*) FROM observations WHERE stream LIKE '%/no-reads'").fetchone()[0]
    stale = 0
    for log in out.rglob("*.wire.jsonl"):
        stale += sum(1 for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
                     if '"rx-discarded"' in line and ("stale" in line or "late reply" in line))
    return verdicts, int(no_reads), stale, reason


def rng_blocks_as_generated(out: Path) -> tuple[int, int] | None:
    """(blocks checked, blocks differing): every raw and draw block the journal recorded from a simulated fair
    RNG interface, against the block of that number its generator gives (:class:`drivers.sim.rng_device.RngModel`:
    block b comes from the seed and b alone). None when the run has no such device."""
    import sqlite3

    from bench.profiles import load_profile_text
    from drivers.sim.rng_device import RngModel

    journal_path = out / "journal.sqlite"
    if not journal_path.is_file():
        return None
    with sqlite3.connect(journal_path) as connection:
        runs = connection.execute("SELECT profile_text, profile_source FROM runs").fetchall()
        if not runs:
            return None
        profile = load_profile_text(*runs[0])
        rows = connection.execute("SELECT stream, value FROM observations WHERE stream IN "
                                  "('rng/raw-blocks', 'rng/draw-blocks')").fetchall()
    sources = [item for item in profile.equipment.values() if item.kind == "rng" and item.simulator]
    if not sources:
        return None
    [source] = sources
    checked = differing = 0
    model = RngModel(source.simulator)  # block b is the seed's and b's alone: the counter is set before each
    for stream, text in rows:
        value = json.loads(text)
        if stream == "rng/raw-blocks":
            data = bytes.fromhex(value["hex"])
            model.raw_blocks = value["block"] - 1
            same = model.raw(len(data)) == (value["block"], data)
        else:
            model.draw_blocks = value["block"] - 1
            same = model.draw(source.options.draw_range, len(value["values"])) == (value["block"], value["values"])
        checked += 1
        differing += not same
    return checked, differing


def _reason(output: str) -> str:
    """The line of the run's output that says why it stopped (an error naming its reason), if any."""
    lines = [line.strip(" │|") for line in output.splitlines()]
    for markers in (("the bound is", "failed after"), ("NoReadBoundExceeded", "DeviceError", "Error:")):
        for line in lines:
            if any(marker in line for marker in markers):
                return " ".join(line.split())[:240]
    return ""


def run_cell(device: Device, kind: str, rate: float, seed: int, work: Path) -> Cell:
    """Certify ``device`` on a line with ``kind`` faults at ``rate`` (fault seed ``seed``)."""
    out = work / f"{device.name}-{kind}-{rate:g}-{seed}"
    text = device_profile(device.profile, device.entry, faults(kind, rate, seed), device.options, device.drop,
                          name=f"fault-sweep-{device.name}")
    exit_code, output, seconds = certify(text, device.suite, out)
    verdicts, no_reads, stale, reason = judge(out)
    return Cell(device.name, kind, rate, seed, verdicts, no_reads, stale, exit_code, seconds,
                reason or _reason(output), rng_blocks_as_generated(out))


def run_biased(profile: str, suite: str, must_fail: frozenset[str], rate: float, seed: int, work: Path
               ) -> tuple[Cell, bool]:
    """A sensitivity row's profile with every simulated device on a line with mixed faults at ``rate``: (cell,
    whether exactly ``must_fail`` failed)."""
    source = tomllib.loads((BUILTIN / f"{profile}.toml").read_text(encoding="utf-8"))
    for entry in source.get("equipment", {}).values():
        if "simulator" in entry and entry.get("kind") not in NO_LINE:
            entry["simulator"] = {**entry["simulator"], "wire_faults": faults("mixed", rate, seed)}
            entry["connection"] = {**entry.get("connection", {}), **CONNECTION}
            entry["options"] = {**entry.get("options", {}), **SHORT_WAITS.get(entry.get("kind", ""), {})}
    out = work / f"biased-{profile}-{rate:g}-{seed}"
    exit_code, output, seconds = certify(to_toml(source), suite, out)
    verdicts, no_reads, stale, reason = judge(out)
    cell = Cell(profile, "mixed", rate, seed, verdicts, no_reads, stale, exit_code, seconds, reason or _reason(output))
    failed = {clause for clause, verdict in verdicts.items() if verdict == "FAIL"}
    return cell, failed == set(must_fail)


def print_matrix(cells: list[Cell]) -> int:
    """Print device x kind x rate -> verdict, no-reads; the number of wrong verdicts the line caused (a FAIL of a
    fair device not shown to be a type-I error of data the device really generated)."""
    print(f"{'device':9} {'fault':13} {'rate':>5} {'seed':>4}  {'verdict':10} {'no-reads':>8} {'stale':>5} "
          f"{'s':>5}  reason")
    wrong = sampling = 0
    for cell in cells:
        wrong += cell.verdict == "FAIL" and not cell.sampling_fail
        sampling += cell.sampling_fail
        shown = "FAIL (α)" if cell.sampling_fail else cell.verdict
        checked = (f"{cell.as_generated[0] - cell.as_generated[1]}/{cell.as_generated[0]} blocks as generated; "
                   if cell.as_generated is not None and cell.verdict != "PASS" else "")
        print(f"{cell.device:9} {cell.kind:13} {cell.rate:5.0%} {cell.seed:4}  {shown:10} {cell.no_reads:8} "
              f"{cell.stale:5} {cell.seconds:5.0f}  {checked}{cell.reason if cell.verdict != 'PASS' else ''}")
    print()
    print_summary(cells)
    print(f"wrong verdicts caused by the line (FAIL of a fair device on data it did not generate, or not checked): "
          f"{wrong} of {len(cells)} runs")
    print(f"type-I FAILs of a fair sample (every recorded block equal to what the device generated; the line only "
          f"decided which blocks were taken): {sampling} of {len(cells)} runs")
    return wrong


def print_summary(cells: list[Cell]) -> None:
    """Device x rate: how many runs (every fault kind and seed) ended PASS / INCOMPLETE / FAIL (α) / FAIL / ERROR."""
    rates = sorted({cell.rate for cell in cells})
    print(f"{'device':9} " + " ".join(f"{rate:>14.0%}" for rate in rates) + "   (PASS/INCOMPLETE/FAIL(α)/FAIL/ERROR)")
    for device in dict.fromkeys(cell.device for cell in cells):
        row = []
        for rate in rates:
            mine = [cell for cell in cells if cell.device == device and cell.rate == rate]
            counts = [sum(cell.verdict == "PASS" for cell in mine), sum(cell.verdict == "INCOMPLETE" for cell in mine),
                      sum(cell.sampling_fail for cell in mine),
                      sum(cell.verdict == "FAIL" and not cell.sampling_fail for cell in mine),
                      sum(cell.verdict == "ERROR" for cell in mine)]
            row.append("/".join(str(count) for count in counts) if mine else "-")
        print(f"{device:9} " + " ".join(f"{text:>14}" for text in row))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", nargs="+", default=list(DEVICES), choices=list(DEVICES))
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--rates", nargs="+", type=float, default=[rate * 100 for rate in RATES],
                        help="line-fault rates in percent")
    parser.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--biased", action="store_true", help="the sensitivity matrix's rows at 5 %% mixed faults")
    parser.add_argument("--rows", nargs="+", default=None, help="with --biased: only these profiles")
    parser.add_argument("--jobs", type=int, default=1, help="certifications run at once (each on its own lines)")
    parser.add_argument("--work", type=Path, default=None, help="where the runs are kept (default: a temporary one)")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="fault-sweep-"))
    if args.biased:
        from bench.sensitivity import MATRIX

        rows = [row for row in MATRIX if args.rows is None or row.profile in args.rows]

        def biased(row: Any) -> bool:
            cell, exact = run_biased(row.profile, row.suite, row.must_fail, 0.05, args.seeds[0], work)
            failed = sorted(clause for clause, verdict in cell.verdicts.items() if verdict == "FAIL")
            print(f"{row.profile:40} 5% mixed  {'exact' if exact else 'WRONG':5} fails {', '.join(failed) or '-'}"
                  f"  no-reads {cell.no_reads}  stale {cell.stale}  {cell.seconds:.0f} s  {cell.reason}", flush=True)
            return exact

        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            wrong = sum(not exact for exact in pool.map(biased, rows))
        print(f"rows not failing exactly their clauses: {wrong} of {len(rows)}")
        return 1 if wrong else 0
    plan = [(name, kind, rate, seed) for name in args.devices for rate in args.rates
            for kind in (["none"] if rate == 0 else args.kinds)
            for seed in ([args.seeds[0]] if rate == 0 else args.seeds)]

    def one(cell_plan: tuple[str, str, float, int]) -> Cell:
        name, kind, rate, seed = cell_plan
        cell = run_cell(DEVICES[name], "mixed" if kind == "none" else kind, rate / 100, seed, work)
        print(f"  {cell.device} {kind} {rate:g}% seed {seed}: {cell.verdict} no-reads {cell.no_reads} "
              f"stale {cell.stale} {cell.seconds:.0f} s {cell.reason}", flush=True)
        return cell

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:  # each cell is a bench subprocess on its own lines
        cells = list(pool.map(one, plan))
    print()
    return 1 if print_matrix(cells) else 0


if __name__ == "__main__":
    sys.exit(main())
