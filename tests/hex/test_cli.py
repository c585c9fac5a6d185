"""The ``fracas`` command on hex scenarios: good runs, and bad input as one line with exit 2."""

from __future__ import annotations

import copy
import json
import xml.etree.ElementTree as ET
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
    "ruleset": "hex",
    "title": "Two companies",
    "map": {"rows": ["....", "...."]},
    "units": [
        {"id": "a", "side": "blue", "hex": [0, 0], "strength": 100, "attack": {"land": 10},
         "defense": 10},
        {"id": "b", "side": "red", "hex": [1, 0], "strength": 100, "attack": {"land": 10},
         "defense": 10},
        {"id": "c", "side": "blue", "hex": [3, 1], "strength": 50, "attack": {"land": 10},
         "defense": 10},
    ],
    "orders": [{"attacker": "a", "target": "b"}],
}  # fmt: skip


def scenario_file(tmp_path: Path, change: Callable[[dict[str, Any]], None] | None = None) -> Path:
    document = copy.deepcopy(BASE)
    if change is not None:
        change(document)
    path = tmp_path / "battle.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def set_at(path: tuple[Any, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        node = document
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    return change


def test_resolve_prints_a_readable_report(tmp_path: Path) -> None:
    result = runner.invoke(app, ["resolve", str(scenario_file(tmp_path))])
    assert result.exit_code == 0, result.output
    assert "a strikes b" in result.stdout
    assert "b counters a" in result.stdout
    # 1000 against 1000 both ways: 50 each.
    assert "losses applied together: a −50, b −50" in result.stdout
    assert "ruleset hex" in result.stdout
    assert "seed" not in result.stdout.splitlines()[-1]  # no dice, so no seed to record


BAD_CASES = [
    ("unknown order id", set_at(("orders", 0, "attacker"), "zz"), "orders[0].attacker",
     "no unit with id 'zz'"),
    ("two units on one hex", set_at(("units", 2, "hex"), [0, 0]), "units[2].hex",
     "already taken by 'a'"),
    ("out of range", set_at(("orders", 0), {"attacker": "c", "target": "b"}), "orders[0]",
     "3 hexes away"),
    ("same side", set_at(("orders", 0), {"attacker": "a", "target": "c"}), "orders[0]",
     "both on side 'blue'"),
    ("no attack vs domain", set_at(("units", 1, "domain"), "air"), "orders[0]",
     "no attack against air"),
    ("negative strength", set_at(("units", 0, "strength"), -5), "units[0].strength",
     "greater than or equal to 0"),
    ("pierce of 1", set_at(("units", 0, "pierce"), 1), "units[0].pierce", "less than 1"),
    ("level 100", set_at(("units", 0, "level"), 100), "units[0].level",
     "less than or equal to 99"),
    ("hex off the map", set_at(("units", 2, "hex"), [9, 9]), "units[2].hex", "off the map"),
    ("unknown terrain letter", set_at(("map", "rows", 1), "..X."), "map.rows[1]",
     "unknown terrain letter 'X'"),
    ("duplicate id", set_at(("units", 2, "id"), "a"), "units[2].id", "already used"),
    ("max below strength", set_at(("units", 0, "max_strength"), 10), "units[0].max_strength",
     "below strength"),
    ("range reversed", set_at(("units", 0, "range"), [3, 1]), "units[0].range",
     "range must be [min, max] with 1 ≤ min ≤ max (got [3, 1])"),
    ("strength given as true", set_at(("units", 0, "strength"), True), "units[0].strength",
     "valid integer"),
    ("attack given as text", set_at(("units", 0, "attack"), {"land": "10"}),
     "units[0].attack.land", "valid number"),
    ("negative encirclement factor",
     set_at(("parameters",), {"encirclement": [1, 1, 0.9, 0.8, 0.7, 0.6, -0.5]}),
     "parameters.encirclement[6]", "greater than or equal to 0"),
    ("negative advisor weight", set_at(("parameters",), {"advisor_own_weight": -1}),
     "parameters.advisor_own_weight", "greater than or equal to 0"),
    ("terrain colour that is not a colour",
     set_at(("parameters",), {"terrain": {"plains": {"color": 'red" onload="x'}}}),
     "parameters.terrain.plains.color", "should match pattern"),
    ("map given both ways", set_at(("map", "hexes"), [{"q": 0, "r": 0}]), "map",
     "either as rows or as hexes"),
    ("negative attack", set_at(("units", 0, "attack"), {"land": -1}), "units[0].attack.land",
     "greater than or equal to 0"),
    ("infinite defence", set_at(("units", 0, "defense"), float("inf")), "units[0].defense",
     "finite"),
    ("unknown key", set_at(("units", 0, "moral"), 3), "units[0].moral", "unknown key"),
    ("bad encirclement table", set_at(("parameters",), {"encirclement": [1, 0.9]}),
     "parameters.encirclement", "needs 7 entries"),
    # Past 1e12 (or below 1e-12) the advisor's floats could overflow or underflow: every
    # command refuses such a number, so all of them answer the same files.
    ("strength past a C long", set_at(("units", 0, "strength"), 2**63), "units[0].strength",
     "less than or equal to 1000000000000"),
    ("max strength past the bound", set_at(("units", 0, "max_strength"), 10**12 + 1),
     "units[0].max_strength", "less than or equal to 1000000000000"),
    ("attack past the bound", set_at(("units", 0, "attack"), {"land": 1e308}),
     "units[0].attack.land", "outside the numbers hex computes with (0, or 1e-12 to 1e12"),
    ("defence below the bound", set_at(("units", 0, "defense"), 1e-300),
     "units[0].defense", "outside the numbers hex computes with"),
    ("statuses multiplying past the bound",
     set_at(("units", 0, "statuses"), [{"name": "x", "kind": "buff", "atk_mul": 1e7}] * 2),
     "units[0].statuses", "atk_mul come to 1e+14 together"),
    ("support share past the bound", set_at(("parameters",), {"support_share": 1e13}),
     "parameters.support_share", "outside the numbers hex computes with"),
    ("terrain factor past the bound",
     set_at(("parameters",), {"terrain": {"plains": {"attack": 1e300}}}),
     "parameters.terrain.plains.attack", "outside the numbers hex computes with"),
    ("level gain past any cap", set_at(("parameters",), {"level_gain_kill": 2**63}),
     "parameters.level_gain_kill", "less than or equal to 99"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("change", "key_path", "problem"),
    [case[1:] for case in BAD_CASES],
    ids=[case[0] for case in BAD_CASES],
)
def test_bad_input_is_one_line_with_file_and_key_path(
    tmp_path: Path, change: Callable[[dict[str, Any]], None], key_path: str, problem: str
) -> None:
    path = scenario_file(tmp_path, change)
    out = tmp_path / "report.txt"
    result = runner.invoke(app, ["resolve", str(path), "-o", str(out)])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"fracas: error: {path}: {key_path}: "), lines[0]
    assert problem in lines[0]
    assert "Traceback" not in result.output
    assert not out.exists()


def test_a_level_above_the_scenarios_level_cap_is_refused(tmp_path: Path) -> None:
    # The cap is the highest level a unit can reach: a unit at 10 under a cap of 5 was
    # reported as "Lv 10 → 10 (+1 fought, capped at 5)".
    def change(document: dict[str, Any]) -> None:
        document["parameters"] = {"level_cap": 5}
        document["units"][0]["level"] = 10

    path = scenario_file(tmp_path, change)
    result = runner.invoke(app, ["resolve", str(path)])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        f"fracas: error: {path}: units[0].level: level 10 is above parameters.level_cap 5, "
        "the highest level a unit can reach"
    )

    def at_the_cap(document: dict[str, Any]) -> None:
        change(document)
        document["units"][0]["level"] = 5

    result = runner.invoke(app, ["resolve", str(scenario_file(tmp_path, at_the_cap))])
    assert result.exit_code == 0, result.output
    assert "a: Lv 5 → 5 (+1 fought, capped at 5)" in result.stdout


def test_one_bad_encirclement_factor_is_one_problem(tmp_path: Path) -> None:
    # pydantic counted the table as 6 entries long once one of its 7 failed: a second,
    # false problem.
    change = set_at(("parameters",), {"encirclement": [1, 1, 0.9, 0.8, 0.7, 0.6, -0.5]})
    result = runner.invoke(app, ["validate", str(scenario_file(tmp_path, change))])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "parameters.encirclement[6]: " in lines[0]


def test_malformed_yaml_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("fracas: 1\nruleset: hex\nunits: [\n  {id: a, side: [\n", encoding="utf-8")
    result = runner.invoke(app, ["resolve", str(path)])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"fracas: error: {path}: ")
    assert "not valid YAML" in lines[0]


def test_an_order_against_a_unit_destroyed_earlier_names_the_later_order(tmp_path: Path) -> None:
    def change(document: dict[str, Any]) -> None:
        document["units"][0]["attack"] = {"land": 1000}  # a wipes b out in order 0
        document["units"][2]["hex"] = [2, 0]  # c stands next to b too
        document["orders"].append({"attacker": "c", "target": "b"})

    result = runner.invoke(app, ["resolve", str(scenario_file(tmp_path, change))])
    assert result.exit_code == 2
    assert ": orders[1]: illegal attack: 'b' is not on the board" in result.stderr


def test_forecast_leaves_the_board_and_reports_the_preview(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, set_at(("orders",), []))
    result = runner.invoke(app, ["forecast", str(path), "--attacker", "a", "--target", "b"])
    assert result.exit_code == 0, result.output
    assert "Forecast: a attacks b" in result.stdout
    assert "100 → 50" in result.stdout


def test_forecast_is_what_resolving_the_same_attack_gives(tmp_path: Path) -> None:
    # The scenario's only order is a → b; forecasting a → b must predict it exactly, and
    # it looks at the board as loaded (the orders are not played first).
    path = scenario_file(tmp_path)
    resolved = runner.invoke(app, ["resolve", str(path), "-f", "json"])
    forecast = runner.invoke(
        app, ["forecast", str(path), "--attacker", "a", "--target", "b", "-f", "json"]
    )
    assert resolved.exit_code == forecast.exit_code == 0, forecast.output
    predicted = json.loads(forecast.stdout)["result"]
    assert list(predicted) == ["kind", "combat"]
    assert predicted["kind"] == "forecast"
    assert predicted["combat"] == json.loads(resolved.stdout)["result"]["combats"][0]
    # 1000 against 1000 both ways: 50 each, as resolved.
    assert predicted["combat"]["losses"] == {"a": 50, "b": 50}


def test_forecast_errors_name_the_option(tmp_path: Path) -> None:
    path = scenario_file(tmp_path)
    result = runner.invoke(app, ["forecast", str(path), "--attacker", "x", "--target", "b"])
    assert result.exit_code == 2
    assert "--attacker: no unit with id 'x'" in result.stderr
    result = runner.invoke(app, ["forecast", str(path), "--attacker", "c", "--target", "b"])
    assert result.exit_code == 2
    assert "--target: illegal attack" in result.stderr


def test_advise_ranks_and_rejects_an_unknown_side(tmp_path: Path) -> None:
    path = scenario_file(tmp_path)
    result = runner.invoke(app, ["advise", str(path), "--side", "blue", "-f", "json"])
    assert result.exit_code == 0, result.output
    advice = json.loads(result.stdout)["result"]
    assert list(advice) == ["kind", "side", "total", "attacks"]
    assert advice["total"] == 1
    attacks = advice["attacks"]
    assert list(attacks[0]) == [
        "rank", "attacker", "target", "score", "enemy_lost", "own_lost", "levels_gained",
        "combat",
    ]  # fmt: skip
    # Only a touches b (c is two hexes away): score 50 − 50 = 0.
    assert [(x["attacker"], x["target"], x["score"]) for x in attacks] == [("a", "b", 0)]
    result = runner.invoke(app, ["advise", str(path), "--side", "green"])
    assert result.exit_code == 2
    assert "--side: no side 'green'" in result.stderr


def test_render_writes_an_svg(tmp_path: Path) -> None:
    path = scenario_file(tmp_path)
    out = tmp_path / "board.svg"
    result = runner.invoke(
        app, ["render", str(path), "-o", str(out), "--attacker", "a", "--target", "b"]
    )
    assert result.exit_code == 0, result.output
    root = ET.fromstring(out.read_text(encoding="utf-8"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"


def test_json_output_pins_the_key_order(tmp_path: Path) -> None:
    result = runner.invoke(app, ["resolve", str(scenario_file(tmp_path)), "--format", "json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert list(document) == [
        "fracas", "ruleset", "source", "scenario_sha256", "seed", "overrides", "title", "result",
    ]  # fmt: skip
    assert (document["ruleset"], document["seed"]) == ("hex", None)
    data = document["result"]
    assert list(data) == ["kind", "combats", "units"]
    combat = data["combats"][0]
    assert list(combat) == [
        "attacker", "target", "distance", "strike", "counter", "counter_note", "losses",
        "levels", "destroyed",
    ]  # fmt: skip
    assert list(combat["strike"]) == [
        "striker", "target", "distance", "effective_attack", "effective_defense", "ratio",
        "fraction", "target_strength", "losses",
    ]  # fmt: skip
    assert list(combat["strike"]["effective_attack"]) == ["label", "total", "rows"]
    assert list(combat["strike"]["effective_attack"]["rows"][0]) == [
        "label", "op", "value", "source", "rule",
    ]  # fmt: skip
    assert list(combat["levels"][0]) == ["unit", "before", "after", "reason"]
    assert list(data["units"][0]) == [
        "id", "side", "hex", "domain", "strength_before", "strength", "max_strength",
        "level_before", "level", "destroyed",
    ]  # fmt: skip
    # 1000 against 1000: ratio 1, fraction 0.5, 50 lost.
    assert (combat["strike"]["ratio"], combat["strike"]["fraction"]) == (1, 0.5)
    assert combat["losses"] == {"a": 50, "b": 50}


def test_rulesets_lists_every_parameter_with_its_default() -> None:
    result = runner.invoke(app, ["rulesets", "hex"])
    assert result.exit_code == 0, result.output
    assert "loss_exponent = 2" in result.stdout
    assert '"forest": {"letter": "f", "attack": 1.0, "defense": 1.25' in result.stdout
