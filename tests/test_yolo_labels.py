"""YOLO dice labels: read exactly, and every fault named by file and line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.yolo_labels import (
    BYLER_PHOTOS,
    MATTEOP65_PHOTOS,
    SHARED_DATASETS,
    LabelError,
    check_classes_file,
    labelled_images,
    parse_label_line,
    read_label_file,
)


def _image(folder: Path, name: str, size: tuple[int, int] = (640, 480)) -> Path:
    path = folder / name
    Image.fromarray(np.zeros((size[1], size[0], 3), np.uint8)).save(path)
    return path


def test_a_label_line_becomes_a_die_in_pixels() -> None:
    die = parse_label_line("4 0.5 0.25 0.1 0.2", "f.txt:3", 640, 480, 3)
    assert die.face == 5 and die.centre_px == (320.0, 120.0)
    assert (die.width_px, die.height_px, die.size_px, die.line) == (64.0, 96.0, 96.0, 3)


@pytest.mark.parametrize(("line", "message"), [
    ("6 0.5 0.5 0.1 0.1", "class '6' must be 0..5"),
    ("-1 0.5 0.5 0.1 0.1", "class '-1' must be 0..5"),
    ("2 0.5 0.5 0.1", "expected 5 fields"),
    ("2 0.5 x 0.1 0.1", "y_center 'x' is not a number"),
    ("2 0.5 nan 0.1 0.1", "is not a finite number"),
    ("2 0.5 0.5 0 0.1", "must be fractions of the image"),
    ("2 0.98 0.5 0.1 0.1", "reaches outside the image"),
])
def test_a_bad_label_line_is_named(line: str, message: str) -> None:
    with pytest.raises(LabelError, match=f"^labels.txt:7: .*{message}"):
        parse_label_line(line, "labels.txt:7", 640, 480, 7)


def test_a_label_file_names_its_bad_line_and_skips_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("0 0.5 0.5 0.1 0.1\n\n3 0.2 0.2 0.1 0.1\n")
    assert [die.face for die in read_label_file(path, 100, 100)] == [1, 4]
    path.write_text("0 0.5 0.5 0.1 0.1\n9 0.5 0.5 0.1 0.1\n")
    with pytest.raises(LabelError, match=f"{path}:2: class '9'"):
        read_label_file(path, 100, 100)


def test_an_image_without_its_label_file_is_an_error(tmp_path: Path) -> None:
    _image(tmp_path, "a.jpg")
    (tmp_path / "a.txt").write_text("1 0.5 0.5 0.1 0.1\n")
    _image(tmp_path, "b.png")
    with pytest.raises(LabelError, match=r"b\.txt: no label file beside the image"):
        labelled_images(tmp_path)
    (tmp_path / "b.txt").write_text("")
    images = labelled_images(tmp_path)
    assert [(i.image.name, len(i.dice)) for i in images] == [("a.jpg", 1), ("b.png", 0)]


def test_an_unreadable_image_and_an_empty_folder_are_named(tmp_path: Path) -> None:
    with pytest.raises(LabelError, match="no image"):
        labelled_images(tmp_path)
    (tmp_path / "a.jpg").write_bytes(b"not a jpeg")
    (tmp_path / "a.txt").write_text("")
    with pytest.raises(LabelError, match=r"a\.jpg: not an image"):
        labelled_images(tmp_path)


@pytest.mark.parametrize("text", ["0 one\n1 two\n2 three\n3 four\n4 five\n5 six\n",
                                  "One\nTwo\nThree\nFour\nFive\nSix\n", "1\n2\n3\n4\n5\n6\n"])
def test_classes_naming_the_faces_in_order_are_accepted(tmp_path: Path, text: str) -> None:
    (tmp_path / "classes.txt").write_text(text)
    check_classes_file(tmp_path)


def test_classes_that_mean_something_else_are_refused(tmp_path: Path) -> None:
    (tmp_path / "classes.txt").write_text("one\ntwo\nthree\nfour\nfive\n")
    with pytest.raises(LabelError, match="names 5 classes"):
        check_classes_file(tmp_path)
    (tmp_path / "classes.txt").write_text("die\none\ntwo\nthree\nfour\nfive\n")
    with pytest.raises(LabelError, match=r"classes.txt:1: class 0 is named 'die'"):
        check_classes_file(tmp_path)


@pytest.mark.skipif(not SHARED_DATASETS.is_dir(), reason="the shared photo sets are not beside the repository")
def test_both_shared_photo_sets_load_whole() -> None:
    byler, matteo = labelled_images(BYLER_PHOTOS), labelled_images(MATTEOP65_PHOTOS)
    assert (len(byler), sum(len(i.dice) for i in byler)) == (200, 1487)
    assert (len(matteo), sum(len(i.dice) for i in matteo)) == (86, 255)
