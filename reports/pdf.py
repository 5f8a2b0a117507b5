"""The certificate as PDF: the self-contained HTML of :mod:`reports.certificate` laid out by WeasyPrint.

WeasyPrint needs Pango at run time (Debian: ``libpango-1.0-0``, ``libpangoft2-1.0-0``,
``libharfbuzz0b``, and a font such as ``fonts-dejavu-core``). When it cannot be
imported, :class:`PdfUnavailable` says why; the HTML certificate is unaffected.
"""

from __future__ import annotations

from pathlib import Path


class PdfUnavailable(RuntimeError):
    """WeasyPrint (or the Pango library it needs) is not installed."""


def _weasyprint():
    try:
        import weasyprint
    except (ImportError, OSError) as error:  # OSError: the Pango shared library is missing
        raise PdfUnavailable(f"PDF output needs WeasyPrint and Pango ({error}); install the Debian packages "
                             "libpango-1.0-0 libpangoft2-1.0-0 and `pip install weasyprint`") from error
    return weasyprint


def available() -> bool:
    """Whether a PDF can be written on this machine."""
    try:
        _weasyprint()
    except PdfUnavailable:
        return False
    return True


def html_to_pdf(html: str, target: Path, base_url: Path | None = None) -> Path:
    """Lay out ``html`` as an A4 PDF into ``target``; relative links resolve against ``base_url``."""
    weasyprint = _weasyprint()
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    document = weasyprint.HTML(string=html, base_url=str(base_url) if base_url is not None else None)
    from bench.rundir import atomic_write_bytes

    atomic_write_bytes(target, document.write_pdf())  # a kill leaves the old PDF or the new one, never half of one
    return target
