"""``duel``: two fighters trade opposed rolls until one falls — a third-party fracas ruleset.

It has the same modules as a built-in ruleset (``ruleset``, ``document``, ``scenario``,
``play``, ``report``, ``odds``) and reaches every feature through the same hooks.

>>> from fracas.core.dice import ScriptedDice
>>> from fracas_duel import DuelRuleset
>>> ruleset = DuelRuleset()
>>> scenario = ruleset.load({"fracas": 1, "ruleset": "duel", "fighters": [
...     {"name": "Gawain", "skill": 1}, {"name": "Lancelot"}]})
>>> bout = ruleset.play(scenario, ScriptedDice([5, 5]))  # 5 + 1 skill beats 5
>>> ruleset.summarize(scenario, bout)
{'winner': 'Gawain', 'exchanges': 1, 'wounds.Gawain': 0, 'wounds.Lancelot': 1}
"""

from fracas_duel.ruleset import DuelRuleset

__all__ = ["DuelRuleset"]
