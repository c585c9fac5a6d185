"""Bad scenarios through the command line: one line naming file and key path, exit code 2."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from fracas.cli import app

runner = CliRunner()

BASE: dict[str, Any] = {
    "fracas": 1,
    "ruleset": "rankflank",
    "seed": 3,
    "parameters": {"edition": "ninth"},
    "units": [
        {
            "name": "Spears",
            "side": "Elves",
            "models": 20,
            "files": 5,
            "profile": "5 4 4 3 3 1 5 1 8",
            "characters": [{"name": "Noble", "profile": "5 6 6 4 3 2 7 3 9"}],
        },
        {
            "name": "Orcs",
            "side": "Orcs",
            "models": 20,
            "files": 5,
            "profile": "4 3 3 3 4 1 2 1 7",
            "characters": [{"name": "Boss", "profile": "4 5 3 4 5 2 3 3 8"}],
        },
        {
            "name": "Wolves",
            "side": "Orcs",
            "troop_type": "cavalry",
            "models": 5,
            "files": 5,
            "profile": "9 3 3 3 3 1 3 1 5",
        },
    ],
    "engagements": [
        {"unit": "Orcs", "enemy": "Spears", "arc": "front"},
        {"unit": "Wolves", "enemy": "Spears", "arc": "left"},
    ],
}

Edit = Callable[[dict[str, Any]], None]


def setter(*path: str | int, value: Any) -> Edit:
    def edit(document: dict[str, Any]) -> None:
        node: Any = document
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    return edit


def both(first: Edit, second: Edit) -> Edit:
    def edit(document: dict[str, Any]) -> None:
        first(document)
        second(document)

    return edit


CASES: list[tuple[str, Edit, str]] = [
    ("zero files", setter("units", 0, "files", value=0), "units[0].files"),
    (
        "rear engagement with itself",
        setter("engagements", 1, value={"unit": "Wolves", "enemy": "Wolves", "arc": "rear"}),
        "engagements[1].enemy",
    ),
    (
        "weapon skill 0",
        setter("units", 1, "profile", value="4 0 3 3 4 1 2 1 7"),
        "units[1].profile.WS",
    ),
    (
        "unknown unit",
        setter("engagements", 0, "enemy", value="Dragons"),
        "engagements[0].enemy",
    ),
    (
        "same side engaged",
        setter("engagements", 1, value={"unit": "Wolves", "enemy": "Orcs", "arc": "left"}),
        "engagements[1].enemy",
    ),
    ("more files than models", setter("units", 2, "files", value=7), "units[2].files"),
    ("negative models", setter("units", 0, "models", value=-5), "units[0].models"),
    (
        "one side only",
        both(setter("units", 1, "side", value="Elves"), setter("units", 2, "side", value="Elves")),
        "units",
    ),
    ("duplicate name", setter("units", 2, "name", value="Orcs"), "units[2].name"),
    ("unknown rule", setter("units", 0, "rules", value=["fearless"]), "units[0].rules[0]"),
    ("unknown key", setter("units", 0, "morale", value=3), "units[0].morale"),
    ("bad arc", setter("engagements", 1, "arc", value="side"), "engagements[1].arc"),
    ("short profile", setter("units", 0, "profile", value="5 4 4"), "units[0].profile"),
    ("wounds taken", setter("units", 0, "wounds_taken", value=1), "units[0].wounds_taken"),
    (
        "character slain already",
        setter("units", 0, "characters", 0, "wounds_taken", value=2),
        "units[0].characters[0].wounds_taken",
    ),
    (
        "engaged twice",
        setter("engagements", 1, value={"unit": "Spears", "enemy": "Orcs", "arc": "front"}),
        "engagements[1]",
    ),
    (
        "unit not engaged",
        setter("engagements", value=[{"unit": "Orcs", "enemy": "Spears", "arc": "front"}]),
        "units[2].name",
    ),
    (
        "target not engaged",
        setter("units", 1, "attacks_target", value="Orcs"),
        "units[1].attacks_target",
    ),
    (
        "challenge of a stranger",
        setter("challenge", value={"challenger": "Noble", "opponent": "Gandalf"}),
        "challenge.opponent",
    ),
    (
        "challenge of oneself",
        setter("challenge", value={"challenger": "Boss", "opponent": "Boss"}),
        "challenge.opponent",
    ),
    (
        "challenge within a side",
        both(
            setter(
                "units", 2, "characters", value=[{"name": "Shaman", "profile": "4 3 3 3 4 2 2 1 7"}]
            ),
            setter("challenge", value={"challenger": "Boss", "opponent": "Shaman"}),
        ),
        "challenge.opponent",
    ),
    ("unknown edition", setter("parameters", value={"edition": "tenth"}), "parameters.edition"),
    ("zero rounds", setter("parameters", value={"max_rounds": 0}), "parameters.max_rounds"),
    (
        "other wounds on a stranger",
        setter("other_wounds", value=[{"side": "Orcs", "target": "Trolls", "wounds": 2}]),
        "other_wounds[0].target",
    ),
    ("models given as true", setter("units", 0, "models", value=True), "units[0].models"),
    ("models given as text", setter("units", 0, "models", value="20"), "units[0].models"),
    ("charged given as 1", setter("units", 2, "charged", value=1), "units[2].charged"),
    (
        "profile with a word",
        setter("units", 0, "profile", value="5 4 four 3 3 1 5 1 8"),
        "units[0].profile",
    ),
    (
        "more fighting models than models",
        setter("units", 2, "fighting_models", value=6),
        "units[2].fighting_models",
    ),
    (
        "supporting models beyond the unit",
        both(
            setter("units", 0, "fighting_models", value=15),
            setter("units", 0, "supporting_models", value=6),
        ),
        "units[0].supporting_models",
    ),
    (
        "downhill without a charge",
        setter("units", 1, "charged_downhill", value=True),
        "units[1].charged_downhill",
    ),
    (
        "character named like a unit",
        setter("units", 1, "characters", 0, "name", value="Wolves"),
        "units[1].characters[0].name",
    ),
    # Weapons and special rules (issue 16).
    (
        "a rule the edition lacks",
        setter("units", 0, "rules", value=["hatred", "heroic killing blow"]),
        "units[0].rules[1]",
    ),
    ("a lance on infantry", setter("units", 0, "weapon", value="lance"), "units[0].weapon"),
    (
        "a great weapon on a monster",
        both(
            setter("units", 2, "troop_type", value="monster"),
            setter("units", 2, "weapon", value="great weapon"),
        ),
        "units[2].weapon",
    ),
    ("an unknown weapon", setter("units", 0, "weapon", value="bazooka"), "units[0].weapon"),
    (
        "a re-roll of a re-roll",
        setter(
            "units", 0, "rerolls", value=[{"roll": "to_hit"}, {"roll": "to_hit", "which": "ones"}]
        ),
        "units[0].rerolls[1].roll",
    ),
    (
        "multiple wounds below 1",
        setter("units", 1, "characters", 0, "rules", value=["multiple wounds (0)"]),
        "units[1].characters[0].rules[0]",
    ),
    (
        "multiple wounds of a D4",
        setter("units", 0, "rules", value=["multiple wounds (D4)"]),
        "units[0].rules[0]",
    ),
    (
        "regeneration without a save",
        setter("units", 0, "rules", value=["regeneration"]),
        "units[0].rules[0]",
    ),
    (
        "a rule listed twice",
        setter("units", 0, "rules", value=["fear", "fear"]),
        "units[0].rules[1]",
    ),
]


@pytest.mark.parametrize(
    ("edit", "key_path"), [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_input_is_one_line_and_exit_two(tmp_path: Path, edit: Edit, key_path: str) -> None:
    document = copy.deepcopy(BASE)
    edit(document)
    scenario = tmp_path / "bad.yaml"
    scenario.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    output = tmp_path / "report.txt"
    result = runner.invoke(app, ["resolve", str(scenario), "-o", str(output)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"fracas: error: {scenario}: {key_path}: ")
    assert not output.exists()


FRONTAL = Path(__file__).resolve().parents[2] / "examples" / "rankflank" / "frontal_charge.yaml"


@pytest.mark.parametrize(
    ("setting", "key_path"),
    [("units[0].armour=7", "units[0].armour"), ("engagements[0].arc=top", "engagements[0].arc")],
)
def test_one_bad_unit_of_two_is_one_problem(setting: str, key_path: str) -> None:
    # pydantic counted only the units that validated, so one bad unit of two also made
    # "units" look short of its 2: a second, false problem (and a false "1 more" hint).
    checked = runner.invoke(app, ["validate", str(FRONTAL), "--set", setting])
    assert checked.exit_code == 2
    lines = checked.stderr.strip().splitlines()
    assert len(lines) == 1, checked.stderr
    assert lines[0].startswith(f"fracas: error: {FRONTAL}: {key_path}: ")
    resolved = runner.invoke(app, ["resolve", str(FRONTAL), "--set", setting])
    assert resolved.exit_code == 2
    assert "more problem" not in resolved.stderr


@pytest.mark.parametrize(
    ("setting", "problem"),
    [
        ("units=[]", "units: needs at least 2 units"),
        ("engagements=[]", "engagements: needs at least 1 engagement"),
    ],
)
def test_too_few_units_or_engagements_still_say_so(setting: str, problem: str) -> None:
    result = runner.invoke(app, ["validate", str(FRONTAL), "--set", setting])
    assert result.exit_code == 2
    assert f"{FRONTAL}: {problem}" in result.stderr


def test_the_base_scenario_is_valid(tmp_path: Path) -> None:
    scenario = tmp_path / "good.yaml"
    scenario.write_text(yaml.safe_dump(BASE, sort_keys=False), encoding="utf-8")
    result = runner.invoke(app, ["resolve", str(scenario), "--format", "json"])
    assert result.exit_code == 0, result.stderr


def test_set_overrides_an_option(tmp_path: Path) -> None:
    scenario = tmp_path / "good.yaml"
    scenario.write_text(yaml.safe_dump(BASE, sort_keys=False), encoding="utf-8")
    result = runner.invoke(
        app, ["resolve", str(scenario), "--format", "json", "--set", "parameters.edition=eighth"]
    )
    assert result.exit_code == 0, result.stderr
    assert '"edition": "eighth"' in result.stdout


def test_rulesets_lists_the_parameters() -> None:
    result = runner.invoke(app, ["rulesets", "rankflank"])
    assert result.exit_code == 0
    assert "overkill_max" in result.stdout


def test_same_bytes_across_processes() -> None:
    # Another machine, another hash order: the report must not depend on it.
    path = Path(__file__).parents[2] / "examples" / "rankflank" / "shared_arc.yaml"
    outputs = set()
    for hash_seed in ("1", "2"):
        run = subprocess.run(
            [sys.executable, "-m", "fracas", "resolve", str(path), "--format", "json"],
            capture_output=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1
