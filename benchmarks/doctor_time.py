"""How long ``bench doctor`` takes to say the rig is not ready: the built-in ``sim`` profile with its jackpot
display on a serial port that is not there (``/dev/ttyUSB9``). The target: exit 2 in under 20 s.

Usage::

    python benchmarks/doctor_time.py            # 3 runs, each timed
    python benchmarks/doctor_time.py --runs 5
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MISSING_PORT = "/dev/ttyUSB9"
TARGET_S = 20.0


def missing_port_profile_text() -> str:
    """The built-in ``sim`` profile with its jackpot display on :data:`MISSING_PORT` (no simulator, unpowered)."""
    text = (ROOT / "bench" / "profiles" / "builtin" / "sim.toml").read_text(encoding="utf-8")
    simulated = ('connection = { port = "sim", timeout_s = 0.5, retries = 1 }\n'
                 'options = { game = "poquer-sem-descarte"')
    jackpot_simulator = 'bets = 200 }\nsimulator = { model = "fair", seed = 20070226 }\n'
    if simulated not in text or jackpot_simulator not in text:
        raise ValueError("sim.toml no longer has the jackpot entry this benchmark edits")
    text = text.replace(simulated, simulated.replace('"sim"', f'"{MISSING_PORT}"'))
    text = text.replace(jackpot_simulator, "bets = 200 }\n")
    text = text.replace('powers = ["slot", "jackpot", "shuffler"]', 'powers = ["slot", "shuffler"]')
    return text.replace('name = "sim"', 'name = "missing-port"')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    if Path(MISSING_PORT).exists():
        print(f"{MISSING_PORT} exists on this machine: nothing to measure")
        return 2
    bench = str(Path(sys.executable).with_name("bench"))
    with tempfile.TemporaryDirectory(prefix="doctor-time-") as scratch:
        profile = Path(scratch) / "missing-port.toml"
        profile.write_text(missing_port_profile_text(), encoding="utf-8")
        times = []
        for run in range(1, args.runs + 1):
            started = time.monotonic()
            done = subprocess.run([bench, "doctor", "--profile", str(profile), "--key-dir", str(Path(scratch) / "k")],
                                  capture_output=True, text=True, check=False)
            times.append(time.monotonic() - started)
            print(f"run {run}: exit {done.returncode} in {times[-1]:.1f} s")
    print(f"bench doctor, missing port: {min(times):.1f}-{max(times):.1f} s over {len(times)} runs "
          f"(target: exit 2 in under {TARGET_S:g} s)")
    return 0 if max(times) < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
