"""The ``rankflank`` ruleset: close combat of rank-and-flank fantasy regiments.

Public pieces for the odds analysis: :func:`strike_records` and :func:`roll_strike` (the
two phases of a round), :func:`unsaved_wound_chance` (one attack's chance, for binomial
convolutions), :func:`combat_result` (fed wounds directly), and the dice tables.

>>> from fracas.rulesets.rankflank import RankflankRuleset
>>> RankflankRuleset.name
'rankflank'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fracas._lazy import load

if TYPE_CHECKING:
    from fracas.rulesets.rankflank.breaktest import (
        BreakTest,
        Pursuit,
        break_test,
        break_test_target,
        is_steadfast,
        passes_break_test,
    )
    from fracas.rulesets.rankflank.document import RankflankDocument, RankflankParams
    from fracas.rulesets.rankflank.fight import CombatOutcome, Round, Step, apply_wounds
    from fracas.rulesets.rankflank.formation import UnitStatus, initial_state
    from fracas.rulesets.rankflank.play import fight_round, play_combat
    from fracas.rulesets.rankflank.result import (
        CombatResult,
        OverkillCredit,
        WoundCredit,
        combat_result,
        side_score,
    )
    from fracas.rulesets.rankflank.ruleset import RankflankRuleset, RankflankScenario
    from fracas.rulesets.rankflank.scenario import EDITIONS, Combat, Options, Unit, build_combat
    from fracas.rulesets.rankflank.strikes import (
        StrikeRecord,
        StrikeRoll,
        initiative_steps,
        roll_strike,
        strike_records,
        unsaved_wound_chance,
    )
    from fracas.rulesets.rankflank.tables import (
        armour_save_target,
        d6_success,
        to_hit_target,
        to_wound_target,
    )

# Imported on first use: listing the rulesets needs the ruleset class, not the rules.
_HOMES = {
    "BreakTest": "fracas.rulesets.rankflank.breaktest",
    "Combat": "fracas.rulesets.rankflank.scenario",
    "CombatOutcome": "fracas.rulesets.rankflank.fight",
    "CombatResult": "fracas.rulesets.rankflank.result",
    "EDITIONS": "fracas.rulesets.rankflank.scenario",
    "Options": "fracas.rulesets.rankflank.scenario",
    "OverkillCredit": "fracas.rulesets.rankflank.result",
    "Pursuit": "fracas.rulesets.rankflank.breaktest",
    "RankflankDocument": "fracas.rulesets.rankflank.document",
    "RankflankParams": "fracas.rulesets.rankflank.document",
    "RankflankRuleset": "fracas.rulesets.rankflank.ruleset",
    "RankflankScenario": "fracas.rulesets.rankflank.ruleset",
    "Round": "fracas.rulesets.rankflank.fight",
    "Step": "fracas.rulesets.rankflank.fight",
    "StrikeRecord": "fracas.rulesets.rankflank.strikes",
    "StrikeRoll": "fracas.rulesets.rankflank.strikes",
    "Unit": "fracas.rulesets.rankflank.scenario",
    "UnitStatus": "fracas.rulesets.rankflank.formation",
    "WoundCredit": "fracas.rulesets.rankflank.result",
    "apply_wounds": "fracas.rulesets.rankflank.fight",
    "armour_save_target": "fracas.rulesets.rankflank.tables",
    "break_test": "fracas.rulesets.rankflank.breaktest",
    "break_test_target": "fracas.rulesets.rankflank.breaktest",
    "build_combat": "fracas.rulesets.rankflank.scenario",
    "combat_result": "fracas.rulesets.rankflank.result",
    "d6_success": "fracas.rulesets.rankflank.tables",
    "fight_round": "fracas.rulesets.rankflank.play",
    "initial_state": "fracas.rulesets.rankflank.formation",
    "initiative_steps": "fracas.rulesets.rankflank.strikes",
    "is_steadfast": "fracas.rulesets.rankflank.breaktest",
    "passes_break_test": "fracas.rulesets.rankflank.breaktest",
    "play_combat": "fracas.rulesets.rankflank.play",
    "roll_strike": "fracas.rulesets.rankflank.strikes",
    "side_score": "fracas.rulesets.rankflank.result",
    "strike_records": "fracas.rulesets.rankflank.strikes",
    "to_hit_target": "fracas.rulesets.rankflank.tables",
    "to_wound_target": "fracas.rulesets.rankflank.tables",
    "unsaved_wound_chance": "fracas.rulesets.rankflank.strikes",
}


def __getattr__(name: str) -> Any:
    return load(__name__, _HOMES, name)


__all__ = [
    "EDITIONS",
    "BreakTest",
    "Combat",
    "CombatOutcome",
    "CombatResult",
    "Options",
    "OverkillCredit",
    "Pursuit",
    "RankflankDocument",
    "RankflankParams",
    "RankflankRuleset",
    "RankflankScenario",
    "Round",
    "Step",
    "StrikeRecord",
    "StrikeRoll",
    "Unit",
    "UnitStatus",
    "WoundCredit",
    "apply_wounds",
    "armour_save_target",
    "break_test",
    "break_test_target",
    "build_combat",
    "combat_result",
    "d6_success",
    "fight_round",
    "initial_state",
    "initiative_steps",
    "is_steadfast",
    "passes_break_test",
    "play_combat",
    "roll_strike",
    "side_score",
    "strike_records",
    "to_hit_target",
    "to_wound_target",
    "unsaved_wound_chance",
]
