"""The certificate of real runs as a reader gets it: page counts, the first page, Portuguese only, no code names.

The runs are certified once per test session (``tests/suite_runs.py``; the biased wheel's run is shared with
the sensitivity matrix); each PDF is written outside the shared run directory, which stays read-only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from babel.messages.pofile import read_po
from suite_runs import FinishedRun, SessionRuns

from bench.catalogue import load_catalogue
from reports.certificate import write_report
from reports.certificate_view import plain_test_name
from reports.i18n import LOCALE_DIR, RecordedText
from reports.run_data import RunData, load_run

SNAKE_CASE = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\b")

Pages = Callable[[str, str], tuple[RunData, list[str]]]


@pytest.fixture(scope="module")
def catalogue():
    return load_catalogue()


@pytest.fixture(scope="module")
def certificate_pages(session_runs: SessionRuns, tmp_path_factory: pytest.TempPathFactory, catalogue) -> Pages:
    """``pages(run, lang)``: the run's data and the text of each page of its PDF certificate in ``lang``."""
    runs = {"sim": ("", "sim"), "roulette": ("roulette", "sim"), "biased": ("roulette", "sim-biased-wheel")}
    cache: dict[tuple[str, str], tuple[RunData, list[str]]] = {}
    data: dict[str, RunData] = {}

    def pages(run: str, lang: str) -> tuple[RunData, list[str]]:
        if (run, lang) not in cache:
            finished: FinishedRun = session_runs.run(*runs[run])
            assert (finished.run_dir / "journal.sqlite").is_file(), finished.output[-2000:]
            data.setdefault(run, load_run(finished.run_dir, catalogue))
            target = tmp_path_factory.mktemp(f"{run}-{lang}") / "certificate.pdf"
            written = write_report(finished.run_dir, lang, output=target, data=data[run], catalogue=catalogue)
            document = pdfium.PdfDocument(str(written.pdf))
            texts = [page.get_textpage().get_text_range().replace("\r", "") for page in document]
            document.close()
            cache[(run, lang)] = (data[run], texts)
        return cache[(run, lang)]

    return pages


@pytest.mark.slow(seconds=200)
@pytest.mark.timeout(1200)  # may wait for the session's whole sim certification (about 470 s)
@pytest.mark.parametrize("lang", ["pt", "en"])
def test_full_sim_certificate_fits_15_pages(certificate_pages: Pages, lang: str) -> None:
    data, pages = certificate_pages("sim", lang)
    assert len(pages) <= 15, len(pages)
    first = pages[0].replace("\n", "")  # a serial may wrap in its narrow column
    assert ("CONFORME" if lang == "pt" else "PASS") in first
    for device in data.equipment:  # every piece of equipment named with its serial on page 1
        assert device.shown.serial in first, device.name
    assert ("Âmbito" if lang == "pt" else "Scope") in first


@pytest.mark.slow(seconds=60)
def test_roulette_only_certificate_fits_6_pages(certificate_pages: Pages, catalogue) -> None:
    from reports.certificate_view import build_view
    from reports.i18n import translations

    data, pages = certificate_pages("roulette", "pt")
    assert len(pages) <= 6, len(pages)
    view = build_view(data, catalogue, "pt", translations("pt").gettext)
    assert view.examined_kinds == ["roulette-wheel"]  # the profile has more equipment; this run examined the wheel
    assert "dice" in view.unexamined_kinds
    assert "Equipamento do perfil que este ensaio não examinou" in " ".join(pages[0].split())
    assert [section.key for section in view.sections] == ["p217-2007/roleta-francesa"]  # a French wheel


@pytest.mark.slow(seconds=30)
@pytest.mark.parametrize(("lang", "verdict"), [("pt", "NÃO CONFORME"), ("en", "FAIL")])
def test_failing_run_names_the_failed_clause_on_page_1(certificate_pages: Pages, lang: str, verdict: str) -> None:
    data, pages = certificate_pages("biased", lang)
    first = pages[0].replace("\n", "")
    failed = [row.clause_id for row in data.clauses if row.verdict == "FAIL"]
    assert failed and data.overall == "FAIL"
    assert verdict in first
    for clause_id in failed:
        assert clause_id in first, clause_id
    key = RecordedText(lang)(next(m for m in data.measurements if not m.passed).name)
    assert key.replace(" ", "") in first.replace(" ", "")  # the key measurement's caption beside it


def _english_messages() -> list[str]:
    """Literal fragments (between placeholders) of every certificate message whose Portuguese differs."""
    with (LOCALE_DIR / "pt_PT" / "LC_MESSAGES" / "certificate.po").open("rb") as handle:
        messages = [(message.id, message.string) for message in read_po(handle) if message.id]
    pairs = []
    for english, portuguese in messages:  # a plural message: its singular and plural, each with its translation
        pairs += list(zip(english, portuguese, strict=False)) if isinstance(english, tuple) else [(english, portuguese)]
    fragments = set()
    for english, portuguese in pairs:
        if english == portuguese:
            continue
        for fragment in re.split(r"%\(\w+\)s|\{\w+\}", english):
            fragment = fragment.strip(" .,:;()—–-“”")
            if len(re.sub(r"[^A-Za-z]", "", fragment)) >= 3:
                fragments.add(fragment)
    return sorted(fragments)


def _without_identifiers(text: str, data: RunData) -> str:
    """The page text without what the laboratory's profile and the run name (device names and identities, the
    command, the run id, the host's platform): those are data, not the certificate's words."""
    names = [data.run.command, data.run.run_id, data.run.profile_name, data.run.laboratory, data.run.operator,
             data.run.host]
    for device in data.equipment + data.instruments:
        names.append(device.name)
        for identity in (device.configured, device.reported):
            if identity is not None:
                names += [identity.manufacturer, identity.model, identity.serial, identity.firmware]
    for name in sorted((name for name in names if name), key=len, reverse=True):
        text = text.replace(name, " ")
    return text


@pytest.mark.slow(seconds=200)
@pytest.mark.parametrize("run", ["sim", "biased"])
def test_portuguese_pdf_has_no_message_of_the_english_catalogue(certificate_pages: Pages, run: str) -> None:
    data, pages = certificate_pages(run, "pt")
    text = _without_identifiers(re.sub(r"\s+", " ", " ".join(pages)), data)
    found = [message for message in _english_messages()
             if re.search(r"(?<![\w-])" + re.escape(message) + r"(?![\w-])", text)]
    assert found == []


@pytest.mark.slow(seconds=200)
@pytest.mark.timeout(1200)  # may wait for the session's whole sim certification (about 470 s)
@pytest.mark.parametrize(("run", "lang"), [("sim", "pt"), ("sim", "en"), ("biased", "pt"), ("biased", "en")])
def test_no_snake_case_word_in_the_certificate(certificate_pages: Pages, run: str, lang: str) -> None:
    data, pages = certificate_pages(run, lang)
    assert sorted(set(SNAKE_CASE.findall(_without_identifiers(" ".join(pages), data)))) == []


@pytest.mark.slow(seconds=200)
@pytest.mark.parametrize("run", ["sim", "biased"])
def test_every_recorded_measurement_name_unit_and_test_has_a_portuguese_name(certificate_pages: Pages,
                                                                             run: str) -> None:
    data, _ = certificate_pages(run, "pt")
    pt = RecordedText("pt")
    recorded = {m.name for m in data.measurements} | {m.unit for m in data.measurements if m.unit}
    recorded |= {plain_test_name(m.nodeid) for m in data.measurements}
    recorded |= {stream.name for stream in data.streams} | {group.reason for group in data.declines}
    assert sorted(text for text in recorded if re.search("[a-z]", text) and not pt.known(text)) == []


def test_the_portuguese_english_fragments_are_found_by_the_check() -> None:
    """The check above can fail: an English message in a text is found, its Portuguese is not."""
    fragments = _english_messages()
    assert "Clause matrix" in fragments and "Equipment under test" in fragments
    assert "Matriz de cláusulas" not in fragments
    assert "limit" in fragments and re.search(r"(?<![\w-])limit(?![\w-])", "com limite 5") is None


def test_shared_run_directories_are_not_written(tmp_path: Path) -> None:
    """``write_report`` with an output outside the run directory leaves the run as it was (it is shared)."""
    from test_report_journal import build_run

    run = build_run(tmp_path / "run")
    before = sorted(path.relative_to(run) for path in run.rglob("*"))
    write_report(run, "pt", output=tmp_path / "out" / "certificate.pdf")
    assert sorted(path.relative_to(run) for path in run.rglob("*")) == before


@pytest.mark.slow(seconds=200)
def test_slot_return_clause_shows_the_return_first_and_the_rng_battery_as_groups_of_their_own(
        certificate_pages: Pages, catalogue) -> None:
    from reports.certificate_view import build_view
    from reports.i18n import translations

    data, _ = certificate_pages("sim", "en")
    view = build_view(data, catalogue, "en", translations("en").gettext)
    [line] = [line for section in view.sections for line in section.judged
              if line.row.clause_id == "p217-2007/maquinas-automaticas/2"]
    first = line.evidence[0]
    assert "return" in first.key.caption and first.key.value.endswith("%")
    battery = [item.group.title for item in line.evidence[2:]]
    assert {"dieharder battery", "game outcomes", "NIST SP 800-22 battery"} <= set(battery)  # each test its own group, after
