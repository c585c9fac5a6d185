"""Exact odds of a process: a distribution over live states, walked step by step.

Between two steps equal states *merge*: the walk keeps a distribution over states instead
of a list of paths (the idea of icepool's ``map(repeat=…)`` and of absorbing Markov
chains). Within one step it enumerates every path of the step's dice by replaying the
step, branching once per face of a :class:`~fracas.core.dice.ChanceNode` and once per key
of a :class:`~fracas.core.dice.DiceGroup` (whose closed form stands in for its many faces).

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
"""

from __future__ import annotations

import gc
import operator
import threading
from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import chain, compress, islice, repeat
from typing import Any, BinaryIO, Generic, NamedTuple, TypeVar

from fracas.core import helper as forking
from fracas.core.dice import ChanceNode, Dice, DiceGroup
from fracas.core.distribution import EnumerationBudgetError
from fracas.core.errors import FracasError
from fracas.core.helper import Helper, receive, send
from fracas.core.limits import Budget
from fracas.core.process import Process, work_watch

S = TypeVar("S", bound=Hashable)
T = TypeVar("T")
Probability = Fraction | float


class _Weights:
    """A live state's probability, and for each event metric of the process the part of
    it on the paths where that event has not happened yet (:class:`Eventful`).

    Weights merge and scale as probabilities do, part by part, so the states need not
    remember which events have happened: that is what keeps them few.

    >>> w = _Weights((0.5, 0.5)) * 0.5 + _Weights((0.25, 0.0))
    >>> w.parts, float(w), w < 0.6, w.happened((0,)).parts
    ((0.5, 0.25), 0.5, True, (0.5, 0.0))
    """

    __slots__ = ("parts",)

    def __init__(self, parts: tuple[Probability, ...]) -> None:
        self.parts = parts

    # Weights are made for every path of every step of a walk with events: built without
    # __init__, part by part in C (map), they cost about half as much.
    def __mul__(self, chance: Probability) -> _Weights:
        scaled = _new_weights(_Weights)
        scaled.parts = tuple(map(operator.mul, self.parts, repeat(chance)))
        return scaled

    __rmul__ = __mul__

    def __add__(self, other: object) -> _Weights:
        if isinstance(other, _Weights):
            if len(other.parts) != len(self.parts):
                raise ValueError("weights of different events cannot be added")
            total = _new_weights(_Weights)
            total.parts = tuple(map(operator.add, self.parts, other.parts))
            return total
        if other == 0:
            return self
        return NotImplemented

    __radd__ = __add__

    def __lt__(self, other: float) -> bool:
        return self.parts[0] < other

    def __float__(self) -> float:
        return float(self.parts[0])

    def __reduce__(self) -> tuple[type[_Weights], tuple[tuple[Probability, ...]]]:
        return _Weights, (self.parts,)

    def happened(self, events: Iterable[int]) -> _Weights:
        """These weights once the events numbered ``events`` have happened."""
        parts = list(self.parts)
        for event in events:
            parts[event + 1] = 0 * parts[0]
        return _Weights(tuple(parts))


_new_weights = object.__new__


class WorkBudget(Budget):
    """The counted work of one odds question: past ``limit`` it stops with
    :class:`EnumerationBudgetError`, which odds turn into sampling or a larger budget to ask
    for (the limit is the question's own ``exact_budget`` / ``sample_budget``).

    >>> budget = WorkBudget(2, "dice rolls")
    >>> budget.spend(); budget.spend(); budget.used
    2
    >>> budget.spend()
    Traceback (most recent call last):
    ...
    fracas.core.distribution.EnumerationBudgetError: more than 2 dice rolls
    """

    __slots__ = ()

    def __init__(self, limit: int, unit: str) -> None:
        super().__init__("odds", unit, limit)

    def exceeded(self) -> FracasError:
        return EnumerationBudgetError(f"more than {self.steps:,} {self.unit}")


class CountingDice:
    """Passes rolls on to ``inner`` and spends one unit of ``budget`` per die."""

    def __init__(self, inner: Dice, budget: WorkBudget) -> None:
        self._inner = inner
        self._budget = budget

    def roll(self, node: ChanceNode) -> int:
        self._budget.spend()
        return self._inner.roll(node)


@dataclass(frozen=True)
class ExactStates(Generic[S]):
    """The final states of a process with their probabilities, and the work it took.

    ``settled`` holds the odds of the metrics a :class:`Settling` process handed over on
    the way (metric → value → probability). ``work`` counts step plays: one for every path
    through one step from one merged state. ``peak`` is the largest number of distinct
    live states between two steps. ``dropped`` is the probability left out by a
    ``tolerance`` (0 without one): every probability is exact to within it.
    """

    states: Mapping[S, Probability]
    work: int
    steps: int
    peak: int
    settled: Mapping[str, Mapping[Hashable, Probability]] = field(default_factory=dict)
    dropped: float = 0.0


#: Live states from which a walk looks ahead before a step (:class:`ProjectedOverBudget`),
#: and how many of them, evenly spaced in the frontier's order, it plays to look: at most
#: 3.2 % more work on a step (a smaller step's look would cost one-round questions about a
#: tenth of their time, for steps too small to overrun a budget but rarely).
LOOK_AHEAD_FROM = 1_000
LOOK_AHEAD_STATES = 32


class ProjectedOverBudget(EnumerationBudgetError):
    """A walk stopped before a step that, by the states it played to look, would take more
    plays than its budget has left: the walk would have run out inside that step anyway,
    only later. ``spent`` counts the plays made, the look included.
    """

    def __init__(self, budget: int, *, spent: int, projected: int) -> None:
        super().__init__(
            f"more than {budget:,} step plays (the next step alone would take about "
            f"{projected:,} of them)"
        )
        self.spent = spent
        self.projected = projected


#: Live states from which a step's second half goes to a helper process, when an exact walk
#: may use two (:func:`sharing_work`). A smaller step takes a few tens of milliseconds, about
#: what forking the helper and sending it the states would cost.
SHARE_FROM = 2_000


@dataclass(frozen=True)
class _Sharing:
    from_states: int
    even_when_busy: bool = False


#: When an exact walk forks its helper (see :func:`sharing_work`); how many processes it
#: may use is :func:`fracas.core.helper.sharing_with`'s.
_SHARING: ContextVar[_Sharing] = ContextVar(
    "fracas_exact_sharing",
    default=_Sharing(SHARE_FROM),  # noqa: B039  (frozen: never changed in place)
)


@contextmanager
def sharing_work(
    processes: int, *, from_states: int = SHARE_FROM, even_when_busy: bool = False
) -> Iterator[None]:
    """Let every exact walk inside use up to ``processes`` processes (two at most help):
    :func:`~fracas.core.helper.sharing_with`, with when a walk forks its helper.

    The answer is the same to the bit whatever ``processes`` is. Each step of a walk cuts
    its live states in two halves (the first one larger by one when their number is odd),
    walks each half on its own as one loop over all of them would, and only then adds the
    second half's sums to the first's: one process walks the two halves one after the
    other, two walk them side by side.

    The second process is forked at the first step with at least ``from_states`` live
    states (smaller steps stay here), and only where that is safe: a platform that forks
    (not macOS, whose system libraries do not survive it) and no other thread running in
    this process (a thread may hold a lock that the fork would copy held), and, unless
    ``even_when_busy``, only while a core is free
    (:func:`~fracas.core.helper.a_core_is_free`): on a machine whose cores are all busy
    the second process only slows the walk down. Otherwise the
    walk stays in this process. The helper inherits the process being walked; each step it
    is sent the states of its half that it does not hold already (it keeps the states it
    returned the step before, and those the first half did not reach stay with it) and
    returns what its half leads to. It never writes to the terminal, and it is stopped and
    waited for when the walk ends, whether it finishes, runs out of budget, fails (its half
    is walked again here, which raises the error with its traceback) or is interrupted; if
    it dies, this process walks the second halves itself.

    >>> from fracas.core.dice import D6, Dice
    >>> class Race:
    ...     "Roll a D6 each step and add it; stop at 12 or more."
    ...     def start(self) -> int: return 0
    ...     def step(self, state: int, dice: Dice) -> int: return state + dice.roll(D6)
    ...     def finished(self, state: int) -> bool: return state >= 12
    >>> alone = exact_states(Race(), budget=10_000, fractions=False)
    >>> with sharing_work(2, from_states=1, even_when_busy=True):
    ...     shared = exact_states(Race(), budget=10_000, fractions=False)
    >>> shared == alone and list(shared.states) == list(alone.states)
    True
    """
    token = _SHARING.set(_Sharing(from_states, even_when_busy))
    try:
        with forking.sharing_with(processes):
            yield
    finally:
        _SHARING.reset(token)


def exact_states(
    process: Process[S],
    *,
    budget: int,
    fractions: bool = True,
    closed_forms: bool = True,
    tolerance: float = 0.0,
    look_ahead: bool = True,
) -> ExactStates[S]:
    """Every way ``process`` can end, with its exact probability, merging states per step.

    Probabilities are :class:`~fractions.Fraction` values, or floats with
    ``fractions=False`` (faster; the sums then carry rounding errors of about 1e-15).
    With ``closed_forms=False`` every die of a dice group is enumerated face by face (the
    slow, independent check of the groups' closed forms). More than ``budget`` step plays
    raise :class:`~fracas.core.distribution.EnumerationBudgetError`.

    A ``tolerance`` (floats only) leaves out every branch and every live state whose
    probability is below it: the far tails of many binomials, which are most of the
    states and none of the odds. What is left out is summed in ``dropped``, so each
    probability returned is exact to within ``dropped``.

    With ``look_ahead`` the walk may stop before a step that, by a few of its states,
    would overrun the budget (:class:`ProjectedOverBudget`): an estimate, so it may
    stop a walk that would just have fitted. Without it only the budget stops a walk.

    Each step walks the live states in two halves, which a second process may share
    (:func:`sharing_work`) with the same answer to the bit.

    >>> from fracas.core.dice import D6, Dice
    >>> class Sixes:
    ...     "Roll a D6 five times; count the sixes."
    ...     def start(self) -> tuple[int, int]: return (0, 0)
    ...     def step(self, state: tuple[int, int], dice: Dice) -> tuple[int, int]:
    ...         return (state[0] + 1, state[1] + (dice.roll(D6) == 6))
    ...     def finished(self, state: tuple[int, int]) -> bool: return state[0] == 5
    >>> rough = exact_states(Sixes(), budget=1_000, fractions=False, tolerance=1e-3)
    >>> sorted(sixes for _, sixes in rough.states)   # five sixes (1/7776) left out
    [0, 1, 2, 3, 4]
    >>> exact = exact_states(Sixes(), budget=1_000, fractions=False)
    >>> round(rough.dropped, 6), round(1 - sum(rough.states.values()), 6)
    (0.003858, 0.003858)
    >>> all(exact.states[s] - rough.dropped <= p <= exact.states[s]
    ...     for s, p in rough.states.items())
    True
    """
    if tolerance and fractions:
        raise ValueError("a tolerance drops states of float odds only; fractions keep all")
    if tolerance < 0:
        raise ValueError(f"a tolerance is a probability of 0 or more, not {tolerance}")
    walk = _Walk(
        process, budget, fractions=fractions, closed_forms=closed_forms, tolerance=tolerance
    )
    work = WorkBudget(budget, "step plays")
    one: Probability = Fraction(1) if fractions else 1.0
    events = walk.events
    start: Any = _Weights((one,) * (len(events) + 1)) if events else one
    frontier: dict[S, Any] = {process.start(): start}
    done: dict[S, Any] = {}
    settled: dict[str, dict[Hashable, Probability]] = {}
    steps = peak = 0
    dropped = 0.0
    watch = work_watch()
    sharing = _SHARING.get()
    may_fork = forking.sharing_processes() > 1
    helper: Helper | None = None
    # The frontier is the first half's states (``mine`` of them), then the second half's
    # that the first did not reach. When the helper walked that second half it still
    # holds them: ``kept`` flags them among the states it returned, so that next step
    # they need not be sent to it again.
    mine = 1
    kept: bytes | None = None
    try:
        with collecting_once_per_step():
            while frontier:
                before = work.used
                if look_ahead and len(frontier) >= LOOK_AHEAD_FROM:
                    walk.look_ahead(frontier, before)
                cut = (len(frontier) + 1) // 2
                big = len(frontier) >= sharing.from_states
                if big and may_fork:
                    may_fork = False  # once per walk
                    if sharing.even_when_busy or forking.a_core_is_free():
                        helper = Helper.start(_walk_halves(walk))
                shared = big and helper is not None
                if shared:
                    assert helper is not None
                    helper.send(_request(frontier, cut, mine, kept, before))
                    first = walk.half(islice(frontier.items(), cut), before)
                    second = _walked(helper.receive())
                    if second is None:  # the helper failed: its half is walked here
                        helper.stop()
                        helper = None
                        shared = False
                        second = walk.half(islice(frontier.items(), cut, None), before)
                else:
                    states = iter(frontier.items())
                    first = walk.half(islice(states, cut), before)
                    second = walk.half(states, before)
                following = first.following
                mine = len(following)
                if shared:
                    kept = _add_flagging_new(following, second.following)
                else:
                    _add(following, second.following)
                    kept = None
                for half in (first, second):
                    _add(done, half.done)
                    for metric, odds in half.settled.items():
                        _add(settled.setdefault(metric, {}), odds)
                dropped += first.dropped + second.dropped
                work.spend(first.used - before + second.used - before)
                steps += 1
                peak = max(peak, len(following))
                frontier = following
                collect_young()
                if watch is not None:
                    watch(work.used)
    finally:
        if helper is not None:
            helper.stop()
    if events:
        done, settled = _events_settled(done, settled, events, one)
    return ExactStates(done, work.used, steps, peak, settled, dropped)


def _events_settled(
    done: Mapping[S, _Weights],
    settled: dict[str, dict[Hashable, Probability]],
    events: Sequence[str],
    one: Probability,
) -> tuple[dict[S, Probability], dict[str, dict[Hashable, Probability]]]:
    """The final states' own probabilities, and each event metric's law beside the metrics
    handed over: false on the paths where it never happened, true on the rest."""
    zero = 0 * one
    total, never = zero, [zero] * len(events)
    states: dict[S, Probability] = {}
    for state, weights in done.items():
        parts = weights.parts
        states[state] = parts[0]
        total += parts[0]
        for index in range(len(events)):
            never[index] += parts[index + 1]
    laws = dict(settled)
    for name, untouched in zip(events, never, strict=True):
        laws[name] = {False: untouched, True: total - untouched}
    return states, laws


class _Half(NamedTuple):
    """What one step made of some of the live states."""

    #: The states they lead to, with their probabilities, in the order first reached.
    following: dict[Any, Probability]
    #: Those of them that were finished (they take no step).
    done: dict[Any, Probability]
    #: The metrics handed over (:class:`Settling`): metric → value → probability.
    settled: dict[str, dict[Hashable, Probability]]
    #: The probability a tolerance left out.
    dropped: float
    #: The budget's count after them.
    used: int


class _Walk(Generic[S]):
    """One exact walk's process, options and branch tables: what walks part of a step."""

    def __init__(
        self,
        process: Process[S],
        budget: int,
        *,
        fractions: bool,
        closed_forms: bool,
        tolerance: float,
    ) -> None:
        self.process = process
        self.budget = budget
        self.closed_forms = closed_forms
        self.tolerance = tolerance
        self.laws = _Laws(fractions, ordered=tolerance > 0)
        self.settle: Callable[[S], tuple[S, Mapping[str, Hashable]] | None] | None = getattr(
            process, "settle", None
        )
        self.branch: Callable[[S], tuple[DiceGroup[Any, Any], Callable[[Any], S]] | None] | None = (
            getattr(process, "branch", None) if closed_forms else None
        )
        #: The process's event metrics (:class:`~fracas.core.process.Eventful`), by number.
        self.events: tuple[str, ...] = tuple(getattr(process, "events", ()))
        self._event_index = {name: index for index, name in enumerate(self.events)}

    def half(self, pairs: Iterable[tuple[S, Probability]], used: int) -> _Half:
        """One step from ``pairs`` (live states and their probabilities, in the frontier's
        order), ``used`` step plays having been spent before the step."""
        process, laws, closed_forms, tolerance = (
            self.process,
            self.laws,
            self.closed_forms,
            self.tolerance,
        )
        settle, branch, finished, events = self.settle, self.branch, process.finished, self.events
        work = WorkBudget(self.budget, "step plays")
        work.used = used
        following: dict[S, Probability] = {}
        done: dict[S, Probability] = {}
        settled: dict[str, dict[Hashable, Probability]] = {}
        dropped = 0.0
        get = following.get
        for state, probability in pairs:
            if finished(state):
                done[state] = probability  # a state is live once per step
                continue
            if probability < tolerance:
                dropped += float(probability)
                continue
            split = branch(state) if branch is not None else None
            if split is not None:
                paths, lost = _group_paths(split, laws, work, probability, tolerance)
            else:
                paths, lost = _step_paths(
                    process, state, laws, work, closed_forms, probability, tolerance
                )
            dropped += lost
            for after, chance in paths:
                # A probability, or the weights of a process with events (_Weights).
                p: Any = probability * chance
                handed = settle(after) if settle is not None else None
                if handed is not None:
                    after, metrics = handed
                    if events:
                        p, metrics = self._events(p, metrics)
                        mass = p.parts[0]
                    else:
                        mass = p
                    for metric, value in metrics.items():
                        bucket = settled.setdefault(metric, {})
                        bucket[value] = bucket.get(value, 0) + mass
                following[after] = get(after, 0) + p
        return _Half(following, done, settled, dropped, work.used)

    def look_ahead(self, frontier: Mapping[S, Any], used: int) -> None:
        """Play :data:`LOOK_AHEAD_STATES` of the ``frontier``'s states, evenly spaced in its
        order, and stop the walk (:class:`ProjectedOverBudget`) if the step at their mean
        would take more plays than the budget has left after ``used``.

        The look depends on nothing but the frontier, so a walk stops at the same step on
        every machine. Its plays are played again by the step, so they do not count
        against the budget; one state that alone needs more than is left stops the walk
        at once, as the step itself would.
        """
        states = list(frontier.items())
        count = len(states)
        look = [
            states[(2 * index + 1) * count // (2 * LOOK_AHEAD_STATES)]
            for index in range(LOOK_AHEAD_STATES)
        ]
        plays = sum(self.half([pair], used).used - used for pair in look)
        projected = plays * count // LOOK_AHEAD_STATES
        if used + projected > self.budget:
            raise ProjectedOverBudget(self.budget, spent=used + plays, projected=projected)

    def _events(
        self, weights: _Weights, metrics: Mapping[str, Hashable]
    ) -> tuple[_Weights, dict[str, Hashable]]:
        """The weights once the events handed over as true have happened, and the other
        metrics handed over (an event's law comes from the weights alone)."""
        index = self._event_index
        happened = [index[name] for name, value in metrics.items() if name in index and value]
        others = {name: value for name, value in metrics.items() if name not in index}
        return (weights.happened(happened) if happened else weights), others


def _add(into: dict[T, Probability], more: Mapping[T, Probability]) -> None:
    """Add ``more``'s probabilities to ``into``'s, key by key in ``more``'s order."""
    if not into:
        into.update(more)  # 0 + p is p
        return
    get = into.get
    for key, p in more.items():
        into[key] = get(key, 0) + p


def _add_flagging_new(into: dict[T, Probability], more: Mapping[T, Probability]) -> bytes:
    """:func:`_add`, telling with a byte per key of ``more`` (in its order) whether the
    key was new to ``into`` (1) or already there (0)."""
    get = into.get
    new = bytearray(len(more))
    for index, (key, p) in enumerate(more.items()):
        old = get(key)
        if old is None:
            into[key] = p  # 0 + p is p
            new[index] = 1
        else:
            into[key] = old + p
    return bytes(new)


def _walk_halves(walk: _Walk[Any]) -> Callable[[BinaryIO, BinaryIO], None]:
    """What a walk's helper does: walk each second half it is sent, until the pipe closes.

    A request holds the states to walk that it does not hold, which of the states it
    returned the step before are part of its half (``kept``, from ``skip`` on) and the
    budget's count before the step (:func:`_request`); the reply is the half's
    :class:`_Half`, the budget's error, or ``None`` when the half failed otherwise.
    """

    def serve(reader: BinaryIO, writer: BinaryIO) -> None:
        # The states it returned last step: the parent sends again only those of them
        # that its own half reached too.
        returned: dict[Any, Probability] = {}
        while (message := receive(reader)) is not None:
            sent, kept, skip, used = message
            pairs: Iterable[tuple[Any, Probability]] = sent
            if kept is not None:
                held = compress(returned.items(), kept)
                pairs = chain(sent, islice(held, skip, None))
            reply: _Half | EnumerationBudgetError | None
            try:
                reply = walk.half(pairs, used)
                returned = reply.following
            except EnumerationBudgetError as over:
                reply, returned = over, {}
            except Exception:  # walked again by the walk's process, which raises it
                reply, returned = None, {}
            del message, sent, pairs
            send(writer, reply)
            del reply
            collect_young()

    return serve


def _request(
    frontier: dict[S, Probability], cut: int, mine: int, kept: bytes | None, used: int
) -> tuple[list[tuple[S, Probability]], bytes | None, int, int]:
    """What a walk's helper is sent for the states of ``frontier`` from ``cut`` on: those
    it does not hold (the frontier's first ``mine`` came from this process; ``kept``
    flags the rest among the states the helper returned last, or is ``None``), and where
    the ones it holds start."""
    if kept is None:
        return list(islice(frontier.items(), cut, None)), None, 0, used
    return list(islice(frontier.items(), cut, mine)), kept, max(0, cut - mine), used


def _walked(reply: Any) -> _Half | None:
    """The helper's half, or ``None`` when it failed; the budget's error is raised."""
    if isinstance(reply, EnumerationBudgetError):
        raise reply
    return reply if isinstance(reply, _Half) else None


class _CollectorPause:
    """Automatic garbage collection paused while any exact walk or sampling question
    runs, in any thread.

    A step makes millions of small tuples and keeps tens of thousands of states alive:
    the collector's automatic passes over them took about a tenth of a walk, and a sixth
    of a long sampling question (whose learnt graph lives on between its slices). The
    work instead collects the youngest generation after a step or a slice
    (:func:`collect_young`), so that reference cycles it leaves behind never pile up.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._walks = 0
        self._was_enabled = False

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if not self._walks:
                self._was_enabled = gc.isenabled()
                gc.disable()
            self._walks += 1
        try:
            yield
        finally:
            with self._lock:
                self._walks -= 1
                if not self._walks and self._was_enabled:
                    gc.enable()


collecting_once_per_step = _CollectorPause()

#: Objects made (and not yet freed) since the last collection past which a walk collects
#: the youngest generation after a step. Collecting after every step cost twice as much:
#: a state that lives one step only is never looked at when the collection waits.
COLLECT_AFTER = 100_000


def collect_young() -> None:
    """Collect the youngest generation once enough has been made since the last time."""
    if gc.get_count()[0] > COLLECT_AFTER:
        gc.collect(0)


#: A branch table: the branches, then (ordered for a tolerance: likeliest first) their
#: negated probabilities for a bisection, and the mass of every tail.
Table = tuple[tuple[tuple[Any, Probability], ...], tuple[float, ...], tuple[float, ...]]


class _Laws:
    """Branch tables of nodes and groups, in the chosen number type, computed once each."""

    def __init__(self, fractions: bool, *, ordered: bool = False) -> None:
        self.fractions = fractions
        self.ordered = ordered
        self.nodes: dict[ChanceNode, Table] = {}
        self.groups: dict[Any, Table] = {}
        # A step replayed once per branch asks for the same group object every time:
        # found by identity, without hashing it.
        self._last_group: object = None
        self._last_table: Table = ((), (), ())

    def of_node(self, node: ChanceNode) -> Table:
        table = self.nodes.get(node)
        if table is None:
            total = node.total_weight
            table = self._table([(face, Fraction(w, total)) for face, w in node.outcomes])
            self.nodes[node] = table
        return table

    def of_group(self, group: DiceGroup[Any, Any]) -> Table:
        if group is self._last_group:
            return self._last_table
        table = self.groups.get(group)
        if table is None:
            law = group.law() if self.fractions else group.float_law()
            table = self._table([(key, p) for key, p in law if p])
            self.groups[group] = table
        self._last_group, self._last_table = group, table
        return table

    def _table(self, branches: Sequence[tuple[Any, Probability]]) -> Table:
        if not self.fractions:
            branches = [(key, float(p)) for key, p in branches]
        if not self.ordered:
            return tuple(branches), (), ()
        branches = sorted(branches, key=lambda branch: -branch[1])
        tails = [0.0] * (len(branches) + 1)
        for index in range(len(branches) - 1, -1, -1):
            tails[index] = tails[index + 1] + float(branches[index][1])
        return tuple(branches), tuple(-float(p) for _, p in branches), tuple(tails)


class _BranchDice:
    """Takes the branches of a step's events: the choices of the path before, up to the
    event that changes, then the first branch of every event met anew.

    Under a tolerance only the branches whose probability (``scale``, the state's, times
    this path's so far) reaches it are taken; the first time an event is met on a path,
    the mass of the branches left out is added to ``lost``.
    """

    __slots__ = (
        "chance",
        "choices",
        "depth",
        "known",
        "laws",
        "lost",
        "one",
        "scale",
        "tolerance",
        "widths",
    )

    def __init__(
        self, laws: _Laws, one: Probability, scale: float = 1.0, tolerance: float = 0.0
    ) -> None:
        self.laws = laws
        self.one = one
        self.scale = scale
        self.tolerance = tolerance
        self.choices: list[int] = []
        self.widths: list[int] = []
        self.chance = one
        self.lost = 0.0
        self.depth = 0
        self.known = 0

    def replay(self, known: int) -> None:
        """Start a path that keeps the first ``known`` choices of the one before."""
        self.known = known
        self.depth = 0
        self.chance = self.one
        self.lost = 0.0

    def _take(self, table: Table) -> Any:
        depth = self.depth
        self.depth = depth + 1
        if depth < self.known:
            index = self.choices[depth]
        else:
            width, lost = _kept(table, self.scale * float(self.chance), self.tolerance)
            self.lost += lost
            index = 0
            self.choices.append(0)
            self.widths.append(width)
        value, p = table[0][index]
        self.chance *= p
        return value

    def roll(self, node: ChanceNode) -> int:
        face: int = self._take(self.laws.of_node(node))
        return face

    def draw_group(self, group: DiceGroup[Any, Any]) -> Any:
        return self._take(self.laws.of_group(group))


class _FaceDice(_BranchDice):
    """Branches on every face, dice groups included (no ``draw_group``: no closed forms)."""

    __slots__ = ()

    draw_group = None  # type: ignore[assignment]


def _group_paths(
    split: tuple[DiceGroup[Any, Any], Callable[[Any], S]],
    laws: _Laws,
    work: WorkBudget,
    scale: Probability,
    tolerance: float,
) -> tuple[list[tuple[S, Probability]], float]:
    """The paths of a step that is one group (:class:`Branching`), and the mass left out."""
    group, then = split
    table = laws.of_group(group)
    width, lost = _kept(table, float(scale), tolerance)
    work.spend(width)
    return [(then(key), p) for key, p in table[0][:width]], lost


def _kept(table: Table, reach: float, tolerance: float) -> tuple[int, float]:
    """How many of ``table``'s branches (likeliest first) a tolerance keeps on a path of
    probability ``reach``, and the mass of those it leaves out."""
    if not tolerance:
        return len(table[0]), 0.0
    # At least the likeliest branch, so that every step has an outcome.
    width = max(1, bisect_right(table[1], -tolerance / reach))
    return width, reach * table[2][width]


def _step_paths(
    process: Process[S],
    state: S,
    laws: _Laws,
    work: WorkBudget,
    closed_forms: bool = True,
    scale: Probability = 1.0,
    tolerance: float = 0.0,
) -> tuple[list[tuple[S, Probability]], float]:
    """Every path of one step from ``state``, and the mass a tolerance left out of them."""
    one: Probability = Fraction(1) if laws.fractions else 1.0
    paths: list[tuple[S, Probability]] = []
    dice = (_BranchDice if closed_forms else _FaceDice)(laws, one, float(scale), tolerance)
    step = process.step
    choices, widths = dice.choices, dice.widths
    lost = 0.0
    known = 0
    while True:
        work.spend()
        dice.replay(known)
        paths.append((step(state, dice), dice.chance))
        lost += dice.lost
        depth = dice.depth - 1
        while depth >= 0 and choices[depth] + 1 >= widths[depth]:
            depth -= 1
        if depth < 0:
            return paths, lost
        choices[depth] += 1
        del choices[depth + 1 :], widths[depth + 1 :]
        known = depth + 1


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
    #: Odds of metrics counted apart from ``outcomes`` (see :class:`Settling`), on the
    #: paths that handed them over: a metric's law is these odds plus those of the
    #: outcomes that still carry it.
    settled: Mapping[str, Mapping[Hashable, Probability]] = field(default_factory=dict)
    #: Probability left out under a tolerance: every probability is exact to within it.
    dropped: float = 0.0
