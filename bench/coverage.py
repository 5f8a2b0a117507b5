"""Which suite tests cite which clauses, read from the ``clause`` markers pytest itself would see.

Each suite module is imported (nothing runs: fixtures and tests are only defined) and the
marks pytest attached to every test function and to the module (``pytestmark``) are read,
so clause ids written as constants, tuples or computed values count exactly as pytest
counts them at run time.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any


def _clause_ids(marks: Iterable[Any]) -> list[str]:
    return [str(arg) for mark in marks if getattr(mark, "name", None) == "clause" for arg in mark.args]


def _as_list(marks: Any) -> list[Any]:
    if marks is None:
        return []
    return list(marks) if isinstance(marks, list | tuple) else [marks]


def _load(path: Path) -> ModuleType:
    """Import a suite file under a private name (not registered as a test module)."""
    name = f"_bench_coverage_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(name, None)
    return module


def citations(suite_files: list[Path]) -> dict[str, list[str]]:
    """Clause id → test ids (``suites/test_x.py::test_y``) that cite it."""
    cited: dict[str, list[str]] = {}
    for path in suite_files:
        module = _load(path)
        module_ids = _clause_ids(_as_list(getattr(module, "pytestmark", None)))
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if not name.startswith("test") or function.__module__ != module.__name__:
                continue
            ids = module_ids + _clause_ids(_as_list(getattr(function, "pytestmark", None)))
            for clause_id in dict.fromkeys(ids):
                cited.setdefault(clause_id, []).append(f"{path.parent.name}/{path.name}::{name}")
    return cited
