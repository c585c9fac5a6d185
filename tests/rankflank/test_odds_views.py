"""rankflank's odds view: who wins the combat, and its headline rows in declared order."""

from __future__ import annotations

from pathlib import Path

from fracas.analysis import headline, odds
from fracas.io.scenario import parse_scenario
from fracas.rulesets.rankflank.formation import initial_state
from fracas.rulesets.rankflank.ruleset import combat_winner

#: The line fight the odds benchmark asks about (25 spears against 20 orcs, one round).
LINE_AGAINST_LINE = (
    Path(__file__).resolve().parents[2] / "benchmarks" / "line_fight.yaml"
).read_text(encoding="utf-8")


def test_a_side_is_out_once_every_unit_broke_or_was_wiped_out() -> None:
    scenario = parse_scenario(
        LINE_AGAINST_LINE.replace(
            "engagements:",
            "  - {name: Wolves, side: Greenskins, models: 5, files: 5,\n"
            '     profile: "9 3 0 3 3 1 3 1 3"}\n'
            "engagements:\n  - {unit: Wolves, enemy: Spears, arc: left}",
        )
    )
    combat = scenario.model.combat
    start = initial_state(combat)
    fled = {name: status._replace(fled=True) for name, status in start.items()}
    dead = {name: status._replace(rank_and_file_wounds=0) for name, status in start.items()}
    # Orcs broke but the five Wolves still fight: not decided yet.
    assert combat_winner(combat, {**start, "Orcs": fled["Orcs"]}) == "undecided"
    # Orcs broke and all five Wolves are dead: the Greenskins are out, Empire wins.
    assert combat_winner(combat, {**start, "Orcs": fled["Orcs"], "Wolves": dead["Wolves"]}) == (
        "Empire"
    )
    # The Spears broke: the Greenskins win, whatever became of their own units.
    assert combat_winner(combat, {**start, "Spears": fled["Spears"]}) == "Greenskins"
    # Both sides out: a draw.
    assert combat_winner(combat, fled) == "draw"


def test_headline_rows_come_in_the_declared_order() -> None:
    result = odds(parse_scenario(LINE_AGAINST_LINE), method="mc", runs=200, seed=1)
    labels = [row.label for row in headline(result)]
    combat = [label for label in labels if "combat" in label or "both sides" in label]
    rounds = [label for label in labels if label.endswith("round 1)")]
    assert labels[: len(combat)] == combat
    assert labels[len(combat) : len(combat) + len(rounds)] == rounds
    assert labels[len(combat) + len(rounds) :] == [
        "P(Spears breaks)",
        "P(Orcs breaks)",
        "P(Spears is caught)",
        "P(Orcs is caught)",
        "P(Spears is destroyed)",
        "P(Orcs is destroyed)",
        "expected casualties of Spears",
        "expected casualties of Orcs",
    ]
