"""Certification suite: dice games (Portaria 217/2007: banca francesa, craps, cussec).

Dice have no data line: a camera over the arena reads every throw
(:class:`drivers.dice_table.CameraDiceTable`): it waits for the dice to stop, reads
several still frames and keeps the faces only when every read agrees. A throw it cannot
read safely (a die cocked or stacked, wrong number of dice, motion, glare) is declined
with its reason: a "golpe nulo" candidate, counted and reported, never an outcome. Declines beyond
``options.max_declined_share`` of the planned throws stop the test INCOMPLETE (:mod:`fixtures.decline_bound`).

Statistics: H0 = every die independent and every face 1/6. The family (faces per die
position and pooled, the sum, pairwise and joint independence) is judged with Holm's
adjustment at the profile's α. The camera's read error is part of the method: the dice
reader's measured wrong-read rate (``ASSUMED_READ_ERROR`` per accepted read,
``benchmarks/dice_reader_accuracy.py``) is stated with every verdict; a misread that
always lands on the same face would bias the chi-square by at most that share.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from bench.rig_dice_reader import reader_evidence
from fixtures.decline_bound import check_declines
from fixtures.dimensions import record_dimension
from fixtures.frames import keep_frames, keep_set_aside
from fixtures.no_reads import no_read_bound
from fixtures.session import BenchSession, ObservationStream, collect_observations
from rng_tests.fairness.dice import dice_fairness_tests
from rng_tests.fairness.multiple_testing import adjust

THROWS_STREAM = "dice/throws"
DECLINED_STREAM = "dice/declined-throws"
THROWS_NODEID = "suites/test_dice.py::throws"
ASSUMED_READ_ERROR = 0.001
MEASURING_ATTEMPTS = 5
GAME_CLAUSE = {"banca-francesa": "p217-2007/banca-francesa/3", "craps": "p217-2007/craps/2",
               "cussec": "p217-2007/cussec/1"}
DICE_CLAUSES = tuple(GAME_CLAUSE.values())

pytestmark = pytest.mark.equipment("dice")


def _clause(dice_table: Any) -> str:
    return GAME_CLAUSE[dice_table.equipment.options.game]


def _measured_with(table: Any) -> dict[str, Any]:
    """What the dimensions' evidence says of the reader behind them: the reader of the throws reads the still;
    the staged reader's dice are then outlined and their pips located (:mod:`vision.die_outline`)."""
    staged = reader_evidence(table.reader_identity)
    if not staged:
        return {}
    return {"measured_with": "the staged reader's read of the still; each die outlined against the cloth at full "
                             "resolution and its pips located on its face (vision.die_outline, "
                             "vision.pip_locator)"} | staged


def _still_to_measure(read: Any, image: np.ndarray) -> tuple[list[Any], str | None]:
    """The dice of a measuring still and None, or no dice and why this still cannot be measured: declined, a die
    not outlined, or a die of two pips or more whose pips were not all located (its pips would go unmeasured)."""
    from vision.die_outline import dice_to_measure

    if not read.accepted:
        return [], f"{read.decline}: {read.detail}"
    dice, problem = dice_to_measure(image, read)
    if problem is not None:
        return [], problem
    unlocated = [die.face for die in dice if die.face >= 2 and len(die.pips_px) != die.face]
    if unlocated:
        return [], f"the pips of the dice read as {unlocated} could not all be located"
    return dice, None


@pytest.fixture(scope="module")
def throws(bench: BenchSession, dice_table: Any) -> ObservationStream:
    """N read throws, each committed to the journal as it is read (resumable); declined throws counted apart."""
    options = dice_table.equipment.options
    policy = dice_table.equipment.camera.keep_frames
    declined = bench.stream(DECLINED_STREAM, THROWS_NODEID)
    table = dice_table.driver

    def one_throw() -> tuple[dict[str, Any], str, str | None]:
        while True:
            throw = table.next_throw()
            reader = reader_evidence(throw.reader)
            if not throw.accepted:
                label = f"declined throw {throw.index}"
                frames = keep_frames(bench, THROWS_NODEID, throw.frames, label, disputed=True, policy=policy)
                declined.record({"throw": throw.index, "reason": str(throw.decline), "detail": throw.detail,
                                 "frames": frames}
                                | keep_set_aside(bench, THROWS_NODEID, throw.replaced_frames, label, policy=policy)
                                | reader, source=dice_table.name)
                check_declines(declined.count, options.throws, options.max_declined_share, dice_table.name,
                               f"throw {throw.index}, {throw.decline}: {throw.detail}")
                continue
            frames = keep_frames(bench, THROWS_NODEID, throw.frames, f"throw {throw.index}", disputed=False,
                                 policy=policy)
            value = {"throw": throw.index, "faces": list(throw.faces), "confidence": round(throw.confidence, 4),
                     "frames": frames} | reader
            if throw.replaced_frames:  # declined unreadable, set aside for the next settled frame: kept as evidence
                value |= keep_set_aside(bench, THROWS_NODEID, throw.replaced_frames, f"throw {throw.index}",
                                        policy=policy) | {"detail": throw.detail}
            return value, dice_table.name, None

    return collect_observations(bench, THROWS_STREAM, THROWS_NODEID, options.throws, one_throw, "dice throws")


@pytest.mark.clause(*DICE_CLAUSES)
def test_dice_are_balanced(dice_table: Any, throws: ObservationStream, bench: BenchSession, measure: Any) -> None:
    """Perfectly balanced dice: every face 1/6 on every die, dice independent (Holm over the family)."""
    options = dice_table.equipment.options
    faces = np.array([value["faces"] for value in throws.values()], dtype=np.int64)
    family = dice_fairness_tests(faces, seed=0)
    adjustment = adjust(family, options.alpha, "holm")
    declined = bench.stream(DECLINED_STREAM, THROWS_NODEID)
    context = {
        "declined_throws": declined.count,
        "declined_bound": no_read_bound(options.throws, options.max_declined_share),
        "declined_by_reason": dict(Counter(row["reason"] for row in declined.values())),
        "assumed_read_error_per_accepted_read": ASSUMED_READ_ERROR,
        "read_by": f"camera, {dice_table.driver.voting}",
    } | reader_evidence(dice_table.driver.reader_identity)
    for member in adjustment.tests:
        result = family[member.name]
        if member.not_applicable is not None:
            continue
        measure(
            f"dice: {member.name}",
            round(float(result.statistic), 6),
            p_value=float(member.adjusted_p_value),
            alpha=options.alpha,
            clauses=[_clause(dice_table)],
            method=f"{result.method}; H0: {result.null_hypothesis}; p-value {adjustment.description}",
            sample_size=result.sample_size,
            details={"raw_p_value": result.p_value, "degrees_of_freedom": result.degrees_of_freedom}
            | dict(result.details) | context,
        )


@pytest.mark.clause(*DICE_CLAUSES)
def test_die_dimensions(dice_table: Any, bench: BenchSession, measure: Any, attach: Any) -> None:
    """Equal edges within the game's range (banca francesa and cussec 12-15 mm, craps 18-20 mm) and pips of
    equal diameter, measured by camera against a printed ArUco target, each with its uncertainty.

    Guarded acceptance (ISO 14253-1): a measurement passes only when its value ± U (k = 2) lies inside
    the limits; one whose interval straddles a limit is not a pass.
    """
    from vision.measure import measure_die_edges, pip_diameters_equal
    from vision.render.target import TargetSpec
    from vision.scale import PlaneScale, hide_target

    camera = dice_table.driver.camera
    connection = dice_table.equipment.camera
    target = TargetSpec(marker_mm=connection.target_marker_mm)
    how = _measured_with(dice_table.driver)
    declines = []
    for attempt in range(MEASURING_ATTEMPTS):
        if hasattr(camera, "measurement_frame"):
            frame = camera.measurement_frame(attempt)
        else:
            frame = camera.read()  # a real arena: the operator lays the dice beside the target before the run
        keep_frames(bench, THROWS_NODEID, (frame,), f"measurement attempt {attempt + 1}", disputed=True,
                    policy=connection.keep_frames)
        image = frame.image
        scale = PlaneScale.from_image(image, target, camera_height_mm=connection.camera_height_mm)
        hidden = hide_target(image, scale, target)
        dice, problem = _still_to_measure(dice_table.driver.reader(hidden), hidden)
        if problem is None:
            break
        declines.append(problem)
    else:
        pytest.fail(f"the dice beside the target could not be measured in {MEASURING_ATTEMPTS} stills: {declines}")
    game = dice_table.equipment.options.game
    clause = [_clause(dice_table)]
    edges = measure_die_edges(image, scale, [die.outline for die in dice], game=game,  # two widths per die
                              edge_definition_mm=dice_table.equipment.options.edge_definition_mm)
    for edge in edges:
        record_dimension(measure, edge, clause, details=how)
    for number, die in enumerate(dice, start=1):
        if len(die.pips_px) >= 2:  # a face of one pip has nothing to compare with
            height = float(np.mean([edge.value_mm for edge in edges[2 * number - 2: 2 * number]]))
            spread = pip_diameters_equal(image, scale, die.pips_px, die_height_mm=height)
            record_dimension(measure, spread, clause, quantity=f"die {number} pip diameter spread", details=how)

