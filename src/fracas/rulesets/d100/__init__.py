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

from typing import TYPE_CHECKING, Any

from fracas._lazy import load

if TYPE_CHECKING:
    from fracas.rulesets.d100.document import D100Document, EffectSpec, SideSpec, UnitSpec
    from fracas.rulesets.d100.params import D100Params, ItemSpec, LootRow, MoraleBand
    from fracas.rulesets.d100.play import BattleResult, play_battle
    from fracas.rulesets.d100.rolls import OpenEnded, Roll, open_ended
    from fracas.rulesets.d100.ruleset import D100Ruleset
    from fracas.rulesets.d100.scenario import Battle, build_battle, preset_effects

# Imported on first use: listing the rulesets needs the ruleset class, not the rules.
_HOMES = {
    **dict.fromkeys(
        ("D100Document", "EffectSpec", "SideSpec", "UnitSpec"), "fracas.rulesets.d100.document"
    ),
    **dict.fromkeys(
        ("D100Params", "ItemSpec", "LootRow", "MoraleBand"), "fracas.rulesets.d100.params"
    ),
    **dict.fromkeys(("BattleResult", "play_battle"), "fracas.rulesets.d100.play"),
    **dict.fromkeys(("OpenEnded", "Roll", "open_ended"), "fracas.rulesets.d100.rolls"),
    "D100Ruleset": "fracas.rulesets.d100.ruleset",
    **dict.fromkeys(("Battle", "build_battle", "preset_effects"), "fracas.rulesets.d100.scenario"),
}


def __getattr__(name: str) -> Any:
    return load(__name__, _HOMES, name)


__all__ = [
    "Battle",
    "BattleResult",
    "D100Document",
    "D100Params",
    "D100Ruleset",
    "EffectSpec",
    "ItemSpec",
    "LootRow",
    "MoraleBand",
    "OpenEnded",
    "Roll",
    "SideSpec",
    "UnitSpec",
    "build_battle",
    "open_ended",
    "play_battle",
    "preset_effects",
]
