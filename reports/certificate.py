"""The certificate: one self-contained HTML file (CSS, plots and evidence frames inline as data URIs).

:func:`render_certificate` turns :class:`reports.run_data.RunData` into HTML in
Portuguese or English (:mod:`reports.i18n`); :func:`write_report` reads the run
directory's journal, renders the HTML (and the PDF through :mod:`reports.pdf`
when asked) and writes it. The certificate links every attachment by its path
relative to the file written, so the links work from inside the run directory.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from bench.catalogue import Catalogue, load_catalogue
from bench.rundir import atomic_write_text
from reports.figures import Figure, data_uri, figures
from reports.i18n import LANGUAGES, translator
from reports.run_data import ClauseRow, RunData, load_run

TEMPLATES = Path(__file__).with_name("templates")
TEMPLATE = "certificate.html.j2"
STYLESHEET = "certificate.css"
FRAME_INLINE_LIMIT = 400_000
"""Evidence frames larger than this (bytes) are linked, not inlined."""
ATTACHMENTS_LISTED = 200
"""Attachments listed by name in the certificate (the signed manifest lists them all)."""


def report_filename(lang: str, pdf: bool = False) -> str:
    """``report.html`` / ``report.pdf`` for Portuguese (the certificate's language), ``report.en.html`` … for English."""
    if lang not in LANGUAGES:
        raise ValueError(f"language {lang!r}: use one of {', '.join(LANGUAGES)}")
    return f"report{'' if lang == 'pt' else '.' + lang}.{'pdf' if pdf else 'html'}"


def _frame_uri(data: RunData, path: str, media_type: str) -> str:
    file = data.run_dir / path
    try:
        if file.stat().st_size > FRAME_INLINE_LIMIT:
            return ""
        return data_uri(file.read_bytes(), media_type)
    except OSError:
        return ""


def _short(value: Any, limit: int = 90) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(value: Any, digits: int = 4) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _clause_id(value: str) -> Markup:
    """A clause id that wraps only after its slashes (each part kept whole, so PDF text keeps the id intact)."""
    return Markup("/<wbr>").join(Markup('<span class="nw">{}</span>').format(part) for part in value.split("/"))


def _when(value: str) -> str:
    """An ISO 8601 UTC time as ``YYYY-MM-DD HH:MM:SS UTC`` (the journal keeps microseconds)."""
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return str(value)
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S") + (" UTC" if moment.tzinfo is not None else "")


def _groups(rows: list[ClauseRow]) -> list[tuple[str, list[ClauseRow]]]:
    """Clause rows grouped by regulation and section, in matrix order."""
    grouped: dict[str, list[ClauseRow]] = {}
    for row in rows:
        key = "/".join(row.clause_id.split("/")[:2])
        grouped.setdefault(key, []).append(row)
    return list(grouped.items())


def _environment() -> Environment:
    environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]),
                              undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    environment.filters["short"] = _short
    environment.filters["num"] = _number
    environment.filters["when"] = _when
    environment.filters["cid"] = _clause_id
    return environment


def render_certificate(data: RunData, lang: str = "pt", *, key_fingerprint: str | None = None,
                       link_base: str = "", rendered: list[Figure] | None = None) -> str:
    """The certificate's HTML.

    ``key_fingerprint``: the laboratory key that signs (or is about to sign) the run; without it the
    fingerprint of the run's ``manifest.json`` is shown when the run is signed, else "not signed".
    ``link_base``: prefix of attachment links (the run directory relative to the file written).
    ``rendered``: the run's :func:`figures`, when already drawn (they do not depend on the language).
    """
    t = translator(lang)
    fingerprint = key_fingerprint or data.signed_fingerprint
    css = (TEMPLATES / STYLESHEET).read_text(encoding="utf-8")
    rendered = figures(data) if rendered is None else rendered
    frames = {item.sha256: _frame_uri(data, item.path, item.media_type)
              for group in data.declines for item in group.frames}
    attachments_by_node: dict[str, int] = {}
    for item in data.attachments:
        attachments_by_node[item.nodeid] = attachments_by_node.get(item.nodeid, 0) + 1
    return _environment().get_template(TEMPLATE).render(
        t=t, lang=lang, data=data, run=data.run, css=css, figures=rendered,
        figures_by_name={figure.name: figure for figure in reversed(rendered)},
        groups=_groups(data.clauses), frames=frames, fingerprint=fingerprint,
        signed_now=key_fingerprint is not None, link_base=link_base,
        attachments=data.attachments[:ATTACHMENTS_LISTED], attachments_total=len(data.attachments),
        attachments_by_node=attachments_by_node,
    )


@dataclass(frozen=True)
class WrittenReport:
    """Files a report step wrote."""

    html: Path | None
    pdf: Path | None
    data: RunData


def write_report(run_dir: Path, lang: str = "pt", *, output: Path | None = None, pdf: bool = False,
                 key_fingerprint: str | None = None, catalogue: Catalogue | None = None,
                 data: RunData | None = None, rendered: list[Figure] | None = None) -> WrittenReport:
    """Render the run's certificate into ``output`` (default: ``report_filename(lang)`` in the run directory);
    with ``pdf``, the PDF beside it (``output`` may itself name the ``.pdf``)."""
    run_dir = Path(run_dir)
    data = data or load_run(run_dir, catalogue or load_catalogue())
    target = Path(output) if output is not None else run_dir / report_filename(lang)
    want_pdf = pdf or target.suffix.lower() == ".pdf"
    html_target = target.with_suffix(".html") if target.suffix.lower() == ".pdf" else target
    link_base = os.path.relpath(run_dir.resolve(), html_target.resolve().parent)
    link_base = "" if link_base == "." else link_base.replace(os.sep, "/") + "/"
    html = render_certificate(data, lang, key_fingerprint=key_fingerprint, link_base=link_base, rendered=rendered)
    html_target.parent.mkdir(parents=True, exist_ok=True)
    if target.suffix.lower() != ".pdf":
        atomic_write_text(html_target, html)  # a kill leaves the old certificate or the new one, never half
    pdf_target = None
    if want_pdf:
        from reports.pdf import html_to_pdf

        pdf_target = target if target.suffix.lower() == ".pdf" else target.with_suffix(".pdf")
        html_to_pdf(html, pdf_target, base_url=html_target.parent)
    return WrittenReport(html_target if target.suffix.lower() != ".pdf" else None, pdf_target, data)


@dataclass(frozen=True)
class CertificateSet:
    """The certificate files of a run in every language."""

    html: Path
    files: list[Path]
    pdf_error: str | None
    allure_attachments: int = 0


def write_certificates(run_dir: Path, *, key_fingerprint: str | None = None, catalogue: Catalogue | None = None,
                       pdf: bool = True, allure: bool = True) -> CertificateSet:
    """The certificate in every language into the run directory (``report.html``, ``report.en.html`` and,
    with ``pdf`` and WeasyPrint installed, the PDFs); the journal is read and the plots drawn once. With
    ``allure``, the plots, declined-read frames and wire-log excerpts are added to the run's allure results
    (:mod:`reports.allure_evidence`)."""
    from reports import pdf as pdf_module
    from reports.allure_evidence import add_run_evidence

    catalogue = catalogue or load_catalogue()
    data = load_run(Path(run_dir), catalogue)
    rendered = figures(data)
    added = add_run_evidence(Path(run_dir), data, catalogue, rendered) if allure else 0
    pdf_error = None
    if pdf and not pdf_module.available():
        pdf_error = "WeasyPrint or Pango is not installed"
    files: list[Path] = []
    for lang in LANGUAGES:
        written = write_report(Path(run_dir), lang, pdf=pdf and pdf_error is None, key_fingerprint=key_fingerprint,
                               data=data, rendered=rendered)
        files += [path for path in (written.html, written.pdf) if path is not None]
    return CertificateSet(Path(run_dir) / report_filename("pt"), files, pdf_error, added)
