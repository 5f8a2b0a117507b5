"""Settling and voting: read an outcome only once the scene is still, and only if consecutive reads agree.

A die still rolling or a ball still running must never be read. :class:`SettleDetector` decides
"the scene is still" by frame differencing; :func:`read_settled` waits for that, reads ``votes``
consecutive still frames and accepts the outcome only if they agree (unanimously by default). A frame whose
read only abstains (the dice reader's "unreadable": no face read surely, nothing found about the dice) may be set
aside and replaced by the next settled frame, a bounded number of times per outcome; every other decline is a
finding about the scene (cocked, stacked, glare, ...) and stays a vote.

Method (:class:`SettleDetector`). Each frame is turned to grey, cropped to the region of interest,
reduced with area averaging to about ``work_width`` px wide and blurred (Gaussian, ``blur_sigma``).
Area averaging by a factor f and the blur cut independent sensor noise of sigma s to roughly
s / (f * 2 * sqrt(pi) * blur_sigma): 0.6 grey levels for s = 6, f = 2, blur_sigma = 1.2 (the
difference of two frames: 0.9). JPEG ringing at quality 40 on a sharp random texture adds
more, but in our trials no pixel of a still scene differed by more than 8 grey levels, so
``pixel_delta`` = 10 is not reached by noise, while an edge moving by one source pixel changes by
tens of levels. With the defaults an object of 60 px diameter creeping 1 px per frame changes
0.16-0.25 % of a 640x480 frame, above ``threshold`` = 0.05 %; crop with ``roi`` to watch a
smaller object (the share is of the region). The motion measure is the share of pixels whose absolute difference from the previous frame
exceeds ``pixel_delta``. H0 "the scene is still" is kept for a frame when that share is at most
``threshold``; the scene is settled when the last ``still_frames`` differences all kept H0.
A global lighting change counts as motion: the detector errs towards "not settled".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import cv2
import numpy as np

from vision.declines import Decline
from vision.frame import Frame, check_image

R = TypeVar("R")


class SettleDetector:
    """Frame-differencing stillness detector (see the module docstring for the method).

    ``threshold``: largest share of changed pixels (0..1) a still frame may show.
    ``still_frames``: consecutive still differences needed to call the scene settled.
    ``roi``: ``(x, y, width, height)`` in image px, or ``None`` for the whole frame.
    """

    def __init__(self, threshold: float = 0.0005, still_frames: int = 3, roi: tuple[int, int, int, int] | None = None,
                 *, pixel_delta: float = 10.0, work_width: int = 320, blur_sigma: float = 1.2) -> None:
        if not 0.0 <= threshold < 1.0:
            raise ValueError(f"threshold is a share of pixels in [0, 1), got {threshold}")
        if still_frames < 1:
            raise ValueError(f"still_frames must be >= 1, got {still_frames}")
        if roi is not None and (len(roi) != 4 or min(roi[2], roi[3]) < 8 or min(roi[0], roi[1]) < 0):
            raise ValueError(f"roi must be (x >= 0, y >= 0, width >= 8, height >= 8), got {roi}")
        if not pixel_delta > 0 or work_width < 16 or blur_sigma < 0:
            raise ValueError("pixel_delta must be > 0, work_width >= 16 and blur_sigma >= 0")
        self.threshold = float(threshold)
        self.still_frames = int(still_frames)
        self.roi = roi
        self.pixel_delta = float(pixel_delta)
        self.work_width = int(work_width)
        self.blur_sigma = float(blur_sigma)
        self.reset()

    def reset(self) -> None:
        """Forget the previous frame: the next frame starts a new still run."""
        self._previous: np.ndarray | None = None
        self.still_count = 0
        self.motion: float | None = None
        """Share of changed pixels in the last difference (``None`` before the second frame)."""

    def _prepare(self, image: np.ndarray) -> np.ndarray:
        check_image(image)
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        if self.roi is not None:
            x, y, w, h = self.roi
            if x + w > grey.shape[1] or y + h > grey.shape[0]:
                raise ValueError(f"roi {self.roi} leaves the {grey.shape[1]}x{grey.shape[0]} frame")
            grey = grey[y:y + h, x:x + w]
        factor = max(1, grey.shape[1] // self.work_width)
        if factor > 1:
            grey = cv2.resize(grey, (grey.shape[1] // factor, grey.shape[0] // factor), interpolation=cv2.INTER_AREA)
        work = grey.astype(np.float32)
        if self.blur_sigma > 0:
            work = cv2.GaussianBlur(work, (0, 0), self.blur_sigma)
        return work

    def motion_share(self, previous: np.ndarray, current: np.ndarray) -> float:
        """Share of pixels that changed by more than ``pixel_delta`` between two raw images."""
        return float(np.mean(cv2.absdiff(self._prepare(previous), self._prepare(current)) > self.pixel_delta))

    def update(self, frame: Frame | np.ndarray) -> bool:
        """Feed the next frame; True when the last ``still_frames`` differences were all still."""
        work = self._prepare(frame.image if isinstance(frame, Frame) else frame)
        if self._previous is None or self._previous.shape != work.shape:
            self._previous, self.still_count, self.motion = work, 0, None
            return False
        self.motion = float(np.count_nonzero(cv2.absdiff(work, self._previous) > self.pixel_delta)) / work.size
        self._previous = work
        self.still_count = self.still_count + 1 if self.motion <= self.threshold else 0
        return self.still_count >= self.still_frames

    @property
    def settled(self) -> bool:
        """Whether the scene was settled at the last :meth:`update`."""
        return self.still_count >= self.still_frames


def outcome_and_decline(result: object) -> tuple[Hashable | None, Decline | None]:
    """Default vote key: a reader result's ``outcome`` and ``decline`` attributes."""
    return getattr(result, "outcome", None), getattr(result, "decline", None)


@dataclass(frozen=True)
class SettledRead(Generic[R]):
    """The voted read of a settled scene.

    ``outcome`` is set only when accepted, else ``decline`` and ``detail`` say why. ``reads`` are the
    reader's results for the voting frames ``frames`` (kept as evidence), ``frame_indices`` their
    indices, ``agreeing`` how many votes gave ``outcome``, ``frames_seen`` how many frames were consumed.
    """

    outcome: Hashable | None
    decline: Decline | None
    detail: str
    reads: tuple[R, ...] = ()
    frames: tuple[Frame, ...] = field(default=(), repr=False)
    frame_indices: tuple[int, ...] = ()
    agreeing: int = 0
    frames_seen: int = 0
    replaced_reads: tuple[R, ...] = ()
    replaced_frames: tuple[Frame, ...] = field(default=(), repr=False)

    @property
    def accepted(self) -> bool:
        """True when the read gives an outcome."""
        return self.decline is None


def read_settled(
    frames: Iterable[Frame],
    read: Callable[[np.ndarray], R],
    *,
    votes: int = 3,
    key: Callable[[R], tuple[Hashable | None, Decline | None]] = outcome_and_decline,
    max_frames: int = 300,
    min_agree: int | None = None,
    detector: SettleDetector | None = None,
    replaceable: Collection[Decline] = (),
    replacements: int = 0,
) -> SettledRead[R]:
    """Wait until the scene settles, read ``votes`` consecutive settled frames, and vote.

    ``read`` is the reader (dice or roulette) applied to each voting frame's image; ``key`` maps its
    result to ``(outcome, decline)``. The outcome is accepted only when at least ``min_agree``
    (default: all) votes give it; otherwise the read is declined, with the most common of the votes'
    own decline reasons when any vote declined, or ``Decline.UNREADABLE`` when the votes disagree. Motion between votes discards the votes gathered so far (votes are consecutive
    settled frames). No settled window within ``max_frames`` frames, or the frames running out,
    declines with ``Decline.MOTION``.

    A settled frame whose read declines for a reason in ``replaceable`` is set aside and the next settled frame
    read in its place, at most ``replacements`` times per call (set-aside frames count against ``max_frames``
    like any other and stay evidence: :attr:`SettledRead.replaced_frames`). This is for reads that only abstain:
    the votes that decide are still ``votes`` settled reads with no motion between them (the set-aside frames
    included), all of which must give the outcome (or ``min_agree`` of them), and a set-aside read asserted no
    outcome. The bound holds per call: replacements spent before motion restarts the votes stay spent. Once they
    are, such a read is a vote like any other and declines the outcome.
    """
    if votes < 1:
        raise ValueError(f"votes must be >= 1, got {votes}")
    need = votes if min_agree is None else int(min_agree)
    if not votes // 2 < need <= votes:
        raise ValueError(f"min_agree must be a strict majority of {votes} votes and at most {votes}, got {need}")
    if max_frames < votes:
        raise ValueError(f"max_frames ({max_frames}) must be at least votes ({votes})")
    if replacements < 0:
        raise ValueError(f"replacements must be >= 0, got {replacements}")
    set_aside_reasons = frozenset(Decline(reason) for reason in replaceable)
    detector = detector if detector is not None else SettleDetector()
    detector.reset()
    window: list[tuple[Frame, R]] = []
    replaced: list[tuple[Frame, R]] = []
    seen = 0
    for frame in frames:
        if seen >= max_frames:
            break
        seen += 1
        if not detector.update(frame):
            window.clear()
            continue
        result = read(frame.image)
        decline = key(result)[1]
        if decline is not None and Decline(decline) in set_aside_reasons and len(replaced) < replacements:
            replaced.append((frame, result))
            continue
        window.append((frame, result))
        if len(window) == votes:
            return _vote(window, key, need, seen, replaced)
    return SettledRead(None, Decline.MOTION,
                       f"no {votes} consecutive settled frames within {seen} frames"
                       + ("" if seen >= max_frames else " (the source ended)")
                       + _replaced_note(replaced, key), frames_seen=seen,
                       replaced_reads=tuple(r for _, r in replaced), replaced_frames=tuple(f for f, _ in replaced))


def _replaced_note(replaced: list[tuple[Frame, R]], key: Callable[[R], tuple[Hashable | None, Decline | None]]
                   ) -> str:
    """The detail's note of the settled frames set aside (empty when none was)."""
    if not replaced:
        return ""
    reasons = Counter(str(Decline(key(r)[1])) for _, r in replaced)
    return (f"; set aside and replaced by the next settled frame: {len(replaced)} "
            f"({', '.join(f'declined {reason} x{n}' for reason, n in reasons.most_common())}; frames "
            f"{', '.join(str(f.index) for f, _ in replaced)})")


def _vote(window: list[tuple[Frame, R]], key: Callable[[R], tuple[Hashable | None, Decline | None]], need: int,
          seen: int, replaced: list[tuple[Frame, R]]) -> SettledRead[R]:
    frames = tuple(f for f, _ in window)
    reads = tuple(r for _, r in window)
    keyed = [key(r) for r in reads]
    outcomes = Counter(o for o, d in keyed if d is None and o is not None)
    declines = Counter(Decline(d) for _, d in keyed if d is not None)
    common = {"frames": frames, "reads": reads, "frame_indices": tuple(f.index for f in frames), "frames_seen": seen,
              "replaced_reads": tuple(r for _, r in replaced), "replaced_frames": tuple(f for f, _ in replaced)}
    tally = ", ".join([f"{o!r} x{n}" for o, n in outcomes.most_common()]
                      + [f"declined {d.value} x{n}" for d, n in declines.most_common()]) + _replaced_note(replaced, key)
    if outcomes:
        best, count = outcomes.most_common(1)[0]
        if count >= need:
            return SettledRead(best, None, f"{count} of {len(window)} votes agree ({tally})", agreeing=count, **common)
    if declines:
        reason = declines.most_common(1)[0][0]
        return SettledRead(None, reason, f"settled votes declined: {tally}", **common)
    return SettledRead(None, Decline.UNREADABLE, f"settled votes disagree: {tally}; need {need} of {len(window)}",
                       **common)
