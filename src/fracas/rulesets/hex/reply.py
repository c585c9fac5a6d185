"""What comes back: the attacks the enemy can make now, its best reply to ours, and the
best order of several attackers against one target.

Every number is the planner's (:mod:`fracas.rulesets.hex.plan`) on the gathered attacks of
:mod:`fracas.rulesets.hex.boards`: units never move during a turn, so the enemy's attacks
are gathered once on the board as it is, and evaluated on the state our attacks leave
(strengths and levels; a destroyed unit is a unit of strength 0).

**Threats.** For each unit of ``side``, every attack another side can make on it now,
with the losses it would deal and take, worst first (most soldiers of ours lost).

**Reply.** For each of our best attacks (or our planned turn): the board it leaves, each
other side's best turn on that board by the same planner, and the net value::

    net = our value − their value

where both are the plan value (advisor weights, each side counting the other's soldiers
as enemies). With several other sides, the reply shown is the one worth most to its side
(the worst for us); they are not combined. Replies are ranked by net value, best first.

**Focus.** For one target and the units of ``side`` that can reach it, the order and
subset of attackers that takes the most soldiers from it (all of them: it is destroyed)
and, among those, costs the fewest of ours; exact (:func:`~fracas.rulesets.hex.plan.
exact_search` with those weights), with the board after each attack.

>>> from fracas.rulesets.hex.scenario import Board, Unit
>>> from fracas.rulesets.hex.document import HexParams
>>> board = Board.from_rows(["...."], [
...     Unit.make("a", "blue", (0, 0), attack=10, defense=10),
...     Unit.make("b", "red", (1, 0), attack=20, defense=10)])
>>> [(t.attacker, t.target, t.target_lost, t.attacker_lost) for t in threats(board, "blue",
...     HexParams())]
[('b', 'a', 80, 50)]
>>> best = replies(board, "blue", HexParams())[0]
>>> best.orders, best.our_value, best.their_orders, best.their_value, best.net
((('a', 'b'),), Fraction(-30, 1), (('b', 'a'),), Fraction(12, 1), Fraction(-42, 1))

Threat: b strikes 100 × 20 = 2000 against 100 × 10 = 1000, r = 2, 4/5 of a's 100 = 80;
a's counter is an even 1000 against 1000: 50. Our attack: a takes 50 and loses 80 (value
−30), both at Lv 1 after. Their reply: b, 50 × 20 × 1.01 = 1010 against a's 20 × 10 ×
1.01 = 202, r = 5, 25/26 of 20 = 19.2 → 19; a's counter 202 against 505, r = 0.4,
0.16/1.16 of 50 = 6.9 → 7: value 19 − 7 = 12. Net −30 − 12 = −42.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from fractions import Fraction
from typing import BinaryIO

import numpy as np

from fracas.core import helper as forking
from fracas.core.errors import ScenarioError
from fracas.rulesets.hex.advisor import ranked_rows
from fracas.rulesets.hex.boards import BoardState, Recall, SideAttacks
from fracas.rulesets.hex.document import HexParams
from fracas.rulesets.hex.plan import (
    EXACT_BUDGET,
    Found,
    PlannedAttack,
    Weights,
    _replay,
    best_turn,
    exact_search,
)
from fracas.rulesets.hex.scenario import Board, Unit


@dataclass(frozen=True, slots=True)
class Threat:
    """One attack another side can make now on a unit of ours, and what it would do."""

    attacker: str
    side: str
    target: str
    distance: int
    target_lost: int
    attacker_lost: int
    target_strength: int

    @property
    def destroys(self) -> bool:
        """True when the attack would leave our unit with no soldiers."""
        return self.target_lost == self.target_strength


def threats(board: Board, side: str, params: HexParams) -> list[Threat]:
    """Every attack the other sides can make on ``side`` now, worst first: most of our
    soldiers lost, then fewest of theirs, then scenario order (target, then attacker)."""
    order = {unit.id: index for index, unit in enumerate(board.units)}
    found: list[Threat] = []
    for enemy in board.sides():
        if enemy == side:
            continue
        attacks = SideAttacks.gather(board, enemy, params)
        ours = np.array([board.units[t].side == side for t in attacks.target.tolist()], bool)
        rows = np.flatnonzero(ours).astype(np.int64)
        if not rows.size:
            continue
        outcome = attacks.evaluate(attacks.start, rows)
        for at, row in enumerate(rows.tolist()):
            attacker, target = attacks.pairs[row]
            a, t = board.unit(attacker), board.unit(target)
            found.append(
                Threat(
                    attacker,
                    enemy,
                    target,
                    a.hex.distance(t.hex),
                    int(outcome.target_losses[at]),
                    int(outcome.attacker_losses[at]),
                    t.strength,
                )
            )
    found.sort(key=lambda x: (-x.target_lost, x.attacker_lost, order[x.target], order[x.attacker]))
    return found


def _value(planned: list[PlannedAttack]) -> Fraction:
    return sum((p.value for p in planned), Fraction(0))


@dataclass(frozen=True, slots=True)
class Reply:
    """Our attacks, the enemy's best reply on the board they leave, and the net value."""

    side: str
    ours: tuple[PlannedAttack, ...]
    our_value: Fraction
    our_exact: bool
    enemy: str | None
    theirs: tuple[PlannedAttack, ...]
    their_value: Fraction
    their_exact: bool
    board: Board
    strength_after: tuple[int, ...]
    level_after: tuple[int, ...]
    #: How our attacks were chosen, in words: the planner's search (``plan``), or one
    #: attack of the ranking, or the orders given.
    our_method: str = ""
    #: How their reply was found: "best of all plans …" or "best found by beam search of
    #: width W …" (:func:`~fracas.rulesets.hex.plan.search_label`).
    their_method: str = ""

    @property
    def net(self) -> Fraction:
        """Our value minus the value of their reply."""
        return self.our_value - self.their_value

    @property
    def orders(self) -> tuple[tuple[str, str], ...]:
        """Our attacks as ``(attacker id, target id)``."""
        return tuple((a.attacker, a.target) for a in self.ours)

    @property
    def their_orders(self) -> tuple[tuple[str, str], ...]:
        """Their reply as ``(attacker id, target id)``."""
        return tuple((a.attacker, a.target) for a in self.theirs)

    def end(self) -> Board:
        """The board after both our attacks and their reply."""
        return _board_after(self.board, self.strength_after, self.level_after)


def _board_after(board: Board, strength: tuple[int, ...], level: tuple[int, ...]) -> Board:
    changes: dict[str, Unit | None] = {}
    for unit, s, v in zip(board.units, strength, level, strict=True):
        if s <= 0 < unit.strength:
            changes[unit.id] = None
        elif (s, v) != (unit.strength, unit.level):
            changes[unit.id] = replace(unit, strength=s, level=v)
    return board.updated(changes)


def _tuple(state: BoardState, units: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return (
        tuple(int(s) for s in state.strength[:units]),
        tuple(int(v) for v in state.level[:units]),
    )


def replies(
    board: Board,
    side: str,
    params: HexParams,
    *,
    plan: bool = False,
    top: int | None = 20,
    width: int | None = None,
    budget: int = EXACT_BUDGET,
    orders: Sequence[tuple[str, str]] | None = None,
    shared: bool = True,
) -> list[Reply]:
    """The enemy's best reply to each of our ``top`` best attacks (``None``: all), or to
    our planned turn (``plan``), or to the attacks ``orders`` played in order (legal ones,
    each unit once), ranked by net value (see the module doc).

    ``width`` and ``budget`` size every search as for
    :func:`~fracas.rulesets.hex.plan.plan_turn`. The boards the replies are searched on
    differ from the board as it is in two units each, so an enemy attack that reads
    neither (and most of the later states of the searches) comes out as before:
    ``shared`` keeps every outcome worked out for the next search
    (:class:`~fracas.rulesets.hex.boards.Recall`); without it each reply is worked out on
    its own, the same replies more slowly.
    """
    ours = SideAttacks.gather(board, side, params)
    enemies = [SideAttacks.gather(board, e, params) for e in board.sides() if e != side]
    recalls = {enemy.side: Recall(enemy) if shared else None for enemy in enemies}
    # Our planned turn is walked again once found: its outcomes are kept for that walk.
    our_recall = Recall(ours) if shared else None
    candidates: list[tuple[tuple[int, ...], bool, str]] = []
    if orders is not None:
        index = {pair: row for row, pair in enumerate(ours.pairs)}
        candidates.append((tuple(index[pair] for pair in orders), False, "the orders given"))
    elif plan:
        found = best_turn(ours, width=width, budget=budget, recall=our_recall)
        candidates.append((found.rows, found.exact, found.method))
    else:
        ranked = ranked_rows(ours, ours.evaluate(ours.start))
        one = "one attack of the ranking"
        candidates += [((row,), True, one) for row in (ranked if top is None else ranked[:top])]
    units = len(board.units)
    # An exact search that did not fit the budget on one of these boards is not tried
    # again for that side: the boards differ in two units, and each try costs the budget.
    too_big: set[str] = set()

    def reply_to(number: int) -> Reply:
        rows, exact, our_method = candidates[number]
        planned, state = _replay(ours, rows, recall=our_recall)
        our_value = _value(planned)
        best: tuple[Fraction, str | None, list[PlannedAttack], Found, BoardState] = (
            Fraction(0),
            None,
            [],
            Found((), True, 0),
            state,
        )
        for enemy in enemies:
            tries = 0 if enemy.side in too_big else budget
            recall = recalls[enemy.side]
            found = best_turn(enemy, start=state, width=width, budget=tries, recall=recall)
            if width is None and not found.exact:
                too_big.add(enemy.side)
                # Not tried again here, but the label says why beam search answered.
                found = replace(found, budget=budget)
            theirs, after = _replay(enemy, found.rows, state, recall)
            value = _value(theirs)
            if best[1] is None or value > best[0]:
                best = (value, enemy.side, theirs, found, after)
        their_value, enemy_side, theirs, their_found, after = best
        strength, level = _tuple(after, units)
        return Reply(
            side,
            tuple(planned),
            our_value,
            exact,
            enemy_side,
            tuple(theirs),
            their_value,
            their_found.exact,
            board,
            strength,
            level,
            our_method,
            their_found.method if enemy_side is not None else "no other side",
        )

    found_replies = [reply_to(0)] if candidates else []
    # Once every other side's exact search is out of reach (or a width is asked for), no
    # reply depends on those before it: a helper process may search half of the rest.
    alike = width is not None or all(enemy.side in too_big for enemy in enemies)
    later = range(1, len(candidates))
    found_replies += _shared(reply_to, later, board) if alike else [reply_to(n) for n in later]
    made = [
        (-reply.net, -reply.our_value, number, reply) for number, reply in enumerate(found_replies)
    ]
    made.sort(key=lambda x: (x[0], x[1], x[2]))
    return [reply for *_, reply in made]


#: Fewest replies worth forking a helper for: a search of a small board takes less than
#: starting the helper and sending its replies back.
SHARE_FROM = 4


def _shared(reply_to: Callable[[int], Reply], numbers: range, board: Board) -> list[Reply]:
    """``reply_to`` of each of ``numbers``, in order: the second half in a helper process
    when :func:`~fracas.core.helper.sharing_with` allows two and a core is free (the
    same replies: each depends on its number alone). A helper that fails leaves its half
    to this process."""
    cut = len(numbers) // 2
    helper = None
    if len(numbers) >= SHARE_FROM and forking.sharing_processes() > 1 and forking.a_core_is_free():
        helper = forking.Helper.start(_serving(reply_to, numbers[cut:]))
    if helper is None:
        return [reply_to(number) for number in numbers]
    try:
        helper.send(True)
        mine = [reply_to(number) for number in numbers[:cut]]
        theirs = helper.receive()
    finally:
        helper.stop()
    if theirs is None:
        return mine + [reply_to(number) for number in numbers[cut:]]
    # Sent back without the board (each would carry a copy): it is this process's own.
    return mine + [Reply(**dict(zip(_SENT, values, strict=True)), board=board) for values in theirs]


#: The fields of a :class:`Reply` a helper sends back: all but the board.
_SENT = tuple(field.name for field in fields(Reply) if field.name != "board")


def _serving(
    reply_to: Callable[[int], Reply], numbers: range
) -> Callable[[BinaryIO, BinaryIO], None]:
    def serve(requests: BinaryIO, replies: BinaryIO) -> None:
        if forking.receive(requests) is not None:
            found = [reply_to(number) for number in numbers]
            forking.send(replies, [tuple(getattr(r, name) for name in _SENT) for r in found])

    return serve


@dataclass(frozen=True, slots=True)
class FocusStep:
    """One attack of a focused order, and the two units after it ("continue the fight")."""

    attack: PlannedAttack
    target_left: int
    attacker_left: int
    #: The two units that fought, as ``(id, strength, level)`` after the attack: all that
    #: changed on the board (the next attack of the order fights on it).
    changed: tuple[tuple[str, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Focus:
    """The best order of attackers of ``side`` against ``target`` (see the module doc)."""

    side: str
    target: str
    strength: int
    steps: tuple[FocusStep, ...]
    attackers: tuple[str, ...]
    evaluated: int
    board: Board
    strength_after: tuple[int, ...]
    level_after: tuple[int, ...]

    @property
    def taken(self) -> int:
        """Soldiers the order takes from the target."""
        return sum(step.attack.enemy_lost for step in self.steps)

    @property
    def own_lost(self) -> int:
        """Soldiers of ours the order costs."""
        return sum(step.attack.own_lost for step in self.steps)

    @property
    def destroyed(self) -> bool:
        """True when the order leaves the target with no soldiers."""
        return self.taken == self.strength

    def end(self) -> Board:
        """The board after the whole order."""
        return _board_after(self.board, self.strength_after, self.level_after)

    def after(self, attacks: int) -> Board:
        """The board after the first ``attacks`` of the order ("continue the fight": the
        board the next attack fights on, or the whole order's with ``len(steps)``)."""
        strength = {unit.id: unit.strength for unit in self.board.units}
        level = {unit.id: unit.level for unit in self.board.units}
        for step in self.steps[:attacks]:
            for unit, s, v in step.changed:
                strength[unit], level[unit] = s, v
        ids = [unit.id for unit in self.board.units]
        return _board_after(
            self.board, tuple(strength[i] for i in ids), tuple(level[i] for i in ids)
        )


def focus(
    board: Board, side: str, target: str, params: HexParams, *, budget: int = EXACT_BUDGET
) -> Focus:
    """The order and subset of the attackers of ``side`` that can reach ``target`` which
    takes the most from it for the least own loss, proven by exact search.

    A target with no attacker of ``side`` in reach, or more orders than ``budget`` attacks
    evaluated can sort out, raises :class:`~fracas.core.errors.ScenarioError`.
    """
    attacks = SideAttacks.gather(board, side, params)
    index = next(i for i, unit in enumerate(board.units) if unit.id == target)
    allowed = attacks.target == index
    attackers = tuple(attacks.pairs[row][0] for row in np.flatnonzero(allowed).tolist())
    if not attackers:
        raise ScenarioError(f"no unit of {side!r} can attack {target!r}", path=("--focus",))
    # Taking one more soldier from the target always beats losing every soldier of ours.
    ours = sum(int(attacks.start.strength[attacks.attacker[row]]) for row in range(len(attacks)))
    proven = exact_search(attacks, Weights(ours + 1, 1), allowed=allowed, budget=budget)
    if proven is None:
        raise ScenarioError(
            f"{len(attackers)} attackers of {target!r} are more orders than the budget of "
            f"{budget:,} attacks sorts out",
            path=("--focus",),
        )
    planned, state = _replay(attacks, proven.rows)
    steps = []
    walk = attacks.start
    for row, attack in zip(proven.rows, planned, strict=True):
        walk = _replay(attacks, (row,), walk)[1]
        fighters = (int(attacks.attacker[row]), index)
        steps.append(
            FocusStep(
                attack,
                int(walk.strength[index]),
                int(walk.strength[attacks.attacker[row]]),
                tuple(
                    (board.units[u].id, int(walk.strength[u]), int(walk.level[u])) for u in fighters
                ),
            )
        )
    strength, level = _tuple(state, len(board.units))
    return Focus(
        side,
        target,
        board.unit(target).strength,
        tuple(steps),
        attackers,
        proven.evaluated,
        board,
        strength,
        level,
    )
