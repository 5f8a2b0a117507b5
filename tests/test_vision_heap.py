"""The readers keep freed working memory in the process (:mod:`vision.heap`), so a frame faults in no fresh pages.

The allocator's setting is process-wide, and this test process may already have it (any reader built by another
test sets it), so each case runs in a fresh interpreter.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from benchmark_scripts import load_benchmark

ROOT = Path(__file__).resolve().parents[1]

# A frame's pattern: several blocks of a few hundred kB allocated, written and freed together. glibc's default
# trims the freed top of its heap back to the system once it exceeds twice the largest block freed so far, and
# the next cycle faults the same pages in again.
CYCLES = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    sys.path.insert(0, {root!r})
    if {keep}:
        from vision import heap
        assert {setting}

    def cycle():
        blocks = [np.ones({block_bytes}, np.uint8) for _ in range({blocks})]
        return sum(int(block[::4096].sum()) for block in blocks)

    for _ in range(3):
        cycle()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):
        cycle()
    print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
    """
)


def _faults_per_cycle(keep: bool, setting: str = "heap.keep_freed_memory()", block_bytes: int = 900_000,
                      blocks: int = 5) -> float:
    script = CYCLES.format(root=str(ROOT), keep=keep, setting=setting, block_bytes=block_bytes, blocks=blocks)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    return float(done.stdout.strip())


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_freed_frame_memory_is_kept_instead_of_faulted_in_again() -> None:
    # each cycle touches 5 x 220 pages; by default most of them are returned and faulted in again
    assert _faults_per_cycle(keep=False) >= 500
    assert _faults_per_cycle(keep=True) <= 5


def test_a_dice_reader_sets_it() -> None:
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from vision import heap
        from vision.dice_staged_reader import staged_reader
        assert heap.keep_freed_memory.cache_info().currsize == 0
        staged_reader()
        assert heap.keep_freed_memory.cache_info().currsize == 1
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)


@pytest.mark.skipif(platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_a_trainer_keeps_freed_blocks_of_tens_of_megabytes() -> None:
    """A training step's pattern: blocks of tens of MB (a batch's activations and gradients) allocated, written and
    freed. glibc maps blocks above its mmap threshold (at most 32 MiB by default) apart from its heap and unmaps them
    when freed, so each step faults them in again; the trainer's setting keeps them."""
    large = {"block_bytes": 40_000_000, "blocks": 2}  # each cycle touches 2 x 9,766 pages of 4 kB
    assert _faults_per_cycle(keep=False, **large) >= 1_000
    train = load_benchmark("train_die_reader")
    setting = (f"heap.keep_freed_blocks({train.TRAINING_MMAP_THRESHOLD_BYTES}, "
               f"{train.TRAINING_TRIM_THRESHOLD_BYTES})")  # the trainer's own
    assert _faults_per_cycle(keep=True, setting=setting, **large) <= 5
