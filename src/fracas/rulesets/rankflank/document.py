"""The scenario file of the ``rankflank`` ruleset: units, engagements, parameters.

This module checks *shapes* (types, ranges, unknown keys); :mod:`.scenario` checks meaning.

>>> Profile.model_validate("4 3 3 3 3 1 3 1 7").WS
3
>>> RankflankDocument.model_validate(EXAMPLE).units[1].name
'Orcs'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, GetJsonSchemaHandler, model_validator
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

from fracas.core.schema import Bool, Document, Int, StrictModel, at_most
from fracas.rulesets.rankflank.specials import (
    RULES,
    WEAPONS,
    Reroll,
    RerollRoll,
    canonical_weapon,
    parse_rule,
)

TroopType = Literal[
    "infantry",
    "cavalry",
    "monstrous_infantry",
    "monstrous_cavalry",
    "monster",
    "chariot",
    "swarm",
    "war_machine",
    # The Old World's finer types; the other presets read each as the type it refines.
    "heavy_infantry",
    "light_cavalry",
    "heavy_cavalry",
    "war_beasts",
    "light_chariot",
    "heavy_chariot",
]
Arc = Literal["front", "left", "right", "rear"]
Edition = Literal["ninth", "eighth", "oldworld"]

PROFILE_KEYS = ("M", "WS", "BS", "S", "T", "W", "I", "A", "Ld")


def _problem(message: str) -> PydanticCustomError:
    """A validation error shown as written (pydantic would prefix "Value error, ")."""
    return PydanticCustomError("value_error", "{problem}", {"problem": message})


def _at_least(count: int, what: str) -> AfterValidator:
    """A tuple of at least ``count`` items, checked once its items are.

    pydantic's own ``min_length`` counts only the items that validated, so one bad unit of
    two also reported the units as too few: a second problem that was not there.
    """

    def check(value: tuple[Any, ...]) -> tuple[Any, ...]:
        if len(value) < count:
            raise _problem(f"needs at least {count} {what}")
        return value

    return AfterValidator(check)


def _rule(text: str) -> str:
    try:
        return parse_rule(text).written()
    except ValueError as error:
        raise _problem(str(error)) from None


def _weapon(text: str) -> str:
    try:
        return canonical_weapon(text)
    except ValueError as error:
        raise _problem(str(error)) from None


SpecialRule = Annotated[
    str,
    AfterValidator(_rule),
    Field(
        description="A special rule, with its value in brackets where it takes one: "
        + ", ".join(RULES)
        + " (e.g. 'hatred', 'armour piercing (1)', 'multiple wounds (D3)', "
        "'impact hits (D6)', 'regeneration (5+)'). Each edition's own name is accepted.",
        examples=["hatred", "armour piercing (1)", "multiple wounds (D3)"],
    ),
]
Weapon = Annotated[
    str,
    AfterValidator(_weapon),
    Field(
        description="The weapon its models fight with: " + ", ".join(WEAPONS) + ".",
        examples=list(WEAPONS),
    ),
]


class RerollSpec(StrictModel):
    """A re-roll the unit (or character) has: which roll, which dice, and where it comes from."""

    roll: RerollRoll = Field(
        description="to_hit and to_wound: its own blows; armour and ward: its saves."
    )
    which: Reroll = Field("failed", description="Re-roll every failed die, or natural 1s only.")
    source: str = Field(
        "re-roll", min_length=1, description="Where it comes from (for the report)."
    )


# Counts that set how many dice a round rolls, each a raisable limit (docs/limits.md).
Models = Annotated[Int, at_most("rankflank.models", 1_000, "models fighting or supporting")]
SupportingAttacks = Annotated[
    Int, at_most("rankflank.supporting_attacks", 10, "supporting attacks per model")
]


class Profile(StrictModel):
    """The nine characteristics. Also written as one string: ``"4 3 3 3 3 1 3 1 7"``."""

    M: Int = Field(ge=0, le=10, description="Movement.")
    WS: Int = Field(ge=1, le=10, description="Weapon Skill (1-10).")
    BS: Int = Field(0, ge=0, le=10, description="Ballistic Skill (unused in close combat).")
    S: Int = Field(ge=1, le=10, description="Strength (1-10).")
    T: Int = Field(ge=1, le=10, description="Toughness (1-10).")
    W: Int = Field(ge=1, le=10, description="Wounds per model.")
    I: Int = Field(ge=0, le=10, description="Initiative.")  # noqa: E741 - the game's own name
    A: Int = Field(ge=0, le=10, description="Attacks per model.")
    Ld: Int = Field(ge=1, le=10, description="Leadership.")

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        # The string form is how scenario files usually write a profile; say so in the
        # schema, or editors that check files against it flag every example.
        written = {
            "type": "string",
            "pattern": r"^\s*-?\d+(\s+-?\d+){8}\s*$",
            "description": "The nine characteristics in order: M WS BS S T W I A Ld.",
        }
        return {"anyOf": [written, handler(core_schema)]}

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            numbers = value.split()
            if len(numbers) != len(PROFILE_KEYS):
                raise _problem(
                    f"a profile string needs {len(PROFILE_KEYS)} numbers "
                    f"({' '.join(PROFILE_KEYS)}), got {len(numbers)}"
                )
            values: dict[str, Any] = {}
            for key, number in zip(PROFILE_KEYS, numbers, strict=True):
                try:
                    values[key] = int(number)
                except ValueError:
                    raise _problem(f"{key} must be a whole number, got {number!r}") from None
            return values
        return value


class Command(StrictModel):
    """The unit's command group."""

    standard: Bool = Field(False, description="A standard bearer (+1 combat result).")
    battle_standard: Bool | str = Field(
        False,
        description="The battle standard (+1 combat result while its bearer stands): the "
        "name of the character who carries it, or true for a bearer in the rank and file.",
    )
    musician: Bool = Field(
        False,
        description="A musician: breaks a tie of the combat result when musician_tie is on "
        "(the oldworld preset); no effect otherwise.",
    )


class MountSpec(StrictModel):
    """The mount each rank-and-file model (or a character) rides: it strikes with its own
    profile."""

    name: str = Field("mount", min_length=1, max_length=60, description="Shown in the report.")
    profile: Profile = Field(description="Its WS, S, I and A strike; the rider's T and W count.")
    rules: tuple[SpecialRule, ...] = Field((), description="Its own special rules.")


class CharacterSpec(StrictModel):
    """A character fighting inside a unit, with a profile and wounds of its own."""

    name: str = Field(min_length=1, description="Unique name (used by a challenge).")
    troop_type: TroopType = Field("infantry", description="Sets the character's Unit Strength.")
    profile: Profile
    armour: Int | None = Field(None, ge=1, le=6, description="Armour save N+; none if absent.")
    ward: Int | None = Field(None, ge=2, le=6, description="Ward save N+; none if absent.")
    rules: tuple[SpecialRule, ...] = Field((), description="Special rules.")
    weapon: Weapon = "hand_weapon"
    shield: Bool = Field(False, description="Carries a shield (+1 armour save; parry).")
    rerolls: tuple[RerollSpec, ...] = Field((), description="Re-rolls of its own dice.")
    wounds_taken: Int = Field(0, ge=0, description="Wounds the character has already lost.")
    unit_strength: Int | None = Field(None, ge=0, description="Override the Unit Strength.")
    mount: MountSpec | None = Field(
        None,
        description="The character's own mount: it strikes once beside him, with its own "
        "profile, at whoever he strikes (in a challenge, his opponent only); blows on him "
        "use his own T, W, armour and ward.",
    )


class UnitSpec(StrictModel):
    """A rank-and-file unit (its characters included)."""

    name: str = Field(min_length=1, description="Unique name of the unit.")
    side: str = Field(min_length=1, description="The side it fights for (exactly two sides).")
    troop_type: TroopType = "infantry"
    models: Int = Field(
        ge=1, le=1000, description="Rank-and-file models (characters not included)."
    )
    files: Int = Field(ge=1, le=100, description="Width of the unit in models.")
    profile: Profile
    armour: Int | None = Field(None, ge=1, le=6, description="Armour save N+; none if absent.")
    ward: Int | None = Field(None, ge=2, le=6, description="Ward save N+; none if absent.")
    rules: tuple[SpecialRule, ...] = Field((), description="Special rules.")
    weapon: Weapon = "hand_weapon"
    shield: Bool = Field(
        False, description="Carries a shield: +1 armour save ('armour' is the save without it)."
    )
    rerolls: tuple[RerollSpec, ...] = Field((), description="Re-rolls of its own dice.")
    command: Command = Command()
    characters: tuple[CharacterSpec, ...] = ()
    mount: MountSpec | None = Field(
        None,
        description="The rank and file's mounts (a cavalry unit's horses): in the fighting "
        "rank each strikes as well, with its own profile, never from a supporting rank.",
    )
    wounds_taken: Int = Field(
        0,
        ge=0,
        description="Wounds lost by one wounded model, which the next blows at the rank and "
        "file finish first.",
    )
    unit_strength: Int | None = Field(
        None, ge=0, description="Unit Strength per model; default from the troop type."
    )
    charged: Bool = Field(False, description="The unit charged this turn.")
    charge_distance: Int | None = Field(
        None,
        ge=0,
        le=50,
        description="Full inches it moved in its charge: with charge_initiative: distance "
        "(oldworld), +1 Initiative an inch up to the most (default: the most).",
    )
    height: Int = Field(
        0, ge=0, le=100, description="How high its fighting rank stands (1 = hill)."
    )
    charged_downhill: Bool = Field(
        False, description="Charged down from a hill: counts as higher ground in round 1."
    )
    fighting_models: Models | None = Field(
        None, ge=0, description="Rank-and-file models that fight (default: the fighting rank)."
    )
    supporting_models: Models | None = Field(
        None, ge=0, description="Models giving supporting attacks (default: the next rank)."
    )
    attacks_target: str | None = Field(
        None, description="Enemy unit this unit attacks (default: the first one engaged)."
    )
    restrain: Bool = Field(
        False, description="When it wins and the enemy flees, test Leadership to restrain."
    )
    formation: Literal["close_order", "open_order", "horde", "skirmish", "column"] = Field(
        "close_order",
        description="oldworld: the unit's formation. Only Close Order (a Horde too) earns "
        "Combat Order and Shieldwall; a Horde's rank bonus goes one higher; Skirmish and a "
        "column earn no rank bonus and no Press of Battle; skirmishers disrupt nobody and "
        "(skirmisher_arc_bonus) earn no flank or rear bonus.",
    )
    general_leadership: Int | None = Field(
        None,
        ge=1,
        le=10,
        description="oldworld: the Leadership of the army's General, in range of this unit "
        '(12", 18" for a Large Target): its break test uses it where it is higher.',
    )
    battle_standard_in_range: Bool = Field(
        False,
        description='oldworld: the Battle Standard is in range of this unit (12", 18" for '
        "a Large Target): it may re-roll its break test (see battle_standard_reroll). A unit "
        "that carries the battle standard itself may while its bearer stands.",
    )
    disrupted: Bool = Field(
        False,
        description="oldworld: Disrupted for the whole combat by terrain (a quarter of its "
        "models in difficult terrain, or straddling a low obstacle): no rank bonus.",
    )


class EngagementSpec(StrictModel):
    """``unit`` faces ``enemy`` with its own front and strikes ``enemy``'s ``arc``."""

    unit: str
    enemy: str
    arc: Arc = "front"


class ChallengeSpec(StrictModel):
    """Two characters of opposite sides fight each other alone, or the one named refuses."""

    challenger: str
    opponent: str
    refused: Bool = Field(
        False,
        description="The opponent's side refuses the challenge: the opponent retires for "
        "the whole combat (no attacks, cannot be attacked, lends no Leadership or rules) "
        "and the challenger fights the unit. Not for a lone character, the last model of "
        "its unit, or a unit engaged in all four arcs.",
    )


class OtherWoundsSpec(StrictModel):
    """Unsaved wounds from outside the strikes (impact hits, stomps, spells) in round 1."""

    side: str = Field(description="The side that inflicted them.")
    target: str = Field(description="The unit that suffered them.")
    wounds: Int = Field(ge=0, le=10_000)
    source: str = Field("other", description="What caused them, for the report.")


class RankflankParams(StrictModel):
    """Edition preset first, then every option left at ``null`` takes the preset's value."""

    edition: Edition = Field("ninth", description="Preset of the options below.")
    outnumber_bonus: Bool | None = Field(
        None, description="+1 for higher Unit Strength (ninth: true, eighth: false)."
    )
    disrupted_by: Literal["unit_strength", "ranks"] | None = Field(
        None,
        description="What disrupts a unit from its flank or rear "
        "(ninth: unit_strength, eighth: ranks).",
    )
    disrupt_unit_strength: Int | None = Field(
        None, ge=1, description="Unit Strength that disrupts (ninth, eighth: 10; oldworld: 5)."
    )
    disrupt_ranks: Int = Field(2, ge=1, description="Ranks of rank_width models that disrupt.")
    steadfast: Literal["unit_strength", "ranks", "none"] | None = Field(
        None,
        description="Steadfast by Unit Strength (ninth), by more ranks (eighth), or not at "
        "all (oldworld).",
    )
    steadfast_unit_strength: Int = Field(10, ge=0, description="Minimum US to be Steadfast.")
    disrupted_can_be_steadfast: Bool | None = Field(
        None,
        description="A disrupted unit may still be Steadfast, Stubborn ones included "
        "(ninth: false, eighth: true).",
    )
    overkill_max: Int | None = Field(
        None, ge=0, description="Cap of the overkill bonus (ninth: 3, eighth, oldworld: 5)."
    )
    charger_initiative_bonus: Int | None = Field(
        None,
        ge=0,
        description="Initiative added to chargers in round 1 (ninth: 1, eighth: 0, "
        "oldworld: 3, the most a charge in front gains).",
    )
    caught: Literal["wounds", "destroyed"] | None = Field(
        None, description="Fate of a caught unit (ninth: wounds, eighth, oldworld: destroyed)."
    )
    caught_wounds_per_unit_strength: Int = Field(
        2, ge=0, description="Wounds without saves per pursuing Unit Strength point."
    )
    flank_and_rear_per: Literal["enemy", "unit"] = Field(
        "enemy",
        description="Flank and rear bonuses once per enemy unit, whoever fills its flanks and "
        "rear (enemy), or once for each unit fighting them (unit).",
    )
    overkill_needs_survivor: Bool = Field(
        True,
        description="Overkill only for a character who slays his rival and still stands "
        "(false: a slayer slain in the same round scores it too).",
    )
    supporting_attacks: SupportingAttacks | None = Field(
        None, ge=0, description="Supporting attacks per model of the next rank (both: 1)."
    )
    rank_width: Int = Field(5, ge=1, description="Models that make a rank.")
    max_rank_bonus: Int = Field(3, ge=0, description="Cap of the rank bonus per arc.")
    max_rounds: Int | None = Field(
        None,
        ge=1,
        le=50,
        description="Rounds fought at most (every preset: 5).",
    )
    overrun: Bool = Field(
        False, description="A winner that charged overruns (instead of reforming) after a wipe-out."
    )
    parry: Bool = Field(
        True,
        description="Infantry with hand weapon and shield parry blows from the front "
        "(what it gives: parry_as).",
    )
    fear_weapon_skill: Int = Field(
        1, ge=1, le=10, description="WS of a unit that fails its fear test, for that round."
    )
    hatred_rounds: Int = Field(
        1, ge=0, le=50, description="Rounds in which hatred re-rolls failed to-hit rolls."
    )
    furious_charge_attacks: Int = Field(
        1,
        ge=0,
        le=10,
        description="oldworld: Attacks Furious Charge adds in a round the unit charged or "
        "counts as charging.",
    )
    choppas_ap: Int = Field(
        1,
        ge=0,
        le=6,
        description="oldworld: Armour Piercing Choppas add in a round the unit charged or "
        "counts as charging.",
    )
    choppas_wound_reroll: Literal["ones", "failed", "none"] = Field(
        "ones",
        description="oldworld: the to-wound rolls Choppas re-roll in a round the unit charged "
        "or counts as charging.",
    )
    spear_extra_ranks: Int = Field(
        1, ge=0, le=5, description="Extra supporting ranks of infantry with spears (not charging)."
    )
    strikes_first_step: Int = Field(
        10, ge=0, le=20, description="Initiative step of always-strikes-first blows."
    )
    strikes_last_step: Int = Field(
        0, ge=0, le=20, description="Initiative step of always-strikes-last blows and stomps."
    )
    strike_first_last: Literal["steps", "initiative"] | None = Field(
        None,
        description="Strikes first / last: at the fixed steps strikes_first_step / "
        "strikes_last_step (ninth, eighth), or Initiative 10 / 1 before a charger adds its "
        "bonus (oldworld).",
    )
    flank_fighters: Literal["ranks", "largest"] | None = Field(
        None,
        description="A unit fighting only to its flank or rear fights with as many models "
        "as it has ranks (ninth, eighth), or as its largest rank or file (oldworld).",
    )
    press_of_battle_arcs: Literal["all", "front"] = Field(
        "all",
        description="oldworld: Press of Battle's second rank (or file) fights to every arc, "
        "or only to the front.",
    )
    skirmisher_arc_bonus: Bool | None = Field(
        None,
        description="A unit in Skirmish formation earns the flank and rear bonus "
        "(oldworld: false).",
    )
    frenzy_attacks: Literal["always", "charging"] | None = Field(
        None,
        description="Frenzy's +1 Attack: every round (ninth, eighth), or only in a round the "
        "unit charged and the round after a follow up (oldworld).",
    )
    charge_bonus: Bool | None = Field(
        None, description="+1 combat result for each unit that charged (oldworld: false)."
    )
    ranks_by: Literal["rank_width", "troop_type"] | None = Field(
        None,
        description="What makes a rank and caps the rank bonus: rank_width and "
        "max_rank_bonus (ninth, eighth), or the unit's troop type (oldworld).",
    )
    rank_bonus_per: Literal["arc", "side"] | None = Field(
        None,
        description="Rank bonus of the best unit in each enemy arc (ninth, eighth), or of the "
        "side's best unit only (oldworld).",
    )
    combat_order: Bool | None = Field(
        None,
        description="+1 for each unit in Combat Order of at least combat_order_min_us "
        "Unit Strength (oldworld: true).",
    )
    combat_order_min_us: Int = Field(
        10, ge=0, description="Least Unit Strength of a unit whose Combat Order counts."
    )
    massed_infantry: Bool | None = Field(
        None,
        description="+1 to the side of higher Unit Strength if it fields regular or heavy "
        "infantry (oldworld: true).",
    )
    standard_per: Literal["unit", "side"] | None = Field(
        None, description="+1 for each unit's standard (ninth, eighth), or once a side (oldworld)."
    )
    musician_tie: Bool | None = Field(
        None,
        description="On equal totals, +1 to the only side with a musician (oldworld: true).",
    )
    steady_min_us: Int | None = Field(
        None,
        ge=1,
        description="Unit Strength that disrupts heavy infantry, Steady in the Ranks "
        "(oldworld: 10; none in the other presets).",
    )
    break_test: Literal["pass_fail", "three_outcomes"] | None = Field(
        None,
        description="Pass or flee (ninth, eighth), or Break, Fall Back in Good Order, Give "
        "Ground (oldworld).",
    )
    overwhelmed: Bool | None = Field(
        None,
        description="Three outcomes: a Fall Back becomes a Break when the winners' Unit "
        "Strength is more than overwhelmed_ratio times the loser's (oldworld: true).",
    )
    overwhelmed_ratio: Int = Field(2, ge=1, description="Times the loser's Unit Strength.")
    press_of_battle: Bool | None = Field(
        None,
        description="Supporting attacks only from regular and heavy infantry (Press of "
        "Battle) or spears (Fight in Extra Rank), never in a round the unit charged "
        "(oldworld: true).",
    )
    charge_initiative: Literal["flat", "distance"] | None = Field(
        None,
        description="What a charge adds to Initiative in round 1: charger_initiative_bonus "
        "(ninth, eighth), or +1 a full inch of charge_distance, at most "
        "charger_initiative_bonus in front and charger_initiative_bonus_flank into a flank "
        "or rear, Initiative 10 at most (oldworld).",
    )
    charger_initiative_bonus_flank: Int = Field(
        4,
        ge=0,
        le=10,
        description="The most Initiative a charge into a flank or rear adds "
        "(charge_initiative: distance).",
    )
    terror_leadership: Int = Field(
        1,
        ge=0,
        le=10,
        description="Leadership a loser's break test loses while a winner causes Terror "
        "(the rule terror, oldworld).",
    )
    stepping_forward: Bool | None = Field(
        None,
        description="A fighting-rank model slain before it strikes costs its attacks, its "
        "replacement making none (oldworld: true).",
    )
    to_hit_table: Literal["classic", "oldworld"] | None = Field(
        None,
        description="To hit: 3+ against a lower WS, 5+ against more than double, else 4+ "
        "(classic: ninth, eighth); oldworld adds 2+ with more than double the target's WS.",
    )
    to_wound_table: Literal["classic", "oldworld"] | None = Field(
        None,
        description="To wound: a 6 wounds down to 3 points of Strength below Toughness "
        "(classic) or down to 5 (oldworld).",
    )
    saves_worsened_by: Literal["strength", "ap"] | None = Field(
        None,
        description="What worsens an armour save: 1 per point of Strength above 3 (ninth, "
        "eighth), or the weapon's Armour Piercing (oldworld).",
    )
    armour_cap: Bool | None = Field(
        None,
        description="Armour is 2+ at best for infantry and cavalry, 3+ for the others, "
        "before Armour Piercing (oldworld: true).",
    )
    parry_as: Literal["ward", "armour"] | None = Field(
        None,
        description="What parry gives (see parry): a 6+ ward (ninth, eighth), or +1 armour "
        "to 3+ at best for regular and heavy infantry (oldworld).",
    )
    weapon_profiles: Literal["classic", "oldworld"] | None = Field(
        None,
        description="The weapons' Strength bonuses (ninth, eighth), or The Old World's "
        "profiles with Armour Piercing and Armour Bane (oldworld).",
    )
    impact_and_stomp: Literal["classic", "oldworld"] | None = Field(
        None,
        description="Impact Hits and Stomp: the older presets' (stomp against infantry "
        "only), or The Old World's: impact hits need a charge of 3\" or more "
        "(charge_distance) and a heavy chariot's pierce 2; stomp hits all but monsters, and "
        "a monster's pierces 2.",
    )
    stubborn: Literal["never", "always", "best"] = Field(
        "best",
        description="When a Stubborn unit uses its rule: never, always, or (three outcomes) "
        "when the test would Break it more often than it Gives Ground.",
    )
    swiftstride_roll: Literal["drop_lowest", "add_d6"] | None = Field(
        None,
        description="A Swiftstride unit's flee and pursuit rolls: 3D6 dropping the lowest "
        "(ninth, eighth), or the roll and one more D6 added (oldworld).",
    )
    follow_up: Bool = Field(
        True,
        description="oldworld: the winners follow up a unit that Gives Ground, so the combat "
        "goes on next round (false: the loser breaks away and leaves the combat).",
    )
    follow_up_charging: Bool = Field(
        False,
        description="oldworld: a unit that followed up counts as charging next round.",
    )
    fbigo_roll: Literal["highest_of_2d6", "2d6"] = Field(
        "highest_of_2d6",
        description="oldworld: the move of a unit that Falls Back in Good Order: the higher "
        "of 2D6, or their sum (each with one more D6 for Swiftstride).",
    )
    caught_fbigo: Literal["combat_continues_charging", "combat_continues", "destroyed"] = Field(
        "combat_continues_charging",
        description="oldworld: a unit caught as it Falls Back in Good Order is fought again "
        "next round with its catcher counting as charging, or fought again, or destroyed.",
    )
    restraint_test: Bool = Field(
        True,
        description="A unit that tries to restrain pursuit (unit key restrain) tests its "
        "Leadership; false: it restrains without a test.",
    )
    resolute_penalty: Int = Field(
        1,
        ge=0,
        le=12,
        description="oldworld: what a Resolute unit takes off its flight and pursuit rolls.",
    )
    resolute_fall_back: Bool = Field(
        False,
        description="oldworld: Resolute also shortens a Fall Back in Good Order.",
    )
    battle_standard_reroll: Literal["break", "best", "never"] = Field(
        "break",
        description="oldworld: which break-test rolls a unit in range of its Battle "
        "Standard re-rolls (the second roll stands): a Break only, also a Fall Back when a "
        "new roll Gives Ground more often than it Breaks (best), or none.",
    )


class RankflankDocument(Document):
    """A ``rankflank`` scenario: the units and who fights whom."""

    parameters: RankflankParams = RankflankParams()
    units: Annotated[tuple[UnitSpec, ...], _at_least(2, "units")] = Field(
        json_schema_extra={"minItems": 2}
    )
    engagements: Annotated[tuple[EngagementSpec, ...], _at_least(1, "engagement")] = Field(
        json_schema_extra={"minItems": 1}
    )
    challenge: ChallengeSpec | None = None
    other_wounds: tuple[OtherWoundsSpec, ...] = ()


#: A small scenario written as a mapping, the example of this ruleset's docstrings: a
#: block of 20 spearmen (5 wide, 5+ save, a standard) charged in front by 20 orcs (5 wide,
#: 6+ save). ``RankflankRuleset().load(EXAMPLE).combat`` builds it.
EXAMPLE: Mapping[str, Any] = {
    "fracas": 1,
    "ruleset": "rankflank",
    "units": [
        {
            "name": "Spearmen",
            "side": "Empire",
            "models": 20,
            "files": 5,
            "profile": "4 3 3 3 3 1 3 1 7",
            "armour": 5,
            "command": {"standard": True},
        },
        {
            "name": "Orcs",
            "side": "Greenskins",
            "models": 20,
            "files": 5,
            "profile": "4 3 3 3 4 1 2 1 7",
            "armour": 6,
            "charged": True,
        },
    ],
    "engagements": [{"unit": "Orcs", "enemy": "Spearmen", "arc": "front"}],
}
