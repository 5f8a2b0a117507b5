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
