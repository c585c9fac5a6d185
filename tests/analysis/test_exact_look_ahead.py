"""The exact walk's look ahead: a step that would overrun the budget stops the walk before
it starts, by the plays of a few of its states, instead of after the budget is spent."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.analysis.exact import (
    LOOK_AHEAD_FROM,
    LOOK_AHEAD_STATES,
    ProjectedOverBudget,
    exact_states,
)
from fracas.analysis.odds import budget_advice, exact_outcomes
from fracas.core.budgets import AUTO_EXACT_BUDGET, EXACT_TOLERANCE
from fracas.core.dice import D6, Dice, die
from fracas.core.distribution import EnumerationBudgetError
from fracas.io.scenario import load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

State = tuple[int, ...]


class Spread:
    """Step 1 rolls four D6 and keeps them in order: 6 ** 4 = 1,296 plays to as many
    states. Step 2 rolls ``dice`` D6 from each of them, 6 ** ``dice`` plays a state."""

    def __init__(self, dice: int) -> None:
        self.dice = dice

    def start(self) -> State:
        return (0,)

    def step(self, state: State, dice: Dice) -> State:
        if state[0] == 0:
            return (1, *(dice.roll(D6) for _ in range(4)))
        return (2, *state[1:], *(dice.roll(D6) for _ in range(self.dice)))

    def finished(self, state: State) -> bool:
        return state[0] == 2


def test_a_step_that_would_overrun_the_budget_stops_the_walk_before_it() -> None:
    # Step 1: one state, 1,296 plays, 1,296 states (at least LOOK_AHEAD_FROM: step 2 looks).
    # Step 2 would be 1,296 × 36 = 46,656 plays; 1,296 + 46,656 = 47,952 > 10,000.
    # The look plays 32 of the states, 36 each: 1,152; spent 1,296 + 1,152 = 2,448.
    assert LOOK_AHEAD_FROM <= 1_296
    assert LOOK_AHEAD_STATES == 32
    with pytest.raises(ProjectedOverBudget) as stopped:
        exact_states(Spread(2), budget=10_000, fractions=False)
    assert stopped.value.projected == 46_656
    assert stopped.value.spent == 2_448
    assert str(stopped.value) == (
        "more than 10,000 step plays (the next step alone would take about 46,656 of them)"
    )


def test_a_step_that_just_fits_the_budget_is_walked() -> None:
    # 1,296 + 46,656 = 47,952 plays is exactly the budget: the walk ends, the look unpaid.
    answer = exact_states(Spread(2), budget=47_952, fractions=False)
    assert answer.work == 47_952
    assert len(answer.states) == 46_656
    assert sum(answer.states.values()) == pytest.approx(1.0)
    with pytest.raises(ProjectedOverBudget):
        exact_states(Spread(2), budget=47_951, fractions=False)


def test_without_the_look_only_the_budget_stops_a_walk() -> None:
    with pytest.raises(EnumerationBudgetError) as stopped:
        exact_states(Spread(2), budget=10_000, fractions=False, look_ahead=False)
    assert not isinstance(stopped.value, ProjectedOverBudget)
    assert str(stopped.value) == "more than 10,000 step plays"


def test_without_a_large_frontier_the_walk_runs_to_its_budget_as_before() -> None:
    # One state rolls four dice, 1,296 plays: over a budget of 100 inside that step.
    with pytest.raises(EnumerationBudgetError) as stopped:
        exact_states(Spread(1), budget=100, fractions=False)
    assert not isinstance(stopped.value, ProjectedOverBudget)
    assert str(stopped.value) == "more than 100 step plays"


class Even:
    """Step 1 spreads over ``states`` states (one die of that many sides); step 2 rolls
    ``dice`` D6 from each of them, so that every state of step 2 takes 6 ** ``dice``
    plays and the look's projection is the step's exact cost."""

    def __init__(self, states: int, dice: int) -> None:
        self.spread = die(states)
        self.dice = dice

    def start(self) -> tuple[int, int]:
        return (0, 0)

    def step(self, state: tuple[int, int], dice: Dice) -> tuple[int, int]:
        if state[0] == 0:
            return (1, dice.roll(self.spread))
        return (2, state[1] + sum(dice.roll(D6) for _ in range(self.dice)))

    def finished(self, state: tuple[int, int]) -> bool:
        return state[0] == 2


@settings(max_examples=25, deadline=None)
@given(st.integers(LOOK_AHEAD_FROM, LOOK_AHEAD_FROM + 300), st.integers(0, 1), st.data())
def test_where_the_look_is_exact_the_walk_stops_if_and_only_if_it_would_overrun(
    states: int, dice: int, data: st.DataObject
) -> None:
    # Fitting walks give the answer of an ample budget; overrunning ones stop, whether at
    # the look or, when it cannot see it, at the budget.
    ample = exact_states(Even(states, dice), budget=10**7, fractions=False)
    assert ample.work == states + states * 6**dice
    budget = data.draw(st.integers(1, ample.work + 10))
    try:
        answer = exact_states(Even(states, dice), budget=budget, fractions=False)
    except EnumerationBudgetError:
        assert ample.work > budget
    else:
        assert ample.work <= budget
        assert answer.states == ample.states
        assert answer.work == ample.work


def test_auto_odds_of_a_too_large_d100_battle_stop_long_before_the_budget() -> None:
    # bottle_out's seventh step has about 13,000 live states; its look projects it well
    # over what the automatic budget has left (about 7.7 million plays against some
    # 370,000), so the walk stops there, having played about a quarter of the budget
    # instead of all of it.
    scenario = load_scenario(EXAMPLES / "d100" / "bottle_out.yaml")
    with pytest.raises(ProjectedOverBudget) as stopped:
        exact_outcomes(
            scenario.ruleset,
            scenario.model,
            budget=AUTO_EXACT_BUDGET,
            fractions=False,
            tolerance=EXACT_TOLERANCE,
        )
    assert stopped.value.spent < AUTO_EXACT_BUDGET // 3
    assert stopped.value.spent + stopped.value.projected > AUTO_EXACT_BUDGET


def test_budget_advice_times_a_larger_budget_at_the_pace_of_the_plays_made() -> None:
    # 100,000 plays in 0.5 s: 200,000 a second, so 8,000,000 take 40 s (not the 20 s the
    # whole budget of 200,000 spent in 0.5 s would give).
    stopped = ProjectedOverBudget(200_000, spent=100_000, projected=500_000)
    advice = budget_advice(stopped, 200_000, 0.5)
    assert "8,000,000 would take at most about 40 s" in advice
    assert "about 20 s" in budget_advice(EnumerationBudgetError(""), 200_000, 0.5)
