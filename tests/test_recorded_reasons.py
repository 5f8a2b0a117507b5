"""The reasons and notes the bench writes, in the Portuguese certificate: INCOMPLETE, ERROR and NOT TESTED
clauses of one run, its wire-log notes and an attestation, built cheaply as a journal (no suite is run).

The messages are made by the code that makes them in a run (a :class:`drivers.serial_link.DeviceError` through
:func:`fixtures.incomplete.incomplete_reason`, :class:`fixtures.no_reads.NoReads` over its bound, a suite's skip
as pytest reports it); the certificate must show none of their English, except what the bench did not write
(an exception's message, a person's statement), shown verbatim and marked as the original record.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_report_journal import LAUNCH_NODE, _final, build_run

from bench.journal import TEST_INCOMPLETE, Journal, utc_now
from drivers.serial_link import DeviceError
from fixtures.evidence_store import store
from fixtures.incomplete import incomplete_reason
from fixtures.no_reads import NoReadBoundExceeded, NoReads
from reports.certificate import render_certificate
from reports.i18n import translations
from reports.recorded_reasons import RecordedReason
from reports.run_data import load_run

LOST, NOT_ENOUGH, ERRORED, EXTERNAL, SKIPPED, PAR = (f"p217-2007/roleta-francesa/{rule}" for rule in (7, 8, 10, 11, 3, 6))
SERIAL_ERROR = ("SerialException: device reports readiness to read but returned no data (device disconnected or "
                "multiple access on port?)")
STATEMENT = "Shuffler loaded once, in two packs, in my presence."


def _device_lost() -> str:
    with pytest.raises(DeviceError) as raised:
        raise DeviceError("/dev/ttyUSB1", "result of game 12", ["no reply within 2 s", "no reply within 2 s",
                                                                "garbled reply (checksum 0x3A, expected 0x3B)"])
    return incomplete_reason(raised)


class _Stream:
    """The no-reads stream of a session, kept in memory."""

    def __init__(self) -> None:
        self.values: list[object] = []

    def record(self, value: object, source: str) -> None:
        self.values.append(value)

    @property
    def count(self) -> int:
        return len(self.values)


def _not_enough_read() -> str:
    """The message of a NoReads bound passed (one no-read allowed over 20 planned games, two recorded)."""
    stream = _Stream()
    no_reads = NoReads(SimpleNamespace(stream=lambda name, nodeid: stream), "wheel/no-reads", "n", 20, "wheel")
    error = DeviceError("/dev/ttyUSB1", "result of game 7", ["no reply within 2.5 s"])
    with pytest.raises(NoReadBoundExceeded) as raised:
        for _ in range(3):
            no_reads.record(error)
    return incomplete_reason(raised)


def _recorded_run(run_dir: Path) -> tuple[Path, dict[str, str]]:
    """The report tests' run with an unfinished, an errored and a skipped test added, a wire log with the notes a
    serial link writes, and a person's statement in English; returns it and each English text recorded."""
    build_run(run_dir)
    texts = {"lost": _device_lost(), "not enough": _not_enough_read(),
             "no evidence": f"{LAUNCH_NODE} recorded no measurement: a verdict needs evidence",
             "skipped": "the table plays blackjack, not craps or poquer-sintetico",
             "par": "the PAR sheet declares 1.0 % to progressive group 1, but no progressive controller of the "
                    "profile links this machine: contributions NOT TESTED",
             "got": "got 19 of 64 byte(s) before the timeout",
             "late": "3 late reply line(s) discarded before the next query",
             "waiting": "waiting 0.25 s for late replies before the next query"}
    with Journal(run_dir / Journal.FILENAME) as journal:
        run_id = journal.rows("runs")[0]["run_id"]
        for clause, outcome, message in (
                (LOST, TEST_INCOMPLETE, texts["lost"]), (NOT_ENOUGH, TEST_INCOMPLETE, texts["not enough"]),
                (ERRORED, "error", texts["no evidence"]), (EXTERNAL, "error", f"E   {SERIAL_ERROR}"),
                (SKIPPED, "skipped", f"Skipped: {texts['skipped']}"), (PAR, "skipped", f"Skipped: {texts['par']}")):
            journal.append("tests", run_id=run_id, at=utc_now(), nodeid=f"suites/test_roulette.py::test_{clause[-2:]}",
                           attempt=1, phase="final", outcome=outcome, duration_s=0.1, clauses=[clause], message=message)
        wire = [{"t": 1.0, "dir": "tx", "hex": "01", "text": "\\x01", "note": "long poll 2F (selected meters)"},
                {"t": 1.1, "dir": "rx", "hex": "80", "text": "\\x80", "note": texts["got"]},
                {"t": 1.2, "dir": "event", "text": "", "note": texts["waiting"]},
                {"t": 1.3, "dir": "rx-discarded", "text": "RES 4", "note": texts["late"]}]
        digest, relative, size = store(run_dir, "".join(json.dumps(entry) + "\n" for entry in wire).encode(), ".jsonl")
        journal.append("attachments", run_id=run_id, at=utc_now(), nodeid="(session)", attempt=1,
                       name="slot wire log", sha256=digest, media_type="application/jsonl", size=size,
                       path=str(relative))
        journal.append("attestations", run_id=run_id, at=utc_now(), clause_id="p217-2007/roleta-francesa/14",
                       attested_by="Rui Costa", attested_at="2026-01-02T11:00:00+00:00", statement=STATEMENT)
        _final(journal, run_id, "suites/test_roulette.py::test_noop", [], "passed")
    return run_dir, texts


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory):
    from bench.catalogue import load_catalogue

    run_dir, texts = _recorded_run(tmp_path_factory.mktemp("reasons") / "run")
    catalogue = load_catalogue()
    return load_run(run_dir, catalogue), catalogue, texts


def _text(html: str) -> str:
    body = re.sub(r"<style>.*?</style>", " ", html, flags=re.DOTALL)
    return " ".join(re.sub(r"<[^>]+>", " ", body).replace("&lt;", "<").replace("&gt;", ">").split())


def _english_runs(text: str, words: int = 3) -> set[str]:
    """Every run of ``words`` consecutive English words of ``text`` (no digit, port or code among them)."""
    tokens = re.findall(r"[A-Za-z][A-Za-z'’-]*|\S+", text)
    runs = set()
    for start in range(len(tokens) - words + 1):
        window = tokens[start:start + words]
        if all(re.fullmatch(r"[a-z][a-z'’-]*", token) for token in window):
            runs.add(" ".join(window))
    return runs


def test_the_recorded_run_has_each_kind_of_clause(recorded) -> None:
    data, _catalogue, texts = recorded
    verdicts = {row.clause_id: row.verdict for row in data.clauses}
    assert [verdicts[clause] for clause in (LOST, NOT_ENOUGH, ERRORED, EXTERNAL, SKIPPED, PAR)] == [
        "INCOMPLETE", "INCOMPLETE", "ERROR", "ERROR", "NOT TESTED", "NOT TESTED"]
    assert texts["lost"].startswith("device lost: /dev/ttyUSB1: result of game 12 failed after 3 attempt(s)")
    assert texts["not enough"].startswith("not enough read: 2 games could not be read from wheel; the bound is 1")


def test_portuguese_certificate_shows_no_english_reason_note_or_statement(recorded) -> None:
    data, catalogue, texts = recorded
    html = render_certificate(data, "pt", rendered=[], catalogue=catalogue)
    page = _text(html)
    originals = re.findall(r"texto original, tal como registado: «([^»]*)»", page)
    assert SERIAL_ERROR in originals and STATEMENT in originals  # what the bench did not write: quoted, verbatim
    outside_quotes = re.sub(r"texto original, tal como registado: «[^»]*»", " ", page)
    english = set().union(*(_english_runs(text) for text in texts.values()))
    assert sorted(run for run in english if run in outside_quotes) == []
    for shown in ("equipamento perdido: /dev/ttyUSB1: «resultado do jogo 12» falhou após 3 tentativa(s)",
                  "leituras insuficientes: 2 jogos não puderam ser lidos de wheel",
                  "sem resposta em 2,5 s",  # a decimal of a recorded sentence in Portuguese
                  "a folha PAR declara 1,0 % para o grupo progressivo 1",
                  "a mesa pratica blackjack, não craps nem póquer sintético",
                  "recebidos 19 de 64 byte(s) antes de esgotado o tempo de espera"):
        assert shown in page, shown


def test_english_certificate_shows_the_reasons_as_recorded(recorded) -> None:
    data, catalogue, texts = recorded
    page = _text(render_certificate(data, "en", rendered=[], catalogue=catalogue))
    assert texts["got"] in page and "1.0 % to progressive group 1" in page
    assert f"“{STATEMENT}”" in page and "original record" not in page


def test_a_library_message_inside_a_bench_sentence_is_marked_as_the_original_record() -> None:
    pt = RecordedReason("pt", translations("pt").gettext)
    assert pt("close failed: [Errno 5] Input/output error") == (
        "o fecho da ligação falhou: texto original, tal como registado: «[Errno 5] Input/output error»")
    assert pt("reconnecting; no terminator before timeout") == (
        "a restabelecer a ligação; sem terminador antes de esgotado o tempo de espera")


SKIPS = [  # each suite's pytest.skip sentence, as a run of the built-in profiles fills it in
    ("decks share a back colour (['red', 'red']): their cards cannot be told apart card by card, so no dealt order "
    "can be compared with the order it started from"),
    "1 of 40 shuffles started from a complete deck and dealt it whole: too few to test",
    ("no jam occurred in 2080 deals of this run, so its handling could not be observed (the simulator's jam_rate is "
    "0.0)"),
    ("no damaged card occurred in 2080 deals of this run, so its handling could not be observed (a laboratory "
    "provokes one (e.g. a bent or marked card loaded into the shoe) and runs again)"),
    "the profile uses the shuffler in batch mode, not continuous",
    "the profile uses the shuffler in batch mode, not with two alternating decks",
    "profile 'sim' has no progressive controller",
    "progressive controller 'progressive' declares no superjackpot level: nothing to test",
    "the table plays blackjack, not craps",
    "no round read needed the dealer to draw",
    "omaha is not played under p217-2007",
    ("the declared PAR sheet PAR-01 contributes to no jackpot or superjackpot (progressive_contribution_percent = 0): "
    "nothing to test"),
    ("contributions of 2.5 % to progressive group 1 are judged by the progressive suite (suites/test_progressive.py) "
    "on controller progressive"),
    "no power supply of the profile feeds 'slot': meter retention over a power cycle NOT TESTED",
    "the profile names no dieharder tests (options.dieharder_tests = [])",
    "dieharder not installed (looked for dieharder, /usr/bin/dieharder)",
    "the profile asks for no game draws (options.draws = 0)",
    ("the bench has no independent oracle of a blackjack jackpot table (the concession's, p217-2007/blackjack/43): "
    "rounds NOT TESTED"),
    "no power supply of the profile feeds 'jackpot': retention over a power cycle NOT TESTED",
    "the camera told the directions of 1 of 12 filmed launches (camera.launch_clips sets how many games are filmed)",
    "the profile does not read the wheel with both its sensor and a camera (outcome_source 'both')",
    "the profile puts no camera over the wheel",
    "reading the gauge ball on a live camera needs the operator's reference step",
    "profile 'sim' has no roulette-wheel",
    "the regulation sets no stake multiples for craps (p217-2007)",
]


@pytest.mark.parametrize("reason", SKIPS)
def test_every_skip_sentence_of_the_suites_is_translated(reason: str) -> None:
    shown = RecordedReason("pt", translations("pt").gettext)(reason)
    assert "texto original" not in shown and not (_english_runs(reason) & _english_runs(shown)), shown
