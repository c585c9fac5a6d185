"""The frozen combat a scenario describes, the edition options, and the semantic checks.

>>> options = Options.for_edition("eighth", overkill_max=4)
>>> options.outnumber_bonus, options.overkill_max, options.caught
(False, 4, 'destroyed')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from fracas.core.errors import ScenarioError
from fracas.rulesets.rankflank.document import (
    CharacterSpec,
    Profile,
    RankflankDocument,
    RankflankParams,
    RerollSpec,
    UnitSpec,
)
from fracas.rulesets.rankflank.specials import (
    EDITION_WEAPONS,
    LANCE_BEARERS,
    MISSING_RULES,
    NO_WEAPONS,
    parse_rule,
)

#: Unit Strength per model by troop type; ``None`` means "its starting Wounds".
UNIT_STRENGTH_BY_TYPE: Mapping[str, int | None] = {
    "infantry": 1,
    "cavalry": 2,
    "monstrous_infantry": 3,
    "monstrous_cavalry": 3,
    "monster": None,
    "chariot": 3,
    "swarm": None,
    "war_machine": None,
    "heavy_infantry": 1,
    "light_cavalry": 2,
    "heavy_cavalry": 2,
    "war_beasts": 1,
    "light_chariot": 3,
    "heavy_chariot": 5,
}

#: The type each of The Old World's finer troop types refines: what every rule but the
#: oldworld preset's ranks, Massed Infantry and Steady in the Ranks reads.
BASE_TROOP_TYPE: Mapping[str, str] = {
    "heavy_infantry": "infantry",
    "light_cavalry": "cavalry",
    "heavy_cavalry": "cavalry",
    "war_beasts": "cavalry",
    "light_chariot": "chariot",
    "heavy_chariot": "chariot",
}

#: The oldworld preset's ranks by troop type (``ranks_by: troop_type``): the models that
#: make a rank and the most ranks that count; ``None``: no rank bonus (and no Combat
#: Order). ``cavalry`` and ``chariot`` are read as heavy cavalry and light chariots.
TROOP_RANKS: Mapping[str, tuple[int, int] | None] = {
    "infantry": (5, 2),
    "heavy_infantry": (4, 2),
    "monstrous_infantry": (3, 2),
    "swarm": None,
    "light_cavalry": (5, 1),
    "heavy_cavalry": (4, 1),
    "cavalry": (4, 1),
    "monstrous_cavalry": (3, 1),
    "war_beasts": (5, 1),
    "light_chariot": (3, 1),
    "chariot": (3, 1),
    "heavy_chariot": None,
    "monster": None,
    "war_machine": None,
}

#: Troop types that count for Massed Infantry (regular and heavy infantry).
MASSED_INFANTRY = frozenset({"infantry", "heavy_infantry"})

#: The rules the older presets keep where the oldworld preset departs from them.
_CLASSIC: Mapping[str, Any] = {
    "disrupt_unit_strength": 10,
    "max_rounds": 5,
    "charge_bonus": True,
    "ranks_by": "rank_width",
    "rank_bonus_per": "arc",
    "combat_order": False,
    "massed_infantry": False,
    "standard_per": "unit",
    "musician_tie": False,
    "steady_min_us": None,
    "break_test": "pass_fail",
    "overwhelmed": False,
    "press_of_battle": False,
    "charge_initiative": "flat",
    "stepping_forward": False,
    "to_hit_table": "classic",
    "to_wound_table": "classic",
    "saves_worsened_by": "strength",
    "armour_cap": False,
    "parry_as": "ward",
    "weapon_profiles": "classic",
    "impact_and_stomp": "classic",
    "strike_first_last": "steps",
    "frenzy_attacks": "always",
    "skirmisher_arc_bonus": True,
    "flank_fighters": "ranks",
    "swiftstride_roll": "drop_lowest",
}

#: The edition presets; every key is also a field of :class:`Options`.
EDITIONS: Mapping[str, Mapping[str, Any]] = {
    "ninth": {
        "outnumber_bonus": True,
        "disrupted_by": "unit_strength",
        "steadfast": "unit_strength",
        "disrupted_can_be_steadfast": False,
        "overkill_max": 3,
        "charger_initiative_bonus": 1,
        "caught": "wounds",
        "supporting_attacks": 1,
        **_CLASSIC,
    },
    "eighth": {
        "outnumber_bonus": False,
        "disrupted_by": "ranks",
        "steadfast": "ranks",
        "disrupted_can_be_steadfast": True,
        "overkill_max": 5,
        "charger_initiative_bonus": 0,
        "caught": "destroyed",
        "supporting_attacks": 1,
        **_CLASSIC,
    },
    # ../shared/spec/oldworld.md, sections 1-3 (and 7, the differences).
    "oldworld": {
        "outnumber_bonus": False,
        "disrupted_by": "unit_strength",
        "steadfast": "none",
        "disrupted_can_be_steadfast": False,
        "overkill_max": 5,
        "charger_initiative_bonus": 3,
        "caught": "destroyed",
        "supporting_attacks": 1,
        "disrupt_unit_strength": 5,
        "max_rounds": 5,
        "charge_bonus": False,
        "ranks_by": "troop_type",
        "rank_bonus_per": "side",
        "combat_order": True,
        "massed_infantry": True,
        "standard_per": "side",
        "musician_tie": True,
        "steady_min_us": 10,
        "break_test": "three_outcomes",
        "overwhelmed": True,
        "press_of_battle": True,
        # ../shared/spec/oldworld.md, section 5 (the round's dice and the weapons).
        "charge_initiative": "distance",
        "stepping_forward": True,
        "to_hit_table": "oldworld",
        "to_wound_table": "oldworld",
        "saves_worsened_by": "ap",
        "armour_cap": True,
        "parry_as": "armour",
        "weapon_profiles": "oldworld",
        "impact_and_stomp": "oldworld",
        "strike_first_last": "initiative",
        "frenzy_attacks": "charging",
        "skirmisher_arc_bonus": False,
        "flank_fighters": "largest",
        # ../shared/spec/oldworld.md, section 4 (the moves after the break tests).
        "swiftstride_roll": "add_d6",
    },
}

#: Options the oldworld preset brought: a report of another preset shows one only when it
#: is set away from that preset's value, so that those reports keep their shape.
NEWER_OPTIONS = (
    *(name for name in _CLASSIC if name not in ("disrupt_unit_strength", "max_rounds")),
    "combat_order_min_us",
    "overwhelmed_ratio",
    "charger_initiative_bonus_flank",
    "terror_leadership",
    "stubborn",
    "battle_standard_reroll",
    "press_of_battle_arcs",
    "follow_up",
    "follow_up_charging",
    "fbigo_roll",
    "caught_fbigo",
    "restraint_test",
    "furious_charge_attacks",
    "choppas_ap",
    "choppas_wound_reroll",
    "resolute_penalty",
    "resolute_fall_back",
)

FLANKS = ("left", "right")


@dataclass(frozen=True, slots=True)
class Options:
    """Every rule option in force, after the edition preset and the explicit overrides."""

    edition: str = "ninth"
    outnumber_bonus: bool = True
    disrupted_by: str = "unit_strength"
    disrupt_unit_strength: int = 10
    disrupt_ranks: int = 2
    steadfast: str = "unit_strength"
    steadfast_unit_strength: int = 10
    disrupted_can_be_steadfast: bool = False
    overkill_max: int = 3
    charger_initiative_bonus: int = 1
    caught: str = "wounds"
    caught_wounds_per_unit_strength: int = 2
    flank_and_rear_per: str = "enemy"
    overkill_needs_survivor: bool = True
    supporting_attacks: int = 1
    rank_width: int = 5
    max_rank_bonus: int = 3
    max_rounds: int = 5
    overrun: bool = False
    parry: bool = True
    fear_weapon_skill: int = 1
    hatred_rounds: int = 1
    furious_charge_attacks: int = 1
    choppas_ap: int = 1
    choppas_wound_reroll: str = "ones"
    spear_extra_ranks: int = 1
    strikes_first_step: int = 10
    strikes_last_step: int = 0
    charge_bonus: bool = True
    ranks_by: str = "rank_width"
    rank_bonus_per: str = "arc"
    combat_order: bool = False
    combat_order_min_us: int = 10
    massed_infantry: bool = False
    standard_per: str = "unit"
    musician_tie: bool = False
    steady_min_us: int | None = None
    break_test: str = "pass_fail"
    overwhelmed: bool = False
    overwhelmed_ratio: int = 2
    stubborn: str = "best"
    battle_standard_reroll: str = "break"
    press_of_battle: bool = False
    charge_initiative: str = "flat"
    charger_initiative_bonus_flank: int = 4
    terror_leadership: int = 1
    stepping_forward: bool = False
    to_hit_table: str = "classic"
    to_wound_table: str = "classic"
    saves_worsened_by: str = "strength"
    armour_cap: bool = False
    parry_as: str = "ward"
    weapon_profiles: str = "classic"
    impact_and_stomp: str = "classic"
    strike_first_last: str = "steps"
    frenzy_attacks: str = "always"
    skirmisher_arc_bonus: bool = True
    flank_fighters: str = "ranks"
    press_of_battle_arcs: str = "all"
    swiftstride_roll: str = "drop_lowest"
    follow_up: bool = True
    follow_up_charging: bool = False
    fbigo_roll: str = "highest_of_2d6"
    caught_fbigo: str = "combat_continues_charging"
    restraint_test: bool = True
    resolute_penalty: int = 1
    resolute_fall_back: bool = False

    @classmethod
    def for_edition(cls, edition: str = "ninth", **overrides: Any) -> Options:
        """The preset of ``edition``, then ``overrides`` (``None`` values are ignored)."""
        values: dict[str, Any] = {"edition": edition, **EDITIONS[edition]}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    @classmethod
    def from_params(cls, params: RankflankParams) -> Options:
        """Options of a scenario's ``parameters`` block."""
        names = {f.name for f in fields(cls)} - {"edition"}
        return cls.for_edition(params.edition, **{n: getattr(params, n) for n in names})


@dataclass(frozen=True, slots=True)
class Kit:
    """A model's weapon, shield, special rules (with their values) and re-rolls.

    Fixed for the whole combat, so none of it is part of the state that exact odds merge.

    >>> Kit(rules=frozenset({"armour_piercing"}), values=(("armour_piercing", "1"),)).value(
    ...     "armour_piercing")
    '1'
    """

    weapon: str = "hand_weapon"
    shield: bool = False
    rules: frozenset[str] = frozenset()
    values: tuple[tuple[str, str], ...] = ()
    #: ``(roll, which, source)``: at most one per roll.
    rerolls: tuple[tuple[str, str, str], ...] = ()
    troop_type: str = "infantry"

    def value(self, name: str) -> str | None:
        """The value of rule ``name`` (``None`` if it has none or the model lacks it)."""
        return dict(self.values).get(name)

    def reroll(self, roll: str) -> tuple[str, str] | None:
        """``(which, source)`` of the model's own re-roll of ``roll``, if any."""
        for name, which, source in self.rerolls:
            if name == roll:
                return which, source
        return None


@dataclass(frozen=True, slots=True)
class Mount:
    """The mount of each rank-and-file model, or of a character: its own profile and kit
    strike."""

    name: str
    profile: Profile
    kit: Kit


@dataclass(frozen=True, slots=True)
class Character:
    """A character inside a unit."""

    name: str
    profile: Profile
    armour: int | None
    ward: int | None
    rules: frozenset[str]
    wounds_taken: int
    unit_strength: int
    kit: Kit = field(default_factory=Kit)
    #: What he rides, striking beside him. His Unit Strength is his troop type's (or his
    #: ``unit_strength``): a mount adds nothing to it.
    mount: Mount | None = None


@dataclass(frozen=True, slots=True)
class Unit:
    """A unit as it starts the combat."""

    name: str
    side: str
    troop_type: str
    models: int
    files: int
    profile: Profile
    armour: int | None
    ward: int | None
    rules: frozenset[str]
    standard: bool
    battle_standard: bool
    #: The character who carries the battle standard; ``None`` when a rank-and-file
    #: model carries it (or there is none).
    battle_standard_bearer: str | None
    musician: bool
    characters: tuple[Character, ...]
    wounds_taken: int
    unit_strength_per_model: int
    charged: bool
    height: int
    charged_downhill: bool
    fighting_models: int | None
    supporting_models: int | None
    attacks_target: str | None
    restrain: bool
    kit: Kit = field(default_factory=Kit)
    #: The troop type as written (``troop_type`` is the type it refines, which every rule
    #: but the oldworld preset's ranks, Massed Infantry and Steady in the Ranks reads).
    troop: str = "infantry"
    #: Disrupted by terrain for the whole combat (the oldworld preset).
    disrupted: bool = False
    #: Full inches moved in its charge; ``None``: enough for the most Initiative.
    charge_distance: int | None = None
    #: What the rank and file ride, striking beside them.
    mount: Mount | None = None
    #: The formation (the oldworld preset): ``close_order``, ``open_order``, ``horde``,
    #: ``skirmish`` or ``column``.
    formation: str = "close_order"
    #: The Leadership of the General in range (the oldworld preset); ``None``: out of range.
    general_leadership: int | None = None
    #: The Battle Standard in range (the oldworld preset), beside the unit's own.
    battle_standard_in_range: bool = False
    #: The character of the unit who refused a challenge: he stays in the unit but makes
    #: no attacks, is not attacked and lends neither Leadership nor rules (see
    #: :func:`~.formation.fighting_characters`).
    retired: str | None = None

    @property
    def close_order(self) -> bool:
        """In Close Order (a Horde is one): Combat Order and Shieldwall need it."""
        return self.formation in ("close_order", "horde")

    @property
    def ranked(self) -> bool:
        """In a formation that fights in ranks: not Skirmish, not a column."""
        return self.formation not in ("skirmish", "column")

    def has_rule(self, rule: str) -> bool:
        """True when the unit or one of its characters has ``rule`` (a character who
        refused a challenge lends none)."""
        return rule in self.rules or any(
            rule in c.rules for c in self.characters if c.name != self.retired
        )


@dataclass(frozen=True, slots=True)
class Contact:
    """One enemy touching a unit: the enemy's arc this unit occupies, and its own arc."""

    enemy: str
    enemy_arc: str
    own_arc: str


@dataclass(frozen=True, slots=True)
class OtherWounds:
    """Unsaved wounds from outside the strikes, credited to ``side`` in round 1."""

    side: str
    target: str
    wounds: int
    source: str


@dataclass(frozen=True, slots=True)
class Combat:
    """A whole combat: the units, who touches whom, the challenge and the options."""

    units: tuple[Unit, ...]
    sides: tuple[str, str]
    contacts: Mapping[str, tuple[Contact, ...]]
    challenge: tuple[str, str] | None = None
    other_wounds: tuple[OtherWounds, ...] = ()
    options: Options = field(default_factory=Options)
    #: ``(challenger, opponent)`` of a challenge the opponent's side refused.
    refused: tuple[str, str] | None = None
    # Looked up for every fight exact odds meet: worked out once, with the combat.
    _by_name: Mapping[str, Unit] = field(init=False, repr=False, compare=False)
    _by_side: Mapping[str, tuple[Unit, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_name", {unit.name: unit for unit in self.units})
        by_side = {side: tuple(u for u in self.units if u.side == side) for side in self.sides}
        object.__setattr__(self, "_by_side", by_side)

    def unit(self, name: str) -> Unit:
        """The unit called ``name``."""
        return self._by_name[name]

    def enemy_of(self, side: str) -> str:
        """The other side."""
        return self.sides[1] if side == self.sides[0] else self.sides[0]

    def side_units(self, side: str) -> tuple[Unit, ...]:
        """The units of ``side`` in scenario order."""
        return self._by_side.get(side, ())

    def character_owner(self, name: str) -> Unit | None:
        """The unit a character is in."""
        for unit in self.units:
            if any(c.name == name for c in unit.characters):
                return unit
        return None


def unit_strength_per_model(troop_type: str, wounds: int, override: int | None) -> int:
    """Unit Strength of one model: the override, else by troop type.

    >>> unit_strength_per_model("cavalry", 1, None), unit_strength_per_model("monster", 6, None)
    (2, 6)
    """
    if override is not None:
        return override
    by_type = UNIT_STRENGTH_BY_TYPE[troop_type]
    return wounds if by_type is None else by_type


def _rerolls(
    specs: tuple[RerollSpec, ...], path: tuple[str | int, ...]
) -> tuple[tuple[str, str, str], ...]:
    seen: dict[str, int] = {}
    for index, spec in enumerate(specs):
        if spec.roll in seen:
            raise ScenarioError(
                f"{spec.roll} is already re-rolled by entry {seen[spec.roll]}: a die is "
                "re-rolled once at most (a re-roll of a re-roll)",
                path=(*path, "rerolls", index, "roll"),
                hint="keep the better re-roll only: 'failed' includes 'ones'",
            )
        seen[spec.roll] = index
    return tuple((spec.roll, spec.which, spec.source) for spec in specs)


def build_kit(
    *,
    weapon: str,
    shield: bool,
    rules: tuple[str, ...],
    rerolls: tuple[RerollSpec, ...],
    troop_type: str,
    edition: str,
    path: tuple[str | int, ...],
) -> Kit:
    """Check a model's weapon and rules against its troop type and the edition, and freeze them.

    >>> build_kit(weapon="lance", shield=True, rules=(), rerolls=(), troop_type="infantry",
    ...     edition="ninth", path=("units", 0)) # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fracas.core.errors.ScenarioError: units[0].weapon: a lance is carried by cavalry only, ...
    """
    if troop_type in NO_WEAPONS and weapon != "hand_weapon":
        raise ScenarioError(
            f"a {troop_type.replace('_', ' ')} fights with what it is, not with a "
            f"{weapon.replace('_', ' ')}",
            path=(*path, "weapon"),
        )
    if troop_type in NO_WEAPONS and shield:
        raise ScenarioError(
            f"a {troop_type.replace('_', ' ')} carries no shield", path=(*path, "shield")
        )
    if EDITION_WEAPONS.get(weapon, edition) != edition:
        raise ScenarioError(
            f"the {weapon.replace('_', ' ')} is a weapon of the {EDITION_WEAPONS[weapon]} "
            f"preset, not of {edition}",
            path=(*path, "weapon"),
            hint="choose another weapon, or set parameters.edition",
        )
    if weapon == "lance" and troop_type not in LANCE_BEARERS:
        raise ScenarioError(
            f"a lance is carried by cavalry only, not by {troop_type.replace('_', ' ')}",
            path=(*path, "weapon"),
        )
    names: set[str] = set()
    values: list[tuple[str, str]] = []
    for index, text in enumerate(rules):
        entry = parse_rule(text)
        if entry.name in MISSING_RULES.get(edition, frozenset()):
            raise ScenarioError(
                f"the {edition} preset has no rule {entry.name!r}",
                path=(*path, "rules", index),
                hint="use the preset's own rule, or set parameters.edition",
            )
        if entry.name in names:
            raise ScenarioError(f"{entry.name} is listed twice", path=(*path, "rules", index))
        names.add(entry.name)
        if entry.value is not None:
            values.append((entry.name, entry.value))
    return Kit(
        weapon=weapon,
        shield=shield,
        rules=frozenset(names),
        values=tuple(values),
        rerolls=_rerolls(rerolls, path),
        troop_type=troop_type,
    )


def base_troop_type(troop_type: str) -> str:
    """The type a troop type refines: itself, unless it is one of The Old World's finer ones.

    >>> base_troop_type("heavy_cavalry"), base_troop_type("monster")
    ('cavalry', 'monster')
    """
    return BASE_TROOP_TYPE.get(troop_type, troop_type)


def _mount(
    spec: UnitSpec | CharacterSpec, edition: str, path: tuple[str | int, ...]
) -> Mount | None:
    """The checked mount of a unit's rank and file, or of a character, if they ride one."""
    if spec.mount is None:
        return None
    kit = build_kit(
        weapon="hand_weapon",
        shield=False,
        rules=spec.mount.rules,
        rerolls=(),
        troop_type=base_troop_type(spec.troop_type),
        edition=edition,
        path=(*path, "mount"),
    )
    return Mount(spec.mount.name, spec.mount.profile, kit)


def _kit_of(spec: UnitSpec | CharacterSpec, edition: str, path: tuple[str | int, ...]) -> Kit:
    """The checked kit of a unit's or a character's models."""
    return build_kit(
        weapon=spec.weapon,
        shield=spec.shield,
        rules=spec.rules,
        rerolls=spec.rerolls,
        troop_type=base_troop_type(spec.troop_type),
        edition=edition,
        path=path,
    )


def _character(spec: CharacterSpec, path: tuple[str | int, ...], edition: str) -> Character:
    if spec.wounds_taken >= spec.profile.W:
        raise ScenarioError(
            f"wounds_taken {spec.wounds_taken} leaves no wounds (W {spec.profile.W})",
            path=(*path, "wounds_taken"),
        )
    return Character(
        name=spec.name,
        profile=spec.profile,
        armour=spec.armour,
        ward=spec.ward,
        rules=frozenset(parse_rule(rule).name for rule in spec.rules),
        wounds_taken=spec.wounds_taken,
        unit_strength=unit_strength_per_model(spec.troop_type, spec.profile.W, spec.unit_strength),
        kit=_kit_of(spec, edition, path),
        mount=_mount(spec, edition, path),
    )


def _bearer(spec: UnitSpec, path: tuple[str | int, ...]) -> str | None:
    """The character named to carry the battle standard, checked against the unit's."""
    bearer = spec.command.battle_standard
    if not isinstance(bearer, str):
        return None
    names = [c.name for c in spec.characters]
    if bearer not in names:
        known = ", ".join(names) or "none"
        raise ScenarioError(
            f"the battle standard's bearer {bearer!r} is not a character of {spec.name!r} "
            f"(characters: {known})",
            path=(*path, "command", "battle_standard"),
        )
    return bearer


def _unit(spec: UnitSpec, index: int, edition: str = "ninth") -> Unit:
    path: tuple[str | int, ...] = ("units", index)
    total = spec.models + len(spec.characters)
    if spec.files > total:
        raise ScenarioError(
            f"{spec.files} files but only {total} models (characters included)",
            path=(*path, "files"),
        )
    if spec.wounds_taken >= spec.profile.W:
        raise ScenarioError(
            f"wounds_taken must be below W {spec.profile.W}: it counts the wounds of the one "
            "wounded model",
            path=(*path, "wounds_taken"),
            hint="lower 'models' for models already slain",
        )
    if spec.disrupted and edition != "oldworld":
        raise ScenarioError(
            "disrupted by terrain is a rule of the oldworld preset",
            path=(*path, "disrupted"),
            hint="set parameters.edition: oldworld, or leave 'disrupted' out",
        )
    for key, given in (
        ("formation", spec.formation != "close_order"),
        ("general_leadership", spec.general_leadership is not None),
        ("battle_standard_in_range", spec.battle_standard_in_range),
    ):
        if given and edition != "oldworld":
            raise ScenarioError(
                f"{key} is a rule of the oldworld preset (the break test of three outcomes)",
                path=(*path, key),
                hint=f"set parameters.edition: oldworld, or leave '{key}' out",
            )
    if spec.charge_distance is not None and not spec.charged:
        raise ScenarioError("charge_distance needs charged: true", path=(*path, "charge_distance"))
    if spec.charged_downhill and not spec.charged:
        raise ScenarioError(
            "charged_downhill needs charged: true (only a charge comes down a hill)",
            path=(*path, "charged_downhill"),
        )
    fighting = spec.fighting_models or 0
    if fighting > spec.models:
        raise ScenarioError(
            f"{fighting} fighting models but only {spec.models} rank-and-file models",
            path=(*path, "fighting_models"),
        )
    if spec.supporting_models is not None and fighting + spec.supporting_models > spec.models:
        raise ScenarioError(
            f"{spec.supporting_models} supporting models behind {fighting} fighting ones, "
            f"but only {spec.models} rank-and-file models",
            path=(*path, "supporting_models"),
        )
    characters = tuple(
        _character(c, (*path, "characters", k), edition) for k, c in enumerate(spec.characters)
    )
    return Unit(
        name=spec.name,
        side=spec.side,
        troop_type=base_troop_type(spec.troop_type),
        models=spec.models,
        files=spec.files,
        profile=spec.profile,
        armour=spec.armour,
        ward=spec.ward,
        rules=frozenset(parse_rule(rule).name for rule in spec.rules),
        standard=spec.command.standard,
        battle_standard=bool(spec.command.battle_standard),
        battle_standard_bearer=_bearer(spec, path),
        musician=spec.command.musician,
        characters=characters,
        wounds_taken=spec.wounds_taken,
        unit_strength_per_model=unit_strength_per_model(
            spec.troop_type, spec.profile.W, spec.unit_strength
        ),
        charged=spec.charged,
        height=spec.height,
        charged_downhill=spec.charged_downhill,
        charge_distance=spec.charge_distance,
        formation=spec.formation,
        mount=_mount(spec, edition, path),
        general_leadership=spec.general_leadership,
        battle_standard_in_range=spec.battle_standard_in_range,
        fighting_models=spec.fighting_models,
        supporting_models=spec.supporting_models,
        attacks_target=spec.attacks_target,
        restrain=spec.restrain,
        kit=_kit_of(spec, edition, path),
        troop=spec.troop_type,
        disrupted=spec.disrupted,
    )


#: The arcs a unit can be engaged in: in all four it cannot refuse a challenge.
ALL_ARCS = frozenset({"front", "left", "right", "rear"})


def _check_refusal(unit: Unit, name: str, contacts: list[Contact]) -> None:
    """A challenge to ``name`` of ``unit`` may be refused, but not by a unit engaged in all
    four arcs. (A lone character cannot refuse either; here a lone character is a unit of
    one model, which no challenge can name, so that case never reaches this check.)"""
    if {c.own_arc for c in contacts} >= ALL_ARCS:
        raise ScenarioError(
            f"{unit.name!r} is engaged in all four arcs: {name!r} cannot refuse a challenge",
            path=("challenge", "refused"),
        )


def build_combat(document: RankflankDocument) -> Combat:
    """Check the meaning of a validated document and freeze it into a :class:`Combat`.

    Raises :class:`~fracas.core.errors.ScenarioError` naming the key path of the problem.

    >>> from fracas.core.schema import validate
    >>> soldier = {"models": 10, "files": 5, "profile": "4 3 3 3 3 1 3 1 7"}
    >>> document = validate(RankflankDocument, {
    ...     "fracas": 1, "ruleset": "rankflank",
    ...     "units": [{"name": "Guard", "side": "A", **soldier},
    ...               {"name": "Foe", "side": "B", **soldier}],
    ...     "engagements": [{"unit": "Foe", "enemy": "Guard", "arc": "rear"}]})
    >>> build_combat(document).contacts["Guard"]
    (Contact(enemy='Foe', enemy_arc='front', own_arc='rear'),)
    """
    edition = document.parameters.edition
    units = tuple(_unit(spec, i, edition) for i, spec in enumerate(document.units))
    by_name: dict[str, Unit] = {}
    for index, unit in enumerate(units):
        if unit.name in by_name:
            raise ScenarioError(f"a second unit named {unit.name!r}", path=("units", index, "name"))
        by_name[unit.name] = unit
    sides = tuple(dict.fromkeys(u.side for u in units))
    if len(sides) != 2:
        raise ScenarioError(
            f"a combat needs exactly two sides, found {len(sides)}: {', '.join(sides)}",
            path=("units",),
        )
    character_names: dict[str, tuple[int, int]] = {}
    for index, unit in enumerate(units):
        for k, character in enumerate(unit.characters):
            if character.name in by_name or character.name in character_names:
                raise ScenarioError(
                    f"the name {character.name!r} is already taken",
                    path=("units", index, "characters", k, "name"),
                )
            character_names[character.name] = (index, k)

    contacts: dict[str, list[Contact]] = {u.name: [] for u in units}
    for index, engagement in enumerate(document.engagements):
        path = ("engagements", index)
        for key in ("unit", "enemy"):
            name = getattr(engagement, key)
            if name not in by_name:
                raise ScenarioError(
                    f"no unit named {name!r}",
                    path=(*path, key),
                    hint=f"units are: {', '.join(by_name)}",
                )
        attacker, defender = by_name[engagement.unit], by_name[engagement.enemy]
        if attacker.name == defender.name:
            raise ScenarioError(
                f"{attacker.name!r} cannot fight its own {engagement.arc}", path=(*path, "enemy")
            )
        if attacker.side == defender.side:
            raise ScenarioError(
                f"{attacker.name!r} and {defender.name!r} are both on side {attacker.side!r}",
                path=(*path, "enemy"),
            )
        if any(c.enemy == defender.name for c in contacts[attacker.name]):
            raise ScenarioError(
                f"{attacker.name!r} and {defender.name!r} are already engaged", path=path
            )
        contacts[attacker.name].append(Contact(defender.name, engagement.arc, "front"))
        contacts[defender.name].append(Contact(attacker.name, "front", engagement.arc))

    for index, unit in enumerate(units):
        if not contacts[unit.name]:
            raise ScenarioError(
                f"{unit.name!r} is not engaged with any enemy", path=("units", index, "name")
            )
        if unit.attacks_target is not None and not any(
            c.enemy == unit.attacks_target for c in contacts[unit.name]
        ):
            raise ScenarioError(
                f"{unit.name!r} is not engaged with {unit.attacks_target!r}",
                path=("units", index, "attacks_target"),
            )

    challenge: tuple[str, str] | None = None
    refused: tuple[str, str] | None = None
    if document.challenge is not None:
        names = (document.challenge.challenger, document.challenge.opponent)
        for key, name in zip(("challenger", "opponent"), names, strict=True):
            if name not in character_names:
                raise ScenarioError(f"no character named {name!r}", path=("challenge", key))
        first = units[character_names[names[0]][0]]
        second = units[character_names[names[1]][0]]
        if names[0] == names[1]:
            raise ScenarioError(
                f"challenger and opponent are both {names[0]!r}", path=("challenge", "opponent")
            )
        if first.side == second.side:
            raise ScenarioError(
                f"{names[0]!r} and {names[1]!r} fight for the same side",
                path=("challenge", "opponent"),
            )
        if not any(c.enemy == second.name for c in contacts[first.name]):
            raise ScenarioError(
                f"their units {first.name!r} and {second.name!r} are not engaged",
                path=("challenge", "opponent"),
            )
        challenge = (names[0], names[1])
        if document.challenge.refused:
            _check_refusal(second, names[1], contacts[second.name])
            index = units.index(second)
            units = (*units[:index], replace(second, retired=names[1]), *units[index + 1 :])
            refused, challenge = challenge, None

    other: list[OtherWounds] = []
    for index, spec in enumerate(document.other_wounds):
        if spec.side not in sides:
            raise ScenarioError(
                f"no side named {spec.side!r}", path=("other_wounds", index, "side")
            )
        if spec.target not in by_name:
            raise ScenarioError(
                f"no unit named {spec.target!r}", path=("other_wounds", index, "target")
            )
        other.append(OtherWounds(spec.side, spec.target, spec.wounds, spec.source))

    return Combat(
        units=units,
        sides=(sides[0], sides[1]),
        contacts={name: tuple(found) for name, found in contacts.items()},
        challenge=challenge,
        refused=refused,
        other_wounds=tuple(other),
        options=Options.from_params(document.parameters),
    )
