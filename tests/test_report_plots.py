"""The certificate's plots: valid images from well-formed data, clear errors from malformed data,
and the bands they draw hold the statistics they claim."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from PIL import Image

from bench.games.roulette_layout import FRENCH_ORDER
from reports import plots

RNG_SEED = 20260101


def _is_svg(content: bytes) -> bool:
    return ET.fromstring(content).tag.endswith("svg")


def _series() -> dict[str, dict]:
    rng = np.random.default_rng(RNG_SEED)
    counts = rng.multinomial(3700, np.full(37, 1 / 37)).tolist()
    return {
        "pockets": {"order": list(FRENCH_ORDER), "counts": counts, "alpha": 0.01},
        "sectors": {"order": list(FRENCH_ORDER), "counts": counts, "alpha": 0.01},
        "dice": {"faces": rng.integers(1, 7, size=(120, 3)).tolist(), "alpha": 0.01},
        "cards": {"counts": rng.multinomial(208, np.full(8, 1 / 8), size=8).tolist()},
        "sequential": {"n": [10, 20, 30], "log_lr": [0.2, -0.5, 1.0], "upper": 4.6, "lower": -2.3},
        "jackpot": {"bets_cents": [0, 1000, 2000], "value_cents": [100000, 100700, 101400], "start_cents": 100000,
                    "increment_percent": 70.0},
        "rtp": {"rtp": 0.83, "low": 0.81, "high": 0.85, "floor": 0.8},
    }


@pytest.mark.parametrize("name", list(plots.PLOTS))
def test_every_plot_renders_svg_and_png(name: str) -> None:
    series = _series()[name]
    svg = plots.render(name, series)
    assert _is_svg(svg) and b"<dc:date>" not in svg  # no date: the same data gives the same bytes
    assert plots.render(name, series) == svg
    png = plots.render(name, series, "png")
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.width > 300
    assert np.asarray(image.convert("L")).std() > 5  # something is drawn


def test_unknown_plot_format_and_malformed_data_are_errors() -> None:
    with pytest.raises(ValueError, match="no plot 'pie'"):
        plots.render("pie", {})
    with pytest.raises(ValueError, match="plot format"):
        plots.pocket_frequencies([0, 1], [3, 4], fmt="gif")
    with pytest.raises(ValueError, match="one count per pocket"):
        plots.pocket_frequencies([0, 1, 2], [3, 4])
    with pytest.raises(ValueError, match="faces must lie in 1..6"):
        plots.die_faces([[0, 3]])
    with pytest.raises(ValueError, match="outside its interval"):
        plots.rtp_interval(0.9, 0.7, 0.8)
    with pytest.raises(ValueError, match="sector width"):
        plots.sector_z([1] * 37, 37)
    with pytest.raises(ValueError, match="alpha"):
        plots.pocket_frequencies([0, 1], [3, 4], alpha=0.0)


def test_sector_z_is_the_standardised_count_of_adjacent_pockets() -> None:
    counts = np.arange(37, dtype=float)
    z = plots.sector_z(counts, 3)
    n, share = counts.sum(), 3 / 37
    expected_first = (0 + 1 + 2 - n * share) / np.sqrt(n * share * (1 - share))
    expected_wrap = (35 + 36 + 0 - n * share) / np.sqrt(n * share * (1 - share))
    assert z.size == 37 and z[0] == pytest.approx(expected_first) and z[35] == pytest.approx(expected_wrap)


def test_binomial_band_holds_a_fair_wheel_with_the_stated_probability() -> None:
    """Simultaneous band at α = 0.05 over 37 pockets: a fair wheel has every pocket inside with probability
    ≥ 0.95 (Bonferroni). 2,000 simulated wheels, seed fixed: coverage below 0.93 would be a 4-sigma event if
    the band held, so the check is deterministic and meaningful."""
    rng = np.random.default_rng(RNG_SEED)
    low, high = plots.binomial_band(3700, 1 / 37, 0.05, 37)
    samples = rng.multinomial(3700, np.full(37, 1 / 37), size=2000)
    inside = np.all((samples >= low) & (samples <= high), axis=1).mean()
    assert inside >= 0.93
    assert low < 100 < high
    biased = np.full(37, 1.0)
    biased[:9] = 1.6
    counts = rng.multinomial(3700, biased / biased.sum())
    assert np.any(counts > high)  # the plot shows a strongly biased sector outside the band
