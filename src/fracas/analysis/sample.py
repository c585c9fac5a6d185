"""Sampling a process: many plays of the same steps, each step met before followed from a cache."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, Generic, TypeVar

from fracas.core.dice import OPEN, ChanceNode, Dice, DiceGroup, LawDice, LawTable, uniform_digits
from fracas.core.process import Process
from fracas.core.record import SUMMING
from fracas.rulesets import AnyRuleset
from fracas.rulesets.base import Summary

S = TypeVar("S", bound=Hashable)
T = TypeVar("T")


class _Reached:
    """A state met while sampling, with the tree of its step's random events once known."""

    __slots__ = ("finished", "hand", "state", "summaries", "tree")

    def __init__(self, state: Any, finished: bool) -> None:
        self.state = state
        self.finished = finished
        self.tree: _Event | _Reached | None = None
        #: A settling process's state goes on as another, handing over metrics.
        self.hand: tuple[_Reached, tuple[tuple[str, Hashable], ...]] | None = None
        #: Only final states get summaries: the dict is made with the first one.
        self.summaries: dict[tuple[tuple[str, Hashable], ...], Any] | None = None


class _Event:
    """One random event of a step: a die (``node``) or a group (its ``table``), and where
    each value drawn leads (the next event, or the state the step ends in). ``before`` is
    the event of the same step that led here, by the value ``via`` (``None``: the first)."""

    __slots__ = ("before", "follow", "node", "table", "then", "via")

    def __init__(
        self, node: ChanceNode | None, table: LawTable | None, before: _Event | None, via: Any
    ) -> None:
        self.node = node
        self.table = table
        self.then: dict[Any, _Event | _Reached] = {}
        self.before = before
        self.via = via
        #: The rest of a step that is this one group (:class:`Branching`): key → state.
        self.follow: Callable[[Any], Any] | None = None


class _Recorder:
    """Gives the values already drawn on a path again (``drawn``, the last first), then
    draws and records new ones."""

    __slots__ = ("dice", "drawn", "events")

    def __init__(self, drawn: list[Any], dice: LawDice) -> None:
        self.drawn = drawn
        self.dice = dice
        #: The events met after the values drawn: (node, table, value).
        self.events: list[tuple[ChanceNode | None, LawTable | None, Any]] = []

    def roll(self, node: ChanceNode) -> int:
        drawn = self.drawn
        if drawn:
            face: int = drawn.pop()
            return face
        face = self.dice.roll(node)
        self.events.append((node, None, face))
        return face

    def draw_group(self, group: DiceGroup[Hashable, object]) -> Hashable:
        drawn = self.drawn
        if drawn:
            key: Hashable = drawn.pop()  # the law is known on this path: no look-up
            return key
        dice = self.dice
        table = dice.table_or_none(group)
        if table is None:  # too wide to combine: die by die, each die an event
            key, _ = group.roll(self)
            return key
        key = dice.pick(table)
        self.events.append((None, table, key))
        return key


class StepCache(Generic[S, T]):
    """Plays a process over and over (Monte Carlo), each step it has seen played only once.

    Every step is a function of its state and of the values its random events take. The
    cache keeps, for each state met, the tree of its step's events: which die or group
    comes first, and for each value drawn the next event or the state reached. A later
    play that reaches the same state draws the same events from its own dice and follows
    the tree; only a value never drawn there before plays the step again (for a
    :class:`Branching` step, its continuation goes on from that key instead, without
    the step's set-up). Groups are drawn at once from their laws
    (:class:`~fracas.core.dice.LawDice`). The dice are asked for exactly what an uncached
    play would ask, in the same order, so every play is the
    same function of its dice whatever the cache holds. A :class:`Settling` process's
    states are settled as exact odds settle them (fewer distinct states to remember), and
    ``summarize`` gets the final state with the metrics handed over on the way; it is
    called once per such pair. Past ``limit`` states the cache starts afresh (memory stays
    bounded).

    >>> from fracas.core.dice import D6, Dice, SeededDice
    >>> class Race:
    ...     "Roll a D6 each step and add it; stop at 4 or more."
    ...     def start(self) -> int: return 0
    ...     def step(self, state: int, dice: Dice) -> int: return state + dice.roll(D6)
    ...     def finished(self, state: int) -> bool: return state >= 4
    >>> from fracas.core.process import run
    >>> cache = StepCache(Race(), lambda total, settled: {"total": total})
    >>> [cache.play(SeededDice(seed))["total"] for seed in range(3)] == [
    ...     run(Race(), LawDice(SeededDice(seed))) for seed in range(3)]
    True
    """

    def __init__(
        self,
        process: Process[S],
        summarize: Callable[[S, Mapping[str, Hashable]], T],
        *,
        limit: int = 100_000,
    ) -> None:
        self.process = process
        self.summarize = summarize
        self.settle: Callable[[S], tuple[S, Mapping[str, Hashable]] | None] | None = getattr(
            process, "settle", None
        )
        self.branch: Callable[[S], tuple[DiceGroup[Any, Any], Callable[[Any], S]] | None] | None = (
            getattr(process, "branch", None)
        )
        self.limit = limit
        self.tables: dict[Hashable, LawTable] = {}
        self._states: dict[S, _Reached] = {}
        self._start: _Reached | None = None
        #: Random events added to the trees: what the cache has had to remember so far.
        self.events = 0

    def play(self, dice: Dice) -> T:
        """One play with ``dice``, summarized."""
        # Most plays only follow the trees: the walk is written out here, in one frame,
        # and a step is played (:meth:`_play`) only where the tree has no branch yet.
        digit = uniform_digits(dice)
        law_dice: LawDice | None = None  # made for the first step this play plays
        at = self._start or self._begin()
        settled: tuple[tuple[str, Hashable], ...] = ()
        while True:
            hand = at.hand
            if hand is not None:
                at, metrics = hand
                settled += metrics
            if at.finished:
                break
            tree = at.tree
            if tree.__class__ is _Reached:  # a step without dice
                at = tree
                continue
            event: _Event | None = None
            value: Any = None
            while tree.__class__ is _Event:
                event = tree
                table = event.table
                if table is None:
                    value = dice.roll(event.node)  # type: ignore[arg-type]
                elif table.first is None:
                    value = table.keys[0]
                else:
                    first = digit()
                    value = table.keys[table.first[first]]
                    if value is OPEN:  # the first digit left it open
                        value = table.after(first, digit)
                tree = event.then.get(value)
            if tree is None:
                if law_dice is None:
                    law_dice = LawDice(dice, self.tables, digit=digit)
                tree = self._play(at, event, value, law_dice)
            at = tree  # type: ignore[assignment]  # the events end in a _Reached
        summaries = at.summaries
        if summaries is None:
            summaries = at.summaries = {}
        summary: T | None = summaries.get(settled)
        if summary is None:
            summary = summaries[settled] = self.summarize(at.state, dict(settled))
        return summary

    def _begin(self) -> _Reached:
        start = self._start = self._reach(self.process.start())
        return start

    def _reach(self, state: S) -> _Reached:
        reached = self._states.get(state)
        if reached is None:
            if len(self._states) >= self.limit:
                self._states.clear()
                self._start = None
            reached = _Reached(state, self.process.finished(state))
            self._states[state] = reached
            handed = self.settle(state) if self.settle is not None else None
            if handed is not None:
                rest, metrics = handed
                reached.hand = (self._reach(rest), tuple(metrics.items()))
        return reached

    def _play(self, at: _Reached, event: _Event | None, value: Any, dice: LawDice) -> _Reached:
        """Play the step from ``at`` again, with the values that led to ``event`` and the
        new ``value`` drawn there (no event: a step never played), and remember where it
        goes."""
        if event is not None and event.follow is not None:
            # A step that is one group goes on from the key drawn: no replay.
            after = event.then[value] = self._reach(event.follow(value))
            return after
        if event is None and self.branch is not None:
            split = self.branch(at.state)
            law = None if split is None else dice.table_or_none(split[0])
            if split is not None and law is not None:
                follow = split[1]
                root = _Event(None, law, None, None)
                root.follow = follow
                at.tree = root
                # Drawn as the step would draw it (the walk met no event here yet).
                value = dice.pick(law)
                after = root.then[value] = self._reach(follow(value))
                return after
        # The values of the path, last first, for the recorder to pop.
        drawn: list[Any] = []
        if event is not None:
            drawn.append(value)
            on = event
            while on.before is not None:
                drawn.append(on.via)
                on = on.before
        recorder = _Recorder(drawn, dice)
        after = self._reach(self.process.step(at.state, recorder))
        # The new events hang where the walk fell off, each below the one before.
        previous, via = event, value
        self.events += len(recorder.events)
        for node, table, drawn_value in recorder.events:
            new = _Event(node, table, previous, via)
            if previous is None:
                at.tree = new
            else:
                previous.then[via] = new
            previous, via = new, drawn_value
        if previous is None:
            at.tree = after
        else:
            previous.then[via] = after
        return after


#: Most random events in one step that a :class:`StepCache` is worth its memory for: a
#: longer step (a battle of a hundred rolls in one step) rarely repeats its dice.
CACHED_STEP_EVENTS = 64


def sampler(ruleset: AnyRuleset, model: Any) -> Callable[[Dice], Summary]:
    """One Monte Carlo play of ``model`` per call, with the dice it is given: its metrics.

    Every ruleset is sampled the same way, from its process and a summing recorder (no
    rows, no notes). Steps met before are followed from a :class:`StepCache`, which draws
    each dice group at once from its law, unless one seeded play (seed 0, the same in
    every worker) shows a step of more than :data:`CACHED_STEP_EVENTS` random events:
    such steps rarely repeat, so the process is played plainly with the run's own dice,
    die by die, and each run is then the very play seeded play gives its seed. Metrics
    handed over on the way (:class:`~fracas.core.process.Settling`) take their place
    among the rest in the order of a seeded play's summary.

    >>> from fracas.core.dice import SeededDice
    >>> from fracas.io.scenario import load_scenario
    >>> duel = load_scenario("examples/rankflank/frontal_charge.yaml")
    >>> play = sampler(duel.ruleset, duel.model)
    >>> play(SeededDice(1)) == play(SeededDice(1))
    True
    """
    order = _metric_order(ruleset, model)
    rank = {name: index for index, name in enumerate(order)}

    def summarize(state: Any, settled: Mapping[str, Hashable]) -> Summary:
        found: dict[str, Any] = dict(ruleset.metrics(model, state))
        if settled:
            found.update(settled)
            return dict(sorted(found.items(), key=lambda item: rank.get(item[0], len(rank))))
        return found

    process = ruleset.process(model, SUMMING)
    cache = StepCache(process, summarize)
    if _longest_step(process) <= CACHED_STEP_EVENTS:
        return cache.play
    settle = getattr(process, "settle", None)

    def play(dice: Dice) -> Summary:
        state = process.start()
        settled: dict[str, Hashable] = {}
        while True:
            handed = settle(state) if settle is not None else None
            if handed is not None:
                state, metrics = handed
                settled.update(metrics)
            if process.finished(state):
                return summarize(state, settled)
            state = process.step(state, dice)

    return play


class _CountingLawDice(LawDice):
    """Law dice that count the random events asked of them."""

    __slots__ = ("asked",)

    def __init__(self, inner: Dice) -> None:
        super().__init__(inner)
        self.asked = 0

    def roll(self, node: ChanceNode) -> int:
        self.asked += 1
        return super().roll(node)

    def draw_group(self, group: DiceGroup[Hashable, object]) -> Hashable:
        self.asked += 1
        return super().draw_group(group)


def _longest_step(process: Process[Any]) -> int:
    """The most random events one step asks for, in one play with seed 0."""
    from fracas.core.dice import SeededDice

    dice = _CountingLawDice(SeededDice(0))
    longest = 0
    state = process.start()
    while not process.finished(state):
        dice.asked = 0
        state = process.step(state, dice)
        longest = max(longest, dice.asked)
    return longest


def _metric_order(ruleset: AnyRuleset, model: Any) -> tuple[str, ...]:
    """The metrics of one seeded play's summary, in the ruleset's order."""
    from fracas.core.dice import SeededDice

    return tuple(ruleset.summarize(model, ruleset.play(model, SeededDice(0))))
