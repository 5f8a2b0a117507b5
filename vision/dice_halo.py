"""A glare halo on the table joined to a die's body: cut it off, or tell it from a die's part.

:func:`without_glare` cuts a body to its die's square when what lies outside is a glare halo;
:func:`rest_is_no_die` judges what the dice's squares leave of a body (table the mask took in, a
glare halo, or the lit surround beyond the arena; never a die's side face or a die beneath), within
:func:`squares_explain_body`, the check that a body of touching dice is those dice and nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.dice_faults import chroma, die_red_floor, glare_mask, reddish_share, whiteness
from vision.dice_pips import fit_face
from vision.dice_region import cut_region
from vision.dice_types import DiceReaderConfig, Region, median_pip_area, pixel


def without_glare(region: Region, die_area: float | None, cfg: DiceReaderConfig) -> Region | None:
    """The region cut to the square of one die when what lies outside that square is a glare halo.

    A glare spot on the table next to a die is as light as the die and joins its body. The die's
    square is placed on its pip grid (centre and axes; for a 1, the outline without the glare)
    with the die's edge from the frame (+6 %). The part of the body outside it must be glare:
    under a third of a die's area whitened like glare (:func:`vision.dice_faults.glare_area`) or else an outline far
    softer than the die's own edges (at most a quarter of their share of steps >= 20 grey levels
    per px; a tenth when the part is larger than a die); it must hold no spot of a fifth of a
    pip's size (a side face's or another die's pips; on a whitened halo only round pip-sized
    ones count, its falloff makes crescents), and be less than :func:`halo_limit` dice; beside a red die it must
    hold almost no red die's pixel (as in :func:`is_glare_halo`). The cut region is then
    judged by every check again. ``None`` when any of this does not hold.
    """
    pips = region.pips
    if die_area is None or not 1 <= len(pips) <= 6 or region.blob.area < 1.1 * die_area:
        return None
    fit = region.single or fit_face(pips.centres, None, cfg.grid_tolerance)
    if fit is None:
        return None
    bright = glare_mask(region, cfg.glare_level)
    body = region.body
    if fit.face > 1:
        angle = fit.angle_deg
    else:  # one pip gives no axes: the outline of the body without the glare does
        core = body if bright is None else cv2.subtract(body, cv2.dilate(bright, np.ones((5, 5), np.uint8)))
        ys, xs = np.nonzero(core)
        if len(xs) < 0.5 * die_area:
            return None
        angle = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))[2]
    edge = float(np.sqrt(die_area)) * 1.06
    centre = (fit.centre[0] - region.origin[0], fit.centre[1] - region.origin[1])
    corners = cv2.boxPoints((centre, (edge, edge), angle))
    square = np.zeros_like(body)
    cv2.fillConvexPoly(square, np.round(corners * 16).astype(np.int32), 1, lineType=cv2.LINE_8, shift=4)
    inside = cv2.bitwise_and(body, square)
    outside = cv2.subtract(body, square)
    out_area = cv2.countNonZero(outside)
    in_area = cv2.countNonZero(inside)
    if out_area >= halo_limit(cfg) * die_area or in_area < 0.75 * die_area:
        return None
    # what lies outside the die must be glare, not another die or a side face: mostly whitened, or with an
    # outline far softer than the die's own edges (a die's edge is a step, a glare halo fades out)
    glare_share = 0.0 if bright is None else cv2.countNonZero(cv2.bitwise_and(outside, bright)) / out_area
    if region.translucent and reddish_share(region.patch, outside, die_red_floor(region)) >= 0.03:
        return None  # glare is white: a red die washed by glare stays red at its corners, a halo on the table not
    if glare_share < 0.3 or out_area >= die_area:
        grey = cv2.cvtColor(region.patch, cv2.COLOR_BGR2GRAY)
        strength = cv2.dilate(cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3),
                                            cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)) / 8.0,
                              np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        points = np.concatenate(contours).reshape(-1, 2)
        near = cv2.dilate(square, np.ones((5, 5), np.uint8))[points[:, 1], points[:, 0]] > 0
        sharp = strength[points[:, 1], points[:, 0]] >= 20.0
        if near.all() or (~near).sum() < 8:
            return None
        own, off = float(sharp[near].mean()), float(sharp[~near].mean())
        if own < 0.3 or off > 0.25 * own or (out_area >= die_area and off > 0.1 * own):
            return None
    # no spot of a fifth of a pip's size off the die (pips of a side face or of another die); on a glare halo,
    # whose falloff makes crescents of contrast, no round spot of pip size
    spots = region.candidates if glare_share >= 0.3 else region.all_found
    if len(spots):
        margin = max(3, round(0.12 * edge)) | 1  # a dark seam along the die's edge is not a spot off it
        off = cv2.dilate(square, np.ones((margin, margin), np.uint8))[pixel(spots.centres, region.origin,
                                                                              body.shape)] == 0
        if bool((off & (spots.areas >= 0.2 * median_pip_area(pips)) & (spots.elongation >= 0.15)).any()):  # not seams
            return None
    return cut_region(region, square, cfg)


def squares_explain_body(region: Region, squares: list[np.ndarray], die_area: float, cfg: DiceReaderConfig) -> bool:
    """Whether the dice's ``squares`` (uint8 masks of the patch, one per die read) explain the whole body.

    The squares barely overlap (under 0.12 of a die in all), each holds 0.6 of a die's area of the body,
    what they leave of it is thin side-face strips (gone after an opening as wide as a flat die's side
    face may be) or no die's (:func:`rest_is_no_die`), and no pip-sized spot on the dice's colour lies
    off them (a pip of a die under another, or of a wide side face; a dark gap between dice or a shaded
    seam is no pip).
    """
    body, origin = region.body, region.origin
    edge = float(np.sqrt(die_area))
    union = np.zeros_like(body)
    for square in squares:
        union |= square
    if sum(cv2.countNonZero(s) for s in squares) - cv2.countNonZero(union) > 0.12 * die_area:
        return False
    if any(cv2.countNonZero(cv2.bitwise_and(body, s)) < 0.6 * die_area for s in squares):
        return False
    rest = cv2.subtract(body if region.light is None else region.light, union)  # not the table dice enclose
    # a flat die's side faces are strips at most max_side of an edge wide, most of it under the square
    width = max(3, round((region.max_side + 0.03) * edge)) | 1
    rest = cv2.morphologyEx(rest, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width, width)))
    if cv2.countNonZero(rest) > 0.04 * die_area and not rest_is_no_die(region, rest, union, die_area, cfg):
        return False
    spots = region.all_found
    if len(spots):
        margin = max(3, round(0.2 * edge)) | 1  # a flat die's narrow side faces lie within this margin
        at = pixel(spots.centres, origin, body.shape)
        off = cv2.dilate(union, np.ones((margin, margin), np.uint8))[at] == 0
        if region.light is not None:
            off &= cv2.dilate(region.light, np.ones((3, 3), np.uint8))[at] > 0
        pip_area = median_pip_area(region.pips) or 0.02 * die_area
        if bool((off & (spots.areas >= 0.25 * pip_area) & (spots.areas <= 2.5 * pip_area)
                 & (spots.elongation >= 0.2)).any()):
            return False
    return True


def rest_is_no_die(region: Region, rest: np.ndarray, dice: np.ndarray, die_area: float, cfg: DiceReaderConfig) -> bool:
    """Whether ``rest`` (uint8 mask: the body outside the dice's squares ``dice``) holds no part of a die.

    Each part of it is judged alone; crumbs under 8 % of a die are dropped. Any other part must be
    table that the die mask took in, a glare halo on the table (all of them together under
    :func:`halo_limit` dice), or the lit surround beyond the configured arena (:func:`beyond_arena`).

    Table: of the table's hue (chromaticity, BGR over their sum, at most 0.4 times as far from the
    table's around the body as from the dice's, which differ by 0.02 or more; shade changes a die's
    brightness, not its hue) or, beside white dice, far more tinted than they are (chroma, max - min
    over max, 1.8 times theirs and 0.04 up: a white die stays neutral in shade); under half a die
    (under 1.5 dice when both hold: a stretch of lit table joining dice through their shadows), and
    not 40 grey levels whiter than the table (least channel: glare adds white light). Or, beside
    white dice, table in the dice's shade: under half a die, no whiter than the table around the
    body and nearer its hue than the dice's (a white die's face, even shaded, is whiter than the
    table it stands on; a red die's face is never white, so this is not used beside red dice). Or,
    beside white dice, a lit patch of table (pale felt, a lit stretch): not 40 grey levels whiter
    than the table, under 3/4 of a die (1.5 dice when of the table's hue; :func:`halo_limit` dice when the
    game's count is known, for a die lost in the patch leaves the frame a die short), and the body's outline
    along it fades out everywhere (:func:`fades_out`: a die's part keeps a die's edge along some
    stretch; the arena's rail line, sharp but no die's, does not count).

    Glare halo (:func:`is_glare_halo`): whiter than the table, with a core whiter than the dice, and an
    outline that fades out everywhere. Anything else may be a die's side face, a die under another,
    or a die washed by glare: the body is not read.
    """
    count, labels, stats, _ = cv2.connectedComponentsWithStats(rest)
    ring = region.table_ring()
    table = np.asarray(cv2.mean(region.patch, ring)[:3])
    colour = np.asarray(cv2.mean(region.patch, dice if region.light is None else dice & region.light)[:3])
    table_hue, dice_hue = table / max(float(table.sum()), 1.0), colour / max(float(colour.sum()), 1.0)
    hues_apart = np.linalg.norm(dice_hue - table_hue) >= 0.02
    white, _ = whiteness(region)
    table_white = cv2.mean(white, ring)[0]
    top = white[(dice if region.light is None else dice & region.light) > 0]
    dice_white = float(np.percentile(top, 90)) if len(top) else 255.0  # the dice's lit faces, not their pips
    glare = 0
    for label in range(1, count):
        area = stats[label, cv2.CC_STAT_AREA]
        if area < 0.08 * die_area:
            continue
        part = (labels == label).astype(np.uint8)
        if cfg.arena is not None and beyond_arena(region, part, cfg.arena):
            continue
        mean = np.asarray(cv2.mean(region.patch, part)[:3])
        hue = mean / max(float(mean.sum()), 1.0)
        to_table, to_dice = float(np.linalg.norm(hue - table_hue)), float(np.linalg.norm(hue - dice_hue))
        whiter = cv2.mean(white, part)[0] - table_white
        tinted = not region.translucent and chroma(mean) >= max(1.8 * chroma(colour), chroma(colour) + 0.04)
        table_hued = hues_apart and to_table <= 0.4 * to_dice
        if (tinted or table_hued) and whiter < 40.0 and area < (1.5 if tinted and table_hued else 0.5) * die_area:
            continue  # table the mask took in
        if (not region.translucent and whiter < 5.0 and to_table < to_dice
                and area < (2.5 if table_hued else 0.5) * die_area):
            continue  # beside white dice, table in shade: no lighter than the table around the body, nearer its hue
        # a die lost in a larger patch would leave the frame a die short when the game's count is known
        largest = (1.5 if table_hued else 0.75) if cfg.expected_dice is None else halo_limit(cfg)
        soft = not region.translucent and whiter < 40.0 and area < largest * die_area
        if soft and fades_out(region, part, dice, die_area):
            continue  # a lit patch of table beside white dice, its outline soft all along
        if not is_glare_halo(region, part, dice, die_area, white, table_white, dice_white):
            return False
        glare += area
    return glare < halo_limit(cfg) * die_area


def halo_limit(cfg: DiceReaderConfig) -> float:
    """The largest glare halo (in dice) that may be cut off a die's body: 2.5 dice, 8 when the game's count is known.

    A halo larger than a die could hide a die washed out by the glare. When the reader knows how many
    dice the game throws, a die lost so leaves the frame one die short and it is declined (wrong
    count), so a larger halo may be set aside; otherwise the body is not read.
    """
    return 2.5 if cfg.expected_dice is None else 8.0


def beyond_arena(region: Region, part: np.ndarray, arena: Sequence[tuple[float, float]]) -> bool:
    """Whether ``part`` (uint8 mask of the patch) is the lit surround beyond the arena: no die's part.

    The camera sees the whole arena, so a die's side face or a die beneath another lies inside it; a
    part reaching the frame's edge with over 65 % of its pixels outside the arena polygon (it may cross
    the arena's line where it joins a die) is the rail or desk beyond it, lighter than the table, that
    the die mask took in. (A die there would show pips, and spots off the dice's squares already keep
    the body from being read.)
    """
    ys, xs = np.nonzero(part)
    x0, y0 = region.origin
    height, width = region.frame.shape[:2]
    if not (xs.min() + x0 <= 1 or ys.min() + y0 <= 1 or xs.max() + x0 >= width - 2 or ys.max() + y0 >= height - 2):
        return False
    corners = np.round(np.asarray(arena, np.float64) - (x0, y0)).astype(np.int32)  # in the patch's px
    inside = cv2.fillPoly(np.zeros(part.shape, np.uint8), [corners], 1)
    return float(inside[ys, xs].mean()) < 0.35


def is_glare_halo(region: Region, part: np.ndarray, dice: np.ndarray, die_area: float, white: np.ndarray,
                  table_white: float, dice_white: float) -> bool:
    """Whether ``part`` (uint8 mask beside the dice ``dice``) is a glare halo on the table.

    Glare adds white light that fades out from a core: the part's least channel (smoothed) is on
    average 15 grey levels above the table's around the body and peaks 25 above the dice's lit faces
    (their 90th percentile: a die smeared by motion is never whiter than a die at rest). On red
    dice the part must hold almost no red die's pixel (under 3 %: red at least 1.8 times blue and green,
    and as bright as :func:`vision.dice_faults.die_red_floor`; a red die washed by glare stays red at its
    corners). On white dice the body's outline along the part must fade out everywhere (:func:`fades_out`).
    """
    if cv2.mean(white, part)[0] < table_white + 15.0:
        return False
    if cv2.minMaxLoc(white, part)[1] < dice_white + 25.0:
        return False
    if region.translucent:  # glare is white, a red die red to its corners even when glare washes its face
        return reddish_share(region.patch, part, die_red_floor(region)) < 0.03
    return fades_out(region, part, dice, die_area)


def fades_out(region: Region, part: np.ndarray, dice: np.ndarray, die_area: float) -> bool:
    """Whether the body's outline along ``part`` is soft everywhere: over every stretch of 0.4 of an edge
    the mean gradient is at most 0.65 of the mean along the dice ``dice``. Outline points in the
    band of the arena's line (:func:`on_arena_line`) count as soft: the rail's edge is sharp but no die's.

    A die, or the part of one left uncovered by another, keeps a die's edge along some stretch, about
    as strong as the dice's (a die washed by glare keeps its outline); a glare halo or a lit patch of
    table fades out.
    """
    points, strength, near = outline_strength(region, dice)
    by_part = cv2.dilate(part, np.ones((5, 5), np.uint8))[points[:, 1], points[:, 0]] > 0
    off = by_part & ~near
    strength = np.where(on_arena_line(region, points), 0.0, strength)  # the rail's edge: sharp, but no die's
    window = max(4, round(0.4 * float(np.sqrt(die_area))))
    if near.sum() < 8 or off.sum() < window:
        return False
    own = float(strength[near].mean())
    values = np.where(off, strength, 0.0)
    kernel = np.ones(window)
    sums = np.convolve(np.concatenate([values, values[:window - 1]]), kernel, "valid")
    full = np.convolve(np.concatenate([off, off[:window - 1]]).astype(float), kernel, "valid") >= window
    return bool(full.any()) and float(sums[full].max()) / window <= 0.65 * own


def on_arena_line(region: Region, points: np.ndarray) -> np.ndarray:
    """Which outline ``points`` (N, 2, patch px) lie in the arena line's band (:meth:`Region.arena_band`)."""
    band = region.arena_band()
    if band is None:
        return np.zeros(len(points), bool)
    return band[points[:, 1], points[:, 0]] > 0


def outline_strength(region: Region, dice: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The body's outline points in order (N, 2), the edge strength there (grey levels per px, 5 x 5 max),
    and which of them lie along the dice (``dice`` mask dilated by 2 px)."""
    outline = region.cache.get("outline")
    if outline is None:  # the body's own: the same for every part and every grouping judged on it
        grey = cv2.cvtColor(region.patch, cv2.COLOR_BGR2GRAY)
        strength = cv2.dilate(cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3),
                                            cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)) / 8.0, np.ones((5, 5), np.uint8))
        contours, _ = cv2.findContours(region.body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        points = max(contours, key=len).reshape(-1, 2)
        outline = region.cache["outline"] = (points, strength[points[:, 1], points[:, 0]])
    points, values = outline
    near = cv2.dilate(dice, np.ones((5, 5), np.uint8))[points[:, 1], points[:, 0]] > 0
    return points, values, near
