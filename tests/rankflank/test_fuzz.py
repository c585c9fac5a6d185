"""Scenario fuzzing: any document either loads or fails with one ScenarioError."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fracas.core.dice import SeededDice
from fracas.core.errors import ScenarioError
from fracas.io.scenario import scenario_from_document

BASE: dict[str, Any] = {
    "fracas": 1,
    "ruleset": "rankflank",
    "units": [
        {
            "name": "Spears",
            "side": "Elves",
            "models": 12,
            "files": 4,
            "profile": "5 4 4 3 3 1 5 1 8",
            "characters": [{"name": "Noble", "profile": "5 6 6 4 3 2 7 3 9"}],
        },
        {
            "name": "Orcs",
            "side": "Orcs",
            "models": 10,
            "files": 5,
            "profile": "4 3 3 3 4 1 2 1 7",
            "characters": [{"name": "Boss", "profile": "4 5 3 4 5 2 3 3 8"}],
        },
    ],
    "engagements": [{"unit": "Orcs", "enemy": "Spears", "arc": "front"}],
    "challenge": {"challenger": "Boss", "opponent": "Noble"},
    "parameters": {"max_rounds": 2},
}

PATHS: list[tuple[str | int, ...]] = [
    ("units", 0, "models"),
    ("units", 0, "files"),
    ("units", 0, "profile"),
    ("units", 0, "side"),
    ("units", 1, "name"),
    ("units", 1, "armour"),
    ("units", 1, "ward"),
    ("units", 1, "rules"),
    ("units", 1, "troop_type"),
    ("units", 1, "wounds_taken"),
    ("units", 1, "unit_strength"),
    ("units", 1, "characters"),
    ("units", 0, "characters", 0, "profile"),
    ("units", 0, "characters", 0, "name"),
    ("engagements",),
    ("engagements", 0, "arc"),
    ("engagements", 0, "enemy"),
    ("challenge",),
    ("challenge", "opponent"),
    ("parameters", "edition"),
    ("parameters", "max_rounds"),
    ("other_wounds",),
    ("units",),
    ("units", 0, "fighting_models"),
    ("units", 0, "supporting_models"),
    ("units", 0, "height"),
    ("units", 0, "characters", 0, "wounds_taken"),
    ("units", 1, "charged"),
    ("units", 1, "charged_downhill"),
    ("units", 1, "command"),
    ("units", 1, "attacks_target"),
    ("units", 1, "restrain"),
    ("challenge", "challenger"),
    ("parameters", "rank_width"),
    ("parameters", "steadfast"),
    ("parameters", "overkill_max"),
]

VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 40)
    | st.sampled_from(["", "Spears", "Orcs", "Noble", "front", "rear", "1 2 3 4 5 6 7 8 9"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=150)
@given(st.sampled_from(PATHS), VALUES, st.integers(0, 1000))
def test_any_document_loads_or_fails_cleanly(
    path: tuple[str | int, ...], value: Any, seed: int
) -> None:
    document = copy.deepcopy(BASE)
    node: Any = document
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    try:
        scenario = scenario_from_document(document, source="fuzz.yaml")
    except ScenarioError as error:
        message = str(error)
    else:
        message = ""
    if message:
        assert message.startswith("fuzz.yaml: ")
        assert "\n" not in message
        return
    ruleset = scenario.ruleset
    outcome = ruleset.play(scenario.model, SeededDice(seed))
    ruleset.report(scenario.model, outcome)
    ruleset.summarize(scenario.model, outcome)
