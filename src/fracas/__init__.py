"""fracas — resolve and forecast wargame combat: exact, explained, reproducible.

>>> import fracas
>>> [cls.name for cls in fracas.available_rulesets()][:1]
['hex']
"""

from fracas._version import __version__
from fracas.core import (
    Breakdown,
    ChanceNode,
    Dice,
    Distribution,
    FracasError,
    IllegalActionError,
    Modifier,
    Report,
    RulesetNotFoundError,
    ScenarioError,
    ScriptedDice,
    SeededDice,
    UnsupportedError,
)
from fracas.io import Scenario, load_scenario, parse_scenario, scenario_from_document
from fracas.rulesets import Ruleset, available_rulesets, find_ruleset

__all__ = [
    "Breakdown",
    "ChanceNode",
    "Dice",
    "Distribution",
    "FracasError",
    "IllegalActionError",
    "Modifier",
    "Report",
    "Ruleset",
    "RulesetNotFoundError",
    "Scenario",
    "ScenarioError",
    "ScriptedDice",
    "SeededDice",
    "UnsupportedError",
    "__version__",
    "available_rulesets",
    "find_ruleset",
    "load_scenario",
    "parse_scenario",
    "scenario_from_document",
]
