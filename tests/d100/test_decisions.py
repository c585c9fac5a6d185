"""The gap decisions of docs/rules/d100.md ("Decisions where the rules are silent") that no
step test pins down, each on a tiny battle with scripted faces and the sums written out.

Dice order (docs/rules/d100.md, "Order of the dice"): step 1 assessment then loyalty per
unit; flee rolls of effects; per attack: target die (only with a choice), hit, defence,
damage, damage reduction, morale; finally the loot d100.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fracas.rulesets.d100 import Battle
from fracas.rulesets.d100.play import AssessmentEvent, BattleResult, FleeRollEvent

from .conftest import attacks, bonus, idle, play

Factory = Callable[..., Battle]


def assessment_total(result: BattleResult) -> int:
    """The total of the first unit's morale assessment roll."""
    event = result.events[0]
    assert isinstance(event, AssessmentEvent)
    assert event.roll is not None
    return event.roll.total


ARCHER = {"pax": 10, "equipment": ["ranged_weapon"], "melee_attacks": 0}


def test_open_ended_from_is_a_parameter(battle_of: Factory) -> None:
    def scouts(**parameters: Any) -> Battle:
        return battle_of(
            [idle("Scouts", dangerous_missions=6)], [idle("Guards")], parameters=parameters
        )

    # From 90: the 92 rolls again, 92 + 10 = 102, − 25 = 77 ≥ 75: the unit holds.
    held = play(scouts(open_ended_from=90), [92, 10])
    assert assessment_total(held) == 92 + 10 - 25 == 77
    assert held.fates[0] == "fought"
    # From the default 96 the same 92 stands alone: 92 − 25 = 67 < 75, bottled out; the 10
    # is then the loyalty roll, 10 ≤ 25: it disbands and takes its equipment.
    default = play(scouts(), [92, 10])
    assert assessment_total(default) == 92 - 25 == 67
    assert default.fates[0] == "disbanded_with_equipment"


def test_stat_point_value_is_a_parameter(battle_of: Factory) -> None:
    def tired(**parameters: Any) -> Battle:
        return battle_of(
            [{"name": "Tired", "pax": 7, "offense": 3, "speed": 1}],
            [idle("Guards")],
            parameters={"round_limit": 1, **parameters},
        )

    # Offense 3 × 7 points × 7/10 PAX = 14.7, rounded down to 14; attack 10 + 14 = 24.
    [event] = attacks(play(tired(stat_point_value=7), [10, 90]))
    assert bonus(event.attack.bonuses, "Offense") == 3 * 7 * 7 // 10 == 14
    assert event.attack.total == 10 + 14


def test_a_unit_without_max_pax_counts_default_max_pax(battle_of: Factory) -> None:
    def half(**parameters: Any) -> Battle:
        return battle_of(
            [{"name": "Half", "pax": 5, "offense": 3, "speed": 1}],
            [idle("Guards")],
            parameters={"round_limit": 1, **parameters},
        )

    # No max_pax given: 5 of the default 10. Offense 3 × 10 × 5/10 = 15.
    [event] = attacks(play(half(), [10, 90]))
    assert bonus(event.attack.bonuses, "Offense") == 3 * 10 * 5 // 10 == 15
    # default_max_pax 20: 3 × 10 × 5/20 = 7.5, rounded down to 7.
    [event] = attacks(play(half(default_max_pax=20), [10, 90]))
    assert bonus(event.attack.bonuses, "Offense") == 3 * 10 * 5 // 20 == 7


def test_a_scenario_adds_items_and_replaces_one_of_the_same_key(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10, "equipment": ["warhorn"]}],
        [idle("B", equipment=["shield", "armour_2"])],
        equipment={
            "warhorn": {"label": "Warhorn", "bonuses": {"attack": 7}},
            "shield": {"label": "Tower shield", "bonuses": {"defense": 15}},
        },
        parameters={"round_limit": 1},
    )
    # Attack 50 + 7 (warhorn, added) = 57. Defence 40 + 15 (the replaced shield, not the
    # standard 10) + 5 (armour 2, standard) = 60 ≥ 57: a miss.
    [event] = attacks(play(battle, [50, 40]))
    assert event.attack.total == 50 + 7 == 57
    assert bonus(event.defence.bonuses, "Tower shield") == 15
    assert bonus(event.defence.bonuses, "Armour 2") == 5
    assert event.defence.total == 40 + 15 + 5 == 60
    assert not event.hit


def test_both_sides_may_attack_and_both_withdraw_at_the_round_limit(
    battle_of: Factory,
) -> None:
    riders = {"name": "Riders", "pax": 10, "equipment": ["horses"]}
    battle = battle_of(
        [{**riders, "name": "North Riders"}],
        [{**riders, "name": "South Riders"}],
        defender_side={"action": "attack", "location": "open"},
        parameters={"round_limit": 1},
    )
    assert battle.sides[0].attacker
    assert battle.sides[1].attacker
    # Both sides attack, so both get Mounted: 30 + 10 = 40 against a defence of 60 (a miss),
    # then 20 + 10 = 30 against 70 (a miss). After round 1 of 1 both withdraw: no winner.
    result = play(battle, [30, 60, 20, 70])
    first, second = attacks(result)
    assert first.attack.total == 30 + 10
    assert second.attack.total == 20 + 10
    assert (result.outcome, result.winner, result.loot) == ("withdraw", None, None)
    assert result.goods_value == 0


def test_step_one_counts_only_assessment_effects(battle_of: Factory) -> None:
    def scouts(trigger: str) -> Battle:
        return battle_of(
            [idle("Scouts", dangerous_missions=6)],
            [idle("Guards")],
            attacker_side={"effects": ["resolve"]},
            effects={
                "resolve": {
                    "trigger": trigger,
                    "scope": "own_side",
                    "roll": "morale_assessment",
                    "bonus": 20,
                }
            },
        )

    # An assessment effect counts: 80 − 25 + 20 = 75, not below 75, the unit holds.
    held = play(scouts("assessment"), [80])
    assert assessment_total(held) == 80 - 25 + 20 == 75
    assert held.fates[0] == "fought"
    # The same bonus when attacking is not known in step 1: 80 − 25 = 55 < 75, bottled
    # out; loyalty 60 ≥ 50, it stays loyal but leaves.
    left = play(scouts("when_attacking"), [80, 60])
    assert assessment_total(left) == 80 - 25 == 55
    assert left.fates[0] == "bottled_out"


def test_a_flee_roll_gets_morale_bonuses_but_no_overwhelm_and_no_pax_penalty(
    battle_of: Factory,
) -> None:
    battle = battle_of(
        [idle("Brave", morale_bonus=5), idle("R2"), idle("R3")],
        [{"name": "Lone", "pax": 10}],
        defender_side={"effects": ["terror"], "targeting": ["Brave"]},
        effects={"terror": {"trigger": "per_round", "scope": "enemy_side", "flee_below": 50}},
        parameters={"round_limit": 2},
    )
    # 3 v 1: the Raiders' combat rolls get 4 × 2 = +8.
    # Round 1: terror rolls 60 for each raider (60 + 5 for Brave): all stay. Lone hits
    # Brave (80 vs 20 + 8), wounds (70 vs 10 + 8), morale 30 + 5 + 8 = 43: −2 PAX.
    # Round 2: Brave's flee roll 46 + 5 = 51 ≥ 50: stays. Overwhelm would make it 59, the
    # PAX-lost penalty 51 − 2 × 4 = 43 (a flight). Lone then misses (10 vs 90 + 8).
    faces = [*(60, 60, 60, 80, 20, 70, 10, 30), *(46, 60, 60, 10, 90)]
    result = play(battle, faces)
    assert result.overwhelm == 4 * (3 - 1) == 8
    morale = attacks(result)[0].morale
    assert morale is not None
    assert morale.total == 30 + 5 + 8 == 43
    brave = [e for e in result.events if isinstance(e, FleeRollEvent) and e.unit == "Brave"]
    assert [(e.round, e.roll.total, e.fled) for e in brave] == [
        (1, 60 + 5, False),
        (2, 46 + 5, False),
    ]
    assert result.pax[0] == 10 - 2
    assert result.outcome == "withdraw"


def test_overwhelm_rolls_is_a_parameter(battle_of: Factory) -> None:
    def battle(**parameters: Any) -> Battle:
        return battle_of(
            [idle("A1"), idle("A2")],
            [{"name": "Lone", "pax": 10}],
            parameters={"round_limit": 1, **parameters},
        )

    # 2 v 1: +4 for the Raiders. By default it is on their defence: 50 + 4 = 54 > 50 holds.
    [event] = attacks(play(battle(), [1, 50, 50]))
    assert event.defence.total == 50 + 4
    assert not event.hit
    # Only on attack rolls: the defence is a bare 50, and Lone's 50 ties it (a miss still).
    [event] = attacks(play(battle(overwhelm_rolls=["attack"]), [1, 50, 50]))
    assert bonus(event.defence.bonuses, "Overwhelm") == 0
    assert event.defence.total == 50


def test_start_of_combat_bonuses_reach_the_ranged_phase_per_round_ones_only_melee(
    battle_of: Factory,
) -> None:
    battle = battle_of(
        [{"name": "Bows", **ARCHER, "melee_attacks": 1}],
        [idle("Guards")],
        attacker_side={"effects": ["drums", "chant", "chant_ranged"]},
        effects={
            "drums": {
                "trigger": "start_of_combat",
                "scope": "own_side",
                "roll": "ranged_attack",
                "bonus": 7,
            },
            "chant": {"trigger": "per_round", "scope": "own_side", "roll": "attack", "bonus": 3},
            "chant_ranged": {
                "trigger": "per_round",
                "scope": "own_side",
                "roll": "ranged_attack",
                "bonus": 5,
            },
        },
        parameters={"round_limit": 1},
    )
    # Step 5: 40 + 10 (ranged weapon) + 7 (drums) = 57, no +5 chant: a per-round bonus
    # waits for the melee rounds. Melee round 1: 30 + 3 (chant) = 33. Both miss 90.
    shot, blow = attacks(play(battle, [40, 90, 30, 90]))
    assert (shot.phase, shot.attack.total) == ("ranged", 40 + 10 + 7)
    assert (blow.phase, blow.attack.total) == ("melee", 30 + 3)


def test_shooting_uses_offense_and_strength_without_the_melee_weapon(
    battle_of: Factory,
) -> None:
    battle = battle_of(
        [{"name": "Bows", **ARCHER, "offense": 2, "strength": 3,
          "equipment": ["ranged_weapon", "melee_weapon"]}],
        [idle("Guards")],
        parameters={"round_limit": 1},
    )  # fmt: skip
    # Ranged attack 40 + 20 (offense 2 × 10) + 10 (ranged weapon) = 70 > defence 20.
    # Ranged damage 50 + 30 (strength 3 × 10) = 80, no +10 from the melee weapon, > 10.
    # Morale 80 ≥ 75: no loss.
    [shot] = attacks(play(battle, [40, 20, 50, 10, 80]))
    assert shot.attack.total == 40 + 20 + 10 == 70
    assert shot.damage is not None
    assert shot.damage.total == 50 + 30 == 80
    assert bonus(shot.damage.bonuses, "Melee weapon") == 0
    assert shot.pax_lost == 0


def test_morale_pax_penalty_is_a_parameter(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10}],
        [idle("B")],
        parameters={"round_limit": 2, "morale_pax_penalty": 5},
    )
    # Round 1: B loses 2 PAX (morale 30). Round 2: morale 80 − 2 × 5 = 70: −1 PAX.
    result = play(battle, [80, 20, 70, 10, 30, 80, 20, 70, 10, 80])
    second = attacks(result)[1]
    assert second.morale is not None
    assert second.morale.total == 80 - 2 * 5 == 70
    assert result.pax[1] == 10 - 2 - 1


def test_a_disbanded_enemy_counts_as_bottled_out_at_the_pax_it_left_with(
    battle_of: Factory,
) -> None:
    battle = battle_of(
        [idle("Raiders Foot")],
        [idle("Deserters", pax=6, max_pax=10, dangerous_missions=6, recruitment_cost=100)],
    )
    # Deserters: 10 − 25 < 75, bottled out; loyalty 30 (26–49): disbanded. The Keep has no
    # unit left, so the Raiders win without a blow. Goods: 6/10 × (100 + 0) = 60; loot die 1
    # → all gold.
    result = play(battle, [10, 30, 1])
    assert result.fates[1] == "disbanded"
    assert result.winner == 0
    assert result.goods_value == 60
    assert result.loot is not None
    assert result.loot.gold == 60


def test_a_priority_list_with_no_present_unit_falls_back_to_a_random_target(
    battle_of: Factory,
) -> None:
    battle = battle_of(
        [{"name": "A", "pax": 10}],
        [idle("B1", dangerous_missions=6), idle("B2"), idle("B3")],
        attacker_side={"targeting": ["B1"]},
        parameters={"round_limit": 1, "overwhelm_bonus": 0},
    )
    # B1 bottles out in step 1 (10 − 25 < 75; loyalty 60 ≥ 50: leaves loyal). The list names
    # no one present, so a d2 picks among B2, B3: face 2 → B3. Attack 10 vs 90: a miss.
    result = play(battle, [10, 60, 2, 10, 90])
    [event] = attacks(result)
    assert event.target == "B3"
    assert event.target_roll == (2, ("B2", "B3"))


def test_a_later_speed_group_is_skipped_once_a_side_is_empty(battle_of: Factory) -> None:
    battle = battle_of(
        [{"name": "Bows", **ARCHER, "speed": 3, "recruitment_cost": 100}],
        [{"name": "Fast", **ARCHER, "speed": 5}, {"name": "Slow", **ARCHER, "speed": 1}],
    )
    # 1 v 2: the Keep's combat rolls get +4. Speed 5: Fast shoots Bows, 60 + 10 + 4 = 74
    # > 20; damage 50 + 4 = 54 > 10; Bows' morale 10 ≤ 25: −2 PAX and it flees (8 left).
    # The Raiders have no unit left: the speed-3 group (Bows, gone) and the speed-1 group
    # (Slow, still there with nothing to shoot at) roll nothing, and melee never starts.
    # Goods: Bows fled at 8/10 × 100 = 80; loot die 1 → all gold.
    result = play(battle, [60, 20, 50, 10, 10, 1])
    [shot] = attacks(result)
    assert (shot.attacker, shot.speed, shot.attack.total) == ("Fast", 5, 60 + 10 + 4)
    assert result.fates == ("fled", "fought", "fought")
    assert result.pax[0] == 10 - 2
    assert result.rounds == 0
    assert result.winner == 1
    assert result.goods_value == 80


def test_morale_table_is_a_parameter(battle_of: Factory) -> None:
    # One wounding blow: hit 80 + 0 > 20, damage 70 > 10, then B's morale die 60.
    # Default table: 60 is in 50–74, one PAX lost, B stays.
    battle = battle_of([{"name": "A", "pax": 10}], [idle("B")], parameters={"round_limit": 1})
    [event] = attacks(play(battle, [80, 20, 70, 10, 60]))
    assert (event.pax_lost, event.flees) == (1, False)
    # A harsher table of the scenario's own: below 65 costs three PAX and flight, so the
    # same 60 now loses 3 and B flees with 10 − 3 = 7 PAX.
    harsh = [
        {"at_least": 65, "pax_lost": 0},
        {"at_least": None, "pax_lost": 3, "flees": True},
    ]
    battle = battle_of(
        [{"name": "A", "pax": 10}],
        [idle("B")],
        parameters={"round_limit": 1, "morale_table": harsh},
    )
    result = play(battle, [80, 20, 70, 10, 60])
    [event] = attacks(result)
    assert (event.pax_lost, event.flees) == (3, True)
    assert (result.pax[1], result.fates[1]) == (10 - 3, "fled")
