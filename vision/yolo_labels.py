"""Labelled dice photos in the YOLO text format: what a lab's own photos of its arena say each die shows.

A labelled folder holds images (``.jpg``, ``.jpeg``, ``.png``) and, beside each, a text file of the same
stem with one line per die: ``class x_center y_center width height``, the box in fractions of the image's
width and height, ``class`` 0..5 meaning a face of 1..6 pips. A ``classes.txt`` in the folder, when present,
must name the classes in that order (``one`` .. ``six`` or ``1`` .. ``6``, with or without a leading index):
a folder whose classes mean something else is refused rather than scored wrongly.

Every error names the file and line at fault; nothing is guessed (a box outside the image, a class out of
range, a missing label file are errors, not dice skipped).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SHARED_DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
"""The labelled photo sets beside the repository (``../shared/datasets``), absent on a lab's machine."""
BYLER_PHOTOS = SHARED_DATASETS / "dice-photos-byler-train" / "images"
MATTEOP65_PHOTOS = SHARED_DATASETS / "dice-photos-matteop65" / "images"
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
FACE_WORDS = ("one", "two", "three", "four", "five", "six")
_BOX_SLACK = 0.01
"""How far (share of the image) a box may reach past the image's edge: hand-drawn boxes overshoot by a pixel."""


class LabelError(ValueError):
    """A label file or folder that cannot be read as dice labels; the message names the file and line."""


@dataclass(frozen=True)
class LabelledDie:
    """One labelled die: the face up (1..6) and its box in image px; ``line`` is its line in the label file."""

    face: int
    centre_px: tuple[float, float]
    width_px: float
    height_px: float
    line: int

    @property
    def size_px(self) -> float:
        """The box's larger side, px."""
        return max(self.width_px, self.height_px)

    @property
    def box_px(self) -> tuple[float, float, float, float]:
        """The box as (centre x, centre y, width, height), px."""
        return (*self.centre_px, self.width_px, self.height_px)


@dataclass(frozen=True)
class LabelledImage:
    """An image, the dice its label file names, and its size (width, height) px."""

    image: Path
    labels: Path
    dice: tuple[LabelledDie, ...]
    size: tuple[int, int]

    def read(self) -> np.ndarray:
        """The image, BGR."""
        import cv2

        image = cv2.imread(str(self.image), cv2.IMREAD_COLOR)
        if image is None:
            raise LabelError(f"{self.image}: cannot be read as an image")
        return image


def _number(text: str, where: str, field: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise LabelError(f"{where}: {field} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise LabelError(f"{where}: {field} {text!r} is not a finite number")
    return value


def parse_label_line(text: str, where: str, width: int, height: int, line: int) -> LabelledDie:
    """One label line (``class xc yc w h``, fractions) as a die in px; ``where`` names the file and line."""
    parts = text.split()
    if len(parts) != 5:
        raise LabelError(f"{where}: expected 5 fields 'class x_center y_center width height', got {len(parts)}")
    if not re.fullmatch(r"\d+", parts[0]) or not 0 <= int(parts[0]) <= 5:
        raise LabelError(f"{where}: class {parts[0]!r} must be 0..5 (a face of 1..6 pips)")
    xc, yc, w, h = (_number(value, where, name) for value, name in zip(parts[1:], ("x_center", "y_center", "width",
                                                                                      "height"), strict=True))
    if not (0 < w <= 1 and 0 < h <= 1):
        raise LabelError(f"{where}: box width {w} and height {h} must be fractions of the image within (0, 1]")
    if (xc - w / 2 < -_BOX_SLACK or xc + w / 2 > 1 + _BOX_SLACK or yc - h / 2 < -_BOX_SLACK
            or yc + h / 2 > 1 + _BOX_SLACK):
        raise LabelError(f"{where}: box centred at ({xc}, {yc}) of {w} x {h} reaches outside the image")
    return LabelledDie(int(parts[0]) + 1, (xc * width, yc * height), w * width, h * height, line)


def read_label_file(path: Path, width: int, height: int) -> tuple[LabelledDie, ...]:
    """The dice of one label file, for an image of ``width`` x ``height`` px. Blank lines are allowed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LabelError(f"{path}: no label file beside the image") from None
    except (OSError, UnicodeDecodeError) as error:
        raise LabelError(f"{path}: cannot be read as text: {error}") from None
    return tuple(parse_label_line(line, f"{path}:{number}", width, height, number)
                 for number, line in enumerate(text.splitlines(), start=1) if line.strip())


def check_classes_file(folder: Path) -> None:
    """Refuse a ``classes.txt`` whose classes are not the faces one..six in order (absent: nothing to check)."""
    path = folder / "classes.txt"
    if not path.exists():
        return
    names = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if len(names) != 6:
        raise LabelError(f"{path}: names {len(names)} classes, a dice label set has 6 (faces one..six)")
    for index, name in enumerate(names):
        words = name.lower().split()
        if words and words[0] == str(index) and len(words) > 1:
            words = words[1:]  # "0 one": the index, then the name
        if words not in ([FACE_WORDS[index]], [str(index + 1)]):
            raise LabelError(f"{path}:{index + 1}: class {index} is named {name!r}; it must be the face "
                             f"{FACE_WORDS[index]!r} ({index + 1} pips)")


def image_size(path: Path) -> tuple[int, int]:
    """An image's (width, height) from its header, without decoding it."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            return image.size
    except (OSError, UnidentifiedImageError) as error:
        raise LabelError(f"{path}: not an image that can be read: {error}") from None


def labelled_images(folder: Path) -> list[LabelledImage]:
    """Every image of a labelled folder with its dice, in a stable order (by name). An image without its
    label file, or a folder with no image, is an error."""
    if not folder.is_dir():
        raise LabelError(f"{folder}: not a folder of labelled images")
    check_classes_file(folder)
    images = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not images:
        raise LabelError(f"{folder}: no image ({', '.join(IMAGE_SUFFIXES)}) in the folder")
    out = []
    for image in images:
        labels = image.with_suffix(".txt")
        width, height = image_size(image)
        out.append(LabelledImage(image, labels, read_label_file(labels, width, height), (width, height)))
    return out
