"""What would it take: the smallest value of one scenario field that reaches a goal.

A goal is a probability of an event (``winner=attacker`` reaches 0.8) or, for a metric
without an event, its expected value (``losses`` reaches 50 — for a deterministic ruleset
that is simply its value). The search assumes that raising the field never makes the goal
harder: it tries ``low``, then ``low + 1``, ``low + 2``, ``low + 4``… until the goal is met,
then halves the last gap.

>>> goal = parse_goal("wounds>=1", 0.8)
>>> goal.metric, goal.op, goal.value
('wounds', '>=', 1)
>>> parse_goal("winner=attacker", 0.5).describe()
'P(winner = attacker) ≥ 0.5'
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fracas.analysis.odds import LoadedScenario, odds
from fracas.analysis.results import OddsResult, Value
from fracas.analysis.stats import wilson_interval
from fracas.core.errors import FracasError, ScenarioError

_GOAL = re.compile(r"^\s*([^<>=!]+?)\s*(>=|<=|==|=|>|<)\s*(.+?)\s*$")


@dataclass(frozen=True)
class Goal:
    """A quantity of the odds and the target it must reach (``measure ≥ target``)."""

    metric: str
    op: str
    value: Value
    target: float
    raw: str = ""

    def measure(self, result: OddsResult) -> float:
        """The goal's quantity in ``result``: a probability, or the metric's mean."""
        metric = result.metric(self.metric)
        if self.op == "mean":
            if metric.mean is None:
                raise FracasError(
                    f"metric {self.metric!r} is not numeric; give an event such as "
                    f"--metric {self.metric}=VALUE"
                )
            return float(metric.mean)
        total = 0.0
        for entry in metric.values:
            if self.matches(entry.value):
                total += float(entry.probability)
        return total

    def interval(self, result: OddsResult) -> tuple[float, float, float]:
        """The goal's quantity in ``result`` and its interval (a point when exact).

        A probability of an event made of several values gets the interval of the event's
        own count, not a sum of intervals.
        """
        value = self.measure(result)
        if result.exact:
            return value, value, value
        if self.op == "mean":
            metric = result.metric(self.metric)
            low = metric.mean_low if metric.mean_low is not None else value
            high = metric.mean_high if metric.mean_high is not None else value
            return value, low, high
        count = sum(
            entry.count or 0
            for entry in result.metric(self.metric).values
            if self.matches(entry.value)
        )
        low, high = wilson_interval(count, result.runs or 0, result.confidence or 0.95)
        return value, low, high

    def matches(self, value: Value) -> bool:
        """Whether a metric value is one the goal's event counts."""
        if self.op == "==":
            return value == self.value or str(value).lower() == self.raw.lower()
        if not isinstance(value, int | float) or not isinstance(self.value, int | float):
            return False
        if self.op == ">=":
            return value >= self.value
        if self.op == "<=":
            return value <= self.value
        if self.op == ">":
            return value > self.value
        return value < self.value

    def describe(self) -> str:
        """The goal in words, e.g. ``P(winner = attacker) ≥ 0.8``."""
        if self.op == "mean":
            return f"{self.metric} ≥ {self.target:g}"
        op = {"==": "=", ">=": "≥", "<=": "≤"}.get(self.op, self.op)
        return f"P({self.metric} {op} {self.raw}) ≥ {self.target:g}"


def _scalar(raw: str) -> Value:
    lowered = raw.lower()
    if lowered in ("true", "yes"):
        return True
    if lowered in ("false", "no"):
        return False
    for convert in (int, float):
        try:
            return convert(raw)
        except ValueError:
            pass
    return raw


def parse_goal(spec: str | None, target: float, *, ruleset: str = "") -> Goal:
    """Read ``--metric``: ``NAME=VALUE``, ``NAME>=VALUE`` (also ``<=``, ``>``, ``<``) or ``NAME``.

    A bare ``NAME`` aims at the metric's expected value.
    """
    if spec is None:
        raise FracasError(
            "--solve needs --metric: NAME=VALUE (e.g. winner=Empire) for a probability, "
            "or NAME (e.g. losses.tanks) for a value"
        )
    match = _GOAL.match(spec)
    if match is None:
        name = spec.strip()
        if not name:
            raise FracasError("--metric needs a metric name")
        return Goal(name, "mean", None, target, "")
    name, op, raw = match.groups()
    op = "==" if op == "=" else op
    value = _scalar(raw)
    if op != "==" and not isinstance(value, int | float):
        raise FracasError(f"--metric {spec!r}: {op} needs a number, not {raw!r}")
    if isinstance(value, float) and not math.isfinite(value):
        # Nothing is >= nan, and everything is < inf: a search that could never end well.
        raise FracasError(f"--metric {spec!r}: {op} needs a finite number, not {raw!r}")
    if not 0 <= target <= 1:
        raise FracasError(f"--target {target:g} is not a probability (0 to 1) for an event goal")
    return Goal(name, op, value, target, raw)


@dataclass(frozen=True)
class Probe:
    """One value tried by the search and what it measured (``None`` if the value is invalid)."""

    value: int
    measured: float | None
    problem: str = ""
    #: The interval of ``measured`` (sampled odds; the point itself when exact).
    low: float | None = None
    high: float | None = None

    def undecided(self, target: float) -> bool:
        """Whether the interval holds ``target``: at this many runs the probe cannot tell
        whether the goal is reached."""
        if self.low is None or self.high is None or self.low == self.high:
            return False
        return self.low <= target <= self.high


@dataclass(frozen=True)
class SolveResult:
    """The smallest value reaching the goal, its odds, and every value tried on the way."""

    path: str
    goal: Goal
    value: int
    measured: float
    result: OddsResult
    probes: tuple[Probe, ...]

    @property
    def indistinct(self) -> tuple[int, ...]:
        """The values tried whose sampled intervals hold the target: answers that cannot be
        told apart from the one found at this many runs (none for exact odds)."""
        return tuple(p.value for p in self.probes if p.undecided(self.goal.target))

    @property
    def previous(self) -> Probe | None:
        """The probe at ``value − 1`` when the search tried it (the proof it is smallest)."""
        for probe in self.probes:
            if probe.value == self.value - 1:
                return probe
        return None


def solve(
    scenario_at: Callable[[int], LoadedScenario],
    goal: Goal,
    *,
    path: str = "",
    low: int = 0,
    high: int = 10_000,
    **options: Any,
) -> SolveResult:
    """The smallest integer ``v`` in ``[low, high]`` for which ``scenario_at(v)`` meets ``goal``.

    ``options`` go to :func:`~fracas.analysis.odds.odds` for every value tried; with Monte
    Carlo the same seed is used at every value, so neighbouring values are compared on
    the same dice and the search is reproducible. A value whose scenario is invalid (for
    instance 0 models) counts as not meeting the goal.

    >>> from fracas.core.dice import D6
    >>> from fracas.core.process import OneStep
    >>> from fracas.rulesets.base import Ruleset
    >>> class Volley(Ruleset):  # type: ignore[type-arg]
    ...     name, title, summary, deterministic = "volley", "", "", False
    ...     def build(self, document): return document
    ...     def process(self, n, recorder):
    ...         return OneStep(lambda dice: sum(dice.roll(D6) == 6 for _ in range(n)))
    ...     def report(self, n, played): raise NotImplementedError
    ...     def metrics(self, n, state): return {"sixes": state.result}
    >>> class At:
    ...     def __init__(self, n): self.ruleset, self.model = Volley(), n
    >>> answer = solve(At, parse_goal("sixes>=1", 0.5), low=1)
    >>> answer.value, round(answer.measured, 4)   # 1 − (5/6)**4 = 0.5177 ≥ 0.5 > 0.4213
    (4, 0.5177)
    """
    if low > high:
        raise FracasError(f"the search range is empty: {low} > {high}")
    probes: dict[int, Probe] = {}
    results: dict[int, OddsResult] = {}

    #: The values a categorical goal's metric took in the values tried (dicts keep order).
    taken: dict[str, None] = {}
    titles: dict[str, None] = {}

    def reached(value: int) -> bool:
        try:
            scenario = scenario_at(value)
        except ScenarioError as exc:
            probes[value] = Probe(value, None, exc.problem)
            return False
        result = odds(scenario, **options)
        measured, low, high = goal.interval(result)
        metric = result.metric(goal.metric)
        if not metric.numeric:
            titles[metric.title] = None
            taken.update((str(entry.value), None) for entry in metric.values)
        probes[value] = Probe(value, measured, low=low, high=high)
        results[value] = result
        return measured >= goal.target - 1e-12

    def finish(value: int) -> SolveResult:
        ordered = tuple(probes[v] for v in sorted(probes))
        measured = probes[value].measured
        assert measured is not None
        return SolveResult(path, goal, value, measured, results[value], ordered)

    if reached(low):
        return finish(low)
    failing, step = low, 1
    while True:
        candidate = min(high, low + step)
        if reached(candidate):
            break
        if candidate == high:
            best = max(
                (p.measured for p in probes.values() if p.measured is not None), default=None
            )
            seen = f"; the best was {best:.4g}" if best is not None else ""
            problems = [p for p in probes.values() if p.measured is None]
            if best is None and problems:
                seen = (
                    f"; every value was rejected, e.g. {problems[-1].value}: {problems[-1].problem}"
                )
            if goal.op == "==" and taken and not any(goal.matches(value) for value in taken):
                # Not a rare value but one the metric never takes: most likely a misspelling.
                seen = (
                    f"; {', '.join(titles)} never was {goal.raw!r} at any value tried: its "
                    f"values were {', '.join(taken)}"
                )
            raise FracasError(
                f"{goal.describe()} is never reached for {path or 'the field'} "
                f"in {low}..{high}{seen}"
            )
        failing, step = candidate, step * 2
    succeeding = candidate
    while succeeding - failing > 1:
        middle = (failing + succeeding) // 2
        if reached(middle):
            succeeding = middle
        else:
            failing = middle
    return finish(succeeding)
