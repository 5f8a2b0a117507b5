"""Benchmark dice frames rebuilt from a stored generator state are the frames the benchmark renders in sequence."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

from vision.render import dice_frame_states
from vision.render.dice import FAULTS
from vision.render.dice_frames import (
    BENCHMARK_RUNS,
    COMBINED_FAULTS,
    clean_frame,
    fault_frame,
    fault_seed,
    frames,
)


def _same(rebuilt: tuple[np.ndarray, object], rendered: tuple[str, np.ndarray, object]) -> bool:
    image, truth = rebuilt
    _, expected_image, expected_truth = rendered
    return np.array_equal(image, expected_image) and repr(dataclasses.asdict(truth)) == repr(
        dataclasses.asdict(expected_truth))


def _rebuilt_refusing_states(seed: int, index: int, reason: str) -> tuple[np.ndarray, object]:
    """Clean frame ``index`` rebuilt while the stored states are judged unusable for ``reason`` (the check made
    afresh, not the one this process cached)."""
    dice_frame_states._usable.cache_clear()
    try:
        with pytest.warns(dice_frame_states.StaleFrameStates, match=reason):
            return clean_frame(seed, index)
    finally:
        dice_frame_states._usable.cache_clear()


def test_the_stored_states_describe_this_renderer() -> None:
    """Fails after a change to the renderer's source until ``python -m vision.render.dice_frames`` rewrites them
    (frames are still right without them, only slow to rebuild)."""
    stored = dice_frame_states._stored()
    assert stored["renderer_sha256"] == dice_frame_states.renderer_digest(), \
        "the renderer changed: run `python -m vision.render.dice_frames` to rewrite the stored states"
    assert {dice_frame_states.run_key(seed, faults) for seed, faults, _ in BENCHMARK_RUNS} == set(stored["runs"])
    for seed, faults, count in BENCHMARK_RUNS:
        assert len(stored["runs"][dice_frame_states.run_key(seed, faults)]) == -(-count // dice_frame_states.STRIDE)


@pytest.mark.parametrize(("seed", "index"), [(777, 0), (777, 9), (777, 10), (20240611, 37)])
def test_a_clean_frame_rebuilt_from_its_stored_state_is_the_benchmark_s_frame(seed: int, index: int) -> None:
    *_, rendered = frames(seed, index + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dice_frame_states.StaleFrameStates)  # the stored states must be used
        rebuilt = clean_frame(seed, index)
    assert _same(rebuilt, rendered)


def test_a_fault_frame_rebuilt_from_its_stored_state_is_the_benchmark_s_frame() -> None:
    *_, rendered = frames(fault_seed("cocked"), 24, ("cocked",))
    assert _same(fault_frame("cocked", 23), rendered)


def test_faults_injected_together_have_a_run_of_their_own_after_the_single_faults() -> None:
    assert [fault_seed(fault, 777) for fault in FAULTS] == [777 + 1000 * k for k in range(1, len(FAULTS) + 1)]
    assert fault_seed(("wrong-count", "glare"), 777) == 777 + 1000 * (len(FAULTS) + 1)
    assert fault_seed(("cocked",), 777) == fault_seed("cocked", 777)
    with pytest.raises(ValueError):
        fault_seed(("cocked", "motion"), 777)  # not a combination the benchmark runs


def test_a_frame_of_faults_injected_together_is_the_benchmark_s_frame() -> None:
    combined = COMBINED_FAULTS[0]
    *_, rendered = frames(fault_seed(combined, 777), 13, combined)
    assert _same(fault_frame(combined, 12, seed=777), rendered)


def test_states_written_for_another_renderer_are_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dice_frame_states, "renderer_digest", lambda: "0" * 64)
    rebuilt = _rebuilt_refusing_states(777, 12, "another renderer")
    *_, rendered = frames(777, 13)
    assert _same(rebuilt, rendered)


def test_a_stored_state_that_the_renderer_does_not_reach_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    stored = dice_frame_states._stored()
    altered = {**stored, "runs": {**stored["runs"], "777": [stored["runs"]["777"][0],
                                                           dice_frame_states._as_json(
                                                               np.random.default_rng(1).bit_generator.state),
                                                           *stored["runs"]["777"][2:]]}}
    monkeypatch.setattr(dice_frame_states, "_stored", lambda: altered)
    rebuilt = _rebuilt_refusing_states(777, 21, "draws differently")
    *_, rendered = frames(777, 22)
    assert _same(rebuilt, rendered)
