"""Benchmark: Monte Carlo plays per second, on one core and on two, and a balance sweep.

1. d100 Monte Carlo on ``examples/d100/lair_raid.yaml``: the way odds sampled before
   (every repetition a full recording play, its battle log built and thrown away, dice
   picked by bisection and counted through a wrapper) is the baseline, timed in this
   process; the sampling play with its shared tables is timed against it (goal ≥ 10×),
   at 20,000 runs and at 200,000 (the default --max-runs of a --precision question).
2. The same question on two worker processes against one (goal ≥ 1.8×; it needs two idle
   cores — on a shared machine it reads low, so the cores the workers actually got and
   their plays per CPU second are printed beside it).
3. The README's halberdier question as a 7 × 3 sweep at 10,000 runs a cell on two
   processes (goal ≤ 30 s), with the cores the workers got.

Every timed variant is checked to give the same numbers as the others.
Run: ``.venv/bin/python benchmarks/bench_sampling.py`` (or ``make bench``); ``--quick``
skips the sweep.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from collections.abc import Callable
from functools import partial

from fracas.analysis.odds import odds, repetition_seed
from fracas.analysis.parallel import Tally, running
from fracas.analysis.sweep import parse_vary, sweep, to_csv
from fracas.cli.sweep import cell_scenario
from fracas.core.dice import ChanceNode, Dice, SeededDice
from fracas.io.scenario import load_scenario

LAIR = "examples/d100/lair_raid.yaml"
HALBERDIERS = "examples/rankflank/frontal_charge.yaml"


class Counted:
    """The baseline's dice: every roll counted through a wrapper, as odds did."""

    def __init__(self, inner: Dice) -> None:
        self.inner = inner
        self.used = 0

    def roll(self, node: ChanceNode) -> int:
        self.used += 1
        return self.inner.roll(node)


def baseline(runs: int, seed: int = 0) -> Tally:
    """The sampling loop odds ran before: a recording play per repetition."""
    scenario = load_scenario(LAIR)
    ruleset, model = scenario.ruleset, scenario.model
    tally = Tally()
    for index in range(runs):
        dice = Counted(SeededDice(repetition_seed(seed, index)))
        tally.add(ruleset.summarize(model, ruleset.play(model, dice)))
    return tally


def rate(function: Callable[[], object], runs: int, *, repeat: int = 3) -> float:
    """Best plays per second of ``repeat`` calls of ``function`` (which plays ``runs``)."""
    best = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = max(best, runs / (time.perf_counter() - start))
    return best


def cpu_rate(function: Callable[[], object], runs: int, *, repeat: int = 3) -> float:
    """Best plays per CPU second of this process over ``repeat`` calls of ``function``."""
    best = 0.0
    for _ in range(repeat):
        start = time.process_time()
        function()
        best = max(best, runs / (time.process_time() - start))
    return best


def main() -> None:
    quick = "--quick" in sys.argv
    lair = load_scenario(LAIR)
    # The two ways sample the same law (run by run they differ: sampling decides each dice
    # group from its law), so their shares must agree within their intervals.
    fast = odds(lair, method="mc", runs=2000, seed=0)
    slow_tally = baseline(2000)
    for metric in fast.metrics:
        if metric.name not in slow_tally.counts:
            continue  # a derived metric: the baseline loop has none
        for entry in metric.values:
            share = slow_tally.counts[metric.name][entry.value] / slow_tally.runs
            spread = 4 * (max(share * (1 - share), 1e-4) / slow_tally.runs) ** 0.5
            assert entry.low - spread <= share <= entry.high + spread, metric.name

    base = rate(lambda: baseline(2_000), 2_000)
    base_cpu = cpu_rate(lambda: baseline(2_000), 2_000)
    with running(workers=1):
        one = rate(lambda: odds(lair, method="mc", runs=20_000, seed=0), 20_000)
        one_cpu = cpu_rate(lambda: odds(lair, method="mc", runs=20_000, seed=0), 20_000)
        # The longest question ``--precision`` asks by default (its --max-runs): the runs
        # move through the graph the sampler has learnt, and the ruleset's own code runs
        # only where a run meets a battle no run met before.
        long_cpu = cpu_rate(
            lambda: odds(lair, method="mc", runs=200_000, seed=0), 200_000, repeat=2
        )
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    opened = time.perf_counter()
    with running(workers=2):
        odds(lair, method="mc", runs=2_000, seed=0)  # the workers start
        two = rate(lambda: odds(lair, method="mc", runs=40_000, seed=0), 40_000)
        shared = odds(lair, method="mc", runs=5_000, seed=0)
    held = time.perf_counter() - opened
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers_cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    assert shared == odds(lair, method="mc", runs=5_000, seed=0)
    played = 2_000 + 3 * 40_000 + 5_000

    print("sampling: d100 Monte Carlo on examples/d100/lair_raid.yaml")
    print(f"  recording play per run (before)  {base:10,.0f} plays/s")
    print(f"  sampling play, one process       {one:10,.0f} plays/s")
    print(
        f"  the same, 200,000 runs           {long_cpu:10,.0f} plays/CPU s"
        f"  ({long_cpu / base_cpu:.1f}× before; goal 100,000 plays per CPU second)"
    )
    print(f"  sampling play, two processes     {two:10,.0f} plays/s")
    ratio = one / base
    verdict = "goal met" if ratio >= 10 else "below the goal of 10×"
    print(f"  ratio one process / before       {ratio:10.1f}×  ({verdict})")
    # The wall clock of each also waits for other people's work, unevenly; CPU seconds
    # measure what a play costs one core.
    ratio = one_cpu / base_cpu
    verdict = "goal met" if ratio >= 10 else "below the goal of 10×"
    print(f"  the same in plays per CPU second {ratio:10.1f}×  ({verdict})")
    scaling = two / one
    verdict = "goal met" if scaling >= 1.8 else "below the goal of 1.8× (are two cores idle?)"
    print(f"  ratio two processes / one        {scaling:10.2f}×  ({verdict})")
    # On a shared machine the wall clock of two workers waits for other people's work:
    # how many cores they got, and what a play costs them in CPU, tell the two apart.
    print(f"  cores the two workers got        {workers_cpu / held:10.2f}  (of 2)")
    per_cpu = played / workers_cpu / one_cpu
    print(f"  plays per CPU second, two / one  {per_cpu:10.2f}×  (1 = splitting costs nothing)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"  load average while measured      {load:10.2f}")

    if quick:
        return
    scenario = load_scenario(HALBERDIERS)
    scenario_at = partial(cell_scenario, dict(scenario.document), HALBERDIERS)
    axes = [parse_vary("units[0].models=10..40:5"), parse_vary("units[1].models=30,40,50")]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with running(workers=2):
        result = sweep(scenario_at, axes, "winner=Empire", seed=0, method="mc", runs=10_000)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers_cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    assert len(result.cells) == 21
    print("sweep: the README's halberdier question, 7 × 3 cells at 10,000 runs, 2 processes")
    verdict = "goal met" if seconds <= 30 else "above the goal of 30 s"
    print(f"  time                             {seconds:10.1f} s  ({verdict})")
    print(f"  cores the two workers got        {workers_cpu / seconds:10.2f}  (of 2)")
    # An estimate, not the verdict: the time two idle cores would need for the same work.
    print(f"  workers' CPU time / 2            {workers_cpu / 2:10.1f} s  (two idle cores)")
    first = to_csv(result).splitlines()[1]
    print(f"  first row                        {first}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"  load average while measured      {load:10.2f}")


if __name__ == "__main__":
    main()
