"""The contract every ruleset's play is written to: a process over hashable states.

A ruleset writes its play once, as a :class:`Process`: a start state, a ``step`` that moves
a state on (asking the injected dice for every random event) and a test for the end.
States are hashable values, so the evaluators in :mod:`fracas.analysis` can run the same
steps three ways: seeded play (:func:`run`, with the report's recorder), exact odds over
every live state at once, merging equal states (:mod:`fracas.analysis.exact`), and
sampling many plays (:mod:`fracas.analysis.sample`). A play with no natural steps is a
:class:`OneStep` process.

>>> from fracas.core.dice import D6, Dice, SeededDice
>>> class Race:
...     '''Roll a D6 each step and add it; stop at 4 or more.'''
...     def start(self) -> int: return 0
...     def step(self, state: int, dice: Dice) -> int: return state + dice.roll(D6)
...     def finished(self, state: int) -> bool: return state >= 4
>>> run(Race(), SeededDice(1)) >= 4
True
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, cast

from fracas.core.dice import Dice, DiceGroup

S = TypeVar("S", bound=Hashable)
R = TypeVar("R")


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
    never calls it, so a played state keeps everything. A metric may be handed over on
    some paths and left in the final states of others: its law is the sum of both. What
    is handed over keeps each metric's own law, not its joint law with the others.
    """

    def settle(self, state: S) -> tuple[S, Mapping[str, Hashable]] | None: ...


class Eventful(Settling[S], Protocol[S]):
    """A settling process with *event metrics*: yes-or-no metrics true when something
    happened at least once on the way (a unit was ever caught), which would otherwise
    split the states by every combination of what has happened so far.

    ``events`` names them. ``settle`` hands an event over as ``True`` on the step where
    it happens (again, if it happens again: once is what counts) and the state forgets it;
    nothing else reports it, and it is ``False`` on a path that never handed it over.
    Exact odds then carry, beside each live state's probability, the part of it on which
    each event has not happened yet, so states that differ only by their events merge;
    sampling reads each run's hand-overs. Play never settles: a played state keeps its
    events, and its metrics report them.
    """

    events: tuple[str, ...]


class Branching(Process[S], Protocol[S]):
    """A process whose steps are often one dice group and what each of its keys leads to.

    ``branch(state)`` returns ``(group, then)`` when the step from ``state`` draws
    ``group`` and nothing else, going on to ``then(key)``; ``None`` for a step of any
    other shape. Exact odds then take each key of the group's law at once instead of
    replaying the step per key. ``step`` must draw that group and go on the same way
    (a ruleset writes both from the same two halves), which the exact-odds tests check
    by comparing with plain enumeration.
    """

    def branch(self, state: S) -> tuple[DiceGroup[Any, Any], Callable[[Any], S]] | None: ...


def run(process: Process[S], dice: Dice) -> S:
    """Play ``process`` to its end with ``dice`` (seeded play, or one Monte Carlo run)."""
    state = process.start()
    while not process.finished(state):
        state = process.step(state, dice)
    return state


class OneStep(Generic[R]):
    """A play with no natural steps, as a process of one step: ``play(dice)`` is the step,
    and its result the final state (it must be hashable for exact odds to merge results).

    Exact odds then enumerate every path of that one step's dice, and sampling plays it
    once per run.

    >>> from fracas.core.dice import D6, SeededDice
    >>> once = OneStep(lambda dice: dice.roll(D6) + dice.roll(D6))
    >>> 2 <= run(once, SeededDice(5)).result <= 12
    True
    """

    def __init__(self, play: Callable[[Dice], R]) -> None:
        self.play = play

    def start(self) -> Done[R]:
        """Nothing played yet."""
        return cast("Done[R]", _NOT_PLAYED)

    def step(self, state: Done[R], dice: Dice) -> Done[R]:
        """The whole play."""
        return Done(self.play(dice))

    def finished(self, state: Done[R]) -> bool:
        """True once the play has run."""
        return state is not _NOT_PLAYED


@dataclass(frozen=True, slots=True)
class Done(Generic[R]):
    """The final state of a :class:`OneStep` process: what the play returned."""

    result: R


#: The start of every :class:`OneStep` process: nothing has been played.
_NOT_PLAYED: Done[Any] = Done(object())


@dataclass(frozen=True)
class Played(Generic[S]):
    """One seeded play: its final ``state`` and the ``notes`` its recorder kept."""

    state: S
    notes: tuple[object, ...]


#: Told the work done so far after each step of an exact walk (see :func:`watching_work`).
_WATCH: ContextVar[Callable[[int], None] | None] = ContextVar("fracas_work_watch", default=None)


@contextmanager
def watching_work(watch: Callable[[int], None] | None) -> Iterator[None]:
    """Tell ``watch`` the step plays done so far after each step of every exact walk inside.

    A progress display hangs on it; the walk itself knows nothing of displays.

    >>> seen: list[int] = []
    >>> with watching_work(seen.append):
    ...     work_watch()(12)   # what an exact walk does after each step
    >>> seen, work_watch() is None
    ([12], True)
    """
    token = _WATCH.set(watch)
    try:
        yield
    finally:
        _WATCH.reset(token)


def work_watch() -> Callable[[int], None] | None:
    """The watcher :func:`watching_work` put in force, if any: for other counted work (a
    ruleset's own search) to report to the same display."""
    return _WATCH.get()
