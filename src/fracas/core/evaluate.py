"""One definition of a ruleset's play, three uses: seeded play, exact odds, sampling.

A ruleset that wants exact odds beyond a few dice writes its play as a :class:`Process`:
a start state, a ``step`` that moves a state on (asking the injected dice for every random
event) and a test for the end. States are hashable values, so between two steps equal
states *merge*: the exact evaluator keeps a distribution over states instead of a list of
paths (the idea of icepool's ``map(repeat=…)`` and of absorbing Markov chains). Within one
step it enumerates every path of the step's dice by replaying the step, branching once per
face of a :class:`~fracas.core.dice.ChanceNode` and once per key of a
:class:`~fracas.core.dice.DiceGroup` (whose closed form stands in for its many faces).

Seeded play and Monte Carlo run the very same ``step`` with seeded dice (:func:`run`).

>>> from fracas.core.dice import D6, Dice
>>> class Race:
...     '''Roll a D6 each step and add it; stop at 4 or more.'''
...     def start(self) -> int: return 0
...     def step(self, state: int, dice: Dice) -> int: return state + dice.roll(D6)
...     def finished(self, state: int) -> bool: return state >= 4
>>> answer = exact_states(Race(), budget=1_000)
>>> answer.states[4]   # 4 at once, 1+3, 2+2, 3+1, 1+1+2, 1+2+1, 2+1+1, 1+1+1+1
Fraction(343, 1296)
>>> sum(answer.states.values())
Fraction(1, 1)
>>> from fracas.core.dice import SeededDice
>>> run(Race(), SeededDice(1)) >= 4
True
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Generic, Protocol, TypeVar

from fracas.core.dice import ChanceNode, Dice, DiceGroup
from fracas.core.distribution import EnumerationBudgetError

S = TypeVar("S", bound=Hashable)
Probability = Fraction | float


class Process(Protocol[S]):
    """A ruleset's play as steps over hashable states."""

    def start(self) -> S:
        """The state before any die is rolled."""
        ...

    def step(self, state: S, dice: Dice) -> S:
        """The next state; every random event is asked of ``dice``."""
        ...

    def finished(self, state: S) -> bool:
        """True when nothing is left to play."""
        ...


class Settling(Process[S], Protocol[S]):
    """A process whose states can hand over metrics that are already final.

    ``settle(state)`` returns the state without them and the metrics, or ``None``. Exact
    odds then count those metrics apart and merge the states that no longer differ; play
    never calls it, so a played state keeps everything.
    """

    def settle(self, state: S) -> tuple[S, Mapping[str, Hashable]] | None: ...


class WorkBudget:
    """Counts units of work and stops with :class:`EnumerationBudgetError` past ``limit``.

    >>> budget = WorkBudget(2, "dice rolls")
    >>> budget.spend(); budget.spend(); budget.used
    2
    >>> budget.spend()
    Traceback (most recent call last):
    ...
    fracas.core.distribution.EnumerationBudgetError: more than 2 dice rolls
    """

    __slots__ = ("limit", "unit", "used")

    def __init__(self, limit: int, unit: str) -> None:
        self.limit = limit
        self.unit = unit
        self.used = 0

    def spend(self, amount: int = 1) -> None:
        self.used += amount
        if self.used > self.limit:
            raise EnumerationBudgetError(f"more than {self.limit:,} {self.unit}")


class CountingDice:
    """Passes rolls on to ``inner`` and spends one unit of ``budget`` per die."""

    def __init__(self, inner: Dice, budget: WorkBudget) -> None:
        self._inner = inner
        self._budget = budget

    def roll(self, node: ChanceNode) -> int:
        self._budget.spend()
        return self._inner.roll(node)


def run(process: Process[S], dice: Dice) -> S:
    """Play ``process`` to its end with ``dice`` (seeded play, or one Monte Carlo run)."""
    state = process.start()
    while not process.finished(state):
        state = process.step(state, dice)
    return state


@dataclass(frozen=True)
class ExactStates(Generic[S]):
    """The final states of a process with their probabilities, and the work it took.

    ``settled`` holds the odds of the metrics a :class:`Settling` process handed over on
    the way (metric → value → probability). ``work`` counts step plays: one for every path
    through one step from one merged state. ``peak`` is the largest number of distinct
    live states between two steps.
    """

    states: Mapping[S, Probability]
    work: int
    steps: int
    peak: int
    settled: Mapping[str, Mapping[Hashable, Probability]] = field(default_factory=dict)


def exact_states(
    process: Process[S], *, budget: int, fractions: bool = True, closed_forms: bool = True
) -> ExactStates[S]:
    """Every way ``process`` can end, with its exact probability, merging states per step.

    Probabilities are :class:`~fractions.Fraction` values, or floats with
    ``fractions=False`` (faster; the sums then carry rounding errors of about 1e-15).
    With ``closed_forms=False`` every die of a dice group is enumerated face by face (the
    slow, independent check of the groups' closed forms). More than ``budget`` step plays
    raise :class:`~fracas.core.distribution.EnumerationBudgetError`.
    """
    work = WorkBudget(budget, "step plays")
    one: Probability = Fraction(1) if fractions else 1.0
    frontier: dict[S, Probability] = {process.start(): one}
    done: dict[S, Probability] = {}
    laws = _Laws(fractions)
    settle: Callable[[S], tuple[S, Mapping[str, Hashable]] | None] | None = getattr(
        process, "settle", None
    )
    settled: dict[str, dict[Hashable, Probability]] = {}
    steps = peak = 0
    while frontier:
        following: dict[S, Probability] = {}
        for state, probability in frontier.items():
            if process.finished(state):
                done[state] = done.get(state, 0) + probability
                continue
            for after, chance in _step_paths(process, state, laws, work, closed_forms):
                p = probability * chance
                handed = settle(after) if settle is not None else None
                if handed is not None:
                    after, metrics = handed
                    for metric, value in metrics.items():
                        bucket = settled.setdefault(metric, {})
                        bucket[value] = bucket.get(value, 0) + p
                following[after] = following.get(after, 0) + p
        steps += 1
        peak = max(peak, len(following))
        frontier = following
    return ExactStates(done, work.used, steps, peak, settled)


class _Laws:
    """Branch tables of nodes and groups, in the chosen number type, computed once each."""

    def __init__(self, fractions: bool) -> None:
        self.fractions = fractions
        self.nodes: dict[ChanceNode, tuple[tuple[Any, Probability], ...]] = {}
        self.groups: dict[Any, tuple[tuple[Any, Probability], ...]] = {}

    def of_node(self, node: ChanceNode) -> tuple[tuple[Any, Probability], ...]:
        table = self.nodes.get(node)
        if table is None:
            table = tuple(
                (face, self._number(Fraction(weight, node.total_weight)))
                for face, weight in node.outcomes
            )
            self.nodes[node] = table
        return table

    def of_group(self, group: DiceGroup[Any, Any]) -> tuple[tuple[Any, Probability], ...]:
        table = self.groups.get(group)
        if table is None:
            if self.fractions:
                table = tuple((key, p) for key, p in group.law() if p)
            else:
                table = tuple((key, p) for key, p in group.float_law() if p)
            self.groups[group] = table
        return table

    def _number(self, p: Fraction) -> Probability:
        return p if self.fractions else float(p)


class _BranchDice:
    """Replays a prefix of choices, then takes the first branch of every new event."""

    __slots__ = ("chance", "choices", "laws", "prefix", "widths")

    def __init__(self, prefix: list[int], laws: _Laws, one: Probability) -> None:
        self.prefix = prefix
        self.laws = laws
        self.choices: list[int] = []
        self.widths: list[int] = []
        self.chance = one

    def _take(self, table: tuple[tuple[Any, Probability], ...]) -> Any:
        depth = len(self.choices)
        index = self.prefix[depth] if depth < len(self.prefix) else 0
        value, p = table[index]
        self.choices.append(index)
        self.widths.append(len(table))
        self.chance *= p
        return value

    def roll(self, node: ChanceNode) -> int:
        face: int = self._take(self.laws.of_node(node))
        return face

    def draw_group(self, group: DiceGroup[Any, Any]) -> Any:
        return self._take(self.laws.of_group(group))


class _FaceDice:
    """Branches on every face, dice groups included (no ``draw_group``: no closed forms)."""

    __slots__ = ("inner",)

    def __init__(self, prefix: list[int], laws: _Laws, one: Probability) -> None:
        self.inner = _BranchDice(prefix, laws, one)

    def roll(self, node: ChanceNode) -> int:
        return self.inner.roll(node)

    @property
    def choices(self) -> list[int]:
        return self.inner.choices

    @property
    def widths(self) -> list[int]:
        return self.inner.widths

    @property
    def chance(self) -> Probability:
        return self.inner.chance


def _step_paths(
    process: Process[S], state: S, laws: _Laws, work: WorkBudget, closed_forms: bool = True
) -> list[tuple[S, Probability]]:
    one: Probability = Fraction(1) if laws.fractions else 1.0
    paths: list[tuple[S, Probability]] = []
    prefix: list[int] = []
    branch = _BranchDice if closed_forms else _FaceDice
    while True:
        work.spend()
        dice = branch(prefix, laws, one)
        paths.append((process.step(state, dice), dice.chance))
        choices, widths = dice.choices, dice.widths
        depth = len(choices) - 1
        while depth >= 0 and choices[depth] + 1 >= widths[depth]:
            depth -= 1
        if depth < 0:
            return paths
        prefix = [*choices[:depth], choices[depth] + 1]


def summarize_states(
    answer: ExactStates[S], summarize: Callable[[S], Hashable]
) -> dict[Hashable, Probability]:
    """Merge final states that summarize alike: the distribution of ``summarize(state)``."""
    merged: dict[Hashable, Probability] = {}
    for state, probability in answer.states.items():
        key = summarize(state)
        merged[key] = merged.get(key, 0) + probability
    return merged


#: One metric's value in one outcome.
Value = int | float | str | bool | None


@dataclass(frozen=True)
class ExactOdds:
    """What a ruleset's exact method returns: summaries with their probabilities.

    ``outcomes`` maps each summary (as ``(metric, value)`` pairs in the ruleset's order)
    to its probability; ``work`` counts ``work_unit``; ``method`` names what ran.
    """

    outcomes: Mapping[tuple[tuple[str, Value], ...], Probability]
    work: int
    work_unit: str
    method: str
    metric_order: tuple[str, ...] = ()
    #: Odds of metrics counted apart from ``outcomes`` (see :class:`Settling`).
    settled: Mapping[str, Mapping[Hashable, Probability]] = field(default_factory=dict)
