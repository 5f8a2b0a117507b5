"""The SP 800-22 battery: all fifteen tests on one sequence, parameter overrides, timings.

Tests run in the document's order (sections 2.1-2.15). Parameters default to the
document's and may be overridden per test, from Python (``{"linear_complexity": {"M": 1000}}``)
or from the command line (``--param linear_complexity.M=1000``).
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rng_tests.nist.bits import as_bit_array
from rng_tests.nist.result import DEFAULT_ALPHA, NistResult

# (test name, module under rng_tests.nist, SP 800-22 section), in the document's order.
TEST_ORDER: tuple[tuple[str, str, str], ...] = (
    ("frequency", "frequency", "2.1"),
    ("block_frequency", "frequency", "2.2"),
    ("runs", "runs", "2.3"),
    ("longest_run_of_ones", "runs", "2.4"),
    ("binary_matrix_rank", "matrix_rank", "2.5"),
    ("discrete_fourier_transform", "spectral", "2.6"),
    ("non_overlapping_template", "templates", "2.7"),
    ("overlapping_template", "templates", "2.8"),
    ("universal", "universal", "2.9"),
    ("linear_complexity", "linear_complexity", "2.10"),
    ("serial", "serial", "2.11"),
    ("approximate_entropy", "entropy", "2.12"),
    ("cumulative_sums", "cumulative_sums", "2.13"),
    ("random_excursions", "excursions", "2.14"),
    ("random_excursions_variant", "excursions", "2.15"),
)
TEST_NAMES: tuple[str, ...] = tuple(name for name, _, _ in TEST_ORDER)
SECTIONS: dict[str, str] = {name: section for name, _, section in TEST_ORDER}

TestFunction = Callable[..., NistResult]


class ParameterError(ValueError):
    """An unknown test, an unknown parameter or a malformed override."""


def registry() -> dict[str, tuple[TestFunction, dict[str, Any]]]:
    """Every test's function and default parameters, by name, in the document's order."""
    found: dict[str, tuple[TestFunction, dict[str, Any]]] = {}
    for name, module_name, _ in TEST_ORDER:
        module = importlib.import_module(f"rng_tests.nist.{module_name}")
        function, defaults = module.TESTS[name]
        found[name] = (function, dict(defaults))
    return found


def parse_parameter_overrides(items: Iterable[str]) -> dict[str, dict[str, int | float]]:
    """Parse ``test.PARAM=value`` strings (e.g. ``linear_complexity.M=1000``) into per-test overrides."""
    known = registry()
    overrides: dict[str, dict[str, int | float]] = {}
    for item in items:
        target, equals, raw_value = item.partition("=")
        test, dot, parameter = target.strip().partition(".")
        if not equals or not dot or not parameter or not raw_value.strip():
            raise ParameterError(f"--param {item!r}: expected TEST.PARAMETER=VALUE, e.g. linear_complexity.M=1000")
        if test not in known:
            raise ParameterError(f"--param {item!r}: no test {test!r} (tests: {', '.join(known)})")
        defaults = known[test][1]
        if parameter not in defaults:
            allowed = ", ".join(defaults) or "none"
            raise ParameterError(
                f"--param {item!r}: test {test!r} has no parameter {parameter!r} (parameters: {allowed})")
        try:
            value: int | float = int(raw_value) if isinstance(defaults[parameter], int) else float(raw_value)
        except ValueError as error:
            kind = "an integer" if isinstance(defaults[parameter], int) else "a number"
            raise ParameterError(f"--param {item!r}: value {raw_value!r} is not {kind}") from error
        overrides.setdefault(test, {})[parameter] = value
    return overrides


@dataclass(frozen=True)
class BatteryResult:
    """The fifteen tests on one sequence, with the seconds each took."""

    n: int
    results: tuple[NistResult, ...]
    seconds: Mapping[str, float] = field(default_factory=dict)

    def p_values(self) -> dict[str, float]:
        """Every p-value of the battery, labelled ``test`` or ``test/label``."""
        labelled: dict[str, float] = {}
        for result in self.results:
            for label, p_value in result.p_values.items():
                labelled[result.test if label == "p" else f"{result.test}/{label}"] = p_value
        return labelled

    def to_json(self, alpha: float = DEFAULT_ALPHA) -> dict[str, Any]:
        return {
            "n": self.n,
            "tests": [result.to_json(alpha) | {"section": SECTIONS.get(result.test),
                                                 "seconds": round(self.seconds.get(result.test, 0.0), 6)}
                      for result in self.results],
        }


def run_battery(
    bits: np.ndarray | bytes | str,
    *,
    tests: Sequence[str] | None = None,
    parameters: Mapping[str, Mapping[str, Any]] | None = None,
    on_test_done: Callable[[str], None] | None = None,
) -> BatteryResult:
    """Run the selected tests (all fifteen by default) on one bit sequence."""
    sequence = as_bit_array(bits)
    known = registry()
    selected = list(tests) if tests is not None else list(known)
    unknown = [name for name in selected if name not in known]
    if unknown:
        raise ParameterError(f"unknown test(s) {', '.join(unknown)} (tests: {', '.join(known)})")
    overrides = dict(parameters or {})
    stray = [name for name in overrides if name not in known]
    if stray:
        raise ParameterError(f"parameters given for unknown test(s) {', '.join(stray)}")
    results: list[NistResult] = []
    seconds: dict[str, float] = {}
    for name in selected:
        function, defaults = known[name]
        given = dict(overrides.get(name, {}))
        bad = [key for key in given if key not in defaults]
        if bad:
            raise ParameterError(f"test {name!r} has no parameter(s) {', '.join(bad)} "
                                 f"(parameters: {', '.join(defaults) or 'none'})")
        started = time.perf_counter()
        results.append(function(sequence, **(defaults | given)))
        seconds[name] = time.perf_counter() - started
        if on_test_done is not None:
            on_test_done(name)
    return BatteryResult(n=int(sequence.size), results=tuple(results), seconds=seconds)


def split_sequences(bits: np.ndarray, length: int, count: int | None = None) -> list[np.ndarray]:
    """Cut a long bit array into ``count`` consecutive sequences of ``length`` bits (as the reference's bitstreams)."""
    if length <= 0:
        raise ParameterError(f"sequence length {length} must be positive")
    available = bits.size // length
    wanted = available if count is None else count
    if wanted <= 0 or wanted > available:
        raise ParameterError(f"{bits.size} bits hold {available} sequence(s) of {length} bits; {wanted} requested")
    return [bits[index * length:(index + 1) * length] for index in range(wanted)]


def minimum_bits(test: str, parameters: Mapping[str, Any] | None = None) -> int | None:
    """The fewest bits with which ``test`` can apply at ``parameters`` (its defaults where not given).

    The document's own size floors (sections 2.x.7) and this bench's (the expected-count-of-5
    rule of the template tests). ``None`` when no length makes the test apply at these
    parameters (e.g. linear complexity with M outside 500..5000). For the random excursion
    tests the floor is 1,000 bits, the fewest that can hold their 500 cycles; a fair sequence
    needs far more (about 400,000 bits on average), so a longer one may still not apply.
    """
    from rng_tests.nist import excursions, frequency, matrix_rank, spectral, templates, universal
    from rng_tests.nist.cumulative_sums import MIN_BITS as CUSUM_MIN_BITS
    from rng_tests.nist.runs import MIN_RUNS_BITS

    known = registry()
    if test not in known:
        raise ParameterError(f"unknown test {test!r} (tests: {', '.join(known)})")
    given = known[test][1] | dict(parameters or {})
    if test in ("frequency", "runs", "cumulative_sums"):
        return {"frequency": frequency.MIN_BITS, "runs": MIN_RUNS_BITS, "cumulative_sums": CUSUM_MIN_BITS}[test]
    if test == "block_frequency":
        block = int(given["M"])
        return max(frequency.MIN_BITS, block) if block >= frequency.MIN_BLOCK_LENGTH else None
    if test == "longest_run_of_ones":
        return 128  # section 2.4.2: the smallest n of its table
    if test == "binary_matrix_rank":
        return matrix_rank.MIN_MATRICES * int(given["M"]) * int(given["Q"])
    if test == "discrete_fourier_transform":
        return spectral.MIN_BITS
    if test == "non_overlapping_template":
        m, blocks = int(given["m"]), int(given["N"])
        return blocks * (templates.MINIMUM_EXPECTED_COUNT * 2**m + m - 1)
    if test == "overlapping_template":
        block = int(given["M"])
        pi = templates.overlapping_probabilities(block, int(given["m"]), int(given["K"]))
        return (int(5.0 / min(pi)) + 1) * block
    if test == "universal":
        if given.get("L") is None:
            return min(universal.MINIMUM_N_FOR_L.values())
        length = int(given["L"])
        initial = int(given["Q"]) if given.get("Q") is not None else 10 * 2**length
        return (initial + 1) * length
    if test == "linear_complexity":
        block = int(given["M"])
        return 200 * block if 500 <= block <= 5000 else None
    if test == "serial":
        return 2 ** (int(given["m"]) + 3)  # m < floor(log2 n) - 2, section 2.11.7
    if test == "approximate_entropy":
        return 2 ** (int(given["m"]) + 6)  # m < floor(log2 n) - 5, section 2.12.7
    return 2 * excursions.MINIMUM_CYCLES  # random_excursions, random_excursions_variant: J >= 500 cycles
