"""Every ``--format json`` output holds to its published JSON Schema (``fracas schema
--command KIND``): the actual outputs of every example, for every command, through a real
validator; the schemas are valid draft 2020-12; a key nobody documented fails."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from fracas.cli import app
from fracas.core.errors import ScenarioError
from fracas.core.output_schema import OUTPUTS
from fracas.io.output_schemas import REPORTS, output_schema
from fracas.rulesets import available_rulesets, find_ruleset

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*/*.yaml"))
EXAMPLES = [path for path in EXAMPLES if path.parent.name != "campaign"]
CAMPAIGN = ROOT / "examples" / "campaign" / "d100"


def run_json(*args: str | Path) -> Any:
    """The JSON document ``fracas ARGS`` prints (it must succeed)."""
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@cache
def validator(kind: str, ruleset: str | None = None) -> Draft202012Validator:
    return Draft202012Validator(output_schema(kind, ruleset))


def errors(kind: str, document: Any, ruleset: str | None = None) -> list[str]:
    found = []
    for error in validator(kind, ruleset).iter_errors(document):
        # Under a oneOf the reason is in the error's context: the branch it came closest to.
        reasons = [error, *(error.context or ())]
        found.append("; ".join(f"{reason.json_path}: {reason.message[:200]}" for reason in reasons))
    return found


def assert_valid(kind: str, document: Any) -> None:
    assert errors(kind, document) == []
    if kind in REPORTS:  # also against the schema narrowed to its own ruleset
        assert errors(kind, document, document["ruleset"]) == []


def offers(example: Path, action: str) -> bool:
    return action in find_ruleset(example.parent.name).capabilities()


def sides(example: Path) -> list[str]:
    document = run_json("resolve", example, "-f", "json")
    return sorted({unit["side"] for unit in document["result"]["units"]})


# ── the schemas themselves ─────────────────────────────────────────────────────────────


@pytest.mark.parametrize("kind", list(OUTPUTS))
def test_every_schema_is_valid_draft_2020_12(kind: str) -> None:
    Draft202012Validator.check_schema(output_schema(kind))
    if kind in REPORTS:
        for cls in available_rulesets():
            if kind in ("resolve", "odds") or cls.implements(kind):
                Draft202012Validator.check_schema(output_schema(kind, cls.name))


@pytest.mark.parametrize("kind", ["forecast", "advise", "threats"])
def test_the_output_of_a_command_a_ruleset_lacks_is_refused(kind: str) -> None:
    # An open schema for an output d100 never writes would pass anything at all.
    with pytest.raises(ScenarioError, match=f"--command: d100 has no {kind}"):
        output_schema(kind, "d100")


def test_the_command_prints_the_schema_and_leaves_the_scenario_schema_as_it_was() -> None:
    assert run_json("schema", "--command", "odds") == output_schema("odds")
    assert run_json("schema", "hexgrid", "-c", "advise") == output_schema("advise", "hex")
    for cls in available_rulesets():
        assert run_json("schema", cls.name) == cls.json_schema()


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("schema",), "name a RULESET"),
        (("schema", "--command", "render"), "unknown output 'render'"),
        (("schema", "hex", "--command", "validate"), "the same for every ruleset"),
        (("schema", "nosuch", "--command", "resolve"), "nosuch"),
    ],
)
def test_a_bad_request_is_one_line(args: tuple[str, ...], problem: str) -> None:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("fracas: error: ")
    assert problem in lines[0]


# ── the actual outputs of every example ───────────────────────────────────────────────


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_every_example_output_holds_to_its_schema(example: Path) -> None:
    assert_valid("resolve", run_json("resolve", example, "-f", "json"))
    assert_valid("validate", run_json("validate", example, "-f", "json"))
    assert_valid("metrics", run_json("metrics", example, "-f", "json"))
    odds = ("odds", example, "-f", "json", "--method", "mc", "--runs", "50", "--quiet")
    assert_valid("odds", run_json(*odds, "--workers", "1"))
    for side in sides(example) if offers(example, "advise") else []:
        advice = run_json("advise", example, "--side", side, "-f", "json", "--quiet")
        assert_valid("advise", advice)
        for extra in (("--plan",), ("--reply",), ("--plan", "--reply")):
            found = run_json("advise", example, "--side", side, *extra, "-f", "json", "--quiet")
            assert_valid("advise", found)
        assert_valid("threats", run_json("threats", example, "--side", side, "-f", "json"))
        for attack in advice["result"]["attacks"][:1]:
            attacker, target = attack["attacker"], attack["target"]
            forecast = ("forecast", example, "--attacker", attacker, "--target", target)
            assert_valid("forecast", run_json(*forecast, "-f", "json"))
            focus = ("advise", example, "--side", side, "--focus", target, "-f", "json")
            assert_valid("advise", run_json(*focus, "--quiet"))


def test_each_hex_action_was_checked() -> None:
    # Guard for the loop above: the examples do reach every kind of advice.
    example = ROOT / "examples" / "hex" / "encirclement.yaml"
    kinds = {
        run_json("advise", example, "--side", "blue", *extra, "-f", "json", "--quiet")["result"][
            "kind"
        ]
        for extra in ((), ("--plan",), ("--reply",), ("--focus", "holdout"))
    }
    assert kinds == {"advice", "plan", "reply", "focus"}


def test_odds_with_solve_and_fractions_and_a_fair_resolve(tmp_path: Path) -> None:
    frontal = ROOT / "examples" / "rankflank" / "frontal_charge.yaml"
    solved = run_json(
        *("odds", frontal, "-f", "json", "--method", "mc", "--runs", "50", "--quiet"),
        *("--workers", "1", "--set", "parameters.max_rounds=1", "--solve", "units[0].models"),
        # Exactly 0.32 at 14 models (one round): a target of 0.2 leaves room for what the
        # 50 sampled runs measure, so the solve finds a value in the range.
        *("--target", "0.2", "--metric", "winner=Empire", "--from", "8", "--to", "14"),
    )
    assert "solve" in solved["result"]
    assert_valid("odds", solved)
    river = ROOT / "examples" / "hex" / "river_crossing.yaml"
    exact = run_json("odds", river, "-f", "json", "--method", "exact", "--exact-fractions")
    assert any("fraction" in value for m in exact["result"]["metrics"] for value in m["values"])
    assert_valid("odds", exact)
    secret = tmp_path / "raid.secret"
    lair = ROOT / "examples" / "d100" / "lair_raid.yaml"
    assert (
        CliRunner().invoke(app, ["commit", str(lair), "--secret-file", str(secret)]).exit_code == 0
    )
    fair = run_json("resolve", lair, "--secret-file", secret, "--nonce", "owl", "-f", "json")
    assert set(fair["fair"]) >= {"derivation", "commitment", "nonces", "secret", "seal"}
    assert_valid("resolve", fair)


def test_the_listings_hold_to_their_schemas(tmp_path: Path) -> None:
    assert_valid("rulesets", run_json("rulesets", "-f", "json"))
    for cls in available_rulesets():
        assert_valid("rulesets", run_json("rulesets", cls.name, "-f", "json"))
    assert_valid("examples", run_json("examples", "-f", "json"))
    assert_valid("examples", run_json("examples", "-o", str(tmp_path / "copied"), "-f", "json"))
    bad = tmp_path / "bad.yaml"
    bad.write_text("fracas: 1\nruleset: hex\nunits: 3\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", str(bad), "-f", "json"])
    assert result.exit_code == 2
    invalid = json.loads(result.stdout)
    assert invalid["valid"] is False
    assert_valid("validate", invalid)


def test_a_sweep_holds_to_its_schema() -> None:
    frontal = ROOT / "examples" / "rankflank" / "frontal_charge.yaml"
    swept = run_json(
        *("sweep", frontal, "--vary", "units[0].models=0,10,12", "--metric", "winner=Empire"),
        *("-f", "json", "--method", "mc", "--runs", "50", "--quiet", "--workers", "1"),
    )
    # models=0 is no valid unit: an invalid cell is part of the contract too.
    assert {cell["method"] for cell in swept["cells"]} >= {"invalid", "monte-carlo"}
    assert_valid("sweep", swept)


def test_a_campaign_holds_to_its_schemas(tmp_path: Path) -> None:
    db = str(tmp_path / "war.db")
    for args in (
        ("new", "War", "--ruleset", "d100"),
        ("roster", "War", "Fenwick", "--file", CAMPAIGN / "fenwick.yaml"),
        ("roster", "War", "Thornwall", "--file", CAMPAIGN / "thornwall.yaml"),
    ):
        result = CliRunner().invoke(app, ["campaign", *map(str, args), "--db", db])
        assert result.exit_code == 0, result.stderr
    battle = (
        "--attacker",
        "Fenwick",
        "--defender",
        "Thornwall",
        "--battle",
        CAMPAIGN / "raid.yaml",
    )
    fought = run_json("campaign", "battle", "War", *battle, "--seed", "5", "-f", "json", "--db", db)
    assert_valid("resolve", fought)
    assert_valid("campaign-roster", run_json("campaign", "roster", "War", "-f", "json", "--db", db))
    one = run_json("campaign", "roster", "War", "Fenwick", "-f", "json", "--db", db)
    assert_valid("campaign-roster", one)
    luck = run_json("campaign", "luck", "War", "-f", "json", "--db", db)
    assert luck["forces"]
    assert luck["forces"][0]["battles"]
    assert_valid("campaign-luck", luck)


# ── an undocumented key fails ─────────────────────────────────────────────────────────


@cache
def sample_outputs() -> dict[str, Any]:
    """One actual output of each kind."""
    river = ROOT / "examples" / "hex" / "encirclement.yaml"
    lair = ROOT / "examples" / "d100" / "lair_raid.yaml"
    return {
        "resolve": run_json("resolve", lair, "-f", "json"),
        "forecast": run_json(
            "forecast", river, "--attacker", "lead", "--target", "holdout", "-f", "json"
        ),
        "advise": run_json("advise", river, "--side", "blue", "-f", "json", "--quiet"),
        "threats": run_json("threats", river, "--side", "red", "-f", "json"),
        "odds": run_json("odds", river, "-f", "json"),
        "metrics": run_json("metrics", lair, "-f", "json"),
        "validate": run_json("validate", lair, "-f", "json"),
        "rulesets": run_json("rulesets", "hex", "-f", "json"),
        "examples": run_json("examples", "-f", "json"),
    }


#: The outputs whose sample above is taken (sweep and campaign have tests of their own).
SAMPLED = [
    *("resolve", "forecast", "advise", "threats", "odds"),
    *("metrics", "validate", "rulesets", "examples"),
]


@pytest.mark.parametrize("kind", SAMPLED)
def test_an_undocumented_top_level_key_fails(kind: str) -> None:
    document = copy.deepcopy(sample_outputs()[kind])
    assert errors(kind, document) == []
    target = document[0] if isinstance(document, list) else document
    target["undocumented"] = 1
    assert any("'undocumented' was unexpected" in error for error in errors(kind, document))
    if kind in REPORTS:
        document = copy.deepcopy(sample_outputs()[kind])
        document["result"]["undocumented"] = 1
        assert errors(kind, document), "a result's keys are closed too"


def test_a_nested_change_fails_where_the_ruleset_describes_it() -> None:
    resolved = copy.deepcopy(sample_outputs()["resolve"])
    resolved["result"]["steps"]["melee"][0]["kind"] = "ambush"  # no such d100 event
    assert errors("resolve", resolved)
    odds = copy.deepcopy(sample_outputs()["odds"])
    odds["result"]["metrics"][0]["values"][0]["probability"] = "high"
    assert errors("odds", odds)


def test_the_result_is_checked_against_the_ruleset_the_document_names() -> None:
    # A d100 battle passed off as a hex turn fails the hex result, not only the narrowed one.
    document = copy.deepcopy(sample_outputs()["resolve"])
    document["ruleset"] = "hex"
    assert errors("resolve", document)
    assert errors("resolve", document, "d100")  # ruleset is const d100 there
    document["ruleset"] = "d100"
    assert errors("resolve", document, "hex")


#: The objects keyed by names, open by nature (their values are checked): a combat's
#: losses by unit id, a parameter's default, a sweep's options.
OPEN_BY_NAME = {"losses", "default"}


def objects_in(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every object inside ``node`` (itself included)."""
    found: list[tuple[Any, ...]] = []
    if isinstance(node, dict):
        found.append(path)
        for key, value in node.items():
            found += objects_in(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += objects_in(value, (*path, index))
    return found


@pytest.mark.parametrize(
    ("kind", "args"),
    [
        ("resolve", ("resolve", "examples/hex/encirclement.yaml")),
        ("resolve", ("resolve", "examples/d100/lair_raid.yaml")),
        ("resolve", ("resolve", "examples/rankflank/challenge_overkill.yaml")),
        ("advise", ("advise", "examples/hex/encirclement.yaml", "--side", "blue", "--plan")),
        ("advise", ("advise", "examples/hex/encirclement.yaml", "--side", "blue", "--reply")),
        ("threats", ("threats", "examples/hex/encirclement.yaml", "--side", "red")),
        ("odds", ("odds", "examples/hex/river_crossing.yaml")),
    ],
    ids=lambda value: value if isinstance(value, str) else "-".join(value[:2]),
)
def test_every_documented_object_is_closed(kind: str, args: tuple[str, ...]) -> None:
    document = run_json(
        *args[:1],
        ROOT / args[1],
        *args[2:],
        "-f",
        "json",
        *(("--quiet",) if args[0] == "advise" else ()),
    )
    # One object of each place (the first list entry stands for the others).
    places: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for path in objects_in(document):
        if not OPEN_BY_NAME & set(path[-1:]):
            places.setdefault(tuple(None if isinstance(p, int) else p for p in path), path)
    paths = list(places.values())
    assert len(paths) > 3
    for path in paths:
        changed = copy.deepcopy(document)
        node = changed
        for part in path:
            node = node[part]
        node["undocumented"] = 1
        assert errors(kind, changed), f"an undocumented key at {path} passes"
