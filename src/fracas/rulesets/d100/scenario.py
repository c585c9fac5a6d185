"""The frozen battle set-up that :meth:`D100Ruleset.build` makes from a document.

Everything the dice do not decide is settled here: the roles of both sides, the effects
each side and unit holds, the equipment bonuses. :mod:`fracas.rulesets.d100.play` then
plays it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from fracas.core.errors import ScenarioError
from fracas.rulesets.d100.document import D100Document, EffectSpec, SideSpec
from fracas.rulesets.d100.params import D100Params, ItemSpec

ATTACKING_ACTIONS = frozenset({"harass", "raid", "attack", "challenge"})
DEFENDING_ACTIONS = frozenset({"defend", "challenge"})
OUTCOME_NAMES = frozenset({"draw", "withdraw"})


def preset_effects(params: D100Params) -> dict[str, EffectSpec]:
    """The effects the seed names, ready for any scenario to use by name.

    >>> sorted(preset_effects(D100Params()))
    ['defensive_structure', 'mind_leech', 'mounted', 'napoleon']
    """
    return {
        "mounted": EffectSpec(
            label="Mounted",
            trigger="when_attacking",
            scope="self",
            roll="attack",
            bonus=params.mounted_bonus,
        ),
        "defensive_structure": EffectSpec(
            label="Defensive structure",
            trigger="when_defending",
            scope="own_side",
            roll="defense",
            bonus=params.defensive_structure_bonus,
        ),
        "mind_leech": EffectSpec(
            label="Mind Leech",
            trigger="assessment",
            scope="enemy_side",
            flee_below=params.mind_leech_threshold,
        ),
        "napoleon": EffectSpec(
            label="Napoleon",
            trigger="assessment",
            scope="own_side",
            roll="loyalty",
            bonus=params.napoleon_bonus,
        ),
    }


@dataclass(frozen=True, slots=True)
class ItemBonus:
    """One bonus an item gives to one roll."""

    roll: str
    label: str
    value: int


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit as it enters the battle. ``index`` is its place among all units."""

    index: int
    side: int
    name: str
    race: str
    pax: int
    max_pax: int
    speed: int
    offense: int
    defense: int
    strength: int
    morale_bonus: int
    dangerous_missions: int
    equipment: tuple[str, ...]
    item_bonuses: tuple[ItemBonus, ...]
    ranged: bool
    ranged_attacks: int
    melee_attacks: int
    recruitment_cost: int
    upkeep_cost: int

    @property
    def unit_value(self) -> int:
        """Recruitment cost plus upkeep cost."""
        return self.recruitment_cost + self.upkeep_cost


@dataclass(frozen=True, slots=True)
class Side:
    """A side with its role and lair."""

    index: int
    name: str
    action: str
    location: str
    attacker: bool
    defender: bool
    loyalty_bonus: int
    morale_bonus: int
    napoleon: int
    targeting: tuple[str, ...] | None
    units: tuple[Unit, ...]


@dataclass(frozen=True, slots=True)
class HeldEffect:
    """An effect together with who holds it: a side (spells, structures) or one unit."""

    key: str
    spec: EffectSpec
    side: int
    unit: int | None
    origin: str
    lair_only: bool = False

    @property
    def label(self) -> str:
        """The name a log shows: the effect's label, or its key."""
        return self.spec.label or self.key

    def reaches(self, unit: Unit) -> bool:
        """True when ``unit`` is in this effect's scope."""
        scope = self.spec.scope
        if scope == "self":
            return unit.index == self.unit if self.unit is not None else unit.side == self.side
        if scope == "own_side":
            return unit.side == self.side
        if scope == "enemy_side":
            return unit.side != self.side
        return unit.name == self.spec.unit


@dataclass(frozen=True, slots=True)
class Battle:
    """The frozen set-up of one battle. ``equipment`` is the table in force (standard items
    plus the scenario's own)."""

    title: str
    description: str
    params: D100Params
    sides: tuple[Side, Side]
    units: tuple[Unit, ...]
    effects: tuple[HeldEffect, ...]
    equipment: Mapping[str, ItemSpec] = field(default_factory=dict)

    def unit(self, name: str) -> Unit:
        """The unit called ``name`` (``KeyError`` if there is none)."""
        for unit in self.units:
            if unit.name == name:
                return unit
        raise KeyError(name)


def _check_params(params: D100Params) -> None:
    where = ("parameters",)
    table = params.morale_table
    if not table:
        raise ScenarioError("needs at least one band", path=(*where, "morale_table"))
    for position, band in enumerate(table):
        last = position == len(table) - 1
        if (band.at_least is None) != last:
            raise ScenarioError(
                "only the last band has at_least: null (it catches every lower total)",
                path=(*where, "morale_table", position, "at_least"),
            )
        if position and band.at_least is not None:
            above = table[position - 1].at_least
            if above is not None and band.at_least >= above:
                raise ScenarioError(
                    f"bands go from the highest total down ({band.at_least} after {above})",
                    path=(*where, "morale_table", position, "at_least"),
                )
    if params.loyalty_takes_equipment >= params.loyalty_pass:
        raise ScenarioError(
            f"must be below loyalty_pass ({params.loyalty_pass})",
            path=(*where, "loyalty_takes_equipment"),
        )
    rows = params.loot_table
    if not rows:
        raise ScenarioError("needs at least one row", path=(*where, "loot_table"))
    previous = 0
    for position, row in enumerate(rows):
        path = (*where, "loot_table", position)
        if row.up_to <= previous:
            raise ScenarioError("rows go up in up_to", path=(*path, "up_to"))
        previous = row.up_to
        if row.gold + row.resources + row.items != 100:
            raise ScenarioError(
                f"gold + resources + items must be 100 percent "
                f"(got {row.gold + row.resources + row.items})",
                path=path,
            )
    if rows[-1].up_to != 100:
        raise ScenarioError("the last row must go up to 100", path=(*where, "loot_table"))


def _check_effect(key: str, spec: EffectSpec, path: tuple[str | int, ...]) -> None:
    kinds = [spec.roll is not None, spec.flee_below is not None, spec.nullify]
    if sum(kinds) != 1:
        raise ScenarioError(
            "an effect does exactly one thing: a roll bonus (roll + bonus), "
            "a flee roll (flee_below) or nullify",
            path=path,
        )
    if spec.scope == "unit" and spec.unit is None:
        raise ScenarioError("scope 'unit' needs the unit's name", path=(*path, "unit"))
    if spec.scope != "unit" and spec.unit is not None:
        raise ScenarioError("unit is only used with scope 'unit'", path=(*path, "unit"))
    if spec.nullify and spec.trigger in ("start_of_combat", "per_round"):
        raise ScenarioError(
            "nullifying effects are resolved in step 3; use trigger "
            "'assessment', 'when_attacking' or 'when_defending'",
            path=(*path, "trigger"),
        )


def build_battle(document: D100Document) -> Battle:
    """Check the meaning of a validated document and freeze it into a :class:`Battle`.

    >>> document = D100Document.model_validate({"fracas": 1, "ruleset": "d100", "sides": [
    ...     {"name": "A", "action": "challenge", "units": [{"name": "Hero", "pax": 1}]},
    ...     {"name": "B", "action": "defend", "units": [{"name": "Wyrm", "pax": 30,
    ...                                                  "max_pax": 30}]}]})
    >>> [(side.attacker, side.defender, side.location) for side in build_battle(document).sides]
    [(True, True, 'open'), (False, True, 'lair')]
    """
    params = document.parameters
    _check_params(params)
    equipment: dict[str, ItemSpec] = {**params.equipment, **document.equipment}
    effects = {**preset_effects(params), **document.effects}
    for key, item in document.equipment.items():
        for position, name in enumerate(item.effects):
            if name not in effects:
                raise ScenarioError(
                    f"unknown effect {name!r}", path=("equipment", key, "effects", position)
                )

    names: dict[str, tuple[str | int, ...]] = {}
    for s, side_spec in enumerate(document.sides):
        for u, unit_spec in enumerate(side_spec.units):
            path: tuple[str | int, ...] = ("sides", s, "units", u, "name")
            if unit_spec.name in names:
                raise ScenarioError(f"two units are called {unit_spec.name!r}", path=path)
            names[unit_spec.name] = path
    for key, spec in document.effects.items():
        _check_effect(key, spec, ("effects", key))
        if spec.unit is not None and spec.unit not in names:
            raise ScenarioError(f"unknown unit {spec.unit!r}", path=("effects", key, "unit"))
    first, second = document.sides
    if first.name == second.name:
        raise ScenarioError(f"both sides are called {first.name!r}", path=("sides", 1, "name"))
    for s, side_spec in enumerate(document.sides):
        if side_spec.name in OUTCOME_NAMES:
            raise ScenarioError(
                f"{side_spec.name!r} is reserved for battle outcomes", path=("sides", s, "name")
            )
    if not any(side.action in ATTACKING_ACTIONS for side in document.sides):
        raise ScenarioError(
            "nobody attacks: one side must harass, raid, attack or challenge",
            path=("sides", 0, "action"),
        )

    for s, side_spec in enumerate(document.sides):
        if side_spec.action == "raid" and side_spec.location == "lair":
            # A raid is made on someone else's home: the raiders are away from theirs, so
            # their structures could never count and "in its lair" would be false.
            raise ScenarioError(
                "a raiding side is away from home and cannot fight in its own lair",
                path=("sides", s, "location"),
                hint="set location: open, or action: defend for the side at home",
            )
    homes = [s for s, side in enumerate(document.sides) if _location(side) == "lair"]
    if len(homes) == 2:
        raise ScenarioError(
            "both sides fight in their own lair; a battle happens in one place",
            path=("sides", 1, "location"),
            hint="set location: open on the side that is away from home",
        )

    units: list[Unit] = []
    held: list[HeldEffect] = []
    sides: list[Side] = []

    def hold(
        name: str,
        path: tuple[str | int, ...],
        side: int,
        unit: int | None,
        origin: str,
        lair_only: bool = False,
    ) -> None:
        if name not in effects:
            raise ScenarioError(
                f"unknown effect {name!r}",
                path=path,
                hint="define it under 'effects' or use a preset: " + ", ".join(sorted(effects)),
            )
        held.append(HeldEffect(name, effects[name], side, unit, origin, lair_only))

    for s, side_spec in enumerate(document.sides):
        side_path: tuple[str | int, ...] = ("sides", s)
        side_units = _build_units(side_spec, s, len(units), equipment, params, side_path)
        for unit, unit_spec in zip(side_units, side_spec.units, strict=True):
            u = unit.index - side_units[0].index
            for position, trait in enumerate(unit_spec.traits):
                hold(trait, (*side_path, "units", u, "traits", position), s, unit.index, unit.name)
            for position, item_key in enumerate(unit_spec.equipment):
                item = equipment[item_key]
                for name in item.effects:
                    origin = f"{unit.name}, {item.label or item_key}"
                    item_path = (*side_path, "units", u, "equipment", position)
                    hold(name, item_path, s, unit.index, origin)
        units.extend(side_units)
        for position, name in enumerate(side_spec.effects):
            hold(name, (*side_path, "effects", position), s, None, side_spec.name)
        for position, name in enumerate(side_spec.lair.structures):
            structure_path = (*side_path, "lair", "structures", position)
            hold(name, structure_path, s, None, f"{side_spec.name} lair", lair_only=True)
        for _ in range(side_spec.napoleon):
            hold("napoleon", (*side_path, "napoleon"), s, None, side_spec.name)
        location = _location(side_spec)
        sides.append(
            Side(
                index=s,
                name=side_spec.name,
                action=side_spec.action,
                location=location,
                attacker=side_spec.action in ATTACKING_ACTIONS,
                defender=side_spec.action in DEFENDING_ACTIONS,
                loyalty_bonus=side_spec.lair.loyalty_bonus,
                morale_bonus=side_spec.lair.morale_bonus,
                napoleon=side_spec.napoleon,
                targeting=None if side_spec.targeting == "random" else side_spec.targeting,
                units=tuple(side_units),
            )
        )

    for s, side_spec in enumerate(document.sides):
        if side_spec.targeting == "random":
            continue
        enemy = {unit.name for unit in sides[1 - s].units}
        for position, name in enumerate(side_spec.targeting):
            if name not in enemy:
                what = "one of its own units" if name in names else "unknown unit"
                raise ScenarioError(
                    f"{what} {name!r} in a priority list of enemy targets",
                    path=("sides", s, "targeting", position),
                )

    return Battle(
        title=document.title,
        description=document.description,
        params=params,
        sides=(sides[0], sides[1]),
        units=tuple(units),
        effects=tuple(held),
        equipment=equipment,
    )


def _location(side: SideSpec) -> str:
    """Where a side fights: as given, else a defender at home and everyone else away."""
    return side.location or ("lair" if side.action == "defend" else "open")


def _build_units(
    side_spec: SideSpec,
    side: int,
    first_index: int,
    equipment: dict[str, ItemSpec],
    params: D100Params,
    side_path: tuple[str | int, ...],
) -> list[Unit]:
    built: list[Unit] = []
    for u, spec in enumerate(side_spec.units):
        path = (*side_path, "units", u)
        max_pax = spec.max_pax if spec.max_pax is not None else params.default_max_pax
        if spec.pax > max_pax:
            raise ScenarioError(
                f"pax {spec.pax} is more than max_pax {max_pax}", path=(*path, "pax")
            )
        bonuses: list[ItemBonus] = []
        ranged = False
        for position, item_key in enumerate(spec.equipment):
            if item_key not in equipment:
                raise ScenarioError(
                    f"unknown equipment {item_key!r}",
                    path=(*path, "equipment", position),
                    hint="known: " + ", ".join(sorted(equipment)),
                )
            if item_key in spec.equipment[:position]:
                raise ScenarioError(
                    f"{item_key!r} is listed twice; a unit carries one of each item",
                    path=(*path, "equipment", position),
                )
            item = equipment[item_key]
            ranged = ranged or item.ranged
            for roll, value in item.bonuses.items():
                bonuses.append(ItemBonus(roll, item.label or item_key, value))
        if spec.ranged_attacks and not ranged:
            raise ScenarioError(
                f"{spec.ranged_attacks} ranged attack(s) but no ranged weapon equipped",
                path=(*path, "ranged_attacks"),
            )
        ranged_attacks = spec.ranged_attacks if spec.ranged_attacks is not None else int(ranged)
        built.append(
            Unit(
                index=first_index + u,
                side=side,
                name=spec.name,
                race=spec.race,
                pax=spec.pax,
                max_pax=max_pax,
                speed=spec.speed,
                offense=spec.offense,
                defense=spec.defense,
                strength=spec.strength,
                morale_bonus=spec.morale_bonus,
                dangerous_missions=spec.dangerous_missions,
                equipment=spec.equipment,
                item_bonuses=tuple(bonuses),
                ranged=ranged and ranged_attacks > 0,
                ranged_attacks=ranged_attacks,
                melee_attacks=spec.melee_attacks,
                recruitment_cost=spec.recruitment_cost,
                upkeep_cost=spec.upkeep_cost,
            )
        )
    return built
