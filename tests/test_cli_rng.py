"""``bench rng nist`` and ``bench rng outcomes``: verdicts, JSON, exit codes and input errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from bench.cli import app
from bench.games.shuffle_models import gsr_riffle
from rng_tests.nist.constants import binary_expansion_of_e

runner = CliRunner()


def _invoke(*args: str):
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


# -- nist: samples too short, bad parameters, bounded reading -----


def test_nist_refuses_a_sample_too_short_for_any_test_naming_the_minimum(tmp_path: Path) -> None:
    one = tmp_path / "one.bin"
    one.write_bytes(b"a")
    ten = tmp_path / "ten.bin"
    ten.write_bytes(np.random.default_rng(12).bytes(10))
    text = tmp_path / "bits24.txt"
    text.write_text("01" * 12)
    for args in ((str(one),), (str(ten),), (str(text), "--ascii")):
        result = _invoke("rng", "nist", *args, "--json")
        assert result.exit_code == 2, result.output
        assert "too few for any SP 800-22 test" in result.output and "n >= 100 bits" in result.output
        assert Path(args[0]).name in result.output and "PASS" not in result.output
    fair = tmp_path / "fair.bin"
    fair.write_bytes(np.random.default_rng(13).bytes(20_000))
    result = _invoke("rng", "nist", str(fair), "--length", "50")
    assert result.exit_code == 2 and "sequences of 50 bits" in result.output and "n >= 100" in result.output


def test_nist_refuses_a_named_test_the_sample_is_too_short_for(tmp_path: Path) -> None:
    fair = tmp_path / "fair.bin"
    fair.write_bytes(np.random.default_rng(14).bytes(20_000))
    result = _invoke("rng", "nist", str(fair), "--tests", "frequency,universal")
    assert result.exit_code == 2, result.output
    assert "universal (needs n >= 387,840)" in result.output and "160,000 bits" in result.output
    result = _invoke("rng", "nist", str(fair), "--tests", "linear_complexity", "--param", "linear_complexity.M=100")
    assert result.exit_code == 2 and "never applies" in result.output


def test_nist_refuses_alpha_outside_zero_one_and_a_zero_length(tmp_path: Path) -> None:
    fair = tmp_path / "fair.bin"
    fair.write_bytes(np.random.default_rng(15).bytes(2_000))
    for alpha in ("0", "1", "1.5", "-0.01"):
        result = _invoke("rng", "nist", str(fair), "--alpha", alpha)
        assert result.exit_code == 2 and "--alpha" in result.output, (alpha, result.output)
    for length in ("0", "-8"):
        result = _invoke("rng", "nist", str(fair), "--length", length)
        assert result.exit_code == 2 and f"--length {length}" in result.output
    result = _invoke("rng", "nist", str(fair), "--length", "1000", "--sequences", "0")
    assert result.exit_code == 2 and "--sequences 0" in result.output
    result = _invoke("rng", "nist", str(fair), "--sequences", "4")
    assert result.exit_code == 2 and "--sequences needs --length" in result.output


def _bench_in_limited_memory(*args: str, limit_bytes: int = 3 << 30,
                             timeout: float = 120.0) -> subprocess.CompletedProcess[str]:
    """``bench`` in a subprocess whose address space is capped, so a runaway read cannot eat the machine."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    return subprocess.run([sys.executable, "-c", "from bench.cli import app; app()", *args], capture_output=True,
                          text=True, timeout=timeout, preexec_fn=cap, check=False)


def test_nist_on_an_endless_device_reads_only_what_the_sequences_need() -> None:
    result = _bench_in_limited_memory("rng", "nist", "/dev/zero", "--length", "1000")
    assert result.returncode == 2, result.stderr
    assert "/dev/zero: not a regular file" in result.stderr and "--sequences" in result.stderr
    assert "Traceback" not in result.stderr
    result = _bench_in_limited_memory("rng", "nist", "/dev/zero")
    assert result.returncode == 2, result.stderr
    assert "/dev/zero: holds more bits than the" in result.stderr and "fit in memory" in result.stderr
    result = _bench_in_limited_memory("rng", "nist", "/dev/zero", "--length", "1000", "--sequences", "20",
                                      "--tests", "frequency", "--json")
    assert result.returncode == 1, result.stderr  # 20,000 zero bits read, and failed
    assert json.loads(result.stdout)["sequences"] == 20
    result = _bench_in_limited_memory("rng", "nist", "/dev/zero", "--length", str(10**12), "--sequences", "2")
    assert result.returncode == 2 and "a sequence of that many bits does not fit in memory" in result.stderr


def test_nist_sequences_are_streamed_one_at_a_time(tmp_path: Path) -> None:
    from rng_tests.nist.bits import BitInputError, iter_sequences

    data = np.random.default_rng(18).bytes(3_000)
    path = tmp_path / "fair.bin"
    path.write_bytes(data)
    expected = np.unpackbits(np.frombuffer(data, dtype=np.uint8))
    pieces = [piece.copy() for piece in iter_sequences(path, 1_000)]
    assert len(pieces) == 24 and all((piece == expected[i * 1_000:(i + 1) * 1_000]).all()
                                     for i, piece in enumerate(pieces))
    assert len(list(iter_sequences(path, 1_000, 5))) == 5
    import pytest

    with pytest.raises(BitInputError, match="24,000 bits hold 24 sequence"):
        list(iter_sequences(path, 1_000, 25))
    text = tmp_path / "bits.txt"
    text.write_text("01\n" * 700 + "0x")
    with pytest.raises(BitInputError, match="bits.txt: byte 2100 is b'0'|bits.txt: byte 2101 is b'x'"):
        list(iter_sequences(text, 100, ascii_bits=True))
    result = _invoke("rng", "nist", str(path), "--length", "1000", "--sequences", "25", "--tests", "frequency")
    assert result.exit_code == 2 and "24 sequence(s) of 1,000 bits; 25 requested" in result.output


def test_read_bits_reads_a_pipe_in_bounded_blocks_and_refuses_what_does_not_fit(tmp_path: Path) -> None:
    import os
    import threading

    import pytest

    from rng_tests.nist.bits import READ_BLOCK_BYTES, BitInputError, read_bits

    fifo = tmp_path / "bits.fifo"
    os.mkfifo(fifo)
    written: list[int] = []

    def writer() -> None:
        try:
            with fifo.open("wb") as stream:
                for _ in range(64):  # 64 MiB offered, far more than is read
                    stream.write(b"\xff" * READ_BLOCK_BYTES)
                    written.append(READ_BLOCK_BYTES)
        except BrokenPipeError:
            pass

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    with pytest.raises(BitInputError, match="bits.fifo: holds more bits than the 80,000 that fit in memory"):
        read_bits(fifo, memory_limit_bits=80_000)
    thread.join(timeout=30)
    assert sum(written) < 8 * READ_BLOCK_BYTES
    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    bits = read_bits(fifo, max_bits=12_345, memory_limit_bits=80_000)
    thread.join(timeout=30)
    assert bits.size == 12_345 and bits.all()


# -- outcomes: samples too small, "00" on a French wheel ------------


def test_outcomes_refuse_a_sample_below_the_familys_minimum_naming_it(tmp_path: Path) -> None:
    one = tmp_path / "one.txt"
    one.write_text("3 4\n")
    result = _invoke("rng", "outcomes", str(one), "--kind", "dice-2")
    assert result.exit_code == 2, result.output
    assert "one.txt: 1 throws, below the minimum of 30 throws for dice-2" in result.output
    rng = np.random.default_rng(16)
    dice = tmp_path / "dice.txt"
    dice.write_text("\n".join(" ".join(map(str, row)) for row in rng.integers(1, 7, (29, 3))))
    result = _invoke("rng", "outcomes", str(dice), "--kind", "dice-3")
    assert result.exit_code == 2 and "minimum of 30 throws" in result.output
    spins = tmp_path / "spins.txt"
    spins.write_text("\n".join(map(str, rng.integers(0, 37, 184))))
    result = _invoke("rng", "outcomes", str(spins), "--kind", "roulette-french")
    assert result.exit_code == 2 and "184 spins, below the minimum of 185 spins" in result.output
    spins.write_text("\n".join(map(str, rng.integers(0, 37, 185))))
    assert _invoke("rng", "outcomes", str(spins), "--kind", "roulette-french").exit_code in (0, 1)
    shuffles = tmp_path / "shuffles.txt"
    shuffles.write_text(" ".join(map(str, range(52))) + "\n")
    result = _invoke("rng", "outcomes", str(shuffles), "--kind", "cards-52x1")
    assert result.exit_code == 2 and "1 shuffles, below the minimum of 52 shuffles" in result.output


def test_outcomes_refuse_double_zero_and_leading_zeros_on_a_french_wheel(tmp_path: Path) -> None:
    rng = np.random.default_rng(17)
    path = tmp_path / "french.txt"
    numbers = list(map(str, rng.integers(0, 37, 400)))
    path.write_text("\n".join(["5", "00", *numbers]))
    result = _invoke("rng", "outcomes", str(path), "--kind", "roulette-french")
    assert result.exit_code == 2, result.output
    assert "french.txt:2: '00' is the double zero" in result.output
    path.write_text("\n".join([*numbers, "07"]))
    result = _invoke("rng", "outcomes", str(path), "--kind", "roulette-french")
    assert result.exit_code == 2 and "french.txt:401: '07' is not a pocket number" in result.output
    path.write_text("\n".join(["00", *numbers]))
    assert _invoke("rng", "outcomes", str(path), "--kind", "roulette-american").exit_code in (0, 1)
