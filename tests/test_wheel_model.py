"""WheelModel (drivers.sim.roulette_wheel): pocket probabilities, per-game determinism, draws."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bench.games.roulette_layout import AMERICAN_ORDER, FRENCH_ORDER, Direction
from bench.profiles.model import RouletteSimulator
from drivers.roulette_protocol import decode, parse_result
from drivers.sim.roulette_wheel import WheelModel


def biased(start: int, width: int, factor: float, **options: object) -> RouletteSimulator:
    return RouletteSimulator(model="sector-bias", sector_start=start, sector_width=width, bias_factor=factor, **options)


# -- pocket probabilities ----------------------------------------------------


def test_fair_model_gives_every_pocket_one_in_37() -> None:
    model = WheelModel(RouletteSimulator(), "french")
    for number in range(37):
        assert model.pocket_probability(number) == pytest.approx(1 / 37, rel=1e-12)


# The arcs below are read off the printed pocket orders by hand (clockwise from sector_start).
@pytest.mark.parametrize(
    ("layout", "start", "width", "arc"),
    [
        ("french", 17, 5, {17, 34, 6, 27, 13}),  # ... 25, [17, 34, 6, 27, 13], 36 ...
        ("french", 3, 4, {3, 26, 0, 32}),  # wraps past 0: ... 35, [3, 26 | 0, 32], 15 ...
        ("american", 0, 3, {0, 28, 9}),  # [0, 28, 9], 26 ...
        ("american", 2, 2, {2, 0}),  # ... 14, [2 | 0], 28 ...
    ],
)
@pytest.mark.parametrize("factor", [1.5, 3.0, 0.5])
def test_sector_bias_favours_the_clockwise_arc_by_the_bias_factor(
    layout: str, start: int, width: int, arc: set[int], factor: float
) -> None:
    model = WheelModel(biased(start, width, factor), layout)
    total_weight = (37 - width) + width * factor
    for number in range(37):
        expected = (factor if number in arc else 1.0) / total_weight
        assert model.pocket_probability(number) == pytest.approx(expected, rel=1e-12), number
    inside = model.pocket_probability(next(iter(arc)))
    outside = model.pocket_probability(next(n for n in range(37) if n not in arc))
    assert inside / outside == pytest.approx(factor)
    assert sum(model.pocket_probability(number) for number in range(37)) == pytest.approx(1.0)


def test_the_simulator_table_layout_overrides_the_given_layout() -> None:
    assert WheelModel(RouletteSimulator(layout="american"), "french").order == AMERICAN_ORDER
    assert WheelModel(RouletteSimulator(), "french").order == FRENCH_ORDER


def test_an_unknown_layout_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown wheel layout 'russian'"):
        WheelModel(RouletteSimulator(), "russian")


# -- determinism -------------------------------------------------------------


def frames(model: WheelModel, games: int) -> list[tuple[int, bytes, bool]]:
    return [model.play() for _ in range(games)]


def test_same_seed_same_games() -> None:
    config = biased(17, 5, 2.0, seed=31, misread_rate=0.2, garble_rate=0.2)
    assert frames(WheelModel(config, "french"), 60) == frames(WheelModel(config, "french"), 60)


def test_different_seeds_differ() -> None:
    first = frames(WheelModel(RouletteSimulator(seed=1), "french"), 20)
    second = frames(WheelModel(RouletteSimulator(seed=2), "french"), 20)
    assert [frame for _, frame, _ in first] != [frame for _, frame, _ in second]


def test_each_game_depends_only_on_seed_and_game_number(tmp_path: Path) -> None:
    config = RouletteSimulator(seed=77, misread_rate=0.1, garble_rate=0.1)
    straight = frames(WheelModel(config, "french"), 20)

    state = tmp_path / "state.json"
    state.write_text(json.dumps({"game": 10}))  # a wheel that already played 10 games
    resumed = WheelModel(config, "french", state)
    assert resumed.game == 10
    assert frames(resumed, 10) == straight[10:]
    assert json.loads(state.read_text()) == {"game": 20}  # the counter is persisted
    assert not state.with_suffix(".tmp").exists()


def test_fresh_state_file_starts_at_game_one(tmp_path: Path) -> None:
    model = WheelModel(RouletteSimulator(), "french", tmp_path / "state.json")
    assert model.game == 0
    assert model.play()[0] == 1
    assert json.loads((tmp_path / "state.json").read_text()) == {"game": 1}


def test_launches_alternate_with_the_rotor_opposite_and_faults_break_that() -> None:
    def directions(**options: object) -> list[tuple[Direction, Direction]]:
        model = WheelModel(RouletteSimulator(**options), "french")
        results = [parse_result(decode(frame)) for _, frame, _ in frames(model, 4)]
        return [(result.ball_direction, result.rotor_direction) for result in results]

    cw, ccw = Direction.CLOCKWISE, Direction.ANTICLOCKWISE
    assert directions() == [(cw, ccw), (ccw, cw), (cw, ccw), (ccw, cw)]
    assert directions(launch_fault="co-rotation") == [(cw, cw), (ccw, ccw), (cw, cw), (ccw, ccw)]
    assert directions(launch_fault="no-alternation") == [(cw, ccw)] * 4
    assert directions(launch_fault="co-rotation-misreported") == directions()  # the report hides it...
    model = WheelModel(RouletteSimulator(launch_fault="co-rotation-misreported"), "french")
    assert all(model.physical_game(game).rotor is model.physical_game(game).ball for game in (1, 2))  # ...not physics


def test_void_games_are_err_frames_and_can_be_repeated() -> None:
    model = WheelModel(RouletteSimulator(seed=3, misread_rate=0.5), "french")
    played = frames(model, 40)
    void = [game for game, frame, _ in played if decode(frame).type == "ERR"]
    assert 5 < len(void) < 35
    for game, frame, _ in played:
        assert model.last_results[game] == frame  # RES? repeats RES and ERR frames alike


# -- draws -------------------------------------------------------------------


def test_sector_bias_arc_frequency_over_37000_draws() -> None:
    # Sector 17-34-6-27-13 (5 pockets) at 1.5x: p = 7.5 / 39.5 = 0.18987 (fair: 5/37 = 0.13514).
    # With n = 37,000 the standard error is sqrt(p(1-p)/n) = 0.00204, so the fair value lies
    # 27 standard errors away: the test cannot pass for a model that ignores the bias. A correct
    # model falls outside +-4 standard errors with probability 6.3e-5 (two-sided normal tail);
    # the seed is fixed, so the outcome is reproducible, not flaky.
    arc = {17, 34, 6, 27, 13}
    draws = 37_000
    model = WheelModel(biased(17, 5, 1.5, seed=20070226), "french")
    probability = sum(model.pocket_probability(number) for number in arc)
    assert probability == pytest.approx(7.5 / 39.5)

    numbers = [parse_result(decode(frame)).number for _, frame, _ in frames(model, draws)]

    hits = sum(number in arc for number in numbers)
    standard_error = math.sqrt(probability * (1 - probability) / draws)
    z = (hits / draws - probability) / standard_error
    assert abs(z) < 4, f"arc frequency {hits / draws:.5f} vs p = {probability:.5f}: z = {z:.2f}"
    assert (hits / draws - 5 / 37) / standard_error > 4  # distinguishable from a fair wheel
    assert set(numbers) == set(range(37))  # every pocket can still come up


def test_sensor_error_reports_a_neighbour_of_the_physical_pocket_at_the_stated_rate() -> None:
    """The wheel's sensor misreports 1 game in 20; the physical pocket is the same as without the fault.

    Over 4,000 games the count of misreports is Binomial(4000, 0.05) (mean 200, sd 13.8); the
    bounds 150..250 are 3.6 sd wide, so a correct model fails this with probability < 0.001.
    """
    faulty = WheelModel(RouletteSimulator(sensor_error_rate=0.05), "french")
    honest = WheelModel(RouletteSimulator(), "french")
    wrong = 0
    for game in range(1, 4001):
        played = faulty.physical_game(game)
        assert played.number == honest.physical_game(game).number  # the fault is in the sensor, not the wheel
        if played.reported_number != played.number:
            wrong += 1
            gap = (FRENCH_ORDER.index(played.reported_number) - FRENCH_ORDER.index(played.number)) % 37
            assert gap in (1, 36)
    assert 150 <= wrong <= 250


def test_play_reports_the_sensor_number() -> None:
    model = WheelModel(RouletteSimulator(sensor_error_rate=0.5), "french")
    for _ in range(20):
        game, frame, _ = model.play()
        result = parse_result(decode(frame))
        assert result.number == model.physical_game(game).reported_number


def test_an_unreadable_state_file_is_named(tmp_path: Path) -> None:
    state = tmp_path / "wheel.json"
    for text in ("{not json", "[1, 2]", '{"games": 3}'):
        state.write_text(text)
        with pytest.raises(ValueError, match="wheel.json: unreadable wheel state"):
            WheelModel(RouletteSimulator(), "french", state_file=state)
