"""Benchmark: the exact 25-vs-20-attack round-and-break question, fracas against icepool.

Side one makes 25 blows that each wound unsaved with 5/24 and adds +1 (the charge); side
two makes 20 blows at 1/6; the loser tests on Leadership 7 less the difference. Asked:
P(each side wins), P(draw), P(each side breaks). Both answers are computed in this
process, checked equal, and timed (best of several runs); the ratio is what counts.
The same question read from a scenario file through the full state solver is timed too,
and sampled 10,000 times both by the vectorised sampler and by the ordinary one (which
plays the whole ruleset once per repetition).

Run: ``.venv/bin/python benchmarks/bench_odds.py`` (or ``make bench``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import icepool

from fracas.analysis import odds
from fracas.analysis.exact_rankflank import RoundQuestion, round_and_break
from fracas.analysis.vectorised import sample_round_and_break
from fracas.io.scenario import parse_scenario
from fracas.rulesets.rankflank.samples import LINE_AGAINST_LINE

QUESTION = RoundQuestion((25, 20), (Fraction(5, 24), Fraction(1, 6)), (1, 0), (7, 7))


def bernoulli(chance: Fraction) -> Any:
    return icepool.Die({1: chance.numerator, 0: chance.denominator - chance.numerator})


def with_icepool(question: RoundQuestion) -> tuple[float, float, float, float]:
    """P(first wins), P(draw), P(first breaks), P(second breaks), the icepool way."""
    first = question.attacks[0] @ bernoulli(question.chance[0])
    second = question.attacks[1] @ bernoulli(question.chance[1])
    difference = first + question.bonus[0] - second - question.bonus[1]

    def first_breaks(gap: int, a: int, b: int) -> bool:
        return gap < 0 and not ((a, b) == (1, 1) or a + b <= question.leadership[0] + gap)

    def second_breaks(gap: int, a: int, b: int) -> bool:
        return gap > 0 and not ((a, b) == (1, 1) or a + b <= question.leadership[1] - gap)

    d6 = icepool.d6
    return (
        float(difference.probability(">", 0)),
        float(difference.probability(0)),
        float(icepool.map(first_breaks, difference, d6, d6).probability(True)),
        float(icepool.map(second_breaks, difference, d6, d6).probability(True)),
    )


def with_fracas(question: RoundQuestion) -> tuple[float, float, float, float]:
    answer = round_and_break(question)
    return (answer.first_wins, answer.draw, answer.breaks[0], answer.breaks[1])


def best_time(function: Callable[[], object], *, repeat: int = 7, least: float = 0.2) -> float:
    """Best time of one call: each of ``repeat`` samples loops for at least ``least`` s."""
    function()  # warm caches and imports, as a long-running program would have them
    loops = 1
    while True:
        start = time.perf_counter()
        for _ in range(loops):
            function()
        elapsed = time.perf_counter() - start
        if elapsed >= least:
            break
        loops *= 2
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(loops):
            function()
        samples.append((time.perf_counter() - start) / loops)
    return min(samples)


def main() -> None:
    fracas_answer = with_fracas(QUESTION)
    icepool_answer = with_icepool(QUESTION)
    for mine, theirs in zip(fracas_answer, icepool_answer, strict=True):
        assert abs(mine - theirs) < 1e-12, (fracas_answer, icepool_answer)
    scenario = parse_scenario(LINE_AGAINST_LINE)
    full = odds(scenario)
    assert abs(float(full.probability("winner", "Empire")) - fracas_answer[0]) < 1e-9

    fracas_time = best_time(lambda: with_fracas(QUESTION))
    icepool_time = best_time(lambda: with_icepool(QUESTION), repeat=3)
    scenario_time = best_time(lambda: odds(scenario), repeat=3, least=0.5)
    vector_time = best_time(lambda: sample_round_and_break(QUESTION, runs=10_000), repeat=3)
    plain_time = best_time(lambda: odds(scenario, method="mc", runs=10_000), repeat=1, least=0.0)
    print("odds: exact 25-vs-20-attack round and break test")
    print(
        f"  P(win) {fracas_answer[0]:.6f}  P(draw) {fracas_answer[1]:.6f}  "
        f"P(break) {fracas_answer[2]:.6f} / {fracas_answer[3]:.6f}"
    )
    print(f"  fracas round_and_break   {fracas_time * 1e6:10.1f} µs")
    print(f"  icepool (baseline)       {icepool_time * 1e6:10.1f} µs")
    print(f"  fracas odds on the file  {scenario_time * 1e6:10.1f} µs (every metric, exact)")
    print(f"  10,000 runs, vectorised  {vector_time * 1e6:10.1f} µs")
    print(f"  10,000 runs, plain       {plain_time * 1e6:10.1f} µs (the ruleset played)")
    ratio = icepool_time / fracas_time
    verdict = "goal met" if ratio >= 100 else "below the goal of 100×"
    print(f"  ratio icepool / fracas   {ratio:10.1f}×  ({verdict})")


if __name__ == "__main__":
    main()
