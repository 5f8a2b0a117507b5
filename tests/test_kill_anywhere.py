"""Kill anywhere: SIGKILL at random instants of a short ``bench certify``, ``bench report`` and ``bench sign``.

After every kill the run directory is either as before or complete, never half-written and signed:

* when ``bench verify`` finds it INTACT, every file the signature covers is whole (the certificates end their
  HTML, no temporary is left) and the certificate states the verdict of the journal it was signed with;
* otherwise the run is unsigned (its signature removed before any write, or never written) or, for a
  certification, not yet signed; and the command run again (``--resume``, ``report``, ``sign``) completes it
  into a run that verifies INTACT.

The instants are drawn from a fixed seed, so a failure is reproducible.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from bench.journal import Journal
from bench.rundir import stale_temporaries
from reports.manifest import MANIFEST_FILE, SIGNATURE_FILE
from reports.signing import init_key
from reports.verify import verify_run

BENCH = str(Path(sys.executable).with_name("bench"))
SEED = 20261127
TRIALS = {"certify": 8, "report": 10, "sign": 12}
PROFILE = (
    'name = "kill-anywhere"\n[equipment.wheel]\nkind = "roulette-wheel"\n'
    'identity = { manufacturer = "Bench Simulators", model = "RW-37", serial = "T-1" }\n'
    'options = { spins = 400 }\n'
    'simulator = { model = "fair", seed = 7, spin_time_s = 0.002 }\n'
)


def _run(arguments: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BENCH, *arguments], capture_output=True, text=True, timeout=600, check=False, env=env)


def _killed_at(arguments: list[str], env: dict[str, str], after_s: float) -> bool:
    """Run ``bench ARGUMENTS`` and SIGKILL it ``after_s`` seconds in; True when it was killed (not finished)."""
    process = subprocess.Popen([BENCH, *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        process.wait(timeout=after_s)
        return False
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        return True


def _timed(arguments: list[str], env: dict[str, str]) -> float:
    started = time.monotonic()
    result = _run(arguments, env)
    assert result.returncode == 0, result.stdout + result.stderr
    return time.monotonic() - started


def _state(run: Path, key) -> str:
    """``intact``, ``unsigned`` (no signature: never or no longer signed), ``no-run`` or ``no-identity``; fails
    the test on anything else (a signed run that is not intact, a half-written file under a signature)."""
    if not (run / Journal.FILENAME).is_file():
        return "no-run"
    verification = verify_run(run, key.public)
    if verification.intact:
        assert not stale_temporaries(run)
        for name in ("report.html", "report.en.html"):
            assert (run / name).read_text(encoding="utf-8").rstrip().endswith("</html>"), f"{name} is cut short"
        return "intact"
    assert not (run / SIGNATURE_FILE).exists(), f"a signed run that is not intact: {verification.problems}"
    with Journal(run / Journal.FILENAME, create=False) as journal:
        return "unsigned" if journal.rows("runs") else "no-identity"


@pytest.mark.slow(seconds=140)
def test_sigkill_at_random_instants_never_leaves_a_half_written_signed_run(tmp_path: Path) -> None:
    key = init_key(tmp_path / "keys")
    env = {**os.environ, "BENCH_KEY_DIR": str(key.directory)}
    env.pop("BENCH_KEY_PASSPHRASE", None)
    profile = tmp_path / "profile.toml"
    profile.write_text(PROFILE, encoding="utf-8")
    certify = ["certify", "--no-progress", "--no-pdf", "--profile", str(profile)]
    baseline = tmp_path / "baseline"
    certify_s = _timed([*certify, "--out", str(baseline)], env)
    assert _state(baseline, key) == "intact"
    report_s = _timed(["report", str(baseline)], env)
    sign_s = _timed(["sign", str(baseline)], env)
    start_s = _timed(["keys", "show"], env)  # the start of a bench process: a kill before it writes nothing

    rng = random.Random(SEED)
    outcomes: Counter[tuple[str, str]] = Counter()
    for trial in range(TRIALS["certify"]):
        run = tmp_path / f"certify-{trial}"
        killed = _killed_at([*certify, "--out", str(run)], env, rng.uniform(0.5 * certify_s, 1.02 * certify_s))
        state = _state(run, key)
        outcomes["certify", state if killed else "finished"] += 1
        if state == "unsigned":
            resumed = _run(["certify", "--no-progress", "--no-pdf", "--resume", str(run)], env)
            assert resumed.returncode == 0, resumed.stdout + resumed.stderr
            assert _state(run, key) == "intact"
        elif state == "no-identity":
            refused = _run(["certify", "--no-progress", "--resume", str(run)], env)
            assert refused.returncode == 2 and "no run identity" in refused.stdout.replace("\n", " ")
    for command, seconds in (("report", report_s), ("sign", sign_s)):
        for trial in range(TRIALS[command]):
            run = tmp_path / f"{command}-{trial}"
            shutil.copytree(baseline, run)
            before = (run / MANIFEST_FILE).read_bytes()
            killed = _killed_at([command, str(run)], env, rng.uniform(0.8 * start_s, 1.05 * seconds))
            state = _state(run, key)
            assert state in ("intact", "unsigned"), state
            if state == "intact" and killed:
                state = "as before" if (run / MANIFEST_FILE).read_bytes() == before else "complete"
            outcomes[command, state if killed else "finished"] += 1
            if state == "unsigned":  # the report again (a report into an unsigned run does not sign it), and sign
                for step in (["report", "sign"] if command == "report" else ["sign"]):
                    again = _run([step, str(run)], env)
                    assert again.returncode == 0, again.stdout + again.stderr
                assert _state(run, key) == "intact"
    print(f"kill-anywhere: seed {SEED}, certify {certify_s:.1f} s, report {report_s:.1f} s, sign {sign_s:.1f} s, "
          f"start {start_s:.1f} s; outcomes:", dict(sorted(outcomes.items())))
    assert sum(outcomes.values()) == sum(TRIALS.values())
