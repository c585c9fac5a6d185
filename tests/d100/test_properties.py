"""Invariants of any d100 battle, over scenarios and seeds drawn by Hypothesis."""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fracas.core.dice import SeededDice
from fracas.core.errors import ScenarioError
from fracas.io.render import RENDERERS
from fracas.rulesets.d100 import D100Ruleset, play_battle
from fracas.rulesets.d100.play import (
    AssessmentEvent,
    AttackEvent,
    CasualtyEvent,
    FleeRollEvent,
)
from fracas.rulesets.d100.rolls import Roll

ITEMS = ["melee_weapon", "ranged_weapon", "shield", "armour_1", "armour_2", "armour_3", "horses"]
# Effects a unit may hold itself: they act only while it is in the battle.
TRAITS = ["frenzy", "terror", "mind_leech", "mounted"]


@st.composite
def units(draw: st.DrawFn, prefix: str) -> list[dict[str, Any]]:
    count = draw(st.integers(1, 4))
    made = []
    for number in range(count):
        max_pax = draw(st.integers(1, 12))
        equipment = draw(st.lists(st.sampled_from(ITEMS), unique=True, max_size=4))
        unit: dict[str, Any] = {
            "name": f"{prefix}{number}",
            "race": draw(st.sampled_from(["human", "orc", "elf"])),
            "pax": draw(st.integers(1, max_pax)),
            "max_pax": max_pax,
            "speed": draw(st.integers(0, 3)),
            "offense": draw(st.integers(0, 4)),
            "defense": draw(st.integers(0, 4)),
            "strength": draw(st.integers(0, 4)),
            "morale_bonus": draw(st.integers(-10, 10)),
            "dangerous_missions": draw(st.integers(0, 8)),
            "equipment": equipment,
            "traits": draw(st.lists(st.sampled_from(TRAITS), max_size=2)),
            "melee_attacks": draw(st.integers(0, 2)),
            "recruitment_cost": draw(st.integers(0, 200)),
            "upkeep_cost": draw(st.integers(0, 50)),
        }
        if "ranged_weapon" in equipment:
            unit["ranged_attacks"] = draw(st.integers(0, 3))
        made.append(unit)
    return made


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    first_action = draw(st.sampled_from(["harass", "raid", "attack", "challenge"]))
    second_action = draw(st.sampled_from(["defend", "defend", "attack", "challenge"]))
    spells = ["mind_leech", "napoleon", "frenzy", "terror", "dispel"]
    return {
        "fracas": 1,
        "ruleset": "d100",
        "parameters": {"round_limit": draw(st.integers(1, 6))},
        "effects": {
            "frenzy": {"trigger": "per_round", "scope": "own_side", "roll": "attack", "bonus": 9},
            "terror": {"trigger": "start_of_combat", "scope": "enemy_side", "flee_below": 15},
            "dispel": {"trigger": "assessment", "scope": "enemy_side", "nullify": True},
        },
        "sides": [
            {
                "name": "North",
                "action": first_action,
                "lair": {"loyalty_bonus": draw(st.integers(0, 20))},
                "effects": draw(st.lists(st.sampled_from(spells), max_size=2)),
                "units": draw(units("N")),
            },
            {
                "name": "South",
                "action": second_action,
                "lair": {"structures": draw(st.lists(st.just("defensive_structure"), max_size=1))},
                "effects": draw(st.lists(st.sampled_from(spells), max_size=2)),
                "units": draw(units("S")),
            },
        ],
    }


RULESET = D100Ruleset()


@given(documents(), st.integers(0, 2**32))
def test_battle_invariants(document: dict[str, Any], seed: int) -> None:
    battle = RULESET.load(document)
    result = play_battle(battle, SeededDice(seed))
    limit = battle.params.round_limit

    # PAX never negative, never above where the unit started.
    assert all(0 <= pax <= unit.pax for pax, unit in zip(result.pax, battle.units, strict=True))

    # A unit that has left is never attacked and never attacks.
    side_of = {unit.name: unit.side for unit in battle.units}
    gone: set[str] = set()
    for event in result.events:
        if isinstance(event, AssessmentEvent) and event.fate:
            gone.add(event.unit)
        elif isinstance(event, FleeRollEvent):
            assert event.unit not in gone
            if event.fled:
                gone.add(event.unit)
        elif isinstance(event, AttackEvent):
            assert event.attacker not in gone
            assert event.target not in gone
            assert side_of[event.attacker] != side_of[event.target]
            assert event.round <= limit
        elif isinstance(event, CasualtyEvent):
            assert event.pax >= 0
            if event.fate:
                gone.add(event.unit)

    # The battle ends within the round limit, and a withdrawal only comes at the limit.
    assert 0 <= result.rounds <= limit
    if result.outcome == "withdraw":
        assert result.rounds == limit

    # Loot never exceeds the value of the defeated units, and its parts add up.
    if result.winner is None:
        assert result.goods_value == 0
    else:
        losers = battle.sides[1 - result.winner].units
        assert 0 <= result.goods_value <= sum(unit.unit_value for unit in losers)
    if result.loot is not None:
        loot = result.loot
        assert loot.gold >= 0
        assert loot.resources >= 0
        assert loot.items >= 0
        assert loot.gold + loot.resources + loot.items == result.goods_value

    # Every roll's breakdown adds up to its total, and its log line says that total.
    for event in result.events:
        rolls: tuple[Roll | None, ...] = ()
        if isinstance(event, AttackEvent):
            rolls = (event.attack, event.defence, event.damage, event.reduction, event.morale)
        elif isinstance(event, AssessmentEvent):
            rolls = (event.roll, event.loyalty)
        elif isinstance(event, FleeRollEvent):
            rolls = (event.roll,)
        for roll in rolls:
            if roll is not None:
                assert roll.breakdown.total == Fraction(roll.total)
                assert roll.describe().startswith(f"{roll.label} {roll.total} = ")


@given(documents(), st.integers(0, 1000))
def test_every_battle_renders_in_every_format(document: dict[str, Any], seed: int) -> None:
    battle = RULESET.load(document)
    report = RULESET.resolve(battle, seed=seed)
    for render in RENDERERS.values():
        assert report.title in render(report)


@given(documents(), st.integers(0, 1000))
def test_summary_is_flat_and_names_every_unit(document: dict[str, Any], seed: int) -> None:
    battle = RULESET.load(document)
    summary = RULESET.summarize(battle, RULESET.play(battle, SeededDice(seed)))
    assert summary["winner"] in ("North", "South", "draw", "withdraw")
    for unit in battle.units:
        assert f"pax.{unit.name}" in summary
        assert f"fate.{unit.name}" in summary
    assert all(isinstance(value, int | float | str | bool) for value in summary.values())


VALID: dict[str, Any] = {
    "fracas": 1,
    "ruleset": "d100",
    "effects": {"fog": {"trigger": "assessment", "scope": "enemy_side", "flee_below": 30}},
    "sides": [
        {
            "name": "North",
            "action": "raid",
            "targeting": ["S0"],
            "units": [
                {"name": "N0", "pax": 5, "equipment": ["ranged_weapon"], "traits": ["fog"]},
            ],
        },
        {"name": "South", "action": "defend", "units": [{"name": "S0", "pax": 5}]},
    ],
}

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 200),
    st.text(max_size=6),
    st.lists(st.text(max_size=4), max_size=2),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*prefix, index))
    return found


@given(st.data())
def test_damaged_scenarios_load_or_fail_cleanly(data: st.DataObject) -> None:
    document = copy.deepcopy(VALID)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(document)))
        node = document
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = data.draw(JUNK)
    message = ""
    try:
        battle = RULESET.load(document, source="fuzz.yaml")
    except ScenarioError as error:
        message = str(error)
    if message:
        assert message.startswith("fuzz.yaml")
    else:
        play_battle(battle, SeededDice(0))
