"""The run's plots, drawn once per language for every page that shows them.

:func:`figures` draws every plot the run's evidence has data for (:mod:`reports.plots`), as inline
SVG data URIs; the certificate (:mod:`reports.certificate`) shows them and
:mod:`reports.allure_evidence` attaches them to the run's allure results.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

from reports import plots
from reports.i18n import translations
from reports.run_data import RunData

PLOT_ORDER = ("pockets", "sectors", "dice", "cards", "sequential", "jackpot", "rtp")


@dataclass(frozen=True)
class Figure:
    """One rendered plot: anchor, title key, caption, image data URI (or the reason it could not be drawn)."""

    anchor: str
    name: str
    caption: str
    clauses: list[str]
    measurement_anchor: str
    data_uri: str
    error: str = ""


def data_uri(content: bytes, media_type: str) -> str:
    """``content`` as a ``data:`` URI (base64), for a self-contained page."""
    return f"data:{media_type};base64,{base64.b64encode(content).decode('ascii')}"


def figures(data: RunData, lang: str = "en") -> list[Figure]:
    """Every plot the run has data for, in a fixed order, its words in ``lang``."""
    _ = translations(lang).gettext
    rendered = []
    for name in PLOT_ORDER:
        for index, entry in enumerate(data.series.get(name, [])):
            anchor = f"plot-{name}-{index + 1}"
            try:
                uri, error = data_uri(plots.render(name, entry, _=_), "image/svg+xml"), ""
            except ValueError as problem:  # malformed data in the journal: say so instead of hiding the plot
                uri, error = "", str(problem)
            rendered.append(Figure(anchor, name, entry.get("title", name), list(entry.get("clauses", [])),
                                   entry.get("anchor") or entry.get("anchor_measurement", ""), uri, error))
    return rendered
