"""The settings of the staged dice pipeline's first stages, in one place.

:mod:`vision.dice_bodies` (the arena and the dice bodies in a frame) and :mod:`vision.dice_proposals`
(candidate die squares per body) read every number they use from :class:`DiceStageConfig`; a lab
with its own camera changes them here, never in the stages' code. Sizes given as a share of the
die's edge follow the die's size in the frame; sizes in working pixels are at the stage's working
resolution (the frame scaled so that its longer side is ``work_long_side_px``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DiceStageConfig:
    """Settings of the body and proposal stages (defaults hold for 640 x 480 webcam and 640 x 640 phone frames)."""

    # ---- working resolution and the table's colour model (vision.dice_bodies)
    work_long_side_px: int = 320
    """The frame is scaled (averaging) so that its longer side has this many pixels before bodies are sought."""
    table_cell_px: int = 8
    """The table's colour is modelled on a grid of cells of this many working pixels a side."""
    table_median_cells: int = 5
    """Window (cells, 3 or 5) of the median that makes the first table model: dice cover under half of it."""
    first_model_coarsening: int = 2
    """The first table model's median is taken over cells this many times larger (a row of dice along a tray's
    wall fills under half of the window), then interpolated to the grid."""
    first_mask_growth_px: int = 2
    """The dice the first model finds are grown by this many working pixels before the table is averaged without
    them (their blurred edges are not table)."""
    shadow_weight: float = 0.45
    """Share of a darkening (lightness below the table's) counted towards a pixel's difference: shadows are
    darker but keep the table's chromaticity, so they count for less than a brightening or a change of colour."""
    chromaticity_scale: float = 150.0
    """A pixel's chromaticity (its channels' shares of their sum) is scaled by this to weigh like lightness."""
    chroma_weight: float = 1.5
    """Weight of the change of chromaticity against the change of lightness in a pixel's difference."""
    noise_factor: float = 4.0
    """A pixel is a die's when its difference from the table exceeds this many times the frame's median
    difference (the table's own texture and noise) ..."""
    min_difference: float = 9.0
    """... and at least this much (lightness units, 0..255) ..."""
    max_difference: float = 22.0
    """... a threshold that is never raised above this (a busy frame does not hide its dice)."""
    whole_frame_share: float = 0.97
    """A stretch of table covering at least this share of the frame is the whole frame (no arena's edge seen)."""
    min_arena_share: float = 0.15
    """An arena (the largest connected stretch of table) covering less of the frame than this is not trusted:
    the whole frame is taken instead."""
    walled_off_share: float = 0.005
    """A stretch of table that does not reach the frame's edge, of at least this share of the largest stretch, is
    part of the arena too: a corner of the table that dice and their shadows wall off from the rest (a die lying
    in it, beyond the largest stretch's hull, would otherwise be no body: with a die too many on the table, the
    game's count would be met with one die unseen). The table beyond the arena's rail reaches the frame's edge."""
    beyond_clearance_share: float = 0.3
    """What differs from the table beyond the arena grown by this share of the die's edge is where a die thrown out
    of the arena may lie (:mod:`vision.dice_beyond_arena`): the arena's border line and a die against it stay out."""
    beyond_most_dice: float = 6.0
    """A region beyond the arena of more than this many dice's area (a rail, a chip rack, a hand) is no die thrown
    out of it; one under ``min_body_share`` of a die is a speck."""

    # ---- bodies
    largest_pip_share: float = 0.035
    """Before the die's size is known, holes in the mask up to this share of the frame's longer side (squared)
    are filled: a die's pips, not the table inside a tray's wall."""
    largest_hole_share: float = 1.1
    """Once the die's size is known, holes up to this share of its edge (squared) are filled."""
    die_edge_px: tuple[float, float] | None = None
    """The die's edge in frame pixels (least, most) when the bench knows the scale; ``None``: estimated."""
    min_die_edge_px: float = 10.0
    """No die is smaller than this (frame px): the smallest body kept and the floor of the estimated edge."""
    min_body_share: float = 0.3
    """A body smaller than this share of a die's area is a speck, not a die."""
    strip_opening_share: float = 0.35
    """Structures narrower than this share of the die's edge (the lines where the tray's wall meets its floor,
    a cable's edge) are opened out of the mask."""
    max_die_share: float = 0.3
    """No die's edge is longer than this share of the frame's shorter side (a ring of tray wall is no die)."""
    hollow_fill: float = 0.6
    """A region of a die's size and shape filling less than this share of its rectangle is a die's outline without
    its top (a white die on a pale table): its convex hull is a body."""
    sprawl_dice: float = 2.5
    """A body of more than this many dice's area ...."""
    sprawl_fill: float = 0.45
    """... filling less than this share of its rectangle sprawls (dice along a tray's wall joined by the wall's
    strip) ..."""
    peel_share: float = 0.75
    """... and is opened by a disc of this share of the die's edge, which keeps the dice's cores."""
    single_body_aspect: float = 1.6
    """A body whose rectangle is at most this elongated and fills it well counts towards the die's size."""
    single_body_fill: float = 0.75
    """Least share of its rectangle a body must fill to count towards the die's size."""
    body_edge_to_die_edge: float = 0.92
    """A single die's body includes a sliver of side face: its rectangle's shorter side times this is the edge."""

    # ---- proposals (vision.dice_proposals)
    pip_inset_share: float = 0.08
    """A body's pips are counted at least this share of the edge inside its outline (the hats find spots at the
    corners of anything square)."""
    lit_opening_share: float = 0.5
    """A body's part out of its shade is opened by a disc of this share of the edge before its parts of one
    die's area give squares (a line on the cloth or a thin side face joined to the die falls away)."""
    max_proposals_per_body: int = 8
    """At most this many squares are proposed for a body of one die's area ..."""
    proposals_per_further_die: int = 3
    """... and this many more for each further die its area holds."""
    duplicate_distance_share: float = 0.25
    """Two squares whose centres are closer than this share of the edge (and of like size) are one proposal."""
    edge_range_share: tuple[float, float] = (0.6, 1.5)
    """A die's own size (its body's rectangle's shorter side, its face's pips' span) is taken within this share of
    the frame's die size, and a region of a die's shape within it is a die's outline without its top."""
    elongated_aspect: float = 1.25
    """A one-die body's rectangle longer than this times its width holds a side face or a shadow beside the die:
    a square is proposed at each end too."""
    duplicate_edge_share: float = 0.15
    """Two squares whose edges differ by less than this share (and centres by less than
    ``duplicate_distance_share``) are one proposal."""
    part_core_share: float = 0.3
    """A part of touching dice is seeded at a peak of the body's distance to the table at least this share of the
    edge deep ..."""
    part_separation_share: float = 0.6
    """... at least this share of the edge from the seeds before it."""
    collinear_share: float = 0.15
    """Pips whose rectangle is narrower than this share of the edge lie on a line (a two, a three): the face is
    turned 45 degrees from that line."""
    max_dice_per_body: int = 8
    """A body is never split into more dice than this."""
    pip_diameter_share: tuple[float, float] = (0.07, 0.34)
    """A pip's diameter lies within this share of the die's edge."""
    pip_reach_share: float = 0.2
    """Pips are sought within this share of the edge around the body (a white die's top on a pale table, a
    translucent die's face, may be missing from the body while its pips are not)."""
    pip_min_contrast: float = 22.0
    """Least difference of a pip from the die around it (grey levels, after the morphological hat)."""
    pip_contrast_share: float = 0.45
    """A pip stands out at least this share of the strongest spot's contrast in its body."""
    pip_hat_share: float = 0.45
    """Size of the morphological hat that finds pips, as a share of the die's edge."""
    pip_link_share: float = 0.78
    """Pips of one face stand at most this share of the edge from their nearest neighbour in the face (a two's
    pips lie on the diagonal, about 0.7 of the edge apart); a group spanning more is split by k-means."""
    two_diagonal_share: tuple[float, float] = (0.6, 1.05)
    """A pip left alone by the linking (``pip_link_share``) and a pip this share of the edge from it may be a two's
    (a casino die's pips 0.29 of the edge from its centre stand 0.82 apart; on a die a fifth larger than the size
    told, 0.98)."""
    max_face_spread_share: float = 0.85
    """A face's pips' centres span at most this share of the edge (a larger group holds several dice's pips): the
    diagonal of their upright bounding box when proposals split linked pips (stricter for a turned face, so a
    face with a side face's pips beside it is split), their greatest distance apart when specks make a body."""
    pip_pair_share: tuple[float, float] = (0.45, 0.85)
    """Two pips this share of the edge apart may stand opposite each other about their face's centre (a four's
    sides at about 0.54, any face's diagonal at about 0.76): their midpoint votes for a centre."""
    face_vote_share: float = 0.12
    """Votes for a face's centre within this share of the edge of one another count together."""
    face_separation_share: float = 0.55
    """Two faces' centres found by vote stand at least this share of the edge apart."""
    face_member_share: float = 0.5
    """A face's pips lie within this share of the edge of its centre (a corner pip at about 0.38): a part of a body
    of touching dice is moved to the middle of the pips this near it."""
    pip_span_share: float = 0.76
    """The greatest distance between two pips of a face of two or more, as a share of the edge (the diagonal
    of the square their centres stand on, at about 0.27 of the edge from the face's centre on each axis)."""
    pip_roundness: float = 0.45
    """Least area of a pip over the area of its bounding box's ellipse ... (streaks, letters, edges are not)."""

    def __post_init__(self) -> None:
        if self.work_long_side_px < 64:
            raise ValueError(f"work_long_side_px must be at least 64, got {self.work_long_side_px}")
        if self.table_median_cells not in (3, 5):
            raise ValueError(f"table_median_cells must be 3 or 5, got {self.table_median_cells}")
        if not 0 < self.min_difference <= self.max_difference:
            raise ValueError(f"need 0 < min_difference <= max_difference, got {self.min_difference}, "
                             f"{self.max_difference}")
        if self.die_edge_px is not None and not (
                isinstance(self.die_edge_px, tuple) and len(self.die_edge_px) == 2
                and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in self.die_edge_px)
                and 0 < self.die_edge_px[0] <= self.die_edge_px[1]):
            raise ValueError(f"die_edge_px must be (least, most) with 0 < least <= most, got {self.die_edge_px!r}")
        if not 0.0 <= self.beyond_clearance_share <= 2.0:
            raise ValueError(f"beyond_clearance_share must be within [0, 2], got {self.beyond_clearance_share}")
        if self.beyond_most_dice < self.min_body_share:
            raise ValueError(f"beyond_most_dice ({self.beyond_most_dice}) must be at least min_body_share "
                             f"({self.min_body_share})")
        if self.max_proposals_per_body < 1:
            raise ValueError(f"max_proposals_per_body must be at least 1, got {self.max_proposals_per_body}")
        low, high = self.two_diagonal_share
        if not 0 < low <= high:
            raise ValueError(f"two_diagonal_share must be (least, most) with 0 < least <= most, got "
                             f"{self.two_diagonal_share!r}")
