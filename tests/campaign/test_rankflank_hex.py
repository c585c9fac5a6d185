"""Campaigns of the other two rulesets: rankflank casualties and hex strength and levels."""

from __future__ import annotations

from typing import Any

from fracas.campaign.actions import enter_roster, new_campaign, record_battle, state_of
from fracas.campaign.store import Store
from fracas.campaign.verify import export_lines, verify_lines

HALBERDIERS: dict[str, Any] = {
    "name": "Halberdiers",
    "models": 30,
    "files": 6,
    "profile": "4 3 3 4 3 1 3 1 7",
    "armour": 6,
    "command": {"standard": True, "musician": True},
    "characters": [{"name": "Captain Vogt", "profile": "4 5 5 4 4 2 5 3 8", "armour": 4}],
}
GOBLINS: dict[str, Any] = {
    "name": "Goblins",
    "models": 40,
    "files": 8,
    "profile": "4 2 3 3 3 1 2 1 6",
    "armour": 6,
    "command": {"standard": True},
}
ORCS: dict[str, Any] = {
    "name": "Orcs",
    "models": 20,
    "files": 5,
    "profile": "4 3 3 3 4 1 2 1 7",
    "armour": 5,
}


def test_a_rankflank_battle_starts_from_the_last_ones_casualties(store: Store) -> None:
    new_campaign(store, "War", "rankflank")
    enter_roster(store, "War", "Empire", {"units": [HALBERDIERS]})
    enter_roster(store, "War", "Greenskins", {"units": [GOBLINS, ORCS]})
    first = record_battle(
        store, "War", "Empire", "Greenskins", only=["Halberdiers", "Goblins"], seed=3
    )
    # Seed 3: the goblins break and are cut down (40 casualties: destroyed); the
    # halberdiers lose 8 models of wound 1 and the captain none of his 2 wounds:
    # 30 − 8 = 22 models, the captain unhurt.
    assert first.fought.summary["casualties.Halberdiers"] == 8
    assert first.fought.summary["destroyed.Goblins"] is True
    war = state_of(store, "War")
    (halberdiers,) = war.forces["Empire"].roster["units"]
    assert halberdiers["models"] == 22
    assert halberdiers["characters"] == HALBERDIERS["characters"]
    assert [u["name"] for u in war.forces["Greenskins"].roster["units"]] == ["Orcs"]
    assert war.forces["Greenskins"].fallen == {"Goblins": ("destroyed", 4)}

    second = record_battle(store, "War", "Greenskins", "Empire", seed=4)
    fielded = {u["name"]: u["models"] for u in second.fought.scenario.document["units"]}
    assert fielded == {"Orcs": 20, "Halberdiers": 22}
    # Seed 4: 4 casualties each: 22 − 4 = 18 halberdiers, 20 − 4 = 16 orcs.
    assert second.fought.summary["casualties.Halberdiers"] == 4
    war = state_of(store, "War")
    assert war.forces["Empire"].roster["units"][0]["models"] == 18
    assert war.forces["Greenskins"].roster["units"][0]["models"] == 16
    assert verify_lines(export_lines(store.events("War"))).ok


RIVER_MAP = {"rows": ["f f c c f .", " ~ ~ ~ ~ ~ ~", ". . = = . .", " . h . = . ."]}
RED = {
    "units": [
        {"id": "grenadiers", "strength": 80, "attack": {"land": 10}, "defense": 12},
        {"id": "jaegers", "strength": 60, "attack": {"land": 8}, "defense": 10},
    ]
}
BLUE = {
    "units": [
        {"id": "assault", "strength": 100, "attack": {"land": 12}, "defense": 8, "level": 10},
        {
            "id": "howitzers",
            "strength": 60,
            "attack": {"land": 9},
            "defense": 4,
            "range": [2, 3],
            "pierce": 0.2,
        },
    ]
}
PLACES = {"grenadiers": [2, 0], "jaegers": [1, 0], "assault": [2, 1], "howitzers": [0, 3]}


def test_hex_strength_and_levels_carry_over(store: Store) -> None:
    new_campaign(store, "War", "hex")
    enter_roster(store, "War", "blue", BLUE)
    enter_roster(store, "War", "red", RED)
    battle = {
        "map": RIVER_MAP,
        "placements": PLACES,
        "orders": [{"attacker": "assault", "target": "grenadiers"}],
    }
    first = record_battle(store, "War", "blue", "red", extra=battle)
    summary = first.fought.summary
    # A fight gains the attacker level_gain_fight = 1 (and a countering defender too): the
    # assault company goes from level 10 to 11. hex has no dice: its only law is its result.
    assert summary["level.assault"] == 11
    units = {u["id"]: u for f in state_of(store, "War").forces.values() for u in f.roster["units"]}
    assert units["assault"]["level"] == 11
    assert units["assault"]["strength"] == summary["strength.assault"] < 100
    assert units["grenadiers"]["strength"] == summary["strength.grenadiers"] < 80
    assert first.event.body["odds"]["scores"]["blue"] == [[first.event.body["scores"]["blue"], 1]]

    again = {**battle, "orders": [{"attacker": "grenadiers", "target": "assault"}]}
    second = record_battle(store, "War", "red", "blue", extra=again)
    fielded = {
        u["id"]: (u["strength"], u.get("level", 0))
        for u in second.fought.scenario.document["units"]
    }
    assert fielded["assault"] == (units["assault"]["strength"], 11)
    assert fielded["grenadiers"] == (units["grenadiers"]["strength"], units["grenadiers"]["level"])
    assert verify_lines(export_lines(store.events("War"))).ok


def test_a_campaign_from_a_scenario_rebuilds_that_very_scenario() -> None:
    from fracas.campaign.actions import new_from_scenario
    from fracas.campaign.battle import build_scenario
    from fracas.io.scenario import load_scenario

    original = load_scenario("examples/d100/lair_raid.yaml")
    store = Store.open("sqlite://")
    state = new_from_scenario(store, "Raids", dict(original.document), source="lair_raid.yaml")
    assert list(state.forces) == ["Red Fang", "Thornwall"]
    # The battle's own keys put back: the title, text and seed of the file, the raid, and
    # Thornwall in its lair. Nothing else was lost on the way: the same canonical hash.
    header = [(key, original.document[key]) for key in ("title", "description", "seed")]
    rebuilt = build_scenario(
        state,
        "Red Fang",
        "Thornwall",
        overrides=[*header, ("sides[0].action", "raid"), ("sides[1].location", "lair")],
    )
    assert rebuilt.canonical_sha256 == original.canonical_sha256


def test_rankflank_with_several_units_needs_the_engagements() -> None:
    import pytest

    from fracas.campaign.battle import build_scenario
    from fracas.core.errors import ScenarioError

    store = Store.open("sqlite://")
    new_campaign(store, "War", "rankflank")
    enter_roster(store, "War", "Empire", {"units": [HALBERDIERS]})
    enter_roster(store, "War", "Greenskins", {"units": [GOBLINS, ORCS]})
    with pytest.raises(ScenarioError, match=r"engagements: with more than one unit a side"):
        build_scenario(state_of(store, "War"), "Empire", "Greenskins")
    flank = {
        "engagements": [
            {"unit": "Orcs", "enemy": "Halberdiers", "arc": "left"},
            {"unit": "Goblins", "enemy": "Halberdiers", "arc": "front"},
        ]
    }
    built = build_scenario(state_of(store, "War"), "Greenskins", "Empire", extra=flank)
    assert [u["name"] for u in built.document["units"]] == ["Goblins", "Orcs", "Halberdiers"]
