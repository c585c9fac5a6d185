"""A refused challenge (The Old World decisions, §6 "refuse" and "cannot refuse"): the
character named retires for the whole combat. He stays in the unit (its models, ranks and
Unit Strength count him) but makes no attacks, takes no blows and lends the unit neither
his Leadership nor his rules; the challenger fights the unit as usual."""

from __future__ import annotations

from typing import Any

import pytest

from fracas.analysis import odds
from fracas.core.dice import SeededDice
from fracas.core.errors import ScenarioError
from fracas.core.record import SUMMING
from fracas.io.render import render_json, render_text
from fracas.rulesets.rankflank.fight import apply_wounds
from fracas.rulesets.rankflank.formation import (
    fighting_characters,
    initial_state,
    leadership,
    unit_strength,
)
from fracas.rulesets.rankflank.psychology import causes_fear
from fracas.rulesets.rankflank.ruleset import RankflankRuleset, RankflankScenario
from fracas.rulesets.rankflank.scenario import Combat
from fracas.rulesets.rankflank.strikes import fighting_models, strike_records

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


def test_exact_odds_with_a_refusal_agree_with_monte_carlo() -> None:
    scenario = RankflankScenario(duel(), "refused")
    exact = odds(scenario, ruleset=RULESET, method="exact")
    sampled = odds(scenario, ruleset=RULESET, method="mc", runs=3000, seed=4, confidence=0.9999)
    for metric in ("cr.Orcs", "cr.Empire", "winner"):
        for entry in exact.metric(metric).values:
            low, high = sampled.interval(metric, entry.value)
            assert low <= entry.probability <= high, (metric, entry.value)


@pytest.mark.parametrize("edition", ["eighth", "ninth"])
def test_refusing_means_the_same_in_the_older_presets(edition: str) -> None:
    # A gap choice: the older presets retire him the same way (Ld 7, not his 9; no strike).
    combat = duel(edition=edition)
    troops = combat.unit("State Troops")
    assert leadership(troops, initial_state(combat)["State Troops"]) == 7
    records = strike_records(combat, initial_state(combat), 1, record=SUMMING)
    assert all(r.striker != "Kurtz" for r in records)
