"""The report: the tables a player reads, in every format."""

from __future__ import annotations

from fracas.core.dice import ScriptedDice
from fracas.io.render import RENDERERS
from fracas.rulesets.rankflank.report import faces_summary
from fracas.rulesets.rankflank.ruleset import RankflankRuleset, RankflankScenario

from .conftest import combat_from, engage, unit_doc


def scenario() -> RankflankScenario:
    combat = combat_from(
        {
            "units": [
                unit_doc(
                    "Fast",
                    "A",
                    models=5,
                    files=5,
                    profile="4 3 3 3 3 1 5 1 7",
                    command={"standard": True},
                ),
                unit_doc("Slow", "B", models=5, files=5, profile="4 3 3 3 3 1 2 1 7"),
            ],
            "engagements": [engage("Fast", "Slow")],
            "parameters": {"max_rounds": 1},
        }
    )
    return RankflankScenario(combat, "Fast against slow")


def test_report_shows_rolls_combat_result_and_break_test() -> None:
    ruleset = RankflankRuleset()
    script = (
        [6, 6, 6, 1, 1, 6, 6, 6, 6, 6, 6, 6],  # 3 slain, then the 2 survivors wound twice
        [5, 6],  # B 2 against A 5 (3 wounds + US + standard): needs ≤ 7 - 3, rolls 11
        [2, 2, 3, 3],  # flees 4, the Fast pursue 6: caught
    )
    dice = ScriptedDice(face for group in script for face in group)
    report = ruleset.report(scenario(), ruleset.play(scenario(), dice))
    text = RENDERERS["text"](report)
    assert "Round 1: A win by 3 (A 5, B 2)." in text
    assert "6×3 1×2" in text  # the Fast's to-hit faces
    for label in ("Wounds", "Higher Unit Strength", "Standard", "Break tests", "caught"):
        assert label in text
    data = report.data["rounds"][0]
    # The rows of A: start 0, wounds +3, ranks +0 (a single rank), higher Unit Strength
    # (Fast lost 2: 3 models against 2) +1, standard +1 → 5.
    assert [row["value"] for row in data["combat_result"]["A"]["rows"]] == [0, 3, 0, 1, 1]
    assert data["break_tests"][0]["faces"] == [5, 6]
    for fmt in ("markdown", "bbcode", "json"):
        assert "Fast against slow" in RENDERERS[fmt](report)


def test_faces_summary_counts_each_face() -> None:
    assert faces_summary(()) == "-"
    assert faces_summary((1, 1, 6)) == "6×1 1×2"
