"""The weapon and special-rule examples: they resolve, their rules show in the report, and
exact odds of the whole combat (every round until it is decided or the round limit) agree
with Monte Carlo within its interval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fracas.analysis import odds
from fracas.io.render import render_json, render_text
from fracas.io.scenario import load_scenario

FOLDER = Path(__file__).parents[2] / "examples" / "rankflank"
SPECIAL = [
    "halberds_vs_greatswords.yaml",
    "lance_charge.yaml",
    "monster_stomp.yaml",
    "poisoned_skirmishers.yaml",
]


@pytest.mark.parametrize("name", SPECIAL)
def test_exact_odds_until_decided_agree_with_monte_carlo(name: str) -> None:
    scenario = load_scenario(FOLDER / name)
    exact = odds(scenario, method="exact")
    sampled = odds(scenario, method="mc", runs=2000, seed=16, confidence=0.9999)
    for metric in exact.metrics:
        total = sum(float(entry.probability) for entry in metric.values)
        # What the exact tolerance left out is missing from the total, and reported.
        assert total == pytest.approx(1.0, abs=exact.error_bar + 1e-9)
        for entry in metric.values:
            low, high = sampled.interval(metric.name, entry.value)
            assert low <= entry.probability <= high, (metric.name, entry.value)


def notes_of(name: str) -> list[str]:
    data = json.loads(render_json(load_scenario(FOLDER / name).resolve()))["result"]
    return [
        note
        for fought in data["rounds"]
        for step in fought["steps"]
        for strike in step["strikes"]
        for note in strike["notes"]
    ]


def test_halberds_and_great_weapons_show_their_strength() -> None:
    notes = notes_of("halberds_vs_greatswords.yaml")
    assert "S 4 = 3 + 1 (halberd)" in notes
    assert "S 5 = 3 + 2 (great weapon)" in notes


def test_lances_strike_at_five_on_the_charge_and_spears_parry() -> None:
    notes = notes_of("lance_charge.yaml")
    assert "S 5 = 3 + 2 (lance, on the charge)" in notes
    assert "6+ parry (hand weapon and shield, from the front)" not in notes  # spears: no parry
    assert "15 supporting attacks (spear, an extra rank)" not in notes
    assert "10 supporting attacks (spear, an extra rank)" in notes


def test_the_monster_stomps_and_hits_on_impact() -> None:
    text = render_text(load_scenario(FOLDER / "monster_stomp.yaml").resolve())
    assert "impact hits (D6) per model, at S 6" in text
    assert "stomp (D3) per model, at S 6" in text
    assert "Fear tests" in text


def test_poisoned_blades_against_regeneration() -> None:
    notes = notes_of("poisoned_skirmishers.yaml")
    assert "a natural 6 to hit wounds (poison attacks)" in notes
