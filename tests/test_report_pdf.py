"""The certificate as PDF: pages exist, are not blank, and carry the clause ids (checked with pypdfium2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from test_report_journal import DICE, FAIRNESS, LAUNCH, PROCEDURE_ATTESTED, build_run

from bench.catalogue import load_catalogue
from reports import pdf as pdf_module
from reports.certificate import write_report
from reports.figures import Figure, figures
from reports.run_data import RunData, load_run


def test_this_machine_can_write_the_pdf_certificate() -> None:
    """The PDF certificate is part of the product: a machine set up by `make setup` must be able to write it."""
    assert pdf_module.available(), "WeasyPrint cannot load Pango/HarfBuzz: run `make system-deps` (as root)"


def _pages(path: Path) -> tuple[list[str], list[np.ndarray]]:
    document = pdfium.PdfDocument(str(path))
    texts, images = [], []
    for page in document:
        texts.append(page.get_textpage().get_text_range())
        images.append(np.asarray(page.render(scale=0.5).to_pil().convert("L")))
    document.close()
    return texts, images


@pytest.fixture(scope="module")
def failing_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunData, list[Figure]]:
    """A failing synthetic run, read once, its plots drawn once (they do not depend on the language)."""
    run = build_run(tmp_path_factory.mktemp("pdf") / "run", biased=True)
    data = load_run(run, load_catalogue())
    return run, data, figures(data)


@pytest.mark.parametrize(("lang", "verdict"), [("pt", "NÃO CONFORME"), ("en", "FAIL")])
def test_pdf_of_a_failing_run_has_pages_with_the_clause_ids(failing_run: tuple[Path, RunData, list[Figure]],
                                                             lang: str, verdict: str) -> None:
    run, data, rendered = failing_run
    written = write_report(run, lang, pdf=True, data=data, rendered=rendered)
    assert written.pdf == run / ("report.pdf" if lang == "pt" else "report.en.pdf")
    texts, images = _pages(written.pdf)
    assert len(texts) > 1
    for image in images:
        assert image.min() < 128 and image.std() > 3, "a blank page"
    text = "\n".join(texts).replace("\r", "")
    flat = text.replace("\n", "")  # long ids wrap after a slash in the narrow clause column
    for clause_id in (FAIRNESS, LAUNCH, DICE, PROCEDURE_ATTESTED):
        assert clause_id in flat, clause_id
    assert verdict in text
    assert "Ana Silva" in text


def test_pdf_alone_when_the_output_names_a_pdf(failing_run: tuple[Path, RunData, list[Figure]],
                                              tmp_path: Path) -> None:
    run, data, _ = failing_run
    written = write_report(run, "en", output=tmp_path / "out" / "certificate.pdf", data=data, rendered=[])
    assert written.html is None and written.pdf == tmp_path / "out" / "certificate.pdf"
    assert written.pdf.read_bytes().startswith(b"%PDF")
    assert not (tmp_path / "out" / "certificate.html").exists()
