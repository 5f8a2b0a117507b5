"""The arena and the dice bodies in one frame: the first stage of the staged dice pipeline.

Method, at a working resolution (the frame averaged down to ``work_long_side_px`` on its longer side):

1. Each pixel's colour is its lightness (CIE L*) and its chromaticity (its channels' shares of their
   sum): a shadow changes the first only. The table's colour is modelled on a grid of cells: first the
   median over a window of coarse cells (a row of dice along a tray's wall fills under half of it), then
   again as the average of the pixels not taken for dice, so a cluster of dice does not tint the model.
   The model follows the light's gradient, a tinted cloth, a tray's floor and its walls.
2. A pixel's difference from the table is its distance from the model, with a darkening counted at
   ``shadow_weight`` and a change of chromaticity at ``chroma_weight``. The threshold follows the
   frame: a multiple of the median difference (the table's own grain), within ``min_difference`` ..
   ``max_difference``. Nothing here knows the dice's colour: white, black, red, marbled or
   translucent dice all differ from the table.
3. The mask is closed and its pip-sized holes filled. The arena is the largest connected stretch of
   table in it (a tray's wall, a cloth's border line, the desk's edge bound it), as its convex hull
   (which takes in the dice on it); the whole frame when it is small. Given the outline a lab told, the
   arena is the hull of both (the stretch stops short of the cloth's corners, where its cells mix with
   the border line). Only the arena is kept.
4. The die's edge is estimated from the regions that look like one die (square-ish; those filling
   their rectangle first), as their rectangles' shorter side (median weighted by area). Strips
   narrower than a share of that edge (a tray's wall meeting its floor) are opened out, holes up to a
   die's size filled (a white die's top the mask lost), sprawling regions (dice along a wall joined
   by its strip) opened to their dice's cores, and what is left of at least a share of a die's area
   is a body.

A body may hold one die, several touching dice, a die with its shadow or side face, or no die at
all (a glare spot, a stain): the next stage (:mod:`vision.dice_proposals`) proposes die squares per
body, and the reader decides what each is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.dice_stage_config import DiceStageConfig
from vision.frame import check_image

_NOISE_SAMPLE_STEP = 3
"""The frame's median difference is taken over every third pixel of every third row (an estimate of a
median needs no more)."""



def _lightness_table() -> np.ndarray:
    """CIE L* (scaled to 0..255) of each sRGB grey level: the sRGB curve undone, then L*'s cube root."""
    level = np.arange(256, dtype=np.float64) / 255.0
    linear = np.where(level <= 0.04045, level / 12.92, ((level + 0.055) / 1.055) ** 2.4)
    cube = np.where(linear > (6 / 29) ** 3, np.cbrt(linear), linear / (3 * (6 / 29) ** 2) + 4 / 29)
    return ((116.0 * cube - 16.0) * 255.0 / 100.0).astype(np.float32)


_LIGHTNESS = _lightness_table()
"""A grey level's lightness, the table for ``cv2.LUT``."""


@dataclass(frozen=True)
class TableColour:
    """The table's colour under the frame's light on a grid of cells: lightness (CIE L*, 0..255) and chromaticity
    (blue and green shares of the channels' sum, times ``chromaticity_scale``)."""

    cells: np.ndarray = field(repr=False)
    """(rows, columns, 3) float32, one colour per cell."""
    cell_px: float
    """A cell's side in frame pixels."""
    arena_colour: tuple[float, float, float]
    """The arena's own colour (the mean over the table in it)."""
    threshold: float
    """The difference from the table above which a pixel was taken for a die."""


@dataclass(frozen=True)
class Body:
    """One connected region that differs from the table: one die, touching dice, a die and its shadow, or none."""

    contour_px: np.ndarray = field(repr=False)
    """(N, 2) float32 outline in frame pixels."""
    area_px: float
    """Area inside the outline, frame pixels."""
    rect: tuple[tuple[float, float], tuple[float, float], float]
    """``cv2.minAreaRect`` of the outline, frame pixels: centre, (width, height), angle in degrees."""
    bbox: tuple[int, int, int, int]
    """x, y, width, height in frame pixels (the outline's bounding box)."""
    label: int
    """The body's value in :attr:`Bodies.labels`."""

    @property
    def centre_px(self) -> tuple[float, float]:
        """Centre of the body's rectangle, frame pixels."""
        return self.rect[0]


@dataclass(frozen=True)
class Bodies:
    """What the first stage found in a frame."""

    bodies: tuple[Body, ...]
    arena_px: np.ndarray = field(repr=False)
    """(N, 2) float32 convex polygon of the arena, frame pixels."""
    table: TableColour
    die_edge_px: float
    """The die's edge in frame pixels: estimated from the bodies that look like one die, else the configured
    size, else the typical body's size."""
    labels: np.ndarray = field(repr=False)
    """int32 image at the working resolution: 0 on the table, body ``label`` on its body."""
    scale: float
    """Working resolution over frame resolution (a frame pixel at ``x`` is at ``x * scale`` in :attr:`labels`)."""
    frame_size: tuple[int, int]
    """The frame's width and height, pixels."""
    shade: np.ndarray | None = field(default=None, repr=False)
    """uint8 image at the working resolution, 255 where a pixel differs from the table only by being darker
    (its chromaticity the table's): a shadow, never a die's face of the table's own colour."""
    off_table: np.ndarray | None = field(default=None, repr=False)
    """uint8 image at the working resolution, 255 where a pixel differs from the table, over the whole frame before
    the bodies were cut to the arena: beyond it lies a die thrown out of the arena (:mod:`vision.dice_beyond_arena`).
    None when the arena is the whole frame."""

    def shade_in(self, bbox: tuple[int, int, int, int]) -> np.ndarray:
        """bool mask (frame resolution) of the shaded pixels in ``bbox`` (x, y, width, height, frame px)."""
        x, y, width, height = bbox
        if self.shade is None or width <= 0 or height <= 0:
            return np.zeros((max(height, 1), max(width, 1)), bool)
        rows, columns = self.shade.shape
        xs, ys = np.arange(x, x + width), np.arange(y, y + height)
        # each frame pixel takes its working pixel (nearest-neighbour, as cv2.resize would): no full-frame resize
        cells_x = np.clip(xs * columns // self.frame_size[0], 0, columns - 1)
        cells_y = np.clip(ys * rows // self.frame_size[1], 0, rows - 1)
        window = self.shade[np.ix_(cells_y, cells_x)] > 0
        window[ys < 0, :] = window[ys >= self.frame_size[1], :] = False
        window[:, xs < 0] = window[:, xs >= self.frame_size[0]] = False
        return window

    def window(self, body: Body) -> tuple[np.ndarray, tuple[int, int]]:
        """bool mask of ``body`` over its box at the working resolution, and the box's corner there (x, y)."""
        x, y, width, height = (round(v * self.scale) for v in body.bbox)
        return self.labels[y:y + height + 1, x:x + width + 1] == body.label, (x, y)

    def body_mask(self, body: Body) -> np.ndarray:
        """uint8 mask (working resolution), 255 on ``body``."""
        return np.where(self.labels == body.label, 255, 0).astype(np.uint8)


def find_bodies(image: np.ndarray, config: DiceStageConfig | None = None,
                told_arena: np.ndarray | None = None) -> Bodies:
    """The arena, the table's colour and the dice bodies of a BGR (or grey) uint8 frame. ``told_arena``: the arena's
    outline the lab told (frame px, :mod:`bench.profiles.arena_outline`); the arena is then the convex hull of the
    stretch of table found and that outline, so a die in a corner the stretch's hull cuts off (the cloth's cells
    there mix with the border line and the light's fall-off) is a body too."""
    cfg = config or DiceStageConfig()
    image = check_image(image)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    height, width = image.shape[:2]
    scale = min(1.0, cfg.work_long_side_px / max(height, width))
    size = (max(round(width * scale), 16), max(round(height * scale), 16))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA) if scale < 1.0 else image
    features = _colour_features(small, cfg)
    cells, threshold, mask = _off_table(features, cfg)
    arena_colour, arena = _arena(features, mask, cfg)
    if arena is not None and told_arena is not None:
        told = np.round(np.asarray(told_arena, np.float64) * scale).astype(np.int32).reshape(-1, 2)
        arena = cv2.convexHull(np.concatenate([arena.reshape(-1, 2).astype(np.int32), told])).reshape(-1, 2)
    off_table = None if arena is None else mask
    if arena is not None:  # within the arena (a die against a tray's wall is: the arena's hull takes it in)
        inside = np.zeros_like(mask)
        cv2.fillConvexPoly(inside, arena, 255)
        mask = cv2.bitwise_and(mask, inside)
    regions = regions_of(mask)
    die_edge = _die_edge(regions, scale, (width, height), cfg)
    regions = _separated(mask, regions, die_edge * scale, cfg)
    bodies, labels = bodies_of(regions, mask.shape, scale, die_edge, cfg)
    table = TableColour(cells=cells, cell_px=cfg.table_cell_px / scale, arena_colour=arena_colour, threshold=threshold)
    if arena is None:
        arena = np.array([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]])
    return Bodies(bodies=bodies, arena_px=arena.astype(np.float32) / scale, table=table, die_edge_px=die_edge,
                  labels=labels, scale=scale, frame_size=(width, height),
                  shade=_shaded(features, cells, threshold, cfg), off_table=off_table)


def _shaded(features: np.ndarray, cells: np.ndarray, threshold: float, cfg: DiceStageConfig) -> np.ndarray:
    """uint8, 255 where a pixel is darker than the table model by more than half the threshold (weighted as
    :func:`_difference` weighs a darkening) while its chromaticity stays within the threshold of the table's."""
    delta = _table_delta(features, cells)
    darker = cv2.compare(cv2.extractChannel(delta, 0), -0.5 * threshold / cfg.shadow_weight, cv2.CMP_LT)
    chroma = cv2.sqrt(cv2.transform(cv2.multiply(delta, delta),
                                    np.array([[0.0, 1.0, 1.0]], np.float32) * cfg.chroma_weight ** 2))
    return cv2.bitwise_and(darker, cv2.compare(chroma, threshold, cv2.CMP_LE))


def _off_table(features: np.ndarray, cfg: DiceStageConfig) -> tuple[np.ndarray, float, np.ndarray]:
    """The table model (cells), the threshold and the mask (uint8, 255 off the table, pip-sized holes filled) of a
    frame's ``features`` (working resolution)."""
    rows, columns = features.shape[:2]
    grid = (max(columns // cfg.table_cell_px, 3), max(rows // cfg.table_cell_px, 3))
    coarse = (max(grid[0] // cfg.first_model_coarsening, 3), max(grid[1] // cfg.first_model_coarsening, 3))
    cells = cv2.medianBlur(cv2.resize(features, coarse, interpolation=cv2.INTER_AREA), cfg.table_median_cells)
    cells = cv2.resize(cells, grid, interpolation=cv2.INTER_LINEAR)
    difference = _difference(features, cells, cfg)
    first = cv2.compare(difference, _threshold(difference, cfg), cv2.CMP_GT)
    growth = 2 * cfg.first_mask_growth_px + 1
    cells = _table_cells(features, cv2.dilate(first, np.ones((growth, growth), np.uint8)), grid)
    difference = _difference(features, cells, cfg)
    threshold = _threshold(difference, cfg)
    mask = cv2.compare(difference, threshold, cv2.CMP_GT)
    pip_hole = (cfg.largest_pip_share * max(rows, columns)) ** 2
    return cells, threshold, _filled(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), pip_hole)


def _separated(mask: np.ndarray, regions: list[tuple[np.ndarray, list[np.ndarray], float]], edge: float,
               cfg: DiceStageConfig) -> list[tuple[np.ndarray, list[np.ndarray], float]]:
    """The regions of ``mask`` once its dice are told apart from what joins them, for a die's ``edge`` (working
    px): die-sized holes filled, strips opened out, faces seen only by their pips or their shaded edges (a white
    die on a pale table) added, sprawling regions (dice along a tray's wall) opened to their dice's cores."""
    faces = _faces_of_specks(regions, edge, cfg) + _hollow_dice(regions, edge, cfg)
    die_hole = (cfg.largest_hole_share * edge) ** 2
    mask = _filled(mask, die_hole)  # a white die's top on a pale table, ringed by its edges and shadow
    strip = round(cfg.strip_opening_share * edge)
    if strip >= 2:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (strip | 1, strip | 1))
        mask = _filled(opened(mask, kernel), die_hole)
    if faces:
        cv2.fillPoly(mask, faces, 255)
    regions = regions_of(mask)
    peeled = _peeled(mask, regions, edge, cfg)
    return regions if peeled is None else regions_of(peeled)


def bodies_of(regions: list[tuple[np.ndarray, list[np.ndarray], float]], shape: tuple[int, ...], scale: float,
            die_edge: float, cfg: DiceStageConfig) -> tuple[tuple[Body, ...], np.ndarray]:
    """The bodies (frame px) among the ``regions`` (working px) of at least ``min_body_share`` of a die's area, and
    their labels image (working resolution, ``shape``)."""
    labels = np.zeros(shape, np.int32)
    min_area = cfg.min_body_share * die_edge * die_edge
    bodies: list[Body] = []
    for contour, holes, pixels in regions:
        area = pixels / (scale * scale)
        if area < min_area:
            continue
        outline = contour.reshape(-1, 2).astype(np.float32) / scale
        label = len(bodies) + 1
        cv2.drawContours(labels, [contour], -1, label, thickness=cv2.FILLED)
        if holes:
            cv2.drawContours(labels, holes, -1, 0, thickness=cv2.FILLED)
        x, y, w, h = cv2.boundingRect(outline)
        bodies.append(Body(contour_px=outline, area_px=float(area), rect=cv2.minAreaRect(outline), bbox=(x, y, w, h),
                           label=label))
    return tuple(bodies), labels


def _faces_of_specks(regions: list[tuple[np.ndarray, list[np.ndarray], float]], edge: float,
                     cfg: DiceStageConfig) -> list[np.ndarray]:
    """Outlines (working px) of the faces whose pips are seen on their own: a die the colour of the table (a white
    die on a pale table) differs from it only at its pips. Specks of a pip's size (``pip_diameter_share`` of the
    ``edge``, working px) standing at most ``pip_link_share`` of the edge from one another, two or more and
    spanning at most ``max_face_spread_share`` of it, are one face: its outline is their hull grown to a die's."""
    low, high = cfg.pip_diameter_share[0] * edge, cfg.pip_diameter_share[1] * edge
    centres = []
    for contour, _, area in regions:
        x, y, w, h = cv2.boundingRect(contour)
        if low <= max(w, h) <= high and max(w, h) <= 2 * min(w, h) and area >= cfg.pip_roundness * np.pi / 4 * w * h:
            centres.append((x + w / 2.0, y + h / 2.0))
    if len(centres) < 2:
        return []
    points = np.array(centres, np.float32)
    apart = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    outlines = []
    for group in linked_groups(apart <= cfg.pip_link_share * edge):
        members = points[group]
        if not 2 <= len(members) <= 6 or greatest_distance(members) > cfg.max_face_spread_share * edge:
            continue
        angle = cv2.minAreaRect(members)[2]
        middle = (members.min(axis=0) + members.max(axis=0)) / 2.0
        square = cv2.boxPoints(((float(middle[0]), float(middle[1])), (edge, edge), angle))
        outlines.append(np.round(square).astype(np.int32))
    return outlines


def _hollow_dice(regions: list[tuple[np.ndarray, list[np.ndarray], float]], edge: float,
                 cfg: DiceStageConfig) -> list[np.ndarray]:
    """Convex outlines (working px) of the regions that are a die's outline without its top: a white die on a pale
    table shows its shaded edges and shadow, a ring or a crescent the opening would wipe out. Such a region's
    rectangle is a die's (sides within ``edge_range_share`` of the ``edge``, working px, and square-ish) and it
    fills under ``hollow_fill`` of it."""
    low, high = cfg.edge_range_share[0] * edge, cfg.edge_range_share[1] * edge
    outlines = []
    for contour, _, area in regions:
        (_, (w, h), _) = cv2.minAreaRect(contour)
        short, long = min(w, h), max(w, h)
        if low <= short and long <= high and long <= cfg.single_body_aspect * short and area < cfg.hollow_fill * w * h:
            outlines.append(cv2.convexHull(contour))
    return outlines


def greatest_distance(points: np.ndarray) -> float:
    """The greatest distance between two of ``points`` ((N, 2), N >= 1): whatever their turn."""
    return float(np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2).max())


def linked_groups(adjacent: np.ndarray) -> list[list[int]]:
    """The groups of indices joined by chains of ``adjacent`` pairs (a symmetric boolean matrix)."""
    unseen = set(range(len(adjacent)))
    groups = []
    while unseen:
        start = unseen.pop()
        group, frontier = [start], [start]
        while frontier:
            for other in np.flatnonzero(adjacent[frontier.pop()]):
                if int(other) in unseen:
                    unseen.discard(int(other))
                    group.append(int(other))
                    frontier.append(int(other))
        groups.append(sorted(group))
    return groups


def _peeled(mask: np.ndarray, regions: list[tuple[np.ndarray, list[np.ndarray], float]], edge: float,
            cfg: DiceStageConfig) -> np.ndarray | None:
    """``mask`` with each sprawling region of its ``regions`` (of several dice's area, filling little of its
    rectangle: dice along a tray's wall joined by the wall's strip) opened by a disc of ``peel_share`` of the
    die's ``edge`` (working px), which keeps the dice's cores and drops the strips joining them; ``None`` when
    no region sprawls."""
    size = round(cfg.peel_share * edge) | 1
    if size < 3:
        return None
    sprawling = [contour for contour, _, area in regions
                 if area > cfg.sprawl_dice * edge * edge and area < cfg.sprawl_fill * np.prod(cv2.minAreaRect(contour)[1])]
    if not sprawling:
        return None
    region = np.zeros_like(mask)
    cv2.drawContours(region, sprawling, -1, 255, thickness=cv2.FILLED)
    region = cv2.bitwise_and(region, mask)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    return cv2.bitwise_or(cv2.bitwise_xor(mask, region), opened(region, kernel))


def opened(mask: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """``mask`` opened by ``kernel``, what lies beyond the frame taken as table: a strip the frame's edge cuts (a
    tray's lip along it) is opened out like any other strip. (OpenCV's default border would erode nothing from
    the frame's side, and such a strip would stay a body, judged a smeared die.)"""
    return cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)


def regions_of(mask: np.ndarray) -> list[tuple[np.ndarray, list[np.ndarray], float]]:
    """Each connected region of ``mask``: its outer contour, its holes' contours and its area (pixels, holes out);
    a region inside another's hole is a region of its own."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return []
    parents = hierarchy[0][:, 3]
    depths = _depths(parents)
    holes: dict[int, list[np.ndarray]] = {}
    for contour, parent, depth in zip(contours, parents, depths, strict=True):
        if depth % 2 == 1:
            holes.setdefault(int(parent), []).append(contour)
    regions = []
    for index, (contour, depth) in enumerate(zip(contours, depths, strict=True)):
        if depth % 2 == 0:
            inner = holes.get(index, [])
            area = cv2.contourArea(contour) - sum(cv2.contourArea(hole) for hole in inner)
            regions.append((contour, inner, area))
    return regions


def _threshold(difference: np.ndarray, cfg: DiceStageConfig) -> float:
    """The difference from the table above which a pixel is a die's: ``noise_factor`` times the frame's median
    difference (the table's grain and noise), within ``min_difference`` .. ``max_difference``."""
    sample = difference[::_NOISE_SAMPLE_STEP, ::_NOISE_SAMPLE_STEP].ravel()
    typical = float(np.partition(sample, sample.size // 2)[sample.size // 2])
    return float(np.clip(cfg.noise_factor * typical, cfg.min_difference, cfg.max_difference))


def _colour_features(small: np.ndarray, cfg: DiceStageConfig) -> np.ndarray:
    """Each pixel's lightness (CIE L* of its luma, scaled 0..255 as OpenCV's Lab) and chromaticity (its blue and
    green shares of the sum of its channels, times ``chromaticity_scale``), float32: a shadow changes the first
    only."""
    lightness = cv2.LUT(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), _LIGHTNESS)
    pixels = small.astype(np.float32)
    shares = cv2.max(cv2.transform(pixels, np.ones((1, 3), np.float32)), 1.0)
    return cv2.merge([lightness, cv2.divide(cv2.extractChannel(pixels, 0), shares, scale=cfg.chromaticity_scale),
                      cv2.divide(cv2.extractChannel(pixels, 1), shares, scale=cfg.chromaticity_scale)])


def _difference(features: np.ndarray, cells: np.ndarray, cfg: DiceStageConfig) -> np.ndarray:
    """Each pixel's weighted distance from the table model ``cells`` (float32, working resolution): a darkening
    counted at ``shadow_weight``, a change of chromaticity at ``chroma_weight``."""
    delta = _table_delta(features, cells)
    lightness = cv2.extractChannel(delta, 0)
    lightness = cv2.scaleAdd(cv2.min(lightness, 0.0), cfg.shadow_weight, cv2.max(lightness, 0.0))
    chroma = cv2.transform(cv2.multiply(delta, delta), np.array([[0.0, 1.0, 1.0]], np.float32) * cfg.chroma_weight ** 2)
    return cv2.sqrt(cv2.add(cv2.multiply(lightness, lightness), chroma))


def _table_delta(features: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """Each pixel's features less the table model ``cells`` interpolated to the working resolution."""
    table = cv2.resize(cells, (features.shape[1], features.shape[0]), interpolation=cv2.INTER_LINEAR)
    return cv2.subtract(features, table)


def _table_cells(features: np.ndarray, dice: np.ndarray, grid: tuple[int, int]) -> np.ndarray:
    """The table model redone as the average of the pixels not in ``dice`` (uint8, nonzero on dice) per cell;
    cells that are nearly all dice borrow from their neighbours."""
    table = cv2.compare(dice, 0, cv2.CMP_EQ)
    weight = cv2.resize((table // 255).astype(np.float32), grid, interpolation=cv2.INTER_AREA)
    total = cv2.resize(cv2.bitwise_and(features, features, mask=table), grid, interpolation=cv2.INTER_AREA)
    return cell_average(weight, total)


def cell_average(weight: np.ndarray, total: np.ndarray) -> np.ndarray:
    """The average colour per cell (``total`` / ``weight``, the share of table in each cell); a cell with under a
    quarter of table borrows its neighbours' table, up to 8 cells away."""
    for _ in range(8):
        empty = cv2.compare(weight, 0.25, cv2.CMP_LT)
        if not cv2.countNonZero(empty):
            break
        weight = cv2.copyTo(cv2.blur(weight, (3, 3)), empty, weight)
        total = cv2.copyTo(cv2.blur(total, (3, 3)), empty, total)
    return total / cv2.max(weight, 1e-3)[..., None]


def _filled(mask: np.ndarray, largest_hole: float) -> np.ndarray:
    """``mask`` (uint8, 0/255) with its holes of at most ``largest_hole`` px filled (a die's pips are its own;
    the table enclosed by a ring of dice, or by a tray's wall, is not)."""
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    filled = mask.copy()
    if contours:
        depths = _depths(hierarchy[0][:, 3])
        holes = [c for c, depth in zip(contours, depths, strict=True)
                 if depth % 2 == 1 and cv2.contourArea(c) <= largest_hole]
        cv2.drawContours(filled, holes, -1, 255, thickness=cv2.FILLED)
    return filled


def _depths(parents: np.ndarray) -> list[int]:
    """How deep each contour of a ``cv2.RETR_TREE`` hierarchy lies (0: an outer boundary, 1: a hole in it, 2: a
    region inside that hole, ...) from each contour's parent."""
    depths = [-1] * len(parents)
    for index in range(len(parents)):
        chain = []
        node = index
        while node >= 0 and depths[node] < 0:
            chain.append(node)
            node = int(parents[node])
        depth = depths[node] if node >= 0 else -1
        for member in reversed(chain):
            depth += 1
            depths[member] = depth
    return depths


def _arena(features: np.ndarray, dice: np.ndarray, cfg: DiceStageConfig
           ) -> tuple[tuple[float, float, float], np.ndarray | None]:
    """The table's colour and the arena's convex polygon (working px; ``None`` for the whole frame).

    The arena is the largest connected stretch of table (pixels not in ``dice``, uint8 nonzero off the table):
    a tray's wall, a cloth's border line, the desk's edge bound it; its convex hull takes in the dice on it. With
    it go the stretches that dice and their shadows wall off from it (:func:`_walled_off`).
    The cells straddling the arena's edge mix the table with what is beyond it, so the stretch stops half a
    cell or more short of the edge: it is grown back by half a cell. A stretch under ``min_arena_share`` of the
    frame (or all of it) is not taken: the whole frame is the arena.
    """
    rows, columns = dice.shape
    half = (max(columns // 2, 1), max(rows // 2, 1))  # at half the working resolution: the hull needs no more
    table = cv2.compare(cv2.resize(dice, half, interpolation=cv2.INTER_AREA), 0, cv2.CMP_EQ)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(table, connectivity=4)
    if count <= 1:
        colour = cv2.mean(features)[:3]
        return (colour[0], colour[1], colour[2]), None
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    stretch = cv2.compare(labels, largest, cv2.CMP_EQ)
    colour = cv2.mean(features, cv2.resize(stretch, (columns, rows), interpolation=cv2.INTER_NEAREST))[:3]
    share = stats[largest, cv2.CC_STAT_AREA] / float(half[0] * half[1])
    if not cfg.min_arena_share <= share < cfg.whole_frame_share:
        return (colour[0], colour[1], colour[2]), None
    walled_off = _walled_off(stats, largest, half, cfg.walled_off_share)
    if walled_off.size:
        stretch = cv2.bitwise_or(stretch, np.isin(labels, walled_off).astype(np.uint8) * 255)
    grown = cv2.dilate(stretch, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (cfg.table_cell_px // 2 + 1,) * 2))
    outline, _ = cv2.findContours(grown, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(np.concatenate(outline)).reshape(-1, 2) * 2 + 1
    return (colour[0], colour[1], colour[2]), hull


def _walled_off(stats: np.ndarray, largest: int, size: tuple[int, int], share: float) -> np.ndarray:
    """The labels of the stretches of table (``stats`` of their connected components over an image of ``size``)
    that do not reach the image's edge and cover at least ``share`` of the ``largest`` one: corners of the arena
    walled off by dice and their shadows (:attr:`vision.dice_stage_config.DiceStageConfig.walled_off_share`)."""
    left, top = stats[:, cv2.CC_STAT_LEFT], stats[:, cv2.CC_STAT_TOP]
    right, bottom = left + stats[:, cv2.CC_STAT_WIDTH], top + stats[:, cv2.CC_STAT_HEIGHT]
    inside = (left > 0) & (top > 0) & (right < size[0]) & (bottom < size[1])
    large = stats[:, cv2.CC_STAT_AREA] >= share * stats[largest, cv2.CC_STAT_AREA]
    chosen = inside & large
    chosen[0] = chosen[largest] = False  # the background label (off the table) and the largest stretch itself
    return np.flatnonzero(chosen)


def _die_edge(regions: list[tuple[np.ndarray, list[np.ndarray], float]], scale: float, frame_size: tuple[int, int],
              cfg: DiceStageConfig) -> float:
    """The die's edge (frame px) from the ``regions`` (working resolution) that look like one die.

    Square-ish regions filling their rectangle count first, square-ish regions that do not (a white die whose top
    the mask lost) next; within each, the median of their rectangles' shorter sides weighted by their outline's
    area (specks of table texture that pass for small dice weigh little). Without either: the configured size,
    else the median region's.
    """
    least = cfg.min_die_edge_px * scale
    most = cfg.max_die_share * min(frame_size) * scale
    clean: list[tuple[float, float]] = []
    rough: list[tuple[float, float]] = []
    areas: list[float] = []
    for contour, _, area in regions:
        if area < least * least:
            continue
        (_, (w, h), _) = cv2.minAreaRect(contour)
        areas.append(area)
        short, long = min(w, h), max(w, h)
        edge = cfg.body_edge_to_die_edge * short / scale
        if short > most or long > cfg.single_body_aspect * short or \
                (cfg.die_edge_px is not None and not cfg.die_edge_px[0] <= edge <= cfg.die_edge_px[1]):
            continue
        outline = cv2.contourArea(contour)  # a white die's top on a pale table may be a hole in its body
        (clean if outline >= cfg.single_body_fill * w * h else rough).append((edge, outline))
    if clean or rough:
        edges, weights = np.array(clean or rough).T
        order = np.argsort(edges)
        cumulative = np.cumsum(weights[order])
        edge = float(edges[order[int(np.searchsorted(cumulative, cumulative[-1] / 2.0))]])
    elif cfg.die_edge_px is not None:
        edge = 0.5 * (cfg.die_edge_px[0] + cfg.die_edge_px[1])
    elif areas:
        edge = cfg.body_edge_to_die_edge * float(np.sqrt(np.median(areas))) / scale
    else:
        edge = cfg.min_die_edge_px
    if cfg.die_edge_px is not None:
        edge = float(np.clip(edge, *cfg.die_edge_px))
    return max(edge, cfg.min_die_edge_px)
