"""Dice thrown out of the arena: what differs from the table beyond it, read as the arena's bodies are.

The first stage (:mod:`vision.dice_bodies`) keeps the bodies within the arena it finds (the largest stretch of
table) and sets aside what differs from the table beyond it (:attr:`vision.dice_bodies.Bodies.beyond`): the rail,
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

from vision.dice_bodies import Bodies, Body, opened
from vision.dice_stage_config import DiceStageConfig


def bodies_beyond(found: Bodies, config: DiceStageConfig | None = None) -> Bodies:
    """``found`` with its bodies replaced by those beyond its arena: regions of what differs from the table there
    of ``min_body_share`` .. ``beyond_most_dice`` dice's area, strips opened out (none when the arena is the whole
    frame)."""
    cfg = config or DiceStageConfig()
    if found.beyond is None:
        return replace(found, bodies=(), labels=np.zeros_like(found.labels))
    edge = found.die_edge_px * found.scale
    mask = found.beyond
    strip = round(cfg.strip_opening_share * edge)
    if strip >= 2:
        mask = opened(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (strip | 1, strip | 1)))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    kept = np.zeros(labels.shape, np.int32)
    bodies: list[Body] = []
    least, most = cfg.min_body_share * edge * edge, cfg.beyond_most_dice * edge * edge
    for label in range(1, count):
        if not least <= stats[label, cv2.CC_STAT_AREA] <= most:
            continue
        region = cv2.compare(labels, label, cv2.CMP_EQ)
        contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        contour = max(contours, key=cv2.contourArea)
        outline = contour.reshape(-1, 2).astype(np.float32) / found.scale
        if len(outline) < 3:
            continue
        body_label = len(bodies) + 1
        kept[labels == label] = body_label
        x, y, w, h = cv2.boundingRect(outline)
        bodies.append(Body(contour_px=outline, area_px=float(stats[label, cv2.CC_STAT_AREA]) / found.scale ** 2,
                           rect=cv2.minAreaRect(outline), bbox=(x, y, w, h), label=body_label))
    return replace(found, bodies=tuple(bodies), labels=kept)
