"""The certificate's words and numbers: Babel formats, the gettext catalogues, recorded names, hex wire logs, scope."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from test_report_journal import DICE, FAIRNESS, build_run

from bench.catalogue import load_catalogue
from reports.certificate import wire_text
from reports.certificate_view import build_view, plain_test_name
from reports.formatting import Formatter
from reports.i18n import LOCALE_DIR, RecordedText, plain_words, recorded_key, translations
from reports.run_data import ReportedMeasurement, load_run

REPORTS = Path(__file__).resolve().parents[1] / "reports"
PO = LOCALE_DIR / "pt_PT" / "LC_MESSAGES"


@pytest.mark.parametrize(("lang", "expected"), [
    ("pt", ("560,5 ± 3,3 mm", "< 0,0001", "0,43", "90,39 %", "27 de novembro de 2026", "500–600 mm", "10\u00a0007,02\u00a0€")),
    ("en", ("560.5 ± 3.3 mm", "< 0.0001", "0.43", "90.39 %", "November 27, 2026", "500–600 mm", "€10,007.02")),
])
def test_numbers_dates_and_money_in_each_language(lang: str, expected: tuple[str, ...]) -> None:
    f = Formatter(lang)
    shown = (f.with_uncertainty(560.5143, 3.3141, "mm"), f.p_value(0.00001), f.p_value(0.4313), f.percent(0.903935),
             f.date("2026-11-27T10:02:03.123456+00:00"), f.span(500, 600, "mm"), f.money_cents(1000702))
    assert shown == expected


def test_uncertainty_sets_the_decimals_of_the_value() -> None:
    f = Formatter("en")
    assert f.with_uncertainty(13.5274, 0.2203, "mm") == "13.53 ± 0.22 mm"  # two significant digits of U
    assert f.with_uncertainty(20.2788, 0.061, "mm") == "20.279 ± 0.061 mm"
    assert f.p_value(0.0001) == "0.0001" and f.p_value(0.000099) == "< 0.0001"


def _catalogue_ids(path: Path) -> dict[str, str]:
    with path.open("rb") as handle:
        return {message.id: message.string for message in read_po(handle) if message.id}


def test_every_message_of_the_report_is_in_the_portuguese_catalogue_and_translated() -> None:
    extracted = {message for _file, _line, message, *_ in extract_from_dir(
        str(REPORTS), method_map=[("**.py", "python"), ("templates/**.j2", "jinja2")],
        options_map={"templates/**.j2": {"extensions": "jinja2.ext.i18n", "trimmed": "true"}},
        keywords={"_": None, "gettext": None, "N_": None, "ngettext": (1, 2)})}
    catalogue = _catalogue_ids(PO / "certificate.po")
    assert extracted, "no message extracted from reports/"
    assert extracted - set(catalogue) == set(), "messages missing from certificate.po: run `make locale`"
    untranslated = [message for message in extracted
                    if not (all(catalogue[message]) if isinstance(catalogue[message], tuple) else catalogue[message])]
    assert untranslated == []  # every one translated (each plural form too)


@pytest.mark.parametrize(("locale", "domain"), [("pt_PT", "certificate"), ("pt_PT", "recorded"), ("en", "recorded")])
def test_compiled_catalogue_matches_its_po(locale: str, domain: str) -> None:
    folder = LOCALE_DIR / locale / "LC_MESSAGES"
    with (folder / f"{domain}.mo").open("rb") as handle:
        compiled = {_forms(message.id): _forms(message.string) for message in read_mo(handle) if message.id}
    assert compiled == {_forms(key): _forms(value) for key, value in _catalogue_ids(folder / f"{domain}.po").items()
                        if value}


def _forms(string: str | list[str] | tuple[str, ...]) -> str | tuple[str, ...]:
    """A message or its translation; a plural one's forms as a tuple (the .mo reader gives lists)."""
    return string if isinstance(string, str) else tuple(string)


def test_recorded_names_share_an_entry_across_numbers_quotes_and_clauses() -> None:
    pt = RecordedText("pt")
    assert recorded_key("die 3 edge a") == ("die {0} edge a", ["3"])
    assert pt("die 3 edge a") == "dado 3, aresta a"
    assert pt("round 'one flush' paid as the rules say") == "ronda «um flush» paga conforme as regras"
    assert pt("round 'no such round' paid as the rules say") == "ronda «no such round» paga conforme as regras"
    assert pt("two straight flushes sharing 10.5 % of the pool") == "dois straight flushes que partilham 10,5 % do fundo"
    assert pt("level 1: bets departing from 70 % of the bet") == "nível 1: apostas que se afastam de 70 % da aposta"
    assert pt("blackjack: settlements disagreeing with the oracle under p217-2007/blackjack/33").endswith(
        "(p217-2007/blackjack/33)")
    assert pt("a name no suite records") == "a name no suite records"  # shown as recorded
    assert RecordedText("en")("outcomes: runs_up_down") == "outcomes: runs up down" == plain_words(
        "outcomes: runs_up_down")
    assert RecordedText("en")("nist sp800 22") == "NIST SP 800-22 battery"  # a plainer English name
    assert plain_test_name("suites/test_roulette.py::test_wheel_and_ball_dimensions[x]") == "wheel and ball dimensions"


def test_binary_wire_lines_are_shown_in_hex() -> None:
    binary = {"hex": "8000860d01", "text": "\\x80\x00\\x86\r\x01"}
    assert wire_text(binary) == "80 00 86 0d 01"
    assert wire_text({"hex": "5257", "text": "RW 12 CW"}) == "RW 12 CW"  # a line protocol stays readable


def test_english_certificate_messages_are_the_catalogue_ids() -> None:
    assert translations("en").gettext("Clause matrix") == "Clause matrix"
    assert translations("pt").gettext("Clause matrix") == "Matriz de cláusulas"
    with pytest.raises(ValueError, match="language 'fr'"):
        translations("fr")


@pytest.fixture(scope="module")
def biased(tmp_path_factory: pytest.TempPathFactory):
    catalogue = load_catalogue()
    return load_run(build_run(tmp_path_factory.mktemp("scope") / "run", biased=True), catalogue), catalogue


def test_matrix_lists_examined_sections_and_counts_the_others_per_section(biased) -> None:
    data, catalogue = biased
    view = build_view(data, catalogue, "en", translations("en").gettext)
    listed = {line.row.clause_id for section in view.sections for line in section.judged}
    assert {FAIRNESS, DICE} <= listed
    outside = {item.key: item for item in view.out_of_scope}
    craps = [clause for clause in catalogue.clauses() if clause.id.startswith("p217-2007/craps/")]
    assert outside["p217-2007/craps"].count == len(craps)  # dice that play banca francesa, not craps
    assert outside["p217-2007/craps"].reason.startswith("a game the equipment of this run does not play (it plays")
    assert outside["p217-2007/blackjack"].reason == "no such equipment in this run"  # a wheel and dice: no cards
    examined = {section.key for section in view.sections}
    assert {outside[key].reason for key in examined & set(outside)} == {"clauses about other equipment than this run's"}
    every = {clause.id for clause in catalogue.clauses()}
    in_matrix = listed | {f"{section.key}/{rule}" for section in view.sections for _r, rules in section.not_tested
                          for rule in rules}
    assert len(in_matrix) + view.outside_count == len(every)  # each catalogued clause listed or counted, once


def test_first_page_findings_name_the_failed_clause_with_its_measurement(biased) -> None:
    data, catalogue = biased
    view = build_view(data, catalogue, "pt", translations("pt").gettext)
    finding = next(item for item in view.findings if item.clause_id == FAIRNESS)
    assert finding.verdict == "FAIL" and finding.measurement is not None and not finding.measurement.passed
    assert re.match(r"p (<|=) ", finding.measurement.value)


def _length(coverage_k: float, *, in_details: bool) -> ReportedMeasurement:
    """A wheel diameter as ``fixtures/dimensions.record_dimension`` records it, k in its details or (a journal
    written before that detail) only in its method."""
    from fixtures.dimensions import record_dimension
    from vision.measure import Measurement as Dimension

    recorded = {}

    def measure(name: str, value: float, **fields: object) -> None:
        recorded.update(name=name, value=value, **fields)

    u = 3.3141 / coverage_k
    record_dimension(measure, Dimension("wheel diameter", 560.5143, u, (500.0, 600.0), coverage_k=coverage_k,
                                        method="bowl rim fitted"), ["p217-2007/roleta-francesa/9"])
    details = dict(recorded.pop("details"))
    if not in_details:
        details.pop("coverage_k")
    return ReportedMeasurement(run_id="r", at="2026-11-27T10:00:00+00:00", nodeid="n", attempt=1,
                               passed=True, details=details, **recorded)


@pytest.mark.parametrize("in_details", [True, False])
@pytest.mark.parametrize(("lang", "coverage_k", "expected"), [
    ("pt", 2.12035, "560,5 ± 3,3 mm (k = 2,12; 95 %)"),
    ("en", 2.12035, "560.5 ± 3.3 mm (k = 2.12; 95 %)"),
    ("pt", 2.0, "560,5 ± 3,3 mm"),  # the usual k = 2 needs no word
    ("pt", 2.0003, "560,5 ± 3,3 mm"),  # 2 to the places shown
])
def test_an_expanded_uncertainty_states_its_coverage_factor_when_it_is_not_2(
        lang: str, coverage_k: float, expected: str, in_details: bool) -> None:
    from reports.measurement_view import MeasurementPresenter

    presenter = MeasurementPresenter(lang, translations(lang).gettext)
    view = presenter.view(_length(coverage_k, in_details=in_details))
    assert view.value == expected  # the recorded U, never rescaled to k = 2
    assert Formatter(lang).with_uncertainty(560.5143, 3.3141, "mm") == expected.split(" (")[0]


def test_equipment_rows_take_each_field_from_the_device_else_its_profile_else_say_not_declared(tmp_path: Path) -> None:
    """A slot machine reports its serial over SAS (long poll 54), not its maker: the profile's maker and model
    fill its row; a controller that reports neither, with a profile that declares none, says so in words."""
    from reports.certificate import render_certificate
    from reports.run_data import DeviceInfo, Identity

    data = load_run(build_run(tmp_path / "run"), load_catalogue())
    sas = {"info": {"game_id": "SB", "paytable_id": "PAR-01"}, "version": {"sas_version": "602", "serial": "SM-0001"}}
    data.equipment += [
        DeviceInfo("slot", "slot-machine", Identity("Acme", "SB-3 reel slot", "SM-0001"), Identity.from_mapping(sas),
                   True),
        DeviceInfo("progressive", "progressive-controller", Identity(), Identity.from_mapping({"group": 1}), True)]
    rows = {}
    for lang in ("pt", "en"):
        html = render_certificate(data, lang, rendered=[])
        rows[lang] = {name: " ".join(re.sub(r"<[^>]+>", " ", row).split())
                      for name in ("slot", "progressive")
                      for row in re.findall(r"<tr><td class=\"name\">" + name + r"\b.*?</tr>", html, re.DOTALL)}
    assert "Acme SB-3 reel slot SM-0001" in rows["pt"]["slot"]
    assert rows["pt"]["progressive"].count("não declarado") == 4
    assert rows["en"]["progressive"].count("not declared") == 4
