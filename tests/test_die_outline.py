"""A die of a measuring still is outlined at full resolution from the square the staged reader read it in, or
not at all (vision/die_outline.py); the dimension suite measures the outline (suites/test_dice.py)."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.profiles import load_profile
from bench.rig_cameras import open_dice_table
from vision.die_crop import DieSquare
from vision.die_outline import dice_to_measure, outline_die
from vision.render.target import TargetSpec
from vision.scale import PlaneScale, hide_target

CLOTH = (40, 110, 30)


def _corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    """The largest distance from a true corner to the nearest corner found, px."""
    return max(float(np.min(np.linalg.norm(found - corner, axis=1))) for corner in truth)


def _drawn(centre: tuple[float, float], edge: float, angle: float, colour: tuple[int, int, int],
           frame: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A die's face drawn filled on green cloth (with white pips on a dark die, black on a light one)."""
    frame = np.full((240, 320, 3), CLOTH, np.uint8) if frame is None else frame
    corners = cv2.boxPoints((centre, (edge, edge), angle)).astype(np.float32)
    cv2.fillPoly(frame, [np.round(corners).astype(np.int32)], colour, lineType=cv2.LINE_AA)
    pip = (255, 255, 255) if sum(colour) < 300 else (20, 20, 20)
    cv2.circle(frame, (round(centre[0]), round(centre[1])), max(2, round(edge * 0.09)), pip, -1, cv2.LINE_AA)
    return frame, corners


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_dice_of_a_simulated_measuring_still_are_outlined_within_a_pixel(tmp_path: Path, seed: int) -> None:
    """The `sim` arena's measuring stills (three translucent red dice under the camera, with their shadows):
    every die the staged reader reads is outlined with each corner within 1.5 px of the renderer's (the
    square it was read in lies up to several px off), and its pips are all located."""
    profile = load_profile("sim")[0]
    equipment = profile.equipment["dice"]
    simulation = equipment.camera.simulation.model_copy(update={"seed": seed})  # type: ignore[union-attr]
    equipment = equipment.model_copy(update={"camera": equipment.camera.model_copy(update={"simulation": simulation})})
    table = open_dice_table(equipment, tmp_path / "dice.json")  # type: ignore[arg-type]
    target = TargetSpec(marker_mm=equipment.camera.target_marker_mm)
    for attempt in range(2):
        frame = table.camera.measurement_frame(attempt)
        scale = PlaneScale.from_image(frame.image, target, camera_height_mm=equipment.camera.camera_height_mm)
        hidden = hide_target(frame.image, scale, target)
        read = table.reader(hidden)
        assert read.accepted, read.detail
        dice, problem = dice_to_measure(hidden, read)
        assert problem is None and len(dice) == 3
        for die in dice:
            truth = min(frame.truth.dice, key=lambda t: math.dist(t.centre_px, die.outline.centre_px))
            assert _corner_error(die.outline.corners_px, np.array(truth.corners_px)) < 1.5
            assert die.face == truth.face and len(die.pips_px) == die.face
    table.close()


def test_a_die_read_off_its_centre_is_outlined_where_it_lies_not_where_it_was_read() -> None:
    frame, corners = _drawn((160.0, 120.0), 44.0, 17.0, (40, 40, 200))
    found = outline_die(frame, DieSquare((165.0, 116.0), 40.0, 5.0))
    assert found is not None
    assert _corner_error(found.corners_px, corners) < 1.0
    assert abs(found.edge_px - 44.0) < 1.5 and math.dist(found.centre_px, (160.0, 120.0)) < 0.5


def test_its_shadow_darker_than_the_cloth_is_no_part_of_the_die() -> None:
    frame = np.full((240, 320, 3), CLOTH, np.uint8)
    cv2.rectangle(frame, (150, 110), (200, 160), (15, 45, 10), -1)  # the shadow cast to the lower right
    frame, corners = _drawn((160.0, 120.0), 44.0, 0.0, (230, 230, 230), frame)
    found = outline_die(frame, DieSquare((160.0, 120.0), 44.0, 0.0))
    assert found is not None and _corner_error(found.corners_px, corners) < 1.0


def test_touching_dice_a_die_darker_than_the_cloth_and_a_blank_frame_give_no_outline() -> None:
    touching, _ = _drawn((140.0, 120.0), 40.0, 0.0, (230, 230, 230))
    touching, _ = _drawn((180.0, 120.0), 40.0, 0.0, (230, 230, 230), touching)
    assert outline_die(touching, DieSquare((140.0, 120.0), 40.0, 0.0)) is None  # the pair is no square
    dark, _ = _drawn((160.0, 120.0), 40.0, 0.0, (10, 10, 10))
    assert outline_die(dark, DieSquare((160.0, 120.0), 40.0, 0.0)) is None
    blank = np.full((240, 320, 3), CLOTH, np.uint8)
    assert outline_die(blank, DieSquare((160.0, 120.0), 40.0, 0.0)) is None
    at_the_border, _ = _drawn((10.0, 120.0), 40.0, 0.0, (230, 230, 230))  # cut by the frame's edge
    assert outline_die(at_the_border, DieSquare((10.0, 120.0), 40.0, 0.0)) is None
    with pytest.raises(ValueError, match="BGR"):
        outline_die(blank[:, :, 0], DieSquare((160.0, 120.0), 40.0, 0.0))


def test_a_still_with_a_die_that_cannot_be_outlined_names_it() -> None:
    from vision.dice_explanation import DieReading
    from vision.dice_pipeline import StagedRead

    frame, _ = _drawn((100.0, 120.0), 40.0, 0.0, (230, 230, 230))
    frame, _ = _drawn((220.0, 120.0), 40.0, 0.0, (230, 230, 230), frame)
    one = (0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0)  # read as a six: its pips (one drawn) cannot all be located
    read = StagedRead((DieReading(DieSquare((100.0, 120.0), 40.0, 0.0), one),
                       DieReading(DieSquare((220.0, 120.0), 40.0, 0.0), one)), None, "", "0" * 64, 2, 2)
    dice, problem = dice_to_measure(frame, read)
    assert problem is None and [die.face for die in dice] == [6, 6] and all(die.pips_px == () for die in dice)
    frame[100:140, 240:262] = (230, 230, 230)  # the second die now touches a white patch
    dice, problem = dice_to_measure(frame, read)
    assert dice == [] and problem is not None and "die at (220, 120) px read as a 6 cannot be outlined" in problem
