"""Labelled dice photos as the per-die reader's samples: the split by image, squares and non-dice (the labels
themselves: ``tests/test_yolo_labels.py``)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from synthetic_dice import die_frame

from vision.declines import Decline
from vision.die_crop import DieSquare
from vision.die_samples import (
    NOT_A_DIE,
    PIPS_TO_EDGE,
    SHRUNK_EDGE_SHARE,
    die_squares,
    not_a_die_squares,
    photos_in,
    proposal_samples,
    rendered_class,
    rendered_samples,
    split_of,
)
from vision.render.dice import DieTruth
from vision.yolo_labels import BYLER_PHOTOS, LabelError, LabelledDie, LabelledImage, labelled_images


def _folder(tmp_path: Path, labels: dict[str, str], size: tuple[int, int] = (200, 100)) -> Path:
    for name, text in labels.items():
        cv2.imwrite(str(tmp_path / f"{name}.png"), np.full((size[1], size[0], 3), 90, np.uint8))
        (tmp_path / f"{name}.txt").write_text(text)
    return tmp_path


def test_the_split_puts_each_image_in_exactly_one_part_by_its_name_alone(tmp_path: Path) -> None:
    names = {f"IMG_{i:04d}": "0 0.5 0.5 0.1 0.1\n" for i in range(60)}
    photos = labelled_images(_folder(tmp_path, names, size=(20, 20)))
    parts = [{p.image.name for p in photos_in(photos, part)} for part in ("train", "validation", "test")]
    assert sum(len(part) for part in parts) == len(photos)
    assert set().union(*parts) == {p.image.name for p in photos}
    assert all(len(part) > 0 for part in parts)
    # the part depends on the file name only, not on the folder or on the other images
    assert split_of("/elsewhere/IMG_0007.png") == split_of("IMG_0007.png")
    shares = [split_of(f"photo_{i}.jpg") for i in range(4000)]
    assert abs(shares.count("test") / 4000 - 0.2) < 0.03 and abs(shares.count("validation") / 4000 - 0.2) < 0.03


def test_the_split_of_the_real_photos_never_shares_an_image() -> None:
    folder = BYLER_PHOTOS
    if not folder.is_dir():
        pytest.skip("the Byler photos are not beside the repository")
    names = sorted(p.name for p in folder.glob("*.jpg"))
    parts = {part: {n for n in names if split_of(n) == part} for part in ("train", "validation", "test")}
    assert parts["train"].isdisjoint(parts["validation"]) and parts["train"].isdisjoint(parts["test"])
    assert parts["validation"].isdisjoint(parts["test"])
    assert sum(map(len, parts.values())) == len(names) == 200


def test_squares_of_boxes_around_the_die_and_around_the_pips() -> None:
    photo = LabelledImage(Path("x.png"), Path("x.txt"), (LabelledDie(4, (100.0, 80.0), 40.0, 36.0, 1),
                                                     LabelledDie(1, (300.0, 200.0), 12.0, 12.0, 2),
                                                     LabelledDie(6, (400.0, 200.0), 50.0, 30.0, 3)), (640, 480))
    by_die = die_squares(photo, "die")
    assert by_die[0] == (DieSquare((100.0, 80.0), 40.0), 3)
    by_pips = die_squares(photo, "pips")
    assert by_pips[0][0].edge_px == pytest.approx(PIPS_TO_EDGE * 40.0)
    # one pip tells no size: a face of 1 takes the median edge of the photo's other dice
    assert by_pips[1][0].edge_px == pytest.approx(PIPS_TO_EDGE * 45.0)
    alone = LabelledImage(Path("y.png"), Path("y.txt"), (LabelledDie(1, (300.0, 200.0), 12.0, 12.0, 1),), (640, 480))
    assert die_squares(alone, "pips", fallback_edge=70.0)[0][0].edge_px == 70.0
    with pytest.raises(LabelError, match="face-1 die's edge"):
        die_squares(alone, "pips")


def test_squares_of_no_die_keep_clear_of_the_dice_centres() -> None:
    squares = [DieSquare((200.0, 200.0), 40.0), DieSquare((242.0, 200.0), 40.0), DieSquare((500.0, 300.0), 40.0)]
    rng = np.random.default_rng(3)
    centres = np.array([s.centre_px for s in squares])
    found = [s for _ in range(20) for s in not_a_die_squares(squares, (640, 480), rng, table=2, shifted=2, pairs=1)]
    assert len(found) >= 80
    distances = np.linalg.norm(np.array([s.centre_px for s in found])[:, None] - centres[None], axis=2).min(axis=1)
    assert distances.min() >= 0.45 * 40.0
    # the two touching dice give squares over both halves, midway between them
    assert any(np.allclose(s.centre_px, (221.0, 200.0)) for s in found)


def test_rendered_samples_label_flat_dice_by_face_and_faults_as_not_a_die() -> None:
    frames = list(rendered_samples(np.random.default_rng(5), 9))
    labels = [label for frame in frames for _, label in frame.samples]
    assert set(labels) <= set(range(7)) and NOT_A_DIE in labels
    assert sum(label < NOT_A_DIE for label in labels) >= 9
    for frame in frames:  # each die read gives a square far too small, centred on it, that is no readable die
        read = [square for square, label in frame.dice if label is not None]
        shrunk = [square for square, label in frame.samples if label == NOT_A_DIE
                  and any(square.centre_px == die.centre_px and square.edge_px == pytest.approx(
                      SHRUNK_EDGE_SHARE * die.edge_px) for die in read)]
        assert len(shrunk) == len(read)


def _truth(**changes: object) -> DieTruth:
    base: dict[str, object] = {
        "face": 4, "centre_px": (50.0, 50.0), "edge_px": 40.0, "pip_diameter_px": 7.0, "angle_deg": 0.0,
        "corners_px": ((30.0, 30.0), (70.0, 30.0), (70.0, 70.0), (30.0, 70.0)), "pose": "flat", "moving": False,
        "expected_decline": None}
    return DieTruth(**(base | changes))


def test_rendered_dice_are_classed_by_what_their_crop_can_show() -> None:
    assert rendered_class(_truth(), beneath=False) == 3
    # moving and cocked dice, a stack's dice and glare over pips are the scene's to judge: their crops alone do
    # not tell (a die slightly blurred by its motion still shows its face)
    assert rendered_class(_truth(moving=True, expected_decline=Decline.MOTION), beneath=False) is None
    assert rendered_class(_truth(pose="cocked", expected_decline=Decline.COCKED), beneath=False) is None
    assert rendered_class(_truth(), beneath=True) is None
    assert rendered_class(_truth(pose="stacked", expected_decline=Decline.STACKED), beneath=False) is None
    assert rendered_class(_truth(expected_decline=Decline.GLARE, glare_weight=1.0), beneath=False) is None
    assert rendered_class(_truth(glare_weight=0.5), beneath=False) is None


def test_proposed_squares_take_the_class_of_the_die_they_are_centred_on_and_off_dice_squares_are_not_a_die() -> None:
    centres, faces = [(60.0, 60.0), (160.0, 120.0), (250.0, 180.0)], [3, 6, 2]
    frame, _ = die_frame(centres, faces=faces)
    dice = [(DieSquare(centres[0], 40.0), 2), (DieSquare(centres[1], 40.0), 5), (DieSquare(centres[2], 40.0), None)]
    samples = proposal_samples(frame, dice)
    classes = {label for _, label in samples}
    assert {2, 5} <= classes and 1 not in classes  # the die of no class (cocked, say) gives no face sample
    for square, label in samples:
        offsets = [float(np.hypot(square.centre_px[0] - x, square.centre_px[1] - y)) for x, y in centres]
        if label == NOT_A_DIE:
            assert all(offset >= 0.4 * 40 or not 0.6 <= square.edge_px / 40 <= 1.6 for offset in offsets)
        else:
            die = [2, 5].index(label)
            assert offsets[die] <= 0.15 * 40 and 0.8 <= square.edge_px / 40 <= 1.25
        assert offsets[2] >= 0.4 * 40 or label == NOT_A_DIE and not 0.6 <= square.edge_px / 40 <= 1.6
