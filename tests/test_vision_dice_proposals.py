"""The staged dice pipeline's first stages: bodies (vision.dice_bodies) and die squares (vision.dice_proposals).

Rendered frames (seed 20240611, first 60) measured 169 of 169 dice (100 %) with a proposal within 0.35 of an edge and
+-30 % of the edge; the test asks 98 % (benchmarks/dice_proposals_recall.py gives the figures on 600 frames and on
photos).
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest
from benchmark_scripts import load_benchmark

from vision.dice_bodies import find_bodies
from vision.dice_proposals import propose_squares
from vision.dice_stage_config import DiceStageConfig
from vision.die_crop import DieSquare
from vision.render.dice_frames import clean_frame, frames, told_edge_px

PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (-1, 1), (1, -1), (1, 1)],
        5: [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)], 6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}


def table(seed: int = 3, size: tuple[int, int] = (480, 640)) -> np.ndarray:
    """A green cloth with a light gradient and grain."""
    rng = np.random.default_rng(seed)
    image = np.zeros((*size, 3), np.float32)
    image[:] = (60, 120, 40)
    image *= np.linspace(0.8, 1.1, size[1], dtype=np.float32)[None, :, None]
    image += rng.normal(0, 3, image.shape).astype(np.float32)
    return np.clip(image, 0, 255).astype(np.uint8)


def draw_die(image: np.ndarray, centre: tuple[float, float], edge: float, face: int, angle: float = 0.0,
             spread: float = 0.27) -> None:
    """A white die with black pips ``spread`` of the edge from its centre on each axis, seen from above."""
    square = DieSquare(centre, edge, angle)
    cv2.fillConvexPoly(image, np.round(square.corners()).astype(np.int32), (235, 235, 235), cv2.LINE_AA)
    theta = math.radians(angle)
    for u, v in PIPS[face]:
        x = centre[0] + spread * edge * (u * math.cos(theta) - v * math.sin(theta))
        y = centre[1] + spread * edge * (u * math.sin(theta) + v * math.cos(theta))
        cv2.circle(image, (round(x), round(y)), round(0.09 * edge), (20, 20, 20), -1, cv2.LINE_AA)


def covers(squares: list[DieSquare], centre: tuple[float, float], edge: float) -> bool:
    return any(math.dist(s.centre_px, centre) <= 0.35 * edge and abs(s.edge_px / edge - 1) <= 0.3 for s in squares)


def proposals(image: np.ndarray, config: DiceStageConfig | None = None) -> list[DieSquare]:
    bodies = find_bodies(image, config)
    return [square for body in propose_squares(image, bodies, config) for square in body.squares]


def test_rendered_frames_get_a_proposal_at_nearly_every_die() -> None:
    found = total = 0
    for _, image, truth in frames(20240611, 60):
        edge = truth.edge_mm * truth.px_per_mm
        config = DiceStageConfig(die_edge_px=(0.8 * edge, 1.2 * edge))
        squares = proposals(image, config)
        found += sum(covers(squares, die.centre_px, die.edge_px) for die in truth.dice)
        total += len(truth.dice)
    assert found / total >= 0.98, f"{found} of {total} dice covered"


def test_few_proposals_per_body() -> None:
    for _, image, _ in frames(777, 12):
        bodies = find_bodies(image)
        for body in propose_squares(image, bodies):
            settings = DiceStageConfig()
            most = settings.max_proposals_per_body + settings.proposals_per_further_die * (body.dice_by_area - 1)
            assert 1 <= len(body.squares) <= most


def test_single_dice_are_found_with_their_size() -> None:
    image = table()
    dice = [((150.0, 150.0), 4), ((400.0, 300.0), 6), ((500.0, 120.0), 1)]
    for centre, face in dice:
        draw_die(image, centre, 50.0, face, angle=20.0)
    bodies = find_bodies(image)
    assert len(bodies.bodies) == 3
    assert bodies.die_edge_px == pytest.approx(50.0, rel=0.15)
    for body in bodies.bodies:  # the body's mask (working resolution) holds its area
        pixels = cv2.countNonZero(bodies.body_mask(body)) / bodies.scale ** 2
        assert pixels == pytest.approx(body.area_px, rel=0.1)
        assert body.area_px == pytest.approx(50.0 ** 2, rel=0.35)
    squares = proposals(image)
    assert all(covers(squares, centre, 50.0) for centre, _ in dice)


def test_touching_dice_get_one_proposal_each() -> None:
    image = table()
    dice = [((300.0, 240.0), 5), ((349.0, 240.0), 2), ((200.0, 100.0), 3)]  # the first two touch along an edge
    for centre, face in dice:
        draw_die(image, centre, 48.0, face)
    bodies = find_bodies(image)
    assert len(bodies.bodies) == 2
    pair = next(b for b in propose_squares(image, bodies) if b.body.area_px > 1.5 * 48.0 ** 2)
    assert pair.dice_by_area == 2
    for centre, _ in dice[:2]:
        assert covers(list(pair.squares), centre, 48.0)


def test_an_empty_table_has_no_bodies() -> None:
    bodies = find_bodies(table(seed=5))
    assert bodies.bodies == ()
    assert propose_squares(table(seed=5), bodies) == ()


def test_the_arena_is_the_cloth_not_the_border_around_it() -> None:
    image = np.full((480, 640, 3), (30, 30, 30), np.uint8)
    image[60:420, 80:560] = table()[60:420, 80:560]
    bodies = find_bodies(image)
    x, y, w, h = cv2.boundingRect(bodies.arena_px)
    assert abs(x - 80) <= 20 and abs(y - 60) <= 20 and abs(x + w - 560) <= 20 and abs(y + h - 420) <= 20


@pytest.mark.parametrize(("image", "message"), [
    (np.zeros((480, 640, 3), np.float32), "dtype uint8"),
    (np.zeros((0, 0, 3), np.uint8), "too small"),
    (np.zeros((480, 640, 4), np.uint8), "shape"),
    ([[0, 1], [2, 3]], "numpy array"),
])
def test_bad_frames_are_refused_by_name(image: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        find_bodies(image)  # type: ignore[arg-type]


def test_proposals_refuse_a_frame_other_than_the_bodies_one() -> None:
    bodies = find_bodies(table())
    with pytest.raises(ValueError, match="not the frame"):
        propose_squares(table(size=(240, 320)), bodies)


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="die_edge_px"):
        DiceStageConfig(die_edge_px=(40.0, 20.0))
    with pytest.raises(ValueError, match="table_median_cells"):
        DiceStageConfig(table_median_cells=4)
    with pytest.raises(ValueError, match="two_diagonal_share"):
        DiceStageConfig(two_diagonal_share=(1.0, 0.6))


def test_a_die_joined_to_its_shadow_gets_a_square_on_the_die() -> None:
    image = table()
    shadow = DieSquare((330.0, 265.0), 60.0, 0.0)
    cv2.fillConvexPoly(image, np.round(shadow.corners()).astype(np.int32), (25, 50, 18))
    draw_die(image, (300.0, 240.0), 50.0, 6)
    bodies = find_bodies(image)
    assert len(bodies.bodies) == 1
    assert bodies.bodies[0].area_px > 1.4 * 50.0 ** 2  # the shadow is in the body
    assert covers(proposals(image), (300.0, 240.0), 50.0)


def test_dice_against_a_tray_wall_are_bodies_of_their_own() -> None:
    image = np.full((480, 640, 3), (235, 235, 235), np.uint8)  # the white stand around the tray
    image[40:440, 60:580] = (40, 35, 45)  # the tray's dark wall
    floor = (80, 100, 420, 560)  # top, left, bottom, right
    image[floor[0]:floor[2], floor[1]:floor[3]] = (170, 172, 175)
    dice = [((160.0, 104.0), 4), ((260.0, 104.0), 2), ((400.0, 300.0), 5)]  # two on the floor against the far wall
    for centre, face in dice:
        draw_die(image, centre, 44.0, face)
    bodies = find_bodies(image)
    x, y, w, h = cv2.boundingRect(bodies.arena_px)
    assert x >= 60 and y >= 40 and x + w <= 580 and y + h <= 440, "the arena is the tray, not the stand around it"
    squares = proposals(image)
    assert all(covers(squares, centre, 44.0) for centre, _ in dice)
    for centre, _ in dice:
        holding = [b for b in bodies.bodies if cv2.pointPolygonTest(b.contour_px, centre, False) >= 0]
        assert len(holding) == 1 and holding[0].area_px < 2.0 * 44.0 ** 2, "each die is a body of one die's size"


def test_dice_the_colour_of_the_table_are_found_by_their_pips() -> None:
    rng = np.random.default_rng(11)
    image = np.clip(rng.normal(200, 2, (480, 640, 3)), 0, 255).astype(np.uint8)  # a pale grey table
    dice = [((200.0, 200.0), 5), ((420.0, 300.0), 3), ((300.0, 110.0), 4)]
    for centre, face in dice:
        square = DieSquare(centre, 50.0, 15.0)
        cv2.fillConvexPoly(image, np.round(square.corners()).astype(np.int32), (204, 204, 204))  # barely brighter
        theta = math.radians(15.0)
        for u, v in PIPS[face]:
            x = centre[0] + 13.5 * (u * math.cos(theta) - v * math.sin(theta))
            y = centre[1] + 13.5 * (u * math.sin(theta) + v * math.cos(theta))
            cv2.circle(image, (round(x), round(y)), 5, (25, 25, 25), -1, cv2.LINE_AA)
    config = DiceStageConfig(die_edge_px=(40.0, 60.0))  # the bench's calibrated scale
    assert len(find_bodies(image, config).bodies) == 3
    squares = proposals(image, config)
    assert all(covers(squares, centre, 50.0) for centre, _ in dice)


def test_the_benchmark_holds_a_proposal_to_the_die_s_centre_and_edge() -> None:
    recall = load_benchmark("dice_proposals_recall")
    die = recall.LabelledDie((100.0, 100.0), recall.fixed_edge(40.0))
    assert recall.covered(die, [DieSquare((112.0, 100.0), 40.0)])  # 0.3 of an edge off
    assert not recall.covered(die, [DieSquare((116.0, 100.0), 40.0)])  # 0.4 of an edge off
    assert not recall.covered(die, [DieSquare((100.0, 100.0), 54.0)])  # 35 % too large
    assert recall.covered(die, [DieSquare((100.0, 100.0), 54.0)], any_edge=True)
    boxed = recall.LabelledDie((100.0, 100.0), recall.box_edge(56.6))  # a die of 40 px turned 45 degrees
    assert recall.covered(boxed, [DieSquare((100.0, 100.0), 38.0, 45.0)])
    assert not recall.covered(boxed, [DieSquare((100.0, 100.0), 38.0, 0.0)])  # held to a 56.6 px die upright


def test_the_benchmark_reads_the_sim_camera_s_still_of_each_throw_and_reports_the_die_size_estimate() -> None:
    recall = load_benchmark("dice_proposals_recall")
    scenes = list(recall.sim_scenes(2))
    assert [scene.name for scene in scenes] == ["sim-throw-1", "sim-throw-2"]
    for scene in scenes:
        assert scene.image.shape == (480, 640, 3) and 1 <= len(scene.dice) <= 3  # the flat dice of a banca francesa
        assert all(20.0 < die.edge_at(0.0) < 80.0 for die in scene.dice)
    assert scenes[0].image.tobytes() != scenes[1].image.tobytes()  # one still per throw, not two of one throw
    tally = recall.Tally(images=2, dice=4, found=3, size_ratios=[1.0, 2.0, float("nan")])
    assert "die's edge estimated at 1.50 (10 %: 1.10, 90 %: 1.90) of the labels'" in tally.line("new", False)
    assert "estimated" not in recall.Tally(images=1, dice=1, size_ratios=[float("nan")]).line("old", False)


def test_the_benchmark_names_a_bad_label_line(tmp_path) -> None:
    recall = load_benchmark("dice_proposals_recall")
    label = tmp_path / "photo.txt"
    label.write_text("0 0.5 0.5 0.1 0.1\n3 0.2 0.2\n")
    with pytest.raises(ValueError, match=r"photo.txt:2: a YOLO label line has 5 fields, got 3"):
        recall.yolo_boxes(label, 640, 480)


def test_a_grey_frame_has_its_die_found() -> None:
    image = table()
    draw_die(image, (300.0, 240.0), 50.0, 4, angle=10.0)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    bodies = find_bodies(grey)
    assert len(bodies.bodies) == 1
    assert covers(proposals(grey), (300.0, 240.0), 50.0)


def test_a_die_the_colour_of_the_table_showing_one_pip_is_found_by_its_shaded_edges() -> None:
    rng = np.random.default_rng(12)
    image = np.clip(rng.normal(200, 2, (480, 640, 3)), 0, 255).astype(np.uint8)  # a pale grey table
    centre = (320.0, 240.0)
    shadow = DieSquare((centre[0] + 4.0, centre[1] + 4.0), 54.0)
    cv2.fillConvexPoly(image, np.round(shadow.corners()).astype(np.int32), (150, 150, 150))  # shaded edges
    cv2.fillConvexPoly(image, np.round(DieSquare(centre, 50.0).corners()).astype(np.int32), (203, 203, 203))
    cv2.circle(image, (320, 240), 5, (25, 25, 25), -1, cv2.LINE_AA)  # a one
    bodies = find_bodies(image, DiceStageConfig(die_edge_px=(40.0, 60.0)))
    assert len(bodies.bodies) == 1
    assert covers(proposals(image, DiceStageConfig(die_edge_px=(40.0, 60.0))), centre, 50.0)


def test_a_shadow_is_shade_and_the_die_casting_it_is_not_and_its_square_leaves_the_shadow_out() -> None:
    image = table()
    shadow = DieSquare((330.0, 265.0), 60.0, 0.0)
    cv2.fillConvexPoly(image, np.round(shadow.corners()).astype(np.int32), (25, 50, 18))
    draw_die(image, (300.0, 240.0), 50.0, 6)
    cv2.fillConvexPoly(image, np.round(DieSquare((120.0, 120.0), 50.0).corners()).astype(np.int32), (40, 40, 170))
    bodies = find_bodies(image)
    shade = bodies.shade_in((0, 0, 640, 480))
    assert shade[285:290, 340:355].all()  # the shadow's part beyond the die
    assert not shade[225:255, 285:315].any()  # the white die's face
    assert not shade[105:135, 105:135].any()  # a red die darker than the cloth: another colour, not shade
    squares = proposals(image)
    assert any(math.dist(s.centre_px, (300.0, 240.0)) <= 0.1 * 50 and abs(s.edge_px / 50 - 1) <= 0.15 for s in squares)


def test_a_body_counts_the_pips_seen_on_it() -> None:
    image = table()
    draw_die(image, (200.0, 200.0), 50.0, 5)
    stain = DieSquare((450.0, 300.0), 50.0)
    cv2.fillConvexPoly(image, np.round(stain.corners()).astype(np.int32), (150, 150, 150))
    found = find_bodies(image)
    pips = {round(p.body.centre_px[0] / 50): p.pips for p in propose_squares(image, found)}
    assert pips == {4: 5, 9: 0}


def test_a_two_whose_pips_stand_too_far_apart_to_link_gets_a_square_on_its_centre() -> None:
    # rendered frame 336 of seed 20240611: a casino die (pips 0.29 of the edge from its centre, 0.82 of it apart on
    # the diagonal, beyond pip_link_share 0.78) showing 2, one of its pips linked to the touching 4's
    image, truth = clean_frame(20240611, 336)
    two = next(die for die in truth.dice if die.face == 2 and math.dist(die.centre_px, (56.3, 419.2)) < 2.0)
    config = DiceStageConfig(die_edge_px=told_edge_px(truth))

    def on_centre(config: DiceStageConfig) -> list[DieSquare]:
        return [s for s in proposals(image, config) if math.dist(s.centre_px, two.centre_px) <= 0.15 * two.edge_px]

    assert on_centre(config), "no square on the two's centre"
    assert not on_centre(dataclasses.replace(config, two_diagonal_share=(1.5, 1.6)))  # without the pairing


def _symmetry_centres_by_every_pair(pips: np.ndarray, edge: float, cfg: DiceStageConfig) -> list[tuple[float, float]]:
    """The face-centre vote written out over every pair of pips and every pair of midpoints: the reference the
    k-d tree version must agree with."""
    if len(pips) < 2:
        return []
    apart = np.linalg.norm(pips[:, None, :] - pips[None, :, :], axis=2)
    low, high = cfg.pip_pair_share
    first, second = np.nonzero(np.triu((apart >= low * edge) & (apart <= high * edge), 1))
    midpoints = np.concatenate([(pips[first] + pips[second]) / 2.0, pips])
    near = np.linalg.norm(midpoints[:, None, :] - midpoints[None, :, :], axis=2) <= cfg.face_vote_share * edge
    votes = near.sum(axis=1)
    centres = (near.astype(np.float64) @ midpoints) / votes[:, None]
    taken: list[np.ndarray] = []
    for index in np.argsort(-votes, kind="stable"):
        if all(np.hypot(*(centres[index] - other)) >= cfg.face_separation_share * edge for other in taken):
            taken.append(centres[index])
    return [(float(x), float(y)) for x, y in taken]


@pytest.mark.parametrize("seed", range(6))
def test_the_face_centre_vote_agrees_with_comparing_every_pair(seed: int) -> None:
    """The vote for face centres (k-d trees) gives the centres, in the order, that comparing every pair of pips and
    every pair of midpoints gives: on touching dice's pips and on scattered spots. (On 1,508 bodies of 400 rendered
    frames the two agreed in every centre's count and order, within 5e-5 px.)"""
    from vision.dice_proposals import _symmetry_centres

    rng = np.random.default_rng(seed)
    cfg, edge = DiceStageConfig(), 40.0
    dice = [(rng.uniform(60, 260), rng.uniform(60, 200)) for _ in range(4)]
    faces = np.array([(x + 0.27 * edge * u, y + 0.27 * edge * v) for x, y in dice
                      for u, v in PIPS[int(rng.integers(1, 7))]], np.float32)
    scattered = rng.uniform(0, 300, (int(rng.integers(2, 120)), 2)).astype(np.float32)
    for pips in (faces + rng.normal(0, 0.4, faces.shape).astype(np.float32), scattered):
        expected = _symmetry_centres_by_every_pair(pips, edge, cfg)
        found = _symmetry_centres(pips, edge, cfg)
        assert len(found) == len(expected) and expected
        assert np.allclose(found, expected, atol=1e-3)
    assert _symmetry_centres(np.zeros((1, 2), np.float32), edge, cfg) == []


def test_a_thin_strip_along_the_frame_s_edge_is_opened_out_like_any_strip() -> None:
    """A rim's edge the frame cuts (a tray's lip along its bottom) is a strip narrower than a die like a strip inside
    the frame: the opening that drops strips treats what lies beyond the frame as table, not as more strip, so it is
    no body (before, it stayed one and was judged a smeared die)."""
    image = table()
    image[472:, 60:580] = (30, 30, 30)  # 8 px of a dark rim along the frame's bottom edge
    dice = [((200.0, 200.0), 3), ((420.0, 300.0), 6)]
    for centre, face in dice:
        draw_die(image, centre, 44.0, face)
    bodies = find_bodies(image)
    assert len(bodies.bodies) == len(dice)
    for body, (centre, _) in zip(sorted(bodies.bodies, key=lambda b: b.centre_px[0]), dice, strict=True):
        assert math.dist(body.centre_px, centre) < 0.2 * 44.0
