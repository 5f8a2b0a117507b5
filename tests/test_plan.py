"""The planning logic (bench/plan.py) and the ``plan`` command (bench/cli_plan.py).

The command is registered on a small typer app built here, as bench/cli.py does. Simulated
figures use fixed seeds (deterministic); the comparisons between tests hold for the exact
quantities and are checked with margins wider than the Monte-Carlo error stated in each test.
"""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from bench.cli_plan import plan
from bench.plan import DEFAULT_RATES, make_plan
from rng_tests.alternatives import LoadedDieAlternative, SectorAlternative
from rng_tests.power import g_test_sample_size, pearson_sample_size

app = typer.Typer()
app.command("plan")(plan)


@app.command("other")
def _other() -> None:  # a second command, so that "plan" is a sub-command as in bench/cli.py
    """Placeholder."""


runner = CliRunner()


def _rows(payload: dict) -> dict[str, dict]:
    return {row["test"]: row for row in payload["tests"]}


def test_dice_plan_json_gives_exact_chi_square_n_and_hours_at_the_default_rate() -> None:
    result = runner.invoke(app, ["plan", "--kind", "dice", "--alternative", "loaded:6@0.2", "--simulations", "200",
                                 "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    rows = _rows(payload)
    alternative = LoadedDieAlternative(6, 0.2)
    p0, p1 = alternative.null_probabilities(), alternative.probabilities()
    pearson = pearson_sample_size(p0, p1, 0.01, 0.9).sample_size
    assert payload["rate_per_hour"] == DEFAULT_RATES["dice"].per_hour == 100
    assert rows["Pearson chi-square"]["sample_size"] == pearson
    assert rows["Pearson chi-square"]["hours"] == pytest.approx(pearson / 100)
    assert rows["G-test"]["sample_size"] == g_test_sample_size(p0, p1, 0.01, 0.9).sample_size
    sequential = rows["sequential mixture SPRT (mean n under H1)"]
    assert sequential["figures"]["max_n"] == 2 * pearson
    assert sequential["sample_size"] < pearson  # mean ~1450 vs 2754; Monte-Carlo error ~60 with 200 runs


def test_rate_option_and_table_output() -> None:
    result = runner.invoke(app, ["plan", "--kind", "dice", "--alternative", "die-bias:0.1", "--rate", "250",
                                 "--simulations", "200"])
    assert result.exit_code == 0, result.output
    assert "Pearson chi-square" in result.stdout and "sequential mixture SPRT" in result.stdout
    assert "250 rolls/hour" in result.stdout
    payload = make_plan("dice", "die-bias:0.1", rate=250, simulations=200)
    first = payload.rows[0]
    assert first.hours == pytest.approx(first.sample_size / 250)
    assert f"{first.sample_size:,}" in result.stdout


def test_roulette_reference_plan_has_every_test_and_the_sequential_saving() -> None:
    """Sector 5 x 1.2, 200 simulations: the sector test (aimed at arcs) and the sequential test need
    fewer spins than Pearson's 9427 (true figures ~5600 and ~3300; Monte-Carlo errors ~2 % and ~4 %)."""
    plan_result = make_plan("roulette", "sector:5@1.2", simulations=200, seed=3)
    rows = {row.test.split(" (")[0]: row for row in plan_result.rows}
    assert set(rows) == {"Pearson chi-square", "G-test", "sector max test", "sequential mixture SPRT"}
    pearson = rows["Pearson chi-square"].sample_size
    alternative = SectorAlternative(5, 1.2)
    assert pearson == pearson_sample_size(alternative.null_probabilities(), alternative.probabilities(),
                                          0.01, 0.9).sample_size
    assert rows["sector max test"].sample_size < 0.8 * pearson
    assert rows["sequential mixture SPRT"].sample_size < 0.6 * pearson
    assert rows["Pearson chi-square"].hours == pytest.approx(pearson / 40)
    assert json.loads(json.dumps(plan_result.to_json()))["alternative"] == "sector:5@1.2"


def test_shuffler_plan_orders_the_tests_by_power() -> None:
    """riffle:8: the total-variation bound <= the most powerful (likelihood-ratio) test's n <= Pearson's n."""
    plan_result = make_plan("shuffler", "riffle:8", simulations=200)
    rows = {row.test: row for row in plan_result.rows}
    bound = rows["any test (lower bound)"].sample_size
    best = rows["likelihood-ratio test on rising sequences"].sample_size
    pearson = rows["Pearson chi-square on rising sequences"].sample_size
    assert bound <= best < pearson
    assert "pooled" in rows["Pearson chi-square on rising sequences"].note
    assert plan_result.rate == 30 and plan_result.unit == "shuffles"


@pytest.mark.parametrize("arguments, fragment", [
    (["--kind", "roulette", "--alternative", "sector:5x1.2"], "'sector:5x1.2'"),
    (["--kind", "dice", "--alternative", "sector:5@1.2"], "loaded:FACE@P"),
    (["--kind", "shuffler", "--alternative", "riffle:many"], "riffle:K"),
    (["--kind", "dice", "--alpha", "0.95"], "power must be between alpha"),
])
def test_bad_input_exits_2_with_a_clear_message(arguments: list[str], fragment: str) -> None:
    result = runner.invoke(app, ["plan", *arguments])
    assert result.exit_code == 2
    assert fragment in " ".join(result.output.split())  # rich may wrap long messages
    assert "Traceback" not in result.output


def test_unknown_kind_is_a_usage_error() -> None:
    result = runner.invoke(app, ["plan", "--kind", "slot-machine"])
    assert result.exit_code == 2
