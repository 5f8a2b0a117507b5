"""Train the lean model (a die read on its up face: flat, leaning, or on another die), export it, fit its threshold.

The model (:mod:`vision.die_lean_model`) reads a crop of a die's square with 0.7 of an edge around it on every
side, from a camera over the table. Data: rendered frames (the renderer knows which die is cocked, by how much
and against what), three in eight with a cocked die, two in eight with a die on another, the rest clean or with
a moving or glared die, at realistic nuisance, in every style. The flat dice (class ``flat``), the cocked ones
(``leaning``) and the dice on another (``on-another-die``) give samples, the dice beneath and the moving dice
none: around each die's true square, and around the square of each die the staged reader reads (the squares the
model meets at run time, which the per-die reader may read at any turn). Each crop is cut around its square
jittered (scale 0.85-1.25, shift, any turn, mirrored) and goes through the die reader's photometric augmentation
(:func:`train_die_reader.photometric`).

The threshold is fitted on frames of another seed, never trained on, on the dice the staged reader reads in them
(:func:`runtime_crops`): the least probability of not lying flat such that at most :data:`MAX_MISSED` of the
leaning dice, and of the dice on another, fall below it (declining a flat die costs a re-throw; passing a cocked
one may cost a wrong result). The card states it with the share of flat dice it declines and the per-die reader
whose dice it was fitted on. Fixed seeds; needs the ``train`` extra (torch, onnx); 23 minutes on this 2-core
machine::

    nice .venv/bin/python benchmarks/train_die_lean.py          # writes vision/models/die_lean.*
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from train_die_reader import Patches, build_model, export, photometric, train

from vision.die_crop import DieSquare, rectified_crop
from vision.die_lean_model import DEFAULT_LEAN_MODEL, FLAT, LEAN_CLASSES, LEANING, ON_ANOTHER_DIE, DieLeanModel
from vision.die_reader_model import card_path, file_sha256
from vision.die_samples import truth_square

if TYPE_CHECKING:
    from vision.render.dice import DiceTruth

CROP_PX = 64
MARGIN = 0.7
"""Edges of context on each side of the die's square: the band of a leaning die's side face (up to 2/3 of an
edge) and a little beyond."""
WIDTHS = (16, 32, 64, 64)
CONTEXT_EDGES = 4.4
"""Side of the stored patch around each die, in edges: the crop's 2.4 edges, scaled by 1.25 and turned by 45
degrees (x 1.77), with room for the shift."""
CONTEXT_PX = 200
SEED = 20261128
TRAIN_FRAMES = 4000
VALIDATION_SEED = 5151
VALIDATION_FRAMES = 2000
MAX_MISSED = {"leaning": 0.002, "on_another_die": 0.01}
"""The threshold lets at most these shares of the validation's leaning dice and of its dice on another pass. A die
on another leaves the die beneath in sight, whose pips beside the dice read decline the frame too (and a die
hidden whole leaves the game's count short), so its share is larger."""
FAULTS = (("cocked",), (), ("stacked",), ("cocked",), ("stacked",), ("motion",), ("cocked",), ("glare",))


def lean_frames(seed: int, frames: int) -> Iterator[tuple[np.ndarray, DiceTruth, dict[int, int]]]:
    """``frames`` rendered frames from a camera over the table, with each die that gives a sample and its class
    (:data:`FLAT`, :data:`LEANING`, :data:`ON_ANOTHER_DIE`). A die that moves, or lies under another, gives none."""
    from vision.render.dice import random_dice_scene, render_dice
    from vision.render.dice_frames import STYLES
    from vision.render.nuisance import Nuisance

    rng = np.random.default_rng(seed)
    styles = list(STYLES.values())
    for index in range(frames):
        fault = FAULTS[index % len(FAULTS)]
        count = int(rng.integers(2 if fault == ("stacked",) else 1, 6))
        scene = random_dice_scene(rng, count, styles[index % len(styles)], faults=fault)
        image, truth = render_dice(scene, Nuisance.realistic(rng), rng)
        on_another = {i for i, d in enumerate(scene.dice) if d.rests_on is not None}
        beneath = {d.rests_on for d in scene.dice if d.rests_on is not None}
        kinds = {"flat": FLAT, "cocked": LEANING, "stacked": ON_ANOTHER_DIE}
        classes = {i: ON_ANOTHER_DIE if i in on_another else kinds[die.pose] for i, die in enumerate(truth.dice)
                   if i not in beneath and not die.moving and die.pose in kinds}
        yield image, truth, classes


def context_patch(image: np.ndarray, square: DieSquare) -> np.ndarray:
    """The patch :data:`CONTEXT_EDGES` wide around ``square``, upright as the square is."""
    return rectified_crop(image, DieSquare(square.centre_px, square.edge_px * CONTEXT_EDGES, square.angle_deg),
                          CONTEXT_PX, 0.0)


def told_reader(base, truth: DiceTruth):  # -> StagedDiceReader
    """``base`` told the frame's die size as the bench tells it (:func:`vision.render.dice_frames.told_edge_px`)."""
    import dataclasses

    from vision.render.dice_frames import told_edge_px

    return dataclasses.replace(base, stages=dataclasses.replace(base.stages, die_edge_px=told_edge_px(truth)))


def read_dice_classes(image: np.ndarray, truth: DiceTruth, classes: dict[int, int], reader
                      ) -> list[tuple[DieSquare, int]]:
    """The squares of the dice the staged reader ``reader`` reads in ``image`` (the dice of its bodies' explanations,
    which the scene asks the lean model about), each with the class of the die whose centre lies within 0.35 of an
    edge of its own; a square on no die of ``classes`` gives none."""
    found = []
    for square in (die.square for die in told_reader(reader, truth).explain(image).dice):
        for i, label in classes.items():
            die = truth.dice[i]
            if np.hypot(square.centre_px[0] - die.centre_px[0], square.centre_px[1] - die.centre_px[1]) \
                    <= 0.35 * die.edge_px:
                found.append((square, label))
                break
    return found


def lean_patches(seed: int, frames: int, reader=None) -> Patches:
    """Context patches and classes of :func:`lean_frames`: around each die's true square, and (given the staged
    ``reader``) around the square of each die it reads, as the lean model meets them at run time."""
    images, labels = [], []
    for image, truth, classes in lean_frames(seed, frames):
        samples = [(truth_square(truth.dice[i].corners_px), label) for i, label in classes.items()]
        samples += read_dice_classes(image, truth, classes, reader) if reader is not None else []
        for square, label in samples:
            images.append(context_patch(image, square))
            labels.append(label)
    return Patches(np.array(images, np.uint8), np.array(labels, np.int64))


def runtime_crops(seed: int, frames: int, reader) -> tuple[list[np.ndarray], np.ndarray]:
    """The lean model's crops of the dice the staged ``reader`` reads in :func:`lean_frames`, and their classes
    (:func:`read_dice_classes`): what the lean model meets at run time."""
    crops, labels = [], []
    for image, truth, classes in lean_frames(seed, frames):
        for square, label in read_dice_classes(image, truth, classes, reader):
            crops.append(rectified_crop(image, square, CROP_PX, MARGIN))
            labels.append(label)
    return crops, np.array(labels, np.int64)


def jittered_crop(patch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The model's crop of the patch's die, its square jittered as the reader's squares are: scale 0.85-1.25, shift
    up to 0.08 of an edge, any turn (the per-die reader reads a face at any turn, so the square it reads need not
    lie along the die's sides), mirrored half the time."""
    edge = CONTEXT_PX / CONTEXT_EDGES
    scale = float(np.exp(rng.uniform(np.log(0.85), np.log(1.25))))
    shift = rng.uniform(-0.08, 0.08, 2) * edge
    turn = float(rng.uniform(0.0, 360.0))
    square = DieSquare((CONTEXT_PX / 2 + shift[0], CONTEXT_PX / 2 + shift[1]), edge * scale, turn)
    crop = rectified_crop(patch, square, CROP_PX, MARGIN)
    return np.ascontiguousarray(crop[:, ::-1]) if rng.random() < 0.5 else crop


def lean_batch(patches: Patches, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One epoch: every patch, cut and augmented afresh, (N, CROP_PX, CROP_PX, 3) uint8 BGR, and the labels."""
    return np.stack([photometric(jittered_crop(patch, rng), rng) for patch in patches.images]), patches.labels


def probabilities_of(model: DieLeanModel, crops: list[np.ndarray]) -> np.ndarray:
    """The exported model's class probabilities (N, 3) for each crop, in batches."""
    return np.concatenate([model.probabilities_of_crops(crops[i:i + 512]) for i in range(0, len(crops), 512)])


def fit_lean_threshold(probabilities: np.ndarray, labels: np.ndarray, max_missed: dict[str, float] | None = None
                       ) -> dict:
    """The threshold on a die's probability of not lying flat (1 - P(flat)) that passes at most ``max_missed`` (by
    kind, :data:`MAX_MISSED` by default) of the leaning dice and of the dice on another (the highest such, so that it
    declines the fewest flat dice), with the counts it passes and declines."""
    shares = MAX_MISSED if max_missed is None else max_missed
    not_flat = 1.0 - probabilities[:, FLAT]
    flats = not_flat[labels == FLAT]
    kinds = ((LEANING, "leaning"), (ON_ANOTHER_DIE, "on_another_die"))
    if len(flats) == 0 or not all(np.any(labels == kind) for kind, _ in kinds):
        raise ValueError("fitting the lean threshold needs flat, leaning and stacked dice")
    fit: dict = {}
    thresholds = []
    for kind, name in kinds:
        values = np.sort(not_flat[labels == kind])
        thresholds.append(float(values[int(np.floor(shares[name] * len(values)))]))  # below it: that many at most
        fit[f"{name}_dice"] = len(values)
    threshold = min(thresholds)
    for kind, name in kinds:
        fit[f"{name}_passed"] = int(np.count_nonzero(not_flat[labels == kind] < threshold))
    return {"threshold": threshold, **fit, "flat_dice": len(flats),
            "flat_declined": int(np.count_nonzero(flats >= threshold)),
            "flat_declined_share": float(np.mean(flats >= threshold)), "max_missed": dict(shares)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--frames", type=int, default=TRAIN_FRAMES)
    parser.add_argument("--validation-frames", type=int, default=VALIDATION_FRAMES)
    parser.add_argument("--out", type=Path, default=DEFAULT_LEAN_MODEL)
    parser.add_argument("--calibrate-only", action="store_true",
                        help="fit the threshold of the model already at --out again and rewrite its card")
    args = parser.parse_args(argv)
    if args.calibrate_only:
        return recalibrate(args.out, args.validation_frames)
    import torch

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    started = time.monotonic()
    log = lambda text: print(f"[{time.monotonic() - started:6.1f} s] {text}", flush=True)
    from vision.dice_staged_reader import staged_reader

    reader = staged_reader(lean_model=None)
    train_set = lean_patches(SEED, args.frames, reader)
    validation_crops, validation_labels = runtime_crops(VALIDATION_SEED, args.validation_frames, reader)
    log(f"train {np.bincount(train_set.labels, minlength=len(LEAN_CLASSES)).tolist()}, "
        f"validation {np.bincount(validation_labels, minlength=len(LEAN_CLASSES)).tolist()} {LEAN_CLASSES}")
    model = train(train_set, args.epochs, SEED, log, model=build_model(len(LEAN_CLASSES), CROP_PX, WIDTHS),
                  batch_of=lean_batch)
    export(model, args.out, CROP_PX)
    digest = file_sha256(args.out)
    card = {"classes": list(LEAN_CLASSES), "crop_px": CROP_PX, "margin": MARGIN, "threshold": 1.0, "sha256": digest}
    card_path(args.out).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    fit = calibration(DieLeanModel.load(args.out), validation_crops, validation_labels, reader)
    log(f"calibration {fit}")
    card |= {"threshold": fit["threshold"], "calibration": fit,
             "training": {"epochs": args.epochs, "seed": SEED, "frames": args.frames, "widths": list(WIDTHS),
                          "samples_per_class": np.bincount(train_set.labels, minlength=len(LEAN_CLASSES)).tolist(),
                          "validation_seed": VALIDATION_SEED, "validation_frames": args.validation_frames,
                          "seconds": round(time.monotonic() - started, 1), "torch": torch.__version__},
             "model_bytes": args.out.stat().st_size}
    card_path(args.out).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {args.out} ({args.out.stat().st_size} bytes, sha256 {digest}) and {card_path(args.out).name}")
    return 0


def calibration(model: DieLeanModel, crops: list[np.ndarray], labels: np.ndarray, reader) -> dict:
    """The threshold fitted on the validation dice the staged ``reader`` reads, with the per-die reader whose dice
    they are (another per-die reader, or other stages, read other squares: fit again)."""
    fit = fit_lean_threshold(probabilities_of(model, crops), labels)
    return fit | {"die_reader_sha256": reader.reader.sha256, "die_reader_views": reader.reader.model.card.views}


def recalibrate(model_path: Path, frames: int = VALIDATION_FRAMES) -> int:
    """Fit the threshold of the model at ``model_path`` again on the validation frames and rewrite its card's
    threshold and calibration."""
    from vision.dice_staged_reader import staged_reader

    reader = staged_reader(lean_model=None)
    crops, labels = runtime_crops(VALIDATION_SEED, frames, reader)
    fit = calibration(DieLeanModel.load(model_path), crops, labels, reader)
    card = json.loads(card_path(model_path).read_text(encoding="utf-8"))
    card |= {"threshold": fit["threshold"], "calibration": fit}
    card_path(model_path).write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    print(f"calibration {fit}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
