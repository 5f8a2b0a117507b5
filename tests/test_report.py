"""The certificate's data and HTML, from synthetic journals (``test_report_journal.build_run``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_report_journal import (
    DICE,
    FAIRNESS,
    LAUNCH,
    NODE,
    OUT_OF_SCOPE,
    PROCEDURE_ATTESTED,
    PROCEDURE_UNATTESTED,
    build_run,
)

from bench.catalogue import load_catalogue
from bench.games.roulette_layout import FRENCH_ORDER
from bench.journal import Journal, utc_now
from reports.certificate import render_certificate, report_filename, write_report
from reports.clause_verdicts import ATTESTED, FAIL, NOT_TESTED, PASS, clause_verdicts
from reports.i18n import LANGUAGES, translations
from reports.run_data import is_fault, load_run, wire_excerpt

TEMPLATES = Path(__file__).resolve().parents[1] / "reports" / "templates"


@pytest.fixture(scope="module")
def catalogue():
    return load_catalogue()


@pytest.fixture(scope="module")
def biased_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_run(tmp_path_factory.mktemp("biased") / "run", biased=True)


@pytest.fixture(scope="module")
def fair_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_run(tmp_path_factory.mktemp("fair") / "run", biased=False)


def test_verdicts_of_every_applicable_clause(biased_run: Path, catalogue) -> None:
    data = load_run(biased_run, catalogue)
    verdicts = {row.clause_id: row for row in data.clauses}
    assert verdicts[FAIRNESS].verdict == FAIL and verdicts[LAUNCH].verdict == FAIL
    assert verdicts[DICE].verdict == PASS
    assert verdicts[PROCEDURE_ATTESTED].verdict == ATTESTED
    assert verdicts[PROCEDURE_ATTESTED].attestations[0].attested_by == "Rui Costa"
    assert verdicts[PROCEDURE_UNATTESTED].verdict == NOT_TESTED
    assert "no attestation" in verdicts[PROCEDURE_UNATTESTED].reason
    assert verdicts[OUT_OF_SCOPE].verdict == NOT_TESTED and "outside the bench's scope" in verdicts[OUT_OF_SCOPE].reason
    kinds = {"roulette-wheel", "dice"}
    expected = {clause.id for clause in catalogue.clauses() if kinds & {kind.value for kind in clause.kinds}}
    assert set(verdicts) == expected  # every catalogued clause applicable to the equipment, each once
    assert len(data.clauses) == len(expected)
    order = [clause.id for clause in catalogue.clauses() if clause.id in verdicts]
    assert [row.clause_id for row in data.clauses] == order  # catalogue order
    assert data.overall == FAIL


def test_a_procedure_clause_is_never_passed_by_an_attestation_of_a_bench_clause(tmp_path: Path, catalogue) -> None:
    run = build_run(tmp_path / "run")
    with Journal(run / Journal.FILENAME) as journal:
        journal.append("attestations", run_id="report-test-1", at=utc_now(), clause_id="p217-2007/roleta-francesa/3",
                       attested_by="X", attested_at=utc_now(), statement="looked at it")
        verdicts = {v.clause_id: v for v in clause_verdicts(journal, catalogue, ["roulette-wheel"], applicable=True)}
    bench_clause = verdicts["p217-2007/roleta-francesa/3"]
    assert bench_clause.verdict == NOT_TESTED and bench_clause.attestations
    assert all(v.verdict != PASS for v in verdicts.values() if v.testability == "procedure")


def test_without_applicable_only_cited_and_bench_clauses_are_listed(fair_run: Path, catalogue) -> None:
    with Journal(fair_run / Journal.FILENAME, create=False) as journal:
        verdicts = clause_verdicts(journal, catalogue, ["roulette-wheel"])
    assert {v.testability for v in verdicts if not v.tests} == {"bench"}
    assert PROCEDURE_ATTESTED not in {v.clause_id for v in verdicts}


def test_run_facts_identity_instruments_and_samples(fair_run: Path, catalogue) -> None:
    data = load_run(fair_run, catalogue)
    assert data.run.operator == "Ana Silva" and data.run.account == "labuser"
    assert data.run.laboratory == "Laboratório de Ensaio" and data.run.finished_at.startswith("2026-01-02T12")
    wheel = next(device for device in data.equipment if device.name == "wheel")
    assert wheel.reported is not None and wheel.reported.firmware == "fw-2.3" and wheel.mismatches == []
    dice = next(device for device in data.equipment if device.name == "dice")
    assert dice.reported is None  # never queried: the report says so rather than copying the profile
    assert [(i.name, i.configured.serial, i.role) for i in data.instruments] == [("psu", "PS-0001", "powers: wheel")]
    assert {stream.name: stream.count for stream in data.streams} == {"dice/throws": 30, "dice/declined-throws": 1}
    assert data.chain_intact and data.chain_rows > 40
    assert data.signed_fingerprint is None


def test_operator_falls_back_to_the_profile(tmp_path: Path, catalogue) -> None:
    run = tmp_path / "run"
    build_run(run)
    db = run / Journal.FILENAME
    with Journal(db, create=False) as journal:
        rows = journal.rows("events")
    assert any(row["kind"] == "operator" for row in rows)
    # a journal is append-only: build one without the operator event by hand
    other = tmp_path / "other"
    with Journal(other / Journal.FILENAME) as journal, Journal(db, create=False) as source:
        for table in ("runs", "events"):
            for row in source.rows(table):
                if table == "events" and row["kind"] == "operator":
                    continue
                journal.append(table, **{key: row[key] for key in row if key not in ("seq", "prev_hash", "row_hash")})
    assert load_run(other, catalogue).run.operator == "profile operator"


def test_plot_series_follow_the_wheel_order_of_the_profile(biased_run: Path, catalogue) -> None:
    data = load_run(biased_run, catalogue)
    pockets = data.series["pockets"][0]
    assert pockets["order"] == list(FRENCH_ORDER)  # the journal sorts JSON keys; the order is the wheel's
    assert sum(pockets["counts"]) == 3700 and pockets["clauses"] == [FAIRNESS]
    assert set(data.series) == {"pockets", "sectors", "dice", "sequential", "rtp"}
    assert len(data.series["dice"][0]["faces"]) == 30
    row = next(row for row in data.clauses if row.clause_id == FAIRNESS)
    assert set(row.plots) == {"pockets", "sectors", "sequential"}


def test_declined_reads_and_wire_faults(biased_run: Path, catalogue) -> None:
    data = load_run(biased_run, catalogue)
    [group] = data.declines
    assert (group.stream, group.reason, group.count) == ("dice/declined-throws", "cocked", 1)
    assert group.frames and group.frames[0].media_type == "image/jpeg"
    [wire] = data.wire
    assert wire.device == "wheel" and wire.faults == 2 and wire.lines == 22
    [block] = wire.blocks  # the two faults are adjacent: one merged block
    assert [entry["fault"] for entry in block].count(True) == 2


def test_wire_excerpt_context_and_merging() -> None:
    entries = [{"dir": "rx", "text": str(i)} for i in range(40)]
    entries[5] = {"dir": "rx-partial", "text": "x"}
    entries[30] = {"dir": "event", "note": "reconnecting"}
    entries[33] = {"dir": "rx", "text": "y", "note": "got 2 of 4 byte(s) before the timeout"}
    faults, blocks = wire_excerpt(entries, context=2)
    assert faults == 3
    assert [[entry["line"] for entry in block] for block in blocks] == [[4, 5, 6, 7, 8], list(range(29, 37))]
    assert not is_fault({"dir": "event", "note": "opened /dev/pts/1"}) and not is_fault({"dir": "tx", "text": "a"})
    assert wire_excerpt(entries, context=2, faults_shown=1)[1] == blocks[:1]


def _visible_text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", re.sub(r"<style>.*?</style>", "", html, flags=re.DOTALL))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_certificate_html_is_self_contained_and_complete(biased_run: Path, catalogue, lang: str) -> None:
    data = load_run(biased_run, catalogue)
    html = render_certificate(data, lang, key_fingerprint="SHA256:abcd")
    _ = translations(lang).gettext
    assert re.findall(r'<(?:img|script|link)[^>]+(?:src|href)="(?!data:)', html) == []  # every image inline
    assert "<link" not in html and "@import" not in html
    for row in data.clauses:  # every clause with evidence has its row; the others are counted, not listed
        if row.measurements or row.attestations:
            assert f'id="clause-{row.clause_id}"' in html
    text = _visible_text(html)
    for message in ("Test certificate", "Laboratory", "Tested by", "Equipment under test", "Instruments used",
                    "Clause matrix", "Appendix B — Plots", "Appendix C — Samples, declined reads and line faults",
                    "FAIL", "ATTESTED", "NOT TESTED", "FAIL: at least one clause failed", "Findings"):
        assert _(message) in text, message
    for figure_name in ("pockets", "sectors", "dice", "sequential", "rtp"):
        assert f'id="plot-{figure_name}-1"' in html
    assert "Ana Silva" in text and "fw-2.3" in text and "PS-0001" in text and "SHA256:abcd" in text
    assert "9 adjacent pockets x1.3" in text  # the power and the alternative it is stated against
    assert ("p ≥ 0.01" if lang == "en" else "p ≥ 0,01") in text and ("3,700" if lang == "en" else "3\u00a0700") in text
    assert ("reconnecting" if lang == "en" else "a restabelecer a ligação") in text and "Rui Costa" in text
    if lang == "en":
        assert translations("pt").gettext("NOT TESTED") not in text  # no Portuguese label in the English certificate


def test_certificate_links_resolve_from_where_it_is_written(biased_run: Path, tmp_path: Path, catalogue) -> None:
    outside = write_report(biased_run, "en", output=tmp_path / "elsewhere" / "cert.html")
    html = outside.html.read_text(encoding="utf-8")
    links = [link for link in re.findall(r'href="([^"#]+)"', html)]
    assert links and all((outside.html.parent / link).resolve().is_file() for link in links)
    inside = write_report(biased_run, "pt")
    assert inside.html == biased_run / report_filename("pt") == biased_run / "report.html"
    assert all((biased_run / link).is_file() for link in re.findall(r'href="([^"#]+)"', inside.html.read_text()))


def test_unsigned_signed_and_about_to_be_signed(fair_run: Path, catalogue) -> None:
    data = load_run(fair_run, catalogue)
    assert "Not signed." in _visible_text(render_certificate(data, "en", rendered=[]))  # plots are not the point
    assert "SHA256:feed" in render_certificate(data, "en", key_fingerprint="SHA256:feed", rendered=[])
    data.signed_fingerprint = "SHA256:from-manifest"
    assert "SHA256:from-manifest" in render_certificate(data, "en", rendered=[])


def test_allure_results_gain_plots_frames_and_wire_excerpts(tmp_path: Path, catalogue) -> None:
    import json

    from reports.allure_evidence import add_run_evidence, allure_full_name

    run = build_run(tmp_path / "run", biased=True)
    results_dir = run / "allure-results"
    results_dir.mkdir()
    for index, (nodeid, clause) in enumerate([(NODE, FAIRNESS), ("suites/test_dice.py::test_dice_are_balanced", DICE)]):
        full_name, name = allure_full_name(nodeid)
        (results_dir / f"r{index}-result.json").write_text(json.dumps({
            "uuid": f"u{index}", "name": name, "fullName": full_name,
            "labels": [{"name": "story", "value": clause}]}), encoding="utf-8")
    data = load_run(run, catalogue)
    # plots: pockets, sectors and sequential path of the fairness test, dice and RTP of the dice test; one frame;
    # one wire excerpt
    assert add_run_evidence(run, data, catalogue) == 3 + 2 + 1 + 1
    fairness = json.loads((results_dir / "r0-result.json").read_text(encoding="utf-8"))
    names = [item["name"] for item in fairness["attachments"]]
    assert len(names) == 3 and all(name.startswith("plot: ") for name in names)
    assert all((results_dir / item["source"]).read_bytes().startswith(b"<?xml") for item in fairness["attachments"])
    containers = [json.loads(path.read_text(encoding="utf-8")) for path in results_dir.glob("*-container.json")]
    by_name = {container["name"]: container for container in containers}
    frames = by_name["declined or disputed reads (suites/test_dice.py::throws)"]
    assert frames["children"] == ["u1"] and frames["befores"][0]["attachments"][0]["type"] == "image/jpeg"
    wire = by_name["wheel wire log faults"]
    assert wire["children"] == ["u0"]  # the test citing a roulette-wheel clause
    excerpt = (results_dir / wire["befores"][0]["attachments"][0]["source"]).read_text(encoding="utf-8")
    assert "reconnecting" in excerpt and "2 fault(s)" in excerpt
    assert add_run_evidence(run, data, catalogue) == 1 + 1  # again: no plot twice, containers replaced
    assert len(list(results_dir.glob("*-container.json"))) == 2
