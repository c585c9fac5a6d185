"""Shared builders for the d100 tests: tiny scenarios written as plain dicts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fracas.core.dice import ScriptedDice
from fracas.rulesets.d100 import Battle, D100Ruleset, play_battle
from fracas.rulesets.d100.play import AttackEvent, BattleResult

BattleFactory = Callable[..., Battle]


def idle(name: str, **stats: Any) -> dict[str, Any]:
    """A unit that never strikes, so a test only scripts the dice it cares about."""
    return {"name": name, "pax": 10, "melee_attacks": 0, **stats}


def play(battle: Battle, faces: list[int]) -> BattleResult:
    """Play with exactly ``faces``: fail if a face is left over."""
    dice = ScriptedDice(faces)
    result = play_battle(battle, dice)
    assert dice.remaining == 0, f"{dice.remaining} scripted faces unused"
    return result


def attacks(result: BattleResult) -> list[AttackEvent]:
    return [event for event in result.events if isinstance(event, AttackEvent)]


def bonus(roll_bonuses: Any, label: str) -> int:
    return sum(b.value for b in roll_bonuses if b.label == label)


def document(
    attackers: list[dict[str, Any]],
    defenders: list[dict[str, Any]],
    *,
    attacker_side: dict[str, Any] | None = None,
    defender_side: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A two-sided scenario: 'Raiders' raid, 'Keep' defends its lair."""
    return {
        "fracas": 1,
        "ruleset": "d100",
        "sides": [
            {"name": "Raiders", "action": "raid", **(attacker_side or {}), "units": attackers},
            {"name": "Keep", "action": "defend", **(defender_side or {}), "units": defenders},
        ],
        **extra,
    }


@pytest.fixture
def battle_of() -> BattleFactory:
    """Build a :class:`Battle` from the same arguments as :func:`document`."""

    def build(
        attackers: list[dict[str, Any]], defenders: list[dict[str, Any]], **kwargs: Any
    ) -> Battle:
        return D100Ruleset().load(document(attackers, defenders, **kwargs))

    return build


@pytest.fixture
def ruleset() -> D100Ruleset:
    return D100Ruleset()
