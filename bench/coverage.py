"""Which suite tests cite which clauses, read statically from the suites' ``clause`` markers."""

from __future__ import annotations

import ast
from pathlib import Path


def _marker_ids(decorator: ast.expr) -> list[str]:
    """Clause ids of a ``pytest.mark.clause(...)`` decorator (or ``pytestmark`` value)."""
    if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) and decorator.func.attr == "clause":
        return [arg.value for arg in decorator.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
    return []


def _module_marks(tree: ast.Module) -> list[str]:
    ids: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets):
            values = node.value.elts if isinstance(node.value, ast.List | ast.Tuple) else [node.value]
            for value in values:
                ids += _marker_ids(value)
    return ids


def citations(suite_files: list[Path]) -> dict[str, list[str]]:
    """Clause id → test ids (``suites/test_x.py::test_y``) that cite it."""
    cited: dict[str, list[str]] = {}
    for path in suite_files:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        module_ids = _module_marks(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
                ids = module_ids + [clause for decorator in node.decorator_list for clause in _marker_ids(decorator)]
                for clause_id in ids:
                    cited.setdefault(clause_id, []).append(f"{path.parent.name}/{path.name}::{node.name}")
    return cited
