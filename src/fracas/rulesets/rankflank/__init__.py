"""The ``rankflank`` ruleset: close combat of rank-and-flank fantasy regiments.

Public pieces for the odds analysis: :func:`strike_records` and :func:`roll_strike` (the
two phases of a round), :func:`unsaved_wound_chance` (one attack's chance, for binomial
convolutions), :func:`combat_result` (fed wounds directly), and the dice tables.

>>> from fracas.rulesets.rankflank import RankflankRuleset
>>> RankflankRuleset.name
'rankflank'
"""

from fracas.rulesets.rankflank.breaktest import (
    BreakTest,
    Pursuit,
    break_test,
    break_test_target,
    is_steadfast,
    passes_break_test,
)
from fracas.rulesets.rankflank.document import RankflankDocument, RankflankParams
from fracas.rulesets.rankflank.formation import UnitStatus, initial_state
from fracas.rulesets.rankflank.play import (
    CombatOutcome,
    Round,
    Step,
    apply_wounds,
    fight_round,
    play_combat,
)
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
