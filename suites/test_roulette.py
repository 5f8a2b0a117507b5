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

Statistics: H0 = every pocket has probability 1/37, spins independent. Two modes,
chosen by the profile (``options.sequential``):

* fixed (default): Pearson chi-square over exactly N = ``options.spins`` spins at level
  α; its power is stated against a nine-pocket sector favoured by 30 % (a tilted or
  worn wheel).
* sequential: a mixture SPRT (:func:`rng_tests.sequential.sector_sequential_test`)
  against the biases a physical wheel has, an arc of adjacent pockets favoured:
  widths 5, 9 and 18 pockets (a worn arc, a quarter of the wheel, a tilted half)
  with factors 1.2 and 1.3, anywhere on the wheel (``ROULETTE_SECTOR_WIDTHS``,
  ``ROULETTE_SECTOR_FACTORS``; chosen with ``benchmarks/sequential_vs_fixed.py``: at 3,700
  spins this family's test has more power than the fixed chi-square against every
  member and needs ~1,600 spins on average on a fair wheel). It is updated spin by
  spin as the spins are collected, and the wheel STOPS as soon as the test decides:
  reject H0 (type I error <= α for any stopping, Ville's inequality) or accept H0
  (type II error <= β averaged over the family, plus the chance of reaching
  ``options.spins`` undecided, which is then an acceptance; both are measured by
  simulation and cached in ``OPERATING_CHARACTERISTICS``).

A single pocket at 1/35 instead of 1/37 cannot be detected at laboratory sample
sizes (the chi-square needs ~410,000 spins for 80 % power at α = 0.01); the measurements say
so with the number of spins it would take, in both modes.

Honesty about the other tests on the same spins: a fixed-n test computed on a sample
whose size a sequential rule chose from the same outcomes does not have its nominal
α. In sequential mode the Pearson chi-square over the spins collected is therefore
information only (inside the sequential measurement's details), unless the profile
sets ``options.chi_square_spins``: that many spins are then always played, the
chi-square judges exactly the first ``chi_square_spins`` spins (a size fixed before
the first spin), and both tests run at α/2 (Bonferroni) so that the clause's type I
error stays <= α. The launch checks (limits of zero, no statistics) and the camera
cross-check keep their meaning: the stopping rule looks only at the winning numbers,
and under the cross-check's H0 camera misreads are independent of them, so its
binomial p-value holds at the number of spins played; only its power depends on it
(stated with the measurement).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from itertools import pairwise
from typing import Any

import numpy as np
import pytest
from scipy import stats

from bench.evidence import PocketCounts, SequentialPath
from drivers.roulette_camera import LaunchClip
from drivers.roulette_protocol import NoResult, SpinResult
from drivers.serial_link import DeviceError
from fixtures.decline_bound import check_declines
from fixtures.dimensions import record_dimension
from fixtures.frames import keep_frames
from fixtures.no_reads import NoReads, no_read_bound
from fixtures.session import BenchSession, ObservationStream, collect_observations
from rng_tests.fairness import chi_square_gof, chi_square_power, sector_alternative
from rng_tests.sequential import (
    ROULETTE_SECTOR_FACTORS,
    ROULETTE_SECTOR_WIDTHS,
    Decision,
    SequentialTest,
    operating_characteristics,
    roulette_sector_family,
    sector_sequential_test,
    sequential_path,
)

SPINS_STREAM = "wheel/spins"
VOID_STREAM = "wheel/void-games"
CAMERA_DECLINED_STREAM = "wheel/camera-declined"
NO_READ_STREAM = "wheel/no-reads"
"""Games whose start or result the driver could not confirm within its retry budget (fixtures.no_reads: at most
5 % of the planned spins, at least 1; beyond it the spins stop and the clauses they serve are not passed)."""
LAUNCH_STREAM = "wheel/launch-clips"
ASSUMED_CAMERA_ERROR = 0.001
"""Largest share of wrong camera reads among accepted reads, as measured by
``benchmarks/roulette_reader_accuracy.py`` (the cross-check's null hypothesis uses it)."""
AUDIT_STILLS = 3
"""Stills taken at most for the colour audit while a still leaves some pocket's colour untold."""
SPINS_NODEID = "suites/test_roulette.py::spins"  # the module fixture that collects both streams
POWER_ALTERNATIVE = {"width": 9, "factor": 1.3}
PATH_POINTS = 300
"""Points of the sequential path recorded for the certificate's plot."""
FIGURES_SEED = 20070226
"""Seed of the simulations behind the operating characteristics."""
FALLBACK_RUNS = 200
"""Simulated runs per hypothesis when a configuration's figures are not cached (a few seconds)."""
OPERATING_CHARACTERISTICS: dict[tuple[float, float, int], dict[str, Any]] = {
    (0.01, 0.1, 3700): {
        "runs": 2000, "seed": 20070226, "max_n": 3700, "alpha": 0.01, "beta": 0.1,
        "h0": {"mean_n": 1610.4, "median_n": 1403.5, "p90_n": 2604.0,
               "rejection_rate": 0.011, "truncation_rate": 0.0305},
        "alternatives": {
            "sector:5@1.2": {"mean_n": 2335.9, "median_n": 2216.5, "p90_n": 3700.0,
                            "rejection_rate": 0.473, "truncation_rate": 0.213},
            "sector:5@1.3": {"mean_n": 1756.2, "median_n": 1584.5, "p90_n": 2903.0,
                            "rejection_rate": 0.9245, "truncation_rate": 0.026},
            "sector:9@1.2": {"mean_n": 2061.2, "median_n": 1908.5, "p90_n": 3688.0,
                            "rejection_rate": 0.78, "truncation_rate": 0.0985},
            "sector:9@1.3": {"mean_n": 1193.1, "median_n": 1092.5, "p90_n": 1902.0,
                            "rejection_rate": 0.994, "truncation_rate": 0.0005},
            "sector:18@1.2": {"mean_n": 1762.6, "median_n": 1586.0, "p90_n": 3089.1,
                             "rejection_rate": 0.9025, "truncation_rate": 0.0455},
            "sector:18@1.3": {"mean_n": 976.3, "median_n": 885.0, "p90_n": 1584.9,
                             "rejection_rate": 0.999, "truncation_rate": 0.0},
        },
        "family_average": {"mean_n": 1680.8833, "rejection_rate": 0.8455, "truncation_rate": 0.0639},
    },
    (0.005, 0.1, 3700): {
        "runs": 2000, "seed": 20070226, "max_n": 3700, "alpha": 0.005, "beta": 0.1,
        "h0": {"mean_n": 1608.0, "median_n": 1387.0, "p90_n": 2625.7,
               "rejection_rate": 0.0055, "truncation_rate": 0.0315},
        "alternatives": {
            "sector:5@1.2": {"mean_n": 2493.1, "median_n": 2508.5, "p90_n": 3700.0,
                            "rejection_rate": 0.4005, "truncation_rate": 0.281},
            "sector:5@1.3": {"mean_n": 1940.7, "median_n": 1826.0, "p90_n": 3129.5,
                            "rejection_rate": 0.895, "truncation_rate": 0.04},
            "sector:9@1.2": {"mean_n": 2204.6, "median_n": 2095.0, "p90_n": 3700.0,
                            "rejection_rate": 0.7285, "truncation_rate": 0.139},
            "sector:9@1.3": {"mean_n": 1322.7, "median_n": 1231.5, "p90_n": 2097.2,
                            "rejection_rate": 0.991, "truncation_rate": 0.001},
            "sector:18@1.2": {"mean_n": 1955.6, "median_n": 1833.0, "p90_n": 3380.4,
                             "rejection_rate": 0.881, "truncation_rate": 0.0645},
            "sector:18@1.3": {"mean_n": 1049.9, "median_n": 963.5, "p90_n": 1647.1,
                             "rejection_rate": 0.9995, "truncation_rate": 0.0005},
        },
        "family_average": {"mean_n": 1827.7667, "rejection_rate": 0.8159, "truncation_rate": 0.0877},
    },
}
"""Operating characteristics of the sequential sector test by (α, β, max_n), simulated by
``benchmarks/sequential_vs_fixed.py --suite-figures`` (fixed seed; printed there, pasted here)."""

pytestmark = pytest.mark.equipment("roulette-wheel")


def _clause(roulette_wheel: Any, rule: str) -> str:
    """The clause of the profile's game (roleta-francesa or roleta-americana) for a rule number."""
    return f"p217-2007/{roulette_wheel.equipment.options.game}/{rule}"


@pytest.fixture(scope="module")
def spins(bench: BenchSession, roulette_wheel: Any) -> ObservationStream:
    """The wheel's spins, each committed to the journal as it is read (resumable): ``options.spins`` of them, or
    in sequential mode until the sector test decides (at most ``options.spins``)."""
    options = roulette_wheel.equipment.options
    driver = roulette_wheel.driver
    voids = bench.stream(VOID_STREAM, SPINS_NODEID)
    camera_declined = bench.stream(CAMERA_DECLINED_STREAM, SPINS_NODEID)
    launches = bench.stream(LAUNCH_STREAM, SPINS_NODEID)
    camera_profile = roulette_wheel.equipment.camera
    launch_clips = camera_profile.launch_clips if roulette_wheel.camera is not None else 0
    no_reads = wheel_no_reads(bench, roulette_wheel)

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

    def one_spin() -> tuple[dict[str, Any], str, str | None]:
        while True:
            try:
                outcome = one_game()
            except DeviceError as error:  # docs/protocols/roulette-wheel.md §5: a counted no-read, never an outcome
                no_reads.record(error)
                continue
            if isinstance(outcome, NoResult):
                voids.record(
                    {"game": outcome.game, "code": outcome.code, "text": outcome.text},
                    source=roulette_wheel.name,
                    raw_ref=outcome.raw.decode("ascii", "replace").strip(),
                )
                check_declines(voids.count, options.spins, options.max_declined_share, roulette_wheel.name,
                               f"game {outcome.game}, {outcome.code}: {outcome.text}", what="games", done="voided")
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
                    check_declines(camera_declined.count, options.spins, options.max_declined_share,
                                   f"{roulette_wheel.name}'s camera", f"game {outcome.game}, {read.decline}: "
                                   f"{read.detail}", what="games")
                    continue
            if options.outcome_source == "camera":
                value["number"] = read.number
            return value, roulette_wheel.name, raw_ref

    if not options.sequential:
        return collect_observations(bench, SPINS_STREAM, SPINS_NODEID, options.spins, one_spin, "spins")
    return collect_until_decided(bench, options, one_spin)


def wheel_no_reads(bench: BenchSession, roulette_wheel: Any) -> NoReads:
    """The wheel's no-reads: games whose start or result was not confirmed, at most 5 % of the planned spins."""
    return NoReads(bench, NO_READ_STREAM, SPINS_NODEID, roulette_wheel.equipment.options.spins,
                   roulette_wheel.name, "games")


def sector_test(options: Any) -> SequentialTest:
    """The sequential sector test the profile asks for: α (halved when the chi-square also judges), β, at most
    ``options.spins`` spins, against ``ROULETTE_SECTOR_WIDTHS`` x ``ROULETTE_SECTOR_FACTORS`` anywhere on the
    wheel."""
    return sector_sequential_test(widths=ROULETTE_SECTOR_WIDTHS, factors=ROULETTE_SECTOR_FACTORS,
                                  layout=options.layout, alpha=_sequential_alpha(options), beta=options.beta,
                                  max_n=options.spins)


def _sequential_alpha(options: Any) -> float:
    """α of the sequential test: the profile's α, or α/2 when the fixed-size chi-square judges the clause too."""
    return options.alpha / 2 if options.chi_square_spins else options.alpha


def replay(test: SequentialTest, numbers: list[int]) -> SequentialTest:
    """Feed the journal's winning numbers, in the order played, to a fresh ``test``; it stops at its decision.

    Resuming after a kill rebuilds the evidence this way. The evidence is a function of the pocket
    counts only, so while collection stops at the decision this equals ``test.update_counts(counts)``
    of the journal's counts; replaying in order also finds the decision when more spins were played
    after it (``chi_square_spins``), where the counts of all spins would not.
    """
    test.reset()
    if numbers:
        test.run(numbers)
    return test


def collect_until_decided(bench: BenchSession, options: Any,
                          take_one: Callable[[], tuple[dict[str, Any], str, str | None]]) -> ObservationStream:
    """Spins until the sector test decides (and at least ``options.chi_square_spins``), at most ``options.spins``.

    Each spin is committed to the journal before the test sees it; a killed run resumes from the
    journal (:func:`replay`) and goes on where it stopped, or plays nothing when the journal already
    holds the decision.
    """
    stream = bench.stream(SPINS_STREAM, SPINS_NODEID)
    test = replay(sector_test(options), [value["number"] for value in stream.values()])
    with bench.stream_progress("spins", options.spins, stream.count) as progress:
        while stream.count < options.spins and (test.decision is Decision.CONTINUE
                                                or stream.count < options.chi_square_spins):
            value, source, raw_ref = take_one()
            stream.record(value, source=source, raw_ref=raw_ref)
            progress.advance()
            if test.decision is Decision.CONTINUE:
                test.update(value["number"])
        progress.finish("the sequential test decided")  # before its cap: the bar goes, one line says why
    return stream


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


@pytest.mark.clause(
    "p217-2007/roleta-francesa/5",
    "p217-2007/roleta-francesa/6",
    "p217-2007/roleta-americana/5",
    "p217-2007/roleta-americana/6",
)
def test_pocket_colours_seen_by_camera(roulette_wheel: Any, bench: BenchSession, measure: Any, attach: Any) -> None:
    """37 pockets, red and black alternating along the wheel, one green pocket (the 0), each number on the
    colour the regulation gives it: audited on a still of the wheel, independently of the wheel's reports.

    The test sits before every test that plays the spins (pytest runs a file in order), so the still shows
    the wheel before its first game, no ball resting over a pocket (where the spins stop must not decide
    the audit: a ball at rest can hide a pocket's colour). A still in which some pocket's colour cannot be
    told (glare, shadow) makes the audit inconclusive, not failed: the still is retaken, up to
    ``AUDIT_STILLS`` stills, each kept as evidence; the verdict rests on the first conclusive one (or on the
    last, inconclusive, which fails the audit).
    """
    from vision.roulette_audit import audit_layout

    camera = _camera_or_skip(roulette_wheel)
    inconclusive: list[dict[str, Any]] = []
    for attempt in range(1, AUDIT_STILLS + 1):
        still = camera.still()
        attach(still.evidence_bytes(), f"wheel still {attempt} for the layout audit",
               still.evidence_media_type, still.evidence_suffix)
        audit = audit_layout(still.image, camera.calibration)
        if not audit.inconclusive:
            break
        inconclusive.append({"frame_sha256": still.sha256, "unreadable_positions": list(audit.unreadable)})
    details = {"frame_sha256": still.sha256, "findings": list(audit.findings),
               "unreadable_positions": list(audit.unreadable), "inconclusive_stills_retaken": inconclusive}
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
    """Every pocket equally likely.

    Fixed mode: Pearson chi-square over the N spins, the verdict at α. Sequential mode: the
    verdict is the sequential sector test that stopped the wheel (α, β, spins to the decision,
    its path for the certificate); the chi-square over the spins played is information only,
    because their number was chosen by the sequential rule, unless ``chi_square_spins`` fixes
    its sample in advance (then it judges the first ``chi_square_spins`` spins at α/2, and the
    sequential test runs at α/2).
    """
    options = roulette_wheel.equipment.options
    numbers = [value["number"] for value in spins.values()]
    clauses = [_clause(roulette_wheel, "5")] + (["p217-2007/roleta-francesa/9"] if options.game == "roleta-francesa" else [])
    context: dict[str, Any] = {"void_games": bench.stream(VOID_STREAM, SPINS_NODEID).count,
                               "void_or_declined_bound": no_read_bound(options.spins, options.max_declined_share),
                               "outcome_source": options.outcome_source,
                               **wheel_no_reads(bench, roulette_wheel).details()}
    if options.outcome_source == "camera":
        context |= {"assumed_camera_error_rate": ASSUMED_CAMERA_ERROR,
                    "camera_declined_games": bench.stream(CAMERA_DECLINED_STREAM, SPINS_NODEID).count}
    if not options.sequential:
        _record_chi_square(measure, options, numbers, clauses, options.alpha, context)
        return
    _record_sequential(measure, options, numbers, clauses, context)
    if options.chi_square_spins:
        _record_chi_square(measure, options, numbers[: options.chi_square_spins], clauses, options.alpha / 2,
                           context | {"note": f"the first {options.chi_square_spins} spins, a sample size fixed "
                                               "before the first spin; α/2 (Bonferroni with the sequential test)"},
                           name=f"pocket frequencies chi-square, first {options.chi_square_spins} spins",
                           plotted=False)


def _chi_square_figures(numbers: list[int], order: tuple[int, ...], alpha: float) -> tuple[Any, dict[str, Any]]:
    """Pearson chi-square of the pocket counts, its power against the named sector and against one pocket at 1/35."""
    counts_by_number = Counter(numbers)
    counts = np.array([counts_by_number.get(number, 0) for number in order])  # wheel order
    result = chi_square_gof(counts)
    p0 = np.full(37, 1 / 37)
    power = chi_square_power(result.sample_size, p0, sector_alternative(37, **POWER_ALTERNATIVE), alpha)
    single_pocket = np.full(37, 1.0)
    single_pocket[0] = 37 / 35
    single_pocket /= single_pocket.sum()
    return result, {
        "counts": list(zip(order, counts.tolist())),
        "power": power,
        "power_alternative": f"{POWER_ALTERNATIVE['width']} adjacent pockets x{POWER_ALTERNATIVE['factor']}",
        "power_against_one_pocket_at_1_in_35": round(chi_square_power(result.sample_size, p0, single_pocket, alpha), 4),
        "spins_for_80pc_power_against_one_pocket_at_1_in_35": _spins_needed(p0, single_pocket, alpha, 0.8),
        "critical_value": round(float(stats.chi2.isf(alpha, 36)), 4),
    }


def _record_chi_square(measure: Any, options: Any, numbers: list[int], clauses: list[str], alpha: float,
                       context: dict[str, Any], *, name: str = "pocket frequencies chi-square",
                       plotted: bool = True) -> None:
    """The fixed-size Pearson chi-square as a verdict (its sample size was fixed before the first spin).

    Its pocket counts, in wheel order, are the certificate's pocket plot (``plotted``); the chi-square
    of the first spins beside a sequential test keeps them as (pocket, count) pairs in ``details``
    (``counts_in_wheel_order_of_the_judged_spins``), the plot showing every spin played."""
    result, figures = _chi_square_figures(numbers, options.pocket_order, alpha)
    counts = figures.pop("counts")
    power = figures.pop("power")
    series = [PocketCounts(counts=counts)] if plotted else []
    kept = {} if plotted else {"counts_in_wheel_order_of_the_judged_spins": [list(pair) for pair in counts]}
    measure(
        name,
        round(result.statistic, 4),
        p_value=result.p_value,
        alpha=alpha,
        clauses=clauses,
        method=f"{result.method}, {result.degrees_of_freedom} degrees of freedom; H0: every pocket 1/37",
        sample_size=result.sample_size,
        power=round(power, 6),
        details=kept | figures | context,
        series=series,
    )


def _record_sequential(measure: Any, options: Any, numbers: list[int], clauses: list[str],
                       context: dict[str, Any]) -> None:
    """The sequential sector test's verdict, path, spins to the decision and operating characteristics."""
    test = replay(sector_test(options), numbers)
    if test.decision is Decision.CONTINUE:
        raise RuntimeError(f"the spins ended after {len(numbers)} of at most {options.spins} before the "
                           "sequential test decided")
    figures = sector_test_characteristics(test.alpha, options.beta, options.spins)
    result, chi_square = _chi_square_figures(numbers, options.pocket_order, options.alpha)
    counts = chi_square.pop("counts")
    information = {"statistic": round(result.statistic, 4), "nominal_p_value": result.p_value,
                   "sample_size": result.sample_size,
                   "note": ("information only: the number of spins was chosen by the sequential rule from the "
                            "same outcomes, so the chi-square does not have its nominal level")}
    average = figures["family_average"]
    measure(
        "sector fairness, sequential test",
        test.decision.value,
        expected=Decision.ACCEPT_H0.value,
        p_value=test.p_value,
        alpha=test.alpha,
        clauses=clauses,
        method=(f"{test.name} ({test.evidence.method}); reject H0 when L >= 1/α = {1 / test.alpha:g}, "
                f"accept when L <= β = {options.beta:g} or at {options.spins} spins; "
                "anytime-valid p-value min(1, 1/max L); H0: every pocket 1/37, spins independent"),
        sample_size=test.n,
        power=average["rejection_rate"],
        series=[PocketCounts(counts=counts),
                SequentialPath(**sequential_path(test, numbers[: test.n], points=PATH_POINTS))],
        details={
            "spins_to_decision": test.n,
            "stopped_by": test.stopped_by,
            "log_lr": round(test.log_lr, 5),
            "alpha": test.alpha,
            "beta": options.beta,
            "max_spins": options.spins,
            "alternative_hypothesis": test.alternative_hypothesis,
            "power_alternative": ("the sectors of the family, equal weights (simulated; per sector in "
                                  "operating_characteristics)"),
            "power_against_9_pockets_x1.3": figures["alternatives"]["sector:9@1.3"]["rejection_rate"],
            "error_rates": {
                "type_I": f"<= {test.alpha:g} for any stopping (Ville's inequality); simulated "
                          f"{figures['h0']['rejection_rate']:g}",
                "type_II": (f"<= {options.beta:g} + P(undecided at {options.spins} spins), averaged over the "
                            f"{len(ROULETTE_SECTOR_WIDTHS) * len(ROULETTE_SECTOR_FACTORS)} sectors; simulated "
                            f"{1 - average['rejection_rate']:.4f} (per sector: operating_characteristics)"),
            },
            "expected_spins": {"fair wheel (H0)": figures["h0"]["mean_n"],
                               "biased sector (H1, family average)": average["mean_n"]},
            "operating_characteristics": figures,
            "spins_played": len(numbers),
            "chi_square_information": information,
            "power_of_the_chi_square_against_one_pocket_at_1_in_35":
                chi_square["power_against_one_pocket_at_1_in_35"],
            "spins_for_80pc_power_against_one_pocket_at_1_in_35":
                chi_square["spins_for_80pc_power_against_one_pocket_at_1_in_35"],
            "single_pocket_note": ("one pocket at 1/35 is not in the sequential test's family: no test detects it "
                                   "at laboratory sample sizes (spins_for_80pc_power_against_one_pocket_at_1_in_35)"),
        } | context,
    )


@lru_cache(maxsize=8)
def sector_test_characteristics(alpha: float, beta: float, max_spins: int) -> dict[str, Any]:
    """Operating characteristics of the sequential sector test: cached figures, or a coarse simulation.

    The cache (``OPERATING_CHARACTERISTICS``, 2,000 runs per hypothesis) covers the built-in profiles;
    another configuration is simulated here with ``FALLBACK_RUNS`` runs per hypothesis (fixed seed),
    which takes seconds and is marked ``"source": "simulated during the run"``.
    """
    cached = OPERATING_CHARACTERISTICS.get((alpha, beta, max_spins))
    if cached is not None:
        return cached | {"source": "benchmarks/sequential_vs_fixed.py --suite-figures"}
    test = sector_sequential_test(widths=ROULETTE_SECTOR_WIDTHS, factors=ROULETTE_SECTOR_FACTORS, alpha=alpha,
                                  beta=beta, max_n=max_spins)
    figures = operating_characteristics(test, roulette_sector_family(), runs=FALLBACK_RUNS, max_n=max_spins,
                                        seed=FIGURES_SEED)
    return figures | {"source": "simulated during the run"}


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
    declined are counted, never compared; more of them than ``options.max_declined_share`` of the games played
    leave the clause INCOMPLETE (too few compared). Evidence against the sensor means the fairness
    statistics computed from its reports cannot be trusted. In sequential mode the number of
    games compared is where the sector test stopped; that rule looks only at the winning
    numbers, independent of the camera's misreads under H0, so the p-value holds at that n
    (its power against a faulty sensor grows with n: a profile that must detect one misreport
    in 200 games plays a fixed number of spins, as ``sim-wheel-sensor`` does).
    """
    options = roulette_wheel.equipment.options
    if options.outcome_source != "both":
        pytest.skip("the profile does not read the wheel with both its sensor and a camera (outcome_source 'both')")
    played = spins.values()
    compared = [value for value in played if value.get("camera_number") is not None]
    disagreements = [value for value in compared if value["camera_number"] != value["sensor_number"]]
    declined = bench.stream(CAMERA_DECLINED_STREAM, SPINS_NODEID)
    if declined.count:  # a camera that declined most games compared too few to vouch for the sensor
        last = declined.values()[-1]
        check_declines(declined.count, len(played), options.max_declined_share, f"{roulette_wheel.name}'s camera",
                       f"game {last['game']}, {last['reason']}: {last['detail']}", what="games")
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
            **wheel_no_reads(bench, roulette_wheel).details(),
        },
    )


def _camera_or_skip(roulette_wheel: Any) -> Any:
    if roulette_wheel.camera is None:
        pytest.skip("the profile puts no camera over the wheel")
    return roulette_wheel.camera


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
