"""The camera over a roulette wheel: the winning pocket read independently of the wheel's own sensor.

After a game the ball rests in its pocket while the rotor keeps turning, so frame
differencing cannot tell rest from motion here; the reader itself declines a ball that
is still moving (blurred or off the pocket ring), on a fret or hidden
(:class:`vision.roulette.RouletteReader`), and ``votes`` consecutive frames must all
give the same number (:func:`vision.settle.read_settled` with every frame counted as
still). A declined read is never an outcome.

The directions of a game (p217-2007/roleta-francesa/13) come from a short clip filmed from
the launch (:meth:`RouletteCamera.record_launch`): the reader's ball and rotor angles frame
after frame give each one's direction (:mod:`vision.roulette_motion`).
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass, field

from drivers.camera import Camera
from vision.declines import Decline
from vision.frame import Frame
from vision.roulette import PocketRead, RouletteReader
from vision.roulette_calibration import WheelCalibration
from vision.roulette_motion import SpinMotion, motion_from_reads
from vision.settle import SettleDetector, read_settled


@dataclass(frozen=True)
class CameraPocket:
    """The camera's read of one game: the number, or the decline and why; the voting frames as evidence."""

    number: int | None
    decline: Decline | None
    detail: str
    confidence: float
    frames: tuple[Frame, ...] = field(default=(), repr=False)
    reads: tuple[PocketRead, ...] = field(default=(), repr=False)

    @property
    def accepted(self) -> bool:
        return self.decline is None


@dataclass(frozen=True)
class LaunchClip:
    """The directions seen in a clip filmed from a game's launch, and the clip's frames as evidence."""

    motion: SpinMotion
    frames: tuple[Frame, ...] = field(default=(), repr=False)
    reads: tuple[PocketRead, ...] = field(default=(), repr=False)

    @property
    def seen(self) -> bool:
        """Both directions were told (enough frames showed the ball and the 0 pocket)."""
        return self.motion.ball is not None and self.motion.rotor is not None


def _vote_key(read: PocketRead) -> tuple[Hashable | None, Decline | None]:
    return read.number, read.decline


class RouletteCamera:
    """A calibrated camera over a wheel."""

    def __init__(self, camera: Camera, calibration: WheelCalibration, *, votes: int = 3) -> None:
        self.camera = camera
        self.calibration = calibration
        self.reader = RouletteReader(calibration)
        self.votes = votes

    def still(self) -> Frame:
        """One frame as it comes (for the layout audit and measurements)."""
        return self.camera.read()

    def record_launch(self, frames: int, delay_s: float = 0.0) -> LaunchClip:
        """Film ``frames`` consecutive frames from ``delay_s`` after a game started and read the directions."""
        if frames < 2:
            raise ValueError(f"a launch clip needs at least 2 frames, got {frames}")
        self.camera.cue("launch")
        if delay_s > 0:
            time.sleep(delay_s)
        clip = tuple(self.camera.frames(frames))
        reads = tuple(self.reader.read(frame.image) for frame in clip)
        return LaunchClip(motion_from_reads(reads), clip, reads)

    def read_pocket(self) -> CameraPocket:
        """Read the pocket the ball rests in from ``votes`` consecutive frames that must agree."""
        self.camera.cue("result")
        every_frame_still = SettleDetector(threshold=0.99, still_frames=1)
        settled = read_settled(self.camera.frames(), self.reader.read, votes=self.votes, key=_vote_key,
                               max_frames=self.votes + 1, detector=every_frame_still)
        confidence = min((read.confidence for read in settled.reads), default=0.0) if settled.accepted else 0.0
        number = int(settled.outcome) if settled.accepted and settled.outcome is not None else None
        return CameraPocket(number, settled.decline, settled.detail, confidence, settled.frames, settled.reads)

    def close(self) -> None:
        self.camera.close()
