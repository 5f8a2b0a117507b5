"""The verdict on one body from its pip spots: a die read, several touching dice read, a decline, or no die.

The body's size against one die's, its shape and its spots decide: a die leaning on an edge
(cocked, p217-2007/banca-francesa/7 b), a die on another (stacked, p217-2007/cussec/6), motion,
glare, or a canonical face on a die's square body; a body of several dice' area is split
(:mod:`vision.dice_touching`). A glare spot or a lit patch of table is no die.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.declines import Decline
from vision.dice_faults import (
    glare_area,
    glare_on_part,
    leaning_side_face,
    motion_problem,
    red_die_near,
    sharp_outline,
    sharp_pip_beside,
    side_face_pips,
    smeared_pips,
    stands_out,
    tilt_problem,
)
from vision.dice_perspective import perspective_slivers
from vision.dice_region import die_read
from vision.dice_touching import touching_verdict
from vision.dice_types import DiceReaderConfig, Region, Verdict, median_pip_area, mid, xy


def body_verdict(region: Region, die_area: float | None, cfg: DiceReaderConfig, arena: np.ndarray | None) -> Verdict:
    blob, pips = region.blob, region.pips
    where = xy(blob.centroid)
    ratio = blob.area / die_area if die_area else None
    # a pip's area: the round pips' own, else from the die's size (a pip is 15-19 % of the edge across)
    pip_area = mid(pips.areas) if len(pips) else 0.02 * (die_area or blob.area)
    overlapping = ratio is not None and 1.2 <= ratio < 1.7 and blob.fill < 0.8 and len(pips) > 0
    side_limit = 1.0 + region.max_side + 0.06
    # one die: a face read, a square body, and the area of one die (or, size unknown, a well-filled body)
    single_ok = (region.single is not None and region.clean and blob.aspect <= side_limit
                 and (0.6 <= ratio <= 1.15 + region.max_side / 2 if ratio is not None else blob.fill >= 0.8))
    if cfg.max_side_ratio < 0.25 and not overlapping:
        # a die leaning on an edge (24 degrees or more) shows a side face a third of its edge wide, so its body
        # is not square: squashed pips beside a square body of one die are a flat die's narrow side face
        side = ""
        if not single_ok:  # less the slivers of flat dice's side faces seen at the perspective's slant
            spots = region.all_found
            slivers = perspective_slivers(spots, pip_area, float(np.sqrt(die_area or blob.area)), region.frame_shape, cfg)
            side = leaning_side_face(spots.subset(~slivers), pip_area)
        if side:
            return Verdict(decline=Decline.COCKED, detail=f"die body at {where}: {side}")
        smear = smeared_pips(region.found, pip_area)
        if smear and single_ok and sharp_pip_beside(region.found, pip_area) and motion_problem(region, 0.65) is None:
            smear = ""  # faint shading streaks beside a sharp round pip on a die sharp all round: the die is still
        if smear:
            return Verdict(decline=Decline.MOTION, detail=f"die at {where}: {smear}")
    if (ratio is not None and ratio < 0.5 and (region.single is None or region.problem)
            and glare_area(region, median_pip_area(pips), cfg.glare_level) and sharp_outline(region) < 0.25
            and not red_die_near(region, float(np.sqrt(die_area)))):
        return Verdict()  # a glare spot on the table: under half a die, whitened, a soft outline, no face
    if (len(pips) == 0 and die_area is not None and glare_area(region, 1.0, cfg.glare_level)
            and sharp_outline(region) < 0.4 and not red_die_near(region, float(np.sqrt(die_area)))):
        return Verdict()  # a glare spot on the table: whitened, a soft outline, no pip (specks or the arena's line
        #                   aside), no red die's colour
    if len(region.found) == 0:
        inside = arena is not None and cv2.pointPolygonTest(arena, blob.centroid, True) > 0.5 * (
            np.sqrt(die_area or blob.area))
        if inside and ratio is not None and 0.6 <= ratio <= 1.6 and blob.fill >= 0.7 and stands_out(region):
            motion = motion_problem(region, cfg.motion_anisotropy)
            if motion is not None:  # a die's size well inside the arena, smeared along one direction: moving
                return Verdict(decline=Decline.MOTION, detail=f"die-sized body at {where} is smeared ({motion})")
        if blob.fill < 0.85 or (ratio is not None and ratio < 0.55):
            return Verdict()  # a round light patch or a speck: not a die
        if sharp_outline(region) < 0.25:
            motion = motion_problem(region, cfg.motion_anisotropy)
            if motion is not None:  # a die smeared past its pips and edges
                return Verdict(decline=Decline.MOTION, detail=f"die-like body at {where} is smeared ({motion})")
            return Verdict()  # a light patch with a soft outline (glare, a lit stretch of table): no die's edge
        if glare_area(region, 1.0, cfg.glare_level):
            if sharp_outline(region) < 0.4:
                return Verdict()  # a glare spot on the table: soft outline, no pip
            return Verdict(decline=Decline.GLARE, detail=f"glare hides every pip of the die at {where}")
        return Verdict(decline=Decline.UNREADABLE, detail=f"die-like body at {where} shows no pip")
    if len(pips) == 0 and (ratio is None or ratio < 0.55 or ratio > 3.5 or blob.fill < 0.6 or blob.aspect > 2.2):
        return Verdict()  # dark specks or edges on a light object that is no die (too small, long, ragged)
    glare = glare_area(region, median_pip_area(pips), cfg.glare_level)
    if (region.single is None and blob.fill < 0.86 and glare > 0.12 * blob.area
            and sharp_outline(region) < 0.4 and bool((pips.areas >= 2.5 * pip_area).all())):
        return Verdict()  # a round glare spot on the table (soft outline), its white core taken for a pip
    motion = motion_problem(region, cfg.motion_anisotropy)
    if motion is not None:
        return Verdict(decline=Decline.MOTION, detail=f"die at {where} is smeared ({motion})")
    if (region.single is None or region.problem) and cfg.max_side_ratio < 0.25:  # unreadable: a milder smear
        motion = motion_problem(region, cfg.motion_anisotropy + 0.2)
        if motion is not None:
            return Verdict(decline=Decline.MOTION, detail=f"die at {where} is smeared and unreadable ({motion})")
    if glare:
        return Verdict(decline=Decline.GLARE, detail=f"glare over {glare:.0f} px of the die at {where}")
    tilted = tilt_problem(region.single, region.found, pips, cfg, square_body=single_ok)
    if tilted:
        return Verdict(decline=Decline.COCKED, detail=f"die at {where}: {tilted}")
    if single_ok:
        die = die_read(region.single, pips, min(blob.rect[1]))
        if not region.translucent and cfg.max_side_ratio < 0.25:  # (a red die's ghost pips may look so)
            slanted = side_face_pips(region.all_found, [(die.centre_px, die.edge_px, die.angle_deg, die.pips_px)],
                                     region.origin, region.body.shape)
            if slanted >= 2:  # a square body, but a wide side face's pips beside it: the die leans, its top tilted
                return Verdict(decline=Decline.COCKED, detail=f"die at {where}: {slanted} pips of a wide side face "
                               "squashed alike beside its up face")
        return Verdict(dice=[die])
    if blob.aspect > side_limit and blob.fill >= 0.82 and (ratio is None or ratio < 1.75):
        short, long_ = sorted(blob.rect[1])
        return Verdict(decline=Decline.COCKED, detail=f"die at {where} shows a side face "
                        f"{long_ / short - 1:.0%} of its edge wide")
    if ratio is not None and ratio >= 1.7:
        first = None
        for k in sorted({max(2, int(np.floor(ratio))), max(2, int(np.ceil(ratio)))}, key=lambda k: abs(k - ratio)):
            verdict = touching_verdict(region, die_area, k, cfg)
            # read k dice, but the body is not k dice large. Each die may add a side face (up to ~0.25 of a die
            # under perspective); more area than that is a die half hidden, which the count of dice catches
            # when the game's count is known
            excess = 0.4 if cfg.expected_dice is None else max(0.4, 0.25 * k)
            if verdict.decline is None and not -0.4 <= ratio - k <= excess:
                verdict = Verdict(decline=Decline.COCKED if blob.fill >= 0.8 else Decline.STACKED,
                                   detail=f"dice at {where} read as {k} but the body is {ratio:.2f} dice large: "
                                   "a side face or a die on another shows")
            if verdict.decline is None:
                return verdict
            first = first or verdict
        overlap = ratio < 1.9 or abs(ratio - round(ratio)) >= 0.3  # not a whole number of dice
        if first.decline == Decline.UNREADABLE and overlap and blob.fill < 0.8:
            return Verdict(decline=Decline.STACKED, detail=f"die body at {where} is {ratio:.2f} dice large, "
                            f"not square (fill {blob.fill:.2f}) and does not split into whole dice: {first.detail}")
        return first
    if ratio is None and blob.aspect >= 1.7:
        return touching_verdict(region, blob.area / 2.0, 2, cfg)
    if blob.fill < 0.8 and (ratio is None or ratio >= 1.12):
        return Verdict(decline=Decline.STACKED, detail=f"die body at {where} is "
                        f"{'?' if ratio is None else f'{ratio:.2f}'} dice large and not square "
                        f"(fill {blob.fill:.2f}): one die rests on another")
    glare = glare_area(region, median_pip_area(pips), cfg.glare_level)
    if glare:
        return Verdict(decline=Decline.GLARE, detail=f"a saturated patch of {glare:.0f} px hides the pips of "
                        f"the die at {where}")
    if region.single is None or region.problem:  # no face read: glare whitening the die hides or fakes pips
        washed = glare_on_part(region, region.body, float(np.sqrt(die_area or blob.area)))
        if washed:
            unread = region.problem if region.single is not None else f"{len(pips)} spots on no canonical pip layout"
            return Verdict(decline=Decline.GLARE, detail=f"glare whitens {washed:.0f} px of the die at {where}, "
                            f"which reads no face: {unread}")
    if region.single is not None and region.problem:
        return Verdict(decline=Decline.UNREADABLE, detail=f"die at {where}: {region.problem}")
    if region.single is not None:
        return Verdict(decline=Decline.UNREADABLE, detail=f"die at {where} reads {region.single.face} but its body "
                        f"is not one die's (fill {blob.fill:.2f}, aspect {blob.aspect:.2f}, "
                        f"{'?' if ratio is None else f'{ratio:.2f}'} dice large)")
    return Verdict(decline=Decline.UNREADABLE, detail=f"the {len(pips)} spots on the die at {where} are on "
                    "no canonical pip layout")
