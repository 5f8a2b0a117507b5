"""Choosing a dice camera's reader in the profile (``camera.dice_reader``): the staged reader by default or by
name, or as a reader configuration file sets it; the removed classical reader refused for a run and kept in older
runs' journals (bench/profiles/camera.py, bench/rig_dice_reader.py, bench/rig_cameras.py, drivers/dice_table.py);
the reader named in the journal and on the certificate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console
from suite_runs import run_suite
from test_report_journal import build_run

from bench.catalogue import load_catalogue
from bench.certify import EXIT_ERROR, run_certification
from bench.digest import sha256_file
from bench.journal import DICE_READER_EVENT, Journal, utc_now
from bench.profiles import ProfileError, load_profile, load_profile_text
from bench.profiles.model import DiceTableEquipment
from bench.rig_cameras import check_dice_readers, open_dice_table, open_dome_camera
from bench.rig_dice_reader import RemovedDiceReader, reader_evidence
from fixtures.session import SELECTION_EVENT
from reports.certificate import render_certificate
from reports.run_data import load_run
from vision.dice_pipeline import StagedRead
from vision.dice_reader_settings import DiceReaderSettings, ReaderSettingsError, load_reader_settings, settings_json
from vision.dice_staged_reader import staged_reader
from vision.die_lean_model import DieLeanModel
from vision.die_reader_model import DEFAULT_MODEL, DieReaderModel

MODEL = DieReaderModel.load(DEFAULT_MODEL)
LEAN = DieLeanModel.load()
KEY = "equipment.dice.camera.dice_reader"


def _profile(reader: str | None, *, throws: int = 10, seed: int = 7) -> str:
    """A simulated banca francesa arena on clean frames (fast, deterministic), read by ``reader``."""
    chosen = "" if reader is None else f', dice_reader = "{reader}"'
    return f"""name = "reader-choice"
[equipment.dice]
kind = "dice"
identity = {{ manufacturer = "Bench Simulators", model = "Arena", serial = "SIM-RC-1" }}
options = {{ game = "banca-francesa", throws = {throws} }}
simulator = {{ model = "fair", seed = {seed} }}
camera = {{ source = "sim", votes = 3, keep_frames = "disputed", camera_height_mm = 900.0{chosen}, simulation = {{ nuisance = "none" }} }}
"""


def _write(directory: Path, text: str, name: str = "lab.toml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def _dice(path: Path) -> DiceTableEquipment:
    equipment = load_profile(str(path))[0].equipment["dice"]
    assert isinstance(equipment, DiceTableEquipment)
    return equipment


def test_the_default_profile_reads_dice_and_the_dome_with_the_staged_reader(tmp_path: Path) -> None:
    profile, path, _ = load_profile("sim")
    check_dice_readers(profile, str(path))
    dice, dome = profile.equipment["dice"], profile.equipment["dome"]
    assert dice.camera.dice_reader == dome.camera.dice_reader == "staged"  # type: ignore[union-attr]
    identity = {"reader": "staged", "model_sha256": MODEL.sha256, "threshold": MODEL.card.threshold,
                "lean_model_sha256": LEAN.sha256, "model_views": MODEL.card.views}
    outline = {"arena_px": [[40.0, 40.0], [600.0, 40.0], [600.0, 440.0], [40.0, 440.0]]}  # the sim profile's
    table = open_dice_table(dice, tmp_path / "dice.json")  # type: ignore[arg-type]
    assert table.reader_identity == identity | outline
    read = table.reader(table.camera.read().image)
    assert isinstance(read, StagedRead) and read.reader_sha256 == MODEL.sha256
    table.close()
    dome_camera = open_dome_camera(dome, tmp_path / "dome.json")  # type: ignore[arg-type]
    assert dome_camera.reader_identity == identity | outline
    dome_camera.close()


def test_the_removed_classical_reader_is_refused_for_a_run_but_read_back_from_an_older_journal(tmp_path: Path) -> None:
    """A profile loaded for a run may not name the classical (pip-counting) reader, which the bench no longer has;
    an older run's journal that names it still loads (its certificate is written again), but its rig is refused
    before it is built, and the run cannot be resumed."""
    path = _write(tmp_path, _profile("classical"))
    with pytest.raises(ProfileError) as caught:
        load_profile(str(path))
    message = str(caught.value)
    assert message.startswith(f"{path}: key {KEY}: ") and "no longer part of the bench" in message
    assert "'staged'" in message and "bench calibrate dice" in message
    journalled = load_profile_text(_profile("classical"), str(path))
    assert journalled.equipment["dice"].camera.dice_reader == "classical"  # type: ignore[union-attr]
    with pytest.raises(ProfileError, match=rf"{path}: key {KEY}: 'classical' .* cannot be read again"):
        check_dice_readers(journalled, str(path))
    with pytest.raises(RemovedDiceReader):
        open_dice_table(journalled.equipment["dice"], tmp_path / "dice.json")  # type: ignore[arg-type]


def test_a_run_an_older_bench_read_with_the_classical_reader_is_not_resumed(tmp_path: Path) -> None:
    """``bench certify --resume`` of a run whose journal names the classical reader exits 2 before writing into it,
    saying why; its journal is left as it was."""
    run = tmp_path / "run"
    run.mkdir()
    with Journal(run / Journal.FILENAME) as journal:
        journal.append("runs", run_id="r1", created_at=utc_now(), profile_name="reader-choice",
                       profile_source=str(tmp_path / "lab.toml"), profile_text=_profile("classical"),
                       software_version="0.1.0", host="lab-pc", command="bench certify")
        journal.append("events", run_id="r1", at=utc_now(), kind=SELECTION_EVENT,
                       detail={"suites": ["dice"], "operator": None, "pdf": False})
    before = (run / Journal.FILENAME).read_bytes()
    console = Console(record=True, width=300)
    outcome = run_certification(console, profile="", suites=None, resume=run, show_progress=False,
                                key_dir=tmp_path / "no-key", pdf=False)
    assert outcome.exit_code == EXIT_ERROR
    text = console.export_text()
    assert f"{run} cannot be resumed" in text and "'classical'" in text and "cannot be read again" in text
    assert (run / Journal.FILENAME).read_bytes() == before


def test_a_staged_profile_reads_rendered_throws_and_names_the_model_in_every_one(tmp_path: Path) -> None:
    """Seed 7's first throws on clean frames, the reader named or left to the default: every vote is read by the
    bench's own model, every throw carries its hash and the card's threshold, and every accepted throw shows the
    rendered faces."""
    table = open_dice_table(_dice(_write(tmp_path, _profile(None))), tmp_path / "dice.json")
    expected = {"reader": "staged", "model_sha256": MODEL.sha256, "threshold": MODEL.card.threshold,
                "lean_model_sha256": LEAN.sha256, "model_views": MODEL.card.views}
    assert table.reader_identity == expected
    accepted = []
    for _ in range(6):
        throw = table.next_throw()
        assert throw.reader == expected and len(throw.reads) == 3
        assert all(isinstance(read, StagedRead) and read.reader_sha256 == MODEL.sha256
                   and read.lean_sha256 == LEAN.sha256 for read in throw.reads)
        assert reader_evidence(throw.reader) == {"dice_reader": expected}  # what the suites journal with it
        if throw.accepted:
            accepted.append(throw)
            assert sorted(throw.faces) == sorted(table.camera.physical_faces(throw.index))
    table.close()
    assert len(accepted) >= 5, f"{len(accepted)} of seed 7's first six throws accepted"


def test_a_cussec_dome_s_camera_takes_the_staged_reader_too(tmp_path: Path) -> None:
    path = _write(tmp_path, """name = "dome"
[equipment.dome]
kind = "dice-shaker"
identity = { manufacturer = "Bench Simulators", model = "CD-3", serial = "SIM-CD-9" }
simulator = { model = "fair" }
camera = { source = "sim", dice_reader = "staged" }
""")
    profile = load_profile(str(path))[0]
    check_dice_readers(profile, str(path))
    camera = open_dome_camera(profile.equipment["dome"], tmp_path / "dome.json")  # type: ignore[arg-type]
    assert camera.reader_identity == {"reader": "staged", "model_sha256": MODEL.sha256,
                                      "threshold": MODEL.card.threshold, "lean_model_sha256": LEAN.sha256,
                                      "model_views": MODEL.card.views}
    camera.close()


def test_a_reader_configuration_beside_the_profile_is_used_and_its_hash_named(tmp_path: Path) -> None:
    settings = DiceReaderSettings(model_sha256=MODEL.sha256, model_views=MODEL.card.views, threshold=0.97)
    reader_file = _write(tmp_path / "readers", settings_json(settings), "arena-1.json")
    equipment = _dice(_write(tmp_path, _profile("readers/arena-1.json")))
    assert equipment.camera.dice_reader_settings == reader_file.absolute()
    table = open_dice_table(equipment, tmp_path / "dice.json")
    assert table.reader_identity == {"reader": "staged", "model_sha256": MODEL.sha256, "threshold": 0.97,
                                     "settings_file": str(reader_file.absolute()),
                                     "settings_sha256": sha256_file(reader_file), "lean_model_sha256": LEAN.sha256,
                                     "model_views": MODEL.card.views}
    table.close()


@pytest.mark.parametrize("fitted_views", [2, 4])
def test_a_threshold_fitted_on_another_reading_of_the_same_model_is_refused(tmp_path: Path, fitted_views: int) -> None:
    """A configuration fitted when the model's card read each crop another number of times vouches for a reading the
    bench does not make; one that states none was fitted on the crop alone, as the shipped card reads it."""
    assert MODEL.card.views == 1
    settings = DiceReaderSettings(model_sha256=MODEL.sha256, model_views=fitted_views, threshold=0.97)
    reader_file = _write(tmp_path / "readers", settings_json(settings), "arena-1.json")
    with pytest.raises(ReaderSettingsError, match=r"arena-1.json: its threshold was fitted on readings of "
                                                  rf"{fitted_views} view\(s\) of each crop, but die_reader.onnx's "
                                                  r"card reads 1: calibrate again"):
        staged_reader(load_reader_settings(reader_file), reader_file)
    older = _write(tmp_path / "readers", settings_json(DiceReaderSettings(model_sha256=MODEL.sha256, threshold=0.97)),
                   "arena-2.json")
    assert staged_reader(load_reader_settings(older), older).reader.threshold == 0.97


def test_a_missing_reader_configuration_is_refused_naming_the_profile_file_and_key(tmp_path: Path) -> None:
    path = _write(tmp_path, _profile("readers/missing.json"))
    with pytest.raises(ProfileError) as caught:
        load_profile(str(path))
    message = str(caught.value)
    assert str(path) in message and KEY in message
    assert str(tmp_path / "readers" / "missing.json") in message and "does not exist" in message
    with pytest.raises(ProfileError, match=r"'stagged' is neither 'staged' nor the path of a reader configuration"):
        load_profile(str(_write(tmp_path, _profile("stagged"))))


def test_a_profile_read_back_from_a_journal_loads_without_its_reader_file(tmp_path: Path) -> None:
    """A certificate is written from the journal on any machine: the reader file need not be there."""
    profile = load_profile_text(_profile("readers/gone.json"), str(tmp_path / "lab.toml"))
    assert profile.equipment["dice"].camera.dice_reader == str(tmp_path / "readers" / "gone.json")  # type: ignore[union-attr]


@pytest.mark.parametrize(("content", "fault"), [
    ('{"threshhold": 0.9}', "threshhold"),
    ('{"threshold": 0.9,', "not JSON (line 1"),
    (json.dumps({"model_sha256": "0" * 64}), "fitted for the model 0000000000000000"),
    (json.dumps({"stages": {"die_edge": 40}}), "stages: unknown setting(s) die_edge"),
    (json.dumps({"model": "lab-model.onnx"}), "lab-model"),
])
def test_a_mistyped_reader_configuration_is_refused_naming_both_files_and_the_field(
        tmp_path: Path, content: str, fault: str) -> None:
    reader_file = _write(tmp_path, content, "reader.json")
    path = _write(tmp_path, _profile("reader.json"))
    profile = load_profile(str(path))[0]
    with pytest.raises(ProfileError) as caught:
        check_dice_readers(profile, str(path))
    message = str(caught.value)
    assert message.startswith(f"{path}: key {KEY}: ") and fault in message
    named = tmp_path / "lab-model" if fault == "lab-model" else reader_file  # the model's card, or the configuration
    assert str(named) in message


def test_certify_stops_with_exit_2_before_the_run_on_an_unusable_reader_configuration(tmp_path: Path) -> None:
    _write(tmp_path, json.dumps({"model_sha256": "f" * 64}), "reader.json")
    path = _write(tmp_path, _profile("reader.json"))
    console = Console(record=True, width=200)
    outcome = run_certification(console, profile=str(path), suites=["dice"], out=tmp_path / "run",
                                show_progress=False, key_dir=tmp_path / "no-key", pdf=False)
    assert outcome.exit_code == EXIT_ERROR and outcome.run_dir is None
    text = console.export_text()
    assert f"{path}: key {KEY}" in text and "calibrate again" in text
    assert not (tmp_path / "run").exists()


def test_bench_doctor_names_the_profile_key_of_an_unusable_reader_configuration(tmp_path: Path) -> None:
    _write(tmp_path, '{"side_share": 2}', "reader.json")
    path = _write(tmp_path, _profile("reader.json"))
    result = subprocess.run([str(Path(sys.executable).with_name("bench")), "doctor", "--profile", str(path)],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2
    assert f"{path}: key {KEY}: {tmp_path / 'reader.json'}: side_share" in result.stderr


def test_a_wheel_camera_takes_no_dice_reader(tmp_path: Path) -> None:
    path = _write(tmp_path, """name = "lab"
[equipment.wheel]
kind = "roulette-wheel"
identity = { manufacturer = "M", model = "W", serial = "1" }
simulator = { model = "fair" }
camera = { source = "sim", dice_reader = "staged" }
""")
    with pytest.raises(ProfileError, match=r"key equipment\.wheel: .*camera\.dice_reader chooses a dice camera's reader"):
        load_profile(str(path))


def _with_reader_event(run: Path, detail: dict) -> Path:
    with Journal(run / Journal.FILENAME) as journal:
        run_id = journal.rows("runs")[0]["run_id"]
        journal.append("events", run_id=run_id, at=utc_now(), kind=DICE_READER_EVENT, detail=detail)
    return run


def test_the_certificate_names_the_classical_reader_in_both_languages(tmp_path: Path) -> None:
    run = _with_reader_event(build_run(tmp_path / "run"), {"device": "dice", "reader": "classical"})
    data = load_run(run, load_catalogue())
    assert [(reader.device, reader.reader) for reader in data.dice_readers] == [("dice", "classical")]
    assert "Dice readers: dice — classical reader (pip counting)." in render_certificate(data, "en")
    assert "Leitores dos dados: dice — leitor clássico (contagem de pintas)." in render_certificate(data, "pt")


def test_the_certificate_names_the_staged_readers_model_and_threshold_in_both_languages(tmp_path: Path) -> None:
    model = "0123456789abcdef" + "e" * 48
    settings = "fedcba9876543210" + "a" * 48
    run = _with_reader_event(build_run(tmp_path / "run"), {
        "device": "dice", "reader": "staged", "model_sha256": model, "threshold": 0.9312,
        "settings_file": "/lab/readers/arena-1.json", "settings_sha256": settings,
        "lean_model_sha256": "99aabbccddeeff00" + "1" * 48})
    data = load_run(run, load_catalogue())
    english, portuguese = render_certificate(data, "en"), render_certificate(data, "pt")
    assert ("Dice readers: dice — staged reader, per-die model 0123456789abcdef…, acceptance threshold 0.931, "
            "lean model 99aabbccddeeff00…, reader configuration fedcba9876543210…, no arena outline told (a die "
            "outside the arena is not declined).") in english
    assert ("Leitores dos dados: dice — leitor por etapas, modelo por dado 0123456789abcdef…, limiar de aceitação "
            "0,931, modelo de inclinação 99aabbccddeeff00…, configuração do leitor fedcba9876543210…, sem contorno "
            "da pista (um dado fora da pista não é recusado).") in portuguese
    assert model not in english  # shortened to 16 hex digits: the journal holds the whole hash


@pytest.mark.slow(seconds=35)
def test_a_staged_certification_journals_the_reader_of_every_throw_and_names_it(tmp_path: Path) -> None:
    """``bench certify --suite dice`` with the staged reader: each throw, accepted or declined, and each
    balance measurement names the model; the dimensions say they were measured on its read of the still, the
    dice outlined and their pips located; the certificate names the reader. Fair dice: PASS."""
    finished = run_suite("dice", _profile("staged"), tmp_path)
    assert finished.code == 0, finished.output
    assert "Overall result: PASS" in finished.output and "dice_reader" not in finished.output  # no caveat on it
    identity = {"reader": "staged", "model_sha256": MODEL.sha256, "threshold": MODEL.card.threshold,
                "lean_model_sha256": LEAN.sha256, "model_views": MODEL.card.views}
    with Journal(finished.run_dir / Journal.FILENAME, create=False) as journal:
        throws = journal.rows("observations", "stream = 'dice/throws'")
        declined = journal.rows("observations", "stream = 'dice/declined-throws'")
        events = journal.rows("events", "kind = ?", (DICE_READER_EVENT,))
        measurements = journal.rows("measurements")
        tests = journal.rows("tests", "phase = 'final'")
    assert len(throws) == 10
    assert all(row["value"]["dice_reader"] == identity for row in throws + declined)
    assert [row["detail"] for row in events] == [{"device": "dice", **identity}]
    balance = [row for row in measurements if row["name"].startswith("dice: ")]
    dimensions = [row for row in measurements if row["unit"] == "mm"]
    assert balance and all(row["details"]["dice_reader"] == identity for row in balance)
    balance_test = [row for row in tests if row["nodeid"].endswith("test_dice_are_balanced")]
    assert [row["outcome"] for row in balance_test] == ["passed"]
    dimensions_test = [row for row in tests if row["nodeid"].endswith("test_die_dimensions")]
    assert [row["outcome"] for row in dimensions_test] == ["passed"]
    assert sum(" edge " in row["name"] for row in dimensions) == 6, [row["name"] for row in dimensions]  # 2 a die
    assert dimensions and all("staged reader's read of the still" in row["details"]["measured_with"]
                              and row["details"]["dice_reader"] == identity for row in dimensions)
    english = (finished.run_dir / "report.en.html").read_text(encoding="utf-8")
    assert f"staged reader, per-die model {MODEL.sha256[:16]}…" in english


@pytest.mark.slow(seconds=20)
def test_a_dome_read_by_the_staged_reader_judges_its_dice_and_zones(tmp_path: Path) -> None:
    """The dome's lamp is judged from the controller's log alone; the balance of its dice and the zones lit
    against them on the staged reader's reads, which name it."""
    profile = """name = "dome-staged"
[equipment.dome]
kind = "dice-shaker"
identity = { manufacturer = "Bench Simulators", model = "CD-3", serial = "SIM-CD-9" }
options = { rounds = 6, alpha = 0.01 }
simulator = { model = "fair", seed = 20070226, actuator = false }
camera = { source = "sim", votes = 3, keep_frames = "disputed", dice_reader = "staged", simulation = { nuisance = "none" } }
"""
    finished = run_suite("cussec_dome", profile, tmp_path, certificate=False)
    with Journal(finished.run_dir / Journal.FILENAME, create=False) as journal:
        outcomes = {row["nodeid"].rsplit("::", 1)[-1]: (row["outcome"], row["message"] or "")
                    for row in journal.rows("tests", "phase = 'final'")}
        rounds = journal.rows("observations", "stream = 'cussec-dome/rounds'")
    assert outcomes["test_three_strokes_then_the_lamp_lights_by_itself"][0] == "passed", finished.output[-3000:]
    for test in ("test_lit_zones_are_the_winning_chances_of_the_dice", "test_dome_dice_are_balanced"):
        assert outcomes[test][0] == "passed", finished.output[-3000:]
    assert rounds and all(row["value"]["camera"]["dice_reader"]["model_sha256"] == MODEL.sha256 for row in rounds)
