"""Outcome odds of a scenario: exact where that is tractable, sampled with error bars where not.

Every ruleset that implements :meth:`~fracas.rulesets.base.Ruleset.metrics` gets odds,
derived from the process it plays (:meth:`~fracas.rulesets.base.Ruleset.process`) and
nothing else. :func:`odds` picks the method (or obeys the caller), says which ran, how
much work it did and how sure it is:

* **exact** — a deterministic ruleset is played once, whatever the method asked; a dice
  ruleset's process is walked over merged states (:mod:`fracas.analysis.exact`) within a
  counted budget;
* **Monte Carlo** — the same process played with independently seeded dice per
  repetition (:mod:`fracas.analysis.sample`), reported with 95 % Wilson intervals,
  optionally sampling in batches until a requested precision;
* **auto** — exact when it fits in its budget, Monte Carlo otherwise.

Both share the local processes that :func:`~fracas.analysis.parallel.running` allows: Monte
Carlo all of them, an exact walk at most :data:`EXACT_PROCESSES` (its steps split in two
halves, :func:`~fracas.analysis.exact.sharing_work`). The numbers are the same either way.

>>> from fracas.core.dice import D6, Dice
>>> from fracas.core.process import Done, OneStep, Played
>>> from fracas.core.record import Recorder
>>> from fracas.core.report import Report
>>> from fracas.core.schema import Document, StrictModel
>>> from fracas.rulesets.base import Ruleset
>>> class Coin(Ruleset[Document, int, Done[int]]):
...     name, title, summary, deterministic = "coin", "Coin", "one d6", False
...     document_model, params_model = Document, StrictModel
...     def build(self, document: Document) -> int: return 4
...     def process(self, scenario: int, recorder: Recorder) -> OneStep[int]:
...         return OneStep(lambda dice: dice.roll(D6))
...     def report(self, scenario: int, played: Played[Done[int]]) -> Report:
...         return Report("coin", "", ())
...     def metrics(self, scenario: int, state: Done[int]) -> dict[str, bool]:
...         return {"success": state.result >= scenario}
>>> result = odds(4, ruleset=Coin(), exact_fractions=True)
>>> result.method, result.work, result.probability("success", True)
('exact', 6, Fraction(1, 2))
>>> sampled = odds(4, ruleset=Coin(), method="mc", runs=2000, seed=1)
>>> low, high = sampled.interval("success", True)
>>> low < 0.5 < high
True
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import replace
from fractions import Fraction
from functools import partial
from typing import Any, Literal, Protocol, cast

from fracas.analysis import parallel
from fracas.analysis.exact import (
    CountingDice,
    ExactOdds,
    ProjectedOverBudget,
    WorkBudget,
    collecting_once_per_step,
    exact_states,
    sharing_work,
    summarize_states,
)
from fracas.analysis.parallel import Question, Tally
from fracas.analysis.reporting import shown_rows
from fracas.analysis.results import (
    MetricOdds,
    OddsResult,
    Probability,
    Value,
    ValueOdds,
    _is_number,
    _sum,
)
from fracas.analysis.stats import check_tolerance, mean_interval, wilson_interval
from fracas.analysis.views import headline
from fracas.core import limits
from fracas.core.budgets import (
    BATCH_RUNS,
    DEFAULT_MAX_RUNS,
    DEFAULT_RUNS,
    EXACT_BUDGET,
    EXACT_LIMIT,
    EXACT_TOLERANCE,
    PRECISION_SLICE,
    SAMPLE_BUDGET,
    exact_budget_for,
)
from fracas.core.dice import ChanceNode, DiceGroup, SeededDice
from fracas.core.distribution import EnumerationBudgetError
from fracas.core.errors import FracasError
from fracas.core.process import Process, run, watching_work
from fracas.core.record import SUMMING
from fracas.core.streams import StreamDice, law_table, run_key
from fracas.rulesets import AnyRuleset

#: One outcome: the metrics of :meth:`Ruleset.summarize` as ``(name, value)`` pairs.
Outcome = tuple[tuple[str, Value], ...]
MethodName = Literal["auto", "exact", "mc"]
#: Most local processes an exact walk uses: each step is cut in two halves.
EXACT_PROCESSES = 2


class LoadedScenario(Protocol):
    """Anything that carries a ruleset and its built scenario (``fracas.io.Scenario`` does)."""

    @property
    def ruleset(self) -> AnyRuleset: ...

    @property
    def model(self) -> Any: ...


#: What an exact method returns, whichever ran: the core's record of exact odds.
ExactAnswer = ExactOdds


def odds(
    scenario: LoadedScenario | Any,
    *,
    ruleset: AnyRuleset | None = None,
    method: MethodName = "auto",
    seed: int | None = None,
    runs: int | None = None,
    precision: float | None = None,
    max_runs: int = DEFAULT_MAX_RUNS,
    confidence: float = 0.95,
    exact_budget: int | None = None,
    sample_budget: int = SAMPLE_BUDGET,
    exact_fractions: bool = False,
    exact_tolerance: float = EXACT_TOLERANCE,
) -> OddsResult:
    """The odds of every metric of ``scenario``.

    ``scenario`` is a loaded scenario (``fracas.load_scenario(...)``), or a ruleset's built
    scenario together with ``ruleset=``. Monte Carlo is seeded with ``seed``, else the
    scenario file's own ``seed``, else 0. ``method`` is ``"auto"``, ``"exact"`` or ``"mc"``.
    Monte Carlo plays ``runs`` repetitions (default 10,000), or with ``precision`` samples
    in batches until every interval's half-width is below it, at most ``max_runs``.
    ``exact_budget`` and ``sample_budget`` bound the counted work of each method, so no
    input can keep the call busy for ever; the exact budget defaults to
    :data:`EXACT_BUDGET` with ``method="exact"`` and to the smaller
    :data:`AUTO_EXACT_BUDGET` with ``method="auto"``. ``exact_fractions`` asks exact
    methods to compute in fractions instead of floats; in floats, ``exact_tolerance``
    leaves out branches less likely than it, and the result says how much that left out
    (``dropped``; 0 keeps every branch).
    """
    if ruleset is None:
        ruleset, model = scenario.ruleset, scenario.model
        header = getattr(scenario, "header", None)
        if seed is None and header is not None:
            seed = getattr(header, "seed", None)
    else:
        model = scenario
    if exact_budget is None:
        exact_budget = exact_budget_for(method)
    _check_options(method, runs, precision, max_runs, confidence, exact_budget, sample_budget)
    check_tolerance(exact_tolerance)
    derive = ruleset.derived_metrics(model)
    fallback = ""
    wasted = 0
    if ruleset.deterministic or method in ("auto", "exact"):
        started = time.perf_counter()
        try:
            processes = min(EXACT_PROCESSES, parallel.current().local_workers)
            with (
                sharing_work(processes),
                watching_work(_exact_progress(ruleset.name, exact_budget)),
            ):
                answer, rolls = exact_outcomes(
                    ruleset,
                    model,
                    budget=exact_budget,
                    fractions=exact_fractions,
                    tolerance=0.0 if exact_fractions else exact_tolerance,
                )
        except EnumerationBudgetError as exc:
            if method == "exact" or ruleset.deterministic:  # one play is all there is
                advice = budget_advice(exc, exact_budget, time.perf_counter() - started)
                raise EnumerationBudgetError(f"{exc}; {advice}") from None
            fallback = auto_fallback(exc, exact_budget)
            if str(exc) and not str(exc).startswith("more than "):
                fallback += f": {exc}"  # what made it so wide (a step with too many paths…)
            # A refused enumeration cost one play, a walk stopped by its look ahead what it
            # played; any other attempt ran to its bound.
            if isinstance(exc, _RefusedEnumeration | ProjectedOverBudget):
                wasted = exc.spent
            else:
                wasted = exact_budget
        else:
            exact = _exact_result(ruleset.name, answer, rolls, derive, exact_budget)
            return _labelled(replace(exact, headlines=ruleset.headlines), ruleset)
    sampled = _sample(
        ruleset,
        model,
        derive=derive,
        seed=seed or 0,
        runs=DEFAULT_RUNS if runs is None else runs,
        precision=precision,
        max_runs=max_runs,
        confidence=confidence,
        budget=sample_budget,
        fallback=fallback,
        wasted=wasted,
    )
    return _labelled(sampled, ruleset)


def _labelled(result: OddsResult, ruleset: AnyRuleset) -> OddsResult:
    """``result`` with each metric carrying the name the ruleset gives it for people."""
    metrics = tuple(replace(metric, label=ruleset.label(metric.name)) for metric in result.metrics)
    return replace(result, metrics=metrics)


def _check_options(
    method: str,
    runs: int | None,
    precision: float | None,
    max_runs: int,
    confidence: float,
    exact_budget: int,
    sample_budget: int,
) -> None:
    if method not in ("auto", "exact", "mc"):
        raise FracasError(f"unknown method {method!r} (choose auto, exact or mc)")
    if runs is not None and runs < 1:
        raise FracasError(f"--runs must be at least 1, not {runs}")
    if precision is not None and not 0 < precision < 0.5:
        raise FracasError(f"--precision must lie between 0 and 0.5, not {precision}")
    if max_runs < 1:
        raise FracasError(f"--max-runs must be at least 1, not {max_runs}")
    if not 0 < confidence < 1:
        raise FracasError(f"--confidence must lie strictly between 0 and 1, not {confidence}")
    if exact_budget < 1:
        raise FracasError(f"--exact-budget must be at least 1, not {exact_budget}")
    if sample_budget < 1:
        raise FracasError(f"--sample-budget must be at least 1, not {sample_budget}")


# ── exact ──────────────────────────────────────────────────────────────────────────────


def outcome_of(summary: Mapping[str, Value]) -> Outcome:
    """A summary as a hashable outcome, metrics in the order the ruleset gave them."""
    return tuple(summary.items())


def exact_outcomes(
    ruleset: AnyRuleset,
    model: Any,
    *,
    budget: int = EXACT_BUDGET,
    fractions: bool = True,
    tolerance: float = 0.0,
    look_ahead: bool = True,
) -> tuple[ExactAnswer, int]:
    """Exact outcome distribution of ``model``, and the dice rolls a deterministic play made.

    A deterministic ruleset is played once. Any other is walked over merged states
    (:func:`~fracas.analysis.exact.exact_states`), from its process with a summing
    recorder: the steps seeded play runs. Before the walk, the first step's paths are
    estimated from a few seeded plays of it, so a step that alone needs more than
    ``budget`` plays (a whole battle of open-ended dice in one step) is refused at once.
    Raises :class:`~fracas.core.distribution.EnumerationBudgetError` past ``budget``
    step plays, or sooner with ``look_ahead`` when a step is projected past it
    (:func:`~fracas.analysis.exact.exact_states`). In floats, ``tolerance`` leaves out
    branches less likely than it.
    """
    if ruleset.deterministic:
        counted = WorkBudget(budget, "dice rolls")
        state = run(ruleset.process(model, SUMMING), CountingDice(_NoDice(), counted))
        summary = ruleset.metrics(model, state)
        return ExactAnswer({outcome_of(summary): Fraction(1)}, 1, "play", "single play"), 0
    process = ruleset.process(model, SUMMING)
    estimate = WorkBudget(budget, "dice rolls")
    digits, rolls = _estimated_first_step(process, estimate)
    if digits > math.log10(budget):
        raise _RefusedEnumeration(
            f"enumerating every path of one step would take about 10^{digits:.0f} plays",
            spent=min(estimate.used, budget),
            needed=rolls,
        )
    answer = exact_states(
        process,
        budget=budget,
        fractions=fractions,
        tolerance=0.0 if fractions else tolerance,
        look_ahead=look_ahead,
    )
    events = frozenset(getattr(process, "events", ()))

    def outcome(state: Any) -> Outcome:
        summary = ruleset.metrics(model, state)
        if events:  # their laws came with the walk (settled): a final state forgets them
            return tuple(item for item in summary.items() if item[0] not in events)
        return outcome_of(summary)

    outcomes = summarize_states(answer, outcome)
    found = ExactAnswer(
        outcomes,  # type: ignore[arg-type]
        answer.work,
        "step plays",
        f"exact evaluation of {answer.steps} step{'' if answer.steps == 1 else 's'} "
        "over merged states "
        f"(at most {answer.peak:,} states at once)",
        _natural_order(ruleset, model, budget),
        answer.settled,
        answer.dropped,
    )
    return found, 0


class _RecordingDice:
    """Seeded dice that add up the branching (in decimal digits) of every node decided,
    and of every dice group by the keys of its law, as the exact walk branches on it."""

    def __init__(self, seed: int, budget: WorkBudget) -> None:
        self._counted = CountingDice(SeededDice(seed), budget)
        self._groups = StreamDice(run_key(seed, 0))
        self.digits = 0.0

    def roll(self, node: ChanceNode) -> int:
        self.digits += math.log10(len(node.outcomes))
        return self._counted.roll(node)

    def draw_group(self, group: DiceGroup[Hashable, object]) -> Hashable:
        table = law_table(group)
        if table is None:  # a law too wide for exact odds to branch on: say why
            try:
                group.float_law()
            except (EnumerationBudgetError, OverflowError) as exc:
                raise _TooWide(str(exc), needed=math.inf) from None
            raise _TooWide(f"the law of {group.label} is too wide", needed=math.inf)
        self.digits += math.log10(max(1, len(table.keys)))
        return table.key_at(self._groups.number())


class _TooWide(EnumerationBudgetError):
    """A dice group of the first step has a law too wide to branch on: exact odds are out
    of reach whatever the budget."""


def _exact_progress(name: str, budget: int) -> Callable[[int], None] | None:
    """What tells a progress display (if one is shown) of an exact walk's step plays."""
    progress = parallel.current().progress
    if progress is None:
        return None
    progress.start(budget, "step plays", name)
    done = 0

    def advance(used: int) -> None:
        nonlocal done
        progress.advance(used - done, "step plays")
        done = used

    return advance


class _RefusedEnumeration(EnumerationBudgetError):
    """Enumeration was not started: the estimate alone shows it is over the budget."""

    def __init__(self, message: str, *, spent: int, needed: float) -> None:
        super().__init__(message, needed=needed)
        self.spent = spent


def budget_advice(error: EnumerationBudgetError, budget: int, seconds: float | None) -> str:
    """What to do when exact odds ran out of ``budget`` after ``seconds``.

    Raising ``--exact-budget`` is only suggested when it can help: when the work needed is
    known (an enumeration's estimate, a method that counts first), only if it fits under
    the most the limit ``odds.exact_budget`` allows, naming the budget to ask for; when it
    is not known (a walk over states stops where the budget ends), naming the next larger
    budget, with the time it may take at the pace just measured when ``seconds`` is given.
    Advice that goes into a result (auto's fallback) is given no time, so that the same
    question gives the same output byte for byte.

    >>> from fracas.core.distribution import EnumerationBudgetError
    >>> budget_advice(EnumerationBudgetError("", needed=1e166), 8_000_000, 0.1)
    'no --exact-budget can reach it (the most allowed is 100,000,000 steps); use --method mc'
    >>> budget_advice(EnumerationBudgetError("", needed=8_660_254), 1_000_000, 0.1)
    'raise --exact-budget to about 18,000,000 (now 1,000,000) or use --method mc'
    >>> budget_advice(EnumerationBudgetError(""), 200_000, 0.5)  # doctest: +ELLIPSIS
    'a larger --exact-budget may reach it (8,000,000 would take at most about 20 s at ...'
    >>> budget_advice(EnumerationBudgetError(""), 200_000, None)
    'a larger --exact-budget may reach it (try 8,000,000) or use --method mc'
    """
    most = limits.value(EXACT_LIMIT.name)
    if error.needed is not None:
        if error.needed > most:
            return (
                f"no --exact-budget can reach it (the most allowed is {most:,} steps); "
                "use --method mc"
            )
        # The estimate is a mean over a few plays: ask for twice it, so that it suffices.
        needed = _round_up(2 * error.needed)
        return f"raise --exact-budget to about {needed:,} (now {budget:,}) or use --method mc"
    if budget >= most:
        return f"no larger --exact-budget is allowed (the most is {most:,} steps); use --method mc"
    larger = min(most, max(EXACT_BUDGET, budget * 10))
    if seconds is None:
        return f"a larger --exact-budget may reach it (try {larger:,}) or use --method mc"
    # A walk that stopped ahead of its budget played only part of it.
    played = error.spent if isinstance(error, ProjectedOverBudget) else budget
    pace = played / seconds if seconds > 0 else math.inf
    return (
        f"a larger --exact-budget may reach it ({larger:,} would take at most about "
        f"{_duration(larger / pace)} at the pace measured here) or use --method mc"
    )


def auto_fallback(error: EnumerationBudgetError, budget: int) -> str:
    """Why ``auto`` sampled instead, in a player's words, and what exact odds would take.

    No time is named: it would differ from one machine to the next, and the same question
    gives the same output byte for byte. The budget is about what a few seconds answer.

    >>> from fracas.core.distribution import EnumerationBudgetError
    >>> print(auto_fallback(EnumerationBudgetError("", needed=8_660_254), 500_000))
    ... # doctest: +NORMALIZE_WHITESPACE
    exact odds would take about 8,700,000 steps of work, more than the 500,000 that answer
    in a few seconds (to wait for them: --method exact --exact-budget 18,000,000)
    >>> print(auto_fallback(EnumerationBudgetError(""), 500_000))
    ... # doctest: +NORMALIZE_WHITESPACE
    exact odds would take more than 500,000 steps of work, more than answers in a few
    seconds (--method exact --exact-budget 8,000,000 may reach them, in more time)
    """
    most = limits.value(EXACT_LIMIT.name)
    if error.needed is not None:
        if error.needed > most:
            size = (
                f"about 10^{math.log10(error.needed):.0f}"
                if math.isfinite(error.needed)
                else "more"
            )
            return (
                f"exact odds would take {size} steps of work, more than the {budget:,} "
                f"budgeted and than any budget allows (at most {most:,})"
            )
        needed = _round_up(2 * error.needed)
        return (
            f"exact odds would take about {_round_up(error.needed):,} steps of work, more than "
            f"the {budget:,} that answer in a few seconds (to wait for them: --method exact "
            f"--exact-budget {needed:,})"
        )
    if budget >= most:
        return f"exact odds would take more than {budget:,} steps of work, the most allowed"
    larger = min(most, max(EXACT_BUDGET, budget * 10))
    return (
        f"exact odds would take more than {budget:,} steps of work, more than answers in a "
        f"few seconds (--method exact --exact-budget {larger:,} may reach them, in more time)"
    )


def _round_up(amount: float) -> int:
    """``amount`` rounded up to two significant digits: 17,300,000 → 18,000,000."""
    if amount < 100:
        return math.ceil(amount)
    scale = int(10 ** (len(str(int(amount))) - 2))
    return math.ceil(amount / scale) * scale


def _duration(seconds: float) -> str:
    if seconds < 1:
        return "1 s"
    if seconds < 120:
        return f"{math.ceil(seconds)} s"
    if seconds < 7200:
        return f"{math.ceil(seconds / 60)} min"
    return f"{math.ceil(seconds / 3600)} h"


#: Seeded plays averaged to estimate the size of an enumeration.
ESTIMATING_PLAYS = 16


def _estimated_first_step(process: Process[Any], budget: WorkBudget) -> tuple[float, float]:
    """log10 of the paths the first step of ``process`` has, and the dice rolls they count.

    Knuth's estimate of a tree's size: along one path, the product of the branching met
    is an unbiased guess at the number of paths (exactly so for fair dice, which a seeded
    play chooses uniformly), and that product times the path's rolls one at the rolls of
    all paths. The mean over :data:`ESTIMATING_PLAYS` plays steadies both. Plays that alone
    exceed the budget make the estimate infinite.
    """
    paths = rolls = 0.0
    start = process.start()
    if process.finished(start):
        return 0.0, 0.0
    for seed in range(ESTIMATING_PLAYS):
        dice = _RecordingDice(seed, budget)
        before = budget.used
        try:
            process.step(start, dice)
        except _TooWide:
            raise
        except EnumerationBudgetError:
            return math.inf, math.inf
        if dice.digits > 300:  # past what a float holds, and past any budget anyway
            return dice.digits, math.inf
        size = 10**dice.digits
        paths += size
        rolls += size * max(1, budget.used - before)
    return math.log10(paths / ESTIMATING_PLAYS), rolls / ESTIMATING_PLAYS


def _natural_order(ruleset: AnyRuleset, model: Any, budget: int) -> tuple[str, ...]:
    """The metric order of ``summarize``, from one seeded play (sorted outcomes lose it)."""
    try:
        played = ruleset.play(model, CountingDice(SeededDice(0), WorkBudget(budget, "dice rolls")))
    except EnumerationBudgetError:
        return ()
    return tuple(ruleset.summarize(model, played))


class _NoDice:
    def roll(self, node: ChanceNode) -> int:
        raise FracasError(f"a deterministic ruleset asked for a die ({node.label})")


def _exact_result(
    name: str,
    answer: ExactAnswer,
    rolls: int,
    derive: Callable[[Mapping[str, Value]], Mapping[str, Value]] | None,
    budget: int,
) -> OddsResult:
    marginals: dict[str, dict[Value, Probability]] = {}
    for outcome, probability in answer.outcomes.items():
        summary = _with_derived(dict(outcome), derive)
        for metric, value in summary.items():
            bucket = marginals.setdefault(metric, {})
            bucket[value] = bucket.get(value, 0) + probability
    for metric, values in answer.settled.items():
        # Settled values are the metric values a ruleset hands over (hashable in core), on
        # the paths whose final outcomes no longer carry them.
        bucket = marginals.setdefault(metric, {})
        for value, probability in cast(dict[Value, Probability], values).items():
            bucket[value] = bucket.get(value, 0) + probability
    _fill_missing(marginals, total=_sum(answer.outcomes.values(), exact=_all_fractions(answer)))
    if answer.metric_order:
        rank = {name: index for index, name in enumerate(answer.metric_order)}
        order = sorted(marginals, key=lambda name: rank.get(name, len(rank)))
        marginals = {name: marginals[name] for name in order}
    metrics = tuple(_exact_metric(metric, values) for metric, values in marginals.items())
    return OddsResult(
        ruleset=name,
        method="exact",
        solver=answer.method,
        work=answer.work,
        work_unit=answer.work_unit,
        dice_rolls=rolls,
        metrics=metrics,
        error_bar=answer.dropped,
        budget=budget,
    )


def _all_fractions(answer: ExactAnswer) -> bool:
    return all(isinstance(p, Fraction) for p in answer.outcomes.values())


def _fill_missing(marginals: dict[str, dict[Value, Probability]], total: Probability) -> None:
    """An outcome without a metric counts as the value ``None`` for that metric."""
    for bucket in marginals.values():
        missing = total - _sum(bucket.values(), exact=isinstance(total, Fraction))
        if missing > 1e-12:
            bucket[None] = bucket.get(None, 0) + missing


def _exact_metric(name: str, values: Mapping[Value, Probability]) -> MetricOdds:
    # Float solvers may overshoot 1 by a rounding error; a probability never does.
    ordered = sorted(
        ((v, p if isinstance(p, Fraction) else min(p, 1.0)) for v, p in values.items()),
        key=lambda item: _order_key(item[0]),
    )
    entries = tuple(ValueOdds(v, p, float(p), float(p)) for v, p in ordered if p)
    numeric = _numeric(v for v, _ in ordered)
    mean: Probability | None = None
    if numeric:
        present = [(v, p) for v, p in ordered if v is not None]
        weight = _sum(
            (p for _, p in present), exact=all(isinstance(p, Fraction) for _, p in present)
        )
        if weight:
            if isinstance(weight, Fraction):
                mean = sum((Fraction(v) * p for v, p in present), Fraction(0)) / weight
            else:
                mean = sum(float(v) * float(p) for v, p in present) / float(weight)
    low = high = None if mean is None else float(mean)
    return MetricOdds(name, numeric, entries, mean, low, high)


# ── Monte Carlo ────────────────────────────────────────────────────────────────────────


def repetition_seed(seed: int, index: int) -> int:
    """The seed of repetition ``index`` of a Monte Carlo run seeded with ``seed``.

    Each repetition is an ordinary seeded play, so ``fracas resolve --seed`` with this
    number replays it exactly.

    >>> repetition_seed(0, 0) == repetition_seed(0, 0) != repetition_seed(0, 1)
    True
    """
    digest = hashlib.sha256(f"fracas-odds:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _sample(
    ruleset: AnyRuleset,
    model: Any,
    *,
    derive: Callable[[Mapping[str, Value]], Mapping[str, Value]] | None,
    seed: int,
    runs: int,
    precision: float | None,
    max_runs: int,
    confidence: float,
    budget: int,
    fallback: str,
    wasted: int,
) -> OddsResult:
    # Runs are played where fracas.analysis.parallel.running says; the tally is the same.
    question = Question(
        ruleset,
        model,
        seed,
        None if derive is None else partial(ruleset.derived_metrics, model),
    )
    tally = Tally()
    rolls = 0
    goal = runs if precision is None else max_runs
    stopped_by = "runs" if precision is None else "max runs"
    progress = parallel.current().progress
    if progress is not None:
        progress.start(goal, "runs", ruleset.name)
    index = 0
    with collecting_once_per_step():
        while index < goal and stopped_by not in ("precision", "work budget"):
            end, every = goal, 0
            if precision is not None:
                # The tally is looked at every BATCH_RUNS runs, but runs played together
                # share the sampler's steps: up to a quarter of the runs so far are played
                # at once, each batch's tally kept apart, those past the stop thrown away.
                quarter = index // 4 // BATCH_RUNS * BATCH_RUNS
                ahead = min(PRECISION_SLICE, max(BATCH_RUNS, quarter))
                end, every = min(goal, index + ahead), BATCH_RUNS
            chunk = parallel.sample(question, index, end, budget - rolls, every=every)
            for stop, part, part_rolls in chunk.parts:
                tally.merge(part)
                rolls += part_rolls
                index = stop
                if chunk.over and stop == chunk.stop:
                    stopped_by = "work budget"
                # The headline also reports events made of several values (a unit "bottles
                # out" in any of three fates), whose intervals may be wider than any one's.
                if (
                    precision is not None
                    and tally.runs
                    and tally.widest(confidence) < precision
                    and _widest_reported(_sampled_result(ruleset, tally, confidence)) < precision
                ):
                    stopped_by = "precision"
                if stopped_by in ("precision", "work budget"):
                    break
    if tally.runs == 0:
        raise FracasError(
            f"a single play needs more than {budget:,} dice rolls; raise --sample-budget"
        )
    result = _sampled_result(ruleset, tally, confidence)
    return replace(
        result,
        dice_rolls=(budget if stopped_by == "work budget" else rolls) + wasted,
        error_bar=_widest_reported(result),
        seed=seed,
        precision=precision,
        stopped_by=stopped_by,
        fallback=fallback,
        budget=budget,
    )


def _sampled_result(ruleset: AnyRuleset, tally: Tally, confidence: float) -> OddsResult:
    metrics = tuple(
        _sampled_metric(metric, counter, tally, confidence)
        for metric, counter in tally.counts.items()
    )
    return OddsResult(
        ruleset=ruleset.name,
        method="monte-carlo",
        solver="seeded repetitions",
        work=tally.runs,
        work_unit="runs",
        dice_rolls=0,
        metrics=metrics,
        confidence=confidence,
        error_bar=tally.widest(confidence),
        runs=tally.runs,
        headlines=ruleset.headlines,
    )


def _widest_reported(result: OddsResult) -> float:
    """The widest probability interval in the report: values, ranges, headline events."""
    widest = result.error_bar
    for metric in result.metrics:
        for shown in shown_rows(metric, result)[1]:
            widest = max(widest, (shown.high - shown.low) / 2)
    for row in headline(result):
        if row.kind == "probability":
            widest = max(widest, (row.high - row.low) / 2)
    return widest


def _sampled_metric(
    name: str, counter: Counter[Value], tally: Tally, confidence: float
) -> MetricOdds:
    entries = tuple(
        ValueOdds(value, count / tally.runs, *wilson_interval(count, tally.runs, confidence), count)
        for value, count in sorted(counter.items(), key=lambda item: _order_key(item[0]))
    )
    numeric = _numeric(counter)
    if not numeric or name not in tally.sums:
        return MetricOdds(name, numeric, entries)
    present = tally.runs - counter.get(None, 0)
    mean = tally.sums[name] / present
    low, high = mean_interval(tally.sums[name], tally.squares[name], present, confidence)
    return MetricOdds(name, numeric, entries, mean, low, high)


# ── helpers ────────────────────────────────────────────────────────────────────────────


def _with_derived(
    summary: Mapping[str, Value],
    derive: Callable[[Mapping[str, Value]], Mapping[str, Value]] | None,
) -> Mapping[str, Value]:
    if derive is None:
        return summary
    return {**summary, **derive(summary)}


def _numeric(values: Iterable[Value]) -> bool:
    present = [v for v in values if v is not None]
    return bool(present) and all(_is_number(v) for v in present)


def _order_key(value: Value) -> tuple[int, Any]:
    if value is None:
        return (2, "")
    if _is_number(value):
        return (0, value)
    return (1, repr(value))
