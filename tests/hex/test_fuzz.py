"""Whatever a hex scenario holds, loading and resolving give a report or one FracasError."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fracas.core.errors import FracasError
from fracas.io.render import render_json, render_text
from fracas.io.scenario import scenario_from_document

DOCUMENT: dict[str, Any] = {
    "fracas": 1,
    "ruleset": "hex",
    "parameters": {
        "loss_exponent": 1.5,
        "encirclement": [1, 1, 0.9, 0.8, 0.7, 0.6, 0.5],
        "terrain": {"forest": {"defense": 1.5}, "bunker": {"letter": "B", "attack": 1,
                                                            "defense": 3}},
    },
    "map": {"hexes": [{"q": 0, "r": 0}, {"q": 1, "r": 0, "terrain": "bunker"},
                      {"q": 0, "r": 1, "terrain": "forest"}, {"q": 2, "r": -1}]},
    "units": [
        {"id": "a", "side": "x", "hex": [0, 0], "strength": 50, "attack": {"land": 4, "air": 1},
         "defense": 3, "level": 7, "pierce": 0.2,
         "statuses": [{"name": "Rally", "kind": "buff", "atk_mul": 1.5, "atk_add": 10}]},
        {"id": "b", "side": "y", "hex": [1, 0], "strength": 40, "attack": {"land": 5},
         "defense": 4, "range": [1, 2],
         "statuses": [{"name": "Shaken", "kind": "debuff", "def_add": -20}]},
        {"id": "c", "side": "x", "hex": [0, 1], "domain": "air", "strength": 30,
         "attack": {"land": 6}, "defense": 2},
        {"id": "d", "side": "y", "hex": [2, -1], "strength": 20, "attack": {"land": 3},
         "defense": 1, "range": [2, 3]},
    ],
    "orders": [{"attacker": "a", "target": "b"}, {"attacker": "c", "target": "b"}],
}  # fmt: skip

odd_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**9), max_value=10**9),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=0, max_value=1e-300),
    st.text(max_size=6),
    st.lists(st.integers(min_value=-3, max_value=3), max_size=8),
    st.dictionaries(st.sampled_from(["land", "air", "x", "letter"]), st.integers(), max_size=2),
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


PATHS = [p for p in key_paths(DOCUMENT) if p[0] not in ("fracas", "ruleset")]


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(PATHS), odd_values), min_size=1, max_size=3))
def test_mutated_scenarios_fail_only_with_fracas_errors(changes: list[Any]) -> None:
    document = copy.deepcopy(DOCUMENT)
    for path, value in changes:
        node = document
        try:
            for part in path[:-1]:
                node = node[part]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier change removed this branch
    try:
        scenario = scenario_from_document(document, source="fuzz.yaml")
        report = scenario.resolve()
    except FracasError:
        return
    assert render_text(report)
    assert render_json(report)
    ruleset = scenario.ruleset
    for side in scenario.model.board.sides():
        ruleset.advise(scenario.model, side)
    ruleset.picture(scenario.model)


def test_the_unmutated_document_resolves() -> None:
    report = scenario_from_document(DOCUMENT).resolve()
    assert len(report.data["combats"]) == 2
