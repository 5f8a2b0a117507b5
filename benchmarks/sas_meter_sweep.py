"""A full SAS meter sweep over a pseudo-terminal against the wire-time lower bound at 19,200 baud.

One sweep is what the slot suite reads per checkpoint: long polls 0F (six meters), 10-15 (one
meter each), 1A (current credits), 2F (selected meters: every meter the bench uses), 1F (machine
info) and 54 (version and serial), plus a general poll. The simulated machine
(``drivers/sim/slot_machine.py``) answers behind a pty with the escape framing of the wakeup bit.

The lower bound is the time the same messages take on a real SAS line: every byte is 11 bits
(start, 8 data, wakeup/parity, stop) at 19,200 baud, with the escape bytes of the pty framing
removed (a UART carries the wakeup bit in the parity bit instead). The benchmark prints the
sweep time, the bound and their ratio (target: at most 1.5). A pty moves bytes at memory speed,
so the simulated machine paces each reply by the wire time of the request and the reply
(``simulator.line_baud``, 19,200 by default): what the ratio adds above 1 is the host's and the
simulator's own overhead per exchange.

Run: ``.venv/bin/python benchmarks/sas_meter_sweep.py [--sweeps 50]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.profiles.slot import SlotMachineEquipment
from bench.rig import simulator_config
from drivers.sas import SasSlotMachine
from drivers.sas_transport import make_transport
from drivers.serial_link import LinkSettings, SerialLink, WireLog
from drivers.sim.host import start_simulator

BAUD = 19_200
BITS_PER_BYTE = 11
ESCAPE = 0x80


def wire_bytes(data: bytes) -> int:
    """Bytes a UART would send for what the pty framing sent (each escape pair is one byte on a real line)."""
    count, i = 0, 0
    while i < len(data):
        i += 2 if data[i] == ESCAPE and i + 1 < len(data) else 1
        count += 1
    return count


def sweep(host: SasSlotMachine) -> None:
    host.poll_exception()
    host.meters_10_15()
    for name in ("coin_in", "coin_out", "drop", "jackpot", "games_played", "current_credits"):
        host.meter(name)
    host.meters()
    host.identify()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sweeps", type=int, default=50)
    args = parser.parse_args()
    equipment = SlotMachineEquipment.model_validate({
        "kind": "slot-machine", "identity": {"manufacturer": "Bench", "model": "Slot", "serial": "B-1"},
        "simulator": {"model": "fair", "start_enabled": False}})
    with tempfile.TemporaryDirectory() as work:
        log_path = Path(work) / "wire.jsonl"
        with start_simulator("slot-machine", simulator_config(equipment), Path(work) / "state.json") as simulator:
            link = SerialLink(LinkSettings(port=simulator.tty_path, timeout_s=1.0), WireLog(log_path))
            link.open()
            host = SasSlotMachine(link, make_transport(equipment.framing, link), address=equipment.options.address)
            sweep(host)  # warm up (first replies, imports)
            log_path.write_text("")
            times = []
            for _ in range(args.sweeps):
                start = time.perf_counter()
                sweep(host)
                times.append(time.perf_counter() - start)
            link.close()
        entries = [json.loads(line) for line in log_path.read_text().splitlines()]
    sent = sum(wire_bytes(bytes.fromhex(entry["hex"])) for entry in entries if entry["dir"] in ("tx", "rx"))
    bound = sent / args.sweeps * BITS_PER_BYTE / BAUD
    median = statistics.median(times)
    print(f"sweeps: {args.sweeps}; bytes on a real line per sweep: {sent / args.sweeps:.0f}")
    print(f"wire-time lower bound at {BAUD} baud (11-bit characters): {1000 * bound:.1f} ms")
    print(f"sweep over the pty: median {1000 * median:.1f} ms, max {1000 * max(times):.1f} ms")
    print(f"ratio median / bound: {median / bound:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
