"""Scoring a dice reader against labels: the rules every benchmark and ``bench read dice --labels`` share."""

from __future__ import annotations

import pytest

from vision.declines import Decline
from vision.dice_explanation import DieReading
from vision.dice_pipeline import StagedRead
from vision.dice_scoring import (
    MISSED,
    DiceScore,
    ImageRead,
    ReportedDie,
    image_lines,
    image_read_of,
    score,
    score_lines,
    upper_bound_per_1000,
)
from vision.die_crop import DieSquare
from vision.yolo_labels import LabelledDie


def label(face: int, x: float, y: float, line: int = 1) -> LabelledDie:
    return LabelledDie(face, (x, y), 40.0, 40.0, line)


def test_each_label_is_matched_once_to_the_nearest_reported_die() -> None:
    labels = [label(3, 100, 100, 1), label(5, 200, 100, 2), label(6, 400, 400, 3)]
    read = ImageRead("a.jpg", (ReportedDie((205.0, 98.0), 5), ReportedDie((102.0, 101.0), 2),
                               ReportedDie((600.0, 50.0), 1)))
    tally = score([(labels, read)])
    assert (tally.labelled, tally.correct, tally.not_read) == (3, 1, 1)
    assert tally.confusion[2, 1] == 1 and tally.confusion[4, 4] == 1
    assert tally.declined == {MISSED: 1} and tally.reads_without_label == 1
    assert (tally.accepted, tally.wrong) == (3, 2)  # the 3 read as a 2, and the 1 read where no label is
    assert tally.disagreements == ["a.jpg: 3 at line 1 read 2, 6 at line 3: missed, 1 read(s) with no label"]


def test_a_die_too_far_from_its_label_is_not_taken_for_it() -> None:
    # 0.6 x 40 + 12 = 36 px is the reach
    near = score([([label(1, 0, 0)], ImageRead("a", (ReportedDie((35.0, 0.0), 1),)))])
    far = score([([label(1, 0, 0)], ImageRead("a", (ReportedDie((37.0, 0.0), 1),)))])
    assert (near.correct, far.correct, far.declined[MISSED], far.reads_without_label) == (1, 0, 1, 1)


def test_declines_are_counted_by_reason_and_a_declined_frame_gives_its_reason_to_every_die() -> None:
    labels = [label(2, 100, 100), label(4, 300, 100)]
    per_die = ImageRead("a", (ReportedDie((100.0, 100.0), None, "cocked"), ReportedDie((300.0, 100.0), 4)), "cocked")
    whole = ImageRead("b", (), "glare")
    tally = score([(labels, per_die), (labels, whole)])
    assert tally.declined == {"cocked": 1, "glare": 2} and tally.correct == 1
    assert (tally.images, tally.images_accepted) == (2, 0)
    assert list(tally.declined_by_face) == [0, 2, 0, 1, 0, 0]


def _read(decline: Decline | None) -> StagedRead:
    """A frame read of one die, a three at (10, 10) px read with confidence 0.9."""
    die = DieReading(DieSquare((10.0, 10.0), 20.0, 0.0), (0.02, 0.02, 0.9, 0.02, 0.02, 0.01, 0.01))
    return StagedRead((die,), decline, "leaning" if decline else "", "0" * 64, 1, 1)


def test_a_declined_frame_reports_no_outcome() -> None:
    assert image_read_of("x", _read(Decline.COCKED)) == ImageRead("x", (), "cocked", "leaning")
    assert image_read_of("y", _read(None)).dice == (ReportedDie((10.0, 10.0), 3, None, 0.9),)


def test_a_die_read_where_no_label_is_is_a_wrong_read() -> None:
    """A die read twice, or read where none lies, in an accepted frame: an accepted read, and a wrong one (in a game,
    a wrong count or a face no die shows), printed with the other wrong reads."""
    labels = [label(4, 100, 100), label(2, 300, 100)]
    read = ImageRead("phantom.jpg", (ReportedDie((100.0, 100.0), 4), ReportedDie((300.0, 100.0), 2),
                                     ReportedDie((500.0, 300.0), 5)))
    tally = score([(labels, read)])
    assert (tally.correct, tally.accepted, tally.wrong, tally.reads_without_label) == (2, 3, 1, 1)
    assert tally.wrong_per_1000 == pytest.approx(1000 / 3)
    assert "  read wrong             1    50.0%  (1 with no label)" in score_lines(tally, "photos")
    assert tally.to_json()["wrong"] == 1


def test_the_wrong_rate_is_bounded_honestly() -> None:
    assert upper_bound_per_1000(0, 300) == pytest.approx(12.22, abs=0.01)  # 1 - 0.025 ** (1 / 300)
    assert upper_bound_per_1000(0, 3688) < 1.0 < upper_bound_per_1000(0, 3685)
    assert upper_bound_per_1000(0, 0) == 1000.0


def test_the_printed_score_fits_80_columns_and_carries_the_figures() -> None:
    labels = [label(f, 100 * f, 100) for f in range(1, 7)]
    read = ImageRead("a", tuple(ReportedDie((100.0 * f, 100.0), f) for f in range(1, 6)))
    lines = score_lines(score([(labels, read)]), "photos")
    assert all(len(line) <= 80 for line in lines)
    text = "\n".join(lines)
    assert "read correctly         5    83.3%" in text and "missed" in text


def test_the_per_die_readers_crops_are_scored_one_die_each_with_declines_by_reason() -> None:
    from vision.die_reader_model import DieRead as CropRead

    tally = DiceScore()
    unsure = CropRead(None, 0.6, Decline.UNREADABLE, "unsure: face 2 at confidence 0.600, below 0.900")
    no_die = CropRead(None, 0.8, Decline.UNREADABLE, "not a flat readable die (confidence 0.800)")
    tally.add_reads([1, 2, 2, 6, 3], [CropRead(1, 0.99), CropRead(2, 0.95), unsure, CropRead(5, 0.97), no_die])
    assert (tally.labelled, tally.correct, tally.not_read, tally.accepted, tally.wrong) == (5, 2, 2, 3, 1)
    assert tally.confusion[5, 4] == 1 and tally.declined_by_face.tolist() == [0, 1, 1, 0, 0, 0]
    assert tally.wrong_per_1000 == pytest.approx(1000 / 3)
    assert dict(tally.declined) == {"unsure": 1, "not a flat readable die": 1}
    lines = score_lines(tally, "crops")
    assert lines[0] == "crops" and any("read correctly" in line and "40.0%" in line for line in lines)
    with pytest.raises(ValueError, match="1..6"):
        tally.add_reads([7], [CropRead(1, 0.9)])
    with pytest.raises(ValueError, match="2 labelled faces for 1 reads"):
        tally.add_reads([1, 2], [CropRead(1, 0.9)])


def test_touching_dice_are_matched_to_their_own_reads_not_each_to_the_read_nearest_its_box() -> None:
    # boxes drawn around the dice with their side faces lie a little off the up faces read: the first label's
    # box centre is nearer the second die's read than its own, but the pairing of least total distance is right
    labels = [label(3, 100, 100, 1), label(1, 120, 100, 2)]
    read = ImageRead("touching.jpg", (ReportedDie((84.0, 100.0), 3), ReportedDie((112.0, 100.0), 1)))
    tally = score([(labels, read)])
    assert (tally.correct, tally.wrong, tally.not_read, tally.reads_without_label) == (2, 0, 0, 0)
    assert tally.disagreements == []


def test_the_real_photo_benchmark_scores_only_the_part_asked_for(tmp_path) -> None:
    import cv2
    import numpy as np
    from benchmark_scripts import load_benchmark

    from vision.die_samples import split_of

    photos = load_benchmark("dice_real_photos")
    names = [f"photo_{i}" for i in range(40)]
    test = [name for name in names if split_of(f"{name}.png") == "test"][:2]
    other = [name for name in names if split_of(f"{name}.png") != "test"][:3]
    images = tmp_path / "set" / "images"
    images.mkdir(parents=True)
    for name in test + other:
        cv2.imwrite(str(images / f"{name}.png"), np.full((60, 80, 3), 90, np.uint8))
        (images / f"{name}.txt").write_text("2 0.5 0.5 0.2 0.2\n")
    seen: list[tuple[int, ...]] = []

    def read_frame(image: np.ndarray) -> StagedRead:
        seen.append(image.shape)
        return StagedRead((), Decline.WRONG_COUNT, "none read", "0" * 64, 0, 0)

    lines = photos.measure(images, read_frame, None, "test")
    assert len(seen) == 2 and lines[0] == "set, test part: 2 images (0 accepted whole)"
    assert photos.measure(images, read_frame, None)[0] == "set: 5 images (0 accepted whole)"


def test_an_image_declined_whole_is_listed_with_its_reason_and_the_first_fault_named() -> None:
    labels = [label(3, 100, 100), label(5, 300, 100)]
    detail = ("body at (382, 500) of 0.68 dice shows no flat face that reads surely; dice read at (1, 2) and (3, 4) "
              "would overlap; body at (9, 9) is smeared")
    tally = score([(labels, ImageRead("a.jpg", (), "cocked", detail)),
                   ([label(1, 50, 50)], ImageRead("b.jpg", (), "glare")),
                   (labels, ImageRead("c.jpg", (ReportedDie((100.0, 100.0), 3), ReportedDie((300.0, 100.0), 5))))])
    assert tally.declined_images == [
        "a.jpg: 2 dice, cocked: body at (382, 500) of 0.68 dice shows no flat face that reads surely (and 2 more)",
        "b.jpg: 1 die, glare: no detail given"]
    assert tally.to_json()["declined_images"] == tally.declined_images
    assert tally.declined == {"cocked": 2, "glare": 1} and tally.correct == 2
    assert image_lines(tally) == ["  images declined whole (the first fault the reader names):",
                                  *(f"    {line}" for line in tally.declined_images)]  # no heading without images
