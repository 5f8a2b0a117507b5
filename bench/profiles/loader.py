"""Load equipment profiles from TOML, by built-in name or by path.

Errors name the file, the key (dotted path) and the reason.
"""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Any, get_args

from pydantic import ValidationError

from bench.profiles.camera import CHECK_FILES_CONTEXT, PROFILE_FILE_CONTEXT
from bench.profiles.model import Equipment, Profile

BUILTIN_DIR = Path(__file__).with_name("builtin")


class ProfileError(ValueError):
    """A profile cannot be found, parsed or validated."""


def builtin_profiles() -> dict[str, Path]:
    """Built-in profile names and their files."""
    return {path.stem: path for path in sorted(BUILTIN_DIR.glob("*.toml"))}


def _equipment_kinds() -> frozenset[str]:
    """The equipment kinds (the ``kind`` tags of :data:`bench.profiles.model.Equipment`)."""
    union = get_args(Equipment)[0]
    return frozenset(tag for model in get_args(union) for tag in get_args(model.model_fields["kind"].annotation))


EQUIPMENT_KINDS = _equipment_kinds()


def _key_path(location: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for index, part in enumerate(location):
        # discriminated unions insert the tag ("roulette-wheel", "dice") after the equipment name
        if index == 2 and location[0] == "equipment" and part in EQUIPMENT_KINDS:
            continue
        parts.append(f"[{part}]" if isinstance(part, int) else str(part))
    return ".".join(parts).replace(".[", "[") or "(top level)"


def load_profile_text(text: str, origin: str, *, check_files: bool = False) -> Profile:
    """Parse and validate profile TOML text; ``origin`` names it in errors and is the file relative paths in it
    start from. With ``check_files`` (a profile loaded for a run) the files it names must exist; a profile read
    back from a journal is not held to that (the run may have been made on another machine)."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ProfileError(f"{origin}: not valid TOML: {error}") from error
    document.setdefault("name", Path(origin).stem)
    try:
        return Profile.model_validate(document, context={PROFILE_FILE_CONTEXT: origin, CHECK_FILES_CONTEXT: check_files})
    except ValidationError as error:
        problems = [
            f"{origin}: key {_key_path(tuple(detail['loc']))}: {detail['msg']}" for detail in error.errors()
        ]
        raise ProfileError("\n".join(problems)) from error


def resolve_profile(name_or_path: str) -> Path:
    """The file of a built-in profile name, or the given path."""
    builtin = builtin_profiles()
    if name_or_path in builtin:
        return builtin[name_or_path]
    path = Path(name_or_path)
    if path.is_file():
        return path
    nearest = difflib.get_close_matches(name_or_path, list(builtin), n=1, cutoff=0.6)
    hint = f"did you mean {nearest[0]!r}? " if nearest else ""
    raise ProfileError(f"{name_or_path}: no such profile file, and not a built-in profile; {hint}"
                       "(`bench profiles` lists the built-in ones)")


def load_profile(name_or_path: str) -> tuple[Profile, Path, str]:
    """Load a profile for a run (the files it names must exist); returns the profile, its file and its text
    (kept in the journal)."""
    path = resolve_profile(name_or_path)
    text = read_profile_text(path)
    return load_profile_text(text, str(path), check_files=True), path, text


def read_profile_text(path: Path) -> str:
    """The UTF-8 text of a profile file; raises :class:`ProfileError` naming the file and the byte at fault."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ProfileError(f"{path}: cannot read ({error.strerror or error})") from error
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise ProfileError(f"{path}: byte {error.start} (0x{data[error.start]:02x}, line {line}, column {column}) "
                           "is not UTF-8; a profile is UTF-8 TOML text") from None
