"""Certification suite: a game's random number generator, through its RNG test interface.

Equipment that exposes its RNG (a slot machine's or an online game system's test
interface, RG protocol) hands the bench its raw output and the game outcomes it maps that
output to. The bench tests both:

* the raw bits with NIST SP 800-22 (all fifteen tests on ``nist_sequences`` sequences of
  ``nist_sequence_bits`` bits, second-level analysis of section 4.2) and with dieharder;
* the game outcomes: uniformity over the game's range, the mapping's modulo bias, and the
  integer-stream tests labs apply (runs, gap, poker, coupon collector, serial correlation).

Why these clauses: the 80 % return of p217-2007/maquinas-automaticas/2 is computed from the
pay table on the premise that outcomes are drawn with the probabilities the table assumes;
an RNG or an outcome mapping that is not uniform and independent breaks that premise. Each
family of tests is judged with Holm's procedure at the profile's α, so a fair generator fails
a family with probability at most α; sample sizes and α are recorded with every measurement.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from fixtures.no_reads import NoReads
from fixtures.session import BenchSession, ObservationStream, collect_observations
from rng_tests.dieharder.runner import Dieharder
from rng_tests.fairness.goodness_of_fit import pearson_chi_square
from rng_tests.fairness.integer_streams import integer_stream_tests
from rng_tests.fairness.multiple_testing import adjust
from rng_tests.fairness.scaling import modulo_bias_test
from rng_tests.nist.battery import SECTIONS, TEST_NAMES, run_battery, split_sequences
from rng_tests.nist.bits import bits_from_bytes
from rng_tests.nist.second_level import second_level
from rng_tests.result import TestResult

RAW_STREAM = "rng/raw-blocks"
RAW_NODEID = "suites/test_rng.py::raw_sample"
RAW_NO_READS = "rng/raw-no-reads"
"""Raw blocks the driver could not read within its retry budget (fixtures.no_reads: at most 5 % of the planned
blocks, at least 1); a block lost is skipped, never data, and the next block is the generator's next output."""
RAW_BLOCK_BYTES = 4096
RNG_CLAUSES = ("p217-2007/maquinas-automaticas/2",)

pytestmark = pytest.mark.equipment("rng")


def _raw_bytes_needed(options: Any) -> int:
    nist_bytes = -(-options.nist_sequences * options.nist_sequence_bits // 8)
    return max(nist_bytes, options.dieharder_bytes)


@pytest.fixture(scope="module")
def raw_sample(bench: BenchSession, rng_source: Any) -> bytes:
    """The generator's raw output, block by block, each committed to the journal as it is read."""
    options = rng_source.equipment.options
    blocks = -(-_raw_bytes_needed(options) // RAW_BLOCK_BYTES)
    driver = rng_source.driver

    no_reads = NoReads(bench, RAW_NO_READS, RAW_NODEID, blocks, rng_source.name, "blocks")

    def one_block() -> tuple[dict[str, Any], str, str | None]:
        block = no_reads.taking(lambda: driver.raw_block(RAW_BLOCK_BYTES))()
        return {"block": block.block, "hex": block.data.hex()}, rng_source.name, None

    stream: ObservationStream = collect_observations(bench, RAW_STREAM, RAW_NODEID, blocks, one_block,
                                                     "RNG 4 KiB blocks")
    return b"".join(bytes.fromhex(value["hex"]) for value in stream.values())


@pytest.mark.clause(*RNG_CLAUSES)
def test_nist_sp800_22(rng_source: Any, raw_sample: bytes, bench: BenchSession, measure: Any, attach: Any) -> None:
    """NIST SP 800-22 Rev. 1a, all fifteen tests, second-level analysis over the sequences (section 4.2)."""
    options = rng_source.equipment.options
    bits = bits_from_bytes(raw_sample)
    sequences = split_sequences(bits, options.nist_sequence_bits, options.nist_sequences)
    progress = bench.stream_progress("NIST sequences", len(sequences), 0)
    batteries = []
    for sequence in sequences:
        batteries.append(run_battery(sequence))
        progress.advance()
    report = second_level(batteries, alpha=0.01, family_alpha=options.alpha)
    attach(json.dumps(report.to_json(), indent=1).encode(), "sp800-22-second-level.json", "application/json", ".json")
    rejected_by_test = {name: [entry for entry in report.rejected if entry.split("/")[0].split(":")[0] == name]
                        for name in TEST_NAMES}
    for name in TEST_NAMES:
        labels = [label for label in report.labels if label.label.split("/")[0] == name]
        not_applicable = report.not_applicable.get(name, 0)
        details: dict[str, Any] = {
            "section": SECTIONS[name],
            "sequences_not_applicable": not_applicable,
            "p_value_labels": len(labels),
            "lowest_proportion_passing": min((label.proportion for label in labels), default=None),
            "nist_interval": list(labels[0].interval) if labels else None,
            "lowest_uniformity_p_value": min((label.uniformity_p_value for label in labels
                                              if label.uniformity_p_value is not None), default=None),
            "outside_nist_criteria": [flag for flag in report.nist_flags if flag.split("/")[0] == name],
            "rejected": rejected_by_test[name],
        }
        measure(
            f"SP 800-22 {SECTIONS[name]} {name}: hypotheses rejected",
            len(rejected_by_test[name]),
            unit="hypotheses",
            high=0,
            method=("per p-value label over the sequences: exact binomial tail of sequences failing at 0.01 and "
                    f"uniformity chi-square (10 bins); Holm over the battery's family of {2 * len(report.labels)} "
                    f"hypotheses at {options.alpha}"),
            sample_size=len(sequences) - not_applicable,
            details=details | {"bits_per_sequence": options.nist_sequence_bits,
                               "no_read_blocks": bench.stream(RAW_NO_READS, RAW_NODEID).count},
        )
    usable = [name for name in TEST_NAMES if report.not_applicable.get(name, 0) < len(sequences)]
    measure("SP 800-22 tests applicable to the sample", len(usable), unit="tests", low=len(TEST_NAMES) - 2,
            method="a test is usable when at least one sequence meets its preconditions (random excursions need "
                   "500 cycles, so some sequences may not qualify)", sample_size=len(sequences),
            details={"not_applicable_by_test": report.not_applicable})



@pytest.mark.clause(*RNG_CLAUSES)
def test_dieharder(rng_source: Any, raw_sample: bytes, measure: Any, attach: Any) -> None:
    """dieharder's tests named by the profile, each streamed the first ``dieharder_bytes`` of raw output."""
    options = rng_source.equipment.options
    if not options.dieharder_tests:
        pytest.skip("the profile names no dieharder tests (options.dieharder_tests = [])")
    tool = Dieharder()
    if not tool.available:
        pytest.skip(tool.missing_reason)
    sample = raw_sample[: options.dieharder_bytes]
    short = [entry for entry in tool.plan(len(sample), options.dieharder_tests, share_sample=True)
             if not entry["enough"]]
    if short:
        raise ValueError(f"profile: options.dieharder_bytes = {len(sample):,} is too small for "
                         + ", ".join(f"{entry['test']} ({entry['bytes_needed']:,} bytes)" for entry in short))
    run = tool.run(sample, options.dieharder_tests, share_sample=True)
    attach(json.dumps(run.to_json(), indent=1).encode(), "dieharder.json", "application/json", ".json")
    for result in run.results:
        rows = result.rows
        measure(
            f"dieharder {result.label}",
            str(result.status),
            expected="PASSED",
            method=(f"dieharder {run.version} -g 200 (raw bytes on standard input, no rewind); PASSED/WEAK/FAILED "
                    "by dieharder's thresholds (FAILED below 1e-6), WEAK re-tested on fresh data with doubled "
                    "psamples up to 3 times"),
            sample_size=result.bytes_read,
            details={"p_values": [row.p_value for row in rows], "psamples": [row.psamples for row in rows],
                     "reason": result.reason, "attempts": len(result.attempts), "sample_bytes": len(sample)},
        )


DRAW_STREAM = "rng/draw-blocks"
DRAW_NODEID = "suites/test_rng.py::draws"
DRAW_NO_READS = "rng/draw-no-reads"
"""Draw blocks the driver could not read within its retry budget (at most 5 % of the planned blocks, at least 1)."""
DRAW_BLOCK_COUNT = 256
MODULO_RAW_WIDTHS = (8, 16)  # raw widths whose modulo bias is detectable at lab sample sizes


@pytest.fixture(scope="module")
def draws(bench: BenchSession, rng_source: Any) -> np.ndarray:
    """Game outcomes in 0..draw_range-1 through the game's own mapping, committed block by block."""
    options = rng_source.equipment.options
    if options.draws == 0:
        pytest.skip("the profile asks for no game draws (options.draws = 0)")
    blocks = -(-options.draws // DRAW_BLOCK_COUNT)
    driver = rng_source.driver

    no_reads = NoReads(bench, DRAW_NO_READS, DRAW_NODEID, blocks, rng_source.name, "blocks")

    def one_block() -> tuple[dict[str, Any], str, str | None]:
        block = no_reads.taking(lambda: driver.draw_block(options.draw_range, DRAW_BLOCK_COUNT))()
        return {"block": block.block, "values": list(block.values)}, rng_source.name, None

    stream = collect_observations(bench, DRAW_STREAM, DRAW_NODEID, blocks, one_block, "RNG draw blocks")
    return np.array([value for entry in stream.values() for value in entry["values"]], dtype=np.int64)[: options.draws]


def outcome_family(outcomes: np.ndarray, outcome_range: int, seed: int = 0) -> dict[str, TestResult]:
    """The tests of a stream of game outcomes: uniformity, modulo bias, and the integer-stream tests."""
    counts = np.bincount(outcomes, minlength=outcome_range)
    family: dict[str, TestResult] = {
        "uniformity": pearson_chi_square(counts, test="outcome uniformity",
                                         null_hypothesis=f"every outcome 0..{outcome_range - 1} has probability "
                                                         f"1/{outcome_range}", seed=seed),
    }
    for bits in MODULO_RAW_WIDTHS:
        family[f"modulo bias ({bits}-bit raw)"] = modulo_bias_test(outcomes, bits, outcome_range)
    family |= integer_stream_tests(outcomes, outcome_range)
    return family


@pytest.mark.clause(*RNG_CLAUSES)
def test_game_outcomes(rng_source: Any, draws: np.ndarray, bench: BenchSession, measure: Any) -> None:
    """The game's outcomes: uniform over the range, no modulo bias, independent (Holm over the family)."""
    options = rng_source.equipment.options
    family = outcome_family(draws, options.draw_range)
    adjustment = adjust(family, options.alpha, "holm")
    not_applicable = {member.name: member.not_applicable for member in adjustment.tests if member.not_applicable}
    for member in adjustment.tests:
        result = family[member.name]
        if member.not_applicable is not None:
            continue  # listed with every measurement below, with its reason
        measure(
            f"outcomes: {member.name}",
            round(float(result.statistic), 6),
            p_value=float(member.adjusted_p_value),
            alpha=options.alpha,
            method=f"{result.method}; H0: {result.null_hypothesis}; p-value {adjustment.description}",
            sample_size=result.sample_size,
            details={"raw_p_value": result.p_value, "degrees_of_freedom": result.degrees_of_freedom,
                     "outcome_range": options.draw_range, "not_applicable_in_family": not_applicable,
                     "no_read_blocks": bench.stream(DRAW_NO_READS, DRAW_NODEID).count}
            | dict(result.details),
        )
