"""The dice reader's benchmark frames and the reader as the bench configures it for a rendered table.

:func:`frame` renders the frames of ``benchmarks/dice_reader_accuracy.py`` (styles in turn, 1-5 dice,
realistic nuisance) and :func:`frames` draws a run of them from a seed; :func:`clean_frame` and
:func:`fault_frame` rebuild one of them by its seed and index, so that a frame the benchmark reports can
be pinned in a test, starting from the generator state stored nearest before it
(:mod:`vision.render.dice_frame_states`) rather than rendering every frame before it. :func:`told_edge_px` and
:func:`side_share` are what the bench tells the reader of the frame's table and camera.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import numpy as np

from vision.render import dice_frame_states
from vision.render.dice import FAULTS, DiceTruth, DieStyle, random_dice_scene, render_dice
from vision.render.nuisance import Nuisance

STYLES = {"casino-red": DieStyle.casino_red(), "opaque-white": DieStyle.opaque_white(),
          "real-photo": DieStyle.real_photo()}
"""The benchmark's die styles, in the order frames take them: casino translucent red 19 mm, opaque white
14 mm, the webcam photos' ivory die."""

FAULT_SEED = 20240611
"""The base seed of the benchmark's injected-fault frames (each fault's own seed: :func:`fault_seed`)."""

CLEAN_SEEDS = (20240611, 777)
"""The seeds of the benchmark's part 1 runs (clean frames)."""
CLEAN_FRAMES = 2000
FAULT_FRAMES = 200


def told_edge_px(truth: DiceTruth) -> tuple[float, float]:
    """The smallest and largest edge of a die in the frame, px, as the bench tells the reader: the calibrated
    scale's edge, +-20 %."""
    edge = truth.edge_mm * truth.px_per_mm
    return 0.8 * edge, 1.2 * edge


def side_share(truth: DiceTruth) -> float:
    """The widest side face a flat die shows the frame's camera, as a share of its edge: 0.12 for the camera
    looking straight down, 0.45 for the low camera in front of the table."""
    return 0.12 if truth.overhead_camera_mm is not None else 0.45


def frame(rng: np.random.Generator, index: int, faults: tuple[str, ...] = ()) -> tuple[str, np.ndarray, DiceTruth]:
    """The benchmark's frame ``index`` drawn from ``rng``: style name, image, truth."""
    name = list(STYLES)[index % len(STYLES)]
    low = 2 if "stacked" in faults else 1
    scene = random_dice_scene(rng, int(rng.integers(low, 6)), STYLES[name], faults=faults)
    image, truth = render_dice(scene, Nuisance.realistic(rng), rng)
    return name, image, truth


def frames(seed: int, count: int, faults: tuple[str, ...] = ()) -> Iterator[tuple[str, np.ndarray, DiceTruth]]:
    """The first ``count`` frames drawn from a generator seeded with ``seed``, each with ``faults`` injected."""
    rng = np.random.default_rng(seed)
    for index in range(count):
        yield frame(rng, index, faults)


COMBINED_FAULTS: tuple[tuple[str, ...], ...] = (("wrong-count", "glare"),)
"""Faults the benchmark's part 2 also injects together, each tuple in frames of its own: a die too many on the
table and a glare spot over one die's pips (taking the glared die for a spot on the cloth would meet the game's
count with a die missing)."""


def _as_faults(fault: str | tuple[str, ...]) -> tuple[str, ...]:
    """One fault's name, or a tuple of them, as the tuple a run is keyed by."""
    return (fault,) if isinstance(fault, str) else tuple(fault)


def fault_seed(fault: str | tuple[str, ...], seed: int = FAULT_SEED) -> int:
    """The seed of the benchmark's part 2 frames for ``fault`` (one fault, or a tuple of
    :data:`COMBINED_FAULTS`) run with base seed ``seed``: each run 1,000 above the one before it."""
    faults = _as_faults(fault)
    if len(faults) == 1:
        return seed + 1000 * (FAULTS.index(faults[0]) + 1)
    return seed + 1000 * (len(FAULTS) + 1 + COMBINED_FAULTS.index(faults))


BENCHMARK_RUNS: tuple[tuple[int, tuple[str, ...], int], ...] = (
    *((seed, (), CLEAN_FRAMES) for seed in CLEAN_SEEDS),
    *((fault_seed(fault), (fault,), FAULT_FRAMES) for fault in FAULTS),
    *((fault_seed(faults), faults, FAULT_FRAMES) for faults in COMBINED_FAULTS),
)
"""The benchmark's runs by default, ``(seed, faults, frames)``: those whose starting states are stored."""


@functools.cache
def renderer(faults: tuple[str, ...] = ()) -> dice_frame_states.FrameRenderer:
    """Renders frame ``index`` of a run with ``faults`` from a generator, advancing it as :func:`frames` does
    (one function per fault set, so that the stored states are checked against it once per run)."""
    def render(rng: np.random.Generator, index: int) -> tuple[str, np.ndarray, DiceTruth]:
        return frame(rng, index, faults)

    return render


def _nth_frame(seed: int, index: int, faults: tuple[str, ...]) -> tuple[np.ndarray, DiceTruth]:
    """Frame ``index`` of the run drawn from ``seed``: the same image and truth as the ``index``-th of :func:`frames`."""
    rng = dice_frame_states.start_of(seed, faults, index, renderer(faults))
    _, image, truth = frame(rng, index, faults)
    return image, truth


def clean_frame(seed: int, index: int) -> tuple[np.ndarray, DiceTruth]:
    """Frame ``index`` of the benchmark's part 1 run with base seed ``seed``."""
    return _nth_frame(seed, index, ())


def fault_frame(fault: str | tuple[str, ...], index: int, seed: int = FAULT_SEED) -> tuple[np.ndarray, DiceTruth]:
    """Frame ``index`` of the benchmark's part 2 for ``fault`` (one fault, or a tuple of :data:`COMBINED_FAULTS`)
    run with base seed ``seed``."""
    faults = _as_faults(fault)
    return _nth_frame(fault_seed(faults, seed), index, faults)


def write_frame_states() -> None:
    """Record where every tenth frame of the benchmark's runs starts (:mod:`vision.render.dice_frame_states`)."""
    data = dice_frame_states.record(BENCHMARK_RUNS, renderer)
    dice_frame_states.write(data)
    print(f"{dice_frame_states.STATES_FILE}: {sum(len(states) for states in data['runs'].values())} states of "
          f"{len(data['runs'])} runs, renderer {data['renderer_sha256'][:12]}")


if __name__ == "__main__":
    write_frame_states()
