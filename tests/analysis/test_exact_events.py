"""Event metrics (:class:`fracas.core.process.Eventful`): true when something happened at
least once on the way, carried beside the probabilities instead of in the states."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.analysis.exact import exact_states, sharing_work
from fracas.core.dice import D6, Dice

State = tuple[int, int, bool, bool]


class Rolls:
    """Roll a D6 ``rolls`` times, adding the dice; ``six`` and ``one``: ever rolled.

    With ``events`` the state forgets the flags once handed over; without, it keeps them
    (the plain walk that splits its states by them, the reference).
    """

    def __init__(self, rolls: int, *, events: bool) -> None:
        self.rolls = rolls
        self.events: tuple[str, ...] = ("six", "one") if events else ()

    def start(self) -> State:
        return (0, 0, False, False)

    def step(self, state: State, dice: Dice) -> State:
        number, total, six, one = state
        face = dice.roll(D6)
        # The total is capped so that states merge between steps.
        return (number + 1, min(total + face, 8), six or face == 6, one or face == 1)

    def finished(self, state: State) -> bool:
        return state[0] == self.rolls

    def settle(self, state: State) -> tuple[State, dict[str, bool]] | None:
        if not self.events or not (state[2] or state[3]):
            return None
        happened = {name: True for name, flag in zip(self.events, state[2:], strict=True) if flag}
        return (state[0], state[1], False, False), happened


def laws(rolls: int, *, events: bool, fractions: bool = True) -> dict[str, dict[Any, Any]]:
    """Each metric's law: the total from the final states, the events as walked."""
    answer = exact_states(Rolls(rolls, events=events), budget=100_000, fractions=fractions)
    found: dict[str, dict[Any, Any]] = {"total": {}, "six": {}, "one": {}}
    for state, p in answer.states.items():
        found["total"][state[1]] = found["total"].get(state[1], 0) + p
        if not events:
            for name, flag in zip(("six", "one"), state[2:], strict=True):
                found[name][flag] = found[name].get(flag, 0) + p
    for name, law in answer.settled.items():
        found[name] = {value: p for value, p in law.items() if p}
    return found


def test_an_event_by_hand() -> None:
    # Three D6: never a six (5/6)³ = 125/216, so at least one 91/216; never a one the same.
    found = laws(3, events=True)
    assert found["six"] == {False: Fraction(125, 216), True: Fraction(91, 216)}
    assert found["one"] == found["six"]
    # The final states no longer tell the events apart: one state a capped total.
    answer = exact_states(Rolls(3, events=True), budget=100_000)
    assert all(not six and not one for _, _, six, one in answer.states)
    assert sum(answer.states.values()) == 1


@settings(max_examples=10, deadline=None)
@given(st.integers(min_value=1, max_value=5))
def test_events_walk_as_the_states_that_keep_them(rolls: int) -> None:
    assert laws(rolls, events=True) == laws(rolls, events=False)


def test_events_merge_states() -> None:
    # Keeping the flags splits each capped total four ways: the walk with events has fewer
    # live states and needs fewer step plays.
    plain = exact_states(Rolls(4, events=False), budget=100_000)
    merged = exact_states(Rolls(4, events=True), budget=100_000)
    assert merged.peak < plain.peak
    assert merged.work < plain.work


def test_events_in_floats() -> None:
    found = laws(3, events=True, fractions=False)
    assert found["six"][True] == pytest.approx(91 / 216, abs=1e-15)


def test_events_with_a_helper_process_are_the_same_to_the_bit() -> None:
    alone = exact_states(Rolls(5, events=True), budget=100_000, fractions=False)
    with sharing_work(2, from_states=1, even_when_busy=True):
        shared = exact_states(Rolls(5, events=True), budget=100_000, fractions=False)
    assert shared.states == alone.states
    assert shared.settled == alone.settled
