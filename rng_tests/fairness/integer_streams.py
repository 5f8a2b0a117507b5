"""Classic empirical tests of integer outcome streams (Knuth, TAOCP vol. 2, 3rd ed., §3.3.2).

Input: a stream of outcomes, integers in ``0 .. d-1`` in the order produced (roulette pockets,
die faces, raw RNG words reduced to a range). H0 (every test): the outcomes are independent and
uniformly distributed on ``0 .. d-1``. Labs apply these at 99 % confidence (alpha = 0.01), and
when several are applied to one stream the family should be corrected for multiplicity
(:mod:`rng_tests.fairness.multiple_testing`).

Tests (each returns a :class:`~rng_tests.result.TestResult`):

* :func:`runs_up_test` -- lengths of ascending runs, Knuth's statistic V with the covariance of
  the run counts (§3.3.2 G, eq. (10)-(11)), Monte-Carlo or chi-square(6); ``direction="down"`` for
  descending runs;
* :func:`runs_up_down_test` -- the number of alternating runs (turning points), exact mean
  (2n − 1)/3 and variance (16n − 29)/90 (Levene & Wolfowitz 1944), normal;
* :func:`gap_test` -- gaps between visits to a set of values, geometric law (§3.3.2 D);
* :func:`poker_test` -- distinct values in groups of k, Stirling numbers (§3.3.2 C, partition test);
* :func:`coupon_collector_test` -- segment lengths until all d values are seen (§3.3.2 E);
* :func:`serial_correlation_test` -- circular serial correlations at lags 1..k (§3.3.2 K);
* :func:`serial_pairs_test` -- overlapping pairs, Good's serial statistic ∇ψ² (Good 1953).

Ties. Runs are defined for continuous values; integer outcomes tie. The runs tests break ties at
random: they test X + U with U independent uniform on [0, 1) (fixed ``seed``). Under H0, X + U is
exactly i.i.d. uniform on [0, d), so Knuth's continuous null law holds exactly; a tie-broken test
loses a little power when d is small.

Chi-square tests pool adjacent categories whose expected count is below 5 (from both ends of the
ordered categories) and get their p-values from
:func:`rng_tests.fairness.goodness_of_fit.pearson_chi_square` (asymptotic, exact or Monte-Carlo).

References: Knuth, D. E., *The Art of Computer Programming*, vol. 2, 3rd ed. (1997), §3.3.2;
Good, I. J. (1953), The serial test for sampling numbers and other tests for randomness, Proc.
Cambridge Philos. Soc. 49, 276-284; Levene, H. & Wolfowitz, J. (1944), Ann. Math. Statist. 15,
58-69; Marsaglia, G. (1985), A current view of random number generators, Computer Science and
Statistics: 16th Symposium on the Interface, 3-10.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

import numpy as np
from scipy import stats

from rng_tests.fairness.goodness_of_fit import MIN_EXPECTED_FOR_ASYMPTOTICS, pearson_chi_square
from rng_tests.result import TestResult

STREAM_NULL = "the outcomes are independent and uniformly distributed on 0..d-1"
RUNS_MONTE_CARLO_SAMPLES = 999
"""Default B of the runs-up Monte-Carlo p-value."""
RUNS_ASYMPTOTIC_FROM = 200_000
"""Stream length from which the runs-up p-value is the chi-square(6) tail (size within about 0.002 of alpha)."""

# Knuth §3.3.2, eq. (11): the matrix A and vector b of the runs-up statistic
# V = (1/(n-6)) Σ (R_i - n b_i)(R_j - n b_j) a_ij, R_1..R_5 runs of length 1..5, R_6 of length >= 6.
KNUTH_RUNS_A = np.array([
    [4529.4, 9044.9, 13568.0, 18091.0, 22615.0, 27892.0],
    [9044.9, 18097.0, 27139.0, 36187.0, 45234.0, 55789.0],
    [13568.0, 27139.0, 40721.0, 54281.0, 67852.0, 83685.0],
    [18091.0, 36187.0, 54281.0, 72414.0, 90470.0, 111580.0],
    [22615.0, 45234.0, 67852.0, 90470.0, 113262.0, 139476.0],
    [27892.0, 55789.0, 83685.0, 111580.0, 139476.0, 172860.0],
])
KNUTH_RUNS_B = np.array([1 / 6, 5 / 24, 11 / 120, 19 / 720, 29 / 5040, 1 / 840])


# -- validation and shared helpers ------------------------------------------------------------


def validate_stream(values: Sequence[int] | np.ndarray, d: int, minimum: int = 2) -> np.ndarray:
    """``values`` as a 1-D int64 array of integers in 0..d-1 with at least ``minimum`` entries, else ValueError."""
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
        raise ValueError(f"d (the number of possible outcomes) must be an integer >= 2, got {d!r}")
    stream = np.asarray(values)
    if stream.ndim != 1:
        raise ValueError("values must be a 1-D sequence of outcomes")
    if stream.size and not np.issubdtype(stream.dtype, np.integer):
        raise ValueError("values must be integers")
    if stream.size < minimum:
        raise ValueError(f"need at least {minimum} outcomes, got {stream.size}")
    if stream.min() < 0 or stream.max() >= d:
        raise ValueError(f"outcomes must lie in 0..{d - 1}")
    return stream.astype(np.int64)


def pool_categories(probabilities: np.ndarray, total: int, minimum: float = MIN_EXPECTED_FOR_ASYMPTOTICS
                    ) -> list[tuple[int, int]]:
    """Index ranges [start, stop) of ordered categories merged so every expected count is >= ``minimum``.

    Greedy from the first category: adjacent categories are merged until their expected count
    reaches ``minimum``; a short remainder at the end joins the last group. Categories that are
    large enough on their own stay single.
    """
    expected = np.asarray(probabilities, dtype=float) * total
    groups: list[tuple[int, int]] = []
    start = 0
    running = 0.0
    for index, value in enumerate(expected.tolist()):
        running += value
        if running >= minimum:
            groups.append((start, index + 1))
            start, running = index + 1, 0.0
    if start < expected.size:
        if groups:
            groups[-1] = (groups[-1][0], expected.size)
        else:
            groups.append((0, expected.size))
    return groups


def _pooled_gof(
    counts: np.ndarray, probabilities: np.ndarray, labels: list[str], *, test: str, seed: int
) -> tuple[TestResult, list[str]]:
    """Pearson GOF on pooled categories (labels joined as 'a..b'); returns the result and pooled labels."""
    total = int(counts.sum())
    groups = pool_categories(probabilities, total)
    pooled_counts = np.array([counts[a:b].sum() for a, b in groups])
    pooled_p = np.array([probabilities[a:b].sum() for a, b in groups])
    pooled_labels = [labels[a] if b - a == 1 else f"{labels[a]}..{labels[b - 1]}" for a, b in groups]
    if len(groups) < 2:
        return TestResult.inapplicable(test, STREAM_NULL, total, "Pearson chi-square",
                                       f"too few observations ({total}) for two categories with 5 expected"), []
    result = pearson_chi_square(pooled_counts, pooled_p / pooled_p.sum(), test=test, null_hypothesis=STREAM_NULL,
                                categories=pooled_labels, seed=seed)
    return result, pooled_labels


def _with(result: TestResult, **details: object) -> TestResult:
    """``result`` with extra ``details``."""
    return TestResult(result.test, result.null_hypothesis, result.statistic, result.p_value, result.sample_size,
                      result.method, result.degrees_of_freedom, {**result.details, **details},
                      result.not_applicable)


@lru_cache(maxsize=16)
def stirling2_row(n: int) -> tuple[int, ...]:
    """Stirling numbers of the second kind S(n, r), r = 0..n (exact integers)."""
    row = [1]
    for m in range(1, n + 1):
        row = [0] + [r * (row[r] if r < m else 0) + row[r - 1] for r in range(1, m + 1)]
    return tuple(row)


def _tie_broken(stream: np.ndarray, seed: int) -> np.ndarray:
    return stream + np.random.default_rng(seed).random(stream.size)


# -- runs ---------------------------------------------------------------------------------------


def run_length_counts(sequences: np.ndarray) -> np.ndarray:
    """Counts of ascending runs of length 1, 2, 3, 4, 5 and >= 6 (Knuth's R_1..R_6), last run included.

    ``sequences`` is one sequence (result shape (6,)) or a batch, one per row (result (B, 6)).
    """
    batch = np.atleast_2d(sequences)
    rows, n = batch.shape
    starts = np.ones((rows, n), dtype=bool)
    starts[:, 1:] = batch[:, 1:] <= batch[:, :-1]
    flat = np.flatnonzero(starts.ravel())
    lengths = np.minimum(np.diff(np.append(flat, rows * n)), 6)
    counts = np.bincount((flat // n) * 6 + lengths - 1, minlength=rows * 6).reshape(rows, 6)
    return counts[0] if np.ndim(sequences) == 1 else counts


def _runs_statistic(counts: np.ndarray, n: int) -> np.ndarray:
    deviation = counts - n * KNUTH_RUNS_B
    return np.einsum("...i,ij,...j->...", deviation, KNUTH_RUNS_A, deviation) / (n - 6)


def runs_up_test(
    values: Sequence[int] | np.ndarray,
    d: int,
    *,
    direction: Literal["up", "down"] = "up",
    seed: int = 0,
    monte_carlo_samples: int = RUNS_MONTE_CARLO_SAMPLES,
    asymptotic_from: int = RUNS_ASYMPTOTIC_FROM,
) -> TestResult:
    """Runs up (or down): Knuth's V = (1/(n−6)) (R − n b)ᵀ A (R − n b), R the counts of runs of length 1..5, >= 6.

    A and b are Knuth's (§3.3.2 G, eq. (11); A, the inverse asymptotic covariance of the run counts,
    was re-derived exactly for this module and agrees to the printed digits), so adjacent dependent
    runs are all used. V tends to chi-square(6), but slowly: by simulation its 1 % tail holds
    1.7 % of fair sequences at n = 5,000 and 1.3 % at n = 20,000. The p-value is therefore
    Monte-Carlo below ``asymptotic_from`` outcomes (B sequences of i.i.d. uniforms of the same length:
    after tie-breaking the null law of V depends on n only) and chi-square(6) from there on.
    Ties are broken at random (module docstring).
    """
    if direction not in ("up", "down"):
        raise ValueError(f"direction must be 'up' or 'down', got {direction!r}")
    if isinstance(monte_carlo_samples, bool) or not isinstance(monte_carlo_samples, (int, np.integer)) \
            or monte_carlo_samples < 1:
        raise ValueError(f"monte_carlo_samples must be a positive integer, got {monte_carlo_samples!r}")
    stream = validate_stream(values, d, minimum=7)
    n = stream.size
    tie_seed, simulation_seed = np.random.SeedSequence(seed).spawn(2)
    sequence = stream + np.random.default_rng(tie_seed).random(n)
    if direction == "down":
        sequence = -sequence
    counts = run_length_counts(sequence)
    statistic = float(_runs_statistic(counts, n))
    if n >= asymptotic_from:
        p_value = float(stats.chi2.sf(statistic, 6))
        how = "chi-square(6)"
    else:
        rng = np.random.default_rng(simulation_seed)
        chunk = max(1, 4_000_000 // n)
        exceed = 0
        for start in range(0, monte_carlo_samples, chunk):
            simulated = _runs_statistic(run_length_counts(rng.random((min(chunk, monte_carlo_samples - start), n))), n)
            exceed += int(np.count_nonzero(simulated >= statistic))
        p_value = (exceed + 1) / (monte_carlo_samples + 1)
        how = f"Monte-Carlo p-value ({monte_carlo_samples} simulated sequences, seed {seed})"
    return TestResult(f"runs {direction}", STREAM_NULL, statistic, p_value, n,
                      f"Knuth's runs statistic V with covariance matrix A, {how}, ties broken at random", 6.0,
                      {"run_counts": counts.tolist(), "expected": (n * KNUTH_RUNS_B).tolist(), "seed": seed})


def runs_up_down_test(values: Sequence[int] | np.ndarray, d: int, *, seed: int = 0) -> TestResult:
    """Number of runs up and down (alternating runs): mean (2n − 1)/3, variance (16n − 29)/90; two-sided normal.

    A run up and down ends at each turning point (a local maximum or minimum), so the count is one
    more than the number of sign changes of successive differences. Exact moments for i.i.d.
    continuous values (Levene & Wolfowitz 1944); ties broken at random. Too few runs suggest trends
    or stickiness, too many an oscillating generator.
    """
    stream = validate_stream(values, d, minimum=3)
    n = stream.size
    differences = np.sign(np.diff(_tie_broken(stream, seed)))
    runs = 1 + int(np.count_nonzero(differences[1:] != differences[:-1]))
    mean = (2 * n - 1) / 3
    variance = (16 * n - 29) / 90
    z = (runs - mean) / math.sqrt(variance)
    return TestResult("runs up and down", STREAM_NULL, z, float(2 * stats.norm.sf(abs(z))), n,
                      "number of alternating runs, exact mean and variance, two-sided normal, ties broken at random",
                      details={"runs": runs, "expected": mean, "variance": variance, "tie_seed": seed})


# -- gap, poker, coupon collector ------------------------------------------------------------------


def gap_test(
    values: Sequence[int] | np.ndarray, d: int, *, low: int = 0, high: int | None = None, seed: int = 0
) -> TestResult:
    """Gap test: lengths of gaps between successive outcomes in ``low <= x < high`` (default the lower half).

    With p = (high − low)/d, a gap of length r (r other outcomes in between) has probability p (1−p)^r;
    the complete gaps of the stream are i.i.d. geometric under H0 (the part before the first visit is
    dropped). Counts of r = 0, 1, ... are pooled into a tail cell and tested by Pearson chi-square.
    """
    stream = validate_stream(values, d)
    high = d // 2 if high is None else high
    if not 0 <= low < high <= d or high - low == d:
        raise ValueError(f"need 0 <= low < high <= d with a proper subset of outcomes, got [{low}, {high})")
    p = (high - low) / d
    marks = np.flatnonzero((stream >= low) & (stream < high))
    gaps = np.diff(marks) - 1
    total = gaps.size
    test = f"gap test [{low}, {high})"
    if total < 2:
        return TestResult.inapplicable(test, STREAM_NULL, total, "Pearson chi-square",
                                       f"only {total} complete gaps")
    cells = 1
    while total * (1 - p) ** cells >= MIN_EXPECTED_FOR_ASYMPTOTICS and cells < 10_000:
        cells += 1
    probabilities = np.append(p * (1 - p) ** np.arange(cells), (1 - p) ** cells)
    counts = np.bincount(np.minimum(gaps, cells), minlength=cells + 1)
    labels = [str(r) for r in range(cells)] + [f">={cells}"]
    result, _ = _pooled_gof(counts, probabilities, labels, test=test, seed=seed)
    return _with(result, marked_probability=p, gaps=int(total))


def poker_test(values: Sequence[int] | np.ndarray, d: int, *, hand: int = 5, seed: int = 0) -> TestResult:
    """Poker (partition) test: the number of distinct values in non-overlapping groups of ``hand`` outcomes.

    P(r distinct) = d (d−1) ... (d−r+1) S(k, r) / d^k with S the Stirling numbers of the second kind
    (Knuth §3.3.2 C); rare categories pooled; Pearson chi-square.
    """
    if isinstance(hand, bool) or not isinstance(hand, (int, np.integer)) or hand < 2:
        raise ValueError(f"hand must be an integer >= 2, got {hand!r}")
    stream = validate_stream(values, d, minimum=hand)
    groups = stream[: stream.size // hand * hand].reshape(-1, hand)
    ordered = np.sort(groups, axis=1)
    distinct = 1 + np.count_nonzero(ordered[:, 1:] != ordered[:, :-1], axis=1)
    top = min(hand, d)
    stirling = stirling2_row(hand)
    probabilities = np.array([math.perm(d, r) * stirling[r] / d**hand for r in range(1, top + 1)])
    counts = np.bincount(distinct, minlength=top + 1)[1:]
    result, _ = _pooled_gof(counts, probabilities, [str(r) for r in range(1, top + 1)],
                            test=f"poker test (groups of {hand})", seed=seed)
    return _with(result, groups=int(groups.shape[0]))


def coupon_segments(stream: np.ndarray, d: int) -> np.ndarray:
    """Lengths of successive segments each ending when all d values have appeared (incomplete tail dropped).

    For every start s, the segment ends at e(s) = max over values v of the next occurrence of v at or
    after s (d vectorised passes over the stream); the segments are then the chain s, e(s) + 1, ...
    """
    n = stream.size
    positions = np.arange(n)
    end = np.zeros(n, dtype=np.int64)
    for value in range(d):
        occurrence = np.where(stream == value, positions, n)
        next_occurrence = np.minimum.accumulate(occurrence[::-1])[::-1]
        np.maximum(end, next_occurrence, out=end)
    lengths = []
    start = 0
    while start < n and end[start] < n:  # one step per segment, not per outcome
        lengths.append(int(end[start]) - start + 1)
        start = int(end[start]) + 1
    return np.array(lengths, dtype=np.int64)


def coupon_collector_test(values: Sequence[int] | np.ndarray, d: int, *, seed: int = 0) -> TestResult:
    """Coupon collector: lengths of segments until every one of the d values has appeared.

    P(L = r) = d!/d^r S(r−1, d−1) for r >= d (Knuth §3.3.2 E, eq. (12)); lengths beyond a tail point t
    with P(L >= t) = 1 − d!/d^(t−1) S(t−1, d) are pooled; Pearson chi-square. Meant for small d (say
    d <= 64; a segment lasts about d ln d outcomes).
    """
    stream = validate_stream(values, d)
    lengths = coupon_segments(stream, d)
    total = lengths.size
    test = "coupon collector"
    if total < 2:
        return TestResult.inapplicable(test, STREAM_NULL, total, "Pearson chi-square",
                                       f"only {total} complete segments")
    factorial = math.factorial(d)
    # Stirling rows S(m, 0..d), advanced one m at a time: start at m = d - 1
    row = [0] * (d + 1)
    row[0] = 1
    for m in range(1, d):
        row = [0] + [k * row[k] + row[k - 1] for k in range(1, d + 1)]
    probabilities: list[float] = []
    r = d
    tail = 1.0
    while True:
        previous = row  # S(r - 1, .)
        row = [0] + [k * row[k] + row[k - 1] for k in range(1, d + 1)]  # S(r, .)
        probabilities.append(factorial * previous[d - 1] / d**r)  # P(L = r)
        tail = 1.0 - factorial * row[d] / d**r  # P(L >= r + 1)
        r += 1
        if total * tail < MIN_EXPECTED_FOR_ASYMPTOTICS or r > 20 * d + 50:
            break
    cells = len(probabilities)
    probabilities_array = np.append(probabilities, max(tail, 0.0))
    counts = np.bincount(np.minimum(lengths - d, cells), minlength=cells + 1)
    labels = [str(d + i) for i in range(cells)] + [f">={d + cells}"]
    result, _ = _pooled_gof(counts, probabilities_array / probabilities_array.sum(), labels, test=test, seed=seed)
    return _with(result, segments=int(total), mean_length=float(lengths.mean()),
                 expected_mean_length=d * sum(1.0 / k for k in range(1, d + 1)))


# -- serial tests -----------------------------------------------------------------------------------


def serial_correlation_test(values: Sequence[int] | np.ndarray, d: int, *, lags: int = 1) -> TestResult:
    """Circular serial correlation at lags 1..``lags`` (Knuth §3.3.2 K, eq. (23)).

    C_h = (n Σ x_j x_{j+h} − (Σ x_j)²) / (n Σ x_j² − (Σ x_j)²), indices mod n. Under H0 each C_h has
    mean μ_n = −1/(n−1) and standard deviation σ_n = (1/(n−1)) √(n(n−3)/(n+1)) (Knuth), and the
    standardised z_h = (C_h − μ_n)/σ_n are asymptotically independent N(0, 1); the statistic is
    Σ z_h² against chi-square(lags) (for one lag, the two-sided normal test). Asymptotic: n >= 100.
    """
    if isinstance(lags, bool) or not isinstance(lags, (int, np.integer)) or lags < 1:
        raise ValueError(f"lags must be a positive integer, got {lags!r}")
    stream = validate_stream(values, d, minimum=max(3, 2 * lags + 1))
    x = stream.astype(float)
    n = x.size
    total = x.sum()
    denominator = n * (x * x).sum() - total**2
    test = f"serial correlation (lags 1..{lags})"
    method = "circular serial correlation, Knuth's null mean and variance, normal / chi-square"
    if denominator <= 0:
        return TestResult.inapplicable(test, STREAM_NULL, n, method, "the stream is constant")
    mean = -1.0 / (n - 1)
    sd = math.sqrt(n * (n - 3) / (n + 1)) / (n - 1)
    correlations = np.array([(n * float((x * np.roll(x, -h)).sum()) - total**2) / denominator
                             for h in range(1, lags + 1)])
    z = (correlations - mean) / sd
    statistic = float((z**2).sum())
    return TestResult(test, STREAM_NULL, statistic, float(stats.chi2.sf(statistic, lags)), n, method, float(lags),
                      {"correlations": correlations.tolist(), "z": z.tolist(), "null_mean": mean, "null_sd": sd})


def serial_pairs_test(values: Sequence[int] | np.ndarray, d: int) -> TestResult:
    """Overlapping pairs: Good's serial statistic ∇ψ²₂ = ψ²₂ − ψ²₁ ~ chi-square(d(d−1)).

    ψ²_k = (d^k / n) Σ_cells (N_cell − n/d^k)² over the n overlapping k-tuples of the stream read
    circularly. Overlapping pairs are dependent, so ψ²₂ alone is not chi-square(d² − 1); Good (1953)
    showed the first difference is chi-square(d² − d). ``details`` also gives the second difference
    ∇²ψ²₂ = ψ²₂ − 2ψ²₁ (chi-square((d−1)²), the pure serial-dependence part). Needs n/d² >= 5.
    """
    stream = validate_stream(values, d)
    n = stream.size
    test = "serial pairs (overlapping)"
    method = "Good's serial test, first difference ∇ψ², asymptotic chi-square"
    if n / d**2 < MIN_EXPECTED_FOR_ASYMPTOTICS:
        return TestResult.inapplicable(test, STREAM_NULL, n, method,
                                       f"{n} outcomes give {n / d**2:.2f} expected per pair; at least 5 needed")
    singles = np.bincount(stream, minlength=d)
    pairs = np.bincount(stream * d + np.roll(stream, -1), minlength=d * d)
    psi1 = d / n * float(((singles - n / d) ** 2).sum())
    psi2 = d * d / n * float(((pairs - n / d**2) ** 2).sum())
    statistic = psi2 - psi1
    dof = d * (d - 1)
    second = psi2 - 2 * psi1
    return TestResult(test, STREAM_NULL, statistic, float(stats.chi2.sf(statistic, dof)), n, method, float(dof),
                      {"psi2_singles": psi1, "psi2_pairs": psi2, "second_difference": second,
                       "second_difference_p_value": float(stats.chi2.sf(second, (d - 1) ** 2))})


def integer_stream_tests(values: Sequence[int] | np.ndarray, d: int, *, seed: int = 0) -> dict[str, TestResult]:
    """Every test of this module with its defaults (runs up and down counted once each), keyed by name.

    They test one H0 several ways: correct their p-values for multiplicity (e.g. Holm) before a verdict.
    """
    return {
        "runs_up": runs_up_test(values, d, seed=seed),
        "runs_down": runs_up_test(values, d, direction="down", seed=seed),
        "runs_up_down": runs_up_down_test(values, d, seed=seed),
        "gap": gap_test(values, d, seed=seed),
        "poker": poker_test(values, d, seed=seed),
        "coupon_collector": coupon_collector_test(values, d, seed=seed),
        "serial_correlation": serial_correlation_test(values, d, lags=5),
        "serial_pairs": serial_pairs_test(values, d),
    }
