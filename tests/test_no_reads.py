"""Counted no-reads (fixtures/no_reads.py): a game the driver could not confirm is journalled with its reason
and skipped; beyond the stated bound (5 % of the planned games, at least 1) the test stops with an error naming
the bound, so its clauses cannot PASS."""

from __future__ import annotations

from typing import Any

import pytest

from drivers.serial_link import DeviceError
from fixtures.no_reads import NO_READ_SHARE, NoReadBoundExceeded, NoReads, no_read_bound


class _Stream:
    def __init__(self) -> None:
        self.rows: list[Any] = []

    @property
    def count(self) -> int:
        return len(self.rows)

    def values(self) -> list[Any]:
        return list(self.rows)

    def record(self, value: Any, *, source: str, raw_ref: str | None = None) -> int:
        self.rows.append(value)
        return len(self.rows)


class _Bench:
    def __init__(self) -> None:
        self.streams: dict[str, _Stream] = {}

    def stream(self, name: str, nodeid: str) -> _Stream:
        return self.streams.setdefault(name, _Stream())


def _error(what: str = "start a game") -> DeviceError:
    return DeviceError("/dev/pts/9", what, ["no reply within 0.5 s"] * 4)


def test_the_bound_is_five_percent_of_the_planned_games_and_at_least_one() -> None:
    assert NO_READ_SHARE == 0.05
    assert [no_read_bound(n) for n in (1, 19, 20, 100, 370, 3700)] == [1, 1, 1, 5, 18, 185]


def test_no_reads_are_journalled_with_their_reason_and_the_value_is_taken_again() -> None:
    bench = _Bench()
    no_reads = NoReads(bench, "wheel/no-reads", "node", 100, "wheel")  # type: ignore[arg-type]
    replies = iter([_error(), _error("result of game 7"), 17])

    def take_one() -> int:
        reply = next(replies)
        if isinstance(reply, DeviceError):
            raise reply
        return reply

    assert no_reads.taking(take_one)() == 17
    assert no_reads.count == 2
    assert [row["what"] for row in bench.streams["wheel/no-reads"].values()] == ["start a game", "result of game 7"]
    assert no_reads.details() == {"no_read_games": 2, "no_read_bound": 5,
                                  "no_reads_by_request": {"result of game 7": 1, "start a game": 1}}


def test_beyond_the_bound_the_test_stops_naming_the_bound() -> None:
    no_reads = NoReads(_Bench(), "wheel/no-reads", "node", 40, "wheel")  # type: ignore[arg-type]
    no_reads.record(_error()), no_reads.record(_error())  # 2 = 5 % of 40: still within
    with pytest.raises(NoReadBoundExceeded, match=r"3 games could not be read from wheel .* the bound is 2 no-reads "
                                                  r"\(5% of the 40 planned games, at least 1\)"):
        no_reads.record(_error())
