"""Numbers, quantities, percentages, p-values, money and dates as a reader of the certificate expects them.

One :class:`Formatter` per language, through Babel's CLDR data: ``560,5 mm`` and ``27 de novembro de 2026``
in Portuguese (pt_PT), ``560.5 mm`` and ``November 27, 2026`` in English. A measured quantity is shown as
its value with the expanded uncertainty, rounded to two significant digits of the uncertainty (GUM 7.2.6),
against the regulation's own limit (``560,5 ± 3,3 mm``, limit ``500–600 mm``); a p-value below 0.0001 as
``< 0,0001``; a return or a rate as a percentage.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

from babel.dates import format_date, format_datetime
from babel.numbers import format_currency, format_decimal, format_percent
from babel.units import format_unit

LOCALES = {"pt": "pt_PT", "en": "en"}
"""The Babel locale of each certificate language."""
P_VALUE_FLOOR = 0.0001
"""p-values below this are shown as ``< 0.0001``."""
COVERAGE_DECIMALS = 2
"""Decimal places of a coverage factor shown beside an expanded uncertainty."""
COVERAGE_PERCENT = 95
"""The coverage probability the bench's expanded uncertainties are stated for (two-sided, about 95 %)."""
SIGNIFICANT_DIGITS = 4
"""Significant digits of a value shown without an uncertainty."""


def _decimals_for(value: float, significant: int) -> int:
    """Decimal places that keep ``significant`` digits of ``value`` (none for a whole number of that size)."""
    if value == 0 or not math.isfinite(value):
        return 0
    return max(0, significant - 1 - math.floor(math.log10(abs(value))))


class Formatter:
    """The certificate's number, quantity and date formats in one language (``pt`` or ``en``)."""

    def __init__(self, lang: str) -> None:
        if lang not in LOCALES:
            raise ValueError(f"language {lang!r}: use one of {', '.join(LOCALES)}")
        self.lang = lang
        self.locale = LOCALES[lang]

    def decimal(self, value: float, decimals: int | None = None) -> str:
        """``value`` with ``decimals`` places (default: :data:`SIGNIFICANT_DIGITS` significant digits)."""
        if isinstance(value, bool):
            raise TypeError("a truth value is not a number")
        if isinstance(value, int) and decimals is None:
            return format_decimal(value, format="#,##0", locale=self.locale)
        if not math.isfinite(value):
            return "∞" if value > 0 else ("−∞" if value < 0 else "—")
        places = _decimals_for(float(value), SIGNIFICANT_DIGITS) if decimals is None else decimals
        places = min(places, 8)
        pattern = "#,##0" + ("." + "0" * places if decimals is not None and places else "." + "#" * places
                             if places else "")
        return format_decimal(round(float(value), places), format=pattern, locale=self.locale)

    def percent(self, fraction: float, decimals: int = 2) -> str:
        """A fraction (0.9039) as a percentage (``90,39 %``)."""
        pattern = "#,##0" + ("." + "0" * decimals if decimals else "") + " %"
        return format_percent(fraction, format=pattern, locale=self.locale)

    def p_value(self, p: float, alpha: float | None = None) -> str:
        """``< 0,0001`` below :data:`P_VALUE_FLOOR`, else two significant digits (``0,43``, ``0,0012``), more when
        two would round ``p`` to the other side of ``alpha`` (0.00998 against 0.01 reads ``0,00998``)."""
        if p < P_VALUE_FLOOR:
            return "< " + self.decimal(P_VALUE_FLOOR, 4)
        significant = 2
        while alpha is not None and significant < 6 and (p < alpha) != (
                round(p, _decimals_for(p, significant)) < alpha):
            significant += 1
        places = max(_decimals_for(p, significant), 2 if significant == 2 else 0)
        return self.decimal(p, min(places, 8) if significant > 2 else min(4, places))

    def money_cents(self, cents: float) -> str:
        """An amount in euro cents as euros (``10 000,00 €`` / ``€10,000.00``)."""
        return format_currency(cents / 100, "EUR", locale=self.locale)

    def megabytes(self, size: int) -> str:
        """A size in bytes as megabytes (``78,2 MB``)."""
        return format_unit(round(size / 1_000_000, 1), "digital-megabyte", length="short", locale=self.locale)

    def with_uncertainty(self, value: float, uncertainty: float, unit: str = "", coverage_k: float | None = None
                         ) -> str:
        """``560,5 ± 3,3 mm``: the uncertainty to two significant digits, the value to the same place. An expanded
        uncertainty whose coverage factor is not 2 (a Student-t factor for few degrees of freedom) states it and
        its coverage plainly, as recorded, never rescaled: ``560,5 ± 3,3 mm (k = 2,12; 95 %)`` (GUM 7.2.3)."""
        places = min(8, _decimals_for(uncertainty, 2)) if uncertainty > 0 else 1
        text = f"{self.decimal(value, places)} ± {self.decimal(uncertainty, places)}"
        text = f"{text} {unit}".strip()
        if coverage_k is not None and round(coverage_k, COVERAGE_DECIMALS) != 2:
            text += f" (k = {self.decimal(coverage_k, COVERAGE_DECIMALS)}; {COVERAGE_PERCENT} %)"
        return text

    def span(self, low: float, high: float, unit: str = "") -> str:
        """A closed interval as ``500–600 mm``."""
        return f"{self.decimal(low)}–{self.decimal(high)} {unit}".strip()

    def date(self, value: str | datetime) -> str:
        """A day in words: ``27 de novembro de 2026`` / ``November 27, 2026``."""
        moment = _moment(value)
        return format_date(moment, format="long", locale=self.locale) if moment else str(value)

    def datetime(self, value: str | datetime) -> str:
        """A moment in UTC: the day in words and the time (``27 de novembro de 2026, 10:02 UTC``)."""
        moment = _moment(value)
        if moment is None:
            return str(value)
        time = format_datetime(moment, format="HH:mm", tzinfo=UTC, locale=self.locale)
        return f"{self.date(moment)}, {time} UTC"


    def period(self, first: str | datetime, last: str | datetime) -> str:
        """Two moments of one day as ``27/11/2026, 09:58–10:01 UTC`` (else both in full)."""
        start, end = _moment(first), _moment(last)
        if start is None or end is None or start.date() != end.date():
            return f"{self.datetime(first)} — {self.datetime(last)}"
        day = format_date(start, format="medium", locale=self.locale)
        times = [format_datetime(moment, format="HH:mm", tzinfo=UTC, locale=self.locale) for moment in (start, end)]
        return f"{day}, {times[0]}–{times[1]} UTC"


def _moment(value: str | datetime) -> datetime | None:
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(str(value))
        except ValueError:
            return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
