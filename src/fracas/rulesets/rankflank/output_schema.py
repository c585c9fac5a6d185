"""JSON Schema of the ``result`` of a rankflank combat report (``fracas.rulesets.rankflank.
report`` writes it; docs/rules/rankflank.md, "JSON output", describes it in words).

The report writes its records as they are (``dataclasses.asdict``): their schemas are
made from the same dataclasses, field by field, so a field added to a record is in the
schema at once, with its type.

>>> STRIKE["required"][:3]
['round', 'initiative', 'side']
>>> FEAR_TEST["properties"]["faces"]
{'type': 'array', 'items': {'type': 'integer'}}
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

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
)
from fracas.rulesets.rankflank.blows import Blow
from fracas.rulesets.rankflank.breaktest import BreakTest, OutcomeTest
from fracas.rulesets.rankflank.psychology import FearTest
from fracas.rulesets.rankflank.scenario import NEWER_OPTIONS, Options
from fracas.rulesets.rankflank.strikes import StrikeRecord

_SCALARS: dict[Any, Schema] = {int: INTEGER, str: STRING, bool: BOOLEAN, float: NUMBER}


def _of_type(hint: Any) -> Schema:
    """The schema of a value of type ``hint`` as ``asdict`` and ``json`` write it."""
    if hint in _SCALARS:
        return _SCALARS[hint]
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        kinds = [argument for argument in arguments if argument is not type(None)]
        inner = _of_type(kinds[0]) if len(kinds) == 1 else {"anyOf": list(map(_of_type, kinds))}
        return nullable(inner) if len(kinds) < len(arguments) else inner
    if origin in (tuple, list):
        return array(_of_type(arguments[0]))
    if origin is typing.Literal:
        return {"enum": list(arguments)}
    raise TypeError(f"no JSON schema for a field of type {hint!r}")


def _fields(record: type, *, leave_out: tuple[str, ...] = ()) -> dict[str, Schema]:
    hints = typing.get_type_hints(record)
    return {
        field.name: _of_type(hints[field.name])
        for field in dataclasses.fields(record)
        if field.name not in leave_out and not field.name.startswith("_")
    }


# A strike: the record's numbers (its explanations become "notes"), the blow's targets and
# rules beside them ("multiple" written "multiple_wounds"), then the dice.
_BLOW = {
    ("multiple_wounds" if name == "multiple" else name): schema
    for name, schema in _fields(Blow, leave_out=("armour_bane",)).items()
}
STRIKE = closed(
    {
        **_fields(StrikeRecord, leave_out=("blow", "explained", "rider")),
        "notes": array(STRING),
        **_BLOW,
        "count_faces": array(INTEGER),
        "hit_rerolls": array(INTEGER),
        "wound_rerolls": array(INTEGER),
        "armour_rerolls": array(INTEGER),
        "ward_rerolls": array(INTEGER),
        "multiple_faces": array(INTEGER),
        "slain": INTEGER,
        "hit_faces": array(INTEGER),
        "wound_faces": array(INTEGER),
        "armour_faces": array(INTEGER),
        "ward_faces": array(INTEGER),
        "hits": INTEGER,
        "wounds": INTEGER,
        "unsaved": INTEGER,
    },
    # Only a blow with Armour Bane (the oldworld preset) writes it, and only a character's
    # own mount its rider.
    optional={"armour_bane": INTEGER, "rider": STRING},
)
FEAR_TEST = closed(_fields(FearTest))
BREAK_TEST = closed(_fields(BreakTest))
#: A three-outcome break test (the oldworld preset): its record, field by field.
OUTCOME_TEST = closed(_fields(OutcomeTest))
_NEWER = set(NEWER_OPTIONS)
#: Every option; those the oldworld preset brought are listed only when in force.
OPTIONS = closed(
    {k: v for k, v in _fields(Options).items() if k not in _NEWER},
    optional={k: v for k, v in _fields(Options).items() if k in _NEWER},
)
PURSUIT = closed(
    {
        "unit": STRING,
        "faces": array(INTEGER),
        "distance": INTEGER,
        "pursuers": array(
            closed(
                {
                    "unit": STRING,
                    "restrain_faces": array(INTEGER),
                    "restrained": BOOLEAN,
                    "faces": array(INTEGER),
                    "distance": INTEGER,
                    "caught": BOOLEAN,
                }
            )
        ),
        "caught": BOOLEAN,
        "fate": STRING,
    }
)
ROUND = closed(
    {
        "round": INTEGER,
        "steps": array(closed({"initiative": INTEGER, "strikes": array(STRIKE)})),
        "combat_result": mapping_of(BREAKDOWN),
        "winner": STRING,
        "difference": INTEGER,
        "wiped_out": array(STRING),
        "fear_tests": array(FEAR_TEST),
        "break_tests": array({"anyOf": [BREAK_TEST, OUTCOME_TEST]}),
        "pursuits": array(PURSUIT),
        "aftermath": array(STRING),
    },
    description="One round; combat_result is keyed by side, in the order of sides.",
)
COMBAT = closed(
    {
        "edition": STRING,
        "options": OPTIONS,
        "sides": array(STRING),
        "winner": STRING,
        "rounds_fought": INTEGER,
        "units": array(
            closed(
                {
                    "name": STRING,
                    "side": STRING,
                    "models": INTEGER,
                    "models_left": INTEGER,
                    "casualties": INTEGER,
                    "status": {
                        "enum": ["fighting", "fled", "destroyed", "fell back", "gave ground"]
                    },
                }
            )
        ),
        "rounds": array(ROUND),
    },
    optional={"refused_challenge": closed({"challenger": STRING, "opponent": STRING})},
    description="One close combat: winner is the side that won round 1, or draw; "
    "refused_challenge names a challenge the opponent's side refused (the opponent retired).",
)

#: The ``result`` of each command's report, by command.
RESULTS: dict[str, Schema] = {"resolve": COMBAT}
