"""Do declined throws depend on the faces? Selection bias of the camera-read dice pipeline.

A declined throw is re-thrown, so if the reader declines some faces more often than others the
accepted throws are biased and fair dice can fail the balance test (p217-2007/banca-francesa/3).
This script throws fair simulated dice through the whole pipeline (simulated camera, settling,
unanimous votes, a rig's unreadable frames replaced) and prints, per true face: how often a die showing it was in a declined throw,
the accepted faces' chi-square against 1/6, and the wrong reads; then, per decline reason, the same
share by face and whether that reason's declines depend on the face (which stage to mend).

    .venv/bin/python benchmarks/dice_decline_bias.py [--throws 1500] [--style translucent-red]
        [--reader-config FILE] [--lean-model FILE] [--die-edge-px 44] [--unreadable-replacements 2]
    .venv/bin/python benchmarks/dice_decline_bias.py --profile sim [--throws 630]

The reader is the staged reader with the bench's own model (or as ``--reader-config`` sets it), as the rig
builds it for a banca francesa camera (:mod:`bench.rig_dice_reader`). With ``--profile`` the dice table is the
profile's, built as ``bench certify`` builds it (:func:`bench.rig_cameras.open_dice_table`: its simulator, its
camera's simulation, votes and reader), throws numbered from 1 as in a fresh run; the cocked and stacked dice its
simulation injects on purpose (:attr:`drivers.sim.dice_camera.SimulatedDiceCamera.injected_faults`) are counted
apart, and the share of the other, fair throws declined is printed with its 95 % upper bound against the target of
at most 3 %. The faces' tables count the fair throws only.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from scipy import stats

from bench.profiles.camera import CameraConnection, CameraSimulation
from bench.profiles.loader import ProfileError, load_profile
from bench.profiles.model import DiceOptions, DiceSimulator, DiceTableEquipment
from bench.rig_cameras import frames_to_read, open_dice_table
from drivers.dice_table import CameraDiceTable
from drivers.line_frame import DeviceIdentity
from drivers.sim.dice_camera import SimulatedDiceCamera
from vision.dice_reader_settings import load_reader_settings
from vision.dice_staged_reader import staged_reader
from vision.die_lean_model import DEFAULT_LEAN_MODEL
from vision.die_reader_calibration import clopper_pearson_upper

FAIR_DECLINE_TARGET = 0.03
"""At most this share of the fair throws of the ``sim`` certification's dice camera declined."""


def profile_table(name: str, state_dir: Path) -> tuple[CameraDiceTable, SimulatedDiceCamera, str]:
    """The dice table of profile ``name`` as ``bench certify`` builds it (its camera's throw counter kept under
    ``state_dir``, from 0), its simulated camera and the dice's style. Raises SystemExit when the profile has no
    simulated dice table."""
    try:
        profile, _, _ = load_profile(name)
    except ProfileError as error:
        raise SystemExit(f"error: {error}") from None
    tables = [equipment for equipment in profile.equipment.values() if isinstance(equipment, DiceTableEquipment)]
    if not tables or tables[0].simulator is None:
        raise SystemExit(f"profile {name!r} has no simulated dice table")
    table = open_dice_table(tables[0], state_dir / "dice.camera-state.json")
    camera = table.camera
    if not isinstance(camera, SimulatedDiceCamera):
        raise SystemExit(f"profile {name!r}: its dice table's camera is not simulated")
    return table, camera, tables[0].simulator.style


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
    parser.add_argument("--unreadable-replacements", type=int, default=None,
                        help="settled frames declined unreadable a throw may set aside for the next settled frame "
                             "(camera.unreadable_replacements; default: a rig's, 2; 0: every settled frame votes)")
    parser.add_argument("--profile", default=None,
                        help="throw the dice table of this profile (e.g. sim) as bench certify builds it; the dice "
                             "its simulation cocks or stacks on purpose are counted apart")
    args = parser.parse_args()
    if args.profile is not None:
        own = [f"--{name.replace('_', '-')}" for name in ("style", "seed", "reader_config", "lean_model", "die_edge_px",
                                                          "unreadable_replacements")
               if getattr(args, name) != parser.get_default(name)]
        if own:
            parser.error(f"--profile takes the dice, camera and reader of the profile: drop {', '.join(own)}")
    cv2.setNumThreads(1)
    with tempfile.TemporaryDirectory(prefix="dice-decline-bias-") as state_dir:
        if args.profile is not None:
            table, camera, style = profile_table(args.profile, Path(state_dir))
        else:
            replaced = {} if args.unreadable_replacements is None else {
                "unreadable_replacements": args.unreadable_replacements}
            try:
                connection = CameraConnection(source="sim", **replaced)  # a rig's votes and unreadable replacements
            except ValidationError as error:
                parser.error(f"--unreadable-replacements {args.unreadable_replacements}: {error.errors()[0]['msg']}")
            camera = SimulatedDiceCamera(DiceSimulator(style=args.style, seed=args.seed), DiceOptions(game="banca-francesa"),
                                         CameraSimulation(seed=args.seed, die_edge_px=args.die_edge_px),
                                         votes=frames_to_read(connection))
            told = None if args.die_edge_px is None else (0.8 * args.die_edge_px, 1.2 * args.die_edge_px)
            settings = load_reader_settings(args.reader_config) if args.reader_config else None
            read_frame = staged_reader(settings, args.reader_config, expected_dice=3, die_edge_px=told,
                                       lean_model=args.lean_model).read
            table = CameraDiceTable(camera, DeviceIdentity("bench", "sim", "0", ""), read_frame, votes=connection.votes,
                                    unreadable_replacements=connection.unreadable_replacements)
            style = args.style
        throw_dice(table, camera, args.throws, style)


def throw_dice(table: CameraDiceTable, camera: SimulatedDiceCamera, throws: int, style: str) -> None:
    """Throw ``throws`` times and print the tables (see the module docstring)."""
    shown = np.zeros(6, int)       # dice showing each face, fair throws
    in_declined = np.zeros(6, int)  # ... in declined fair throws
    accepted_faces = np.zeros(6, int)
    wrong = accepted = fair = 0
    reasons: dict[str, int] = {}
    by_reason: dict[str, np.ndarray] = {}  # dice showing each face in the fair throws declined for each reason
    injected: Counter[str] = Counter()  # throws with an injected fault: how each was read
    done = 0
    start = time.perf_counter()
    with Progress(TextColumn("throws"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()) as progress:
        task = progress.add_task("throws", total=throws)
        try:
            for _ in range(throws):
                throw = table.next_throw()
                done += 1
                progress.advance(task)
                if camera.injected_faults:
                    injected["accepted" if throw.accepted else str(throw.decline)] += 1
                    continue
                fair += 1
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
        except KeyboardInterrupt:
            Console().print(f"interrupted after {done} of {throws} throws: the figures of those thrown follow")
    elapsed = time.perf_counter() - start
    table_out = Table(title=f"{fair} fair throws of 3 {style} dice through the camera pipeline")
    for column in ("face", "dice shown", "in declined throws", "decline share", "accepted reads"):
        table_out.add_column(column, justify="right")
    for face in range(6):
        table_out.add_row(str(face + 1), str(shown[face]), str(in_declined[face]),
                          f"{in_declined[face] / max(shown[face], 1):.3f}", str(accepted_faces[face]))
    console = Console()
    console.print(table_out)
    chi2 = stats.chisquare(accepted_faces)
    declined_dice = int(in_declined.sum())
    independence = (stats.chi2_contingency(np.vstack([shown - in_declined, in_declined]))
                    if 0 < declined_dice < int(shown.sum()) else None)
    declined = fair - accepted
    upper = clopper_pearson_upper(declined, fair)
    console.print(f"fair throws declined: {declined} of {fair} ({declined / max(fair, 1):.1%}, 95 % upper bound "
                  f"{upper:.1%}; target <= {FAIR_DECLINE_TARGET:.0%}); reasons {reasons}")
    if injected:
        console.print(f"throws with a die the simulation cocks or stacks on purpose: {sum(injected.values())}, "
                      f"read as {dict(injected)}")
    console.print(f"wrong reads: {wrong} of {accepted} accepted fair throws")
    console.print(f"accepted faces against 1/6: chi-square {chi2.statistic:.2f}, p = {chi2.pvalue:.4g}")
    console.print("declines independent of the face (contingency): "
                  + (f"p = {independence.pvalue:.4g}" if independence is not None else "no test (no fair throw declined)"))
    console.print(reason_table(by_reason, shown))
    console.print(f"time: {elapsed / max(done, 1) * 1000:.0f} ms per throw (render, settle, 3 votes)")


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
