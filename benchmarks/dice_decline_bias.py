"""Do declined throws depend on the faces? Selection bias of the camera-read dice pipeline.

A declined throw is re-thrown, so if the reader declines some faces more often than others the
accepted throws are biased and fair dice can fail the balance test (p217-2007/banca-francesa/3).
This script throws fair simulated dice through the whole pipeline (simulated camera, settling,
unanimous votes) and prints, per true face: how often a die showing it was in a declined throw,
the accepted faces' chi-square against 1/6, and the wrong reads; then, per decline reason, the same
share by face and whether that reason's declines depend on the face (which stage to mend).

    .venv/bin/python benchmarks/dice_decline_bias.py [--throws 1500] [--style translucent-red]
        [--reader-config FILE] [--lean-model FILE] [--die-edge-px 44]

The reader is the staged reader with the bench's own model (or as ``--reader-config`` sets it), as the rig
builds it for a banca francesa camera (:mod:`bench.rig_dice_reader`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from scipy import stats

from bench.profiles.camera import CameraSimulation
from bench.profiles.model import DiceOptions, DiceSimulator
from drivers.dice_table import CameraDiceTable
from drivers.line_frame import DeviceIdentity
from drivers.sim.dice_camera import SimulatedDiceCamera
from vision.dice_reader_settings import load_reader_settings
from vision.dice_staged_reader import staged_reader
from vision.die_lean_model import DEFAULT_LEAN_MODEL


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--throws", type=int, default=1500)
    parser.add_argument("--style", choices=("translucent-red", "opaque-white"), default="translucent-red")
    parser.add_argument("--seed", type=int, default=20070226)
    parser.add_argument("--reader-config", type=Path, default=None, help="the staged reader's configuration (JSON)")
    parser.add_argument("--lean-model", type=Path, default=DEFAULT_LEAN_MODEL,
                        help="the staged reader's lean model (ONNX with its card; default: the bench's own)")
    parser.add_argument("--die-edge-px", type=float, default=None,
                        help="a camera fixed over the table: the dice's edge in its frames, px "
                             "(simulation.die_edge_px); the reader is told it within +-20 %%, as a lab's reader "
                             "configuration states it (stages.die_edge_px). Default: each throw draws its own scale, "
                             "and the reader is not told it")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    options = DiceOptions(game="banca-francesa")
    camera = SimulatedDiceCamera(DiceSimulator(style=args.style, seed=args.seed), options,
                                 CameraSimulation(seed=args.seed, die_edge_px=args.die_edge_px))
    told = None if args.die_edge_px is None else (0.8 * args.die_edge_px, 1.2 * args.die_edge_px)
    settings = load_reader_settings(args.reader_config) if args.reader_config else None
    read_frame = staged_reader(settings, args.reader_config, expected_dice=3, die_edge_px=told,
                               lean_model=args.lean_model).read
    table = CameraDiceTable(camera, DeviceIdentity("bench", "sim", "0", ""), read_frame)
    shown = np.zeros(6, int)       # dice showing each face, all throws
    in_declined = np.zeros(6, int)  # ... in declined throws
    accepted_faces = np.zeros(6, int)
    wrong = accepted = 0
    reasons: dict[str, int] = {}
    by_reason: dict[str, np.ndarray] = {}  # dice showing each face in the throws declined for each reason
    start = time.perf_counter()
    with Progress(TextColumn("throws"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()) as progress:
        task = progress.add_task("throws", total=args.throws)
        for _ in range(args.throws):
            throw = table.next_throw()
            truth = np.array(camera.physical_faces(camera.throw)) - 1
            np.add.at(shown, truth, 1)
            if throw.accepted:
                accepted += 1
                np.add.at(accepted_faces, np.array(throw.faces) - 1, 1)
                wrong += sorted(throw.faces) != sorted(truth + 1)
            else:
                np.add.at(in_declined, truth, 1)
                reasons[str(throw.decline)] = reasons.get(str(throw.decline), 0) + 1
                np.add.at(by_reason.setdefault(str(throw.decline), np.zeros(6, int)), truth, 1)
            progress.advance(task)
    elapsed = time.perf_counter() - start
    table_out = Table(title=f"{args.throws} fair throws of 3 {args.style} dice through the camera pipeline")
    for column in ("face", "dice shown", "in declined throws", "decline share", "accepted reads"):
        table_out.add_column(column, justify="right")
    for face in range(6):
        table_out.add_row(str(face + 1), str(shown[face]), str(in_declined[face]),
                          f"{in_declined[face] / max(shown[face], 1):.3f}", str(accepted_faces[face]))
    console = Console()
    console.print(table_out)
    chi2 = stats.chisquare(accepted_faces)
    independence = stats.chi2_contingency(np.vstack([shown - in_declined, in_declined]))
    console.print(f"declined throws: {args.throws - accepted} of {args.throws} "
                  f"({(args.throws - accepted) / args.throws:.1%}); reasons {reasons}")
    console.print(f"wrong reads: {wrong} of {accepted} accepted throws")
    console.print(f"accepted faces against 1/6: chi-square {chi2.statistic:.2f}, p = {chi2.pvalue:.4g}")
    console.print(f"declines independent of the face (contingency): p = {independence.pvalue:.4g}")
    console.print(reason_table(by_reason, shown))
    console.print(f"time: {elapsed / args.throws * 1000:.0f} ms per throw (render, settle, 3 votes)")


def reason_table(by_reason: dict[str, np.ndarray], shown: np.ndarray) -> Table:
    """Per decline reason: the share of the dice showing each face whose throw was declined for it, and the
    contingency test of that reason's declines against the face (which reason makes the declines depend on it)."""
    table = Table(title="share of the dice showing each face (1..6) whose throw was declined for each reason; "
                        "p: that reason's declines independent of the face (contingency)")
    for column in ("reason", *(str(face) for face in range(1, 7)), "p"):
        table.add_column(column, justify="right")
    for reason, counts in sorted(by_reason.items(), key=lambda item: -int(item[1].sum())):
        independence = stats.chi2_contingency(np.vstack([shown - counts, counts])) if counts.sum() else None
        table.add_row(reason, *(f"{counts[face] / max(shown[face], 1):.3f}" for face in range(6)),
                      "-" if independence is None else f"{independence.pvalue:.3g}")
    return table


if __name__ == "__main__":
    main()
