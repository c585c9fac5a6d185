"""Building blocks of the JSON Schemas (draft 2020-12) of fracas's JSON output.

The schemas are plain data, written next to the code that writes each document: the
envelope and the listings in ``fracas.io.output_schemas``, a ruleset's ``result`` in the
ruleset (``Ruleset.result_schema``). These helpers keep them short and alike: an object
whose keys are all documented is *closed* (``additionalProperties: false``), so an
undocumented key fails validation instead of slipping into the contract.

>>> shape = closed({"name": STRING}, optional={"note": nullable(STRING)})
>>> shape["required"], shape["additionalProperties"]
(['name'], False)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Schema = dict[str, Any]

#: The dialect every output schema declares.
DIALECT = "https://json-schema.org/draft/2020-12/schema"

STRING: Schema = {"type": "string"}
INTEGER: Schema = {"type": "integer"}
BOOLEAN: Schema = {"type": "boolean"}
#: A number of a report (``fracas.core.report.json_number``): an integer when exact, else a
#: float rounded to 6 decimals; beyond the range of floats, a string such as "1.234e+400".
NUMBER: Schema = {
    "anyOf": [
        {"type": "number"},
        {"type": "string", "pattern": r"^-?[0-9]\.[0-9]+e[+-][0-9]+$"},
    ]
}
#: Every JSON output a schema describes: its name (``fracas schema --command NAME``) and
#: the commands that write it. (Here, not beside the schemas: ``--help`` lists the names
#: without loading them.)
OUTPUTS: dict[str, str] = {
    "resolve": "fracas resolve FILE --format json (and fracas campaign battle --format json)",
    "forecast": "fracas forecast FILE --attacker ID --target ID --format json",
    "advise": "fracas advise FILE --side SIDE --format json (also with --plan, --reply, --focus)",
    "threats": "fracas threats FILE --side SIDE --format json",
    "odds": "fracas odds FILE --format json (also with --solve)",
    "metrics": "fracas metrics FILE --format json",
    "validate": "fracas validate FILE --format json",
    "rulesets": "fracas rulesets --format json, and fracas rulesets NAME --format json",
    "examples": "fracas examples --format json",
    "sweep": "fracas sweep FILE --vary ... --format json",
    "campaign-roster": "fracas campaign roster NAME [FORCE] --format json",
    "campaign-luck": "fracas campaign luck NAME --format json",
}
#: Any JSON value (a metric's value, a parameter's default).
ANY: Schema = {}


def nullable(schema: Schema) -> Schema:
    """``schema`` or ``null``.

    >>> nullable(INTEGER)
    {'anyOf': [{'type': 'integer'}, {'type': 'null'}]}
    """
    return {"anyOf": [schema, {"type": "null"}]}


def array(items: Schema) -> Schema:
    """A list of ``items``."""
    return {"type": "array", "items": items}


def closed(
    required: Mapping[str, Schema],
    *,
    optional: Mapping[str, Schema] | None = None,
    description: str = "",
) -> Schema:
    """An object with exactly these keys: every ``required`` one, any ``optional`` one, no
    other. (JSON Schema cannot say that keys come in order; the documents' order is in
    the docs and pinned by the golden tests.)"""
    schema: Schema = {"type": "object"}
    if description:
        schema["description"] = description
    schema["properties"] = {**required, **(optional or {})}
    schema["required"] = list(required)
    schema["additionalProperties"] = False
    return schema


def tagged(tag: str, schema: Schema) -> Schema:
    """``schema`` (a closed object) whose key ``kind`` is always ``tag``: one member of a
    ``oneOf`` told apart by ``kind``."""
    properties = {"kind": {"const": tag}, **schema["properties"]}
    required = ["kind", *(key for key in schema["required"] if key != "kind")]
    return {**schema, "properties": properties, "required": required}


def mapping_of(values: Schema) -> Schema:
    """An object keyed by names (unit ids, sides) with ``values``."""
    return {"type": "object", "additionalProperties": values}


#: A breakdown (``fracas.core.report.breakdown_data``): the rows folded in order give ``total``.
BREAKDOWN: Schema = closed(
    {
        "label": STRING,
        "total": NUMBER,
        "rows": array(
            closed(
                {
                    "label": STRING,
                    "op": {"enum": ["base", "mul", "add"]},
                    "value": NUMBER,
                    "source": STRING,
                    "rule": STRING,
                }
            )
        ),
    },
    description="An explained number: folding the rows in order gives total.",
)
