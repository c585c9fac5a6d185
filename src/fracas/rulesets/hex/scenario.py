"""The board: hexes in axial coordinates, terrain, and the units standing on them.

Everything here is an immutable value. A fight returns a new :class:`Board`; the old one
is untouched, which is what makes a forecast safe.

>>> Hex(0, 0).distance(Hex(2, -1))
2
>>> sorted(Hex(0, 0).neighbours())[:2]
[Hex(q=-1, r=0), Hex(q=-1, r=1)]
>>> board = Board.from_rows(["..f", ".~."], [
...     Unit.make("a", "blue", (0, 0), attack=10, defense=8),
...     Unit.make("b", "red", (1, 0), attack=10, defense=8)])
>>> board.terrain_at(Hex(2, 0)).name, board.unit("b").hex
('forest', Hex(q=1, r=0))
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Literal, NamedTuple, cast

from fracas.core.errors import ScenarioError
from fracas.core.modifiers import Number, to_fraction
from fracas.rulesets.hex.document import DEFAULT_TERRAIN, HexDocument, HexParams, UnitSpec

DomainName = Literal["land", "air", "sea"]

#: Axial direction vectors, clockwise from east.
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


class Hex(NamedTuple):
    """A hex in axial coordinates ``(q, r)``; the third cube coordinate is ``−q − r``."""

    q: int
    r: int

    def distance(self, other: Hex) -> int:
        """Steps between two hexes: ``(|dq| + |dr| + |dq + dr|) / 2``.

        >>> Hex(0, 0).distance(Hex(3, -3)), Hex(0, 0).distance(Hex(1, 1))
        (3, 2)
        """
        dq, dr = self.q - other.q, self.r - other.r
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def neighbours(self) -> tuple[Hex, ...]:
        """The six hexes touching this one (whether or not they are on the map)."""
        return tuple(Hex(self.q + dq, self.r + dr) for dq, dr in DIRECTIONS)

    def offset(self) -> tuple[int, int]:
        """``(column, row)`` in the odd-r layout used by map rows.

        >>> Hex(-1, 3).offset()
        (0, 3)
        """
        return self.q + self.r // 2, self.r

    @staticmethod
    def from_offset(column: int, row: int) -> Hex:
        """The axial hex at ``column`` of ``row`` in the odd-r layout (odd rows shifted right).

        >>> Hex.from_offset(0, 3)
        Hex(q=-1, r=3)
        """
        return Hex(column - row // 2, row)

    def __str__(self) -> str:
        return f"({self.q},{self.r})"


@dataclass(frozen=True, slots=True)
class Terrain:
    """A terrain type with its attack and defence factors."""

    name: str
    attack: Fraction
    defense: Fraction
    letter: str = "?"
    color: str = "#cccccc"


def default_terrain() -> dict[str, Terrain]:
    """The default terrain table, by name."""
    return {
        name: Terrain(
            name, to_fraction(t["attack"]), to_fraction(t["defense"]), t["letter"], t["color"]
        )
        for name, t in DEFAULT_TERRAIN.items()
    }


@dataclass(frozen=True, slots=True)
class Status:
    """A buff or a debuff: two multipliers and two additions (neutral by default)."""

    name: str
    kind: Literal["buff", "debuff"]
    atk_mul: Fraction = Fraction(1)
    def_mul: Fraction = Fraction(1)
    atk_add: Fraction = Fraction(0)
    def_add: Fraction = Fraction(0)

    @staticmethod
    def make(
        name: str,
        kind: Literal["buff", "debuff"],
        *,
        atk_mul: Number = 1,
        def_mul: Number = 1,
        atk_add: Number = 0,
        def_add: Number = 0,
    ) -> Status:
        """Build a status from plain numbers (read exactly, 0.1 is one tenth)."""
        return Status(
            name,
            kind,
            to_fraction(atk_mul),
            to_fraction(def_mul),
            to_fraction(atk_add),
            to_fraction(def_add),
        )


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit: who, where, how many soldiers, and what it hits with."""

    id: str
    side: str
    hex: Hex
    domain: DomainName
    strength: int
    max_strength: int
    attack: Mapping[DomainName, Fraction]
    defense: Fraction
    range: tuple[int, int] = (1, 1)
    level: int = 0
    pierce: Fraction = Fraction(0)
    statuses: tuple[Status, ...] = ()

    @staticmethod
    def make(
        id: str,
        side: str,
        hex: tuple[int, int],
        *,
        strength: int = 100,
        attack: Number | Mapping[DomainName, Number] = 1,
        defense: Number = 1,
        domain: DomainName = "land",
        max_strength: int | None = None,
        range: tuple[int, int] = (1, 1),
        level: int = 0,
        pierce: Number = 0,
        statuses: Sequence[Status] = (),
    ) -> Unit:
        """Build a unit from plain numbers. A single ``attack`` number means vs land only.

        >>> Unit.make("gun", "red", (0, 0), attack={"land": 12, "air": 3}).attack_vs("air")
        Fraction(3, 1)
        """
        table: Mapping[DomainName, Number] = (
            attack if isinstance(attack, Mapping) else {"land": attack}
        )
        return Unit(
            id=id,
            side=side,
            hex=Hex(*hex),
            domain=domain,
            strength=strength,
            max_strength=strength if max_strength is None else max_strength,
            attack=MappingProxyType({d: to_fraction(v) for d, v in table.items()}),
            defense=to_fraction(defense),
            range=range,
            level=level,
            pierce=to_fraction(pierce),
            statuses=tuple(statuses),
        )

    def attack_vs(self, domain: DomainName) -> Fraction:
        """Printed attack against ``domain``; 0 when it cannot attack that domain."""
        return self.attack.get(domain, Fraction(0))

    def reaches(self, distance: int) -> bool:
        """True when ``distance`` lies within the unit's ``[min, max]`` range."""
        return self.range[0] <= distance <= self.range[1]

    @property
    def alive(self) -> bool:
        """True while the unit has soldiers left."""
        return self.strength > 0

    def __reduce__(self) -> tuple[Any, ...]:
        # A read-only mapping cannot be pickled, and Monte Carlo sends the board to other
        # processes: the attack table travels as a dict and is wrapped again.
        state = {f.name: getattr(self, f.name) for f in fields(self)}
        state["attack"] = dict(self.attack)
        return (_unit_again, (state,))


def _unit_again(state: dict[str, Any]) -> Unit:
    return Unit(**{**state, "attack": MappingProxyType(state["attack"])})


@dataclass(frozen=True, slots=True)
class Board:
    """The map (hex → terrain) and the units on it, at most one per hex."""

    hexes: Mapping[Hex, Terrain]
    units: tuple[Unit, ...]
    _by_id: Mapping[str, Unit] = field(init=False, repr=False, compare=False)
    _by_hex: Mapping[Hex, Unit] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_id: dict[str, Unit] = {}
        by_hex: dict[Hex, Unit] = {}
        for unit in self.units:
            if unit.id in by_id:
                raise ScenarioError(f"two units have the id {unit.id!r}")
            if unit.hex in by_hex:
                raise ScenarioError(f"{unit.id!r} and {by_hex[unit.hex].id!r} share hex {unit.hex}")
            if unit.hex not in self.hexes:
                raise ScenarioError(f"{unit.id!r} stands on {unit.hex}, which is off the map")
            by_id[unit.id] = unit
            by_hex[unit.hex] = unit
        object.__setattr__(self, "_by_id", MappingProxyType(by_id))
        object.__setattr__(self, "_by_hex", MappingProxyType(by_hex))

    def __reduce__(self) -> tuple[Any, ...]:
        # See Unit.__reduce__: the look-ups are built again from the units.
        return (_board_again, (dict(self.hexes), self.units))

    @staticmethod
    def from_rows(
        rows: Sequence[str],
        units: Iterable[Unit] = (),
        terrain: Mapping[str, Terrain] | None = None,
    ) -> Board:
        """A board from rows of terrain letters (odd-r layout; spaces are ignored).

        Two units on one hex, a repeated id, a unit off the map or an unknown letter raise
        :class:`~fracas.core.errors.ScenarioError` (a ``ValueError``).
        """
        by_letter = {t.letter: t for t in (terrain or default_terrain()).values()}
        hexes: dict[Hex, Terrain] = {}
        for row, text in enumerate(rows):
            for column, letter in enumerate(text.replace(" ", "")):
                if letter not in by_letter:
                    known = " ".join(sorted(by_letter))
                    raise ScenarioError(
                        f"unknown terrain letter {letter!r} in row {row}, column {column} "
                        f"(known: {known})"
                    )
                hexes[Hex.from_offset(column, row)] = by_letter[letter]
        return Board(MappingProxyType(hexes), tuple(units))

    def unit(self, unit_id: str) -> Unit:
        """The unit called ``unit_id`` (KeyError when it is not on the board)."""
        return self._by_id[unit_id]

    def has_unit(self, unit_id: str) -> bool:
        """True when a unit called ``unit_id`` stands on the board."""
        return unit_id in self._by_id

    def unit_at(self, place: Hex) -> Unit | None:
        """The unit on ``place``, or ``None`` when the hex is empty or off the map."""
        return self._by_hex.get(place)

    def terrain_at(self, place: Hex) -> Terrain:
        """The terrain of ``place`` (KeyError when the hex is off the map)."""
        return self.hexes[place]

    def adjacent_units(self, place: Hex) -> Iterator[Unit]:
        """Units on the six hexes around ``place``, in direction order (east, clockwise)."""
        # A plain (q, r) tuple finds the same entry as a Hex, without building one.
        by_hex = cast(Mapping[tuple[int, int], Unit], self._by_hex)
        q, r = place
        for dq, dr in DIRECTIONS:
            unit = by_hex.get((q + dq, r + dr))
            if unit is not None:
                yield unit

    def adjacent_enemies(self, unit: Unit) -> tuple[Unit, ...]:
        """Enemies (any other side, with soldiers left) next to ``unit``: they encircle it."""
        return tuple(u for u in self.adjacent_units(unit.hex) if u.side != unit.side and u.alive)

    def sides(self) -> tuple[str, ...]:
        """Sides in the order their first unit appears."""
        return tuple(dict.fromkeys(unit.side for unit in self.units))

    def with_units(self, units: Iterable[Unit]) -> Board:
        """The same map with another set of units."""
        return Board(self.hexes, tuple(units))

    def updated(self, changes: Mapping[str, Unit | None]) -> Board:
        """Replace units by id; ``None`` removes the unit (destroyed)."""
        kept: list[Unit] = []
        for unit in self.units:
            if unit.id not in changes:
                kept.append(unit)
                continue
            new = changes[unit.id]
            if new is not None:
                kept.append(new)
        return self.with_units(kept)


def _board_again(hexes: dict[Hex, Terrain], units: tuple[Unit, ...]) -> Board:
    return Board(MappingProxyType(hexes), units)


def with_losses(unit: Unit, losses: int, levels: int) -> Unit:
    """``unit`` after losing ``losses`` soldiers and gaining ``levels`` (already capped)."""
    return replace(unit, strength=unit.strength - losses, level=unit.level + levels)


@dataclass(frozen=True, slots=True)
class HexScenario:
    """A checked scenario: the board, the turn's orders and the parameters in force."""

    board: Board
    orders: tuple[tuple[str, str], ...]
    params: HexParams
    title: str = ""
    description: str = ""


def terrain_table(params: HexParams) -> dict[str, Terrain]:
    table: dict[str, Terrain] = {}
    seen: dict[str, str] = {}
    for name, spec in params.terrain.items():
        if spec.letter.isspace():
            raise ScenarioError(
                "a terrain letter cannot be a space", path=("parameters", "terrain", name)
            )
        if spec.letter in seen:
            raise ScenarioError(
                f"letter {spec.letter!r} already stands for {seen[spec.letter]!r}",
                path=("parameters", "terrain", name, "letter"),
            )
        seen[spec.letter] = name
        table[name] = Terrain(
            name, to_fraction(spec.attack), to_fraction(spec.defense), spec.letter, spec.color
        )
    return table


def terrain_map(document: HexDocument, table: dict[str, Terrain]) -> dict[Hex, Terrain]:
    by_letter = {terrain.letter: terrain for terrain in table.values()}
    hexes: dict[Hex, Terrain] = {}
    if document.map.rows is not None:
        for row, text in enumerate(document.map.rows):
            for column, letter in enumerate(text.replace(" ", "")):
                if letter not in by_letter:
                    known = " ".join(sorted(by_letter))
                    raise ScenarioError(
                        f"unknown terrain letter {letter!r} in column {column} (known: {known})",
                        path=("map", "rows", row),
                    )
                hexes[Hex.from_offset(column, row)] = by_letter[letter]
    for index, spec in enumerate(document.map.hexes or ()):
        place = Hex(spec.q, spec.r)
        if place in hexes:
            raise ScenarioError(f"hex {place} is listed twice", path=("map", "hexes", index))
        if spec.terrain not in table:
            raise ScenarioError(
                f"unknown terrain {spec.terrain!r} (known: {', '.join(table)})",
                path=("map", "hexes", index, "terrain"),
            )
        hexes[place] = table[spec.terrain]
    if not hexes:
        raise ScenarioError("the map has no hexes", path=("map",))
    return hexes


def _unit(spec: UnitSpec) -> Unit:
    return Unit.make(
        spec.id,
        spec.side,
        spec.hex,
        strength=spec.strength,
        attack=dict(spec.attack),
        defense=spec.defense,
        domain=spec.domain,
        max_strength=spec.max_strength,
        range=spec.range,
        level=spec.level,
        pierce=spec.pierce,
        statuses=[
            Status.make(
                s.name,
                s.kind,
                atk_mul=s.atk_mul,
                def_mul=s.def_mul,
                atk_add=s.atk_add,
                def_add=s.def_add,
            )
            for s in spec.statuses
        ],
    )


def board_units(document: HexDocument, hexes: dict[Hex, Terrain]) -> list[Unit]:
    units: list[Unit] = []
    ids: dict[str, int] = {}
    places: dict[Hex, str] = {}
    for index, spec in enumerate(document.units):
        if spec.id in ids:
            raise ScenarioError(
                f"id {spec.id!r} is already used by units[{ids[spec.id]}]",
                path=("units", index, "id"),
            )
        place = Hex(*spec.hex)
        if place not in hexes:
            raise ScenarioError(
                f"hex {place} is off the map",
                path=("units", index, "hex"),
                hint="hex is axial [q, r]; in map rows, column c of row r is q = c − floor(r/2)",
            )
        if place in places:
            raise ScenarioError(
                f"hex {place} is already taken by {places[place]!r} (one unit per hex)",
                path=("units", index, "hex"),
            )
        cap = document.parameters.level_cap
        if spec.level > cap:
            # The cap is the highest level a unit can reach (seed: "The cap is 99"), so a
            # unit above it cannot exist; played, it would only keep its level.
            raise ScenarioError(
                f"level {spec.level} is above parameters.level_cap {cap}, the highest level "
                "a unit can reach",
                path=("units", index, "level"),
            )
        if spec.max_strength is not None and spec.max_strength < spec.strength:
            raise ScenarioError(
                f"max_strength {spec.max_strength} is below strength {spec.strength}",
                path=("units", index, "max_strength"),
            )
        ids[spec.id] = index
        places[place] = spec.id
        units.append(_unit(spec))
    return units


def build_board(document: HexDocument) -> Board:
    """The board a document describes: its map, terrain letters and units, checked."""
    hexes = terrain_map(document, terrain_table(document.parameters))
    return Board(MappingProxyType(hexes), tuple(board_units(document, hexes)))
