"""What would it take: the monotonic search, checked on cases worked by hand."""

from __future__ import annotations

import pytest

from fracas.analysis import parse_goal, solve
from fracas.core.errors import FracasError
from fracas.io.scenario import Scenario, parse_scenario

from .conftest import volley_yaml

pytestmark = pytest.mark.usefixtures("toy")


def volley_with(dice: int) -> Scenario:
    return parse_scenario(volley_yaml(dice=dice, hit_on=4, models=1, save=5))


def test_smallest_number_of_shots_for_eighty_percent_worked_by_hand() -> None:
    # Each shot wounds with 1/2 × 2/3 = 1/3, so P(at least one wound | n) = 1 − (2/3)^n:
    # n = 3: 1 − 8/27 = 0.7037 < 0.8;  n = 4: 1 − 16/81 = 0.8025 ≥ 0.8.
    answer = solve(volley_with, parse_goal("wounds>=1", 0.8), path="attacker.dice")
    assert answer.value == 4
    assert answer.measured == pytest.approx(1 - 16 / 81)
    previous = answer.previous
    assert previous is not None
    assert previous.measured == pytest.approx(1 - 8 / 27)
    # Exponential search 0, 1, 2, 4 then the gap 2..4 is halved at 3.
    assert [probe.value for probe in answer.probes] == [0, 1, 2, 3, 4]


def test_event_goal_on_a_categorical_metric() -> None:
    # "wiped out" is the same event as at least one wound against one model.
    answer = solve(volley_with, parse_goal("outcome=wiped out", 0.8))
    assert answer.value == 4


def test_mean_goal() -> None:
    # E[wounds] = n/3 ≥ 5 first at n = 15.
    answer = solve(volley_with, parse_goal("wounds", 5.0))
    assert answer.value == 15
    assert answer.measured == pytest.approx(5.0)


def test_goal_already_met_at_the_lower_bound() -> None:
    answer = solve(volley_with, parse_goal("wounds>=0", 1.0), low=2)
    assert answer.value == 2


def test_never_reached_within_bounds_is_a_clear_error() -> None:
    with pytest.raises(FracasError, match=r"never reached for attacker\.dice in 0\.\.6"):
        solve(volley_with, parse_goal("wounds>=1", 0.99), path="attacker.dice", high=6)


def test_invalid_values_count_as_not_reached() -> None:
    def models(value: int) -> Scenario:
        return parse_scenario(
            volley_yaml(dice=3, models=value, save=7).replace("dice: 3", "dice: 3")
        )

    # More models make "wiped out" rarer, so "holds" is the goal that grows with models.
    # 3 shots at 1/2 (no save): P(wounds < m) = P(0) + … ; m = 3: 1 − 1/8 = 0.875 ≥ 0.8,
    # m = 2: P(0) + P(1) = 1/8 + 3/8 = 0.5. Models = 0 is rejected by the scenario model.
    answer = solve(models, parse_goal("outcome=holds", 0.8), path="defender.models")
    assert answer.value == 3
    assert answer.probes[0].measured is None
    assert "greater than or equal to 1" in answer.probes[0].problem


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("wounds>=many", "needs a number"),
        ("", "needs a metric name"),
        # Nothing is >= nan and everything is < inf: the whole range was searched for none.
        ("wounds>=nan", ">= needs a finite number"),
        ("wounds<inf", "< needs a finite number"),
    ],
)
def test_bad_goals(spec: str, message: str) -> None:
    with pytest.raises(FracasError, match=message):
        parse_goal(spec, 0.5)


def test_event_target_must_be_a_probability() -> None:
    with pytest.raises(FracasError, match="not a probability"):
        parse_goal("wounds>=1", 2.0)


def test_a_goal_needs_a_metric() -> None:
    with pytest.raises(FracasError, match="--solve needs --metric"):
        parse_goal(None, 0.5, ruleset="volley")
