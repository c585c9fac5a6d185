"""The round that produces the wounds: strike order, attacks, casualties, challenges."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from fracas.core.dice import ScriptedDice
from fracas.rulesets.rankflank.fight import apply_wounds
from fracas.rulesets.rankflank.formation import (
    initial_state,
    models_alive,
    rank_and_file,
    unit_rows,
    unit_strength,
)
from fracas.rulesets.rankflank.play import fight_round, play_combat
from fracas.rulesets.rankflank.scenario import Combat
from fracas.rulesets.rankflank.strikes import (
    initiative_steps,
    roll_strike,
    strike_records,
    unsaved_wound_chance,
)

from .conftest import combat_from, engage, unit_doc


def script(*groups: list[int]) -> ScriptedDice:
    """Scripted dice from groups of faces, one group per roll of the rules."""
    return ScriptedDice(face for group in groups for face in group)


def build(units: list[dict[str, Any]], engagements: list[dict[str, str]], **params: Any) -> Combat:
    return combat_from({"units": units, "engagements": engagements, "parameters": params})


def duel_of_lines(fast_initiative: int, **params: Any) -> Combat:
    return build(
        [
            unit_doc("Fast", "A", models=5, files=5, profile=f"4 3 3 3 3 1 {fast_initiative} 1 7"),
            unit_doc("Slow", "B", models=5, files=5, profile="4 3 3 3 3 1 2 1 7"),
        ],
        [engage("Fast", "Slow")],
        max_rounds=1,
        **params,
    )


def test_higher_initiative_strikes_first_and_the_slain_do_not_strike() -> None:
    combat = duel_of_lines(5)
    dice = script(
        [6, 6, 6, 1, 1],  # Fast: 5 attacks at 4+ → 3 hits
        [6, 6, 6],  # 3 wounds at 4+, no armour → 3 slain
        [6, 6],  # Slow: 5 - 3 = 2 models left → 2 attacks, 2 hits
        [6, 6],  # 2 wounds
        [1, 1],  # Slow loses 2 to 4 (3 wounds + US 3 > 2): break test, double 1 holds
    )
    fought = fight_round(combat, initial_state(combat), 1, dice)
    assert [step.initiative for step in fought.steps] == [5, 2]
    assert [roll.record.attacks for step in fought.steps for roll in step.rolls] == [5, 2]
    assert (fought.result.score("A"), fought.result.score("B")) == (3 + 1, 2)
    assert dice.remaining == 0


def test_equal_initiative_strikes_simultaneously() -> None:
    combat = duel_of_lines(2)
    dice = script(
        [6, 6, 6, 1, 1, 6, 6, 6],  # Fast: 3 unsaved wounds
        [1, 1, 1, 1, 1],  # Slow still strikes with all 5 models (same step): all miss
        [1, 1],  # break test of Slow (lost 0 to 3 + 1): double 1
    )
    fought = fight_round(combat, initial_state(combat), 1, dice)
    assert [step.initiative for step in fought.steps] == [2]
    assert [roll.record.attacks for roll in fought.steps[0].rolls] == [5, 5]
    assert dice.remaining == 0


def test_chargers_strike_with_one_more_initiative_in_ninth_only() -> None:
    units = [
        unit_doc("Riders", "A", models=5, files=5, charged=True),
        unit_doc("Foot", "B", models=5, files=5),
    ]
    ninth = build(units, [engage("Riders", "Foot")])
    eighth = build(units, [engage("Riders", "Foot")], edition="eighth")
    # Both I3; the charger has 3 + 1 = 4 in ninth and strikes first.
    assert initiative_steps(ninth, initial_state(ninth), 1) == (4, 3)
    assert initiative_steps(eighth, initial_state(eighth), 1) == (3,)
    # No bonus after the charge round.
    assert initiative_steps(ninth, initial_state(ninth), 2) == (3,)


def test_attacks_fighting_rank_plus_supporting_rank() -> None:
    combat = build(
        [
            unit_doc("Block", "A", models=20, files=5, profile="4 3 3 3 3 1 3 2 7"),
            unit_doc("Foe", "B", models=10, files=10),
        ],
        [engage("Block", "Foe")],
    )
    records = strike_records(combat, initial_state(combat), 1)
    block = next(r for r in records if r.attacker_unit == "Block")
    # 5 models × A2 in the fighting rank + 5 supporting attacks (1 each) = 15.
    assert block.attacks == 5 * 2 + 5 * 1
    foe = next(r for r in records if r.attacker_unit == "Foe")
    # One rank of 10 models, nobody behind: 10 × 1 = 10.
    assert foe.attacks == 10


def test_a_character_stands_in_the_fighting_rank_with_his_own_attacks() -> None:
    combat = build(
        [
            unit_doc(
                "Block",
                "A",
                models=20,
                files=5,
                characters=[{"name": "Hero", "profile": "4 6 3 4 4 3 6 4 9", "armour": 3}],
            ),
            unit_doc("Foe", "B", models=10, files=10, armour=5),
        ],
        [engage("Block", "Foe")],
    )
    records = {r.striker: r for r in strike_records(combat, initial_state(combat), 1)}
    # 21 models 5 wide: the hero takes one of the 5 front places → 4 × 1 + 5 supporting = 9.
    assert records["Block"].attacks == 4 + 5
    # The hero: A4, WS6 vs 3 → 3+, S4 vs T3 → 3+, armour 5+ worsened by 4 - 3 = 1 → 6+.
    hero = records["Hero"]
    assert (
        hero.attacks,
        hero.blow.to_hit,
        hero.blow.to_wound,
        hero.blow.armour,
        hero.initiative,
    ) == (
        4,
        3,
        3,
        6,
        6,
    )


def test_flank_only_unit_fights_with_as_many_models_as_ranks() -> None:
    combat = build(
        [
            unit_doc("Block", "A", models=30, files=5),
            unit_doc("Front", "B", models=5, files=5),
            unit_doc("Flanker", "B", models=5, files=5),
        ],
        [engage("Front", "Block"), engage("Flanker", "Block", "left")],
    )
    # The Block's front is engaged, so it fights with its fighting rank: 5 + 5 = 10.
    records = {r.striker: r for r in strike_records(combat, initial_state(combat), 1)}
    assert records["Block"].attacks == 10
    only_flank = build(
        [unit_doc("Block", "A", models=30, files=5), unit_doc("Flanker", "B", models=5, files=5)],
        [engage("Flanker", "Block", "left")],
    )
    records = {r.striker: r for r in strike_records(only_flank, initial_state(only_flank), 1)}
    # Engaged only on its flank: 30 / 5 = 6 ranks → 6 models fight, no support.
    assert records["Block"].attacks == 6


def test_casualties_come_off_the_rear_rank() -> None:
    combat = build(
        [unit_doc("Block", "A", models=22, files=5), unit_doc("Foe", "B", models=10, files=10)],
        [engage("Block", "Foe")],
    )
    state, taken = apply_wounds(initial_state(combat), combat.unit("Block"), None, 3)
    # 22 - 3 = 19 → ranks 5, 5, 5, 4: the fighting rank keeps its 5.
    assert taken == 3
    assert unit_rows(combat.unit("Block"), state["Block"]) == (5, 5, 5, 4)


def test_multi_wound_models_and_surplus_wounds() -> None:
    combat = build(
        [
            unit_doc(
                "Ogres",
                "A",
                models=3,
                files=3,
                troop_type="monstrous_infantry",
                profile="6 3 2 4 4 3 2 3 7",
            ),
            unit_doc("Foe", "B", models=10, files=10),
        ],
        [engage("Ogres", "Foe")],
    )
    ogres = combat.unit("Ogres")
    state, taken = apply_wounds(initial_state(combat), ogres, None, 4)
    # 9 wounds - 4 = 5 → ⌈5 / 3⌉ = 2 ogres standing (one wounded), US 2 × 3 = 6.
    assert (taken, rank_and_file(ogres, state["Ogres"]), unit_strength(ogres, state["Ogres"])) == (
        4,
        2,
        6,
    )
    state, taken = apply_wounds(state, ogres, None, 9)
    # Only 5 wounds were left to take: the other 4 are lost.
    assert (taken, models_alive(ogres, state["Ogres"])) == (5, 0)


def test_a_characters_wounds_are_his_own() -> None:
    combat = build(
        [
            unit_doc(
                "Block",
                "A",
                models=2,
                files=2,
                characters=[{"name": "Hero", "profile": "4 6 3 4 4 3 6 4 9"}],
            ),
            unit_doc("Foe", "B", models=10, files=10),
        ],
        [engage("Block", "Foe")],
    )
    block = combat.unit("Block")
    state, _ = apply_wounds(initial_state(combat), block, None, 2)
    # The 2 rank and file die; the hero keeps his 3 wounds.
    assert state["Block"].character_wounds == (3,)
    assert rank_and_file(block, state["Block"]) == 0
    # With no rank and file left, the enemy's blows land on the hero (WS 6, T 4):
    # WS 3 against 6 (not more than double) → 4+; S3 against T4 → 5+.
    foe = next(r for r in strike_records(combat, state, 1) if r.attacker_unit == "Foe")
    assert (foe.target_character, foe.blow.to_hit, foe.blow.to_wound) == ("Hero", 4, 5)
    state, taken = apply_wounds(state, block, None, 2)
    assert (taken, state["Block"].character_wounds) == (2, (1,))


def test_records_then_dice_from_the_records_only() -> None:
    combat = build(
        [
            unit_doc("Spears", "A", models=10, files=10, profile="4 3 3 4 3 1 3 1 7"),
            unit_doc("Foe", "B", models=10, files=10, armour=4, ward=6),
        ],
        [engage("Spears", "Foe")],
    )
    record = next(r for r in strike_records(combat, initial_state(combat), 1) if r.side == "A")
    # 10 attacks; to hit 4+; S4 vs T3 → 3+; armour 4+ worsened by 1 → 5+; ward 6+.
    assert (
        record.attacks,
        record.blow.to_hit,
        record.blow.to_wound,
        record.blow.armour,
        record.blow.ward,
    ) == (
        10,
        4,
        3,
        5,
        6,
    )
    # One attack: 1/2 × 2/3 × (1 - 1/3) × (1 - 1/6) = 1/2 × 2/3 × 2/3 × 5/6 = 5/27.
    assert unsaved_wound_chance(record) == Fraction(5, 27)
    dice = ScriptedDice([4] * 10 + [3] * 10 + [4] * 10 + [5] * 10)
    roll = roll_strike(record, dice)
    # Every hit, every wound, every armour save failed (4 < 5), every ward failed (5 < 6).
    assert (roll.faces.hits, roll.faces.wounds, roll.faces.unsaved) == (10, 10, 10)


def test_cannot_wound_rolls_no_wound_dice() -> None:
    combat = build(
        [
            unit_doc("Goblins", "A", models=3, files=3, profile="4 2 3 1 3 1 2 1 5"),
            unit_doc(
                "Golem", "B", models=1, files=1, troop_type="monster", profile="4 3 0 6 6 5 1 2 10"
            ),
        ],
        [engage("Goblins", "Golem")],
    )
    record = next(r for r in strike_records(combat, initial_state(combat), 1) if r.side == "A")
    # S1 vs T6: 5 below → cannot wound; only the to-hit dice are rolled.
    assert record.blow.to_wound is None
    roll = roll_strike(record, ScriptedDice([6, 6, 6]))
    assert (roll.faces.hits, roll.faces.wound_faces, roll.faces.unsaved) == (3, (), 0)


@pytest.fixture
def challenge_combat() -> Combat:
    # The rank and file have no attacks, so only the two characters roll dice.
    return combat_from(
        {
            "units": [
                unit_doc(
                    "Guard",
                    "A",
                    models=5,
                    files=5,
                    profile="4 3 3 3 3 1 1 0 7",
                    characters=[{"name": "Hero", "profile": "4 6 3 6 4 3 6 5 9"}],
                ),
                unit_doc(
                    "Foe",
                    "B",
                    models=5,
                    files=5,
                    profile="4 3 3 3 3 1 1 0 7",
                    characters=[{"name": "Champ", "profile": "4 3 3 3 3 1 3 2 7"}],
                ),
            ],
            "engagements": [engage("Guard", "Foe")],
            "challenge": {"challenger": "Hero", "opponent": "Champ"},
            "parameters": {"max_rounds": 1, "supporting_attacks": 0},
        }
    )


def test_challenge_overkill_through_a_round(challenge_combat: Combat) -> None:
    dice = script(
        [6] * 5,  # Hero (I6, A5) hits the champion 5 times at 3+
        [6] * 5,  # and wounds 5 times at 2+ (S6 vs T3); the champion has no save
        [1, 1],  # the Foe's break test
    )
    fought = fight_round(challenge_combat, initial_state(challenge_combat), 1, dice)
    # The champion (W1, I3) dies before striking: 1 wound counts, 5 - 1 = 4 excess → +3 cap.
    assert [(o.character, o.excess) for o in fought.overkill] == [("Hero", 4)]
    # A: 1 wound + 3 overkill + 1 Unit Strength (5 + 1 hero = 6 vs 5) = 5; B: 0.
    assert (fought.result.score("A"), fought.result.score("B")) == (1 + 3 + 1, 0)
    assert dice.remaining == 0


def test_play_stops_at_the_round_limit() -> None:
    combat = build(
        [
            unit_doc("Statues", "A", models=5, files=5, profile="4 3 3 3 3 1 1 0 7"),
            unit_doc("Stones", "B", models=5, files=5, profile="4 3 3 3 3 1 1 0 7"),
        ],
        [engage("Statues", "Stones")],
        max_rounds=3,
        supporting_attacks=0,
    )
    # Nobody can strike and nothing differs: three draws, no dice at all.
    outcome = play_combat(combat, ScriptedDice([]))
    assert [r.result.winner for r in outcome.rounds] == [None, None, None]


def test_saved_wounds_do_not_count() -> None:
    combat = build(
        [
            unit_doc("Fast", "A", models=5, files=5, profile="4 3 3 3 3 1 5 1 7"),
            unit_doc("Slow", "B", models=5, files=5, profile="4 3 3 3 3 1 2 0 7", armour=4),
        ],
        [engage("Fast", "Slow")],
        max_rounds=1,
        supporting_attacks=0,
    )
    dice = script(
        [6, 6, 6, 6, 6],  # 5 hits
        [6, 6, 6, 6, 6],  # 5 wounds
        [4, 5, 6, 1, 2],  # armour 4+ (S3, unmodified): 3 saved, 2 failed
        [1, 1],  # Slow's break test
    )
    fought = fight_round(combat, initial_state(combat), 1, dice)
    # A: 5 - 3 saved = 2 unsaved wounds + 1 for Unit Strength (5 against 3) = 3.
    assert fought.result.score("A") == 2 + 1


def both_duellists_fall(*more: list[int], **parameters: Any) -> tuple[Combat, ScriptedDice]:
    combat = combat_from(
        {
            "units": [
                unit_doc(
                    "Guard",
                    "A",
                    models=5,
                    files=5,
                    profile="4 3 3 3 3 1 1 0 7",
                    characters=[{"name": "Hero", "profile": "4 5 3 5 3 1 3 3 7"}],
                ),
                unit_doc(
                    "Foe",
                    "B",
                    models=5,
                    files=5,
                    profile="4 3 3 3 3 1 1 0 7",
                    characters=[{"name": "Champ", "profile": "4 5 3 5 3 1 3 1 7"}],
                ),
            ],
            "engagements": [engage("Guard", "Foe")],
            "challenge": {"challenger": "Hero", "opponent": "Champ"},
            "parameters": {"max_rounds": 1, "supporting_attacks": 0, **parameters},
        }
    )
    dice = script(
        [6, 6, 6],  # Hero (I3, A3): WS5 vs 5 → 4+, 3 hits
        [6, 6, 6],  # S5 vs T3 → 2+: 3 wounds on the champion's 1
        [6],  # Champ strikes at the same Initiative 3: 1 hit
        [6],  # and 1 wound: the hero falls too
        *more,
    )
    return combat, dice


def test_no_overkill_when_both_duellists_fall() -> None:
    combat, dice = both_duellists_fall()
    fought = fight_round(combat, initial_state(combat), 1, dice)
    # Nobody won the challenge, so the 3 - 1 = 2 excess wounds add nothing: 1 against 1
    # (Unit Strength 5 against 5), a draw, no break test.
    assert fought.overkill == ()
    assert (fought.result.score("A"), fought.result.score("B"), fought.result.winner) == (
        1,
        1,
        None,
    )
    assert dice.remaining == 0


def test_a_slain_slayer_scores_overkill_when_survival_is_not_asked() -> None:
    # B loses by 2 and tests (US 5, not Steadfast): needs ≤ 7 - 2 = 5, rolls 1 + 2 = 3.
    combat, dice = both_duellists_fall([1, 2], overkill_needs_survivor=False)
    fought = fight_round(combat, initial_state(combat), 1, dice)
    # The hero's 3 wounds on a champion of 1 leave 3 - 1 = 2 excess, counted although he
    # fell: A 1 wound + 2 overkill = 3 against B's 1 wound; the champion scored no excess.
    assert [(c.character, c.excess) for c in fought.overkill] == [("Hero", 2)]
    assert (fought.result.score("A"), fought.result.score("B"), fought.result.winner) == (
        3,
        1,
        "A",
    )
    (test,) = fought.break_tests
    assert (test.unit, test.target, test.passed) == ("Foe", 5, True)
    assert dice.remaining == 0


def test_ward_saves_do_not_count() -> None:
    combat = build(
        [
            unit_doc("Fast", "A", models=5, files=5, profile="4 3 3 3 3 1 5 1 7"),
            unit_doc("Slow", "B", models=5, files=5, profile="4 3 3 3 3 1 2 0 7", ward=5),
        ],
        [engage("Fast", "Slow")],
        max_rounds=1,
        supporting_attacks=0,
    )
    dice = script(
        [6, 6, 6, 6, 6],  # 5 hits
        [6, 6, 6, 6, 6],  # 5 wounds, no armour to roll
        [5, 6, 1, 2, 3],  # ward 5+: 2 saved, 3 not
        [1, 1],  # Slow's break test
    )
    fought = fight_round(combat, initial_state(combat), 1, dice)
    # A: 5 - 2 warded = 3 unsaved wounds + 1 for Unit Strength (5 against 2) = 4.
    assert fought.result.score("A") == 3 + 1
    assert dice.remaining == 0


def test_a_challenge_is_fought_only_between_the_characters() -> None:
    combat = combat_from(
        {
            "units": [
                unit_doc(
                    "Guard",
                    "A",
                    models=5,
                    files=5,
                    characters=[{"name": "Hero", "profile": "4 6 3 6 4 3 6 5 9"}],
                ),
                unit_doc(
                    "Foe",
                    "B",
                    models=5,
                    files=5,
                    characters=[{"name": "Champ", "profile": "4 3 3 3 3 1 3 2 7"}],
                ),
            ],
            "engagements": [engage("Guard", "Foe")],
            "challenge": {"challenger": "Hero", "opponent": "Champ"},
        }
    )
    targets = {
        r.striker: (r.target_unit, r.target_character)
        for r in strike_records(combat, initial_state(combat), 1)
    }
    assert targets == {
        "Hero": ("Foe", "Champ"),
        "Champ": ("Guard", "Hero"),
        "Guard": ("Foe", None),  # the rank and file fight the rank and file
        "Foe": ("Guard", None),
    }


@pytest.mark.parametrize(
    ("troop_type", "per_model"),
    [
        ("infantry", 1),
        ("cavalry", 2),
        ("monstrous_infantry", 3),
        ("monstrous_cavalry", 3),
        ("chariot", 3),
        ("monster", 4),  # its starting Wounds (W 4 below)
        ("swarm", 4),
        ("war_machine", 4),
    ],
)
def test_unit_strength_by_troop_type(troop_type: str, per_model: int) -> None:
    combat = build(
        [
            unit_doc(
                "Them", "A", models=2, files=2, troop_type=troop_type, profile="4 3 3 3 3 4 3 1 7"
            ),
            unit_doc("Foe", "B", models=2, files=2),
        ],
        [engage("Them", "Foe")],
    )
    unit = combat.unit("Them")
    assert unit_strength(unit, initial_state(combat)["Them"]) == 2 * per_model


def test_unit_strength_override_and_characters() -> None:
    combat = build(
        [
            unit_doc(
                "Them",
                "A",
                models=3,
                files=3,
                unit_strength=5,
                characters=[
                    {"name": "Rider", "troop_type": "cavalry", "profile": "4 5 3 4 4 2 5 3 8"}
                ],
            ),
            unit_doc("Foe", "B", models=2, files=2),
        ],
        [engage("Them", "Foe")],
    )
    # 3 models × 5 (override) + the mounted character's 2 = 17.
    assert unit_strength(combat.unit("Them"), initial_state(combat)["Them"]) == 3 * 5 + 2


def test_wounds_taken_are_finished_first() -> None:
    # Ogres of W 3, four of them, one already wounded twice: 4 × 3 − 2 = 10 wounds left.
    # One more wound slays the wounded ogre (10 → 9, three ogres of 3 each); three more
    # slay one whole ogre (9 → 6, two left).
    ogres = unit_doc(
        "Ogres",
        "Greenskins",
        models=4,
        files=4,
        profile="6 3 3 4 4 3 2 3 7",
        troop_type="monstrous_infantry",
        wounds_taken=2,
    )
    combat = build([ogres, unit_doc("Spears", "Empire")], [engage("Spears", "Ogres")])
    unit = combat.unit("Ogres")
    state = initial_state(combat)
    assert state["Ogres"].rank_and_file_wounds == 10
    assert rank_and_file(unit, state["Ogres"]) == 4
    once, taken = apply_wounds(state, unit, None, 1)
    assert (taken, rank_and_file(unit, once["Ogres"])) == (1, 3)
    more, taken = apply_wounds(once, unit, None, 3)
    assert (taken, rank_and_file(unit, more["Ogres"])) == (3, 2)
