"""Line faults never turn into a wrong verdict (``benchmarks/fault_sweep.py`` runs the whole matrix).

A subset of the sweep, with smaller samples: fair simulated devices certified on lines that damage, delay or
lose up to 20 % of their replies (late replies past the link timeout included: the case that made a fair wheel
FAIL p217-2007/roleta-francesa/5) PASS, or end INCOMPLETE naming the reason; never FAIL nor ERROR. A biased row of
the sensitivity matrix still fails exactly its clauses at 5 % mixed faults. The fault seeds are fixed, so each
run is the same every time.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from benchmark_scripts import load_benchmark

from bench.sensitivity import MATRIX

sweep = load_benchmark("fault_sweep")

FAIR_CELLS = [  # (device, fault kind, rate, fault seed, smaller samples)
    ("wheel", "late", 0.10, 2, {"spins": 150}),
    ("wheel", "mixed", 0.20, 3, {"spins": 150}),
    ("jackpot", "mixed", 0.20, 2, {"bets": 30}),
    ("rng", "mixed", 0.10, 2, {"draws": 1500}),
]


@pytest.mark.slow(seconds=150)
@pytest.mark.parametrize(("device", "kind", "rate", "seed", "options"), FAIR_CELLS,
                         ids=[f"{cell[0]}-{cell[1]}-{cell[2]:g}" for cell in FAIR_CELLS])
def test_a_fair_device_on_a_faulty_line_never_fails(device: str, kind: str, rate: float, seed: int,
                                                    options: dict[str, object], tmp_path: Path) -> None:
    base = sweep.DEVICES[device]
    small = sweep.Device(base.name, base.profile, base.entry, base.suite, {**base.options, **options}, base.drop)
    cell = sweep.run_cell(small, kind, rate, seed, tmp_path)
    assert cell.verdict in ("PASS", "INCOMPLETE"), (cell.verdict, cell.verdicts, cell.reason)
    assert cell.verdict == "PASS" or cell.reason, "a run that stops names its reason"
    assert cell.verdicts, "the run judged its clauses"
    if device == "rng":  # every block recorded is the block of that number the simulated generator gives
        checked, differing = cell.as_generated
        assert checked > 0 and differing == 0
        run = tmp_path / f"{device}-{kind}-{rate:g}-{seed}"
        with sqlite3.connect(run / "journal.sqlite") as journal:  # one value changed: the check finds it
            journal.execute("DROP TRIGGER observations_no_update")
            journal.execute("UPDATE observations SET value = json_set(value, '$.values[0]', "
                            "(json_extract(value, '$.values[0]') + 1) % 37) WHERE stream = 'rng/draw-blocks' "
                            "AND idx = 0")
        assert sweep.rng_blocks_as_generated(run) == (checked, 1)


@pytest.mark.slow(seconds=60)
def test_a_biased_jackpot_still_fails_exactly_its_clauses_at_five_percent_faults(tmp_path: Path) -> None:
    row = next(row for row in MATRIX if row.profile == "sim-jackpot-rounding")
    cell, exact = sweep.run_biased(row.profile, row.suite, row.must_fail, 0.05, 1, tmp_path)
    assert exact, (cell.verdicts, cell.reason)


def test_fault_tables_share_the_rate_among_the_kinds() -> None:
    assert sweep.faults("silent", 0.05, 3) == {"seed": 3, "silent_rate": 0.05}
    mixed = sweep.faults("mixed", 0.20, 1)
    assert sum(value for key, value in mixed.items() if key.endswith("_rate")) == pytest.approx(0.20)
    assert mixed["late_s"] == sweep.LATE_S
    assert sweep.faults("mixed", 0.0, 1) == {"seed": 1}


def test_a_sweep_profile_is_a_loadable_profile_with_the_faults(tmp_path: Path) -> None:
    from bench.profiles import load_profile_text

    device = sweep.DEVICES["wheel"]
    text = sweep.device_profile(device.profile, device.entry, sweep.faults("mixed", 0.05, 1), device.options,
                                device.drop)
    profile = load_profile_text(text, "fault-sweep.toml")
    wheel = profile.equipment["wheel"]
    assert wheel.simulator.wire_faults.silent_rate == pytest.approx(0.01)
    assert wheel.connection.timeout_s == 0.5 and wheel.connection.retries == 3
    assert wheel.options.spins == 370 and wheel.camera is None
