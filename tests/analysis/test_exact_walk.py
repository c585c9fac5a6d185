"""The exact walk: its tolerance and the closed forms of branching steps."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.analysis.exact import exact_states
from fracas.core.dice import Dice, draw

from .conftest import Hits


class Volleys:
    """Volleys of blows, one per step, until the total reaches ``goal`` or ``steps`` pass."""

    def __init__(self, volleys: list[tuple[int, Fraction]], goal: int) -> None:
        self.volleys = volleys
        self.goal = goal

    def start(self) -> tuple[int, int]:
        return (0, 0)

    def step(self, state: tuple[int, int], dice: Dice) -> tuple[int, int]:
        number, total = state
        n, p = self.volleys[number]
        hits, _ = draw(dice, Hits(n, p))
        return (number + 1, min(self.goal, total + hits))

    def finished(self, state: tuple[int, int]) -> bool:
        return state[0] == len(self.volleys) or state[1] >= self.goal


def test_tolerance_by_hand() -> None:
    # Three blows at 1/2: 0, 1, 2, 3 hits with 1/8, 3/8, 3/8, 1/8. A tolerance of 0.2
    # leaves out 0 and 3 (1/8 = 0.125 each): 1/4 dropped, 1 and 2 kept exactly.
    process = Volleys([(3, Fraction(1, 2))], goal=10)
    answer = exact_states(process, budget=100, fractions=False, tolerance=0.2)
    assert answer.states == {(1, 1): 0.375, (1, 2): 0.375}
    assert answer.dropped == 0.25
    # Without a tolerance every branch is kept and nothing is dropped.
    full = exact_states(process, budget=100, fractions=False)
    assert full.dropped == 0.0
    assert len(full.states) == 4


def test_a_tolerance_needs_floats() -> None:
    with pytest.raises(ValueError, match="fractions keep all"):
        exact_states(Volleys([(3, Fraction(1, 2))], 10), budget=100, tolerance=1e-9)
    with pytest.raises(ValueError, match="0 or more"):
        exact_states(Volleys([(3, Fraction(1, 2))], 10), budget=100, fractions=False, tolerance=-1)


volleys = st.lists(
    st.tuples(
        st.integers(1, 12), st.sampled_from([Fraction(1, 6), Fraction(1, 3), Fraction(1, 2)])
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=40, deadline=None)
@given(volleys=volleys, goal=st.integers(1, 30), exponent=st.integers(2, 12))
def test_tolerance_drops_at_most_what_it_reports(
    volleys: list[tuple[int, Fraction]], goal: int, exponent: int
) -> None:
    tolerance = 10.0**-exponent
    process = Volleys(volleys, goal)
    exact = exact_states(process, budget=100_000)
    rough = exact_states(process, budget=100_000, fractions=False, tolerance=tolerance)
    # What is kept plus what is reported dropped is everything.
    assert sum(rough.states.values()) + rough.dropped == pytest.approx(1.0, abs=1e-12)
    # Every probability kept is the exact one, less at most what was dropped.
    for state, p in rough.states.items():
        assert (
            float(exact.states[state]) - rough.dropped - 1e-12 <= p <= exact.states[state] + 1e-12
        )
    # Each branch or state left out was below the tolerance: at most one per branch of
    # every event met (the widest law has 13 keys) and one per live state.
    widest = max(n for n, _ in volleys) + 1
    assert rough.dropped <= tolerance * (rough.work * widest + rough.work)
    # Work never grows with a tolerance.
    assert rough.work <= exact.work


class BranchingVolleys(Volleys):
    """The same volleys, each step named as one group and where each number of hits leads."""

    def branch(self, state: tuple[int, int]) -> tuple[Hits, object]:
        number, total = state
        n, p = self.volleys[number]
        return Hits(n, p), lambda hits: (number + 1, min(self.goal, total + hits))


@settings(max_examples=40, deadline=None)
@given(
    volleys=st.lists(
        st.tuples(st.integers(0, 6), st.fractions(min_value=0, max_value=1, max_denominator=6)),
        min_size=1,
        max_size=4,
    ),
    goal=st.integers(1, 12),
    tolerance=st.sampled_from([0.0, 1e-9, 1e-3]),
)
def test_a_branching_step_gives_what_replaying_it_gives(
    volleys: list[tuple[int, Fraction]], goal: int, tolerance: float
) -> None:
    fractions = not tolerance
    replayed = exact_states(
        Volleys(volleys, goal), budget=10_000, fractions=fractions, tolerance=tolerance
    )
    branched = exact_states(
        BranchingVolleys(volleys, goal), budget=10_000, fractions=fractions, tolerance=tolerance
    )
    assert branched.states == replayed.states
    assert branched.work == replayed.work
    assert branched.dropped == pytest.approx(replayed.dropped, abs=1e-15)


def test_a_branching_step_by_hand() -> None:
    # Two volleys of 2 blows at 1/2, goal 3: the totals 0..4 are a binomial(4, 1/2)
    # capped at 3: P(3) = (4 + 1)/16 = 5/16; P(0) = 1/16, P(1) = 4/16, P(2) = 6/16.
    answer = exact_states(
        BranchingVolleys([(2, Fraction(1, 2)), (2, Fraction(1, 2))], 3), budget=100
    )
    totals: dict[int, Fraction | float] = {}
    for (_, total), p in answer.states.items():
        totals[total] = totals.get(total, Fraction(0)) + p
    assert totals == {
        0: Fraction(1, 16),
        1: Fraction(4, 16),
        2: Fraction(6, 16),
        3: Fraction(5, 16),
    }
