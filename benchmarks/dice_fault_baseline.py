"""What the staged dice reader's fault naming is held to: the pip-counting reader's rates on the very same frames.

The reader must name each injected fault (cocked, stacked, outside the arena, motion, glare, wrong count) at least as
often as the pip-counting reader it replaced did (p217-2007/banca-francesa/7 b, p217-2007/cussec/6: a frame with
such a fault gives no result, and its journal says why). The rates below are that reader's, measured with
``benchmarks/dice_reader_accuracy.py --frames 1 --faults 200 --seed S --repeats 1`` at commit 1f0efc5 (the last
before the per-die classifier), on 200 frames a fault of each seed. A rate only compares with frames that are the
same: each run's SHA-256 over its 200 frames' pixels (first 16 hex digits) is kept beside it, and a run whose frames
differ (another count, or a renderer that draws them otherwise) is reported as not compared rather than held to a
figure measured on other frames.

Faults injected together (``COMBINED_FAULTS``) were not part of that benchmark: they have no baseline.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

BASELINE_FRAMES = 200
"""Frames a fault the baseline was measured on."""


@dataclass(frozen=True)
class BaselineRun:
    """The pip-counting reader on one seed's frames of one fault: the share named rightly, and the frames' digest."""

    right: float
    frames_sha256_16: str


PIP_COUNTING_FAULT_NAMING: dict[int, dict[str, BaselineRun]] = {
    20240611: {
        "cocked": BaselineRun(0.655, "c982963f80e7f77b"), "stacked": BaselineRun(0.700, "cbbaa9234b08c135"),
        "outside-arena": BaselineRun(0.930, "d6c27219e43502e6"), "motion": BaselineRun(0.770, "a9623a7533e3214e"),
        "glare": BaselineRun(0.960, "2a00ff24b1420a28"), "wrong-count": BaselineRun(0.950, "1020e21abf804e3f"),
    },
    777: {
        "cocked": BaselineRun(0.620, "839f18f5f0ce3703"), "stacked": BaselineRun(0.725, "ef3f68b0bb8b97d3"),
        "outside-arena": BaselineRun(0.955, "be65d9bf4598bb5a"), "motion": BaselineRun(0.750, "4fd79ab0a60ca97b"),
        "glare": BaselineRun(0.985, "3e0b37fe0cacaa9f"), "wrong-count": BaselineRun(0.975, "c774c834e76984cf"),
    },
    4242: {
        "cocked": BaselineRun(0.615, "75ab83e45b3e30d5"), "stacked": BaselineRun(0.755, "1ace52c2e291b526"),
        "outside-arena": BaselineRun(0.940, "b38760e9ff0d6b33"), "motion": BaselineRun(0.750, "80864fa20bc3d26a"),
        "glare": BaselineRun(0.985, "6e0aa9b24c4f45f9"), "wrong-count": BaselineRun(0.930, "ff9ecf85bbefa077"),
    },
}
"""Seed -> fault -> the pip-counting reader's share of the 200 frames declined for the right reason."""


class FramesDigest:
    """The SHA-256 over a run's frames' pixels, in order, fed one frame at a time; :attr:`short` is its first 16 hex
    digits, as :class:`BaselineRun` keeps it."""

    def __init__(self) -> None:
        self._sha256 = hashlib.sha256()

    def add(self, image: np.ndarray) -> None:
        self._sha256.update(np.ascontiguousarray(image).tobytes())

    @property
    def short(self) -> str:
        return self._sha256.hexdigest()[:16]


def against_baseline(seed: int, faults: tuple[str, ...], right: float, frames: int, digest: str) -> str:
    """How a run's share named rightly compares with the pip-counting reader's on the same frames: "at or above" or
    "BELOW" with its rate, or why it is not compared."""
    if len(faults) != 1:
        return "no baseline (faults together)"
    run = PIP_COUNTING_FAULT_NAMING.get(seed, {}).get(faults[0])
    if run is None:
        return f"no baseline for seed {seed}"
    if frames != BASELINE_FRAMES or digest != run.frames_sha256_16:
        return (f"not compared: the baseline {run.right:.1%} was measured on {BASELINE_FRAMES} other frames "
                f"(digest {run.frames_sha256_16}, these {digest})")
    verdict = "at or above" if round(right, 6) >= run.right else "BELOW"
    return f"{verdict} the pip-counting reader's {run.right:.1%} on the same frames"
