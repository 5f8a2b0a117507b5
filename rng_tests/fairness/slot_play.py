"""Testing that a slot machine plays its declared PAR sheet, from the totals its meters give.

p217-2007/maquinas-automaticas/2 sets the 80 % floor on the *design* (the exact theoretical return of the
declared strips and pay table, :func:`bench.games.slots.theoretical_rtp`). What play can check is
that the machine plays that sheet: over n plays the meters give only the total won, so the test is on the
total. H0: the n plays are independent plays of the declared PAR sheet. The statistic is the total won;
its exact distribution is the n-fold convolution of the per-play win distribution (by FFT), replaced by
the normal approximation with the PAR sheet's variance when the support grows too large. Two-sided at α;
power stated against a named alternative (a machine returning 78 %).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import fft, stats

from bench.games.slots import RTP_FLOOR, SlotTheory
from rng_tests.fairness.slots import plays_needed

ALTERNATIVE_RTP = 0.78
"""The named alternative of the play test's power: a machine returning 78 % (below the floor of /2)."""
EXACT_LIMIT = 20_000_000
"""Largest support (plays x largest win) for which the total's distribution is computed exactly (by FFT)."""


def total_win_distribution(theory: SlotTheory, credits_per_line: int, plays: int) -> np.ndarray:
    """P(total win = s credits), s = 0, 1, ..., over ``plays`` independent plays of the PAR sheet.

    The n-fold convolution of the per-play win distribution (exact rational probabilities from the strips),
    computed by FFT in floating point: absolute error about 1e-12, far below any α used.
    """
    wins = np.array([int(value * credits_per_line) for value in theory.win_counts], dtype=np.int64)
    counts = np.array(list(theory.win_counts.values()), dtype=float)
    pmf = np.zeros(int(wins.max()) + 1)
    np.add.at(pmf, wins, counts / theory.combinations)
    size = (pmf.size - 1) * plays + 1
    length = fft.next_fast_len(size, real=True)
    total = fft.irfft(fft.rfft(pmf, length) ** plays, length)[:size]
    return np.clip(total, 0.0, None)


def play_test(theory: SlotTheory, credits_per_line: int, plays: int, won: int, alpha: float) -> dict[str, Any]:
    """Two-sided test of H0: the machine pays as the PAR sheet says, from the total ``won`` (credits) over ``plays``.

    p = 2 min(P(S <= won), P(S >= won)) under the exact distribution of the total S of ``plays`` plays (normal
    approximation with the PAR sheet's variance when plays x largest win exceeds :data:`EXACT_LIMIT`). The
    confidence interval of the return is the normal one, R ± z(α/2) σ / √n with σ² the PAR sheet's per-play
    variance of the win per credit bet. Power against :data:`ALTERNATIVE_RTP` (10 points below the declared
    return when that is itself under 80 %): normal approximation, same variance.
    """
    bet = theory.bet_per_play * credits_per_line
    rtp = won / (plays * bet)
    se = math.sqrt(theory.variance / plays)
    largest = max(theory.win_counts) * credits_per_line
    if plays * largest <= EXACT_LIMIT:
        total = total_win_distribution(theory, credits_per_line, plays)
        lower, upper = float(total[: won + 1].sum()), float(total[won:].sum())
        how = "exact distribution of the total won over n plays (n-fold convolution of the PAR sheet's win)"
    else:
        z = (rtp - theory.rtp) / se
        lower, upper = float(stats.norm.cdf(z)), float(stats.norm.sf(z))
        how = "normal approximation with the PAR sheet's per-play variance (n too large for the exact sum)"
    p_value = min(1.0, 2.0 * min(lower, upper))
    z_half = float(stats.norm.isf(alpha / 2))
    alternative = ALTERNATIVE_RTP if theory.rtp >= RTP_FLOOR else theory.rtp - 0.10
    shift = abs(theory.rtp - alternative) / se
    power = float(stats.norm.sf(z_half - shift) + stats.norm.cdf(-z_half - shift))
    needed = math.ceil(((z_half + float(stats.norm.isf(0.1))) * math.sqrt(theory.variance)
                        / abs(theory.rtp - alternative)) ** 2)
    z_one = float(stats.norm.isf(alpha))
    floor_low, floor_high = rtp - z_one * se, rtp + z_one * se
    floor_verdict = "PASS" if floor_low >= RTP_FLOOR else "FAIL" if floor_high < RTP_FLOOR else "INCONCLUSIVE"
    details: dict[str, Any] = {
        "measured_rtp": rtp, "theoretical_rtp": theory.rtp, "standard_error": se,
        "confidence_interval": [rtp - z_half * se, rtp + z_half * se],
        "confidence_level": 1 - alpha, "confidence_method": "normal, per-play variance from the PAR sheet",
        "p_value_method": how, "total_won_credits": won, "total_bet_credits": plays * bet,
        "power_alternative": f"a machine returning {alternative:.2%} (variance as declared)",
        "plays_for_90pc_power": needed,
        "floor_test": {"note": "information only: the verdict of /2 rests on the exact theoretical return",
                       "one_sided_bounds": [floor_low, floor_high], "verdict": floor_verdict,
                       "plays_to_demonstrate_80pc": (plays_needed(theory.rtp, theory.variance, alpha=alpha)
                                                     if theory.rtp != RTP_FLOOR else None)},
    }
    if power < 0.8:
        details["limit"] = (f"power {power:.2f} against {alternative:.0%}: this sample cannot show that the machine "
                            f"plays its PAR sheet rather than one returning {alternative:.0%} ({needed:,} plays "
                            "would give 0.9); it can only reject gross departures")
    details |= {"rtp": rtp, "lower_bound": rtp - z_half * se, "upper_bound": rtp + z_half * se,
                "floor": RTP_FLOOR}  # the certificate's RTP plot: the interval against the 80 % floor
    return {"rtp": rtp, "p_value": p_value, "power": power, "details": details}
