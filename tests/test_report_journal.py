"""A small synthetic run directory for the report's tests: a journal written as the plugin writes one.

A French wheel whose pocket-fairness measurement passes or fails (``biased``), a failing
launch clause, a dice stream with declined throws and their frames, an attestation of a
procedure clause, a wire log with line faults, and a measurement with an RTP interval and
a sequential path (the typed series of :mod:`bench.evidence`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from bench.evidence import Measurement, PocketCounts, RtpInterval, SequentialPath
from bench.games.roulette_layout import FRENCH_ORDER
from bench.journal import Journal, utc_now
from fixtures.evidence_store import store

PROFILE = """
name = "report-test"
[laboratory]
name = "Laboratório de Ensaio"
operator = "profile operator"

[equipment.wheel]
kind = "roulette-wheel"
identity = { manufacturer = "Acme", model = "W-37", serial = "W-0001" }
simulator = { model = "fair" }

[equipment.dice]
kind = "dice"
identity = { manufacturer = "Acme", model = "Arena", serial = "D-0001" }
simulator = { model = "fair" }
camera = { source = "sim" }

[instruments.psu]
kind = "power-supply"
identity = { manufacturer = "Acme", model = "PS-1", serial = "PS-0001" }
voltage = 12.0
powers = ["wheel"]
simulator = {}
"""

FAIRNESS = "p217-2007/roleta-francesa/5"
LAUNCH = "p217-2007/roleta-francesa/13"
PROCEDURE_ATTESTED = "p217-2007/roleta-francesa/14"
PROCEDURE_UNATTESTED = "p217-2007/banca-francesa/2"
OUT_OF_SCOPE = "p217-2007/banca-francesa/6"
DICE = "p217-2007/banca-francesa/3"
NODE = "suites/test_roulette.py::test_pocket_fairness"
LAUNCH_NODE = "suites/test_roulette.py::test_launch_alternation_and_counter_rotation"
DICE_NODE = "suites/test_dice.py::test_dice_are_balanced"



def _frame() -> bytes:
    """A small real JPEG (a declined throw's frame)."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (20, 90, 40)).save(buffer, "JPEG")
    return buffer.getvalue()


def _measurement(journal: Journal, run_id: str, nodeid: str, name: str, value: object, *, passed: bool,
                 clauses: list[str], **extra: object) -> None:
    journal.record(Measurement(run_id=run_id, at=utc_now(), nodeid=nodeid, attempt=1, name=name, value=value,
                               passed=passed, clauses=clauses, **extra))


def _final(journal: Journal, run_id: str, nodeid: str, clauses: list[str], outcome: str) -> None:
    journal.append("tests", run_id=run_id, at=utc_now(), nodeid=nodeid, attempt=1, phase="final", outcome=outcome,
                   duration_s=0.1, clauses=clauses, message="")


def build_run(run_dir: Path, *, biased: bool = False, seed: int = 5) -> Path:
    """Write the synthetic run into ``run_dir``; returns it."""
    rng = np.random.default_rng(seed)
    p = np.ones(37)
    if biased:
        p[:9] *= 1.6
    counts = rng.multinomial(3700, p / p.sum())
    run_id = "report-test-1"
    with Journal(run_dir / Journal.FILENAME) as journal:
        journal.append("runs", run_id=run_id, created_at="2026-01-02T10:00:00.000000+00:00",
                       profile_name="report-test", profile_source="/profiles/report-test.toml", profile_text=PROFILE,
                       software_version="0.1.0", host="lab-pc", command="bench certify --profile report-test")
        journal.append("events", run_id=run_id, at=utc_now(), kind="started", detail={"operator": "labuser"})
        journal.append("events", run_id=run_id, at=utc_now(), kind="operator", detail={"operator": "Ana Silva"})
        journal.append("equipment", run_id=run_id, at=utc_now(), name="wheel", kind="roulette-wheel",
                       configured={"identity": {"manufacturer": "Acme", "model": "W-37", "serial": "W-0001"}},
                       reported={"manufacturer": "Acme", "model": "W-37", "serial": "W-0001", "firmware": "fw-2.3"})
        for index in range(30):
            faces = [int(face) for face in rng.integers(1, 7, size=2)]
            journal.append("observations", run_id=run_id, at=utc_now(), stream="dice/throws", idx=index,
                           nodeid="suites/test_dice.py::throws", source="dice", value={"throw": index, "faces": faces},
                           raw_ref=None)
        digest, relative, size = store(run_dir, _frame(), ".jpg")
        journal.append("attachments", run_id=run_id, at=utc_now(), nodeid="suites/test_dice.py::throws", attempt=1,
                       name="declined throw 7 frame 1", sha256=digest, media_type="image/jpeg", size=size,
                       path=str(relative))
        journal.append("observations", run_id=run_id, at=utc_now(), stream="dice/declined-throws", idx=0,
                       nodeid="suites/test_dice.py::throws", source="dice",
                       value={"throw": 7, "reason": "cocked", "detail": "die 2 leaning", "frames": [digest]},
                       raw_ref=None)
        wire = [{"t": 1.0, "dir": "event", "text": "", "note": "opened /dev/pts/3"}]
        wire += [{"t": 1.0 + i, "dir": "tx" if i % 2 == 0 else "rx", "text": f"RES {i}"} for i in range(1, 20)]
        wire.insert(12, {"t": 12.5, "dir": "rx-partial", "text": "RES 1", "note": "no terminator before timeout"})
        wire.insert(13, {"t": 12.6, "dir": "event", "text": "", "note": "reconnecting"})
        log = "".join(json.dumps(entry) + "\n" for entry in wire).encode()
        digest, relative, size = store(run_dir, log, ".jsonl")
        journal.append("attachments", run_id=run_id, at=utc_now(), nodeid="(session)", attempt=1,
                       name="wheel wire log", sha256=digest, media_type="application/jsonl", size=size,
                       path=str(relative))

        _final(journal, run_id, NODE, [FAIRNESS], "failed" if biased else "passed")
        _measurement(journal, run_id, NODE, "pocket frequencies chi-square", 31.5, passed=not biased,
                     clauses=[FAIRNESS], p_value=0.0001 if biased else 0.5, alpha=0.01, sample_size=3700,
                     power=0.93, method="Pearson chi-square; H0: every pocket 1/37",
                     details={"power_alternative": "9 adjacent pockets x1.3"},
                     series=[PocketCounts(counts=list(zip(FRENCH_ORDER, counts.tolist()))),
                             SequentialPath(n=[100, 200, 300], log_lr=[0.1, 0.8, 1.5], upper=4.6, lower=-2.3)])
        _final(journal, run_id, LAUNCH_NODE, [LAUNCH], "failed")
        _measurement(journal, run_id, LAUNCH_NODE, "games with ball and rotor turning the same way", 3, passed=False,
                     clauses=[LAUNCH], unit="games", high=0, sample_size=3700)
        _final(journal, run_id, DICE_NODE, [DICE], "passed")
        _measurement(journal, run_id, DICE_NODE, "dice: faces pooled", 4.2, passed=True, clauses=[DICE],
                     p_value=0.6, alpha=0.01, sample_size=30,
                     series=[RtpInterval(rtp=0.83, low=0.81, high=0.85, floor=0.8)])
        journal.append("attestations", run_id=run_id, at=utc_now(), clause_id=PROCEDURE_ATTESTED,
                       attested_by="Rui Costa", attested_at="2026-01-02T11:00:00+00:00",
                       statement="Mesa inspeccionada; procedimento de golpe nulo verificado.")
        journal.append("events", run_id=run_id, at="2026-01-02T12:00:00.000000+00:00", kind="session-end", detail={})
    return run_dir
