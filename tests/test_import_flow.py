"""Imports flow one way: from the ground (what the regulations say, the
catalogue, the profile schema, the evidence record) up to the command line.

The layers are those of the design (docs: "Layout", the import order):

0. the ground: ``bench.games``, ``bench.catalogue``, ``bench.profiles``,
   ``bench.journal``, ``bench.evidence``, ``bench.digest``, ``bench.paths``,
   ``bench.regulation_text`` and the ``bench`` package itself;
1. ``vision`` and ``rng_tests`` (never ``drivers``);
2. ``drivers`` (a camera driver reads through ``vision``, a simulator may use
   the statistics, a real driver never imports ``drivers.sim``);
3. the rig, the pytest plugin ``fixtures`` and the ``suites``;
4. ``reports`` (reads the evidence only: never the plugin, the rig or a driver);
5. the command line and the orchestration of runs.

A module may import its own layer or a lower one. Every import counts: those
inside functions, those under ``if TYPE_CHECKING:`` and ``importlib.import_module``
of a name written out. (``bench.coverage`` imports the suite files by path, which
no scan sees: it sits on the command line's layer, above the suites.) A module's
import of its own ancestor packages is not counted (a package ``__init__``
re-exporting its submodules is not a circle). Besides the layers, no two
modules may import each other, directly or round a longer circle.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PACKAGES = ("bench", "drivers", "vision", "rng_tests", "fixtures", "reports", "suites")

# (rule, layer, what lives there). A rule names a module and everything under
# it ("bench.games" is bench/games/ and all its modules); a rule ending in "*"
# is a plain prefix of the dotted name ("bench.cli_*"); a rule starting with
# "=" names one module only ("=bench" is bench/__init__.py, so a new module
# under bench/ has no layer until it is given one). The longest matching rule
# wins.
LAYERS: tuple[tuple[str, int, str], ...] = (
    ("=bench", 0, "the bench package itself (version)"),
    ("bench.games", 0, "what the regulations say: wheels, cards, dice, pay tables, jackpots"),
    ("bench.catalogue", 0, "the clause catalogue"),
    ("bench.profiles", 0, "the profile schema"),
    ("bench.journal", 0, "the evidence journal"),
    ("bench.evidence", 0, "the evidence record"),
    ("bench.digest", 0, "file digests"),
    ("bench.allure_labels", 0, "how clauses are titled and labelled in allure results"),
    ("bench.rundir", 0, "the run directory's lock and atomic files"),
    ("bench.interrupts", 0, "an operator's Ctrl-C, remembered while a run goes"),
    ("bench.paths", 0, "where things live on disk"),
    ("bench.regulation_text", 0, "the regulations' texts"),
    ("vision", 1, "reading outcomes from images"),
    ("rng_tests", 1, "statistics"),
    ("drivers", 2, "drivers and their simulators"),
    ("bench.rig*", 3, "the rig: drivers built from a profile"),
    ("bench.suite_times", 3, "run-time estimates of the suites"),
    ("fixtures", 3, "the pytest plugin"),
    ("suites", 3, "the certification suites"),
    ("reports", 4, "reports read from the evidence"),
    ("bench.cli", 5, "the command line"),
    ("bench.cli_*", 5, "the command line"),
    ("bench.certify", 5, "a certification run"),
    ("bench.doctor", 5, "checks of the rig before a run"),
    ("bench.certificate_numbers", 5, "the laboratory's certificate numbers"),
    ("bench.sensitivity", 5, "the sensitivity matrix"),
    ("bench.plan", 5, "the plan of a run"),
    ("bench.coverage", 5, "coverage of the catalogue by the suites"),
    ("bench.coverage_reasons", 5, "coverage of the catalogue by the suites"),
)

# (importer rule, imported rule, unless the importer matches, why): imports
# forbidden whatever the layers say.
FORBIDDEN: tuple[tuple[str, str, str | None, str], ...] = (
    ("drivers", "drivers.sim", "drivers.sim", "a real driver never imports a simulator"),
    ("vision", "drivers", None, "vision never imports drivers"),
    ("rng_tests", "drivers", None, "rng_tests never imports drivers"),
    ("reports", "fixtures", None, "reports read the evidence only"),
    ("reports", "bench.rig*", None, "reports read the evidence only"),
    ("reports", "drivers", None, "reports read the evidence only"),
)


def matches(rule: str, module: str) -> bool:
    if rule.startswith("="):
        return module == rule[1:]
    if rule.endswith("*"):
        return module.startswith(rule[:-1])
    return module == rule or module.startswith(rule + ".")


def layer_of(module: str, layers=LAYERS) -> int | None:
    best: tuple[int, int] | None = None
    for rule, layer, _ in layers:
        if matches(rule, module):
            weight = len(rule.strip("=*"))
            if best is None or weight > best[0]:
                best = (weight, layer)
    return None if best is None else best[1]


@dataclass
class Modules:
    """The modules found under a root and the imports between them."""

    packages: set[str] = field(default_factory=set)
    files: dict[str, Path] = field(default_factory=dict)
    imports: dict[str, dict[str, int]] = field(default_factory=dict)  # importer -> imported -> line

    @property
    def names(self) -> set[str]:
        return set(self.files)


def module_name(root: Path, path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(root).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package


def collect(root: Path, packages=PACKAGES) -> Modules:
    found = Modules()
    for top in packages:
        base = root / top
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*.py")):
            if any(part.startswith(".") or part == "__pycache__" for part in path.parts):
                continue
            name, is_package = module_name(root, path)
            found.files[name] = path
            if is_package:
                found.packages.add(name)
    for name, path in found.files.items():
        found.imports[name] = imports_of(name, name in found.packages, path, found.names)
    return found


def known(name: str, modules: set[str]) -> str | None:
    """The longest known module that ``name`` is or lies under."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def _imports_by_name(call: ast.Call) -> bool:
    """``importlib.import_module("a.b")`` with the name written out (a computed name cannot be checked)."""
    function = call.func
    called = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
    return (
        called == "import_module"
        and bool(call.args)
        and isinstance(call.args[0], ast.Constant)
        and isinstance(call.args[0].value, str)
        and not call.args[0].value.startswith(".")
    )


def imports_of(name: str, is_package: bool, path: Path, modules: set[str]) -> dict[str, int]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if is_package else name.rpartition(".")[0]
    found: dict[str, int] = {}

    def add(target: str | None, line: int) -> None:
        if target is None or target == name:
            return
        if matches(target, name):  # one of its own ancestor packages
            return
        found.setdefault(target, line)

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _imports_by_name(node):
            add(known(node.args[0].value, modules), node.lineno)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                add(known(alias.name, modules), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".") if package else []
                keep = len(parts) - (node.level - 1)
                if keep < 0:
                    raise AssertionError(f"{path}:{node.lineno}: relative import beyond the top")
                origin = ".".join(parts[:keep])
                if node.module:
                    origin = f"{origin}.{node.module}" if origin else node.module
            else:
                origin = node.module or ""
            for alias in node.names:
                full = f"{origin}.{alias.name}"
                if alias.name != "*" and full in modules:
                    add(full, node.lineno)
                else:
                    add(known(origin, modules), node.lineno)
    return found


def unassigned(found: Modules, layers=LAYERS) -> list[str]:
    return sorted(name for name in found.names if layer_of(name, layers) is None)


def violations(found: Modules, layers=LAYERS, forbidden=FORBIDDEN) -> list[str]:
    lines = []
    for importer in sorted(found.imports):
        for imported, line in sorted(found.imports[importer].items()):
            a, b = layer_of(importer, layers), layer_of(imported, layers)
            reasons = []
            if a is not None and b is not None and b > a:
                reasons.append("against the layer order")
            reasons += [
                why
                for source, target, unless, why in forbidden
                if matches(source, importer)
                and matches(target, imported)
                and (unless is None or not matches(unless, importer))
            ]
            if reasons:
                where = found.files[importer].name
                lines.append(
                    f"{importer} -> {imported} (layer {a} -> layer {b}; "
                    f"{where}:{line}): {', '.join(reasons)}"
                )
    return lines


def circles(found: Modules) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    graph = {name: sorted(found.imports.get(name, {})) for name in sorted(found.names)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0

    for start, successors_of_start in graph.items():
        if start in index:
            continue
        # iterative Tarjan: (node, iterator over its successors)
        work = [(start, iter(successors_of_start))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for succ in successors:
                if succ not in graph:
                    continue
                if succ not in index:
                    index[succ] = low[succ] = counter
                    counter += 1
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(graph[succ])))
                    advanced = True
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def describe_circle(found: Modules, component: list[str]) -> str:
    members = set(component)
    edges = [
        f"{a} -> {b}"
        for a in component
        for b in sorted(found.imports.get(a, {}))
        if b in members
    ]
    return f"circle of {len(component)}: {', '.join(component)} ({'; '.join(edges)})"


# --- the project -------------------------------------------------------------


def test_every_module_has_a_layer():
    found = collect(ROOT)
    assert found.names, "no modules found"
    missing = unassigned(found)
    assert not missing, "modules without a layer in LAYERS:\n" + "\n".join(missing)


def test_imports_flow_one_way():
    found = collect(ROOT)
    wrong = violations(found)
    assert not wrong, f"{len(wrong)} imports against the flow:\n" + "\n".join(wrong)


def test_no_import_circles():
    found = collect(ROOT)
    loops = circles(found)
    assert not loops, f"{len(loops)} import circles:\n" + "\n".join(
        describe_circle(found, c) for c in loops
    )


# --- the checker itself ------------------------------------------------------


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checker_finds_an_upward_import_and_a_circle(tmp_path):
    write(
        tmp_path,
        {
            "bench/__init__.py": "",
            "bench/games/__init__.py": "from . import wheel\n",  # own submodule: no circle
            "bench/games/wheel.py": (
                "from bench.games import cards\n"
                "from bench import games\n"  # its own ancestor: not counted
                "def order():\n"
                "    from drivers import wheel\n"  # upward, inside a function
                "    return wheel\n"
            ),
            "bench/games/cards.py": "import bench.games\n",
            "drivers/__init__.py": "",
            "drivers/wheel.py": (
                "from typing import TYPE_CHECKING\n"
                "from .camera import Camera\n"
                "from bench.games.cards import *\n"
            ),
            "drivers/camera.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from . import wheel\n"
                "Camera = object\n"
            ),
        },
    )
    found = collect(tmp_path)
    assert unassigned(found) == []
    assert found.imports["bench.games"] == {"bench.games.wheel": 1}
    assert found.imports["bench.games.wheel"] == {"bench.games.cards": 1, "drivers.wheel": 4}
    assert found.imports["bench.games.cards"] == {}
    assert found.imports["drivers.wheel"] == {"drivers.camera": 2, "bench.games.cards": 3}
    assert found.imports["drivers.camera"] == {"drivers.wheel": 3}

    assert violations(found) == [
        "bench.games.wheel -> drivers.wheel (layer 0 -> layer 2; wheel.py:4): against the layer order"
    ]
    assert circles(found) == [["drivers.camera", "drivers.wheel"]]


def test_the_checker_finds_forbidden_imports_within_the_order(tmp_path):
    write(
        tmp_path,
        {
            "drivers/__init__.py": "",
            "drivers/sim/__init__.py": "",
            "drivers/sim/wheel.py": "from drivers import roulette\n",
            "drivers/roulette.py": "from .sim.wheel import X\n",
            "reports/__init__.py": "",
            "reports/page.py": "import fixtures.store\nimport bench.rig_power\n",
            "fixtures/__init__.py": "",
            "fixtures/store.py": "",
            "bench/__init__.py": "",
            "bench/rig_power.py": "",
            "bench/newthing.py": "",
            "vision/__init__.py": "",
            "vision/read.py": "import drivers.roulette\n",
            "rng_tests/__init__.py": "",
            "rng_tests/draw.py": "import importlib\n\nwheel = importlib.import_module('drivers.roulette')\n",
        },
    )
    found = collect(tmp_path)
    assert unassigned(found) == ["bench.newthing"]
    assert violations(found) == [
        ("drivers.roulette -> drivers.sim.wheel (layer 2 -> layer 2; roulette.py:1): "
         "a real driver never imports a simulator"),
        "reports.page -> bench.rig_power (layer 4 -> layer 3; page.py:2): reports read the evidence only",
        "reports.page -> fixtures.store (layer 4 -> layer 3; page.py:1): reports read the evidence only",
        ("rng_tests.draw -> drivers.roulette (layer 1 -> layer 2; draw.py:3): against the layer order, "
         "rng_tests never imports drivers"),
        ("vision.read -> drivers.roulette (layer 1 -> layer 2; read.py:1): against the layer order, "
         "vision never imports drivers"),
    ]
    assert circles(found) == [["drivers.roulette", "drivers.sim.wheel"]]
