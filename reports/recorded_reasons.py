"""Reasons and notes the bench recorded in English, in the certificate's language.

A test that did not finish journals why ("device lost: /dev/ttyUSB1: result of game 12 failed after 3
attempt(s): attempt 1: no reply within 2 s; …", "not enough read: 4 spins could not be read from wheel; …",
:mod:`fixtures.incomplete`), a skipped test its reason, a serial link notes what it did in its wire log
("got 19 of 64 byte(s) before the timeout"). These are sentences the bench itself composes from parts:
:data:`TEMPLATES` knows each composed shape (matched whole, its parts translated in turn, a port or device
name kept as recorded, a count written as a number of the language), and the ``recorded`` catalogue
(:class:`reports.i18n.RecordedText`) each part that is a plain sentence with numbers in it. Sentences joined
by "; " are translated one by one.

What the bench did not write (the message of an exception a library raised, a reply a device sent) has no
entry: it is shown verbatim, marked as the original record in the certificate's words. In English a recorded
text is shown as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from reports.formatting import Formatter
from reports.i18n import N_, RecordedText

Translate = Callable[[str], str]


@dataclass(frozen=True)
class Template:
    """A sentence the bench composes: its shape (matched whole) and its message in the certificate catalogue,
    whose ``{name}`` placeholders are the shape's named groups. A group in ``verbatim`` (a port, a device's
    name) is shown as recorded, one in ``numbers`` as a number of the language, one in ``percents`` as a
    percentage (kept out of the message: gettext tools read "% o" as a printf directive), one in ``tests`` (a
    pytest node id) as the test's plain name, one in ``alternatives`` ("craps or poker") as a list of translated
    items; every other group is translated as a recorded text in turn."""

    shape: re.Pattern[str]
    message: str
    verbatim: frozenset[str] = frozenset()
    numbers: frozenset[str] = frozenset()
    percents: frozenset[str] = frozenset()
    tests: frozenset[str] = frozenset()
    alternatives: frozenset[str] = frozenset()


def _template(shape: str, message: str, *, verbatim: tuple[str, ...] = (), numbers: tuple[str, ...] = (),
              percents: tuple[str, ...] = (), tests: tuple[str, ...] = (), alternatives: tuple[str, ...] = ()
              ) -> Template:
    return Template(re.compile(shape, re.DOTALL), message, frozenset(verbatim), frozenset(numbers),
                    frozenset(percents), frozenset(tests), frozenset(alternatives))


TEMPLATES: tuple[Template, ...] = (
    # fixtures/incomplete.py: why a test did not finish
    _template(r"device lost: (?P<detail>.+)", N_("device lost: {detail}")),
    _template(r"not enough read: (?P<detail>.+)", N_("not enough read: {detail}")),
    # runs certified while the staged dice reader's reads stopped a test unfinished (its journal still says so)
    _template(r"reader not validated: (?P<detail>.+)", N_("reader not validated: {detail}")),
    # drivers/serial_link.py DeviceError
    _template(r"(?P<port>\S+): (?P<what>.+?) failed after (?P<count>\d+) attempt\(s\): (?P<attempts>attempt 1: .+)",
              N_("{port}: “{what}” failed after {count} attempt(s): {attempts}"), verbatim=("port",),
              numbers=("count",)),
    _template(r"attempt (?P<number>\d+): (?P<reason>.+?)", N_("attempt {number}: {reason}"), numbers=("number",)),
    # fixtures/no_reads.py NoReadBoundExceeded
    _template(r"(?P<count>\d+) (?P<what>.+?) could not be read from (?P<source>\S+); the bound is (?P<bound>\d+) "
              r"no-reads \((?P<share>\d+)% of the (?P<planned>\d+) planned (?P=what), at least 1\): the test stops "
              r"and its clauses are INCOMPLETE \(the last: (?P<last>.+)\)",
              N_("{count} {what} could not be read from {source}; the bound is {bound} no-reads ({share} of the "
                 "{planned} planned, at least 1): the test stopped and its clauses are INCOMPLETE (the last: {last})"),
              verbatim=("source",), numbers=("count", "bound", "planned"), percents=("share",)),
    # fixtures/plugin.py: a test without evidence
    _template(r"(?P<test>\S+::\S+) recorded no measurement: a verdict needs evidence",
              N_("the test “{test}” recorded no measurement: a verdict needs evidence"), tests=("test",)),
    # suites: why a test was skipped, where the sentence names a game, a device or a sheet
    _template(r"the table plays (?P<game>[\w-]+), not (?P<others>[\w -]+)", N_("the table plays {game}, not {others}"),
              alternatives=("others",)),
    _template(r"profile '(?P<profile>[^']+)' has no (?P<kind>[\w -]+)", N_("the profile “{profile}” has no {kind}"),
              verbatim=("profile",)),
    _template(r"progressive controller '(?P<name>[^']+)' declares no (?P<kind>\w+) level: nothing to test",
              N_("the progressive controller “{name}” declares no {kind} level: nothing to test"), verbatim=("name",)),
    _template(r"(?P<variant>[\w-]+) is not played under (?P<rules>\S+)", N_("{variant} is not played under {rules}"),
              verbatim=("rules",)),
    _template(r"the regulation sets no stake multiples for (?P<game>[\w-]+) \((?P<rules>[^)]+)\)",
              N_("the regulation sets no stake multiples for {game} ({rules})"), verbatim=("rules",)),
    _template(r"decks share a back colour \((?P<backs>.+)\): their cards cannot be told apart card by card, so no "
              r"dealt order can be compared with the order it started from",
              N_("the decks share a back colour ({backs}): their cards cannot be told apart card by card, so no dealt "
                 "order can be compared with the order it started from"), verbatim=("backs",)),
    _template(r"the declared PAR sheet (?P<sheet>\S+) contributes to no jackpot or superjackpot "
              r"\(progressive_contribution_percent = 0\): nothing to test",
              N_("the declared PAR sheet {sheet} contributes to no jackpot or superjackpot: nothing to test"),
              verbatim=("sheet",)),
    _template(r"contributions of (?P<share>[\d.]+) % to progressive group (?P<group>\d+) are judged by the "
              r"progressive suite \(suites/test_progressive.py\) on controller (?P<controllers>.+)",
              N_("the contributions of {share} % to progressive group {group} are judged by the progressive jackpot "
                 "suite on controller {controllers}"), numbers=("share", "group"), verbatim=("controllers",)),
    _template(r"dieharder not installed \(looked for (?P<paths>.+)\)",
              N_("dieharder is not installed (looked for {paths})"), verbatim=("paths",)),
    # drivers/serial_link.py, drivers/visa_link.py, drivers/sas.py: attempts and wire-log notes
    _template(r"opened (?P<port>\S+)(?: \((?P<backend>[^)]*)\))?", N_("opened {port}"), verbatim=("port", "backend")),
    _template(r"close failed: (?P<error>.+)", N_("closing failed: {error}")),
    _template(r"cannot discard input: (?P<error>.+)", N_("cannot discard the input: {error}")),
    _template(r"stale reply discarded while awaiting (?P<what>.+?): (?P<reason>.+)",
              N_("stale reply discarded while awaiting “{what}”: {reason}")),
    _template(r"link failure \((?P<error>.+)\)", N_("link failure ({error})")),
    _template(r"garbled reply \((?P<error>.+)\)", N_("garbled reply ({error})")),
    _template(r"reconnect failed \((?P<error>.+)\)", N_("reconnecting failed ({error})")),
    _template(r"(?P<what>.+) wakeup byte \(mark parity\)", N_("{what}: wake-up byte (mark parity)")),
    _template(r"(?P<what>.+) \(pty escape framing\)", N_("{what} (framing escaped for the pseudo-terminal)")),
)
"""The sentences the bench composes, most specific first (see :class:`Template`)."""

def plain_test_name(nodeid: str) -> str:
    """``suites/test_x.py::test_wheel_and_ball_dimensions[a]`` as ``wheel and ball dimensions``."""
    name = nodeid.split("::")[-1].split("[")[0].removeprefix("test_")
    return name.replace("_", " ")


class RecordedReason:
    """A recorded reason or note in one language (see the module docstring); ``_`` translates the certificate's
    messages."""

    def __init__(self, lang: str, _: Translate, recorded: RecordedText | None = None) -> None:
        self.lang, self._ = lang, _
        self.recorded = recorded or RecordedText(lang)
        self.numbers = Formatter(lang)

    def __call__(self, text: str) -> str:
        """``text`` translated whole; in English, as recorded (snake_case written as words)."""
        if self.lang == "en" or not text:
            return self.recorded(text) if text else ""
        return self._translated(text.strip(), quote=True)

    def _translated(self, text: str, *, quote: bool) -> str:
        if self.recorded.known(text):  # a sentence of its own in the catalogue before any composed shape
            return self.recorded(text)
        for template in TEMPLATES:
            match = template.shape.fullmatch(text)
            if match:
                return self._filled(template, match)
        parts = text.split("; ")
        if len(parts) > 1:
            return "; ".join(self._translated(part, quote=quote) for part in parts)
        return self.original(text) if quote else text

    def _filled(self, template: Template, match: re.Match[str]) -> str:
        values = {}
        for name, value in match.groupdict().items():
            if value is None:
                values[name] = ""
            elif name in template.verbatim:
                values[name] = value
            elif name in template.numbers:
                values[name] = self.recorded.number(value) if "." in value else self.numbers.decimal(int(value))
            elif name in template.alternatives:
                items = [self._translated(item, quote=False) for item in value.split(" or ")]
                values[name] = items[0] if len(items) == 1 else self._("{items} or {last}").format(
                    items=", ".join(items[:-1]), last=items[-1])
            elif name in template.percents:
                values[name] = self.numbers.percent(int(value) / 100, 0)
            elif name in template.tests:
                values[name] = self.recorded(plain_test_name(value))
            elif name == "attempts":
                values[name] = "; ".join(self._translated(part, quote=True)
                                         for part in re.split(r"; (?=attempt \d+: )", value))
            else:
                values[name] = self._translated(value, quote=True)
        return self._(template.message).format(**values)

    def original(self, text: str) -> str:
        """``text`` as recorded, marked as the original record (what a device or a library said, verbatim)."""
        return self._("original record: “{text}”").format(text=text)

    def statement(self, text: str) -> str:
        """A person's own words (an attestation's statement): verbatim, marked as the original record."""
        return self.original(text) if self.lang != "en" else f"“{text}”"

