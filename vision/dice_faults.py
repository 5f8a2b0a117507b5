"""Checks for what makes a die's read unsafe: motion, glare, a tilted (cocked) die, a glare spot taken for a die.

Each check looks at one body (:class:`vision.dice_types.Region`) and says what is wrong ('' or
``None`` when nothing is), or measures it (glare area); the verdicts (:mod:`vision.dice_verdict`,
:mod:`vision.dice_square_verdict`) turn these into declines (:class:`vision.declines.Decline`):
cocked (p217-2007/banca-francesa/7 b), motion, glare.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.dice_pips import FaceFit, Pips
from vision.dice_segment import redder
from vision.dice_square import SquareRead
from vision.dice_types import DiceReaderConfig, Region, depth_map, mid, pixel


def motion_problem(region: Region, limit: float, body: np.ndarray | None = None) -> str | None:
    """Anisotropy of the gradients over the die (structure tensor): a moving die is smeared along one axis.

    The arena's line, a straight dark line on the table, is anisotropic wherever it crosses a body: its band
    (:meth:`Region.arena_band`) is left out, unless that leaves under half of the body's neighbourhood.
    """
    body = region.body if body is None else body
    tensor = region.cache.get("tensor")
    if tensor is None:  # the products of the gradients, three channels (xx, yy, xy), once per patch
        grey = cv2.cvtColor(region.patch, cv2.COLOR_BGR2GRAY)
        gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
        tensor = region.cache["tensor"] = cv2.merge([gx * gx, gy * gy, gx * gy])
    near = cv2.dilate(body, np.ones((5, 5), np.uint8))
    line = region.arena_band()
    if line is not None:
        off_line = cv2.subtract(near, line)
        if cv2.countNonZero(off_line) >= 0.5 * cv2.countNonZero(near):
            near = off_line
    jxx, jyy, jxy = cv2.mean(tensor, near)[:3]
    tr, det = jxx + jyy, jxx * jyy - jxy * jxy
    disc = np.sqrt(max(tr * tr / 4 - det, 0.0))
    ratio = (tr / 2 - disc) / max(tr / 2 + disc, 1e-6)
    if ratio < limit:
        return f"gradient anisotropy {ratio:.2f} < {limit:.2f}"
    return None


def glare_mask(region: Region, glare_level: float) -> np.ndarray | None:
    """uint8 mask of the glare on the region's body (see :func:`glare_area`), ``None`` when there is none."""
    smooth, level = whiteness(region)
    bright = ((smooth >= level + glare_level * (255.0 - level)) & (region.body > 0)).astype(np.uint8)
    return bright if bright.any() else None


def glare_area(region: Region, pip_area: float, glare_level: float) -> float:
    """Area (px) of glare on the die: a whitening broader than a pip; 0 when none.

    The least of the three channels (white light raises all three) is smoothed at about a
    pip's size, so a pip (white on a red die) fades while a glare spot, broader, keeps its
    level; glare is where the smoothed level stays above the body's by ``glare_level`` of the
    way to white, over more than two pips' area, or where it reaches a third of that under
    one of the pips read (a pip lit or faked by glare).
    """
    body = region.body
    inside = cv2.compare(body, 0, cv2.CMP_GT)
    if region.glare_zone is not None:
        inside = cv2.bitwise_and(inside, cv2.compare(region.glare_zone, 0, cv2.CMP_GT))
    if not cv2.countNonZero(inside):
        return 0.0
    smooth, level = whiteness(region)
    bright = cv2.bitwise_and(cv2.compare(smooth, level + glare_level * (255.0 - level), cv2.CMP_GE), inside)
    area = float(cv2.countNonZero(bright))
    pip_area = min(pip_area, 0.03 * region.blob.area)  # a glare core alone is no measure of a pip
    if area >= 2.0 * max(pip_area, 6.0):
        return area
    if len(region.pips):
        at = pixel(region.pips.centres, region.origin, body.shape)
        lit = smooth[at] >= level + glare_level / 3.0 * (255.0 - level)
        if lit.any():
            return float(max(area, pip_area))
    return 0.0


def washed_pip(region: Region, pips: Pips, glare_level: float) -> bool:
    """Whether the faintest of a face's ``pips`` is washed by glare: the die's whiteness smoothed at a pip's size
    (:func:`whiteness`) is higher there than at the other pips by ``glare_level / 3`` of the way to white (the
    lit-pip rule of :func:`glare_area`). A pip faint in shade is darker around, not whiter."""
    if len(pips) < 2:
        return False
    smooth, level = whiteness(region)
    values = smooth[pixel(pips.centres, region.origin, region.body.shape)]
    faintest = int(np.argmin(pips.contrast))
    return bool(values[faintest] >= mid(np.delete(values, faintest)) + glare_level / 3.0 * (255.0 - level))


def glare_on_part(region: Region, part: np.ndarray, edge: float) -> float:
    """Area (px) of ``part`` (uint8 mask of one die in the region's patch) that glare whitens; 0 when none.

    The test of :func:`washed_nodes` over the part's inside instead of its pip places: :func:`whitened` against
    the part's own level (over its body pixels), at least 0.1 of an edge inside its outline. A die under even or
    slanting light is not whitened so: on the benchmark's 4,000 rendered frames, no face read on a frame whose glare lies
    on no die's pips reaches it (1,677 parts of touching dice, the highest rising 0.27 of the way; 2,284 single
    dice). So a face that fails to read where glare whitens it is washed by glare, not unreadable.
    """
    inside = (part > 0) & (region.body > 0)
    if not inside.any():
        return 0.0
    deep = inside & (depth_map(part) >= 0.1 * edge)
    return float((whitened(region, inside, edge) & deep).sum())


def whiteness(region: Region) -> tuple[np.ndarray, float]:
    """The least of the three channels smoothed at about a pip's size, and its mean over the body (cached)."""
    cached = region.cache.get("glare")
    if cached is None:
        white = least_channel(region)
        level = float(cv2.mean(white, region.body)[0])
        sigma = max(1.5, 0.12 * float(np.sqrt(region.blob.area)))
        cached = region.cache["glare"] = (cv2.GaussianBlur(white, (0, 0), sigma), level)
    return cached


def least_channel(region: Region) -> np.ndarray:
    """The least of the patch's three channels (float32, cached): white light raises all three, a colour not."""
    white = region.cache.get("white")
    if white is None:
        patch = region.patch
        white = region.cache["white"] = cv2.min(cv2.min(patch[..., 0], patch[..., 1]), patch[..., 2]).astype(np.float32)
    return white


def chroma(bgr: np.ndarray) -> float:
    """Chroma of a mean colour: (largest - smallest channel) / largest."""
    return float((bgr.max() - bgr.min()) / max(float(bgr.max()), 1.0))


def reddish_share(patch: np.ndarray, part: np.ndarray, floor: float = 0.0) -> float:
    """Share of the pixels of ``part`` (uint8 mask) that are a red die's red (red at least 1.8 times blue and green,
    and at least ``floor``)."""
    blue, green, red = cv2.split(patch)
    reddish = redder(cv2.max(blue, green), red)
    if floor > 0.0:
        reddish = cv2.bitwise_and(reddish, cv2.compare(red, floor, cv2.CMP_GE))
    return cv2.countNonZero(cv2.bitwise_and(reddish, reddish, mask=part)) / max(cv2.countNonZero(part), 1)


def die_red_floor(region: Region) -> float:
    """The least red of a red die's face beside this body: 120, and 1.5 times the table's median red around the
    body (red felt is as red in hue as a die, but darker; a glare halo on it reddens towards its rim)."""
    table_red = region.patch[..., 2][region.table_ring() > 0]
    return max(120.0, 1.5 * float(np.median(table_red))) if len(table_red) else 120.0


def red_die_near(region: Region, edge: float) -> bool:
    """Whether a red die's colour shows within half an edge of the body (a red die washed by glare, not table).

    Red-die pixels: red at least 1.8 times blue and green, at least 120 and 1.5 times the median red
    around; more than 3 % of the neighbourhood.
    """
    if region.frame is None:
        return True
    x, y, w, h = region.blob.bbox
    reach = round(0.5 * edge)
    near = region.frame[max(y - reach, 0):y + h + reach, max(x - reach, 0):x + w + reach]
    blue, green, red = cv2.split(near)
    level = max(120.0, 1.5 * float(np.median(red)))
    die_red = (redder(cv2.max(blue, green), red) > 0) & (red >= level)
    return bool(die_red.mean() > 0.03)


def stands_out(region: Region) -> bool:
    """Whether the body's brightest part is a die's, far above the table around it (a lit patch of table is not).

    A moving die is smeared over less than its edge, so its core keeps the die's brightness: the 90th
    percentile of the body (grey, or red for a red die) at least 1.3 times the table's mean around it and
    30 grey levels above it.
    """
    channel = region.patch[..., 2] if region.translucent else cv2.cvtColor(region.patch, cv2.COLOR_BGR2GRAY)
    ring = region.table_ring()
    if not ring.any():
        return False
    table = cv2.mean(channel, ring)[0]
    top = float(np.percentile(channel[region.body > 0], 90))
    return top >= max(1.3 * table, table + 30.0)


def sharp_outline(region: Region) -> float:
    """Share of the body's outline on a sharp edge (>= 20 grey levels per px): a die has one, a glare spot not."""
    grey = cv2.cvtColor(region.patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3) / 8.0
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3) / 8.0
    strength = cv2.dilate(cv2.magnitude(gx, gy), np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(region.body, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return 0.0
    points = np.concatenate(contours).reshape(-1, 2)
    return float((strength[points[:, 1], points[:, 0]] >= 20.0).mean())


def tilt_problem(fit: FaceFit | None, found: Pips, pips: Pips, cfg: DiceReaderConfig, square_body: bool = False) -> str:
    """Why the die looks tilted ('' when not): a foreshortened pip grid, or pips of a wide side face.

    A flat die seen from above shows its side faces as thin strips whose pips are slivers; a die
    leaning on an edge shows a side face a third to a half of its edge wide, with pips squashed
    to about half their width. Only applied for a camera above the table (``max_side_ratio`` < 0.25).
    """
    if fit is not None and fit.face >= 4 and fit.squareness < cfg.min_squareness:
        return f"pip grid foreshortened to {fit.squareness:.2f}: the up face is tilted"
    if cfg.max_side_ratio >= 0.25 or len(pips) == 0 or len(found) == 0:
        return ""
    if fit is not None and len(pips) >= 2 and mid(pips.elongation) < cfg.min_squareness - 0.12:
        return f"pips of the up face squashed to {mid(pips.elongation):.2f}: the up face is tilted"
    if square_body:  # the side face of a flat die (the body of one die, square): its pips are squashed alike
        return ""
    reference = mid(pips.areas)
    squashed = ((found.elongation < 0.5) & (found.elongation >= 0.2) & (found.areas >= 0.3 * reference)
                & (found.areas <= 1.2 * reference))
    if int(squashed.sum()) >= 2:
        return f"{int(squashed.sum())} squashed pips of a wide side face"
    return ""


def leaning_side_face(found: Pips, pip_area: float) -> str:
    """Pips squashed to a third to a half of their width, of pip size: the wide side face of a leaning die.

    A flat die seen from above shows side faces a few pixels wide, whose pips are slivers; only a
    die resting on an edge (or against another die) shows a side face with pips like these.
    """
    if len(found) < 2:
        return ""
    squashed = ((found.elongation >= 0.22) & (found.elongation < 0.55) & (found.areas >= 0.2 * pip_area)
                & (found.areas <= 1.3 * pip_area))
    if int(squashed.sum()) >= 2:
        angles = found.major_angle[squashed]
        spread = np.abs((angles - angles[0] + 90.0) % 180.0 - 90.0).max()
        if spread <= 25.0:  # all squashed across the same axis: one slanted face
            return f"{int(squashed.sum())} pips squashed alike: a side face seen at a slant (die leaning)"
    return ""


def smeared_pips(found: Pips, pip_area: float) -> str:
    """Spots drawn out into streaks along one direction: a die moving during the exposure."""
    big = found.areas >= 0.5 * pip_area
    if int(big.sum()) < 1:
        return ""
    streaks = big & (found.elongation < 0.6) & (found.areas >= 1.3 * pip_area) & (found.areas <= 5.0 * pip_area)
    if int(streaks.sum()) >= 2 and int(streaks.sum()) * 2 >= int(big.sum()):
        angles = found.major_angle[streaks]
        spread = np.abs((angles - angles[0] + 90.0) % 180.0 - 90.0).max()
        if spread <= 20.0:
            return f"{int(streaks.sum())} spots drawn into parallel streaks: the die moved"
    return ""


def sharp_pip_beside(found: Pips, pip_area: float) -> bool:
    """Whether a round spot of a pip's size (at least 0.75 round, 0.5 to 1.5 of a pip's area) lies among the streaks.

    A die moving during the exposure is smeared as a whole, over 0.3 of an edge or more, several times a
    pip's width: none of its pips stays round. Broad streaks beside a round pip are shading or texture.
    """
    round_ = (found.elongation >= 0.75) & (found.areas >= 0.5 * pip_area) & (found.areas <= 1.5 * pip_area)
    return bool(round_.any())


def washed_nodes(region: Region, read: SquareRead, square: np.ndarray) -> int:
    """How many of the die's nine pip places glare washes (0 when none).

    Glare adds white light: a pip place is washed where :func:`whitened` holds against the die's own
    level (over its square). A pip lit so may be hidden (a black pip washed out) or faked (white glare
    on a red die), whether or not the face read is canonical.
    """
    at = pixel(np.asarray(read.nodes, float), region.origin, square.shape)
    return int(whitened(region, square > 0, read.edge)[at].sum())


def whitened(region: Region, own: np.ndarray, edge: float) -> np.ndarray:
    """Where glare whitens the region's patch (bool): the least of the three channels, smoothed at 0.1 of an
    edge (so a white pip alone barely lifts it), stands above the die's own level (its median over ``own``,
    a bool mask; over the whole patch when ``own`` is empty) by 0.4 of the way to white."""
    white = least_channel(region)
    level = float(np.median(white[own])) if own.any() else float(np.median(white))
    smooth = cv2.GaussianBlur(white, (0, 0), max(1.5, 0.1 * edge))
    return smooth >= level + 0.4 * (255.0 - level)


def side_face_pips(spots: Pips, faces: list[tuple[tuple[float, float], float, float, tuple]], origin: tuple[int, int],
                   shape: tuple[int, ...]) -> int:
    """How many pips of a wide side face show beside the up faces ``faces`` (centre, edge, angle, pip centres; px).

    Flat dice touching face to face hide the faces they touch, and a flat die seen off the camera's
    axis shows its other side faces as slivers whose pips are squashed below a third of their width.
    A die leaning on an edge or on another die (cocked, p217-2007/banca-francesa/7 b) shows a side face a
    third of an edge wide or more, with pips squashed to 0.4-0.65 of their width across that side, as
    contrasted as the up faces' pips. Counted: spots off every face's inner 80 % and off every pip
    (0.12 of an edge), 0.35 to 0.7 round, of 0.35 to 1.3 of a pip's area, at least half as contrasted
    as the spots on the pips, within 1.1 edges of a face's centre (a side face's pips lie within 0.95 of an
    edge of its up face's centre for a lean of up to 40 degrees: half the foreshortened face, 0.8 of the side
    face's width, 0.3 along it), their long axis within 20 degrees of the nearest face's sides; the count
    is the largest set of them squashed alike (long axes within 25 degrees). A translucent die's ghost
    pips and shaded seams are rounder, fainter or turned otherwise.
    """
    if len(spots) == 0 or not faces:
        return 0
    at = pixel(spots.centres, origin, shape)
    inner = np.zeros(len(spots), bool)
    nodes: list[tuple[float, float]] = []
    edge = mid([f[1] for f in faces])
    for centre, side, angle, pips in faces:
        box = cv2.boxPoints(((centre[0] - origin[0], centre[1] - origin[1]), (0.8 * side, 0.8 * side), angle))
        mask = np.zeros(shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, np.round(box * 16).astype(np.int32), 1, lineType=cv2.LINE_8, shift=4)
        inner |= mask[at] > 0
        nodes.extend((float(p[0]), float(p[1])) for p in pips)
    if not nodes:
        return 0
    gap = np.hypot(*(spots.centres[:, None, :] - np.asarray(nodes, float)[None, :, :]).transpose(2, 0, 1)).min(axis=1)
    on = gap <= 0.12 * edge
    if not on.any():
        return 0
    pip_area = mid(spots.areas[on])
    reference = mid(spots.contrast[on])
    centres = np.array([f[0] for f in faces], float)
    reach = np.hypot(*(spots.centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1)).min(axis=1) <= 1.1 * edge
    side = (~inner & ~on & reach & (spots.elongation >= 0.35) & (spots.elongation <= 0.7) & (spots.areas >= 0.35 * pip_area)
            & (spots.areas <= 1.3 * pip_area) & (spots.contrast >= 0.5 * reference))
    if int(side.sum()) >= 2:  # squashed across a face's side (long axis along it), as on a face slanted off it
        nearest = np.argmin(np.hypot(*(spots.centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1)), axis=1)
        sides = np.array([f[2] for f in faces], float)[nearest]
        side &= np.abs((spots.major_angle - sides + 45.0) % 90.0 - 45.0) <= 20.0
    if int(side.sum()) < 2:
        return int(side.sum())
    angles = spots.major_angle[side]
    spread = np.abs((angles[:, None] - angles[None, :] + 90.0) % 180.0 - 90.0)
    return int((spread <= 25.0).sum(axis=1).max())
