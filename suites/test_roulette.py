"""Certification suite: roulette wheels (Portaria 217/2007, roleta francesa and roleta americana).

What the wheel reports over RS-232 (RW protocol) is evidence here: its pocket
layout, and for every game the winning number, rotor and ball directions. Games
the wheel itself declares void are counted as "golpes nulos" and never used as
outcomes. When the profile puts a camera over the wheel, the camera reads every
game's pocket independently (``outcome_source``: ``camera`` makes its read the
outcome, ``both`` keeps the wheel's and compares every camera read with it); a
camera read is declined rather than guessed, and declined games are counted.
The camera also films the launch of the first ``camera.launch_clips`` games, and
the directions it sees are checked against the clause and against what the wheel
reports.

Statistics: H0 = every pocket has probability 1/37. Pearson chi-square over N
spins (N and α from the profile). The power is stated against a nine-pocket
sector favoured by 30 % (a tilted or worn wheel); a single pocket at 1/35
instead of 1/37 cannot be detected at laboratory sample sizes, and the
measurement says so with the number of spins it would take.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from typing import Any

import numpy as np
import pytest
from scipy import stats

from drivers.roulette_camera import LaunchClip
from drivers.roulette_protocol import NoResult, SpinResult
from fixtures.dimensions import record_dimension
from fixtures.frames import keep_frames
from fixtures.session import BenchSession, ObservationStream, collect_observations
from rng_tests.fairness import chi_square_gof, chi_square_power, sector_alternative

SPINS_STREAM = "wheel/spins"
VOID_STREAM = "wheel/void-games"
CAMERA_DECLINED_STREAM = "wheel/camera-declined"
LAUNCH_STREAM = "wheel/launch-clips"
ASSUMED_CAMERA_ERROR = 0.001
"""Largest share of wrong camera reads among accepted reads, as measured by
``benchmarks/roulette_reader_accuracy.py`` (the cross-check's null hypothesis uses it)."""
SPINS_NODEID = "suites/test_roulette.py::spins"  # the module fixture that collects both streams
POWER_ALTERNATIVE = {"width": 9, "factor": 1.3}

pytestmark = pytest.mark.equipment("roulette-wheel")


def _clause(roulette_wheel: Any, rule: str) -> str:
    """The clause of the profile's game (roleta-francesa or roleta-americana) for a rule number."""
    return f"p217-2007/{roulette_wheel.equipment.options.game}/{rule}"


@pytest.fixture(scope="module")
def spins(bench: BenchSession, roulette_wheel: Any) -> ObservationStream:
    """N spins of the wheel, each committed to the journal as it is read (resumable)."""
    options = roulette_wheel.equipment.options
    driver = roulette_wheel.driver
    voids = bench.stream(VOID_STREAM, SPINS_NODEID)
    camera_declined = bench.stream(CAMERA_DECLINED_STREAM, SPINS_NODEID)
    launches = bench.stream(LAUNCH_STREAM, SPINS_NODEID)
    camera_profile = roulette_wheel.equipment.camera
    launch_clips = camera_profile.launch_clips if roulette_wheel.camera is not None else 0

    def one_game() -> SpinResult | NoResult:
        """Start a game, film its launch while the first ``launch_clips`` games are filmed, await its result."""
        game = driver.start_game()
        if launches.count >= launch_clips:
            return driver.await_result(game)
        clip = roulette_wheel.camera.record_launch(camera_profile.launch_clip_frames,
                                                   camera_profile.launch_clip_delay_s)
        outcome = driver.await_result(game)
        _record_launch(bench, launches, roulette_wheel, game, clip, outcome)
        return outcome

    def one_spin() -> tuple[dict[str, Any], str, str]:
        while True:
            outcome = one_game()
            if isinstance(outcome, NoResult):
                voids.record(
                    {"game": outcome.game, "code": outcome.code, "text": outcome.text},
                    source=roulette_wheel.name,
                    raw_ref=outcome.raw.decode("ascii", "replace").strip(),
                )
                continue
            value = {
                "game": outcome.game,
                "number": outcome.number,
                "rotor": outcome.rotor_direction.value,
                "ball": outcome.ball_direction.value,
                "rotor_rpm": outcome.rotor_rpm,
            }
            raw_ref = outcome.raw.decode("ascii", "replace").strip()
            if options.outcome_source == "serial":
                return value, roulette_wheel.name, raw_ref
            read = roulette_wheel.camera.read_pocket()
            disputed = not read.accepted or read.number != outcome.number
            frames = keep_frames(bench, SPINS_NODEID, read.frames, f"game {outcome.game}", disputed=disputed,
                                 policy=roulette_wheel.equipment.camera.keep_frames)
            value |= {"sensor_number": outcome.number, "camera_number": read.number,
                      "camera_confidence": round(read.confidence, 4), "camera_frames": frames}
            if not read.accepted:
                camera_declined.record({"game": outcome.game, "reason": str(read.decline), "detail": read.detail,
                                        "sensor_number": outcome.number, "frames": frames},
                                       source=f"{roulette_wheel.name}/camera", raw_ref=raw_ref)
                if options.outcome_source == "camera":
                    continue
            if options.outcome_source == "camera":
                value["number"] = read.number
            return value, roulette_wheel.name, raw_ref

    return collect_observations(bench, SPINS_STREAM, SPINS_NODEID, options.spins, one_spin, "roulette spins")


def _record_launch(bench: BenchSession, launches: ObservationStream, roulette_wheel: Any, game: int,
                   clip: LaunchClip, outcome: SpinResult | NoResult) -> None:
    """Commit the directions the camera saw in one game's launch clip, beside those the wheel reported."""
    motion = clip.motion
    reported = isinstance(outcome, SpinResult)
    sensor_ball = outcome.ball_direction.value if reported else None
    sensor_rotor = outcome.rotor_direction.value if reported else None
    camera_ball = None if motion.ball is None else motion.ball.value
    camera_rotor = None if motion.rotor is None else motion.rotor.value
    disputed = not clip.seen or (reported and (camera_ball, camera_rotor) != (sensor_ball, sensor_rotor))
    frames = keep_frames(bench, SPINS_NODEID, clip.frames, f"launch of game {game}", disputed=disputed,
                         policy=roulette_wheel.equipment.camera.keep_frames)
    launches.record({"game": game, "camera_ball": camera_ball, "camera_rotor": camera_rotor,
                     "sensor_ball": sensor_ball, "sensor_rotor": sensor_rotor,
                     "confidence": round(motion.confidence, 4), "detail": motion.detail, "frames": frames},
                    source=f"{roulette_wheel.name}/camera", raw_ref=outcome.raw.decode("ascii", "replace").strip())


@pytest.mark.clause(
    "p217-2007/roleta-francesa/2",
    "p217-2007/roleta-francesa/5",
    "p217-2007/roleta-americana/2",
    "p217-2007/roleta-americana/5",
)
def test_wheel_numbering(roulette_wheel: Any, measure: Any) -> None:
    """37 pockets numbered 0-36 in the clockwise order the regulation prints for the game's layout."""
    options = roulette_wheel.equipment.options
    layout = roulette_wheel.driver.layout()
    measure("pocket count", len(layout), unit="pockets", expected=37,
            clauses=[_clause(roulette_wheel, "5")], method="wheel's LAYOUT report")
    measure("numbers 0-36 each present once", sorted(layout) == list(range(37)), expected=True,
            clauses=[_clause(roulette_wheel, "2")], method="wheel's LAYOUT report",
            details={"reported": list(layout)})
    expected_order = "-".join(str(number) for number in options.pocket_order)
    measure("clockwise order from 0", "-".join(str(number) for number in layout), expected=expected_order,
            clauses=[_clause(roulette_wheel, "2")], method=f"wheel's LAYOUT report against the {options.layout} order")


@pytest.mark.clause("p217-2007/roleta-francesa/13", "p217-2007/roleta-americana/21")
def test_launch_alternation_and_counter_rotation(
    roulette_wheel: Any, spins: ObservationStream, measure: Any
) -> None:
    """The ball is launched alternately in each direction, the rotor turning against the ball."""
    rule = "13" if roulette_wheel.equipment.options.game == "roleta-francesa" else "21"
    values = spins.values()
    co_rotating = sum(1 for value in values if value["ball"] == value["rotor"])
    repeated = sum(1 for before, after in pairwise(values) if before["ball"] == after["ball"]
                   and after["game"] == before["game"] + 1)
    consecutive_pairs = sum(1 for before, after in pairwise(values) if after["game"] == before["game"] + 1)
    clause = [_clause(roulette_wheel, rule)]
    measure("games with ball and rotor turning the same way", co_rotating, unit="games", high=0,
            clauses=clause, sample_size=len(values), method="rotor and ball directions reported per game")
    measure("consecutive games launched in the same direction", repeated, unit="pairs", high=0,
            clauses=clause, sample_size=consecutive_pairs,
            method="ball direction of consecutive game numbers (gaps from void games not counted)")


@pytest.mark.clause("p217-2007/roleta-francesa/13", "p217-2007/roleta-americana/21")
def test_launch_directions_seen_by_camera(
    roulette_wheel: Any, spins: ObservationStream, bench: BenchSession, measure: Any
) -> None:
    """The camera's own view of the launches: alternating, the rotor against the ball, and the same
    directions the wheel reports.

    The first ``camera.launch_clips`` games are filmed from the launch; the ball's and the rotor's
    directions come from the reader's angles frame after frame (:mod:`vision.roulette_motion`). A clip
    whose directions cannot be told is counted and breaks the chain of consecutive launches, as a void
    game does. The limits of zero assume the camera does not misread a direction: 0 wrong in 1,000
    rendered clips (``benchmarks/launch_direction_accuracy.py``). Where the wheel's sensor reports
    directions the camera contradicts, the wheel's own reports (the other test of this clause) are not
    evidence.
    """
    del spins  # the fixture films the launches while it plays the games
    _camera_or_skip(roulette_wheel)
    launches = bench.stream(LAUNCH_STREAM, SPINS_NODEID).values()
    seen = [row for row in launches if row["camera_ball"] is not None and row["camera_rotor"] is not None]
    if len(seen) < 2:
        pytest.skip(f"the camera told the directions of {len(seen)} of {len(launches)} filmed launches "
                    "(camera.launch_clips sets how many games are filmed)")
    rule = "13" if roulette_wheel.equipment.options.game == "roleta-francesa" else "21"
    clause = [_clause(roulette_wheel, rule)]
    filmed = {"launches filmed": len(launches), "directions told": len(seen),
              "not told": [{"game": row["game"], "detail": row["detail"]} for row in launches if row not in seen]}
    co_rotating = [row["game"] for row in seen if row["camera_ball"] == row["camera_rotor"]]
    pairs = [(before, after) for before, after in pairwise(seen) if after["game"] == before["game"] + 1]
    repeated = [after["game"] for before, after in pairs if before["camera_ball"] == after["camera_ball"]]
    reported = [row for row in seen if row["sensor_ball"] is not None]
    contradicted = [{"game": row["game"], "camera": [row["camera_ball"], row["camera_rotor"]],
                     "wheel": [row["sensor_ball"], row["sensor_rotor"]]}
                    for row in reported if (row["camera_ball"], row["camera_rotor"])
                    != (row["sensor_ball"], row["sensor_rotor"])]
    method = "ball and rotor angles read frame by frame in a clip filmed from the launch"
    measure("filmed launches with ball and rotor turning the same way", len(co_rotating), unit="games", high=0,
            clauses=clause, sample_size=len(seen), method=method, details=filmed | {"games": co_rotating})
    measure("consecutive filmed launches in the same direction", len(repeated), unit="pairs", high=0,
            clauses=clause, sample_size=len(pairs), method=method + "; consecutive game numbers only",
            details={"games": repeated})
    measure("filmed games whose reported directions the camera contradicts", len(contradicted), unit="games",
            high=0, clauses=clause, sample_size=len(reported), method=method + ", against the wheel's RES report",
            details={"games": contradicted})


@pytest.mark.clause(
    "p217-2007/roleta-francesa/5",
    "p217-2007/roleta-francesa/9",
    "p217-2007/roleta-americana/5",
)
def test_pocket_fairness(roulette_wheel: Any, spins: ObservationStream, bench: BenchSession, measure: Any) -> None:
    """Every pocket equally likely: chi-square goodness of fit over N spins."""
    options = roulette_wheel.equipment.options
    order = options.pocket_order
    numbers = [value["number"] for value in spins.values()]
    counts_by_number = Counter(numbers)
    counts = np.array([counts_by_number.get(number, 0) for number in order])  # wheel order
    result = chi_square_gof(counts)
    p0 = np.full(37, 1 / 37)
    power = chi_square_power(result.sample_size, p0, sector_alternative(37, **POWER_ALTERNATIVE), options.alpha)
    single_pocket = np.full(37, 1.0)
    single_pocket[0] = 37 / 35
    single_pocket /= single_pocket.sum()
    power_single = chi_square_power(result.sample_size, p0, single_pocket, options.alpha)
    spins_for_single = _spins_needed(p0, single_pocket, options.alpha, 0.8)
    voids = bench.stream(VOID_STREAM, SPINS_NODEID).count
    clauses = [_clause(roulette_wheel, "5")] + (["p217-2007/roleta-francesa/9"] if options.game == "roleta-francesa" else [])
    measure(
        "pocket frequencies chi-square",
        round(result.statistic, 4),
        p_value=result.p_value,
        alpha=options.alpha,
        clauses=clauses,
        method=f"{result.method}, {result.degrees_of_freedom} degrees of freedom; H0: every pocket 1/37",
        sample_size=result.sample_size,
        power=round(power, 6),
        details={
            "counts_in_wheel_order": dict(zip((str(number) for number in order), counts.tolist())),
            "power_alternative": f"{POWER_ALTERNATIVE['width']} adjacent pockets x{POWER_ALTERNATIVE['factor']}",
            "power_against_one_pocket_at_1_in_35": round(power_single, 4),
            "spins_for_80pc_power_against_one_pocket_at_1_in_35": spins_for_single,
            "void_games": voids,
            "critical_value": round(float(stats.chi2.isf(options.alpha, 36)), 4),
            "outcome_source": options.outcome_source,
        } | ({"assumed_camera_error_rate": ASSUMED_CAMERA_ERROR,
              "camera_declined_games": bench.stream(CAMERA_DECLINED_STREAM, SPINS_NODEID).count}
             if options.outcome_source == "camera" else {}),
    )


def _spins_needed(p0: np.ndarray, p1: np.ndarray, alpha: float, target_power: float) -> int:
    """Smallest N (to 1 %) at which the chi-square test reaches ``target_power`` against ``p1``."""
    low, high = 37, 37
    while chi_square_power(high, p0, p1, alpha) < target_power:
        low, high = high, high * 2
    while high - low > max(1, low // 100):
        middle = (low + high) // 2
        if chi_square_power(middle, p0, p1, alpha) < target_power:
            low = middle
        else:
            high = middle
    return high


@pytest.mark.clause("p217-2007/roleta-francesa/5", "p217-2007/roleta-americana/5")
def test_camera_agrees_with_the_wheel_sensor(
    roulette_wheel: Any, spins: ObservationStream, bench: BenchSession, measure: Any
) -> None:
    """Every camera read of the pocket under the ball agrees with the number the wheel reports.

    H0: the wheel's sensor reports the pocket the ball is in; disagreements then come only
    from camera misreads, at most ``ASSUMED_CAMERA_ERROR`` of accepted reads (the reader's
    measured rate). The p-value is P(Binomial(n, e) >= disagreements). Games the camera
    declined are counted, never compared. Evidence against the sensor means the fairness
    statistics computed from its reports cannot be trusted.
    """
    options = roulette_wheel.equipment.options
    if options.outcome_source != "both":
        pytest.skip("the profile does not read the wheel with both its sensor and a camera (outcome_source 'both')")
    compared = [value for value in spins.values() if value.get("camera_number") is not None]
    disagreements = [value for value in compared if value["camera_number"] != value["sensor_number"]]
    declined = bench.stream(CAMERA_DECLINED_STREAM, SPINS_NODEID)
    p_value = float(stats.binom.sf(len(disagreements) - 1, len(compared), ASSUMED_CAMERA_ERROR)) if compared else 1.0
    measure(
        "camera reads disagreeing with the wheel's sensor",
        len(disagreements),
        unit="games",
        p_value=p_value,
        alpha=options.alpha,
        clauses=[_clause(roulette_wheel, "5")],
        method=("camera pocket reads (unanimous votes over consecutive frames) against the wheel's RES number; "
                f"H0: disagreements ~ Binomial(n, {ASSUMED_CAMERA_ERROR}) from camera misreads alone"),
        sample_size=len(compared),
        details={
            "disagreeing_games": [{"game": value["game"], "sensor": value["sensor_number"],
                                   "camera": value["camera_number"], "frames": value["camera_frames"]}
                                  for value in disagreements[:50]],
            "camera_declined_games": declined.count,
            "camera_declines_by_reason": dict(Counter(row["reason"] for row in declined.values())),
            "assumed_camera_error_rate": ASSUMED_CAMERA_ERROR,
        },
    )


def _camera_or_skip(roulette_wheel: Any) -> Any:
    if roulette_wheel.camera is None:
        pytest.skip("the profile puts no camera over the wheel")
    return roulette_wheel.camera


@pytest.mark.clause(
    "p217-2007/roleta-francesa/5",
    "p217-2007/roleta-francesa/6",
    "p217-2007/roleta-americana/5",
    "p217-2007/roleta-americana/6",
)
def test_pocket_colours_seen_by_camera(roulette_wheel: Any, bench: BenchSession, measure: Any, attach: Any) -> None:
    """37 pockets, red and black alternating along the wheel, one green pocket (the 0), each number on the
    colour the regulation gives it: audited on a still of the wheel, independently of the wheel's reports."""
    from vision.roulette_audit import audit_layout

    camera = _camera_or_skip(roulette_wheel)
    still = camera.still()
    attach(still.evidence_bytes(), "wheel still for the layout audit",
           still.evidence_media_type, still.evidence_suffix)
    audit = audit_layout(still.image, camera.calibration)
    details = {"frame_sha256": still.sha256, "findings": list(audit.findings)}
    measure("pockets counted by camera", audit.pockets, unit="pockets", expected=37,
            clauses=[_clause(roulette_wheel, "5")], method="pocket boundaries in the unwrapped pocket ring",
            details=details)
    measure("green pockets seen by camera", audit.green_count, unit="pockets", expected=1,
            clauses=[_clause(roulette_wheel, "6")], method="pocket colours classified in the unwrapped ring",
            details=details)
    measure("red and black alternate along the wheel", audit.alternation_ok, expected=True,
            clauses=[_clause(roulette_wheel, "6")], method="colour sequence clockwise from the green pocket",
            details=details)
    measure("layout audit", audit.passed, expected=True, clauses=[_clause(roulette_wheel, "6")],
            method="colours against the layout's numbers (red set of the regulation, 0 green)", details=details)


@pytest.mark.clause(
    "p217-2007/roleta-francesa/3",
    "p217-2007/roleta-francesa/9",
    "p217-2007/roleta-americana/3",
    "p217-2007/roleta-americana/17",
)
def test_wheel_and_ball_dimensions(roulette_wheel: Any, measure: Any, attach: Any) -> None:
    """Bowl 50-60 cm in diameter and ball 18-24 mm, measured by camera against the bench's printed ArUco wheel
    target beside the wheel, each with its expanded uncertainty (guarded acceptance, ISO 14253-1).

    The outline of a shaded ball in a pocket reads about 1.8 mm small; the ball is therefore measured only
    after reading a certified gauge ball (``camera.reference_ball_mm``) in several pockets, whose reading
    bias corrects it.
    """
    from vision.measure_wheel import WHEEL_TARGET, measure_wheel, reference_ball

    camera = _camera_or_skip(roulette_wheel)
    connection = roulette_wheel.equipment.camera
    reference = None
    if connection.reference_ball_mm is not None:
        if not hasattr(camera.camera, "reference_frames"):
            pytest.skip("reading the gauge ball on a live camera needs the operator's reference step")
        frames = camera.camera.reference_frames(connection.reference_ball_mm)
        reads = [camera.reader.read(frame.image) for frame in frames]
        usable = [(frame, read.ball_px) for frame, read in zip(frames, reads) if read.accepted]
        for frame, _ in usable:
            attach(frame.evidence_bytes(), f"gauge ball frame {frame.index}", frame.evidence_media_type,
                   frame.evidence_suffix)
        reference = reference_ball([frame.image for frame, _ in usable], WHEEL_TARGET, [at for _, at in usable],
                                   connection.reference_ball_mm, camera_height_mm=connection.camera_height_mm)
    pocket = camera.read_pocket()
    if not pocket.accepted:
        pocket = camera.read_pocket()  # the ball was on a fret or hidden: one more look
    frame = pocket.frames[0] if pocket.frames else camera.still()
    attach(frame.evidence_bytes(), "wheel frame for measuring",
           frame.evidence_media_type, frame.evidence_suffix)
    ball_px = pocket.reads[0].ball_px if pocket.accepted and pocket.reads else None
    dimensions = measure_wheel(frame.image, camera.calibration, WHEEL_TARGET, ball_px=ball_px,
                               camera_height_mm=connection.camera_height_mm, ball_reference=reference)
    record_dimension(measure, dimensions.bowl, [_clause(roulette_wheel, "3")])
    if reference is None:
        return  # no gauge ball reference (camera.reference_ball_mm): the ball clause stays NOT TESTED
    if dimensions.ball is None:
        pytest.fail(f"the ball could not be measured: {dimensions.ball_reason}")
    game = roulette_wheel.equipment.options.game
    record_dimension(measure, dimensions.ball, ["p217-2007/roleta-francesa/9" if game == "roleta-francesa"
                                                else "p217-2007/roleta-americana/17"])
