"""Strict parsers for dieharder 3.31 output: result tables, the test list and stderr notices.

Every line is either recognised or an error: :class:`DieharderOutputError` names the
line number and the line, so a changed dieharder version cannot be misread silently.

Two table forms are understood:

* the machine form we ask for with :data:`OUTPUT_FLAGS` (``-D prefix`` numbers each line:
  ``0|`` column header, ``2|`` result row; ``-D no_whitespace`` drops the padding and keeps
  long names whole; the ``rate`` flag is left out because measuring the rate consumes
  input before the test starts);
* dieharder's default human table (banners, ``rng_name`` block, padded columns), used
  to read captured runs and to prove that both forms give the same rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rng_tests.dieharder.errors import DieharderOutputError
from rng_tests.dieharder.results import Assessment, DieharderRow

#: Output fields requested from dieharder, in table order, with a column header line.
OUTPUT_FLAGS: tuple[str, ...] = (
    "-D", "prefix", "-D", "line_header", "-D", "no_whitespace",
    "-D", "test_name", "-D", "ntuple", "-D", "tsamples", "-D", "psamples", "-D", "pvalues", "-D", "assessment",
    "-c", "|",
)
TABLE_COLUMNS: tuple[str, ...] = ("test_name", "ntup", "tsamples", "psamples", "p-value", "Assessment")

_LIST_ROW = re.compile(r"^\s*-d\s+(\d+)\s*\t\s*(\S.*?)\s*\t\s*(\S.*?)\s*$")
_LIST_FIXED = (
    re.compile(r"^#=+#$"),
    re.compile(r"^#\s+dieharder version \S+ Copyright .*#$"),
    re.compile(r"^Installed dieharder tests:$"),
    re.compile(r"^\s*Test Number\s+Test Name\s+Test Reliability\s*$"),
    re.compile(r"^=+$"),
)
_VERSION = re.compile(r"dieharder version (\S+)")
_PREPARING = re.compile(r"^Preparing to run test \d+\.\s+ntuple = \d+$")  # printed by -a before tests 207-209

_EOF = "# stdin_input_raw(): Error: EOF"
_STDIN_ERROR = re.compile(r"^# stdin_input_raw\(\): Error: (.+)$")
_REWOUND = re.compile(r"^# The file (\S+) was rewound (\d+) times$")
_FILE_ERROR = re.compile(r"^# file_input(?:_raw)?\(\): Error.*$")


@dataclass(frozen=True)
class ListedTest:
    """One line of ``dieharder -l``: test number, title and dieharder's reliability rating."""

    number: int
    title: str
    reliability: str


@dataclass(frozen=True)
class StderrNotices:
    """What dieharder reported on stderr (it always exits 0, so this is where failures show)."""

    eof: bool = False  # stdin ran dry: "# stdin_input_raw(): Error: EOF"
    read_error: str | None = None  # another stdin read error
    rewinds: int = 0  # "# The file file_input_raw was rewound N times" (summed)
    file_error: str | None = None  # file could not be opened / was too small
    other: tuple[str, ...] = ()  # anything else, verbatim


def _error(what: str, number: int, line: str) -> DieharderOutputError:
    return DieharderOutputError(f"{what} at line {number}: {line!r}")


def _row(fields: list[str], number: int, line: str) -> DieharderRow:
    if len(fields) != len(TABLE_COLUMNS):
        raise _error(f"result row has {len(fields)} fields, expected {len(TABLE_COLUMNS)}", number, line)
    name, ntup, tsamples, psamples, p_value, assessment = (field.strip() for field in fields)
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise _error("bad test name in result row", number, line)
    try:
        return DieharderRow(test_name=name, ntuple=int(ntup), tsamples=int(tsamples), psamples=int(psamples),
                            p_value=float(p_value), assessment=Assessment(assessment))
    except ValueError as exc:
        raise _error(f"unparseable result row ({exc})", number, line) from None


def parse_prefixed_output(text: str) -> tuple[DieharderRow, ...]:
    """Rows of output produced with :data:`OUTPUT_FLAGS` (``-D prefix``, ``|``-separated)."""
    rows: list[DieharderRow] = []
    header_seen = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        kind, _, rest = line.partition("|")
        fields = rest.split("|")
        if kind == "0" and tuple(fields) == TABLE_COLUMNS:
            header_seen = True
        elif kind == "2" and header_seen:
            rows.append(_row(fields, number, line))
        else:
            raise _error("unrecognised dieharder output line", number, line)
    return tuple(rows)


def parse_table(text: str) -> tuple[DieharderRow, ...]:
    """Rows of dieharder's default human-readable output (``dieharder -d N`` with no -D).

    Recognised: ``#`` banner and comment lines, the ``rng_name`` header and its one value
    line, the ``test_name`` column header, result rows, and ``-a``'s "Preparing to run
    test" notes. Long names are printed truncated to the column width (e.g.
    ``diehard_count_1s_str``); they are returned as printed.
    """
    rows: list[DieharderRow] = []
    expect_rng_values = False
    in_table = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        fields = [field.strip() for field in line.split("|")]
        if not stripped or stripped.startswith("#") or _PREPARING.match(stripped):
            continue
        if expect_rng_values:
            expect_rng_values = False
            continue  # the generator's name / file name / rate / seed values
        if fields[0] == "rng_name":
            expect_rng_values = True
        elif tuple(fields) == TABLE_COLUMNS:
            in_table = True
        elif in_table:
            rows.append(_row(fields, number, line))
        else:
            raise _error("unrecognised dieharder output line", number, line)
    return tuple(rows)


def parse_test_list(text: str) -> tuple[ListedTest, ...]:
    """The tests ``dieharder -l`` lists: ``-d N <tab> title <tab> reliability``."""
    tests: list[ListedTest] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or any(pattern.match(line) for pattern in _LIST_FIXED):
            continue
        match = _LIST_ROW.match(line)
        if match is None:
            raise _error("unrecognised line in `dieharder -l` output", number, line)
        tests.append(ListedTest(int(match[1]), match[2], match[3]))
    if not tests:
        raise DieharderOutputError("`dieharder -l` listed no tests")
    return tuple(tests)


def parse_version(text: str) -> str | None:
    """The version in dieharder's banner (``3.31.1``), or None."""
    match = _VERSION.search(text)
    return match[1] if match else None


def parse_stderr(text: str) -> StderrNotices:
    """Classify dieharder's stderr lines; unknown lines are kept verbatim in ``other``."""
    eof = False
    read_error = file_error = None
    rewinds = 0
    other: list[str] = []
    for line in text.splitlines():
        line = line.rstrip()
        if not line:
            continue
        if line == _EOF:
            eof = True
        elif (match := _STDIN_ERROR.match(line)) is not None:
            read_error = match[1]
        elif (match := _REWOUND.match(line)) is not None:
            rewinds += int(match[2])
        elif _FILE_ERROR.match(line):
            file_error = line.removeprefix("# ")
        else:
            other.append(line)
    return StderrNotices(eof=eof, read_error=read_error, rewinds=rewinds, file_error=file_error, other=tuple(other))
