"""Metrics in player words: labels in reports, `--metric` by label, `fracas metrics`, a
goal value that no battle takes named as such, and `--solve` honest under sampling."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fracas.analysis.results import OddsResult
from fracas.analysis.solve import Goal, Probe, SolveResult
from fracas.cli import app
from fracas.rulesets import find_ruleset

from .conftest import ROOT

LANCE = ROOT / "examples" / "rankflank" / "lance_charge.yaml"
LAIR = ROOT / "examples" / "d100" / "lair_raid.yaml"
runner = CliRunner()


@pytest.mark.parametrize(
    ("ruleset", "metric", "label"),
    [
        ("rankflank", "cr.Empire", "Empire's combat result in round 1"),
        ("rankflank", "cr.Greenskins", "Greenskins' combat result in round 1"),
        ("rankflank", "cr.difference", "Round 1's combat result gap"),
        ("rankflank", "breaks.Goblins", "Goblins break"),
        ("rankflank", "falls_back.Orcs", "Orcs fall back in good order"),
        ("rankflank", "gives_ground.Orcs", "Orcs give ground"),
        ("d100", "pax.Wolf Riders", "Wolf Riders' PAX left"),
        ("hex", "losses.lead", "lead's losses"),
        ("hex", "unknown.metric", "unknown.metric"),
    ],
)
def test_every_ruleset_names_its_metrics_for_players(ruleset: str, metric: str, label: str) -> None:
    assert type(find_ruleset(ruleset)).label(metric) == label


def test_every_metric_of_every_example_has_a_label() -> None:
    for path in sorted(ROOT.glob("examples/*/*.yaml")):
        result = runner.invoke(app, ["metrics", str(path), "-f", "json"])
        assert result.exit_code == 0, (path, result.output)
        for row in json.loads(result.stdout)["metrics"]:
            assert row["label"] != row["key"], (path, row)


def test_metrics_lists_keys_labels_and_values() -> None:
    result = runner.invoke(app, ["metrics", str(LAIR)])
    assert result.exit_code == 0, result.output
    assert "Winner of the battle" in result.stdout
    assert "pax.Wolf Riders" in result.stdout
    listing = json.loads(runner.invoke(app, ["metrics", str(LAIR), "-f", "json"]).stdout)
    winner = next(row for row in listing["metrics"] if row["key"] == "winner")
    assert winner["kind"] == "categorical"
    assert "Red Fang" in winner["values"]


def test_odds_reports_and_json_carry_the_labels() -> None:
    text = runner.invoke(app, ["odds", str(LANCE)]).stdout
    assert "── Winner of the combat (winner)" in text
    document = json.loads(runner.invoke(app, ["odds", str(LANCE), "-f", "json"]).stdout)
    labels = {m["name"]: m["label"] for m in document["result"]["metrics"]}
    assert labels["winner"] == "Winner of the combat"


def test_metric_takes_the_label_in_any_case() -> None:
    by_key = ["odds", str(LANCE), "--solve", "units[0].models", "--target", "0.5"]
    keyed = runner.invoke(app, [*by_key, "--metric", "winner=Bretonnia", "-f", "json"])
    labelled = runner.invoke(
        app, [*by_key, "--metric", "winner OF THE combat=Bretonnia", "-f", "json"]
    )
    assert keyed.exit_code == 0, keyed.output
    assert labelled.exit_code == 0, labelled.output
    assert (
        json.loads(keyed.stdout)["result"]["solve"]["value"]
        == json.loads(labelled.stdout)["result"]["solve"]["value"]
    )


def test_a_value_no_battle_takes_is_named_with_the_values_there_are() -> None:
    args = ["odds", str(LANCE), "--solve", "units[0].models", "--target", "0.8"]
    result = runner.invoke(app, [*args, "--metric", "winner=Elves"])
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert (
        "Winner of the combat never was 'Elves' at any value tried: its values were "
        "Border Princes, Bretonnia, undecided"
    ) in lines[0]
    unknown = runner.invoke(app, [*args, "--metric", "victor=Elves"])
    assert unknown.exit_code == 2
    assert "no metric named 'victor'" in unknown.stderr
    assert "winner (Winner of the combat)" in unknown.stderr


def sampled(value: int, measured: float, low: float, high: float) -> Probe:
    return Probe(value, measured, low=low, high=high)


def test_solve_names_the_answers_sampling_cannot_tell_apart() -> None:
    goal = Goal("winner", "==", "Empire", 0.8, "Empire")
    probes = (
        sampled(24, 0.779, 0.7603, 0.7966),  # below 0.8 for sure
        sampled(25, 0.7965, 0.7783, 0.8136),  # holds 0.8: cannot tell
        sampled(26, 0.824, 0.8067, 0.8401),  # above for sure
    )
    answer = SolveResult(
        "units[0].models", goal, 26, 0.824, OddsResult("t", "monte-carlo", "", 0, "", 0, ()), probes
    )
    assert answer.indistinct == (25,)
    exact = (Probe(25, 0.7965, low=0.7965, high=0.7965), Probe(26, 0.824, low=0.824, high=0.824))
    assert (
        SolveResult(
            "p", goal, 26, 0.824, OddsResult("t", "exact", "", 0, "", 0, ()), exact
        ).indistinct
        == ()
    )


def test_solve_under_sampling_says_so_and_names_the_value_of_its_odds() -> None:
    args = ["odds", str(LANCE), "--method", "mc", "--runs", "300", "--solve", "units[0].models"]
    result = runner.invoke(app, [*args, "--target", "0.5", "--metric", "winner=Bretonnia"])
    assert result.exit_code == 0, result.output
    found = json.loads(
        runner.invoke(
            app, [*args, "--target", "0.5", "--metric", "winner=Bretonnia", "-f", "json"]
        ).stdout
    )["result"]["solve"]
    assert f"at units[Knights].models = {found['value']}" in result.stdout.splitlines()[0]
    assert f"The odds below are those at units[Knights].models = {found['value']}." in result.stdout
    for probe in found["probes"]:
        if probe["measured"] is not None:
            assert probe["low"] <= probe["measured"] <= probe["high"]
    undecided = [
        p["value"] for p in found["probes"] if p["low"] is not None and p["low"] <= 0.5 <= p["high"]
    ]
    assert found["indistinct"] == undecided
    assert ("Not told apart at this many runs" in result.stdout) == bool(undecided)
