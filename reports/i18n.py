"""The certificate's languages: gettext catalogues (compiled with Babel) and the words of recorded evidence.

The certificate is issued in Portuguese (the regulations' language) or English (``bench report --lang``).
Its messages are written in English in the template and the report modules (``_()`` / ``N_()``) and
translated through the ``certificate`` catalogue of ``reports/locale`` (``pt_PT``); English uses the
messages as written. The catalogue is maintained with Babel (``make locale``: ``pybabel extract`` with
``babel.cfg``, ``pybabel update``, ``pybabel compile``); the ``.po`` and the compiled ``.mo`` are committed.

Measurement names, units, methods and skip reasons are recorded in English by the suites. The
``recorded`` catalogue gives each its display text: keyed by the recorded text with every number,
clause id, quoted name and per cent sign replaced by ``{0}``, ``{1}``... (:func:`recorded_key`), so
``die 2 edge a`` and ``die 3 edge a`` share one entry, ``die {0} edge a``; a decimal number is written in the
language (``1.0 %`` reads ``1,0 %`` in Portuguese), a quoted name is translated in turn. Its English catalogue
gives a plainer name where the recorded one is terse (``nist sp800 22``: ``NIST SP 800-22 battery``),
its Portuguese one translates; a text the catalogue lacks is shown as recorded, and either way a
snake_case identifier in it is written as words (:func:`plain_words`).
"""

from __future__ import annotations

import gettext
import re
from functools import cache
from pathlib import Path

from babel.numbers import format_decimal
from babel.support import NullTranslations, Translations

LANGUAGES = ("pt", "en")
LOCALE_DIR = Path(__file__).with_name("locale")
CATALOGUE_LOCALES = {"pt": "pt_PT", "en": "en"}
CERTIFICATE_DOMAIN = "certificate"
RECORDED_DOMAIN = "recorded"

_PLACEHOLDER = re.compile(
    r"(?P<clause>\b[a-z0-9-]+(?:/[a-z0-9.-]+){2,3}\b)"  # a clause id
    r"|(?<!\w)'(?P<quoted>[^']+)'(?!\w)"  # a quoted name (not the apostrophes of "chance's ... rules'")
    r"|(?P<number>(?<![\w.])-?\d+(?:[.,]\d+)*(?![\w]))"  # a number standing alone
    r"|(?P<percent>%)"  # kept out of keys: gettext tools would read "% d" as a printf directive
)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue without translating it here (it is translated where shown)."""
    return message


def _check(lang: str) -> None:
    if lang not in LANGUAGES:
        raise ValueError(f"language {lang!r}: the certificate is written in {' or '.join(LANGUAGES)}")


@cache
def translations(lang: str, domain: str = CERTIFICATE_DOMAIN) -> gettext.NullTranslations:
    """The compiled catalogue of ``domain`` in ``lang`` (English certificate messages: as written)."""
    _check(lang)
    if lang == "en" and domain == CERTIFICATE_DOMAIN:
        return NullTranslations()
    found = Translations.load(str(LOCALE_DIR), [CATALOGUE_LOCALES[lang]], domain)
    if not isinstance(found, Translations):
        raise FileNotFoundError(f"{LOCALE_DIR}: no compiled {domain!r} catalogue for {CATALOGUE_LOCALES[lang]} "
                                "(run `make locale`)")
    return found


def recorded_key(text: str) -> tuple[str, list[str]]:
    """``text`` as its ``recorded`` catalogue key and the values its placeholders stand for."""
    values: list[str] = []

    def replace(match: re.Match[str]) -> str:
        values.append(match.group("quoted") or match.group(0))
        return ("'{%d}'" if match.group("quoted") else "{%d}") % (len(values) - 1)

    return _PLACEHOLDER.sub(replace, text), values


_DECIMAL = re.compile(r"-?\d+\.\d+")
_SNAKE_CASE = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")


def plain_words(text: str) -> str:
    """``text`` with every snake_case identifier written as words (``block_frequency`` -> ``block frequency``)."""
    return _SNAKE_CASE.sub(lambda match: match.group(0).replace("_", " "), text)


class RecordedText:
    """Display text of what the suites recorded in English, in one language (see the module docstring)."""

    def __init__(self, lang: str) -> None:
        _check(lang)
        self.lang = lang
        self.catalogue = translations(lang, RECORDED_DOMAIN)

    def known(self, text: str) -> bool:
        """Whether the catalogue has an entry for ``text``."""
        key, _ = recorded_key(text)
        return self.catalogue.gettext(key) != key or self._has_identity_entry(key)

    def _has_identity_entry(self, key: str) -> bool:
        return key in getattr(self.catalogue, "_catalog", {})

    def __call__(self, text: str) -> str:
        """The display text of ``text`` (as recorded when the catalogue has no entry for it)."""
        key, values = recorded_key(text)
        message = self.catalogue.gettext(key)
        if message == key and not self._has_identity_entry(key):
            return plain_words(text)
        shown = [self(value) if f"'{{{index}}}'" in key else self.number(value) for index, value in enumerate(values)]
        return message.format(*shown)

    def number(self, value: str) -> str:
        """A recorded decimal number (``1.0``) written in the language (``1,0`` in Portuguese), its places kept;
        any other value (a whole number, a clause id, a version ``1.2.3``) as recorded."""
        if self.lang == "en" or not _DECIMAL.fullmatch(value):
            return value
        places = len(value.split(".")[1])
        return format_decimal(float(value), format="0." + "0" * places, locale=CATALOGUE_LOCALES[self.lang])
