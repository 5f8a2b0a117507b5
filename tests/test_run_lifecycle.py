"""A run's lifecycle never yields a verdict the evidence does not support.

* An interrupted run is INCOMPLETE, never PASS: the plan journalled before the first test says what did not
  finish; a resumed run that completes loses the INCOMPLETE; games a killed session lost are journalled on resume.
* Resume, sign and report keep a run's identity: a journal without it is refused, resume continues the original
  selection of suites, an altered signed run is neither resumed nor re-signed.
* One writer per run directory (a second one exits 2 naming the holder's PID), atomic files, the manifest and
  its signature change together, ``bench verify`` flags a journal left open and exits 2 on a directory that is
  not a run.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

from bench.catalogue import load_catalogue
from bench.cli import app
from bench.journal import Journal, utc_now
from bench.rundir import LOCK_FILE, RunLock, atomic_write_bytes, stale_temporaries
from fixtures.evidence_store import store
from fixtures.session import LOST_GAMES_EVENT, BenchSession, lost_games
from reports.clause_verdicts import INCOMPLETE, PASS, clause_verdicts, exit_code, overall_verdict
from reports.manifest import MANIFEST_FILE, SIGNATURE_FILE, sign_run
from reports.signing import init_key
from reports.verify import verify_run

BENCH = str(Path(sys.executable).with_name("bench"))
PROFILE_TEXT = (
    'name = "lifecycle-test"\n[equipment.wheel]\nkind = "roulette-wheel"\n'
    'identity = { manufacturer = "Bench Simulators", model = "RW-37", serial = "T-1" }\n'
    'options = { spins = SPINS }\n'
    'simulator = { model = "fair", seed = 7, spin_time_s = 0.002 }\n'
)
FIVE = "p217-2007/roleta-francesa/5"
COUNT = "suites/test_roulette.py::test_pocket_count"
FAIRNESS = "suites/test_roulette.py::test_pocket_fairness"


def _profile(tmp_path: Path, spins: int = 1500) -> Path:
    path = tmp_path / "profile.toml"
    path.write_text(PROFILE_TEXT.replace("SPINS", str(spins)), encoding="utf-8")
    return path


def bench(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, **(env or {})})


def _journal_run(run_dir: Path, *, suites: list[str] | None = None, plan: dict[str, list[str]] | None = None,
                 identity: bool = True) -> Journal:
    """A journal holding a run's identity (runs row and selection event) and, with ``plan``, its plan."""
    journal = Journal(run_dir / Journal.FILENAME)
    if identity:
        journal.append("runs", run_id="r1", created_at=utc_now(), profile_name="lifecycle-test",
                       profile_source="profile.toml", profile_text=PROFILE_TEXT.replace("SPINS", "400"),
                       software_version="0.1.0", host="lab-pc", command="bench certify")
        journal.append("events", run_id="r1", at=utc_now(), kind="selection",
                       detail={"suites": suites, "operator": None, "pdf": False})
    if plan is not None:
        journal.append("events", run_id="r1", at=utc_now(), kind="plan",
                       detail={"tests": [{"nodeid": nodeid, "clauses": clauses} for nodeid, clauses in plan.items()]})
    return journal


def _finish(journal: Journal, nodeid: str, clauses: list[str], passed: bool = True) -> None:
    journal.append("tests", run_id="r1", at=utc_now(), nodeid=nodeid, attempt=1, phase="start", outcome="started",
                   duration_s=0.0, clauses=clauses, message="")
    journal.append("measurements", run_id="r1", at=utc_now(), nodeid=nodeid, attempt=1, name=f"{nodeid} value",
                   value=1 if passed else 3, unit="", low=0, high=2, clauses=clauses, passed=passed)
    journal.append("tests", run_id="r1", at=utc_now(), nodeid=nodeid, attempt=1, phase="final",
                   outcome="passed" if passed else "failed", duration_s=0.1, clauses=clauses, message="")


# -- §2 an interrupted run is never a PASS -----------------------------------------------------------------------


def test_a_clause_whose_planned_test_did_not_finish_is_incomplete(tmp_path: Path) -> None:
    """The pocket count passed; the fairness test citing the same clause started and never finished."""
    with _journal_run(tmp_path, plan={COUNT: [FIVE], FAIRNESS: [FIVE, "p217-2007/roleta-francesa/6"]}) as journal:
        _finish(journal, COUNT, [FIVE])
        journal.append("tests", run_id="r1", at=utc_now(), nodeid=FAIRNESS, attempt=1, phase="start",
                       outcome="started", duration_s=0.0, clauses=[FIVE, "p217-2007/roleta-francesa/6"], message="")
        verdicts = {verdict.clause_id: verdict for verdict in clause_verdicts(journal, load_catalogue())}
        assert verdicts[FIVE].verdict == INCOMPLETE and "did not finish" in verdicts[FIVE].reason
        assert verdicts["p217-2007/roleta-francesa/6"].verdict == INCOMPLETE
        assert overall_verdict(list(verdicts.values())) == INCOMPLETE and exit_code(list(verdicts.values())) == 2
        _finish(journal, FAIRNESS, [FIVE, "p217-2007/roleta-francesa/6"])  # what a resumed run adds
        verdicts = {verdict.clause_id: verdict for verdict in clause_verdicts(journal, load_catalogue())}
        assert verdicts[FIVE].verdict == PASS and overall_verdict(list(verdicts.values())) == PASS


def test_a_planned_test_that_never_started_leaves_its_clauses_incomplete(tmp_path: Path) -> None:
    with _journal_run(tmp_path, plan={COUNT: [FIVE], FAIRNESS: [FIVE]}) as journal:
        _finish(journal, COUNT, [FIVE])
        [verdict] = [item for item in clause_verdicts(journal, load_catalogue()) if item.clause_id == FIVE]
    assert verdict.verdict == INCOMPLETE and "did not run" in verdict.reason


@pytest.mark.slow(seconds=40)
def test_ctrl_c_makes_the_run_incomplete_and_resume_completes_it(tmp_path: Path) -> None:
    run = tmp_path / "run"
    key = init_key(tmp_path / "keys")
    process = subprocess.Popen([BENCH, "certify", "--no-progress", "--no-pdf", "--profile", str(_profile(tmp_path)),
                                "--out", str(run), "--key-dir", str(key.directory)],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    _wait_for_spins(run, process, 300)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 2, output
    assert "Overall result: INCOMPLETE" in output and "PASS on every tested clause" not in output
    assert [line for line in output.splitlines() if FIVE + " " in line and "INCOMPLETE" in line], output
    english, portuguese = (run / "report.en.html").read_text(), (run / "report.html").read_text()
    assert "Overall result: INCOMPLETE" in english and "PASS on every tested clause" not in english
    assert "INCOMPLETO" in portuguese and "CONFORME em todas" not in portuguese
    assert verify_run(run, key.public).intact  # signed as what it is: an incomplete run
    with Journal(run / Journal.FILENAME, create=False) as journal:
        [plan] = journal.rows("events", "kind = 'plan'")
        first_test = journal.rows("tests")[0]["seq"]
        assert plan["seq"] < first_test and FAIRNESS in {test["nodeid"] for test in plan["detail"]["tests"]}

    resumed = bench("certify", "--no-progress", "--no-pdf", "--resume", str(run), "--key-dir", str(key.directory))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "Overall result: PASS" in resumed.stdout and "INCOMPLETE" not in resumed.stdout
    english = (run / "report.en.html").read_text()
    assert "Overall result: PASS on every tested clause" in english and "Overall result: INCOMPLETE" not in english
    assert verify_run(run, key.public).intact


def _wait_for_spins(run: Path, process: subprocess.Popen[str], spins: int) -> None:
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "the run did not get going in 120 s"
        assert process.poll() is None, "the run ended before it could be interrupted"
        if (run / Journal.FILENAME).exists() and _count(run, "SELECT count(*) FROM observations") >= spins:
            return
        time.sleep(0.05)


def _count(run: Path, query: str) -> int:
    """A count read on a connection closed at once (a reader left open would keep the journal's log beside it)."""
    try:
        db = sqlite3.connect(f"file:{run / Journal.FILENAME}?mode=ro", uri=True)
    except sqlite3.OperationalError:
        return 0
    try:
        return int(db.execute(query).fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


def _wire_line(direction: str, text: str) -> str:
    return json.dumps({"t": time.time(), "dir": direction, "hex": text.encode().hex(), "text": text})


def test_games_lost_by_a_kill_are_journalled_on_resume_and_counted(tmp_path: Path) -> None:
    """The wire log holds the results of games 5 and 6, the journal stops at game 4: both are journalled as lost
    (once: a second resume does not count them again), and the certificate counts them."""
    run = tmp_path / "run"
    with _journal_run(run, plan={}) as journal:
        for game in range(1, 5):
            journal.append("observations", run_id="r1", at=utc_now(), stream="wheel/spins", idx=game - 1,
                           nodeid="suites/test_roulette.py::spins", source="wheel",
                           value={"game": game, "number": game}, raw_ref=None)
    (run / "devices").mkdir()
    lines = [_wire_line("tx", "$SPIN*00\r\n")]
    for game in range(1, 7):
        lines += [_wire_line("rx", f"$ACK,SPIN,{game}*00\r\n"), _wire_line("rx", f"$RES,{game},{game},CW,CCW*00\r\n")]
    (run / "devices" / "wheel.wire.jsonl").write_text("\n".join(lines) + '\n{"t": 1, "dir": "rx", "te', "utf-8")

    for _ in range(2):  # resumed twice
        session = BenchSession("sim", str(run))
        session.open_run()
        session.close()
    with Journal(run / Journal.FILENAME, create=False) as journal:
        [lost] = journal.rows("events", "kind = ?", (LOST_GAMES_EVENT,))
        assert lost["detail"]["device"] == "wheel" and lost["detail"]["games"] == [5, 6]
        assert "killed" in lost["detail"]["reason"]
        assert lost_games(journal, "r1", run / "devices") == {}
    from reports.run_data import load_run

    data = load_run(run, load_catalogue())
    assert data.lost_games == 2


# -- §3 resume, sign and report keep a run's identity --------------------------------------------------------------


def test_resume_of_a_journal_without_identity_is_refused(tmp_path: Path) -> None:
    """A kill right after the journal was created, before the run's identity: never resumed with another profile."""
    run = tmp_path / "run"
    Journal(run / Journal.FILENAME).close()
    result = bench("certify", "--no-progress", "--no-pdf", "--resume", str(run))
    assert result.returncode == 2
    assert "no run identity" in result.stdout.replace("\n", " ")
    with Journal(run / Journal.FILENAME, create=False) as journal:
        assert journal.rows("runs") == []  # nothing was run under the built-in profile


def test_a_new_run_journals_its_identity_in_one_transaction(tmp_path: Path) -> None:
    session = BenchSession(str(_profile(tmp_path, 400)), str(tmp_path / "run"), selection={"suites": ["roulette"]})
    session.open_run()
    session.close()
    with Journal(tmp_path / "run" / Journal.FILENAME, create=False) as journal:
        rows = [(table, row["seq"]) for table, row in journal.iter_all_rows()]
        [selection] = journal.rows("events", "kind = 'selection'")
    assert [table for table, _ in rows[:3]] == ["runs", "events", "events"]
    assert selection["detail"] == {"suites": ["roulette"]}


def test_resume_continues_exactly_the_original_selection(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import certify as certify_module

    run = tmp_path / "run"
    _journal_run(run, suites=["roulette"]).close()
    ran: list[list[str]] = []

    def fake_main(arguments: list[str], plugins: list[object]) -> int:
        ran.append(arguments)
        return 0

    monkeypatch.setattr(certify_module.pytest, "main", fake_main)
    console = Console(file=open(os.devnull, "w"))  # noqa: SIM115
    certify_module.run_certification(console, resume=run, show_progress=False, key_dir=tmp_path / "no-key", pdf=False)
    [arguments] = ran
    files = [argument for argument in arguments if argument.endswith(".py")]
    assert [Path(file).name for file in files] == ["test_roulette.py"]
    assert json.loads(arguments[arguments.index("--selection") + 1])["suites"] == ["roulette"]
    refused = certify_module.run_certification(console, resume=run, suites=["dice"], show_progress=False,
                                               key_dir=tmp_path / "no-key", pdf=False)
    assert refused.exit_code == 2 and len(ran) == 1


def _signed_run(tmp_path: Path) -> tuple[Path, Any, Path]:
    run = tmp_path / "run"
    journal = _journal_run(run, plan={})
    digest, relative, size = store(run, b'{"dir": "rx", "text": "$RES,1,17,CW,CCW"}\n', ".jsonl")
    journal.append("attachments", run_id="r1", at=utc_now(), nodeid="(session)", attempt=1, name="wheel wire log",
                   sha256=digest, media_type="application/jsonl", size=size, path=relative.as_posix())
    journal.close()
    (run / "report.html").write_text("<html>report</html>", encoding="utf-8")
    key = init_key(tmp_path / "keys")
    sign_run(run, key)
    return run, key, relative


def test_sign_and_resume_refuse_a_signed_run_whose_evidence_was_altered(tmp_path: Path) -> None:
    run, key, wire = _signed_run(tmp_path)
    (run / wire).write_bytes(b'{"dir": "rx", "text": "$RES,1,0,CW,CCW"}\n')  # a $RES line edited
    (run / "planted.txt").write_text("x")
    signature = (run / SIGNATURE_FILE).read_bytes()
    signed = bench("sign", str(run), "--key-dir", str(key.directory))
    assert signed.returncode == 2 and "not intact" in signed.stderr.replace("\n", " ")
    resumed = bench("certify", "--no-progress", "--no-pdf", "--resume", str(run), "--key-dir", str(key.directory))
    assert resumed.returncode == 2 and "not intact" in resumed.stdout.replace("\n", " ")
    assert (run / SIGNATURE_FILE).read_bytes() == signature  # neither re-signed it
    assert not verify_run(run, key.public).intact


def test_signing_refuses_an_attachment_that_differs_from_the_journal(tmp_path: Path) -> None:
    """An unsigned run (its signature removed) with an edited wire log is not signed either."""
    run, key, wire = _signed_run(tmp_path)
    (run / SIGNATURE_FILE).unlink()
    (run / wire).write_bytes(b"edited")
    result = bench("sign", str(run), "--key-dir", str(key.directory))
    assert result.returncode == 2 and "altered" in result.stdout


# -- §4 one writer per run directory, atomic files -----------------------------------------------------------------


def test_a_second_writer_exits_2_at_once_naming_the_holder(tmp_path: Path) -> None:
    run, key, _ = _signed_run(tmp_path)
    with RunLock(run):
        for command in (["sign", str(run), "--key-dir", str(key.directory)],
                        ["report", str(run), "--key-dir", str(key.directory)],
                        ["certify", "--no-progress", "--no-pdf", "--resume", str(run), "--key-dir", str(key.directory)]):
            started = time.monotonic()
            result = bench(*command)
            assert result.returncode == 2, (command, result.stdout, result.stderr)
            assert f"PID {os.getpid()}" in (result.stdout + result.stderr).replace("\n", " "), command
            assert time.monotonic() - started < 30
    assert verify_run(run, key.public).intact  # nothing was written while it was locked
    assert bench("sign", str(run), "--key-dir", str(key.directory)).returncode == 0  # the lock is gone with its holder


def test_certify_into_a_locked_new_directory_is_refused(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with RunLock(run):
        result = bench("certify", "--no-progress", "--no-pdf", "--profile", str(_profile(tmp_path, 400)),
                       "--out", str(run))
    assert result.returncode == 2 and f"PID {os.getpid()}" in result.stdout.replace("\n", " ")
    assert not (run / Journal.FILENAME).exists()


def test_out_pointing_at_a_non_empty_directory_that_is_not_a_run_is_refused(tmp_path: Path) -> None:
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "thesis.odt").write_text("mine")
    result = bench("certify", "--no-progress", "--no-pdf", "--profile", str(_profile(tmp_path, 400)),
                   "--out", str(tmp_path / "documents"))
    assert result.returncode == 2 and "not empty" in result.stdout
    assert sorted(path.name for path in (tmp_path / "documents").iterdir()) == ["thesis.odt"]


def test_atomic_write_leaves_the_old_file_or_the_new_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.html"
    target.write_text("<html>old</html>")

    def killed(*_: object) -> None:
        raise KeyboardInterrupt  # a kill between writing the temporary and renaming it

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"<html>new</html>")
    assert target.read_text() == "<html>old</html>"
    monkeypatch.undo()
    assert stale_temporaries(tmp_path)  # what the next writer under the lock removes
    with RunLock(tmp_path):
        assert stale_temporaries(tmp_path) == []
    atomic_write_bytes(target, b"<html>new</html>")
    assert target.read_text() == "<html>new</html>"


def test_a_signing_killed_between_its_renames_leaves_an_unsigned_run(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    run, key, _ = _signed_run(tmp_path)
    (run / "report.html").write_text("<html>report, rewritten</html>")
    real_replace, calls = os.replace, []

    def replace_then_die(source: Any, target: Any) -> None:
        calls.append(Path(target).name)
        if Path(target).name == SIGNATURE_FILE:
            raise KeyboardInterrupt
        real_replace(source, target)

    monkeypatch.setattr("reports.manifest.os.replace", replace_then_die)
    with pytest.raises(KeyboardInterrupt):
        sign_run(run, key)
    monkeypatch.undo()
    assert calls == [MANIFEST_FILE, SIGNATURE_FILE]
    result = verify_run(run, key.public)
    assert not result.intact and ("missing", SIGNATURE_FILE) in {(p.kind, p.path) for p in result.problems}
    signed = bench("sign", str(run), "--key-dir", str(key.directory))  # signs it again, whole
    assert signed.returncode == 0, signed.stdout + signed.stderr
    assert verify_run(run, key.public).intact


def test_verify_flags_a_journal_left_open_and_exits_2_on_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    run, key, _ = _signed_run(tmp_path)
    runner = CliRunner()
    public = str(key.directory / "lab_ed25519.pub")
    assert runner.invoke(app, ["verify", str(run), "--public-key", public]).exit_code == 0
    (run / "journal.sqlite-wal").write_bytes(b"")
    left_open = runner.invoke(app, ["verify", str(run), "--public-key", public])
    assert left_open.exit_code == 1 and "JOURNAL-OPEN" in left_open.output
    (run / "journal.sqlite-wal").unlink()
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "a.jpg").write_bytes(b"\xff\xd8")
    not_a_run = runner.invoke(app, ["verify", str(tmp_path / "photos"), "--public-key", public])
    assert not_a_run.exit_code == 2 and "not a run" in not_a_run.output


def test_the_lock_file_is_not_evidence(tmp_path: Path) -> None:
    run, key, _ = _signed_run(tmp_path)
    with RunLock(run):
        pass
    assert (run / LOCK_FILE).exists() and verify_run(run, key.public).intact


@pytest.mark.slow(seconds=15)
def test_two_certifications_into_the_same_directory_the_second_exits_2_naming_the_first(tmp_path: Path) -> None:
    run = tmp_path / "run"
    # spins enough that the first run outlasts the two commands below on a loaded machine (1,500 spins ran out in
    # 8 s while the second and the resumed run started, under three test workers on two cores); it is killed after
    profile = _profile(tmp_path, 100_000)
    first = subprocess.Popen([BENCH, "certify", "--no-progress", "--no-pdf", "--profile", str(profile), "--out",
                              str(run), "--key-dir", str(tmp_path / "no-key")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_spins(run, first, 10)
        second = bench("certify", "--no-progress", "--no-pdf", "--profile", str(profile), "--out", str(run))
        resumed = bench("certify", "--no-progress", "--no-pdf", "--resume", str(run))
    finally:
        first.kill()
        first.wait(timeout=30)
    for result in (second, resumed):
        assert result.returncode == 2 and f"PID {first.pid}" in result.stdout.replace("\n", " "), result.stdout
    with Journal(run / Journal.FILENAME, create=False) as journal:
        assert len(journal.rows("runs")) == 1 and not journal.rows("events", "kind = 'resumed'")


@pytest.mark.slow(seconds=10)
def test_the_plan_is_what_runs_after_every_deselection(tmp_path: Path) -> None:
    """Tests deselected by -k are not in the plan: a run of the rest is complete, not INCOMPLETE."""
    run = tmp_path / "run"
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-m", "pytest", str(root / "suites" / "test_roulette.py"), "-k",
                             "wheel_numbering", "--profile", str(_profile(tmp_path, 400)), "--evidence", str(run),
                             "--rootdir", str(root), "-p", "no:cacheprovider", "-q", "-o", "addopts="],
                            capture_output=True, text=True, timeout=300, check=False, cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    with Journal(run / Journal.FILENAME, create=False) as journal:
        [plan] = journal.rows("events", "kind = 'plan'")
        assert [test["nodeid"] for test in plan["detail"]["tests"]] == [
            "suites/test_roulette.py::test_wheel_numbering"]
        assert INCOMPLETE not in {verdict.verdict for verdict in clause_verdicts(journal, load_catalogue())}


def test_a_new_journal_appears_whole_with_its_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed while the run's identity is written: no journal.sqlite at all (a new run may use the directory),
    never one without the identity; the next writer under the lock removes what was staged."""
    run = tmp_path / "run"

    def killed(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Journal, "append_together", killed)
    with pytest.raises(KeyboardInterrupt):
        BenchSession(str(_profile(tmp_path, 400)), str(run)).open_run()
    monkeypatch.undo()
    assert not (run / Journal.FILENAME).exists() and stale_temporaries(run)
    with RunLock(run):
        assert stale_temporaries(run) == []
    session = BenchSession(str(_profile(tmp_path, 400)), str(run))
    session.open_run()
    session.close()
    with Journal(run / Journal.FILENAME, create=False) as journal:
        assert len(journal.rows("runs")) == 1 and not journal.rows("events", "kind = 'resumed'")


def test_resume_removes_allure_results_a_kill_left_cut_short(tmp_path: Path) -> None:
    """allure-pytest writes its results itself: one cut short by a kill is removed (and journalled) before the
    resumed run is signed, never signed half-written."""
    from bench.certify import remove_partial_allure_results

    run = tmp_path / "run"
    _journal_run(run, plan={}).close()
    (run / "allure-results").mkdir()
    (run / "allure-results" / "a-result.json").write_text('{"name": "t"}')
    (run / "allure-results" / "b-result.json").write_text('{"name": "t", "stat')
    assert remove_partial_allure_results(run) == ["allure-results/b-result.json"]
    assert [path.name for path in (run / "allure-results").iterdir()] == ["a-result.json"]
    with Journal(run / Journal.FILENAME, create=False) as journal:
        [event] = journal.rows("events", "kind = 'partial-file-removed'")
    assert event["detail"]["files"] == ["allure-results/b-result.json"]
