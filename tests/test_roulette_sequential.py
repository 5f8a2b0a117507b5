"""The roulette suite's sequential sector test, in process: it stops the wheel when it decides, and resumes.

Error rates behind the seeded assertions (figures of ``benchmarks/sequential_vs_fixed.py --suite-figures``,
α = 0.01, β = 0.1, at most 3,700 spins): a fair wheel is rejected with probability <= 0.01 and reaches
3,700 spins undecided with probability ~0.02; a wheel favouring 9 adjacent pockets x1.3 is accepted
as fair with probability ~0.01. Each seeded stream below could thus fail its assertion with
probability of a few percent had its seed been drawn at random; the seeds are fixed, so the tests are
deterministic and change outcome only when the code does.
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from bench.profiles import load_profile
from bench.profiles.model import RouletteOptions
from fixtures.progress import StreamProgress
from fixtures.session import ObservationStream
from rng_tests.alternatives import SectorAlternative
from rng_tests.sequential import Decision, roulette_sector_family, sequential_path
from suites.test_roulette import (
    OPERATING_CHARACTERISTICS,
    _record_sequential,
    collect_until_decided,
    replay,
    sector_test,
    sector_test_characteristics,
)

OPTIONS = RouletteOptions(sequential=True, beta=0.1, spins=3700, alpha=0.01)


def fair_numbers(seed: int, n: int = 3700) -> list[int]:
    return np.random.default_rng(seed).integers(0, 37, n).tolist()


def biased_numbers(seed: int, n: int = 3700) -> list[int]:
    """A wheel favouring the 9 pockets from wheel position 10 by 30 % (the sim-biased-wheel fault, rotated)."""
    return SectorAlternative(9, 1.3, start=10).sample(np.random.default_rng(seed), n).tolist()


class Interrupted(Exception):
    """The bench was killed."""


class FakeBench:
    """The session's streams without a journal: what is recorded survives a 'kill' (a new FakeBench on the same
    rows), as the journal's committed observations do."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.journal = SimpleNamespace(append=lambda *args, **kwargs: None, record=lambda evidence: None)
        self.run_id = "test"

    def stream(self, name: str, nodeid: str) -> ObservationStream:
        return ObservationStream(self, name, nodeid, self.rows)  # type: ignore[arg-type]

    def stream_progress(self, description: str, total: int, completed: int) -> StreamProgress:
        return StreamProgress(None, description, total, completed)  # no bars: the counts only


def wheel(numbers: list[int], stop_after: int | None = None) -> Any:
    """``take_one`` of a wheel playing ``numbers`` in order; raises :class:`Interrupted` after ``stop_after`` spins."""
    played = iter(numbers)
    calls = {"n": 0}

    def take_one() -> tuple[dict[str, Any], str, str | None]:
        if stop_after is not None and calls["n"] >= stop_after:
            raise Interrupted
        calls["n"] += 1
        return {"number": next(played)}, "wheel", None

    return take_one


def uninterrupted(numbers: list[int], options: RouletteOptions = OPTIONS) -> Any:
    test = sector_test(options)
    for number in numbers:
        if test.update(number) is not Decision.CONTINUE:
            break
    return test


def test_a_fair_wheel_is_accepted_and_stops_before_the_budget() -> None:
    for seed in (1, 2, 3):
        test = uninterrupted(fair_numbers(seed))
        assert test.decision is Decision.ACCEPT_H0 and test.stopped_by == "lower boundary", seed
        assert test.n < OPTIONS.spins and test.log_lr <= math.log(OPTIONS.beta)


def test_a_biased_wheel_is_rejected_before_the_budget() -> None:
    for seed in (1, 2, 3):
        test = uninterrupted(biased_numbers(seed))
        assert test.decision is Decision.REJECT_H0 and test.stopped_by == "upper boundary", seed
        assert test.n < OPTIONS.spins and test.p_value <= OPTIONS.alpha


def test_collection_stops_at_the_decision() -> None:
    numbers = fair_numbers(4)
    rows: list[dict[str, Any]] = []
    stream = collect_until_decided(FakeBench(rows), OPTIONS, wheel(numbers))
    expected = uninterrupted(numbers)
    assert stream.count == expected.n < OPTIONS.spins  # not one spin more than the decision took
    assert [row["value"]["number"] for row in rows] == numbers[: expected.n]


def test_the_budget_ends_an_undecided_test_as_an_acceptance() -> None:
    options = RouletteOptions(sequential=True, beta=0.1, spins=200, alpha=0.01)
    stream = collect_until_decided(FakeBench([]), options, wheel(fair_numbers(5)))
    test = replay(sector_test(options), [value["number"] for value in stream.values()])
    assert stream.count == 200 and test.decision is Decision.ACCEPT_H0 and test.stopped_by == "max_n"


@pytest.mark.parametrize("numbers", [fair_numbers(6), biased_numbers(6)], ids=["fair", "biased"])
def test_a_killed_run_resumes_to_the_same_decision(numbers: list[int]) -> None:
    expected = uninterrupted(numbers)
    kill_at = expected.n // 2
    rows: list[dict[str, Any]] = []
    with pytest.raises(Interrupted):
        collect_until_decided(FakeBench(rows), OPTIONS, wheel(numbers, stop_after=kill_at))
    assert len(rows) == kill_at
    resumed = collect_until_decided(FakeBench(rows), OPTIONS, wheel(numbers[kill_at:]))
    assert [row["idx"] for row in rows] == list(range(expected.n))
    test = replay(sector_test(OPTIONS), [value["number"] for value in resumed.values()])
    assert (test.decision, test.n, test.stopped_by) == (expected.decision, expected.n, expected.stopped_by)
    assert test.log_lr == pytest.approx(expected.log_lr, abs=1e-9)


def test_evidence_rebuilt_from_the_journal_counts_equals_the_streamed_evidence() -> None:
    numbers = fair_numbers(7)
    expected = uninterrupted(numbers)
    for cut in (1, expected.n // 3, expected.n - 1):
        rebuilt = sector_test(OPTIONS)
        rebuilt.update_counts(np.bincount(numbers[:cut], minlength=37))
        assert rebuilt.decision is Decision.CONTINUE
        for number in numbers[cut:]:
            if rebuilt.update(number) is not Decision.CONTINUE:
                break
        assert (rebuilt.decision, rebuilt.n) == (expected.decision, expected.n)
        assert rebuilt.log_lr == pytest.approx(expected.log_lr, abs=1e-9)


def test_chi_square_spins_are_always_played_and_replay_finds_the_earlier_decision() -> None:
    options = RouletteOptions(sequential=True, beta=0.1, spins=3700, alpha=0.01, chi_square_spins=3000)
    numbers = fair_numbers(8)
    stream = collect_until_decided(FakeBench([]), options, wheel(numbers))
    expected = uninterrupted(numbers, options)
    assert expected.alpha == 0.005  # α shared with the chi-square (Bonferroni)
    assert expected.n < 3000 and stream.count == 3000
    test = replay(sector_test(options), [value["number"] for value in stream.values()])
    assert (test.decision, test.n) == (expected.decision, expected.n)
    counts = sector_test(options)
    counts.update_counts(np.bincount(numbers[:3000], minlength=37))
    assert counts.n == 3000  # the counts of every spin played would judge 3,000 spins, not the decision's


def test_the_measurement_states_the_decision_its_error_rates_and_path() -> None:
    numbers = biased_numbers(9)
    recorded: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    _record_sequential(lambda *args, **kwargs: recorded.append((args, kwargs)), OPTIONS, numbers,
                       ["p217-2007/roleta-francesa/5"], {"void_games": 0})
    [(args, kwargs)] = recorded
    expected = uninterrupted(numbers)
    assert args == ("sector fairness, sequential test", "reject H0")
    assert kwargs["expected"] == "accept H0" and kwargs["p_value"] <= kwargs["alpha"] == 0.01
    family = OPERATING_CHARACTERISTICS[(0.01, 0.1, 3700)]
    assert kwargs["sample_size"] == expected.n and kwargs["power"] == family["family_average"]["rejection_rate"]
    details = kwargs["details"]
    [pockets, path] = kwargs["series"]
    assert path.n[0] == 0 and path.n[-1] == expected.n and len(path.n) <= 303
    assert path.upper == pytest.approx(math.log(100)) and path.lower == pytest.approx(math.log(0.1))
    assert path.log_lr[-1] == pytest.approx(expected.log_lr, abs=1e-4) and max(path.log_lr) >= path.upper
    assert details["spins_to_decision"] == expected.n and details["stopped_by"] == "upper boundary"
    assert sum(pockets.values) == len(numbers)  # the pocket plot shows every spin played
    assert pockets.order == list(OPTIONS.pocket_order)  # in wheel order
    assert "information only" in details["chi_square_information"]["note"]
    assert details["operating_characteristics"]["source"].startswith("benchmarks/")
    assert details["expected_spins"]["fair wheel (H0)"] < OPTIONS.spins


def test_the_path_is_thinned_but_keeps_the_extremes() -> None:
    numbers = fair_numbers(10)
    test = sector_test(OPTIONS)
    path = sequential_path(test, numbers, points=50)
    full = sequential_path(test, numbers, points=10_000)
    assert len(path["n"]) <= 52 and full["n"] == list(range(len(numbers) + 1))
    assert max(path["log_lr"]) == max(full["log_lr"]) and min(path["log_lr"]) == min(full["log_lr"])
    assert test.n == 0  # the test's own state is untouched
    with pytest.raises(ValueError, match="outcomes"):
        sequential_path(test, [37])


def test_built_in_sequential_profiles_have_cached_figures() -> None:
    for name in ("sim", "sim-biased-wheel"):
        profile, _, _ = load_profile(name)
        options = profile.equipment["wheel"].options
        assert options.sequential
        key = (sector_test(options).alpha, options.beta, options.spins)
        assert key in OPERATING_CHARACTERISTICS, name  # a certify run does not simulate
        figures = sector_test_characteristics(*key)
        assert set(figures["alternatives"]) == {alternative.spec for alternative in roulette_sector_family()}
        assert figures["h0"]["rejection_rate"] <= 0.01 + 3 * math.sqrt(0.01 * 0.99 / figures["runs"])


def test_chi_square_spins_need_the_sequential_mode_and_fit_the_budget() -> None:
    with pytest.raises(ValueError, match="sequential"):
        RouletteOptions(chi_square_spins=1000)
    with pytest.raises(ValueError, match="between 37 and spins"):
        RouletteOptions(sequential=True, spins=1000, chi_square_spins=2000)
    with pytest.raises(ValueError):
        RouletteOptions(sequential=True, beta=0.6)
