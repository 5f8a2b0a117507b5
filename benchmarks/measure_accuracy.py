"""Accuracy of the dimensional measurements (vision.measure) against rendered scenes of known size.

For each quantity, N seeded reference scenes (vision.render.target.reference_scene: a calibration
target and one artefact of exactly known size, scale 3.5-8 px/mm for dice and balls, 0.52-0.6 px/mm
for wheels, any rotation, Nuisance.realistic without random glare spots) are measured and the
script prints, per quantity: bias (mean error), spread (standard deviation of the errors), RMSE,
the mean and median stated standard uncertainty u, and the coverage: the share of measurements
with |error| <= 2u (about 95 % expected if u is right, more if it is conservative).

It also prints how often the target is refused when random glare spots are allowed (a glare spot
over a marker hides it: the scale is refused rather than guessed), and, when the dice renderer
(vision.render.dice) is present, a cross-check on its three-dimensional dice (pinhole camera 900 mm
up, bevelled edges): near the camera's nadir and anywhere in the frame, each without and with the dice model's
edge definition declared (:func:`declared_edge_definition_mm`).

Run: ``.venv/bin/python benchmarks/measure_accuracy.py [--scenes 500] [--seed 2025] [--quick]``
(about 4 minutes with the defaults on one core; ``--quick`` uses 100 scenes).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable

import cv2
import numpy as np

from vision.measure import (
    Measurement,
    measure_ball_diameter,
    measure_die_edges,
    measure_pip_diameters,
    measure_wheel_diameter,
)
from vision.render.nuisance import Nuisance
from vision.render.target import ReferenceTruth, TargetSpec, reference_scene
from vision.scale import PlaneScale, TargetNotFoundError

WHEEL_TARGET = TargetSpec(markers_x=2, markers_y=3, marker_mm=70.0, gap_mm=15.0)


def _no_glare(rng: np.random.Generator) -> Nuisance:
    return dataclasses.replace(Nuisance.realistic(rng), glare_spots=0)


def _die(image: np.ndarray, scale: PlaneScale, truth: ReferenceTruth, rng: np.random.Generator
         ) -> list[tuple[float, float]]:
    quad = truth.outline_px + rng.normal(0.0, 1.0, (4, 2))   # a reader's quadrilateral, ~1 px off
    return [(m.value_mm - truth.size_mm, m.standard_uncertainty_mm) for m in measure_die_edges(image, scale, [quad])]


def _ball(image: np.ndarray, scale: PlaneScale, truth: ReferenceTruth, rng: np.random.Generator
          ) -> list[tuple[float, float]]:
    cx, cy, r = truth.outline_px
    m = measure_ball_diameter(image, scale, (cx + rng.normal(0, 1), cy + rng.normal(0, 1), r * rng.uniform(0.95, 1.05)))
    return [(m.value_mm - truth.size_mm, m.standard_uncertainty_mm)]


def _wheel(image: np.ndarray, scale: PlaneScale, truth: ReferenceTruth, rng: np.random.Generator
           ) -> list[tuple[float, float]]:
    m = measure_wheel_diameter(image, scale, truth.outline_px)
    return [(m.value_mm - truth.size_mm, m.standard_uncertainty_mm)]


def _pips(image: np.ndarray, scale: PlaneScale, truth: ReferenceTruth, rng: np.random.Generator
          ) -> list[tuple[float, float]]:
    found = measure_pip_diameters(image, scale, truth.pips_px)
    return [(d - true, u) for (d, u), true in zip(found, truth.pip_diameters_mm, strict=True)]


def run(kind: str, measure: Callable[..., list[tuple[float, float]]], scenes: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows: list[tuple[float, float]] = []
    refused = failed = 0
    elapsed = 0.0
    scene_kind = "die" if kind in ("die edge", "pip diameter") else kind.split()[0]
    for _ in range(scenes):
        image, truth = reference_scene(rng, scene_kind, _no_glare(rng),
                                       spec=WHEEL_TARGET if scene_kind == "wheel" else None)
        start = time.perf_counter()
        try:
            scale = PlaneScale.from_image(image, truth.spec, rng=np.random.default_rng(int(rng.integers(2**31))))
        except TargetNotFoundError:
            refused += 1
            continue
        try:
            rows.extend(measure(image, scale, truth, rng))
        except ValueError:
            failed += 1
        elapsed += time.perf_counter() - start
    errors, u = np.array(rows).T
    print(f"{kind:16s} {len(errors):5d} {refused:4d} {failed:4d} {errors.mean():+9.4f} {errors.std(ddof=1):8.4f} "
          f"{np.sqrt(np.mean(errors**2)):8.4f} {u.mean():8.4f} {np.median(u):8.4f} "
          f"{np.mean(np.abs(errors) <= 2 * u):8.3f} {1000 * elapsed / max(1, scenes - refused):7.1f}")


def target_refusals(scenes: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    refused = 0
    for _ in range(scenes):
        image, truth = reference_scene(rng, "ball", Nuisance.realistic(rng))
        try:
            PlaneScale.from_image(image, truth.spec, samples=20)
        except TargetNotFoundError:
            refused += 1
    print(f"\ntarget refused with random glare spots allowed: {refused} of {scenes} scenes "
          f"({100 * refused / scenes:.1f} %)")


BEVEL_INSET_PER_EDGE_MM = 0.17 / 14.0
"""How far inside a width the outline the camera finds lies, per mm of edge, on the renderer's opaque white die (its
bevel is a fixed share of its edge: 0.17 mm on a 14 mm die, as the simulated dice's profiles declare it)."""


def declared_edge_definition_mm(edge_mm: float) -> float:
    """The edge definition a lab would declare for the rendered die of ``edge_mm``: its outline's inset ``a`` taken
    as a rectangular distribution, ``a / sqrt(3)`` (:func:`vision.measure.measure_die_edges`)."""
    return BEVEL_INSET_PER_EDGE_MM * edge_mm / float(np.sqrt(3.0))


def dice_renderer_cross_check(scenes: int, seed: int) -> None:
    try:
        from vision.render.dice import DiceScene, DiePlacement, DieStyle, render_dice
    except ImportError:
        print("\n(dice renderer not present: cross-check skipped)")
        return
    print("\ncross-check on the dice renderer (3-D cubes, bevelled edges, camera 900 mm up, parallax corrected), "
          "without and with the dice model's edge definition declared (a / sqrt(3), a the outline's inset):")
    print(f"{'placement':16s} {'declared':>8s} {'n':>5s} {'bias':>9s} {'sd':>8s} {'mean u':>8s} {'cover':>8s}")
    for where, declared in (("near nadir", False), ("near nadir", True), ("anywhere", False), ("anywhere", True)):
        rng = np.random.default_rng(seed)
        rows = []
        for _ in range(scenes):
            ppm = float(rng.uniform(4, 6))
            style = dataclasses.replace(DieStyle.opaque_white(), edge_mm=float(rng.uniform(12, 19)))
            if where == "near nadir":
                centre = (320 / ppm + rng.uniform(-3, 3), 240 / ppm + rng.uniform(-3, 3))
            else:
                centre = (rng.uniform(75, 640 / ppm - 20), rng.uniform(20, 480 / ppm - 20))
            scene = DiceScene(felt_bgr=(40, 110, 30), arena_mm=((0, 0), (128, 0), (128, 96), (0, 96)), px_per_mm=ppm,
                              dice=(DiePlacement(face=int(rng.integers(1, 7)), centre_mm=centre,
                                                 angle_deg=float(rng.uniform(0, 90))),),
                              style=style, target=TargetSpec(marker_mm=12, gap_mm=3), target_top_left_mm=(4, 4))
            image, truth = render_dice(scene, dataclasses.replace(_no_glare(rng), perspective=0.0), rng)
            try:
                scale = PlaneScale.from_image(image, scene.target, camera_height_mm=900.0, samples=100)
                definition = declared_edge_definition_mm(style.edge_mm) if declared else 0.0
                found: list[Measurement] = measure_die_edges(image, scale, [truth.dice[0].corners_px],
                                                             edge_definition_mm=definition)
            except ValueError:
                continue
            rows.extend((m.value_mm - style.edge_mm, m.standard_uncertainty_mm) for m in found)
        errors, u = np.array(rows).T
        print(f"{where:16s} {'a/√3' if declared else '0':>8s} {len(errors):5d} {errors.mean():+9.4f} "
              f"{errors.std(ddof=1):8.4f} {u.mean():8.4f} "
              f"{np.mean(np.abs(errors) <= 2 * u):8.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--quick", action="store_true", help="100 scenes per quantity")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    scenes = 100 if args.quick else args.scenes
    print(f"{scenes} seeded scenes per quantity (seed {args.seed}); errors and u in mm\n")
    print(f"{'quantity':16s} {'n':>5s} {'ref.':>4s} {'fail':>4s} {'bias':>9s} {'sd':>8s} {'rmse':>8s} "
          f"{'mean u':>8s} {'med. u':>8s} {'|e|<=2u':>8s} {'ms/scene':>7s}")
    run("die edge", _die, scenes, args.seed)
    run("pip diameter", _pips, scenes, args.seed + 1)
    run("ball diameter", _ball, scenes, args.seed + 2)
    run("wheel diameter", _wheel, scenes, args.seed + 3)
    target_refusals(min(scenes, 200), args.seed + 4)
    dice_renderer_cross_check(min(scenes, 100), args.seed + 5)


if __name__ == "__main__":
    main()
