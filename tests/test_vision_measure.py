"""Calibration target, plane scale and dimensional measurements against scenes of known size."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2
import numpy as np
import pytest
import yaml

from vision.measure import (
    EDGE_LOCATION_PX,
    LIMITS,
    Measurement,
    Verdict,
    guarded_verdict,
    measure_ball_diameter,
    measure_die_edges,
    measure_wheel_diameter,
    pip_diameters_equal,
)
from vision.render.nuisance import Nuisance
from vision.render.target import (
    TargetSpec,
    aruco_dictionary,
    draw_disc,
    draw_rounded_square,
    draw_target,
    reference_scene,
    target_object_points,
)
from vision.scale import PlaneScale, TargetNotFoundError, _check_board, detect_target, smoothed

FELT = (40, 110, 30)


def _nuisance(rng: np.random.Generator) -> Nuisance:
    """Realistic camera nuisance without random glare spots (glare over the target refuses the scale)."""
    return dataclasses.replace(Nuisance.realistic(rng), glare_spots=0)


# --------------------------------------------------------------------------- target


def test_object_points_match_opencv_gridboard() -> None:
    spec = TargetSpec(markers_x=3, markers_y=2, marker_mm=15.0, gap_mm=4.0, first_id=7)
    board = cv2.aruco.GridBoard((3, 2), 15.0, 4.0, aruco_dictionary(), np.arange(7, 13))
    ours = target_object_points(spec)
    for marker_id, points in zip(board.getIds().ravel(), board.getObjPoints(), strict=True):
        np.testing.assert_allclose(ours[int(marker_id)], points[:, :2], atol=1e-5)
    assert spec.ids == (7, 8, 9, 10, 11, 12)
    with pytest.raises(ValueError, match="do not fit DICT_4X4_50"):
        TargetSpec(markers_x=8, markers_y=7)


@pytest.mark.parametrize(("ppm", "angle", "marker_mm"), [(4.0, 0.0, 20.0), (5.3, 17.0, 20.0), (8.0, -33.0, 12.0)])
def test_drawn_target_is_detected_where_drawn(ppm: float, angle: float, marker_mm: float) -> None:
    world = np.full((480, 640, 3), FELT, np.uint8)
    spec = TargetSpec(marker_mm=marker_mm, gap_mm=marker_mm / 4)
    corners = draw_target(world, spec, (150.4, 80.7), ppm, angle)
    found = detect_target(world, spec)
    error = np.array([found[i] - corners[k] for k, i in enumerate(spec.ids)])
    assert np.abs(error).max() < 0.05, np.abs(error).max()  # edge-refined corners on a clean render


def test_a_misplaced_marker_corner_is_repaired_from_the_board() -> None:
    """The detector occasionally puts one corner pixels away; the board's other corners predict it."""
    world = np.full((480, 640, 3), FELT, np.uint8)
    spec = TargetSpec()
    truth = draw_target(world, spec, (80.0, 60.0), 5.0, 9.0)
    corners = {i: truth[k].copy() for k, i in enumerate(spec.ids)}
    corners[3][0] += (-5.0, 0.5)
    repaired = _check_board(smoothed(world), spec, corners)
    assert np.abs(repaired[3] - truth[3]).max() < 0.05
    ugly = {i: truth[k] + (0.0 if i != 2 else 4.0) * np.eye(4, 2) for k, i in enumerate(spec.ids)}
    ugly[1] = ugly[1] + np.array([[3.0, 0], [0, 0], [0, -3.0], [0, 0]])
    world[:] = FELT                          # nothing left to re-locate the corners on: refused, not guessed
    with pytest.raises(TargetNotFoundError, match="off the board's plane"):
        _check_board(smoothed(world), spec, ugly)


def test_missing_or_partly_hidden_target_is_refused_naming_markers() -> None:
    world = np.full((480, 640, 3), FELT, np.uint8)
    with pytest.raises(TargetNotFoundError, match=r"none of markers \[0, 1, 2, 3\]"):
        PlaneScale.from_image(world, TargetSpec())
    corners = draw_target(world, TargetSpec(), (100, 100), 5.0)
    cv2.fillConvexPoly(world, corners[2].round().astype(np.int32), (200, 200, 200))  # cover marker 2
    with pytest.raises(TargetNotFoundError, match=r"markers \[2\] missing") as info:
        PlaneScale.from_image(world, TargetSpec())
    assert info.value.missing_ids == (2,)


def test_plane_scale_matches_truth_under_perspective() -> None:
    rng = np.random.default_rng(1)
    image, truth = reference_scene(rng, "ball", Nuisance(perspective=0.08, noise_sigma=3.0), px_per_mm=5.0)
    scale = PlaneScale.from_image(image, truth.spec)
    assert scale.rms_px < 0.1
    world = np.linalg.inv(truth.homography)            # image -> world px; world px / 5 = mm
    probe = np.array([[300.0, 200.0], [420.0, 330.0]])
    true_mm = cv2.perspectiveTransform(probe.reshape(-1, 1, 2), world).reshape(-1, 2) / 5.0
    measured = scale.to_mm(probe)
    assert abs(np.linalg.norm(measured[1] - measured[0]) - np.linalg.norm(true_mm[1] - true_mm[0])) < 0.05
    with pytest.raises(ValueError, match=">= 5 matching points"):
        PlaneScale.from_points(np.zeros((4, 2)), np.zeros((4, 2)))


# --------------------------------------------------------------------------- verdicts and limits


def test_guarded_acceptance() -> None:
    # limits 12-15 mm, U = 2 x 0.1 = 0.2 mm
    assert guarded_verdict(13.0, 0.1, 2.0, 12.0, 15.0) is Verdict.PASS
    assert guarded_verdict(14.85, 0.1, 2.0, 12.0, 15.0) is Verdict.INCONCLUSIVE   # inside, but within U of 15
    assert guarded_verdict(15.15, 0.1, 2.0, 12.0, 15.0) is Verdict.INCONCLUSIVE   # outside, but within U
    assert guarded_verdict(15.25, 0.1, 2.0, 12.0, 15.0) is Verdict.FAIL
    assert guarded_verdict(11.7, 0.1, 2.0, 12.0, 15.0) is Verdict.FAIL
    assert guarded_verdict(0.1, 0.02, 2.0, None, 0.25) is Verdict.PASS
    m = Measurement("die 1 edge a", 14.97, 0.03, (12.0, 15.0), clauses=("p217-2007/banca-francesa/3",))
    assert m.verdict is Verdict.INCONCLUSIVE and m.expanded_uncertainty_mm == pytest.approx(0.06)
    assert m.as_dict()["verdict"] == "INCONCLUSIVE" and "INCONCLUSIVE" in m.describe()
    with pytest.raises(ValueError, match="at least one limit"):
        Measurement("x", 1.0, 0.1, (None, None))
    with pytest.raises(ValueError, match="reversed"):
        Measurement("x", 1.0, 0.1, (2.0, 1.0))


def test_limits_cite_catalogue_clauses() -> None:
    ids = set()
    for path in sorted((Path(__file__).parents[1] / "bench" / "catalogue" / "data").glob("*.yaml")):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        entries = document if isinstance(document, list) else document.get("clauses", [])
        ids.update(entry["id"] for entry in entries if isinstance(entry, dict) and "id" in entry)
    assert ids, "catalogue not found"
    for limit in LIMITS.values():
        assert limit.clauses and set(limit.clauses) <= ids, limit.clauses
    assert (LIMITS["die-edge/craps"].low_mm, LIMITS["die-edge/craps"].high_mm) == (18.0, 20.0)
    assert (LIMITS["wheel-diameter"].low_mm, LIMITS["wheel-diameter"].high_mm) == (500.0, 600.0)


# --------------------------------------------------------------------------- accuracy against truth


def test_die_and_ball_within_stated_uncertainty_in_100_scenes() -> None:
    """100 seeded scenes (60 dice, two widths each; 40 balls), scale 3.5-8 px/mm, any rotation, realistic nuisance.

    Claim: |error| <= 2u for >= 95 % of measurements. Over 500 scenes per kind (benchmarks/measure_accuracy.py)
    the coverage is 99.1 % for die widths and 98.2 % for balls: about 1.8 misses are expected among these
    160 measurements and 9 would fail the check, so a fresh seed fails it with probability below 0.1 %
    (Poisson; widths of one die are correlated). The seed is fixed, so the test is deterministic. Errors
    are also bounded: below 0.1 mm (the benchmark's error spread is 0.012 mm for dice, 0.009 mm for balls).
    """
    rng = np.random.default_rng(2024)
    errors, uncertainties = [], []
    for scene in range(100):
        kind = "die" if scene < 60 else "ball"
        image, truth = reference_scene(rng, kind, _nuisance(rng))
        scale = PlaneScale.from_image(image, truth.spec, samples=100, rng=np.random.default_rng(scene))
        if kind == "die":
            found = measure_die_edges(image, scale, [truth.outline_px + rng.normal(0, 1.0, (4, 2))])
        else:
            cx, cy, r = truth.outline_px
            found = [measure_ball_diameter(image, scale, (cx + rng.normal(0, 1), cy + rng.normal(0, 1), r * 1.05))]
        for m in found:
            errors.append(m.value_mm - truth.size_mm)
            uncertainties.append(m.standard_uncertainty_mm)
    errors, uncertainties = np.array(errors), np.array(uncertainties)
    coverage = float(np.mean(np.abs(errors) <= 2 * uncertainties))
    assert len(errors) == 160
    assert coverage >= 0.95, coverage
    assert np.abs(errors).max() < 0.1 and np.abs(errors.mean()) < 0.01


def test_red_die_on_green_felt_measured_in_colour() -> None:
    """Red (BGR 40, 40, 190) and green felt have nearly the same grey level; the colour contrast carries the edge."""
    rng = np.random.default_rng(9)
    image, truth = reference_scene(rng, "die", Nuisance(noise_sigma=3.0), die_bgr=(40, 40, 190), px_per_mm=5.0,
                                   felt_bgr=FELT)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(float)
    scale = PlaneScale.from_image(image, truth.spec)
    for m in measure_die_edges(image, scale, [truth.outline_px]):
        assert abs(m.value_mm - truth.size_mm) <= 2 * m.standard_uncertainty_mm + 0.01, (m.value_mm, truth.size_mm)
    quad = truth.outline_px
    body = (quad.mean(axis=0) + 0.3 * ((quad[0] + quad[1]) / 2 - quad.mean(axis=0))).round().astype(int)
    felt = (quad.mean(axis=0) + 1.3 * ((quad[0] + quad[1]) / 2 - quad.mean(axis=0))).round().astype(int)
    assert abs(grey[body[1], body[0]] - grey[felt[1], felt[0]]) < 15   # the grey image alone barely shows it


def test_each_width_carries_the_edge_location_of_its_two_sides() -> None:
    """Each across-flats width states ``EDGE_LOCATION_PX`` for each of its two sides' lines, in mm at the die's
    scale (5 px/mm here: 0.14 px is 0.028 mm a side, 0.040 mm for the width), within the combined uncertainty."""
    rng = np.random.default_rng(4)
    image, truth = reference_scene(rng, "die", Nuisance(noise_sigma=2.0), px_per_mm=5.0)
    scale = PlaneScale.from_image(image, truth.spec)
    for m in measure_die_edges(image, scale, [truth.outline_px]):
        assert m.components["edge-location"] == pytest.approx(EDGE_LOCATION_PX * np.sqrt(2) / 5.0, rel=0.05)
        assert m.standard_uncertainty_mm >= m.components["edge-location"]


def test_verdicts_follow_the_true_size() -> None:
    rng = np.random.default_rng(5)
    cases = [(13.5, Verdict.PASS), (16.0, Verdict.FAIL), (11.0, Verdict.FAIL)]
    for size, verdict in cases:
        image, truth = reference_scene(rng, "die", _nuisance(rng), size_mm=size)
        scale = PlaneScale.from_image(image, truth.spec)
        results = measure_die_edges(image, scale, [truth.outline_px], game="cussec")
        assert [m.verdict for m in results] == [verdict, verdict]
        assert results[0].clauses == ("p217-2007/cussec/1",)
    image, truth = reference_scene(rng, "die", _nuisance(rng), size_mm=19.0)
    scale = PlaneScale.from_image(image, truth.spec)
    assert {m.verdict for m in measure_die_edges(image, scale, [truth.outline_px], game="craps")} == {Verdict.PASS}
    with pytest.raises(ValueError, match="unknown dice game"):
        measure_die_edges(image, scale, [truth.outline_px], game="poker")


def test_pips_equal_and_one_pip_oversize() -> None:
    rng = np.random.default_rng(12)
    verdicts: dict[float, list[Verdict]] = {0.0: [], 0.6: []}
    for error, found in verdicts.items():
        for _ in range(6):
            while True:
                image, truth = reference_scene(rng, "die", _nuisance(rng), pip_error_mm=error)
                if len(truth.pips_px) >= 2:
                    break
            scale = PlaneScale.from_image(image, truth.spec, samples=50)
            m = pip_diameters_equal(image, scale, truth.pips_px)
            found.append(m.verdict)
            true_spread = max(truth.pip_diameters_mm) - min(truth.pip_diameters_mm)
            assert abs(m.value_mm - true_spread) < 0.1
    assert verdicts[0.0] == [Verdict.PASS] * 6
    assert verdicts[0.6] == [Verdict.FAIL] * 6


def test_wheel_diameter_within_stated_uncertainty() -> None:
    """Wheels of 460-640 mm at 0.52-0.6 px/mm with a 2 x 3 target of 70 mm markers: a small target
    extrapolated over a large wheel, so the scale term dominates; 10 seeded scenes, >= 9 within 2u."""
    rng = np.random.default_rng(77)
    spec = TargetSpec(markers_x=2, markers_y=3, marker_mm=70.0, gap_mm=15.0)
    inside = 0
    for _ in range(10):
        image, truth = reference_scene(rng, "wheel", _nuisance(rng), spec=spec)
        scale = PlaneScale.from_image(image, truth.spec, samples=100)
        m = measure_wheel_diameter(image, scale, truth.outline_px)
        inside += abs(m.value_mm - truth.size_mm) <= 2 * m.standard_uncertainty_mm
        assert abs(m.value_mm - truth.size_mm) < 15.0
    assert inside >= 9


# --------------------------------------------------------------------------- parallax


def _flat_scene(ppm: float) -> tuple[np.ndarray, PlaneScale, TargetSpec]:
    world = np.full((480, 640, 3), FELT, np.uint8)
    spec = TargetSpec()
    draw_target(world, spec, (20.0, 20.0), ppm)
    return world, PlaneScale.from_image(world, spec, camera_height_mm=600.0), spec


def test_die_top_face_parallax_is_corrected() -> None:
    """A 15 mm die under a camera 600 mm up shows its top face 600 / 585 times larger on the table plane."""
    ppm, edge, height = 5.0, 15.0, 600.0
    world, scale, _ = _flat_scene(ppm)
    plane_edge = edge * height / (height - edge)
    corners = draw_rounded_square(world, (460.0, 300.0), plane_edge * ppm, 21.0, 2.0, (225, 230, 235))
    scale = PlaneScale.from_image(world, TargetSpec(), camera_height_mm=height, camera_height_uncertainty_mm=5.0)
    for m in measure_die_edges(world, scale, [corners], nadir_px=(460.0, 300.0)):
        assert abs(m.value_mm - edge) <= 2 * m.standard_uncertainty_mm + 0.005
        assert m.details["plane_width_mm"] == pytest.approx(plane_edge, abs=0.05)
        assert "camera-height" in m.components and m.components["side-faces"] < 1e-3
    far = measure_die_edges(world, scale, [corners], nadir_px=(60.0, 60.0))[0]
    assert far.components["side-faces"] > 0.1          # far from the nadir the side faces show


def test_ball_sphere_parallax_is_corrected() -> None:
    ppm, radius, height = 5.0, 11.0, 600.0
    world, _, spec = _flat_scene(ppm)
    outline = height * radius / np.sqrt((height - radius) ** 2 - radius**2)
    draw_disc(world, (470.0, 250.0), outline * ppm, (236, 238, 240))
    flat = measure_ball_diameter(world, PlaneScale.from_image(world, spec), (470.0, 250.0, outline * ppm))
    corrected = measure_ball_diameter(world, PlaneScale.from_image(world, spec, camera_height_mm=height),
                                      (470.0, 250.0, outline * ppm))
    assert flat.value_mm == pytest.approx(2 * outline, abs=0.03)
    assert abs(corrected.value_mm - 2 * radius) <= 2 * corrected.standard_uncertainty_mm + 0.005


def test_bad_inputs_are_refused() -> None:
    world, scale, _ = _flat_scene(5.0)
    with pytest.raises(ValueError, match="too small to measure"):
        measure_die_edges(world, scale, [np.array([[0, 0], [3, 0], [3, 3], [0, 3]])])
    with pytest.raises(ValueError, match="gives no top-face quadrilateral"):
        measure_die_edges(world, scale, [object()])
    with pytest.raises(ValueError, match="circular region"):
        measure_ball_diameter(world, scale, (1.0, 2.0))
    with pytest.raises(ValueError, match="outline not found"):
        measure_ball_diameter(world, scale, (500.0, 400.0, 30.0))   # plain felt
    with pytest.raises(ValueError, match="at least 2 pips"):
        pip_diameters_equal(world, scale, [(10.0, 10.0, 5.0)])


def test_hide_target_paints_the_sheet_in_the_table_colour() -> None:
    """Readers must not mistake the target's markers for dice: once hidden, no marker is found and the
    sheet's area has the felt's colour."""
    from vision.scale import hide_target

    world = np.full((480, 640, 3), (40, 110, 30), np.uint8)
    spec = TargetSpec()
    draw_target(world, spec, (20.0, 20.0), 3.0)
    scale = PlaneScale.from_image(world, spec)
    hidden = hide_target(world, scale, spec)
    with pytest.raises(TargetNotFoundError):
        detect_target(hidden, spec)
    sheet = hidden[20:20 + int(spec.height_mm * 3), 20:20 + int(spec.width_mm * 3)]
    assert np.abs(sheet.astype(int) - np.array([40, 110, 30])).max() <= 2
    assert np.array_equal(hidden[400:, 400:], world[400:, 400:])  # the rest of the frame is untouched
