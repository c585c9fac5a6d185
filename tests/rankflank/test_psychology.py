"""Psychology: fear tests, frenzy, immunity — in play and in exact odds."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fracas.core.dice import ScriptedDice, SeededDice
from fracas.core.record import SUMMING
from fracas.rulesets.rankflank.breaktest import LeadershipTest
from fracas.rulesets.rankflank.formation import initial_state
from fracas.rulesets.rankflank.play import CombatProcess, play_combat
from fracas.rulesets.rankflank.psychology import fear_testers
from fracas.rulesets.rankflank.report import explanation_text
from fracas.rulesets.rankflank.scenario import Combat
from fracas.rulesets.rankflank.strikes import Conditions, StrikeRecord, strike_records

from .conftest import combat_from, engage, unit_doc


def notes(record: StrikeRecord) -> tuple[str, ...]:
    """The record's explanations as the report prints them."""
    return tuple(map(explanation_text, record.explained))


def pair(first: dict[str, Any], second: dict[str, Any], **parameters: Any) -> Combat:
    return combat_from(
        {
            "parameters": parameters,
            "units": [first, second],
            "engagements": [engage(first["name"], second["name"])],
        }
    )


def test_who_takes_a_fear_test() -> None:
    ghosts = unit_doc("Ghosts", "B", rules=["fear"])
    assert [u.name for u in fear_testers(*_start(pair(unit_doc("Guard", "A"), ghosts)))] == [
        "Guard"
    ]
    # Immune to psychology, or causing fear itself: no test.
    immune = pair(unit_doc("Guard", "A", rules=["immune to psychology"]), ghosts)
    assert fear_testers(*_start(immune)) == ()
    both = pair(unit_doc("Wraiths", "A", rules=["fear"]), ghosts)
    assert fear_testers(*_start(both)) == ()
    # A character who causes fear makes his whole unit fearsome.
    led = pair(
        unit_doc("Guard", "A"),
        unit_doc("Cultists", "B", characters=[
            {"name": "Lich", "profile": "4 3 3 3 4 2 3 2 8", "rules": ["fear"]}]),
    )  # fmt: skip
    assert [u.name for u in fear_testers(*_start(led))] == ["Guard"]


def _start(combat: Combat) -> tuple[Combat, dict[str, Any]]:
    return combat, initial_state(combat)


def test_a_failed_fear_test_means_weapon_skill_one_both_ways() -> None:
    combat = pair(unit_doc("Guard", "A"), unit_doc("Ghosts", "B", rules=["fear"]))
    process = CombatProcess(combat, SUMMING)
    fight = process.start()
    assert fight.phase == "begin"
    fight = process.step(fight, ScriptedDice([]))
    assert fight.phase == "fear"
    # 6 + 6 = 12 > Ld 7: failed.
    fight = process.step(fight, ScriptedDice([6, 6]))
    assert fight.afraid == frozenset({"Guard"})
    found = strike_records(combat, initial_state(combat), 1, None, Conditions(fight.afraid))
    by_unit = {r.attacker_unit: r for r in found}
    # Guard at WS 1 against WS 3: 3 > 2 × 1, so 5+ to hit; the ghosts' WS 3 > 1: 3+.
    assert (by_unit["Guard"].weapon_skill, by_unit["Guard"].blow.to_hit) == (1, 5)
    assert (by_unit["Ghosts"].target_weapon_skill, by_unit["Ghosts"].blow.to_hit) == (1, 3)
    assert "WS 1 (failed its fear test)" in notes(by_unit["Guard"])


def test_fear_is_forgotten_when_the_round_ends() -> None:
    combat = pair(
        unit_doc("Guard", "A", rules=["unbreakable"]),
        unit_doc("Ghosts", "B", rules=["fear", "unbreakable"]),
        max_rounds=2,
    )
    outcome = play_combat(combat, SeededDice(4))
    assert [len(r.fear_tests) for r in outcome.rounds] == [1, 1]
    assert outcome.end is not None
    assert outcome.end.afraid == frozenset()


def test_exact_odds_branch_on_the_fear_test() -> None:
    # Exact odds answer the fear test as one group: failing 2D6 > Ld 7 has chance
    # (1 + 2 + 3 + 4 + 5) / 36 = 15/36, and only the failing branch is afraid.
    combat = pair(unit_doc("Guard", "A"), unit_doc("Ghosts", "B", rules=["fear"]), max_rounds=1)
    process = CombatProcess(combat, SUMMING)
    fight = process.step(process.start(), ScriptedDice([]))
    law: dict[bool, Fraction] = {}
    for passed, p in LeadershipTest(7).law():
        after = process.step(fight, _Fixed(passed))
        law["Guard" in after.afraid] = p
    assert law == {True: Fraction(15, 36), False: Fraction(21, 36)}


class _Fixed:
    """Dice that answer a whole group with one key, as exact odds do."""

    def __init__(self, key: object) -> None:
        self.key = key

    def roll(self, node: object) -> int:
        raise AssertionError("exact odds draw groups, not single dice")

    def draw_group(self, group: object) -> object:
        return self.key


def test_frenzy_adds_an_attack_until_the_unit_loses_a_round() -> None:
    # The frenzied goblins cannot wound (S 1 against T 5) and lose round 1 to the ranks
    # of the deep block; unbreakable, they stay and fight round 2 without their frenzy.
    combat = pair(
        unit_doc("Goblins", "A", models=5, files=5, profile="4 2 3 1 3 1 2 1 5",
                 rules=["frenzy", "unbreakable"]),
        unit_doc("Block", "B", models=25, files=5, profile="4 3 3 1 5 1 3 1 7",
                 rules=["unbreakable"]),
        max_rounds=2,
    )  # fmt: skip
    outcome = play_combat(combat, SeededDice(1))
    goblin_attacks = [
        roll.record.attacks
        for fought in outcome.rounds
        for step in fought.steps
        for roll in step.rolls
        if roll.record.attacker_unit == "Goblins"
    ]
    # Round 1: 5 models × (1 + 1) A = 10; round 2: 5 × 1 = 5.
    assert goblin_attacks == [10, 5]
    assert outcome.end is not None
    assert outcome.end.calmed == frozenset({"Goblins"})


def test_a_frenzied_winner_must_pursue() -> None:
    # The frenzied berserkers ask to restrain, but frenzy forbids it: no restrain roll.
    combat = pair(
        unit_doc("Berserkers", "A", profile="4 5 3 5 4 1 4 2 9", rules=["frenzy"],
                 restrain=True, charged=True),
        unit_doc("Peasants", "B", models=10, profile="4 1 1 2 2 1 1 1 2"),
        max_rounds=1,
    )  # fmt: skip
    for seed in range(5):
        outcome = play_combat(combat, SeededDice(seed))
        for pursuit in outcome.rounds[0].pursuits:
            assert all(chaser.restrain_faces == () for chaser in pursuit.pursuers)
            assert all(not chaser.restrained for chaser in pursuit.pursuers)


def tiny_special(rounds: int) -> Any:
    """One two-wound model a side, with most of the new rules, fought for a few rounds."""
    from fracas.rulesets.rankflank.ruleset import RankflankScenario

    combat = combat_from(
        {
            "parameters": {"max_rounds": rounds},
            "units": [
                unit_doc("Hero", "A", models=1, files=1, profile="4 4 3 4 3 2 4 1 7",
                         rules=["killing blow", "multiple wounds (2)", "hatred"]),
                unit_doc("Beast", "B", models=1, files=1, profile="4 3 3 4 4 2 3 1 7",
                         troop_type="monstrous_infantry", armour=5,
                         rules=["fear", "regeneration (5+)", "impact hits (1)"], charged=True),
            ],
            "engagements": [engage("Beast", "Hero")],
        }
    )  # fmt: skip
    return RankflankScenario(combat, "tiny special")


def test_exact_odds_with_special_rules_equal_every_face_over_whole_combats() -> None:
    # The same steps, once with each group's closed form (the blow laws) and once
    # branching on every die play rolls: the joint law of every metric is the same.
    from fracas.analysis.exact import exact_states
    from fracas.rulesets.rankflank.ruleset import RankflankRuleset

    ruleset = RankflankRuleset()
    scenario = tiny_special(2)
    laws = []
    for closed_forms in (True, False):
        answer = exact_states(
            ruleset.process(scenario, SUMMING), budget=5_000_000, closed_forms=closed_forms
        )
        joint: dict[Any, Fraction] = {}
        for state, p in answer.states.items():
            key = tuple(ruleset.metrics(scenario, state).items())
            joint[key] = joint.get(key, Fraction(0)) + Fraction(p)
        laws.append(joint)
    assert laws[0] == laws[1]
    assert sum(laws[0].values()) == 1
