"""Return to player (RTP) of slot machines tested from play.

Clause p217-2007/maquinas-automaticas/2: the prize plans must return at least 80 % of the
amounts played ("pelo menos, 80% dos montantes jogados sejam devolvidos em prémios"). The
machine model, its pay table and its exact theoretical RTP are :mod:`bench.games.slots`.

From play (:func:`rtp_floor_test`). The observed RTP is ΣW / ΣB over plays with bets B and wins
W. With X = W / B the win per credit of a play (i.i.d. under a fixed pay plan), R̂ = Σ w_i X_i with
w_i = B_i / ΣB, so Var(R̂) = σ² Σ w_i², σ² the per-play variance of X.

Which way round. A machine passes the clause only if it *demonstrates* RTP >= 80 %. Two
one-sided tests, at level alpha each, give a three-way verdict (the decision rule of a
conformity statement with measurement uncertainty, JCGM 106:2012 §8 / ILAC-G8):

* PASS ("demonstrated"): the lower (1 − alpha) confidence bound is >= 0.80, i.e. H0': RTP < 0.80 is
  rejected in favour of RTP >= 0.80;
* FAIL: the upper (1 − alpha) confidence bound is < 0.80, i.e. H0: RTP >= 0.80 is rejected;
* INCONCLUSIVE: neither; :func:`plays_needed` says how many plays would decide.

The :class:`~rng_tests.result.TestResult` carries H0: RTP >= 0.80 (so ``passed(alpha)`` is False
exactly on FAIL: evidence of a non-compliant machine); ``details["verdict"]`` gives the three-way
verdict and ``details["lower_bound"]`` the demonstration bound. Slot wins are very skewed, so play
can rarely demonstrate 80 % on its own (a typical machine needs 10^5-10^7 plays); the bench's
primary evidence for the clause is the exact theoretical RTP of the declared strips and pay
table, and play data then confirm the machine plays that math (:func:`rtp_consistency_test`).

Confidence bounds (``method``):

* ``"normal"``: R̂ ∓ z σ √Σw², with σ² from the pay table when ``theory`` is given (recommended:
  the sample variance misses rare top awards), else the sample variance of X (delta method);
* ``"conservative"``: exponential inequalities valid for every number of plays, with the moments
  of the declared pay table. The lower bound guards against a lucky run (a top award inflating
  R̂): Bernstein's inequality with X <= M, the largest win per credit, P(R̂ − μ >= t) <=
  exp(−t² / (2 σ² Σw² + 2 M max(w) t / 3)). The upper bound uses the light lower tail of a
  non-negative win: Maurer's inequality, P(μ − R̂ >= t) <= exp(−t² / (2 E[X²] Σw²)) (Maurer, A. (2003),
  A bound on the deviation probability for sums of non-negative random variables, JIPAM 4(1) 15).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
from scipy import stats

from bench.games.slots import CLAUSE, RTP_FLOOR, SlotTheory
from rng_tests.result import TestResult

Method = Literal["normal", "conservative"]


# -- from observed play -------------------------------------------------------------------------


def _plays(bets: Sequence[float] | np.ndarray, wins: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    bet = np.asarray(bets, dtype=float)
    win = np.asarray(wins, dtype=float)
    if bet.ndim != 1 or bet.shape != win.shape or bet.size < 2:
        raise ValueError("bets and wins must be 1-D arrays of the same length, at least two plays")
    if not (np.all(np.isfinite(bet)) and np.all(np.isfinite(win))):
        raise ValueError("bets and wins must be finite")
    if np.any(bet <= 0):
        raise ValueError("every bet must be positive")
    if np.any(win < 0):
        raise ValueError("wins must be non-negative")
    return bet, win


def _bounds(
    bet: np.ndarray, win: np.ndarray, alpha: float, method: Method, theory: SlotTheory | None
) -> tuple[float, float, float, dict[str, float]]:
    """(R̂, lower, upper, extra details): one-sided (1 − alpha) confidence bounds of the RTP."""
    weights = bet / bet.sum()
    sum_w2 = float((weights**2).sum())
    ratio = win / bet
    rtp = float(win.sum() / bet.sum())
    if method == "normal":
        if theory is not None:
            variance, source = theory.variance, "pay table"
        else:
            variance = float(((ratio - rtp) ** 2).sum() / (bet.size - 1))
            source = "sample"
        se = math.sqrt(variance * sum_w2)
        z = float(stats.norm.isf(alpha))
        return rtp, rtp - z * se, rtp + z * se, {"standard_error": se, "variance_per_play": variance,
                                                 "variance_from": source}
    if theory is None:
        raise ValueError("method='conservative' needs the pay-table theory (second moment and largest win)")
    log_alpha = math.log(1.0 / alpha)
    b = 2.0 * theory.max_win_per_credit * float(weights.max()) * log_alpha / 3.0
    lower_margin = (b + math.sqrt(b * b + 8.0 * theory.variance * sum_w2 * log_alpha)) / 2.0  # Bernstein
    upper_margin = math.sqrt(2.0 * theory.second_moment * sum_w2 * log_alpha)  # Maurer
    return rtp, rtp - lower_margin, rtp + upper_margin, {"lower_margin": lower_margin, "upper_margin": upper_margin}


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha}")


def rtp_floor_test(
    bets: Sequence[float] | np.ndarray,
    wins: Sequence[float] | np.ndarray,
    *,
    floor: float = RTP_FLOOR,
    alpha: float = 0.01,
    method: Method = "normal",
    theory: SlotTheory | None = None,
) -> TestResult:
    """Observed RTP against the 80 % floor of p217-2007/maquinas-automaticas/2, with the three-way verdict.

    H0: RTP >= floor (the TestResult's p-value: small means evidence of a non-compliant machine).
    ``details``: ``rtp``, one-sided (1 − alpha) ``lower_bound`` / ``upper_bound``, and ``verdict``:
    ``"PASS"`` (lower bound >= floor: compliance demonstrated), ``"FAIL"`` (upper bound < floor) or
    ``"INCONCLUSIVE"``. p-value: normal, Φ((R̂ − floor)/se); conservative, Maurer's bound
    exp(−d² / (2 E[X²] Σw²)) at d = floor − R̂ (1 when R̂ >= floor), so FAIL <=> p < alpha either way.
    """
    bet, win = _plays(bets, wins)
    _check_alpha(alpha)
    if method not in ("normal", "conservative"):
        raise ValueError(f"method must be 'normal' or 'conservative', got {method!r}")
    rtp, lower, upper, extra = _bounds(bet, win, alpha, method, theory)
    if method == "normal":
        se = extra["standard_error"]
        p_value = float(stats.norm.cdf((rtp - floor) / se)) if se > 0 else float(rtp >= floor)
        how = f"normal approximation, per-play variance from the {extra['variance_from']}"
    else:
        assert theory is not None
        gap = floor - rtp
        sum_w2 = float(((bet / bet.sum()) ** 2).sum())
        p_value = 1.0 if gap <= 0 else min(1.0, math.exp(-gap * gap / (2.0 * theory.second_moment * sum_w2)))
        how = "conservative exponential bounds (Maurer lower, Bernstein upper) from the pay table"
    verdict = "PASS" if lower >= floor else "FAIL" if upper < floor else "INCONCLUSIVE"
    return TestResult(
        test="return to player against the floor",
        null_hypothesis=f"the machine returns at least {floor:.0%} of the amounts played ({CLAUSE})",
        statistic=rtp,
        p_value=p_value,
        sample_size=int(bet.size),
        method=f"one-sided tests at alpha = {alpha}, {how}",
        details={
            "clause": CLAUSE,
            "rtp": rtp,
            "floor": floor,
            "alpha": alpha,
            "lower_bound": lower,
            "upper_bound": upper,
            "verdict": verdict,
            "total_bet": float(bet.sum()),
            "total_won": float(win.sum()),
            "theoretical_rtp": None if theory is None else theory.rtp,
            **extra,
        },
    )


def rtp_consistency_test(
    bets: Sequence[float] | np.ndarray, wins: Sequence[float] | np.ndarray, theory: SlotTheory
) -> TestResult:
    """Does play agree with the declared pay plan? H0: the RTP equals the theoretical RTP.

    Two-sided normal test of R̂ against ``theory.rtp`` with the theoretical per-play variance:
    z = (R̂ − RTP) / (σ √Σw²). A machine whose play falls short of (or exceeds) its own math is not
    running the declared strips, pay table or random selection.
    """
    bet, win = _plays(bets, wins)
    weights = bet / bet.sum()
    rtp = float(win.sum() / bet.sum())
    se = math.sqrt(theory.variance * float((weights**2).sum()))
    z = (rtp - theory.rtp) / se if se > 0 else (0.0 if rtp == theory.rtp else math.inf)
    return TestResult(
        test="return to player against the pay table",
        null_hypothesis=f"the machine's return to player equals its theoretical {theory.rtp:.4%}",
        statistic=z,
        p_value=float(2.0 * stats.norm.sf(abs(z))),
        sample_size=int(bet.size),
        method="two-sided z-test with the pay table's per-play variance (normal approximation)",
        details={"clause": CLAUSE, "rtp": rtp, "theoretical_rtp": theory.rtp, "standard_error": se},
    )


def plays_needed(
    rtp: float, variance: float, *, floor: float = RTP_FLOOR, alpha: float = 0.01, power: float = 0.9
) -> int:
    """Plays (one fixed bet each) for the one-sided level-``alpha`` normal test to tell ``rtp`` from ``floor``.

    N = ((z_{1−α} + z_{power}) σ / |rtp − floor|)², σ² the per-play variance of the win per credit
    (:attr:`SlotTheory.variance`): with probability ``power`` a machine of RTP ``rtp`` > floor gets
    PASS (lower bound >= floor), or one of RTP ``rtp`` < floor gets FAIL.
    """
    _check_alpha(alpha)
    if not 0.0 < power < 1.0 or variance < 0 or rtp == floor:
        raise ValueError("need 0 < power < 1, a non-negative variance and rtp different from floor")
    z = float(stats.norm.isf(alpha) + stats.norm.isf(1.0 - power))
    return math.ceil((z * math.sqrt(variance) / abs(rtp - floor)) ** 2)
