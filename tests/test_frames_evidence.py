"""Camera frames kept as evidence (fixtures/frames.py): the frames of a read, and those a dice camera set aside."""

from __future__ import annotations

from typing import Any

import numpy as np

from fixtures.frames import keep_frames, keep_set_aside
from vision.frame import Frame


class _Bench:
    """Records what would be stored in the journal's attachments."""

    def __init__(self) -> None:
        self.stored: list[tuple[str, str]] = []

    def store_attachment(self, nodeid: str, name: str, data: bytes, media_type: str, suffix: str) -> Any:
        self.stored.append((nodeid, name))


def _frames(*indices: int) -> tuple[Frame, ...]:
    return tuple(Frame(np.full((32, 32, 3), index, np.uint8), float(index), index, "test") for index in indices)


def test_frames_set_aside_are_kept_as_disputed_evidence_whatever_the_policy() -> None:
    bench = _Bench()
    frames = _frames(7, 9)
    kept = keep_set_aside(bench, "node", frames, "throw 3", policy="disputed")  # type: ignore[arg-type]
    assert kept == {"replaced_frames": [frame.sha256 for frame in frames]}
    assert bench.stored == [("node", "throw 3 set aside frame 7"), ("node", "throw 3 set aside frame 9")]


def test_no_frame_set_aside_adds_nothing_to_the_record() -> None:
    bench = _Bench()
    assert keep_set_aside(bench, "node", (), "throw 3", policy="all") == {}  # type: ignore[arg-type]
    assert bench.stored == []
    assert keep_frames(bench, "node", _frames(1, 2), "throw 4", disputed=False, policy="disputed") == []  # type: ignore[arg-type]
