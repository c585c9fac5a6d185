"""The scenario document of the ``d100`` ruleset (what a scenario file may contain)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from fracas.core.schema import Bool, Document, Int, StrictModel, at_most
from fracas.rulesets.d100.params import D100Params, ItemSpec, RollName

Trigger = Literal["when_attacking", "when_defending", "assessment", "start_of_combat", "per_round"]
Scope = Literal["self", "own_side", "enemy_side", "unit"]
Action = Literal["harass", "raid", "attack", "defend", "challenge"]


# Counts that multiply the work of a battle, each a raisable limit (docs/limits.md).
MeleeAttacks = Annotated[
    Int, at_most("d100.melee_attacks", 100, "melee attacks of a unit per round")
]
RangedAttacks = Annotated[Int, at_most("d100.ranged_attacks", 100, "ranged attacks of a unit")]
Napoleons = Annotated[
    Int, at_most("d100.napoleon", 100, "instances of the Napoleon spell on a side")
]


class EffectSpec(StrictModel):
    """A spell, trait or structure: when it acts, on whom, and what it does.

    It does exactly one thing: a ``bonus`` to the named ``roll``, a flee roll against
    ``flee_below``, or ``nullify`` (the units in scope lose their own traits).
    """

    label: str = Field("", description="Name shown in the log (default: the effect's key).")
    trigger: Trigger = Field(description="When the effect is in force or acts.")
    scope: Scope = Field("self", description="Who it acts on, seen from whoever holds it.")
    unit: str | None = Field(None, description="The unit acted on when scope is 'unit'.")
    roll: RollName | None = Field(None, description="The roll that receives the bonus.")
    bonus: Int = Field(0, description="Percentile points added to that roll (negative: penalty).")
    flee_below: Int | None = Field(
        None, description="Each unit in scope makes a flee roll; below this it flees."
    )
    nullify: Bool = Field(False, description="Units in scope lose their traits for the battle.")
    description: str = Field("", description="Free text.")


class LairSpec(StrictModel):
    """A side's lair: Throne Room bonuses and defensive structures."""

    loyalty_bonus: Int = Field(0, description="Throne Room loyalty bonus (loyalty checks).")
    morale_bonus: Int = Field(0, description="Throne Room morale bonus (every morale roll).")
    structures: tuple[str, ...] = Field(
        (), description="Defensive structures (effect names); they count only in the lair."
    )


class UnitSpec(StrictModel):
    """One unit. A lone monster or hero counts its hit points as PAX."""

    name: str = Field(min_length=1, description="Unique name of the unit.")
    race: str = Field("human", description="Race; Orcs never make the morale assessment.")
    pax: Int = Field(ge=1, description="Current PAX (troops, or hit points of a monster).")
    max_pax: Int | None = Field(None, ge=1, description="Full PAX (default: default_max_pax).")
    speed: Int = Field(0, ge=0, description="Higher strikes first.")
    offense: Int = Field(0, ge=0, description="Offense stat (attack rolls).")
    defense: Int = Field(0, ge=0, description="Defense stat (defence rolls).")
    strength: Int = Field(0, ge=0, description="Strength stat (damage rolls).")
    morale_bonus: Int = Field(0, description="The unit's own morale bonus.")
    dangerous_missions: Int = Field(
        0, ge=0, description="Instances of the Dangerous Mission Penalty."
    )
    equipment: tuple[str, ...] = Field((), description="Items from the equipment table.")
    traits: tuple[str, ...] = Field((), description="Effects the unit holds, by name.")
    recruitment_cost: Int = Field(0, ge=0, description="Recruitment cost (Unit Value).")
    upkeep_cost: Int = Field(0, ge=0, description="Upkeep cost (Unit Value).")
    ranged_attacks: RangedAttacks | None = Field(
        None, ge=0, description="Ranged attacks (default 1 with a ranged weapon, else 0)."
    )
    melee_attacks: MeleeAttacks = Field(1, ge=0, description="Melee attacks per round.")


class SideSpec(StrictModel):
    """One of the two sides of a battle."""

    name: str = Field(min_length=1, description="Name of the side (a player, an army).")
    action: Action = Field(
        description="What the side does: harass, raid, attack, defend, challenge."
    )
    location: Literal["lair", "open"] | None = Field(
        None,
        description="Where the side fights: 'lair' (its own) or 'open' "
        "(default: lair when defending, else open).",
    )
    lair: LairSpec = Field(default_factory=LairSpec, description="Throne Room and structures.")
    napoleon: Napoleons = Field(0, ge=0, description="Instances of the Napoleon spell.")
    effects: tuple[str, ...] = Field((), description="Spells on the side, by effect name.")
    targeting: Literal["random"] | tuple[str, ...] = Field(
        "random",
        description="'random' (uniform with the dice) or a priority list of enemy unit names.",
    )
    units: tuple[UnitSpec, ...] = Field(description="The side's units (at least one).")

    @field_validator("targeting", mode="before")
    @classmethod
    def _random_or_list(cls, value: object) -> object:
        # One plain message instead of pydantic's two, one per branch of the union.
        if value != "random" and not isinstance(value, list | tuple):
            raise PydanticCustomError("targeting", "use 'random' or a list of enemy unit names")
        return value

    @field_validator("units")
    @classmethod
    def _some_units(cls, value: tuple[UnitSpec, ...]) -> tuple[UnitSpec, ...]:
        # Checked after the units themselves, so a bad unit is the only error reported.
        if not value:
            raise PydanticCustomError("no_units", "a side needs at least one unit")
        return value


class D100Document(Document):
    """A ``d100`` scenario: two sides, optional extra equipment and effects, parameters."""

    parameters: D100Params = Field(default_factory=D100Params, description="Rule numbers.")
    equipment: dict[str, ItemSpec] = Field(
        default_factory=dict, description="Extra equipment (added to the standard table)."
    )
    effects: dict[str, EffectSpec] = Field(
        default_factory=dict, description="Extra effects (added to the built-in presets)."
    )
    sides: tuple[SideSpec, SideSpec] = Field(description="Exactly two sides.")
