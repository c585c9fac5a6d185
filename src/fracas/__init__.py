"""fracas — resolve and forecast wargame combat: exact, explained, reproducible.

The names below are imported when first used, so that ``import fracas`` (and every
``fracas`` command) starts without loading what it does not need.

>>> import fracas
>>> [cls.name for cls in fracas.available_rulesets()][:1]
['hex']
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from fracas._lazy import load
from fracas._version import __version__

if TYPE_CHECKING:
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

#: Where each public name lives (imported on first use, see :func:`__getattr__`).
_HOMES = {
    **dict.fromkeys(
        (
            "Breakdown",
            "ChanceNode",
            "Dice",
            "Distribution",
            "FracasError",
            "IllegalActionError",
            "Modifier",
            "Report",
            "RulesetNotFoundError",
            "ScenarioError",
            "ScriptedDice",
            "SeededDice",
            "UnsupportedError",
        ),
        "fracas.core",
    ),
    **dict.fromkeys(
        ("Scenario", "load_scenario", "parse_scenario", "scenario_from_document"), "fracas.io"
    ),
    **dict.fromkeys(("Ruleset", "available_rulesets", "find_ruleset"), "fracas.rulesets"),
}


def __getattr__(name: str) -> Any:
    return load(__name__, _HOMES, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


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

if "IPython" in sys.modules:
    # A notebook (or an IPython shell): reports and odds draw themselves as HTML there.
    # Their _repr_html_ is attached by fracas.io.html, which the command line never needs.
    import fracas.io.html  # noqa: F401
