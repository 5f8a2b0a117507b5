"""Dice thrown out of the arena: what differs from the table beyond it, read as the arena's bodies are.

The first stage (:mod:`vision.dice_bodies`) keeps the bodies within the arena it finds (the largest stretch of
table) and sets aside what differs from the table beyond it (:attr:`vision.dice_bodies.Bodies.off_table`): the rail,
the table's edge, chips, and a die thrown out of the arena. A frame declined because it holds fewer dice than the
game throws is looked at there (:meth:`vision.dice_pipeline.StagedDiceReader.read`): the die missing may be one out
of the arena, and the reason the frame is declined is then ``outside-arena``, with where it lies. The decline
itself never depends on this look; it only names its cause.

Regions of the die's size (``min_body_share`` .. ``beyond_most_dice`` dice's area, strips narrower than
``strip_opening_share`` of an edge opened out) are bodies beyond the arena; their squares are proposed and read
exactly as within it (:mod:`vision.dice_proposals`, :mod:`vision.dice_looks`).
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from vision.dice_bodies import Bodies, bodies_of, opened, regions_of
from vision.dice_stage_config import DiceStageConfig


def bodies_beyond(found: Bodies, config: DiceStageConfig | None = None) -> Bodies:
    """``found`` with its bodies replaced by those beyond its arena grown by ``beyond_clearance_share`` of a die's
    edge: regions of what differs from the table there, strips opened out, of ``min_body_share`` ..
    ``beyond_most_dice`` dice's area, made bodies as the arena's are (:func:`vision.dice_bodies.bodies_of`); none
    when the arena is the whole frame."""
    cfg = config or DiceStageConfig()
    if found.off_table is None:
        return replace(found, bodies=(), labels=np.zeros_like(found.labels))
    edge = found.die_edge_px * found.scale
    mask = cv2.bitwise_and(found.off_table, cv2.bitwise_not(_grown_arena(found, edge, cfg)))
    strip = round(cfg.strip_opening_share * edge)
    if strip >= 2:
        mask = opened(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (strip | 1, strip | 1)))
    most = cfg.beyond_most_dice * edge * edge
    regions = [region for region in regions_of(mask) if region[2] <= most]
    bodies, labels = bodies_of(regions, mask.shape, found.scale, found.die_edge_px, cfg)
    return replace(found, bodies=bodies, labels=labels)


def _grown_arena(found: Bodies, edge: float, cfg: DiceStageConfig) -> np.ndarray:
    """uint8 (working resolution), 255 on ``found``'s arena grown by ``beyond_clearance_share`` of the die's ``edge``
    (working px): the arena's border line and a die against it stay out of what lies beyond. (A corner of the arena
    its hull cuts off stays in: the reader finds no die there.)"""
    inside = np.zeros_like(found.off_table)
    cv2.fillConvexPoly(inside, np.round(found.arena_px * found.scale).astype(np.int32), 255)
    reach = max(round(cfg.beyond_clearance_share * edge), 1)
    return cv2.dilate(inside, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1)))
