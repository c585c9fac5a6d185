"""A combat (a strike and perhaps a counter, applied together) and a turn of combats.

>>> from fracas.rulesets.hex.scenario import Board, Unit
>>> from fracas.rulesets.hex.document import HexParams
>>> board = Board.from_rows(["..."], [Unit.make("a", "blue", (0, 0), attack=10, defense=10),
...                                   Unit.make("b", "red", (1, 0), attack=10, defense=10)])
>>> combat = fight(board, "a", "b", HexParams())
>>> combat.losses, combat.after.unit("a").level   # 50 each; a gains 1 for fighting
({'a': 50, 'b': 50}, 1)
>>> board.unit("a").strength   # the board itself never changes
100
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fracas.core.errors import IllegalActionError
from fracas.core.limits import spend
from fracas.rulesets.hex.document import HexParams
from fracas.rulesets.hex.scenario import Board, Unit, with_losses
from fracas.rulesets.hex.strike import StrikeOutcome, strike


def illegal_reason(board: Board, attacker_id: str, target_id: str) -> str | None:
    """Why ``attacker_id`` may not attack ``target_id`` now, or ``None`` when it may."""
    for unit_id in (attacker_id, target_id):
        if not board.has_unit(unit_id):
            return f"{unit_id!r} is not on the board (unknown or destroyed)"
    attacker, target = board.unit(attacker_id), board.unit(target_id)
    if attacker.side == target.side:
        return f"{attacker.id!r} and {target.id!r} are both on side {attacker.side!r}"
    for unit in (attacker, target):
        if not unit.alive:
            return f"{unit.id!r} has no strength left"
    distance = attacker.hex.distance(target.hex)
    if not attacker.reaches(distance):
        low, high = attacker.range
        return f"{target.id!r} is {distance} hexes away; {attacker.id!r} reaches {low} to {high}"
    if attacker.attack_vs(target.domain) <= 0:
        return f"{attacker.id!r} has no attack against {target.domain} units like {target.id!r}"
    return None


def check_legal(
    board: Board, attacker_id: str, target_id: str, path: Sequence[str | int] = ()
) -> None:
    """Raise :class:`IllegalActionError` (at ``path``) unless the attack is legal."""
    reason = illegal_reason(board, attacker_id, target_id)
    if reason is not None:
        raise IllegalActionError(f"illegal attack: {reason}", path=path)


def counter_reason(attacker: Unit, target: Unit) -> str | None:
    """Why ``target`` cannot strike back at ``attacker``, or ``None`` when it counters."""
    distance = attacker.hex.distance(target.hex)
    if distance != 1:
        return f"no counter: attacked from {distance} hexes away"
    if not target.reaches(1):
        return f"no counter: {target.id} cannot fire at distance 1 (range {target.range[0]}+)"
    if target.attack_vs(attacker.domain) <= 0:
        return f"no counter: {target.id} has no attack against {attacker.domain}"
    return None


@dataclass(frozen=True, slots=True)
class LevelChange:
    """Levels of one unit before and after a combat, with the reason."""

    unit: str
    before: int
    after: int
    reason: str

    @property
    def gained(self) -> int:
        """Levels gained in this combat (0 when capped or when the unit did not fight)."""
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Combat:
    """One attack, resolved: the strike, the counter if any, and the board after it."""

    attacker: str
    target: str
    distance: int
    strike: StrikeOutcome
    counter: StrikeOutcome | None
    counter_note: str
    losses: dict[str, int]
    levels: tuple[LevelChange, ...]
    destroyed: tuple[str, ...]
    before: Board
    after: Board

    def level_gain(self, unit_id: str) -> int:
        """Levels ``unit_id`` gained in this combat; 0 for a unit that took no part."""
        return next((c.gained for c in self.levels if c.unit == unit_id), 0)


def level_after(level: Any, fought: Any, killed: Any, params: HexParams) -> Any:
    """Level after a combat: +``level_gain_fight`` for fighting (attacking, or countering),
    +``level_gain_kill`` more for destroying the enemy, capped at ``level_cap``; the cap
    never takes levels away. Works on whole numbers and on numpy arrays alike.

    >>> params = HexParams()
    >>> int(level_after(98, True, True, params)), int(level_after(5, False, False, params))
    (99, 5)
    """
    gain = np.multiply(
        fought, params.level_gain_fight + np.multiply(killed, params.level_gain_kill)
    )
    return np.maximum(np.minimum(params.level_cap, np.add(level, gain)), level)


def _level(unit: Unit, fought: bool, killed: bool, params: HexParams, role: str) -> LevelChange:
    reasons = []
    if fought:
        reasons.append(f"+{params.level_gain_fight} {role}")
        if killed:
            reasons.append(f"+{params.level_gain_kill} destroyed the enemy")
    else:
        reasons.append("could not counter: no gain")
    after = int(level_after(unit.level, fought, killed, params))
    gain = params.level_gain_fight + params.level_gain_kill * killed if fought else 0
    if unit.level + gain > params.level_cap:
        reasons.append(f"capped at {params.level_cap}")
    return LevelChange(unit.id, unit.level, after, ", ".join(reasons))


def fight(board: Board, attacker_id: str, target_id: str, params: HexParams) -> Combat:
    """Resolve one legal attack on ``board`` and return it with the new board.

    The strike and the counter read the same pre-combat board and their losses land at
    once, which is how an attacker and its target can wipe each other out.
    """
    check_legal(board, attacker_id, target_id)
    spend()  # one combat worked out: a step of the work budget (docs/limits.md)
    attacker, target = board.unit(attacker_id), board.unit(target_id)
    forward = strike(board, attacker_id, target_id, params)
    note = counter_reason(attacker, target)
    counter = None
    if note is None:
        # The defending unit of the combat is the target, in the counter too; the old
        # reading (supporters next to the unit the counter strikes) stays a parameter.
        centre = target_id if params.counter_support == "target" else attacker_id
        counter = strike(board, target_id, attacker_id, params, support_around=centre)
    losses = {attacker.id: counter.losses if counter else 0, target.id: forward.losses}
    target_left = target.strength - forward.losses
    attacker_left = attacker.strength - losses[attacker.id]
    levels = (
        _level(attacker, True, target_left == 0, params, "fought"),
        _level(target, counter is not None, attacker_left == 0, params, "countered"),
    )
    destroyed = tuple(
        u.id for u, left in ((attacker, attacker_left), (target, target_left)) if not left
    )
    changes: dict[str, Unit | None] = {}
    for unit, change in zip((attacker, target), levels, strict=True):
        if unit.id in destroyed:
            changes[unit.id] = None
        else:
            changes[unit.id] = with_losses(unit, losses[unit.id], change.gained)
    return Combat(
        attacker=attacker.id,
        target=target.id,
        distance=attacker.hex.distance(target.hex),
        strike=forward,
        counter=counter,
        counter_note=note or f"{target.id} counters at distance 1",
        losses=losses,
        levels=levels,
        destroyed=destroyed,
        before=board,
        after=board.updated(changes),
    )


def forecast(board: Board, attacker_id: str, target_id: str, params: HexParams) -> Combat:
    """The combat ``attacker_id`` → ``target_id`` would give, without committing it.

    The board is an immutable value, so this is :func:`fight` with its new board ignored;
    the name says what the caller means.
    """
    return fight(board, attacker_id, target_id, params)


@dataclass(frozen=True, slots=True)
class Turn:
    """A turn: the combats of the orders in order, and the board before and after."""

    start: Board
    combats: tuple[Combat, ...]

    @property
    def end(self) -> Board:
        """The board after the last order (the starting board when there were none)."""
        return self.combats[-1].after if self.combats else self.start


def play_turn(board: Board, orders: Sequence[tuple[str, str]], params: HexParams) -> Turn:
    """Resolve ``orders`` (attacker id, target id) one after the other on the evolving board.

    An order that is illegal when its turn comes raises :class:`IllegalActionError` at
    ``orders[i]``.
    """
    combats: list[Combat] = []
    current = board
    for index, (attacker_id, target_id) in enumerate(orders):
        check_legal(current, attacker_id, target_id, ("orders", index))
        combat = fight(current, attacker_id, target_id, params)
        combats.append(combat)
        current = combat.after
    return Turn(board, tuple(combats))
