"""The camera over a roulette wheel: the winning pocket read independently of the wheel's own sensor.

After a game the ball rests in its pocket while the rotor keeps turning, so frame
differencing cannot tell rest from motion here; the reader itself declines a ball that
is still moving (blurred or off the pocket ring), on a fret or hidden
(:class:`vision.roulette.RouletteReader`), and ``votes`` consecutive frames must all
give the same number (:func:`vision.settle.read_settled` with every frame counted as
still). A declined read is never an outcome.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from drivers.camera import Camera
from vision.declines import Decline
from vision.frame import Frame
from vision.roulette import PocketRead, RouletteReader
from vision.roulette_calibration import WheelCalibration
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

    def read_pocket(self) -> CameraPocket:
        """Read the pocket the ball rests in from ``votes`` consecutive frames that must agree."""
        every_frame_still = SettleDetector(threshold=0.99, still_frames=1)
        settled = read_settled(self.camera.frames(), self.reader.read, votes=self.votes, key=_vote_key,
                               max_frames=self.votes + 1, detector=every_frame_still)
        confidence = min((read.confidence for read in settled.reads), default=0.0) if settled.accepted else 0.0
        number = int(settled.outcome) if settled.accepted and settled.outcome is not None else None
        return CameraPocket(number, settled.decline, settled.detail, confidence, settled.frames, settled.reads)

    def close(self) -> None:
        self.camera.close()
