"""Die edges measured on the simulated arena's measuring stills, as ``suites/test_dice.py::test_die_dimensions``
measures them, with the reader of the throws: the error of every across-flats width against the rendered die's
edge, and how many dice had all their pips located for the pip-diameter measurement.

The stills are the `sim` profile's dice camera's (three translucent red dice laid in a row under the camera,
beside the printed target, with their shadows, :meth:`drivers.sim.dice_camera.SimulatedDiceCamera.measurement_frame`),
for ``--stills`` camera seeds, two stills each. Printed: the widths' bias, spread and largest error, and the
share within twice their stated standard uncertainty (the coverage the guarded acceptance relies on). The
staged reader's dice are outlined at full resolution (:mod:`vision.die_outline`) and their pips located
(:mod:`vision.pip_locator`).

    .venv/bin/python benchmarks/dice_measurement_stills.py [--stills 40] [--reader staged|FILE]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from rich.progress import track

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.profiles import load_profile
from bench.profiles.model import DiceTableEquipment
from bench.rig_cameras import open_dice_table
from vision.die_outline import dice_to_measure
from vision.measure import measure_die_edges
from vision.render.target import TargetSpec
from vision.scale import PlaneScale, hide_target


def _equipment(reader: str, seed: int) -> DiceTableEquipment:
    equipment = load_profile("sim")[0].equipment["dice"]
    assert isinstance(equipment, DiceTableEquipment) and equipment.camera.simulation is not None
    simulation = equipment.camera.simulation.model_copy(update={"seed": seed})
    camera = equipment.camera.model_copy(update={"simulation": simulation, "dice_reader": reader})
    return equipment.model_copy(update={"camera": camera})


def measure(reader: str, seeds: range) -> None:
    """Print the figures of one reader over the stills of ``seeds``."""
    errors: list[float] = []
    uncertainties: list[float] = []
    stills = unmeasured = dice = located = 0
    for seed in track(seeds, description=f"{reader} reader"):
        equipment = _equipment(reader, seed)
        with tempfile.TemporaryDirectory() as directory:
            table = open_dice_table(equipment, Path(directory) / "dice.json")
            target = TargetSpec(marker_mm=equipment.camera.target_marker_mm)
            edge_mm = table.camera.style.edge_mm
            for attempt in range(2):
                stills += 1
                frame = table.camera.measurement_frame(attempt)
                scale = PlaneScale.from_image(frame.image, target, camera_height_mm=equipment.camera.camera_height_mm)
                hidden = hide_target(frame.image, scale, target)
                read = table.reader(hidden)
                found, problem = dice_to_measure(hidden, read) if read.accepted else ([], str(read.decline))
                if problem is not None:
                    unmeasured += 1
                    continue
                dice += len(found)
                located += sum(len(die.pips_px) == die.face for die in found)
                widths = measure_die_edges(frame.image, scale, [die.outline for die in found], game="banca-francesa",
                                           edge_definition_mm=equipment.options.edge_definition_mm)
                errors += [width.value_mm - edge_mm for width in widths]
                uncertainties += [width.standard_uncertainty_mm for width in widths]
            table.close()
    error = np.array(errors)
    print(f"{reader} reader: {stills} stills, {unmeasured} not measured; {dice} dice, pips all located on {located}")
    if error.size:
        print(f"  {error.size} widths: bias {error.mean():+.3f} mm, standard deviation {error.std(ddof=1):.3f} mm, "
              f"largest error {np.abs(error).max():.3f} mm")
        covered = np.abs(error) <= 2.0 * np.array(uncertainties)
        print(f"  stated standard uncertainty u: median {np.median(uncertainties):.3f} mm; |error| <= 2u for "
              f"{covered.mean():.1%} of the widths (about 95 % if u is right)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stills", type=int, default=40, help="camera seeds (two stills each)")
    parser.add_argument("--reader", default="staged",
                        help="the profile's dice_reader: 'staged' (the bench's own) or a reader configuration (JSON)")
    args = parser.parse_args()
    measure(args.reader, range(1, args.stills + 1))


if __name__ == "__main__":
    main()
