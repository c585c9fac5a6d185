"""JSON Schemas of the ``result`` that hex reports carry (``fracas.rulesets.hex.report``
writes them; docs/rules/hex.md, "JSON output", describes them in words).

>>> sorted(RESULTS)
['advise', 'forecast', 'resolve', 'threats']
>>> [member["properties"]["kind"]["const"] for member in RESULTS["advise"]["oneOf"]]
['advice', 'plan', 'reply', 'focus']
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
    mapping_of,
    nullable,
    tagged,
)

STRIKE = closed(
    {
        "striker": STRING,
        "target": STRING,
        "distance": INTEGER,
        "effective_attack": BREAKDOWN,
        "effective_defense": BREAKDOWN,
        "ratio": nullable(NUMBER),
        "fraction": NUMBER,
        "target_strength": INTEGER,
        "losses": INTEGER,
    },
    description="One strike; ratio is null when Effective Def is 0.",
)

COMBAT = closed(
    {
        "attacker": STRING,
        "target": STRING,
        "distance": INTEGER,
        "strike": STRIKE,
        "counter": nullable(STRIKE),
        "counter_note": STRING,
        "losses": mapping_of(INTEGER),
        "levels": array(
            closed({"unit": STRING, "before": INTEGER, "after": INTEGER, "reason": STRING})
        ),
        "destroyed": array(STRING),
    },
    description="One attack and the counter-attack; losses is keyed by unit id.",
)

UNIT = closed(
    {
        "id": STRING,
        "side": STRING,
        "hex": {"type": "array", "prefixItems": [INTEGER, INTEGER], "items": False},
        "domain": STRING,
        "strength_before": INTEGER,
        "strength": INTEGER,
        "max_strength": INTEGER,
        "level_before": INTEGER,
        "level": INTEGER,
        "destroyed": BOOLEAN,
    },
    description="A unit as loaded, with its state afterwards; hex is [q, r].",
)

PLANNED = closed(
    {
        "attacker": STRING,
        "target": STRING,
        "enemy_lost": INTEGER,
        "own_lost": INTEGER,
        "value": NUMBER,
    }
)

TURN = tagged("turn", closed({"combats": array(COMBAT), "units": array(UNIT)}))
FORECAST = tagged("forecast", closed({"combat": COMBAT}))
ADVICE = tagged(
    "advice",
    closed(
        {
            "side": STRING,
            "total": INTEGER,
            "attacks": array(
                closed(
                    {
                        "rank": INTEGER,
                        "attacker": STRING,
                        "target": STRING,
                        "score": NUMBER,
                        "enemy_lost": INTEGER,
                        "own_lost": INTEGER,
                        "levels_gained": INTEGER,
                        "combat": nullable(COMBAT),
                    }
                )
            ),
        },
        description="Every attack, ranked; combat is null after the first advisor_detail.",
    ),
)
PLAN = tagged(
    "plan",
    closed(
        {
            "side": STRING,
            "value_rule": STRING,
            "method": STRING,
            "exact": BOOLEAN,
            "width": INTEGER,
            "plans_evaluated": INTEGER,
            "value": NUMBER,
            "ranking_value": NUMBER,
            "attacks": array(closed({"order": INTEGER, **PLANNED["properties"]})),
            "units": array(UNIT),
        },
        description="advise --plan: an order of attacks for the whole side.",
    ),
)
REPLY = tagged(
    "reply",
    closed(
        {
            "side": STRING,
            "plan": BOOLEAN,
            "value_rule": STRING,
            "total": INTEGER,
            "replies": array(
                closed(
                    {
                        "rank": INTEGER,
                        "attacks": array(PLANNED),
                        "value": NUMBER,
                        "proven": BOOLEAN,
                        "method": STRING,
                        "enemy": nullable(STRING),
                        "reply": array(PLANNED),
                        "reply_value": NUMBER,
                        "reply_proven": BOOLEAN,
                        "reply_method": STRING,
                        "net": NUMBER,
                        "units": array(UNIT),
                    }
                )
            ),
        },
        description="advise --reply: the enemy's best reply to each attack (or to the plan).",
    ),
)
FOCUS = tagged(
    "focus",
    closed(
        {
            "side": STRING,
            "target": STRING,
            "attackers": array(STRING),
            "destroyed": BOOLEAN,
            "taken": INTEGER,
            "own_lost": INTEGER,
            "plans_evaluated": INTEGER,
            "attacks": array(
                closed(
                    {
                        "order": INTEGER,
                        "attacker": STRING,
                        "enemy_lost": INTEGER,
                        "own_lost": INTEGER,
                        "target_left": INTEGER,
                        "attacker_left": INTEGER,
                        "changed": array(
                            closed({"id": STRING, "strength": INTEGER, "level": INTEGER})
                        ),
                    }
                )
            ),
            "units": array(UNIT),
        },
        description="advise --focus: the best order of the side's attackers on one target.",
    ),
)
THREATS = tagged(
    "threats",
    closed(
        {
            "side": STRING,
            "threats": array(
                closed(
                    {
                        "rank": INTEGER,
                        "target": STRING,
                        "attacker": STRING,
                        "side": STRING,
                        "distance": INTEGER,
                        "target_lost": INTEGER,
                        "attacker_lost": INTEGER,
                        "target_strength": INTEGER,
                        "destroys": BOOLEAN,
                    }
                )
            ),
            "units": array(closed({"id": STRING, "attacks": INTEGER, "worst": INTEGER})),
        }
    ),
)

#: The ``result`` of each command's report, by command.
RESULTS: dict[str, Schema] = {
    "resolve": TURN,
    "forecast": FORECAST,
    "advise": {"oneOf": [ADVICE, PLAN, REPLY, FOCUS]},
    "threats": THREATS,
}
