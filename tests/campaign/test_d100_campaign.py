"""A three-battle d100 campaign, checked against numbers worked out by hand from the logs."""

from __future__ import annotations

from typing import Any

from fracas.campaign.actions import (
    buy_replacements,
    edit_roster,
    enter_roster,
    new_campaign,
    record_battle,
    state_of,
)
from fracas.campaign.store import Store

FENWICK: dict[str, Any] = {
    "lair": {"loyalty_bonus": 10, "morale_bonus": 5},
    "units": [
        {
            "name": "Wolf Riders",
            "pax": 10,
            "speed": 4,
            "offense": 3,
            "defense": 1,
            "strength": 3,
            "melee_attacks": 2,
            "equipment": ["melee_weapon", "shield", "horses", "armour_1"],
            "recruitment_cost": 120,
            "upkeep_cost": 20,
        },
        {
            "name": "Axemen",
            "pax": 10,
            "speed": 2,
            "offense": 3,
            "defense": 2,
            "strength": 3,
            "equipment": ["melee_weapon", "shield", "armour_2"],
            "recruitment_cost": 90,
            "upkeep_cost": 15,
        },
    ],
}
THORNWALL: dict[str, Any] = {
    "lair": {"loyalty_bonus": 15, "morale_bonus": 10},
    "units": [
        {
            "name": "Wall Guard",
            "pax": 6,
            "speed": 2,
            "offense": 2,
            "defense": 2,
            "strength": 2,
            "equipment": ["melee_weapon", "shield", "armour_3"],
            "recruitment_cost": 110,
            "upkeep_cost": 20,
        },
        {
            "name": "Tower Archers",
            "pax": 4,
            "speed": 3,
            "offense": 2,
            "defense": 0,
            "strength": 1,
            "ranged_attacks": 2,
            "equipment": ["ranged_weapon"],
            "recruitment_cost": 90,
            "upkeep_cost": 10,
        },
    ],
}


def start(store: Store) -> None:
    new_campaign(store, "War", "d100")
    enter_roster(store, "War", "Fenwick", FENWICK, treasury={"gold": 100})
    enter_roster(store, "War", "Thornwall", THORNWALL)


def units(store: Store, force: str) -> dict[str, int]:
    roster = state_of(store, "War").forces[force].roster
    return {unit["name"]: unit["pax"] for unit in roster["units"]}


def test_three_battles_carry_pax_goods_and_a_fled_unit(store: Store) -> None:
    start(store)
    # Battle 1, seed 5: the log has Wall Guard killed and Tower Archers fleeing with 2 PAX.
    # Goods: Wall Guard 100 % of (110 + 20) = 130; Tower Archers 2/10 of (90 + 10) = 20;
    # 150 in all, and the loot die (face 1-50 row: all gold) makes it 150 gold.
    first = record_battle(store, "War", "Fenwick", "Thornwall", seed=5)
    assert first.fought.summary["fate.Wall Guard"] == "killed"
    assert first.fought.summary["fate.Tower Archers"] == "fled"
    assert first.fought.summary["goods"] == 150
    assert units(store, "Thornwall") == {"Tower Archers": 2}
    assert units(store, "Fenwick") == {"Wolf Riders": 10, "Axemen": 10}
    war = state_of(store, "War")
    assert war.forces["Fenwick"].treasury == {"gold": 100 + 150, "resources": 0, "items": 0}
    assert war.forces["Thornwall"].fallen == {"Wall Guard": ("killed", 4)}

    # Between battles the GM adds two missions and buys the archers 3 PAX for 60 gold.
    edit_roster(
        store, "War", "Thornwall", [("units[0].dangerous_missions", 2)], by="GM", why="scouting"
    )
    enter = state_of(store, "War").forces["Thornwall"].treasury
    assert enter["gold"] == 0
    edit_roster(store, "War", "Thornwall", [("treasury.gold", 60)], by="GM", why="tribute")
    buy_replacements(store, "War", "Thornwall", "Tower Archers", 3, 60)
    # 2 PAX left after fleeing + 3 bought = 5; 60 − 60 = 0 gold.
    assert units(store, "Thornwall") == {"Tower Archers": 5}
    assert state_of(store, "War").forces["Thornwall"].treasury["gold"] == 0

    # Battle 2: the fled archers come back at the 5 PAX the journal gives them.
    second = record_battle(store, "War", "Thornwall", "Fenwick", seed=11)
    archers = second.fought.scenario.document["sides"][0]["units"][0]
    assert (archers["name"], archers["pax"], archers["dangerous_missions"]) == (
        "Tower Archers",
        5,
        2,
    )
    # The archers flee again with 3 PAX: 3/10 of (90 + 10) = 30 goods; the loot die's row
    # splits it half gold, half items: 15 and 15. Axemen lose 1 PAX (10 → 9).
    assert second.fought.summary["goods"] == 30
    assert units(store, "Thornwall") == {"Tower Archers": 3}
    assert units(store, "Fenwick") == {"Wolf Riders": 10, "Axemen": 9}
    treasury = state_of(store, "War").forces["Fenwick"].treasury
    assert treasury == {"gold": 250 + 15, "resources": 0, "items": 15}

    # Battle 3 starts from what battle 2 left: Axemen at 9, the archers at 3, and kills
    # them: 100 % of (90 + 10) = 100 gold.
    third = record_battle(store, "War", "Fenwick", "Thornwall", seed=2)
    sides = third.fought.scenario.document["sides"]
    assert [(u["name"], u["pax"]) for side in sides for u in side["units"]] == [
        ("Wolf Riders", 10),
        ("Axemen", 9),
        ("Tower Archers", 3),
    ]
    assert third.fought.summary["fate.Tower Archers"] == "killed"
    war = state_of(store, "War")
    assert war.forces["Fenwick"].treasury == {"gold": 365, "resources": 0, "items": 15}
    assert war.forces["Thornwall"].roster["units"] == []
    assert war.battles == 3
    assert len(store.events("War")) == 9
