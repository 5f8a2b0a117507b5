"""The first HTML clause matrix of a run, rendered from its journal alone."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape

from bench.catalogue import Catalogue
from bench.journal import Journal
from bench.profiles import load_profile_text
from reports.clause_verdicts import ClauseVerdict, clause_verdicts

TEMPLATES = Path(__file__).with_name("templates")


def render_matrix(run_dir: Path, catalogue: Catalogue, output: Path | None = None) -> tuple[Path, list[ClauseVerdict]]:
    """Write ``report.html`` (or ``output``) for the run in ``run_dir``; returns it and the verdicts."""
    journal = Journal(run_dir / Journal.FILENAME, create=False)
    try:
        run = journal.rows("runs")[0]
        profile = load_profile_text(run["profile_text"], run["profile_source"])
        kinds = sorted({item.kind for item in profile.equipment.values()})
        verdicts = clause_verdicts(journal, catalogue, kinds)
        chain = journal.verify_chain()
        run_id = run["run_id"]
        environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]))
        html = environment.get_template("clause_matrix.html.j2").render(
            run=run,
            profile=profile,
            equipment=journal.rows("equipment", "run_id = ?", (run_id,)),
            rows=[{"verdict": verdict, "clause": catalogue[verdict.clause_id] if verdict.clause_id in catalogue else None}
                  for verdict in verdicts],
            attachments=journal.rows("attachments", "run_id = ?", (run_id,)),
            counts=dict(Counter(verdict.verdict for verdict in verdicts)),
            chain_head=chain.head,
            chain_rows=chain.rows,
            chain_intact=chain.intact,
        )
    finally:
        journal.close()
    target = output or run_dir / "report.html"
    target.write_text(html, encoding="utf-8")
    return target, verdicts
