"""The ``hex`` ruleset: deterministic combat on a hex grid, explained row by row.

No dice: the same board and the same orders always give the same result. A strike's
losses come from the ratio of Effective Atk to Effective Def, each built from Strength
and the printed number, then Lv, Encircled, Terrain and Status multipliers, then Support
and Status additions, then Pierce on the defence. See ``docs/rules/hex.md``.

>>> from fracas.rulesets.hex import Board, HexParams, Unit, fight
>>> board = Board.from_rows(["...."], [
...     Unit.make("tanks", "blue", (0, 0), strength=100, attack=2, defense=2),
...     Unit.make("mg", "red", (1, 0), strength=100, attack=1, defense=1)])
>>> combat = fight(board, "tanks", "mg", HexParams())
>>> combat.losses   # ratio 2 → 80 % of mg; mg's counter at ratio 1/2 → 20 % of tanks
{'tanks': 20, 'mg': 80}
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar

from fracas.core.dice import Dice
from fracas.core.errors import IllegalActionError, ScenarioError
from fracas.core.modifiers import to_fraction
from fracas.core.report import Report
from fracas.rulesets.base import Ruleset, Summary
from fracas.rulesets.hex.advisor import Advice, advise, attacks
from fracas.rulesets.hex.combat import (
    Combat,
    Turn,
    check_legal,
    fight,
    forecast,
    illegal_reason,
    play_turn,
)
from fracas.rulesets.hex.model import Board, Hex, Status, Terrain, Unit
from fracas.rulesets.hex.report import advice_report, forecast_report, turn_report
from fracas.rulesets.hex.schema import HexDocument, HexParams, UnitSpec
from fracas.rulesets.hex.strike import (
    StrikeInputs,
    StrikeOutcome,
    compute_strike,
    gather_strike,
    strike,
)
from fracas.rulesets.hex.svg import board_svg

__all__ = [
    "Advice",
    "Board",
    "Combat",
    "Hex",
    "HexDocument",
    "HexParams",
    "HexRuleset",
    "HexScenario",
    "Status",
    "StrikeInputs",
    "StrikeOutcome",
    "Terrain",
    "Turn",
    "Unit",
    "advise",
    "attacks",
    "board_svg",
    "check_legal",
    "compute_strike",
    "fight",
    "forecast",
    "gather_strike",
    "play_turn",
    "strike",
]


@dataclass(frozen=True, slots=True)
class HexScenario:
    """A checked scenario: the board, the turn's orders and the parameters in force."""

    board: Board
    orders: tuple[tuple[str, str], ...]
    params: HexParams
    title: str = ""
    description: str = ""


def _terrain_table(params: HexParams) -> dict[str, Terrain]:
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


def _map(document: HexDocument, table: dict[str, Terrain]) -> dict[Hex, Terrain]:
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


def _units(document: HexDocument, hexes: dict[Hex, Terrain]) -> list[Unit]:
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
        if spec.max_strength is not None and spec.max_strength < spec.strength:
            raise ScenarioError(
                f"max_strength {spec.max_strength} is below strength {spec.strength}",
                path=("units", index, "max_strength"),
            )
        ids[spec.id] = index
        places[place] = spec.id
        units.append(_unit(spec))
    return units


class HexRuleset(Ruleset[HexDocument, HexScenario, Turn]):
    """Deterministic hex-grid combat: forecast, resolve a turn, advise, draw."""

    name: ClassVar[str] = "hex"
    aliases: ClassVar[tuple[str, ...]] = ("hexgrid",)
    title: ClassVar[str] = "Hex-grid combat without dice"
    summary: ClassVar[str] = "deterministic hex combat: stack modifiers, then commit"
    deterministic: ClassVar[bool] = True
    exact_odds: ClassVar[bool] = False
    document_model = HexDocument
    params_model = HexParams

    def build(self, document: HexDocument) -> HexScenario:
        """Check the map, the units and every order (on the board as it evolves)."""
        params = document.parameters
        hexes = _map(document, _terrain_table(params))
        board = Board(MappingProxyType(hexes), tuple(_units(document, hexes)))
        orders: list[tuple[str, str]] = []
        known = ", ".join(unit.id for unit in board.units)
        for index, order in enumerate(document.orders):
            for key, unit_id in (("attacker", order.attacker), ("target", order.target)):
                if not board.has_unit(unit_id):
                    raise ScenarioError(
                        f"no unit with id {unit_id!r} (units: {known})",
                        path=("orders", index, key),
                    )
            orders.append((order.attacker, order.target))
        # Playing the turn here means an order made illegal by an earlier one (its unit was
        # destroyed) is reported before anything is printed.
        play_turn(board, orders, params)
        return HexScenario(board, tuple(orders), params, document.title, document.description)

    def play(self, scenario: HexScenario, dice: Dice) -> Turn:
        """Resolve the orders; ``dice`` is never asked (there is no chance in this ruleset)."""
        return play_turn(scenario.board, scenario.orders, scenario.params)

    def report(self, scenario: HexScenario, result: Turn) -> Report:
        """Every combat of the turn, strike by strike, then the board after it."""
        return turn_report(result, scenario.title or "Hex combat", scenario.description)

    def summarize(self, scenario: HexScenario, result: Turn) -> Summary:
        """``losses.<id>``, ``strength.<id>``, ``level.<id>``, ``destroyed.<id>`` per unit."""
        metrics: dict[str, int | float | str | bool] = {}
        for unit in result.start.units:
            after = result.end.unit(unit.id) if result.end.has_unit(unit.id) else None
            strength = after.strength if after else 0
            metrics[f"losses.{unit.id}"] = unit.strength - strength
            metrics[f"strength.{unit.id}"] = strength
            metrics[f"level.{unit.id}"] = after.level if after else unit.level
            metrics[f"destroyed.{unit.id}"] = after is None
        return metrics

    def _check_ids(self, board: Board, attacker: str, target: str) -> None:
        known = ", ".join(unit.id for unit in board.units)
        for option, unit_id in (("--attacker", attacker), ("--target", target)):
            if not board.has_unit(unit_id):
                raise ScenarioError(f"no unit with id {unit_id!r} (units: {known})", path=(option,))
        reason = illegal_reason(board, attacker, target)
        if reason is not None:
            raise IllegalActionError(f"illegal attack: {reason}", path=("--target",))

    def forecast(self, scenario: HexScenario, attacker: str, target: str) -> Report:
        """The report of one attack on the scenario's board, which stays as it was."""
        self._check_ids(scenario.board, attacker, target)
        combat = forecast(scenario.board, attacker, target, scenario.params)
        return forecast_report(combat, scenario.title or "Hex combat")

    def advise(self, scenario: HexScenario, side: str) -> Report:
        """Every legal attack of ``side``, best first, each with its forecast."""
        sides = scenario.board.sides()
        if side not in sides:
            raise ScenarioError(f"no side {side!r} (sides: {', '.join(sides)})", path=("--side",))
        params = scenario.params
        rule = (
            f"score = {params.advisor_enemy_weight:g} × enemy soldiers lost − "
            f"{params.advisor_own_weight:g} × own soldiers lost; ties: more levels gained first"
        )
        ranked = advise(scenario.board, side, params)
        return advice_report(side, ranked, scenario.title or "Hex combat", rule)

    def picture(
        self, scenario: HexScenario, *, attacker: str | None = None, target: str | None = None
    ) -> str:
        """An SVG of the board; with an attacker and a target, their forecast drawn on it."""
        if attacker is not None and target is not None:
            self._check_ids(scenario.board, attacker, target)
        return board_svg(scenario.board, attacker=attacker, target=target, params=scenario.params)
