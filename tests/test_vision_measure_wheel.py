"""Bowl and ball diameters of a roulette wheel from one camera frame with the wheel target beside it.

Scenes: rendered wheels (vision.render.roulette) with :data:`WHEEL_TARGET` at
:data:`WHEEL_TARGET_TOP_LEFT_PX`, seen by fixed cameras (one keystone homography of strength 0.05
per camera, as the simulated wheel camera) under realistic light, blur, noise and JPEG drawn per
frame (no random glare spots: one over the target refuses the scale, by design). Each camera is
calibrated once from a frame without a ball; the ball's position comes from the roulette reader.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from scipy.stats import binom
from scipy.stats import t as student_t

from vision.measure import LIMITS, Verdict
from vision.measure_wheel import (
    OUTLINE_BIAS_PX,
    WHEEL_TARGET,
    WHEEL_TARGET_TOP_LEFT_PX,
    BallReference,
    WheelDimensions,
    coverage_factor,
    measure_wheel,
    reference_ball,
)
from vision.render.nuisance import Nuisance, perspective_homography
from vision.render.roulette import WheelTruth, random_scene, render_wheel
from vision.roulette import RouletteReader
from vision.roulette_calibration import WheelCalibration, calibrate_wheel
from vision.scale import TargetNotFoundError

SIZE = (640, 480)
PLACED = {"target": WHEEL_TARGET, "target_top_left_px": WHEEL_TARGET_TOP_LEFT_PX}
SCENES_PER_CAMERA = 15
MAX_MISSES = 3
"""Of 30 scenes, at most 3 may fall outside their expanded uncertainty: an interval that covers the truth with
exactly 95.45 % probability fails this check with probability 0.046 (binomial, checked below)."""


def _nuisance(rng: np.random.Generator) -> Nuisance:
    return dataclasses.replace(Nuisance.realistic(rng), glare_spots=0, perspective=0.0)


@dataclass
class Camera:
    rng: np.random.Generator
    homography: np.ndarray
    calibration: WheelCalibration
    reader: RouletteReader
    wheel_diameter_mm: float

    def frame(self, **scene: Any) -> tuple[np.ndarray, WheelTruth, tuple[float, float] | None]:
        """A frame with a ball at rest in a pocket, and the reader's ball position (None when it declines)."""
        placed = {**PLACED, **scene}
        image, truth = render_wheel(random_scene(self.rng, state="in-pocket", wheel_diameter_mm=self.wheel_diameter_mm,
                                                 **placed), _nuisance(self.rng), self.rng, SIZE,
                                    homography=self.homography)
        return image, truth, self.reader.read(image).ball_px


def _camera(seed: int, wheel_diameter_mm: float = 560.0) -> Camera:
    rng = np.random.default_rng(seed)
    homography = perspective_homography(SIZE, 0.05, rng)
    still, _ = render_wheel(random_scene(rng, state="absent", wheel_diameter_mm=wheel_diameter_mm, **PLACED),
                            _nuisance(rng), rng, SIZE, homography=homography)
    calibration = calibrate_wheel(still, "french")
    return Camera(rng, homography, calibration, RouletteReader(calibration), wheel_diameter_mm)


def _reference(camera: Camera, frames: int = 8) -> BallReference:
    """A certified 20.000 mm reference ball read at rest in ``frames`` random pockets."""
    images, positions = [], []
    while len(images) < frames:
        image, _, ball_px = camera.frame(ball_diameter_mm=20.0)
        if ball_px is not None:
            images.append(image)
            positions.append(ball_px)
    return reference_ball(images, WHEEL_TARGET, positions, 20.0, reference_uncertainty_mm=0.002)


@dataclass
class Scene:
    truth: WheelTruth
    calibrated: WheelDimensions
    uncalibrated: WheelDimensions


@pytest.fixture(scope="module")
def cameras() -> list[tuple[Camera, BallReference]]:
    out = []
    for seed in (2101, 2102):
        camera = _camera(seed)
        out.append((camera, _reference(camera)))
    return out


@pytest.fixture(scope="module")
def scenes(cameras: list[tuple[Camera, BallReference]]) -> list[Scene]:
    """30 frames (2 cameras x 15) of a 560 mm wheel with a 21 mm ball, each measured with and without the reference."""
    out = []
    for camera, reference in cameras:
        for _ in range(SCENES_PER_CAMERA):
            image, truth, ball_px = camera.frame()
            assert ball_px is not None, "the reader should find a 21 mm ball at rest"
            out.append(Scene(truth,
                             measure_wheel(image, camera.calibration, WHEEL_TARGET, ball_px=ball_px,
                                           ball_reference=reference),
                             measure_wheel(image, camera.calibration, WHEEL_TARGET, ball_px=ball_px)))
    return out


def _misses(scenes: list[Scene], pick: Callable[[Scene], tuple[Any, float]]) -> tuple[int, str]:
    errors, expanded, standard = [], [], []
    for scene in scenes:
        m, truth = pick(scene)
        errors.append(m.value_mm - truth)
        expanded.append(m.expanded_uncertainty_mm)
        standard.append(m.standard_uncertainty_mm)
    e, big_u = np.array(errors), np.array(expanded)
    summary = (f"bias {e.mean():+.3f} mm, sd {e.std(ddof=1):.3f} mm, mean u {np.mean(standard):.3f} mm, "
               f"mean U {big_u.mean():.3f} mm, outside U {int((np.abs(e) > big_u).sum())}/{len(e)}")
    return int((np.abs(e) > big_u).sum()), summary


def test_miss_threshold_error_rate() -> None:
    """The stated error rate of the coverage checks below."""
    assert binom.sf(MAX_MISSES, 2 * SCENES_PER_CAMERA, 1 - 0.9545) == pytest.approx(0.046, abs=0.001)


def test_bowl_within_its_expanded_uncertainty(scenes: list[Scene]) -> None:
    misses, summary = _misses(scenes, lambda s: (s.calibrated.bowl, s.truth.wheel_diameter_mm))
    assert misses <= MAX_MISSES, summary
    for scene in scenes:
        bowl = scene.calibrated.bowl
        assert bowl.verdict is Verdict.PASS, bowl.describe()
        assert bowl.clauses == LIMITS["wheel-diameter"].clauses
        assert bowl.coverage_k > 2.0 and bowl.details["effective_dof"] >= 16   # the scale's 16 dof dominate
        assert {"scale", "fit", "edge-profile"} <= set(bowl.components)
        assert scene.uncalibrated.bowl.value_mm == bowl.value_mm       # the reference concerns the ball only


def test_ball_with_reference_within_its_expanded_uncertainty(scenes: list[Scene]) -> None:
    misses, summary = _misses(scenes, lambda s: (s.calibrated.ball, s.truth.ball_diameter_mm))
    assert misses <= MAX_MISSES, summary
    for scene in scenes:
        ball = scene.calibrated.ball
        assert ball is not None and ball.verdict is Verdict.PASS, ball and ball.describe()
        assert ball.expanded_uncertainty_mm < 1.5
        assert ball.details["raw_value_mm"] + ball.details["reference"]["correction_mm"] == pytest.approx(ball.value_mm)


def test_ball_without_reference_states_its_outline_bias(scenes: list[Scene]) -> None:
    """Uncorrected, the ball's outline reads small; the outline-bias component keeps the truth inside U, and at
    0.7 px/mm the verdict on a good ball is INCONCLUSIVE rather than a PASS the method cannot support."""
    misses, summary = _misses(scenes, lambda s: (s.uncalibrated.ball, s.truth.ball_diameter_mm))
    assert misses <= MAX_MISSES, summary
    for scene in scenes:
        ball = scene.uncalibrated.ball
        assert ball is not None
        assert ball.verdict is not Verdict.FAIL, ball.describe()
        mm_per_px = 1 / 0.7
        assert ball.components["outline-bias"] == pytest.approx(OUTLINE_BIAS_PX / np.sqrt(3) * mm_per_px, rel=0.1)


def test_oversized_ball_fails(cameras: list[tuple[Camera, BallReference]]) -> None:
    """A 26 mm ball FAILS the 18-24 mm limits, and never PASSES. The reader is tuned to legal balls and sometimes
    declines one this large ("hidden"); the rendered position is then used, since the reader is not what is tested.
    In a study of 37 such frames 36 FAILED and 1 was INCONCLUSIVE (U = 1.9 mm), so at least 5 of 6 must FAIL:
    a method with that 1/37 rate fails this check with probability 0.01. The value may sit 0.5 mm beyond U: the
    correction comes from a 20 mm reference (the raw bias changed by up to 0.4 mm between 18 and 26 mm balls)."""
    verdicts = []
    for camera, reference in cameras:
        for _ in range(3):
            image, truth, ball_px = camera.frame(ball_diameter_mm=26.0)
            at = ball_px if ball_px is not None else truth.ball_centre_px
            ball = measure_wheel(image, camera.calibration, WHEEL_TARGET, ball_px=at, ball_reference=reference).ball
            assert ball is not None and ball.verdict is not Verdict.PASS, ball and ball.describe()
            assert abs(ball.value_mm - truth.ball_diameter_mm) <= ball.expanded_uncertainty_mm + 0.5
            verdicts.append(ball.verdict)
    assert verdicts.count(Verdict.FAIL) >= 5, verdicts


def test_small_wheel_fails() -> None:
    camera = _camera(2103, wheel_diameter_mm=480.0)
    for _ in range(2):
        image, truth, ball_px = camera.frame()
        bowl = measure_wheel(image, camera.calibration, WHEEL_TARGET, ball_px=ball_px).bowl
        assert bowl.verdict is Verdict.FAIL, bowl.describe()
        assert abs(bowl.value_mm - truth.wheel_diameter_mm) <= bowl.expanded_uncertainty_mm


def test_frame_without_target_is_refused(cameras: list[tuple[Camera, BallReference]]) -> None:
    camera, _ = cameras[0]
    image, _, ball_px = camera.frame(target=None)
    with pytest.raises(TargetNotFoundError, match="calibration target not found"):
        measure_wheel(image, camera.calibration, WHEEL_TARGET, ball_px=ball_px)


def test_no_ball_position_json_and_parallax(cameras: list[tuple[Camera, BallReference]]) -> None:
    camera, _ = cameras[0]
    image, _, _ = camera.frame()
    plain = measure_wheel(image, camera.calibration, WHEEL_TARGET, ball_px=None)
    assert plain.ball is None and "no ball position" in plain.ball_reason
    record = json.loads(plain.to_json())
    assert record["bowl"]["verdict"] == plain.bowl.verdict.value and record["ball"] is None
    assert record["target"]["marker_mm"] == WHEEL_TARGET.marker_mm
    # a rim 60 mm above the table under a camera 1,200 mm up: lengths (1200 - 60) / 1200 of the table's
    raised = measure_wheel(image, camera.calibration, WHEEL_TARGET, ball_px=None, camera_height_mm=1200.0,
                           camera_height_uncertainty_mm=10.0, rim_height_mm=60.0)
    assert raised.bowl.value_mm == pytest.approx(plain.bowl.value_mm * 0.95, rel=1e-9)
    assert raised.bowl.components["camera-height"] > 0
    with pytest.raises(ValueError, match="need camera_height_mm"):
        measure_wheel(image, camera.calibration, WHEEL_TARGET, ball_px=None, rim_height_mm=60.0)


@pytest.mark.parametrize("wheel_mm", [500.0, 560.0, 600.0, 620.0])
def test_target_placement_leaves_the_wheel_and_the_frame_clear(wheel_mm: float) -> None:
    """The sheet at WHEEL_TARGET_TOP_LEFT_PX (0.7 px/mm, wheel centred in 640 x 480) keeps >= 14 px from the bowl
    and >= 15 px from the frame's edges (a 0.05 keystone moves the sheet by up to 17 px; its markers are 11 px
    inside it)."""
    ppm = 0.7
    x0, y0 = WHEEL_TARGET_TOP_LEFT_PX
    x1, y1 = x0 + WHEEL_TARGET.width_mm * ppm, y0 + WHEEL_TARGET.height_mm * ppm
    centre = np.array([(SIZE[0] - 1) / 2, (SIZE[1] - 1) / 2])
    nearest = np.clip(centre, (x0, y0), (x1, y1))
    assert np.linalg.norm(nearest - centre) - wheel_mm / 2 * ppm >= 14.0
    assert min(x0, y0, SIZE[1] - y1) >= 15.0
    assert WHEEL_TARGET.marker_mm * ppm >= 40.0         # markers of >= 40 px are found through blur and JPEG


def test_ball_reference_arithmetic_and_validation() -> None:
    reference = BallReference(21.0, 0.004, (19.0, 19.5, 20.0), (0.3, 0.3, 0.3))
    assert reference.correction_mm == pytest.approx(1.5)
    assert reference.scatter_mm == pytest.approx(0.5)
    assert reference.standard_uncertainty_mm == pytest.approx(np.hypot(0.5 / np.sqrt(3), 0.004))
    assert reference.dispersion_top_up(0.3) == pytest.approx(0.4)
    assert reference.dispersion_top_up(0.6) == 0.0
    with pytest.raises(ValueError, match=">= 3 readings"):
        BallReference(21.0, 0.0, (19.0, 19.5), (0.3, 0.3))
    with pytest.raises(ValueError, match="reference_diameter_mm"):
        BallReference(2.0, 0.0, (19.0, 19.5, 20.0), (0.3, 0.3, 0.3))


def test_coverage_factor_from_effective_degrees_of_freedom() -> None:
    k, nu = coverage_factor({"scale": 1.0}, {"scale": 16})
    assert nu == pytest.approx(16) and k == pytest.approx(student_t.ppf(0.97725, 16))
    k, nu = coverage_factor({"scale": 1.0, "edge": 1.0}, {"scale": 16})   # Welch-Satterthwaite: 2^2 / (1/16)
    assert nu == pytest.approx(64) and k == pytest.approx(student_t.ppf(0.97725, 64))
    assert coverage_factor({"edge": 1.0}, {}) == (2.0, float("inf"))
