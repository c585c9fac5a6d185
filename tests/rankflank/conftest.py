"""Small ready-made combats for rankflank's tests: scenarios written as dicts, then built.

>>> [unit.name for unit in two_blocks().units]
['Spearmen', 'Orcs']
"""

from __future__ import annotations

from typing import Any

from fracas.core.schema import validate
from fracas.rulesets.rankflank.document import EXAMPLE, RankflankDocument
from fracas.rulesets.rankflank.scenario import Combat, build_combat


def combat_from(document: dict[str, Any]) -> Combat:
    """Validate a scenario written as a dict (header keys may be left out) and build it."""
    full = {"fracas": 1, "ruleset": "rankflank", **document}
    return build_combat(validate(RankflankDocument, full))


def unit_doc(
    name: str,
    side: str,
    models: int = 20,
    files: int = 5,
    profile: str = "4 3 3 3 3 1 3 1 7",
    **extra: Any,
) -> dict[str, Any]:
    """A unit entry of a scenario: plain infantry unless ``extra`` says otherwise.

    >>> unit_doc("Guard", "Empire", models=10)["files"]
    5
    """
    return {
        "name": name,
        "side": side,
        "models": models,
        "files": files,
        "profile": profile,
        **extra,
    }


def engage(unit: str, enemy: str, arc: str = "front") -> dict[str, str]:
    """An engagement entry: ``unit`` faces ``enemy`` and strikes ``enemy``'s ``arc``."""
    return {"unit": unit, "enemy": enemy, "arc": arc}


#: A profile with no attacks: such a unit rolls no dice for blows.
STILL = "4 3 3 3 3 1 3 0 7"


def hill_raiders(**extra: Any) -> dict[str, Any]:
    """Side A's 3 Raiders, charging down from a hill with a standard and striking no blow:
    a combat result of 1 + 1 + 1 = 3 before any wound."""
    return unit_doc(
        "Raiders",
        "A",
        models=3,
        files=3,
        profile=STILL,
        charged=True,
        height=1,
        command={"standard": True},
        **extra,
    )


def two_blocks(**parameters: Any) -> Combat:
    """The example of rankflank's docstrings (:data:`.document.EXAMPLE`): a block of 20
    spearmen (5 wide) charged in front by 20 orcs (5 wide)."""
    return combat_from({**EXAMPLE, "parameters": parameters})
