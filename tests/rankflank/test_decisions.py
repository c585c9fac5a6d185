"""The choices rankflank makes where the rules say nothing, each checked on a small combat
with a number worked out by hand (the table "Decisions where the rules are silent" of
docs/rules/rankflank.md cites these tests as ``decisions::…``).

Where a choice is a parameter, the test also sets it the other way and checks that the
number moves as the document says.
"""

from __future__ import annotations

from typing import Any

import pytest

from fracas.core.dice import ScriptedDice
from fracas.rulesets.rankflank.breaktest import break_test
from fracas.rulesets.rankflank.formation import (
    initial_state,
    models_alive,
    rank_and_file,
    unit_rows,
    unit_strength,
)
from fracas.rulesets.rankflank.play import fight_round
from fracas.rulesets.rankflank.result import CombatResult, combat_result
from fracas.rulesets.rankflank.scenario import Combat
from fracas.rulesets.rankflank.strikes import fighting_models, strike_records

from .conftest import STILL, combat_from, engage, hill_raiders, unit_doc

BIG_MONSTER = "6 3 1 5 4 9 1 3 4"  # W 9: a lone foe whose Unit Strength is 9


def build(units: list[dict[str, Any]], engagements: list[dict[str, str]], **params: Any) -> Combat:
    return combat_from({"units": units, "engagements": engagements, "parameters": params})


def rows(result: CombatResult, side: str) -> list[tuple[str, int, str]]:
    """The side's combat-result rows as ``(label, value, source)``, the start row left out."""
    return [(r.label, int(r.value), r.source) for r in result.scores[side].rows[1:]]


# Unit Strength: The Old World's troop types, and a wounded monster.


@pytest.mark.parametrize(
    ("troop_type", "per_model"),
    [
        ("heavy_infantry", 1),
        ("war_beasts", 1),
        ("light_cavalry", 2),
        ("heavy_cavalry", 2),
        ("light_chariot", 3),
        ("heavy_chariot", 5),
    ],
)
def test_old_world_troop_types_count_their_unit_strength(troop_type: str, per_model: int) -> None:
    combat = build(
        [
            unit_doc("Them", "A", models=3, files=3, troop_type=troop_type),
            unit_doc("Foe", "B", models=2, files=2),
        ],
        [engage("Them", "Foe")],
        edition="oldworld",
    )
    # 3 models × the type's Unit Strength: 3, 3, 6, 6, 9, 15.
    assert unit_strength(combat.unit("Them"), initial_state(combat)["Them"]) == 3 * per_model


def test_a_wounded_monster_keeps_its_unit_strength() -> None:
    combat = build(
        [
            unit_doc("Five", "A", models=5, files=5),
            unit_doc(
                "Giant",
                "B",
                models=1,
                files=1,
                troop_type="monster",
                profile="6 3 1 5 4 6 1 3 4",
                wounds_taken=5,
            ),
        ],
        [engage("Five", "Giant")],
    )
    state = initial_state(combat)
    # W 6 with 5 wounds taken: 1 wound left, but the giant still counts its starting 6.
    assert unit_strength(combat.unit("Giant"), state["Giant"]) == 6
    result = combat_result(combat, state, ())
    # 6 against the five men's 5: the giant's side scores +1 (one rank of 5: no ranks).
    assert (result.score("A"), result.score("B")) == (0, 1)
    assert ("Higher Unit Strength", 1, "Giant 6 vs Five 5") in rows(result, "B")


# Characters count as models of the unit's ranks.


def test_a_character_fills_a_place_in_the_ranks() -> None:
    combat = build(
        [
            unit_doc(
                "Block",
                "A",
                models=14,
                files=5,
                characters=[{"name": "Hero", "profile": "4 6 3 4 4 3 6 4 9"}],
            ),
            unit_doc("Foe", "B", models=1, files=1, troop_type="monster", profile=BIG_MONSTER),
        ],
        [engage("Block", "Foe")],
        outnumber_bonus=False,
    )
    state = initial_state(combat)
    # 14 rank and file + the hero = 15 models 5 wide: ranks 5, 5, 5 → 2 extra ranks, +2.
    # Without the hero, 14 would stand 5, 5, 4: the rear rank of 4 adds nothing, +1.
    assert unit_rows(combat.unit("Block"), state["Block"]) == (5, 5, 5)
    assert rows(combat_result(combat, state, ()), "A") == [
        ("Ranks", 2, "Block in the front of Foe")
    ]


# A unit in contact with several enemies attacks `attacks_target`, else the first listed.


def two_enemies(**spears: Any) -> Combat:
    return build(
        [
            unit_doc("Spears", "A", models=5, files=5, **spears),
            unit_doc("Left", "B", models=5, files=5, profile=STILL, rules=["unbreakable"]),
            unit_doc("Right", "B", models=5, files=5, profile=STILL, rules=["unbreakable"]),
        ],
        [engage("Left", "Spears"), engage("Right", "Spears")],
        max_rounds=1,
    )


@pytest.mark.parametrize(
    ("spears", "struck", "spared"),
    [({}, "Left", "Right"), ({"attacks_target": "Right"}, "Right", "Left")],
)
def test_attacks_go_to_the_chosen_enemy_else_the_first_engaged(
    spears: dict[str, Any], struck: str, spared: str
) -> None:
    combat = two_enemies(**spears)
    # 5 attacks, WS 3 against 3 → 4+: 3 hits; S 3 against T 3 → 4+: 3 wounds, no armour.
    dice = ScriptedDice([6, 6, 6, 1, 1, 6, 6, 6])
    fought = fight_round(combat, initial_state(combat), 1, dice)
    # The 3 wounds fall on one enemy: 5 - 3 = 2 models left there, the other keeps 5.
    assert models_alive(combat.unit(struck), fought.state_after[struck]) == 2
    assert models_alive(combat.unit(spared), fought.state_after[spared]) == 5
    assert ("Wounds", 3, f"Spears on {struck}") in rows(fought.result, "A")
    # A: 3 wounds. B: Unit Strength 2 + 5 = 7 against 5 after the round, +1 (one rank
    # each: no ranks; both enemies in the front: no flank bonus).
    assert (fought.result.score("A"), fought.result.score("B")) == (3, 1)
    assert dice.remaining == 0


# The wound rows count the wounds that took effect.


def test_wounds_beyond_the_last_model_do_not_count() -> None:
    combat = build(
        [
            unit_doc("Knights", "A", models=5, files=5, profile="4 4 3 5 3 1 3 1 8"),
            unit_doc("Pair", "B", models=2, files=2, profile=STILL),
        ],
        [engage("Knights", "Pair")],
        max_rounds=1,
    )
    # 5 attacks, WS 4 against 3 → 3+: five 6s hit; S 5 against T 3 → 2+: five 6s wound;
    # no armour. 5 unsaved wounds, but the pair had 1 + 1 = 2 wounds: the row is 2, not 5.
    dice = ScriptedDice([6] * 5 + [6] * 5)
    fought = fight_round(combat, initial_state(combat), 1, dice)
    assert ("Wounds", 2, "Knights on Pair") in rows(fought.result, "A")
    # A: 2 wounds + 1 for Unit Strength (5 against 0) = 3.
    assert (fought.result.score("A"), fought.result.winner) == (3, "A")
    assert dice.remaining == 0


# Stubborn does not save a disrupted unit (`disrupted_can_be_steadfast`).


def stubborn_and_disrupted(**params: Any) -> Combat:
    return build(
        [
            unit_doc("Few", "A", models=5, files=5, rules=["stubborn"]),
            unit_doc("Foe", "B", models=40, files=5),
            unit_doc("Riders", "B", models=5, files=5, troop_type="cavalry"),
        ],
        [engage("Foe", "Few"), engage("Riders", "Few", "rear")],
        **params,
    )


def test_disruption_cancels_stubborn_unless_the_option_is_set() -> None:
    # Riders in the rear: 5 × 2 = Unit Strength 10, so Few is disrupted. Lost by 6, Ld 7.
    combat = stubborn_and_disrupted()
    test = break_test(combat, initial_state(combat), combat.unit("Few"), 6, ScriptedDice([3, 4]))
    # Default (ninth): disrupted, so Stubborn does not help: 7 - 6 = 1; 3 + 4 = 7 fails.
    assert (test.disrupted_by, test.target, test.passed) == ("Riders", 1, False)
    allowed = stubborn_and_disrupted(disrupted_can_be_steadfast=True)
    test = break_test(allowed, initial_state(allowed), allowed.unit("Few"), 6, ScriptedDice([3, 4]))
    # Set to true: Stubborn stands, the target is the unmodified 7; 3 + 4 = 7 passes.
    assert (test.disrupted_by, test.stubborn, test.target, test.passed) == (
        "Riders",
        True,
        7,
        True,
    )


# The pursuit's casualties: rank and file first, then the characters.


def test_a_caught_unit_loses_its_rank_and_file_before_its_character() -> None:
    combat = build(
        [
            hill_raiders(),
            unit_doc(
                "Guards",
                "B",
                models=5,
                files=5,
                profile=STILL,
                characters=[{"name": "Captain", "profile": "4 3 3 3 3 3 3 0 7"}],
            ),
        ],
        [engage("Raiders", "Guards")],
        supporting_attacks=0,
        max_rounds=1,
    )
    # A: charge 1 + standard 1 + high ground 1 = 3; B: Unit Strength 5 + 1 = 6 against 3,
    # +1. B loses by 2, not Steadfast (6 < 10): needs 7 - 2 = 5, rolls 6 + 6 and flees
    # 3 + 3 = 6; the Raiders pursue 4 + 2 = 6 ≥ 6: caught.
    dice = ScriptedDice([6, 6, 3, 3, 4, 2])
    fought = fight_round(combat, initial_state(combat), 1, dice)
    assert (fought.result.score("A"), fought.result.score("B")) == (3, 1)
    assert fought.pursuits[0].caught
    # Caught in ninth: 2 wounds × the Raiders' Unit Strength 3 = 6 wounds, no saves. The 5
    # guards take 5, the captain (W 3) the last one: 3 - 1 = 2 left. Had the captain been
    # first, he would be slain (3) and 3 guards with him, leaving 2 guards.
    after = fought.state_after["Guards"]
    assert (rank_and_file(combat.unit("Guards"), after), after.character_wounds) == (0, (2,))
    assert dice.remaining == 0


# The musician has no effect within one combat unless `musician_tie` is set.


def test_a_musician_breaks_no_tie_in_the_default_preset() -> None:
    def tie(**params: Any) -> Combat:
        return build(
            [
                unit_doc("Horns", "A", models=5, files=5, command={"musician": True}),
                unit_doc("Quiet", "B", models=5, files=5),
            ],
            [engage("Horns", "Quiet")],
            **params,
        )

    combat = tie()
    assert combat.unit("Horns").musician
    # No wounds, one rank each (no ranks), Unit Strength 5 against 5: 0 = 0, a draw.
    result = combat_result(combat, initial_state(combat), ())
    assert (result.score("A"), result.score("B"), result.winner) == (0, 0, None)
    # With musician_tie set, the one side with a musician takes +1: 1 against 0.
    tied = tie(musician_tie=True)
    result = combat_result(tied, initial_state(tied), ())
    assert (result.score("A"), result.score("B"), result.winner) == (1, 0, "A")
    assert ("Musician (equal totals)", 1, "Horns") in rows(result, "A")


# Supporting attacks come from every troop type; `supporting_models: 0` turns them off.


@pytest.mark.parametrize(("supporting", "attacks"), [(None, 15), (0, 10)])
def test_cavalry_give_supporting_attacks_unless_told_not_to(
    supporting: int | None, attacks: int
) -> None:
    extra = {} if supporting is None else {"supporting_models": supporting}
    combat = build(
        [
            unit_doc(
                "Riders",
                "A",
                models=10,
                files=5,
                troop_type="cavalry",
                profile="8 3 3 3 3 1 3 2 7",
                **extra,
            ),
            unit_doc("Foe", "B", models=10, files=10),
        ],
        [engage("Riders", "Foe")],
    )
    state = initial_state(combat)
    # 10 riders 5 wide: 5 fight with A 2 and the 5 behind add 1 each: 5 × 2 + 5 = 15.
    # With supporting_models 0: 5 × 2 = 10.
    support = 5 if supporting is None else supporting
    assert fighting_models(combat, state, combat.unit("Riders"), 1) == (5, support)
    record = next(r for r in strike_records(combat, state, 1) if r.attacker_unit == "Riders")
    assert record.attacks == attacks


# A standard needs its rank-and-file bearer; a character's battle standard does not.


def test_the_battle_standard_stays_when_only_its_bearer_stands() -> None:
    combat = build(
        [
            unit_doc(
                "Guard",
                "A",
                models=4,
                files=4,
                command={"standard": True, "battle_standard": "Sigmar"},
                characters=[{"name": "Sigmar", "profile": "4 5 5 4 4 2 5 3 8"}],
            ),
            unit_doc("Foe", "B", models=4, files=4),
        ],
        [engage("Guard", "Foe")],
        outnumber_bonus=False,
    )
    state = initial_state(combat)
    # Guards and Sigmar standing: standard 1 + battle standard 1 = 2.
    assert combat_result(combat, state, ()).score("A") == 2
    # The four guards slain, Sigmar standing: the standard is gone, his battle standard
    # stays: 0 + 1 = 1.
    state["Guard"] = state["Guard"]._replace(rank_and_file_wounds=0)
    assert rows(combat_result(combat, state, ()), "A") == [
        ("Ranks", 0, "Guard in the front of Foe"),
        ("Battle standard", 1, "Sigmar"),
    ]
