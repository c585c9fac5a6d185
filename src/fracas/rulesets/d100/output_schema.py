"""JSON Schema of the ``result`` of a d100 battle report (``fracas.rulesets.d100.report``
writes it; docs/rules/d100.md, "JSON output", describes it in words).

>>> [member["properties"]["kind"]["const"] for member in EVENT["oneOf"]]
['assessment', 'nullify', 'flee_roll', 'attack', 'casualties']
"""

from __future__ import annotations

from fracas.core.output_schema import (
    BOOLEAN,
    BREAKDOWN,
    INTEGER,
    NUMBER,
    STRING,
    Schema,
    array,
    closed,
    nullable,
    tagged,
)
from fracas.rulesets.d100.play import (
    BOTTLED_OUT,
    DISBANDED,
    DISBANDED_WITH_EQUIPMENT,
    FLED,
    FOUGHT,
    KILLED,
)

FATE: Schema = {"enum": [FOUGHT, KILLED, FLED, BOTTLED_OUT, DISBANDED, DISBANDED_WITH_EQUIPMENT]}

#: A roll: who rolled, which roll, the d100 faces, then its breakdown (the dice first).
ROLL = closed(
    {
        "unit": STRING,
        "roll": STRING,
        "faces": array(INTEGER),
        **BREAKDOWN["properties"],
    },
    description="A roll: the first row is the dice (base), the others the bonuses (add).",
)

EVENT: Schema = {
    "oneOf": [
        tagged(
            "assessment",
            closed(
                {
                    "unit": STRING,
                    "exempt": BOOLEAN,
                    "roll": nullable(ROLL),
                    "loyalty": nullable(ROLL),
                    "fate": nullable(FATE),
                }
            ),
        ),
        tagged("nullify", closed({"effect": STRING, "origin": STRING, "unit": STRING})),
        tagged(
            "flee_roll",
            closed(
                {
                    "round": INTEGER,
                    "effect": STRING,
                    "origin": STRING,
                    "unit": STRING,
                    "roll": ROLL,
                    "threshold": INTEGER,
                    "fled": BOOLEAN,
                }
            ),
        ),
        tagged(
            "attack",
            closed(
                {
                    "phase": STRING,
                    "round": INTEGER,
                    "speed": INTEGER,
                    "attacker": STRING,
                    "target": STRING,
                    "target_roll": nullable(closed({"face": INTEGER, "among": array(STRING)})),
                    "attack": ROLL,
                    "defence": ROLL,
                    "hit": BOOLEAN,
                    "damage": nullable(ROLL),
                    "reduction": nullable(ROLL),
                    "wounded": BOOLEAN,
                    "morale": nullable(ROLL),
                    "pax_lost": INTEGER,
                    "flees": BOOLEAN,
                }
            ),
        ),
        tagged(
            "casualties",
            closed(
                {
                    "phase": STRING,
                    "round": INTEGER,
                    "unit": STRING,
                    "pax_lost": INTEGER,
                    "pax": INTEGER,
                    "fate": nullable(FATE),
                }
            ),
        ),
    ]
}

BATTLE = closed(
    {
        "winner": STRING,
        "outcome": {"enum": ["win", "draw", "withdraw"]},
        "rounds": INTEGER,
        "sides": array(
            closed(
                {
                    "name": STRING,
                    "action": STRING,
                    "location": STRING,
                    "attacker": BOOLEAN,
                    "defender": BOOLEAN,
                    "units_present": INTEGER,
                    "overwhelm": INTEGER,
                }
            )
        ),
        "units": array(
            closed(
                {
                    "name": STRING,
                    "side": STRING,
                    "race": STRING,
                    "pax_start": INTEGER,
                    "pax": INTEGER,
                    "max_pax": INTEGER,
                    "fate": FATE,
                    "nullified": BOOLEAN,
                }
            )
        ),
        "steps": closed(
            {
                "assessment": array(EVENT),
                "totals": array(EVENT),
                "begin": array(EVENT),
                "ranged": array(EVENT),
                "melee": array(EVENT),
            }
        ),
        "goods": closed(
            {
                "value": NUMBER,
                "units": array(
                    closed(
                        {
                            "unit": STRING,
                            "fate": FATE,
                            "unit_value": INTEGER,
                            "share": NUMBER,
                            "value": NUMBER,
                        }
                    )
                ),
                "loot": nullable(
                    closed(
                        {
                            "face": INTEGER,
                            "gold": NUMBER,
                            "resources": INTEGER,
                            "items": INTEGER,
                        }
                    )
                ),
            }
        ),
    },
    description="One battle: winner is a side's name, draw or withdraw.",
)

#: The ``result`` of each command's report, by command.
RESULTS: dict[str, Schema] = {"resolve": BATTLE}
