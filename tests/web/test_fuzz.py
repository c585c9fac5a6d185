"""Fuzz the API from its own OpenAPI document (schemathesis): no request makes a server error.

The run is bounded (a fixed number of examples per operation, derandomised in CI), and every
answer must match the status codes and shapes the document promises.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from fracas.web import Limits, create_app

ROOT = Path(__file__).resolve().parents[2]

# Small budgets and a short time limit: fuzzing looks for crashes, not for long battles.
# schemathesis calls the app as "testserver", a name it must be allowed to give.
LIMITS = Limits(
    time_limit=10, sample_budget=50_000, exact_budget=50_000, allowed_hosts=("testserver",)
)
APP = create_app(LIMITS)
schema = schemathesis.openapi.from_asgi("/api/openapi.json", APP)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@schema.parametrize()
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_request_makes_a_server_error(case: schemathesis.Case[Any]) -> None:
    case.call_and_validate(checks=CHECKS)


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_real_scenarios_with_fuzzed_options(case: schemathesis.Case[Any]) -> None:
    """The same, with a real example as the scenario, so the options reach the engine."""
    if isinstance(case.body, dict):
        example = ROOT / "examples" / "hex" / "encirclement.yaml"
        if case.operation.path == "/api/odds":
            example = ROOT / "examples" / "rankflank" / "flank_charge.yaml"
        case.body["scenario"] = example.read_text(encoding="utf-8")
        case.body.pop("format", None)
        case.body["name"] = example.name
    case.call_and_validate(checks=CHECKS)
