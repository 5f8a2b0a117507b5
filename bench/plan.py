"""Test planning: how many spins, rolls or shuffles, and how many lab hours, to detect a named alternative.

For a kind of equipment, a named alternative (rng_tests/alternatives.py), a level alpha
and a target power, :func:`make_plan` gives one row per applicable test:

roulette  Pearson chi-square on the 37 pockets (noncentral chi-square, exact integer search);
          G-test (likewise); the sector max test of rng_tests.fairness.roulette (widths 3-18,
          by simulation; sector alternatives only); the sequential mixture SPRT
          (rng_tests/sequential.py: mean, 90th percentile and maximum n, by simulation).
dice      Pearson chi-square and G-test on the faces; the sequential mixture SPRT.
shuffler  The dealt deck is reduced to its number of rising sequences R, a sufficient
          statistic for GSR riffles (Bayer & Diaconis 1992): Pearson chi-square and G-test on
          R (tail cells pooled so that every expected count is at least 5 at the planned n);
          the likelihood-ratio test on R (the most powerful test against riffle:K, by
          simulation); the sequential SPRT; and the total-variation lower bound that no test
          on n decks can beat. The R distributions are exact, so no shuffle model is simulated.

The sequential test is truncated at ``max_n_factor`` (default 2) times the Pearson
chi-square's n: that is its maximum sample size, and truncation adds the simulated
probability of reaching it to the type II error (reported as ``truncated`` under H1). When
the fixed-sample n exceeds 10,000 the simulation looks at the evidence every n // 5000
outcomes (``SequentialTest.simulate(check_every=...)``), which can only overstate the
sequential test's sample sizes.

Default rates (outcomes per hour of lab time; override with ``rate``). No published
standard gives these: they are engineering estimates of one bench cycle, stated so that
the lab can replace them with its own measured rate.

===================  =======  =================================================================
equipment            per hour rationale
===================  =======  =================================================================
roulette (by hand)   40       live tables run ~30-60 spins/h including betting; on the bench a
                              hand launch, ~30 s of ball travel, the camera read and ball
                              retrieval make a ~90 s cycle
roulette (automated) 70       automatic wheels with ball launchers cycle in ~45-60 s (60-80/h)
dice                 100      one throw in a shaker or arena every ~36 s including settling
                              and the camera read; count each die of a multi-dice throw
shuffler             30       an automatic shuffler randomises a 52-card deck in ~30-60 s; unloading,
                              reading the order (card reader or camera) and reloading make ~2 min
===================  =======  =================================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bench.games.roulette_layout import order_for
from rng_tests.alternatives import Alternative, RiffleAlternative, SectorAlternative, parse_alternative
from rng_tests.power import (
    PowerResult,
    g_test_sample_size,
    pearson_sample_size,
    pool_sparse_cells,
    simulated_pearson_power,
    simulated_power_of_statistic,
    simulated_sample_size,
    total_variation_sample_size_bound,
)
from rng_tests.sequential import named_sequential_test


@dataclass(frozen=True)
class Rate:
    """A default lab throughput."""

    per_hour: float
    unit: str
    rationale: str


DEFAULT_RATES: dict[str, Rate] = {
    "roulette": Rate(40, "spins", "by hand: ~90 s per spin (live tables run 30-60 spins/h); automated wheel ~70/h"),
    "roulette-automated": Rate(70, "spins", "automatic wheel with ball launcher: 45-60 s per spin"),
    "dice": Rate(100, "rolls", "one throw every ~36 s including settling and the camera read"),
    "shuffler": Rate(30, "shuffles", "~30-60 s per shuffle plus unloading, reading and reloading the deck"),
}

MIN_EXPECTED = 5.0  # Cochran's rule for the asymptotic chi-square


@dataclass(frozen=True)
class PlanRow:
    """One test's requirement: ``sample_size`` outcomes (for a sequential test: the mean under H1)."""

    test: str
    method: str
    sample_size: int | None
    hours: float | None
    power: float | None
    standard_error: float | None = None
    note: str = ""
    figures: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"test": self.test, "method": self.method, "sample_size": self.sample_size, "hours": self.hours,
                "power": self.power, "standard_error": self.standard_error, "note": self.note,
                "figures": self.figures}


@dataclass(frozen=True)
class Plan:
    """A test plan for one kind of equipment against one named alternative."""

    kind: str
    alternative: str
    description: str
    alpha: float
    power: float
    rate: float
    unit: str
    rate_rationale: str
    rows: tuple[PlanRow, ...]
    simulations: int
    seed: int

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "alternative": self.alternative, "description": self.description,
                "alpha": self.alpha, "power": self.power, "rate_per_hour": self.rate, "unit": self.unit,
                "rate_rationale": self.rate_rationale, "simulations": self.simulations, "seed": self.seed,
                "tests": [row.to_json() for row in self.rows]}


def make_plan(kind: str, alternative: str | Alternative, *, alpha: float = 0.01, power: float = 0.9,
              rate: float | None = None, simulations: int = 1000, seed: int = 0, layout: str = "french",
              max_n_factor: float = 2.0) -> Plan:
    """The sample sizes and lab hours each applicable test needs (see the module docstring).

    ``simulations``: Monte-Carlo runs per simulated figure (fixed ``seed``); raises ValueError
    on a bad alternative string (naming it and the accepted forms) or bad parameters.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be strictly between 0 and 1, got {alpha}")
    if not alpha < power < 1:
        raise ValueError(f"power must be between alpha ({alpha}) and 1, got {power}")
    if rate is not None and not (math.isfinite(rate) and rate > 0):
        raise ValueError(f"rate must be a positive number of outcomes per hour, got {rate}")
    if not max_n_factor >= 1:
        raise ValueError(f"max_n_factor must be at least 1, got {max_n_factor}")
    if simulations < 100:
        raise ValueError(f"simulations must be at least 100, got {simulations}")
    named = parse_alternative(alternative, kind, layout=layout) if isinstance(alternative, str) else alternative
    if named.kind != kind:
        raise ValueError(f"alternative {named.spec!r} is for {named.kind}, not {kind}")
    default = DEFAULT_RATES[kind]
    per_hour = float(rate) if rate is not None else default.per_hour
    rationale = "given on the command line" if rate is not None else default.rationale
    planner = _Planner(named, alpha, power, per_hour, simulations, seed, layout, max_n_factor)
    rows = planner.shuffler_rows() if kind == "shuffler" else planner.game_rows()
    return Plan(kind, named.spec, named.description, alpha, power, per_hour, default.unit, rationale, tuple(rows),
                simulations, seed)


@dataclass(frozen=True)
class _Planner:
    alternative: Alternative
    alpha: float
    power: float
    rate: float
    simulations: int
    seed: int
    layout: str
    max_n_factor: float

    def hours(self, n: float | None) -> float | None:
        return None if n is None else n / self.rate

    def game_rows(self) -> list[PlanRow]:
        p0, p1 = self.alternative.null_probabilities(), self.alternative.probabilities()
        rows = [*self.chi_square_rows(p0, p1, "")]
        if isinstance(self.alternative, SectorAlternative):
            rows.append(self.sector_row())
        rows.append(self.sequential_row(fixed_n=rows[0].sample_size))
        return rows

    def shuffler_rows(self) -> list[PlanRow]:
        alternative = self.alternative
        if not isinstance(alternative, RiffleAlternative):
            raise TypeError(f"no shuffler plan for alternative {alternative.spec!r}")
        p0, p1 = alternative.null_probabilities(), alternative.probabilities()
        rows = [*self.chi_square_rows(p0, p1, " on rising sequences", ordered=True), self.likelihood_ratio_row(p0, p1)]
        rows.append(self.sequential_row(fixed_n=rows[0].sample_size))
        tv = alternative.total_variation()
        bound = total_variation_sample_size_bound(tv, self.alpha, self.power)
        rows.append(PlanRow("any test (lower bound)", f"total variation {tv:.4f} per deck: power - alpha <= "
                            "1 - (1 - TV)^n", bound, self.hours(bound), None,
                            note="no fixed-n test at this level reaches the power with fewer decks"))
        return rows

    def chi_square_rows(self, p0: np.ndarray, p1: np.ndarray, suffix: str, *, ordered: bool = False) -> list[PlanRow]:
        rows = []
        for name, search in (("Pearson chi-square", pearson_sample_size), ("G-test", g_test_sample_size)):
            q0, q1 = p0, p1
            result = search(q0, q1, self.alpha, self.power, alternative=self.alternative.spec)
            minimum = 0.0
            for _ in range(30):  # ordered outcomes (rising sequences): pool tails until every E >= 5
                if not ordered or result.sample_size * q0.min() >= MIN_EXPECTED or q0.size <= 2:
                    break
                minimum = max(minimum * 1.25, MIN_EXPECTED / result.sample_size)
                if minimum >= 0.5:
                    break
                q0, q1 = pool_sparse_cells(p0, p1, minimum)
                result = search(q0, q1, self.alpha, self.power, alternative=self.alternative.spec)
            check = None
            if name == "Pearson chi-square":
                check = simulated_pearson_power(result.sample_size, q0, q1, self.alpha, simulations=self.simulations,
                                                seed=self.seed)
            smallest = result.sample_size * q0.min()
            note = f"smallest expected count {smallest:.1f}"
            if smallest < MIN_EXPECTED:
                note += " (< 5: the suite uses an exact or Monte-Carlo p-value, asymptotic n approximate)"
            if q0.size < p0.size:
                note += f"; {p0.size} cells pooled into {q0.size}"
            figures: dict[str, Any] = {"degrees_of_freedom": q0.size - 1, "cells": q0.size}
            if check is not None:
                note += f"; simulated power {check.power:.3f} ± {check.standard_error:.3f}"
                figures["simulated_power"] = check.power
                figures["simulated_power_standard_error"] = check.standard_error
            rows.append(PlanRow(name + suffix, result.method, result.sample_size, self.hours(result.sample_size),
                                result.power, note=note, figures=figures))
        return rows

    def sector_row(self) -> PlanRow:
        try:
            from rng_tests.fairness import sector_max_statistic
        except ImportError:
            return PlanRow("sector max test", "not available in this installation", None, None, None,
                           note="rng_tests.fairness.sector_max_statistic not found")
        from rng_tests.fairness.roulette import DEFAULT_SECTOR_WIDTHS

        order = np.asarray(order_for(self.layout))
        p0 = self.alternative.null_probabilities()
        orbit = self.alternative.orbit()

        def statistic(counts: np.ndarray) -> np.ndarray:
            value, _ = sector_max_statistic(counts[:, order], DEFAULT_SECTOR_WIDTHS)
            return value

        def alternative_sampler(rng: np.random.Generator, n: int, runs: int) -> np.ndarray:
            return rng.multinomial(n, orbit[0], size=runs)  # the statistic is rotation invariant

        null_runs = max(self.simulations, math.ceil(20 / self.alpha))

        def power_at(n: int) -> PowerResult:
            return simulated_power_of_statistic(
                statistic, lambda rng, m, runs: rng.multinomial(m, p0, size=runs), alternative_sampler, n,
                self.alpha, simulations=null_runs, seed=self.seed, test_name="sector max test",
                alternative=self.alternative.spec)

        result = simulated_sample_size(power_at, self.power, start=256)
        widths = f"{DEFAULT_SECTOR_WIDTHS[0]}-{DEFAULT_SECTOR_WIDTHS[-1]}"
        return PlanRow(f"sector max test (widths {widths})", result.method, result.sample_size,
                       self.hours(result.sample_size), result.power, result.standard_error,
                       note=f"simulated power {result.power:.3f} ± {result.standard_error:.3f}")

    def likelihood_ratio_row(self, p0: np.ndarray, p1: np.ndarray) -> PlanRow:
        with np.errstate(divide="ignore"):
            log_ratio = np.log(p1) - np.log(p0)

        def statistic(counts: np.ndarray) -> np.ndarray:
            return np.where(counts > 0, counts * log_ratio, 0.0).sum(axis=1)

        def power_at(n: int) -> PowerResult:
            return simulated_power_of_statistic(
                statistic, lambda rng, m, runs: rng.multinomial(m, p0, size=runs),
                lambda rng, m, runs: rng.multinomial(m, p1, size=runs), n, self.alpha,
                simulations=max(self.simulations, math.ceil(20 / self.alpha)), seed=self.seed,
                test_name="likelihood-ratio test on R", alternative=self.alternative.spec)

        result = simulated_sample_size(power_at, self.power, start=1, relative_tolerance=0.0)
        return PlanRow("likelihood-ratio test on rising sequences", result.method, result.sample_size,
                       self.hours(result.sample_size), result.power, result.standard_error,
                       note=f"most powerful test against {self.alternative.spec}; simulated power "
                            f"{result.power:.3f} ± {result.standard_error:.3f}")

    def sequential_row(self, fixed_n: int) -> PlanRow:
        beta = 1 - self.power
        max_n = math.ceil(self.max_n_factor * fixed_n)
        check_every = max(1, fixed_n // 5000) if fixed_n > 10_000 else 1
        test = named_sequential_test(self.alternative, alpha=self.alpha, beta=beta, max_n=max_n)
        orbit = self.alternative.orbit()
        locations = np.random.default_rng(self.seed).integers(0, orbit.shape[0], self.simulations)
        under_h1 = test.simulate(orbit[locations], runs=self.simulations, max_n=max_n, seed=self.seed + 1,
                                 check_every=check_every)
        under_h0 = test.simulate(self.alternative.null_probabilities(), runs=self.simulations, max_n=max_n,
                                 seed=self.seed + 2, check_every=check_every)
        mean_n = under_h1.mean_n
        figures = {"mean_n_h1": mean_n, "mean_n_h1_standard_error": under_h1.mean_n_standard_error,
                   "p90_n_h1": under_h1.quantile_n(0.9), "truncated_h1": under_h1.truncation_rate,
                   "mean_n_h0": under_h0.mean_n, "p90_n_h0": under_h0.quantile_n(0.9),
                   "type_i_error": under_h0.rejection_rate,
                   "type_i_error_standard_error": under_h0.rejection_standard_error,
                   "truncated_h0": under_h0.truncation_rate, "max_n": max_n, "beta_boundary": beta,
                   "orbit_size": int(orbit.shape[0]), "check_every": check_every}
        note = (f"mean n under H1; 90th percentile {under_h1.quantile_n(0.9):.0f}; max n {max_n} "
                f"(truncated {under_h1.truncation_rate:.1%} under H1); under H0 mean {under_h0.mean_n:.0f}, "
                f"type I {under_h0.rejection_rate:.3f}")
        if check_every > 1:
            note += f"; simulated with a look every {check_every} outcomes"
        return PlanRow("sequential mixture SPRT (mean n under H1)", test.evidence.method + f"; lower boundary beta = {beta:g}",
                       math.ceil(mean_n), self.hours(mean_n), under_h1.rejection_rate,
                       under_h1.rejection_standard_error, note=note, figures=figures)
