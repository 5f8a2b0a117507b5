"""Fairness tests of game outcomes against their fair distribution.

Submodules, one job each:

* :mod:`.goodness_of_fit` — Pearson chi-square and G-test goodness of fit (asymptotic, exact
  multinomial or Monte-Carlo p-values), contingency-table independence, chi-square power;
* :mod:`.roulette` — pockets, derived chances, wheel sectors, successive distances, dealer signature;
* :mod:`.dice` — faces per die, sums of dice, independence between dice;
* :mod:`.multiple_testing` — Holm and Bonferroni adjustment of a family of tests;
* :mod:`.scaling` — modulo bias of raw RNG integers mapped to a game range, and the mapping check.

Every test returns a :class:`rng_tests.result.TestResult`; :func:`chi_square_gof` keeps
returning :class:`GoodnessOfFit` (with ``to_test_result()``) for its existing callers.
"""

from rng_tests.fairness.goodness_of_fit import (
    GoodnessOfFit,
    chi_square_gof,
    chi_square_power,
    contingency_independence,
    g_test,
    gof_test,
    pearson_chi_square,
)
from rng_tests.fairness.multiple_testing import FamilyAdjustment, adjust, adjusted_results, bonferroni, holm
from rng_tests.fairness.roulette import (
    sector_alternative,
    sector_max_statistic,
    sector_null_distribution,
    sector_p_values,
)

__all__ = [
    "FamilyAdjustment",
    "GoodnessOfFit",
    "adjust",
    "adjusted_results",
    "bonferroni",
    "chi_square_gof",
    "chi_square_power",
    "contingency_independence",
    "g_test",
    "gof_test",
    "holm",
    "pearson_chi_square",
    "sector_alternative",
    "sector_max_statistic",
    "sector_null_distribution",
    "sector_p_values",
]
