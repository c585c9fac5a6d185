"""Parameters of the ``d100`` ruleset: every number the rules use, with its default.

>>> params = D100Params()
>>> params.overwhelm_bonus, params.round_limit, params.open_ended_from
(4, 5, 96)
>>> params.morale_band(60).pax_lost
1
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field

from fracas.core.schema import Bool, Int, StrictModel, at_most

#: Every roll an effect or an item may name.
RollName = Literal[
    "attack",
    "ranged_attack",
    "defense",
    "damage",
    "ranged_damage",
    "damage_reduction",
    "morale",
    "flee",
    "morale_assessment",
    "loyalty",
]

ROLL_NAMES: tuple[RollName, ...] = get_args(RollName)

#: How each roll is called in a battle log.
ROLL_LABELS: dict[str, str] = {
    "attack": "Attack",
    "ranged_attack": "Ranged attack",
    "defense": "Defence",
    "damage": "Damage",
    "ranged_damage": "Ranged damage",
    "damage_reduction": "Damage reduction",
    "morale": "Morale",
    "flee": "Flee roll",
    "morale_assessment": "Morale assessment",
    "loyalty": "Loyalty",
}


class ItemSpec(StrictModel):
    """A piece of equipment: bonuses to named rolls, and whether it is a ranged weapon."""

    label: str = Field("", description="Name shown in the log (default: the item's key).")
    bonuses: dict[RollName, Int] = Field(
        default_factory=dict, description="Percentile points added to each named roll."
    )
    ranged: Bool = Field(False, description="A ranged weapon: its bearer shoots in step 5.")
    effects: tuple[str, ...] = Field(
        (), description="Effects the item gives its bearer, by name (horses give 'mounted')."
    )


def default_equipment() -> dict[str, ItemSpec]:
    """The standard equipment table (percentile points)."""
    return {
        "melee_weapon": ItemSpec(label="Melee weapon", bonuses={"attack": 10, "damage": 10}),
        "ranged_weapon": ItemSpec(
            label="Ranged weapon", bonuses={"ranged_attack": 10}, ranged=True
        ),
        "shield": ItemSpec(label="Shield", bonuses={"defense": 10}),
        "armour_1": ItemSpec(label="Armour 1", bonuses={"damage_reduction": 5}),
        "armour_2": ItemSpec(label="Armour 2", bonuses={"defense": 5, "damage_reduction": 10}),
        "armour_3": ItemSpec(label="Armour 3", bonuses={"defense": 5, "damage_reduction": 20}),
        "horses": ItemSpec(label="Horses", effects=("mounted",)),
    }


class MoraleBand(StrictModel):
    """One row of the morale-check table: totals of at least ``at_least`` get this result."""

    at_least: Int | None = Field(
        description="Lowest total of this band; null for the last band (everything lower)."
    )
    pax_lost: Int = Field(ge=0, description="PAX the unit loses.")
    flees: Bool = Field(False, description="The unit also flees the battle.")


def default_morale_table() -> tuple[MoraleBand, ...]:
    """≥ 75 no loss; 50–74 one PAX; 26–49 two PAX; 25 or less two PAX and flight."""
    return (
        MoraleBand(at_least=75, pax_lost=0),
        MoraleBand(at_least=50, pax_lost=1),
        MoraleBand(at_least=26, pax_lost=2),
        MoraleBand(at_least=None, pax_lost=2, flees=True),
    )


class LootRow(StrictModel):
    """One row of the loot table: a plain d100 of at most ``up_to`` splits the goods so."""

    up_to: Int = Field(ge=1, le=100, description="Highest d100 face of this row.")
    gold: Int = Field(ge=0, le=100, description="Percent of the value paid as gold.")
    resources: Int = Field(ge=0, le=100, description="Percent of the value as resources.")
    items: Int = Field(ge=0, le=100, description="Percent of the value as items.")


def default_loot_table() -> tuple[LootRow, ...]:
    """1–40 all gold; 41–70 half gold, half resources; 71–90 gold, resources and items;
    91–100 half gold, half items."""
    return (
        LootRow(up_to=40, gold=100, resources=0, items=0),
        LootRow(up_to=70, gold=50, resources=50, items=0),
        LootRow(up_to=90, gold=50, resources=25, items=25),
        LootRow(up_to=100, gold=50, resources=0, items=50),
    )


COMBAT_ROLLS: tuple[RollName, ...] = (
    "attack",
    "ranged_attack",
    "defense",
    "damage",
    "ranged_damage",
    "damage_reduction",
    "morale",
)


# A raisable limit (docs/limits.md): each round may roll dice for every unit.
Rounds = Annotated[Int, at_most("d100.round_limit", 1_000, "melee rounds of a battle")]


class D100Params(StrictModel):
    """Every number of the ``d100`` rules. Set them under ``parameters:`` in a scenario."""

    open_ended_from: Int = Field(
        96, ge=2, le=100, description="A d100 face at least this high is rolled again and added."
    )
    open_ended_limit: Int | None = Field(
        None,
        ge=0,
        description="Most extra d100s one roll may add (null: no limit, as the rules say).",
    )
    assessment_threshold: Int = Field(
        5,
        ge=0,
        description="A unit with MORE than this many Dangerous Mission Penalties is assessed.",
    )
    assessment_penalty: Int = Field(
        25, ge=0, description="Penalty on the morale assessment roll (step 1)."
    )
    assessment_pass: Int = Field(
        75, description="A morale assessment total below this bottles the unit out."
    )
    assessment_exempt_races: tuple[str, ...] = Field(
        ("orc", "orcs"), description="Races that never make the morale assessment."
    )
    loyalty_pass: Int = Field(
        50, description="A loyalty total of at least this: the unit stays loyal but leaves."
    )
    loyalty_takes_equipment: Int = Field(
        25,
        description="A loyalty total of at most this: the unit disbands taking its equipment "
        "(totals in between: it disbands, leaving its equipment).",
    )
    loyalty_equipment_reads: Literal["total", "die"] = Field(
        "total",
        description="What the 'takes its equipment' band reads: the loyalty total with its "
        "bonuses, or the bare die (the seed says 'rolled').",
    )
    napoleon_bonus: Int = Field(
        10, description="Loyalty bonus of each instance of the Napoleon spell."
    )
    overwhelm_bonus: Int = Field(
        4, ge=0, description="Overwhelm: points per unit the bigger side has over the smaller."
    )
    overwhelm_rolls: tuple[RollName, ...] = Field(
        COMBAT_ROLLS, description="The combat rolls the Overwhelm bonus is added to."
    )
    stat_point_value: Int = Field(
        10,
        description="Points per point of offense, defense or strength, at full PAX "
        "(scaled by pax / max_pax and rounded down).",
    )
    default_max_pax: Int = Field(10, ge=1, description="max_pax of a unit that gives none.")
    morale_pax_penalty: Int = Field(
        4, ge=0, description="Morale check penalty per PAX the unit has lost in this battle."
    )
    morale_table: tuple[MoraleBand, ...] = Field(
        default_factory=default_morale_table,
        description="Morale check results, highest band first.",
    )
    round_limit: Rounds = Field(
        5, ge=1, description="Melee rounds before the attacker withdraws with no winner."
    )
    mounted_bonus: Int = Field(
        10, description="Attack bonus of the 'mounted' preset (horses, when attacking)."
    )
    defensive_structure_bonus: Int = Field(
        10, description="Defence bonus of the 'defensive_structure' preset (when defending)."
    )
    mind_leech_threshold: Int = Field(
        50, description="Flee roll of the 'mind_leech' preset: enemy units below this flee."
    )
    equipment: dict[str, ItemSpec] = Field(
        default_factory=default_equipment,
        description="The equipment table; a scenario's top-level 'equipment' adds to it.",
    )
    loot_table: tuple[LootRow, ...] = Field(
        default_factory=default_loot_table,
        description="How a plain d100 splits the value of goods into gold, resources, items.",
    )

    def morale_band(self, total: int) -> MoraleBand:
        """The morale-check band a total falls into (the last band catches everything)."""
        for band in self.morale_table:
            if band.at_least is None or total >= band.at_least:
                return band
        return self.morale_table[-1]
