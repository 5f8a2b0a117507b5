"""Where each benchmark dice frame starts in its generator's stream, so one frame is rendered without the ones before.

The benchmark's frames (:func:`vision.render.dice_frames.frames`) are drawn one after another from one
generator: frame 1549 of seed 777 is whatever the generator gives after 1549 frames were rendered from it.
Rebuilding that frame (to pin it in a test) therefore meant rendering the 1549 frames before it, about
100 s. This module keeps the generator's state at every ``STRIDE``-th frame of the benchmark's runs
(part 1: seeds 20240611 and 777, 2,000 frames each; part 2: each injected fault's seed, 200 frames) in
``dice_frame_states.json.gz``, so that :func:`start_of` renders at most ``STRIDE - 1`` frames to reach any one.

The states are only used when they are known to describe this renderer: the file records a SHA-256 of
the renderer's source (``dice.py``, ``nuisance.py``, ``dice_frames.py``); when it differs, or when the
first stored state of a run does not match the state reached by rendering that run's first ``STRIDE``
frames here (another numpy whose generators draw differently), :func:`start_of` falls back to rendering
from the seed, which is slow and always right. ``python -m vision.render.dice_frames`` rewrites the file
after a change to the renderer (about 6 minutes on one core).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import warnings
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

STRIDE = 10
"""Frames between two stored states."""

STATES_FILE = Path(__file__).with_name("dice_frame_states.json.gz")
RENDERER_SOURCES = ("dice.py", "nuisance.py", "dice_frames.py")
"""The modules whose code decides what a frame draws from its generator."""

FrameRenderer = Callable[[np.random.Generator, int], object]
"""Renders frame ``index`` from the generator, advancing it exactly as the benchmark does."""


class StaleFrameStates(UserWarning):
    """The stored states do not describe this renderer; frames are rendered from their seed (slow, exact)."""


def renderer_digest() -> str:
    """SHA-256 over the renderer's source files, in order."""
    digest = hashlib.sha256()
    for name in RENDERER_SOURCES:
        digest.update(name.encode("utf-8") + b"\0" + Path(__file__).with_name(name).read_bytes() + b"\0")
    return digest.hexdigest()


def run_key(seed: int, faults: tuple[str, ...]) -> str:
    """The file's key of one run of frames: ``"777"`` or ``"21244611:cocked"``."""
    return ":".join([str(seed), *faults])


@cache
def _stored() -> dict[str, Any]:
    if not STATES_FILE.is_file():
        return {}
    with gzip.open(STATES_FILE, "rt", encoding="utf-8") as handle:
        return json.load(handle)


@cache
def _usable(key: str, render: FrameRenderer) -> bool:
    """Whether the stored states of run ``key`` hold for this renderer and this numpy (checked once per process)."""
    stored = _stored()
    if stored.get("renderer_sha256") != renderer_digest():
        warnings.warn(f"{STATES_FILE.name} was written for another renderer source; frames are rendered from "
                      "their seed (run `python -m vision.render.dice_frames` to rewrite it)", StaleFrameStates,
                      stacklevel=3)
        return False
    states = stored.get("runs", {}).get(key)
    if not states or len(states) < 2:
        return False
    rng = np.random.default_rng(int(key.split(":")[0]))
    for index in range(STRIDE):
        render(rng, index)
    if _as_json(rng.bit_generator.state) != states[1]:
        warnings.warn(f"{STATES_FILE.name}: run {key} draws differently with numpy {np.__version__}; frames are "
                      "rendered from their seed", StaleFrameStates, stacklevel=3)
        return False
    return True


def _as_json(state: dict[str, Any]) -> dict[str, Any]:
    """A PCG64 state with its 128-bit integers as text (JSON readers may not keep them exact)."""
    inner = state["state"]
    return {**state, "state": {"state": str(inner["state"]), "inc": str(inner["inc"])}}


def _from_json(state: dict[str, Any]) -> dict[str, Any]:
    inner = state["state"]
    return {**state, "state": {"state": int(inner["state"]), "inc": int(inner["inc"])}}


def start_of(seed: int, faults: tuple[str, ...], index: int, render: FrameRenderer) -> np.random.Generator:
    """A generator in the state in which frame ``index`` of the run ``(seed, faults)`` starts drawing.

    From the nearest stored state at or before ``index`` when the stored states are usable, else from the seed;
    either way the frames in between are rendered with ``render`` and the result is the same generator state.
    """
    rng = np.random.default_rng(seed)
    first = 0
    key = run_key(seed, faults)
    states = _stored().get("runs", {}).get(key, [])
    slot = min(index // STRIDE, len(states) - 1)
    if slot > 0 and _usable(key, render):
        rng.bit_generator.state = _from_json(states[slot])
        first = slot * STRIDE
    for skipped in range(first, index):
        render(rng, skipped)
    return rng


def record(runs: Iterable[tuple[int, tuple[str, ...], int]],
           renderer: Callable[[tuple[str, ...]], FrameRenderer]) -> dict[str, Any]:
    """The states at every ``STRIDE``-th frame of each run ``(seed, faults, count)``, rendered in full."""
    recorded: dict[str, list[dict[str, Any]]] = {}
    for seed, faults, count in runs:
        render = renderer(faults)
        rng = np.random.default_rng(seed)
        states = []
        for index in range(count):
            if index % STRIDE == 0:
                states.append(_as_json(rng.bit_generator.state))
            render(rng, index)
        recorded[run_key(seed, faults)] = states
    return {"renderer_sha256": renderer_digest(), "stride": STRIDE, "numpy": np.__version__, "runs": recorded}


def write(data: dict[str, Any]) -> None:
    """Replace the states file with ``data`` (from :func:`record`)."""
    with gzip.open(STATES_FILE, "wt", encoding="utf-8") as handle:
        json.dump(data, handle, separators=(",", ":"))
    _stored.cache_clear()
