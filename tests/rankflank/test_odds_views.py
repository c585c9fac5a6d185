"""rankflank's odds view: the ``decided`` metric its hook derives, and its headline rows."""

from __future__ import annotations

from fracas.analysis import headline, odds
from fracas.io.scenario import parse_scenario
from fracas.rulesets.rankflank.samples import LINE_AGAINST_LINE


def test_a_side_is_out_once_every_unit_broke_or_was_wiped_out() -> None:
    scenario = parse_scenario(
        LINE_AGAINST_LINE.replace(
            "engagements:",
            "  - {name: Wolves, side: Greenskins, models: 5, files: 5,\n"
            '     profile: "9 3 0 3 3 1 3 1 3"}\n'
            "engagements:\n  - {unit: Wolves, enemy: Spears, arc: left}",
        )
    )
    derive = scenario.ruleset.derived_metrics(scenario.model)
    assert derive is not None
    base = {"breaks.Spears": False, "breaks.Orcs": False, "breaks.Wolves": False}
    # Orcs broke but the five Wolves still fight: not decided yet.
    assert derive({**base, "breaks.Orcs": True, "casualties.Wolves": 4})["decided"] == "undecided"
    # Orcs broke and all five Wolves are dead: the Greenskins are out, Empire wins.
    assert derive({**base, "breaks.Orcs": True, "casualties.Wolves": 5})["decided"] == "Empire"
    # The Spears broke: the Greenskins win, whatever became of their own units.
    assert derive({**base, "breaks.Spears": True})["decided"] == "Greenskins"
    # Both sides out: a draw.
    both = {"breaks.Spears": True, "breaks.Orcs": True, "breaks.Wolves": True}
    assert derive(both)["decided"] == "draw"


def test_headline_rows_come_in_the_declared_order() -> None:
    result = odds(parse_scenario(LINE_AGAINST_LINE), method="mc", runs=200, seed=1)
    labels = [row.label for row in headline(result)]
    winners = [label for label in labels if label.endswith("round 1)")]
    combat = [label for label in labels if "combat" in label or "both sides" in label]
    assert labels[: len(winners)] == winners
    assert labels[len(winners) : len(winners) + len(combat)] == combat
    assert labels[len(winners) + len(combat) :] == [
        "P(Spears breaks)",
        "P(Orcs breaks)",
        "P(Spears is caught)",
        "P(Orcs is caught)",
        "expected casualties of Spears",
        "expected casualties of Orcs",
    ]
