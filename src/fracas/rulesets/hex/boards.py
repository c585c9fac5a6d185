"""Board-level batches: every legal attack of a side gathered once, evaluated as one batch.

Phase 1 runs for every attack at once, on the board as it is: what :func:`~fracas.rulesets.
hex.strike.gather_strike` says of one strike (who supports and who encircles, in the attack
and in the counter) is read from arrays of the units, a board of ten thousand units costing
no Python step per attack; a test holds the arrays to ``gather_strike``'s, pair by pair. Units
never move during a turn, so those lists stay right for every later state of the board;
what changes is only strengths and levels (a destroyed unit is a unit of strength 0: it
no longer supports, encircles, attacks or is attacked). :class:`SideAttacks` keeps the
lists as index arrays, and :meth:`SideAttacks.evaluate` turns any state into the numbers
of every strike at once for :mod:`fracas.rulesets.hex.batch`.

>>> from fracas.rulesets.hex.scenario import Board, Unit
>>> from fracas.rulesets.hex.document import HexParams
>>> board = Board.from_rows(["...."], [
...     Unit.make("gun", "blue", (0, 0), attack=10, defense=5, range=(2, 3)),
...     Unit.make("inf", "blue", (1, 0), attack=10, defense=10),
...     Unit.make("foe", "red", (2, 0), attack=10, defense=10)])
>>> side = SideAttacks.gather(board, "blue", HexParams())
>>> outcome = side.evaluate(side.start)
>>> side.pairs
(('gun', 'foe'), ('inf', 'foe'))
>>> outcome.target_losses.tolist(), outcome.attacker_losses.tolist()
([61, 50], [0, 50])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fracas.core.errors import ScenarioError
from fracas.core.modifiers import to_fraction

# The core's work hook (set by fracas.core.process.watching_work), which a front end
# hangs its progress display on; exact walks tell it their step plays, the advisor and
# the planner their attacks.
from fracas.core.process import work_watch
from fracas.rulesets.hex.batch import (
    FIELDS,
    CombatResults,
    Floats,
    Ints,
    StrikeArrays,
    combats,
)
from fracas.rulesets.hex.document import RANGE, HexParams, out_of_range
from fracas.rulesets.hex.play import counter_reason, illegal_reason, level_after
from fracas.rulesets.hex.scenario import DIRECTIONS, Board, DomainName, Hex
from fracas.rulesets.hex.strike import SideInputs, SideMemo, StrikeInputs, gather_strike

#: Most units a list can hold: the six hexes around one unit.
RING = 6
_ONE, _ZERO = Fraction(1), Fraction(0)


def attack_pairs(board: Board, side: str) -> list[tuple[str, str]]:
    """Every legal ``(attacker id, target id)`` for ``side``, in scenario order.

    Only units within an attacker's reach are looked at, so a large board costs in
    proportion to its units, not to their square; the rule itself is
    :func:`~fracas.rulesets.hex.play.illegal_reason`.
    """
    order = {unit.id: index for index, unit in enumerate(board.units)}
    pairs: list[tuple[str, str]] = []
    for attacker in board.units:
        if attacker.side != side or not attacker.alive:
            continue
        reach = attacker.range[1]
        if 3 * reach * (reach + 1) < len(board.units):
            found = []
            for dq in range(-reach, reach + 1):
                for dr in range(max(-reach, -dq - reach), min(reach, -dq + reach) + 1):
                    unit = board.unit_at(Hex(attacker.hex.q + dq, attacker.hex.r + dr))
                    if unit is not None:
                        found.append(unit)
        else:
            found = list(board.units)
        found.sort(key=lambda unit: order[unit.id])
        pairs += [
            (attacker.id, target.id)
            for target in found
            if illegal_reason(board, attacker.id, target.id) is None
        ]
    return pairs


#: Most cells of the grid :func:`pair_rows` looks reaches up on (or candidate pairs it
#: weighs at once), past 16 a unit.
_GRID_CELLS = 1 << 20
#: Largest hex coordinate :func:`pair_rows` works on in 64-bit integers.
_WIDEST_INT64_HEX = 1 << 59


def pair_rows(board: Board, side: str) -> tuple[Ints, Ints]:
    """:func:`attack_pairs` as indices into ``board.units`` (attackers, targets), found
    with arrays: each attacker's reach is looked up on a grid of the board's hexes (or,
    for a reach wider than the board holds units, every unit is a candidate), and the rule
    of :func:`~fracas.rulesets.hex.play.illegal_reason` (other side, both with soldiers,
    distance within range, an attack against the target's domain) applied to every
    candidate at once."""
    units = board.units
    if not units:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    domains = sorted({d for u in units for d in u.attack} | {u.domain for u in units})
    column = {d: c for c, d in enumerate(domains)}
    # Hexes far beyond any real map (a map may list its hexes one by one) are worked on as
    # Python integers: three of their differences added must not overflow.
    wide = any(abs(c) > _WIDEST_INT64_HEX for u in units for c in u.hex)
    kind: Any = object if wide else np.int64
    hexes = np.array([tuple(u.hex) for u in units], kind).reshape(-1, 2)
    # No unit stands farther from another than the units' own spread: a longer reach finds
    # nobody more, so a range of a million hexes costs what the board's width does.
    span = hexes.max(axis=0) - hexes.min(axis=0)
    spread = int(span.sum())
    sides = {name: code for code, name in enumerate(board.sides())}
    code = np.array([sides[u.side] for u in units], np.int64)
    alive = np.array([u.strength > 0 for u in units], np.bool_)
    reach = np.array(
        [(min(u.range[0], spread + 1), min(u.range[1], spread)) for u in units], kind
    ).reshape(-1, 2)
    domain = np.array([column[u.domain] for u in units], np.int64)
    attacks = np.array([[u.attack_vs(d) > 0 for d in domains] for u in units], np.bool_)
    mine = np.flatnonzero((code == sides.get(side, -1)) & alive)
    if not mine.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    reaches = sorted(set(reach[mine, 1].tolist()))
    # A reach looks up the hexes around each attacker on a grid of the board, about
    # 3 high² of them, where that is fewer than the units and the grid is not mostly empty
    # space; otherwise every unit is a candidate of each attacker.
    looked = [high for high in reaches if 3 * high * (high + 1) <= len(units)]
    far = max(looked, default=0)
    cells = (int(span[0]) + 2 * far + 1) * (int(span[1]) + 2 * far + 1)
    if cells > max(_GRID_CELLS, 16 * len(units)):
        looked = []
    found_a: list[Ints] = []
    found_t: list[Ints] = []

    def keep(attacker: Ints, target: Ints) -> None:
        offset = hexes[target] - hexes[attacker]
        near = (np.abs(offset[:, 0]) + np.abs(offset[:, 1]) + np.abs(offset.sum(axis=1))) // 2
        legal = (
            (code[target] != code[attacker])
            & alive[target]
            & np.asarray(reach[attacker, 0] <= near, np.bool_)
            & np.asarray(near <= reach[attacker, 1], np.bool_)
            & attacks[attacker, domain[target]]
        )
        found_a.append(attacker[legal])
        found_t.append(target[legal])

    if looked:
        low = hexes.min(axis=0) - far
        grid = np.full((int(span[0]) + 2 * far + 1, int(span[1]) + 2 * far + 1), -1, np.int64)
        grid[hexes[:, 0] - low[0], hexes[:, 1] - low[1]] = np.arange(len(units))
    # Not np.unique: it loads numpy.ma on first use, a tenth of a small command's start-up.
    for high in reaches:
        group = mine[reach[mine, 1] == high]
        if high in looked:
            steps = np.array(
                [
                    (dq, dr)
                    for dq in range(-high, high + 1)
                    for dr in range(max(-high, -dq - high), min(high, -dq + high) + 1)
                    if (dq, dr) != (0, 0)
                ],
                np.int64,
            ).reshape(-1, 2)
            if not steps.size:
                continue
            place = hexes[group][:, None, :] + steps[None, :, :] - low
            target = grid[place[..., 0], place[..., 1]]
            seen = target >= 0
            keep(np.broadcast_to(group[:, None], target.shape)[seen], target[seen])
            continue
        # A slice of the attackers at a time: each with every unit is len(units) pairs.
        every = np.arange(len(units), dtype=np.int64)
        slice_size = max(1, _GRID_CELLS // len(units))
        for first in range(0, len(group), slice_size):
            some = group[first : first + slice_size]
            keep(np.repeat(some, len(units)), np.tile(every, len(some)))
    attacker = np.concatenate(found_a) if found_a else np.zeros(0, np.int64)
    target = np.concatenate(found_t) if found_t else np.zeros(0, np.int64)
    order = np.lexsort((target, attacker))
    return attacker[order].astype(np.int64), target[order].astype(np.int64)


def check_range(board: Board) -> None:
    """Refuse a unit whose numbers lie outside what a batch computes with.

    A scenario file never holds such numbers (:mod:`fracas.rulesets.hex.document` bounds
    every one); a board built in Python may, and past the range the floats of a batch can
    overflow or underflow where the error bound cannot see it, giving wrong losses without
    a word. ``units[i]`` in the error is the unit's place in ``board.units``.
    """
    # Boards repeat a few numbers many times over: the distinct ones are checked first,
    # and the units are only walked one by one (to name the first) when one is outside.
    units = board.units
    distinct: set[Fraction] = {Fraction(u.strength) for u in units}
    distinct |= {v for u in units for v in u.attack.values()}
    distinct |= {u.defense for u in units} | {u.pierce for u in units}
    for terrain in {board.terrain_at(u.hex) for u in units}:
        distinct |= {terrain.attack, terrain.defense}
    for statuses in {u.statuses for u in units if u.statuses}:
        distinct.add(_product([s.atk_mul for s in statuses]))
        distinct.add(_product([s.def_mul for s in statuses]))
    if not any(out_of_range(value) for value in distinct):
        return
    # Boards repeat a few numbers many times over: each distinct one is checked once.
    checked: dict[tuple[int, int], bool] = {}

    def outside(value: Fraction) -> bool:
        key = (value.numerator, value.denominator)
        found = checked.get(key)
        if found is None:
            found = checked[key] = out_of_range(value)
        return found

    for index, unit in enumerate(board.units):
        terrain = board.terrain_at(unit.hex)
        numbers = {
            "strength": Fraction(unit.strength),
            **{f"attack.{domain}": value for domain, value in unit.attack.items()},
            "defense": unit.defense,
            "pierce": unit.pierce,
            f"terrain {terrain.name} attack": terrain.attack,
            f"terrain {terrain.name} defense": terrain.defense,
            "statuses' atk_mul": _product([s.atk_mul for s in unit.statuses]),
            "statuses' def_mul": _product([s.def_mul for s in unit.statuses]),
        }
        for key, value in numbers.items():
            if outside(value):
                shown = str(value) if value.denominator == 1 else f"{float(value):.6g}"
                raise ScenarioError(
                    f"{key} of {unit.id!r} is {shown}, outside the numbers hex "
                    f"computes with ({RANGE})",
                    path=("units", index),
                )


#: Attacks gathered between two reports of the work done.
REPORT_EVERY = 64


class WorkDone:
    """Attacks worked out so far (gathered, then evaluated), told to the work watcher.

    On a board of a thousand units ``advise --plan`` evaluates attacks for seconds; the
    watcher lets a terminal show that it is moving. Without one this costs nothing.
    """

    __slots__ = ("attacks", "watch")

    def __init__(self, watch: Callable[[int], None] | None) -> None:
        self.watch = watch
        self.attacks = 0

    def add(self, attacks: int) -> None:
        if self.watch is not None and attacks:
            self.attacks += attacks
            self.watch(self.attacks)


@dataclass(frozen=True, slots=True)
class BoardState:
    """Strength and level of every unit, in board order, plus a last unit of strength 0
    that fills the empty places of the supporter and encircler lists."""

    strength: Ints
    level: Ints

    def copy(self) -> BoardState:
        return BoardState(self.strength.copy(), self.level.copy())


@dataclass(frozen=True, slots=True)
class _SideLists:
    """One side of one strike for every pair: static numbers and the lists of units."""

    unit: Ints
    printed: Floats
    terrain: Floats
    status_mul: Floats
    status_add: Floats
    supporters: Ints  # (pairs, RING), the filler unit where empty
    lent: Floats  # the printed number each supporter lends a share of
    encirclers: Ints  # (pairs, RING)
    # The same static numbers as fractions, by row, for exact decisions.
    exact: Mapping[str, Sequence[Any]]


def distinct(values: Ints) -> Ints:
    """The distinct values of ``values``, sorted: what ``np.unique`` gives, without the
    ``numpy.ma`` that it imports on first use (a fortieth of a small command's run).

    >>> distinct(np.array([[3, 1], [3, 2]])).tolist()
    [1, 2, 3]
    """
    ordered = np.sort(values, axis=None)
    keep = np.ones(len(ordered), np.bool_)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def _ring(ids: Sequence[str], index: Mapping[str, int], filler: int) -> list[int]:
    return [index[i] for i in ids] + [filler] * (RING - len(ids))


def _lists(sides: list[SideInputs], index: Mapping[str, int], filler: int) -> _SideLists:
    # Gathering shares one record between the pairs a side belongs to (the target's side,
    # or its counter): each distinct record is converted once, then spread over the rows.
    where: list[int] = []
    place: dict[int, int] = {}
    distinct: list[SideInputs] = []
    for side in sides:
        found = place.get(id(side))
        if found is None:
            found = place[id(side)] = len(distinct)
            distinct.append(side)
        where.append(found)
    picked = np.array(where, dtype=np.int64)
    # Most units carry no status: one shared 1 and 0 rather than a new fraction per side.
    mul = [_ONE if not s.status_mul else _product([v for _, v in s.status_mul]) for s in distinct]
    add = [
        _ZERO if not s.status_add else sum((v for _, v in s.status_add), _ZERO) for s in distinct
    ]
    lent_exact = [[a.printed for a in s.supporters] + [_ZERO] * (RING - len(s.supporters))
                  for s in distinct]  # fmt: skip
    printed = [s.printed for s in distinct]
    terrain = [s.terrain_factor for s in distinct]

    def floats(values: list[Fraction]) -> Floats:
        return np.array([as_float(v) for v in values], dtype=np.float64).reshape(-1)[picked]

    def spread(values: list[Any]) -> list[Any]:
        return [values[i] for i in where]

    return _SideLists(
        unit=np.array([index[s.unit] for s in distinct], dtype=np.int64)[picked],
        printed=floats(printed),
        terrain=floats(terrain),
        status_mul=floats(mul),
        status_add=floats(add),
        supporters=np.array(
            [_ring([a.unit for a in s.supporters], index, filler) for s in distinct],
            dtype=np.int64,
        ).reshape(-1, RING)[picked],
        lent=_lent_floats(distinct)[picked],
        encirclers=np.array(
            [_ring(s.encirclers, index, filler) for s in distinct], dtype=np.int64
        ).reshape(-1, RING)[picked],
        exact={
            "printed": spread(printed),
            "terrain": spread(terrain),
            "status_mul": spread(mul),
            "status_add": spread(add),
            "lent": spread(lent_exact),
        },
    )


def _lent_floats(sides: list[SideInputs]) -> Floats:
    # Most places in a ring are empty: only the supporters there need converting.
    lent = np.zeros((len(sides), RING), np.float64)
    for row, side in enumerate(sides):
        for place, ally in enumerate(side.supporters):
            lent[row, place] = as_float(ally.printed)
    return lent


_FLOATS: dict[tuple[int, int], float] = {}


def as_float(value: Fraction) -> float:
    """``value`` correctly rounded to a float, each distinct value converted once.

    A board holds few distinct numbers, and converting a fraction divides big integers;
    the key is the pair of integers, as hashing a fraction costs more than the division.

    >>> as_float(Fraction(1, 3)) == 1 / 3
    True
    """
    key = (value.numerator, value.denominator)
    found = _FLOATS.get(key)
    if found is None:
        if len(_FLOATS) > 65536:
            _FLOATS.clear()
        found = _FLOATS[key] = float(value)
    return found


def _product(values: list[Fraction]) -> Fraction:
    total = Fraction(1)
    for value in values:
        total *= value
    return total


@dataclass(frozen=True, slots=True)
class _StrikeLists:
    """Every pair's strike (or counter): striker's side, target's side, striker's pierce."""

    striker: _SideLists
    target: _SideLists
    pierce: Sequence[Fraction]
    #: The same as floats, converted once: every evaluation reads them.
    pierce_floats: Floats


def _strike_lists(
    strikes: list[StrikeInputs], index: Mapping[str, int], filler: int
) -> _StrikeLists:
    return _StrikeLists(
        striker=_lists([s.attacker for s in strikes], index, filler),
        target=_lists([s.defender for s in strikes], index, filler),
        pierce=[s.pierce for s in strikes],
        pierce_floats=np.array([float(s.pierce) for s in strikes], np.float64),
    )


class _Picked(Sequence[Any]):
    """``values[where[row]]`` for each row, looked up when read: the exact numbers are
    only read for the few strikes the floats cannot vouch for."""

    __slots__ = ("values", "where")

    def __init__(self, values: Sequence[Any], where: Ints) -> None:
        self.values, self.where = values, where

    def __len__(self) -> int:
        return len(self.where)

    def __getitem__(self, row: Any) -> Any:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        return self.values[int(self.where[row])]


class _Lent(Sequence[list[Fraction]]):
    """Each row's supporters' printed numbers as fractions (0 in the empty places),
    looked up when read: ``table[unit][column[row]]`` for each supporter."""

    __slots__ = ("column", "supporters", "table")

    def __init__(self, table: Sequence[Sequence[Fraction]], supporters: Ints, column: Ints):
        self.table, self.supporters, self.column = table, supporters, column

    def __len__(self) -> int:
        return len(self.supporters)

    def __getitem__(self, row: Any) -> Any:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        at = int(self.column[row])
        return [self.table[unit][at] for unit in self.supporters[row].tolist()]


@dataclass(frozen=True, slots=True)
class _Units:
    """What phase 1 reads of each unit, once per unit, as arrays (a last row for the
    filler unit: no side, no soldiers, every number 0): the board's side of
    :func:`~fracas.rulesets.hex.strike.gather_strike`, for every strike at once."""

    side: Ints
    neighbours: Ints  # (units + 1, RING): the units around each, in direction order
    encirclers: Ints  # (units + 1, RING): its enemies with soldiers, in that order
    domain: Ints
    # Printed attack by unit and domain, defense by unit; as floats and as fractions.
    attack: Floats
    attack_exact: list[list[Fraction]]
    defense: Floats
    defense_exact: list[list[Fraction]]  # one column, read as the attack table is
    # By unit, for striking (column 0) and being struck (column 1).
    terrain: Floats
    terrain_exact: list[tuple[Fraction, Fraction]]
    status_mul: Floats
    status_mul_exact: list[tuple[Fraction, Fraction]]
    status_add: Floats
    status_add_exact: list[tuple[Fraction, Fraction]]
    pierce: Floats
    pierce_exact: list[Fraction]
    #: (units + 1): whether 1 hex lies within the unit's range, all a counter asks of it.
    reaches_one: NDArray[np.bool_]

    @staticmethod
    def read(board: Board, domains: Sequence[DomainName]) -> _Units:
        units = board.units
        filler = len(units)
        index = {unit.id: i for i, unit in enumerate(units)}
        sides = {side: code for code, side in enumerate(board.sides())}
        side = np.array([sides[u.side] for u in units] + [-1], np.int64)
        alive = np.array([u.strength > 0 for u in units] + [False], np.bool_)
        around = [[filler] * RING for _ in range(filler + 1)]
        for i, unit in enumerate(units):
            row, (q, r) = around[i], unit.hex
            # The six places in direction order, as Board.adjacent_units walks them.
            for place, (dq, dr) in enumerate(DIRECTIONS):
                found = board.unit_at(Hex(q + dq, r + dr))
                if found is not None:
                    row[place] = index[found.id]
        neighbours = np.array(around, np.int64).reshape(-1, RING)
        near = neighbours[:filler]
        enemy = (side[near] != side[:filler, None]) & alive[near]
        encirclers = np.full((filler + 1, RING), filler, np.int64)
        encirclers[:filler] = _packed(near, enemy, filler)
        column = {d: c for c, d in enumerate(domains)}
        attack_exact = [[u.attack_vs(d) for d in domains] for u in units] + [[_ZERO] * len(domains)]
        terrain = [board.terrain_at(u.hex) for u in units]

        def both(pairs: list[tuple[Fraction, Fraction]]) -> tuple[Floats, list[Any]]:
            exact = [*pairs, (_ZERO, _ZERO)]
            return np.array([[as_float(a), as_float(b)] for a, b in exact], np.float64), exact

        terrain_f, terrain_x = both([(t.attack, t.defense) for t in terrain])
        mul_f, mul_x = both(
            [
                (_ONE, _ONE)
                if not u.statuses
                else (
                    _product([s.atk_mul for s in u.statuses]),
                    _product([s.def_mul for s in u.statuses]),
                )
                for u in units
            ]
        )
        add_f, add_x = both(
            [
                (_ZERO, _ZERO)
                if not u.statuses
                else (
                    sum((s.atk_add for s in u.statuses), _ZERO),
                    sum((s.def_add for s in u.statuses), _ZERO),
                )
                for u in units
            ]
        )
        defense_exact = [[u.defense] for u in units] + [[_ZERO]]
        pierce_exact = [u.pierce for u in units] + [_ZERO]
        return _Units(
            side=side,
            neighbours=neighbours,
            encirclers=encirclers,
            domain=np.array([column.get(u.domain, 0) for u in units] + [0], np.int64),
            attack=np.array(
                [[as_float(v) for v in row] for row in attack_exact], np.float64
            ).reshape(filler + 1, len(domains)),
            attack_exact=attack_exact,
            defense=np.array([as_float(row[0]) for row in defense_exact], np.float64),
            defense_exact=defense_exact,
            terrain=terrain_f,
            terrain_exact=terrain_x,
            status_mul=mul_f,
            status_mul_exact=mul_x,
            status_add=add_f,
            status_add_exact=add_x,
            pierce=np.array([as_float(v) for v in pierce_exact], np.float64),
            pierce_exact=pierce_exact,
            reaches_one=np.array([u.range[0] <= 1 <= u.range[1] for u in units] + [False]),
        )

    def side_lists(self, unit: Ints, struck: Ints, centre: Ints, striking: bool) -> _SideLists:
        """One side of a strike for every row: ``unit`` striking ``struck`` (or struck by
        it), its supporters being its allies next to ``centre``."""
        filler = len(self.side) - 1
        near = self.neighbours[centre]
        allies = (self.side[near] == self.side[unit][:, None]) & (near != unit[:, None])
        supporters = _packed(near, allies, filler)
        which = 0 if striking else 1
        if striking:
            column = self.domain[struck]
            printed = self.attack[unit, column]
            lent = self.attack[supporters, column[:, None]]
            printed_exact: Sequence[Any] = _Lent(self.attack_exact, unit[:, None], column)
            lent_exact = _Lent(self.attack_exact, supporters, column)
        else:
            column = np.zeros(len(unit), np.int64)
            printed = self.defense[unit]
            lent = self.defense[supporters]
            printed_exact = _Lent(self.defense_exact, unit[:, None], column)
            lent_exact = _Lent(self.defense_exact, supporters, column)
        return _SideLists(
            unit=unit,
            printed=printed,
            terrain=self.terrain[unit, which],
            status_mul=self.status_mul[unit, which],
            status_add=self.status_add[unit, which],
            supporters=supporters,
            lent=lent,
            encirclers=self.encirclers[unit],
            exact={
                "printed": _First(printed_exact),
                "terrain": _Picked(_Column(self.terrain_exact, which), unit),
                "status_mul": _Picked(_Column(self.status_mul_exact, which), unit),
                "status_add": _Picked(_Column(self.status_add_exact, which), unit),
                "lent": lent_exact,
            },
        )


class _Column(Sequence[Any]):
    """One column of a table of pairs."""

    __slots__ = ("at", "rows")

    def __init__(self, rows: Sequence[tuple[Any, Any]], at: int) -> None:
        self.rows, self.at = rows, at

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, row: Any) -> Any:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        return self.rows[row][self.at]


class _First(Sequence[Any]):
    """The one number of each row of a table of one-number rows."""

    __slots__ = ("rows",)

    def __init__(self, rows: Sequence[list[Any]]) -> None:
        self.rows = rows

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, row: Any) -> Any:
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        return self.rows[row][0]


def _packed(units: Ints, keep: NDArray[np.bool_], filler: int) -> Ints:
    """Each row's kept units, in their order, moved to the front; the filler after."""
    order = np.argsort(~keep, axis=1, kind="stable")
    moved = np.take_along_axis(units, order, axis=1)
    return np.where(np.take_along_axis(keep, order, axis=1), moved, filler)


def _gathered(
    board: Board, attacker: Ints, target: Ints, params: HexParams
) -> tuple[_StrikeLists, _StrikeLists, NDArray[np.bool_]]:
    """Phase 1 for every pair at once: the attack's lists, the counter's, and whether the
    target can counter (see :func:`_gathered_one_by_one`, the same from
    :func:`~fracas.rulesets.hex.strike.gather_strike` strike by strike)."""
    domains: list[DomainName] = sorted(
        {d for u in board.units for d in u.attack} | {u.domain for u in board.units}
    )
    units = _Units.read(board, domains)
    centre = target if params.counter_support == "target" else attacker

    def strikes(striker: Ints, struck: Ints, around: Ints) -> _StrikeLists:
        return _StrikeLists(
            striker=units.side_lists(striker, struck, around, True),
            target=units.side_lists(struck, struck, around, False),
            pierce=_Picked(units.pierce_exact, striker),
            pierce_floats=units.pierce[striker],
        )

    forward = strikes(attacker, target, target)
    back = strikes(target, attacker, centre)
    # One hex apart: the attacker is among the target's neighbours.
    adjacent = (units.neighbours[target] == attacker[:, None]).any(axis=1)
    strikes_back = units.attack[target, units.domain[attacker]] > 0
    countered = adjacent & units.reaches_one[target] & strikes_back
    return forward, back, countered


def _gathered_one_by_one(
    board: Board, pairs: Sequence[tuple[str, str]], params: HexParams
) -> tuple[_StrikeLists, _StrikeLists, NDArray[np.bool_]]:
    """What :func:`_gathered` gives, from :func:`~fracas.rulesets.hex.strike.gather_strike`
    (the reports' phase 1) and :func:`~fracas.rulesets.hex.play.counter_reason`, pair by
    pair: the plain path the tests hold the arrays to."""
    index = {unit.id: i for i, unit in enumerate(board.units)}
    filler = len(board.units)
    forward: list[StrikeInputs] = []
    back: list[StrikeInputs] = []
    countered: list[bool] = []
    centre_is_target = params.counter_support == "target"
    memo = SideMemo()
    for attacker_id, target_id in pairs:
        forward.append(gather_strike(board, attacker_id, target_id, params, memo=memo))
        countered.append(counter_reason(board.unit(attacker_id), board.unit(target_id)) is None)
        # Without a counter the counter's numbers are never used; gather them anyway so
        # every array has one row per pair.
        centre = target_id if centre_is_target else attacker_id
        back.append(
            gather_strike(board, target_id, attacker_id, params, support_around=centre, memo=memo)
        )
    return (
        _strike_lists(forward, index, filler),
        _strike_lists(back, index, filler),
        np.array(countered, dtype=np.bool_),
    )


@dataclass(frozen=True, slots=True)
class SideOutcome:
    """Every attack of a side on one state of the board, evaluated at once."""

    target_losses: Ints
    attacker_losses: Ints
    attacker_level_gain: Ints
    results: CombatResults


#: Target losses, attacker losses and attacker level gains of every row of a side's
#: attacks on one state (rows that are not open hold 0).
FullOutcome = tuple[Ints, Ints, Ints]
Bools = NDArray[np.bool_]


def _grouped(keys: Ints, rows: Ints, groups: int) -> tuple[Ints, Ints]:
    """``rows`` grouped by their ``keys`` (0 … ``groups`` − 1), ascending within a group:
    group ``k``'s are ``rows[starts[k] : starts[k + 1]]`` of the ``(starts, rows)`` returned.

    >>> starts, rows = _grouped(np.array([1, 0, 1]), np.array([5, 6, 7]), 3)
    >>> starts.tolist(), rows.tolist()
    ([0, 1, 3, 3], [6, 5, 7])
    """
    order = np.lexsort((rows, keys))
    starts = np.searchsorted(keys[order], np.arange(groups + 1)).astype(np.int64)
    return starts, rows[order]


def rows_open(mask: Bools) -> Ints:
    """The rows an :meth:`SideAttacks.open_mask` leaves open, ascending."""
    # Searches ask this of every board they make: nonzero of the 1-D mask directly.
    return mask.nonzero()[0].astype(np.int64, copy=False)


@dataclass(frozen=True)
class SideAttacks:
    """Every legal attack of ``side`` on ``board``, with its supporters and encirclers."""

    board: Board
    side: str
    params: HexParams
    pairs: tuple[tuple[str, str], ...]
    attacker: Ints
    target: Ints
    countered: NDArray[np.bool_]
    forward: _StrikeLists
    back: _StrikeLists
    start: BoardState
    work: WorkDone = field(default_factory=lambda: WorkDone(None), repr=False, compare=False)

    @staticmethod
    def gather(board: Board, side: str, params: HexParams) -> SideAttacks:
        """Phase 1 for every legal attack of ``side`` (attack and counter)."""
        check_range(board)
        work = WorkDone(work_watch())
        attacker, target = pair_rows(board, side)
        ids = [unit.id for unit in board.units]
        pairs = [(ids[a], ids[t]) for a, t in zip(attacker.tolist(), target.tolist(), strict=True)]
        forward, back, countered = _gathered(board, attacker, target, params)
        work.add(len(pairs))
        strength = np.array([u.strength for u in board.units] + [0], dtype=np.int64)
        level = np.array([u.level for u in board.units] + [0], dtype=np.int64)
        return SideAttacks(
            board=board,
            side=side,
            params=params,
            pairs=tuple(pairs),
            attacker=attacker,
            target=target,
            countered=countered,
            forward=forward,
            back=back,
            start=BoardState(strength, level),
            work=work,
        )

    def __len__(self) -> int:
        return len(self.pairs)

    def level_after(self, level: int, fought: bool, killed: bool) -> int:
        """:func:`~fracas.rulesets.hex.play.level_after` of one unit under these params,
        each distinct question worked out once (searches ask it for every board made)."""
        cache: dict[tuple[int, bool, bool], int] = self.__dict__.setdefault("_levels", {})
        key = (level, fought, killed)
        got = cache.get(key)
        if got is None:
            got = cache[key] = int(level_after(level, fought, killed, self.params))
        return got

    def dependents(self, units: Sequence[int]) -> Ints:
        """Rows whose numbers read the strength or level of any of ``units``: as striker or
        struck, supporter or encircler, in the attack or in the counter. After a fight
        changes only its two units, only these rows need evaluating again."""
        # Searches ask for the same few pairs of units over and over.
        cache: dict[tuple[int, ...], Ints] = self.__dict__.setdefault("_dependents", {})
        key = tuple(units)
        got = cache.get(key)
        if got is None:
            starts, rows = self._dependency_index()
            found = [rows[starts[u] : starts[u + 1]] for u in key]
            got = distinct(np.concatenate(found)) if found else np.zeros(0, np.int64)
            if len(cache) > 65536:
                cache.clear()
            cache[key] = got
        return got

    def reads(self) -> Ints:
        """Every unit each row reads, one row of the table per attack (the filler unit in
        the empty places): attacker, target, and the supporters and encirclers of both
        sides of the attack and of the counter. A row's outcome is a function of the
        strengths of these units and the levels of the first two alone."""
        cached = self.__dict__.get("_reads")
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        columns = [self.attacker[:, None], self.target[:, None]]
        for lists in (self.forward, self.back):
            for which in (lists.striker, lists.target):
                columns += [which.supporters, which.encirclers]
        table = np.ascontiguousarray(np.concatenate(columns, axis=1))
        self.__dict__["_reads"] = table
        return table

    def _dependency_index(self) -> tuple[Ints, Ints]:
        cached = self.__dict__.get("_dependencies")
        if cached is not None:
            return cached  # type: ignore[no-any-return]
        filler = len(self.start.strength) - 1
        table = self.reads()
        row = np.repeat(np.arange(len(self), dtype=np.int64), table.shape[1])
        unit = table.reshape(-1)
        keep = unit != filler
        found = self.__dict__["_dependencies"] = _grouped(unit[keep], row[keep], filler + 1)
        return found

    def evaluate_after(
        self,
        known: FullOutcome,
        state: BoardState,
        changed: Sequence[int],
        open_mask: Bools,
        recall: Recall | None = None,
    ) -> FullOutcome:
        """The outcome of every row on ``state``, from ``known`` (every row's outcome on a
        state that differs from ``state`` only in the units ``changed``): the open rows
        (``open_mask``, see :meth:`open_mask`) that read a changed unit are evaluated again
        (or taken from ``recall``), the rest are kept. With nothing to evaluate again the
        answer is ``known`` itself, not a copy: outcomes are shared between the nodes of a
        search and never changed in place."""
        touched = self.dependents(changed)
        redone = open_mask[touched]
        redo = touched[redone]
        # Outcomes are never changed once made: with nothing to redo, the known ones stand.
        if redo.size:
            target, attacker, gain = (a.copy() for a in known)
            if recall is None:
                found = self._outcomes(state, redo, None)
            else:
                found = recall.after(state, changed, redone, redo)
            target[redo], attacker[redo], gain[redo] = found
            return target, attacker, gain
        return known

    def evaluate_all(
        self, state: BoardState, open_rows: Ints, recall: Recall | None = None
    ) -> FullOutcome:
        """Every row's outcome on ``state``: the open rows evaluated (or taken from
        ``recall``), the others 0."""
        target = np.zeros(len(self), np.int64)
        attacker = np.zeros(len(self), np.int64)
        gain = np.zeros(len(self), np.int64)
        if open_rows.size:
            found = self._outcomes(state, open_rows, recall)
            target[open_rows], attacker[open_rows], gain[open_rows] = found
        return target, attacker, gain

    def _outcomes(self, state: BoardState, rows: Ints, recall: Recall | None) -> FullOutcome:
        if recall is not None:
            return recall.outcomes(state, rows)
        outcome = self.evaluate(state, rows)
        return outcome.target_losses, outcome.attacker_losses, outcome.attacker_level_gain

    def _rule_fractions(
        self,
    ) -> tuple[tuple[Fraction, ...], Fraction, Fraction, Fraction, Fraction]:
        """The rule numbers every evaluation reads, read exactly once: the encirclement
        table, support share, loss exponent, level percent and defense support cap."""
        cached = self.__dict__.get("_fractions_of_rules")
        if cached is None:
            params = self.params
            cached = self.__dict__["_fractions_of_rules"] = (
                tuple(to_fraction(f) for f in params.encirclement),
                to_fraction(params.support_share),
                to_fraction(params.loss_exponent),
                to_fraction(params.level_percent),
                to_fraction(params.defense_support_cap),
            )
        return cached

    def _rule_floats(self) -> tuple[Floats, float, np.float64, np.float64, np.float64]:
        """:meth:`_rule_fractions` as floats, converted once."""
        cached = self.__dict__.get("_floats_of_rules")
        if cached is None:
            table, share, exponent, percent, cap = self._rule_fractions()
            cached = self.__dict__["_floats_of_rules"] = (
                np.array([float(f) for f in table], np.float64),
                float(share),
                np.float64(float(exponent)),
                np.float64(float(percent)),
                np.float64(float(cap)),
            )
        return cached

    def _arrays(self, lists: _StrikeLists, state: BoardState, rows: Ints) -> StrikeArrays:
        table, share, exponent, percent, cap = self._rule_floats()
        strength = state.strength.astype(np.float64)

        def side(which: _SideLists) -> tuple[Floats, ...]:
            ring = (state.strength[which.encirclers[rows]] > 0).sum(axis=1)
            support = share * (strength[which.supporters[rows]] * which.lent[rows]).sum(axis=1)
            unit = which.unit[rows]
            return (
                strength[unit],
                which.printed[rows],
                state.level[unit].astype(np.float64),
                table[np.minimum(ring, len(table) - 1)],
                which.terrain[rows],
                which.status_mul[rows],
                support,
                which.status_add[rows],
            )

        values = (
            *side(lists.striker),
            *side(lists.target),
            lists.pierce_floats[rows],
            exponent,
            percent,
            cap,
        )
        fields: dict[str, Any] = {
            name: np.asarray(v, np.float64) for name, v in zip(FIELDS, values, strict=True)
        }
        return StrikeArrays(**fields, size=len(rows))

    def _exact(self, lists: _StrikeLists, state: BoardState, rows: Ints) -> Any:
        table, share, exponent, percent, cap = self._rule_fractions()

        def read(local: NDArray[np.intp]) -> dict[str, list[Fraction]]:
            out: dict[str, list[Fraction]] = {name: [] for name in FIELDS}
            for row in rows[local].tolist():
                for prefix, which, printed, support in (
                    ("attacker", lists.striker, "attack", "attack_support"),
                    ("target", lists.target, "defense", "defense_support"),
                ):
                    unit = int(which.unit[row])
                    ring = int((state.strength[which.encirclers[row]] > 0).sum())
                    lent = sum(
                        (
                            share * int(state.strength[s]) * v
                            for s, v in zip(
                                which.supporters[row].tolist(),
                                which.exact["lent"][row],
                                strict=True,
                            )
                        ),
                        Fraction(0),
                    )
                    out[f"{prefix}_strength"].append(Fraction(int(state.strength[unit])))
                    out[printed].append(which.exact["printed"][row])
                    out[f"{prefix}_level"].append(Fraction(int(state.level[unit])))
                    out[f"{prefix}_encirclement"].append(table[min(ring, len(table) - 1)])
                    out[f"{prefix}_terrain"].append(which.exact["terrain"][row])
                    out[f"{prefix}_status_mul"].append(which.exact["status_mul"][row])
                    out[support].append(lent)
                    out[f"{prefix}_status_add"].append(which.exact["status_add"][row])
                out["pierce"].append(lists.pierce[row])
                out["loss_exponent"].append(exponent)
                out["level_percent"].append(percent)
                out["defense_support_cap"].append(cap)
            return out

        return read

    def open_rows(self, state: BoardState, used: NDArray[np.bool_] | None = None) -> Ints:
        """Pairs still possible in ``state``: both units alive, the attacker not ``used``."""
        return rows_open(self.open_mask(state, used))

    def open_mask(self, state: BoardState, used: NDArray[np.bool_] | None = None) -> Bools:
        """:meth:`open_rows` as a mask over every row (see :meth:`close_after`)."""
        alive = state.strength > 0
        able = alive if used is None else alive & ~used
        mask: Bools = able[self.attacker] & alive[self.target]
        return mask

    def close_after(self, mask: Bools, row: int, after: BoardState) -> Bools:
        """The :meth:`open_mask` of the board ``after`` attack ``row`` was fought, from
        ``mask``, that of the board before: the attacker is spent and a unit that fell
        takes its rows with it. Nothing else changed, and a closed row never opens again
        (strengths only fall), so no other row needs looking at."""
        starts, rows = self._rows_by_unit()
        a, t = int(self.attacker[row]), int(self.target[row])
        closed = mask.copy()
        closed[rows[starts[2 * a] : starts[2 * a + 1]]] = False
        for unit in (a, t):
            if after.strength[unit] <= 0:
                closed[rows[starts[2 * unit] : starts[2 * unit + 2]]] = False
        return closed

    def _rows_by_unit(self) -> tuple[list[int], Ints]:
        """The rows of each unit, attacks by it then attacks on it: ``rows[starts[2u] :
        starts[2u + 1]]`` has ``u`` as attacker, ``rows[starts[2u + 1] : starts[2u + 2]]``
        as target."""
        cached = self.__dict__.get("_by_unit")
        if cached is None:
            keys = np.concatenate((2 * self.attacker, 2 * self.target + 1))
            every = np.arange(len(self), dtype=np.int64)
            starts, rows = _grouped(
                keys, np.concatenate((every, every)), 2 * len(self.start.strength)
            )
            # Python ints: a search slices with them at every child it makes.
            cached = self.__dict__["_by_unit"] = (starts.tolist(), rows)
        return cached

    def evaluate(self, state: BoardState, rows: Ints | None = None) -> SideOutcome:
        """Attacks ``rows`` (default: all) on ``state``: losses both ways and level gains.

        Losses are those :func:`~fracas.rulesets.hex.play.fight` gives on the board in
        that state; the strikes whose rounding floats cannot vouch for are decided in
        fractions from the same lists.
        """
        picked = np.arange(len(self), dtype=np.int64) if rows is None else rows
        mask = self.countered[picked]
        results = combats(
            self._arrays(self.forward, state, picked),
            self._arrays(self.back, state, picked),
            mask,
            exact_attack=self._exact(self.forward, state, picked),
            exact_counter=self._exact(self.back, state, picked),
        )
        attacker = self.attacker[picked]
        killed = results.target_losses == state.strength[self.target[picked]]
        level = state.level[attacker]
        gain = np.asarray(level_gain(level, killed, self.params), dtype=np.int64)
        self.work.add(len(picked))
        return SideOutcome(results.target_losses, results.attacker_losses, gain, results)


class Recall:
    """The outcomes of one side's attacks already worked out, for searches that visit
    nearly the same boards again (the enemy's reply to each of our attacks: boards that
    differ in two units).

    A row's outcome is a function of the numbers it reads (:meth:`SideAttacks.reads`), so
    it is kept under the row and those numbers, and found again whatever else differs on
    the board; the rows not found are evaluated together, as
    :meth:`SideAttacks.evaluate` would. Past ``limit`` outcomes kept, it starts afresh.

    >>> from fracas.rulesets.hex.scenario import Board, Unit
    >>> from fracas.rulesets.hex.document import HexParams
    >>> board = Board.from_rows(["..."], [
    ...     Unit.make("a", "blue", (0, 0), attack=10, defense=10),
    ...     Unit.make("b", "red", (1, 0), attack=10, defense=10)])
    >>> side = SideAttacks.gather(board, "blue", HexParams())
    >>> recall, rows = Recall(side), np.arange(1)
    >>> [a.tolist() for a in recall.outcomes(side.start, rows)], recall.evaluated
    ([[50], [50], [1]], 1)
    >>> [a.tolist() for a in recall.outcomes(side.start, rows)], recall.evaluated
    ([[50], [50], [1]], 1)
    """

    __slots__ = ("around", "attacks", "evaluated", "known", "limit", "redone")

    def __init__(self, attacks: SideAttacks, limit: int = 1_000_000) -> None:
        self.attacks = attacks
        self.known: dict[bytes, tuple[int, int, int]] = {}
        self.limit = limit
        #: Rows evaluated (not found): what the recall did not save.
        self.evaluated = 0
        self.redone: dict[bytes, FullOutcome] = {}
        self.around: dict[tuple[int, ...], Ints] = {}

    def after(
        self, state: BoardState, changed: Sequence[int], redone: NDArray[np.bool_], redo: Ints
    ) -> FullOutcome:
        """:meth:`outcomes` of ``redo``: the rows reading the units ``changed`` (those of
        them that ``redone`` marks). All of them read only the units around the changed
        ones, so when those units stand as they stood once before, the whole answer is
        the one given then."""
        pair = tuple(changed)
        around = self.around.get(pair)
        if around is None:
            touched = self.attacks.dependents(pair)
            around = self.around[pair] = distinct(self.attacks.reads()[touched])
        key = (
            np.array(pair, np.int64).tobytes()
            + redone.tobytes()
            + state.strength[around].tobytes()
            + state.level[around].tobytes()
        )
        found = self.redone.get(key)
        if found is None:
            found = self.outcomes(state, redo)
            if len(self.redone) > self.limit // 16:
                self.redone.clear()
            self.redone[key] = found
        return found

    def outcomes(self, state: BoardState, rows: Ints) -> FullOutcome:
        """Target losses, attacker losses and level gains of ``rows`` on ``state``."""
        attacks = self.attacks
        read = attacks.reads()[rows]
        numbers = np.concatenate(
            (
                rows[:, None],
                state.strength[read],
                state.level[attacks.attacker[rows], None],
                state.level[attacks.target[rows], None],
            ),
            axis=1,
        )
        keys = np.ascontiguousarray(numbers).view(np.dtype((np.void, numbers.shape[1] * 8)))
        names = [bytes(key) for key in keys.ravel().tolist()]
        known = self.known
        found = [known.get(name) for name in names]
        missing = [at for at, got in enumerate(found) if got is None]
        if missing:
            picked = np.array(missing, dtype=np.int64)
            outcome = attacks.evaluate(state, rows[picked])
            self.evaluated += len(missing)
            if len(known) + len(missing) > self.limit:
                known.clear()
            for at, t, a, g in zip(
                missing,
                outcome.target_losses.tolist(),
                outcome.attacker_losses.tolist(),
                outcome.attacker_level_gain.tolist(),
                strict=True,
            ):
                found[at] = known[names[at]] = (t, a, g)
        target, attacker, gain = np.array(found, dtype=np.int64).reshape(-1, 3).T
        return target.copy(), attacker.copy(), gain.copy()


def level_gain(level: Ints, killed: NDArray[np.bool_], params: HexParams) -> Ints:
    """Levels an attacker gains (it always fights), by the rule of a combat."""
    return np.asarray(level_after(level, True, killed, params) - level, dtype=np.int64)


def apply(
    attacks: SideAttacks, state: BoardState, row: int, outcome: SideOutcome, at: int
) -> BoardState:
    """The state after attack ``row`` (whose results are ``outcome[at]``) is fought."""
    return fought(
        attacks, state, row, int(outcome.target_losses[at]), int(outcome.attacker_losses[at])
    )


def fought(
    attacks: SideAttacks, state: BoardState, row: int, target_losses: int, attacker_losses: int
) -> BoardState:
    """The state after attack ``row`` is fought with these losses."""
    after = state.copy()
    a, t = int(attacks.attacker[row]), int(attacks.target[row])
    countered = bool(attacks.countered[row])
    a_left = int(state.strength[a]) - attacker_losses
    t_left = int(state.strength[t]) - target_losses
    after.strength[a] = a_left
    after.strength[t] = t_left
    after.level[a] = attacks.level_after(int(state.level[a]), True, t_left == 0)
    after.level[t] = attacks.level_after(int(state.level[t]), countered, a_left == 0)
    return after
