"""Read the winning pocket of a roulette wheel from one camera frame, or decline with a reason.

Method (per frame, on one core, about 2 ms at 640x480):

1. **Unwrap.** Precomputed remap tables sample the calibrated wheel plane
   (:mod:`vision.roulette_calibration`) on a polar grid: 720 angles (0.5 degree) by rows over
   the pocket ring, the number ring and the ball track. Everything below works on that small
   polar image.
2. **Light and background.** The ball track (light wood) gives the local light level; each ring
   gives its own background whiteness (a low percentile of 15-degree blocks around the wheel,
   so a ball, a streak or a glare cannot raise it), and the ball is found by how much *whiter*
   than its surroundings it is, whatever the lighting gradient.
3. **Ball.** Connected blobs of excess whiteness (thin frets, rings and printed numbers removed
   by a morphological opening) are measured: centre, radial and tangential extent, and the width
   of their edges. A ball at rest is a disc with sharp edges; a moving ball is a streak along
   the track (sharp across, long along); a glare spot has soft edges; a hand is large.
4. **Rotor.** The 0 pocket is the one green segment of the number ring; its position is refined
   with the phase of the 37 frets (all frets together, so to a small fraction of a degree).
5. **Pocket.** The ball's angle from the 0 pocket, in pocket pitches, gives the pocket index in
   the layout's clockwise order (p217-2007/roleta-francesa/2). The ball's angle comes from its
   two side edges (median over rows of the midpoints of the half-peak crossings), which a glare
   beside the ball barely moves. A ball whose centre is more than ``fret_margin`` of a pitch
   from its pocket's centre is declined (``on-fret``). The default 0.24 pitch (2.34 degrees) sits
   between the widest offset of a ball lying in a pocket (1.1 degree for a 21 mm ball on a
   560 mm wheel) and a ball resting on a fret (3.9 degrees and more), each more than 1.2 degree
   away, while the benchmark (``benchmarks/roulette_reader_accuracy.py``) measures the offset to
   0.24 degree (99th percentile) and 0.8 degree at worst over 4,000 realistic frames.

Declines: ``motion`` (a streak, or a ball outside the pocket ring), ``on-fret``, ``hidden`` (no
ball found, or no 0 pocket), ``glare`` (a glare spot large enough to hide the ball where no ball
is seen, or touching it), ``unreadable`` (two ball-like objects, frets not found...). A declined
read is never an outcome.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass

import cv2
import numpy as np

from bench.games.roulette_layout import order_for
from vision.declines import Decline
from vision.frame import check_image
from vision.heap import keep_freed_memory
from vision.roulette_calibration import POCKETS, WheelCalibration, polar_maps

N_ANGLES = 720
ROW_STEP = 0.006            # normalised units per polar row (about 1.7 mm on a 560 mm wheel)
BLOCKS = 24                 # angular blocks for the background and light estimates
THRESHOLD_POCKETS = 0.15    # excess whiteness (relative to the light) that makes a blob, over the pockets
THRESHOLD_TRACK = 0.06      # ... and on the (plain) ball track, where a fast ball leaves only a faint streak
CENTROID_LEVEL = 0.4       # share of a blob's peak above which its pixels count for its centre
NOMINAL_BALL = 0.73         # ball diameter / pocket pitch at mid pocket ring (21 mm on a 560 mm wheel)


@dataclass(frozen=True)
class PocketRead:
    """One frame's read: a number with a confidence, or a decline with its reason; never both.

    Angles are on the wheel plane, degrees clockwise seen from above; ``ball_angle_deg`` and
    ``rotor_angle_deg`` (angle of the 0 pocket's centre) are filled whenever they could be
    measured, also on declined frames (motion analysis uses them).
    """

    number: int | None
    decline: Decline | None
    detail: str
    ball_px: tuple[float, float] | None = None
    ball_angle_deg: float | None = None
    rotor_angle_deg: float | None = None
    confidence: float = 0.0
    pocket_offset_deg: float | None = None
    """Signed angle from the centre of the pocket under the ball to the ball (clockwise positive)."""

    def __post_init__(self) -> None:
        if (self.number is None) == (self.decline is None):
            raise ValueError("a read has either a number or a decline reason, not both or neither")
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence must be within 0..1, got {self.confidence}")

    @property
    def accepted(self) -> bool:
        return self.number is not None

    def to_json(self) -> str:
        data = asdict(self)
        data["decline"] = None if self.decline is None else str(self.decline)
        return json.dumps(data, sort_keys=True)


@dataclass(frozen=True)
class _Blob:
    theta: float            # deg
    radius: float           # normalised
    radial_extent: float    # normalised
    tangential_extent: float
    edge_px: float          # sharper side's 20%..60% edge width, across the ball's path (radial)
    edge_t_px: float        # along the path
    area: float             # normalised units^2
    core: float             # saturated (near white) area, normalised units^2
    band: str               # where its centre is: "pocket", "number", "apron" or "track"
    peak: float             # excess whiteness (relative to the light) at the top of the blob

    @property
    def elongation(self) -> float:
        return self.tangential_extent / max(self.radial_extent, 1e-9)


def _bridge(profile: np.ndarray, gaps: np.ndarray) -> np.ndarray:
    """``profile`` with the samples where ``gaps`` is True replaced by linear interpolation."""
    if not gaps.any() or gaps.all():
        return profile
    idx = np.arange(len(profile))
    out = profile.copy()
    out[gaps] = np.interp(idx[gaps], idx[~gaps], profile[~gaps])
    return out


class RouletteReader:
    """Reads frames of one calibrated wheel (precomputed remap tables: build once, read many frames)."""

    def __init__(self, calibration: WheelCalibration, *, fret_margin: float = 0.24, n_angles: int = N_ANGLES,
                 ball_diameter: float | None = None) -> None:
        """``fret_margin``: a read needs the ball centre within this share of a pitch of its pocket's centre.
        ``ball_diameter``: the ball's diameter on the normalised plane (ball mm / ball track's outer radius
        mm); by default the nominal 21 mm ball of a 560 mm wheel scaled to the calibrated pocket ring.
        The first reader in a process keeps the process's freed working memory (:mod:`vision.heap`)."""
        keep_freed_memory()
        if not 0.05 <= fret_margin <= 0.45:
            raise ValueError(f"fret_margin must be within 0.05..0.45 of a pocket pitch, got {fret_margin}")
        if n_angles % BLOCKS or n_angles < 10 * POCKETS:
            raise ValueError(f"n_angles must be a multiple of {BLOCKS} and >= {10 * POCKETS}, got {n_angles}")
        if ball_diameter is not None and not 0.02 <= ball_diameter <= 0.2:
            raise ValueError(f"ball_diameter must be within 0.02..0.2 of the track radius, got {ball_diameter}")
        self.calibration = calibration
        self.order = order_for(calibration.layout)
        self.fret_margin = fret_margin
        self.n = n_angles
        self.pitch = 360.0 / POCKETS
        c = calibration
        cone = np.arange(c.pocket_inner - 3.5 * ROW_STEP, c.pocket_inner, ROW_STEP)[:3]
        pocket = np.arange(c.pocket_inner + ROW_STEP / 2, c.number_inner, ROW_STEP)
        number = np.arange(c.number_inner + ROW_STEP / 2, c.number_outer, ROW_STEP)
        apron = c.track_inner + ROW_STEP / 2 - ROW_STEP * np.arange(3, 0, -1)
        track = np.arange(c.track_inner + ROW_STEP / 2, c.track_outer, ROW_STEP)
        rim = track[-1] + ROW_STEP * np.arange(1, 4)
        if min(len(pocket), len(number), len(track)) < 3:
            raise ValueError("calibration rings are too narrow to read (fewer than 3 polar rows in a ring)")
        parts = [cone, pocket, number, np.array([np.nan]), apron, track, rim]
        starts = np.cumsum([0] + [len(p) for p in parts])
        self.radii = np.concatenate(parts)
        span = {name: np.arange(starts[i], starts[i + 1]) for i, name in
                enumerate(("cone", "pocket", "number", "gap", "apron", "track", "rim"))}
        self.rows = {"pocket": span["pocket"], "number": span["number"], "track": span["track"]}
        # rows whose excess whiteness is computed: each ring with a margin, for edge profiles
        self.groups = {"pocket": np.concatenate([span["cone"], span["pocket"]]),
                       "track": np.concatenate([span["apron"], span["track"], span["rim"]])}
        radii = np.nan_to_num(self.radii, nan=(c.number_outer + c.track_inner) / 2)
        mx, my = polar_maps(c.H, radii, n_angles)
        self._map1, self._map2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
        self.size = tuple(c.image_size)
        self.px_per_unit = c.px_per_unit()
        mid = (c.pocket_inner + c.number_inner) / 2
        self.ball_d = ball_diameter or NOMINAL_BALL * 2 * math.pi * mid / POCKETS   # ball diameter (normalised)
        self.theta = np.arange(n_angles) * (360.0 / n_angles)
        self._phasor = np.exp(-1j * POCKETS * np.radians(self.theta))
        self.wrap = math.ceil(n_angles * 0.08)                      # columns appended for wrap-around blobs
        self._kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (7, 5))
        self._grow = np.ones((3, 3), np.uint8)
        self._threshold = np.full(len(self.radii), np.inf, dtype=np.float32)   # no blobs outside the rings
        self._threshold[span["pocket"]] = THRESHOLD_POCKETS
        self._threshold[span["track"]] = THRESHOLD_TRACK

    # ----------------------------------------------------------------------------------- public

    def read(self, image: np.ndarray) -> PocketRead:
        """Read one frame (BGR uint8 of the calibrated size)."""
        check_image(image)
        if image.ndim != 3:
            raise ValueError("the roulette reader needs a colour (BGR) frame: the 0 pocket is found by its green")
        if (image.shape[1], image.shape[0]) != self.size:
            raise ValueError(f"frame is {image.shape[1]}x{image.shape[0]} px but the calibration is for "
                             f"{self.size[0]}x{self.size[1]}")
        polar = cv2.remap(image, self._map1, self._map2, cv2.INTER_LINEAR)
        b, g, r = cv2.split(polar)
        lo = cv2.min(cv2.min(b, g), r).astype(np.float32)
        hi = cv2.max(cv2.max(b, g), r)
        light = self._light(hi)
        excess = self._excess(lo, light)
        blobs = self._blobs(excess, hi)
        rows = self.rows["number"]
        green = g[rows].astype(np.float32) - cv2.max(b[rows], r[rows])
        rotor, rotor_detail = self._rotor(green, lo, light, blobs)
        return self._decide(blobs, rotor, rotor_detail)

    # ----------------------------------------------------------------------------------- measurements

    def _block_median(self, values: np.ndarray) -> np.ndarray:
        """Per-column background of a band: the 30th percentile of each angular block (a ball, a streak or a
        glare may cover more than half a block), then a circular median of 3 blocks, interpolated."""
        blocks = values.reshape(values.shape[0], BLOCKS, -1).transpose(1, 0, 2).reshape(BLOCKS, -1)
        k = int(blocks.shape[1] * 0.3)
        med = np.partition(blocks, k, axis=1)[:, k]
        a, c = np.roll(med, 1), np.roll(med, -1)
        med = np.maximum(np.minimum(a, med), np.minimum(np.maximum(a, med), c))    # median of 3 neighbours
        width = self.n // BLOCKS
        centres = np.arange(BLOCKS) * width + (width - 1) / 2
        return np.interp(np.arange(self.n), centres, med, period=self.n)

    def _light(self, hi: np.ndarray) -> np.ndarray:
        """Light level per angle: the brightness of the (light wood) ball track there."""
        return np.maximum(self._block_median(hi[self.rows["track"]].astype(np.float32)), 20.0)

    def _excess(self, lo: np.ndarray, light: np.ndarray) -> np.ndarray:
        """How much whiter (min channel) than its ring's background each polar pixel is, relative to the light.

        The number ring is left at 0: its printed numbers are white too.
        """
        out = np.zeros_like(lo)
        for name, rows in self.groups.items():
            background = self._block_median(lo[self.rows[name]])
            out[rows] = (lo[rows] - background) / light
        return out

    def _blobs(self, excess: np.ndarray, hi: np.ndarray) -> list[_Blob]:
        """Blobs of excess whiteness, thin structures (frets, metal rings) removed by a grey opening.

        The polar image is extended on both sides so that the opening and the blobs wrap around
        0/360 degrees; a blob is kept once (the copy that starts in columns ``0..n``).
        """
        pad = 8
        wide = np.concatenate([excess[:, -pad:], excess, excess[:, : self.wrap]], axis=1)
        opened = cv2.morphologyEx(wide, cv2.MORPH_OPEN, self._kernel)[:, pad:]
        raw = wide[:, pad:]
        mask = (opened > self._threshold[:, None]).astype(np.uint8)
        if not mask.any():
            return []
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        sat = np.concatenate([hi, hi[:, : self.wrap]], axis=1) >= 250
        blobs = []
        for label in range(1, count):
            x, y, w, h, _ = stats[label]
            if x == 0 and w < self.n:
                continue                          # starts at the seam: its whole copy starts at column n
            if x > self.n:
                continue                          # a copy of a blob already seen whole
            if h * ROW_STEP < 0.45 * self.ball_d:
                continue                          # specks: ends of frets, noise
            blob = self._measure(opened, raw, labels, label, (x, y, w, h), sat)
            if blob is not None:
                blobs.append(blob)
        return blobs

    def _measure(self, opened: np.ndarray, raw: np.ndarray, labels: np.ndarray, label: int,
                 box: tuple[int, int, int, int], sat: np.ndarray) -> _Blob | None:
        """Centre, extents and edge sharpness of one blob.

        Edge profiles are taken on the raw excess with the local background removed: per column
        from the rows the blob does not touch (frets), per row from the columns it does not touch
        (metal rings), so a ball lying against a fret still shows its own sharp edge.
        """
        x, y, w, h = box
        group = next(g for g in self.groups.values() if g[0] <= y <= g[-1])
        y0, y1 = max(y - 5, int(group[0])), min(y + h + 5, int(group[-1]) + 1)   # profiles stay in the ring
        x0, x1 = max(x - 16, 0), min(x + w + 16, raw.shape[1])
        sub = opened[y0:y1, x0:x1]
        own = labels[y0:y1, x0:x1] == label
        peak = float(np.percentile(sub[own], 90))
        if peak <= 0:
            return None
        core_mask = own & (sub >= 0.5 * peak)
        window = raw[y0:y1, x0:x1]
        touched_rows = np.convolve(own.any(axis=1), np.ones(3), mode="same") > 0
        touched_cols = np.convolve(own.any(axis=0), np.ones(3), mode="same") > 0
        # frets are bright columns across the whole ring, metal rings bright rows all around: their levels
        # from the rows / columns the blob does not touch
        col_bg = np.median(window[~touched_rows], axis=0) if (~touched_rows).sum() >= 2 else np.zeros(x1 - x0)
        local = window - col_bg
        row_bg = np.median(local[:, ~touched_cols], axis=1) if (~touched_cols).sum() >= 4 else np.zeros(y1 - y0)
        local -= row_bg[:, None]
        # centre: the blob's pixels (grown by one) above CENTROID_LEVEL of its local peak, shaded side included
        grown = cv2.dilate(own.astype(np.uint8), self._grow).astype(bool)
        top = float(np.percentile(local[own], 90))
        ys, xs = np.nonzero(grown & (local >= CENTROID_LEVEL * top)) if top > 0 else np.nonzero(core_mask)
        if len(xs) == 0:
            ys, xs = np.nonzero(core_mask)
        cy, cx = ys.mean() + y0, xs.mean() + x0
        if top > 0:                                        # the angle from the ball's two side edges
            edge_cx = self._edge_centre(local, cx - x0, top)
            if edge_cx is not None:
                cx = edge_cx + x0
        lo_row = int(np.floor(cy))
        r_a, r_b = self.radii[lo_row], self.radii[min(lo_row + 1, len(self.radii) - 1)]
        radius = float(r_a + (cy - lo_row) * (r_b - r_a)) if math.isfinite(r_b) else float(r_a)
        theta = (cx * 360.0 / self.n) % 360.0
        col_len = math.radians(360.0 / self.n) * max(radius, 1e-3)
        col, rr = round(cx) - x0, round(cy) - y0
        cols_c = slice(max(col - 1, 0), col + 2)
        rows_c = slice(max(rr - 1, 0), rr + 2)
        radial_extent = core_mask[:, cols_c].any(axis=1).sum() * ROW_STEP
        tangential_extent = core_mask[rows_c, :].any(axis=0).sum() * col_len
        # edge profiles: a fret or a ring seen *through* a moving ball's streak must not cut a notch into
        # it, so inside the blob's core their samples are bridged by interpolation; beside the blob they
        # are subtracted, as for the centre
        fret_under = core_mask[rows_c].any(axis=0) & (col_bg > 0.25 * peak)
        ring_under = core_mask[:, cols_c].any(axis=1) & (row_bg > 0.25 * peak)
        prof_t = _bridge(local[rows_c].mean(axis=0), fret_under)
        prof_r = _bridge(local[:, cols_c].mean(axis=1), ring_under)
        edge_r = self._edge_width(prof_r, rr) * ROW_STEP * self.px_per_unit
        edge_t = self._edge_width(prof_t, col) * col_len * self.px_per_unit
        unit_area = ROW_STEP * col_len
        core = float((own & sat[y0:y1, x0:x1]).sum()) * unit_area
        c = self.calibration
        band = ("pocket" if c.pocket_inner <= radius <= c.number_inner
                else "track" if radius >= c.track_inner else "number" if radius <= c.number_outer else "apron")
        return _Blob(theta, radius, radial_extent, tangential_extent, edge_r, edge_t, float(own.sum()) * unit_area,
                     core, band, peak)

    @staticmethod
    def _edge_centre(local: np.ndarray, cx: float, top: float) -> float | None:
        """Column of the ball's centre from its two side edges: in each row whose profile rises above
        half the peak at ``cx``, the midpoint of the half-peak crossings walking out from ``cx``;
        the median over rows. A smooth glare beside the ball moves a crossing far less than it
        moves an area centroid."""
        c = round(cx)
        if not 0 <= c < local.shape[1]:
            return None
        level = 0.5 * top
        mids = []
        for row in local:
            if row[c] < level:
                continue
            right = np.nonzero(row[c:] < level)[0]
            left = np.nonzero(row[c::-1] < level)[0]
            if not len(right) or not len(left):
                continue
            i, j = c + right[0], c - left[0]
            xr = i - 1 + (row[i - 1] - level) / (row[i - 1] - row[i])
            xl = j + 1 - (row[j + 1] - level) / (row[j + 1] - row[j])
            mids.append((xl + xr) / 2)
        return float(np.median(mids)) if len(mids) >= 3 else None

    @staticmethod
    def _edge_width(profile: np.ndarray, centre: int) -> float:
        """Samples between the 60 % and 20 % crossings (linear interpolation) on the sharper side of ``centre``.

        Levels are relative to the profile's peak near the centre. ``inf`` when neither side falls
        to 20 % inside the profile (a spot larger than the window, such as a glare).
        """
        centre = int(np.clip(centre, 0, len(profile) - 1))
        near = profile[max(centre - 3, 0): centre + 4]
        top = float(near.max()) if len(near) else 0.0
        if top <= 0:
            return math.inf
        centre = max(centre - 3, 0) + int(np.argmax(near))
        p = profile / top
        widths = []
        for side in (p[centre::-1], p[centre:]):
            crossings = []
            for level in (0.6, 0.2):
                below = np.nonzero(side < level)[0]
                if not len(below):
                    break
                i = int(below[0])
                a, b = side[i - 1], side[i]
                crossings.append(i - 1 + (a - level) / (a - b))
            if len(crossings) == 2:
                widths.append(crossings[1] - crossings[0])
        return min(widths) if widths else math.inf

    def _rotor(self, green_ring: np.ndarray, lo: np.ndarray, light: np.ndarray, blobs: list[_Blob]
               ) -> tuple[float | None, str]:
        """Angle of the 0 pocket's centre, or (None, why). ``green_ring``: G - max(R, B) over the number ring."""
        green = green_ring.mean(axis=0) / light
        width = round(self.n / POCKETS)
        kernel = np.ones(width) / width
        smooth = np.convolve(np.concatenate([green[-width:], green, green[:width]]), kernel, mode="same")
        smooth = smooth[width:-width]
        best = int(np.argmax(smooth))
        peak = smooth[best]
        away = np.abs(((np.arange(self.n) - best + self.n / 2) % self.n) - self.n / 2) > 1.5 * width
        runner_up = smooth[away].max()
        if peak < 0.12 or peak < 2.0 * max(runner_up, 0.02):
            return None, f"0 pocket not found (green contrast {peak:.2f}, next {runner_up:.2f})"
        # centroid of the green segment around the best window
        idx = (best + np.arange(-width, width + 1)) % self.n
        g = np.clip(green[idx] - 0.5 * peak, 0, None)
        if g.sum() <= 0:
            return None, "0 pocket not found (no green segment)"
        offs = np.arange(-width, width + 1)
        green_angle = ((best + (g * offs).sum() / g.sum()) * 360.0 / self.n) % 360.0
        # fret comb: the phase of the 37 frets over the pocket ring, the ball's columns left out
        rows = self.rows["pocket"]
        fret = lo[rows].mean(axis=0) / light
        weight = np.ones(self.n)
        for blob in blobs:
            if blob.tangential_extent < 0.5 * self.ball_d:
                continue
            half = math.degrees(blob.tangential_extent / max(blob.radius, 1e-3)) / 2 + 3.0
            d = np.abs(((self.theta - blob.theta + 180.0) % 360.0) - 180.0)
            weight[d < half] = 0.0
        if weight.sum() < self.n * 0.5:
            return None, "frets hidden over half of the pocket ring"
        f = (fret - (fret * weight).sum() / weight.sum()) * weight
        c = f @ self._phasor
        if abs(c) < 0.02 * weight.sum():
            return None, f"frets not found (37-fold contrast {abs(c) / weight.sum():.3f})"
        fret_angle = (-math.degrees(np.angle(c)) / POCKETS) % self.pitch
        centre0 = fret_angle + self.pitch / 2
        k = round((green_angle - centre0) / self.pitch)
        rotor = (centre0 + k * self.pitch) % 360.0
        miss = abs(((green_angle - rotor + 180.0) % 360.0) - 180.0)
        if miss > 0.35 * self.pitch:
            return None, f"the green pocket is {miss:.1f} deg off the fret pattern"
        return rotor, "ok"

    # ----------------------------------------------------------------------------------- decision

    def _ball_px(self, blob: _Blob) -> tuple[float, float]:
        t = math.radians(blob.theta)
        p = self.calibration.H_inv @ np.array([blob.radius * math.cos(t), blob.radius * math.sin(t), 1.0])
        return float(p[0] / p[2]), float(p[1] / p[2])

    def _classify(self, blobs: list[_Blob]) -> dict[str, list[_Blob]]:
        """Sort blobs into ``ball`` (a sharp round disc), ``motion`` (a ball-wide streak with smeared ends),
        ``glare`` (soft edges across), ``large`` (wider than a ball: a hand, a big glare) and ``other``."""
        d = self.ball_d
        kinds: dict[str, list[_Blob]] = {"ball": [], "motion": [], "glare": [], "large": [], "other": []}
        for b in blobs:
            smeared = b.elongation > 1.45 or b.edge_t_px > 3.0
            if b.radial_extent > 1.5 * d:
                kind = "large"
            elif smeared and (0.4 if b.band == "pocket" else 0.6) * d <= b.radial_extent <= 1.25 * d \
                    and b.edge_px <= 3.5:
                kind = "motion"
            elif b.edge_px > 3.0:
                kind = "glare"
            elif 0.6 * d <= b.radial_extent <= 1.2 * d and b.tangential_extent <= 1.4 * d and not smeared \
                    and b.elongation >= 0.6 and b.peak >= (0.45 if b.band == "pocket" else 0.25):  # track: light
                kind = "ball"
            else:
                kind = "other"
            kinds[kind].append(b)
        return kinds

    @staticmethod
    def _distance(a: _Blob, b: _Blob) -> float:
        """Distance between two blob centres on the normalised plane."""
        t = math.radians(a.theta - b.theta)
        return math.sqrt(max(a.radius ** 2 + b.radius ** 2 - 2 * a.radius * b.radius * math.cos(t), 0.0))

    def _decide(self, blobs: list[_Blob], rotor: float | None, rotor_detail: str) -> PocketRead:
        d = self.ball_d
        kinds = self._classify(blobs)
        balls = kinds["ball"]

        def declined(reason: Decline, detail: str, blob: _Blob | None = None, offset: float | None = None
                     ) -> PocketRead:
            return PocketRead(None, reason, detail, self._ball_px(blob) if blob else None,
                              blob.theta if blob else None, rotor, 0.0, offset)

        if len(balls) > 1:
            return declined(Decline.UNREADABLE, f"{len(balls)} ball-like objects on the wheel")
        if not balls:
            cover = [g for g in kinds["large"] if g.band == "pocket" and g.edge_px <= 3.0 and g.peak < 0.6]
            if cover:
                return declined(Decline.HIDDEN, "an object (a hand?) covers part of the pocket ring; no ball seen")
            if kinds["motion"]:
                top = max(kinds["motion"], key=lambda b: b.tangential_extent)
                return declined(Decline.MOTION, f"ball moving (a streak {top.elongation:.1f}x as long as wide, "
                                                f"ends smeared over {top.edge_t_px:.0f} px)", top)
            hiding = [g for g in kinds["glare"] + kinds["large"] if g.band == "pocket"
                      and (g.core >= 0.5 * math.pi * (d / 2) ** 2 or g.peak >= 0.6)]
            if hiding:
                return declined(Decline.GLARE, "a bright glare area over the pocket ring could hide the ball")
            return declined(Decline.HIDDEN, "no ball found on the pocket ring or the ball track")
        b = balls[0]
        if b.band != "pocket":
            return declined(Decline.MOTION, f"ball not in the pocket ring (on the {b.band})", b)
        for g in kinds["motion"] + kinds["glare"] + kinds["large"] + kinds["other"]:
            reach = max(g.radial_extent, g.tangential_extent) / 2
            if self._distance(g, b) - reach < 0.75 * d:
                return declined(Decline.GLARE, "glare or an object touching the ball", b)
        if rotor is None:
            return declined(Decline.HIDDEN if "not found" in rotor_detail else Decline.UNREADABLE, rotor_detail, b)
        delta = (b.theta - rotor) % 360.0
        k = round(delta / self.pitch)
        offset = delta - k * self.pitch
        margin = self.fret_margin * self.pitch
        if abs(offset) > margin:
            return declined(Decline.ON_FRET, f"ball {self.pitch / 2 - abs(offset):.1f} deg from a fret "
                                             f"(a read needs >= {self.pitch / 2 - margin:.1f})", b, offset)
        number = self.order[k % POCKETS]
        confidence = float(np.clip(1.0 - abs(offset) / (self.pitch / 2), 0.0, 1.0))
        return PocketRead(number, None, f"ball in pocket {number} ({offset:+.1f} deg from its centre)",
                          self._ball_px(b), b.theta, rotor, confidence, offset)
