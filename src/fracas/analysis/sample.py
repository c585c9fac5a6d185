"""Sampling a process: many runs at once, each step taken by every run in lockstep.

Every sampled run has its own random stream (:mod:`fracas.core.streams`), so a run is
the same play however it is played. :func:`play_run` plays one run at a time, step by
step with :class:`~fracas.core.streams.StreamDice`: the plain reference. :class:`Sampler`
plays a whole block of runs at once and gives the very same summaries, faster.

It learns the process as a graph as the runs go: each state met is a node, numbered, and
what its step leads to is remembered the first time a run takes it. A step that is one
dice group (:class:`~fracas.core.process.Branching`) keeps the group's cumulative law as
integer bounds and the node each key leads to; a step that rolls no dice keeps the one
node it leads to; a settling state keeps the state it settles to and the metrics it hands
over. Every run is then a node number and a counter in arrays, and each step of the walk
moves all of them at once with array arithmetic: the uniform numbers of every stream, a
search of each run's bounds, the next node. Python runs only where the graph is new (a
state's step played for the first time) and for steps of any other shape, which are
played run by run with the run's own dice.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from fracas.analysis.exact import collect_young, collecting_once_per_step
from fracas.core.distribution import EnumerationBudgetError
from fracas.core.process import Process
from fracas.core.record import SUMMING
from fracas.core.streams import LawTable, StreamDice, law_table, uniform_bits
from fracas.rulesets import AnyRuleset
from fracas.rulesets.base import Summary

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

S = TypeVar("S", bound=Hashable)
T = TypeVar("T")

# What a node's step is, once known.
_NEW = 0  # not learnt yet
_GROUP = 1  # one dice group: bounds and a child per key
_FIXED = 2  # no dice: one next node
_PLAIN = 3  # any other step: played run by run
_HANDS = 4  # a settling state: hands metrics over and goes on as another
_FINAL = 5  # finished


class _Column:
    """A numpy array that grows at its end, for the graph's columns."""

    __slots__ = ("data", "fill", "size")

    def __init__(self, dtype: Any, fill: int) -> None:
        import numpy as np

        self.fill = fill
        self.data = np.full(1024, fill, dtype=dtype)
        self.size = 0

    def _room(self, more: int) -> None:
        import numpy as np

        need = self.size + more
        if need > len(self.data):
            grown = np.full(max(need, len(self.data) * 3 // 2), self.fill, self.data.dtype)
            grown[: self.size] = self.data[: self.size]
            self.data = grown

    def append(self, value: int) -> None:
        self._room(1)
        self.data[self.size] = value
        self.size += 1

    def extend(self, values: Any, count: int) -> None:
        """Add ``count`` entries of ``values`` (an array of them, or one for all)."""
        self._room(count)
        self.data[self.size : self.size + count] = values
        self.size += count

    def blank(self) -> None:
        """Add one entry holding the column's fill."""
        if self.size == len(self.data):
            self._room(1)
        self.size += 1


class Sampler(Generic[S, T]):
    """Plays blocks of runs of ``process`` at once (Monte Carlo): the summaries, in run
    order, that :func:`play_run` gives run by run, and the random numbers each used.

    ``summarize(state, settled)`` gets a final state with the metrics a
    :class:`~fracas.core.process.Settling` process handed over on the way (as exact odds
    settle them: fewer distinct states to remember); it is called once per such pair.
    Past ``limit`` states (looked at between two steps of the runs) the graph it has
    learnt starts afresh but for the states the runs wait at.

    >>> from fracas.core.dice import D6, Dice
    >>> from fracas.core.streams import run_keys
    >>> class Race:
    ...     "Roll a D6 each step and add it; stop at 4 or more."
    ...     def start(self) -> int: return 0
    ...     def step(self, state: int, dice: Dice) -> int: return state + dice.roll(D6)
    ...     def finished(self, state: int) -> bool: return state >= 4
    >>> sampler = Sampler(Race(), lambda total, settled: total)
    >>> keys = run_keys(0, 0, 50)
    >>> totals, used = sampler.play(keys)
    >>> one_by_one = [play_run(Race(), lambda t, s: t, int(k)) for k in keys]
    >>> from collections import Counter
    >>> dict(totals) == dict(Counter(total for total, _ in one_by_one))
    True
    >>> used == [numbers for _, numbers in one_by_one]
    True
    """

    def __init__(
        self,
        process: Process[S],
        summarize: Callable[[S, Mapping[str, Hashable]], T],
        *,
        limit: int = 200_000,
    ) -> None:
        self.process = process
        self.summarize = summarize
        self.settle: Callable[[S], tuple[S, Mapping[str, Hashable]] | None] | None = getattr(
            process, "settle", None
        )
        self.branch: Callable[[S], tuple[Any, Callable[[Any], S]] | None] | None = getattr(
            process, "branch", None
        )
        self.limit = limit
        #: Metrics handed over, as tuples: their index is what a run carries.
        self._settled: list[tuple[tuple[str, Hashable], ...]] = [()]
        self._settled_index: dict[tuple[tuple[str, Hashable], ...], int] = {(): 0}
        self._after: dict[tuple[int, tuple[tuple[str, Hashable], ...]], int] = {}
        #: Summaries of final states, by state, then by what the run carries.
        self._summaries: dict[S, dict[int, T]] = {}
        self._forget()
        #: The numbers the runs of the current walk have left between them.
        self._left = float("inf")
        #: Runs replayed alone near the limit, by run number: their summaries.
        self._replayed: dict[int, T] = {}

    def _forget(self) -> None:
        """Start the graph afresh."""
        import numpy as np

        self._nodes: dict[S, int] = {}
        self._states: list[S] = []
        self._follow: list[Callable[[Any], S] | None] = []
        self._keys: list[tuple[Hashable, ...]] = []
        self._hands: list[tuple[tuple[str, Hashable], ...]] = []
        self._kind = _Column(np.int8, _NEW)
        self._next = _Column(np.int64, -1)  # a hand-over's or a dice-free step's node
        # A group's node: where its law's bounds start among every law's (each law is kept
        # once, however many nodes draw it), where its children start, and how many keys.
        self._law_at = _Column(np.int64, 0)
        self._first = _Column(np.int64, 0)
        self._width = _Column(np.int64, 0)
        self._bounds = _Column(np.uint64, 0)
        self._laws: dict[int, tuple[LawTable, int]] = {}
        #: The node each key of each group's node leads to (-1: not learnt yet).
        self._child = _Column(np.int32, -1)
        #: Each final node's number among the ends of the current walk (-1: none yet).
        self._end = _Column(np.int64, -1)
        self._start: int | None = None
        self._summaries = {}

    # ── the graph ───────────────────────────────────────────────────────────────────

    def _reach(self, state: S) -> int:
        node = self._nodes.get(state)
        if node is not None:
            return node
        node = self._nodes[state] = len(self._states)
        self._states.append(state)
        self._follow.append(None)
        self._keys.append(())
        self._hands.append(())
        self._next.blank()
        self._law_at.blank()
        self._first.blank()
        self._width.blank()
        self._end.blank()
        handed = self.settle(state) if self.settle is not None else None
        if handed is not None:
            self._kind.append(_HANDS)
            rest, metrics = handed
            self._hands[node] = tuple(metrics.items())
            self._next.data[node] = self._reach(rest)
        else:
            self._kind.append(_FINAL if self.process.finished(state) else _NEW)
        return node

    def _learn(self, node: int) -> None:
        """Find out the shape of ``node``'s step: one group, or anything else."""
        split = self.branch(self._states[node]) if self.branch is not None else None
        if split is not None:
            table = law_table(split[0])
            if table is not None:
                self._kind.data[node] = _GROUP
                self._follow[node], self._keys[node] = split[1], table.keys
                width = len(table.keys)
                kept = self._laws.get(id(table))
                if kept is None:  # the table itself is kept too, so its id stays its own
                    kept = self._laws[id(table)] = (table, self._bounds.size)
                    self._bounds.extend(table.bounds, width)
                self._law_at.data[node] = kept[1]
                self._first.data[node] = self._child.size
                self._width.data[node] = width
                self._child.extend(-1, width)
                return
        self._kind.data[node] = _PLAIN

    def _carry(self, settled: int, metrics: tuple[tuple[str, Hashable], ...]) -> int:
        """The index of what a run carries once ``metrics`` are handed over too."""
        found = self._after.get((settled, metrics))
        if found is None:
            whole = self._settled[settled] + metrics
            found = self._settled_index.get(whole)
            if found is None:
                found = self._settled_index[whole] = len(self._settled)
                self._settled.append(whole)
            self._after[(settled, metrics)] = found
        return found

    def _compact(self, nodes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Forget the graph but for the states the runs wait at: their new numbers."""
        import numpy as np

        live, inverse = np.unique(nodes, return_inverse=True)
        states = [self._states[node] for node in live.tolist()]
        self._forget()
        renumbered = np.array([self._reach(state) for state in states], dtype=np.int64)
        found: npt.NDArray[np.int64] = renumbered[inverse]
        return found

    # ── runs ────────────────────────────────────────────────────────────────────────

    def play(
        self, keys: npt.NDArray[np.uint64], limit: float = float("inf")
    ) -> tuple[list[tuple[T, int]], list[int]]:
        """:meth:`play_parts` in one part: the summaries of all the runs played."""
        parts, used = self.play_parts(keys, limit)
        return parts[0], used

    def play_parts(
        self, keys: npt.NDArray[np.uint64], limit: float = float("inf"), ends: Sequence[int] = ()
    ) -> tuple[list[list[tuple[T, int]]], list[int]]:
        """Play one run per key: per part of the runs, the summaries of its runs, each
        with how many runs it sums up (in the order of each one's first run); and the
        random numbers each run used. A part ends at each of ``ends`` (positions among the
        keys, ascending) and at the last run played: an odds question that looks at its
        tally every thousand runs plays many thousands at once and still sees each
        thousand's tally apart.

        Past ``limit`` numbers in all (counted run by run, in run order) the runs stop:
        only the runs before the one that went over are summed up, and the numbers list
        holds those runs only. (A summary may then appear twice in the list: once for runs
        played together, once for a run replayed alone near the limit.)
        """
        import numpy as np

        count = len(keys)
        used = np.zeros(count, dtype=np.uint64)
        if self._start is None:
            self._start = self._reach(self.process.start())
        # The runs that have ended: the numbers of their final states, what they carry.
        finals: dict[S, int] = {}
        ended: list[tuple[Any, Any, Any]] = []
        self._left = limit
        self._replayed = {}
        # Summing up makes a dict for each distinct end: left to the collector, those
        # allocations set off full passes over every state the graph holds.
        with collecting_once_per_step():
            cut = self._walk(used, finals, ended, keys, limit)
            bounds = [end for end in ends if 0 < end < cut]
            parts = self._summarized(finals, ended, count, cut, [0, *bounds, cut])
        return parts, used[:cut].tolist()

    def _walk(
        self,
        used: npt.NDArray[np.uint64],
        ends: dict[S, int],
        ended: list[tuple[Any, Any, Any]],
        keys: npt.NDArray[np.uint64],
        limit: float,
    ) -> int:
        """Step every run on until it ends; the first run past ``limit`` (or the count).

        The limit binds inside a step too: a run played die by die gets only the numbers
        the runs have left between them, so one long step cannot run far past the limit.
        Once they run out, the runs still going are replayed one by one in run order
        (:meth:`_replay`), which finds the first run past the limit exactly.
        """
        import numpy as np

        count = len(keys)
        cut = count  # runs from here on are past the limit
        done = np.zeros(count, dtype=bool)
        assert self._start is not None
        going = _Going(keys, self._start)
        self._end.data[: self._end.size] = -1
        while len(going.runs):
            if len(self._states) >= self.limit:
                going.nodes = self._compact(going.nodes)
                self._end.data[: self._end.size] = -1
            nodes = going.nodes
            kinds = self._kind.data[nodes]
            handing = kinds == _HANDS
            while handing.any():
                going.settled[handing] = self._carried(going.settled[handing], nodes[handing])
                nodes[handing] = self._next.data[nodes[handing]]
                kinds = self._kind.data[nodes]
                handing = kinds == _HANDS
            used[going.runs] = going.counters
            final = kinds == _FINAL
            if final.any():
                ends_at = self._ends(nodes[final], ends)
                ended.append((going.runs[final], ends_at, going.settled[final]))
                done[going.runs[final]] = True
                kinds = going.keep(~final, kinds)
            if limit != float("inf"):
                cut = min(cut, _first_over(used, limit))
                self._left = limit - float(used.sum())
                if cut < count:
                    kinds = going.keep(going.runs < cut, kinds)
            if not len(going.runs):
                break
            nodes = going.nodes
            new = kinds == _NEW
            if new.any():
                for node in np.unique(nodes[new]).tolist():
                    self._learn(node)
                kinds = self._kind.data[nodes]
            fixed = kinds == _FIXED
            if fixed.any():
                nodes[fixed] = self._next.data[nodes[fixed]]
            grouped = np.flatnonzero(kinds == _GROUP)
            if len(grouped):
                self._draw(going, grouped)
            plain = np.flatnonzero(kinds == _PLAIN)
            if len(plain) and not self._play_plain(going, plain):
                return self._replay(used, done, keys, limit, cut)
            collect_young()
        if limit != float("inf"):
            cut = min(cut, _first_over(used, limit))
        return cut

    def _draw(self, going: _Going, at: npt.NDArray[np.intp]) -> None:
        """The runs at positions ``at`` of ``going``, each at a node whose step is one
        group, take their keys from their streams and move on to where each key leads."""
        import numpy as np

        node = going.nodes[at]
        bits = uniform_bits(going.keys[going.runs[at]], going.counters[at])
        going.counters[at] += np.uint64(1)
        self._left -= len(at)
        # Per run, the first bound above its number among the first width − 1 bounds of
        # its node (the last key takes what rounding leaves above the last sum).
        start = self._law_at.data[node]
        low = start
        high = low + self._width.data[node] - 1
        bounds = self._bounds.data
        searching = low < high
        while searching.any():
            middle = (low + high) >> 1
            below = bounds[np.where(searching, middle, 0)] <= bits
            low = np.where(searching & below, middle + 1, low)
            high = np.where(searching & ~below, middle, high)
            searching = low < high
        flat = self._first.data[node] + (low - start)
        children = self._child.data[flat]
        unknown = children < 0
        if unknown.any():
            new, first = np.unique(flat[unknown], return_index=True)
            for place, parent in zip(new.tolist(), node[unknown][first].tolist(), strict=True):
                self._grow(place, parent)
            children = self._child.data[flat]
        going.nodes[at] = children

    def _grow(self, flat: int, node: int) -> None:
        """Learn where the key at ``flat`` (among the children) of the group's ``node``
        leads."""
        follow = self._follow[node]
        assert follow is not None
        key = self._keys[node][flat - int(self._first.data[node])]
        self._child.data[flat] = self._reach(follow(key))

    def _play_plain(self, going: _Going, at: npt.NDArray[np.intp]) -> bool:
        """The runs at positions ``at`` of ``going`` take steps of any other shape one by
        one, each with its own dice; a step that rolled no dice is remembered as the step
        of every run. False when the numbers left ran out."""
        import numpy as np

        moved = np.empty(len(at), dtype=np.int64)
        counted = np.empty(len(at), dtype=np.uint64)
        step = self.process.step
        kind, following = self._kind.data, self._next.data
        for position, (node, key, counter) in enumerate(
            zip(
                going.nodes[at].tolist(),
                going.keys[going.runs[at]].tolist(),
                going.counters[at].tolist(),
                strict=True,
            )
        ):
            if kind[node] == _FIXED:  # learnt from a run before
                child = int(following[node])
            else:
                dice = StreamDice(key, counter, counter + self._left)
                try:
                    child = self._reach(step(self._states[node], dice))
                except EnumerationBudgetError:
                    return False
                kind, following = self._kind.data, self._next.data  # may have grown
                if dice.used == counter:
                    kind[node], following[node] = _FIXED, child
                self._left -= dice.used - counter
                counter = dice.used
            moved[position], counted[position] = child, counter
        going.nodes[at], going.counters[at] = moved, counted
        return True

    def _carried(
        self, settled: npt.NDArray[np.int64], nodes: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int64]:
        """What each run carries once its node (a hand-over) has handed its metrics over."""
        import numpy as np

        size = len(self._states)
        pairs = settled * np.int64(size) + nodes
        unique, inverse = np.unique(pairs, return_inverse=True)
        carried = np.array(
            [self._carry(pair // size, self._hands[pair % size]) for pair in unique.tolist()],
            dtype=np.int64,
        )
        found: npt.NDArray[np.int64] = carried[inverse]
        return found

    def _ends(self, nodes: npt.NDArray[np.int64], ends: dict[S, int]) -> npt.NDArray[np.int64]:
        """The number of each final node among the ends of the walk (by state)."""
        import numpy as np

        numbers = self._end.data[nodes]
        missing = numbers < 0
        if missing.any():
            for node in np.unique(nodes[missing]).tolist():
                state = self._states[node]
                number = ends.get(state)
                if number is None:
                    number = ends[state] = len(ends)
                self._end.data[node] = number
            numbers = self._end.data[nodes]
        return numbers

    def _replay(
        self,
        used: npt.NDArray[np.uint64],
        done: npt.NDArray[np.bool_],
        keys: npt.NDArray[np.uint64],
        limit: float,
        cut: int,
    ) -> int:
        """The first run past ``limit``, found run by run from the first run still going:
        an ended run counts its numbers, a run still going is played again alone from its
        start with the numbers left (its summary kept in ``_replayed``)."""
        import numpy as np

        going = np.flatnonzero(~done)
        index = int(going[0]) if len(going) else len(done)
        over = _first_over(used[:index], limit)
        if over < index:  # an ended run before every run still going is already past
            return over
        left = limit - float(used[:index].sum())
        while index < cut:
            if not done[index]:
                try:
                    summary, numbers = play_run(
                        self.process, self.summarize, int(keys[index]), left
                    )
                except EnumerationBudgetError:
                    break
                self._replayed[index] = summary
                used[index] = numbers
            if float(used[index]) > left:
                break
            left -= float(used[index])
            index += 1
        return min(index, cut)

    def _summarized(
        self,
        ends: dict[S, int],
        ended: list[tuple[Any, Any, Any]],
        count: int,
        cut: int,
        bounds: Sequence[int],
    ) -> list[list[tuple[T, int]]]:
        """Per part of the runs before ``cut`` (each from one of ``bounds`` up to the
        next), each summary of its runs with how many of them it sums up, in the order of
        the first run of each (a run replayed alone is one summary of its own)."""
        import numpy as np

        end_of = np.zeros(count, dtype=np.int64)
        carried = np.zeros(count, dtype=np.int64)
        for runs, end, settled in ended:
            end_of[runs] = end
            carried[runs] = settled
        end_of, carried = end_of[:cut], carried[:cut]
        # One number per (state, metrics handed over): the runs that sum up alike.
        pairs = end_of * len(self._settled) + carried
        replayed = [index for index in sorted(self._replayed) if index < cut]
        if replayed:
            pairs[replayed] = -1
        states = list(ends)
        parts: list[list[tuple[T, int]]] = []
        for start, stop in pairwise(bounds):
            unique, first, counts = np.unique(
                pairs[start:stop], return_index=True, return_counts=True
            )
            found: list[tuple[int, T, int]] = []
            for at in range(len(unique)):
                pair = int(unique[at])
                if pair < 0:
                    continue
                end, settled = divmod(pair, len(self._settled))
                summary = self._summary(states[end], settled)
                found.append((start + int(first[at]), summary, int(counts[at])))
            found.extend((i, self._replayed[i], 1) for i in replayed if start <= i < stop)
            found.sort(key=lambda item: item[0])
            parts.append([(summary, times) for _, summary, times in found])
        return parts

    def _summary(self, state: S, settled: int) -> T:
        summaries = self._summaries.get(state)
        if summaries is None:
            summaries = self._summaries[state] = {}
        found: T | None = summaries.get(settled)
        if found is None:
            found = summaries[settled] = self.summarize(state, dict(self._settled[settled]))
        return found


class _Going:
    """The runs of a walk still going: their numbers, the nodes they wait at, the numbers
    of their streams used so far, and what they carry (an index of handed-over metrics)."""

    __slots__ = ("counters", "keys", "nodes", "runs", "settled")

    def __init__(self, keys: npt.NDArray[np.uint64], start: int) -> None:
        import numpy as np

        count = len(keys)
        self.keys = keys
        self.runs: npt.NDArray[np.intp] = np.arange(count)
        self.nodes: npt.NDArray[np.int64] = np.full(count, start, dtype=np.int64)
        self.counters: npt.NDArray[np.uint64] = np.zeros(count, dtype=np.uint64)
        self.settled: npt.NDArray[np.int64] = np.zeros(count, dtype=np.int64)

    def keep(self, kept: npt.NDArray[np.bool_], kinds: npt.NDArray[np.int8]) -> Any:
        """Keep only the runs flagged in ``kept``; ``kinds`` (one per run) likewise."""
        self.runs, self.nodes = self.runs[kept], self.nodes[kept]
        self.counters, self.settled = self.counters[kept], self.settled[kept]
        return kinds[kept]


def _first_over(used: npt.NDArray[np.uint64], limit: float) -> int:
    """The first run at which the numbers used so far, run after run, pass ``limit``."""
    import numpy as np

    totals = np.cumsum(used, dtype=np.float64)
    over = np.flatnonzero(totals > limit)
    return int(over[0]) if len(over) else len(used)


def play_run(
    process: Process[S],
    summarize: Callable[[S, Mapping[str, Hashable]], T],
    key: int,
    limit: float = float("inf"),
) -> tuple[T, int]:
    """One run of ``process`` with the stream of ``key``, step by step: its summary and
    the random numbers it used (the plain reference :class:`Sampler` is held to)."""
    dice = StreamDice(key, 0, limit)
    return _play(process, summarize, dice), dice.used


def _play(process: Process[S], summarize: Callable[[S, Mapping[str, Hashable]], T], dice: Any) -> T:
    settle = getattr(process, "settle", None)
    state = process.start()
    settled: dict[str, Hashable] = {}
    while True:
        handed = settle(state) if settle is not None else None
        if handed is not None:
            state, metrics = handed
            settled.update(metrics)
            continue
        if process.finished(state):
            return summarize(state, settled)
        state = process.step(state, dice)


def summarizer(
    ruleset: AnyRuleset, model: Any, process: Process[Any]
) -> Callable[[Any, Mapping[str, Hashable]], Summary]:
    """What a sampled run of ``process`` (``model``'s) sums up to from its final state and
    its handed-over metrics: the metrics of a seeded play's summary, in its order."""
    order = _metric_order(ruleset, model)
    rank = {name: index for index, name in enumerate(order)}
    # An event metric is true where a hand-over said so, false elsewhere: what the final
    # state says of it is forgotten (see :class:`~fracas.core.process.Eventful`).
    events = dict.fromkeys(getattr(process, "events", ()), False)

    def summarize(state: Any, settled: Mapping[str, Hashable]) -> Summary:
        found: dict[str, Any] = dict(ruleset.metrics(model, state))
        if events:
            found.update(events)
        if settled or events:
            found.update(settled)
            return dict(sorted(found.items(), key=lambda item: rank.get(item[0], len(rank))))
        return found

    return summarize


def sampler(ruleset: AnyRuleset, model: Any) -> Callable[[Any], Summary]:
    """One play of ``model`` per call, with the dice it is given: its metrics.

    With :class:`~fracas.core.streams.StreamDice` of a run's key, it is that sampled run
    (the summary :class:`Sampler` gives it); with other dice, a play of those dice.

    >>> from fracas.core.streams import StreamDice, run_key
    >>> from fracas.io.scenario import load_scenario
    >>> duel = load_scenario("examples/rankflank/frontal_charge.yaml")
    >>> play = sampler(duel.ruleset, duel.model)
    >>> play(StreamDice(run_key(1, 0))) == play(StreamDice(run_key(1, 0)))
    True
    """
    process = ruleset.process(model, SUMMING)
    summarize = summarizer(ruleset, model, process)
    return lambda dice: _play(process, summarize, dice)


def block_sampler(ruleset: AnyRuleset, model: Any) -> Sampler[Any, Summary]:
    """The :class:`Sampler` of ``model``: its runs many at once."""
    process = ruleset.process(model, SUMMING)
    return Sampler(process, summarizer(ruleset, model, process))


def _metric_order(ruleset: AnyRuleset, model: Any) -> tuple[str, ...]:
    """The metrics of one seeded play's summary, in the ruleset's order."""
    from fracas.core.dice import SeededDice

    return tuple(ruleset.summarize(model, ruleset.play(model, SeededDice(0))))


__all__ = [
    "EnumerationBudgetError",
    "Sampler",
    "block_sampler",
    "play_run",
    "sampler",
    "summarizer",
]
