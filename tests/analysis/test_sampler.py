"""Sampling: each run's random stream, and many runs at once against one at a time."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.analysis.exact import exact_states
from fracas.analysis.sample import Sampler, play_run
from fracas.analysis.stats import wilson_interval
from fracas.core.dice import D6, ChanceNode, Dice, DiceGroup, draw
from fracas.core.distribution import EnumerationBudgetError
from fracas.core.streams import (
    LawTable,
    StreamDice,
    face_index,
    law_table,
    run_key,
    run_keys,
    uniform,
    uniform_bits,
    uniforms,
)

from .conftest import Hits


class Volleys:
    """Volleys of blows, one per step, until the total reaches ``goal``; each step is one
    group (a branching process)."""

    def __init__(self, volleys: list[tuple[int, Fraction]], goal: int) -> None:
        self.volleys = volleys
        self.goal = goal
        self.steps = 0
        self.branches = 0

    def start(self) -> tuple[int, int]:
        return (0, 0)

    def step(self, state: tuple[int, int], dice: Dice) -> tuple[int, int]:
        self.steps += 1
        number, total = state
        n, p = self.volleys[number]
        hits, _ = draw(dice, Hits(n, p))
        return (number + 1, min(self.goal, total + hits))

    def branch(self, state: tuple[int, int]) -> tuple[Hits, object]:
        self.branches += 1
        number, total = state
        n, p = self.volleys[number]
        return Hits(n, p), lambda hits: (number + 1, min(self.goal, total + hits))

    def finished(self, state: tuple[int, int]) -> bool:
        return state[0] == len(self.volleys) or state[1] >= self.goal


class Skirmish:
    """Steps of several events whose order and number depend on the values drawn: a D6,
    then on a 4+ a volley whose size is that face, then on any hit a second D6; every
    third step rolls nothing (a march)."""

    def __init__(self) -> None:
        self.marches = 0

    def start(self) -> tuple[int, int]:
        return (0, 0)

    def step(self, state: tuple[int, int], dice: Dice) -> tuple[int, int]:
        number, total = state
        if number % 3 == 2:
            self.marches += 1
            return (number + 1, total)
        face = dice.roll(D6)
        if face >= 4:
            hits, _ = draw(dice, Hits(face, Fraction(1, 3)))
            if hits:
                total += hits * dice.roll(D6)
        return (number + 1, min(total + face, 40))

    def finished(self, state: tuple[int, int]) -> bool:
        return state[0] == 6 or state[1] >= 30


class Settled(Volleys):
    """Volleys that hand over the first volley's hits as a metric and forget them."""

    def start(self) -> tuple[int, int, int]:  # type: ignore[override]
        return (0, 0, -1)

    def step(self, state: Any, dice: Dice) -> Any:
        number, total, first = state
        after = super().step((number, total), dice)
        return (*after, after[1] if number == 0 else first)

    def branch(self, state: Any) -> Any:
        number, total, first = state
        group, then = super().branch((number, total))
        return group, lambda hits: (*then(hits), then(hits)[1] if number == 0 else first)  # type: ignore[operator]

    def settle(self, state: Any) -> tuple[Any, Mapping[str, Hashable]] | None:
        number, total, first = state
        if first < 0:
            return None
        return (number, total, -2), {"first": first}

    def finished(self, state: Any) -> bool:
        return super().finished(state[:2])


@dataclass(frozen=True)
class Weighted(DiceGroup[int, None]):
    """A group whose keys 0, 1, … have the given float chances (for the law tables)."""

    chances: tuple[float, ...]

    def roll(self, dice: Dice) -> tuple[int, None]:
        raise NotImplementedError  # only its law is asked for

    def law(self) -> tuple[tuple[int, Fraction], ...]:
        return tuple((key, Fraction(p)) for key, p in enumerate(self.chances))

    def float_law(self) -> tuple[tuple[int, float], ...]:
        return tuple(enumerate(self.chances))


def whole(state: Any, settled: Mapping[str, Hashable]) -> Any:
    return (state, tuple(sorted(settled.items())))


def one_by_one(process: Any, keys: Any, limit: float = float("inf")) -> list[tuple[Any, int]]:
    return [play_run(process, whole, int(key), limit) for key in keys]


def counted(found: list[tuple[Any, int]]) -> Counter[Any]:
    tally: Counter[Any] = Counter()
    for summary, times in found:
        tally[summary] += times
    return tally


# ── the streams ──────────────────────────────────────────────────────────────────────


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(-(2**70), 2**70),
    counters=st.lists(st.integers(0, 2**40), min_size=1, max_size=20),
)
def test_many_runs_at_once_draw_the_numbers_of_each_run(seed: int, counters: list[int]) -> None:
    keys = run_keys(seed, 3, 3 + len(counters))
    assert [int(k) for k in keys] == [run_key(seed, run) for run in range(3, 3 + len(counters))]
    at_once = uniforms(keys, np.array(counters, dtype=np.uint64))
    assert [float(u) for u in at_once] == [
        uniform(int(k), c) for k, c in zip(keys, counters, strict=True)
    ]
    assert all(0.0 <= u < 1.0 for u in at_once)


def test_a_die_shows_each_face_as_often_as_its_weight() -> None:
    # 60,000 rolls of a D6 and of a die weighting 1 : 2 : 3, all in 99.99 % intervals.
    lopsided = ChanceNode("1:2:3", ((1, 1), (2, 2), (3, 3)))
    rolls = 60_000
    for node, chances in (
        (D6, {f: Fraction(1, 6) for f in range(1, 7)}),
        (lopsided, {1: Fraction(1, 6), 2: Fraction(2, 6), 3: Fraction(3, 6)}),
    ):
        dice = StreamDice(run_key(11, 0))
        seen = Counter(dice.roll(node) for _ in range(rolls))
        for face, p in chances.items():
            low, high = wilson_interval(seen[face], rolls, 0.9999)
            assert low <= p <= high, (node.label, face, seen[face])
        assert dice.used == rolls


def test_a_uniform_lands_on_faces_by_hand() -> None:
    # A D6 splits [0, 1) in sixths: 0.5 is pick int(0.5 × 6) = 3, the fourth face; the
    # largest float below 1 is still the sixth face (the pick is never 6).
    assert D6.outcomes[face_index(D6, 0.5)][0] == 4
    assert D6.outcomes[face_index(D6, 0.0)][0] == 1
    assert D6.outcomes[face_index(D6, 1 - 2**-53)][0] == 6


def test_a_group_is_drawn_by_its_law() -> None:
    # 4 blows at 1/3: 16/81, 32/81, 24/81, 8/81, 1/81; 20,000 draws in 99.99 % intervals.
    group = Hits(4, Fraction(1, 3))
    runs = 20_000
    dice = StreamDice(run_key(2, 5))
    seen = Counter(draw(dice, group)[0] for _ in range(runs))
    for key, p in group.law():
        low, high = wilson_interval(seen[key], runs, 0.9999)
        assert low <= p <= high, (key, p, seen[key])
    assert dice.used == runs  # one number per group, whatever its size


def test_a_law_table_by_hand() -> None:
    # Keys 0, 1, 2 with 1/4, 1/2, 1/4: [0, 1/4) is key 0, [1/4, 3/4) key 1, the rest key 2;
    # a sum rounded a hair below 1 leaves the top to the last key.
    table = LawTable((0, 1, 2), (0.25, 0.75, 0.9999999999999999), None)
    assert [table.key_at(u) for u in (0.0, 0.2499, 0.25, 0.7499, 0.75, 1 - 2**-53)] == [
        0,
        0,
        1,
        1,
        2,
        2,
    ]
    built = law_table(Hits(2, Fraction(1, 2)))
    assert built is not None
    assert built.keys == (0, 1, 2)
    assert built.cumulative == (0.25, 0.75, 1.0)
    # Each bound is the cumulative chance in 53-bit steps: 1/4 · 2^53 = 2^51, 3/4 · 2^53 =
    # 3 · 2^51, and 1 · 2^53: a run's number below 2^51 is key 0, and so on.
    assert built.bounds.tolist() == [2**51, 3 * 2**51, 2**53]
    # Keys of no chance are left out: no number can land on them.
    nothing = law_table(Hits(2, Fraction(0)))
    assert nothing is not None
    assert nothing.keys == (0,)


@settings(max_examples=200, deadline=None)
@given(
    chances=st.lists(st.floats(1e-12, 1.0), min_size=1, max_size=12),
    bits=st.lists(st.integers(0, 2**53 - 1), min_size=1, max_size=30),
)
def test_integer_bounds_decide_as_the_floats_do(chances: list[float], bits: list[int]) -> None:
    # The sampler compares a run's 53-bit number with each key's integer bound; the plain
    # reference compares the float it makes (bits × 2^-53) with the cumulative law. Numbers
    # on either side of each bound are tried too, where a rounding slip would show.
    total = sum(chances)
    table = law_table(Weighted(tuple(p / total for p in chances)))
    assert table is not None
    near = [int(b) + d for b in table.bounds.tolist() for d in (-1, 0, 1) if 0 <= b + d < 2**53]
    for number in [*bits, *near]:
        u = number * 2**-53
        by_bounds = min(int(np.sum(table.bounds <= np.uint64(number))), len(table.keys) - 1)
        assert table.keys[by_bounds] == table.key_at(u)
    keys = run_keys(3, 0, len(bits))
    counters = np.arange(len(bits), dtype=np.uint64)
    assert (uniform_bits(keys, counters).astype(float) * 2**-53 == uniforms(keys, counters)).all()


def test_a_law_table_s_bounds_by_hand() -> None:
    # 1/4 is 2^51 / 2^53 exactly: its bound is 2^51, so 2^51 − 1 lands on the first key
    # and 2^51 on the second; 3/4 is 3 × 2^51.
    built = law_table(Hits(2, Fraction(1, 2)))
    assert built is not None
    assert built.bounds.tolist() == [2**51, 3 * 2**51, 2**53]


def test_stream_dice_stop_past_their_limit() -> None:
    dice = StreamDice(run_key(0, 0), limit=2)
    dice.roll(D6)
    dice.roll(D6)
    with pytest.raises(EnumerationBudgetError, match="more than 2 dice rolls"):
        dice.roll(D6)


# ── many runs at once against one at a time ──────────────────────────────────────────


@pytest.mark.parametrize("memory", [200_000, 3])
def test_runs_at_once_are_the_runs_one_by_one(memory: int) -> None:
    # Steps of several events, steps of no dice, and groups; a memory of 3 states keeps
    # starting afresh. The same summaries, the same numbers used, warm or cold.
    keys = run_keys(5, 0, 436)
    for process in (
        Skirmish(),
        Volleys([(6, Fraction(1, 2)), (0, Fraction(1)), (4, Fraction(1, 3))], 7),
    ):
        sampler = Sampler(process, whole, limit=memory)
        plain = one_by_one(process, keys)
        for _ in range(2):
            found, used = sampler.play(keys)
            assert counted(found) == Counter(summary for summary, _ in plain)
            assert used == [numbers for _, numbers in plain]


def test_summaries_come_in_the_order_of_their_first_run() -> None:
    keys = run_keys(8, 0, 500)
    process = Skirmish()
    found, _ = Sampler(process, whole).play(keys)
    firsts = []
    for summary, _ in one_by_one(process, keys):
        if summary not in firsts:
            firsts.append(summary)
    assert [summary for summary, _ in found] == firsts


def test_handed_over_metrics_reach_the_summaries() -> None:
    process = Settled([(3, Fraction(1, 2)), (3, Fraction(1, 2))], goal=10)
    keys = run_keys(1, 0, 300)
    found, _ = Sampler(process, whole).play(keys)
    plain = one_by_one(process, keys)
    assert counted(found) == Counter(summary for summary, _ in plain)
    # Every run handed over its first volley's hits, 0 to 3.
    assert {dict(s[1])["first"] for s, _ in found} <= {0, 1, 2, 3}


def test_a_branching_step_is_never_played_and_named_once_per_state() -> None:
    volleys = [(6, Fraction(1, 2)), (0, Fraction(1, 2)), (6, Fraction(1, 3)), (3, Fraction(1, 2))]
    process = Volleys(volleys, goal=9)
    sampler = Sampler(process, whole)
    sampler.play(run_keys(0, 0, 2_000))
    assert process.steps == 0
    met = [state for state in sampler._nodes if not process.finished(state)]
    assert process.branches == len(met)


def test_a_step_of_no_dice_is_played_once_per_state() -> None:
    # Skirmish marches at steps 2 and 5 (numbers 2 and 5), rolling nothing: each state
    # met there is played once, however many runs reach it.
    process = Skirmish()
    sampler = Sampler(process, whole)
    sampler.play(run_keys(3, 0, 3_000))
    marching = [s for s in sampler._nodes if s[0] % 3 == 2 and not process.finished(s)]
    assert process.marches == len(marching)


def test_sampled_groups_follow_the_exact_law() -> None:
    process = Volleys([(6, Fraction(1, 2)), (6, Fraction(1, 2))], goal=9)
    exact = exact_states(process, budget=10_000)
    runs = 20_000
    found, _ = Sampler(process, lambda state, settled: state).play(run_keys(4, 0, runs))
    seen = counted(found)
    for state, p in exact.states.items():
        low, high = wilson_interval(seen[state], runs, 0.9999)
        assert low <= p <= high, state
    assert set(seen) <= set(exact.states)


@settings(max_examples=30, deadline=None)
@given(limit=st.integers(0, 3_000))
def test_a_limit_stops_at_the_run_one_by_one_play_stops_at(limit: int) -> None:
    # Run after run, the numbers used add up; the first run that passes the limit and
    # every run after it are left out.
    process = Skirmish()
    keys = run_keys(6, 0, 400)
    plain = one_by_one(process, keys)
    total, stop = 0, len(plain)
    for index, (_, numbers) in enumerate(plain):
        total += numbers
        if total > limit:
            stop = index
            break
    found, used = Sampler(process, whole).play(keys, limit)
    assert used == [numbers for _, numbers in plain[:stop]]
    assert counted(found) == Counter(summary for summary, _ in plain[:stop])


class LongVolley:
    """One step of ``dice`` D6 rolled one by one, counting every roll it makes."""

    def __init__(self, dice: int) -> None:
        self.dice = dice
        self.rolled = 0

    def start(self) -> int:
        return -1

    def step(self, state: int, dice: Dice) -> int:
        sixes = 0
        for _ in range(self.dice):
            self.rolled += 1
            sixes += dice.roll(D6) == 6
        return sixes

    def finished(self, state: int) -> bool:
        return state >= 0


def test_a_limit_binds_inside_one_long_step() -> None:
    # 1,000 runs of one 1,000-die step each, with 2,500 numbers: the first two runs fit
    # (2,000), the third would pass the limit. Played all at once without the limit inside
    # the step, the 1,000 runs would roll 1,000,000 dice; here the runs share the 2,500
    # numbers, then the first three are replayed alone (at most 2,500 more rolls). Each
    # phase counts one more attempt: the roll that finds the numbers spent.
    process = LongVolley(1_000)
    found, used = Sampler(process, whole).play(run_keys(8, 0, 1_000), 2_500)
    assert used == [1_000, 1_000]
    assert sum(counted(found).values()) == 2
    assert process.rolled == 2 * (2_500 + 1)


class Mixed:
    """A process of every step shape the sampler knows, chosen per state by a table drawn
    for each test: a group (branching), a step of no dice, a step of a die then maybe a
    group (played run by run), and settling states that hand a metric over."""

    def __init__(self, shapes: list[int], goal: int, settle_every: int) -> None:
        self.shapes = shapes
        self.goal = goal
        self.settle_every = settle_every

    def start(self) -> tuple[int, int, bool]:
        return (0, 0, False)

    def _shape(self, state: tuple[int, int, bool]) -> int:
        number, total, _ = state
        return self.shapes[(number * 7 + total) % len(self.shapes)]

    def step(self, state: tuple[int, int, bool], dice: Dice) -> tuple[int, int, bool]:
        number, total, _ = state
        shape = self._shape(state)
        if shape == 0:
            hits, _ = draw(dice, Hits(3, Fraction(1, 3)))
            total += hits
        elif shape == 2:
            face = dice.roll(D6)
            if face >= 5:
                hits, _ = draw(dice, Hits(2, Fraction(1, 2)))
                total += hits + 1
        return self._after(number, total)

    def branch(self, state: tuple[int, int, bool]) -> Any:
        number, total, _ = state
        if self._shape(state) != 0:
            return None
        return Hits(3, Fraction(1, 3)), lambda hits: self._after(number, total + hits)

    def _after(self, number: int, total: int) -> tuple[int, int, bool]:
        # A state to settle now and then: it hands over the total so far.
        return (number + 1, min(total, self.goal), (number + 1) % self.settle_every == 0)

    def settle(self, state: tuple[int, int, bool]) -> Any:
        number, total, handing = state
        if not handing:
            return None
        return (number, total, False), {f"at{number}": total}

    def finished(self, state: tuple[int, int, bool]) -> bool:
        return state[0] >= 8 or state[1] >= self.goal


@settings(max_examples=40, deadline=None)
@given(
    shapes=st.lists(st.integers(0, 2), min_size=1, max_size=6),
    goal=st.integers(1, 12),
    settle_every=st.integers(2, 9),
    runs=st.integers(1, 300),
    memory=st.sampled_from([2, 5, 40, 200_000]),
    seed=st.integers(0, 2**32),
)
def test_any_mix_of_steps_at_once_is_the_runs_one_by_one(
    shapes: list[int], goal: int, settle_every: int, runs: int, memory: int, seed: int
) -> None:
    # Groups, dice-free steps, steps played die by die and hand-overs in any mix, warm and
    # cold, with a memory small enough to start afresh in the middle of a walk: each run
    # sums up as it does alone, with the same numbers used, in the order of first runs.
    process = Mixed(shapes, goal, settle_every)
    keys = run_keys(seed, 0, runs)
    plain = one_by_one(process, keys)
    sampler = Sampler(process, whole, limit=memory)
    firsts: list[Any] = []
    for summary, _ in plain:
        if summary not in firsts:
            firsts.append(summary)
    for _ in range(2):
        found, used = sampler.play(keys)
        assert counted(found) == Counter(summary for summary, _ in plain)
        assert used == [numbers for _, numbers in plain]
        assert [summary for summary, _ in found] == firsts


class OnTheEdge:
    """One step of one group whose first key's chance is exactly the first number of the
    stream of ``key``: that number sits on the boundary between the two keys."""

    def __init__(self, key: int) -> None:
        edge = uniform(key, 0)
        self.group = Weighted((edge, 1 - edge))

    def start(self) -> int:
        return -1

    def step(self, state: int, dice: Dice) -> int:
        return int(draw(dice, self.group)[0])

    def branch(self, state: int) -> Any:
        return self.group, lambda key: key

    def finished(self, state: int) -> bool:
        return state >= 0


def test_a_number_on_a_bound_takes_the_next_key_as_one_by_one() -> None:
    # u < c decides the first key; u equal to c goes on to the next, run by run and at
    # once alike (the bound is the number itself: a search that let it pass would differ).
    keys = run_keys(12, 0, 40)
    edge = int(keys[0])
    process = OnTheEdge(edge)
    table = law_table(process.group)
    assert table is not None
    assert int(table.bounds[0]) == int(uniform_bits(keys[:1], np.zeros(1, np.uint64))[0])
    assert play_run(process, whole, edge)[0][0] == 1
    found, _ = Sampler(process, whole).play(keys)
    assert counted(found) == Counter(summary for summary, _ in one_by_one(process, keys))
