"""The odds engine on the toy volley ruleset: exact, Monte Carlo, auto, budgets."""

from __future__ import annotations

import random
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.analysis import odds
from fracas.analysis.odds import exact_outcomes
from fracas.analysis.parallel import running
from fracas.core.dice import ChanceNode, SeededDice
from fracas.core.distribution import EnumerationBudgetError
from fracas.core.errors import FracasError
from fracas.core.limits import limits_in_force
from fracas.core.streams import StreamDice, run_key
from fracas.io.scenario import Scenario, load_scenario, parse_scenario

from .conftest import EnumeratedVolleyRuleset, StandRuleset, VolleyRuleset, volley_yaml

pytestmark = pytest.mark.usefixtures("toy")


def load(**kwargs: Any) -> Scenario:
    return parse_scenario(volley_yaml(**kwargs))


def load_enumerated(**kwargs: Any) -> Scenario:
    return parse_scenario(volley_yaml(**kwargs, ruleset="volley-enumerated"))


def test_exact_wounds_are_binomial_worked_by_hand() -> None:
    # A shot wounds when it hits (4+: 1/2) and the 5+ save fails (1 − 2/6 = 2/3): 1/3.
    # Two shots: P(0) = (2/3)² = 4/9, P(1) = 2·(1/3)(2/3) = 4/9, P(2) = (1/3)² = 1/9.
    result = odds(load(dice=2, hit_on=4, save=5), exact_fractions=True)
    assert result.method == "exact"
    wounds = result.metric("wounds")
    assert [(e.value, e.probability) for e in wounds.values] == [
        (0, Fraction(4, 9)),
        (1, Fraction(4, 9)),
        (2, Fraction(1, 9)),
    ]
    assert wounds.mean == Fraction(2, 3)  # 2 shots × 1/3
    # One model: wiped out on at least one wound, 1 − 4/9 = 5/9.
    assert result.probability("outcome", "wiped out") == Fraction(5, 9)
    assert result.error_bar == 0.0
    # Two steps (the hits, then the saves), each one binomial group of the process.
    assert "over merged states" in result.solver


@settings(max_examples=20)
@given(st.integers(0, 3), st.integers(2, 6), st.integers(1, 3), st.integers(2, 7))
def test_ruleset_exact_method_equals_enumeration_of_every_path(
    dice: int, hit_on: int, models: int, save: int
) -> None:
    fast = odds(
        load(dice=dice, hit_on=hit_on, models=models, save=save),
        method="exact",
        exact_fractions=True,
    )
    plain = odds(
        load_enumerated(dice=dice, hit_on=hit_on, models=models, save=save),
        method="exact",
        exact_fractions=True,
    )
    # The volley rolled die by die in one step: the walk enumerates every path of it.
    assert "over merged states" in plain.solver
    assert fast.metrics == plain.metrics


def test_exact_counts_its_paths_and_rolls() -> None:
    # Two hit dice (6 × 6 paths); on each path one save die per hit (4+: faces 4, 5, 6).
    # Paths: 3·3 no hit + 2·3·3·6 one hit + 3·3·36 two hits = 9 + 108 + 324 = 441, each a
    # play of the one step from the one start.
    result = odds(load_enumerated(dice=2, hit_on=4))
    assert result.work == 441
    assert result.work_unit == "step plays"
    # The same volley as two binomial groups: the start branches into 3 hit counts (one
    # play each), then 0, 1 and 2 hits into 1, 2 and 3 save counts: 3 + 6 = 9 step plays.
    assert odds(load(dice=2, hit_on=4)).work == 9


def test_metric_order_follows_the_ruleset() -> None:
    result = odds(load())
    assert [m.name for m in result.metrics] == ["hits", "wounds", "outcome"]
    assert result.metric("hits").numeric
    assert not result.metric("outcome").numeric


@settings(max_examples=25)
@given(st.integers(0, 3), st.integers(2, 6), st.integers(1, 3), st.integers(2, 7))
def test_exact_probabilities_sum_to_one(dice: int, hit_on: int, models: int, save: int) -> None:
    result = odds(load(dice=dice, hit_on=hit_on, models=models, save=save), exact_fractions=True)
    for metric in result.metrics:
        assert sum(entry.probability for entry in metric.values) == 1


@given(st.integers(0, 2**32), st.integers(0, 4))
@settings(max_examples=10)
def test_monte_carlo_probabilities_sum_to_one(seed: int, dice: int) -> None:
    result = odds(load(dice=dice), method="mc", runs=200, seed=seed)
    for metric in result.metrics:
        assert sum(e.count or 0 for e in metric.values) == 200
        assert sum(float(e.probability) for e in metric.values) == pytest.approx(1.0)


def test_exact_and_monte_carlo_agree_within_the_interval() -> None:
    scenario = load(dice=3, hit_on=3, models=2, save=5)
    exact = odds(scenario)
    sampled = odds(scenario, method="mc", runs=20_000, seed=11, confidence=0.999)
    assert sampled.method == "monte-carlo"
    for metric in exact.metrics:
        for entry in metric.values:
            low, high = sampled.interval(metric.name, entry.value)
            assert low <= entry.probability <= high, (metric.name, entry.value)
        mean_low, mean_high = (
            sampled.metric(metric.name).mean_low,
            sampled.metric(metric.name).mean_high,
        )
        if metric.mean is not None:
            assert mean_low is not None
            assert mean_high is not None
            assert mean_low <= metric.mean <= mean_high


def test_monte_carlo_is_reproducible_and_depends_on_the_seed() -> None:
    scenario = load(dice=4)
    first = odds(scenario, method="mc", runs=500, seed=3)
    again = odds(scenario, method="mc", runs=500, seed=3)
    other = odds(scenario, method="mc", runs=500, seed=4)
    assert first == again
    assert first.metrics != other.metrics


def test_each_run_replays_from_the_seed_and_its_number() -> None:
    scenario = load(dice=5)
    ruleset = VolleyRuleset()
    one = odds(scenario, method="mc", runs=1, seed=9)
    replay = ruleset.play(scenario.model, StreamDice(run_key(9, 0)))
    hits, _ = replay.state
    assert one.probability("hits", hits) == 1.0


def test_precision_keeps_sampling_until_every_interval_is_narrow_enough() -> None:
    result = odds(load(dice=2), method="mc", precision=0.02, seed=1)
    assert result.stopped_by == "precision"
    assert result.error_bar < 0.02
    # A half-width of 0.02 at p near 1/2 needs n ≈ (1.96 / 0.04)² = 2401 runs: 3 batches.
    assert result.runs == 3000


def test_precision_out_of_reach_reports_the_run_cap() -> None:
    result = odds(load(dice=2), method="mc", precision=0.001, max_runs=2000, seed=1)
    assert result.stopped_by == "max runs"
    assert result.runs == 2000
    assert result.error_bar > 0.001


def test_deterministic_ruleset_has_one_outcome_with_probability_one() -> None:
    scenario = parse_scenario(volley_yaml(dice=7).replace("ruleset: volley", "ruleset: stand"))
    assert isinstance(scenario.ruleset, StandRuleset)
    result = odds(scenario)
    assert result.method == "exact"
    assert result.solver == "single play"
    assert result.work == 1
    assert result.probability("wounds", 7) == 1
    assert result.metric("wounds").mean == 7


def test_auto_falls_back_to_monte_carlo_past_the_exact_budget() -> None:
    result = odds(load_enumerated(dice=6), exact_budget=1_000, runs=300)
    assert result.method == "monte-carlo"
    assert "1,000" in result.fallback
    assert result.runs == 300
    # Enumeration was refused from 16 estimating plays (6 hit rolls and up to 6 saves
    # each), not run to its bound: only they add to the rolls of the sampling itself.
    sampled = odds(load_enumerated(dice=6), method="mc", runs=300)
    assert 16 * 6 <= result.dice_rolls - sampled.dice_rolls <= 16 * 12


def test_forced_exact_past_its_budget_is_a_clear_error() -> None:
    with pytest.raises(EnumerationBudgetError, match="exact-budget"):
        odds(load_enumerated(dice=6), method="exact", exact_budget=1_000)


def test_the_budget_suggested_for_an_enumeration_is_enough() -> None:
    # 3 shots, then saves: the estimating play branches 6 ways per die rolled (about 6^4
    # plays of 4 rolls each). Following the advice must work: the budget it names answers
    # the question exactly.
    with pytest.raises(EnumerationBudgetError) as refused:
        odds(load_enumerated(dice=3), method="exact", exact_budget=100)
    advice = re.search(r"raise --exact-budget to about ([\d,]+)", str(refused.value))
    assert advice is not None, str(refused.value)
    suggested = int(advice.group(1).replace(",", ""))
    assert 100 < suggested <= 100_000_000
    assert odds(load_enumerated(dice=3), method="exact", exact_budget=suggested).exact


def test_no_budget_is_suggested_where_none_could_do() -> None:
    # 10,000 shots rolled die by die in one step: 6^10,000 paths and more, beyond the most
    # --exact-budget may allow once that limit is lowered to 10,000,000.
    with (
        limits_in_force({"odds.exact_budget": 10_000_000}),
        pytest.raises(EnumerationBudgetError) as refused,
    ):
        odds(load_enumerated(dice=10_000, models=50), method="exact", exact_budget=1_000)
    assert "raise --exact-budget" not in str(refused.value)
    assert "no --exact-budget can reach it" in str(refused.value)
    assert "--method mc" in str(refused.value)


def test_a_walk_over_states_out_of_budget_says_what_a_larger_one_may_cost() -> None:
    # The frontal charge walks more than 1,000 step plays: the work needed is unknown until
    # done, so the advice names the larger budget and its cost at the pace just measured.
    frontal = load_scenario(Path("examples/rankflank/frontal_charge.yaml"))
    with pytest.raises(EnumerationBudgetError) as refused:
        odds(frontal, method="exact", exact_budget=1_000)
    assert re.search(r"8,000,000 would take at most about \d+ (s|min|h)", str(refused.value))
    with (
        limits_in_force({"odds.exact_budget": 1_000}),
        pytest.raises(EnumerationBudgetError) as at_most,
    ):
        odds(frontal, method="exact", exact_budget=1_000)
    assert "no larger --exact-budget is allowed (the most is 1,000 steps)" in str(at_most.value)


def test_huge_input_returns_within_its_counted_budget() -> None:
    # 10,000 shots: exact enumeration gives up after its budget, Monte Carlo stops when the
    # dice budget is spent. The work done is counted, never timed.
    scenario = load_enumerated(dice=10_000, models=50)  # shot by shot: every die counts
    result = odds(scenario, exact_budget=50_000, sample_budget=200_000)
    assert result.method == "monte-carlo"
    assert result.stopped_by == "work budget"
    # Each play rolls 10,000 hit dice and ~3,333 saves: about 15 plays fit in 200,000 rolls.
    assert 10 <= (result.runs or 0) <= 20
    assert result.dice_rolls <= 50_000 + 200_000


def test_a_single_play_over_the_sample_budget_is_a_clear_error() -> None:
    with pytest.raises(FracasError, match="single play needs more than 5,000 dice rolls"):
        odds(load_enumerated(dice=10_000), method="mc", sample_budget=5_000)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"method": "guess"}, "unknown method"),
        ({"runs": 0}, "--runs"),
        ({"precision": 0.7}, "--precision"),
        ({"confidence": 1.5}, "--confidence"),
        ({"max_runs": 0}, "--max-runs"),
    ],
)
def test_bad_options_are_clear_errors(options: dict[str, object], message: str) -> None:
    with pytest.raises(FracasError, match=message):
        odds(load(), **options)  # type: ignore[arg-type]


def test_exact_outcomes_keep_fractions() -> None:
    answer, rolls = exact_outcomes(EnumeratedVolleyRuleset(), load_enumerated(dice=1, save=7).model)
    # One shot, no save: wounds 1 with P 1/2 (4+), else 0.
    assert sorted(answer.outcomes.values()) == [Fraction(1, 2), Fraction(1, 2)]
    assert rolls == 0  # only a deterministic play counts its rolls


def test_unknown_metric_names_the_known_ones() -> None:
    with pytest.raises(FracasError, match="known: hits, wounds, outcome"):
        odds(load()).metric("kills")


@given(
    st.integers(0, 2**40),
    st.lists(
        st.lists(st.integers(1, 9), min_size=1, max_size=12).map(
            lambda weights: ChanceNode("n", tuple((face * 3, w) for face, w in enumerate(weights)))
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_seeded_dice_find_the_face_a_walk_over_the_weights_finds(
    seed: int, nodes: list[ChanceNode]
) -> None:
    # Seeded dice bisect the cumulative weights; walking them one by one is the plain way.
    dice, stream = SeededDice(seed), random.Random(seed)
    for _ in range(5):
        for node in nodes:
            pick = stream.randrange(node.total_weight)
            walked = [face for face, weight in node.outcomes for _ in range(weight)][pick]
            assert dice.roll(node) == walked


def test_sampling_defaults_to_the_scenario_seed() -> None:
    assert odds(load(), method="mc", runs=10).seed == 5  # volley_yaml writes seed: 5
    assert odds(load(), method="mc", runs=10, seed=8).seed == 8


class _Recorded:
    """A progress display that only writes down what it is told."""

    def __init__(self) -> None:
        self.started: list[tuple[int, str, str]] = []
        self.done: dict[str, int] = {}

    def start(self, total: int, unit: str, label: str) -> None:
        self.started.append((total, unit, label))

    def advance(self, done: int, unit: str = "runs") -> None:
        self.done[unit] = self.done.get(unit, 0) + done


def test_exact_odds_tell_a_progress_display_their_step_plays() -> None:
    # One round of the frontal charge, walked exactly: the display hears of the budget
    # first, then of every step play, which add up to the work the result reports.
    frontal = load_scenario(
        Path("examples/rankflank/frontal_charge.yaml"), overrides=[("parameters.max_rounds", 1)]
    )
    display = _Recorded()
    with running(progress=display):
        result = odds(frontal, method="exact")
    assert result.exact
    assert display.started == [(8_000_000, "step plays", "rankflank")]
    assert display.done == {"step plays": result.work}
    assert result.work_unit == "step plays"
