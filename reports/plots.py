"""The certificate's plots (matplotlib, Agg backend): one function per plot, each returning image bytes.

Every function takes plain numbers (the series :mod:`reports.run_data` reads
from the journal, shapes in its docstring), and ``_`` to translate its words, and returns SVG
(default) or PNG bytes; the SVG carries no date, so the same data gives the same bytes. Bands and
boundaries are the statistics' own, stated in each docstring:

* pocket and die-face bands: Bonferroni-simultaneous (1 − α) binomial bands of
  fair equipment (every bar of a fair wheel or die lies inside its band with
  probability at least 1 − α);
* sector statistic: z of the count in each run of ``width`` adjacent pockets,
  against the two-sided Bonferroni bound over the 37 sectors (conservative, the
  sectors overlap);
* card-by-position: standardised residuals (O − E)/√E of the count table;
* sequential path: log-likelihood ratio against log(1/α) (reject H0) and
  log(β) (accept H0), :class:`rng_tests.sequential.SequentialTest`;
* jackpot: displayed value against start + increment × amount bet
  (p461-2001/poquer-sem-descarte/9 style increments);
* RTP: the (1 − α) interval of the return against the 80 % floor of
  p217-2007/maquinas-automaticas/2.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from scipy import stats

matplotlib.rcParams.update({"svg.hashsalt": "bench-certificate", "svg.fonttype": "path", "font.size": 9,
                            "axes.titlesize": 10, "figure.dpi": 100})

PASS_COLOUR, FAIL_COLOUR, BAND_COLOUR, LINE_COLOUR = "#3a7d44", "#c0392b", "#d6e4f0", "#1f4e79"

Translate = Callable[[str], str]
"""A plot's words go through ``_`` (the certificate's gettext catalogue, :mod:`reports.i18n`); English as written
by default."""


def as_written(message: str) -> str:
    """The English message itself (no translation)."""
    return message


def _encode(figure: Figure, fmt: str) -> bytes:
    if fmt not in ("svg", "png"):
        raise ValueError(f"plot format {fmt!r}: use 'svg' or 'png'")
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {}
    figure.savefig(buffer, format=fmt, bbox_inches="tight", metadata=metadata, dpi=150 if fmt == "png" else None)
    plt.close(figure)
    return buffer.getvalue()


def _legend_below(axes: Any, offset: float = -0.3) -> None:
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, offset), ncol=3, fontsize=7, frameon=False)


def _check_alpha(alpha: float) -> float:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha {alpha!r} must lie strictly between 0 and 1")
    return float(alpha)


def binomial_band(n: int, p: float, alpha: float, cells: int) -> tuple[float, float]:
    """Counts (low, high) such that each of ``cells`` Binomial(n, p) counts lies in [low, high] with
    probability ≥ 1 − α/cells (two-sided, Bonferroni): all of them together with probability ≥ 1 − α."""
    level = _check_alpha(alpha) / (2 * cells)
    return float(stats.binom.ppf(level, n, p)), float(stats.binom.isf(level, n, p))


def pocket_frequencies(order: Sequence[int], counts: Sequence[int], alpha: float = 0.01, fmt: str = "svg",
                       _: Translate = as_written) -> bytes:
    """Count of every pocket in wheel order, the expected count n/K and the simultaneous (1 − α) band."""
    counts_array = np.asarray(counts, dtype=float)
    if counts_array.ndim != 1 or len(order) != counts_array.size or counts_array.size < 2:
        raise ValueError(f"pocket counts: need one count per pocket in wheel order, got {len(order)} pockets and "
                         f"{counts_array.size} counts")
    pockets, n = counts_array.size, int(counts_array.sum())
    low, high = binomial_band(n, 1 / pockets, alpha, pockets)
    outside = (counts_array < low) | (counts_array > high)
    figure, axes = plt.subplots(figsize=(9, 3))
    axes.axhspan(low, high, color=BAND_COLOUR, label=_("simultaneous {level} band (fair wheel)").format(level=f"{1 - alpha:.0%}"))
    axes.axhline(n / pockets, color=LINE_COLOUR, linewidth=1, label=_("expected n/{pockets} = {mean}").format(pockets=pockets, mean=f"{n / pockets:.1f}"))
    axes.bar(range(pockets), counts_array, color=np.where(outside, FAIL_COLOUR, PASS_COLOUR), width=0.8)
    axes.set_xticks(range(pockets), [str(number) for number in order], fontsize=7)
    axes.set_xlabel(_("pocket, in wheel order from 0 (clockwise)"))
    axes.set_ylabel(_("spins"))
    axes.set_title(_("Pocket frequencies, n = {n}").format(n=n))
    _legend_below(axes)
    return _encode(figure, fmt)


def sector_z(counts: Sequence[int], width: int) -> np.ndarray:
    """z-score of the count in each run of ``width`` adjacent pockets (circular, starting at each pocket)."""
    counts_array = np.asarray(counts, dtype=float)
    pockets = counts_array.size
    if not 1 <= width < pockets:
        raise ValueError(f"sector width {width} must be between 1 and {pockets - 1}")
    n = counts_array.sum()
    if n <= 0:
        raise ValueError("sector statistic of an empty sample")
    sums = np.convolve(np.concatenate([counts_array, counts_array[: width - 1]]), np.ones(width), mode="valid")
    share = width / pockets
    return (sums - n * share) / np.sqrt(n * share * (1 - share))


def sector_statistic(order: Sequence[int], counts: Sequence[int], width: int = 9, alpha: float = 0.01,
                     fmt: str = "svg", _: Translate = as_written) -> bytes:
    """z of each ``width``-pocket sector along the wheel against the two-sided Bonferroni bound over the sectors."""
    z = sector_z(counts, width)
    bound = float(stats.norm.isf(_check_alpha(alpha) / (2 * z.size)))
    figure, axes = plt.subplots(figsize=(9, 2.8))
    axes.axhspan(-bound, bound, color=BAND_COLOUR, label=_("|z| ≤ {bound} (α = {alpha}, Bonferroni over {sectors} sectors)").format(
        bound=f"{bound:.2f}", alpha=f"{alpha:g}", sectors=z.size))
    axes.plot(range(z.size), z, marker="o", markersize=3, color=LINE_COLOUR)
    flagged = np.abs(z) > bound
    axes.plot(np.flatnonzero(flagged), z[flagged], "o", color=FAIL_COLOUR, markersize=5)
    axes.axhline(0, color="#888", linewidth=0.6)
    axes.set_xticks(range(z.size), [str(number) for number in order], fontsize=7)
    axes.set_xlabel(_("first pocket of the {width}-pocket sector (clockwise)").format(width=width))
    axes.set_ylabel("z")
    axes.set_title(_("Sector statistic along the wheel ({width} adjacent pockets)").format(width=width))
    _legend_below(axes)
    return _encode(figure, fmt)


def die_faces(faces: Sequence[Sequence[int]], alpha: float = 0.01, sides: int = 6, fmt: str = "svg",
              _: Translate = as_written) -> bytes:
    """Histogram of the faces of each die position, expected n/6 and the simultaneous (1 − α) band."""
    array = np.asarray(faces, dtype=np.int64)
    if array.ndim != 2 or array.size == 0:
        raise ValueError("die faces: need a (throws, dice) table of faces")
    if array.min() < 1 or array.max() > sides:
        raise ValueError(f"die faces must lie in 1..{sides}, got {array.min()}..{array.max()}")
    throws, dice = array.shape
    low, high = binomial_band(throws, 1 / sides, alpha, sides * dice)
    figure, axes_list = plt.subplots(1, dice, figsize=(min(9, 3 * dice), 2.8), sharey=True, squeeze=False,
                                     layout="constrained")
    for position, axes in enumerate(axes_list[0]):
        counts = np.bincount(array[:, position], minlength=sides + 1)[1:]
        outside = (counts < low) | (counts > high)
        axes.axhspan(low, high, color=BAND_COLOUR)
        axes.axhline(throws / sides, color=LINE_COLOUR, linewidth=1)
        axes.bar(range(1, sides + 1), counts, color=np.where(outside, FAIL_COLOUR, PASS_COLOUR))
        axes.set_xticks(range(1, sides + 1))
        axes.set_title(_("die {number}").format(number=position + 1))
        axes.set_xlabel(_("face"))
    axes_list[0][0].set_ylabel(_("throws"))
    figure.suptitle(_("Faces per die, n = {n} throws; band: simultaneous {level} (fair dice)").format(
        n=throws, level=f"{1 - alpha:.0%}"), fontsize=9)
    return _encode(figure, fmt)


def card_position_heatmap(counts: Sequence[Sequence[float]], fmt: str = "svg", block: int = 1,
                          _: Translate = as_written) -> bytes:
    """Standardised residuals (O − E)/√E of the card-by-position table (E from its margins); ``block`` cards per
    row and column when positions are grouped."""
    table = np.asarray(counts, dtype=float)
    if table.ndim != 2 or min(table.shape) < 2:
        raise ValueError("card-by-position counts: need a 2-D table of at least 2 x 2")
    total = table.sum()
    if total <= 0:
        raise ValueError("card-by-position counts are all zero")
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / total
    with np.errstate(divide="ignore", invalid="ignore"):
        residual = np.where(expected > 0, (table - expected) / np.sqrt(expected), 0.0)
    limit = max(3.0, float(np.abs(residual).max()))
    figure, axes = plt.subplots(figsize=(5.5, 4.6))
    image = axes.imshow(residual, cmap="RdBu_r", vmin=-limit, vmax=limit, aspect="auto", interpolation="nearest")
    figure.colorbar(image, ax=axes, label="(O − E)/√E")
    grouped = _(" (blocks of {block})").format(block=block) if block > 1 else ""
    axes.set_xlabel(_("position after the shuffle") + grouped)
    axes.set_ylabel(_("card (position before)") + grouped)
    axes.set_title(_("Card by position, {shuffles} shuffles").format(shuffles=round(total / (table.shape[0] * block))))
    return _encode(figure, fmt)


def sequential_path(n: Sequence[int], log_lr: Sequence[float], upper: float, lower: float | None = None,
                    fmt: str = "svg", _: Translate = as_written) -> bytes:
    """The sequential test's log-likelihood ratio against its boundaries log(1/α) and log(β)."""
    x, y = np.asarray(n, dtype=float), np.asarray(log_lr, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or x.size == 0:
        raise ValueError("sequential path: n and log_lr must be equal-length non-empty sequences")
    figure, axes = plt.subplots(figsize=(7, 3))
    axes.plot(x, y, color=LINE_COLOUR, linewidth=1.2, label=_("log likelihood ratio"))
    axes.axhline(upper, color=FAIL_COLOUR, linestyle="--", label=_("reject H0: log(1/α) = {value}").format(value=f"{upper:.2f}"))
    if lower is not None:
        axes.axhline(lower, color=PASS_COLOUR, linestyle="--", label=_("accept H0: log(β) = {value}").format(value=f"{lower:.2f}"))
    axes.set_xlabel(_("outcomes"))
    axes.set_ylabel("log L")
    axes.set_title(_("Sequential test path"))
    axes.legend(loc="best", fontsize=7)
    return _encode(figure, fmt)


def jackpot_over_time(bets_cents: Sequence[float], value_cents: Sequence[float], start_cents: float,
                      increment_percent: float, fmt: str = "svg", _: Translate = as_written) -> bytes:
    """The displayed jackpot against start + increment % × cumulative amount bet."""
    bets, values = np.asarray(bets_cents, dtype=float), np.asarray(value_cents, dtype=float)
    if bets.ndim != 1 or bets.shape != values.shape or bets.size == 0:
        raise ValueError("jackpot series: bets_cents and value_cents must be equal-length non-empty sequences")
    expected = start_cents + bets * increment_percent / 100.0
    figure, axes = plt.subplots(figsize=(7, 3))
    axes.plot(bets / 100, expected / 100, color=LINE_COLOUR, linestyle="--",
              label=_("expected: start + {percent} of bets").format(percent=f"{increment_percent:g} %"))
    axes.plot(bets / 100, values / 100, color=PASS_COLOUR, marker=".", markersize=3, linewidth=1,
              label=_("displayed value"))
    off = np.abs(values - expected) >= 1.0
    if off.any():
        axes.plot(bets[off] / 100, values[off] / 100, "o", color=FAIL_COLOUR, markersize=4,
                  label=_("{count} reading(s) off by ≥ 1 cent").format(count=int(off.sum())))
    axes.set_xlabel(_("cumulative amount bet (€)"))
    axes.set_ylabel("jackpot (€)")
    axes.set_title(_("Jackpot value over the bets"))
    axes.legend(loc="best", fontsize=7)
    return _encode(figure, fmt)


def rtp_interval(rtp: float, low: float, high: float, floor: float = 0.80, fmt: str = "svg",
                 _: Translate = as_written) -> bytes:
    """The return to player with its confidence interval against the floor."""
    if not low <= rtp <= high:
        raise ValueError(f"RTP {rtp} outside its interval [{low}, {high}]")
    figure, axes = plt.subplots(figsize=(7, 1.6))
    colour = PASS_COLOUR if low >= floor else FAIL_COLOUR if high < floor else "#d68910"
    axes.errorbar([rtp * 100], [0], xerr=[[(rtp - low) * 100], [(high - rtp) * 100]], fmt="o", color=colour,
                  capsize=6, linewidth=2, label=_("return {rtp} [{low}, {high}]").format(
                      rtp=f"{rtp:.2%}", low=f"{low:.2%}", high=f"{high:.2%}"))
    axes.axvline(floor * 100, color=FAIL_COLOUR, linestyle="--", label=_("floor {percent}").format(percent=f"{floor:.0%}"))
    axes.set_yticks([])
    span = max(high - low, 0.02)
    axes.set_xlim(100 * (min(low, floor) - span / 2), 100 * (max(high, floor) + span / 2))
    axes.set_xlabel(_("return to player (%)"))
    _legend_below(axes, -0.45)
    return _encode(figure, fmt)


PLOTS: dict[str, Callable[[dict[str, Any], str, Translate], bytes]] = {
    "pockets": lambda s, fmt, _: pocket_frequencies(s["order"], s["counts"], s["alpha"], fmt, _),
    "sectors": lambda s, fmt, _: sector_statistic(s["order"], s["counts"], 9, s["alpha"], fmt, _),
    "dice": lambda s, fmt, _: die_faces(s["faces"], s["alpha"] or 0.01, fmt=fmt, _=_),
    "cards": lambda s, fmt, _: card_position_heatmap(s["counts"], fmt, int(s.get("block", 1)), _),
    "sequential": lambda s, fmt, _: sequential_path(s["n"], s["log_lr"], s["upper"], s["lower"], fmt, _),
    "jackpot": lambda s, fmt, _: jackpot_over_time(s["bets_cents"], s["value_cents"], s["start_cents"],
                                                   s["increment_percent"], fmt, _),
    "rtp": lambda s, fmt, _: rtp_interval(s["rtp"], s["low"], s["high"], s["floor"], fmt, _),
}
"""Plot name (a :attr:`reports.run_data.RunData.series` key) -> function of one series entry."""


def render(name: str, series: dict[str, Any], fmt: str = "svg", _: Translate = as_written) -> bytes:
    """The plot ``name`` of one series entry, its words translated by ``_``; ValueError for an unknown plot or
    malformed data."""
    if name not in PLOTS:
        raise ValueError(f"no plot {name!r} (have: {', '.join(PLOTS)})")
    return PLOTS[name](series, fmt, _)
