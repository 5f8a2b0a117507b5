"""``benchmarks/dice_fault_baseline.py``: a fault run is held to the pip-counting reader's rate only on the same frames."""

from __future__ import annotations

import numpy as np
import pytest
from benchmark_scripts import load_benchmark

baseline = load_benchmark("dice_fault_baseline")

MOTION_4242 = baseline.PIP_COUNTING_FAULT_NAMING[4242]["motion"]


def test_a_run_on_the_same_frames_is_at_or_above_or_below_the_baseline() -> None:
    same = MOTION_4242.frames_sha256_16
    assert baseline.against_baseline(4242, ("motion",), 0.765, 200, same).startswith("at or above")
    assert baseline.against_baseline(4242, ("motion",), 0.750, 200, same).startswith("at or above")  # equal meets
    below = baseline.against_baseline(4242, ("motion",), 0.745, 200, same)
    assert below == "BELOW the pip-counting reader's 75.0% on the same frames"


@pytest.mark.parametrize(("frames", "digest"), [(200, "0" * 16), (100, MOTION_4242.frames_sha256_16)])
def test_a_run_on_other_frames_is_not_compared(frames: int, digest: str) -> None:
    said = baseline.against_baseline(4242, ("motion",), 0.99, frames, digest)
    assert said.startswith("not compared") and MOTION_4242.frames_sha256_16 in said


def test_faults_together_and_other_seeds_have_no_baseline() -> None:
    assert baseline.against_baseline(777, ("wrong-count", "glare"), 1.0, 200, "x") == "no baseline (faults together)"
    assert baseline.against_baseline(5, ("motion",), 1.0, 200, "x") == "no baseline for seed 5"


def test_every_seed_holds_every_single_fault() -> None:
    from vision.render.dice import FAULTS

    for seed, runs in baseline.PIP_COUNTING_FAULT_NAMING.items():
        assert set(runs) == set(FAULTS), seed
        assert all(0.0 < run.right <= 1.0 and len(run.frames_sha256_16) == 16 for run in runs.values())


def test_the_digest_follows_every_pixel_and_the_order() -> None:
    def short(*images: np.ndarray) -> str:
        digest = baseline.FramesDigest()
        for image in images:
            digest.add(image)
        return digest.short

    a, b = np.zeros((4, 4, 3), np.uint8), np.zeros((4, 4, 3), np.uint8)
    b[3, 3, 2] = 1
    assert len(short(a)) == 16
    assert short(a, b) != short(b, a) and short(a) != short(b)
    assert short(a[:, ::-1]) == short(a.copy())  # a view's pixels, not its memory layout
