"""Sequential anytime-valid tests (rng_tests/sequential.py).

Exact checks enumerate every outcome of a small multinomial, so they cannot be lucky. The
simulation checks use fixed seeds (deterministic); each bound is one that a correct
implementation violates with probability at most 0.001 for a random seed (binomial quantiles
stated next to each), so a failure means the statistics moved, not bad luck.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

from rng_tests.alternatives import LoadedDieAlternative, SectorAlternative
from rng_tests.power import pearson_sample_size
from rng_tests.sequential import (
    Decision,
    DirichletMixture,
    MixtureLikelihoodRatio,
    SequentialTest,
    named_sequential_test,
    omnibus_sequential_test,
    sector_sequential_test,
)

SMALL_NULL = np.array([0.5, 0.3, 0.2])
SMALL_ALTERNATIVES = np.array([[0.6, 0.3, 0.1], [0.4, 0.2, 0.4], [0.7, 0.3, 0.0]])  # last: category 2 impossible


def _all_counts(n: int, categories: int) -> np.ndarray:
    return np.array([c for c in itertools.product(range(n + 1), repeat=categories) if sum(c) == n])


def _multinomial_pmf(counts: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.array([stats.multinomial.pmf(row, row.sum(), p) for row in counts])


# -- the martingale property, exactly ----------------------------------------------


@pytest.mark.parametrize("evidence", [
    MixtureLikelihoodRatio(SMALL_NULL, SMALL_ALTERNATIVES, np.array([0.5, 0.3, 0.2])),
    DirichletMixture(SMALL_NULL, concentrations=[0.5, 3.0, 40.0]),
], ids=["mixture-LR", "dirichlet"])
@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_mean_of_likelihood_ratio_under_h0_is_one(evidence, n: int) -> None:
    """E0[L_n] = sum over all count vectors of P0(counts) L(counts) = 1 (exact enumeration)."""
    counts = _all_counts(n, 3)
    mean = float((_multinomial_pmf(counts, SMALL_NULL) * np.exp(evidence.log_lr_from_counts(counts))).sum())
    assert mean == pytest.approx(1.0, abs=1e-12)


def test_stopped_likelihood_ratio_has_mean_one_and_type_one_error_below_alpha() -> None:
    """Optional stopping, exactly: over all 3^7 sequences, E0[L_(tau ^ 7)] = 1 and P0(reject) <= alpha.

    Wide boundaries (alpha = 0.3, beta = 0.6) make the test stop inside the horizon often, so
    recording L at the wrong time (e.g. after the stop) would move the mean away from 1.
    """
    horizon = 7
    mean, rejected, stopped_early = 0.0, 0.0, 0
    for sequence in itertools.product(range(3), repeat=horizon):
        test = SequentialTest(MixtureLikelihoodRatio(SMALL_NULL, SMALL_ALTERNATIVES), alpha=0.3, beta=0.6)
        result = test.run(np.array(sequence))
        probability = float(np.prod(SMALL_NULL[list(sequence)]))
        mean += probability * math.exp(result.log_lr)
        rejected += probability * (result.decision is Decision.REJECT_H0)
        stopped_early += result.stopping_time is not None and result.stopping_time < horizon
    assert mean == pytest.approx(1.0, abs=1e-12)
    assert 0 < rejected <= 0.3
    assert stopped_early > 1000


def test_impossible_outcome_under_an_alternative_zeroes_its_component() -> None:
    evidence = MixtureLikelihoodRatio(SMALL_NULL, SMALL_ALTERNATIVES[2:])
    assert evidence.log_lr_from_counts(np.array([3, 1, 1])) == -np.inf
    test = SequentialTest(evidence, alpha=0.01, beta=0.1)
    assert test.update(2) is Decision.ACCEPT_H0
    assert test.to_json()["log_lr"] is None  # -inf is not JSON


# -- streaming API -------------------------------------------------------------------


def test_streaming_batch_and_counts_agree_with_the_formula() -> None:
    alternative = SectorAlternative(5, 1.2)
    outcomes = alternative.sample(np.random.default_rng(11), 3000)
    streaming = sector_sequential_test(alpha=1e-12, beta=1e-12)  # boundaries out of reach: never stops
    for outcome in outcomes[:500]:
        assert streaming.update(int(outcome)) is Decision.CONTINUE
    batch = sector_sequential_test(alpha=1e-12, beta=1e-12)
    result = batch.run(outcomes[:500])
    by_counts = sector_sequential_test(alpha=1e-12, beta=1e-12)
    by_counts.update_counts(np.bincount(outcomes[:300], minlength=37))
    by_counts.update_counts(np.bincount(outcomes[300:500], minlength=37))

    counts = np.bincount(outcomes[:500], minlength=37)
    orbit = alternative.orbit()
    expected = float(logsumexp(counts @ np.log(orbit / (1 / 37)).T) - math.log(37))
    assert result.decision is Decision.CONTINUE and result.stopping_time is None
    for test in (streaming, batch, by_counts):
        assert test.n == 500
        assert test.log_lr == pytest.approx(expected, rel=1e-9, abs=1e-9)
        np.testing.assert_array_equal(test.counts, counts)


def test_run_stops_at_the_first_crossing_like_one_by_one_updates() -> None:
    alternative = SectorAlternative(5, 1.2, start=17)
    outcomes = alternative.sample(np.random.default_rng(5), 20_000)
    batch = sector_sequential_test(alpha=0.01, beta=0.1)
    result = batch.run(outcomes)
    one_by_one = sector_sequential_test(alpha=0.01, beta=0.1)
    for outcome in outcomes:
        if one_by_one.update(int(outcome)) is not Decision.CONTINUE:
            break
    assert result.stopping_time == one_by_one.n == batch.n
    assert result.decision is one_by_one.decision is not Decision.CONTINUE
    assert batch.log_lr == pytest.approx(one_by_one.log_lr, rel=1e-9)
    assert result.stopped_by in {"upper boundary", "lower boundary"}
    with pytest.raises(ValueError, match="already stopped"):
        batch.update(0)


def test_max_n_truncation_accepts_h0_and_reports_it() -> None:
    test = sector_sequential_test(alpha=0.01, beta=0.1, max_n=50)
    result = test.run(np.tile(np.arange(37), 3))  # evenly spread spins: evidence stays between the boundaries
    assert result.stopping_time == 50 and test.n == 50
    assert result.decision is Decision.ACCEPT_H0 and result.stopped_by == "max_n"


def test_json_and_test_result() -> None:
    test = sector_sequential_test(alpha=0.01, beta=0.1)
    rng = np.random.default_rng(3)
    test.run(SectorAlternative(5, 2.0).sample(rng, 5000))  # gross bias: rejected quickly
    payload = json.loads(json.dumps(test.to_json()))
    assert payload["decision"] == "reject H0" and payload["stopped_by"] == "upper boundary"
    assert payload["n"] == sum(payload["counts"]) < 5000
    assert payload["upper_boundary_log_lr"] == pytest.approx(math.log(100))
    assert payload["lower_boundary_log_lr"] == pytest.approx(math.log(0.1))
    result = test.to_test_result()
    assert result.p_value is not None and result.p_value <= 0.01 and result.passed(0.01) is False
    assert result.sample_size == payload["n"]


def test_bad_input_is_refused() -> None:
    test = sector_sequential_test()
    with pytest.raises(ValueError, match="outside"):
        test.update(37)
    with pytest.raises(ValueError, match="integer"):
        test.update(1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="counts"):
        test.update_counts(np.ones(36, dtype=int))
    with pytest.raises(ValueError, match="alpha"):
        sector_sequential_test(alpha=1.5)
    with pytest.raises(ValueError, match="columns"):
        MixtureLikelihoodRatio(SMALL_NULL, np.array([[0.5, 0.5]]))
    with pytest.raises(ValueError, match="max_n"):
        SequentialTest(DirichletMixture(SMALL_NULL), alpha=0.05, max_n=10).update_counts(np.array([5, 5, 5]))


# -- operating characteristics by simulation ---------------------------------------------


def test_reference_test_type_one_error_is_at_most_alpha() -> None:
    """Fair wheel, 400 runs truncated at 4000 spins: rejections <= the binomial(400, 0.01) 0.999 quantile.

    A correct test (P0(reject) <= 0.01 by Ville's inequality) exceeds the bound with probability <= 0.001.
    """
    test = sector_sequential_test(alpha=0.01, beta=0.1)
    summary = test.simulate(np.full(37, 1 / 37), runs=400, max_n=4000, seed=101)
    assert summary.rejected.sum() <= stats.binom.ppf(0.999, 400, 0.01)
    assert summary.truncation_rate < 0.2  # most fair runs accept H0 (lower boundary) before 4000 spins


@pytest.mark.parametrize("check_every", [1, 10])
def test_type_one_error_at_a_large_alpha_is_controlled(check_every: int) -> None:
    """Dice, alpha = 0.2 (so the check has teeth): rejections in 600 fair runs <= binom(600, 0.2) 0.999 quantile."""
    test = named_sequential_test(LoadedDieAlternative(6, 0.25), alpha=0.2, beta=0.2)
    summary = test.simulate(np.full(6, 1 / 6), runs=600, max_n=3000, seed=7, check_every=check_every)
    assert summary.rejected.sum() <= stats.binom.ppf(0.999, 600, 0.2)
    assert np.all(summary.stopping_times % check_every == 0)


def test_omnibus_type_one_error_and_power() -> None:
    """Dirichlet mixture on a die, alpha = 0.05: 400 fair runs to 600 rolls reject <= binom 0.999 quantile;
    against a die with face 6 at 0.3 it rejects in >= 95 % of 200 runs (true power ~1 at this n)."""
    test = omnibus_sequential_test(np.full(6, 1 / 6), alpha=0.05, max_n=600)
    fair = test.simulate(np.full(6, 1 / 6), runs=400, max_n=600, seed=8)
    assert fair.rejected.sum() <= stats.binom.ppf(0.999, 400, 0.05)
    assert fair.truncation_rate == 1 - fair.rejection_rate  # no lower boundary: fair runs go to max_n
    loaded = test.simulate(LoadedDieAlternative(6, 0.3).probabilities(), runs=200, max_n=600, seed=9)
    assert loaded.rejection_rate >= 0.95


def test_reference_test_power_and_mean_sample_size_meet_the_requirement() -> None:
    """Sector 5 x 1.2 at a random rotation per run, 400 runs (truncated at 2 x the fixed n, reached by none).

    Power: rejections >= the binomial(400, 0.9) 0.001 quantile (P(accept) <= beta = 0.1 is exact).
    Mean spins under H1 (+ 3 standard errors) <= 60 % of the 36-df Pearson chi-square n (9427).
    """
    alternative = SectorAlternative(5, 1.2)
    fixed = pearson_sample_size(alternative.null_probabilities(), alternative.probabilities(), 0.01, 0.9)
    test = sector_sequential_test(alpha=0.01, beta=0.1)
    locations = np.random.default_rng(12).integers(0, 37, 400)
    summary = test.simulate(alternative.orbit()[locations], runs=400, max_n=2 * fixed.sample_size, seed=13)
    assert summary.rejected.sum() >= stats.binom.ppf(0.001, 400, 0.9)
    assert summary.mean_n + 3 * summary.mean_n_standard_error <= 0.60 * fixed.sample_size
    assert summary.truncation_rate == 0


def test_grid_over_widths_and_factors_mixes_every_rotation_of_each() -> None:
    test = sector_sequential_test(widths=(3, 5), factors=(1.2, 1.5), alpha=0.01, beta=0.1)
    assert isinstance(test.evidence, MixtureLikelihoodRatio)
    assert test.evidence.components == 37 * 4
    np.testing.assert_allclose(np.exp(test.evidence.log_weights), 1 / 148)
    assert "sector:3@1.5" in test.alternative_hypothesis
    result = test.run(SectorAlternative(3, 4.0, start=30).sample(np.random.default_rng(4), 5000))
    assert result.decision is Decision.REJECT_H0  # a gross 3-pocket bias: log L grows by ~0.1 per spin
