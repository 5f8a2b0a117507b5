"""One measurement as a reader sees it: a plain caption, a value with its unit (and uncertainty), the
regulation's limit, and a note with the method and its statistical parameters.

The values are the journal's (:class:`reports.run_data.ReportedMeasurement`); only their presentation is
decided here: a length with its expanded uncertainty against the limits the clause states
(``fixtures/dimensions.py`` records them in ``details``), an amount in cents as euros, a return as a
percentage, a test with a p-value by its p-value (the statistic goes to the note), a count with its unit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.evidence import RtpInterval
from reports.formatting import Formatter
from reports.i18n import RecordedText
from reports.run_data import ReportedMeasurement

Translate = Callable[[str], str]

VALUE_LIMIT = 40
"""Characters of a recorded text value shown (the journal keeps it whole)."""


@dataclass(frozen=True)
class MeasurementView:
    """What the certificate prints for one measurement."""

    anchor: str
    caption: str
    value: str
    limit: str
    note: str
    method: str
    passed: bool


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_fraction_of_return(measurement: ReportedMeasurement) -> bool:
    """A return or rate recorded as a fraction (0.9039): shown as a percentage."""
    if measurement.unit not in (None, "", "fraction", "ratio") or not _is_number(measurement.value):
        return False
    if any(isinstance(entry, RtpInterval) for entry in measurement.series):
        return True
    name = measurement.name.lower()
    return ("return" in name or "rate" in name) and 0 <= float(measurement.value) <= 2


_RECORDED_K = re.compile(r"\bk = (\d+(?:\.\d+)?)\b")


def coverage_factor(measurement: ReportedMeasurement) -> float | None:
    """The coverage factor k of a length's expanded uncertainty as recorded (``details.coverage_k``; a journal
    written before that detail states it in the method: "U = k u with k = 2.12035"); None when not recorded."""
    recorded = measurement.details.get("coverage_k")
    if _is_number(recorded):
        return float(recorded)
    found = _RECORDED_K.search(measurement.method or "")
    return float(found.group(1)) if found else None


class MeasurementPresenter:
    """Builds :class:`MeasurementView` in one language."""

    def __init__(self, lang: str, _: Translate) -> None:
        self.f = Formatter(lang)
        self.recorded = RecordedText(lang)
        self._ = _

    def unit(self, unit: str | None) -> str:
        return self.recorded(unit) if unit else ""

    def amount(self, measurement: ReportedMeasurement, value: float) -> str:
        """``value`` in the measurement's unit (cents as euros, a return as a percentage)."""
        if measurement.unit == "cents":
            return self.f.money_cents(value)
        if is_fraction_of_return(measurement):
            return self.f.percent(value)
        if measurement.unit == "%":
            return f"{self.f.decimal(value)} %"
        return f"{self.f.decimal(value)} {self.unit(measurement.unit)}".strip()

    def p_text(self, p_value: float, alpha: float | None = None) -> str:
        """``p = 0,43`` or ``p < 0,0001`` (as many digits as tell it from ``alpha``)."""
        shown = self.f.p_value(p_value, alpha)
        return f"p {shown}" if shown.startswith("<") else f"p = {shown}"

    def value(self, measurement: ReportedMeasurement) -> str:
        _ = self._
        value = measurement.value
        uncertainty = measurement.details.get("expanded_uncertainty_mm")
        if measurement.unit == "mm" and _is_number(value) and _is_number(uncertainty):
            return self.f.with_uncertainty(float(value), float(uncertainty), "mm", coverage_factor(measurement))
        if measurement.p_value is not None and (measurement.unit in (None, "") or not _is_number(value)) \
                and not is_fraction_of_return(measurement):
            return self.p_text(measurement.p_value, measurement.alpha)
        if isinstance(value, bool):
            return _("yes") if value else _("no")
        if _is_number(value):
            return self.amount(measurement, value)
        text = self.recorded(str(value)) if isinstance(value, str) else str(value)
        return text if len(text) <= VALUE_LIMIT else text[: VALUE_LIMIT - 1] + "…"

    def limit(self, measurement: ReportedMeasurement) -> str:
        """The regulation's limit (for a guarded length, the clause's own limits, not the narrowed zone)."""
        _ = self._
        if measurement.p_value is not None and measurement.alpha is not None:
            return _("p ≥ {alpha}").format(alpha=self.f.decimal(measurement.alpha))
        low, high = measurement.low, measurement.high
        stated = measurement.details.get("limits_mm")
        if isinstance(stated, list) and len(stated) == 2:
            low, high = stated
        if low is not None and low == high:
            return f"= {self.amount(measurement, low)}"
        if low is not None and high is not None:
            return _("{low} to {high}").format(low=self.amount(measurement, low), high=self.amount(measurement, high))
        if low is not None:
            return f"≥ {self.amount(measurement, low)}"
        if high is not None:
            return f"≤ {self.amount(measurement, high)}"
        if measurement.expected is not None:
            expected = measurement.expected
            if isinstance(expected, bool):
                return "= " + (_("yes") if expected else _("no"))
            if _is_number(expected):
                return f"= {self.amount(measurement, expected)}"
            text = self.recorded(str(expected))
            return "= " + (text if len(text) <= VALUE_LIMIT else text[: VALUE_LIMIT - 1] + "…")
        return ""

    def statistics(self, measurement: ReportedMeasurement) -> str:
        """Sample size, statistic, significance level and power, in words."""
        _ = self._
        parts = []
        if measurement.sample_size is not None:
            parts.append(f"n = {self.f.decimal(measurement.sample_size)}")
        if measurement.p_value is not None and _is_number(measurement.value) and not measurement.unit:
            parts.append(_("test statistic {value}").format(value=self.f.decimal(measurement.value)))
        if measurement.p_value is not None and is_fraction_of_return(measurement):
            parts.append(self.p_text(measurement.p_value, measurement.alpha))
        if measurement.alpha is not None:
            parts.append(f"α = {self.f.decimal(measurement.alpha)}")
        if measurement.power is not None:
            power = _("power {power}").format(power=self.f.percent(measurement.power, 0))
            if measurement.power_alternative:
                power += " " + _("against {alternative}").format(
                    alternative=self.recorded(measurement.power_alternative))
            parts.append(power)
        if measurement.unit == "mm" and measurement.details.get("expanded_uncertainty_mm") is not None:
            parts.append(_("uncertainty U = k·u at about 95 %; accepted only when the whole interval is within the "
                           "limit"))
        return "; ".join(parts)

    def view(self, measurement: ReportedMeasurement) -> MeasurementView:
        return MeasurementView(
            anchor=measurement.anchor, caption=self.recorded(measurement.name), value=self.value(measurement),
            limit=self.limit(measurement), note=self.statistics(measurement),
            method=self.recorded(measurement.method) if measurement.method else "", passed=measurement.passed)

