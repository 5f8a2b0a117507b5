"""Certification suite: roulette wheels (Portaria 217/2007, roleta francesa and roleta americana).

What the wheel reports over RS-232 (RW protocol) is the evidence here: its
pocket layout, and for every game the winning number, rotor and ball
directions. Games the wheel itself declares void are counted as "golpes nulos"
and never used as outcomes.

Statistics: H0 = every pocket has probability 1/37. Pearson chi-square over N
spins (N and α from the profile). The power is stated against a nine-pocket
sector favoured by 30 % (a tilted or worn wheel); a single pocket at 1/35
instead of 1/37 cannot be detected at laboratory sample sizes, and the
measurement says so with the number of spins it would take.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from scipy import stats

from drivers.roulette_protocol import NoResult
from fixtures.session import BenchSession, ObservationStream, collect_observations
from rng_tests.fairness import chi_square_gof, chi_square_power, sector_alternative

SPINS_STREAM = "wheel/spins"
VOID_STREAM = "wheel/void-games"
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

    def one_spin() -> tuple[dict[str, Any], str, str]:
        while True:
            outcome = driver.spin()
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
            return value, roulette_wheel.name, outcome.raw.decode("ascii", "replace").strip()

    return collect_observations(bench, SPINS_STREAM, SPINS_NODEID, options.spins, one_spin, "roulette spins")


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
    repeated = sum(1 for before, after in zip(values, values[1:]) if before["ball"] == after["ball"]
                   and after["game"] == before["game"] + 1)
    consecutive_pairs = sum(1 for before, after in zip(values, values[1:]) if after["game"] == before["game"] + 1)
    clause = [_clause(roulette_wheel, rule)]
    measure("games with ball and rotor turning the same way", co_rotating, unit="games", high=0,
            clauses=clause, sample_size=len(values), method="rotor and ball directions reported per game")
    measure("consecutive games launched in the same direction", repeated, unit="pairs", high=0,
            clauses=clause, sample_size=consecutive_pairs,
            method="ball direction of consecutive game numbers (gaps from void games not counted)")


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
        },
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
