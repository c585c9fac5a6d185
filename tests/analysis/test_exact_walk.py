"""The core evaluator's tolerance, closed-form sampling (LawDice) and the step cache."""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from fractions import Fraction
from itertools import accumulate

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.analysis.exact import exact_states
from fracas.analysis.sample import StepCache
from fracas.analysis.stats import wilson_interval
from fracas.core.dice import (
    D6,
    OPEN,
    Dice,
    DiceGroup,
    LawDice,
    LawTable,
    ScriptedDice,
    SeededDice,
    draw,
)
from fracas.core.distribution import Distribution
from fracas.core.process import run


class Hits(DiceGroup[int, None]):
    """``n`` blows, each landing with chance ``p``: a binomial, drawn at once."""

    def __init__(self, n: int, p: Fraction) -> None:
        self.n, self.p = n, p

    def __hash__(self) -> int:
        return hash((self.n, self.p))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hits) and (self.n, self.p) == (other.n, other.p)

    def roll(self, dice: Dice) -> tuple[int, None]:
        raise NotImplementedError  # only drawn at once in these tests

    def law(self) -> tuple[tuple[int, Fraction], ...]:
        return tuple(Distribution.binomial(self.n, self.p).items())


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


def test_law_dice_draw_each_key_as_often_as_its_law_says() -> None:
    # 4 blows at 1/3: 16/81, 32/81, 24/81, 8/81, 1/81. 20,000 draws from seeded dice
    # must fall within 99.99 % intervals of those.
    group = Hits(4, Fraction(1, 3))
    tables: dict[object, object] = {}
    counts: Counter[int] = Counter()
    runs = 20_000
    for seed in range(runs // 100):
        dice = LawDice(SeededDice(seed), tables)  # type: ignore[arg-type]
        for _ in range(100):
            counts[draw(dice, group)[0]] += 1
    for key, p in group.law():
        low, high = wilson_interval(counts[key], runs, 0.9999)
        assert low <= p <= high, (key, p, counts[key])
    # A node is rolled by the inner dice as is.
    assert LawDice(SeededDice(3)).roll(D6) == SeededDice(3).roll(D6)


class Race:
    """Roll a D6 each step and add it; stop at 10 or more (settling nothing)."""

    def start(self) -> int:
        return 0

    def step(self, state: int, dice: Dice) -> int:
        return state + dice.roll(D6)

    def finished(self, state: int) -> bool:
        return state >= 10


@pytest.mark.parametrize("limit", [200_000, 3])
def test_step_cache_plays_what_an_uncached_play_plays(limit: int) -> None:
    # Same dice, same play, whatever the cache holds (a limit of 3 states keeps
    # clearing it).
    def summarize(total: int, settled: object) -> int:
        return total

    cache = StepCache(Race(), summarize, limit=limit)
    cached = [cache.play(SeededDice(seed)) for seed in range(300)]
    plain = [run(Race(), LawDice(SeededDice(seed))) for seed in range(300)]
    assert cached == plain


def test_step_cache_draws_groups_and_matches_the_exact_law() -> None:
    process = Volleys([(6, Fraction(1, 2)), (6, Fraction(1, 2))], goal=9)
    exact = exact_states(process, budget=10_000)
    cache = StepCache(process, lambda state, settled: state)
    runs = 20_000
    seen = Counter(cache.play(SeededDice(seed)) for seed in range(runs))
    for state, p in exact.states.items():
        low, high = wilson_interval(seen[state], runs, 0.9999)
        assert low <= p <= high, state
    assert set(seen) <= set(exact.states)


def digit_by_digit(keys: tuple[int, ...], cumulative: tuple[float, ...], digits: list[int]) -> int:
    """The key a uniform number falls on, read one base-4,096 digit at a time (the plain
    loop that :class:`LawTable` shortens: it must give the same key for the same digits)."""
    last = len(keys) - 1
    if not last:
        return keys[0]
    low, width = 0.0, 1.0
    for digit in digits:
        width /= 4096
        low += (digit - 1) * width
        index = bisect_right(cumulative, low)
        if index >= last or cumulative[index] >= low + width or width < 1e-15:
            return keys[min(index, last)]
    raise AssertionError("more digits needed")


laws = st.lists(
    st.one_of(st.floats(1e-300, 1.0), st.sampled_from([1e-18, 1 / 3, 1 / 4096, 0.5])),
    min_size=1,
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(weights=laws, tails=st.lists(st.integers(1, 4096), min_size=5, max_size=5))
def test_law_table_settles_a_draw_as_the_digit_by_digit_loop(
    weights: list[float], tails: list[int]
) -> None:
    # Every first digit, followed by the same later digits, must land on the same key as
    # the plain loop; the cumulative sums may round a hair below or above 1.
    total = sum(weights)
    cumulative = tuple(accumulate(w / total for w in weights))
    keys = tuple(range(len(weights)))
    table = LawTable(keys, cumulative)
    for first in range(1, 4097):
        dice = LawDice(SeededDice(0), digit=iter([first, *tails]).__next__)
        assert dice.pick(table) == digit_by_digit(keys, cumulative, [first, *tails]), first


def test_law_table_by_hand() -> None:
    # Keys 0, 1, 2 with 1/4, 1/2, 1/4: digit d covers [(d - 1)/4096, d/4096). Digits 1
    # to 1024 lie within key 0's quarter, 1025 to 3072 within key 1's half, the rest in
    # key 2's; no digit straddles a boundary (1/4 and 3/4 are multiples of 1/4096).
    table = LawTable((0, 1, 2), (0.25, 0.75, 1.0))
    assert table.first is not None
    settled = [table.keys[table.first[d]] for d in range(1, 4097)]
    assert settled == [0] * 1024 + [1] * 2048 + [2] * 1024
    # 1/3 is no multiple of 1/4096: 4096/3 = 1365.33, so digit 1366 covers both keys
    # and a second digit decides; digits 1 to 1365 settle key 0 at once.
    third = LawTable((0, 1), (1 / 3, 1.0))
    assert third.first is not None
    assert third.keys[third.first[1365]] == 0
    assert third.keys[third.first[1366]] is OPEN
    assert third.keys[third.first[1367]] == 1
    # In base 4,096, 1/3 is 0.(1365)(1365)(1365)…, and digit d stands for d - 1. After a
    # first digit 1366: a second digit 1365 ends below 1/3, 1367 starts above it, 1366
    # straddles it again and a third digit 1 then ends below it.
    assert third.after(1366, iter([1365]).__next__) == 0
    assert third.after(1366, iter([1367]).__next__) == 1
    assert third.after(1366, iter([1366, 1]).__next__) == 0
    # A group of one key rolls no digit.
    assert LawTable((7,), (1.0,)).first is None
    assert LawDice(ScriptedDice([])).pick(LawTable((7,), (1.0,))) == 7


class Skirmish:
    """Steps of several events whose order and number depend on the values drawn: a D6,
    then on a 4+ a volley whose size is that face, then on any hit a second D6."""

    def start(self) -> tuple[int, int]:
        return (0, 0)

    def step(self, state: tuple[int, int], dice: Dice) -> tuple[int, int]:
        number, total = state
        face = dice.roll(D6)
        if face >= 4:
            hits, _ = draw(dice, Hits(face, Fraction(1, 3)))
            if hits:
                total += hits * dice.roll(D6)
        return (number + 1, min(total + face, 40))

    def finished(self, state: tuple[int, int]) -> bool:
        return state[0] == 4 or state[1] >= 30


@pytest.mark.parametrize("limit", [200_000, 5])
def test_step_cache_follows_steps_of_several_events(limit: int) -> None:
    # The cached walk asks the dice for what an uncached play asks, in the same order,
    # also where a step's second or third event is met for the first time.
    cache = StepCache(Skirmish(), lambda state, settled: state, limit=limit)
    cached = [cache.play(SeededDice(seed)) for seed in range(600)]
    plain = [run(Skirmish(), LawDice(SeededDice(seed))) for seed in range(600)]
    assert cached == plain
    # And the same play again from a warm cache.
    assert [cache.play(SeededDice(seed)) for seed in range(600)] == plain


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


class CountedVolleys(BranchingVolleys):
    """Branching volleys that count the steps they play and the groups they name."""

    def __init__(self, volleys: list[tuple[int, Fraction]], goal: int) -> None:
        super().__init__(volleys, goal)
        self.steps = 0
        self.branches = 0

    def step(self, state: tuple[int, int], dice: Dice) -> tuple[int, int]:
        self.steps += 1
        return super().step(state, dice)

    def branch(self, state: tuple[int, int]) -> tuple[Hits, object]:
        self.branches += 1
        return super().branch(state)


def test_step_cache_goes_on_from_the_key_of_a_branching_step() -> None:
    # A volley of no blows is a group of one key (no digit is rolled for it).
    volleys = [(6, Fraction(1, 2)), (0, Fraction(1, 2)), (6, Fraction(1, 3)), (3, Fraction(1, 2))]
    process = CountedVolleys(volleys, goal=9)
    cache = StepCache(process, lambda state, settled: state)
    cached = [cache.play(SeededDice(seed)) for seed in range(500)]
    plain = [run(Volleys(volleys, 9), LawDice(SeededDice(seed))) for seed in range(500)]
    assert cached == plain
    # No step is played: each state met names its group once, and every key drawn there
    # later goes on through the step's own continuation.
    assert process.steps == 0
    met = [state for state in cache._states if not process.finished(state)]
    assert process.branches == len(met)
