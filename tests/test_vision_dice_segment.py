"""The dice segmentation's pixel tests and blobs (vision.dice_segment): each computed the fast way must equal its
definition, on every colour and on rendered frames."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice_segment import PixelFeatures, blob_at, redder, segment_dice
from vision.render.dice_frames import clean_frame, reader_config


def _planes_of_every_colour(blue: int) -> np.ndarray:
    """A 256 x 256 BGR image: this blue, green down the rows, red across the columns."""
    green, red = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    return np.dstack([np.full_like(green, blue), green, red]).astype(np.uint8)


def test_pixel_features_equal_their_definitions_on_every_colour() -> None:
    """Grey (the mean rounded to the nearest integer), neutral (chroma <= 24 % of the brightest channel), very
    neutral (<= 12 %) and redder (red >= 1.8 times blue and green), taken in whole numbers, for all 2^24 colours."""
    for blue in range(256):
        image = _planes_of_every_colour(blue)
        features = PixelFeatures.of(image)
        b, g, r = (image[..., k].astype(np.int64) for k in range(3))
        top = np.maximum(np.maximum(b, g), r)
        chroma = top - np.minimum(np.minimum(b, g), r)
        total = b + g + r
        assert np.array_equal(features.grey, (total // 3 + (total % 3 == 2)).astype(np.float32))
        assert np.array_equal(features.neutral > 0, chroma * 100 <= 24 * top)
        assert np.array_equal(features.very_neutral > 0, chroma * 100 <= 12 * top)
        assert np.array_equal(features.redder > 0, 5 * r >= 9 * np.maximum(b, g))
        assert np.array_equal(redder(np.maximum(image[..., 0], image[..., 1]), image[..., 2]), features.redder)


@pytest.mark.parametrize("index", [0, 1, 2, 7, 11])
def test_the_blobs_found_at_once_are_those_of_each_label_alone(index: int) -> None:
    """segment_dice measures all labels in one pass; each blob equals :func:`blob_at` of its label's own pixels."""
    image, truth = clean_frame(20240611, index)
    cfg = reader_config(truth)
    seg = segment_dice(image, cfg.segment_threshold, 0.25 * cfg.die_edge_px[0] ** 2)
    assert seg.blobs
    for blob in seg.blobs:
        ys, xs = np.nonzero(seg.labels == blob.label)
        assert blob == blob_at(blob.label, xs, ys)
    small_labels = set(np.unique(seg.labels).tolist()) - {0} - {blob.label for blob in seg.blobs}
    for label in small_labels:  # left out only for being under the least area
        assert np.count_nonzero(seg.labels == label) * 4 < 0.25 * cfg.die_edge_px[0] ** 2
