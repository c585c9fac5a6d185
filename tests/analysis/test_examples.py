"""Every shipped example: odds work, probabilities sum to one, exact agrees with sampling.

Exact odds are compared with one seeded Monte Carlo sample by a bound whose false-alarm
rate over the whole test is at most one in a million (argued in :func:`rejects`), not by
one confidence interval per value: with hundreds of values compared, intervals at any
fixed level leave some value outside for some seeds. Rank-and-flank examples are
compared over one round (the round-and-break question), which keeps the test quick: their
full combats have exact odds too (``fracas odds FILE --method exact``), but keeping every
branch, as here, takes up to 35 s (``challenge_overkill``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from fracas.analysis import OddsResult, odds
from fracas.cli import app
from fracas.core.distribution import EnumerationBudgetError
from fracas.io.scenario import Scenario, load_scenario

EXAMPLES = sorted(Path(__file__).resolve().parents[2].glob("examples/*/*.yaml"))
runner = CliRunner()

#: The chance that exact odds and sampling which agree fail the comparison anyway, over
#: every example and every value together. Shared out equally between the examples.
FALSE_ALARM = 1e-6
ALARM_PER_EXAMPLE = FALSE_ALARM / len(EXAMPLES)
#: Seeded plays per dice example: enough that one value's probability moved by five
#: percentage points fails the bound (test_the_bound_catches_a_shift).
RUNS = 10_000

#: metric → value → probability (exact) or count (sampled).
Laws = Mapping[str, Mapping[Any, float]]
Counts = Mapping[str, Mapping[Any, int]]


def example_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def exact_variant(path: Path) -> Scenario:
    overrides: list[tuple[str, Any]] = []
    if path.parent.name == "rankflank":
        overrides.append(("parameters.max_rounds", 1))
    if path.parent.name == "d100":
        overrides.append(("parameters.round_limit", 1))
    return load_scenario(path, overrides=overrides)


def divergence(observed: float, expected: float) -> float:
    """The relative entropy D(observed ‖ expected) of two Bernoulli laws, in nats."""
    expected = min(max(expected, 0.0), 1.0)  # float sums may stray past 1 by a rounding
    total = 0.0
    for q, p in ((observed, expected), (1 - observed, 1 - expected)):
        if q > 0:
            total += math.inf if p <= 0 else q * math.log(q / p)
    return total


def rejects(count: int, runs: int, probability: float, *, values: int, alarm: float) -> bool:
    """True when ``count`` hits in ``runs`` plays contradict ``probability``.

    The Chernoff bound in its relative-entropy form: for X ~ Binomial(n, p) and k ≥ np,
    P(X ≥ k) ≤ exp(−n·D(k/n ‖ p)), and the same for the lower tail. D(x ‖ p) grows as x
    moves away from p on either side, so rejecting when n·D(X/n ‖ p) exceeds
    c = ln(2·values/alarm) happens, when p is right, with a chance of at most
    2·e^(−c) = alarm/values, whatever n and p. Over ``values`` comparisons the chance
    of any false alarm is at most ``alarm`` (the union bound, which holds although all
    the comparisons of an example share one sample). A value exact odds rule out
    (p = 0) rejects as soon as it is seen and never alarms falsely, so only the values
    exact odds give count toward ``values``. Unlike a Wilson interval, the bound stays
    valid for a rare value seen once.
    """
    threshold = math.log(2 * values / alarm)
    return runs * divergence(count / runs, probability) > threshold


def disagreements(
    expected: Laws, seen: Counts, runs: int, *, values: int
) -> list[tuple[str, Any, float, int]]:
    """``(metric, value, probability, count)`` of every value that fails the bound."""
    found = []
    for name in sorted({*expected, *seen}):
        law, counted = expected.get(name, {}), seen.get(name, {})
        for value in [*law, *(v for v in counted if v not in law)]:
            probability, count = law.get(value, 0.0), counted.get(value, 0)
            if rejects(count, runs, probability, values=values, alarm=ALARM_PER_EXAMPLE):
                found.append((name, value, probability, count))
    return found


def laws(exact: OddsResult) -> dict[str, dict[Any, float]]:
    return {m.name: {e.value: float(e.probability) for e in m.values} for m in exact.metrics}


def counts(sampled: OddsResult) -> dict[str, dict[Any, int]]:
    return {m.name: {e.value: e.count or 0 for e in m.values} for m in sampled.metrics}


def compared(law: Laws) -> int:
    return sum(1 for values in law.values() for probability in values.values() if probability)


def assert_sums_to_one(result: OddsResult) -> None:
    for metric in result.metrics:
        assert sum(float(e.probability) for e in metric.values) == pytest.approx(1.0, abs=1e-9)


@functools.cache
def exact_and_sampled(path: Path) -> tuple[OddsResult, OddsResult] | None:
    """Exact odds keeping every branch and one seeded sample; None beyond exact odds."""
    scenario = exact_variant(path)
    try:
        exact = odds(scenario, method="exact", exact_tolerance=0)
    except EnumerationBudgetError:
        return None
    runs = 100 if scenario.ruleset.deterministic else RUNS
    return exact, odds(scenario, method="mc", runs=runs, seed=2031)


def test_there_are_examples() -> None:
    assert EXAMPLES


@pytest.mark.parametrize("path", EXAMPLES, ids=example_id)
def test_odds_command_runs_on_every_example(path: Path) -> None:
    result = runner.invoke(app, ["odds", str(path), "--runs", "300"])
    assert result.exit_code == 0, result.stderr
    assert "Method: " in result.stdout
    assert "Error bar: " in result.stdout
    if path.parent.name != "d100":
        # Every rank-and-flank example fits the automatic budget (and hex has no dice):
        # odds asked with no method are exact.
        assert "Method: exact" in result.stdout, result.stdout


@pytest.mark.parametrize("path", EXAMPLES, ids=example_id)
def test_exact_agrees_with_monte_carlo(path: Path) -> None:
    pair = exact_and_sampled(path)
    if pair is None:
        assert path.parent.name == "d100", "only d100 battles are beyond exact odds"
        pytest.skip(f"{example_id(path)} is beyond exact odds")
    exact, sampled = pair
    if path.parent.name == "hex":  # no dice: asked to sample, odds play the battle once
        assert sampled.metrics == exact.metrics
        assert (sampled.method, sampled.solver) == ("exact", "single play")
        return
    assert_sums_to_one(exact)
    assert_sums_to_one(sampled)
    expected = laws(exact)
    runs = sampled.runs or 0
    assert disagreements(expected, counts(sampled), runs, values=compared(expected)) == []


def test_the_bound_by_hand() -> None:
    # 155 values (the most of any example) at 1e-6/19 each example:
    # c = ln(2·155·19/1e-6) = ln(5.89e9) = 22.50.
    # 10,000 plays at p = 1/2: 5,400 hits give n·D(0.54 ‖ 0.5)
    # = 10,000·(0.54·ln 1.08 + 0.46·ln 0.92) = 10,000·(0.041559 − 0.038356) = 32.0 > 22.50;
    # 5,200 give 10,000·(0.52·ln 1.04 + 0.48·ln 0.96) = 10,000·(0.020395 − 0.019594)
    # = 8.0 < 22.50.
    assert len(EXAMPLES) == 19
    bound = functools.partial(rejects, values=155, alarm=ALARM_PER_EXAMPLE)
    assert math.log(2 * 155 / ALARM_PER_EXAMPLE) == pytest.approx(22.50, abs=0.01)
    assert 10_000 * divergence(0.54, 0.5) == pytest.approx(32.0, abs=0.05)
    assert 10_000 * divergence(0.52, 0.5) == pytest.approx(8.0, abs=0.05)
    assert bound(5_400, 10_000, 0.5)
    assert bound(4_600, 10_000, 0.5)
    assert not bound(5_200, 10_000, 0.5)
    # A value seen once in 10,000 plays with an exact probability of 1e-7 is no alarm,
    # n·D = 10,000·(1e-4·ln 1,000 − 0.9999·9.99e-5) = 5.9, though 1e-7 lies far below
    # the 99.99 % Wilson interval of 1/10,000; a value exact odds rule out is one.
    assert 10_000 * divergence(1e-4, 1e-7) == pytest.approx(5.9, abs=0.05)
    assert not bound(1, 10_000, 1e-7)
    assert bound(1, 10_000, 0.0)
    assert not bound(0, 10_000, 0.0)
    assert bound(0, 10_000, 0.01)  # never seen, though about 100 times were due


@pytest.mark.parametrize("path", EXAMPLES, ids=example_id)
def test_the_bound_catches_a_shift(path: Path) -> None:
    # The bound must still see a real bias: five percentage points moved from one value
    # to another of the same metric, taking the value nearest 1/2, where samples spread
    # most. At 10,000 plays and p = 1/2 the bound rejects beyond a distance d with
    # 10,000·2d² ≈ 22.3, d ≈ 3.3 points, so the shift is missed only by a sample that
    # strays 1.7 points (3.4 standard deviations of 0.5 points) its way.
    pair = exact_and_sampled(path)
    if pair is None or load_scenario(path).ruleset.deterministic:
        pytest.skip("no sample to bias: beyond exact odds, or no dice")
    exact, sampled = pair
    true = laws(exact)
    values = compared(true)
    name, value = min(
        ((n, v) for n, law in true.items() for v in law if len(law) > 1),
        key=lambda key: abs(true[key[0]][key[1]] - 0.5),
    )
    law = true[name]
    other = next(v for v in law if v != value)
    moved = 0.05 if law[value] >= 0.05 else -0.05
    shifted = {**law, value: law[value] - moved, other: law[other] + moved}

    # The engine's own sample against the shifted law: the shift is seen.
    found = disagreements({name: shifted}, counts(sampled), RUNS, values=values)
    assert (name, value) in [entry[:2] for entry in found]
    # Samples drawn from the shifted law against the true one: seen every time; drawn
    # from the true law: never an alarm.
    order = list(law)
    for seed in range(20):
        rng = np.random.default_rng(seed)
        for drawn_from, alarm in ((shifted, True), (law, False)):
            weights = np.array([drawn_from[v] for v in order])
            drawn = rng.multinomial(RUNS, weights / weights.sum())
            seen = {name: dict(zip(order, map(int, drawn), strict=True))}
            assert bool(disagreements({name: law}, seen, RUNS, values=values)) is alarm, seed


@pytest.mark.parametrize("path", EXAMPLES, ids=example_id)
def test_two_seeds_agree_within_their_intervals(path: Path) -> None:
    # The check that applies where exact odds do not: two independent samples must
    # overlap on every value they both saw.
    scenario = load_scenario(path)
    first = odds(scenario, method="mc", runs=800, seed=1, confidence=0.999)
    second = odds(scenario, method="mc", runs=800, seed=2, confidence=0.999)
    for metric in first.metrics:
        for entry in metric.values:
            low, high = second.interval(metric.name, entry.value)
            assert entry.low <= high, (metric.name, entry.value)
            assert low <= entry.high, (metric.name, entry.value)
