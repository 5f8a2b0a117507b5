"""Scaling of raw RNG integers to a game range: modulo bias, its detectability, and the mapping itself.

Where an RNG draws game outcomes (e.g. the online roulette of srij-804-2015/roleta-americana, whose
38 numbers must each be equally likely, or the outcomes behind the return of
p217-2007/maquinas-automaticas/2), every outcome must have its declared probability. An RNG that
produces raw integers uniform on [0, 2^b) and maps them to n outcomes with ``raw % n`` is biased
whenever n does not divide 2^b. With q = ⌊2^b / n⌋ and r = 2^b mod n, outcomes 0..r−1 each have
probability (q + 1)/2^b and the others q/2^b: the first r outcomes are favoured by a relative 1/q.

How visible that is depends on the raw width (figures from :func:`modulo_bias_sample_size`, 80 %
power at α = 0.01): for 32-bit raw values and game ranges (n = 6 to 52) the relative excess is
1e-9 to 1e-8 and detection needs ~10^18 to 10^19 outcomes (n = 37: 8.8e17; n = 6: 2.3e19) —
undetectable by any test on outcomes, yet still a design defect that :func:`check_mapping` reveals
from raw → outcome pairs; for 8-bit raw values the excess is large (n = 37: 1/6, detected with
~6,200 outcomes; n = 6: 1/42, ~82,000 outcomes).

* :func:`modulo_distribution` — the exact induced probabilities.
* :func:`modulo_bias_test` — H0: outcomes uniform on the range; against the modulo alternative
  the likelihood ratio depends only on X, the number of outcomes among the r favoured ones, so
  the most powerful test (Neyman-Pearson) is the one-sided exact binomial test of X against
  Bin(N, r/n).
* :func:`modulo_bias_power`, :func:`modulo_bias_sample_size` — power of that test and the
  number of outcomes needed to reach a given power.
* :func:`check_mapping` — given raw values and the outcomes the device produced from them,
  counts the pairs that do not follow the declared mapping: plain modulo, or rejection sampling
  that discards the top 2^b − n q raw values (``"rejection-high"``) or the lowest r
  (``"rejection-low"``, as OpenBSD's arc4random_uniform), both exactly uniform.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from rng_tests.result import TestResult

REJECTED = -1
"""Outcome code for a raw value the device discarded (rejection sampling)."""

EXACT_BINOMIAL_LIMIT = 10_000_000
"""Largest N for which power is computed from the exact binomial; above it, the normal approximation."""

Mapping = Literal["modulo", "rejection-high", "rejection-low"]
MAPPINGS: tuple[Mapping, ...] = ("modulo", "rejection-high", "rejection-low")


def _validate_range(bits: int, outcome_range: int) -> None:
    if int(bits) != bits or not 1 <= bits <= 64:
        raise ValueError("bits must be a whole number from 1 to 64")
    if int(outcome_range) != outcome_range or not 2 <= outcome_range <= 2**bits:
        raise ValueError(f"outcome_range must be a whole number from 2 to 2^bits = {2**bits}")


@dataclass(frozen=True)
class ModuloBias:
    """Exact outcome probabilities of ``raw % outcome_range`` for raw uniform on [0, 2^bits)."""

    bits: int
    outcome_range: int
    quotient: int  # q = floor(2^b / n)
    remainder: int  # r = 2^b mod n: outcomes 0..r-1 are favoured

    @property
    def p_favoured(self) -> float:
        """(q + 1) / 2^b, the probability of each of the first r outcomes."""
        return (self.quotient + 1) / 2.0**self.bits

    @property
    def p_other(self) -> float:
        """q / 2^b, the probability of each of the other n − r outcomes."""
        return self.quotient / 2.0**self.bits

    @property
    def relative_excess(self) -> float:
        """p_favoured / p_other − 1 = 1/q (0 when the mapping is unbiased)."""
        return 1.0 / self.quotient if self.remainder else 0.0

    @property
    def biased(self) -> bool:
        return self.remainder != 0

    @property
    def favoured_share_fair(self) -> float:
        """r / n: the share of the favoured outcomes under an unbiased mapping (H0)."""
        return self.remainder / self.outcome_range

    @property
    def favoured_share_modulo(self) -> float:
        """r (q + 1) / 2^b: their share under the modulo mapping."""
        return self.remainder * (self.quotient + 1) / 2.0**self.bits

    @property
    def share_difference(self) -> float:
        """r (n − r) / (n 2^b), the excess share of the favoured outcomes, computed without cancellation."""
        return self.remainder * (self.outcome_range - self.remainder) / (self.outcome_range * 2.0**self.bits)

    def probabilities(self) -> np.ndarray:
        """Probability of each outcome 0..n−1."""
        p = np.full(self.outcome_range, self.p_other)
        p[: self.remainder] = self.p_favoured
        return p


def modulo_distribution(bits: int, outcome_range: int) -> ModuloBias:
    """The exact distribution that ``raw % outcome_range`` induces on a uniform ``bits``-bit raw value."""
    _validate_range(bits, outcome_range)
    quotient, remainder = divmod(2**bits, outcome_range)
    return ModuloBias(int(bits), int(outcome_range), quotient, remainder)


def _game_outcomes(outcomes: Sequence[int] | np.ndarray, outcome_range: int, offset: int) -> np.ndarray:
    values = np.asarray(outcomes)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("outcomes must be a non-empty 1-D sequence")
    if not np.issubdtype(values.dtype, np.integer):
        raise ValueError("outcomes must be whole numbers")
    shifted = values.astype(np.int64) - offset
    if shifted.min() < 0 or shifted.max() >= outcome_range:
        raise ValueError(f"outcomes must lie in {offset}..{offset + outcome_range - 1}")
    return shifted


def modulo_bias_test(
    outcomes: Sequence[int] | np.ndarray, bits: int, outcome_range: int, *, offset: int = 0, alpha: float = 0.01
) -> TestResult:
    """Exact one-sided binomial test for modulo bias in game outcomes (outcome = raw % n + ``offset``).

    H0: every outcome has probability 1/n. Statistic X = number of outcomes among the r favoured
    ones (offset..offset+r−1); p-value P(Bin(N, r/n) ≥ X). Not applicable when n divides 2^bits
    (the modulo mapping is then exactly uniform). ``details`` give the power of the test at
    ``alpha`` for this N and the N needed for 80 % power.
    """
    bias = modulo_distribution(bits, outcome_range)
    shifted = _game_outcomes(outcomes, outcome_range, offset)
    null = f"every outcome {offset}..{offset + outcome_range - 1} has probability 1/{outcome_range}"
    method = "one-sided exact binomial test of the count of the outcomes favoured by raw % n"
    if not bias.biased:
        return TestResult.inapplicable("modulo bias", null, shifted.size, method,
                                       f"2^{bits} is a multiple of {outcome_range}: raw % n is exactly uniform")
    favoured = int(np.count_nonzero(shifted < bias.remainder))
    total = shifted.size
    p_value = float(stats.binom.sf(favoured - 1, total, bias.favoured_share_fair))
    return TestResult(
        test="modulo bias", null_hypothesis=null, statistic=float(favoured), p_value=min(1.0, p_value),
        sample_size=total, method=method,
        details={
            "bits": bits, "outcome_range": outcome_range, "offset": offset,
            "favoured_outcomes": [offset, offset + bias.remainder - 1],
            "expected_fair": total * bias.favoured_share_fair,
            "expected_modulo": total * bias.favoured_share_modulo,
            "relative_excess_per_favoured_outcome": bias.relative_excess,
            f"power_at_alpha_{alpha}": modulo_bias_power(bits, outcome_range, total, alpha),
            f"sample_size_for_80pc_power_at_alpha_{alpha}": modulo_bias_sample_size(bits, outcome_range, alpha, 0.8),
        },
    )


def modulo_bias_power(bits: int, outcome_range: int, sample_size: int, alpha: float = 0.01) -> float:
    """Power of :func:`modulo_bias_test` at level ``alpha`` with N outcomes against the modulo mapping.

    Exact binomial for N ≤ :data:`EXACT_BINOMIAL_LIMIT` (reject when X > the (1 − α) critical
    value of Bin(N, r/n)); normal approximation above it. 0 ≤ power; equals 0 when unbiased.
    """
    bias = modulo_distribution(bits, outcome_range)
    if sample_size < 1 or not 0 < alpha < 1:
        raise ValueError("sample_size must be positive and alpha in (0, 1)")
    if not bias.biased:
        return 0.0
    p0, p1 = bias.favoured_share_fair, bias.favoured_share_modulo
    if sample_size <= EXACT_BINOMIAL_LIMIT:
        critical = stats.binom.isf(alpha, sample_size, p0)  # smallest k with P0(X > k) <= alpha
        return float(stats.binom.sf(critical, sample_size, p1))
    shift = math.sqrt(sample_size) * bias.share_difference
    z_alpha = stats.norm.isf(alpha)
    return float(stats.norm.sf((z_alpha * math.sqrt(p0 * (1 - p0)) - shift) / math.sqrt(p1 * (1 - p1))))


def modulo_bias_sample_size(bits: int, outcome_range: int, alpha: float = 0.01, power: float = 0.8) -> float:
    """Outcomes needed for :func:`modulo_bias_test` to reach ``power`` at ``alpha`` (normal approximation).

    N = ((z_α √(p0(1 − p0)) + z_β √(p1(1 − p1))) / (p1 − p0))², rounded up; ``math.inf`` when
    the mapping is unbiased. Returned as a float because it exceeds 10^18 for 64-bit raw values.
    """
    bias = modulo_distribution(bits, outcome_range)
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError("alpha and power must lie in (0, 1)")
    if not bias.biased:
        return math.inf
    p0, p1 = bias.favoured_share_fair, bias.favoured_share_modulo
    numerator = stats.norm.isf(alpha) * math.sqrt(p0 * (1 - p0)) + stats.norm.isf(1 - power) * math.sqrt(p1 * (1 - p1))
    return float(math.ceil((numerator / bias.share_difference) ** 2))


def _raw_values(raw: Sequence[int] | np.ndarray, bits: int) -> np.ndarray:
    values = np.asarray(raw)
    if values.ndim != 1:
        raise ValueError("raw must be a 1-D sequence of raw RNG integers")
    if values.size and not np.issubdtype(values.dtype, np.integer):
        raise ValueError("raw values must be whole numbers (an unsigned integer array for 64-bit values)")
    if values.size and np.issubdtype(values.dtype, np.signedinteger) and values.min() < 0:
        raise ValueError("raw values must be non-negative")
    values = values.astype(np.uint64)
    if bits < 64 and values.size and values.max() >= np.uint64(2**bits):
        raise ValueError(f"raw values must be below 2^{bits}")
    return values


def check_mapping(
    raw: Sequence[int] | np.ndarray,
    outcomes: Sequence[int] | np.ndarray,
    outcome_range: int,
    bits: int,
    mapping: Mapping = "modulo",
    *,
    offset: int = 0,
    examples: int = 10,
) -> TestResult:
    """Check every raw → outcome pair against the declared mapping; count the violations.

    ``outcomes[i]`` is what the device produced from ``raw[i]``: ``raw % n + offset``, or
    :data:`REJECTED` when it discarded the raw value. Mappings: ``"modulo"`` (never rejects),
    ``"rejection-high"`` (rejects raw ≥ n ⌊2^b/n⌋), ``"rejection-low"`` (rejects raw < 2^b mod n).
    This is a deterministic check, not a sampling test: the statistic is the number of violating
    pairs and the p-value is 1 when there are none, 0 otherwise. ``details`` break violations
    down (wrong outcome, outcome from a raw value that must be rejected, rejection of a raw value
    that must be used), list the first ``examples`` of them, and flag a declared modulo mapping
    that is itself biased.
    """
    _validate_range(bits, outcome_range)
    if mapping not in MAPPINGS:
        raise ValueError(f"unknown mapping {mapping!r} (expected one of {', '.join(MAPPINGS)})")
    if offset < 0:
        raise ValueError("offset must be non-negative (negative outcomes are reserved for REJECTED)")
    raw_values = _raw_values(raw, bits)
    produced = np.asarray(outcomes)
    if produced.shape != raw_values.shape:
        raise ValueError("raw and outcomes must be 1-D and of the same length")
    if produced.size == 0:
        raise ValueError("no raw → outcome pairs")
    if not np.issubdtype(produced.dtype, np.integer):
        raise ValueError("outcomes must be whole numbers (REJECTED = -1 for a discarded raw value)")
    produced = produced.astype(np.int64)
    bias = modulo_distribution(bits, outcome_range)
    expected = (raw_values % np.uint64(outcome_range)).astype(np.int64) + offset
    if mapping == "rejection-high" and bias.remainder:
        must_reject = raw_values >= np.uint64(outcome_range * bias.quotient)
    elif mapping == "rejection-low":
        must_reject = raw_values < np.uint64(bias.remainder)
    else:
        must_reject = np.zeros(raw_values.shape, dtype=bool)
    was_rejected = produced == REJECTED
    used_rejected = must_reject & ~was_rejected
    rejected_usable = ~must_reject & was_rejected
    wrong = ~must_reject & ~was_rejected & (produced != expected)
    violations = used_rejected | rejected_usable | wrong
    count = int(np.count_nonzero(violations))
    first = np.flatnonzero(violations)[:examples]
    details = {
        "mapping": mapping, "bits": bits, "outcome_range": outcome_range, "offset": offset,
        "wrong_outcome": int(np.count_nonzero(wrong)),
        "outcome_from_a_value_that_must_be_rejected": int(np.count_nonzero(used_rejected)),
        "rejected_a_value_that_must_be_used": int(np.count_nonzero(rejected_usable)),
        "rejected_pairs": int(np.count_nonzero(was_rejected)),
        "examples": [{"index": int(i), "raw": int(raw_values[i]), "outcome": int(produced[i]),
                      "expected": REJECTED if must_reject[i] else int(expected[i])} for i in first],
        "declared_mapping_is_biased": mapping == "modulo" and bias.biased,
    }
    return TestResult(
        test="RNG scaling mapping", null_hypothesis=f"every outcome follows the declared {mapping} mapping",
        statistic=float(count), p_value=0.0 if count else 1.0, sample_size=int(raw_values.size),
        method="deterministic check of every raw → outcome pair against the declared mapping (no sampling error)",
        details=details,
    )
