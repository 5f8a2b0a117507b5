"""``bench doctor`` (bench/doctor.py) and the check ``bench certify`` makes before a run.

The simulated rig is checked as a real one is: each simulator started and its tty opened by the rig, each
device answering through its real driver, each simulated camera giving a frame, the simulated supply answering
``*IDN?``. A missing port, a missing camera file, an instrument that is not the one the profile names and a
missing key each fail their own check, naming what is wrong; certify on a rig that is not ready stops in one
line and leaves nothing behind (before this check, a missing port gave 139 lines of the same error, cut
mid-word, and a signed certificate of ERROR clauses).
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from benchmark_scripts import load_benchmark

from bench.doctor import LINE_WIDTH, CheckResult, Status, check_key, report_line, rig_checks, rig_not_ready
from bench.journal import Journal, utc_now
from bench.profiles import load_profile, load_profile_text
from bench.profiles.model import Profile
from bench.rig import simulator_config
from bench.rundir import LOCK_FILE
from drivers.sim.host import start_simulator
from drivers.sim.psu_server import start_psu_simulator
from fixtures.session import SELECTION_EVENT
from reports import pdf
from reports.signing import init_key
from rng_tests.dieharder.runner import Dieharder

BENCH = str(Path(sys.executable).with_name("bench"))
MISSING_PORT = load_benchmark("doctor_time").MISSING_PORT
SIM_SERIALS = ("SIM-PS-0001", "SIM-RW-0001", "SIM-RG-0001", "SIM-CS-0001", "SIM-SM-0001", "SIM-SM-0011",
               "SIM-JP-0001", "SIM-GT-0001", "SIM-CD-0001")


def bench(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BENCH, *args], check=False, capture_output=True, text=True, timeout=timeout)


def missing_port_profile(tmp_path: Path) -> Path:
    """The built-in ``sim`` profile with its jackpot display on a real port that is not there."""
    if Path(MISSING_PORT).exists():
        pytest.skip(f"{MISSING_PORT} exists on this machine")
    path = tmp_path / "missing-port.toml"
    path.write_text(load_benchmark("doctor_time").missing_port_profile_text(), encoding="utf-8")
    return path


def check_lines(output: str) -> list[str]:
    """The lines of a doctor report, one per check (without the closing summary)."""
    return [line for line in output.splitlines() if not line.startswith("Rig ")]


@pytest.mark.skipif(not Dieharder().available or not pdf.available(), reason="dieharder or WeasyPrint missing")
@pytest.mark.slow(seconds=10)  # the whole simulated rig opened once
def test_the_simulated_rig_passes_every_check(tmp_path: Path) -> None:
    key = init_key(tmp_path / "keys")
    result = bench("doctor", "--profile", "sim", "--key-dir", str(key.directory))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = check_lines(result.stdout)
    assert all(line.startswith("ok  ") for line in lines), result.stdout
    assert all(len(line) <= LINE_WIDTH for line in result.stdout.splitlines()), result.stdout
    profile, _, _ = load_profile("sim")
    expected = ({f"{name} serial" for name in profile.equipment if name != "dice"}
                | {"wheel camera", "dice camera", "dome camera", "psu VISA", "laboratory key", "dieharder",
                   "PDF libraries"})
    assert {line[6:].split("  ")[0].strip() for line in lines} == expected
    for serial in SIM_SERIALS:  # every simulated device answered through its driver with its own identity
        assert serial in result.stdout, serial
    assert "a level broadcast of group 1" in result.stdout  # the progressive controller was heard
    assert result.stdout.count("a 640x480 frame") == 3
    assert result.stdout.splitlines()[-1] == f"Rig ready: {len(lines)} checks passed"


@pytest.mark.slow(seconds=10)  # the whole simulated rig opened once
def test_a_missing_port_fails_its_check_naming_the_port_exit_2(tmp_path: Path) -> None:
    profile = missing_port_profile(tmp_path)
    result = bench("doctor", "--profile", str(profile), "--key-dir", str(tmp_path / "keys"))
    assert result.returncode == 2, result.stdout + result.stderr
    lines = check_lines(result.stdout)
    [port] = [line for line in lines if line.split()[1:3] == ["jackpot", "serial"]]
    assert port.startswith("FAIL") and f"{MISSING_PORT} does not exist" in port
    assert "attempt" not in port  # said at once, not after the driver's retries
    assert all(line.startswith("ok  ") for line in lines if line.split()[1:3] in (["wheel", "serial"],
                                                                              ["slot", "serial"]))
    assert all(len(line) <= LINE_WIDTH for line in result.stdout.splitlines()), result.stdout
    assert result.stdout.splitlines()[-1].startswith("Rig NOT ready: ")


@pytest.mark.slow(seconds=10)  # the whole simulated rig opened once
def test_certify_on_a_rig_with_a_missing_port_stops_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    profile = missing_port_profile(tmp_path)
    run = tmp_path / "run"
    result = bench("certify", "--profile", str(profile), "--out", str(run), "--no-progress", "--no-pdf")
    assert result.returncode == 2
    output = (result.stdout + result.stderr).strip().splitlines()
    assert len(output) == 1, output
    assert output[0].startswith("Rig not ready, nothing run: jackpot serial: /dev/ttyUSB9 does not exist")
    assert f"bench doctor --profile {profile}" in output[0]
    assert not run.exists()  # no run directory: no journal, certificate, manifest or signature


def test_a_resumed_run_on_a_rig_that_is_not_ready_stops_in_one_line_and_is_left_as_it_was(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    text = ('name = "one-jackpot"\n[equipment.jackpot]\nkind = "jackpot-display"\n'
            'identity = { manufacturer = "Lab", model = "JP", serial = "J-1" }\n'
            f'connection = {{ port = "{MISSING_PORT}" }}\n')
    with Journal(run / Journal.FILENAME) as journal:
        journal.append("runs", run_id="r1", created_at=utc_now(), profile_name="one-jackpot",
                       profile_source="one-jackpot.toml", profile_text=text, software_version="0.1.0",
                       host="lab-pc", command="bench certify")
        journal.append("events", run_id="r1", at=utc_now(), kind=SELECTION_EVENT,
                       detail={"suites": ["jackpot"], "operator": None, "pdf": False})
    before = sorted(path.name for path in run.iterdir())
    result = bench("certify", "--resume", str(run), "--no-progress")
    assert result.returncode == 2
    refusal = (f"Rig not ready, nothing run: jackpot serial: {MISSING_PORT} does not exist; "
               "`bench doctor --profile one-jackpot.toml` checks every device")
    assert (result.stdout + result.stderr).strip().splitlines() == [refusal]
    assert sorted(path.name for path in run.iterdir() if path.name != LOCK_FILE) == before
    with Journal(run / Journal.FILENAME, create=False) as journal:
        assert len(journal.rows("events")) == 1  # no "resumed" event: the run was not touched


def dice_profile(source: Path) -> str:
    return ('name = "camera"\n[equipment.dice]\nkind = "dice"\n'
            'identity = { manufacturer = "Lab", model = "Arena", serial = "A-1" }\n'
            f'camera = {{ source = "{source}" }}\n')


def still_folder(folder: Path) -> Path:
    """A folder holding one grey 160x120 still: a camera source that gives a frame."""
    folder.mkdir()
    cv2.imwrite(str(folder / "0001.png"), np.full((120, 160, 3), 90, np.uint8))
    return folder


def test_a_missing_camera_file_fails_and_a_camera_that_gives_a_frame_passes(tmp_path: Path) -> None:
    missing = tmp_path / "arena.mp4"
    [failed] = rig_checks(load_profile_text(dice_profile(missing), "camera.toml"), tmp_path / "devices")
    assert failed == CheckResult("dice camera", Status.FAIL, f"{missing} does not exist")
    empty = tmp_path / "empty"
    empty.mkdir()
    [failed] = rig_checks(load_profile_text(dice_profile(empty), "camera.toml"), tmp_path / "devices1")
    assert (failed.status, failed.detail) == (Status.FAIL, f"{empty}: holds no image matching '*.png|*.jpg|*.jpeg'")
    stills = still_folder(tmp_path / "stills")
    [passed] = rig_checks(load_profile_text(dice_profile(stills), "camera.toml"), tmp_path / "devices2")
    assert passed == CheckResult("dice camera", Status.OK, f"folder {stills}: a 160x120 frame")


def test_a_dice_camera_s_arena_outline_must_take_in_part_of_its_frame(tmp_path: Path) -> None:
    """An outline marked on a still of another size that misses the camera's frame fails before a run (every throw
    would be declined outside-arena); one that takes in part of it passes, saying how much."""
    stills = still_folder(tmp_path / "stills")

    def checked(outline: str, devices: str) -> CheckResult:
        text = dice_profile(stills).removesuffix(" }\n") + f", arena_px = {outline} }}\n"  # on the camera line
        [result] = rig_checks(load_profile_text(text, "camera.toml"), tmp_path / devices)
        return result

    missed = checked("[[400, 300], [1900, 300], [1900, 1000], [400, 1000]]", "devices1")
    assert missed == CheckResult("dice camera", Status.FAIL, "camera.arena_px outlines no part of its 160x120 frame "
                                 "(marked on a still of another size or camera?): every throw would be declined "
                                 "outside-arena")
    half = checked("[[0, 0], [80, 0], [80, 120], [0, 120]]", "devices2")
    assert half == CheckResult("dice camera", Status.OK, f"folder {stills}: a 160x120 frame, 50% in the arena")
    beyond = checked("[[-100, -100], [1000, -100], [1000, 1000], [-100, 1000]]", "devices3")  # wider than the view
    assert beyond.detail.endswith("a 160x120 frame, 100% in the arena")


def psu_profile(resource: str, serial: str) -> str:
    return ('name = "visa"\n'
            '[equipment.jackpot]\nkind = "jackpot-display"\n'
            'identity = { manufacturer = "Lab", model = "JP", serial = "J-1" }\n'
            'connection = { port = "sim", timeout_s = 0.5, retries = 1 }\nsimulator = { model = "fair" }\n'
            '[instruments.psu]\nkind = "power-supply"\n'
            f'identity = {{ manufacturer = "Bench Simulators", model = "PS-30-5", serial = "{serial}" }}\n'
            f'powers = ["jackpot"]\nconnection = {{ resource = "{resource}", timeout_s = 1.0 }}\n')


def test_an_instrument_that_is_not_the_one_the_profile_names_fails_naming_expected_and_got(tmp_path: Path) -> None:
    identity = {"manufacturer": "Bench Simulators", "model": "PS-30-5", "serial": "LAB-0001"}
    with start_psu_simulator({"simulator": {}, "identity": identity}, tmp_path / "lab.sim-state.json") as lab:
        wrong = load_profile_text(psu_profile(lab.resource, "SIM-PS-0009"), "visa.toml")
        psu, jackpot = rig_checks(wrong, tmp_path / "wrong")
        assert (psu.name, psu.status) == ("psu VISA", Status.FAIL)
        assert psu.detail == "*IDN? serial 'LAB-0001', expected 'SIM-PS-0009'"
        assert (jackpot.status, jackpot.detail) == (Status.FAIL, "not opened: its power supply psu is not ready")
        right = load_profile_text(psu_profile(lab.resource, "LAB-0001"), "visa.toml")
        psu, jackpot = rig_checks(right, tmp_path / "right")
        assert psu.status is Status.OK and psu.detail.endswith("*IDN?: LAB-0001")
        assert jackpot.status is Status.OK and jackpot.detail.endswith("answers: J-1")  # powered by it, then answering


def test_a_frequency_counter_answers_idn_with_the_identity_the_profile_gives(tmp_path: Path) -> None:
    def tachometer(serial: str) -> Profile:
        return load_profile_text(
            dice_profile(still_folder(tmp_path / serial)) + '[instruments.tach]\nkind = "frequency-counter"\n'
            f'identity = {{ manufacturer = "Bench Sim", model = "TACH-8", serial = "{serial}" }}\nsimulated = true\n',
            "tach.toml")

    tach, _ = rig_checks(tachometer("SIM-0040"), tmp_path / "right")
    assert tach == CheckResult("tach VISA", Status.OK, "TCPIP0::192.168.0.40::INSTR *IDN?: SIM-0040")
    tach, _ = rig_checks(tachometer("SIM-0099"), tmp_path / "wrong")
    assert tach == CheckResult("tach VISA", Status.FAIL, "*IDN? serial 'SIM-0040', expected 'SIM-0099'")


def test_a_device_answering_with_another_serial_is_a_warning(tmp_path: Path) -> None:
    sim, _, _ = load_profile("sim")
    config = simulator_config(sim.equipment["jackpot"])
    config["identity"] = {**config["identity"], "serial": "SIM-JP-0099"}  # another unit on the cable
    with start_simulator("jackpot-display", config, tmp_path / "jp.sim-state.json") as other:
        profile = load_profile_text(
            'name = "wired"\n[equipment.jackpot]\nkind = "jackpot-display"\n'
            'identity = { manufacturer = "Bench Simulators", model = "JP-2", serial = "SIM-JP-0001" }\n'
            f'connection = {{ port = "{other.tty_path}", timeout_s = 0.5 }}\n', "wired.toml")
        [jackpot] = rig_checks(profile, tmp_path / "devices")
    assert jackpot == CheckResult("jackpot serial", Status.WARN, f"{other.tty_path} answers: serial 'SIM-JP-0099', "
                                                                 "the profile says 'SIM-JP-0001'")
    assert jackpot.ok  # the device answers: the run may go ahead, the certificate shows what it reported


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_key_check_fails_on_a_missing_key_and_never_asks_a_passphrase(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    missing = check_key(tmp_path / "none")
    assert (missing.status, missing.detail) == (Status.FAIL, f"no key in {tmp_path / 'none'} (`bench keys init`)")
    monkeypatch.setenv("BENCH_KEY_PASSPHRASE", "correct horse")
    key = init_key(tmp_path / "encrypted")
    loaded = check_key(key.directory)
    assert loaded.status is Status.OK and key.fingerprint[:19] in loaded.detail
    monkeypatch.delenv("BENCH_KEY_PASSPHRASE")
    monkeypatch.setattr(sys, "stdin", io.StringIO())  # no terminal: nothing to ask, never a hang
    assert check_key(key.directory) == CheckResult("laboratory key", Status.FAIL,
                                                   "encrypted, no passphrase available (BENCH_KEY_PASSPHRASE)")
    monkeypatch.setattr(sys, "stdin", _Terminal())  # a terminal: the run will ask; the doctor does not
    at_terminal = check_key(key.directory)
    assert at_terminal.status is Status.WARN and at_terminal.ok


def test_certify_checks_dieharder_only_when_the_rng_suite_tests_an_rng(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path) -> None:
    monkeypatch.setattr("rng_tests.dieharder.runner.locate", lambda binary=None: (None, ("nowhere",)))
    stills = still_folder(tmp_path / "stills")
    profile = load_profile_text(dice_profile(stills), "camera.toml")
    assert rig_not_ready(profile) is None  # no RNG in the profile: dieharder is not needed
    with_rng = load_profile_text(dice_profile(stills) + (
        '[equipment.rng]\nkind = "rng"\nidentity = { manufacturer = "L", model = "R", serial = "R-1" }\n'
        'simulator = { model = "fair" }\n'), "rng.toml")
    assert rig_not_ready(with_rng, ["dice"]) is None
    refusal = rig_not_ready(with_rng, None, "rng.toml")
    assert refusal is not None and "dieharder: dieharder not installed (looked for nowhere)" in refusal


def test_a_report_line_fits_80_columns_and_never_cuts_a_word() -> None:
    detail = "sim /dev/pts/12 answers: SIM-RW-0001, a wheel whose serial is followed by a very long remark"
    line = report_line(CheckResult("wheel serial", Status.OK, detail), 18)
    assert len(line) <= LINE_WIDTH and line.endswith(" …")
    assert "SIM-RW-0001" in line and all(word in detail.split() for word in line[26:-2].split())
    short = report_line(CheckResult("dieharder", Status.FAIL, "dieharder not installed"), 18)
    assert short == "FAIL  dieharder           dieharder not installed"
