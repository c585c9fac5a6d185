"""The ``rankflank`` ruleset class: load, play, report and summarize a combat."""

from __future__ import annotations

from dataclasses import dataclass

from fracas.core.dice import Dice
from fracas.core.report import Report
from fracas.rulesets.base import DeriveMetrics, Ruleset, Summary
from fracas.rulesets.rankflank.document import RankflankDocument, RankflankParams
from fracas.rulesets.rankflank.odds import HEADLINES, decided
from fracas.rulesets.rankflank.play import CombatOutcome, play_combat
from fracas.rulesets.rankflank.report import build_report, casualties
from fracas.rulesets.rankflank.scenario import Combat, build_combat


@dataclass(frozen=True, slots=True)
class RankflankScenario:
    """A built combat with the title to put on its report."""

    combat: Combat
    title: str


class RankflankRuleset(Ruleset[RankflankDocument, RankflankScenario, CombatOutcome]):
    """Close combat of rank-and-flank fantasy regiments: blows, combat result, break test.

    >>> from fracas.core.dice import SeededDice
    >>> from fracas.rulesets.rankflank.samples import two_blocks
    >>> ruleset = RankflankRuleset()
    >>> scenario = RankflankScenario(two_blocks(max_rounds=1), "Spears vs orcs")
    >>> summary = ruleset.summarize(scenario, ruleset.play(scenario, SeededDice(5)))
    >>> sorted(summary)[:3]
    ['breaks.Orcs', 'breaks.Spearmen', 'casualties.Orcs']
    """

    name = "rankflank"
    aliases = ("rank-and-flank", "fantasy")
    title = "Rank-and-flank close combat"
    summary = "fantasy regiments: blows, combat result, break test, pursuit"
    deterministic = False
    exact_odds = True
    headlines = HEADLINES
    document_model = RankflankDocument
    params_model = RankflankParams

    def build(self, document: RankflankDocument) -> RankflankScenario:
        """Check the units, engagements and challenge, and freeze the combat."""
        combat = build_combat(document)
        title = document.title or " vs ".join(combat.sides)
        return RankflankScenario(combat, title)

    def play(self, scenario: RankflankScenario, dice: Dice) -> CombatOutcome:
        """Fight the combat: rounds until a side breaks or is destroyed, or the limit."""
        return play_combat(scenario.combat, dice)

    def report(self, scenario: RankflankScenario, result: CombatOutcome) -> Report:
        """Blows, combat-result tables, break tests and pursuit of every round."""
        return build_report(scenario.combat, result, scenario.title)

    def derived_metrics(self, scenario: RankflankScenario) -> DeriveMetrics:
        """``decided``: who holds the field when the combat ends (see :func:`decided`)."""
        return decided(scenario)

    def summarize(self, scenario: RankflankScenario, result: CombatOutcome) -> Summary:
        """Round 1's winner and scores; breaks, captures and casualties over the combat."""
        combat = scenario.combat
        metrics: dict[str, int | float | str | bool] = {}
        first = result.rounds[0].result if result.rounds else None
        metrics["winner"] = (first.winner or "draw") if first else "draw"
        for side in combat.sides:
            metrics[f"cr.{side}"] = first.score(side) if first else 0
        metrics["cr.difference"] = first.difference if first else 0
        broken = {t.unit for r in result.rounds for t in r.break_tests if not t.passed}
        caught = {p.unit for r in result.rounds for p in r.pursuits if p.caught}
        for unit in combat.units:
            metrics[f"breaks.{unit.name}"] = unit.name in broken
            metrics[f"caught.{unit.name}"] = unit.name in caught
            metrics[f"casualties.{unit.name}"] = casualties(combat, result, unit.name)
        metrics["rounds"] = len(result.rounds)
        return metrics
