"""The d100 ruleset through the ``fracas`` command: reproducible logs and clear errors."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from fracas.cli import app

RUNNER = CliRunner()

BASE: dict[str, Any] = {
    "fracas": 1,
    "ruleset": "d100",
    "title": "Border skirmish",
    "sides": [
        {
            "name": "Raiders",
            "action": "raid",
            "units": [
                {
                    "name": "Bows",
                    "pax": 8,
                    "speed": 3,
                    "offense": 2,
                    "equipment": ["ranged_weapon"],
                },
                {
                    "name": "Riders",
                    "pax": 10,
                    "speed": 4,
                    "offense": 2,
                    "strength": 2,
                    "equipment": ["melee_weapon", "horses"],
                },
            ],
        },
        {
            "name": "Keep",
            "action": "defend",
            "lair": {"structures": ["defensive_structure"]},
            "units": [
                {
                    "name": "Guards",
                    "pax": 10,
                    "speed": 2,
                    "defense": 2,
                    "strength": 1,
                    "equipment": ["melee_weapon", "shield", "armour_2"],
                }
            ],
        },
    ],
}


def write(tmp_path: Path, document: dict[str, Any], name: str = "battle.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def resolve(path: Path, *options: str) -> str:
    outcome = RUNNER.invoke(app, ["resolve", str(path), *options])
    assert outcome.exit_code == 0, outcome.output
    return outcome.stdout


def test_same_scenario_and_seed_give_the_same_bytes(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    first = resolve(path, "--seed", "11")
    second = resolve(path, "--seed", "11")
    assert first.encode() == second.encode()
    assert "seed 11" in first


@pytest.mark.parametrize("fmt", ["text", "markdown", "bbcode", "json"])
def test_every_format_is_reproducible(tmp_path: Path, fmt: str) -> None:
    path = write(tmp_path, BASE)
    assert resolve(path, "--seed", "5", "--format", fmt) == resolve(
        path, "--seed", "5", "--format", fmt
    )


def test_different_seeds_give_different_logs(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    logs = {resolve(path, "--seed", str(seed)) for seed in range(5)}
    assert len(logs) == 5


def test_scenario_seed_is_the_default(tmp_path: Path) -> None:
    path = write(tmp_path, {**BASE, "seed": 3})
    assert resolve(path) == resolve(path, "--seed", "3")


def test_bbcode_log_shows_steps_and_rolls(tmp_path: Path) -> None:
    post = resolve(write(tmp_path, BASE), "--seed", "2", "--format", "bbcode")
    for heading in (
        "Step 1 — Morale assessment",
        "Step 3 — Total all bonuses",
        "Step 5 — Ranged combat",
        "Step 7 — Winner and loot",
    ):
        assert f"[b][u]{heading}[/u][/b]" in post
    assert "(d100)" in post
    assert "(Mounted)" in post


def test_json_keys_in_documented_order(tmp_path: Path) -> None:
    document = json.loads(resolve(write(tmp_path, BASE), "--seed", "4", "--format", "json"))
    result = document["result"]
    assert list(result) == ["winner", "outcome", "rounds", "sides", "units", "steps", "goods"]
    assert list(result["steps"]) == ["assessment", "totals", "begin", "ranged", "melee"]
    assert list(result["goods"]) == ["value", "units", "loot"]
    attack = result["steps"]["ranged"][0]
    assert list(attack) == [
        *("kind", "phase", "round", "speed", "attacker", "target", "target_roll"),
        *("attack", "defence", "hit", "damage", "reduction", "wounded", "morale"),
        *("pax_lost", "flees"),
    ]
    # The Keep's one unit picks among two raiders with a die: each such pick is recorded.
    picks = [
        event
        for event in result["steps"]["ranged"] + result["steps"]["melee"]
        if event["kind"] == "attack" and event["target_roll"] is not None
    ]
    assert picks
    for event in picks:
        assert list(event["target_roll"]) == ["face", "among"]
        among = event["target_roll"]["among"]
        assert among == ["Bows", "Riders"]
        assert among[event["target_roll"]["face"] - 1] == event["target"]
    roll = attack["attack"]
    assert list(roll) == ["unit", "roll", "faces", "label", "total", "rows"]
    # The rows of every roll add up to its total.
    assert sum(row["value"] for row in roll["rows"]) == roll["total"]
    assert roll["rows"][0]["value"] == sum(roll["faces"])


def _broken(change: str) -> dict[str, Any]:
    document = copy.deepcopy(BASE)
    side = document["sides"][0]
    unit = side["units"][0]
    if change == "trigger":
        document["effects"] = {"fog": {"trigger": "at_dawn", "roll": "attack", "bonus": 1}}
    elif change == "negative_pax":
        unit["pax"] = -3
    elif change == "ranged_without_weapon":
        side["units"][1]["ranged_attacks"] = 2
    elif change == "unknown_equipment":
        unit["equipment"] = ["ranged_weapon", "laser"]
    elif change == "pax_above_max":
        unit["pax"], unit["max_pax"] = 12, 10
    elif change == "priority":
        side["targeting"] = ["Dragon"]
    elif change == "own_unit_priority":
        side["targeting"] = ["Riders"]
    elif change == "unknown_trait":
        unit["traits"] = ["invisible"]
    elif change == "third_side":
        document["sides"].append(copy.deepcopy(document["sides"][1]))
    elif change == "nobody_attacks":
        side["action"] = "defend"
    elif change == "duplicate":
        side["units"][1]["name"] = "Bows"
    elif change == "morale_table":
        document["parameters"] = {
            "morale_table": [
                {"at_least": 50, "pax_lost": 1},
                {"at_least": 75, "pax_lost": 0},
                {"at_least": None, "pax_lost": 2, "flees": True},
            ]
        }
    elif change == "loot_table":
        document["parameters"] = {
            "loot_table": [{"up_to": 100, "gold": 50, "resources": 10, "items": 10}]
        }
    elif change == "two_things":
        document["effects"] = {
            "odd": {"trigger": "assessment", "roll": "attack", "bonus": 1, "nullify": True}
        }
    elif change == "scope_unit":
        document["effects"] = {
            "curse": {"trigger": "assessment", "scope": "unit", "roll": "defense", "bonus": -5}
        }
    elif change == "unknown_key":
        unit["colour"] = "red"
    elif change == "bool_pax":
        unit["pax"] = True
    elif change == "text_pax":
        unit["pax"] = "8"
    elif change == "targeting_word":
        side["targeting"] = "nearest"
    elif change == "no_units":
        side["units"] = []
    elif change == "structure":
        document["sides"][1]["lair"]["structures"] = ["moat"]
    elif change == "side_spell":
        side["effects"] = ["fireball"]
    elif change == "negative_cost":
        unit["upkeep_cost"] = -5
    elif change == "item_effect":
        document["equipment"] = {"lance": {"bonuses": {"attack": 5}, "effects": ["charge"]}}
    elif change == "loyalty_bands":
        document["parameters"] = {"loyalty_pass": 20}
    elif change == "nullify_later":
        document["effects"] = {"hex": {"trigger": "per_round", "nullify": True}}
    elif change == "reserved_name":
        side["name"] = "draw"
    elif change == "two_lairs":
        side["action"], side["location"] = "attack", "lair"
    elif change == "raid_at_home":
        # Seed 001 and the rules document: raiders are away from home.
        side["location"] = "lair"
        document["sides"][1]["location"] = "open"
    elif change == "two_shields":
        side["units"][1]["equipment"] = ["shield", "melee_weapon", "shield"]
    return document


@pytest.mark.parametrize(
    ("change", "key_path", "words"),
    [
        ("trigger", "effects.fog.trigger", "when_attacking"),
        ("negative_pax", "sides[0].units[0].pax", "greater than or equal to 1"),
        ("ranged_without_weapon", "sides[0].units[1].ranged_attacks", "no ranged weapon"),
        ("unknown_equipment", "sides[0].units[0].equipment[1]", "unknown equipment 'laser'"),
        ("pax_above_max", "sides[0].units[0].pax", "more than max_pax"),
        ("priority", "sides[0].targeting[0]", "unknown unit 'Dragon'"),
        ("own_unit_priority", "sides[0].targeting[0]", "its own units"),
        ("unknown_trait", "sides[0].units[0].traits[0]", "unknown effect 'invisible'"),
        ("third_side", "sides", "at most 2"),
        ("nobody_attacks", "sides[0].action", "nobody attacks"),
        ("duplicate", "sides[0].units[1].name", "two units are called 'Bows'"),
        ("morale_table", "parameters.morale_table[1].at_least", "highest total down"),
        ("loot_table", "parameters.loot_table[0]", "must be 100"),
        ("two_things", "effects.odd", "exactly one thing"),
        ("scope_unit", "effects.curse.unit", "needs the unit's name"),
        ("unknown_key", "sides[0].units[0].colour", "unknown key"),
        ("bool_pax", "sides[0].units[0].pax", "valid integer (got True)"),
        ("text_pax", "sides[0].units[0].pax", "valid integer (got '8')"),
        ("targeting_word", "sides[0].targeting", "'random' or a list of enemy unit names"),
        ("no_units", "sides[0].units", "at least one unit"),
        ("structure", "sides[1].lair.structures[0]", "unknown effect 'moat'"),
        ("side_spell", "sides[0].effects[0]", "unknown effect 'fireball'"),
        ("negative_cost", "sides[0].units[0].upkeep_cost", "greater than or equal to 0"),
        ("item_effect", "equipment.lance.effects[0]", "unknown effect 'charge'"),
        ("loyalty_bands", "parameters.loyalty_takes_equipment", "below loyalty_pass"),
        ("nullify_later", "effects.hex.trigger", "resolved in step 3"),
        ("reserved_name", "sides[0].name", "reserved"),
        ("two_lairs", "sides[1].location", "both sides fight in their own lair"),
        ("raid_at_home", "sides[0].location", "a raiding side is away from home"),
        ("two_shields", "sides[0].units[1].equipment[2]", "'shield' is listed twice"),
    ],
)
def test_bad_input_is_one_line_with_file_and_key_path(
    tmp_path: Path, change: str, key_path: str, words: str
) -> None:
    path = write(tmp_path, _broken(change))
    outcome = RUNNER.invoke(app, ["resolve", str(path)])
    assert outcome.exit_code == 2
    assert outcome.stdout == ""
    message = outcome.stderr.strip()
    assert "\n" not in message
    assert message.startswith(f"fracas: error: {path}: {key_path}: ")
    assert words in message
    assert "more problem" not in message  # one mistake, one message
    assert "Traceback" not in outcome.output


def test_same_bytes_across_processes(tmp_path: Path) -> None:
    # A player re-runs the log on another machine: nothing may hang on hash order.
    path = write(tmp_path, BASE)
    posts = set()
    for hash_seed in ("1", "2"):
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "fracas",
                "resolve",
                str(path),
                "--seed",
                "8",
                "--format",
                "bbcode",
            ],
            capture_output=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        posts.add(run.stdout)
    assert len(posts) == 1
