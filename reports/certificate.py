"""The certificate: one self-contained HTML file (CSS, plots and evidence frames inline as data URIs).

:func:`render_certificate` turns :class:`reports.run_data.RunData` into HTML in
Portuguese or English (:mod:`reports.i18n`); :func:`write_report` reads the run
directory's journal, renders the HTML (and the PDF through :mod:`reports.pdf`
when asked) and writes it. The certificate links every attachment by its path
relative to the file written, so the links work from inside the run directory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from bench.catalogue import Catalogue, load_catalogue
from bench.rundir import atomic_write_text
from reports.certificate_view import KIND_NAMES, ScopeCounts, build_view, scope_counts
from reports.figures import Figure, data_uri, figures
from reports.formatting import Formatter
from reports.i18n import LANGUAGES, N_, RecordedText, translations
from reports.recorded_reasons import RecordedReason
from reports.run_data import RunData, load_run

TEMPLATES = Path(__file__).with_name("templates")
TEMPLATE = "certificate.html.j2"
STYLESHEET = "certificate.css"
FRAME_INLINE_LIMIT = 400_000
"""Evidence frames larger than this (bytes) are linked, not inlined."""
WIRE_LINE_LIMIT = 100
"""Characters of a wire-log line shown (the attachment keeps it whole)."""


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


def _clause_id(value: str) -> Markup:
    """A clause id that wraps only after its slashes (each part kept whole, so PDF text keeps the id intact)."""
    return Markup("/<wbr>").join(Markup('<span class="nw">{}</span>').format(part) for part in value.split("/"))


def wire_text(entry: dict[str, Any], limit: int = WIRE_LINE_LIMIT) -> str:
    """A wire-log entry's bytes: its text when printable ASCII, else its hexadecimal (``80 00 86 0d …``)."""
    text = str(entry.get("text", ""))
    hexed = str(entry.get("hex", ""))
    if hexed and not (text.isascii() and text.isprintable() and "\\x" not in text):
        shown = " ".join(hexed[index:index + 2] for index in range(0, len(hexed), 2))
    else:
        shown = text
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def _environment(lang: str) -> Environment:
    environment = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]),
                              undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                              extensions=["jinja2.ext.i18n"])
    environment.install_gettext_translations(translations(lang), newstyle=True)  # type: ignore[attr-defined]
    environment.filters["cid"] = _clause_id
    environment.filters["wire_text"] = wire_text
    return environment


OVERALL = {
    "PASS": N_("PASS on every tested clause"),
    "FAIL": N_("FAIL: at least one clause failed"),
    "ERROR": N_("ERROR: at least one clause could not be tested because of an error"),
    "INCOMPLETE": N_("INCOMPLETE: at least one planned test did not finish; no compliance is stated"),
    "NONE": N_("No clause was tested"),
}
VERDICT_NAMES = {"PASS": N_("PASS"), "FAIL": N_("FAIL"), "ERROR": N_("ERROR"), "INCOMPLETE": N_("INCOMPLETE"),
                 "ATTESTED": N_("ATTESTED"), "NOT TESTED": N_("NOT TESTED")}
PLOT_NAMES = {
    "pockets": N_("Pocket frequencies in wheel order with the expected band"),
    "sectors": N_("Sector statistic along the wheel"),
    "dice": N_("Die face histograms"),
    "cards": N_("Card-by-position heat map (standardised residuals)"),
    "sequential": N_("Sequential test path and its boundaries"),
    "jackpot": N_("Jackpot value over time against the expected increments"),
    "rtp": N_("Return to player: confidence interval against 80 %"),
}


def render_certificate(data: RunData, lang: str = "pt", *, key_fingerprint: str | None = None,
                       link_base: str = "", rendered: list[Figure] | None = None,
                       catalogue: Catalogue | None = None) -> str:
    """The certificate's HTML.

    ``key_fingerprint``: the laboratory key that signs (or is about to sign) the run; without it the
    fingerprint of the run's ``manifest.json`` is shown when the run is signed, else "not signed".
    ``link_base``: prefix of attachment links (the run directory relative to the file written).
    ``rendered``: the run's :func:`figures` in ``lang``, when already drawn.
    """
    if lang not in LANGUAGES:
        raise ValueError(f"language {lang!r}: use one of {', '.join(LANGUAGES)}")
    _ = translations(lang).gettext
    fingerprint = key_fingerprint or data.signed_fingerprint
    css = (TEMPLATES / STYLESHEET).read_text(encoding="utf-8")
    rendered = figures(data, lang) if rendered is None else rendered
    frames = {item.sha256: _frame_uri(data, item.path, item.media_type)
              for group in data.declines for item in group.frames[:1]}
    view = build_view(data, catalogue or load_catalogue(), lang, _)

    def kind_text(kind: str) -> str:
        return _(KIND_NAMES[kind]) if kind in KIND_NAMES else kind.replace("-", " ")

    def role_text(device: Any) -> str:
        if device.role.startswith("powers: "):
            return _("powers %(devices)s") % {"devices": device.role.removeprefix("powers: ")}
        if device.role.startswith("measures: "):
            return _("measures %(quantity)s") % {"quantity": RecordedText(lang)(device.role.removeprefix("measures: "))}
        return device.role

    def declared(value: str) -> Markup:
        """An identity field, or "not declared" when neither the device nor its profile states it."""
        if value:
            return Markup("{}").format(value)
        return Markup('<span class="nd">{}</span>').format(_("not declared"))

    not_tested = sum(len(rules) for section in view.sections for _reason, rules in section.not_tested)
    return _environment(lang).get_template(TEMPLATE).render(
        lang=lang, data=data, run=data.run, css=css, figures=rendered, view=view, fmt=Formatter(lang),
        frames=frames, fingerprint=fingerprint, link_base=link_base,
        overall_text={key: _(value) for key, value in OVERALL.items()},
        verdict_text={key: _(value) for key, value in VERDICT_NAMES.items()},
        plot_text={key: _(value) for key, value in PLOT_NAMES.items()},
        kind_text=kind_text, role_text=role_text, declared=declared, recorded=RecordedText(lang),
        recorded_reason=RecordedReason(lang, _),
        not_tested_in_scope=not_tested, attachments_total=len(data.attachments),
        attachments_size=Formatter(lang).megabytes(sum(item.size for item in data.attachments)),
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
    html = render_certificate(data, lang, key_fingerprint=key_fingerprint, link_base=link_base, rendered=rendered,
                              catalogue=catalogue)
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
    scope: ScopeCounts
    allure_attachments: int = 0


def write_certificates(run_dir: Path, *, key_fingerprint: str | None = None, catalogue: Catalogue | None = None,
                       pdf: bool = True, allure: bool = True) -> CertificateSet:
    """The certificate in every language into the run directory (``report.html``, ``report.en.html`` and,
    with ``pdf`` and WeasyPrint installed, the PDFs); the journal is read once and the plots drawn once per language. With
    ``allure``, the plots, declined-read frames and wire-log excerpts are added to the run's allure results
    (:mod:`reports.allure_evidence`)."""
    from reports import pdf as pdf_module
    from reports.allure_evidence import add_run_evidence

    catalogue = catalogue or load_catalogue()
    data = load_run(Path(run_dir), catalogue)
    rendered = {lang: figures(data, lang) for lang in LANGUAGES}
    added = add_run_evidence(Path(run_dir), data, catalogue, rendered["en"]) if allure else 0
    pdf_error = None
    if pdf and not pdf_module.available():
        pdf_error = "WeasyPrint or Pango is not installed"
    files: list[Path] = []
    for lang in LANGUAGES:
        written = write_report(Path(run_dir), lang, pdf=pdf and pdf_error is None, key_fingerprint=key_fingerprint,
                               data=data, rendered=rendered[lang], catalogue=catalogue)
        files += [path for path in (written.html, written.pdf) if path is not None]
    return CertificateSet(Path(run_dir) / report_filename("pt"), files, pdf_error, scope_counts(data, catalogue), added)
