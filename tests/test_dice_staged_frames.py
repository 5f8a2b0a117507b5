"""The staged dice reader on rendered frames: right faces or a decline with the right reason, never a guess.

Every frame is rendered with a fixed seed, so every check is deterministic. The reader is built as the bench
builds it for the frame's table (:func:`told_reader`): the game's count, the arena and the die's size within
+-20 %. The realistic-nuisance checks are samples of ``benchmarks/dice_reader_accuracy.py``, which prints the
full figures on 2,000 frames a seed and 200 a fault.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from pathlib import Path

import cv2
import numpy as np
import pytest
from scipy.stats import binom

from vision.declines import Decline
from vision.dice_pipeline import StagedDiceReader
from vision.dice_reader_settings import DiceReaderSettings
from vision.dice_size_from_reads import SizeFromReads, SizeSource
from vision.dice_staged_reader import staged_reader
from vision.render.dice import FAULTS, DiceScene, DiceTruth, DiePlacement, DieStyle, random_dice_scene, render_dice
from vision.render.dice_frames import STYLES, clean_frame, fault_frame, side_share, told_edge_px
from vision.render.nuisance import Nuisance

ARENA = ((20.0, 20.0), (220.0, 20.0), (220.0, 160.0), (20.0, 160.0))
FAULT_REASON = {"cocked": Decline.COCKED, "stacked": Decline.STACKED, "outside-arena": Decline.OUTSIDE_ARENA,
                "motion": Decline.MOTION, "glare": Decline.GLARE, "wrong-count": Decline.WRONG_COUNT}
DECLINE_BOUND = {"casino-red": 2, "opaque-white": 3, "real-photo": 2}
"""Most frames of 30 (realistic nuisance) a style may decline below: the reader's level on these seeded frames
(1, 2 and 1 when measured) with a margin of one frame, a guard against regressions."""


@functools.cache
def _reader(side: float) -> StagedDiceReader:
    return staged_reader(DiceReaderSettings(side_share=side))


def told_reader(truth: DiceTruth, **table: object) -> StagedDiceReader:
    """The bench's own staged reader for the rendered table of ``truth`` (``table`` overrides what it is told)."""
    told = {"expected_dice": truth.expected_dice, "arena": truth.arena_px, "die_edge_px": told_edge_px(truth)}
    return _reader(side_share(truth)).for_table(**(told | table))  # type: ignore[arg-type]


def _scene(style: DieStyle, *dice: DiePlacement, felt: tuple[int, int, int] = (48, 112, 28)) -> DiceScene:
    return DiceScene(felt_bgr=felt, arena_mm=ARENA, px_per_mm=2.6, dice=dice, style=style, expected_dice=len(dice))


@pytest.mark.parametrize("name", list(STYLES))
def test_realistic_frames_are_read_right_or_declined(name: str) -> None:
    """30 frames per style, realistic nuisance, 1-5 dice: no wrong read; most frames read."""
    rng = np.random.default_rng(100 + len(name))
    wrong, declined = [], 0
    for index in range(30):
        scene = random_dice_scene(rng, int(rng.integers(1, 6)), STYLES[name])
        image, truth = render_dice(scene, Nuisance.realistic(rng), rng)
        read = told_reader(truth).read(image)
        if read.accepted:
            if read.faces != truth.faces:
                wrong.append((index, truth.faces, read.faces))
            assert all(0.0 <= die.confidence <= 1.0 for die in read.dice)
        else:
            declined += 1
            assert read.faces == () and read.detail
    assert wrong == []
    assert declined <= DECLINE_BOUND[name], f"{declined} of 30 frames declined"


@pytest.mark.parametrize("style", list(STYLES.values()), ids=list(STYLES))
def test_clean_dice_of_every_face_are_read_each_where_it_lies(style: DieStyle) -> None:
    """Six dice, one of each face, no nuisance: each read on its own die, its square's centre within 0.35 of an edge
    of the die's, as the proposals benchmark holds a square to a die (0.25 at most when measured: a square may take
    in a side face; the dimension test outlines a die afresh about it)."""
    dice = tuple(DiePlacement(face=face, centre_mm=(45.0 + 48.0 * ((face - 1) % 3), 55.0 + 55.0 * ((face - 1) // 3)),
                              angle_deg=13.0 * face) for face in range(1, 7))
    image, truth = render_dice(_scene(style, *dice), Nuisance.none(), np.random.default_rng(1))
    read = told_reader(truth).read(image)
    assert read.accepted, read.detail
    assert read.faces == (1, 2, 3, 4, 5, 6)
    for die in read.dice:
        nearest = min(truth.dice, key=lambda placed: np.hypot(*np.subtract(placed.centre_px, die.centre_px)))
        assert nearest.face == die.face
        assert np.hypot(*np.subtract(nearest.centre_px, die.centre_px)) < 0.35 * nearest.edge_px


@pytest.mark.parametrize("style", [DieStyle.opaque_white(), DieStyle.casino_red()], ids=["white", "red"])
def test_every_pair_of_touching_dice_is_read(style: DieStyle) -> None:
    """Two dice touching along an edge, merged into one body: all 36 pairs of faces read right."""
    for first, second in itertools.product(range(1, 7), repeat=2):
        a = DiePlacement(face=first, centre_mm=(80.0, 80.0), angle_deg=12.0)
        b = DiePlacement(face=second, centre_mm=(80.0 + 1.03 * style.edge_mm, 80.0 + 0.3 * style.edge_mm),
                         angle_deg=12.0)
        image, truth = render_dice(_scene(style, a, b), Nuisance.none(), np.random.default_rng(5))
        read = told_reader(truth).read(image)
        assert read.faces == truth.faces, (first, second, read.detail)


def test_clusters_of_touching_dice_are_read_or_declined_never_misread() -> None:
    rng = np.random.default_rng(21)
    read = 0
    for _ in range(8):
        style = DieStyle.opaque_white() if rng.random() < 0.5 else DieStyle.casino_red()
        scene = random_dice_scene(rng, 3, style, touch_probability=1.0, felt="green")
        image, truth = render_dice(scene, Nuisance.none(), rng)
        result = told_reader(truth).read(image)
        if result.accepted:
            read += 1
            assert result.faces == truth.faces
    assert read >= 5  # 6 of 8 when measured


MEASURED_RIGHT = {"cocked": 0.71, "stacked": 0.845, "outside-arena": 0.965, "motion": 0.765, "glare": 0.985,
                  "wrong-count": 0.955}
"""Share of 200 frames per fault declined for the fault's own reason by ``benchmarks/dice_reader_accuracy.py``, the
lowest of seeds 20240611, 777 and 4242."""


@pytest.mark.parametrize("fault", FAULTS)
def test_injected_faults_are_never_read_and_mostly_declined_for_their_reason(fault: str) -> None:
    """12 frames per fault with realistic nuisance: none accepted (the safety property), and declined for the fault's
    own reason at least as often as the benchmark's rate (:data:`MEASURED_RIGHT`) gives 12 frames in 95 % of draws
    (cocked 6, motion 7, stacked 8, outside the arena and wrong count 10, glare 11; the other declines name another
    fault, often a neighbouring one, and are no outcome either)."""
    rng = np.random.default_rng(300 + FAULTS.index(fault))
    right = 0
    for index in range(12):
        style = list(STYLES.values())[index % 3]
        scene = random_dice_scene(rng, int(rng.integers(2, 5)), style, faults=(fault,))
        image, truth = render_dice(scene, Nuisance.realistic(rng), rng)
        read = told_reader(truth).read(image)
        assert not read.accepted, f"frame {index}: {fault} read as {read.faces}"
        right += read.decline == FAULT_REASON[fault]
    least = int(binom.ppf(0.05, 12, MEASURED_RIGHT[fault]))
    assert right >= least, f"{right} of 12 declined for {fault} (at least {least} expected)"


CLEAR_FAULT_REASONS = {"cocked": {Decline.COCKED, Decline.UNREADABLE, Decline.STACKED}}
"""Where a clear fault is declined for another reason: the cocked die of this frame shows a side face, which the
per-die reader may read surely (a one), and leaves part of its body unexplained beside it (unreadable, or stacked:
a die beside or under another shows so too; 36 % of the benchmark's cocked frames decline for another reason). It
is no outcome either. (The die beyond the rail lies off the table the first stage finds; the short count has the
reader look for it there, :mod:`vision.dice_beyond_arena`.)"""


@pytest.mark.parametrize("fault", FAULTS)
def test_a_clear_fault_is_declined(fault: str) -> None:
    """A well-lit frame with one fault, no other trouble: declined, for the fault's reason (or the one
    :data:`CLEAR_FAULT_REASONS` names)."""
    style = DieStyle.opaque_white()
    a = DiePlacement(face=3, centre_mm=(70.0, 70.0), angle_deg=20.0)
    b = DiePlacement(face=5, centre_mm=(160.0, 110.0), angle_deg=-35.0)
    scene = _scene(style, a, b)
    if fault == "cocked":
        scene = dataclasses.replace(scene, dice=(a, dataclasses.replace(b, pose="cocked", tilt_deg=32.0)))
    elif fault == "stacked":
        upper = dataclasses.replace(a, pose="stacked", rests_on=1, centre_mm=(164.0, 114.0), angle_deg=0.0)
        scene = dataclasses.replace(scene, dice=(upper, b))
    elif fault == "outside-arena":
        scene = dataclasses.replace(scene, dice=(dataclasses.replace(a, centre_mm=(70.0, 174.0)), b))
    elif fault == "motion":
        scene = dataclasses.replace(scene, dice=(dataclasses.replace(a, moving=True, blur_px=20.0), b))
    elif fault == "glare":
        scene = dataclasses.replace(scene, dice=(dataclasses.replace(a, glare=True), b))
    else:
        scene = dataclasses.replace(scene, expected_dice=3)
    image, truth = render_dice(scene, Nuisance.none(), np.random.default_rng(4))
    assert truth.expected_decline == FAULT_REASON[fault]
    read = told_reader(truth).read(image)
    assert not read.accepted and read.faces == ()
    assert read.decline in CLEAR_FAULT_REASONS.get(fault, {FAULT_REASON[fault]}), read.detail
    if fault == "outside-arena":
        assert "beyond the arena shows a die" in read.detail, read.detail


def test_the_game_s_count_is_enforced() -> None:
    rng = np.random.default_rng(7)
    scene = random_dice_scene(rng, 3, DieStyle.casino_red(), touch_probability=0.0, felt="blue")
    image, truth = render_dice(scene, Nuisance.none(), rng)
    assert told_reader(truth).read(image).faces == truth.faces
    for expected in (2, 4):
        read = told_reader(truth, expected_dice=expected).read(image)
        assert read.decline == Decline.WRONG_COUNT and read.detail == f"3 dice read, the game throws {expected}"
    assert told_reader(truth, expected_dice=None).read(image).faces == truth.faces


def test_a_translucent_die_s_ghost_pips_are_not_counted() -> None:
    """Through a red die the pips of the bottom face (7 - top) show faintly; only the top face counts."""
    dice = tuple(DiePlacement(face=face, centre_mm=(50.0 + 55.0 * i, 90.0), angle_deg=30.0 * i)
                 for i, face in enumerate((1, 2, 3)))
    image, truth = render_dice(_scene(DieStyle.casino_red(), *dice, felt=(120, 62, 18)), Nuisance.none(),
                               np.random.default_rng(2))
    assert told_reader(truth).read(image).faces == (1, 2, 3)


def test_an_empty_table_is_no_throw() -> None:
    """No die in view: hidden when the reader is told no count, the count short when it is."""
    image, truth = render_dice(_scene(DieStyle.opaque_white()), Nuisance.none(), np.random.default_rng(3))
    read = told_reader(truth, expected_dice=None).read(image)
    assert read.decline == Decline.HIDDEN and read.detail == "no die is read in the frame" and read.faces == ()
    assert told_reader(truth, expected_dice=2).read(image).decline == Decline.WRONG_COUNT


def test_bad_input_raises_value_error_naming_it() -> None:
    reader = _reader(0.12)
    with pytest.raises(ValueError, match="numpy array"):
        reader.read([[0, 0], [0, 0]])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dtype uint8"):
        reader.read(np.zeros((480, 640, 3), np.float32))
    with pytest.raises(ValueError, match="shape"):
        reader.read(np.zeros((480, 640, 4), np.uint8))
    with pytest.raises(ValueError, match="expected_dice"):
        reader.for_table(expected_dice=0, arena=None, die_edge_px=None)


KEPT_FRAMES = Path(__file__).parent / "data" / "dice-frames"


def _kept_frame_read(name: str, expected_dice: int, edge_px: tuple[float, float],
                     arena: tuple[tuple[float, float], ...]):
    image = cv2.imread(str(KEPT_FRAMES / name))
    assert image is not None, name
    return _reader(0.12).for_table(expected_dice=expected_dice, arena=arena, die_edge_px=edge_px).read(image)


def test_a_die_in_a_corner_the_other_dice_wall_off_is_counted() -> None:
    """A game of four with five dice on the table (tests/data/dice-frames/README.md): the two lies in a corner of
    the cloth that the other dice and their shadows wall off. Once the frame was accepted as 3, 4, 5, 6 without it;
    the arena now takes in the walled-off corner, and the five dice read decline the frame."""
    read = _kept_frame_read("rendered-die-walled-off-in-a-corner.png", 4, (32.57, 48.86),
                            ((25.9, 28.8), (629.6, 21.6), (613.4, 451.0), (48.2, 448.7)))
    assert not read.accepted and read.decline == Decline.WRONG_COUNT
    assert read.detail == "5 dice read, the game throws 4"
    assert sorted(die.face for die in read.dice) == [2, 3, 4, 5, 6]


def test_a_shadow_with_no_die_read_beside_it_declines_the_frame() -> None:
    """A game of three with four dice on the table: the white one is no body on the ivory cloth, its shadow is.
    Once the frame was accepted as 5, 6, 6; the shadow with no die read near it now declines it."""
    read = _kept_frame_read("rendered-white-die-on-ivory-seen-by-its-shadow.png", 3, (33.79, 50.69),
                            ((13.9, 16.4), (620.2, 28.8), (600.3, 456.0), (18.5, 451.3)))
    assert not read.accepted and read.decline == Decline.UNREADABLE
    assert read.detail == ("a shadow at (486, 347) with no die read within 1.5 edges of it: the die casting it was "
                           "not found")


def test_a_die_too_many_whose_pip_glare_hides_never_meets_the_count() -> None:
    """A game of three, four dice on the table: 1, 4, 6, 6 (seed 777, wrong-count fault frame 20 of
    ``benchmarks/dice_reader_accuracy.py``). A glare spot washes out the one's pip; the one joins the body of the two
    sixes, and with three dice read (the game's count) its glare was taken for a spot on the cloth: the frame was
    accepted as 4, 6, 6. A die's outline, sharp where the spot does not whiten it, lies under the glare: declined."""
    image, truth = fault_frame("wrong-count", 20, seed=777)
    assert truth.faces == (1, 4, 6, 6) and truth.expected_dice == 3
    read = told_reader(truth).read(image)
    assert not read.accepted and read.decline == Decline.GLARE


def test_a_frame_declined_unreadable_at_a_size_told_is_read_again_within_it() -> None:
    """Frame 781 of the benchmark's rendered frames (seed 20240611): a one and a five of 59 px on a pale cloth, the
    five beside a shadow of three dice's area. The bench tells the size as 44.5-66.7 px; the bodies, the shadow
    in them, give 45 px, at which no square reads the five: declined unreadable. Read again within the range told,
    larger, it is read right."""
    image, truth = clean_frame(20240611, 781)
    assert truth.faces == (1, 5)
    reader = told_reader(truth)
    once = dataclasses.replace(reader, size_from_reads=SizeFromReads(told_declined_shares=()))
    declined = once.read(image)
    assert declined.decline is Decline.UNREADABLE and declined.size_source is SizeSource.TOLD
    assert declined.die_edge_px < 50.0
    read = reader.read(image)
    assert read.accepted and read.faces == (1, 5), read.detail
    assert read.size_source is SizeSource.AFTER_DECLINE
    low, high = told_edge_px(truth)
    assert 50.0 < read.die_edge_px <= high and low <= read.die_edge_px


def test_a_cocked_die_declined_at_a_size_told_is_not_read_again() -> None:
    """Cocked-fault frame 36 of seed 777: its cocked two is declined cocked (the lean model). Read again at a smaller
    size within the range told, it was taken for a flat two and the frame accepted: only a frame declined unreadable
    is read again at a size told."""
    image, truth = fault_frame("cocked", 36, seed=777)
    assert [die.pose for die in truth.dice] == ["cocked", "flat"]
    read = told_reader(truth).read(image)
    assert not read.accepted and read.decline is Decline.COCKED, read.detail
    assert read.size_source is SizeSource.TOLD


def test_a_cocked_die_declined_at_a_size_not_told_is_not_read_again() -> None:
    """Cocked-fault frame 69 of seed 777, the reader told no size: the lean model declines the cocked two at the 42 px
    the sure reads give. Read again at 1.33 of that size, it was taken for flat and the frame accepted: a frame
    declined cocked is not read again at another size."""
    image, truth = fault_frame("cocked", 69, seed=777)
    assert [die.pose for die in truth.dice] == ["cocked", "flat", "flat"]
    read = told_reader(truth, die_edge_px=None).read(image)
    assert not read.accepted and read.decline is Decline.COCKED, read.detail
    assert read.size_source is not SizeSource.AFTER_DECLINE
