"""How the ``bench`` help names the values it takes, and the shell completion of suite and profile names.

typer's own help writes a flag's type as ``<bool>``, a value's as ``<str>`` or ``<list[str]>`` and a
required argument as ``{run_dir}``. :func:`use_plain_metavars` makes it write what a reader types instead:
nothing after a flag, ``TEXT``, ``PATH``, ``INTEGER``... after an option, and an argument as ``RUN_DIR``
(``[FILE]`` when it may be left out), the conventions of POSIX usage lines.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperOption

TYPE_NAMES = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "path": "PATH", "file": "FILE",
              "directory": "DIRECTORY", "bool": "BOOLEAN", "datetime": "DATETIME"}
"""typer's type labels, as the help shows them."""


def plain_type(label: str) -> str:
    """``<list[str]>`` -> ``TEXT``; ``<path>`` -> ``PATH``; choices ``<a|b>`` -> ``[a|b]``."""
    inner = label.strip("<>").removesuffix("...")
    if inner.startswith("list[") and inner.endswith("]"):
        inner = inner[5:-1]
    if "|" in inner:
        return f"[{inner}]"
    return TYPE_NAMES.get(inner, inner.upper())


def _option_type(self: TyperOption, ctx: Any) -> str | None:
    if self.metavar is not None:
        return self.metavar
    if self.is_flag:
        return None
    return plain_type(self.display_type(ctx))


def _argument_name(self: TyperArgument) -> str:
    return self.metavar if self.metavar is not None else (self.name or "").upper()


def _argument_usage(self: TyperArgument) -> str:
    name = _argument_name(self)
    name = name if self.required else f"[{name}]"
    return name + ("..." if self.nargs != 1 else "")


def _argument_type(self: TyperArgument, ctx: Any) -> str | None:
    return plain_type(self.display_type(ctx))


def use_plain_metavars() -> None:
    """Make typer's help write plain metavars (see the module docstring); idempotent."""
    TyperOption.display_type_rich = _option_type  # type: ignore[method-assign]
    TyperArgument.display_name_raw = property(_argument_name)  # type: ignore[assignment,method-assign]
    TyperArgument._usage_display_name = _argument_usage  # type: ignore[method-assign]
    TyperArgument.display_type_rich = _argument_type  # type: ignore[method-assign]


def suite_names() -> list[str]:
    """Short names of the suites ``--suite`` takes (``roulette`` for ``suites/test_roulette.py``)."""
    from bench.paths import suite_files

    return [path.stem.removeprefix("test_") for path in suite_files()]


def complete_suite(incomplete: str) -> list[str]:
    """Shell completion of ``--suite``."""
    return [name for name in suite_names() if name.startswith(incomplete)]


def complete_profile(incomplete: str) -> list[str]:
    """Shell completion of ``--profile``: the built-in profiles (a path completes as a file name)."""
    from bench.profiles import builtin_profiles

    return [name for name in builtin_profiles() if name.startswith(incomplete)]
