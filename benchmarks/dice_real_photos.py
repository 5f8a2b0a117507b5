"""Dice reader on real webcam photos: per-die accuracy, declines and confusion against the YOLO labels.

Data: ``../shared/datasets/dice-photos-matteop65/images/`` (86 webcam photos of white dice with
black pips on a light wooden desk, MIT licence; see the README beside it). Each label line is
``class x y w h`` (fractions of the image), class 0..5 meaning a face of 1..6, the box drawn
around the up face's pips. Some labels are loose or wrong: look at an image before calling a
disagreement a reader error (``--draw DIR`` writes each disagreement as a PNG).

The camera is oblique, so the reader is told so (``max_side_ratio`` 0.45: wide side faces are
the camera's doing, not a cocked die) and the cocked check by foreshortening is relaxed.

Matching: each label is matched to the nearest die read (centre distance at most 0.6 of the
label's larger side plus 12 px); an image whose read is declined counts each label as declined.

Run: ``.venv/bin/python benchmarks/dice_real_photos.py [--data DIR] [--draw DIR]``. Exits 0 with a
note when the data folder is absent.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.dice import DiceReaderConfig, read_dice

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "dice-photos-matteop65" / "images"
OBLIQUE_WEBCAM = DiceReaderConfig(expected_dice=None, style="opaque", max_side_ratio=0.45, min_squareness=0.6,
                                  die_edge_px=(32.0, 75.0), motion_anisotropy=0.3, pip_spread=(0.12, 0.4),
                                  min_pip_roundness=0.7)


def load_labels(path: Path, width: int, height: int) -> list[tuple[int, float, float, float]]:
    """(face, x, y, size) per label line, image px."""
    out = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) != 5:
            continue
        cls, x, y, w, h = int(parts[0]), *map(float, parts[1:])
        out.append((cls + 1, x * width, y * height, max(w * width, h * height)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--draw", type=Path, default=None, help="write disagreements as PNGs into this folder")
    args = parser.parse_args()
    if not args.data.is_dir():
        print(f"real dice photos not found at {args.data}: nothing to measure")
        return 0
    cv2.setNumThreads(1)
    images = sorted(args.data.glob("*.jpg"), key=lambda p: (len(p.stem), p.stem))
    confusion = np.zeros((7, 8), int)  # rows: label face 1..6; columns: read 1..6, 7 = declined/missed
    declined_images: dict[str, str] = {}
    disagreements: list[str] = []
    extra_reads = 0
    for path in images:
        image = cv2.imread(str(path))
        labels = load_labels(path.with_suffix(".txt"), image.shape[1], image.shape[0])
        read = read_dice(image, OBLIQUE_WEBCAM)
        if not read.accepted:
            declined_images[path.name] = f"{read.decline}: {read.detail[:110]}"
        used: set[int] = set()
        wrong_here = []
        for face, x, y, size in labels:
            best, best_d = None, 0.6 * size + 12
            for i, die in enumerate(read.dice):
                d = float(np.hypot(die.centre_px[0] - x, die.centre_px[1] - y))
                if i not in used and d <= best_d:
                    best, best_d = i, d
            if not read.accepted or best is None:
                confusion[face, 7] += 1
                if read.accepted:
                    wrong_here.append(f"{face}: missed")
                continue
            used.add(best)
            got = read.dice[best].face
            confusion[face, got] += 1
            if got != face:
                wrong_here.append(f"{face} read {got}")
        if read.accepted:
            extra_reads += len(read.dice) - len(used)
            if len(read.dice) > len(used):
                wrong_here.append(f"{len(read.dice) - len(used)} read(s) with no label")
        if wrong_here:
            disagreements.append(f"{path.name}: " + ", ".join(wrong_here))
            if args.draw is not None:
                _draw(args.draw, path, image, labels, read)
    total = int(confusion[1:].sum())
    read_ok = int(sum(confusion[f, f] for f in range(1, 7)))
    read_wrong = int(confusion[1:, 1:7].sum()) - read_ok
    declined = int(confusion[1:, 7].sum())
    print(f"real photos: {len(images)} images, {total} labelled dice")
    print(f"  read correctly {read_ok} ({read_ok / max(total, 1):.1%}), read differently from the label {read_wrong}, "
          f"declined or missed {declined} ({declined / max(total, 1):.1%}); reads with no label: {extra_reads}")
    accepted = read_ok + read_wrong
    print(f"  disagreements per 1,000 accepted reads: {1000 * read_wrong / max(accepted, 1):.1f}")
    print(f"  images declined: {len(declined_images)} of {len(images)}")
    print("  confusion (rows: label 1..6; columns: read 1..6, declined/missed):")
    for face in range(1, 7):
        print(f"    {face}: " + " ".join(f"{v:4d}" for v in confusion[face, 1:]))
    if declined_images:
        print("  declined images:")
        for name, why in declined_images.items():
            print(f"    {name}: {why}")
    if disagreements:
        print("  images where an accepted read disagrees with the labels:")
        for line in disagreements:
            print(f"    {line}")
    return 0


def _draw(folder: Path, path: Path, image: np.ndarray, labels: list, read: object) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    canvas = image.copy()
    for face, x, y, size in labels:
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
