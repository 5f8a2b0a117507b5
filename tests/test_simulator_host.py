"""drivers.sim.host: simulators run as their own processes and never outlive the bench."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drivers.sim.host import SimulatorError, simulator_command, start_simulator

ROOT = Path(__file__).resolve().parents[1]
CONFIG = {"simulator": {}, "identity": {"manufacturer": "Acme", "model": "RW-37", "serial": "SN-1"}}


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie awaiting its reaper counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    state = stat[stat.rindex(")") + 2]
    return state not in "ZX"


def wait_gone(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.02)
    return not alive(pid)


def children_of(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def test_start_announces_a_tty_and_close_leaves_no_process(tmp_path: Path) -> None:
    simulator = start_simulator("roulette-wheel", CONFIG, tmp_path / "state.json")
    pid = simulator.pid
    try:
        assert alive(pid)
        assert simulator.tty_path.startswith("/dev/")
        assert os.path.exists(simulator.tty_path)
    finally:
        simulator.close()
    assert simulator.process.returncode is not None
    assert not Path(f"/proc/{pid}").exists()  # stopped and reaped, not a zombie


def test_the_context_manager_stops_the_simulator(tmp_path: Path) -> None:
    with start_simulator("roulette-wheel", CONFIG) as simulator:
        pid = simulator.pid
        assert alive(pid)
    assert not Path(f"/proc/{pid}").exists()
    simulator.close()  # closing twice is harmless


def test_a_simulator_that_ignores_sigterm_is_killed(tmp_path: Path) -> None:
    simulator = start_simulator("roulette-wheel", CONFIG)
    pid = simulator.pid
    os.kill(pid, signal.SIGSTOP)  # a stopped process cannot act on SIGTERM
    try:
        started = time.monotonic()
        simulator.close(timeout_s=0.3)
        assert time.monotonic() - started < 3.0
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    assert simulator.process.returncode == -signal.SIGKILL
    assert not Path(f"/proc/{pid}").exists()


CHILD = """
import sys, time
from drivers.sim.host import start_simulator
simulator = start_simulator("roulette-wheel", {"simulator": {}, "identity": {}})
print(simulator.pid, flush=True)
time.sleep(30)
"""


def test_a_simulator_dies_when_its_parent_is_sigkilled() -> None:
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    parent = subprocess.Popen(
        [sys.executable, "-c", CHILD], cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    simulator_pid = None
    try:
        assert select.select([parent.stdout], [], [], 20.0)[0], "the child did not report its simulator's pid"
        line = parent.stdout.readline().decode().strip()
        assert line.isdigit(), f"unexpected child output {line!r}; stderr: {parent.stderr.read1().decode()}"
        simulator_pid = int(line)
        assert alive(simulator_pid)
        assert simulator_pid in children_of(parent.pid)

        parent.send_signal(signal.SIGKILL)  # no chance to clean up: only PR_SET_PDEATHSIG can stop the simulator
        parent.wait(timeout=5.0)

        assert wait_gone(simulator_pid, timeout_s=5.0), f"simulator {simulator_pid} outlived its SIGKILLed parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(timeout=5.0)
        if simulator_pid is not None and alive(simulator_pid):
            os.kill(simulator_pid, signal.SIGKILL)
        parent.stdout.close()
        parent.stderr.close()


def test_an_unknown_kind_raises_simulator_error_naming_it() -> None:
    before = children_of(os.getpid())
    with pytest.raises(
        SimulatorError, match=r"no simulator for equipment kind 'coffee-machine' \(have: roulette-wheel, rng, "
    ):
        start_simulator("coffee-machine", CONFIG)
    assert children_of(os.getpid()) <= before  # nothing was started


def test_a_simulator_that_fails_to_start_raises_with_its_stderr() -> None:
    before = children_of(os.getpid())
    with pytest.raises(SimulatorError) as caught:
        start_simulator("roulette-wheel", {"simulator": {"model": "loaded-dice"}})
    message = str(caught.value)
    assert "roulette-wheel simulator did not announce its tty" in message
    assert "model" in message and "loaded-dice" in message  # the child's validation error is passed on
    assert children_of(os.getpid()) <= before  # the failed child was reaped


def test_simulator_command_runs_the_module_with_config_and_state(tmp_path: Path) -> None:
    command = simulator_command("roulette-wheel", CONFIG, tmp_path / "state.json")
    assert command[:3] == [sys.executable, "-m", "drivers.sim.roulette_wheel"]
    assert json.loads(command[command.index("--config") + 1]) == CONFIG
    assert command[command.index("--state") + 1] == str(tmp_path / "state.json")
    assert "--state" not in simulator_command("roulette-wheel", CONFIG, None)
