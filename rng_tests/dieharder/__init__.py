"""dieharder 3.31 through a subprocess: run selected tests on a sample, parse, judge.

See :mod:`rng_tests.dieharder.runner` for how samples are fed and results judged,
:mod:`rng_tests.dieharder.catalogue` for the tests and the input each one needs.
"""

from rng_tests.dieharder.catalogue import (
    CONSUMPTION,
    NTUPLE_SWEEPS,
    SHORT_NAMES,
    DieharderTest,
    Invocation,
    bytes_needed,
    fitting_tests,
    sample_plan,
)
from rng_tests.dieharder.errors import DieharderError, DieharderOutputError
from rng_tests.dieharder.feed import BufferSource, FileSource, RandomSource
from rng_tests.dieharder.parser import (
    parse_prefixed_output,
    parse_stderr,
    parse_table,
    parse_test_list,
)
from rng_tests.dieharder.results import (
    Assessment,
    Attempt,
    DieharderRow,
    DieharderRun,
    DieharderTestResult,
    Status,
)
from rng_tests.dieharder.runner import Dieharder, locate, run_dieharder

__all__ = [
    "CONSUMPTION",
    "NTUPLE_SWEEPS",
    "SHORT_NAMES",
    "Assessment",
    "Attempt",
    "BufferSource",
    "Dieharder",
    "DieharderError",
    "DieharderOutputError",
    "DieharderRow",
    "DieharderRun",
    "DieharderTest",
    "DieharderTestResult",
    "FileSource",
    "Invocation",
    "RandomSource",
    "Status",
    "bytes_needed",
    "fitting_tests",
    "locate",
    "parse_prefixed_output",
    "parse_stderr",
    "parse_table",
    "parse_test_list",
    "run_dieharder",
    "sample_plan",
]
