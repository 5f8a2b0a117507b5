"""Equipment profiles: built-ins load, errors name the file, the key and the reason (bench/profiles)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.games.roulette_layout import AMERICAN_ORDER, FRENCH_ORDER
from bench.profiles import ProfileError, RouletteWheelEquipment, builtin_profiles, load_profile, load_profile_text
from bench.profiles.loader import BUILTIN_DIR

SIM_TEXT = (BUILTIN_DIR / "sim.toml").read_text(encoding="utf-8")
FAIR_SIMULATOR = 'simulator = { model = "fair", seed = 20070226 }'


def _write(tmp_path: Path, text: str, name: str = "lab.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _error(tmp_path: Path, text: str) -> tuple[str, Path]:
    path = _write(tmp_path, text)
    with pytest.raises(ProfileError) as caught:
        load_profile(str(path))
    return str(caught.value), path


def test_the_template_is_the_builtin_sim_profile() -> None:
    assert FAIR_SIMULATOR in SIM_TEXT and 'layout = "french"' in SIM_TEXT


# -- built-in profiles -------------------------------------------------------


def test_builtin_profiles_are_listed() -> None:
    assert {"sim", "sim-biased-wheel"} <= set(builtin_profiles())


def test_sim_profile_loads_fair_and_simulated() -> None:
    profile, path, text = load_profile("sim")
    assert profile.name == "sim"
    assert path == BUILTIN_DIR / "sim.toml" and text == SIM_TEXT
    wheel = profile.equipment["wheel"]
    assert isinstance(wheel, RouletteWheelEquipment)
    assert wheel.connection is None
    assert wheel.simulator is not None and wheel.simulator.model == "fair"
    assert wheel.options.game == "roleta-francesa"
    assert wheel.options.pocket_order == FRENCH_ORDER
    assert (wheel.options.spins, wheel.options.alpha) == (3700, 0.01)
    assert profile.of_kind("roulette-wheel") == {"wheel": wheel}


def test_sim_biased_wheel_profile_loads_a_nine_pocket_sector_bias() -> None:
    profile, _, _ = load_profile("sim-biased-wheel")
    simulator = profile.equipment["wheel"].simulator
    assert simulator is not None
    assert (simulator.model, simulator.sector_start, simulator.sector_width, simulator.bias_factor) == (
        "sector-bias",
        0,
        9,
        1.3,
    )


def test_a_profile_file_loads_by_path_and_takes_its_name_from_the_file(tmp_path: Path) -> None:
    text = SIM_TEXT.replace('name = "sim"\n', "", 1)
    profile, path, loaded_text = load_profile(str(_write(tmp_path, text, "bench-7.toml")))
    assert profile.name == "bench-7" and path.name == "bench-7.toml" and loaded_text == text


def test_a_real_device_with_a_serial_port_loads(tmp_path: Path) -> None:
    wheel_camera = next(line for line in SIM_TEXT.splitlines() if line.startswith('camera = { source = "sim"'))
    text = SIM_TEXT.replace(FAIR_SIMULATOR, 'connection = { port = "/dev/ttyUSB0", baudrate = 19200 }', 1)
    text = text.replace(wheel_camera + "\n", "", 1).replace(', outcome_source = "both"', "", 1)  # serial only
    profile, _, _ = load_profile(str(_write(tmp_path, text)))
    wheel = profile.equipment["wheel"]
    assert wheel.simulator is None
    assert wheel.connection is not None and (wheel.connection.port, wheel.connection.baudrate) == (
        "/dev/ttyUSB0",
        19200,
    )


def test_american_game_accepts_an_american_layout(tmp_path: Path) -> None:
    text = SIM_TEXT.replace(
        'game = "roleta-francesa", layout = "french"', 'game = "roleta-americana", layout = "american"'
    )
    profile, _, _ = load_profile(str(_write(tmp_path, text)))
    assert profile.equipment["wheel"].options.pocket_order == AMERICAN_ORDER


# -- errors name the file, the key and the reason ----------------------------


def test_bad_layout_names_file_dotted_key_and_allowed_values(tmp_path: Path) -> None:
    message, path = _error(tmp_path, SIM_TEXT.replace('layout = "french"', 'layout = "spanish"'))
    assert str(path) in message
    assert "key equipment.wheel.options.layout:" in message
    assert "'french'" in message and "'american'" in message
    assert "roulette-wheel" not in message  # the union's tag is not part of the key the user wrote


def test_unknown_key_is_refused_with_its_key_path(tmp_path: Path) -> None:
    text = SIM_TEXT.replace("seed = 20070226 }", 'seed = 20070226, colour = "red" }', 1)
    message, path = _error(tmp_path, text)
    assert message == f"{path}: key equipment.wheel.simulator.colour: Extra inputs are not permitted"


def test_unknown_top_level_key_is_refused(tmp_path: Path) -> None:
    message, path = _error(tmp_path, "operator = 'ana'\n" + SIM_TEXT)
    assert message == f"{path}: key operator: Extra inputs are not permitted"


def test_every_problem_is_reported_one_per_line(tmp_path: Path) -> None:
    text = SIM_TEXT.replace('layout = "french"', 'layout = "spanish"').replace("spins = 3700", "spins = 10")
    message, path = _error(tmp_path, text)
    lines = message.splitlines()
    assert len(lines) == 2 and all(line.startswith(f"{path}: key equipment.wheel.options.") for line in lines)
    assert any(".spins:" in line and "37" in line for line in lines)


def test_toml_syntax_error_names_the_file(tmp_path: Path) -> None:
    message, path = _error(tmp_path, SIM_TEXT + "\n[equipment\n")
    assert message.startswith(f"{path}: not valid TOML:")
    assert "line" in message


def test_a_real_device_needs_a_connection_port(tmp_path: Path) -> None:
    message, path = _error(tmp_path, SIM_TEXT.replace(FAIR_SIMULATOR, "", 1))
    assert message.startswith(f"{path}: key equipment.wheel:")
    assert "needs connection.port" in message


def test_an_empty_port_is_refused(tmp_path: Path) -> None:
    message, _ = _error(tmp_path, SIM_TEXT.replace(FAIR_SIMULATOR, 'connection = { port = "" }', 1))
    assert "key equipment.wheel.connection.port:" in message


def test_a_connection_port_and_a_simulator_together_are_refused(tmp_path: Path) -> None:
    text = SIM_TEXT.replace(FAIR_SIMULATOR, 'connection = { port = "/dev/ttyUSB0" }\n' + FAIR_SIMULATOR, 1)
    message, path = _error(tmp_path, text)
    assert message.startswith(f"{path}: key equipment.wheel:")
    assert "not both" in message


def test_french_game_with_american_layout_is_refused_citing_the_clause(tmp_path: Path) -> None:
    message, path = _error(tmp_path, SIM_TEXT.replace('layout = "french"', 'layout = "american"'))
    assert message.startswith(f"{path}: key equipment.wheel.options:")
    assert "p217-2007/roleta-francesa/2" in message


def test_sector_bias_without_a_bias_is_refused(tmp_path: Path) -> None:
    message, _ = _error(tmp_path, SIM_TEXT.replace('model = "fair"', 'model = "sector-bias"'))
    assert "key equipment.wheel.simulator:" in message and "bias_factor" in message


def test_unknown_equipment_kind_is_refused(tmp_path: Path) -> None:
    message, _ = _error(tmp_path, SIM_TEXT.replace('kind = "roulette-wheel"', 'kind = "toaster"'))
    assert "key equipment.wheel:" in message and "'toaster'" in message


def test_missing_profile_suggests_the_nearest_builtin_one() -> None:
    with pytest.raises(ProfileError) as caught:
        load_profile("sim-biassed-wheel")
    message = str(caught.value)
    assert message.startswith("sim-biassed-wheel: no such profile file")
    assert "did you mean 'sim-biased-wheel'?" in message and "`bench profiles`" in message
    with pytest.raises(ProfileError) as caught:
        load_profile("no-such-profile")  # nothing near: no guess, the command that lists them
    assert "did you mean" not in str(caught.value) and "`bench profiles` lists" in str(caught.value)
    assert "sim-biased-wheel" in builtin_profiles()


def test_load_profile_text_names_its_origin() -> None:
    with pytest.raises(ProfileError, match=r"^uploaded\.toml: key equipment:"):
        load_profile_text('name = "x"\nequipment = {}\n', "uploaded.toml")


def test_instruments_must_name_equipment_of_the_profile() -> None:
    text = """name = "lab"
[equipment.wheel]
kind = "roulette-wheel"
identity = { manufacturer = "M", model = "W", serial = "1" }
simulator = { model = "fair" }
[instruments.psu]
kind = "power-supply"
identity = { manufacturer = "P", model = "PSU", serial = "2" }
simulator = {}
powers = ["%s"]
"""
    profile = load_profile_text(text % "wheel", "lab")
    assert profile.instruments["psu"].powers == ["wheel"]
    with pytest.raises(ProfileError, match="instrument 'psu' names equipment the profile lacks: slot"):
        load_profile_text(text % "slot", "lab")


# -- bad input is refused with the file, byte or field at fault ----


def test_a_profile_that_is_not_utf8_names_the_file_and_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(SIM_TEXT.replace("fair", "fair", 1).encode("utf-8") + '\n# operação\n'.encode("latin-1"))
    offset = len(SIM_TEXT.encode("utf-8")) + len("\n# opera")
    with pytest.raises(ProfileError) as caught:
        load_profile(str(path))
    assert str(caught.value).startswith(f"{path}: byte {offset} (0xe7, line ")
    assert "is not UTF-8" in str(caught.value)


def test_bench_profiles_on_a_non_utf8_file_exits_2_without_a_traceback(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from bench.cli import app

    path = tmp_path / "bad.toml"
    path.write_bytes(b'name = "caf\xe9"\n')
    result = CliRunner().invoke(app, ["profiles", str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}: byte 11 (0xe9, line 1, column 12) is not UTF-8" in result.output.replace("\n", "")
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_wire_fault_rates_adding_up_above_one_are_refused_naming_the_field(tmp_path: Path) -> None:
    faults = "wire_faults = { silent_rate = 0.6, garbage_rate = 0.5 }"
    text = SIM_TEXT.replace(FAIR_SIMULATOR, FAIR_SIMULATOR.replace(" }", ", " + faults + " }"), 1)
    assert text != SIM_TEXT
    message, path = _error(tmp_path, text)
    assert message.startswith(f"{path}: key equipment.wheel.simulator.wire_faults:")
    assert "add up to 1.1, above 1" in message and "garbage_rate = 0.5" in message and "silent_rate = 0.6" in message
    ok = SIM_TEXT.replace(FAIR_SIMULATOR, FAIR_SIMULATOR.replace(" }", ", wire_faults = { silent_rate = 0.5, "
                                                                      "garbage_rate = 0.5 } }"), 1)
    load_profile(str(_write(tmp_path, ok, "ok.toml")))
