"""Read the faces of dice on a table from one camera frame, or decline with the reason.

Pipeline (classical image processing, no learned model):

1. :mod:`vision.dice_segment` finds die bodies against the table (half resolution).
2. For each body, :mod:`vision.dice_pips` finds the pips at full resolution and fits one of the six
   canonical faces; side-face pips (foreshortened, elongated, off the face) and the pips of the
   other faces seen through a translucent die (dimmer) are not counted. When the read fails, the
   squashed or small spots in the strip along the outline (a flat die's side face seen off the
   camera's axis) are dropped and the face is fitted again. A glare halo on the table joined to a
   die (soft-edged or whitened, holding no spot) is cut off at the die's square before the checks.
3. Bodies holding several touching dice are split (a watershed from the cores of the body's
   distance map, else k-means on its pixels) into as many dice as the area says; each part must
   read as a canonical face, and the body must hold that many dice's area (a remainder is a side
   face or a die resting on another). A body still declined (touching dice the split cuts wrong, a
   die with a glare halo or table the mask took in beside it) is read again by grouping its pips
   into canonical faces (:mod:`vision.dice_split`): each face places its die's square, every square
   cut out must pass every check of a single die, and what the squares leave of the body must be
   thin side-face strips, table or a glare halo, never anything that can be a die's part; the body
   is read only when exactly one grouping holds. A body of 1.3 dice or more called smeared as a whole
   (a die joined to the lit desk beyond the arena at the frame's edge) is read so too, and by step 5;
   each die cut out gets the motion check in its own square, and the motion decline stays unless
   every die reads.
4. A body of one die's size still declined (pips lost to shade, a body cut short by a shadow, a
   spot of table texture), or a die cut out of a grouping that its spots do not read, is read a
   second way (:mod:`vision.dice_square`): the die's square is placed on its edges and its 3 x 3
   pip grid sampled there. It is read only when the square is a die's (no side face or die beneath
   beyond it, nothing of the body outside it), the pip nodes stand well apart from the empty ones,
   and no glare or motion shows. A lit strip at the frame's edge holding no pip (or ragged, holding
   two specks at most), and a glare spot on the table (whitened, soft-edged, no red die's colour
   around it; under half a die, or holding no spot at all) are no dice.
5. A body of two to five dice's area still declined is read die by die (:mod:`vision.dice_cluster`):
   cut into as many parts as it holds dice, each part seeds one die whose square is found on its
   edges and read like a single die's (step 4); the squares must explain the whole body, no pips of
   a leaning die's wide side face may show beside them, and exactly one count of dice must pass.
6. A body still declined that took in a thin strip of lit table or a shadow's fringe (at the frame's
   edge, towards a glare spot) is cut without it (:mod:`vision.dice_trim`: the strip narrower than
   0.6 of an edge, touching the dice along under 0.8 of an edge, holding no pip, far from any other
   body) and each piece left is read again as a body of its own; the cut is used only when every
   piece reads. A body still declined of 0.2 to 0.95 of a die's area (a white die on a pale tinted
   cloth whose shaded half the mask lost) is grown back by the die's own colour against the table's
   (:mod:`vision.dice_regrow`) and used when it reads as exactly one die (when the frame holds fewer dice
   than the game throws, so is a body holding a spot first taken for no die, too small for one); a body of
   1.15 to 3.5 dice still declined (dice merged with the pale table between them) is re-cut by the same
   colour test into pieces of a die each, used when there are two or more, what is left is table, and
   every piece reads.
7. Checks decide whether the read is safe; if not, the frame is declined with a reason
   (:class:`vision.declines.Decline`): a die not flat on a face (a wide side face: cocked,
   p217-2007/banca-francesa/7 b), a die on another (stacked, p217-2007/cussec/6), a die outside
   the arena polygon, motion blur (the edges of a die sharp across one direction only, or its
   pips drawn into parallel streaks with no round pip left among them), glare (a whitening broader than a pip over the die,
   or a die reading no face that glare whitens 0.4 of the way to white above its own level), pips
   off the canonical grid or of unequal contrast (unreadable), or not the number of dice the
   game throws (wrong-count).

A declined read is never an outcome; a wrong read is far worse than a decline, so every check
errs on the side of declining.

Modules, one job each: :mod:`vision.dice_types` (configuration, reads, the state of one body),
:mod:`vision.dice_region` (a body prepared and read as one die from its spots),
:mod:`vision.dice_verdict` (the verdict on one body from its spots), :mod:`vision.dice_touching`
(a body split by area into touching dice), :mod:`vision.dice_halo` (a glare halo beside a die),
:mod:`vision.dice_grouping` (pips grouped into faces), :mod:`vision.dice_square_verdict` (one die
read in its square), :mod:`vision.dice_cluster` (touching dice read in their squares),
:mod:`vision.dice_faults` (the motion, glare and tilt checks), :mod:`vision.dice_trim` (a body cut
without the thin strips joined to it), :mod:`vision.dice_regrow` (a body grown back to its die's
face, or re-cut into its dice, by colour); this module orchestrates them.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.declines import Decline
from vision.dice_cluster import CLUSTER_READABLE, cluster_verdict
from vision.dice_grouping import GROUPABLE, grouped_verdict
from vision.dice_halo import without_glare
from vision.dice_region import prepare_region
from vision.dice_regrow import recut_regions, regrown_region
from vision.dice_segment import Segmentation, segment_dice
from vision.dice_square_verdict import SQUARE_READABLE, square_verdict
from vision.dice_trim import trimmed_regions
from vision.dice_types import DiceRead, DiceReaderConfig, DieRead, Region, Verdict, mid, xy
from vision.dice_verdict import body_verdict
from vision.frame import check_image
from vision.heap import keep_freed_memory

__all__ = ["DiceRead", "DiceReader", "DiceReaderConfig", "DieRead", "read_dice"]


_DECLINE_ORDER = (Decline.STACKED, Decline.COCKED, Decline.MOTION, Decline.GLARE, Decline.OUTSIDE_ARENA,
                  Decline.UNREADABLE)
"""Which reason a frame is declined for when several bodies decline it: the first in this order."""


class DiceReader:
    """Reads dice frames with one configuration; see :func:`read_dice`."""

    def __init__(self, config: DiceReaderConfig | None = None) -> None:
        """A reader; the first one in a process keeps the process's freed working memory (:mod:`vision.heap`)."""
        keep_freed_memory()
        self.config = config or DiceReaderConfig()
        self._arena = None if self.config.arena is None else np.asarray(self.config.arena, np.float32)

    # ------------------------------------------------------------------ frame level

    def read(self, image: np.ndarray) -> DiceRead:
        """Read one BGR (or grey) uint8 frame."""
        image = check_image(image)
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        cfg = self.config
        min_edge = cfg.die_edge_px[0] if cfg.die_edge_px else 14.0
        segmentation = segment_dice(image, cfg.segment_threshold, min_area_px=0.25 * min_edge * min_edge,
                                    style=cfg.style)
        regions = [prepare_region(image, segmentation, blob, cfg) for blob in segmentation.blobs]
        die_area = self._die_area(regions)
        dice: list[DieRead] = []
        declines: list[tuple[Decline, str]] = []
        dismissed: list[Region] = []
        for region in regions:
            if self._edge_strip(region, image.shape, die_area):
                continue
            verdict = self._verdict(region, die_area)
            if verdict.decline is None and not verdict.dice:
                dismissed.append(region)
            if verdict.decline is not None:  # a thin strip of lit table joined to the dice: read them without it
                pieces = trimmed_regions(image, segmentation, region, die_area, cfg)
                verdict = self._pieces_verdict(pieces, die_area, image.shape, one_die_each=False) or verdict
            if verdict.decline is not None:  # a die the mask kept only the lit part of: grown back by its colour
                verdict = self._regrown_verdict(image, segmentation, region, die_area) or verdict
            if verdict.decline is not None:  # dice merged with table by the mask: re-cut by their colour
                pieces = recut_regions(image, segmentation, region, die_area, cfg)
                verdict = self._pieces_verdict(pieces, die_area, image.shape) or verdict
            dice.extend(verdict.dice)
            if verdict.decline is not None:
                declines.append((verdict.decline, verdict.detail))
        if not declines and cfg.expected_dice is not None and len(dice) < cfg.expected_dice:
            dice.extend(self._grown_back(image, segmentation, dismissed, die_area, cfg.expected_dice - len(dice)))
        if self._arena is not None:
            for die in dice:
                if cv2.pointPolygonTest(self._arena, die.centre_px, False) < 0:
                    detail = f"die showing {die.face} at {xy(die.centre_px)} is outside the arena"
                    declines.append((Decline.OUTSIDE_ARENA, detail))
        dice.sort(key=lambda d: (d.centre_px[0], d.centre_px[1]))
        if declines:
            declines.sort(key=lambda r: _DECLINE_ORDER.index(r[0]))
            return DiceRead(tuple(dice), declines[0][0], "; ".join(d for _, d in declines))
        if cfg.expected_dice is not None and len(dice) != cfg.expected_dice:
            return DiceRead(tuple(dice), Decline.WRONG_COUNT,
                            f"found {len(dice)} dice, the game throws {cfg.expected_dice}")
        if not dice:
            return DiceRead((), Decline.HIDDEN, "no die found")
        low = [d for d in dice if d.confidence < cfg.min_confidence]
        if low:
            return DiceRead(tuple(dice), Decline.UNREADABLE,
                            f"die at ({low[0].centre_px[0]:.0f}, {low[0].centre_px[1]:.0f}) read with confidence "
                            f"{low[0].confidence:.2f} < {cfg.min_confidence}")
        return DiceRead(tuple(dice), None, f"{len(dice)} dice read")

    def _verdict(self, region: Region, die_area: float | None) -> Verdict:
        """One body's verdict from its spots, then the second readings of what they decline (module doc)."""
        cfg = self.config
        verdict = body_verdict(region, die_area, cfg, self._arena)
        if verdict.decline is not None:  # a glare halo joined to a die: read the die's own square
            cut = without_glare(region, die_area, cfg)
            if cut is not None:
                again = body_verdict(cut, die_area, cfg, self._arena)
                if again.decline is None and len(again.dice) == 1:
                    verdict = again
        # a body of several dice' size called smeared as a whole (a die joined to a lit strip at the frame's edge,
        # touching dice): each die read out of it gets the motion check in its own square
        composite_motion = (verdict.decline == Decline.MOTION and die_area is not None
                            and region.blob.area >= 1.3 * die_area)
        if verdict.decline in GROUPABLE or composite_motion:  # touching dice, or a die and a glare halo: group pips
            grouped = grouped_verdict(region, die_area, cfg, self._arena)
            if grouped is not None and (grouped.decline is None or not composite_motion):
                verdict = grouped
        if verdict.decline in SQUARE_READABLE:  # one die the spots did not read: read it in its square
            squared = square_verdict(region, die_area, cfg)
            if squared is not None:
                verdict = squared
        if verdict.decline in CLUSTER_READABLE or (composite_motion and verdict.decline == Decline.MOTION):
            clustered = cluster_verdict(region, die_area, cfg)  # touching dice the spots did not read: die by die
            if clustered is not None and (clustered.decline is None or verdict.decline != Decline.MOTION):
                verdict = clustered
        return verdict

    def _grown_back(self, image: np.ndarray, segmentation: Segmentation, dismissed: list[Region],
                    die_area: float | None, missing: int) -> list[DieRead]:
        """Dice found in bodies first taken for no die, when the frame holds fewer dice than the game throws.

        A white die on pale cloth under slanting light may keep only its lit part in the die mask, under half
        a die, which alone is too small for a die. Each such body holding a spot is grown back by its colour
        (:func:`vision.dice_regrow.regrown_region`) and kept only when it reads as exactly one die with no
        decline; at most ``missing`` of them, else none (the count is then declined as it stands).
        """
        found: list[DieRead] = []
        for region in dismissed:
            if len(region.found) == 0:
                continue
            verdict = self._regrown_verdict(image, segmentation, region, die_area)
            if verdict is not None:
                found.extend(verdict.dice)
        return found if len(found) <= missing else []

    def _regrown_verdict(self, image: np.ndarray, segmentation: Segmentation, region: Region,
                         die_area: float | None) -> Verdict | None:
        """The die of ``region`` grown back by its colour (:func:`vision.dice_regrow.regrown_region`) when it reads
        as exactly one die with no decline, else ``None``."""
        grown = regrown_region(image, segmentation, region, die_area, self.config)
        return self._pieces_verdict(None if grown is None else [grown], die_area, image.shape)

    def _pieces_verdict(self, pieces: list[Region] | None, die_area: float | None, shape: tuple[int, ...],
                        one_die_each: bool = True) -> Verdict | None:
        """The dice of the pieces a declined body was re-cut into, when every piece reads with no decline
        (each as exactly one die with ``one_die_each``, else as dice or no die, but some dice in all); lit strips
        at the frame's edge among them are dropped. ``None`` when there are no pieces or one of them fails."""
        if not pieces:
            return None
        again = [self._verdict(piece, die_area) for piece in pieces if not self._edge_strip(piece, shape, die_area)]
        if not again or any(v.decline is not None for v in again):
            return None
        if one_die_each and any(len(v.dice) != 1 for v in again):
            return None
        if not any(v.dice for v in again):
            return None
        return Verdict(dice=[d for v in again for d in v.dice])

    def _edge_strip(self, region: Region, shape: tuple[int, ...], die_area: float | None = None) -> bool:
        """Whether the region is a lit strip of table at the frame's edge: no die.

        Beyond the arena (rail, desk) the table is often lighter at the frame's edge than the coarse
        table estimate, and the strip joins the die mask. The arena lies within the frame, so a body
        touching the frame's edge that holds no pip (no round spot of a pip's size inside it), or a long
        one (twice as long as wide) holding one spot that reads as no believable face, or a ragged one (filling
        under 0.6 of its rectangle, twice as long as wide or under half a die) holding at most two pip spots
        and no clean die's read, is dropped;
        a die read there still declines the frame (outside the arena), and a die lost so changes the
        count of dice the game throws.
        """
        blob = region.blob
        strip_with_speck = (len(region.pips) == 1 and blob.aspect >= 2.0
                            and (region.single is None or bool(region.problem)))
        ragged = (len(region.pips) <= 2 and not region.clean and blob.fill < 0.6
                  and (blob.aspect >= 2.0 or (die_area is not None and blob.area < 0.5 * die_area)))
        if len(region.pips) > 0 and not strip_with_speck and not ragged:
            return False
        x, y, w, h = blob.bbox
        return not (x > 1 and y > 1 and x + w < shape[1] - 1 and y + h < shape[0] - 1)

    def _die_area(self, regions: list[Region]) -> float | None:
        """Area (px) of one die's body: the median over bodies that read cleanly as one die, else configured."""
        cfg = self.config
        clean = [r.blob.area for r in regions if r.single is not None and r.clean]
        if cfg.die_edge_px is not None:
            low, high = cfg.die_edge_px
            clean = [a for a in clean if (0.75 * low) ** 2 <= a <= (1.3 * high) ** 2]
        if clean:
            return mid(clean)
        if cfg.die_edge_px is not None:
            return float(np.mean(cfg.die_edge_px)) ** 2
        return None


def read_dice(image: np.ndarray, config: DiceReaderConfig | None = None) -> DiceRead:
    """Read the dice in one frame (see the module docstring); never raises on a bad scene, only on bad input."""
    return DiceReader(config).read(image)
