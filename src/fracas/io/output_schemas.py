"""JSON Schemas (draft 2020-12) of every ``--format json`` output: the contract of the
documents programs read from fracas (``fracas schema --command KIND``, docs/json.md).

The schemas are written as data here, beside nothing else: the envelope of a report
(``fracas.io.render.report_document``), the odds result, the listings and the sweep;
a ruleset's own ``result`` comes from the ruleset (``Ruleset.result_schema``), so each
shape is written where the code that writes the document is. Every object whose keys
are documented is closed (``additionalProperties: false``): an undocumented key fails
validation (tests/io/test_output_schemas.py checks every example's actual output).

>>> schema = output_schema("odds")
>>> schema["$schema"], schema["required"][:3]
('https://json-schema.org/draft/2020-12/schema', ['fracas', 'ruleset', 'source'])
>>> sorted(output_schema("resolve")["$defs"])[:2]
['d100_result', 'hex_result']
"""

from __future__ import annotations

from fracas.core.errors import ScenarioError
from fracas.core.output_schema import (
    ANY,
    BOOLEAN,
    DIALECT,
    INTEGER,
    OUTPUTS,
    STRING,
    Schema,
    array,
    closed,
    mapping_of,
    nullable,
)
from fracas.rulesets import available_rulesets, find_ruleset

FLOAT: Schema = {"type": "number"}
#: The first 16 hex digits of the scenario's SHA-256 (docs/json.md, "The scenario hash").
SCENARIO_HASH: Schema = {"type": "string", "pattern": "^[0-9a-f]{16}$"}

#: The outputs that are reports: the common envelope around a ``result``.
REPORTS = ("resolve", "forecast", "advise", "threats", "odds")

FAIR = closed(
    {
        "derivation": STRING,
        "commitment": STRING,
        "nonces": array(STRING),
        "secret": STRING,
    },
    optional={"seal": array(STRING)},
    description="Only with resolve --secret-file (docs/fair-dice.md).",
)

SOLVE = closed(
    {
        "path": STRING,
        "goal": STRING,
        "metric": STRING,
        "target": FLOAT,
        "value": INTEGER,
        "measured": FLOAT,
        "indistinct": array(INTEGER),
        "probes": array(
            closed(
                {
                    "value": INTEGER,
                    "measured": nullable(FLOAT),
                    "low": nullable(FLOAT),
                    "high": nullable(FLOAT),
                    "problem": nullable(STRING),
                }
            )
        ),
    },
    description="Only with --solve: the smallest value reaching the target, and the search.",
)

ODDS = closed(
    {
        "method": {"enum": ["exact", "monte-carlo"]},
        "solver": STRING,
        "work": closed(
            {"amount": INTEGER, "unit": STRING, "dice_rolls": INTEGER, "budget": INTEGER}
        ),
        "confidence": nullable(FLOAT),
        "error_bar": FLOAT,
        "seed": nullable(INTEGER),
        "runs": nullable(INTEGER),
        "precision": nullable(FLOAT),
        "stopped_by": nullable(STRING),
        "fallback": nullable(STRING),
        "headline": array(
            closed(
                {
                    "label": STRING,
                    "kind": {"enum": ["probability", "mean"]},
                    "metric": STRING,
                    "value": FLOAT,
                    "low": FLOAT,
                    "high": FLOAT,
                },
                optional={"fraction": STRING},
            )
        ),
        "metrics": array(
            closed(
                {
                    "name": STRING,
                    "label": STRING,
                    "kind": {"enum": ["numeric", "categorical"]},
                    "mean": nullable(FLOAT),
                    "mean_low": nullable(FLOAT),
                    "mean_high": nullable(FLOAT),
                    "values": array(
                        closed(
                            {
                                "value": ANY,
                                "probability": FLOAT,
                                "low": FLOAT,
                                "high": FLOAT,
                                "count": nullable(INTEGER),
                            },
                            optional={"fraction": STRING, "at_least": FLOAT},
                        )
                    ),
                }
            )
        ),
    },
    optional={"solve": SOLVE},
    description="Outcome probabilities (docs/odds.md, JSON output).",
)


def _envelope(result: Schema) -> Schema:
    """A report's document (``fracas.io.render.report_document``) around ``result``."""
    return closed(
        {
            "fracas": STRING,
            "ruleset": STRING,
            "source": STRING,
            "scenario_sha256": SCENARIO_HASH,
            "seed": nullable(INTEGER),
            "overrides": array(STRING),
            "title": STRING,
            "result": result,
        },
        optional={"fair": FAIR},
    )


def _report_schema(command: str, ruleset: str | None) -> Schema:
    if command == "odds":
        schema = _envelope(ODDS)
        if ruleset is not None:
            schema["properties"]["ruleset"] = {"const": ruleset}
        return schema
    if ruleset is not None:
        found = find_ruleset(ruleset)
        if command != "resolve" and not found.implements(command):
            # No output of that ruleset has this shape: an open schema would pass anything.
            raise ScenarioError(f"{ruleset} has no {command}", path=("--command",))
        result = found.result_schema(command)
        schema = _envelope(result if result is not None else {"type": "object"})
        schema["properties"]["ruleset"] = {"const": ruleset}
        return schema
    # Any ruleset: the result is the one of the ruleset the document names.
    schema = _envelope({"type": "object"})
    defs: Schema = {}
    cases = []
    for cls in available_rulesets():
        result = cls.result_schema(command)
        if result is None:
            continue
        defs[f"{cls.name}_result"] = result
        cases.append(
            {
                "if": {"properties": {"ruleset": {"const": cls.name}}},
                "then": {"properties": {"result": {"$ref": f"#/$defs/{cls.name}_result"}}},
            }
        )
    if cases:
        schema["allOf"] = cases
        schema["$defs"] = defs
    return schema


VALIDATE: Schema = {
    "oneOf": [
        closed(
            {
                "source": STRING,
                "valid": {"const": True},
                "ruleset": STRING,
                "scenario_sha256": SCENARIO_HASH,
                "problems": {"type": "array", "maxItems": 0},
            }
        ),
        closed(
            {
                "source": STRING,
                "valid": {"const": False},
                "problems": {
                    "type": "array",
                    "minItems": 1,
                    "items": closed({"path": STRING, "problem": STRING}),
                },
            }
        ),
    ]
}

RULESETS: Schema = {
    "oneOf": [
        array(
            closed(
                {
                    "name": STRING,
                    "title": STRING,
                    "summary": STRING,
                    "deterministic": BOOLEAN,
                    "aliases": array(STRING),
                }
            )
        ),
        closed(
            {
                "name": STRING,
                "title": STRING,
                "offers": array(STRING),
                "parameters": array(
                    closed({"name": STRING, "default": ANY, "description": STRING})
                ),
            },
            description="fracas rulesets NAME: one ruleset's actions and parameters.",
        ),
    ]
}

EXAMPLES: Schema = array(closed({"name": STRING, "title": STRING}))

METRICS: Schema = closed(
    {
        "source": STRING,
        "values_from": STRING,
        "metrics": array(
            closed(
                {
                    "key": STRING,
                    "label": STRING,
                    "kind": {"enum": ["numeric", "categorical"]},
                    "values": array(ANY),
                }
            )
        ),
    }
)

SWEEP: Schema = closed(
    {
        "sweep": closed(
            {
                "source": STRING,
                "metric": STRING,
                "seed": INTEGER,
                "vary": array(closed({"path": STRING, "values": array(ANY)})),
                "options": {"type": "object"},
                "version": STRING,
            }
        ),
        "cells": array(
            closed(
                {
                    "settings": mapping_of(ANY),
                    "value": nullable(FLOAT),
                    "low": nullable(FLOAT),
                    "high": nullable(FLOAT),
                    "method": {"enum": ["exact", "monte-carlo", "invalid"]},
                    "runs": nullable(INTEGER),
                    "seed": INTEGER,
                    "problem": nullable(STRING),
                }
            )
        ),
    },
    description="settings is keyed by the varied key paths, as --vary names them.",
)

CAMPAIGN_ROSTER: Schema = array(
    closed(
        {
            "force": STRING,
            "units": array({"type": "object"}),
            "treasury": mapping_of(FLOAT),
            "fallen": mapping_of(closed({"why": STRING, "event": INTEGER})),
        },
        description="One force now; units are its roster's units as the ruleset writes them.",
    )
)

#: One outcome of a battle for one force: its value, its percentile (higher: luckier for
#: the force) and the error bar of that percentile (0 when exact).
OUTCOME: Schema = closed({"value": FLOAT, "percentile": FLOAT, "error": FLOAT})

CAMPAIGN_LUCK: Schema = closed(
    {
        "campaign": STRING,
        "method": STRING,
        "columns": mapping_of(STRING),
        "forces": array(
            closed(
                {
                    "force": STRING,
                    "headline": FLOAT,
                    "sentence": STRING,
                    "cumulative": array(FLOAT),
                    "battles": array(
                        closed(
                            {
                                "battle": INTEGER,
                                "event": INTEGER,
                                "force": STRING,
                                "enemy": STRING,
                                "score": FLOAT,
                                "expected": FLOAT,
                                "percentile": FLOAT,
                                "error": FLOAT,
                                "method": STRING,
                                "win_chance": nullable(FLOAT),
                                "won": nullable(BOOLEAN),
                                "win": nullable(OUTCOME),
                                "losses": nullable(OUTCOME),
                                "enemy_losses": nullable(OUTCOME),
                                "breaks": nullable(OUTCOME),
                                "enemy_breaks": nullable(OUTCOME),
                            }
                        )
                    ),
                }
            )
        ),
    }
)

_OTHERS: dict[str, Schema] = {
    "metrics": METRICS,
    "validate": VALIDATE,
    "rulesets": RULESETS,
    "examples": EXAMPLES,
    "sweep": SWEEP,
    "campaign-roster": CAMPAIGN_ROSTER,
    "campaign-luck": CAMPAIGN_LUCK,
}


def output_schema(command: str, ruleset: str | None = None) -> Schema:
    """The JSON Schema of what ``command`` (a key of :data:`OUTPUTS`) writes with
    ``--format json``; for a report, ``ruleset`` narrows it to that ruleset's result
    (without it the result is checked against the ruleset the document names).

    >>> output_schema("resolve", "hexgrid")["properties"]["ruleset"]
    {'const': 'hex'}
    >>> try:
    ...     output_schema("render")
    ... except ScenarioError as exc:
    ...     print(str(exc)[:50])
    --command: unknown output 'render' (resolve, forec
    """
    if command not in OUTPUTS:
        known = ", ".join(OUTPUTS)
        raise ScenarioError(f"unknown output {command!r} ({known})", path=("--command",))
    name = None if ruleset is None else find_ruleset(ruleset).name
    if command in REPORTS:
        body = _report_schema(command, name)
    elif name is not None:
        raise ScenarioError(
            f"{command} is the same for every ruleset: leave the ruleset out",
            path=("--command",),
        )
    else:
        body = dict(_OTHERS[command])
    title = f"fracas {command} output" + ("" if name is None else f" ({name})")
    return {"$schema": DIALECT, "title": title, "description": OUTPUTS[command], **body}
