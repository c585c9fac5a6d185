"""A turn planner: an order of attacks for a whole side, found by beam search.

The value of a turn is the advisor's score summed over its attacks::

    value = Σ (advisor_enemy_weight × enemy soldiers lost − advisor_own_weight × own soldiers lost)

There is no chance in this ruleset, so this is the value itself, not an expectation.
Each unit attacks at most once; every attack is evaluated on the board as the earlier
attacks of the plan left it (strengths, levels, who is still there to encircle and to
support). A plan may stop early: attacking is never compulsory.

Search, by default: an exact search first — depth first, branch and bound on the value,
the same board reached twice in one walk cut at the second arrival — which proves the best
plan when it finishes within ``budget`` attacks evaluated, and says "best of all plans";
past the budget (or when a ``width`` is asked for) beam search.

Beam search of width ``width``. Every plan in the beam is extended by each of its
``width`` best next attacks (all open attacks are evaluated in one batch); the ``width``
best plans by value go on. The best plan seen at any depth wins. Width 1 is plain greedy
(best next attack, again and again); the work grows with ``width²``.

>>> from fracas.rulesets.hex.scenario import Board, Unit
>>> from fracas.rulesets.hex.document import HexParams
>>> board = Board.from_rows(["....."], [
...     Unit.make("a", "blue", (0, 0), attack=10, defense=10),
...     Unit.make("b", "blue", (2, 0), attack=10, defense=10),
...     Unit.make("foe", "red", (1, 0), attack=10, defense=10)])
>>> plan = plan_turn(board, "blue", HexParams(), width=2)
>>> plan.orders, plan.value
((('a', 'foe'), ('b', 'foe')), Fraction(57, 1))
>>> proven = plan_turn(board, "blue", HexParams())
>>> proven.orders, proven.value, proven.exact
((('a', 'foe'), ('b', 'foe')), Fraction(57, 1), True)

a strikes 1000 + b's support 250 against foe's 100 × 10 × 0.9 (ringed by a and b) = 900:
66 lost; foe's counter, 900 against a's 1000 + b's 250, costs a 34: 32. Then b strikes
1000 + a's support 0.25 × 66 × 10 = 165 against 34 × 10 × 1.01 (foe's new level) × 0.9:
32 of foe's 34, and the counter costs b 7: 25 more.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from fracas.core.modifiers import to_fraction
from fracas.rulesets.hex.advisor import ranked_rows, scores
from fracas.rulesets.hex.boards import (
    BoardState,
    FullOutcome,
    Recall,
    SideAttacks,
    apply,
    fought,
    rows_open,
)
from fracas.rulesets.hex.document import HexParams
from fracas.rulesets.hex.play import Turn, play_turn
from fracas.rulesets.hex.scenario import Board, Unit


@dataclass(frozen=True, slots=True)
class PlannedAttack:
    """One attack of a plan, with what it does on the board the earlier ones left."""

    attacker: str
    target: str
    enemy_lost: int
    own_lost: int
    value: Fraction


@dataclass(frozen=True, slots=True)
class Plan:
    """A proposed turn for ``side``: the attacks in order, their value, the board after.

    ``ranking_value`` is what the advisor's single-attack ranking would have given played
    in its order — its attacks that score above 0 on the board as it is, each unit once,
    skipping attacks made impossible by earlier ones — for comparison.
    """

    side: str
    attacks: tuple[PlannedAttack, ...]
    value: Fraction
    ranking_value: Fraction
    width: int
    plans_evaluated: int
    board: Board
    params: HexParams
    strength_after: tuple[int, ...]
    level_after: tuple[int, ...]
    #: True when the exact search finished: no plan of the side is worth more.
    exact: bool = False
    #: The exact search's budget, in attacks evaluated (0: not tried).
    budget: int = 0

    @property
    def orders(self) -> tuple[tuple[str, str], ...]:
        """The attacks as ``(attacker id, target id)`` orders."""
        return tuple((a.attacker, a.target) for a in self.attacks)

    @property
    def method(self) -> str:
        """The search that found the plan, in words: proven best, or the best a beam found."""
        return search_label(self.exact, self.width, self.plans_evaluated, self.budget)

    def end(self) -> Board:
        """The board after the plan (the forecast of the whole turn)."""
        changes: dict[str, Unit | None] = {}
        for unit, strength, level in zip(
            self.board.units, self.strength_after, self.level_after, strict=True
        ):
            if strength <= 0 < unit.strength:
                changes[unit.id] = None
            elif (strength, level) != (unit.strength, unit.level):
                changes[unit.id] = replace(unit, strength=strength, level=level)
        return self.board.updated(changes)

    def turn(self) -> Turn:
        """The plan played by :func:`~fracas.rulesets.hex.play.play_turn`, combat by combat."""
        return play_turn(self.board, self.orders, self.params)


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def search_label(exact: bool, width: int, evaluated: int, budget: int) -> str:
    """How a turn was found, in words that always say which search ran.

    An exact search that finished proves its plan the best of all; branch and bound never
    plays out the plans it cuts (that is what makes it affordable), so the count it gives
    is of the plans it evaluated, each other one cut by a bound it cannot beat. A beam
    search names its width; ``budget`` (0: none was tried) says why the exact search gave
    way to it.

    >>> search_label(True, 0, 12, 200_000)[:60]
    'best of all plans, proven by an exact search (branch and bou'
    >>> search_label(False, 3, 40, 0)[:36]
    'best found by beam search of width 3'
    """
    if exact:
        return (
            "best of all plans, proven by an exact search (branch and bound on the value): "
            f"{_count(evaluated, 'plan')} evaluated, every other plan cut by a bound it "
            f"cannot beat, within the budget of {budget:,} attacks"
        )
    kind = f"beam search of width {width}" + (" (greedy)" if width == 1 else "")
    why = f" (the exact search did not fit the budget of {budget:,} attacks)" if budget else ""
    return (
        f"best found by {kind}{why}: each plan extended by its {width} best next "
        f"attack{'' if width == 1 else 's'}, the {width} best plan{'' if width == 1 else 's'} "
        f"kept; {_count(evaluated, 'plan')} evaluated"
    )


@dataclass(frozen=True, slots=True)
class _Path:
    """A plan's attacks as a chain back to the first: a child shares its parent's, so
    making it costs one link, not a copy of every attack before it."""

    row: int
    before: _Path | None

    def rows(self) -> tuple[int, ...]:
        found: list[int] = []
        link: _Path | None = self
        while link is not None:
            found.append(link.row)
            link = link.before
        return tuple(reversed(found))


@dataclass(slots=True)  # not frozen: a search makes tens of thousands, and never changes one
class _Node:
    state: BoardState
    used: NDArray[np.bool_]
    #: The rows open on the node's board (:meth:`SideAttacks.open_mask`): a child's is its
    #: parent's with the rows its fight closed (:meth:`SideAttacks.close_after`).
    open: NDArray[np.bool_]
    path: _Path | None
    value: float
    levels: int
    #: Every row's outcome on the parent's state, and the two units the last attack
    #: changed: the node's own outcome is that with the rows reading them evaluated again.
    known: FullOutcome | None = None
    changed: tuple[int, int] = (0, 0)
    #: The sum of every unit's :func:`_mark` (see :func:`_marked`): equal nodes have
    #: equal sums, and a child's is its parent's with its two units' marks swapped.
    mark: int = 0

    @property
    def rows(self) -> tuple[int, ...]:
        return () if self.path is None else self.path.rows()


def _weights(params: HexParams) -> tuple[float, float]:
    return float(to_fraction(params.advisor_enemy_weight)), float(
        to_fraction(params.advisor_own_weight)
    )


_MARKS = (1 << 64) - 1


def _mark(unit: int, strength: int, level: int, used: bool) -> int:
    """One unit's share of a node's :attr:`_Node.mark` (hashes of ints are the same in
    every run: no seed of Python's hash reaches them)."""
    return hash((unit, strength, level, used)) & _MARKS


def _marked(state: BoardState, used: NDArray[np.bool_]) -> int:
    """The :attr:`_Node.mark` of a whole board: one pass over its units."""
    return (
        sum(
            _mark(unit, s, v, u)
            for unit, (s, v, u) in enumerate(
                zip(state.strength.tolist(), state.level.tolist(), used.tolist(), strict=True)
            )
        )
        & _MARKS
    )


def _same(one: _Node, other: _Node) -> bool:
    # Bytes compare faster than np.array_equal's checks on arrays of one shape and type.
    return (
        one.used.tobytes() == other.used.tobytes()
        and one.state.strength.tobytes() == other.state.strength.tobytes()
        and one.state.level.tobytes() == other.state.level.tobytes()
    )


def _search(
    attacks: SideAttacks,
    width: int,
    start: BoardState | None = None,
    recall: Recall | None = None,
) -> tuple[_Node, int]:
    enemy_weight, own_weight = _weights(attacks.params)
    state = attacks.start if start is None else start
    unused = np.zeros(len(state.strength), dtype=np.bool_)
    root = _Node(state, unused, attacks.open_mask(state), None, 0.0, 0, mark=_marked(state, unused))
    best, beam, evaluated = root, [root], 0
    # Each beam node's place among the beam's rows in their order (lowest first): the
    # plans of one beam have as many attacks each and are all different, so comparing
    # ``(place, next row)`` orders the children as comparing their whole rows would.
    ranks = [0]
    while beam:
        # A child is only made (its board worked out) when the beam may keep it: of the
        # width² proposed, most fall behind the width best.
        children: list[tuple[float, int, tuple[int, int], _Node, int, int, int, FullOutcome]]
        children = []
        for node, rank in zip(beam, ranks, strict=True):
            rows = rows_open(node.open)
            if not rows.size:
                continue
            # Only the rows that read the two units of the last fight change: the rest of
            # the parent's outcome stands (a node's outcome is every open row's).
            full = (
                attacks.evaluate_all(node.state, rows, recall)
                if node.known is None
                else attacks.evaluate_after(node.known, node.state, node.changed, node.open, recall)
            )
            evaluated += 1
            score = enemy_weight * full[0][rows] - own_weight * full[1][rows]
            if rows.size > width:
                # Only rows scoring at least the width-th best can be among the width best
                # (ties at that score included): sort those alone.
                floor = np.partition(score, rows.size - width)[rows.size - width]
                near = (score >= floor).nonzero()[0]  # 1-D: flatnonzero without its wrapper
                rows, score = rows[near], score[near]
            gain = full[2][rows]
            # Best scores first; equal scores: more levels, then scenario order.
            order = np.lexsort((rows, -gain, -score))[:width]
            for at in order.tolist():
                row = int(rows[at])
                children.append(
                    (
                        node.value + float(score[at]),
                        node.levels + int(gain[at]),
                        (rank, row),
                        node,
                        row,
                        int(full[0][row]),
                        int(full[1][row]),
                        full,
                    )
                )
        children.sort(key=lambda c: (-c[0], -c[1], c[2]))
        beam, places = [], []
        seen: dict[int, list[_Node]] = {}
        for value, levels, place, node, row, taken, given, full in children:
            child = _child(attacks, node, row, taken, given, value, levels, full)
            # Two plans that reach the same board with the same attackers spent are one:
            # the marks tell most apart at once, the arrays decide the rest.
            alike = seen.setdefault(child.mark, [])
            if not (alike and any(_same(child, other) for other in alike)):
                alike.append(child)
                beam.append(child)
                places.append(place)
            if len(beam) == width:
                break
        # Each kept child's place among the kept ones, by (parent's place, row): the
        # order of their rows.
        ranks = [0] * len(beam)
        for rank, at in enumerate(sorted(range(len(beam)), key=places.__getitem__)):
            ranks[at] = rank
        if beam and (beam[0].value, beam[0].levels) > (best.value, best.levels):
            best = beam[0]
    return best, evaluated


def _child(
    attacks: SideAttacks,
    node: _Node,
    row: int,
    taken: int,
    given: int,
    value: float,
    levels: int,
    full: FullOutcome,
) -> _Node:
    """The node after ``node`` with attack ``row`` fought (``taken`` and ``given`` its
    losses): :func:`~fracas.rulesets.hex.boards.fought`, with the mark kept up."""
    a, t = int(attacks.attacker[row]), int(attacks.target[row])
    before = node.state
    after = fought(attacks, before, row, taken, given)
    used = node.used.copy()
    used[a] = True
    was_used = bool(node.used[t])
    mark = (
        node.mark
        - _mark(a, int(before.strength[a]), int(before.level[a]), bool(node.used[a]))
        - _mark(t, int(before.strength[t]), int(before.level[t]), was_used)
        + _mark(a, int(after.strength[a]), int(after.level[a]), True)
        + _mark(t, int(after.strength[t]), int(after.level[t]), was_used)
    ) & _MARKS
    closed = attacks.close_after(node.open, row, after)
    return _Node(after, used, closed, _Path(row, node.path), value, levels, full, (a, t), mark)


#: Attacks the exact search may evaluate before it gives way to beam search (each node of
#: the search evaluates every attack still open there, and counts them all).
EXACT_BUDGET = 200_000


class _OutOfBudget(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Weights:
    """Whole-number weights of enemy and own soldiers: a plan's value is ``enemy × enemy
    soldiers lost − own × own soldiers lost``, compared exactly."""

    enemy: int
    own: int

    @staticmethod
    def of(params: HexParams) -> Weights:
        """The advisor's weights times their common denominator (the same order)."""
        enemy = to_fraction(params.advisor_enemy_weight)
        own = to_fraction(params.advisor_own_weight)
        common = enemy.denominator * own.denominator
        return Weights(int(enemy * common), int(own * common))


@dataclass(frozen=True, slots=True)
class Proven:
    """What the exact search found: the rows, their whole-number value, the work."""

    rows: tuple[int, ...]
    value: int
    evaluated: int
    attacks_evaluated: int


def least_work(
    attacks: SideAttacks, start: BoardState | None = None, allowed: NDArray[np.bool_] | None = None
) -> int:
    """Attacks :func:`exact_search` evaluates at the least from ``start``, before any of
    them is evaluated: the root counts its open attacks, and it walks at least one child
    per attacker (two children of one attacker can only meet on one board, the other
    attackers' never), each counting what stays open — every open attack but the
    attacker's own and those on its target (which may fall). Past the budget, the search
    is refused before it starts.

    >>> from fracas.rulesets.hex.scenario import Board, Unit
    >>> from fracas.rulesets.hex.document import HexParams
    >>> board = Board.from_rows(["....."], [
    ...     Unit.make("a", "blue", (0, 0), attack=10, defense=10),
    ...     Unit.make("b", "blue", (2, 0), attack=10, defense=10),
    ...     Unit.make("foe", "red", (1, 0), attack=10, defense=10)])
    >>> least_work(SideAttacks.gather(board, "blue", HexParams()))
    2

    The root's 2 open attacks; each child loses its attacker's one and the two on foe,
    which may fall: nothing need stay open, 2 + 0 + 0.
    """
    state = attacks.start if start is None else start
    rows = attacks.open_rows(state)
    if allowed is not None:
        rows = rows[allowed[rows]]
    if not rows.size:
        return 0
    units = len(state.strength)
    attacker, target = attacks.attacker[rows], attacks.target[rows]
    by_attacker = np.bincount(attacker, minlength=units)
    on_target = np.bincount(target, minlength=units)
    left = np.maximum(rows.size - by_attacker[attacker] - on_target[target], 0)
    fewest = np.full(units, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(fewest, attacker, left)
    return int(rows.size + fewest[by_attacker > 0].sum())


def exact_search(
    attacks: SideAttacks,
    weights: Weights,
    *,
    start: BoardState | None = None,
    allowed: NDArray[np.bool_] | None = None,
    budget: int = EXACT_BUDGET,
    recall: Recall | None = None,
) -> Proven | None:
    """The plan of greatest value from ``start`` (more levels gained on a tie), proven;
    ``None`` when proving it would take more than ``budget`` attacks evaluated (refused
    before any is when :func:`least_work` already says so).

    Depth first, best next attack first. A branch is cut when its value so far plus a
    bound on what is left cannot beat the best plan found: each attacker still unused
    takes at most the strength of the strongest target open to it, and all of them
    together at most what the open targets hold (own losses are never below 0, and the
    weights are not negative). A board reached a second time with no more value is cut
    too, since what can follow depends on the board alone. ``allowed`` restricts the
    search to some rows (e.g. the attacks on one target); ``recall`` keeps outcomes for
    the next search on a board like this one.
    """
    state0 = attacks.start if start is None else start
    if least_work(attacks, state0, allowed) > budget:
        return None  # it could not finish within the budget: nothing is evaluated
    used0 = np.zeros(len(state0.strength), dtype=np.bool_)
    best_rows: tuple[int, ...] = ()
    best = (0, 0)
    seen: dict[bytes, int] = {}
    evaluated = 0
    # No loss exceeds the strongest unit: scores stay far inside 64 bits when this holds.
    small = max(weights.enemy, weights.own, 1) * max(int(state0.strength.max()), 1) < 2**60
    spent = 0

    def walk(
        state: BoardState,
        used: NDArray[np.bool_],
        rows: tuple[int, ...],
        value: int,
        levels: int,
        known: FullOutcome | None,
        changed: tuple[int, int],
    ) -> None:
        nonlocal best_rows, best, evaluated, spent
        if (value, levels) > best:
            best, best_rows = (value, levels), rows
        open_mask = attacks.open_mask(state, used)
        if allowed is not None:
            open_mask &= allowed
        open_rows = rows_open(open_mask)
        if not open_rows.size:
            return
        # Looking at a node counts its open attacks, cut or not: the budget bounds the work.
        spent += int(open_rows.size)
        if spent > budget:
            raise _OutOfBudget
        strength = state.strength
        targets = attacks.target[open_rows]
        reach = np.zeros(len(strength), dtype=np.int64)
        np.maximum.at(reach, attacks.attacker[open_rows], strength[targets])
        held = np.zeros(len(strength), dtype=np.bool_)
        held[targets] = True
        left = min(int(reach.sum()), int(strength[held].sum()))
        if value + weights.enemy * left < best[0]:
            return
        # As in beam search: the parent's outcome stands but for the rows reading the two
        # units its last fight changed (the open rows here were all open there).
        full = (
            attacks.evaluate_all(state, open_rows, recall)
            if known is None
            else attacks.evaluate_after(known, state, changed, open_mask, recall)
        )
        evaluated += 1
        taken_now, given_now, gains_now = (a[open_rows] for a in full)
        taken, given, gains = taken_now.tolist(), given_now.tolist(), gains_now.tolist()
        if small:
            # Every score fits a 64-bit integer: numpy sorts them, the same order.
            score_now = weights.enemy * taken_now - weights.own * given_now
            order = np.lexsort((np.arange(open_rows.size), -gains_now, -score_now)).tolist()
            scores = score_now.tolist()
        else:
            pairs = zip(taken, given, strict=True)
            scores = [weights.enemy * e - weights.own * o for e, o in pairs]
            order = sorted(range(len(scores)), key=lambda at: (-scores[at], -gains[at], at))
        for at in order:
            row = int(open_rows[at])
            after = fought(attacks, state, row, taken[at], given[at])
            now_used = used.copy()
            now_used[attacks.attacker[row]] = True
            reached = value + scores[at]
            key = after.strength.tobytes() + after.level.tobytes() + now_used.tobytes()
            if seen.get(key, reached - 1) >= reached:
                continue
            seen[key] = reached
            fighters = (int(attacks.attacker[row]), int(attacks.target[row]))
            walk(after, now_used, (*rows, row), reached, levels + gains[at], full, fighters)

    try:
        walk(state0, used0, (), 0, 0, None, (0, 0))
    except _OutOfBudget:
        return None
    return Proven(best_rows, best[0], evaluated, spent)


def _replay(
    attacks: SideAttacks,
    rows: tuple[int, ...],
    start: BoardState | None = None,
    recall: Recall | None = None,
) -> tuple[list[PlannedAttack], BoardState]:
    """Walk the chosen rows again, exactly, collecting each attack's numbers."""
    enemy_weight = to_fraction(attacks.params.advisor_enemy_weight)
    own_weight = to_fraction(attacks.params.advisor_own_weight)
    state = attacks.start if start is None else start
    planned = []
    for row in rows:
        one = np.array([row], dtype=np.int64)
        if recall is None:
            outcome = attacks.evaluate(state, one)
            enemy, own = int(outcome.target_losses[0]), int(outcome.attacker_losses[0])
        else:
            taken, given, _ = recall.outcomes(state, one)
            enemy, own = int(taken[0]), int(given[0])
        attacker, target = attacks.pairs[row]
        planned.append(
            PlannedAttack(attacker, target, enemy, own, enemy_weight * enemy - own_weight * own)
        )
        state = fought(attacks, state, row, enemy, own)
    return planned, state


def ranking_value(
    attacks: SideAttacks, order: list[tuple[str, str]], recall: Recall | None = None
) -> Fraction:
    """Value of playing ``order`` (e.g. the advisor's ranking) as far as it stays possible.
    ``recall`` keeps the outcomes for the next walk of the same board (none differs)."""
    index = {pair: row for row, pair in enumerate(attacks.pairs)}
    state = attacks.start
    used: set[int] = set()
    rows: list[int] = []
    for pair in order:
        row = index[pair]
        attacker, target = int(attacks.attacker[row]), int(attacks.target[row])
        if attacker in used or state.strength[attacker] <= 0 or state.strength[target] <= 0:
            continue
        used.add(attacker)
        rows.append(row)
        one = np.array([row], dtype=np.int64)
        if recall is None:
            outcome = attacks.evaluate(state, one)
            state = apply(attacks, state, row, outcome, 0)
        else:
            taken, given, _ = recall.outcomes(state, one)
            state = fought(attacks, state, row, int(taken[0]), int(given[0]))
    planned, _ = _replay(attacks, tuple(rows), recall=recall)
    return sum((p.value for p in planned), Fraction(0))


@dataclass(frozen=True, slots=True)
class Found:
    """The best turn a search found from one state: rows, and how it was found."""

    rows: tuple[int, ...]
    exact: bool
    evaluated: int
    #: The beam's width when beam search found the turn (0: the exact search did).
    width: int = 0
    #: The exact search's budget when it was tried (0: it was not).
    budget: int = 0

    @property
    def method(self) -> str:
        """How the turn was found, in words (:func:`search_label`)."""
        return search_label(self.exact, self.width, self.evaluated, self.budget)


def best_turn(
    attacks: SideAttacks,
    *,
    start: BoardState | None = None,
    width: int | None = None,
    budget: int = EXACT_BUDGET,
    recall: Recall | None = None,
) -> Found:
    """The planner's turn from ``start``: proven by :func:`exact_search` when no ``width``
    is asked for and it fits ``budget``, else beam search (width: ``planner_width``).
    ``recall`` keeps the outcomes worked out for the next search on a board like this;
    the turn found is the same with it or without."""
    if width is None and budget > 0:
        proven = exact_search(
            attacks, Weights.of(attacks.params), start=start, budget=budget, recall=recall
        )
        if proven is not None:
            return Found(proven.rows, True, proven.evaluated, budget=budget)
    beam = attacks.params.planner_width if width is None else width
    node, evaluated = _search(attacks, beam, start, recall)
    return Found(node.rows, False, evaluated, beam, budget if width is None else 0)


def plan_turn(
    board: Board,
    side: str,
    params: HexParams,
    *,
    width: int | None = None,
    budget: int = EXACT_BUDGET,
) -> Plan:
    """Propose the attacks of ``side`` for this turn (see the module doc).

    Without ``width``, the exact search is tried first, within ``budget`` attacks
    evaluated (0: never); beam search uses ``width``, by default ``planner_width``.
    """
    beam = params.planner_width if width is None else width
    if beam < 1:
        raise ValueError(f"width must be at least 1, not {beam}")
    attacks = SideAttacks.gather(board, side, params)
    # One store of outcomes for the search and the walks after it: the plan's attacks
    # and the ranking's are found there again rather than evaluated one at a time.
    recall = Recall(attacks)
    found = best_turn(attacks, width=width, budget=budget, recall=recall)
    evaluated = found.evaluated
    planned, state = _replay(attacks, found.rows, recall=recall)
    start = attacks.evaluate(attacks.start)
    worth = scores(start, params)
    # The ranking as a player would follow it: its attacks that score above 0, in order.
    ranked = [attacks.pairs[row] for row in ranked_rows(attacks, start) if worth[row] > 0]
    units = len(board.units)
    return Plan(
        side=side,
        attacks=tuple(planned),
        value=sum((p.value for p in planned), Fraction(0)),
        ranking_value=ranking_value(attacks, ranked, recall),
        width=beam,
        plans_evaluated=evaluated,
        board=board,
        params=params,
        strength_after=tuple(int(s) for s in state.strength[:units]),
        level_after=tuple(int(v) for v in state.level[:units]),
        exact=found.exact,
        budget=budget if width is None else 0,
    )
