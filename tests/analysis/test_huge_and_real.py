"""Real rulesets through ``fracas odds``: huge inputs within budget, errors, agreement."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from fracas.analysis import headline, odds
from fracas.analysis.reporting import shown_rows
from fracas.cli import app
from fracas.core.headline import Headline
from fracas.io.scenario import parse_scenario, scenario_from_document

from .conftest import VolleyRuleset, volley_yaml

ROOT = Path(__file__).resolve().parents[2]
FRONTAL = ROOT / "examples" / "rankflank" / "frontal_charge.yaml"
RIVER = ROOT / "examples" / "hex" / "river_crossing.yaml"
runner = CliRunner()


def huge_rankflank(*, even: bool = False) -> dict[str, Any]:
    # A thousand models all fighting (the scenario may say so) with Attacks 10: 10,000 blows.
    # Charging (and so striking first) at T3, the horde all but surely wipes the wall out,
    # and merged states make that exact. An even fight (eighth edition: no initiative for
    # the charge, both strike together; T5: wounds on 6+) spreads over ~10⁵ states.
    wall = "4 3 3 3 5 1 3 10 7" if even else "4 3 3 3 3 1 3 10 7"
    return {
        "fracas": 1,
        "ruleset": "rankflank",
        "parameters": {"edition": "eighth" if even else "ninth", "max_rounds": 1},
        "units": [
            {"name": "Horde", "side": "a", "models": 1000, "files": 100,
             "fighting_models": 1000, "profile": "4 3 3 3 5 1 3 10 7", "charged": True},
            {"name": "Wall", "side": "b", "models": 1000, "files": 100,
             "fighting_models": 1000, "profile": wall},
        ],
        "engagements": [{"unit": "Horde", "enemy": "Wall", "arc": "front"}],
    }  # fmt: skip


def huge_d100() -> dict[str, Any]:
    def unit(side: str, index: int) -> dict[str, Any]:
        return {"name": f"{side} {index}", "pax": 10, "speed": 1 + index % 4, "offense": 2,
                "defense": 1, "strength": 2, "equipment": ["melee_weapon"]}  # fmt: skip

    return {
        "fracas": 1,
        "ruleset": "d100",
        "sides": [
            {"name": "North", "action": "attack", "units": [unit("North", i) for i in range(50)]},
            {"name": "South", "action": "defend", "units": [unit("South", i) for i in range(50)]},
        ],
    }


def test_ten_thousand_blows_that_wipe_out_are_exact_thanks_to_merging() -> None:
    result = odds(scenario_from_document(huge_rankflank()), exact_budget=100_000)
    assert result.method == "exact"
    assert result.work <= 100_000
    assert float(result.probability("winner", "a")) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("document", "sample_budget"),
    # rankflank samples each group of 10,000 blows at once (about one roll of a die), so
    # its 10,000 runs take tens of thousands of rolls: a smaller budget stops it.
    [(huge_rankflank(even=True), 20_000), (huge_d100(), 400_000)],
    ids=["rankflank", "d100"],
)
def test_huge_battles_return_within_their_counted_budget(
    document: dict[str, Any], sample_budget: int
) -> None:
    scenario = scenario_from_document(document)
    result = odds(scenario, exact_budget=100_000, sample_budget=sample_budget)
    assert result.method == "monte-carlo"
    assert result.fallback
    # The work is counted, not timed: the exact attempt may spend its whole budget, the
    # sampling stops once its dice rolls are spent.
    assert result.dice_rolls <= 100_000 + sample_budget
    assert result.stopped_by == "work budget"


def test_exact_example_and_forced_monte_carlo_agree_within_the_stated_interval() -> None:
    common = [str(FRONTAL), "--set", "parameters.max_rounds=1", "--format", "json"]
    exact = json.loads(runner.invoke(app, ["odds", *common]).stdout)["result"]
    sampled = json.loads(
        runner.invoke(app, ["odds", *common, "--method", "mc", "--runs", "4000"]).stdout
    )["result"]
    assert exact["method"] == "exact"
    assert sampled["method"] == "monte-carlo"
    for exact_row, sampled_row in zip(exact["headline"], sampled["headline"], strict=True):
        assert exact_row["label"] == sampled_row["label"]
        if exact_row["kind"] == "probability":
            assert sampled_row["low"] <= exact_row["value"] <= sampled_row["high"], exact_row


def test_rankflank_headline_and_plot(tmp_path: Path) -> None:
    chart = tmp_path / "charge.svg"
    result = runner.invoke(
        app, ["odds", str(FRONTAL), "--set", "parameters.max_rounds=1", "--plot", str(chart)]
    )
    assert result.exit_code == 0, result.stderr
    assert "P(Empire wins round 1)" in result.stdout
    assert "P(draw in round 1)" in result.stdout
    assert "P(Empire wins the combat)" in result.stdout
    assert "P(combat undecided after the last round)" in result.stdout
    assert "P(Goblins breaks)" in result.stdout
    assert "expected casualties of Goblins" in result.stdout
    assert chart.read_text(encoding="utf-8").count("<svg") == 1


def test_hex_solve_by_hand() -> None:
    # The howitzers take 30 of the grenadiers' 80 whatever the assault company's level
    # (its support, 100 × 12 × 0.25 = 300, does not depend on it). Then the assault at
    # level L attacks the 50 left: 100 × 12 × (1 + L/100) × 0.8 (river) + 157.5 (support)
    # = 960·(1 + L/100) + 157.5 against 1122, r = that / 1122, losses
    # floor(50·r²/(1 + r²) + 0.5). 60 in all needs 30 here: r²/(1 + r²) ≥ 29.5/50 = 0.59,
    # r² ≥ 0.59/0.41 = 1.43902, r ≥ 1.19960, attack ≥ 1345.95, 1 + L/100 ≥ 1.23797: L = 24.
    #   L = 0:  1117.5 → r = 0.99599, r² = 0.99200, 50 × 0.49799 = 24.90 → 25; 30 + 25 = 55
    #   L = 23: 1338.3 → r = 1.19278, r² = 1.42273, 50 × 0.58724 = 29.36 → 29; 59
    #   L = 24: 1347.9 → r = 1.20134, r² = 1.44322, 50 × 0.59070 = 29.54 → 30; 60
    result = runner.invoke(
        app,
        ["odds", str(RIVER), "--solve", "units[2].level", "--target", "60",
         "--metric", "losses.grenadiers", "--to", "99", "--format", "json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    solved = json.loads(result.stdout)["result"]["solve"]
    measured = {p["value"]: p["measured"] for p in solved["probes"]}
    assert measured[0] == 55
    assert solved["value"] == 24
    assert measured[24] == 60
    assert measured[23] == 59


@pytest.mark.parametrize(
    ("args", "where"),
    [
        (["--solve", "units[9].models", "--target", "0.5", "--metric", "winner=Empire"],
         "units[9]: no such key"),
        (["--set", "units[0].models=-3"], "units[0].models"),
        (["--set", "engagements[0].enemy=Nobody"], "engagements[0].enemy"),
        (["--solve", "units[0].models", "--target", "0.5"], "--solve needs --metric"),
    ],
)  # fmt: skip
def test_bad_input_on_a_real_example_is_one_line(args: list[str], where: str) -> None:
    result = runner.invoke(app, ["odds", str(FRONTAL), *args])
    assert result.exit_code == 2
    assert str(FRONTAL) in result.stderr
    assert where in result.stderr
    assert result.stderr.count("\n") == 1
    assert result.stdout == ""


def test_huge_document_loads_as_yaml_too(tmp_path: Path) -> None:
    file = tmp_path / "huge.yaml"
    file.write_text(yaml.safe_dump(huge_rankflank(even=True)), encoding="utf-8")
    result = runner.invoke(
        app, ["odds", str(file), "--exact-budget", "50000", "--sample-budget", "200000"]
    )
    assert result.exit_code == 0, result.stderr
    assert "Why not exact" in result.stdout


def test_precision_covers_headline_events_made_of_several_values(
    toy: type[VolleyRuleset], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three shots hitting on 4+ without a save: wounds 0, 1, 2, 3 with 1/8, 3/8, 3/8, 1/8.
    # A headline event "at most one wound" has 1/2, the widest interval of all: at 95 %,
    # 1.96·√(p(1−p)/n) is 0.98/√n at 1/2 but only 0.949/√n at 3/8. For ±0.0305 the values
    # alone would stop after 1,000 runs (0.949/√1000 = 0.0300); the event needs 2,000
    # (0.98/√1000 = 0.0310 is still too wide).
    at_most_one = Headline("event", "wounds", "P(at most one wound)", values=(0, 1))
    monkeypatch.setattr(toy, "headlines", (at_most_one,))
    scenario = parse_scenario(volley_yaml(dice=3, hit_on=4, models=10, save=7))
    result = odds(scenario, method="mc", precision=0.0305, seed=3)
    assert result.stopped_by == "precision"
    assert result.runs == 2000
    row = headline(result)[0]
    assert (row.high - row.low) / 2 < 0.0305
    assert result.error_bar == pytest.approx((row.high - row.low) / 2)


def test_precision_covers_the_ranges_a_long_table_shows(toy: object) -> None:
    # 40 shots hitting on 4+ without a save: wounds are binomial(40, 1/2), about 21 values
    # above the rare tails, which the text shows in ranges two wide, each up to about
    # 0.125 + 0.125 = 1/4. At 95 %, 1.96·√(p(1−p)/n) is 0.648/√n for one value (1/8) but
    # 0.849/√n for a range (1/4): ±0.025 holds for the values after 1,000 runs (0.0205)
    # but for the ranges only after 2,000 (0.849/√1000 = 0.0268, 0.849/√2000 = 0.0190).
    scenario = parse_scenario(volley_yaml(dice=40, hit_on=4, models=100, save=7))
    result = odds(scenario, method="mc", precision=0.025, seed=4)
    assert result.stopped_by == "precision"
    assert result.runs == 2000
    _, rows = shown_rows(result.metric("wounds"), result)
    assert len(rows) < len(result.metric("wounds").values)
    assert max((row.high - row.low) / 2 for row in rows) < 0.025
