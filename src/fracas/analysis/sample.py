"""Sampling a process: many runs at once, grouped by the state each has reached.

Every sampled run has its own random stream (:mod:`fracas.core.streams`), so a run is
the same play however it is played. :func:`sampler` plays one run at a time, step by
step with :class:`~fracas.core.streams.StreamDice`: the plain reference. :class:`Sampler`
plays a whole block of runs at once and gives the very same summaries, faster: runs that
reach the same state take its step together. Where the step is one dice group
(:class:`~fracas.core.process.Branching`) the group's law decides every run's key at
once from its stream, with arrays; a step without dice is played once for all of them;
any other step is played run by run. Runs spread out as they go: once fewer than
:data:`ARRAY_FROM` share a state, each is played on to its end by itself, which costs
less than gathering them step by step. What a state's step leads to is remembered, so a
later block that meets the state again only looks it up.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from fracas.analysis.exact import collect_young, collecting_once_per_step
from fracas.core.distribution import EnumerationBudgetError
from fracas.core.process import Process
from fracas.core.record import SUMMING
from fracas.core.streams import LawTable, StreamDice, law_table, uniform, uniforms
from fracas.rulesets import AnyRuleset
from fracas.rulesets.base import Summary

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

S = TypeVar("S", bound=Hashable)
T = TypeVar("T")

#: Fewest runs at one state for which arrays beat a loop over the runs: fewer are played
#: on to their ends one by one (:meth:`Sampler._alone`).
ARRAY_FROM = 12


class _Node:
    """A state met while sampling, with what its step is known to lead to."""

    __slots__ = ("children", "fixed", "follow", "hand", "plain", "state", "summaries", "table")

    def __init__(self, state: Any) -> None:
        self.state = state
        #: A settling process's state goes on as another, handing over metrics.
        self.hand: tuple[_Node, tuple[tuple[str, Hashable], ...]] | None = None
        #: A step that is one group: its law and where each key leads.
        self.table: LawTable | None = None
        self.follow: Callable[[Any], Any] | None = None
        self.children: dict[int, _Node] = {}
        #: A step that rolls no dice: where it leads.
        self.fixed: _Node | None = None
        #: A step of any other shape, played run by run.
        self.plain = False
        #: Only final states get summaries: settled metrics → summary.
        self.summaries: dict[int, Any] | None = None


class Sampler(Generic[S, T]):
    """Plays blocks of runs of ``process`` at once (Monte Carlo): the summaries, in run
    order, that :func:`play_run` gives run by run, and the random numbers each used.

    ``summarize(state, settled)`` gets a final state with the metrics a
    :class:`~fracas.core.process.Settling` process handed over on the way (as exact odds
    settle them: fewer distinct states to remember); it is called once per such pair.
    Past ``limit`` states the memory of steps starts afresh.

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
        self._nodes: dict[S, _Node] = {}
        self._start: _Node | None = None
        #: Metrics handed over, as tuples: their index is what a run carries.
        self._settled: list[tuple[tuple[str, Hashable], ...]] = [()]
        self._settled_index: dict[tuple[tuple[str, Hashable], ...], int] = {(): 0}
        self._after: dict[tuple[int, tuple[tuple[str, Hashable], ...]], int] = {}
        #: The numbers the runs of the current walk have left between them.
        self._left = float("inf")
        #: Runs replayed alone near the limit, by run number: their summaries.
        self._replayed: dict[int, T] = {}

    # ── states ──────────────────────────────────────────────────────────────────────

    def _reach(self, state: S) -> _Node:
        node = self._nodes.get(state)
        if node is None:
            if len(self._nodes) >= self.limit:
                self._nodes.clear()
                self._start = None
            node = self._nodes[state] = _Node(state)
            handed = self.settle(state) if self.settle is not None else None
            if handed is not None:
                rest, metrics = handed
                node.hand = (self._reach(rest), tuple(metrics.items()))
        return node

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

    def _learn(self, node: _Node) -> None:
        """Find out the shape of ``node``'s step: one group, or anything else."""
        split = self.branch(node.state) if self.branch is not None else None
        if split is not None:
            table = law_table(split[0])
            if table is not None:
                node.table, node.follow = table, split[1]
                return
        node.plain = True

    def _child(self, node: _Node, index: int) -> _Node:
        child = node.children.get(index)
        if child is None:
            assert node.follow is not None
            assert node.table is not None
            child = node.children[index] = self._reach(node.follow(node.table.keys[index]))
        return child

    def _played(self, node: _Node, dice: StreamDice) -> _Node:
        """The step from ``node`` played with one run's dice; a step that rolled none is
        remembered as the step of every run."""
        before = dice.used
        child = self._reach(self.process.step(node.state, dice))
        if dice.used == before and node.fixed is None:
            node.fixed, node.plain = child, False
        return child

    # ── runs ────────────────────────────────────────────────────────────────────────

    def play(
        self, keys: npt.NDArray[np.uint64], limit: float = float("inf")
    ) -> tuple[list[tuple[T, int]], list[int]]:
        """Play one run per key: the summaries of the runs, each with how many runs it
        sums up (in the order of each one's first run), and the random numbers each run
        used.

        Past ``limit`` numbers in all (counted run by run, in run order) the runs stop:
        only the runs before the one that went over are summed up, and the numbers list
        holds those runs only. (A summary may then appear twice in the list: once for runs
        played together, once for a run replayed alone near the limit.)
        """
        import numpy as np

        count = len(keys)
        used = np.zeros(count, dtype=np.uint64)
        start = self._start
        if start is None:
            start = self._start = self._reach(self.process.start())
        gathered: dict[_Node, _Gathered] = {start: _Gathered()}
        gathered[start].parts.append(
            (np.arange(count), np.zeros(count, dtype=np.uint64), np.zeros(count, dtype=np.int64))
        )
        # The runs that have ended: their state's number among ``ends``, what they carry.
        ends: dict[_Node, int] = {}
        ended: list[tuple[Any, Any, Any]] = []
        self._left = limit
        self._replayed = {}
        with collecting_once_per_step():
            cut = self._walk(gathered, used, ends, ended, keys, limit)
        return self._summaries(ends, ended, count, cut), used[:cut].tolist()

    def _walk(
        self,
        gathered: dict[_Node, _Gathered],
        used: npt.NDArray[np.uint64],
        ends: dict[_Node, int],
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
        finished = self.process.finished
        done = np.zeros(count, dtype=bool)
        while gathered:
            # Runs waiting at each state: their indices, numbers used, settled metrics.
            frontier: dict[_Node, tuple[Any, Any, Any]] = {}
            for node, gathering in gathered.items():
                runs, counters, settled = gathering.arrays()
                while node.hand is not None:
                    node, metrics = node.hand
                    settled = self._carried(settled, metrics)
                used[runs] = counters
                if finished(node.state):
                    end = ends.get(node)
                    if end is None:
                        end = ends[node] = len(ends)
                    ended.append((runs, end, settled))
                    done[runs] = True
                    continue
                old = frontier.get(node)
                if old is not None:  # reached by two ways, one of them a hand-over
                    runs, counters, settled = (
                        np.concatenate((old[0], runs)),
                        np.concatenate((old[1], counters)),
                        np.concatenate((old[2], settled)),
                    )
                frontier[node] = (runs, counters, settled)
            if limit != float("inf"):
                cut = min(cut, _first_over(used, limit))
                self._left = limit - float(used.sum())
            gathered = {}
            alone = _Alone()
            for node, (runs, counters, settled) in frontier.items():
                if cut < count:
                    keep = runs < cut
                    if not keep.all():
                        runs, counters, settled = runs[keep], counters[keep], settled[keep]
                        if not len(runs):
                            continue
                if len(runs) < ARRAY_FROM:
                    going = self._alone(node, runs, counters, settled, keys, ends, alone)
                else:
                    going = self._advance(node, runs, counters, settled, keys, gathered)
                if not going:
                    alone.end(used, done, ended)
                    return self._replay(used, done, keys, limit, cut)
            alone.end(used, done, ended)
            collect_young()
        if limit != float("inf"):
            cut = min(cut, _first_over(used, limit))
        return cut

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

    def _summaries(
        self, ends: dict[_Node, int], ended: list[tuple[Any, Any, Any]], count: int, cut: int
    ) -> list[tuple[T, int]]:
        """Each summary of the runs before ``cut`` with how many of them it sums up, in the
        order of the first run of each (a run replayed alone is one summary of its own)."""
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
        unique, first, counts = np.unique(pairs, return_index=True, return_counts=True)
        nodes = list(ends)
        found: list[tuple[int, T, int]] = []
        for at in range(len(unique)):
            pair = int(unique[at])
            if pair < 0:
                continue
            end, settled = divmod(pair, len(self._settled))
            found.append((int(first[at]), self._summary(nodes[end], settled), int(counts[at])))
        found.extend((index, self._replayed[index], 1) for index in replayed)
        found.sort(key=lambda item: item[0])
        return [(summary, times) for _, summary, times in found]

    def _carried(
        self, settled: npt.NDArray[np.int64], metrics: tuple[tuple[str, Hashable], ...]
    ) -> npt.NDArray[np.int64]:
        import numpy as np

        if len(settled) == 1 or (settled == settled[0]).all():
            return np.full(len(settled), self._carry(int(settled[0]), metrics), dtype=np.int64)
        unique, inverse = np.unique(settled, return_inverse=True)
        carried = np.array([self._carry(s, metrics) for s in unique.tolist()], dtype=np.int64)
        return carried[inverse]

    def _advance(
        self,
        node: _Node,
        runs: npt.NDArray[np.intp],
        counters: npt.NDArray[np.uint64],
        settled: npt.NDArray[np.int64],
        keys: npt.NDArray[np.uint64],
        gathered: dict[_Node, _Gathered],
    ) -> bool:
        """One step of the many runs at ``node`` (:data:`ARRAY_FROM` or more), each gathered
        at the state it reaches; false when the numbers left ran out in a run played die by
        die."""
        import numpy as np

        if node.table is None and node.fixed is None and not node.plain:
            self._learn(node)
        if node.fixed is not None:
            _gathering(gathered, node.fixed).parts.append((runs, counters, settled))
            return True
        table = node.table
        if table is not None:
            indices = table.indices(uniforms(keys[runs], counters))
            counters = counters + np.uint64(1)
            order = np.argsort(indices, kind="stable")
            indices = indices[order]
            runs, counters, settled = runs[order], counters[order], settled[order]
            edges = (np.flatnonzero(np.diff(indices)) + 1).tolist()
            for first, last in zip([0, *edges], [*edges, len(indices)], strict=True):
                child = self._child(node, int(indices[first]))
                _gathering(gathered, child).parts.append(
                    (runs[first:last], counters[first:last], settled[first:last])
                )
            self._left -= len(runs)
            return True
        step_keys = keys[runs].tolist()
        for position, (run, key, counter, carried) in enumerate(
            zip(runs.tolist(), step_keys, counters.tolist(), settled.tolist(), strict=True)
        ):
            if node.fixed is not None:  # learnt from the run before
                rest = slice(position, None)
                _gathering(gathered, node.fixed).parts.append(
                    (runs[rest], counters[rest], settled[rest])
                )
                return True
            else:
                dice = StreamDice(key, counter, counter + self._left)
                try:
                    child = self._played(node, dice)
                except EnumerationBudgetError:
                    return False
                self._left -= dice.used - counter
                counter = dice.used
            gathering = _gathering(gathered, child)
            gathering.runs.append(run)
            gathering.counters.append(counter)
            gathering.settled.append(carried)
        return True

    def _alone(
        self,
        node: _Node,
        runs: npt.NDArray[np.intp],
        counters: npt.NDArray[np.uint64],
        settled: npt.NDArray[np.int64],
        keys: npt.NDArray[np.uint64],
        ends: dict[_Node, int],
        alone: _Alone,
    ) -> bool:
        """Each of the few runs at ``node`` played on by itself to its end: too few runs
        share a state from here on for arrays to pay, and gathering them step by step
        costs more than the step. False when the numbers left ran out in a step played
        die by die (that run is left unfinished)."""
        finished = self.process.finished
        start = node
        for run, key, counter, carried in zip(
            runs.tolist(), keys[runs].tolist(), counters.tolist(), settled.tolist(), strict=True
        ):
            node = start
            while True:
                while node.hand is not None:
                    node, metrics = node.hand
                    carried = self._carry(carried, metrics)
                if finished(node.state):
                    break
                if node.table is None and node.fixed is None and not node.plain:
                    self._learn(node)
                table = node.table
                if table is not None:
                    node = self._child(node, _index_of(table, uniform(key, counter)))
                    counter += 1
                    self._left -= 1
                elif node.fixed is not None:
                    node = node.fixed
                else:
                    dice = StreamDice(key, counter, counter + self._left)
                    try:
                        node = self._played(node, dice)
                    except EnumerationBudgetError:
                        return False
                    self._left -= dice.used - counter
                    counter = dice.used
            end = ends.get(node)
            if end is None:
                end = ends[node] = len(ends)
            alone.add(run, counter, end, carried)
        return True

    def _summary(self, node: _Node, settled: int) -> T:
        summaries = node.summaries
        if summaries is None:
            summaries = node.summaries = {}
        found: T | None = summaries.get(settled)
        if found is None:
            found = summaries[settled] = self.summarize(node.state, dict(self._settled[settled]))
        return found


class _Gathered:
    """The runs reaching one state in a step: whole arrays, and runs one by one."""

    __slots__ = ("counters", "parts", "runs", "settled")

    def __init__(self) -> None:
        self.parts: list[tuple[Any, Any, Any]] = []
        self.runs: list[int] = []
        self.counters: list[int] = []
        self.settled: list[int] = []

    def arrays(self) -> tuple[Any, Any, Any]:
        import numpy as np

        parts = self.parts
        if self.runs:
            parts = [
                *parts,
                (
                    np.array(self.runs, dtype=np.intp),
                    np.array(self.counters, dtype=np.uint64),
                    np.array(self.settled, dtype=np.int64),
                ),
            ]
        if len(parts) == 1:
            return parts[0]
        runs, counters, settled = zip(*parts, strict=True)
        return np.concatenate(runs), np.concatenate(counters), np.concatenate(settled)


class _Alone:
    """The runs played to their ends one by one in a step of the walk (:meth:`Sampler._alone`)."""

    __slots__ = ("counters", "ends", "runs", "settled")

    def __init__(self) -> None:
        self.runs: list[int] = []
        self.counters: list[int] = []
        self.ends: list[int] = []
        self.settled: list[int] = []

    def add(self, run: int, counter: int, end: int, settled: int) -> None:
        self.runs.append(run)
        self.counters.append(counter)
        self.ends.append(end)
        self.settled.append(settled)

    def end(
        self,
        used: npt.NDArray[np.uint64],
        done: npt.NDArray[np.bool_],
        ended: list[tuple[Any, Any, Any]],
    ) -> None:
        """Count the runs played to their ends as ended, and forget them."""
        import numpy as np

        if not self.runs:
            return
        runs = np.array(self.runs, dtype=np.intp)
        used[runs] = np.array(self.counters, dtype=np.uint64)
        done[runs] = True
        ended.append(
            (runs, np.array(self.ends, dtype=np.int64), np.array(self.settled, dtype=np.int64))
        )
        for kept in (self.runs, self.counters, self.ends, self.settled):
            kept.clear()


def _gathering(gathered: dict[_Node, _Gathered], node: _Node) -> _Gathered:
    found = gathered.get(node)
    if found is None:
        found = gathered[node] = _Gathered()
    return found


def _index_of(table: LawTable, u: float) -> int:
    from bisect import bisect_right

    index = bisect_right(table.cumulative, u)
    return index if index < len(table.keys) else len(table.keys) - 1


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
    "ARRAY_FROM",
    "EnumerationBudgetError",
    "Sampler",
    "block_sampler",
    "play_run",
    "sampler",
    "summarizer",
]
