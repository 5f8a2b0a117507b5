"""Listings laid out for an 80-column terminal: each item a head line, then its details indented under it.

A name (a clause id, a profile, a test) is never cut with an ellipsis the way a squeezed table column
cuts it; a long detail wraps under itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

INDENT = 4
"""Columns the details of an item are indented by."""


def record(head: Text | str, details: Iterable[Text | str]) -> RenderableType:
    """One item of a listing: ``head`` (wrapping at spaces if it must), then each detail indented by
    :data:`INDENT`, wrapping under itself."""
    head_text = head if isinstance(head, Text) else Text(head)
    return Group(head_text, *(Padding(detail if isinstance(detail, Text) else Text(detail), (0, 0, 0, INDENT), expand=False)
                              for detail in details))


FINGERPRINT_GROUPS_PER_LINE = 8
"""Groups of a key fingerprint (``SHA256:`` and 16 groups of 4 hex digits) printed on one line."""


def fingerprint_lines(fingerprint: str, indent: int = INDENT) -> list[str]:
    """A key fingerprint on lines of at most :data:`FINGERPRINT_GROUPS_PER_LINE` groups, indented by ``indent``,
    each continuation aligned under the first group (``SHA256:4ba0:…:f5c9:`` / ``       5072:…:6789``)."""
    prefix, colon, digits = fingerprint.partition(":")
    groups = digits.split(":") if colon else [fingerprint]
    head = f"{prefix}:" if colon else ""
    lines = []
    for start in range(0, len(groups), FINGERPRINT_GROUPS_PER_LINE):
        chunk = ":".join(groups[start:start + FINGERPRINT_GROUPS_PER_LINE])
        more = ":" if start + FINGERPRINT_GROUPS_PER_LINE < len(groups) else ""
        lead = head if start == 0 else " " * len(head)
        lines.append(f"{' ' * indent}{lead}{chunk}{more}")
    return lines
