"""Size and render time of a run's certificate: HTML and PDF, each language.

Usage: ``.venv/bin/python benchmarks/report_size.py RUN_DIR [--lang pt|en]``. Renders into a
temporary directory (the run directory is not touched) and prints, per language: time to read
the journal, to draw the plots, to render the HTML and to lay out the PDF; the HTML size (and
how much of it is inline images) and the PDF's size and page count.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

from bench.catalogue import load_catalogue
from reports.certificate import render_certificate
from reports.figures import figures
from reports.i18n import LANGUAGES
from reports.run_data import load_run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--lang", choices=LANGUAGES, action="append")
    args = parser.parse_args(argv)
    if not (args.run_dir / "journal.sqlite").is_file():
        print(f"{args.run_dir}: no journal.sqlite", file=sys.stderr)
        return 2
    from reports.pdf import PdfUnavailable, html_to_pdf

    catalogue = load_catalogue()
    start = time.perf_counter()
    data = load_run(args.run_dir, catalogue)
    read_s = time.perf_counter() - start
    start = time.perf_counter()
    rendered = figures(data)
    plots_s = time.perf_counter() - start
    print(f"run {data.run.run_id}: {len(data.clauses)} clauses, {len(data.measurements)} measurements, "
          f"{len(data.attachments)} attachments, {len(rendered)} plots")
    print(f"read journal {read_s:.2f} s, draw plots {plots_s:.2f} s")
    with tempfile.TemporaryDirectory() as work:
        for lang in args.lang or LANGUAGES:
            start = time.perf_counter()
            html = render_certificate(data, lang, rendered=rendered)
            html_s = time.perf_counter() - start
            inline = sum(len(match) for match in re.findall(r"data:[^\"]+", html))
            line = (f"[{lang}] HTML {len(html.encode()) / 1e6:.2f} MB ({inline / 1e6:.2f} MB inline images) "
                    f"in {html_s:.2f} s")
            try:
                start = time.perf_counter()
                target = html_to_pdf(html, Path(work) / f"report.{lang}.pdf", base_url=args.run_dir)
                pdf_s = time.perf_counter() - start
            except PdfUnavailable as error:
                print(f"{line}; no PDF: {error}")
                continue
            pages = _page_count(target)
            print(f"{line}; PDF {target.stat().st_size / 1e6:.2f} MB, {pages} pages in {pdf_s:.2f} s")
    return 0


def _page_count(path: Path) -> int | str:
    try:
        import pypdfium2
    except ImportError:
        return "?"
    document = pypdfium2.PdfDocument(str(path))
    try:
        return len(document)
    finally:
        document.close()


if __name__ == "__main__":
    sys.exit(main())
