"""Runs split over chunks and processes give the numbers of one process, to the bit."""

from __future__ import annotations

import itertools
import pickle
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fracas.analysis.odds import odds
from fracas.analysis.parallel import (
    Question,
    Tally,
    gather_in_order,
    plan,
    play_chunk,
    running,
    sample,
)
from fracas.core.errors import FracasError
from fracas.core.process import run
from fracas.core.record import SUMMING
from fracas.core.streams import StreamDice, run_key
from fracas.io.scenario import load_scenario

LAIR = Path("examples/d100/lair_raid.yaml")
EXAMPLES = sorted(Path("examples").glob("*/*.yaml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_every_examples_model_travels_to_another_process(path: Path) -> None:
    # Monte Carlo pickles the ruleset and its model for each worker process: a model that
    # cannot travel fails every multi-process run of its ruleset.
    scenario = load_scenario(path)
    again = pickle.loads(pickle.dumps((scenario.ruleset, scenario.model)))
    assert again[1] == scenario.model


def test_hex_odds_in_two_processes_are_those_of_one() -> None:
    river = load_scenario("examples/hex/river_crossing.yaml")
    alone = odds(river, method="mc", runs=600, seed=2)
    with running(workers=2):
        assert odds(river, method="mc", runs=600, seed=2) == alone


values = st.one_of(st.integers(-5, 5), st.sampled_from(["a", "b"]), st.floats(0, 1), st.booleans())
summaries = st.dictionaries(st.sampled_from(["x", "y", "z"]), values, max_size=3)


@given(st.lists(summaries, max_size=30), st.data())
def test_merged_tallies_equal_one_tally(
    outcomes: list[dict[str, Any]], data: st.DataObject
) -> None:
    whole = Tally()
    for outcome in outcomes:
        whole.add(outcome)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(outcomes)), max_size=4)))
    merged = Tally()
    for start, stop in zip([0, *cuts], [*cuts, len(outcomes)], strict=True):
        part = Tally()
        for outcome in outcomes[start:stop]:
            part.add(outcome)
        merged.merge(part)
    assert merged.runs == whole.runs == len(outcomes)
    assert list(merged.counts) == list(whole.counts)  # metrics in the order first seen
    assert merged.counts == whole.counts
    assert all(0 not in counter.values() for counter in merged.counts.values())
    assert merged.sums == whole.sums
    assert merged.squares == whole.squares


def test_sums_come_from_counts_in_value_order() -> None:
    # 0.1 + 0.2 + 0.3 in float depends on the order of the additions; sums taken from the
    # counts do not: every split of the runs adds the same products in the same order.
    tally = Tally()
    for value in (0.3, 0.1, 0.2, 0.1):
        tally.add({"share": value})
    assert tally.counts["share"] == Counter({0.1: 2, 0.3: 1, 0.2: 1})
    assert tally.sums["share"] == pytest.approx(0.7)
    assert tally.squares["share"] == pytest.approx(0.01 * 2 + 0.04 + 0.09)


def test_plan_covers_every_run_once() -> None:
    for runs, workers in [(1, 2), (999, 2), (10_000, 3), (250, 8)]:
        pieces = plan(5, 5 + runs, workers)
        assert pieces[0][0] == 5
        assert pieces[-1][1] == 5 + runs
        assert all(a[1] == b[0] for a, b in itertools.pairwise(pieces))


def question() -> Question:
    lair = load_scenario(LAIR)
    return Question(lair.ruleset, lair.model, 7)


def test_a_dice_limit_stops_at_the_same_run_however_the_runs_are_split() -> None:
    whole = play_chunk(question(), 0, 200, 1000)
    assert whole.over
    assert 0 < whole.stop < 200
    assert whole.rolls <= 1000
    # By hand: the first run whose dice would take the total past 1000, counted by
    # replaying each run's process on its own with its stream (each group one number).
    lair = load_scenario(LAIR)
    spent, first_over = 0, None
    for index in range(200):
        dice = StreamDice(run_key(7, index))
        run(lair.ruleset.process(lair.model, SUMMING), dice)
        if spent + dice.used > 1000:
            first_over = index
            break
        spent += dice.used
    assert (whole.stop, whole.rolls) == (first_over, spent)
    for workers in (1, 2):
        with running(workers=workers):
            split = sample(question(), 0, 200, 1000)
        assert (split.stop, split.rolls, split.over) == (whole.stop, whole.rolls, True)
        assert split.tally == whole.tally


@pytest.mark.parametrize(("limit", "workers"), [(10**9, 1), (10**9, 2), (20_000, 1), (20_000, 2)])
def test_a_chunks_parts_are_the_chunks_of_each_stretch(limit: int, workers: int) -> None:
    # Runs 130 … 2,469 cut every 500: parts stop before 500, 1,000, 1,500, 2,000 and
    # 2,470, each the tally of its own stretch played alone. lair_raid rolls about 11
    # numbers a run, so a limit of 20,000 stops the runs inside the fourth stretch.
    with running(workers=workers):
        whole = sample(question(), 130, 2470, limit, every=500)
    assert whole.over == (limit == 20_000)
    ends = [end for end in (500, 1000, 1500, 2000) if end < whole.stop] + [whole.stop]
    assert [stop for stop, _, _ in whole.parts] == ends
    start, rolls = 130, 0
    for stop, tally, part_rolls in whole.parts:
        alone = play_chunk(question(), start, stop, limit - rolls)
        assert (tally, part_rolls) == (alone.tally, alone.rolls)
        start, rolls = stop, rolls + part_rolls
    assert rolls == whole.rolls
    merged = Tally()
    for _, tally, _ in whole.parts:
        merged.merge(tally)
    assert merged == whole.tally


@pytest.mark.parametrize(
    "options",
    [
        {"runs": 1200},
        {"precision": 0.03, "max_runs": 6000},
        {"runs": 5000, "sample_budget": 40_000},
    ],
)
def test_odds_with_two_workers_are_those_of_one(options: dict[str, Any]) -> None:
    scenario = load_scenario(LAIR)
    alone = odds(scenario, method="mc", seed=11, **options)
    with running(workers=2):
        shared = odds(scenario, method="mc", seed=11, **options)
    assert shared == alone


def test_repetition_results_do_not_depend_on_what_ran_before() -> None:
    # Run i is a pure function of (scenario, seed, i): played alone, it counts the same.
    q = question()
    order = list(range(30))
    random.Random(3).shuffle(order)
    together = play_chunk(q, 0, 30, 10**9).tally
    alone = Tally()
    pieces = {i: play_chunk(q, i, i + 1, 10**9).tally for i in order}
    for i in range(30):
        alone.merge(pieces[i])
    assert alone == together


def test_workers_must_be_at_least_one() -> None:
    with pytest.raises(FracasError, match="at least 1"), running(workers=0):
        pass


def nap(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def test_work_no_longer_wanted_is_stopped_and_the_pool_still_works() -> None:
    # The first result is enough; the long naps behind it must not hold the pool (or its
    # closing) until they end, and a result arriving after its future was given up must
    # not break the pool's result thread.
    calls: list[tuple[Callable[..., float], tuple[Any, ...]]] = [
        (nap, (0.0,)),
        (nap, (0.3,)),
        (nap, (60.0,)),
        (nap, (60.0,)),
    ]
    started = time.monotonic()
    with running(workers=2) as runner:
        pool = runner.pool
        assert pool is not None
        first = gather_in_order(pool, calls, done=lambda index, _value: index == 0)
        assert first == [0.0]
        assert gather_in_order(pool, [(nap, (0.0,)), (nap, (0.1,))]) == [0.0, 0.1]
    assert time.monotonic() - started < 30


def test_a_stop_from_a_later_call_still_waits_for_the_earlier_ones() -> None:
    # Call 1 finishes first and says "enough" while call 0 is still running: the results
    # are still those of one process, call 0 and then call 1 (the lost call 0 once made a
    # Monte Carlo run that hit its dice budget report no runs at all).
    calls: list[tuple[Callable[..., float], tuple[Any, ...]]] = [
        (nap, (1.0,)),
        (nap, (0.0,)),
        (nap, (60.0,)),
    ]
    seen: list[int] = []

    def enough(index: int, _value: float) -> bool:
        seen.append(index)
        return index == 1

    with running(workers=2) as runner:
        pool = runner.pool
        assert pool is not None
        assert gather_in_order(pool, calls, done=enough) == [1.0, 0.0]
    assert seen == [1, 0]
