"""Tests of the dieharder wrapper (rng_tests.dieharder) against the real dieharder binary.

Statistical tests here use fixed seeds, so every outcome is deterministic for a given
dieharder version; each states how often a fair sample would fail it. The captured
outputs under tests/data/dieharder/ come from real dieharder 3.31.1 runs.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from rng_tests.dieharder import (
    CONSUMPTION,
    NTUPLE_SWEEPS,
    Assessment,
    Dieharder,
    DieharderOutputError,
    RandomSource,
    Status,
    bytes_needed,
    fitting_tests,
    parse_prefixed_output,
    parse_stderr,
    parse_table,
    parse_test_list,
    run_dieharder,
    sample_plan,
)
from rng_tests.dieharder import runner as runner_module
from rng_tests.dieharder.parser import OUTPUT_FLAGS

DATA = Path(__file__).parent / "data" / "dieharder"
DIEHARDER = Dieharder()
needs_dieharder = pytest.mark.skipif(not DIEHARDER.available, reason=DIEHARDER.missing_reason)

#: Seed whose PCG64 bytes make diehard_birthdays at psamples=20 WEAK on the first run (p = 0.9997).
#: Found by scanning seeds: 28 of 392 do, all with p > 0.995 (dieharder's KS at small psamples).
WEAK_SEED = 0


def fair_bytes(size: int, seed: int) -> bytes:
    return np.random.default_rng(seed).bytes(size)


def lcg_bytes(words: int, seed: int = 12345, a: int = 1664525, c: int = 1013904223) -> bytes:
    """Full 32-bit outputs of the Numerical Recipes LCG x <- a x + c mod 2**32 (bit k has period 2**(k+1)).

    Vectorised by doubling: x[k + m] = a**m x[k] + C[m] with C[m] = x[m] when x[0] = 0.
    """
    mask = np.uint64(0xFFFFFFFF)
    mult = np.ones(1, dtype=np.uint64)  # a**k mod 2**32
    add = np.zeros(1, dtype=np.uint64)  # C[k]: x[k] started from 0
    while mult.size < words:
        m = mult.size
        mult_m = (mult[-1] * np.uint64(a)) & mask
        add_m = (add[-1] * np.uint64(a) + np.uint64(c)) & mask
        mult = np.concatenate([mult, (mult * mult_m) & mask])
        add = np.concatenate([add, (add * mult_m + add_m) & mask])
        assert mult.size == 2 * m
    x = (mult[:words] * np.uint64(seed) + add[:words]) & mask
    return x.astype("<u4").tobytes()


def test_lcg_helper_follows_its_recurrence() -> None:
    words = np.frombuffer(lcg_bytes(1000), dtype="<u4").astype(np.uint64)
    assert words[0] == 12345
    assert np.array_equal(words[1:], (words[:-1] * 1664525 + 1013904223) % 2**32)


# --------------------------------------------------------------------------- parsing, no binary needed

def test_parse_default_table_of_a_real_failed_run() -> None:
    rows = parse_table((DATA / "slatec_birthdays_default.txt").read_text())
    assert len(rows) == 1
    row = rows[0]
    assert (row.test_name, row.ntuple, row.tsamples, row.psamples) == ("diehard_birthdays", 0, 100, 100)
    assert row.p_value == 0.0 and row.assessment is Assessment.FAILED


def test_parse_multirow_captures_in_both_forms() -> None:
    default = parse_table((DATA / "taus2_sts_serial_default.txt").read_text())
    prefixed = parse_prefixed_output((DATA / "taus2_sts_serial_prefixed.txt").read_text())
    for rows in (default, prefixed):
        # sts_serial prints one row for ntuple 1 and 2, two rows for each ntuple 3..16
        assert [row.ntuple for row in rows] == [1, 2] + [n for n in range(3, 17) for _ in range(2)]
        assert {row.test_name for row in rows} == {"sts_serial"}
        assert {(row.tsamples, row.psamples) for row in rows} == {(100000, 10)}
    assert Assessment.WEAK in {row.assessment for row in prefixed}
    text = (DATA / "taus2_sts_serial_prefixed.txt").read_text()
    assert sum(row.assessment is Assessment.WEAK for row in prefixed) == text.count("|WEAK")


def test_assessments_follow_dieharder_thresholds_in_captures() -> None:
    """dieharder: FAILED outside [1e-6, 1 - 1e-6], WEAK outside [0.005, 0.995] (p printed to 8 places)."""
    rows = parse_prefixed_output((DATA / "taus2_sts_serial_prefixed.txt").read_text())
    rows += parse_table((DATA / "slatec_birthdays_default.txt").read_text())
    for row in rows:
        tail = min(row.p_value, 1 - row.p_value)
        expected = Assessment.FAILED if tail < 1e-6 else Assessment.WEAK if tail < 0.005 else Assessment.PASSED
        assert row.assessment is expected, row


@pytest.mark.parametrize("corrupt, fragment", [
    ("2|sts_serial|1|100000|10|0.99491324", "has 5 fields, expected 6"),  # a field lost
    ("2|sts_serial|1|100000|10|zero|PASSED", "unparseable"),
    ("2|sts_serial|1|100000|10|0.5|MAYBE", "unparseable"),
    ("2|sts_serial|1|100000|10|1.5|PASSED", "outside [0, 1]"),
    ("Segmentation fault", "unrecognised"),
])
def test_a_line_that_does_not_parse_is_an_error_naming_it(corrupt: str, fragment: str) -> None:
    lines = (DATA / "taus2_sts_serial_prefixed.txt").read_text().splitlines()
    lines[3] = corrupt
    with pytest.raises(DieharderOutputError, match="line 4") as caught:
        parse_prefixed_output("\n".join(lines))
    assert fragment in str(caught.value) and repr(corrupt)[1:-1][:20] in str(caught.value)


def test_default_table_rejects_unknown_lines_and_rows_before_the_header() -> None:
    text = (DATA / "slatec_birthdays_default.txt").read_text()
    with pytest.raises(DieharderOutputError, match="line 10"):
        parse_table(text + "something else entirely\n")
    with pytest.raises(DieharderOutputError, match="line 1"):
        parse_table("   diehard_birthdays|   0|       100|     100|0.5|  PASSED\n")
    assert parse_table("Preparing to run test 207.  ntuple = 0\n") == ()


def test_parse_test_list_capture() -> None:
    listed = parse_test_list((DATA / "list.txt").read_text())
    numbers = [test.number for test in listed]
    assert numbers == list(range(18)) + [100, 101, 102] + list(range(200, 210))
    by_number = {test.number: test for test in listed}
    assert by_number[0].title == "Diehard Birthdays Test" and by_number[14].reliability == "Do Not Use"
    with pytest.raises(DieharderOutputError, match="line 2"):
        parse_test_list("  -d 0  \t Diehard Birthdays Test\t Good\n-d x broken\n")


def test_stderr_notices() -> None:
    notices = parse_stderr("# The file file_input_raw was rewound 7 times\n# stdin_input_raw(): Error: EOF\nboom\n")
    assert notices.rewinds == 7 and notices.eof and notices.other == ("boom",)
    assert parse_stderr("").other == () and not parse_stderr("").eof


def test_consumption_table_covers_every_test_and_ntuple() -> None:
    expected = {(number, None) for number in range(18)} | {(n, None) for n in (100, 101, 102, 204, 205, 206, 207,
                                                                                208, 209)}
    expected |= {(number, value) for number, sweep in NTUPLE_SWEEPS.items() for value in sweep}
    assert set(CONSUMPTION) == expected
    assert all(entry.per_psample > 0 for entry in CONSUMPTION.values())


def test_sample_plan_counts_consecutive_and_shared_use() -> None:
    keys = [(0, None), (8, None)]
    need = [bytes_needed(*key) for key in keys]
    size = max(need) + 1
    assert [enough for _key, _need, enough in sample_plan(size, keys, share_sample=True)] == [True, True]
    assert [enough for _key, _need, enough in sample_plan(size, keys)] == [True, sum(need) <= size]
    assert need[0] < need[1]  # birthdays needs less than count-the-1s: a test that does not fit takes nothing
    assert [enough for _key, _need, enough in sample_plan(need[0], keys[::-1])] == [False, True]
    assert fitting_tests(min(need) - 1, keys, share_sample=True) == []
    assert fitting_tests(max(need), keys, share_sample=True) == keys
    with pytest.raises(ValueError, match="sample size"):
        sample_plan(-1, keys)


def test_missing_binary_is_not_tested_never_a_pass() -> None:
    missing = Dieharder("/nonexistent/bin/dieharder")
    run = missing.run(b"\0" * 1000, [0, "diehard_rank_32x32"])
    assert run.verdict == "NOT TESTED" and not run.passed
    assert run.skip_reason == "dieharder not installed (looked for /nonexistent/bin/dieharder)"
    assert run.results == ()
    assert json.loads(json.dumps(run.to_json()))["verdict"] == "NOT TESTED"
    with pytest.raises(ValueError, match="unknown dieharder test 'nonsense'"):
        missing.run(b"", ["nonsense"])  # ids are still checked against the built-in catalogue


# --------------------------------------------------------------------------- with the real binary

@needs_dieharder
def test_listing_matches_capture_and_names_are_known() -> None:
    live = parse_test_list(subprocess.run([DIEHARDER.path, "-l"], capture_output=True, text=True, check=True).stdout)
    assert live == parse_test_list((DATA / "list.txt").read_text())
    assert DIEHARDER.version is not None and DIEHARDER.version.startswith("3.31")


@needs_dieharder
def test_unknown_test_id_is_rejected_without_running(monkeypatch: pytest.MonkeyPatch) -> None:
    assert DIEHARDER.tests  # the listing (`dieharder -l`) is read first
    started = []
    monkeypatch.setattr(runner_module.subprocess, "Popen", lambda *a, **k: started.append(a))
    for bad in (999, "-1", "diehard_nothing"):
        with pytest.raises(ValueError, match=r"unknown dieharder test .*valid tests: 0 \(diehard_birthdays\)"):
            DIEHARDER.run(fair_bytes(1000, 0), [0, bad])
    with pytest.raises(ValueError, match="ntuple"):
        DIEHARDER.select(0, ntuple=3)
    assert started == []


@needs_dieharder
def test_plan_tells_which_tests_a_sample_can_feed() -> None:
    plan = DIEHARDER.plan(100_000_000, "all", share_sample=True)
    enough = {row["test"] for row in plan if row["enough"]}
    assert {"diehard_birthdays", "sts_monobit", "diehard_parking_lot"} <= enough
    assert "marsaglia_tsang_gcd" not in enough and "rgb_lagged_sum[ntuple=0]" not in enough
    consecutive = DIEHARDER.plan(100_000_000, [0, 8, 100, 101, 102])
    assert [row["enough"] for row in consecutive] == [True, True, True, False, False]  # 15 + 26 + 40 + 40 MB > 100
    skipped = DIEHARDER.plan(20_000_000, [2, 0])  # rank 32x32 (512 MB) does not fit and takes nothing
    assert [row["enough"] for row in skipped] == [False, True]


@needs_dieharder
def test_selection_by_number_name_title_and_all() -> None:
    picked = DIEHARDER.select([0, "2", "diehard_rank_6x8", "STS Monobit Test"])
    assert [inv.test.number for inv in picked] == [0, 2, 3, 100]
    sweep = DIEHARDER.select(200)
    assert [inv.ntuple for inv in sweep] == list(range(1, 13))
    everything = DIEHARDER.select("all")
    assert 14 not in {inv.test.number for inv in everything}  # diehard_sums is rated "Do Not Use"
    assert len(everything) == len(CONSUMPTION) - 1


#: dieharder's default table without its rate column: measuring the rate reads (and may
#: rewind) the file before the test, so the test would not start at the file's first byte.
DEFAULT_TABLE_WITHOUT_RATE = ("-D", "header", "-D", "show_rng", "-D", "line_header", "-D", "test_name", "-D", "ntuple",
                              "-D", "tsamples", "-D", "psamples", "-D", "pvalues", "-D", "assessment")


@needs_dieharder
def test_wrapper_reads_the_same_p_values_as_dieharder_on_a_file(tmp_path: Path) -> None:
    """dieharder -g 201 on a file (human table) and our stdin feed of the same bytes give identical rows."""
    sample = tmp_path / "sample.bin"
    sample.write_bytes(fair_bytes(12_000_000, seed=3))
    for test, psamples in ((0, 20), (100, 20), (15, 20)):  # diehard_runs prints two rows
        direct = subprocess.run([DIEHARDER.path, "-g", "201", "-f", str(sample), "-d", str(test), "-p", str(psamples),
                                 *DEFAULT_TABLE_WITHOUT_RATE], capture_output=True, text=True, check=True)
        assert direct.stderr == ""  # no rewind
        expected = parse_table(direct.stdout)
        run = DIEHARDER.run(sample, test, psamples=psamples, weak_reruns=0)
        got = run.results[0].attempts[0].rows
        assert got == expected and len(got) == (2 if test == 15 else 1)
        from_file = DIEHARDER.run(sample, test, psamples=psamples, weak_reruns=0, from_file=True)
        assert from_file.results[0].attempts[0].rows == got


@needs_dieharder
def test_default_output_with_rate_parses_to_the_same_layout(tmp_path: Path) -> None:
    """Plain `dieharder -g 201 -f file -d 15` output (rate column included) parses like our own run."""
    sample = tmp_path / "sample.bin"
    sample.write_bytes(fair_bytes(12_000_000, seed=4))
    direct = subprocess.run([DIEHARDER.path, "-g", "201", "-f", str(sample), "-d", "15", "-p", "20"],
                            capture_output=True, text=True, check=True)
    rows = parse_table(direct.stdout)
    ours = DIEHARDER.run(sample, 15, psamples=20, weak_reruns=0).results[0].attempts[0].rows
    assert [(r.test_name, r.ntuple, r.tsamples, r.psamples) for r in rows] == \
        [(r.test_name, r.ntuple, r.tsamples, r.psamples) for r in ours]
    for row in rows:
        assert f"{row.p_value:.8f}" in direct.stdout


@needs_dieharder
def test_fair_sample_passes_cheap_tests() -> None:
    """A PCG64 sample passes birthdays, count-the-1s (stream) and STS monobit.

    Under H0 a row FAILS with probability about 2e-6. WEAK is nominally 1 % per row (up
    to ~7 % for birthdays at small psamples), and failing needs four WEAKs in a row (first
    run and three re-tests on fresh data): below 1e-4 for the three tests together. The
    seed is fixed, so the outcome is deterministic (count-the-1s is WEAK first, then PASSED).
    """
    sample = fair_bytes(120_000_000, seed=2024)
    run = DIEHARDER.run(sample, [0, 8, 100], psamples=50)
    assert run.verdict == "PASS", run.to_json()
    assert [result.status for result in run.results] == [Status.PASSED] * 3
    offsets = [result.attempts[0].offset for result in run.results]
    assert offsets == sorted(offsets) and len(set(offsets)) == 3  # consecutive, non-overlapping parts
    for result in run.results:
        for attempt in result.attempts:  # the measured table is conservative
            assert attempt.bytes_read <= bytes_needed(result.number, result.ntuple, attempt.psamples)
            assert attempt.bytes_read >= 0.9 * CONSUMPTION[(result.number, None)].bytes_for(attempt.psamples)
    payload = json.loads(json.dumps(run.to_json()))
    assert payload["passed"] is True and payload["results"][0]["rows"][0]["assessment"] == "PASSED"


@needs_dieharder
def test_lcg_and_short_period_samples_fail() -> None:
    """Known-bad inputs FAIL: an LCG mod 2**32 (count-the-1s) and a 64 KiB block repeated (birthdays)."""
    lcg = DIEHARDER.run(lcg_bytes(2_000_000), 8, psamples=20)
    assert lcg.verdict == "FAIL" and lcg.results[0].status is Status.FAILED
    assert "FAILED" in lcg.results[0].reason and not lcg.passed
    periodic = fair_bytes(1 << 16, seed=9) * 80
    run = DIEHARDER.run(periodic, 0, psamples=20)
    assert run.results[0].status is Status.FAILED and run.results[0].rows[0].p_value < 1e-6


@needs_dieharder
def test_too_short_sample_is_exhausted_not_passed() -> None:
    run = DIEHARDER.run(fair_bytes(100_000, seed=1), [0, 100], psamples=20)
    assert run.verdict == "INCOMPLETE" and not run.passed
    first, second = run.results
    assert first.status is Status.NOT_APPLICABLE
    assert first.reason == "sample exhausted after 100000 bytes; test needs more"
    assert second.status is Status.NOT_APPLICABLE and second.reason == "sample exhausted after 0 bytes; test needs more"
    assert first.rows == () and first.bytes_read == 100_000


@needs_dieharder
def test_skip_insufficient_reports_up_front() -> None:
    run = DIEHARDER.run(fair_bytes(1_000_000, seed=1), [2], skip_insufficient=True)
    result = run.results[0]
    assert result.status is Status.NOT_APPLICABLE and result.attempts == ()
    assert result.reason.startswith("sample too short: 1000000 bytes left") and "not run" in result.reason


@needs_dieharder
def test_file_mode_reports_rewinds_as_a_sample_defect(tmp_path: Path) -> None:
    short = tmp_path / "short.bin"
    short.write_bytes(fair_bytes(1_000_000, seed=5))  # birthdays at psamples 20 needs about 3 MB
    run = DIEHARDER.run(short, 0, psamples=20, from_file=True)
    result = run.results[0]
    assert result.status is Status.NOT_APPLICABLE and run.verdict == "INCOMPLETE"
    assert result.reason.startswith("sample too short: dieharder rewound the file") and "reused data" in result.reason
    assert result.attempts[0].rows  # dieharder printed a (meaningless) row: kept as history only
    with pytest.raises(ValueError, match="file path"):
        DIEHARDER.run(b"\0" * 100, 0, from_file=True)


@needs_dieharder
def test_timeout_kills_and_reports_not_completed() -> None:
    run = DIEHARDER.run(RandomSource(seed=1), 2, timeout=0.5)  # rank 32x32 at 100 psamples takes ~20 s
    result = run.results[0]
    assert result.status is Status.NOT_COMPLETED and run.verdict == "INCOMPLETE"
    assert result.reason.startswith("timed out after 0.5 s; dieharder killed after reading")
    assert 0.4 < result.attempts[0].seconds < 5


@needs_dieharder
def test_weak_is_resolved_with_more_psamples_and_history_kept() -> None:
    sample = fair_bytes(60_000_000, seed=WEAK_SEED)
    run = DIEHARDER.run(sample, 0, psamples=20)
    result = run.results[0]
    first = result.attempts[0]
    assert first.rows[0].assessment is Assessment.WEAK, "precondition: this seed gives WEAK first"
    assert result.status in (Status.PASSED, Status.FAILED)
    assert len(result.attempts) >= 2
    assert [attempt.psamples for attempt in result.attempts] == [20 * 2**k for k in range(len(result.attempts))]
    assert result.attempts[1].offset == first.offset + first.bytes_read  # fresh data for the re-test
    assert result.rows[0].assessment is not Assessment.WEAK
    unresolved = DIEHARDER.run(sample, 0, psamples=20, weak_reruns=0).results[0]
    assert unresolved.status is Status.FAILED and unresolved.reason.startswith("WEAK not resolved after 0")


@needs_dieharder
def test_run_dieharder_convenience_and_output_flags() -> None:
    run = run_dieharder(fair_bytes(4_000_000, seed=11), "diehard_birthdays", psamples=20, timeout=60)
    command = run.results[0].attempts[0].command
    assert command[:5] == (DIEHARDER.path, "-g", "200", "-d", "0") and command[-len(OUTPUT_FLAGS):] == OUTPUT_FLAGS
    assert "rate" not in command  # measuring the rate would consume the sample before the test


def test_ci_has_the_real_dieharder() -> None:
    """CI installs the Debian package (Makefile system-deps), so there the real binary must run, not be skipped."""
    import os

    if not os.environ.get("CI"):
        pytest.skip("outside CI a machine without dieharder skips the tests that run it")
    assert DIEHARDER.available, DIEHARDER.missing_reason
