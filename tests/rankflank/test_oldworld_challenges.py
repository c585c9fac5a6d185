"""A refused challenge (The Old World decisions, §6 "refuse" and "cannot refuse"): the
character named retires for the whole combat. He stays in the unit (its models, ranks and
Unit Strength count him) but makes no attacks, takes no blows and lends the unit neither
his Leadership nor his rules; the challenger fights the unit as usual.

Then a character's own mount: it strikes beside him at whatever he strikes (in a challenge,
his opponent only), while blows on him meet his own T, W and saves."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from fracas.analysis import odds
from fracas.core.dice import SeededDice
from fracas.core.errors import ScenarioError
from fracas.core.record import SUMMING
from fracas.io.render import render_json, render_text
from fracas.rulesets.rankflank.blows import unsaved_chance
from fracas.rulesets.rankflank.fight import apply_wounds
from fracas.rulesets.rankflank.formation import (
    fighting_characters,
    initial_state,
    leadership,
    unit_strength,
)
from fracas.rulesets.rankflank.play import play_combat
from fracas.rulesets.rankflank.psychology import causes_fear
from fracas.rulesets.rankflank.ruleset import RankflankRuleset, RankflankScenario
from fracas.rulesets.rankflank.scenario import Combat
from fracas.rulesets.rankflank.strikes import StrikeRecord, fighting_models, strike_records

from .conftest import combat_from, engage, unit_doc

RULESET = RankflankRuleset()
#: WS S T W I A Ld: a Captain of Leadership 9 who causes fear, with 2 wounds and 2 attacks.
CAPTAIN = {"name": "Kurtz", "profile": "4 4 3 3 3 2 3 2 9", "rules": ["fear"]}
WARLORD = {"name": "Grukk", "profile": "5 5 4 5 5 2 4 3 8"}


def duel(refused: bool = True, **parameters: Any) -> Combat:
    """20 Black Orcs with their Warlord charge 20 State Troops with their Captain, who is
    challenged (and, with ``refused``, refuses)."""
    return combat_from(
        {
            "parameters": {"edition": "oldworld", "max_rounds": 1, **parameters},
            "units": [
                unit_doc("Black Orcs", "Orcs", 20, 5, "4 4 3 4 4 1 3 1 8", armour=5,
                         charged=True, characters=[WARLORD]),
                unit_doc("State Troops", "Empire", 20, 5, "3 3 3 3 3 1 3 1 7", armour=6,
                         characters=[CAPTAIN]),
            ],
            "engagements": [engage("Black Orcs", "State Troops")],
            "challenge": {"challenger": "Grukk", "opponent": "Kurtz", "refused": refused},
        }
    )  # fmt: skip


def test_the_refusing_character_retires_but_still_stands_in_the_unit() -> None:
    combat = duel()
    troops = combat.unit("State Troops")
    status = initial_state(combat)["State Troops"]
    assert combat.challenge is None
    assert combat.refused == ("Grukk", "Kurtz")
    assert troops.retired == "Kurtz"
    assert fighting_characters(troops, status) == ()
    # Unit Strength: 20 rank and file + the Captain, each US 1 = 21.
    assert unit_strength(troops, status) == 21
    # Leadership: the Captain's 9 is not lent; the rank and file's 7 is used (max(7) = 7),
    # where an accepted challenge leaves max(9, 7) = 9.
    assert leadership(troops, status) == 7
    accepted = duel(refused=False)
    assert leadership(accepted.unit("State Troops"), initial_state(accepted)["State Troops"]) == 9


def test_the_refusing_character_lends_no_rules() -> None:
    # His fear is not the unit's while he retires; accepting, the unit causes fear.
    refused, accepted = duel(), duel(refused=False)
    assert not causes_fear(refused.unit("State Troops"), initial_state(refused))
    assert causes_fear(accepted.unit("State Troops"), initial_state(accepted))
    assert not refused.unit("State Troops").has_rule("fear")
    assert accepted.unit("State Troops").has_rule("fear")


def test_the_refusing_character_makes_no_attacks_and_the_rank_and_file_take_his_place() -> None:
    combat = duel()
    state = initial_state(combat)
    records = strike_records(combat, state, 1, record=SUMMING)
    strikers = {(r.attacker_unit, r.striker): r for r in records}
    assert ("State Troops", "Kurtz") not in strikers
    # The fighting rank is 5 rank and file (he stands behind it, out of the fight); Press of
    # Battle adds one supporting attack for each of the second rank's 5: 5 x 1 A + 5 x 1 = 10.
    assert fighting_models(combat, state, combat.unit("State Troops")) == (5, 5)
    assert strikers[("State Troops", "State Troops")].attacks == 5 * 1 + 5 * 1
    # The challenger fights the unit: his blows land on the rank and file.
    grukk = strikers[("Black Orcs", "Grukk")]
    assert (grukk.target_unit, grukk.target_character, grukk.attacks) == (
        "State Troops",
        None,
        3,
    )
    # Accepting, the Captain stands in the fighting rank (4 rank and file beside him) and
    # the pair strike only each other.
    accepted = duel(refused=False)
    records = strike_records(accepted, initial_state(accepted), 1, record=SUMMING)
    pair = {(r.striker, r.target_character) for r in records if r.target_character}
    assert pair == {("Kurtz", "Grukk"), ("Grukk", "Kurtz")}
    assert fighting_models(accepted, initial_state(accepted), accepted.unit("State Troops")) == (
        4,
        5,
    )


def test_the_refusing_character_takes_no_blows_while_anyone_else_stands() -> None:
    combat = duel()
    troops = combat.unit("State Troops")
    # 20 wounds of blows: all 20 rank and file fall; the 21st finds nobody but him, the
    # unit's last model, who no longer retires: it is his (W 2 → 1 left).
    state, taken = apply_wounds(initial_state(combat), troops, None, 20)
    assert (taken, state["State Troops"].character_wounds) == (20, (2,))
    assert [c.name for c in fighting_characters(troops, state["State Troops"])] == ["Kurtz"]
    state, taken = apply_wounds(state, troops, None, 1)
    assert (taken, state["State Troops"].character_wounds) == (1, (1,))


def test_one_rank_and_file_model_beside_him_is_enough_to_refuse() -> None:
    # A lone character is a one-model unit with no characters, which no challenge can name;
    # with a single rank-and-file model beside him he is not the last model and may retire.
    document = {
        "parameters": {"edition": "oldworld"},
        "units": [
            unit_doc("Black Orcs", "Orcs", charged=True, characters=[WARLORD]),
            unit_doc("State Troops", "Empire", 1, 1, characters=[CAPTAIN]),
        ],
        "engagements": [engage("Black Orcs", "State Troops")],
        "challenge": {"challenger": "Grukk", "opponent": "Kurtz", "refused": True},
    }
    combat = combat_from(document)
    troops = combat.unit("State Troops")
    assert troops.retired == "Kurtz"
    # 1 rank-and-file model + the Captain = 2 models; the one fights, he does not.
    assert fighting_characters(troops, initial_state(combat)["State Troops"]) == ()
    assert fighting_models(combat, initial_state(combat), troops) == (1, 0)


def test_a_unit_engaged_in_all_four_arcs_cannot_refuse() -> None:
    def document(arcs: tuple[str, ...]) -> dict[str, Any]:
        enemies = [
            unit_doc(arc.title(), "Orcs", 5, 5, characters=[WARLORD] if arc == "front" else [])
            for arc in arcs
        ]
        return {
            "parameters": {"edition": "oldworld"},
            "units": [*enemies, unit_doc("State Troops", "Empire", characters=[CAPTAIN])],
            "engagements": [engage(arc.title(), "State Troops", arc) for arc in arcs],
            "challenge": {"challenger": "Grukk", "opponent": "Kurtz", "refused": True},
        }

    three = combat_from(document(("front", "left", "right")))
    assert three.unit("State Troops").retired == "Kurtz"
    with pytest.raises(ScenarioError, match="all four arcs") as caught:
        combat_from(document(("front", "left", "right", "rear")))
    assert caught.value.path == ("challenge", "refused")


def test_the_report_says_who_refused_in_text_and_json() -> None:
    scenario = RankflankScenario(duel(), "refused")
    report = RULESET.report(scenario, RULESET.play(scenario, SeededDice(3)))
    assert "Kurtz refused the challenge of Grukk and retires" in render_text(report)
    assert '"refused_challenge": {\n      "challenger": "Grukk",\n      "opponent": "Kurtz"' in (
        render_json(report)
    )


def assert_exact_within_monte_carlo(scenario: RankflankScenario) -> None:
    """Round 1's scores and the winner, exact, inside 3,000 sampled runs' 99.99 % intervals."""
    exact = odds(scenario, ruleset=RULESET, method="exact")
    sampled = odds(scenario, ruleset=RULESET, method="mc", runs=3000, seed=4, confidence=0.9999)
    for metric in ("cr.Orcs", "cr.Empire", "winner"):
        for entry in exact.metric(metric).values:
            low, high = sampled.interval(metric, entry.value)
            assert low <= entry.probability <= high, (metric, entry.value)


def test_exact_odds_with_a_refusal_agree_with_monte_carlo() -> None:
    scenario = RankflankScenario(duel(), "refused")
    assert_exact_within_monte_carlo(scenario)


@pytest.mark.parametrize("edition", ["eighth", "ninth"])
def test_refusing_means_the_same_in_the_older_presets(edition: str) -> None:
    # A gap choice: the older presets retire him the same way (Ld 7, not his 9; no strike).
    combat = duel(edition=edition)
    troops = combat.unit("State Troops")
    assert leadership(troops, initial_state(combat)["State Troops"]) == 7
    records = strike_records(combat, initial_state(combat), 1, record=SUMMING)
    assert all(r.striker != "Kurtz" for r in records)


# A character's own mount ------------------------------------------------------------------

#: WS 5, S 4, T 4, W 2, I 5, A 3 on a warhorse of WS 3, S 3, I 3, A 1 (T 3, W 1: never the
#: horse's, the rider's count). His 3+ has the barding in it.
WARHORSE = {"name": "warhorse", "profile": "8 3 0 3 3 1 3 1 5"}
RIDER = {
    "name": "Captain",
    "troop_type": "cavalry",
    "profile": "4 5 3 4 4 2 5 3 8",
    "armour": 3,
    "ward": 6,
    "mount": WARHORSE,
}


def riding(
    challenge: dict[str, Any] | None = None,
    rider: dict[str, Any] | None = None,
    charged: bool = True,
    **parameters: Any,
) -> Combat:
    """20 State Troops with their Captain on his warhorse charge 2" into 20 Black Orcs
    with their Warlord (``charged=False``: the State Troops stand)."""
    charge: dict[str, Any] = {"charged": True, "charge_distance": 2} if charged else {}
    document: dict[str, Any] = {
        "parameters": {"edition": "oldworld", "max_rounds": 1, **parameters},
        "units": [
            unit_doc("State Troops", "Empire", 20, 5, "3 3 3 3 3 1 3 1 7", armour=6,
                     characters=[rider or RIDER], **charge),
            unit_doc("Black Orcs", "Orcs", 20, 5, "4 4 3 4 4 1 3 1 8", armour=5,
                     characters=[WARLORD]),
        ],
        "engagements": [engage("State Troops", "Black Orcs")],
    }  # fmt: skip
    if challenge is not None:
        document["challenge"] = challenge
    return combat_from(document)


def records_by_striker(combat: Combat) -> dict[str, StrikeRecord]:
    records = strike_records(combat, initial_state(combat), 1, record=SUMMING)
    return {r.striker: r for r in records}


def test_a_characters_mount_strikes_once_with_its_own_profile_at_his_target() -> None:
    strikers = records_by_striker(riding())
    captain, horse = strikers["Captain"], strikers["Captain (warhorse)"]
    # Charging 2": the Captain strikes at I 5 + 2 = 7, the horse at its own I 3 + 2 = 5.
    assert (captain.initiative, horse.initiative) == (7, 5)
    # One model, A 1: one attack, at the Black Orcs' rank and file as the Captain's blows.
    assert (horse.attacks, horse.target_unit, horse.target_character) == (1, "Black Orcs", None)
    assert (captain.target_unit, captain.target_character) == ("Black Orcs", None)
    assert (horse.weapon_skill, horse.strength, horse.rider) == (3, 3, "Captain")
    # WS 3 v 4: 4+ (1/2); S 3 v T 4: 5+ (1/3); the Black Orcs' 5+ fails 4/6 = 2/3:
    # 1/2 × 1/3 × 2/3 = 1/9.
    assert (horse.blow.to_hit, horse.blow.to_wound, horse.blow.armour) == (4, 5, 5)
    assert horse.attacks * unsaved_chance(horse.blow) == Fraction(1, 9)
    # Standing, both strike at their own Initiative: 5 and 3.
    standing = records_by_striker(riding(charged=False))
    assert (standing["Captain"].initiative, standing["Captain (warhorse)"].initiative) == (5, 3)
    # The horse's rules are its own: its poisoned sixes to hit wound, the Captain's do not.
    venom = {**RIDER, "mount": {**WARHORSE, "rules": ["poisoned attacks"]}}
    poisoned = records_by_striker(riding(rider=venom))
    assert poisoned["Captain (warhorse)"].blow.poisoned
    assert not poisoned["Captain"].blow.poisoned


def test_a_characters_mount_adds_nothing_to_unit_strength() -> None:
    # 20 rank and file × US 1 + the Captain's cavalry US 2 = 22, his horse in it already.
    combat = riding()
    status = initial_state(combat)["State Troops"]
    assert unit_strength(combat.unit("State Troops"), status) == 20 + 2


@pytest.mark.parametrize("edition", ["eighth", "ninth", "oldworld"])
def test_every_preset_reads_a_characters_mount(edition: str) -> None:
    horse = records_by_striker(riding(edition=edition))["Captain (warhorse)"]
    assert (horse.attacks, horse.weapon_skill, horse.strength) == (1, 3, 3)


def test_in_a_challenge_the_mount_strikes_only_the_opponent() -> None:
    strikers = records_by_striker(riding({"challenger": "Captain", "opponent": "Grukk"}))
    horse = strikers["Captain (warhorse)"]
    assert (horse.target_unit, horse.target_character, horse.attacks) == ("Black Orcs", "Grukk", 1)
    # WS 3 v Grukk's 5: 4+ (1/2); S 3 v T 5: 6+ (1/6); he has no save: 1/2 × 1/6 = 1/12.
    assert (horse.blow.to_hit, horse.blow.to_wound, horse.blow.armour) == (4, 6, None)
    assert unsaved_chance(horse.blow) == Fraction(1, 12)
    # Every blow of the pair, horse included, lands on the other of the pair.
    pair = {
        (r.striker, r.target_character)
        for r in strikers.values()
        if r.striker.startswith(("Captain", "Grukk"))
    }
    assert pair == {("Captain", "Grukk"), ("Captain (warhorse)", "Grukk"), ("Grukk", "Captain")}


def test_blows_on_a_mounted_character_use_his_toughness_wounds_and_saves() -> None:
    grukk = records_by_striker(riding({"challenger": "Captain", "opponent": "Grukk"}))["Grukk"]
    # The Captain's T 4 and W 2, not the horse's T 3 and W 1.
    assert (grukk.target_character, grukk.toughness, grukk.model_wounds) == ("Captain", 4, 2)
    # WS 5 v 5: 4+ (1/2); S 5 v T 4: 3+ (2/3; on the horse's T 3 it would be 2+); his 3+
    # fails 2/6 = 1/3; his 6+ ward 5/6: 1/2 × 2/3 × 1/3 × 5/6 = 5/54.
    assert (grukk.blow.to_hit, grukk.blow.to_wound, grukk.blow.armour, grukk.blow.ward) == (
        4,
        3,
        3,
        6,
    )
    assert unsaved_chance(grukk.blow) == Fraction(5, 54)


def test_the_mounts_wounds_on_the_opponent_count_in_the_challenge() -> None:
    # A Captain of A 0 on a monstrous mount of WS 10, S 10, A 10: every wound on Grukk is
    # the mount's. It strikes at I 3 + 2 = 5, before Grukk's 4; he has W 2, so each unsaved
    # wound past 2 is overkill, credited to the Captain.
    rider = {**RIDER, "profile": "4 5 3 4 4 2 5 0 8",
             "mount": {"name": "beast", "profile": "8 10 0 10 3 1 3 10 5"}}  # fmt: skip
    combat = riding({"challenger": "Captain", "opponent": "Grukk"}, rider)
    (fought,) = play_combat(combat, SeededDice(3)).rounds
    (roll,) = [r for s in fought.steps for r in s.rolls if r.record.striker == "Captain (beast)"]
    unsaved = roll.faces.unsaved
    assert unsaved > 2  # seed 3 kills him with wounds to spare
    assert [(o.side, o.character, o.excess) for o in fought.overkill] == [
        ("Empire", "Captain", unsaved - 2)
    ]


def test_a_retired_characters_mount_makes_no_attacks() -> None:
    combat = riding({"challenger": "Grukk", "opponent": "Captain", "refused": True})
    strikers = records_by_striker(combat)
    assert "Captain" not in strikers
    assert "Captain (warhorse)" not in strikers
    # Once the rank and file are all slain he is the unit's last model: he fights again,
    # and his horse with him.
    state = dict(initial_state(combat))
    state["State Troops"] = state["State Troops"]._replace(rank_and_file_wounds=0)
    records = strike_records(combat, state, 1, record=SUMMING)
    assert {"Captain", "Captain (warhorse)"} <= {r.striker for r in records}


def test_the_report_names_the_characters_mount_in_text_and_json() -> None:
    scenario = RankflankScenario(riding(), "riding")
    report = RULESET.report(scenario, RULESET.play(scenario, SeededDice(3)))
    assert "Captain (warhorse)" in render_text(report)
    data = render_json(report)
    assert '"striker": "Captain (warhorse)"' in data
    # Only the mount's row names its rider: every other strike is as before.
    assert data.count('"rider": "Captain"') == 1
    assert '"rider": null' not in data


def test_exact_odds_with_a_mounted_character_agree_with_monte_carlo() -> None:
    scenario = RankflankScenario(riding({"challenger": "Captain", "opponent": "Grukk"}), "duel")
    assert_exact_within_monte_carlo(scenario)


@pytest.mark.parametrize(
    ("mount", "path"),
    [
        ({"profile": "8 0 0 3 3 1 3 1 5"}, ("mount", "profile", "WS")),
        ({"profile": "8 3 0 3 3 1 3 1"}, ("mount", "profile")),
        ({"profile": "8 3 0 3 3 1 3 1 5", "rules": ["flying carpet"]}, ("mount", "rules", 0)),
    ],
)
def test_a_bad_mount_on_a_character_names_its_key_path(
    mount: dict[str, Any], path: tuple[str | int, ...]
) -> None:
    # WS 0, a number short, an unknown rule: each stops at the mount's own key.
    with pytest.raises(ScenarioError) as caught:
        riding(rider={**RIDER, "mount": {"name": "warhorse", **mount}})
    assert caught.value.path == ("units", 0, "characters", 0, *path)
