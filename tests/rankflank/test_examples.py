"""The example scenarios load, resolve, and show what their titles promise."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fracas.core.dice import SeededDice
from fracas.io.render import render_json, render_markdown, render_text
from fracas.io.scenario import load_scenario
from fracas.rulesets.rankflank.breaktest import is_steadfast
from fracas.rulesets.rankflank.formation import initial_state
from fracas.rulesets.rankflank.ruleset import RankflankRuleset

from .conftest import combat_from

EXAMPLES = sorted((Path(__file__).parents[2] / "examples" / "rankflank").glob("*.yaml"))


def test_there_are_twelve_examples() -> None:
    assert [p.name for p in EXAMPLES] == [
        "challenge_overkill.yaml",
        "flank_charge.yaml",
        "frontal_charge.yaml",
        "halberds_vs_greatswords.yaml",
        "lance_charge.yaml",
        "monster_stomp.yaml",
        "poisoned_skirmishers.yaml",
        "shared_arc.yaml",
        "tow_give_ground_fights_on.yaml",
        "tow_halberds_vs_orcs.yaml",
        "tow_knights_flank_charge.yaml",
        "tow_stubborn_shieldwall.yaml",
    ]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_resolves_the_same_every_time(path: Path) -> None:
    scenario = load_scenario(path)
    assert scenario.header.seed is not None
    first, second = scenario.resolve(), scenario.resolve()
    assert render_text(first) == render_text(second)
    assert render_json(first) == render_json(second)
    assert scenario.header.title in render_markdown(first)


def first_round(path: str) -> dict[str, object]:
    scenario = load_scenario(Path(__file__).parents[2] / "examples" / "rankflank" / path)
    data = json.loads(render_json(scenario.resolve()))["result"]
    rounds: list[dict[str, object]] = data["rounds"]
    return rounds[0]


def rows_of(round_data: dict[str, object], side: str) -> list[tuple[str, int]]:
    table = round_data["combat_result"][side]  # type: ignore[index]
    return [(row["label"], row["value"]) for row in table["rows"]]


def test_frontal_charge_counts_three_ranks_and_the_charge() -> None:
    rows = rows_of(first_round("frontal_charge.yaml"), "Empire")
    # 30 halberdiers + the captain = 31 models 6 wide: 6,6,6,6,6,1 → 4 extra, capped at 3.
    assert ("Ranks", 3) in rows
    assert ("Charge", 1) in rows


def test_flank_charge_disrupts_a_block_that_would_be_steadfast() -> None:
    path = Path(__file__).parents[2] / "examples" / "rankflank" / "flank_charge.yaml"
    scenario = load_scenario(path)
    combat = scenario.model.combat
    spearmen = combat.unit("Spearmen")
    # Without the knights: US 40 > 15 swordsmen, ≥ 10, ranks of 8 → Steadfast.
    alone = combat_from(
        {
            "units": [u for u in scenario.document["units"] if u["name"] != "Knights"],
            "engagements": [e for e in scenario.document["engagements"] if e["unit"] != "Knights"],
        }
    )
    assert is_steadfast(alone, initial_state(alone), alone.unit("Spearmen"))
    assert not is_steadfast(combat, initial_state(combat), spearmen)
    test = first_round("flank_charge.yaml")["break_tests"][0]  # type: ignore[index]
    assert (test["unit"], test["disrupted_by"], test["steadfast"]) == ("Spearmen", "Knights", False)


def test_shared_arc_counts_only_the_higher_rank_bonus() -> None:
    rows = rows_of(first_round("shared_arc.yaml"), "Ratmen")
    # Stormvermin (20 models 5 wide: +3) and Clanrats (15: +2) share the Longbeards' front.
    assert [value for label, value in rows if label.startswith("Ranks")] == [3, 0]


def test_challenge_overkill_is_capped() -> None:
    rows = rows_of(first_round("challenge_overkill.yaml"), "Orcs")
    assert ("Overkill", 3) in rows


def test_json_keys_keep_their_documented_order() -> None:
    scenario = load_scenario(EXAMPLES[0])
    data = scenario.resolve().data
    assert list(data) == [
        "edition",
        "options",
        "sides",
        "winner",
        "rounds_fought",
        "units",
        "rounds",
    ]
    round_data = data["rounds"][0]
    assert list(round_data) == [
        "round",
        "steps",
        "combat_result",
        "winner",
        "difference",
        "wiped_out",
        "fear_tests",
        "break_tests",
        "pursuits",
        "aftermath",
    ]
    strike = round_data["steps"][0]["strikes"][0]
    assert list(strike)[:4] == ["round", "initiative", "side", "attacker_unit"]
    assert list(strike)[-7:] == [
        "hit_faces",
        "wound_faces",
        "armour_faces",
        "ward_faces",
        "hits",
        "wounds",
        "unsaved",
    ]


def test_summary_matches_the_report() -> None:
    scenario = load_scenario(EXAMPLES[1])
    ruleset = scenario.ruleset
    outcome = ruleset.play(scenario.model, SeededDice(scenario.header.seed or 0))
    summary = ruleset.summarize(scenario.model, outcome)
    report = ruleset.report(scenario.model, outcome).data
    first = report["rounds"][0]
    assert summary["winner"] == first["winner"] == "Empire"
    assert summary["cr.Empire"] == first["combat_result"]["Empire"]["total"]
    assert summary["cr.Elves"] == first["combat_result"]["Elves"]["total"]
    assert summary["cr.difference"] == first["difference"]
    assert summary["rounds"] == report["rounds_fought"]
    for unit in report["units"]:
        assert summary[f"casualties.{unit['name']}"] == unit["casualties"]
    assert summary["breaks.Spearmen"] is True
    assert summary["breaks.Knights"] is False


def test_shared_arc_fights_to_the_round_limit() -> None:
    (path,) = (p for p in EXAMPLES if p.name == "shared_arc.yaml")
    scenario = load_scenario(path)
    data = scenario.resolve().data
    # The Stubborn, Steadfast longbeards hold every round, so all 3 rounds are fought.
    assert data["rounds_fought"] == 3
    assert all(r["break_tests"][0]["passed"] for r in data["rounds"])


def test_the_schema_accepts_the_profiles_the_examples_write() -> None:
    schema = RankflankRuleset.document_model.model_json_schema()
    (written,) = (s for s in schema["$defs"]["Profile"]["anyOf"] if s.get("type") == "string")
    profiles = [
        holder["profile"]
        for path in EXAMPLES
        for unit in load_scenario(path).document["units"]
        for holder in (
            unit,
            *unit.get("characters", ()),
            *([unit["mount"]] if "mount" in unit else []),
        )
    ]
    assert len(profiles) == 31  # the knights' horses' too
    assert all(re.fullmatch(written["pattern"], profile) for profile in profiles)
    assert not re.fullmatch(written["pattern"], "4 3 3 3 3 1 3 1")  # one number short


def test_the_give_ground_example_fights_on_after_giving_ground() -> None:
    # Seed 4: the Dwarfs (Ld 9) lose rounds 1 and 2 by 1 and roll 3+2 = 5, then 2+4 = 6: each
    # total plus 1 is at most 9, a Give Ground; followed up, nobody charging, the combat goes
    # on; in round 3 the Marauders lose and flee.
    path = Path(__file__).parents[2] / "examples" / "rankflank" / "tow_give_ground_fights_on.yaml"
    data = json.loads(render_json(load_scenario(path).resolve()))["result"]
    assert data["rounds_fought"] == 3
    first = [t["outcome"] for t in data["rounds"][0]["break_tests"]]
    second = [t["outcome"] for t in data["rounds"][1]["break_tests"]]
    assert first == second == ["give_ground"]
    assert "Dwarf Warriors gives ground and is followed up." in data["rounds"][0]["aftermath"]
    assert [u["status"] for u in data["units"]] == ["fled", "fighting"]
    # Round 1's charge over 6" adds 3 to the Marauders' Initiative 4; the follow-up is no
    # charge: round 2 they strike at 4.
    steps = [[step["initiative"] for step in r["steps"]] for r in data["rounds"][:2]]
    assert steps == [[7, 2], [4, 2]]
