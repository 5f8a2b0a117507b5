"""Glare spots where no die shows: a spot on the cloth, or a die whose pips it hides (p217-2007/cussec/6).

A body in which no die reads and glare whitens more than ``glare_pips`` pips' area is either a spot on the cloth,
which the scene judge must let pass (else every frame with such a spot is declined), or a die whose pips the spot
hides, which it must decline for glare (:func:`vision.dice_scene.glared_die`): taken for a spot, a die too many on
the table meets the game's count with a die missing. Over the benchmark's frames (``dice_reader_accuracy.py``:
clean frames of both seeds, the glare fault and the die too many with glare, 200 frames each by default), every
such body is classed by the renderer's truth (a die's centre lies in it) and by the judge, and the figures the
judge decides on are printed: the object under the spot in dice's area, the share of its outline that is sharp
and the per-die reader's likelihood of a face there (:func:`vision.dice_scene.glare_may_hide_a_die`).

A glared die let pass counts against the reader only where the dice read meet the game's count; elsewhere the
frame is declined for its count. Seeded: the same figures on every run.
Run: ``.venv/bin/python benchmarks/dice_glare_spots.py [--clean N] [--faults N]``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dice_reader_accuracy import reader_for

from vision.dice_glare_die import glare_object
from vision.dice_scene import body_glare, glared_die, shows_no_die
from vision.render.dice import DiceTruth
from vision.render.dice_frames import CLEAN_SEEDS, COMBINED_FAULTS, fault_seed, frames


@dataclass(frozen=True)
class GlareSpot:
    """One body where no die shows and glare whitens more than ``glare_pips`` pips' area."""

    run: str
    index: int
    centre_px: tuple[float, float]
    die_under: bool
    declined: bool
    count_met: bool
    pips: float
    object_dice: float | None
    sharp_rim: float | None
    face_likelihood: float


def die_under(body_mask: np.ndarray, origin: tuple[int, int], truth: DiceTruth) -> bool:
    """Whether the centre of a die the renderer laid lies in the body's pixels."""
    for die in truth.dice:
        x, y = int(die.centre_px[0]) - origin[0], int(die.centre_px[1]) - origin[1]
        if 0 <= y < body_mask.shape[0] and 0 <= x < body_mask.shape[1] and body_mask[y, x]:
            return True
    return False


def glare_spots(run: str, seed: int, count: int, faults: tuple[str, ...] = ()) -> Iterator[GlareSpot]:
    """The glare spots where no die shows in the first ``count`` frames of the run ``(seed, faults)``."""
    for index, (_, image, truth) in enumerate(frames(seed, count, faults)):
        yield from frame_spots(run, index, image, truth)


def frame_spots(run: str, index: int, image: np.ndarray, truth: DiceTruth) -> Iterator[GlareSpot]:
    """The glare spots where no die shows in one frame, read as the benchmark reads it."""
    reader = reader_for(truth)
    explained = reader.explain(image)
    settings, edge = reader.scene, explained.die_edge_px
    dice_read = sum(len(explanation.dice) for explanation in explained.explanations)
    for body, explanation in zip(explained.bodies, explained.explanations, strict=True):
        if not shows_no_die(body, explanation, settings):
            continue
        glare, pips = body_glare(image, body, edge, settings)
        if pips <= settings.glare_pips:
            continue
        found = glare_object(image, body, body.mask, glare, edge, settings.glare_die_contrast, settings.glare_die_rim)
        yield GlareSpot(run, index, body.centre_px, die_under(body.mask, body.origin, truth),
                        glared_die(image, body, explanation, edge, settings) is not None,
                        dice_read == truth.expected_dice, pips, None if found is None else found.dice,
                        None if found is None else found.sharp_rim, explanation.face_likelihood)


def runs(clean: int, faults: int) -> list[tuple[str, int, int, tuple[str, ...]]]:
    """The runs measured: ``(name, seed, frames, faults)``."""
    chosen = [(f"clean {seed}", seed, clean, ()) for seed in CLEAN_SEEDS]
    for seed in CLEAN_SEEDS:
        chosen.append((f"glare {seed}", fault_seed("glare", seed), faults, ("glare",)))
        chosen += [(f"{' + '.join(combined)} {seed}", fault_seed(combined, seed), faults, combined)
                   for combined in COMBINED_FAULTS]
    return chosen


def report(spots: list[GlareSpot]) -> None:
    """Print the spots on the cloth declined and the glared dice let pass, with the figures decided on."""
    cloth = [spot for spot in spots if not spot.die_under]
    dice = [spot for spot in spots if spot.die_under]
    print(f"spots on the cloth: {len(cloth)}, declined as a die's glare: {sum(s.declined for s in cloth)}")
    print(f"glared dice: {len(dice)}, declined for glare: {sum(s.declined for s in dice)}; let pass with the "
          f"game's count met (the frame accepted a die short): {sum(not s.declined and s.count_met for s in dice)}")
    for spot in spots:
        if spot.declined != spot.die_under:
            what = "glared die let pass" if spot.die_under else "spot on the cloth declined"
            found = ("cloth not told" if spot.object_dice is None else
                     f"object {spot.object_dice:.2f} dice, {spot.sharp_rim:.0%} of its rim sharp")
            x, y = spot.centre_px
            print(f"   {what}: {spot.run} frame {spot.index} at ({x:.0f}, {y:.0f}), glare {spot.pips:.1f} pips, "
                  f"{found}, face likelihood {spot.face_likelihood:.3f}, count met: {spot.count_met}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", type=int, default=600, help="clean frames of each seed")
    parser.add_argument("--faults", type=int, default=200, help="frames of each fault run")
    args = parser.parse_args(argv)
    if args.clean < 0 or args.faults < 0:
        parser.error("--clean and --faults are counts of frames (>= 0)")
    cv2.setNumThreads(1)
    spots: list[GlareSpot] = []
    for name, seed, count, faults in runs(args.clean, args.faults):
        found = list(glare_spots(name, seed, count, faults))
        print(f"{name}: {count} frames, {len(found)} glare spots where no die shows", flush=True)
        spots += found
    report(spots)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
