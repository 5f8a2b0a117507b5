"""Dice reader on real photos: per-die accuracy, declines and confusion against the YOLO labels.

Data: ``../shared/datasets/dice-photos-matteop65/images/`` (86 webcam photos of white dice with
black pips on a light wooden desk, MIT licence; see the README beside it). Each label line is
``class x y w h`` (fractions of the image), class 0..5 meaning a face of 1..6, the box drawn
around the up face's pips. Some labels are loose or wrong: look at an image before calling a
disagreement a reader error (``--draw DIR`` writes each disagreement as a PNG). And
``../shared/datasets/dice-photos-byler-train/images/`` (200 phone photos of 1,487 dice of many kinds in a
dice tray, BSD licence), boxes drawn around the die.

The camera is oblique, so the reader (the staged reader with the bench's own model, or as ``--reader-config``
sets it) is told so: side faces up to 0.45 of an edge are the camera's doing, not a cocked die.

Scoring (:mod:`vision.dice_scoring`, the same rules as ``bench read dice --labels yolo``): each label is
matched to the nearest die read; an image whose read is declined counts each of its labels as declined
with the frame's reason. Prints per set the dice read correctly, read wrong, not read (by reason), wrong
reads per 1,000 accepted with the 95 % upper bound, and the confusion of faces.

Run: ``.venv/bin/python benchmarks/dice_real_photos.py [--data DIR ...] [--draw DIR] [--reader-config FILE]
[--part all|test]`` (default: both shared photo sets, every image). Exits 0 with a note when a data folder is
absent.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.dice_scoring import image_lines, image_read_of, score, score_lines
from vision.die_samples import photos_in
from vision.yolo_labels import BYLER_PHOTOS, MATTEOP65_PHOTOS, LabelledDie, labelled_images

DEFAULT_DATA = [MATTEOP65_PHOTOS, BYLER_PHOTOS]


def frame_reader(settings_file: Path | None) -> Callable[[np.ndarray], object]:
    """The staged reader with the configuration in ``settings_file`` (default: the shipped model at its card's
    threshold, side faces 0.45)."""
    from vision.dice_reader_settings import DiceReaderSettings, load_reader_settings
    from vision.dice_staged_reader import staged_reader

    settings = load_reader_settings(settings_file) if settings_file else DiceReaderSettings(side_share=0.45)
    return staged_reader(settings, settings_file).read


def measure(folder: Path, read_frame: Callable[[np.ndarray], object], draw: Path | None, part: str = "all"
            ) -> list[str]:
    """The score of the reader on one labelled folder (``part``: every image, else only the images of that part of
    the split by file name, :func:`vision.die_samples.split_of`), as printed lines (with the processor time per
    frame)."""
    pairs = []
    seconds = 0.0
    items = labelled_images(folder)
    for item in items if part == "all" else photos_in(items, part):
        image = cv2.imread(str(item.image))
        started = time.process_time()
        read = read_frame(image)
        seconds += time.process_time() - started
        pairs.append((item.dice, image_read_of(item.image.name, read)))
        if draw is not None and (not read.accepted or len(read.dice) != len(item.dice)):
            _draw(draw, item.image, image, item.dice, read)
    tally = score(pairs)
    per_frame = f"  {1000 * seconds / max(len(pairs), 1):.1f} ms of processor time per frame"
    title = folder.parent.name if part == "all" else f"{folder.parent.name}, {part} part"
    return [*score_lines(tally, title), per_frame, *image_lines(tally)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="+", default=DEFAULT_DATA)
    parser.add_argument("--draw", type=Path, default=None, help="write declined or disagreeing images as PNGs here")
    parser.add_argument("--reader-config", type=Path, default=None, help="the staged reader's configuration")
    parser.add_argument("--part", choices=("all", "train", "validation", "test"), default="all",
                        help="only the images of this part of the split by file name (test: never trained on)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    read_frame = frame_reader(args.reader_config)
    for folder in args.data:
        if not folder.is_dir():
            print(f"real dice photos not found at {folder}: nothing to measure")
            continue
        print("\n".join(measure(folder, read_frame, args.draw, args.part)))
    return 0


def _draw(folder: Path, path: Path, image: np.ndarray, labels: tuple[LabelledDie, ...], read: object) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    canvas = image.copy()
    for label in labels:
        face, (x, y), size = label.face, label.centre_px, label.size_px
        cv2.rectangle(canvas, (int(x - size / 2), int(y - size / 2)), (int(x + size / 2), int(y + size / 2)),
                      (0, 0, 255), 1)
        cv2.putText(canvas, str(face), (int(x + size / 2) + 2, int(y)), 0, 0.6, (0, 0, 255), 2)
    for die in read.dice:
        cv2.putText(canvas, str(die.face), (int(die.centre_px[0]) - 6, int(die.centre_px[1]) - 22), 0, 0.6,
                    (255, 0, 255), 2)
    cv2.putText(canvas, f"{read.decline or 'accepted'}", (5, 25), 0, 0.7, (255, 0, 0), 2)
    cv2.imwrite(str(folder / f"{path.stem}.png"), canvas)


if __name__ == "__main__":
    raise SystemExit(main())
