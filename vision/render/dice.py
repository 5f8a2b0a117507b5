"""A dice arena seen by a camera, with ground truth: what the simulated camera shows and what tests read.

The scene is three-dimensional where it matters for the reader: every die is a cube (rounded
edges, drilled pips) placed on the table plane and projected through a pinhole camera above
the table, so a flat die shows its top face and, away from the optical axis, a few pixels of
the side faces that look towards the camera, with their pips (the real webcam photos show the
same). A cocked die is the cube tilted on an edge (p217-2007/banca-francesa/7 b); a stacked
die is a cube resting on another (p217-2007/cussec/6), so it is nearer the camera and looks
larger. Shadows are cast along the light direction; a moving die is motion-blurred on its own.

The clean top-down "world" image (scale ``px_per_mm``) then goes through
:func:`vision.render.nuisance.apply_nuisance` (lighting, glare, perspective, blur, noise, JPEG);
truth positions are mapped into the final image with the returned homography.

Truth states the verdict the reader must give (:class:`DieTruth.expected_decline`,
:class:`DiceTruth.expected_decline`); a die whose pips a random glare spot washes out
partly (not fully) may be read or declined for glare (:attr:`DieTruth.glare_weight`).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np

from vision.declines import Decline
from vision.render.nuisance import Nuisance, add_glare, apply_nuisance, map_points, motion_blur

DieKind = Literal["opaque-white", "translucent-red"]
PipShape = Literal["round", "square-ish"]
Pose = Literal["flat", "cocked", "stacked"]

OVERHEAD_CAMERA_MM = 900.0
"""Height over the table of the camera looking straight down over the image centre (a scene's default camera)."""
FAULTS = ("cocked", "stacked", "outside-arena", "motion", "glare", "wrong-count")

#: pip centres of each face on the 3 x 3 grid, in units of the pip spacing (x right, y down)
PIP_LAYOUTS: dict[int, tuple[tuple[int, int], ...]] = {
    1: ((0, 0),),
    2: ((-1, -1), (1, 1)),
    3: ((-1, -1), (0, 0), (1, 1)),
    4: ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    5: ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    6: ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}
#: faces around each face, in cyclic order (opposite faces sum to 7)
_AROUND = {1: (2, 3, 5, 4), 6: (2, 4, 5, 3), 2: (1, 4, 6, 3), 5: (1, 3, 6, 4), 3: (1, 2, 6, 5), 4: (1, 5, 6, 2)}

class DicePlacementError(ValueError):
    """The dice asked for do not fit in the arena at this size."""


GLARE_DECLINE_WEIGHT = 0.85
"""A glare spot whose blend weight towards white reaches this over a top-face pip hides that pip: GLARE expected."""
GLARE_TOLERATED_WEIGHT = 0.35
"""Between this weight and :data:`GLARE_DECLINE_WEIGHT` the reader may read the die or decline it for glare."""


@dataclass(frozen=True)
class DieStyle:
    """How a die looks: material, pips, size (mm) and rounding of its edges."""

    kind: DieKind = "opaque-white"
    pip_shape: PipShape = "round"
    pip_ratio: float = 0.18
    """Pip diameter / edge."""
    edge_mm: float = 14.0
    corner_ratio: float = 0.14
    """Radius of the rounded corners of a face / edge."""
    pip_spread: float = 0.27
    """Distance of the corner pips from the face centre along each axis / edge."""
    body_bgr: tuple[int, int, int] | None = None
    """Lit top-face colour; ``None`` for the kind's default."""

    def __post_init__(self) -> None:
        if self.kind not in ("opaque-white", "translucent-red"):
            raise ValueError(f"die kind must be 'opaque-white' or 'translucent-red', got {self.kind!r}")
        if self.pip_shape not in ("round", "square-ish"):
            raise ValueError(f"pip_shape must be 'round' or 'square-ish', got {self.pip_shape!r}")
        if not 0.08 <= self.pip_ratio <= 0.25:
            raise ValueError(f"pip_ratio must be within 0.08..0.25, got {self.pip_ratio}")
        if not 0.18 <= self.pip_spread <= 0.34 or self.pip_spread + self.pip_ratio / 2 > 0.45:
            raise ValueError(f"pip_spread {self.pip_spread} with pip_ratio {self.pip_ratio} puts pips off the face")
        if not 0.0 <= self.corner_ratio <= 0.3 or not self.edge_mm > 0:
            raise ValueError(f"corner_ratio must be within 0..0.3 and edge_mm > 0, got {self.corner_ratio}, "
                             f"{self.edge_mm}")

    @property
    def body(self) -> tuple[int, int, int]:
        """Top-face colour (BGR) under full light."""
        if self.body_bgr is not None:
            return self.body_bgr
        return (46, 40, 212) if self.kind == "translucent-red" else (198, 205, 209)

    @property
    def pip(self) -> tuple[int, int, int]:
        """Pip paint colour (BGR)."""
        return (236, 238, 240) if self.kind == "translucent-red" else (32, 30, 34)

    @classmethod
    def casino_red(cls) -> DieStyle:
        """Casino craps die: 19 mm translucent red, white pips, other faces' pips faintly visible."""
        return cls(kind="translucent-red", pip_shape="round", pip_ratio=0.16, edge_mm=19.0, corner_ratio=0.06,
                   pip_spread=0.29)

    @classmethod
    def opaque_white(cls) -> DieStyle:
        """Opaque white die with black pips, 14 mm (banca francesa, cussec)."""
        return cls(kind="opaque-white", pip_shape="round", pip_ratio=0.19, edge_mm=14.0, corner_ratio=0.16,
                   pip_spread=0.27)

    @classmethod
    def real_photo(cls) -> DieStyle:
        """The look of the webcam photos: ivory 16 mm die, small black pips, well-rounded edges."""
        return cls(kind="opaque-white", pip_shape="round", pip_ratio=0.15, edge_mm=16.0, corner_ratio=0.2,
                   pip_spread=0.25, body_bgr=(206, 212, 200))


FELTS: dict[str, tuple[int, int, int]] = {
    "green": (48, 112, 28),
    "blue": (120, 62, 18),
    "red": (34, 26, 104),
    "wood": (150, 166, 164),
}
"""Table surfaces (BGR): casino felts and the light wooden desk of the webcam photos."""


@dataclass(frozen=True)
class DiePlacement:
    """One die on the table: face up, centre (mm, world frame), turn about the vertical, pose, motion.

    ``pose``: ``"flat"``; ``"cocked"`` (tilted by ``tilt_deg`` about its own x axis, one edge on
    the table); ``"stacked"`` (resting on the die ``rests_on``, an index into the scene's dice).
    """

    face: int
    centre_mm: tuple[float, float]
    angle_deg: float = 0.0
    pose: Pose = "flat"
    moving: bool = False
    tilt_deg: float = 0.0
    rests_on: int | None = None
    spin: int = 0
    """Which of the four neighbouring faces points along the die's +x (realism of the side faces)."""
    glare: bool = False
    """A saturated specular spot over this die's pips."""
    blur_px: float = 14.0
    blur_angle_deg: float = 0.0

    def __post_init__(self) -> None:
        if self.face not in PIP_LAYOUTS:
            raise ValueError(f"die face must be 1..6, got {self.face}")
        if self.pose not in ("flat", "cocked", "stacked"):
            raise ValueError(f"pose must be 'flat', 'cocked' or 'stacked', got {self.pose!r}")
        if (self.pose == "stacked") != (self.rests_on is not None):
            raise ValueError("a stacked die needs rests_on (and only a stacked die has one)")


@dataclass(frozen=True)
class DiceScene:
    """A dice arena: table colour, arena polygon (mm), scale, dice, light, camera, optional target."""

    felt_bgr: tuple[int, int, int]
    arena_mm: tuple[tuple[float, float], ...]
    px_per_mm: float
    dice: tuple[DiePlacement, ...]
    style: DieStyle = field(default_factory=DieStyle.opaque_white)
    texture: Literal["felt", "wood"] = "felt"
    light_direction_deg: float = 135.0
    light_elevation_deg: float = 55.0
    camera_mm: tuple[float, float, float] | None = None
    """Camera centre (x, y) over the table and its height, mm; ``None``: above the image centre,
    :data:`OVERHEAD_CAMERA_MM` up."""
    expected_dice: int | None = None
    """Dice the game throws (``None``: as many as drawn)."""
    target: object | None = None
    """A :class:`vision.render.target.TargetSpec` drawn flat on the table, or ``None``."""
    target_top_left_mm: tuple[float, float] = (5.0, 5.0)
    target_angle_deg: float = 0.0

    def __post_init__(self) -> None:
        if not self.px_per_mm > 0:
            raise ValueError(f"px_per_mm must be > 0, got {self.px_per_mm}")
        if len(self.arena_mm) < 3:
            raise ValueError(f"arena polygon needs at least 3 corners, got {len(self.arena_mm)}")
        for i, die in enumerate(self.dice):
            if die.rests_on is not None and not (0 <= die.rests_on < len(self.dice) and die.rests_on != i):
                raise ValueError(f"die {i} rests on die {die.rests_on}, which is not another die of the scene")


@dataclass(frozen=True)
class DieTruth:
    """Ground truth of one die, in final-image pixels."""

    face: int
    centre_px: tuple[float, float]
    """Centre of the face that points up (the one read)."""
    edge_px: float
    pip_diameter_px: float
    angle_deg: float
    corners_px: tuple[tuple[float, float], ...]
    """Corners of the up face, image px."""
    pose: Pose
    moving: bool
    expected_decline: Decline | None
    glare_weight: float = 0.0
    """Largest blend towards white a glare spot puts over a pip of the up face (0 none, 1 erased)."""

    @property
    def decline_tolerated(self) -> bool:
        """True when a GLARE decline is as right as a correct read (pips partly washed out)."""
        return self.expected_decline is None and self.glare_weight >= GLARE_TOLERATED_WEIGHT


@dataclass(frozen=True)
class DiceTruth:
    """Ground truth of a rendered frame: each die, the frame's expected verdict, scale and physical sizes."""

    dice: tuple[DieTruth, ...]
    expected_decline: Decline | None
    """The reason the reader must give for declining the frame, ``None`` when it must read it."""
    expected_dice: int | None
    px_per_mm: float
    edge_mm: float
    pip_diameter_mm: float
    arena_px: tuple[tuple[float, float], ...]
    homography: np.ndarray = field(repr=False)
    style: DieStyle = field(default_factory=DieStyle)
    target_corners_px: np.ndarray | None = field(default=None, repr=False)
    """True ArUco marker corners (N, 4, 2) in image px, when the scene has a target."""
    overhead_camera_mm: float | None = None
    """Height over the table of a camera looking straight down over the image centre; ``None`` for another camera."""

    @property
    def faces(self) -> tuple[int, ...]:
        """Faces up, sorted."""
        return tuple(sorted(d.face for d in self.dice))

    @property
    def decline_tolerated(self) -> bool:
        """True when declining the frame for glare is as right as reading it."""
        return self.expected_decline is None and any(d.decline_tolerated for d in self.dice)


# --------------------------------------------------------------------------- geometry


def _rotation(angle_deg: float, tilt_deg: float) -> np.ndarray:
    """3x3 rotation: tilt about the die's x axis, then turn about the vertical (image angle, ccw on screen)."""
    t = np.radians(tilt_deg)
    tilt = np.array([[1, 0, 0], [0, np.cos(t), -np.sin(t)], [0, np.sin(t), np.cos(t)]])
    a = np.radians(angle_deg)
    turn = np.array([[np.cos(a), np.sin(a), 0], [-np.sin(a), np.cos(a), 0], [0, 0, 1]])  # y down: ccw on screen
    return turn @ tilt


# unit cube faces: (normal axis, sign) -> corners in the die frame, ordered so (u, v) = (0,0),(1,0),(1,1),(0,1)
_FACE_CORNERS = {
    (2, 1): [(-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)],       # top (+z)
    (2, -1): [(-1, 1, -1), (1, 1, -1), (1, -1, -1), (-1, -1, -1)],  # bottom
    (0, 1): [(1, -1, 1), (1, 1, 1), (1, 1, -1), (1, -1, -1)],       # +x
    (1, 1): [(1, 1, 1), (-1, 1, 1), (-1, 1, -1), (1, 1, -1)],       # +y
    (0, -1): [(-1, 1, 1), (-1, -1, 1), (-1, -1, -1), (-1, 1, -1)],  # -x
    (1, -1): [(-1, -1, 1), (1, -1, 1), (1, -1, -1), (-1, -1, -1)],  # -y
}


def _face_numbers(top: int, spin: int) -> dict[tuple[int, int], int]:
    around = _AROUND[top]
    sides = [around[(spin + k) % 4] for k in range(4)]
    return {(2, 1): top, (2, -1): 7 - top, (0, 1): sides[0], (1, 1): sides[1], (0, -1): sides[2],
            (1, -1): sides[3]}


@dataclass(frozen=True)
class _Cube:
    vertices: dict[tuple[int, int], np.ndarray]  # face key -> (4, 3) world px corners (z up)
    numbers: dict[tuple[int, int], int]
    centre: np.ndarray  # (3,)


def _cube(die: DiePlacement, centre_xy: np.ndarray, edge: float, base_z: float) -> _Cube:
    rot = _rotation(die.angle_deg, die.tilt_deg if die.pose == "cocked" else 0.0)
    half = edge / 2.0
    corners = np.array([c for c in _FACE_CORNERS[(2, 1)] + _FACE_CORNERS[(2, -1)]], dtype=float) * half
    lowest = (corners @ rot.T)[:, 2].min()
    centre = np.array([centre_xy[0], centre_xy[1], base_z - lowest])
    vertices = {key: np.asarray(c, dtype=float) * half @ rot.T + centre for key, c in _FACE_CORNERS.items()}
    return _Cube(vertices, _face_numbers(die.face, die.spin), centre)


def _project(points: np.ndarray, camera: np.ndarray) -> np.ndarray:
    """Pinhole camera looking straight down from ``camera`` (x, y, height px): 3-D world px -> image-plane px."""
    scale = camera[2] / (camera[2] - points[..., 2])
    return camera[:2] + (points[..., :2] - camera[:2]) * scale[..., None]


# --------------------------------------------------------------------------- painting


def _rounded_square_sd(u: np.ndarray, v: np.ndarray, radius: float) -> np.ndarray:
    """Signed distance (face units) to a unit square with rounded corners, negative inside."""
    qx = np.abs(u - 0.5) - (0.5 - radius)
    qy = np.abs(v - 0.5) - (0.5 - radius)
    outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0))
    return outside + np.minimum(np.maximum(qx, qy), 0) - radius


class _Layer:
    """A premultiplied colour + alpha patch of the world image, painted face by face."""

    def __init__(self, x0: int, y0: int, width: int, height: int) -> None:
        self.x0, self.y0 = x0, y0
        ys, xs = np.mgrid[y0:y0 + height, x0:x0 + width].astype(np.float32)
        self.xs, self.ys = xs + 0.0, ys + 0.0
        self.colour = np.zeros((height, width, 3), np.float32)
        self.alpha = np.zeros((height, width), np.float32)

    def over(self, colour: np.ndarray, alpha: np.ndarray) -> None:
        """Composite a straight-colour layer on top."""
        self.colour = self.colour * (1 - alpha[..., None]) + colour * alpha[..., None]
        self.alpha = self.alpha * (1 - alpha) + alpha


def _face_uv(layer: _Layer, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    hom = cv2.getPerspectiveTransform(quad.astype(np.float32), unit)
    den = hom[2, 0] * layer.xs + hom[2, 1] * layer.ys + hom[2, 2]
    u = (hom[0, 0] * layer.xs + hom[0, 1] * layer.ys + hom[0, 2]) / den
    v = (hom[1, 0] * layer.xs + hom[1, 1] * layer.ys + hom[1, 2]) / den
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    return u, v, float(max(sides.min(), 1e-3))


def _pip_centres(face: int, spread: float) -> np.ndarray:
    return 0.5 + np.array(PIP_LAYOUTS[face], dtype=float) * spread


def _pip_cover(u: np.ndarray, v: np.ndarray, centres: np.ndarray, radius: float, shape: PipShape,
               scale: float, softness: float = 1.0) -> np.ndarray:
    cover = np.zeros_like(u)
    for cu, cv_ in centres:
        du, dv = np.abs(u - cu), np.abs(v - cv_)
        dist = np.hypot(du, dv) if shape == "round" else np.sqrt(np.sqrt(du**4 + dv**4))
        cover = np.maximum(cover, np.clip(0.5 - (dist - radius) * scale / softness, 0, 1))
    return cover


def _paint_face(layer: _Layer, quad: np.ndarray, number: int, style: DieStyle, light: float,
                ghosts: list[tuple[np.ndarray, float, float]] | None = None) -> None:
    """Paint one face (quad in image-plane px, corners at (u, v) = (0,0),(1,0),(1,1),(0,1))."""
    u, v, scale = _face_uv(layer, quad)
    sd = _rounded_square_sd(u, v, style.corner_ratio)
    alpha = np.clip(0.5 - sd * scale, 0, 1)
    if not alpha.any():
        return
    bevel = max(style.corner_ratio * 0.6, 0.04)
    shade = light * (1.0 - 0.3 * np.clip(1.0 + sd / bevel, 0, 1) ** 2)  # rounded edges fall off into shade
    body = np.asarray(style.body, np.float32)
    colour = body * shade[..., None]
    if ghosts:  # pips of the other faces seen through a translucent body
        for centres, radius, strength in ghosts:
            glow = _pip_cover(u, v, centres, radius, "round", scale, softness=3.0) * strength
            colour = colour + (np.asarray(style.pip, np.float32) * light - colour) * glow[..., None]
    pips = _pip_cover(u, v, _pip_centres(number, style.pip_spread), style.pip_ratio / 2, style.pip_shape, scale)
    pip_colour = np.asarray(style.pip, np.float32) * (0.55 + 0.45 * light)
    colour = colour * (1 - pips[..., None]) + pip_colour * pips[..., None]
    if style.kind == "translucent-red":
        alpha = alpha * 0.9
    layer.over(colour, alpha)


def _ghosts(cube: _Cube, style: DieStyle, top_quad: np.ndarray, camera: np.ndarray
            ) -> list[tuple[np.ndarray, float, float]]:
    """Pips of the bottom and side faces as seen through the top face (in top-face uv)."""
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    to_uv = cv2.getPerspectiveTransform(top_quad.astype(np.float32), unit)
    out = []
    for key, verts in cube.vertices.items():
        if key == (2, 1):
            continue
        number = cube.numbers[key]
        local = _pip_centres(number, style.pip_spread)
        a, b, d = verts[0], verts[1], verts[3]
        points3 = a + local[:, :1] * (b - a) + local[:, 1:] * (d - a)
        image = _project(points3, camera)
        uv = cv2.perspectiveTransform(image.reshape(-1, 1, 2).astype(np.float32), to_uv).reshape(-1, 2)
        strength = 0.3 if key == (2, -1) else 0.22
        radius = style.pip_ratio / 2 * (1.0 if key == (2, -1) else 0.55)
        out.append((uv.astype(float), radius, strength))
    return out


def _side_light(normal: np.ndarray, light_dir: np.ndarray) -> float:
    return float(0.5 + 0.35 * max(0.0, normal[:2] @ light_dir) + 0.4 * max(0.0, normal[2]))


# --------------------------------------------------------------------------- the background


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    small = rng.standard_normal((cells[1], cells[0])).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _background(scene: DiceScene, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """The table (float32 BGR): cloth with fibre noise, or a desk with wood grain; a darker rail and a line outside."""
    width, height = size
    warm = None
    if scene.texture == "wood":
        ys = np.arange(height, dtype=np.float32)[:, None]
        warp = _smooth_noise(rng, (height, width), (6, 5)) * 18.0 + np.arange(width, dtype=np.float32)[None] * 0.08
        grain = 0.5 + 0.5 * np.sin((ys + warp) * np.float32(2 * np.pi / float(rng.uniform(14, 26))))
        grain = grain * grain * grain
        tone = 1.0 - 0.07 * grain + _smooth_noise(rng, (height, width), (160, 24)) * 0.02
        warm = 10.0 * grain  # darker grain lines are warmer
    else:
        fibre = np.empty((height, width), np.float32)
        cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))
        cv2.randn(fibre, 0.0, 0.025)
        tone = 1.0 + fibre + _smooth_noise(rng, (height, width), (5, 4)) * 0.025
    arena = np.round(np.asarray(scene.arena_mm, np.float64) * scene.px_per_mm * 16).astype(np.int32)
    if scene.texture == "felt":  # a casino table's rail is darker than its cloth; a desk has none
        inside = np.zeros((height, width), np.uint8)
        cv2.fillPoly(inside, [arena], 255, lineType=cv2.LINE_AA, shift=4)
        tone = tone * (0.72 + (0.28 / 255.0) * cv2.GaussianBlur(inside, (0, 0), 1.0).astype(np.float32))
    line = np.zeros((height, width), np.uint8)
    cv2.polylines(line, [arena], True, 255, 2, lineType=cv2.LINE_AA, shift=4)
    tone = tone * (1.0 - (0.35 / 255.0) * line.astype(np.float32))
    channels = [tone * np.float32(c) for c in scene.felt_bgr]
    if warm is not None:
        channels[0] = channels[0] - warm
    return np.clip(cv2.merge(channels), 0, 255)


# --------------------------------------------------------------------------- rendering


def _light_vector(scene: DiceScene) -> np.ndarray:
    a = np.radians(scene.light_direction_deg)
    return np.array([np.cos(a), -np.sin(a)])  # image px, y down: towards the light


def _camera(scene: DiceScene, size: tuple[int, int]) -> np.ndarray:
    if scene.camera_mm is None:
        return np.array([size[0] / 2.0, size[1] / 2.0, OVERHEAD_CAMERA_MM * scene.px_per_mm])
    return np.asarray(scene.camera_mm, float) * scene.px_per_mm


def _cubes(scene: DiceScene) -> list[_Cube]:
    edge = scene.style.edge_mm * scene.px_per_mm
    cubes: list[_Cube | None] = [None] * len(scene.dice)

    def build(i: int, depth: int = 0) -> _Cube:
        if cubes[i] is not None:
            return cubes[i]
        die = scene.dice[i]
        if die.rests_on is not None and depth > len(scene.dice):
            raise ValueError("stacked dice rest on each other in a loop")
        base = 0.0 if die.rests_on is None else float(
            max(v[:, 2].max() for v in build(die.rests_on, depth + 1).vertices.values()))
        cubes[i] = _cube(die, np.asarray(die.centre_mm) * scene.px_per_mm, edge, base)
        return cubes[i]

    return [build(i) for i in range(len(scene.dice))]


def _cast_shadow(shadow: np.ndarray, cube: _Cube, scene: DiceScene) -> None:
    """Fill the die's shadow on the table: every vertex pushed along the light onto the table."""
    light = _light_vector(scene)
    tan_e = np.tan(np.radians(scene.light_elevation_deg))
    all_v = np.concatenate(list(cube.vertices.values()))
    cast = all_v[:, :2] - light[None] * (all_v[:, 2:] / tan_e)
    hull = cv2.convexHull(np.round(cast * 4).astype(np.int32))
    cv2.fillConvexPoly(shadow, hull, 255, lineType=cv2.LINE_AA, shift=2)


def _render_die(world: np.ndarray, cube: _Cube, die: DiePlacement, scene: DiceScene, camera: np.ndarray) -> None:
    style = scene.style
    height, width = world.shape[:2]
    light = _light_vector(scene)
    all_v = np.concatenate(list(cube.vertices.values()))
    image_pts = _project(all_v, camera)
    pad = 3 + (int(die.blur_px) if die.moving else 0)
    x0, y0 = np.floor(image_pts.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(image_pts.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if x1 <= x0 or y1 <= y0:
        return
    layer = _Layer(int(x0), int(y0), int(x1 - x0), int(y1 - y0))
    faces = []
    for key, verts in cube.vertices.items():
        centre = verts.mean(axis=0)
        normal = (centre - cube.centre) / np.linalg.norm(centre - cube.centre)
        if normal @ (camera - centre) <= 0:  # faces away from the camera
            continue
        faces.append((float(np.linalg.norm(camera - centre)), key, verts, normal))
    top_key = max(faces, key=lambda f: f[3][2])[1]
    for _, key, verts, normal in sorted(faces, key=lambda f: -f[0]):  # far faces first
        quad = _project(verts, camera)
        ghosts = None
        if style.kind == "translucent-red" and key == top_key:
            ghosts = _ghosts(cube, style, quad, camera)
        _paint_face(layer, quad, cube.numbers[key], style, _side_light(normal, light), ghosts)
    colour, alpha = layer.colour, layer.alpha
    if die.moving:
        colour = motion_blur(colour, die.blur_px, die.blur_angle_deg)
        alpha = motion_blur(alpha, die.blur_px, die.blur_angle_deg)
    patch = world[y0:y1, x0:x1]
    world[y0:y1, x0:x1] = patch * (1 - alpha[..., None]) + colour


def _paint_shadow(world: np.ndarray, shadow: np.ndarray, edge_px: float) -> np.ndarray:
    soft = cv2.GaussianBlur(shadow, (0, 0), max(edge_px * 0.08, 1.0)).astype(np.float32) / 255.0
    return world * (1 - 0.45 * soft[..., None])


def _top_face(cube: _Cube) -> tuple[tuple[int, int], np.ndarray]:
    """The face that points most upwards and its 3-D corners."""
    return max(cube.vertices.items(), key=lambda kv: kv[1].mean(axis=0)[2])


def _glare_weight(points: np.ndarray, spot: tuple[float, float], radius: float, strength: float) -> float:
    d2 = ((points - np.asarray(spot)) ** 2).sum(axis=1)
    return float(np.clip(strength * 1.6 * np.exp(-d2 / (2 * (radius / 1.5) ** 2)), 0, 1).max())


def _predicted_glare_spots(nuisance: Nuisance, rng: np.random.Generator, size: tuple[int, int]
                           ) -> list[tuple[float, float]]:
    """The random glare spots apply_nuisance will draw (it draws them first, two uniforms each, after lighting)."""
    if nuisance.glare_spots <= 0 or nuisance.glare_strength <= 0:
        return []
    twin = copy.deepcopy(rng)
    return [(float(twin.uniform(0, size[0])), float(twin.uniform(0, size[1]))) for _ in range(nuisance.glare_spots)]


def render_dice(scene: DiceScene, nuisance: Nuisance, rng: np.random.Generator,
                size: tuple[int, int] = (640, 480)) -> tuple[np.ndarray, DiceTruth]:
    """Draw ``scene`` as a camera frame of ``size`` (width, height); returns ``(BGR image, truth)``."""
    width, height = size
    world = _background(scene, size, rng)
    target_corners = None
    if scene.target is not None:
        from vision.render.target import draw_target

        canvas = np.clip(world, 0, 255).astype(np.uint8)
        target_corners = draw_target(canvas, scene.target,
                                     tuple(np.asarray(scene.target_top_left_mm) * scene.px_per_mm),
                                     scene.px_per_mm, scene.target_angle_deg)
        world = canvas.astype(np.float32)
    camera = _camera(scene, size)
    cubes = _cubes(scene)
    edge_px = scene.style.edge_mm * scene.px_per_mm
    shadow = np.zeros((height, width), np.uint8)
    for cube in cubes:  # shadows first: every die sits on top of every shadow
        _cast_shadow(shadow, cube, scene)
    world = _paint_shadow(world, shadow, edge_px)
    order = sorted(range(len(cubes)), key=lambda i: cubes[i].centre[2])  # lower dice first
    for i in order:
        _render_die(world, cubes[i], scene.dice[i], scene, camera)
    world_u8 = np.clip(world, 0, 255).astype(np.uint8)

    # glare over a die's pips (fault) is specular: drawn after the lighting, so done on the final frame
    glare_dice = [i for i, d in enumerate(scene.dice) if d.glare]
    spots = _predicted_glare_spots(nuisance, rng, size)
    finish_later = bool(glare_dice)
    base_nuisance = dataclasses.replace(nuisance, noise_sigma=0.0, jpeg_quality=None) if finish_later else nuisance
    image, homography = apply_nuisance(world_u8, base_nuisance, rng)

    dice_truth = []
    arena_px = map_points(homography, np.asarray(scene.arena_mm) * scene.px_per_mm)
    for i, (cube, die) in enumerate(zip(cubes, scene.dice, strict=True)):
        key, verts = _top_face(cube)
        quad_world = _project(verts, camera)
        number = cube.numbers[key]
        a, b, d = verts[0], verts[1], verts[3]
        local = _pip_centres(number, scene.style.pip_spread)
        pips_world = _project(a + local[:, :1] * (b - a) + local[:, 1:] * (d - a), camera)
        weight = max([_glare_weight(pips_world, s, nuisance.glare_radius_px, nuisance.glare_strength)
                      for s in spots], default=0.0)
        quad = map_points(homography, quad_world)
        pips_img = map_points(homography, pips_world)
        if die.glare:
            radius = float(np.clip(edge_px * 0.35, 8, 40))
            spot = pips_img[int(rng.integers(len(pips_img)))] if number > 1 else pips_img[0]
            spot = spot + rng.uniform(-0.1, 0.1, 2) * edge_px
            add_glare(image, (float(spot[0]), float(spot[1])), radius, 1.0)
            weight = max(weight, _glare_weight(pips_img, tuple(spot), radius, 1.0))
        centre = quad.mean(axis=0)
        side = float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)))
        direction = quad[1] - quad[0]
        angle = float(np.degrees(np.arctan2(-direction[1], direction[0])) % 90.0)
        scale_here = side / edge_px
        dice_truth.append(DieTruth(
            face=number, centre_px=(float(centre[0]), float(centre[1])), edge_px=side,
            pip_diameter_px=scene.style.pip_ratio * edge_px * scale_here, angle_deg=angle,
            corners_px=tuple((float(x), float(y)) for x, y in quad), pose=die.pose, moving=die.moving,
            expected_decline=_die_decline(die, centre, arena_px, weight), glare_weight=weight))
    if finish_later:
        image = _finish(image, nuisance, rng)

    frame_decline = _frame_decline(scene, dice_truth)
    target_img = None if target_corners is None else map_points(homography, target_corners.reshape(-1, 2)
                                                                  ).reshape(target_corners.shape)
    truth = DiceTruth(
        dice=tuple(dice_truth), expected_decline=frame_decline, expected_dice=scene.expected_dice,
        px_per_mm=scene.px_per_mm, edge_mm=scene.style.edge_mm,
        pip_diameter_mm=scene.style.edge_mm * scene.style.pip_ratio,
        arena_px=tuple((float(x), float(y)) for x, y in arena_px), homography=homography, style=scene.style,
        target_corners_px=target_img, overhead_camera_mm=OVERHEAD_CAMERA_MM if scene.camera_mm is None else None)
    return image, truth


def _finish(image: np.ndarray, nuisance: Nuisance, rng: np.random.Generator) -> np.ndarray:
    """Sensor noise and JPEG after a late overlay (the same last steps as apply_nuisance)."""
    if nuisance.noise_sigma > 0:
        noise = rng.normal(0.0, nuisance.noise_sigma, image.shape).astype(np.float32)
        image = np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    if nuisance.jpeg_quality is not None:
        ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(nuisance.jpeg_quality)])
        if ok:
            image = cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    return image


def _die_decline(die: DiePlacement, centre: np.ndarray, arena_px: np.ndarray, glare_weight: float
                 ) -> Decline | None:
    if die.pose == "cocked":
        return Decline.COCKED
    if die.pose == "stacked":
        return Decline.STACKED
    if cv2.pointPolygonTest(arena_px.astype(np.float32), (float(centre[0]), float(centre[1])), False) < 0:
        return Decline.OUTSIDE_ARENA
    if die.moving:
        return Decline.MOTION
    if die.glare or glare_weight >= GLARE_DECLINE_WEIGHT:
        return Decline.GLARE
    return None


_PRIORITY = (Decline.STACKED, Decline.COCKED, Decline.OUTSIDE_ARENA, Decline.MOTION, Decline.GLARE)


def _frame_decline(scene: DiceScene, dice: list[DieTruth]) -> Decline | None:
    reasons = {d.expected_decline for d in dice} - {None}
    for reason in _PRIORITY:
        if reason in reasons:
            return reason
    if scene.expected_dice is not None and len(scene.dice) != scene.expected_dice:
        return Decline.WRONG_COUNT
    return None


# --------------------------------------------------------------------------- random scenes


def _footprint(centre: np.ndarray, edge: float, angle_deg: float, grow: float = 1.0) -> np.ndarray:
    a = np.radians(angle_deg)
    ux = np.array([np.cos(a), -np.sin(a)]) * edge / 2 * grow
    uy = np.array([np.sin(a), np.cos(a)]) * edge / 2 * grow
    return np.array([centre - ux - uy, centre + ux - uy, centre + ux + uy, centre - ux + uy], np.float32)


def _overlaps(poly: np.ndarray, others: list[np.ndarray]) -> bool:
    for other in others:
        area, _ = cv2.intersectConvexConvex(poly, other)
        if area > 1e-3:
            return True
    return False


def _inside(poly: np.ndarray, arena: np.ndarray, margin: float) -> bool:
    return all(cv2.pointPolygonTest(arena, (float(x), float(y)), True) >= margin for x, y in poly)


def random_dice_scene(rng: np.random.Generator, n_dice: int, style: DieStyle, *, faults: tuple[str, ...] = (),
                      felt: str | None = None, size: tuple[int, int] = (640, 480),
                      edge_px: tuple[float, float] = (30.0, 56.0), touch_probability: float = 0.35,
                      oblique: bool = False, arena_px: Sequence[tuple[float, float]] | None = None) -> DiceScene:
    """A random arena with ``n_dice`` dice of ``style`` (faces uniform, any rotation, touching often).

    ``faults`` injects decline cases (see :data:`FAULTS`): a cocked die leaning on another or the
    wall, a die stacked on another, a die outside the arena, a moving (blurred) die, a glare spot
    over a die's pips, or one die more or fewer than the game expects (``expected_dice``).
    ``oblique`` puts the camera low and in front of the table, as in the webcam photos, so side
    faces show widely. ``arena_px``: the arena's outline in the frame of a camera fixed over the table (the dice
    are laid within it); None: an outline drawn afresh for each scene, as a camera moved between throws sees it.
    The same random draws are taken either way, so the scene is otherwise the one drawn without it.
    """
    if not 1 <= n_dice <= 8:
        raise ValueError(f"n_dice must be within 1..8, got {n_dice}")
    unknown = set(faults) - set(FAULTS)
    if unknown:
        raise ValueError(f"unknown faults {sorted(unknown)}; known: {FAULTS}")
    if "stacked" in faults and n_dice < 2:
        raise ValueError("a stacked die needs at least 2 dice")
    width, height = size
    px_per_mm = float(rng.uniform(*edge_px)) / style.edge_mm
    if felt is None:
        choices = ["green", "blue", "red", "wood"] if style.kind == "opaque-white" else ["green", "blue", "red"]
        felt = str(rng.choice(choices))
    felt_bgr = tuple(int(np.clip(c * rng.uniform(0.85, 1.15), 0, 255)) for c in FELTS[felt])
    texture = "wood" if felt == "wood" else "felt"
    edge = style.edge_mm * px_per_mm
    margin_px = float(rng.uniform(0.25, 0.6)) * edge + 12
    if "outside-arena" in faults:
        margin_px = 1.5 * edge + 10  # room for a whole die between the arena and the frame's edge
    arena = np.array([[margin_px, margin_px], [width - margin_px, margin_px],
                      [width - margin_px, height - margin_px], [margin_px, height - margin_px]], np.float32)
    arena += rng.uniform(-6, 6, arena.shape).astype(np.float32)
    if arena_px is not None:
        arena = np.asarray(arena_px, np.float32)

    count = n_dice
    expected = n_dice
    if "wrong-count" in faults:
        count = n_dice + 1 if (n_dice == 1 or rng.random() < 0.5) else n_dice - 1
    outside_index = int(rng.integers(count)) if "outside-arena" in faults else -1

    placed: list[DiePlacement] = []
    polys: list[np.ndarray] = []
    for i in range(count):
        angle = float(rng.uniform(0, 360))
        face = int(rng.integers(1, 7))
        spin = int(rng.integers(4))
        for attempt in range(400):
            if i == outside_index:
                centre = _outside_spot(rng, arena, edge, size)
            elif polys and rng.random() < touch_probability and attempt < 200:
                centre = _touching_spot(rng, polys[int(rng.integers(len(polys)))], edge, angle)
            else:
                centre = np.array([rng.uniform(0, width), rng.uniform(0, height)])
            poly = _footprint(centre, edge, angle, grow=1.04)
            frame = np.array([[2, 2], [width - 2, 2], [width - 2, height - 2], [2, height - 2]], np.float32)
            in_frame = _inside(poly, frame, 1.0 if i == outside_index else edge * 0.3)
            if i == outside_index:
                ok = in_frame and cv2.pointPolygonTest(arena, tuple(map(float, centre)), True) < -edge * 0.5
            else:
                ok = in_frame and _inside(poly, arena, 2.0)
            if ok and not _overlaps(poly, polys):
                break
        else:
            raise DicePlacementError(f"could not place {count} dice of {edge:.0f} px in the arena")
        polys.append(poly)
        placed.append(DiePlacement(face=face, centre_mm=(float(centre[0] / px_per_mm), float(centre[1] / px_per_mm)),
                                   angle_deg=angle, spin=spin))

    if "cocked" in faults:
        k = int(rng.integers(count))
        placed[k] = dataclasses.replace(placed[k], pose="cocked", tilt_deg=float(rng.choice([-1, 1]) *
                                                                                 rng.uniform(24, 40)))
    if "stacked" in faults:
        lower = int(rng.integers(count))
        upper = (lower + 1 + int(rng.integers(count - 1))) % count
        base = placed[lower]
        direction = rng.uniform(0, 2 * np.pi)
        offset = rng.uniform(0.28, 0.42) * style.edge_mm
        centre = (base.centre_mm[0] + offset * np.cos(direction), base.centre_mm[1] + offset * np.sin(direction))
        turn = base.angle_deg + float(rng.choice([-1, 1]) * rng.uniform(15, 40))
        placed[upper] = dataclasses.replace(placed[upper], pose="stacked", rests_on=lower, centre_mm=centre,
                                            angle_deg=turn)
    if "motion" in faults:
        k = int(rng.integers(count))
        placed[k] = dataclasses.replace(placed[k], moving=True, blur_px=float(rng.uniform(0.3, 0.6) * edge),
                                        blur_angle_deg=float(rng.uniform(0, 180)))
    if "glare" in faults:
        k = int(rng.integers(count))
        placed[k] = dataclasses.replace(placed[k], glare=True)

    camera = None
    if oblique:
        camera = (width / 2 / px_per_mm, (height + rng.uniform(1.0, 1.6) * height) / px_per_mm,
                  float(rng.uniform(5.5, 8.0)) * height / px_per_mm)
    return DiceScene(felt_bgr=felt_bgr, arena_mm=tuple((float(x / px_per_mm), float(y / px_per_mm)) for x, y in arena),
                     px_per_mm=px_per_mm, dice=tuple(placed), style=style, texture=texture,
                     light_direction_deg=float(rng.uniform(0, 360)), light_elevation_deg=float(rng.uniform(45, 70)),
                     camera_mm=camera, expected_dice=expected)


def _outside_spot(rng: np.random.Generator, arena: np.ndarray, edge: float, size: tuple[int, int]) -> np.ndarray:
    width, height = size
    side = int(rng.integers(4))
    inset = edge * 0.75 + 4
    if side == 0:
        return np.array([rng.uniform(inset, width - inset), inset])
    if side == 1:
        return np.array([rng.uniform(inset, width - inset), height - inset])
    if side == 2:
        return np.array([inset, rng.uniform(inset, height - inset)])
    return np.array([width - inset, rng.uniform(inset, height - inset)])


def _touching_spot(rng: np.random.Generator, other: np.ndarray, edge: float, angle: float) -> np.ndarray:
    """A centre where a die of ``angle`` just touches the die ``other`` (bisection on the distance)."""
    centre = other.mean(axis=0)
    direction = rng.uniform(0, 2 * np.pi)
    unit = np.array([np.cos(direction), np.sin(direction)])
    near, far = 0.0, edge * 2.0
    for _ in range(14):
        mid = (near + far) / 2
        area, _ = cv2.intersectConvexConvex(_footprint(centre + unit * mid, edge, angle, 1.04), other)
        if area > 1e-3:
            near = mid
        else:
            far = mid
    return centre + unit * (far + rng.uniform(0.0, 1.5))
