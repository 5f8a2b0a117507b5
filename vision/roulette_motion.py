"""Directions of the ball and the rotor from a short clip, and the settling of the ball.

p217-2007/roleta-francesa/13: "O lançamento da bola far-se-á alternadamente da esquerda para a
direita e da direita para a esquerda, rodando o prato da roleta em sentido contrário ao da bola"
-- launches alternate in direction, and the rotor turns against the ball.

Method: every frame is read by :class:`vision.roulette.RouletteReader`, which gives the angle of
the 0 pocket (the rotor) and of the ball (a streak on the ball track while it runs) even when it
declines the frame. Angle steps between consecutive frames where an angle was measured are
unwrapped to (-180, 180] degrees -- so the clip must be fast enough that neither turns half a
revolution between frames (a ball at 3 rev/s needs more than 6 frames/s) -- and the direction is
the sign of the median step: clockwise (seen from above) when the angle grows. The confidence is
the share of steps agreeing with that sign, reduced when few steps were measured.

Settling: a generic frame-difference test cannot see a ball come to rest, because the rotor
(and the ball with it) keeps turning. :func:`settle_index` instead waits for the reader to give
the same pocket, with the ball at the same angle *relative to the rotor*, for ``hold`` frames.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import pairwise

import numpy as np

from bench.games.roulette_layout import Direction
from vision.roulette import PocketRead, RouletteReader

MIN_STEPS = 3


@dataclass(frozen=True)
class SpinMotion:
    """Directions seen in one clip (``None`` where too few frames showed the ball or the 0 pocket)."""

    ball: Direction | None
    rotor: Direction | None
    counter_rotating: bool
    confidence: float
    """min over ball and rotor of: share of steps agreeing with the direction x min(1, steps / 6)."""
    ball_steps: int
    rotor_steps: int
    ball_deg_per_frame: float | None
    rotor_deg_per_frame: float | None
    detail: str

    def to_json(self) -> str:
        data = asdict(self)
        data["ball"] = None if self.ball is None else str(self.ball)
        data["rotor"] = None if self.rotor is None else str(self.rotor)
        return json.dumps(data, sort_keys=True)


def _steps(angles: Sequence[float | None]) -> np.ndarray:
    """Unwrapped per-frame angle steps between measured frames (a gap of k frames divides the step by k)."""
    known = [(i, a) for i, a in enumerate(angles) if a is not None]
    out = []
    for (i0, a0), (i1, a1) in pairwise(known):
        step = (a1 - a0 + 180.0) % 360.0 - 180.0
        out.append(step / (i1 - i0))
    return np.asarray(out, dtype=float)


def direction_of(angles: Sequence[float | None]) -> tuple[Direction | None, float, int, float | None]:
    """(direction, agreement share, steps, median degrees per frame) of a sequence of angles (None: unknown)."""
    steps = _steps(angles)
    steps = steps[np.abs(steps) > 1e-6]
    if len(steps) < MIN_STEPS:
        return None, 0.0, len(steps), None
    median = float(np.median(steps))
    if median == 0.0:
        return None, 0.0, len(steps), 0.0
    sign = np.sign(median)
    agree = float(np.mean(np.sign(steps) == sign))
    return (Direction.CLOCKWISE if sign > 0 else Direction.ANTICLOCKWISE), agree, len(steps), median


def spin_motion(frames: Iterable[np.ndarray], reader: RouletteReader) -> SpinMotion:
    """Ball and rotor directions from a clip (frames in time order, fixed camera, calibrated ``reader``)."""
    reads = [reader.read(frame) for frame in frames]
    return motion_from_reads(reads)


def motion_from_reads(reads: Sequence[PocketRead]) -> SpinMotion:
    """:func:`spin_motion` from reads already made."""
    ball, ball_agree, ball_n, ball_speed = direction_of([r.ball_angle_deg for r in reads])
    rotor, rotor_agree, rotor_n, rotor_speed = direction_of([r.rotor_angle_deg for r in reads])
    confidence = min(ball_agree * min(1.0, ball_n / 6), rotor_agree * min(1.0, rotor_n / 6))
    counter = ball is not None and rotor is not None and ball is not rotor
    parts = []
    for name, direction, n, speed in (("ball", ball, ball_n, ball_speed), ("rotor", rotor, rotor_n, rotor_speed)):
        parts.append(f"{name} {direction or 'unknown'} ({n} steps"
                     + (f", {speed:+.1f} deg/frame)" if speed is not None else ")"))
    return SpinMotion(ball, rotor, counter, float(confidence), ball_n, rotor_n, ball_speed, rotor_speed,
                      "; ".join(parts))


def launches_alternate(motions: Sequence[SpinMotion]) -> tuple[bool, int | None]:
    """p217-2007/roleta-francesa/13 over consecutive launches: every spin counter-rotating, and each ball
    launched the other way from the previous one. Returns (ok, index of the first offending spin or None).

    A spin whose ball or rotor direction is unknown offends: the clause cannot be shown for it.
    """
    for i, motion in enumerate(motions):
        if motion.ball is None or motion.rotor is None or not motion.counter_rotating:
            return False, i
        if i > 0 and motion.ball is motions[i - 1].ball:
            return False, i
    return True, None


def settle_index(reads: Sequence[PocketRead], hold: int = 5, tolerance_deg: float = 1.5
                 ) -> tuple[int | None, int | None]:
    """First frame from which the ball rests in one pocket for ``hold`` consecutive frames, and that number.

    At rest means: every read accepted, the same number, and the ball's angle relative to the
    rotor within ``tolerance_deg`` of its first value (the ball turns with the rotor). Returns
    ``(None, None)`` if the clip never shows it.
    """
    if hold < 1:
        raise ValueError(f"hold must be >= 1, got {hold}")
    for start in range(len(reads) - hold + 1):
        window = reads[start:start + hold]
        if any(r.number is None or r.ball_angle_deg is None or r.rotor_angle_deg is None for r in window):
            continue
        if len({r.number for r in window}) != 1:
            continue
        rel = np.array([(r.ball_angle_deg - r.rotor_angle_deg) % 360.0 for r in window])
        drift = (rel - rel[0] + 180.0) % 360.0 - 180.0
        if np.all(np.abs(drift) <= tolerance_deg):
            return start, window[0].number
    return None, None
