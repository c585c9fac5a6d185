"""The combat result, sentence by sentence of the seed, with totals worked out by hand.

Each test builds a combat, feeds the wounds directly and reads the scores on the
combat's state (the state *after* the round's casualties).
"""

from __future__ import annotations

from typing import Any

import pytest

from fracas.core.errors import ScenarioError
from fracas.rulesets.rankflank.formation import initial_state
from fracas.rulesets.rankflank.result import (
    CombatResult,
    OverkillCredit,
    WoundCredit,
    combat_result,
)
from fracas.rulesets.rankflank.scenario import Combat

from .conftest import combat_from, engage, unit_doc

SOLDIER = "4 3 3 3 3 1 3 1 7"


def build(units: list[dict[str, Any]], engagements: list[dict[str, str]], **params: Any) -> Combat:
    return combat_from({"units": units, "engagements": engagements, "parameters": params})


def score(
    combat: Combat,
    credits: tuple[WoundCredit, ...] = (),
    *,
    state: Any = None,
    round_number: int = 1,
    overkill: tuple[OverkillCredit, ...] = (),
) -> CombatResult:
    return combat_result(
        combat,
        state if state is not None else initial_state(combat),
        credits,
        round_number=round_number,
        overkill=overkill,
    )


def rows(result: CombatResult, side: str, label: str) -> list[int]:
    return [int(row.value) for row in result.scores[side].rows if row.label == label]


# Paragraph 1 ("Each side's combat result starts with the number of Wounds…")


def test_wounds_count_unsaved_wounds_not_casualties() -> None:
    # A troll (W 3) takes 2 unsaved wounds and does not die: the side still scores 2.
    combat = build(
        [
            unit_doc("Guard", "A", models=10, files=10),
            unit_doc(
                "Troll", "B", models=1, files=1, troop_type="monster", profile="6 3 1 5 4 3 1 3 4"
            ),
        ],
        [engage("Guard", "Troll")],
    )
    state = initial_state(combat)
    state["Troll"] = state["Troll"]._replace(rank_and_file_wounds=1)
    result = score(combat, (WoundCredit("A", "Guard", "Troll", 2),), state=state)
    # A: 2 wounds; the troll's US 3 (its W) < Guard's 10 → +1 outnumber. 2 + 1 = 3.
    assert result.score("A") == 2 + 1


def test_wounds_on_own_models_never_count() -> None:
    combat = build(
        [unit_doc("Guard", "A", models=10, files=10), unit_doc("Rats", "B", models=10, files=10)],
        [engage("Guard", "Rats")],
    )
    credits = (
        WoundCredit("B", "Rats", "Guard", 3),
        WoundCredit("B", "Warp lightning", "Rats", 4),  # hit their own unit
    )
    result = score(combat, credits)
    # B: 3 wounds on the enemy; the 4 on its own Rats add 0 (shown as a row of 0).
    assert result.score("B") == 3
    assert rows(result, "B", "Wounds on own models (not counted)") == [0]


def test_wounds_from_other_sources_count_for_the_side() -> None:
    combat = build(
        [unit_doc("Guard", "A", models=10, files=10), unit_doc("Rats", "B", models=10, files=10)],
        [engage("Guard", "Rats")],
    )
    credits = (WoundCredit("A", "Guard", "Rats", 2), WoundCredit("A", "Impact hits", "Rats", 3))
    # 2 from the blows + 3 impact hits = 5.
    assert score(combat, credits).score("A") == 5


# Paragraph 2 ("A unit that charged this turn adds +1…")


def test_charge_adds_one_per_charging_unit() -> None:
    combat = build(
        [
            unit_doc("Guard", "A", models=4, files=4, charged=True),
            unit_doc("Swords", "A", models=4, files=4, charged=True),
            unit_doc("Rats", "B", models=30, files=10),
        ],
        [engage("Guard", "Rats"), engage("Swords", "Rats")],
    )
    # Two units charged the same target: 1 + 1 = 2 (4-wide units add no ranks).
    assert score(combat).score("A") == 2
    # In the second round nobody has charged this turn.
    assert score(combat, round_number=2).score("A") == 0


# Paragraph 3 ("A unit at least five models wide adds +1…")


def ranks_of(models: int, files: int, **params: Any) -> int:
    combat = build(
        [
            unit_doc("Block", "A", models=models, files=files),
            unit_doc(
                "Foe", "B", models=1, files=1, troop_type="monster", profile="6 3 1 5 4 9 1 3 4"
            ),
        ],
        [engage("Block", "Foe")],
        outnumber_bonus=False,
        **params,
    )
    return score(combat).score("A")


def test_ranks_of_a_deep_block() -> None:
    # 20 models 5 wide: ranks 5,5,5,5 → 3 extra ranks behind the fighting rank → +3.
    assert ranks_of(20, 5) == 3
    # 15 models 5 wide: 5,5,5 → +2.
    assert ranks_of(15, 5) == 2


def test_ranks_are_capped_at_three() -> None:
    # 40 models 5 wide: 7 extra ranks, capped → +3.
    assert ranks_of(40, 5) == 3
    # The cap is a parameter: max_rank_bonus=5 → min(7, 5) = 5.
    assert ranks_of(40, 5, max_rank_bonus=5) == 5


def test_a_unit_four_wide_gets_no_ranks() -> None:
    # 20 models 4 wide: five ranks of 4, but the unit is not five wide → 0.
    assert ranks_of(20, 4) == 0


def test_incomplete_rear_rank_counts_only_with_five_models() -> None:
    # 6 wide, 17 models: 6, 6, 5 → the rear rank of 5 counts: 2 extra ranks.
    assert ranks_of(17, 6) == 2
    # 6 wide, 16 models: 6, 6, 4 → the rear rank of 4 does not: 1 extra rank.
    assert ranks_of(16, 6) == 1


def test_two_units_in_one_arc_count_only_the_higher() -> None:
    combat = build(
        [
            unit_doc("Three", "A", models=15, files=5),  # 2 extra ranks
            unit_doc("Four", "A", models=20, files=5),  # 3 extra ranks
            unit_doc("Wall", "B", models=40, files=10),
        ],
        [engage("Three", "Wall"), engage("Four", "Wall")],
        outnumber_bonus=False,
    )
    result = score(combat)
    # Both in the Wall's front: max(2, 3) = 3, not 2 + 3 = 5.
    assert result.score("A") == 3
    assert rows(result, "A", "Ranks (shared arc: the higher counts)") == [0]


def test_the_higher_counts_whichever_unit_is_listed_first() -> None:
    combat = build(
        [
            unit_doc("Four", "A", models=20, files=5),  # 3 extra ranks, listed first
            unit_doc("Three", "A", models=15, files=5),  # 2 extra ranks
            unit_doc("Wall", "B", models=40, files=10),
        ],
        [engage("Three", "Wall"), engage("Four", "Wall")],
        outnumber_bonus=False,
    )
    result = score(combat)
    # max(3, 2) = 3, and the +3 row names the deeper unit.
    assert result.score("A") == 3
    ranks = [(r.label, int(r.value), r.source) for r in result.scores["A"].rows[1:]]
    assert ranks == [
        ("Ranks", 3, "Four in the front of Wall"),
        ("Ranks (shared arc: the higher counts)", 0, "Three in the front of Wall"),
    ]


def test_a_unit_in_two_arcs_counts_once_whatever_the_file_order() -> None:
    def two_fronts(order: list[dict[str, str]]) -> CombatResult:
        combat = build(
            [
                unit_doc("Big", "A", models=20, files=5),  # 3 extra ranks
                unit_doc("Small", "A", models=15, files=5),  # 2 extra ranks
                unit_doc("Left", "B", models=8, files=4),
                unit_doc("Right", "B", models=8, files=4),
            ],
            order,
            outnumber_bonus=False,
        )
        return score(combat)

    big_left, big_right, small_left = (
        engage("Big", "Left"),
        engage("Big", "Right"),
        engage("Small", "Left"),
    )
    # Big fights the fronts of Left and Right, Small the front of Left too. Big's ranks
    # count once: +3 in Right's front, and Left's front then counts Small's +2 → 5.
    # Counting Big in Left's front instead would leave Right's front empty: 3 < 5.
    for order in ([big_left, big_right, small_left], [big_right, big_left, small_left]):
        result = two_fronts(order)
        assert result.score("A") == 3 + 2
        assert sorted(r.source for r in result.scores["A"].rows if r.label == "Ranks") == [
            "Big in the front of Right",
            "Small in the front of Left",
        ]


def test_units_in_different_arcs_each_count_their_ranks() -> None:
    combat = build(
        [
            unit_doc("Front", "A", models=15, files=5),  # 2 extra ranks
            unit_doc("Rear", "A", models=20, files=5),  # 3 extra ranks
            unit_doc("Wall", "B", models=40, files=10),
        ],
        [engage("Front", "Wall"), engage("Rear", "Wall", "rear")],
        outnumber_bonus=False,
    )
    # Ranks: 2 (front arc) + 3 (rear arc) = 5; rear +2 → 7.
    assert score(combat).score("A") == 2 + 3 + 2


# Paragraph 4 ("A disrupted unit gets no bonus for extra ranks…")


def flanked(flankers: int, troop_type: str = "cavalry", **params: Any) -> Combat:
    return build(
        [
            unit_doc("Block", "A", models=30, files=5),  # 5 extra ranks → +3 if not disrupted
            unit_doc("Swords", "B", models=10, files=5),
            unit_doc("Riders", "B", models=flankers, files=flankers, troop_type=troop_type),
        ],
        [engage("Swords", "Block"), engage("Riders", "Block", "left")],
        outnumber_bonus=False,
        **params,
    )


def test_an_enemy_of_unit_strength_ten_in_the_flank_disrupts() -> None:
    combat = flanked(5)  # 5 cavalry × US 2 = 10
    result = score(combat)
    # Block disrupted: ranks 0, nothing else → 0.
    assert result.score("A") == 0
    assert rows(result, "A", "Ranks") == [0]


def test_a_smaller_enemy_does_not_disrupt() -> None:
    combat = flanked(4)  # 4 cavalry × US 2 = 8 < 10
    # Not disrupted: 30 models 5 wide → 5 extra ranks, capped → +3.
    assert score(combat).score("A") == 3


def test_disruption_ends_when_the_flanker_drops_below_ten() -> None:
    combat = flanked(5)
    state = initial_state(combat)
    # One rider slain this round: 4 × 2 = 8 < 10 → the disruption is lifted.
    state["Riders"] = state["Riders"]._replace(rank_and_file_wounds=4)
    assert score(combat, state=state).score("A") == 3


def test_eighth_edition_disrupts_by_ranks_of_five() -> None:
    # eighth: a flanker with 2 ranks of 5 disrupts, whatever its Unit Strength.
    one_rank = flanked(10, "infantry", edition="eighth")  # 10 models in one rank of 10
    combat = build(
        [
            unit_doc("Block", "A", models=30, files=5),
            unit_doc("Swords", "B", models=10, files=5),
            unit_doc("Riders", "B", models=10, files=5),  # 2 ranks of 5, US 10
        ],
        [engage("Swords", "Block"), engage("Riders", "Block", "left")],
        edition="eighth",
    )
    assert score(combat).score("A") == 0
    # 10 models in one rank of 10 (US 10 but a single rank) do not disrupt → +3.
    assert score(one_rank).score("A") == 3


# Paragraph 5 ("A unit with higher Unit Strength than its enemy adds +1…")


def test_higher_unit_strength_adds_one() -> None:
    combat = build(
        [unit_doc("Many", "A", models=12, files=4), unit_doc("Few", "B", models=8, files=4)],
        [engage("Many", "Few")],
    )
    # US 12 > 8 → A +1; B nothing (4 wide, no ranks).
    assert (score(combat).score("A"), score(combat).score("B")) == (1, 0)


def test_unit_strength_is_combined_across_units() -> None:
    combat = build(
        [
            unit_doc("Left", "A", models=8, files=4),
            unit_doc("Right", "A", models=8, files=4),
            unit_doc(
                "Ogres",
                "B",
                models=4,
                files=4,
                troop_type="monstrous_infantry",
                profile="6 3 2 4 4 3 2 3 7",
            ),
        ],
        [engage("Left", "Ogres"), engage("Right", "Ogres")],
    )
    result = score(combat)
    # A: 8 + 8 = 16 against the ogres' 4 × 3 = 12: A +1, though each unit alone is smaller.
    assert (result.score("A"), result.score("B")) == (1, 0)
    (row,) = (r for r in result.scores["A"].rows if r.label == "Higher Unit Strength")
    assert row.source == "Left 8 + Right 8 = 16 vs Ogres 12"


def test_eighth_edition_has_no_outnumber_bonus() -> None:
    combat = build(
        [unit_doc("Many", "A", models=12, files=4), unit_doc("Few", "B", models=8, files=4)],
        [engage("Many", "Few")],
        edition="eighth",
    )
    assert score(combat).score("A") == 0


# Paragraphs 6 and 7 (standards and the battle standard)


def test_standards_are_cumulative_per_unit() -> None:
    combat = build(
        [
            unit_doc("Left", "A", models=4, files=4, command={"standard": True}),
            unit_doc("Right", "A", models=4, files=4, command={"standard": True}),
            unit_doc("Foe", "B", models=8, files=4),
        ],
        [engage("Left", "Foe"), engage("Right", "Foe")],
        outnumber_bonus=False,
    )
    # Two standards: 1 + 1 = 2.
    assert score(combat).score("A") == 2


def test_a_standard_needs_rank_and_file_to_carry_it() -> None:
    combat = build(
        [
            unit_doc(
                "Guard",
                "A",
                models=2,
                files=2,
                command={"standard": True},
                characters=[{"name": "Hero", "profile": "4 6 3 4 4 3 6 4 9"}],
            ),
            unit_doc("Foe", "B", models=4, files=4),
        ],
        [engage("Guard", "Foe")],
        outnumber_bonus=False,
    )
    # With its two rank and file standing: standard +1.
    assert score(combat).score("A") == 1
    state = initial_state(combat)
    state["Guard"] = state["Guard"]._replace(rank_and_file_wounds=0)
    # Only the hero is left: nobody carries the standard → 0.
    assert score(combat, state=state).score("A") == 0


def test_battle_standard_adds_to_the_ordinary_standard() -> None:
    combat = build(
        [
            unit_doc(
                "Guard", "A", models=4, files=4, command={"standard": True, "battle_standard": True}
            ),
            unit_doc("Foe", "B", models=4, files=4),
        ],
        [engage("Guard", "Foe")],
        outnumber_bonus=False,
    )
    # Standard +1 and battle standard +1 = 2.
    assert score(combat).score("A") == 2


def test_hand_worked_eighth_and_ninth_totals() -> None:
    """6 wounds + charge + 3 ranks + standard + flank against 3 wounds + battle standard."""
    units = [
        unit_doc("Block", "A", models=20, files=5, charged=True, command={"standard": True}),
        unit_doc("Guard", "B", models=10, files=5, command={"battle_standard": True}),
    ]
    credits = (WoundCredit("A", "Block", "Guard", 6), WoundCredit("B", "Guard", "Block", 3))
    eighth = score(build(units, [engage("Block", "Guard", "left")], edition="eighth"), credits)
    # eighth: 6 + 1 + 3 + 1 + 1 = 12 against 3 + 1 = 4 (Guard disrupted by 4 ranks of 5).
    assert (eighth.score("A"), eighth.score("B")) == (12, 4)
    assert (eighth.winner, eighth.difference) == ("A", 8)
    ninth = score(build(units, [engage("Block", "Guard", "left")]), credits)
    # ninth adds +1 for Unit Strength 20 > 10: 13 against 4.
    assert (ninth.score("A"), ninth.score("B")) == (13, 4)


# Paragraphs 8 and 9 (flank and rear)


def attack_from(*arcs: str, **params: Any) -> Combat:
    units = [unit_doc("Foe", "B", models=4, files=4)]
    engagements = []
    for index, arc in enumerate(arcs):
        units.append(unit_doc(f"U{index}", "A", models=3, files=3))
        engagements.append(engage(f"U{index}", "Foe", arc))
    return build(units, engagements, outnumber_bonus=False, **params)


def test_flank_adds_one() -> None:
    assert score(attack_from("left")).score("A") == 1


def test_both_flanks_add_two() -> None:
    # Engaged on left and right at once: +2 (not +1 per unit plus more).
    assert score(attack_from("left", "right")).score("A") == 2


def test_rear_adds_two() -> None:
    assert score(attack_from("rear")).score("A") == 2
    # Front, both flanks and rear: 0 + 2 + 2 = 4.
    assert score(attack_from("front", "left", "right", "rear")).score("A") == 4


def test_flank_and_rear_once_per_enemy_or_once_per_unit() -> None:
    # Two units in the left flank and two in the rear of one enemy. Per enemy (the default):
    # flank +1 + rear +2 = 3. Per unit: 1 + 1 + 2 + 2 = 6.
    arcs = ("left", "left", "rear", "rear")
    assert score(attack_from(*arcs)).score("A") == 3
    result = score(attack_from(*arcs, flank_and_rear_per="unit"))
    assert result.score("A") == 6
    assert rows(result, "A", "Flank") == [1, 1]
    assert rows(result, "A", "Rear") == [2, 2]
    # One unit in each flank: +2 either way.
    assert score(attack_from("left", "right", flank_and_rear_per="unit")).score("A") == 2


# Paragraph 10 ("A unit fighting from higher ground…")


def test_higher_ground_adds_one() -> None:
    combat = build(
        [
            unit_doc("Hill", "A", models=4, files=4, height=1),
            unit_doc("Foe", "B", models=4, files=4),
        ],
        [engage("Hill", "Foe")],
        outnumber_bonus=False,
    )
    assert (score(combat).score("A"), score(combat).score("B")) == (1, 0)


def test_charging_down_a_hill_counts_in_the_charge_round_only() -> None:
    combat = build(
        [
            unit_doc("Down", "A", models=4, files=4, charged=True, charged_downhill=True),
            unit_doc("Foe", "B", models=4, files=4),
        ],
        [engage("Down", "Foe")],
        outnumber_bonus=False,
    )
    # Round 1: charge +1, high ground +1 = 2; round 2: nothing.
    assert score(combat).score("A") == 2
    assert score(combat, round_number=2).score("A") == 0


def test_with_several_units_only_the_highest_fighting_rank_scores() -> None:
    combat = build(
        [
            unit_doc("Low", "A", models=4, files=4),
            unit_doc("Crest", "A", models=4, files=4, height=2),
            unit_doc("Slope", "B", models=4, files=4, height=1),
            unit_doc("Field", "B", models=4, files=4),
        ],
        [engage("Low", "Slope"), engage("Crest", "Field"), engage("Low", "Field")],
        outnumber_bonus=False,
    )
    result = score(combat)
    # Highest fighting rank: A's Crest (2) over B's Slope (1) → A +1, B 0.
    assert (result.score("A"), result.score("B")) == (1, 0)


def test_level_heights_give_no_bonus() -> None:
    combat = build(
        [
            unit_doc("Hill", "A", models=4, files=4, height=1),
            unit_doc("Hill2", "B", models=4, files=4, height=1),
        ],
        [engage("Hill", "Hill2")],
        outnumber_bonus=False,
    )
    assert (score(combat).score("A"), score(combat).score("B")) == (0, 0)


# Paragraph 11 ("If a character wins a challenge…")


def duel_combat(**params: Any) -> Combat:
    return build(
        [unit_doc("Guard", "A", models=4, files=4), unit_doc("Foe", "B", models=4, files=4)],
        [engage("Guard", "Foe")],
        outnumber_bonus=False,
        **params,
    )


def test_overkill_is_capped_at_three_in_ninth() -> None:
    # 5 excess wounds → min(5, 3) = 3.
    result = score(duel_combat(), overkill=(OverkillCredit("A", "Hero", 5),))
    assert result.score("A") == 3
    # 2 excess wounds → 2.
    assert score(duel_combat(), overkill=(OverkillCredit("A", "Hero", 2),)).score("A") == 2


def test_overkill_is_capped_at_five_in_eighth() -> None:
    result = score(duel_combat(edition="eighth"), overkill=(OverkillCredit("A", "Hero", 6),))
    # 6 excess wounds → min(6, 5) = 5.
    assert result.score("A") == 5


# Paragraph 12 ("Add up both sides' bonuses…")


def test_higher_total_wins_and_the_gap_is_the_difference() -> None:
    combat = duel_combat()
    credits = (WoundCredit("A", "Guard", "Foe", 5), WoundCredit("B", "Foe", "Guard", 2))
    result = score(combat, credits)
    # 5 - 2 = 3.
    assert (result.winner, result.loser, result.difference) == ("A", "B", 3)


def test_a_tie_is_a_draw() -> None:
    combat = duel_combat()
    credits = (WoundCredit("A", "Guard", "Foe", 2), WoundCredit("B", "Foe", "Guard", 2))
    result = score(combat, credits)
    assert (result.winner, result.loser, result.difference) == (None, None, 0)


# Paragraph 13 ("If one side is wiped out entirely…")


def test_a_wiped_out_side_loses_whatever_the_scores() -> None:
    combat = build(
        [
            unit_doc("Few", "A", models=2, files=2, command={"standard": True}),
            unit_doc("Block", "B", models=30, files=5, command={"standard": True}),
        ],
        [engage("Few", "Block")],
    )
    state = initial_state(combat)
    state["Few"] = state["Few"]._replace(rank_and_file_wounds=0)
    result = score(combat, (WoundCredit("B", "Block", "Few", 2),), state=state)
    # B scores 2 wounds + 1 standard + 1 US (30 > 0) = 4 (ranks, flank and rear need an
    # enemy still standing in that arc); A, wiped out, scores 0.
    assert (result.score("A"), result.score("B")) == (0, 4)
    assert (result.winner, result.wiped_out) == ("B", ("A",))


def test_a_unit_whose_enemy_fled_adds_nothing() -> None:
    combat = build(
        [
            unit_doc("Left", "A", models=4, files=4, command={"standard": True}),
            unit_doc("Right", "A", models=4, files=4, command={"standard": True}),
            unit_doc("Stays", "B", models=4, files=4),
            unit_doc("Gone", "B", models=4, files=4),
        ],
        [engage("Left", "Stays"), engage("Right", "Gone")],
    )
    state = initial_state(combat)
    state["Gone"] = state["Gone"]._replace(fled=True)
    result = score(combat, state=state)
    # Only Left still fights: its standard +1; Unit Strength 4 against 4 gives nothing.
    assert (result.score("A"), result.score("B")) == (1, 0)


# Paragraph 7, the battle standard: +1 while the unit includes it, i.e. its bearer stands.


def bearer_combat(bearer: str | bool) -> Combat:
    return build(
        [
            unit_doc(
                "Guard", "A", models=4, files=4, command={"battle_standard": bearer},
                characters=[{"name": "Sigmar", "profile": "4 5 5 4 4 2 5 3 8"}],
            ),
            unit_doc("Foe", "B", models=4, files=4),
        ],
        [engage("Guard", "Foe")],
        outnumber_bonus=False,
    )  # fmt: skip


def test_battle_standard_goes_with_its_bearer() -> None:
    combat = bearer_combat("Sigmar")
    state = initial_state(combat)
    # Sigmar stands: the battle standard +1; A has no other bonus, so 0 + 1 = 1.
    assert score(combat, state=state).score("A") == 1
    # Sigmar slain (his 2 wounds gone), the four Guards still stand: 0 + 0 = 0.
    state["Guard"] = state["Guard"]._replace(character_wounds=(0,))
    assert score(combat, state=state).score("A") == 0


def test_battle_standard_in_the_rank_and_file_goes_with_them() -> None:
    combat = bearer_combat(True)
    state = initial_state(combat)
    assert score(combat, state=state).score("A") == 1
    # Every Guard slain but Sigmar stands: the rank-and-file bearer is gone, 0.
    state["Guard"] = state["Guard"]._replace(rank_and_file_wounds=0)
    assert score(combat, state=state).score("A") == 0


def test_battle_standard_bearer_must_be_a_character_of_the_unit() -> None:
    with pytest.raises(ScenarioError, match="not a character of 'Guard'") as caught:
        bearer_combat("Nobody")
    assert caught.value.path == ("units", 0, "command", "battle_standard")
