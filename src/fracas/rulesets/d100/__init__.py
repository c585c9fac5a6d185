"""The ``d100`` ruleset: play-by-post battles resolved with open-ended percentile dice.

>>> from fracas.core.dice import SeededDice
>>> from fracas.rulesets.d100 import D100Ruleset
>>> ruleset = D100Ruleset()
>>> battle = ruleset.load({
...     "fracas": 1, "ruleset": "d100",
...     "sides": [
...         {"name": "Raiders", "action": "raid",
...          "units": [{"name": "Wolves", "pax": 10, "offense": 2}]},
...         {"name": "Keep", "action": "defend",
...          "units": [{"name": "Guards", "pax": 10, "defense": 2}]},
...     ]})
>>> result = ruleset.play(battle, SeededDice(1))
>>> ruleset.summarize(battle, result)["winner"] in ("Raiders", "Keep", "draw", "withdraw")
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fracas.rulesets.d100.document import D100Document, EffectSpec, SideSpec, UnitSpec
    from fracas.rulesets.d100.params import D100Params, ItemSpec, LootRow, MoraleBand
    from fracas.rulesets.d100.play import BattleResult, play_battle
    from fracas.rulesets.d100.rolls import Bonus, Roll, open_ended
    from fracas.rulesets.d100.ruleset import D100Ruleset
    from fracas.rulesets.d100.scenario import Battle, build_battle, preset_effects

# Imported on first use: listing the rulesets needs the ruleset class, not the rules.
_HOMES = {
    **dict.fromkeys(("D100Document", "EffectSpec", "SideSpec", "UnitSpec"), "document"),
    **dict.fromkeys(("D100Params", "ItemSpec", "LootRow", "MoraleBand"), "params"),
    **dict.fromkeys(("BattleResult", "play_battle"), "play"),
    **dict.fromkeys(("Bonus", "Roll", "open_ended"), "rolls"),
    "D100Ruleset": "ruleset",
    **dict.fromkeys(("Battle", "build_battle", "preset_effects"), "scenario"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Battle",
    "BattleResult",
    "Bonus",
    "D100Document",
    "D100Params",
    "D100Ruleset",
    "EffectSpec",
    "ItemSpec",
    "LootRow",
    "MoraleBand",
    "Roll",
    "SideSpec",
    "UnitSpec",
    "build_battle",
    "open_ended",
    "play_battle",
    "preset_effects",
]
