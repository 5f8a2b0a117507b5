"""``bench rng nist`` and ``bench rng outcomes``: verdicts, JSON, exit codes and input errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from bench.cli import app
from bench.games.shuffle_models import gsr_riffle
from rng_tests.nist.constants import binary_expansion_of_e

runner = CliRunner()


def _invoke(*args: str):  # noqa: ANN202 - click Result
    return runner.invoke(app, list(args), catch_exceptions=False)


# -- nist ----------------------------------------------------------------------


def test_nist_on_e_as_ascii_gives_the_documents_frequency_p_value(tmp_path: Path) -> None:
    path = tmp_path / "e.txt"
    path.write_text("".join(map(str, binary_expansion_of_e(1_000_000))))
    result = _invoke("rng", "nist", str(path), "--ascii", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    tests = {test["test"]: test for test in document["tests"]}
    assert len(tests) == 15 and document["bits"] == 1_000_000
    assert round(tests["frequency"]["p_values"]["p"], 6) == 0.953749  # SP 800-22 appendix B, data.e
    assert document["verdict"] == "PASS"


def test_nist_raw_bytes_msb_first_and_a_parameter_override(tmp_path: Path) -> None:
    path = tmp_path / "fair.bin"
    path.write_bytes(np.random.default_rng(3).bytes(125_000))
    result = _invoke("rng", "nist", str(path), "--json", "--tests", "frequency,linear_complexity",
                     "--param", "linear_complexity.M=1000")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["bits"] == 1_000_000
    assert document["tests"][1]["parameters"]["M"] == 1000


def test_nist_fails_biased_bits_with_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "biased.bin"
    bits = (np.random.default_rng(4).random(200_000) < 0.52).astype(np.uint8)
    path.write_bytes(np.packbits(bits).tobytes())
    result = _invoke("rng", "nist", str(path), "--tests", "frequency,runs,cumulative_sums")
    assert result.exit_code == 1
    assert "FAIL" in result.output


def test_nist_second_level_over_sequences(tmp_path: Path) -> None:
    path = tmp_path / "fair.bin"
    path.write_bytes(np.random.default_rng(5).bytes(60 * 2_500))
    result = _invoke("rng", "nist", str(path), "--json", "--length", "20000", "--tests", "frequency,runs")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["sequences"] == 60 and document["passed"] is True


def test_nist_input_errors_name_the_file_and_exit_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    result = _invoke("rng", "nist", str(empty))
    assert result.exit_code == 2 and "empty.bin" in result.output and "empty" in result.output
    text = tmp_path / "bits.txt"
    text.write_text("0101\n01x1\n")
    result = _invoke("rng", "nist", str(text), "--ascii")
    assert result.exit_code == 2 and "bits.txt: byte 7 is b'x'" in result.output
    result = _invoke("rng", "nist", str(text.with_name("missing.bin")))
    assert result.exit_code == 2 and "missing.bin: cannot read" in result.output
    fair = tmp_path / "fair.bin"
    fair.write_bytes(b"\x55" * 1000)
    result = _invoke("rng", "nist", str(fair), "--param", "serial.q=3")
    assert result.exit_code == 2 and "has no parameter 'q'" in result.output


def test_nist_too_few_bits_are_reported_not_applicable(tmp_path: Path) -> None:
    path = tmp_path / "short.bin"
    path.write_bytes(np.random.default_rng(6).bytes(200))
    result = _invoke("rng", "nist", str(path), "--json")
    document = json.loads(result.output)
    universal = next(test for test in document["tests"] if test["test"] == "universal")
    assert universal["passed"] is None and universal["not_applicable"]


# -- outcomes ------------------------------------------------------------------


def test_outcomes_roulette_fair_passes_and_a_sector_bias_fails(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    fair = tmp_path / "fair.txt"
    fair.write_text("# winning numbers\n" + "\n".join(map(str, rng.integers(0, 37, 3700))) + "\n")
    result = _invoke("rng", "outcomes", str(fair), "--kind", "roulette-french", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["verdict"] == "PASS" and document["outcomes"] == 3700
    from bench.games.roulette_layout import FRENCH_ORDER
    from rng_tests.fairness import sector_alternative

    positions = rng.choice(37, size=3700, p=sector_alternative(37, 9, 1.5))
    biased = tmp_path / "biased.txt"
    biased.write_text("\n".join(str(FRENCH_ORDER[position]) for position in positions))
    result = _invoke("rng", "outcomes", str(biased), "--kind", "roulette-french", "--json")
    assert result.exit_code == 1
    rejected = {test["name"] for test in json.loads(result.output)["tests"] if test["rejected"]}
    assert "sectors" in rejected


def test_outcomes_shuffles_three_riffles_fail_seven_pass_at_200_shuffles(tmp_path: Path) -> None:
    # 200 shuffles of one deck; benchmarks/riffle_detection.py: 3 riffles are rejected with power ~1,
    # 7 riffles accepted with probability ~1 - α under the "at least 7 riffles" criterion (seed fixed).
    rng = np.random.default_rng(8)
    for riffles, expected in ((3, 1), (7, 0)):
        path = tmp_path / f"riffle{riffles}.txt"
        decks = gsr_riffle(52, rng, riffles=riffles, shuffles=200, method="inverse")
        path.write_text("\n".join(" ".join(map(str, deck)) for deck in decks))
        result = _invoke("rng", "outcomes", str(path), "--kind", "cards-52x1")
        assert result.exit_code == expected, (riffles, result.output)


def test_outcomes_dice_and_input_errors(tmp_path: Path) -> None:
    dice = tmp_path / "dice.txt"
    dice.write_text("\n".join(" ".join(map(str, row)) for row in np.random.default_rng(9).integers(1, 7, (1500, 2))))
    assert _invoke("rng", "outcomes", str(dice), "--kind", "dice-2").exit_code == 0
    bad = tmp_path / "bad.txt"
    bad.write_text("3 4\n2 7\n")
    result = _invoke("rng", "outcomes", str(bad), "--kind", "dice-2")
    assert result.exit_code == 2 and "bad.txt:2: face 7 outside 1-6" in result.output
    bad.write_text("12\n37\n")
    result = _invoke("rng", "outcomes", str(bad), "--kind", "roulette-french")
    assert result.exit_code == 2 and "bad.txt:2: '37' is not a pocket number (0-36)" in result.output
    result = _invoke("rng", "outcomes", str(bad), "--kind", "dice-7")
    assert result.exit_code == 2 and "unknown kind 'dice-7'" in result.output
    bad.write_text("")
    result = _invoke("rng", "outcomes", str(bad), "--kind", "dice-2")
    assert result.exit_code == 2 and "no outcomes" in result.output


# -- dieharder -------------------------------------------------------------------


def test_dieharder_passes_fair_bytes_and_refuses_a_too_short_file(tmp_path: Path) -> None:
    import pytest

    from rng_tests.dieharder.runner import Dieharder

    if not Dieharder().available:
        pytest.skip(Dieharder().missing_reason)
    path = tmp_path / "fair.bin"
    path.write_bytes(np.random.default_rng(10).bytes(5_000_000))
    result = _invoke("rng", "dieharder", str(path), "--tests", "diehard_3dsphere", "--json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["verdict"] == "PASS" and document["results"][0]["status"] == "PASSED"
    result = _invoke("rng", "dieharder", str(path), "--tests", "diehard_rank_32x32")
    assert result.exit_code == 2 and "too few for diehard_rank_32x32" in result.output
    result = _invoke("rng", "dieharder", str(path), "--tests", "no_such_test")
    assert result.exit_code == 2 and "no_such_test" in result.output


def test_dieharder_fails_a_repeating_sample(tmp_path: Path) -> None:
    import pytest

    from rng_tests.dieharder.runner import Dieharder

    if not Dieharder().available:
        pytest.skip(Dieharder().missing_reason)
    path = tmp_path / "repeating.bin"
    path.write_bytes(np.random.default_rng(11).bytes(4096) * 1300)  # a 4 KiB block over and over
    result = _invoke("rng", "dieharder", str(path), "--tests", "diehard_3dsphere")
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.output
