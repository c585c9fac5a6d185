"""Fuzzing the scenario loader: whatever a file holds, the answer is a result or a ScenarioError.

Each example scenario is mutated at random key paths (wrong types, negative numbers,
missing keys, unknown ids); loading and resolving may fail, but only with one
`ScenarioError` — never another exception, which would reach the user as a traceback.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fracas.core.errors import FracasError
from fracas.io.scenario import scenario_from_document

EXAMPLES = sorted(Path(__file__).resolve().parents[2].glob("examples/*/*.yaml"))

odd_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**6), max_value=10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.lists(st.integers(min_value=-3, max_value=3), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2),
)


def key_paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    paths = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            paths += key_paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            paths += key_paths(value, (*prefix, index))
    return paths


def mutate(document: Any, path: tuple[Any, ...], action: str, value: Any) -> Any:
    result = copy.deepcopy(document)
    parent = result
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if action == "delete":
        del parent[last]
    else:
        parent[last] = value
    return result


@pytest.mark.skipif(not EXAMPLES, reason="no example scenarios yet")
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_examples_fail_only_with_fracas_errors(example: Path, data: st.DataObject) -> None:
    document = yaml.safe_load(example.read_text(encoding="utf-8"))
    paths = [p for p in key_paths(document) if p[0] not in ("fracas", "ruleset")]
    path = data.draw(st.sampled_from(paths), label="path")
    action = data.draw(st.sampled_from(["replace", "delete"]), label="action")
    value = data.draw(odd_values, label="value")
    mutated = mutate(document, path, action, value)
    try:
        scenario = scenario_from_document(mutated, source=example.name)
        scenario.resolve(seed=1)
    except FracasError:
        pass
