"""Each of the seed's seven steps, with scripted faces and the arithmetic written out.

Dice order (docs/rules/d100.md, "Order of the dice"): step 1 assessment then loyalty per
unit; flee rolls of effects; per attack: target die (only with a choice), hit, defence,
damage, damage reduction, morale; finally the loot d100.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest

from fracas.core.dice import ScriptedDice
from fracas.rulesets.d100 import Battle, D100Params, D100Ruleset, open_ended
from fracas.rulesets.d100.play import (
    AssessmentEvent,
    CasualtyEvent,
    FleeRollEvent,
    NullifyEvent,
    draw_loot,
    value_of_goods,
)
from fracas.rulesets.d100.scenario import Unit

from .conftest import attacks, bonus, idle, play

Factory = Callable[..., Battle]


def test_open_ended_98_then_97_then_12_is_207() -> None:
    faces = open_ended(ScriptedDice([98, 97, 12]), from_face=96)
    assert faces == (98, 97, 12)
    assert sum(faces) == 98 + 97 + 12 == 207


def test_open_ended_stops_below_96_and_at_the_limit() -> None:
    assert open_ended(ScriptedDice([95]), from_face=96) == (95,)
    # 96 is the lowest face that rolls again; a limit of 1 allows one extra die only.
    assert open_ended(ScriptedDice([96, 100]), from_face=96, limit=1) == (96, 100)


def test_open_ended_roll_in_a_battle_totals_every_face(battle_of: Factory) -> None:
    battle = battle_of([idle("Scouts", dangerous_missions=6)], [idle("Guards")])
    # 98 + 97 + 12 = 207, − 25 = 182 ≥ 75: the unit holds.
    result = play(battle, [98, 97, 12])
    event = result.events[0]
    assert isinstance(event, AssessmentEvent)
    assert event.roll is not None
    assert event.roll.faces == (98, 97, 12)
    assert event.roll.total == 207 - 25 == 182
    assert event.fate is None


# Step 1: morale assessment ------------------------------------------------------------


def test_six_penalties_rolling_90_bottles_out(battle_of: Factory) -> None:
    battle = battle_of([idle("Scouts", dangerous_missions=6)], [idle("Guards")])
    # 90 − 25 = 65 < 75: bottles out; loyalty 30 (no bonus) is below 50 but above 25.
    result = play(battle, [90, 30])
    event = result.events[0]
    assert isinstance(event, AssessmentEvent)
    assert event.roll
    assert event.loyalty
    assert event.roll.total == 90 - 25 == 65
    assert event.loyalty.total == 30
    assert event.fate == "disbanded"
    assert result.fates[0] == "disbanded"


@pytest.mark.parametrize(
    ("loyalty_face", "fate"),
    [
        (50, "bottled_out"),  # 50 ≥ 50: stays loyal but leaves the battle
        (49, "disbanded"),  # 26–49: disbands, leaving its equipment
        (26, "disbanded"),
        (25, "disbanded_with_equipment"),  # 25 or less: takes its equipment
        (1, "disbanded_with_equipment"),
    ],
)
def test_loyalty_check_three_outcomes(battle_of: Factory, loyalty_face: int, fate: str) -> None:
    battle = battle_of([idle("Scouts", dangerous_missions=6)], [idle("Guards")])
    result = play(battle, [10, loyalty_face])
    assert result.fates[0] == fate


def test_loyalty_gets_throne_room_and_ten_per_napoleon(battle_of: Factory) -> None:
    battle = battle_of(
        [idle("Scouts", dangerous_missions=7)],
        [idle("Guards")],
        attacker_side={"lair": {"loyalty_bonus": 15}, "napoleon": 2},
    )
    # Loyalty 20 + 15 (Throne Room) + 2 × 10 (Napoleon) = 55 ≥ 50: stays loyal.
    result = play(battle, [10, 20])
    event = result.events[0]
    assert isinstance(event, AssessmentEvent)
    assert event.loyalty
    assert event.loyalty.total == 20 + 15 + 2 * 10 == 55
    assert bonus(event.loyalty.bonuses, "Napoleon") == 20
    assert result.fates[0] == "bottled_out"


def test_assessment_counts_morale_bonuses(battle_of: Factory) -> None:
    battle = battle_of(
        [idle("Scouts", dangerous_missions=6, morale_bonus=5)],
        [idle("Guards")],
        attacker_side={"lair": {"morale_bonus": 5}},
    )
    # 90 − 25 + 5 (unit) + 5 (Throne Room) = 75: not below 75, the unit holds.
    result = play(battle, [90])
    event = result.events[0]
    assert isinstance(event, AssessmentEvent)
    assert event.roll
    assert event.roll.total == 90 - 25 + 5 + 5 == 75
    assert result.fates[0] == "fought"


def test_five_penalties_is_not_more_than_five(battle_of: Factory) -> None:
    battle = battle_of([idle("Scouts", dangerous_missions=5)], [idle("Guards")])
    result = play(battle, [])  # no dice at all: nobody is assessed, nobody strikes
    assert not [e for e in result.events if isinstance(e, AssessmentEvent)]
    assert result.outcome == "withdraw"


def test_orcs_never_check(battle_of: Factory) -> None:
    battle = battle_of([idle("Orc Band", race="Orc", dangerous_missions=9)], [idle("Guards")])
    result = play(battle, [])
    event = result.events[0]
    assert isinstance(event, AssessmentEvent)
    assert event.exempt
    assert event.roll is None
    assert result.fates[0] == "fought"


# Step 2: roles ------------------------------------------------------------------------

RIDERS = {
    "name": "Riders",
    "pax": 10,
    "speed": 2,
    "offense": 2,
    "equipment": ["melee_weapon", "horses"],
}
GUARDS = {"name": "Guards", "pax": 10, "defense": 1, "equipment": ["shield"], "melee_attacks": 0}


def test_raider_is_mounted_and_lair_defender_gets_structures(battle_of: Factory) -> None:
    battle = battle_of(
        [RIDERS],
        [GUARDS],
        defender_side={"lair": {"structures": ["defensive_structure"]}},
        parameters={"round_limit": 1},
    )
    # Attack 50 + 20 (offense 2 × 10) + 10 (melee weapon) + 10 (Mounted) = 90.
    # Defence 40 + 10 (defense 1 × 10) + 10 (shield) + 10 (defensive structure) = 70 → hit.
    # Damage 30 + 10 (melee weapon) = 40 ≤ damage reduction 45 → no damage.
    result = play(battle, [50, 40, 30, 45])
    [event] = attacks(result)
    assert event.attack.total == 50 + 20 + 10 + 10 == 90
    assert bonus(event.attack.bonuses, "Mounted") == 10
    assert event.defence.total == 40 + 10 + 10 + 10 == 70
    assert bonus(event.defence.bonuses, "Defensive structure") == 10
    assert event.hit
    assert not event.wounded
    assert result.outcome == "withdraw"


def test_scouted_in_the_open_defender_has_no_structures(battle_of: Factory) -> None:
    battle = battle_of(
        [RIDERS],
        [GUARDS],
        defender_side={"location": "open", "lair": {"structures": ["defensive_structure"]}},
        parameters={"round_limit": 1},
    )
    # Defence 40 + 10 + 10 = 60, no structure; attack 90 still hits; damage 40 ≤ 45.
    result = play(battle, [50, 40, 30, 45])
    [event] = attacks(result)
    assert event.defence.total == 40 + 10 + 10 == 60


def test_defender_gets_no_mounted_bonus(battle_of: Factory) -> None:
    riders = {**RIDERS, "name": "Home Riders"}
    battle = battle_of(
        [idle("Raiders Foot")],
        [riders],
        parameters={"round_limit": 1},
    )
    # The defending riders attack 50 + 20 + 10 = 80: Mounted only counts when attacking.
    result = play(battle, [50, 90])
    [event] = attacks(result)
    assert event.attack.total == 50 + 20 + 10 == 80
    assert bonus(event.attack.bonuses, "Mounted") == 0


def test_challenge_is_attacking_and_defending(battle_of: Factory) -> None:
    battle = battle_of(
        [{**RIDERS, "traits": ["shieldwall"]}],
        [GUARDS],
        attacker_side={"action": "challenge"},
        defender_side={"action": "defend"},
        effects={
            "shieldwall": {
                "trigger": "when_defending",
                "scope": "self",
                "roll": "attack",
                "bonus": 5,
            }
        },
        parameters={"round_limit": 1},
    )
    # The challenger gets both Mounted (+10, attacking) and Shieldwall (+5, defending):
    # 50 + 20 + 10 + 10 + 5 = 95.
    result = play(battle, [50, 40, 30, 45])
    [event] = attacks(result)
    assert event.attack.total == 50 + 20 + 10 + 10 + 5 == 95
    assert battle.sides[0].attacker
    assert battle.sides[0].defender


# Step 3: total all bonuses ------------------------------------------------------------


def test_overwhelm_five_against_three_is_plus_eight(battle_of: Factory) -> None:
    big = [idle(f"R{i}") for i in range(4)] + [{"name": "Striker", "pax": 10, "speed": 1}]
    small = [idle(f"K{i}") for i in range(3)]
    battle = battle_of(
        big, small, parameters={"round_limit": 1}, defender_side={"targeting": ["Striker"]}
    )
    # 5 − 3 = 2 units more: +4 × 2 = +8 on every combat roll of the Raiders only.
    # The Striker picks one of 3 targets (die face 2 → K1): attack 30 + 8 = 38 vs
    # defence 60 → miss.
    result = play(battle, [2, 30, 60])
    assert result.counts == (5, 3)
    assert result.overwhelm == 4 * (5 - 3) == 8
    [event] = attacks(result)
    assert event.target == "K1"
    assert bonus(event.attack.bonuses, "Overwhelm") == 8
    assert bonus(event.defence.bonuses, "Overwhelm") == 0
    assert event.attack.total == 30 + 8


def test_overwhelm_on_defence_damage_and_morale_too(battle_of: Factory) -> None:
    battle = battle_of(
        [idle("A1"), idle("A2")],
        [{"name": "Lone", "pax": 10}],
        parameters={"round_limit": 1},
    )
    # Lone strikes A1 (die 1 of 2): attack 80 vs defence 20 + 4 = 24 → hit;
    # damage 70 vs reduction 10 + 4 = 14 → wounds; morale 71 + 4 = 75 → no loss.
    result = play(battle, [1, 80, 20, 70, 10, 71])
    [event] = attacks(result)
    assert event.defence.total == 20 + 4
    assert event.reduction is not None
    assert event.reduction.total == 10 + 4
    assert event.morale is not None
    assert event.morale.total == 71 + 4 == 75
    assert event.pax_lost == 0


def test_stats_scale_with_pax_and_round_down(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "Tired", "pax": 7, "offense": 3, "speed": 1}],
        [idle("Guards")],
        parameters={"round_limit": 1},
    )
    # Offense 3 × 10 × 7/10 = 21.
    result = play(battle, [10, 90])
    [event] = attacks(result)
    assert bonus(event.attack.bonuses, "Offense") == 3 * 10 * 7 // 10 == 21


def test_mind_leech_flee_rolls_in_step_three(battle_of: Factory) -> None:
    battle = battle_of(
        [idle("Brave"), idle("Timid")],
        [idle("Mage")],
        defender_side={"effects": ["mind_leech"]},
    )
    # Each raider rolls: Brave 50 (not below 50: stays), Timid 49 (< 50: flees).
    result = play(battle, [50, 49])
    rolls = [e for e in result.events if isinstance(e, FleeRollEvent)]
    assert [(e.unit, e.roll.total, e.fled) for e in rolls] == [
        ("Brave", 50, False),
        ("Timid", 49, True),
    ]
    assert result.fates[:2] == ("fought", "fled")
    # Counted after the flight: 1 v 1, so no Overwhelm.
    assert result.counts == (1, 1)
    assert result.overwhelm == 0


def test_nullify_removes_the_units_traits(battle_of: Factory) -> None:
    battle = battle_of(
        [RIDERS],
        [GUARDS],
        defender_side={"effects": ["dispel"]},
        effects={"dispel": {"trigger": "assessment", "scope": "enemy_side", "nullify": True}},
        parameters={"round_limit": 1},
    )
    # Mounted comes from the riders' horses and is nullified: attack 50 + 20 + 10 = 80.
    result = play(battle, [50, 40, 30, 45])
    assert [e.unit for e in result.events if isinstance(e, NullifyEvent)] == ["Riders"]
    [event] = attacks(result)
    assert event.attack.total == 50 + 20 + 10 == 80


# Step 4: start-of-combat and per-round effects ----------------------------------------


def test_start_of_combat_bonus_and_per_round_flee(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "Drummers", "pax": 10, "speed": 1}],
        [idle("Guards")],
        attacker_side={"effects": ["war_drums"]},
        defender_side={"effects": ["terror"]},
        effects={
            "war_drums": {
                "trigger": "start_of_combat",
                "scope": "own_side",
                "roll": "attack",
                "bonus": 7,
            },
            "terror": {"trigger": "per_round", "scope": "enemy_side", "flee_below": 20},
        },
        parameters={"round_limit": 2},
    )
    # Round 1: terror flee roll 60 ≥ 20 stays; attack 10 + 7 = 17 vs defence 50 → miss.
    # Round 2: terror flee roll 19 < 20: the drummers flee; the Keep wins.
    result = play(battle, [60, 10, 50, 19])
    [event] = attacks(result)
    assert event.attack.total == 10 + 7
    flee = [e for e in result.events if isinstance(e, FleeRollEvent)]
    assert [(e.round, e.fled) for e in flee] == [(1, False), (2, True)]
    assert result.winner == 1
    assert result.fates[0] == "fled"


# Step 5: ranged combat ----------------------------------------------------------------

ARCHER = {"pax": 1, "speed": 3, "equipment": ["ranged_weapon"], "melee_attacks": 0}


def test_only_ranged_weapons_shoot(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "Bows", **ARCHER}],
        [idle("Guards", speed=9)],
        parameters={"round_limit": 1},
    )
    # Only Bows shoot: ranged attack 40 + 10 (ranged weapon) = 50 vs defence 60 → miss.
    result = play(battle, [40, 60])
    [event] = attacks(result)
    assert event.phase == "ranged"
    assert event.attacker == "Bows"
    assert event.attack.total == 40 + 10


def test_equal_speed_archers_shoot_simultaneously(battle_of: Factory) -> None:
    battle = battle_of([{"name": "A", **ARCHER}], [{"name": "B", **ARCHER}])
    # Each hits (60 + 10 > 20), wounds (50 > 10) and breaks (morale 10 ≤ 25: −2 PAX, flee):
    # both shots are rolled before any casualty, so both 1-PAX units are killed: a draw.
    result = play(battle, [60, 20, 50, 10, 10, 60, 20, 50, 10, 10])
    assert [e.attacker for e in attacks(result)] == ["A", "B"]
    assert result.fates == ("killed", "killed")
    assert result.pax == (0, 0)
    assert result.outcome == "draw"


def test_faster_archer_shoots_first(battle_of: Factory) -> None:
    battle = battle_of([{"name": "A", **ARCHER, "speed": 4}], [{"name": "B", **ARCHER}])
    # A (speed 4) kills B before B (speed 3) may shoot; the Raiders win.
    result = play(battle, [60, 20, 50, 10, 10])
    assert [e.attacker for e in attacks(result)] == ["A"]
    assert result.winner == 0


def test_multiple_ranged_attacks_all_at_once(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "Volley", **ARCHER, "ranged_attacks": 3}],
        [idle("Guards")],
        parameters={"round_limit": 1},
    )
    # Three ranged attacks in step 5, all misses (10 + 10 < 90).
    result = play(battle, [10, 90, 10, 90, 10, 90])
    events = attacks(result)
    assert len(events) == 3
    assert {e.phase for e in events} == {"ranged"}


# Step 6: melee ------------------------------------------------------------------------


def test_melee_stops_at_the_round_limit_and_the_attacker_withdraws(
    battle_of: Factory,
) -> None:
    battle = battle_of([{"name": "A", "pax": 10}], [idle("B")])
    # Five rounds (the default limit) of one miss each (10 vs 90), then a withdrawal.
    result = play(battle, [10, 90] * 5)
    assert result.rounds == 5
    assert result.outcome == "withdraw"
    assert result.winner is None
    assert result.loot is None


@pytest.mark.parametrize(
    ("morale_face", "pax_lost", "flees"),
    [
        (75, 0, False),  # ≥ 75: no loss
        (74, 1, False),  # 50–74: one PAX
        (50, 1, False),
        (49, 2, False),  # 26–49: two PAX
        (26, 2, False),
        (25, 2, True),  # ≤ 25: two PAX and flight
    ],
)
def test_morale_check_table(
    battle_of: Factory, morale_face: int, pax_lost: int, flees: bool
) -> None:
    battle = battle_of([{"name": "A", "pax": 10}], [idle("B")], parameters={"round_limit": 1})
    result = play(battle, [80, 20, 70, 10, morale_face])
    [event] = attacks(result)
    assert (event.pax_lost, event.flees) == (pax_lost, flees)
    assert result.pax[1] == 10 - pax_lost
    assert result.fates[1] == ("fled" if flees else "fought")


def test_morale_penalty_four_per_pax_lost(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10}],
        [idle("B", pax=8)],
        parameters={"round_limit": 1},
    )
    # B started at 8 PAX and has lost none in this battle: no penalty. Then a second
    # battle state: B at 10 loses 2 in round 1, and in round 2 its morale 80 − 2 × 4 = 72.
    result = play(battle, [80, 20, 70, 10, 80])
    [event] = attacks(result)
    assert event.morale is not None
    assert bonus(event.morale.bonuses, "PAX lost") == 0
    battle = battle_of([{"name": "A", "pax": 10}], [idle("B")], parameters={"round_limit": 2})
    result = play(battle, [80, 20, 70, 10, 30, 80, 20, 70, 10, 80])
    second = attacks(result)[1]
    assert second.morale is not None
    assert second.morale.total == 80 - 2 * 4 == 72
    assert second.pax_lost == 1
    assert result.pax[1] == 10 - 2 - 1


def test_tie_goes_to_the_defender(battle_of: Factory) -> None:
    battle = battle_of([{"name": "A", "pax": 10}], [idle("B")], parameters={"round_limit": 1})
    result = play(battle, [40, 40])
    [event] = attacks(result)
    assert event.attack.total == event.defence.total == 40
    assert not event.hit
    assert event.damage is None


def test_damage_must_beat_damage_reduction(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10}],
        [idle("B", equipment=["armour_3"])],
        parameters={"round_limit": 1},
    )
    # Armour 3: +5 defence, +20 damage reduction. Hit 80 > 20 + 5; damage 50 vs 30 + 20 =
    # 50: a tie, no damage.
    result = play(battle, [80, 20, 50, 30])
    [event] = attacks(result)
    assert event.reduction is not None
    assert event.reduction.total == 30 + 20
    assert event.hit
    assert not event.wounded
    assert event.morale is None


def test_priority_targets_and_random_targets(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10}],
        [idle("B1"), idle("B2"), idle("B3")],
        attacker_side={"targeting": ["B3"]},
        parameters={"round_limit": 1, "overwhelm_bonus": 0},
    )
    result = play(battle, [10, 90])  # no target die: the list names B3
    assert attacks(result)[0].target == "B3"
    battle = battle_of(
        [{"name": "A", "pax": 10}],
        [idle("B1"), idle("B2"), idle("B3")],
        parameters={"round_limit": 1},
    )
    result = play(battle, [3, 10, 90])  # uniform: die face 3 of 3 picks B3
    assert attacks(result)[0].target == "B3"


def test_casualties_of_a_group_are_applied_together(battle_of: Factory) -> None:
    battle = battle_of([{"name": "A", "pax": 2}], [{"name": "B", "pax": 2}])
    # Same speed: A and B both strike; B's strike is rolled although A's killed it (2 − 2).
    result = play(battle, [80, 20, 70, 10, 30, 80, 20, 70, 10, 30])
    casualties = [e for e in result.events if isinstance(e, CasualtyEvent)]
    assert [(e.unit, e.pax, e.fate) for e in casualties] == [("A", 0, "killed"), ("B", 0, "killed")]
    assert result.outcome == "draw"


# Step 7: winner and loot --------------------------------------------------------------


def make_unit(name: str, pax: int, max_pax: int, cost: int, upkeep: int) -> Unit:
    return Unit(
        0, 1, name, "human", pax, max_pax, 0, 0, 0, 0, 0, 0, (), (), False, 0, 1, cost, upkeep
    )


def test_value_of_goods_killed_and_fled() -> None:
    killed = make_unit("Killed", 10, 10, 100, 20)
    fled = make_unit("Fled", 10, 10, 40, 10)
    # Killed: 100 % × (100 + 20) = 120; fled at 4/10 PAX: 4/10 × (40 + 10) = 20; total 140.
    shares = value_of_goods((killed, fled), (0, 4), ("killed", "fled"))
    assert [s.value for s in shares] == [120, 20]
    assert sum(s.value for s in shares) == 120 + 20 == 140


def test_loot_is_drawn_from_the_value() -> None:
    params = D100Params()
    # Face 80 → row up to 90: 50 % gold, 25 % resources, 25 % items of 140.
    loot = draw_loot(Fraction(140), params, ScriptedDice([80]))
    assert (loot.gold, loot.resources, loot.items) == (Fraction(70), 35, 35)
    # Face 40 → all gold.
    assert draw_loot(Fraction(140), params, ScriptedDice([40])).gold == 140


def test_winner_takes_goods_of_killed_and_fled_enemies(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "Hero", "pax": 10, "speed": 1, "melee_attacks": 2}],
        [
            idle("Militia", pax=2, recruitment_cost=100, upkeep_cost=20),
            idle("Levy", pax=6, recruitment_cost=40, upkeep_cost=10),
        ],
        parameters={"overwhelm_bonus": 0},
    )
    # Attack 1 on Militia (die 1): morale 30 → −2 PAX: 2 − 2 = 0, killed.
    # Attack 2 on Levy (die 2): morale 25 → −2 PAX and flees: 6 − 2 = 4 left of 10.
    # Goods: 120 + 4/10 × 50 = 140; loot face 10 → all gold.
    result = play(
        battle,
        [1, 80, 20, 70, 10, 30, 2, 80, 20, 70, 10, 25, 10],
    )
    assert result.winner == 0
    assert result.fates[1:] == ("killed", "fled")
    assert result.goods_value == 120 + Fraction(4, 10) * 50 == 140
    assert result.loot is not None
    assert result.loot.gold == 140


def test_no_goods_for_your_own_dead(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 1, "recruitment_cost": 500}, {"name": "A2", "pax": 10}],
        [{"name": "B", "pax": 1, "recruitment_cost": 30}],
        attacker_side={"targeting": ["B"]},
        defender_side={"targeting": ["A"]},
        parameters={"overwhelm_bonus": 0},
    )
    # All strike together: A and A2 hit B, B hits A; both B and A die. Raiders win with A2;
    # goods are only B's 30, never A's 500. Loot face 1 → all gold.
    faces = [80, 20, 70, 10, 10] * 3 + [1]
    result = play(battle, faces)
    assert result.winner == 0
    assert result.fates == ("killed", "fought", "killed")
    assert result.goods_value == 30


def test_summarize_is_flat(battle_of: Factory) -> None:
    ruleset = D100Ruleset()
    battle = battle_of([idle("Scouts", dangerous_missions=6)], [idle("Guards")])
    played = ruleset.play(battle, ScriptedDice([90, 30]))
    assert ruleset.summarize(battle, played) == {
        "winner": "Keep",
        "rounds": 0,
        "pax.Scouts": 10,
        "fate.Scouts": "disbanded",
        "pax.Guards": 10,
        "fate.Guards": "fought",
        "goods": 0,
    }


def test_faster_melee_unit_strikes_first(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "Slow", "pax": 10, "speed": 1}],
        [{"name": "Quick", "pax": 10, "speed": 5}],
    )
    # Quick (speed 5) strikes first and makes Slow flee (morale 10 ≤ 25): Slow never strikes.
    result = play(battle, [80, 20, 70, 10, 10])
    assert [e.attacker for e in attacks(result)] == ["Quick"]
    assert result.fates == ("fled", "fought")
    assert result.winner == 1
    assert result.rounds == 1


def test_a_units_aura_leaves_with_it(battle_of: Factory) -> None:
    battle = battle_of(
        [
            idle("Captain", dangerous_missions=6, traits=["banner", "howl"]),
            {"name": "Spears", "pax": 10},
        ],
        [idle("Guards")],
        effects={
            "banner": {
                "trigger": "when_attacking",
                "scope": "own_side",
                "roll": "attack",
                "bonus": 5,
            },
            "howl": {"trigger": "assessment", "scope": "enemy_side", "flee_below": 50},
        },
        parameters={"round_limit": 1},
    )
    # Captain: assessment 10 − 25 = −15 < 75, bottles out; loyalty 60 ≥ 50: leaves loyal.
    # Gone with him: his Howl (no flee roll for the Guards) and his Banner (the Spears
    # attack 50 with no +5). 1 v 1: no Overwhelm. Defence 90 → miss.
    result = play(battle, [10, 60, 50, 90])
    assert result.fates[0] == "bottled_out"
    assert not [e for e in result.events if isinstance(e, FleeRollEvent)]
    [event] = attacks(result)
    assert event.attack.total == 50
    assert bonus(event.attack.bonuses, "banner") == 0


def test_a_units_aura_counts_while_it_is_present(battle_of: Factory) -> None:
    battle = battle_of(
        [idle("Captain", traits=["banner"]), {"name": "Spears", "pax": 10}],
        [idle("Guards"), idle("Wall")],
        defender_side={"targeting": ["Spears"]},
        attacker_side={"targeting": ["Guards"]},
        effects={
            "banner": {
                "trigger": "when_attacking",
                "scope": "own_side",
                "roll": "attack",
                "bonus": 5,
            },
        },
        parameters={"round_limit": 1},
    )
    # 2 v 2, no Overwhelm: the Spears attack 50 + 5 (banner) = 55 vs defence 90 → miss.
    result = play(battle, [50, 90])
    [event] = attacks(result)
    assert event.attack.total == 50 + 5


def test_no_start_of_combat_rolls_when_one_side_is_gone(battle_of: Factory) -> None:
    battle = battle_of(
        [idle("Scouts", dangerous_missions=6)],
        [idle("Guards")],
        defender_side={"effects": ["dread"]},
        effects={"dread": {"trigger": "start_of_combat", "scope": "enemy_side", "flee_below": 30}},
    )
    # Scouts: 90 − 25 = 65, bottle out; loyalty 30: disband. No enemy is left, so combat
    # never begins and Dread rolls nothing (a third face would be left unused).
    result = play(battle, [90, 30])
    assert result.winner == 1
    assert not [e for e in result.events if isinstance(e, FleeRollEvent)]


def test_random_target_die_is_recorded(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10}],
        [idle("B1"), idle("B2"), idle("B3")],
        parameters={"round_limit": 1, "overwhelm_bonus": 0},
    )
    # Die face 2 of 3 (candidates in scenario order B1, B2, B3) picks B2.
    result = play(battle, [2, 10, 90])
    [event] = attacks(result)
    assert event.target == "B2"
    assert event.target_roll == (2, ("B1", "B2", "B3"))
    battle = battle_of(
        [{"name": "A", "pax": 10}],
        [idle("B1")],
        parameters={"round_limit": 1},
    )
    [event] = attacks(play(battle, [10, 90]))
    assert event.target_roll is None  # one candidate: no die


def test_loyalty_bands_read_the_total_not_the_die(battle_of: Factory) -> None:
    battle = battle_of(
        [idle("Scouts", dangerous_missions=6)],
        [idle("Guards")],
        attacker_side={"lair": {"loyalty_bonus": 10}},
    )
    # Loyalty die 20 would take the equipment on its own; 20 + 10 (Throne Room) = 30 is
    # in 26–49: the unit disbands and leaves its equipment.
    result = play(battle, [10, 20])
    event = result.events[0]
    assert isinstance(event, AssessmentEvent)
    assert event.loyalty is not None
    assert event.loyalty.total == 20 + 10 == 30
    assert result.fates[0] == "disbanded"


def test_loyalty_equipment_band_may_read_the_bare_die(battle_of: Factory) -> None:
    battle = battle_of(
        [idle("Scouts", dangerous_missions=6)],
        [idle("Guards")],
        attacker_side={"lair": {"loyalty_bonus": 10}},
        parameters={"loyalty_equipment_reads": "die"},
    )
    # Total 20 + 10 = 30 fails (below 50); the bare die 20 is 25 or less: the unit takes its
    # equipment. A total of 50 or more still passes whatever the die: 45 + 10 = 55.
    assert play(battle, [10, 20]).fates[0] == "disbanded_with_equipment"
    assert play(battle, [10, 45]).fates[0] == "bottled_out"
    # Die 26 + 10 = 36: fails, and 26 is above 25: it leaves its equipment.
    assert play(battle, [10, 26]).fates[0] == "disbanded"
