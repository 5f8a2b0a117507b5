"""Evidence added to a run's allure results after the suites ran, from the journal (as the certificate).

allure-pytest records what happens inside a test (measurements as parameters and steps,
clause labels, files given to the ``attach`` fixture: :mod:`fixtures.allure_bridge`). Some
evidence is stored outside a test's allure context: frames kept by module fixtures while
they collect observations (declined or disputed reads), the devices' wire logs (stored at
the end of the session) and the plots, drawn from the journal. :func:`add_run_evidence`
adds them in allure's own result format, so ``allure generate RUN_DIR/allure-results``
shows them:

* the certificate's plots, attached to the test whose measurement they draw;
* frames of declined or disputed reads, in a fixture container ("set up" of every test of
  the suite module whose fixture collected them);
* wire-log excerpts around line faults (text), in a container whose children are the tests
  citing a clause about that device's kind.

Re-running it (a resumed run) replaces its containers and does not attach a plot twice.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from bench.catalogue import Catalogue
from bench.rundir import atomic_write_bytes, atomic_write_text
from reports.figures import Figure, figures
from reports.run_data import RunData, WireExcerpt

RESULTS_DIR = "allure-results"
CLAUSE_RESULTS_PACKAGE = "clauses"
"""``fullName`` prefix (``clauses#<clause id>``) of the results :mod:`reports.allure_context` writes for clauses no
test examined; they are not tests, and get no evidence here."""
_NAMESPACE = uuid.UUID("7d1f3c2e-5b8a-4a51-9d0e-3f6b2a1c9e47")


def allure_full_name(nodeid: str) -> tuple[str, str]:
    """(allure ``fullName``, ``name``) of a pytest node id: ``suites/test_x.py::test_y[p]`` ->
    (``suites.test_x#test_y``, ``test_y[p]``)."""
    path, _, name = nodeid.partition("::")
    module = path.removesuffix(".py").replace("/", ".")
    return f"{module}#{name.split('[', 1)[0]}", name


def _load_results(results_dir: Path) -> dict[Path, dict[str, Any]]:
    results = {}
    for path in sorted(results_dir.glob("*-result.json")):
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a result allure-pytest did not finish writing is not ours to repair
        if not str(result.get("fullName", "")).startswith(f"{CLAUSE_RESULTS_PACKAGE}#"):
            results[path] = result
    return results


def _write_attachment(results_dir: Path, key: str, content: bytes, suffix: str) -> str:
    source = f"{uuid.uuid5(_NAMESPACE, key)}-attachment{suffix}"
    atomic_write_bytes(results_dir / source, content)
    return source


def _container(results_dir: Path, key: str, name: str, children: list[str], attachments: list[dict[str, str]]) -> None:
    identifier = str(uuid.uuid5(_NAMESPACE, key))
    container = {"uuid": identifier, "name": name, "children": children,
                 "befores": [{"name": name, "status": "passed", "attachments": attachments, "steps": [],
                              "parameters": []}], "afters": []}
    atomic_write_text(results_dir / f"{identifier}-container.json", json.dumps(container, indent=1))


def wire_excerpt_text(excerpt: WireExcerpt) -> str:
    """The excerpt as plain text: line number, direction, text and note; faults marked ``!``."""
    lines = [(f"{excerpt.device} wire log: {excerpt.faults} fault(s) in {excerpt.lines} lines "
             f"(full log: {excerpt.attachment.path})")]
    for block in excerpt.blocks:
        lines.append("...")
        for entry in block:
            note = f"  [{entry['note']}]" if entry.get("note") else ""
            lines.append(f"{'!' if entry['fault'] else ' '}{entry['line']:7d} {entry.get('dir', ''):12} "
                         f"{entry.get('text', '')}{note}")
    return "\n".join(lines) + "\n"


def add_run_evidence(run_dir: Path, data: RunData, catalogue: Catalogue,
                     rendered: list[Figure] | None = None) -> int:
    """Add plots, declined-read frames and wire-log excerpts to ``run_dir/allure-results``; returns how many
    attachments were written (0 when the run has no allure results)."""
    results_dir = Path(run_dir) / RESULTS_DIR
    if not results_dir.is_dir():
        return 0
    results = _load_results(results_dir)
    by_node: dict[tuple[str, str], list[Path]] = {}
    for path, result in results.items():
        by_node.setdefault((result.get("fullName", ""), result.get("name", "")), []).append(path)
    written = 0
    changed: set[Path] = set()
    nodeid_of = {m.anchor: m.nodeid for m in data.measurements}
    for figure in figures(data) if rendered is None else rendered:
        nodeid = nodeid_of.get(figure.measurement_anchor)
        if not figure.data_uri or nodeid is None:
            continue
        title = f"plot: {figure.name} ({figure.caption})"
        svg = _svg_of(figure)
        for path in by_node.get(allure_full_name(nodeid), []):
            attachments = results[path].setdefault("attachments", [])
            if any(item.get("name") == title for item in attachments):
                continue
            source = _write_attachment(results_dir, f"{path.name}/{title}", svg, ".svg")
            attachments.append({"name": title, "source": source, "type": "image/svg+xml"})
            changed.add(path)
            written += 1
    for path in changed:
        atomic_write_text(path, json.dumps(results[path], ensure_ascii=False))

    frames_by_fixture: dict[str, list[dict[str, str]]] = {}
    for group in data.declines:
        for frame in group.frames:
            content = (data.run_dir / frame.path).read_bytes()
            source = _write_attachment(results_dir, f"frame/{frame.sha256}", content, Path(frame.path).suffix)
            frames_by_fixture.setdefault(frame.nodeid, []).append(
                {"name": f"{group.stream}: {group.reason}: {frame.name}", "source": source, "type": frame.media_type})
            written += 1
    for fixture, attachments in frames_by_fixture.items():
        module = allure_full_name(fixture)[0].split("#")[0] + "#"
        children = [result["uuid"] for result in results.values() if result.get("fullName", "").startswith(module)]
        _container(results_dir, f"frames/{data.run.run_id}/{fixture}", f"declined or disputed reads ({fixture})",
                   children, attachments)

    kinds = {device.name: device.kind for device in [*data.equipment, *data.instruments]}
    for excerpt in data.wire:
        if not excerpt.faults:
            continue
        kind = kinds.get(excerpt.device)
        children = [result["uuid"] for result in results.values() if kind and any(
            label.get("name") == "story" and label.get("value") in catalogue
            and kind in {k.value for k in catalogue[label["value"]].kinds} for label in result.get("labels", []))]
        source = _write_attachment(results_dir, f"wire/{data.run.run_id}/{excerpt.device}",
                                   wire_excerpt_text(excerpt).encode("utf-8"), ".txt")
        _container(results_dir, f"wire/{data.run.run_id}/{excerpt.device}", f"{excerpt.device} wire log faults",
                   children, [{"name": f"{excerpt.device} wire log around faults", "source": source,
                               "type": "text/plain"}])
        written += 1
    return written


def _svg_of(figure: Figure) -> bytes:
    import base64

    return base64.b64decode(figure.data_uri.split(",", 1)[1])
