"""Psychology in close combat: who takes a fear test, and who loses frenzy.

>>> from fracas.rulesets.rankflank.formation import initial_state
>>> from fracas.rulesets.rankflank.ruleset import RankflankRuleset
>>> guard = {"name": "Guard", "side": "A", "models": 20, "files": 5, "profile": "4 3 3 3 3 1 3 1 7"}
>>> ghosts = {**guard, "name": "Ghosts", "side": "B", "rules": ["fear"]}
>>> combat = RankflankRuleset().load({"fracas": 1, "ruleset": "rankflank", "units": [guard, ghosts],
...     "engagements": [{"unit": "Ghosts", "enemy": "Guard", "arc": "front"}]}).combat
>>> [unit.name for unit in fear_testers(combat, initial_state(combat))]
['Guard']
"""

from __future__ import annotations

from dataclasses import dataclass

from fracas.rulesets.rankflank.formation import (
    State,
    engaged_enemies,
    fighting_characters,
    in_combat,
    rank_and_file,
)
from fracas.rulesets.rankflank.scenario import Combat, Unit


@dataclass(frozen=True, slots=True)
class FearTest:
    """A fear test at the start of a round: 2D6 against Leadership."""

    round: int
    unit: str
    leadership: int
    faces: tuple[int, ...]
    passed: bool


def causes_fear(unit: Unit, state: State) -> bool:
    """The unit's rank and file, or one of its standing characters, cause fear (Terror
    causes Fear too)."""
    status = state[unit.name]
    if not unit.kit.rules.isdisjoint(FEARSOME) and rank_and_file(unit, status):
        return True
    return any(not c.kit.rules.isdisjoint(FEARSOME) for c in fighting_characters(unit, status))


#: The rules that cause fear.
FEARSOME = frozenset({"fear", "terror"})


def fear_testers(combat: Combat, state: State) -> tuple[Unit, ...]:
    """Units that must test for fear this round: facing a fear-causing enemy, causing no
    fear themselves, and not immune to psychology."""
    testers = []
    for unit in combat.units:
        status = state[unit.name]
        if not in_combat(unit, status) or "immune_to_psychology" in unit.kit.rules:
            continue
        if causes_fear(unit, state):
            continue
        if any(causes_fear(enemy, state) for enemy in engaged_enemies(combat, state, unit)):
            testers.append(unit)
    return tuple(testers)


def lose_frenzy(combat: Combat, loser: str) -> frozenset[str]:
    """The frenzied units of the side that lost the round: their frenzy is gone."""
    return frozenset(
        unit.name
        for unit in combat.side_units(loser)
        if "frenzy" in unit.kit.rules or any("frenzy" in c.kit.rules for c in unit.characters)
    )
