"""Shared builders for the d100 tests: tiny scenarios written as plain dicts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from fracas.rulesets.d100 import Battle, D100Ruleset

BattleFactory = Callable[..., Battle]


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
