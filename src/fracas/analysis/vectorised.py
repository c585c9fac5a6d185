"""Monte Carlo of the rank-and-flank round-and-break question, vectorised across repetitions.

The ordinary sampler plays the whole ruleset once per repetition, so that every repetition
replays with ``fracas resolve --seed``. When the question is only "one round between two
lines, who wins and who breaks" (a :class:`~fracas.analysis.exact_rankflank.RoundQuestion`),
every repetition is the same few array operations: the unsaved wounds of each side are
binomial draws, the 2D6 of the break test two integer draws, and a whole batch of
repetitions is sampled at once with numpy. It answers the same question as the exact
:func:`~fracas.analysis.exact_rankflank.round_and_break`, with Wilson intervals, and is
checked against it and against the ordinary sampler playing the ruleset.

>>> from fractions import Fraction
>>> from fracas.analysis.exact_rankflank import RoundQuestion
>>> question = RoundQuestion((3, 5), (Fraction(1), Fraction(0)), (0, 0), (7, 7))
>>> sample = sample_round_and_break(question, runs=2000, seed=1)
>>> sample.probability("first wins")      # three sure wounds against none
1.0
>>> low, high = sample.interval("second breaks")   # 2D6 > 7 − 3 fails: 30/36
>>> low < 30 / 36 < high
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from fracas.analysis.exact_rankflank import RoundQuestion
from fracas.analysis.odds import BATCH_RUNS, DEFAULT_MAX_RUNS, DEFAULT_RUNS, SAMPLE_BUDGET
from fracas.analysis.stats import wilson_interval
from fracas.core.errors import FracasError

#: The events counted, in the order they are reported.
EVENTS = ("first wins", "draw", "second wins", "first breaks", "second breaks")

Stop = Literal["runs", "precision", "max runs", "work budget"]


@dataclass(frozen=True)
class SampledRound:
    """Counts of a vectorised sample of the round-and-break question.

    ``counts`` maps each of :data:`EVENTS` to the repetitions that showed it;
    ``difference`` maps first-side minus second-side combat result to its count.
    ``dice_rolls`` counts every blow and every break-test die as one roll, as the
    ordinary sampler would.
    """

    runs: int
    seed: int
    confidence: float
    counts: dict[str, int]
    difference: dict[int, int]
    dice_rolls: int
    stopped_by: Stop

    def probability(self, event: str) -> float:
        """The sampled probability of one of :data:`EVENTS`."""
        return self.counts[_known(event)] / self.runs

    def interval(self, event: str) -> tuple[float, float]:
        """The Wilson interval of one of :data:`EVENTS` at the sample's confidence."""
        return wilson_interval(self.counts[_known(event)], self.runs, self.confidence)

    @property
    def error_bar(self) -> float:
        """The widest interval half-width over the events and every difference seen."""
        return _widest(
            [*self.counts.values(), *self.difference.values()], self.runs, self.confidence
        )


def sample_round_and_break(
    question: RoundQuestion,
    *,
    runs: int | None = None,
    seed: int = 0,
    precision: float | None = None,
    max_runs: int = DEFAULT_MAX_RUNS,
    confidence: float = 0.95,
    budget: int = SAMPLE_BUDGET,
) -> SampledRound:
    """Sample ``question`` in batches of :data:`~fracas.analysis.odds.BATCH_RUNS` at once.

    Like :func:`~fracas.analysis.odds.odds`: ``runs`` repetitions (default 10,000), or with
    ``precision`` batches until every interval half-width is below it or ``max_runs``;
    sampling stops when ``budget`` dice rolls are spent. The batches come from one numpy
    generator seeded with ``seed``, so the same seed gives the same counts, and a run that
    stops early is the beginning of a longer one.
    """
    if runs is not None and runs < 1:
        raise FracasError(f"runs must be at least 1, not {runs}")
    if precision is not None and not 0 < precision < 0.5:
        raise FracasError(f"precision must lie between 0 and 0.5, not {precision}")
    rolls_per_run = question.attacks[0] + question.attacks[1] + 2
    if rolls_per_run > budget:
        raise FracasError(f"a single play needs more than {budget:,} dice rolls")
    goal = max_runs if precision is not None else (runs or DEFAULT_RUNS)
    stopped_by: Stop = "max runs" if precision is not None else "runs"
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(EVENTS), dtype=np.int64)
    difference: dict[int, int] = {}
    done = 0
    while done < goal:
        size = min(BATCH_RUNS, goal - done, (budget - done * rolls_per_run) // rolls_per_run)
        if size <= 0:
            stopped_by = "work budget"
            break
        counts += _batch(question, rng, size, difference)
        done += size
        if (
            precision is not None
            and _widest([*counts.tolist(), *difference.values()], done, confidence) < precision
        ):
            stopped_by = "precision"
            break
    return SampledRound(
        runs=done,
        seed=seed,
        confidence=confidence,
        counts=dict(zip(EVENTS, (int(c) for c in counts), strict=True)),
        difference=dict(sorted(difference.items())),
        dice_rolls=done * rolls_per_run,
        stopped_by=stopped_by,
    )


def _batch(
    question: RoundQuestion, rng: np.random.Generator, size: int, difference: dict[int, int]
) -> np.ndarray[tuple[int], np.dtype[np.int64]]:
    # Binomial draws stand for the blows: the unsaved wounds of n independent blows are
    # binomial, so this is the same law as rolling every blow, at the cost of one draw.
    first = rng.binomial(question.attacks[0], float(question.chance[0]), size)
    second = rng.binomial(question.attacks[1], float(question.chance[1]), size)
    gap = first + question.bonus[0] - second - question.bonus[1]
    dice = rng.integers(1, 7, size=(size, 2))
    total = dice.sum(axis=1)
    double_one = (dice[:, 0] == 1) & (dice[:, 1] == 1)
    # Only the loser tests, on its Leadership less the difference; a double 1 passes.
    first_breaks = (gap < 0) & ~(double_one | (total <= question.leadership[0] + gap))
    second_breaks = (gap > 0) & ~(double_one | (total <= question.leadership[1] - gap))
    values, seen = np.unique(gap, return_counts=True)
    for value, count in zip(values.tolist(), seen.tolist(), strict=True):
        difference[value] = difference.get(value, 0) + count
    return np.array(
        [
            int((gap > 0).sum()),
            int((gap == 0).sum()),
            int((gap < 0).sum()),
            int(first_breaks.sum()),
            int(second_breaks.sum()),
        ],
        dtype=np.int64,
    )


def _widest(counts: list[int], runs: int, confidence: float) -> float:
    widest = 0.0
    for count in counts:
        low, high = wilson_interval(count, runs, confidence)
        widest = max(widest, (high - low) / 2)
    return widest


def _known(event: str) -> str:
    if event not in EVENTS:
        raise KeyError(f"unknown event {event!r}; known: {', '.join(EVENTS)}")
    return event
