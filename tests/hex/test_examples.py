"""Every example scenario loads, resolves, and says what its story promises."""

from __future__ import annotations

from pathlib import Path

import pytest

from fracas.io.render import render_text
from fracas.io.scenario import load_scenario
from fracas.rulesets.hex import HexScenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "hex"


def resolve(name: str) -> dict[str, object]:
    scenario = load_scenario(EXAMPLES / name)
    report = scenario.resolve()
    text = render_text(report)
    assert "Traceback" not in text
    assert report.ruleset == "hex"
    return dict(report.data)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_every_example_resolves_to_the_same_bytes_twice(path: Path) -> None:
    first = render_text(load_scenario(path).resolve())
    second = render_text(load_scenario(path).resolve())
    assert first == second
    assert "Board after the turn" in first


def test_river_crossing_attacks_out_of_the_river() -> None:
    data = resolve("river_crossing.yaml")
    combats = data["combats"]
    assert isinstance(combats, list)
    assault = combats[1]["strike"]["effective_attack"]
    terrain = next(row for row in assault["rows"] if row["label"] == "Terrain")
    # The assault stands on a river hex: attack factor 0.8.
    assert terrain["value"] == 0.8
    # 100 × 12 × 1.10 (Lv 10) × 0.8 = 1056, + pioneers 0.25 × 70 × 9 = 157.5 → 1213.5.
    assert assault["total"] == 1213.5


def test_air_and_artillery_strikes_cannot_be_countered() -> None:
    data = resolve("air_and_artillery.yaml")
    combats = data["combats"]
    assert isinstance(combats, list)
    assert [c["counter"] for c in combats] == [None, None]
    assert [c["losses"]["battery" if i == 0 else "strikers"] for i, c in enumerate(combats)] == [
        0,
        0,
    ]


def test_the_ring_turns_an_even_fight() -> None:
    scenario = load_scenario(EXAMPLES / "encirclement.yaml")
    model = scenario.model
    assert isinstance(model, HexScenario)
    # Without the flankers it is 1000 against 1000: half each way.
    lonely = load_scenario(
        EXAMPLES / "encirclement.yaml",
        overrides=[("units[1].hex", [0, 0]), ("units[2].hex", [3, 2]), ("orders", [])],
    )
    even = lonely.ruleset.forecast(lonely.model, "lead", "holdout").data["combat"]
    assert even["losses"] == {"lead": 50, "holdout": 50}
    ringed = scenario.resolve().data["combats"][0]
    # Ringed: 1000 + 250 + 250 = 1500 against 100 × 10 × 0.8 = 800: r = 1.875,
    # r² = 3.515625, 3.515625 / 4.515625 = 0.7785 → 78. The counter, 800 against
    # 1000 + left's and right's 250 each (both stand next to the holdout) = 1500:
    # r = 8/15, r² = 64/225, 64/289 = 0.2215 → 22.
    assert ringed["losses"] == {"lead": 22, "holdout": 78}
