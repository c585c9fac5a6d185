"""The loser's break test, Steadfast, Stubborn, Unbreakable; flight and pursuit."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from fracas.core.dice import ScriptedDice
from fracas.core.distribution import check_group
from fracas.rulesets.rankflank.breaktest import (
    BreakStance,
    BreakTests,
    break_test,
    is_steadfast,
    roll_dice,
)
from fracas.rulesets.rankflank.formation import initial_state, models_alive
from fracas.rulesets.rankflank.play import fight_round, play_combat
from fracas.rulesets.rankflank.scenario import Combat

from .conftest import STILL, combat_from, engage, hill_raiders, unit_doc


def script(*groups: list[int]) -> ScriptedDice:
    """Scripted dice from groups of faces, one group per roll of the rules."""
    return ScriptedDice(face for group in groups for face in group)


def build(units: list[dict[str, Any]], engagements: list[dict[str, str]], **params: Any) -> Combat:
    return combat_from({"units": units, "engagements": engagements, "parameters": params})


def block_against(front: int, *, flank: int = 0, **params: Any) -> Combat:
    units = [
        unit_doc("Block", "A", models=30, files=5),
        unit_doc("Front", "B", models=front, files=5),
    ]
    engagements = [engage("Front", "Block")]
    if flank:
        units.append(unit_doc("Riders", "B", models=flank, files=flank, troop_type="cavalry"))
        engagements.append(engage("Riders", "Block", "left"))
    return build(units, engagements, **params)


def test_steadfast_tests_on_unmodified_leadership() -> None:
    combat = block_against(10)
    # Block: US 30 > 10, at least 10, ranks of 5 → Steadfast. Lost by 4, Ld 7:
    # the target stays 7, so 3 + 4 = 7 passes.
    test = break_test(combat, initial_state(combat), combat.unit("Block"), 4, ScriptedDice([3, 4]))
    assert (test.steadfast, test.target, test.passed) == (True, 7, True)


def test_without_steadfast_the_difference_counts() -> None:
    combat = block_against(40)
    # US 30 < 40: not Steadfast; 7 - 4 = 3, so 3 + 4 = 7 fails.
    test = break_test(combat, initial_state(combat), combat.unit("Block"), 4, ScriptedDice([3, 4]))
    assert (test.steadfast, test.target, test.passed) == (False, 3, False)


def test_equal_unit_strength_is_not_steadfast() -> None:
    combat = block_against(30)
    # US 30 against 30 is not *higher*: 7 - 4 = 3, so 3 + 4 = 7 fails.
    test = break_test(combat, initial_state(combat), combat.unit("Block"), 4, ScriptedDice([3, 4]))
    assert (test.steadfast, test.target, test.passed) == (False, 3, False)


def test_steadfast_needs_a_rank_of_five() -> None:
    combat = build(
        [unit_doc("Column", "A", models=32, files=4), unit_doc("Front", "B", models=10, files=5)],
        [engage("Front", "Column")],
    )
    # US 32 > 10 and at least 10, but 4 wide: no rank of 5 → not Steadfast, 7 - 4 = 3.
    test = break_test(combat, initial_state(combat), combat.unit("Column"), 4, ScriptedDice([3, 4]))
    assert (test.steadfast, test.target, test.passed) == (False, 3, False)


def test_steadfast_needs_unit_strength_ten() -> None:
    combat = build(
        [unit_doc("Small", "A", models=9, files=5), unit_doc("Tiny", "B", models=3, files=3)],
        [engage("Tiny", "Small")],
    )
    # US 9 > 3 with a rank of 5, but below 10 → not Steadfast: 7 - 2 = 5; 3 + 3 = 6 fails.
    test = break_test(combat, initial_state(combat), combat.unit("Small"), 2, ScriptedDice([3, 3]))
    assert (test.steadfast, test.target, test.passed) == (False, 5, False)


def test_a_disrupted_unit_is_never_steadfast() -> None:
    combat = block_against(10, flank=5)
    # US 30 > 10 + 10 = 20, but 5 riders (US 10) in its flank disrupt it: 7 - 4 = 3.
    test = break_test(combat, initial_state(combat), combat.unit("Block"), 4, ScriptedDice([3, 4]))
    assert (test.steadfast, test.disrupted_by, test.target, test.passed) == (
        False,
        "Riders",
        3,
        False,
    )


@pytest.mark.parametrize("difference", [0, 5, 12, 20])
def test_double_one_passes_at_any_modifier(difference: int) -> None:
    combat = block_against(40)
    state = initial_state(combat)
    test = break_test(combat, state, combat.unit("Block"), difference, ScriptedDice([1, 1]))
    assert test.passed
    if difference >= 5:  # 7 - 5 = 2 < 1 + 2: a 1 and a 2 fail
        other = break_test(combat, state, combat.unit("Block"), difference, ScriptedDice([1, 2]))
        assert not other.passed


def test_unbreakable_rolls_nothing_and_passes() -> None:
    combat = build(
        [
            unit_doc("Dead", "A", models=10, files=5, rules=["unbreakable"]),
            unit_doc("Foe", "B", models=40, files=5),
        ],
        [engage("Foe", "Dead")],
    )
    dice = ScriptedDice([])
    test = break_test(combat, initial_state(combat), combat.unit("Dead"), 9, dice)
    assert (test.unbreakable, test.faces, test.passed) == (True, (), True)


def test_stubborn_tests_on_unmodified_leadership() -> None:
    combat = build(
        [
            unit_doc("Few", "A", models=5, files=5, rules=["stubborn"]),
            unit_doc("Foe", "B", models=40, files=5),
        ],
        [engage("Foe", "Few")],
    )
    # US 5 against 40: not Steadfast, but Stubborn: lost by 6, still needs ≤ 7; 3 + 4 passes.
    test = break_test(combat, initial_state(combat), combat.unit("Few"), 6, ScriptedDice([3, 4]))
    assert (test.steadfast, test.stubborn, test.target, test.passed) == (False, True, 7, True)


def test_stubborn_but_disrupted_uses_the_difference() -> None:
    combat = build(
        [
            unit_doc("Few", "A", models=5, files=5, rules=["stubborn"]),
            unit_doc("Foe", "B", models=40, files=5),
            unit_doc("Riders", "B", models=5, files=5, troop_type="cavalry"),
        ],
        [engage("Foe", "Few"), engage("Riders", "Few", "rear")],
    )
    # Disrupted (US 10 in its rear): 7 - 6 = 1.
    test = break_test(combat, initial_state(combat), combat.unit("Few"), 6, ScriptedDice([3, 4]))
    assert (test.target, test.passed) == (1, False)


def test_stubborn_character_lends_the_rule_and_best_leadership() -> None:
    combat = build(
        [
            unit_doc(
                "Few",
                "A",
                models=5,
                files=5,
                characters=[
                    {"name": "Thane", "profile": "3 6 3 4 5 2 4 3 9", "rules": ["stubborn"]}
                ],
            ),
            unit_doc("Foe", "B", models=40, files=5),
        ],
        [engage("Foe", "Few")],
    )
    test = break_test(combat, initial_state(combat), combat.unit("Few"), 6, ScriptedDice([5, 4]))
    # The thane's Ld 9 and his Stubborn: needs ≤ 9; 5 + 4 = 9 passes.
    assert (test.leadership, test.target, test.passed) == (9, 9, True)


def test_eighth_edition_steadfast_means_more_ranks() -> None:
    three_ranks = build(
        [unit_doc("Deep", "A", models=15, files=5), unit_doc("Wide", "B", models=20, files=10)],
        [engage("Wide", "Deep")],
        edition="eighth",
    )
    # 3 ranks of 5 against 2 ranks of 10: Steadfast though US 15 < 20.
    assert is_steadfast(three_ranks, initial_state(three_ranks), three_ranks.unit("Deep"))
    ninth = build(
        [unit_doc("Deep", "A", models=15, files=5), unit_doc("Wide", "B", models=20, files=10)],
        [engage("Wide", "Deep")],
    )
    assert not is_steadfast(ninth, initial_state(ninth), ninth.unit("Deep"))


def test_eighth_edition_equal_ranks_are_not_steadfast() -> None:
    combat = build(
        [unit_doc("Deep", "A", models=15, files=5), unit_doc("Same", "B", models=15, files=5)],
        [engage("Same", "Deep")],
        edition="eighth",
    )
    # 3 ranks of 5 against 3 ranks of 5: not *more* ranks.
    assert not is_steadfast(combat, initial_state(combat), combat.unit("Deep"))


def eighth_flanked(**params: Any) -> Combat:
    # Block: 30 models 5 wide = 6 ranks of 5. Front: 10 models 5 wide = 2 ranks. Riders in
    # its flank: 10 models 5 wide = 2 ranks of 5, which disrupts in eighth.
    return build(
        [
            unit_doc("Block", "A", **{"models": 30, "files": 5, **params.pop("block", {})}),
            unit_doc("Front", "B", models=10, files=5),
            unit_doc("Riders", "B", models=10, files=5),
        ],
        [engage("Front", "Block"), engage("Riders", "Block", "left")],
        edition="eighth",
        **params,
    )


def test_eighth_edition_disrupted_units_keep_steadfast() -> None:
    combat = eighth_flanked()
    state = initial_state(combat)
    block = combat.unit("Block")
    # Disrupted (its ranks do not count), yet 6 ranks against 2: Steadfast, Ld 7 unmodified.
    test = break_test(combat, state, block, 4, ScriptedDice([3, 4]))
    assert (test.disrupted_by, test.steadfast, test.target, test.passed) == (
        "Riders",
        True,
        7,
        True,
    )
    # The option set back to the seed's rule: disrupted, so 7 - 4 = 3 and 3 + 4 fails.
    seed_rule = eighth_flanked(disrupted_can_be_steadfast=False)
    test = break_test(seed_rule, state, seed_rule.unit("Block"), 4, ScriptedDice([3, 4]))
    assert (test.steadfast, test.target, test.passed) == (False, 3, False)


def test_eighth_edition_disrupted_stubborn_units_stay_stubborn() -> None:
    combat = eighth_flanked(block={"models": 5, "rules": ["stubborn"]})
    # 1 rank against 2: not Steadfast, but Stubborn, and eighth lets a disrupted unit be
    # steady: needs ≤ 7 despite losing by 6.
    test = break_test(combat, initial_state(combat), combat.unit("Block"), 6, ScriptedDice([3, 4]))
    assert (test.steadfast, test.stubborn, test.target, test.passed) == (False, True, 7, True)


def test_swiftstride_rolls_three_dice_and_drops_the_lowest() -> None:
    assert roll_dice(ScriptedDice([5, 1, 4]), 3, keep=2) == (5, 4)


def rout(**extra: Any) -> Combat:
    # A: 3 models on a hill, charging with a standard: 1 + 1 + 1 = 3.
    # B: 5 ogres (US 15, 15 wounds): +1 for Unit Strength. A wins by 2, but B is Steadfast
    # (US 15 > 3, at least 10, a full rank of 5, not disrupted): B needs ≤ 7, unmodified.
    return build(
        [
            hill_raiders(**extra.pop("raiders", {})),
            unit_doc(
                "Ogres",
                "B",
                models=5,
                files=5,
                troop_type="monstrous_infantry",
                profile="6 3 2 4 4 3 2 0 7",
                **extra.pop("ogres", {}),
            ),
        ],
        [engage("Raiders", "Ogres")],
        supporting_attacks=0,
        max_rounds=1,
        **extra,
    )


def test_caught_takes_two_wounds_per_pursuing_unit_strength_in_ninth() -> None:
    combat = rout()
    dice = script([6, 6], [3, 3], [4, 2])  # fails; flees 6; pursues 6 ≥ 6
    fought = fight_round(combat, initial_state(combat), 1, dice)
    assert (fought.result.score("A"), fought.result.score("B")) == (3, 1)
    (test,) = fought.break_tests
    assert (test.steadfast, test.target, test.passed) == (True, 7, False)
    pursuit = fought.pursuits[0]
    assert (pursuit.distance, pursuit.caught) == (6, True)
    # 2 wounds × US 3 = 6 wounds without saves: 15 - 6 = 9 → 3 ogres left.
    assert models_alive(combat.unit("Ogres"), fought.state_after["Ogres"]) == 3


def test_caught_is_destroyed_in_eighth() -> None:
    combat = rout(edition="eighth")
    dice = script([6, 6], [3, 3], [4, 2])
    fought = fight_round(combat, initial_state(combat), 1, dice)
    # eighth: no Unit Strength bonus, so 3 against 0; but B has one rank of 5 against A's
    # none, so B is Steadfast and needs ≤ 7, unmodified; 6 + 6 = 12 fails.
    (test,) = fought.break_tests
    assert (fought.result.score("B"), test.steadfast, test.target) == (0, True, 7)
    assert fought.pursuits[0].caught
    assert models_alive(combat.unit("Ogres"), fought.state_after["Ogres"]) == 0


def test_a_swift_fleeing_unit_escapes() -> None:
    combat = rout(ogres={"rules": ["swiftstride"]})
    dice = script([6, 6], [1, 5, 4], [4, 2])  # flees 5 + 4 = 9; pursuit 6 < 9
    fought = fight_round(combat, initial_state(combat), 1, dice)
    assert (fought.pursuits[0].distance, fought.pursuits[0].caught) == (9, False)
    assert fought.state_after["Ogres"].fled
    assert dice.remaining == 0


def test_a_winner_may_restrain_with_a_leadership_test() -> None:
    combat = rout(raiders={"restrain": True})
    dice = script([6, 6], [3, 3], [2, 3])  # flees 6; restrain 2 + 3 ≤ Ld 7
    fought = fight_round(combat, initial_state(combat), 1, dice)
    chaser = fought.pursuits[0].pursuers[0]
    assert (chaser.restrained, chaser.faces, fought.pursuits[0].caught) == (True, (), False)
    assert dice.remaining == 0


def test_the_combat_ends_when_the_loser_breaks() -> None:
    # The fight of rout(), which allows one round, here allowed five.
    combat = build(
        [
            hill_raiders(),
            unit_doc(
                "Ogres",
                "B",
                models=5,
                files=5,
                troop_type="monstrous_infantry",
                profile="6 3 2 4 4 3 2 0 7",
            ),
        ],
        [engage("Raiders", "Ogres")],
        supporting_attacks=0,
        max_rounds=5,
    )
    # Round 1 as in the caught test: 3 against 1, 6 + 6 fails, flees 6, pursued 6: caught.
    dice = script([6, 6], [3, 3], [4, 2])
    outcome = play_combat(combat, dice)
    # The ogres fled: nobody is left to fight, so one round of the five is fought.
    assert len(outcome.rounds) == 1
    assert outcome.final["Ogres"].fled
    assert dice.remaining == 0


def test_the_combat_ends_when_a_side_is_destroyed() -> None:
    combat = build(
        [
            unit_doc("Knights", "A", models=5, files=5, charged=True, profile="4 4 3 5 3 1 3 1 8"),
            unit_doc("Lone", "B", models=1, files=1, profile=STILL),
        ],
        [engage("Knights", "Lone")],
        max_rounds=5,
    )
    dice = ScriptedDice([6] * 5 + [6] * 5)  # 5 hits, 5 wounds on the lone model
    outcome = play_combat(combat, dice)
    assert len(outcome.rounds) == 1
    assert outcome.rounds[0].result.wiped_out == ("B",)


def test_a_draw_means_no_break_test_and_another_round() -> None:
    combat = build(
        [
            unit_doc("Left", "A", models=5, files=5, profile=STILL),
            unit_doc("Right", "B", models=5, files=5, profile=STILL),
        ],
        [engage("Left", "Right")],
        supporting_attacks=0,
        max_rounds=2,
    )
    fought = fight_round(combat, initial_state(combat), 1, ScriptedDice([]))
    assert (fought.result.winner, fought.break_tests) == (None, ())


def test_wiped_out_side_means_reform_or_overrun() -> None:
    units = [
        unit_doc("Knights", "A", models=5, files=5, charged=True, profile="4 4 3 5 3 1 3 1 8"),
        unit_doc("Lone", "B", models=1, files=1, profile=STILL),
    ]
    dice = [6] * 5 + [6] * 5  # 5 hits, 5 wounds: the first slays the lone model
    reform = build(units, [engage("Knights", "Lone")], max_rounds=1)
    fought = fight_round(reform, initial_state(reform), 1, ScriptedDice(dice))
    assert fought.result.wiped_out == ("B",)
    assert fought.aftermath == ("Knights restrains pursuit and reforms.",)
    overrun = build(units, [engage("Knights", "Lone")], max_rounds=1, overrun=True)
    fought = fight_round(overrun, initial_state(overrun), 1, ScriptedDice(dice))
    assert fought.aftermath == ("Knights overruns.",)
    # Only a unit that charged this turn may overrun: not one that was charged...
    held = [{**units[0], "charged": False}, units[1]]
    waited = build(held, [engage("Knights", "Lone")], max_rounds=1, overrun=True)
    fought = fight_round(waited, initial_state(waited), 1, ScriptedDice(dice))
    assert fought.aftermath == ("Knights restrains pursuit and reforms.",)
    # ...nor a charger that wipes the enemy out in a later round.
    fought = fight_round(overrun, initial_state(overrun), 2, ScriptedDice(dice))
    assert fought.aftermath == ("Knights restrains pursuit and reforms.",)


def test_one_pursuit_roll_chases_every_fleeing_unit() -> None:
    combat = build(
        [
            unit_doc("Wall", "A", models=20, files=5, profile=STILL, command={"standard": True}),
            unit_doc("Rats1", "B", models=3, files=3, profile=STILL),
            unit_doc("Rats2", "B", models=3, files=3, profile=STILL),
        ],
        [engage("Rats1", "Wall"), engage("Rats2", "Wall")],
        supporting_attacks=0,
        max_rounds=1,
    )
    # A: 3 ranks + 1 standard + 1 Unit Strength (20 against 6) = 5; B: 0 → each needs ≤ 2.
    dice = script([6, 6], [6, 6], [3, 3], [4, 4], [5, 5])
    fought = fight_round(combat, initial_state(combat), 1, dice)
    assert fought.result.score("A") == 5
    # Rats1 flees 6, the Wall rolls 8 once: caught. Rats2 flees 10: the same 8 misses it.
    assert [(p.unit, p.distance, p.caught) for p in fought.pursuits] == [
        ("Rats1", 6, True),
        ("Rats2", 10, False),
    ]
    assert [p.pursuers[0].distance for p in fought.pursuits] == [8, 8]
    assert dice.remaining == 0


def test_the_losers_break_tests_are_one_group_rolled_in_order() -> None:
    # Two units lost by 2: Ld 7 tests on 5 or less (10 of 36 rolls of 2D6), Ld 9 on 7 or
    # less (21 of 36); an Unbreakable third unit rolls nothing and holds.
    stances = (
        BreakStance("Front", 7, False, False, False, None, False),
        BreakStance("Rear", 9, False, False, False, None, False),
        BreakStance("Golems", 6, False, False, True, None, False),
    )
    tests = BreakTests.of(stances, 2)
    assert tests.targets == (5, 7, None)
    law = dict(tests.law())
    assert law[(True, True, True)] == Fraction(10 * 21, 36 * 36)
    assert law[(False, True, True)] == Fraction(26 * 21, 36 * 36)
    assert law[(False, False, True)] == Fraction(26 * 15, 36 * 36)
    assert sum(law.values()) == 1
    assert check_group(tests)
    # Play rolls Front's 2D6 then Rear's: 3 + 3 = 6 breaks Front, 4 + 3 = 7 holds Rear.
    held, records = tests.roll(ScriptedDice([3, 3, 4, 3]))
    assert held == (False, True, True)
    assert [(r.unit, r.faces, r.passed) for r in records] == [
        ("Front", (3, 3), False),
        ("Rear", (4, 3), True),
        ("Golems", (), True),
    ]


def test_break_tests_compare_by_their_targets_alone() -> None:
    # Two units' tests with the same targets have the same law: exact odds look it up once.
    calm = BreakTests.of((BreakStance("A", 8, True, False, False, None, True),), 3)
    shaken = BreakTests.of((BreakStance("B", 11, False, False, False, None, False),), 3)
    assert calm.targets == shaken.targets == (8,)  # 8 unmodified; 11 - 3
    assert calm == shaken
    assert hash(calm) == hash(shaken)
    assert calm.units != shaken.units
