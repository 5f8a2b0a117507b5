"""Camera audit of the wheel layout (vision/roulette_audit.py) on rendered stills, correct and tampered.

The camera is calibrated once with the surround markers on a correct wheel (as a lab does before
an audit); the stills are rendered with a realistic camera except glare spots, which can wash
out a pocket's colour (the audit then reports it unreadable, tested separately).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from bench.games.roulette_layout import colour, order_for
from vision.render.nuisance import Nuisance, perspective_homography
from vision.render.roulette import WheelScene, render_wheel
from vision.roulette_audit import LayoutAudit, audit_layout, classify_colour, find_frets
from vision.roulette_calibration import WheelCalibration, calibrate_wheel

CATALOGUE = Path(__file__).resolve().parents[1] / "bench" / "catalogue" / "data" / "p217-2007.yaml"


def _camera(seed: int, layout: str) -> tuple[np.ndarray, Nuisance, WheelCalibration]:
    rng = np.random.default_rng(seed)
    nuisance = replace(Nuisance.realistic(rng), glare_spots=0, perspective=0.06)
    homography = perspective_homography((640, 480), nuisance.perspective, rng)
    still, _ = render_wheel(WheelScene(layout=layout, ball_state="absent", markers=True, rotor_angle_deg=20.0),
                            nuisance, rng, homography=homography)
    return homography, nuisance, calibrate_wheel(still, layout, markers="aruco")


@pytest.fixture(scope="module", params=["french", "american"])
def setup(request):
    return _camera(11 if request.param == "french" else 12, request.param)


def _audit(setup, seed: int, colours=None, ball: bool = False) -> LayoutAudit:
    homography, nuisance, calibration = setup
    rng = np.random.default_rng(seed)
    scene = WheelScene(layout=calibration.layout, rotor_angle_deg=float(rng.uniform(0, 360)), markers=True,
                       ball_state="in-pocket" if ball else "absent", ball_number=17, colours_override=colours)
    image, _ = render_wheel(scene, nuisance, rng, homography=homography)
    return audit_layout(image, calibration)


def _layout_colours(layout: str) -> list[str]:
    return [colour(n) for n in order_for(layout)]


def test_a_correct_wheel_passes(setup) -> None:
    for seed, ball in ((1, False), (2, True)):
        audit = _audit(setup, seed, ball=ball)
        assert audit.passed, audit.findings
        assert audit.pockets == 37 and audit.green_count == 1 and audit.alternation_ok and audit.layout_colours_ok
        assert audit.colours == tuple(_layout_colours(setup[2].layout))
        assert audit.pitch_max_deviation < 0.1
        assert np.allclose(np.diff(audit.fret_angles_deg), 360 / 37, atol=1.5)


def test_two_adjacent_reds_fail_the_colour_clause(setup) -> None:
    colours = _layout_colours(setup[2].layout)
    colours[4] = "red" if colours[4] == "black" else "black"     # now equal to one of its neighbours
    audit = _audit(setup, 3, tuple(colours))
    assert not audit.passed and not audit.alternation_ok
    section = "roleta-francesa" if setup[2].layout == "french" else "roleta-americana"
    assert any(f.startswith(f"p217-2007/{section}/6") and "alternate" in f for f in audit.findings)


def test_a_second_green_fails(setup) -> None:
    colours = _layout_colours(setup[2].layout)
    colours[18] = "green"
    audit = _audit(setup, 4, tuple(colours))
    assert audit.green_count == 2
    assert any("/6" in f and "2 green pockets" in f for f in audit.findings)


@pytest.mark.parametrize("count", [36, 38])
def test_wrong_pocket_count_fails_the_count_clause(setup, count: int) -> None:
    colours = _layout_colours(setup[2].layout)
    colours = colours[:36] if count == 36 else [*colours, "black"]
    audit = _audit(setup, 5, tuple(colours))
    assert audit.pockets == count
    assert any("/5" in f and f"{count} pockets counted" in f for f in audit.findings)


def test_the_other_layouts_colours_fail(setup) -> None:
    other = "american" if setup[2].layout == "french" else "french"
    audit = _audit(setup, 6, tuple(_layout_colours(other)))
    assert not audit.passed and not audit.layout_colours_ok


def test_clause_ids_exist_in_the_catalogue(setup) -> None:
    ids = {entry["id"] for entry in yaml.safe_load(CATALOGUE.read_text(encoding="utf-8"))["clauses"]}
    audit = _audit(setup, 7)
    assert set(audit.clauses) <= ids
    assert "passed" in audit.to_json()


def test_colour_classes_and_fret_finder() -> None:
    assert classify_colour(np.array([30, 30, 180]), 200) == "red"
    assert classify_colour(np.array([20, 120, 25]), 200) == "green"
    assert classify_colour(np.array([25, 25, 28]), 200) == "black"
    assert classify_colour(np.array([230, 232, 235]), 200) == "white"
    ring = np.full((4, 720, 3), 30, np.uint8)
    ring[:, (np.arange(37) * 720 / 37).astype(int)] = 220               # 37 one-sample frets
    assert len(find_frets(ring)) == 37
