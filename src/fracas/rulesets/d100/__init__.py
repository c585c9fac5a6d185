"""The ``d100`` ruleset: play-by-post battles resolved with open-ended percentile dice.

>>> from fracas.core.dice import SeededDice
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

from fracas.rulesets.d100.document import D100Document, EffectSpec, SideSpec, UnitSpec
from fracas.rulesets.d100.params import D100Params, ItemSpec, LootRow, MoraleBand
from fracas.rulesets.d100.play import BattleResult, play_battle
from fracas.rulesets.d100.rolls import Bonus, Roll, open_ended
from fracas.rulesets.d100.ruleset import D100Ruleset
from fracas.rulesets.d100.scenario import Battle, build_battle, preset_effects

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
