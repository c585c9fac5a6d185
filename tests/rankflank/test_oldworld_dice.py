"""The ``oldworld`` preset's dice (../shared/spec/oldworld.md §5): its to-hit and to-wound
tables, armour worsened by Armour Piercing (not Strength), the armour caps, Parry as
armour, Armour Bane, and The Old World's weapon profiles.

Each number is worked by hand beside it. A D6 target ``n+`` succeeds on ``(7 - n)/6`` (a 1
always fails); a blow is unsaved with chance hit × wound × (1 - save).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from fracas.core.dice import ScriptedDice, SeededDice
from fracas.core.distribution import check_group
from fracas.core.errors import ScenarioError
from fracas.rulesets.rankflank.blows import Blow, Blows, blow_law, roll_blows, unsaved_chance
from fracas.rulesets.rankflank.fight import apply_wounds
from fracas.rulesets.rankflank.formation import initial_state
from fracas.rulesets.rankflank.play import play_combat
from fracas.rulesets.rankflank.scenario import Combat
from fracas.rulesets.rankflank.strikes import Conditions, StrikeRecord, strike_records
from fracas.rulesets.rankflank.tables import (
    armour_ap_target,
    to_hit_target,
    to_wound_target,
)

from .conftest import combat_from, engage, unit_doc

STATE_TROOPS = "4 3 3 3 3 1 3 1 7"
ORCS = "4 3 3 3 4 1 2 1 7"


def fight(a: dict[str, Any], b: dict[str, Any], arc: str = "front", **parameters: Any) -> Combat:
    """Unit A (side Red) is engaged by unit B (side Blue) on A's ``arc``."""
    return combat_from(
        {
            "parameters": {"edition": "oldworld", **parameters},
            "units": [unit_doc("A", "Red", **a), unit_doc("B", "Blue", **b)],
            "engagements": [engage("B", "A", arc)],
        }
    )


def record_of(combat: Combat, striker: str) -> StrikeRecord:
    """The first round's blows of ``striker``'s rank and file."""
    state = initial_state(combat)
    found = [r for r in strike_records(combat, state, 1) if r.striker == striker]
    assert len(found) == 1, found
    return found[0]


# --- strike order: Initiative by the inches charged --------------------------------------


@pytest.mark.parametrize(
    ("arc", "distance", "initiative"),
    [
        ("front", None, 3 + 3),  # not given: the most, +3 in front
        ("front", 2, 3 + 2),  # +1 a full inch
        ("front", 7, 3 + 3),
        ("left", 3, 3 + 3),
        ("rear", 7, 3 + 4),  # +4 at most into a flank or rear
        ("front", 0, 3),
    ],
)
def test_chargers_add_initiative_by_the_inches_they_moved(
    arc: str, distance: int | None, initiative: int
) -> None:
    combat = fight({}, {"charged": True, "charge_distance": distance}, arc=arc)
    assert record_of(combat, "B").initiative == initiative


def test_charge_initiative_is_ten_at_most_and_flat_in_the_older_presets() -> None:
    quick = "4 3 3 3 3 1 8 1 7"  # I 8 + 4 would be 12
    assert (
        record_of(fight({}, {"profile": quick, "charged": True}, arc="rear"), "B").initiative == 10
    )
    # ninth: +1 whatever the distance and the arc.
    ninth = fight({}, {"charged": True, "charge_distance": 6}, arc="rear", edition="ninth")
    assert record_of(ninth, "B").initiative == 3 + 1


def test_charge_distance_needs_a_charge() -> None:
    with pytest.raises(ScenarioError, match="charge_distance needs charged: true"):
        fight({}, {"charge_distance": 4})


# --- the tables --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ws", "target", "classic", "oldworld"),
    [
        (7, 3, 3, 2),  # 7 > 2 × 3: 2+ in The Old World, 3+ before
        (6, 3, 3, 3),  # 6 is not more than 2 × 3
        (4, 3, 3, 3),
        (3, 3, 4, 4),
        (3, 7, 5, 5),  # 7 > 2 × 3: 5+ in both
        (1, 2, 4, 4),
    ],
)
def test_to_hit(ws: int, target: int, classic: int, oldworld: int) -> None:
    assert to_hit_target(ws, target) == classic
    assert to_hit_target(ws, target, "oldworld") == oldworld


@pytest.mark.parametrize(
    ("strength", "toughness", "classic", "oldworld"),
    [
        (5, 3, 2, 2),  # S ≥ T + 2
        (4, 3, 3, 3),
        (3, 3, 4, 4),
        (3, 4, 5, 5),
        (3, 5, 6, 6),  # T − 2
        (3, 6, 6, 6),  # T − 3
        (3, 7, None, 6),  # T − 4: impossible before, 6+ in The Old World
        (3, 8, None, 6),  # T − 5
        (3, 9, None, None),  # T ≥ S + 6
    ],
)
def test_to_wound(strength: int, toughness: int, classic: int | None, oldworld: int | None) -> None:
    assert to_wound_target(strength, toughness) == classic
    assert to_wound_target(strength, toughness, "oldworld") == oldworld


def test_armour_worsened_by_armour_piercing() -> None:
    # 4+ at AP −1 is 5+, at −2 6+, at −3 no save; no armour stays none.
    assert [armour_ap_target(4, ap) for ap in (0, 1, 2, 3)] == [4, 5, 6, None]
    assert armour_ap_target(None, 0) is None


# --- armour in a fight ------------------------------------------------------------------------


def test_strength_does_not_worsen_armour_but_ap_does() -> None:
    # S5 great weapon (S3 + 2) against 5+ armour: the classic table gives 5 + 2 = 7 (no
    # save); The Old World gives the great weapon's AP −2: 5 + 2 = 7 too. A hand weapon at
    # S5 (a S5 profile): classic 5 + 2 = 7, The Old World 5+ (no AP).
    strong = "4 3 3 5 3 1 3 1 7"
    tow = fight({"armour": 5}, {"profile": strong})
    assert record_of(tow, "B").blow.armour == 5
    ninth = fight({"armour": 5}, {"profile": strong}, edition="ninth")
    assert record_of(ninth, "B").blow.armour is None
    override = fight({"armour": 5}, {"profile": strong}, saves_worsened_by="strength")
    assert record_of(override, "B").blow.armour is None


def test_the_armour_piercing_rule_is_ap() -> None:
    # 4+ armour, a hand weapon with armour piercing (1): 4 + 1 = 5+.
    combat = fight({"armour": 4}, {"rules": ["armour piercing (1)"]})
    assert record_of(combat, "B").blow.armour == 5


@pytest.mark.parametrize(
    ("troop_type", "armour", "capped"),
    [
        ("infantry", 1, 2),  # infantry and cavalry: 2+ at best
        ("heavy_cavalry", 1, 2),
        ("monstrous_infantry", 2, 3),  # the others: 3+ at best
        ("monster", 1, 3),
        ("infantry", 3, 3),  # a save above the cap is kept
    ],
)
def test_armour_caps(troop_type: str, armour: int, capped: int) -> None:
    a: dict[str, Any] = {"armour": armour, "troop_type": troop_type, "files": 5}
    if troop_type == "monster":
        a.update(models=1, files=1, profile="6 4 0 5 5 6 2 4 6")
    combat = fight(a, {})
    assert record_of(combat, "B").blow.armour == capped
    assert record_of(fight(a, {}, armour_cap=False), "B").blow.armour == armour


def test_parry_improves_armour_to_three_at_best_then_ap() -> None:
    # Light armour 6+ and shield 5+, parry 4+ (regular infantry, hand weapon and shield,
    # from the front); against a halberd's AP −1: 5+. No ward: parry is armour here.
    combat = fight({"armour": 6, "shield": True}, {"weapon": "halberd"})
    blow = record_of(combat, "B").blow
    assert (blow.armour, blow.ward) == (5, None)
    # Heavy armour 5+ and shield 4+: parry 3+; a 3+ (plate and shield) stays 3+.
    assert record_of(fight({"armour": 5, "shield": True}, {}), "B").blow.armour == 3
    assert record_of(fight({"armour": 4, "shield": True}, {}), "B").blow.armour == 3
    # Not from a flank: the shield's 5+ only.
    side = fight({"armour": 6, "shield": True}, {}, arc="left")
    assert record_of(side, "B").blow.armour == 5
    # The older presets' parry: a 6+ ward, the save 5+.
    ward = record_of(fight({"armour": 6, "shield": True}, {}, parry_as="ward"), "B").blow
    assert (ward.armour, ward.ward) == (5, 6)


def test_additional_hand_weapon_drops_the_shield_in_the_old_world() -> None:
    # Requires Two Hands: 6+ armour, no shield bonus, no parry; the ninth preset keeps it.
    a = {"armour": 6, "shield": True, "weapon": "paired_weapons"}
    assert record_of(fight(a, {}), "B").blow.armour == 6
    assert record_of(fight(a, {}, edition="ninth"), "B").blow.armour == 5


# --- the weapons ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("weapon", "troop_type", "charged", "strength", "armour", "bane"),
    [
        # Against 4+ armour (no shield), S3 wielders:
        ("hand_weapon", "infantry", True, 3, 4, 0),
        ("great_weapon", "infantry", False, 5, 6, 1),  # S+2, AP −2: 4 + 2
        ("halberd", "infantry", False, 4, 5, 1),  # S+1, AP −1
        ("halberd", "infantry", True, 4, 6, 1),  # AP −2 against models it charged
        ("flail", "infantry", False, 3, 6, 0),  # AP −2 always; S and AB on the charge
        ("flail", "infantry", True, 5, 6, 1),
        ("morning_star", "infantry", False, 3, 5, 0),  # AP −1; S+1, AB on the charge
        ("morning_star", "infantry", True, 4, 5, 1),
        ("lance", "heavy_cavalry", True, 5, 6, 1),  # S+2, AP −2, AB 1: the charge only
        ("lance", "heavy_cavalry", False, 3, 4, 0),
        ("spear", "heavy_cavalry", True, 4, 5, 0),  # cavalry spear: S+1, AP −1 charging
        ("spear", "heavy_cavalry", False, 3, 4, 0),
        ("spear", "infantry", True, 3, 4, 0),  # thrusting spear: no bonus
    ],
)
def test_weapon_profiles(
    weapon: str, troop_type: str, charged: bool, strength: int, armour: int, bane: int
) -> None:
    b: dict[str, Any] = {"weapon": weapon, "troop_type": troop_type, "charged": charged}
    combat = fight({"armour": 4}, b)
    record = record_of(combat, "B")
    assert (record.strength, record.blow.armour, record.blow.armour_bane) == (
        strength,
        armour,
        bane,
    )


def test_classic_weapon_profiles_in_the_old_world_preset() -> None:
    # weapon_profiles: classic: the halberd's S+1 only, no AP, no Armour Bane: 4+ stays.
    combat = fight({"armour": 4}, {"weapon": "halberd"}, weapon_profiles="classic")
    record = record_of(combat, "B")
    assert (record.strength, record.blow.armour, record.blow.armour_bane) == (4, 4, 0)


def test_the_morning_star_and_armour_bane_belong_to_the_old_world() -> None:
    with pytest.raises(ScenarioError, match="weapon of the oldworld preset"):
        fight({}, {"weapon": "morning_star"}, edition="ninth")
    with pytest.raises(ScenarioError, match="no rule 'armour_bane'"):
        fight({}, {"rules": ["armour bane (1)"]}, edition="eighth")


# --- Armour Bane --------------------------------------------------------------------------


def test_armour_bane_law_by_hand() -> None:
    # To hit 4+ (1/2), to wound 4+: faces 4, 5 wound (2/6) and the 6 (1/6) is a bane six.
    # Save 5+ (unsaved 2/3); after a bane six of 1, 6+ (unsaved 5/6):
    # 1/2 × (2/6 × 2/3 + 1/6 × 5/6) = 1/2 × (8/36 + 5/36) = 13/72.
    blow = Blow(to_hit=4, to_wound=4, armour=5, ward=None, armour_bane=1)
    assert unsaved_chance(blow) == Fraction(13, 72)
    # Bane 2 on 5+: no save on a six: 1/2 × (2/6 × 2/3 + 1/6) = 1/2 × 14/36 = 7/36.
    assert unsaved_chance(Blow(4, 4, armour=5, ward=None, armour_bane=2)) == Fraction(7, 36)
    # Without armour the bane changes nothing: 1/2 × 1/2 = 1/4.
    assert unsaved_chance(Blow(4, 4, armour=None, ward=None, armour_bane=1)) == Fraction(1, 4)
    # A killing blow's six slays instead (no armour): bane adds nothing to it.
    killing = Blow(4, 4, armour=5, ward=None, killing_blow=True, armour_bane=1)
    plain = Blow(4, 4, armour=5, ward=None, killing_blow=True)
    assert blow_law(killing) == blow_law(plain)


def test_armour_bane_die_by_die() -> None:
    # Two blows: hits 5 and 4; wounds 6 (bane) and 4; saves: the bane six saves on 6+ and
    # rolls 5 (fails), the other saves on 5+ and rolls 5 (saved): one unsaved.
    blow = Blow(to_hit=4, to_wound=4, armour=5, ward=None, armour_bane=1)
    rolled = roll_blows(blow, 2, ScriptedDice([5, 4, 6, 4, 5, 5]))
    assert (rolled.hits, rolled.wounds, rolled.unsaved) == (2, 2, 1)
    assert rolled.values == (1, 0)
    # A bane six that leaves no save rolls no armour die: 5+ with bane 2 → none.
    harsh = Blow(to_hit=4, to_wound=4, armour=5, ward=None, armour_bane=2)
    rolled = roll_blows(harsh, 2, ScriptedDice([5, 4, 6, 4, 5]))
    assert (rolled.armour_faces, rolled.values) == ((5,), (1, 0))


@pytest.mark.parametrize(
    "blow",
    [
        Blow(4, 4, armour=5, ward=None, armour_bane=1),
        Blow(3, 3, armour=4, ward=6, armour_bane=2, armour_reroll="failed"),
        Blow(4, 2, armour=6, ward=None, armour_bane=1, wound_reroll="ones", poisoned=True),
    ],
)
def test_armour_bane_rolled_equals_its_law(blow: Blow) -> None:
    # Every path of the dice (one blow with re-rolls, two without) against the closed form.
    attacks = 1 if blow.armour_reroll else 2
    assert check_group(Blows(blow, attacks=attacks, left=3))


# --- §8: the examples' blows ------------------------------------------------------------------


def test_example_a_blows() -> None:
    combat = combat_from(
        {
            "parameters": {"edition": "oldworld"},
            "units": [
                unit_doc("State Troops", "Empire", 20, 5, STATE_TROOPS, weapon="halberd", armour=6),
                unit_doc("Orcs", "Orcs", 15, 5, ORCS, armour=6, shield=True, charged=True),
            ],
            "engagements": [engage("Orcs", "State Troops")],
        }
    )
    orcs = record_of(combat, "Orcs")
    # Orcs at I 2 + 3 = 5, 5 attacks (no Press of Battle: they charged) × 1/2 (WS3 v 3) ×
    # 1/2 (S3 v T3) × 5/6 (light armour 6+, no AP) = 25/24.
    assert (orcs.initiative, orcs.attacks) == (5, 5)
    assert orcs.attacks * unsaved_chance(orcs.blow) == Fraction(25, 24)
    troops = record_of(combat, "State Troops")
    # The State Troops' halberds: S4 v T4 4+; Orc save 5+ (shield), 4+ with Parry, 5+ at
    # AP −1; the halberd's Armour Bane (1) makes a natural 6 to wound face a 6+ save:
    # 1/2 × (2/6 × 2/3 + 1/6 × 5/6) = 13/72 a blow. (The spec's example reckons 2/3 for
    # every wound, 1/6 a blow, leaving the bane sixes out.)
    assert (troops.strength, troops.blow.armour, troops.blow.armour_bane) == (4, 5, 1)
    assert unsaved_chance(troops.blow) == Fraction(13, 72)


def test_example_b_blows() -> None:
    combat = example_b_combat()
    knights = record_of(combat, "Knights")
    # Riders at I 3 + 4 (a flank charge) = 7: 5 × 2/3 (WS4 v 3) × 5/6 (S5 v T3) × 1 (6+ at
    # AP −2: no save) = 25/9.
    assert (knights.initiative, knights.blow.armour) == (7, None)
    assert knights.attacks * unsaved_chance(knights.blow) == Fraction(25, 9)
    troops = record_of(combat, "State Troops")
    # Halberds into the Knights' 2+: 3+ at AP −1, 4+ after a bane six: 1/2 (WS3 v 4) ×
    # (3/6 × 1/3 + 1/6 × 1/2) (S4 v T3 3+: faces 3-5, and the six) = 1/2 × 1/4 = 1/8.
    assert (troops.blow.to_hit, troops.blow.to_wound, troops.blow.armour) == (4, 3, 3)
    assert unsaved_chance(troops.blow) == Fraction(1, 8)


def test_example_c_blows() -> None:
    # The Black Orcs' Choppas and Furious Charge written as what they do on this charge: AP
    # −1 and re-rolled 1s to wound; their hand weapons as an additional hand weapon (A2).
    combat = combat_from(
        {
            "parameters": {"edition": "oldworld"},
            "units": [
                unit_doc(
                    "Black Orcs", "Orcs", 20, 5, "4 4 3 4 4 1 3 1 8",
                    troop_type="heavy_infantry", weapon="paired_weapons", armour=5,
                    charged=True, rules=["armour piercing (1)"],
                    rerolls=[{"roll": "to_wound", "which": "ones"}],
                ),
                unit_doc(
                    "Infernal Guard", "Chaos Dwarfs", 15, 5, "3 4 3 3 4 1 2 1 9",
                    troop_type="heavy_infantry", armour=5, shield=True,
                ),
            ],
            "engagements": [engage("Black Orcs", "Infernal Guard")],
        }
    )  # fmt: skip
    orcs = record_of(combat, "Black Orcs")
    # I 3 + 3 = 6, 5 × A2 = 10 attacks × 1/2 × 7/12 (4+, 1s re-rolled: 1/2 + 1/6 × 1/2) ×
    # 1/2 (Guard 5+, 4+ shield, 3+ Parry, 4+ at AP −1) = 35/24.
    assert (orcs.initiative, orcs.attacks, orcs.blow.armour) == (6, 10, 4)
    assert orcs.attacks * unsaved_chance(orcs.blow) == Fraction(35, 24)
    guard = record_of(combat, "Infernal Guard")
    # Guard: 1/2 × 1/3 (S3 v T4) × 2/3 (Black Orc 5+, no AP) = 1/9 a blow.
    assert unsaved_chance(guard.blow) == Fraction(1, 9)


def black_orcs_against_the_guard(orcs: dict[str, Any] | None = None, **parameters: Any) -> Combat:
    """Example C's fight: 20 Black Orcs with Choppas and Furious Charge (by name) against 15
    Infernal Guard with shields."""
    return combat_from(
        {
            "parameters": {"edition": "oldworld", **parameters},
            "units": [
                unit_doc(
                    "Black Orcs", "Orcs", 20, 5, "4 4 3 4 4 1 3 1 8",
                    troop_type="heavy_infantry", armour=5,
                    rules=["Choppas", "Furious Charge"], **({"charged": True} | (orcs or {})),
                ),
                unit_doc(
                    "Infernal Guard", "Chaos Dwarfs", 15, 5, "3 4 3 3 4 1 2 1 9",
                    troop_type="heavy_infantry", armour=5, shield=True,
                ),
            ],
            "engagements": [engage("Black Orcs", "Infernal Guard")],
        }
    )  # fmt: skip


def test_example_c_blows_with_choppas_and_furious_charge_by_name() -> None:
    orcs = record_of(black_orcs_against_the_guard(), "Black Orcs")
    # On the charge: I 3 + 3 = 6; A 1 + 1 (Furious Charge) = 2, 5 fighting models, no
    # Press of Battle (they charged): 10 attacks. S4 v T4 4+, Choppas re-roll the 1s:
    # 1/2 + 1/6 × 1/2 = 7/12. Guard 5+, 4+ with the shield, 3+ with Parry, 4+ at Choppas'
    # AP −1: 1/2 unsaved. 10 × 1/2 (WS4 v 4) × 7/12 × 1/2 = 35/24, as the example works it.
    assert (orcs.initiative, orcs.attacks, orcs.blow.armour) == (6, 10, 4)
    assert (orcs.blow.wound_reroll, orcs.blow.to_wound) == ("ones", 4)
    assert orcs.attacks * unsaved_chance(orcs.blow) == Fraction(35, 24)


def test_choppas_and_furious_charge_do_nothing_off_the_charge() -> None:
    orcs = record_of(black_orcs_against_the_guard({"charged": False}), "Black Orcs")
    # Not charging: A 1; Press of Battle adds the second rank of heavy infantry: 5 + 5 = 10
    # attacks; no AP (the Guard's 3+ stands) and no re-roll: 10 × 1/2 × 1/2 × 1/3 = 5/6.
    assert (orcs.attacks, orcs.blow.armour, orcs.blow.wound_reroll) == (10, 3, None)
    assert orcs.attacks * unsaved_chance(orcs.blow) == Fraction(5, 6)


def test_choppas_and_furious_charge_take_their_parameters() -> None:
    combat = black_orcs_against_the_guard(
        furious_charge_attacks=2, choppas_ap=0, choppas_wound_reroll="failed"
    )
    orcs = record_of(combat, "Black Orcs")
    # A 1 + 2 = 3 × 5 models = 15 attacks; no AP: 3+; failed wounds re-rolled: 1/2 + 1/2 ×
    # 1/2 = 3/4. 15 × 1/2 × 3/4 × 1/3 = 15/8.
    assert (orcs.attacks, orcs.blow.armour, orcs.blow.wound_reroll) == (15, 3, "failed")
    assert orcs.attacks * unsaved_chance(orcs.blow) == Fraction(15, 8)
    none = record_of(black_orcs_against_the_guard(choppas_wound_reroll="none"), "Black Orcs")
    assert (none.blow.wound_reroll, none.blow.armour) == (None, 4)


def test_choppas_and_furious_charge_are_the_old_worlds() -> None:
    for rule in ("choppas", "furious charge"):
        with pytest.raises(
            ScenarioError, match=f"eighth preset has no rule '{rule.replace(' ', '_')}'"
        ):
            combat_from({"parameters": {"edition": "eighth"},
                         "units": [unit_doc("A", "Red", rules=[rule]), unit_doc("B", "Blue")],
                         "engagements": [engage("B", "A")]})  # fmt: skip


# --- stepping forward -------------------------------------------------------------------------


def example_a_combat(**parameters: Any) -> Combat:
    return combat_from(
        {
            "parameters": {"edition": "oldworld", **parameters},
            "units": [
                unit_doc("State Troops", "Empire", 20, 5, STATE_TROOPS, weapon="halberd", armour=6),
                unit_doc("Orcs", "Orcs", 15, 5, ORCS, armour=6, shield=True, charged=True),
            ],
            "engagements": [engage("Orcs", "State Troops")],
        }
    )


@pytest.mark.parametrize(("slain", "attacks"), [(0, 10), (1, 9), (5, 5), (7, 5)])
def test_models_slain_before_striking_cost_their_attacks(slain: int, attacks: int) -> None:
    # §8 A: 5 in the fighting rank + 5 of Press of Battle. One slain by the Orcs at I5:
    # 5 - 1 + 5 = 9. Seven slain (13 left, 5,5,3): the fighting rank's 5 are lost, the
    # Press of Battle rank still makes its 5.
    combat = example_a_combat()
    state = initial_state(combat)
    if slain:
        state, _ = apply_wounds(state, combat.unit("State Troops"), None, slain)
    conditions = Conditions(slain=(("State Troops", slain),) if slain else ())

    def troops_attacks(fought: Combat) -> int:
        records = strike_records(fought, state, 1, conditions=conditions)
        return next(r.attacks for r in records if r.striker == "State Troops")

    assert troops_attacks(combat) == attacks
    # The older rule: every model left in the fighting rank strikes.
    assert troops_attacks(example_a_combat(stepping_forward=False)) == 10


@pytest.mark.parametrize("seed", range(1, 9))
def test_play_counts_the_models_slain_earlier_in_the_round(seed: int) -> None:
    # Whatever the Orcs' blows at I5 slay (at most their 5 attacks), the State Troops
    # strike at I3 with 10 less that many attacks.
    combat = example_a_combat()
    fought = play_combat(combat, SeededDice(seed)).rounds[0]
    rolls = {roll.record.striker: roll for step in fought.steps for roll in step.rolls}
    slain = rolls["Orcs"].faces.unsaved
    assert rolls["State Troops"].record.attacks == 10 - slain


# --- Impact Hits and Stomp ---------------------------------------------------------------

PLATE_T3 = {"profile": "4 3 3 3 3 1 3 1 7", "armour": 4}
CHARIOT = "4 3 5 5 4 4 3 2 7"  # S 5


def records(combat: Combat, striker: str, kind: str) -> list[StrikeRecord]:
    state = initial_state(combat)
    return [r for r in strike_records(combat, state, 1) if r.striker == striker and r.kind == kind]


def test_impact_hits_of_a_heavy_chariot_pierce_two() -> None:
    # S 5 against T 3 wounds on 2+ (5/6). Plate 4+ at AP -2 saves on 6+ (fails 5/6):
    # 5/6 x 5/6 = 25/36 a hit. A plain chariot's hits meet the 4+ (fails 1/2): 5/6 x 1/2 = 5/12.
    def hit(troop: str, **parameters: Any) -> Fraction:
        combat = fight(
            PLATE_T3,
            {"models": 1, "files": 1, "troop_type": troop, "profile": CHARIOT,
             "charged": True, "rules": ["impact hits (3)"]},
            **parameters,
        )  # fmt: skip
        (record,) = records(combat, "B", "impact hits")
        return unsaved_chance(record.blow)

    assert hit("heavy_chariot") == Fraction(25, 36)
    assert hit("chariot") == Fraction(5, 12)
    assert hit("heavy_chariot", impact_and_stomp="classic") == Fraction(5, 12)


@pytest.mark.parametrize(("distance", "hits"), [(None, 1), (2, 0), (3, 1), (8, 1)])
def test_impact_hits_need_a_charge_of_three_inches(distance: int | None, hits: int) -> None:
    combat = fight(
        {},
        {"models": 1, "files": 1, "troop_type": "chariot", "profile": CHARIOT,
         "charged": True, "charge_distance": distance, "rules": ["impact hits (D3)"]},
    )  # fmt: skip
    assert len(records(combat, "B", "impact hits")) == hits
    classic = fight(
        {},
        {"models": 1, "files": 1, "troop_type": "chariot", "profile": CHARIOT,
         "charged": True, "charge_distance": distance, "rules": ["impact hits (D3)"]},
        impact_and_stomp="classic",
    )  # fmt: skip
    assert len(records(classic, "B", "impact hits")) == 1  # the older presets: any charge


def test_stomp_reaches_all_but_monsters_and_a_monsters_pierces_two() -> None:
    monster = {"models": 1, "files": 1, "troop_type": "monster", "profile": CHARIOT,
               "rules": ["stomp (D6)"]}  # fmt: skip
    knights = {"troop_type": "heavy_cavalry", "profile": "4 3 3 3 3 1 3 1 7", "armour": 4}
    # Against cavalry (T 3, 4+): S 5 wounds on 2+ (5/6), AP -2 makes the 4+ a 6+ (fails 5/6).
    (record,) = records(fight(knights, monster), "B", "stomp")
    assert unsaved_chance(record.blow) == Fraction(25, 36)
    # The older presets stomp infantry only; nobody stomps a monster in The Old World.
    assert records(fight(knights, monster, impact_and_stomp="classic"), "B", "stomp") == []
    other_monster = {"models": 1, "files": 1, "troop_type": "monster", "profile": CHARIOT}
    assert records(fight(other_monster, monster), "B", "stomp") == []
    # Monstrous infantry stomp without the pierce: the 4+ stands (fails 1/2): 5/6 x 1/2.
    ogres = {**monster, "troop_type": "monstrous_infantry"}
    (record,) = records(fight(knights, ogres), "B", "stomp")
    assert unsaved_chance(record.blow) == Fraction(5, 12)


# --- Strike First and Strike Last ----------------------------------------------------------


@pytest.mark.parametrize(
    ("b", "initiative"),
    [
        ({"weapon": "great_weapon"}, 1),  # Strike Last: I 1
        ({"weapon": "great_weapon", "charged": True, "charge_distance": 2}, 1 + 2),
        ({"rules": ["always strikes first"]}, 10),
        ({"rules": ["always strikes first"], "charged": True, "charge_distance": 2}, 10),  # ≤ 10
        # Both: they cancel, I 3 + 2 inches.
        ({"weapon": "great_weapon", "rules": ["always strikes first"], "charged": True,
          "charge_distance": 2}, 3 + 2),
    ],
)  # fmt: skip
def test_strike_first_and_last_set_initiative_before_the_charge(
    b: dict[str, Any], initiative: int
) -> None:
    assert record_of(fight({}, b), "B").initiative == initiative


def test_the_older_presets_strike_at_fixed_steps() -> None:
    charging = {"weapon": "great_weapon", "charged": True, "charge_distance": 2}
    assert record_of(fight({}, charging, strike_first_last="steps"), "B").initiative == 0


def test_frenzy_adds_an_attack_only_on_the_charge() -> None:
    # 20 models 5 wide, A 1; Press of Battle gives the second rank 1 attack each, but not to a
    # unit that charged. Charging: 5 × (1 + 1 frenzy) = 10. Charged, not charging: 5 × 1 + 5 = 10
    # without frenzy's attack (with it, 5 × 2 + 5 = 15, as the older presets count).
    charging = fight({}, {"rules": ["frenzy"], "charged": True})
    assert record_of(charging, "B").attacks == 5 * 2
    charged = fight({"charged": True}, {"rules": ["frenzy"]})
    assert record_of(charged, "B").attacks == 5 * 1 + 5
    always = fight({"charged": True}, {"rules": ["frenzy"]}, frenzy_attacks="always")
    assert record_of(always, "B").attacks == 5 * 2 + 5


# --- who fights to a flank: the largest rank or file, and Press of Battle there -----------


def example_b_combat(knights: dict[str, Any] | None = None, **parameters: Any) -> Combat:
    """§8 B: 5 Knights (lances, 2+) charge 7" into the left flank of 20 State Troops;
    ``knights`` adds keys to the Knights' entry."""
    return combat_from(
        {
            "parameters": {"edition": "oldworld", **parameters},
            "units": [
                unit_doc(
                    "Knights", "Empire", 5, 5, "4 4 3 3 3 1 3 1 8",
                    troop_type="heavy_cavalry", weapon="lance", armour=2, charged=True,
                    charge_distance=7, **(knights or {}),
                ),
                unit_doc("State Troops", "Rebels", 20, 5, STATE_TROOPS, weapon="halberd", armour=6),
            ],
            "engagements": [engage("Knights", "State Troops", "left")],
        }
    )  # fmt: skip


@pytest.mark.parametrize(
    ("parameters", "attacks"),
    [
        # §8 B: 16 State Troops left (5,5,5,1: 4 ranks of a width of 5) fight to their flank
        # with their largest rank or file, 5, and a Press of Battle file of 4; the 4 slain
        # before they strike cost 4: 5 + 4 - 4 = 5.
        ({}, 5 + 4 - 4),
        # press_of_battle_arcs: front: no file of Press of Battle there: 5 - 4 = 1.
        ({"press_of_battle_arcs": "front"}, 5 - 4),
        # The older presets' count: a file as deep as the ranks, 4; 4 - 4 + 4 = 4.
        ({"flank_fighters": "ranks"}, 4 - 4 + 4),
    ],
)
def test_a_flank_fights_with_its_largest_rank_or_file(
    parameters: dict[str, Any], attacks: int
) -> None:
    combat = example_b_combat(**parameters)
    state, _ = apply_wounds(initial_state(combat), combat.unit("State Troops"), None, 4)
    conditions = Conditions(slain=(("State Troops", 4),))
    records = strike_records(combat, state, 1, conditions=conditions)
    assert next(r.attacks for r in records if r.striker == "State Troops") == attacks


# --- mounts -----------------------------------------------------------------------------

HORSES = {"name": "horses", "profile": "8 3 0 3 3 1 3 1 5"}


def test_example_b_riders_and_horses() -> None:
    combat = example_b_combat(knights={"mount": HORSES})
    riders = record_of(combat, "Knights")
    horses = record_of(combat, "Knights (horses)")
    # Riders and horses both at I 3 + 4 = 7. Horses: 5 × 1/2 (WS3 v 3) × 1/2 (S3 v T3) × 5/6
    # (light armour 6+) = 25/24; with the riders' 25/9 the Knights cause 275/72.
    assert (riders.initiative, horses.initiative) == (7, 7)
    assert horses.attacks * unsaved_chance(horses.blow) == Fraction(25, 24)
    total = riders.attacks * unsaved_chance(riders.blow) + horses.attacks * unsaved_chance(
        horses.blow
    )
    assert total == Fraction(275, 72)


def test_mounts_strike_from_the_fighting_rank_only() -> None:
    # 10 mounted models 5 wide in front: the riders' front rank 5 and the second rank's 5
    # (Press of Battle is infantry's: cavalry supports with nobody in oldworld), the horses 5.
    combat = fight({}, {"models": 10, "troop_type": "cavalry", "mount": HORSES}, edition="ninth")
    assert record_of(combat, "B (horses)").attacks == 5
    # Their own rules: poisoned horses' sixes to hit wound.
    venom = fight({}, {"troop_type": "cavalry", "mount": {**HORSES, "rules": ["poisoned attacks"]}})
    assert record_of(venom, "B (horses)").blow.poisoned
    assert not record_of(venom, "B").blow.poisoned
