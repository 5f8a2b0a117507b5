"""Throughput of the simulated cussec dome: seconds per round (controller over a pty + camera read), the share of
rounds whose dice the camera declines, and the camera's wrong reads against the dice the dome threw.

Prints the figures behind the dome's cost in ``bench certify`` on the ``sim`` profile (``options.rounds``
rounds of ``suites/test_cussec_dome.py``).

    .venv/bin/python benchmarks/cussec_dome_rounds.py [--rounds 200] [--model fair] [--reader staged|FILE]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.games.cussec import winning_zones
from bench.profiles.cussec_dome import CussecDomeEquipment
from bench.rig_cameras import open_dome_camera
from drivers.cussec_dome import SerialCussecDome
from drivers.serial_link import LinkSettings, SerialLink, WireLog
from drivers.sim.cussec_dome import dome_dice
from drivers.sim.host import start_simulator


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--model", default="fair")
    parser.add_argument("--seed", type=int, default=20070226)
    parser.add_argument("--reader", default=None,
                        help="the camera's dice reader: 'staged' or a reader configuration (JSON); default: the "
                             "profile's default")
    args = parser.parse_args()
    reader = {} if args.reader is None else {"dice_reader": args.reader}
    equipment = CussecDomeEquipment(
        kind="dice-shaker", identity={"manufacturer": "Bench", "model": "CD-3", "serial": "B-1"},
        simulator={"model": args.model, "seed": args.seed},
        camera={"source": "sim", "simulation": {"cocked_rate": 0.01, "stacked_rate": 0.01}} | reader)
    assert equipment.simulator is not None
    directory = Path(tempfile.mkdtemp(prefix="dome-bench-"))
    state = directory / "dome.sim-state.json"
    config = {"simulator": equipment.simulator.model_dump(), "identity": {"manufacturer": "Bench"}}
    with start_simulator("dice-shaker", config, state) as simulator:
        link = SerialLink(LinkSettings(port=simulator.tty_path), WireLog(directory / "wire.jsonl"))
        link.open()
        dome, camera = SerialCussecDome(link), open_dome_camera(equipment, state)
        declined: Counter[str] = Counter()
        wrong_reads = disagreeing = 0
        started = time.perf_counter()
        serial_s = 0.0
        for _ in range(args.rounds):
            before = time.perf_counter()
            played = dome.next_round()
            serial_s += time.perf_counter() - before
            throw = camera.next_throw()
            if not throw.accepted:
                declined[str(throw.decline)] += 1
                continue
            wrong_reads += sorted(throw.faces) != sorted(dome_dice(args.seed, played.round))
            disagreeing += set(winning_zones(throw.faces)) != set(played.zones)
        elapsed = time.perf_counter() - started
        link.close()
    accepted = args.rounds - sum(declined.values())
    print(f"model {args.model}: {args.rounds} rounds in {elapsed:.1f} s ({elapsed / args.rounds * 1000:.0f} ms a round, "
          f"of which {serial_s / args.rounds * 1000:.1f} ms on the serial line)")
    print(f"camera ({equipment.camera.dice_reader} reader): {accepted} read, {sum(declined.values())} declined "
          f"{dict(declined)}, {wrong_reads} wrong reads")
    print(f"rounds whose lit zones differ from the camera's dice: {disagreeing}")


if __name__ == "__main__":
    main()
