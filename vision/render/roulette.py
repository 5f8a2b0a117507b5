"""Synthetic camera frames of a roulette wheel seen from above, with ground truth.

The wheel is drawn top-down in a clean "world" image at a known scale (``px_per_mm``), then
:func:`vision.render.nuisance.apply_nuisance` tilts it (the wheel becomes an ellipse), lights it
unevenly, adds glare, blur, noise and JPEG. Geometry (fractions of the bowl radius, see
:class:`WheelGeometry`) follows a 560 mm wheel: wooden bowl rim, polished ball track, sloping
apron with brass deflectors ("azares", p217-2007/roleta-francesa/4), the coloured number ring,
the pocket ring with its metal frets (p217-2007/roleta-francesa/5), the wooden cone and the
chrome turret.

Angles are in degrees, measured clockwise as seen from above: from +x towards +y in the
top-down image, whose y axis points down. Pocket ``k`` of the layout's clockwise order
(:mod:`bench.games.roulette_layout`) has its centre at ``rotor_angle_deg + k * 360 / 37``.

The rotor (everything inside the number ring) and the stator are drawn once per geometry and
cached; a frame only turns the rotor texture and draws the ball, so rendering is fast enough
for benchmarks of thousands of frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Literal

import cv2
import numpy as np

from bench.games.roulette_layout import Direction, colour, order_for
from vision.declines import Decline
from vision.render.nuisance import Nuisance, add_glare, apply_nuisance, map_points, motion_blur, perspective_homography
from vision.render.target import TargetSpec, draw_target
from vision.roulette_calibration import SURROUND, MarkerSurround

BallState = Literal["in-pocket", "on-fret", "moving", "hidden", "absent"]
BALL_STATES: tuple[str, ...] = ("in-pocket", "on-fret", "moving", "hidden", "absent")
ColourName = Literal["green", "red", "black"]

_SS = 2  # the rotor texture is kept at 2x and downsampled after turning (anti-aliasing)


@dataclass(frozen=True)
class WheelGeometry:
    """Radii of the wheel's rings as fractions of the bowl radius (half of ``wheel_diameter_mm``)."""

    rim_inner: float = 0.955
    """Outer edge of the ball track (foot of the bowl wall)."""
    track_inner: float = 0.86
    """Inner edge of the ball track; the apron slopes down from here."""
    number_outer: float = 0.735
    """Outer edge of the rotor: the coloured number ring."""
    number_inner: float = 0.675
    """Inner edge of the number ring = outer edge of the pocket ring."""
    pocket_inner: float = 0.54
    """Inner edge of the pocket ring; the cone rises from here."""
    turret: float = 0.11
    """Radius of the chrome turret's hub."""
    fret_mm: float = 2.4
    """Width of a fret (metal wall between two pockets)."""
    deflector_radius: float = 0.80
    """Where the eight brass deflectors sit on the apron."""


GEOMETRY = WheelGeometry()

# Colours, BGR
_TABLE = (38, 92, 30)
_RIM = (28, 55, 90)
_TRACK = (100, 152, 196)
_APRON = (46, 80, 122)
_BRASS = (62, 160, 200)
_CONE = (42, 78, 124)
_CHROME = (196, 198, 202)
_GOLD = (70, 170, 205)
_WHITE = (236, 238, 240)
_BALL = (240, 243, 246)
_SKIN = (122, 158, 212)
_RING_COLOURS = {"red": (40, 34, 182), "black": (30, 29, 28), "green": (46, 142, 30)}
_POCKET_DARKEN = 0.86


@dataclass(frozen=True)
class WheelScene:
    """What is on the table: wheel, rotor angle, ball, markers, target, and optional tampering.

    * ``ball_state`` ``"in-pocket"``: the ball rests in pocket ``ball_number``, ``ball_offset_deg``
      from the pocket's centre (clockwise positive; at most the gap left between ball and frets).
    * ``"on-fret"``: the ball sits on the fret clockwise after pocket ``ball_number``,
      ``ball_offset_deg`` from the fret.
    * ``"moving"``: the ball at absolute angle ``ball_angle_deg``, motion-blurred by ``ball_blur_px``
      along the track (on the ball track unless ``ball_radius_frac`` puts it over the pockets).
    * ``"hidden"``: the ball in pocket ``ball_number`` but covered by a hand.
    * ``"absent"``: no ball.

    ``ball_radius_frac`` is the ball centre's distance from the wheel centre as a fraction of the
    bowl radius (``None``: a natural place for the state). ``colours_override`` replaces the
    pockets' colours clockwise from the first pocket (its length sets the pocket count) to draw a
    tampered wheel for the layout audit. ``ball_glare`` puts a specular spot of that strength over
    the ball (>= 0.9 washes it out: the expected read is then a GLARE decline).
    """

    layout: str = "french"
    rotor_angle_deg: float = 0.0
    ball_state: BallState = "in-pocket"
    ball_number: int | None = 0
    ball_offset_deg: float = 0.0
    ball_angle_deg: float | None = None
    ball_radius_frac: float | None = None
    ball_blur_px: float = 0.0
    ball_diameter_mm: float = 21.0
    wheel_diameter_mm: float = 560.0
    px_per_mm: float = 0.7
    centre_px: tuple[float, float] | None = None
    markers: bool = False
    surround: MarkerSurround = SURROUND
    target: TargetSpec | None = None
    target_top_left_px: tuple[float, float] | None = None
    table_bgr: tuple[int, int, int] = _TABLE
    ball_glare: float = 0.0
    colours_override: tuple[ColourName, ...] | None = None
    geometry: WheelGeometry = GEOMETRY

    def __post_init__(self) -> None:
        order_for(self.layout)  # raises on an unknown layout
        if self.ball_state not in BALL_STATES:
            raise ValueError(f"ball_state must be one of {BALL_STATES}, got {self.ball_state!r}")
        if not 400.0 <= self.wheel_diameter_mm <= 800.0:
            raise ValueError(f"wheel_diameter_mm must be within 400..800, got {self.wheel_diameter_mm}")
        if not 10.0 <= self.ball_diameter_mm <= 30.0:
            raise ValueError(f"ball_diameter_mm must be within 10..30, got {self.ball_diameter_mm}")
        if not 0.2 <= self.px_per_mm <= 3.0:
            raise ValueError(f"px_per_mm must be within 0.2..3.0, got {self.px_per_mm}")
        if self.colours_override is not None:
            if not 8 <= len(self.colours_override) <= 60:
                raise ValueError(f"colours_override needs 8..60 pockets, got {len(self.colours_override)}")
            bad = sorted({c for c in self.colours_override if c not in _RING_COLOURS})
            if bad:
                raise ValueError(f"colours_override has unknown colours {bad} (expected green, red, black)")
        if self.ball_state in ("in-pocket", "on-fret", "hidden"):
            if self.ball_number is None or not 0 <= self.ball_number <= 36:
                raise ValueError(f"ball_state {self.ball_state!r} needs ball_number 0..36, got {self.ball_number}")
            if self.pocket_count != 37:
                raise ValueError(f"a ball in a pocket needs the 37-pocket layout, not {self.pocket_count} pockets")
        if self.ball_state == "moving" and self.ball_angle_deg is None:
            raise ValueError("ball_state 'moving' needs ball_angle_deg")
        if self.ball_blur_px < 0 or self.ball_glare < 0:
            raise ValueError("ball_blur_px and ball_glare must not be negative")

    @property
    def pocket_count(self) -> int:
        return 37 if self.colours_override is None else len(self.colours_override)

    @property
    def pocket_colours(self) -> tuple[ColourName, ...]:
        """Colours clockwise from the first (0) pocket."""
        if self.colours_override is not None:
            return self.colours_override
        return tuple(colour(n) for n in order_for(self.layout))

    @property
    def bowl_radius_mm(self) -> float:
        return self.wheel_diameter_mm / 2.0

    @property
    def pitch_deg(self) -> float:
        return 360.0 / self.pocket_count

    def max_pocket_offset_deg(self, radius_mm: float) -> float:
        """Largest offset from the pocket centre at which the ball still clears both frets."""
        chord = 2 * np.pi * radius_mm / self.pocket_count - self.geometry.fret_mm - self.ball_diameter_mm
        return float(np.degrees(max(chord, 0.0) / 2.0 / radius_mm))

    def pocket_radius_range_mm(self) -> tuple[float, float]:
        """Range of the ball centre's distance from the wheel centre when the ball lies in a pocket."""
        g, r = self.geometry, self.bowl_radius_mm
        return (g.pocket_inner * r + 0.5 * self.ball_diameter_mm + 1.0,
                g.number_inner * r - 0.5 * self.ball_diameter_mm - 0.5)


@dataclass(frozen=True, eq=False)
class WheelTruth:
    """Ground truth of one rendered wheel frame; image coordinates are px of the final frame."""

    number: int | None
    """The winning number a reader must give, or ``None`` when it must decline."""
    decline: Decline | None
    """The decline reason a reader must give, or ``None`` when the frame shows a number."""
    ball_state: str
    ball_centre_px: tuple[float, float] | None
    ball_angle_deg: float | None
    """Absolute angle of the ball centre on the wheel plane (clockwise from +x)."""
    ball_pocket_offset_deg: float | None
    """Signed angle from the ball to the centre of the pocket under it (in-pocket and on-fret)."""
    wheel_centre_px: tuple[float, float]
    rim_ellipse_px: tuple[tuple[float, float], tuple[float, float], float]
    """Image of the ball track's outer edge as ``cv2.fitEllipse`` gives it: centre, full axes, angle."""
    rotor_angle_deg: float
    px_per_mm: float
    """World scale (before perspective)."""
    wheel_diameter_mm: float
    ball_diameter_mm: float
    pocket_count: int
    homography: np.ndarray = field(repr=False)
    """World px -> image px."""
    world_centre_px: tuple[float, float] = (0.0, 0.0)
    marker_corners_px: dict[int, np.ndarray] | None = field(default=None, repr=False)
    target_corners_px: np.ndarray | None = field(default=None, repr=False)


# --------------------------------------------------------------------------------------------- drawing


def _sample_grid(x0: int, y0: int, width: int, height: int, ss: int) -> tuple[np.ndarray, np.ndarray]:
    """Sub-pixel sample positions (ss x ss per pixel) of a pixel block, in px (pixel i covers i-0.5..i+0.5)."""
    sub = (np.arange(ss) + 0.5) / ss - 0.5
    xs = (np.arange(x0, x0 + width)[:, None] + sub[None, :]).ravel()
    ys = (np.arange(y0, y0 + height)[:, None] + sub[None, :]).ravel()
    return np.meshgrid(xs.astype(np.float32), ys.astype(np.float32))


def _box_down(samples: np.ndarray, ss: int) -> np.ndarray:
    """Average ss x ss sample blocks back to pixels."""
    h, w = samples.shape[0] // ss, samples.shape[1] // ss
    shape = (h, ss, w, ss) + samples.shape[2:]
    return samples.reshape(shape).mean(axis=(1, 3))


@lru_cache(maxsize=32)
def _aruco_cells(marker_id: int) -> np.ndarray:
    bits = cv2.aruco.generateImageMarker(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), marker_id, 6, 1)
    return bits == 0


@lru_cache(maxsize=16)
def _stator(size: tuple[int, int], centre: tuple[float, float], bowl_px: float, table: tuple[int, int, int],
            markers: MarkerSurround | None, px_per_mm: float, geometry: WheelGeometry) -> np.ndarray:
    """Table, bowl rim, ball track, apron with deflectors and the surround markers (BGR uint8, read-only)."""
    width, height = size
    ss = 2
    gx, gy = _sample_grid(0, 0, width, height, ss)
    dx, dy = gx - centre[0], gy - centre[1]
    r = np.hypot(dx, dy) / bowl_px
    g = geometry
    img = np.empty(gx.shape + (3,), dtype=np.float32)
    img[:] = table
    # table felt: faint weave so it is not a flat colour
    img *= (1.0 + 0.03 * np.sin(gx * 0.9) * np.sin(gy * 0.9))[..., None]
    # wooden rim, polished ball track, sloping apron: each a colour with a radial shading
    bands = ((1.0, _RIM, 0.85, 0.15, 1.0, g.rim_inner),
             (g.rim_inner, _TRACK, 0.9, 0.1, g.track_inner, g.rim_inner),
             (g.track_inner, _APRON, 0.8, 0.2, g.number_outer, g.track_inner))
    for outer, bgr, base, gain, lo, hi in bands:
        inside = r <= outer
        shade = base + gain * np.clip((r[inside] - lo) / (hi - lo), 0, 1)
        if bgr is _RIM:
            shade = base + gain * np.clip((1.0 - r[inside]) / (1.0 - g.rim_inner), 0, 1)
        img[inside] = np.array(bgr, np.float32) * shade[:, None]

    def box(cx_px: float, cy_px: float, half_px: float) -> tuple[slice, slice]:
        """Sample-grid slices covering a square of half-size ``half_px`` around a world point."""
        x0 = max(int((cx_px - half_px) * ss), 0)
        y0 = max(int((cy_px - half_px) * ss), 0)
        return slice(y0, max(int((cy_px + half_px) * ss) + 2, y0)), slice(x0, max(int((cx_px + half_px) * ss) + 2, x0))

    # eight brass deflectors, alternately along and across the slope
    for k in range(8):
        a = np.radians(22.5 + 45.0 * k)
        cx, cy = g.deflector_radius * np.cos(a), g.deflector_radius * np.sin(a)
        sl = box(centre[0] + cx * bowl_px, centre[1] + cy * bowl_px, 0.05 * bowl_px)
        ddx, ddy = dx[sl] / bowl_px - cx, dy[sl] / bowl_px - cy
        u = ddx * np.cos(a) + ddy * np.sin(a)       # radial
        v = -ddx * np.sin(a) + ddy * np.cos(a)      # tangential
        long_, short = (0.045, 0.018) if k % 2 == 0 else (0.018, 0.045)
        img[sl][np.abs(u) / long_ + np.abs(v) / short <= 1.0] = _BRASS
    if markers is not None:
        cell_mm = markers.size_mm / 6.0
        for marker_id, corners in markers.corners_mm().items():
            tl = corners[0] * px_per_mm + np.asarray(centre)
            span = markers.size_mm * px_per_mm
            quiet = cell_mm * px_per_mm
            sl = box(tl[0] + span / 2, tl[1] + span / 2, span / 2 + quiet + 1)
            u, v = gx[sl] - tl[0], gy[sl] - tl[1]
            patch = img[sl]
            patch[(u >= -quiet) & (u < span + quiet) & (v >= -quiet) & (v < span + quiet)] = 245.0
            inside = (u >= 0) & (u < span) & (v >= 0) & (v < span)
            cu = np.clip((u / (cell_mm * px_per_mm)).astype(int), 0, 5)
            cv_ = np.clip((v / (cell_mm * px_per_mm)).astype(int), 0, 5)
            patch[inside & _aruco_cells(marker_id)[cv_, cu]] = 18.0
    out = np.clip(_box_down(img, ss), 0, 255).round().astype(np.uint8)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=16)
def _rotor_texture(colours: tuple[str, ...], numbers: tuple[str, ...], bowl_px: float, px_per_mm: float,
                   geometry: WheelGeometry) -> tuple[np.ndarray, float]:
    """The rotor at angle 0 (pocket 0 centred on +x) at 2x: (BGR premultiplied by alpha + alpha, float32; centre).

    Drawn by point sampling 2 x 2 per texture pixel; only the rings are worked out pocket by pocket.
    """
    g = geometry
    n = len(colours)
    pitch = 2 * np.pi / n
    half = int(np.ceil(g.number_outer * bowl_px * _SS)) + 3
    side = 2 * half + 1
    centre = float(half)
    ss = 2
    gx, gy = _sample_grid(0, 0, side, side, ss)
    dx, dy = ((gx - centre) / _SS).ravel(), ((gy - centre) / _SS).ravel()   # 1x px from the wheel centre
    r = np.hypot(dx, dy) / bowl_px
    mm_per_unit = bowl_px / px_per_mm
    img = np.zeros((r.size, 3), dtype=np.float32)
    # cone: wood, lighter towards the turret
    cone = r < g.pocket_inner
    img[cone] = np.array(_CONE, np.float32) * (1.15 - 0.35 * np.clip((r[cone] - g.turret) /
                                                                        (g.pocket_inner - g.turret), 0, 1))[:, None]
    # turret: chrome hub and four arms
    metal = (r < g.turret) | ((r < 2.0 * g.turret) & ((np.abs(dx) < 0.012 * bowl_px) | (np.abs(dy) < 0.012 * bowl_px)))
    img[metal] = np.array(_CHROME, np.float32) * (0.75 + 0.25 * np.cos(r[metal] / (2 * g.turret) * np.pi))[:, None]
    # the rings: pockets (coloured bottoms, darker against the walls, metal frets) and the number ring
    ring = np.nonzero((r >= g.pocket_inner) & (r <= g.number_outer))[0]
    rr = r[ring]
    theta = np.mod(np.arctan2(dy[ring], dx[ring]) + pitch / 2, 2 * np.pi)   # 0 at the 0 pocket's first fret
    k = np.minimum((theta // pitch).astype(np.int32), n - 1)
    frac = theta - k * pitch
    fret_mm = np.minimum(frac, pitch - frac) * rr * mm_per_unit             # arc distance to the nearest fret
    palette = np.array([_RING_COLOURS[c] for c in colours], dtype=np.float32)
    colour_ = palette[k]
    pocket = rr < g.number_inner
    depth = np.clip((rr - g.pocket_inner) / (g.number_inner - g.pocket_inner), 0, 1)
    wall = 0.82 + 0.18 * np.sin(np.pi * depth) * np.clip(fret_mm / 4.0, 0.4, 1.0)
    colour_[pocket] *= (_POCKET_DARKEN * wall[pocket])[:, None]
    colour_[pocket & (fret_mm < g.fret_mm / 2)] = _CHROME
    colour_[(np.abs(rr - g.pocket_inner) * mm_per_unit < 0.9) | (np.abs(rr - g.number_inner) * mm_per_unit < 0.9)] \
        = _CHROME
    colour_[~pocket & (fret_mm < 0.45)] = _GOLD
    colour_[np.abs(rr - g.number_outer) * mm_per_unit < 0.6] = _GOLD
    img[ring] = colour_
    inside = (r <= g.number_outer).astype(np.float32)
    shape = (side * ss, side * ss)
    alpha = _box_down(inside.reshape(shape), ss)
    texture = _box_down((img * inside[:, None]).reshape(shape + (3,)), ss)
    _draw_numbers(texture, numbers, centre, bowl_px, g)
    stack = np.dstack([texture * alpha[..., None], alpha]).astype(np.float32)
    stack.setflags(write=False)
    return stack, centre


def _draw_numbers(texture: np.ndarray, numbers: tuple[str, ...], centre: float, bowl_px: float,
                  g: WheelGeometry) -> None:
    """White numbers on the number ring, their tops towards the outside."""
    n = len(numbers)
    ring_h = (g.number_outer - g.number_inner) * bowl_px * _SS
    scale = 0.036 * ring_h
    thickness = max(1, round(ring_h / 12))
    radius = (g.number_outer + g.number_inner) / 2 * bowl_px * _SS
    side = int(ring_h * 2) | 1
    for k, text in enumerate(numbers):
        patch = np.zeros((side, side), np.uint8)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
        cv2.putText(patch, text, (int((side - tw) / 2), int((side + th) / 2)), cv2.FONT_HERSHEY_SIMPLEX, scale, 255,
                    thickness, cv2.LINE_AA)
        a = 2 * np.pi * k / n
        rot = np.array([[-np.sin(a), -np.cos(a)], [np.cos(a), -np.sin(a)]])  # text up -> outwards, x -> tangent
        dst_c = np.array([centre + radius * np.cos(a), centre + radius * np.sin(a)])
        c_src = np.array([(side - 1) / 2, (side - 1) / 2])
        x0, y0 = max(int(dst_c[0] - side), 0), max(int(dst_c[1] - side), 0)
        x1, y1 = min(x0 + 2 * side, texture.shape[1]), min(y0 + 2 * side, texture.shape[0])
        m = np.hstack([rot, (dst_c - np.array([x0, y0]) - rot @ c_src)[:, None]]).astype(np.float32)
        mask = cv2.warpAffine(patch, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        alpha = (mask.astype(np.float32) / 255.0)[..., None]
        roi = texture[y0:y1, x0:x1]
        roi[:] = roi * (1 - alpha) + np.array(_WHITE, np.float32) * alpha


def _rotor_patch(stack: np.ndarray, t_centre: float, world_centre: tuple[float, float], angles_deg: np.ndarray,
                 size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The rotor turned by each angle in ``angles_deg`` (averaged: rotational motion blur), at 1x.

    Returns (BGR float32 premultiplied by alpha, alpha, x0, y0) of a patch of the world.
    """
    half = (stack.shape[0] - 1) / 2 / _SS
    x0 = max(int(np.floor(world_centre[0] - half)) - 1, 0)
    y0 = max(int(np.floor(world_centre[1] - half)) - 1, 0)
    x1 = min(int(np.ceil(world_centre[0] + half)) + 2, size[0])
    y1 = min(int(np.ceil(world_centre[1] + half)) + 2, size[1])
    w2, h2 = (x1 - x0) * _SS, (y1 - y0) * _SS
    dst_c = np.array([_SS * (world_centre[0] - x0) + (_SS - 1) / 2, _SS * (world_centre[1] - y0) + (_SS - 1) / 2])
    acc = np.zeros((h2, w2, 4), np.float32)
    for angle in angles_deg:
        a = np.radians(angle)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        m = np.hstack([rot, (dst_c - rot @ np.array([t_centre, t_centre]))[:, None]]).astype(np.float32)
        acc += cv2.warpAffine(stack, m, (w2, h2), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    acc /= len(angles_deg)
    small = cv2.resize(acc, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
    return small[..., :3], small[..., 3], x0, y0


def _composite(world: np.ndarray, premult: np.ndarray, alpha: np.ndarray, x0: int, y0: int) -> None:
    h, w = alpha.shape
    region = world[y0:y0 + h, x0:x0 + w].astype(np.float32)
    out = region * (1 - alpha[..., None]) + premult
    world[y0:y0 + h, x0:x0 + w] = np.clip(out, 0, 255).round().astype(np.uint8)


def _light_vector(nuisance: Nuisance) -> np.ndarray:
    """Unit vector towards the light in world px (y down); the nuisance angle is counter-clockwise, y up."""
    a = np.radians(nuisance.light_direction_deg)
    return np.array([np.cos(a), -np.sin(a)])


def _draw_ball(world: np.ndarray, centre: np.ndarray, radius_px: float, light: np.ndarray, blur_px: float,
               blur_angle_deg: float) -> None:
    """A shiny white sphere with its contact shadow, optionally motion-blurred along ``blur_angle_deg``."""
    reach = int(np.ceil(radius_px * 1.8 + blur_px / 2 + 3))
    cx, cy = round(centre[0]), round(centre[1])
    x0, y0 = cx - reach, cy - reach
    side = 2 * reach + 1
    ss = 3
    gx, gy = _sample_grid(x0, y0, side, side, ss)
    dx, dy = gx - centre[0], gy - centre[1]
    d2 = (dx * dx + dy * dy) / (radius_px * radius_px)
    inside = d2 <= 1.0
    nz = np.sqrt(np.clip(1.0 - d2, 0, 1))
    lx, ly = light * 0.45
    lz = np.sqrt(1 - lx * lx - ly * ly)
    lambert = np.clip((dx / radius_px) * lx + (dy / radius_px) * ly + nz * lz, 0, 1)
    shade = 0.62 + 0.38 * lambert
    ball = np.array(_BALL, np.float32)[None, None, :] * shade[..., None]
    cover = _box_down(inside.astype(np.float32), ss)
    colour_ = _box_down(ball * inside[..., None], ss)
    # contact shadow: a soft dark patch offset away from the light
    sx, sy = -light * radius_px * 0.35
    s2 = ((gx - centre[0] - sx) ** 2 + (gy - centre[1] - sy) ** 2) / (radius_px * 1.15) ** 2
    shadow = _box_down((0.55 * np.exp(-2.5 * s2 ** 2)).astype(np.float32), ss)
    premult = colour_
    alpha = cover
    if blur_px >= 1.0:
        premult = motion_blur(premult, blur_px, blur_angle_deg)
        alpha = motion_blur(alpha, blur_px, blur_angle_deg)
        shadow = motion_blur(shadow, blur_px, blur_angle_deg)
    hy0, hx0 = max(y0, 0), max(x0, 0)
    hy1, hx1 = min(y0 + side, world.shape[0]), min(x0 + side, world.shape[1])
    if hy0 >= hy1 or hx0 >= hx1:
        return
    sl = (slice(hy0 - y0, hy1 - y0), slice(hx0 - x0, hx1 - x0))
    region = world[hy0:hy1, hx0:hx1].astype(np.float32) * (1 - shadow[sl][..., None])
    out = region * (1 - alpha[sl][..., None]) + premult[sl]
    world[hy0:hy1, hx0:hx1] = np.clip(out, 0, 255).round().astype(np.uint8)
    if blur_px < 1.0:  # the specular highlight of a polished ball
        hl = centre + light * radius_px * 0.4
        add_glare(world, (float(hl[0]), float(hl[1])), max(radius_px * 0.22, 1.0), 0.9)


def _draw_hand(world: np.ndarray, ball_centre: np.ndarray, wheel_centre: np.ndarray, px_per_mm: float,
               rng: np.random.Generator) -> None:
    """A dealer's hand reaching in from outside the wheel and covering the ball."""
    radial = ball_centre - wheel_centre
    radial /= np.linalg.norm(radial)
    angle = np.degrees(np.arctan2(radial[1], radial[0])) + rng.uniform(-15, 15)
    centre = ball_centre + radial * (38 * px_per_mm) + rng.uniform(-3, 3, 2) * px_per_mm
    axes = (int(80 * px_per_mm), int(30 * px_per_mm))
    mask = np.zeros(world.shape[:2], np.uint8)
    cv2.ellipse(mask, (int(centre[0]), int(centre[1])), axes, angle, 0, 360, 255, -1, cv2.LINE_AA)
    for finger in (-1.5, -0.5, 0.5, 1.5):   # fingers towards the wheel centre
        tip = ball_centre - radial * (30 * px_per_mm) + np.array([-radial[1], radial[0]]) * finger * 11 * px_per_mm
        cv2.line(mask, (int(centre[0]), int(centre[1])), (int(tip[0]), int(tip[1])), 255,
                 max(int(9 * px_per_mm), 2), cv2.LINE_AA)
    alpha = cv2.GaussianBlur(mask, (0, 0), 1.0).astype(np.float32)[..., None] / 255.0
    skin = np.array(_SKIN, np.float32) * rng.uniform(0.85, 1.1)
    world[:] = np.clip(world * (1 - alpha) + skin * alpha, 0, 255).astype(np.uint8)


def _numbers_for(scene: WheelScene) -> tuple[str, ...]:
    order = order_for(scene.layout)
    return tuple(str(order[k]) if k < len(order) else "00" for k in range(scene.pocket_count))


def _ball_position(scene: WheelScene) -> tuple[float, float, float | None]:
    """(absolute angle deg, radius mm, signed offset from the pocket centre deg or None)."""
    g, bowl = scene.geometry, scene.bowl_radius_mm
    lo, hi = scene.pocket_radius_range_mm()
    if scene.ball_state in ("in-pocket", "on-fret", "hidden"):
        k = order_for(scene.layout).index(scene.ball_number)
        radius = scene.ball_radius_frac * bowl if scene.ball_radius_frac is not None else (lo + hi) / 2
        if scene.ball_state == "on-fret":
            offset = scene.pitch_deg / 2 + scene.ball_offset_deg
        else:
            offset = scene.ball_offset_deg
        return scene.rotor_angle_deg + k * scene.pitch_deg + offset, radius, offset
    if scene.ball_state == "moving":
        default = g.rim_inner * bowl - scene.ball_diameter_mm / 2 - 1.0
        radius = scene.ball_radius_frac * bowl if scene.ball_radius_frac is not None else default
        return float(scene.ball_angle_deg), radius, None
    return 0.0, 0.0, None


def _expected(scene: WheelScene) -> tuple[int | None, Decline | None]:
    if scene.ball_state == "in-pocket":
        if scene.ball_glare >= 0.9:
            return None, Decline.GLARE
        return scene.ball_number, None
    return None, {"on-fret": Decline.ON_FRET, "moving": Decline.MOTION, "hidden": Decline.HIDDEN,
                  "absent": Decline.HIDDEN}[scene.ball_state]


def _draw_world(scene: WheelScene, nuisance: Nuisance, rng: np.random.Generator, size: tuple[int, int],
                rotor_angles: np.ndarray | None = None) -> tuple[np.ndarray, dict]:
    """The clean top-down world image and the world-frame facts the truth is built from."""
    width, height = size
    centre = scene.centre_px if scene.centre_px is not None else ((width - 1) / 2.0, (height - 1) / 2.0)
    bowl_px = scene.bowl_radius_mm * scene.px_per_mm
    g = scene.geometry
    surround = scene.surround if scene.markers else None
    world = _stator((width, height), (float(centre[0]), float(centre[1])), float(bowl_px), tuple(scene.table_bgr),
                    surround, float(scene.px_per_mm), g).copy()
    stack, t_centre = _rotor_texture(scene.pocket_colours, _numbers_for(scene), float(bowl_px),
                                     float(scene.px_per_mm), g)
    angles = np.array([scene.rotor_angle_deg]) if rotor_angles is None else rotor_angles
    premult, cover, x0, y0 = _rotor_patch(stack, t_centre, centre, angles, size)
    _composite(world, premult, cover, x0, y0)
    light = _light_vector(nuisance)
    hub = np.asarray(centre) + light * g.turret * bowl_px * 0.45
    add_glare(world, (float(hub[0]), float(hub[1])), g.turret * bowl_px * 0.35, 0.85)

    facts: dict = {"centre": centre, "bowl_px": bowl_px}
    ball_angle, ball_r_mm, offset = _ball_position(scene)
    ball_world = None
    if scene.ball_state != "absent":
        a = np.radians(ball_angle)
        ball_world = np.asarray(centre) + ball_r_mm * scene.px_per_mm * np.array([np.cos(a), np.sin(a)])
        blur = scene.ball_blur_px if scene.ball_state == "moving" else 0.0
        _draw_ball(world, ball_world, scene.ball_diameter_mm / 2 * scene.px_per_mm, light, blur, -(ball_angle + 90))
        if scene.ball_state == "hidden":
            _draw_hand(world, ball_world, np.asarray(centre, float), scene.px_per_mm, rng)
        if scene.ball_glare > 0:
            add_glare(world, (float(ball_world[0]), float(ball_world[1])),
                      scene.ball_diameter_mm * scene.px_per_mm * 1.1, scene.ball_glare)
    facts.update(ball_world=ball_world, ball_angle=ball_angle if ball_world is not None else None, offset=offset)

    target_corners = None
    if scene.target is not None:
        spec = scene.target
        top_left = scene.target_top_left_px
        if top_left is None:
            top_left = (12.0, centre[1] - spec.height_mm * scene.px_per_mm / 2)
        far = np.array([top_left[0] + spec.width_mm * scene.px_per_mm, top_left[1] + spec.height_mm * scene.px_per_mm])
        nearest = np.clip(np.asarray(centre), np.asarray(top_left), far)
        if np.linalg.norm(nearest - np.asarray(centre)) < bowl_px:
            raise ValueError(f"target at {top_left} overlaps the wheel (bowl radius {bowl_px:.0f} px)")
        target_corners = draw_target(world, spec, top_left, scene.px_per_mm)
    facts["target_corners"] = target_corners
    return world, facts


def _truth(scene: WheelScene, facts: dict, homography: np.ndarray) -> WheelTruth:
    centre = np.asarray(facts["centre"], float)
    bowl_px = facts["bowl_px"]
    t = np.linspace(0, 2 * np.pi, 180, endpoint=False)
    rim = centre + scene.geometry.rim_inner * bowl_px * np.stack([np.cos(t), np.sin(t)], axis=1)
    (ex, ey), (ea, eb), eang = cv2.fitEllipse(map_points(homography, rim).astype(np.float32))
    number, decline = _expected(scene)
    ball_px = None
    if facts["ball_world"] is not None:
        ball_px = tuple(float(v) for v in map_points(homography, facts["ball_world"][None])[0])
    markers = None
    if scene.markers:
        markers = {i: map_points(homography, c * scene.px_per_mm + centre) for i, c in scene.surround.corners_mm().items()}
    target = None
    if facts["target_corners"] is not None:
        tc = facts["target_corners"]
        target = map_points(homography, tc.reshape(-1, 2)).reshape(tc.shape)
    wc = map_points(homography, centre[None])[0]
    return WheelTruth(
        number=number, decline=decline, ball_state=scene.ball_state, ball_centre_px=ball_px,
        ball_angle_deg=facts["ball_angle"], ball_pocket_offset_deg=facts["offset"],
        wheel_centre_px=(float(wc[0]), float(wc[1])), rim_ellipse_px=((ex, ey), (ea, eb), eang),
        rotor_angle_deg=scene.rotor_angle_deg, px_per_mm=scene.px_per_mm,
        wheel_diameter_mm=scene.wheel_diameter_mm, ball_diameter_mm=scene.ball_diameter_mm,
        pocket_count=scene.pocket_count, homography=homography, world_centre_px=(float(centre[0]), float(centre[1])),
        marker_corners_px=markers, target_corners_px=target,
    )


def render_wheel(scene: WheelScene, nuisance: Nuisance, rng: np.random.Generator, size: tuple[int, int] = (640, 480),
                 *, homography: np.ndarray | None = None) -> tuple[np.ndarray, WheelTruth]:
    """Render one camera frame of ``scene``; returns ``(BGR image, truth)``.

    ``homography`` (world px -> image px) fixes the camera; by default it is drawn from ``rng``
    at the nuisance's perspective strength.
    """
    world, facts = _draw_world(scene, nuisance, rng, size)
    image, homography = apply_nuisance(world, nuisance, rng, homography=homography)
    return image, _truth(scene, facts, homography)


def random_scene(rng: np.random.Generator, layout: str = "french", state: BallState = "in-pocket", *,
                 markers: bool = False, **overrides: object) -> WheelScene:
    """A scene with a random rotor angle and a random ball placement natural for ``state``.

    In a pocket the ball lies anywhere between the frets (touching one at most); on a fret its
    centre is within 1 degree of the fret; a moving ball is blurred by 12..60 px, mostly on the
    ball track, sometimes bouncing over the pockets.
    """
    base = WheelScene(layout=layout, markers=markers, ball_state="absent", **overrides)  # type: ignore[arg-type]
    number = int(rng.integers(0, 37))
    rotor = float(rng.uniform(0, 360))
    if state in ("in-pocket", "hidden", "on-fret"):
        lo, hi = base.pocket_radius_range_mm()
        radius = float(rng.uniform(lo, hi))
        if state == "on-fret":
            offset = float(rng.uniform(-1.0, 1.0))
        else:
            limit = base.max_pocket_offset_deg(radius)
            offset = float(rng.uniform(-limit, limit))
        return replace(base, ball_state=state, ball_number=number, rotor_angle_deg=rotor, ball_offset_deg=offset,
                       ball_radius_frac=radius / base.bowl_radius_mm)
    if state == "moving":
        g = base.geometry
        on_track = rng.uniform() < 0.7
        if on_track:
            radius = g.rim_inner * base.bowl_radius_mm - base.ball_diameter_mm / 2 - rng.uniform(0.5, 4.0)
        else:
            radius = float(rng.uniform(*base.pocket_radius_range_mm()))
        return replace(base, ball_state="moving", rotor_angle_deg=rotor, ball_angle_deg=float(rng.uniform(0, 360)),
                       ball_radius_frac=radius / base.bowl_radius_mm, ball_blur_px=float(rng.uniform(12, 60)))
    if state == "absent":
        return replace(base, rotor_angle_deg=rotor)
    raise ValueError(f"unknown ball state {state!r}")


# --------------------------------------------------------------------------------------------- clips


@dataclass(frozen=True, eq=False)
class SpinClipTruth:
    """Ground truth of a spin clip: directions and per-frame angles (degrees, clockwise seen from above)."""

    ball_direction: Direction
    rotor_direction: Direction
    fps: float
    ball_angles_deg: tuple[float, ...]
    rotor_angles_deg: tuple[float, ...]
    homography: np.ndarray = field(repr=False)
    settle_frame: int | None = None
    """Settling clips: first frame with the ball at rest in its pocket."""
    number: int | None = None
    """Settling clips: the winning number."""
    frame_truths: tuple[WheelTruth, ...] = field(default=(), repr=False)


def _sign(direction: Direction) -> float:
    return 1.0 if direction is Direction.CLOCKWISE else -1.0


def _clip_nuisance(rng: np.random.Generator, nuisance: Nuisance | None) -> Nuisance:
    nuisance = Nuisance.realistic(rng) if nuisance is None else nuisance
    return replace(nuisance, glare_spots=0)  # a fixed camera: glare stays on the turret and the ball


@dataclass(frozen=True)
class SpinKinematics:
    """How the ball and the rotor turn during a launch (degrees, clockwise seen from above, seconds).

    The ball slows a little over the filmed interval (by ``slowdown`` of its speed over ``span_s``);
    the rotor turns at a constant speed. ``exposure_s`` sets the motion blur of both.
    """

    ball_direction: Direction
    rotor_direction: Direction
    ball_deg_s: float
    rotor_deg_s: float
    ball0_deg: float
    rotor0_deg: float
    exposure_s: float
    span_s: float
    slowdown: float = 0.15

    @classmethod
    def draw(cls, rng: np.random.Generator, ball_direction: Direction, rotor_direction: Direction, span_s: float, *,
             ball_rps: tuple[float, float] = (1.0, 2.2), rotor_rpm: tuple[float, float] = (18.0, 35.0),
             exposure_s: tuple[float, float] = (1 / 500, 1 / 150)) -> SpinKinematics:
        """Speeds, exposure and starting angles drawn from the given ranges."""
        ball = _sign(ball_direction) * 360.0 * rng.uniform(*ball_rps)
        rotor = _sign(rotor_direction) * 6.0 * rng.uniform(*rotor_rpm)
        exposure = float(rng.uniform(*exposure_s))
        ball0, rotor0 = rng.uniform(0, 360, 2)
        return cls(ball_direction, rotor_direction, float(ball), float(rotor), float(ball0), float(rotor0),
                   exposure, span_s)

    def ball_speed_deg_s(self, t: float) -> float:
        return self.ball_deg_s * (1.0 - self.slowdown * t / self.span_s)

    def angles_at(self, t: float) -> tuple[float, float]:
        """(ball, rotor) angles at time ``t`` after the first frame."""
        return self.ball0_deg + self.ball_speed_deg_s(t) * t, self.rotor0_deg + self.rotor_deg_s * t


def render_spin_frame(base: WheelScene, kinematics: SpinKinematics, t: float, nuisance: Nuisance,
                      rng: np.random.Generator, size: tuple[int, int], homography: np.ndarray | None
                      ) -> tuple[np.ndarray, float, float]:
    """One frame of a spin in progress at time ``t``: the ball on the ball track, motion-blurred by the
    exposure, the rotor with its own rotation blur. Returns (image, ball angle, rotor angle)."""
    ball, rotor = kinematics.angles_at(t)
    track_r = base.geometry.rim_inner * base.bowl_radius_mm - base.ball_diameter_mm / 2 - 1.0
    blur_px = abs(np.radians(kinematics.ball_speed_deg_s(t))) * track_r * base.px_per_mm * kinematics.exposure_s
    arc = kinematics.rotor_deg_s * kinematics.exposure_s
    scene = replace(base, ball_state="moving", rotor_angle_deg=rotor, ball_angle_deg=ball, ball_blur_px=float(blur_px),
                    ball_radius_frac=track_r / base.bowl_radius_mm)
    world, _ = _draw_world(scene, nuisance, rng, size, rotor + np.linspace(-arc / 2, arc / 2, 5))
    image, _ = apply_nuisance(world, nuisance, rng, homography=homography)
    return image, float(ball), float(rotor)


def render_spin_clip(rng: np.random.Generator, layout: str, ball_direction: Direction, rotor_direction: Direction,
                     n_frames: int = 12, *, nuisance: Nuisance | None = None, fps: float = 30.0,
                     ball_rps: tuple[float, float] = (1.0, 2.2), rotor_rpm: tuple[float, float] = (18.0, 35.0),
                     exposure_s: tuple[float, float] = (1 / 500, 1 / 150), markers: bool = False,
                     size: tuple[int, int] = (640, 480), **scene_overrides: object
                     ) -> tuple[list[np.ndarray], SpinClipTruth]:
    """A clip of a spin in progress: the ball runs on the ball track (motion-blurred), the rotor turns.

    The camera is fixed (one homography for the whole clip); speeds and the exposure are drawn
    from the given ranges; the rotor's own rotation blur is rendered too.
    """
    if n_frames < 2:
        raise ValueError(f"a spin clip needs at least 2 frames, got {n_frames}")
    nuisance = _clip_nuisance(rng, nuisance)
    homography = perspective_homography(size, nuisance.perspective, rng)
    base = WheelScene(layout=layout, markers=markers, ball_state="moving", ball_angle_deg=0.0,
                      **scene_overrides)  # type: ignore[arg-type]
    kinematics = SpinKinematics.draw(rng, ball_direction, rotor_direction, n_frames / fps, ball_rps=ball_rps,
                                     rotor_rpm=rotor_rpm, exposure_s=exposure_s)
    frames, balls, rotors = [], [], []
    for i in range(n_frames):
        image, ball, rotor = render_spin_frame(base, kinematics, i / fps, nuisance, rng, size, homography)
        frames.append(image)
        balls.append(ball)
        rotors.append(rotor)
    return frames, SpinClipTruth(ball_direction, rotor_direction, fps, tuple(balls), tuple(rotors), homography)


def render_settle_clip(rng: np.random.Generator, layout: str = "french", n_frames: int = 30, *,
                       nuisance: Nuisance | None = None, fps: float = 30.0,
                       rotor_direction: Direction = Direction.CLOCKWISE, rest_from: int | None = None,
                       markers: bool = False, size: tuple[int, int] = (640, 480), **scene_overrides: object
                       ) -> tuple[list[np.ndarray], SpinClipTruth]:
    """A clip of the end of a game: the ball drops from the track, bounces over the pockets, then rests.

    From frame ``rest_from`` (default: two thirds of the clip) the ball lies still in its pocket
    and turns with the rotor. ``truth.settle_frame`` is that frame, ``truth.number`` the winner,
    ``truth.frame_truths`` each frame's own truth (moving frames must be declined).
    """
    if n_frames < 4:
        raise ValueError(f"a settling clip needs at least 4 frames, got {n_frames}")
    rest_from = int(n_frames * 2 / 3) if rest_from is None else rest_from
    if not 1 <= rest_from < n_frames:
        raise ValueError(f"rest_from must be within 1..{n_frames - 1}, got {rest_from}")
    nuisance = _clip_nuisance(rng, nuisance)
    homography = perspective_homography(size, nuisance.perspective, rng)
    final = random_scene(rng, layout, "in-pocket", markers=markers, **scene_overrides)
    omega_rotor = _sign(rotor_direction) * 6.0 * rng.uniform(15.0, 25.0)
    ball_sign = -_sign(rotor_direction)
    exposure = 1 / 400
    rotor0 = final.rotor_angle_deg - omega_rotor * rest_from / fps
    rest_angle, rest_r, _ = _ball_position(final)
    rel = rest_angle - final.rotor_angle_deg            # ball angle relative to the rotor at rest
    track_r = final.geometry.rim_inner * final.bowl_radius_mm - final.ball_diameter_mm / 2 - 1.0
    frames, truths, balls, rotors = [], [], [], []
    for i in range(n_frames):
        rotor = float(rotor0 + omega_rotor * i / fps)
        if i >= rest_from:
            scene = replace(final, rotor_angle_deg=rotor)
            blur = 0.0
            ball = rotor + rel
        else:
            left = (rest_from - i) / rest_from              # 1 at the start, -> 0 at rest
            ball = rotor + rel + ball_sign * 360.0 * 0.9 * left ** 1.5
            radius = rest_r + (track_r - rest_r) * min(1.0, 1.6 * left)
            speed = abs(np.radians(omega_rotor)) + np.radians(360.0 * 0.9 * 1.5 * left ** 0.5 / rest_from * fps)
            blur = max(speed * radius * final.px_per_mm * exposure, 12.0)
            scene = replace(final, ball_state="moving", rotor_angle_deg=rotor, ball_angle_deg=float(ball),
                            ball_radius_frac=radius / final.bowl_radius_mm, ball_blur_px=float(blur))
        arc = omega_rotor * exposure
        world, facts = _draw_world(scene, nuisance, rng, size, rotor + np.linspace(-arc / 2, arc / 2, 3))
        image, _ = apply_nuisance(world, nuisance, rng, homography=homography)
        frames.append(image)
        truths.append(_truth(scene, facts, homography))
        balls.append(float(ball))
        rotors.append(rotor)
    return frames, SpinClipTruth(Direction.CLOCKWISE if ball_sign > 0 else Direction.ANTICLOCKWISE, rotor_direction,
                                 fps, tuple(balls), tuple(rotors), homography, settle_frame=rest_from,
                                 number=final.ball_number, frame_truths=tuple(truths))
