"""The ruleset-agnostic core: modifiers, dice and chance nodes, distributions, reports."""

from fracas.core.dice import D6, D100, ChanceNode, Dice, ScriptedDice, SeededDice, die
from fracas.core.distribution import Distribution, EnumerationBudgetError, enumerate_outcomes
from fracas.core.errors import (
    DiceExhaustedError,
    FracasError,
    IllegalActionError,
    RulesetNotFoundError,
    ScenarioError,
    UnsupportedError,
)
from fracas.core.headline import Headline
from fracas.core.modifiers import Breakdown, Modifier, Op, to_fraction
from fracas.core.report import Report, Section, Table, Text

__all__ = [
    "D6",
    "D100",
    "Breakdown",
    "ChanceNode",
    "Dice",
    "DiceExhaustedError",
    "Distribution",
    "EnumerationBudgetError",
    "FracasError",
    "Headline",
    "IllegalActionError",
    "Modifier",
    "Op",
    "Report",
    "RulesetNotFoundError",
    "ScenarioError",
    "ScriptedDice",
    "Section",
    "SeededDice",
    "Table",
    "Text",
    "UnsupportedError",
    "die",
    "enumerate_outcomes",
    "to_fraction",
]
