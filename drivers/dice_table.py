"""Dice table driver: every throw read by a camera over the arena (or the cussec dome).

Dice have no data line: the camera is the only witness. :class:`CameraDiceTable`
waits for the dice to move (a throw), then for them to settle, reads ``votes``
consecutive settled frames (:func:`vision.settle.read_settled`) and gives the faces
only when every vote agrees. Anything else is a declined throw with its reason: a
"golpe nulo" candidate (p217-2007/banca-francesa/7 b, p217-2007/cussec/6), never an
outcome. A settled frame the reader declines as unreadable (it read no face surely: an
abstention, not a finding about the dice) is set aside and replaced by the next settled frame,
at most ``unreadable_replacements`` times per throw; a frame declined for anything the dice
show (cocked, stacked, glare, motion, outside the arena, a wrong count) is never replaced.

The frame reader is any callable from an image to a :class:`DiceFrameRead`: the rig's is the staged
reader (:meth:`vision.dice_pipeline.StagedDiceReader.read`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from drivers.camera import Camera
from drivers.line_frame import DeviceIdentity
from vision.declines import Decline
from vision.frame import Frame
from vision.settle import SettleDetector, read_settled


class DieFace(Protocol):
    """One die as a frame reader read it."""

    @property
    def face(self) -> int | None: ...

    @property
    def confidence(self) -> float: ...


class DiceFrameRead(Protocol):
    """What a frame reader makes of one frame (:class:`vision.dice_pipeline.StagedRead`): the dice in the reader's
    spatial order, or the reason the frame is declined."""

    @property
    def accepted(self) -> bool: ...

    @property
    def faces(self) -> tuple[int, ...]: ...

    @property
    def dice(self) -> Sequence[DieFace]: ...

    @property
    def decline(self) -> Decline | None: ...

    @property
    def detail(self) -> str: ...

    def to_json(self) -> dict: ...


DiceFrameReader = Callable[[np.ndarray], DiceFrameRead]
"""Reads one BGR frame: the staged reader's ``read``, as the rig builds it (:mod:`bench.rig_dice_reader`)."""


@dataclass(frozen=True)
class DiceThrow:
    """One throw as the camera saw it.

    ``faces`` are in the reader's spatial order (left to right, then top to bottom) when
    accepted, else empty with ``decline`` and ``detail`` saying why. ``frames`` are the
    voting frames (kept as evidence) and ``reads`` the reader's result for each. ``reader`` identifies the
    reader that read it (the staged reader's model hash and threshold, its configuration file's hash), for the
    journal; ``None`` for a frame reader that names none (a test's).
    """

    index: int
    faces: tuple[int, ...]
    decline: Decline | None
    detail: str
    confidence: float
    frames: tuple[Frame, ...] = field(default=(), repr=False)
    reads: tuple[DiceFrameRead, ...] = field(default=(), repr=False)
    reader: Mapping[str, Any] | None = None
    replaced_frames: tuple[Frame, ...] = field(default=(), repr=False)
    """Settled frames declined unreadable and replaced by the next settled frame (evidence, not votes)."""

    @property
    def accepted(self) -> bool:
        return self.decline is None


class DiceTable(ABC):
    """What a suite can ask of a dice table."""

    @abstractmethod
    def identify(self) -> DeviceIdentity:
        """The table's identity (from the profile: dice cannot report one)."""

    @abstractmethod
    def next_throw(self) -> DiceThrow:
        """Wait for the next throw and read it (or decline it)."""

    @abstractmethod
    def close(self) -> None:
        """Release the camera."""


def _vote_key(read: DiceFrameRead) -> tuple[tuple[int, ...] | None, Decline | None]:
    """Votes agree on the multiset of faces (dice may be listed in another order from frame to frame)."""
    return (read.faces or None) if read.accepted else None, read.decline


class CameraDiceTable(DiceTable):
    """A dice table read by a camera: throw detection by frame differencing, settling, unanimous votes.

    ``reader`` reads each frame; ``reader_identity`` names it in every throw (``None``: a frame reader that names
    none, a test's). ``unreadable_replacements``: how many settled frames declined unreadable a throw may set aside
    for the next settled frame (0: every settled frame read is a vote)."""

    def __init__(self, camera: Camera, identity: DeviceIdentity, reader: DiceFrameReader, *,
                 reader_identity: Mapping[str, Any] | None = None, votes: int = 3,
                 max_frames_per_throw: int = 600, detector: SettleDetector | None = None,
                 unreadable_replacements: int = 0) -> None:
        if unreadable_replacements < 0:
            raise ValueError(f"unreadable_replacements must be >= 0, got {unreadable_replacements}")
        self.camera = camera
        self._identity = identity
        self.reader = reader
        self.reader_identity = None if reader_identity is None else dict(reader_identity)
        self.votes = votes
        self.unreadable_replacements = unreadable_replacements
        self.max_frames_per_throw = max_frames_per_throw
        self.detector = detector or SettleDetector()
        self.throws = 0
        self._frames: Iterator[Frame] = camera.frames()

    def identify(self) -> DeviceIdentity:
        return self._identity

    @property
    def voting(self) -> str:
        """How a throw's faces are decided, for the evidence: the votes and the unreadable frames they may replace."""
        replaced = (f"; up to {self.unreadable_replacements} settled frames declined unreadable set aside for the "
                    "next settled frame" if self.unreadable_replacements else "")
        return f"unanimous votes over {self.votes} consecutive settled frames{replaced}"

    def _wait_for_motion(self) -> None:
        """Consume frames until the scene changes: the dice of the last throw are being picked up or thrown."""
        self.detector.reset()
        for seen, frame in enumerate(self._frames):
            self.detector.update(frame)
            if self.detector.motion is not None and self.detector.motion > self.detector.threshold:
                return
            if seen >= self.max_frames_per_throw:
                break

    def next_throw(self) -> DiceThrow:
        self.throws += 1
        if self.throws > 1:
            self._wait_for_motion()
        settled = read_settled(self._frames, self.reader, votes=self.votes, key=_vote_key,
                               max_frames=self.max_frames_per_throw, detector=self.detector,
                               replaceable=(Decline.UNREADABLE,), replacements=self.unreadable_replacements)
        if not settled.accepted:
            return DiceThrow(self.throws, (), settled.decline, settled.detail, 0.0, settled.frames, settled.reads,
                             self.reader_identity, settled.replaced_frames)
        first = settled.reads[0]
        confidence = min(die.confidence for read in settled.reads for die in read.dice)
        faces = tuple(int(die.face) for die in first.dice)  # type: ignore[arg-type]  # accepted: every die has a face
        return DiceThrow(self.throws, faces, None, settled.detail, confidence, settled.frames, settled.reads,
                         self.reader_identity, settled.replaced_frames)

    def close(self) -> None:
        self.camera.close()
