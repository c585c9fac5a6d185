"""The :class:`DuelRuleset` class: metadata, capabilities and hooks."""

from __future__ import annotations

from typing import ClassVar

from fracas.core.dice import Dice
from fracas.core.headline import Headline
from fracas.core.report import Report
from fracas.rulesets.base import DeriveMetrics, Ruleset, Summary
from fracas_duel.document import DuelDocument, DuelParams
from fracas_duel.odds import HEADLINES, flawless
from fracas_duel.play import Bout, play_bout, winner_name
from fracas_duel.report import build_report
from fracas_duel.scenario import Duel, build_duel


class DuelRuleset(Ruleset[DuelDocument, Duel, Bout]):
    """Two fighters trade opposed rolls (die + skill); the higher total wounds the other."""

    name: ClassVar[str] = "duel"
    aliases: ClassVar[tuple[str, ...]] = ("opposed-roll",)
    title: ClassVar[str] = "Opposed-roll duel"
    summary: ClassVar[str] = "two fighters trade opposed rolls until one falls"
    deterministic: ClassVar[bool] = False
    # A few exchanges of two small dice: enumerating every bout fits the default budget.
    exact_odds: ClassVar[bool] = True
    # The inherited exact method takes --exact-tolerance. With no step process of its own
    # it hands over to the enumeration of every bout, which keeps every branch.
    exact_tolerance: ClassVar[bool] = True
    headlines: ClassVar[tuple[Headline, ...]] = HEADLINES
    document_model = DuelDocument
    params_model = DuelParams

    def build(self, document: DuelDocument) -> Duel:
        """Check the fighters' names and freeze the duel."""
        return build_duel(document)

    def play(self, scenario: Duel, dice: Dice) -> Bout:
        """Fight the bout, asking ``dice`` for every roll."""
        return play_bout(scenario, dice)

    def report(self, scenario: Duel, result: Bout) -> Report:
        """Every exchange's rolls and the outcome."""
        return build_report(scenario, result, self.name)

    def summarize(self, scenario: Duel, result: Bout) -> Summary:
        """``winner``, ``exchanges`` and ``wounds.<fighter>``."""
        metrics: dict[str, int | float | str | bool] = {
            "winner": winner_name(scenario, result),
            "exchanges": len(result.exchanges),
        }
        for fighter, wounds in zip(scenario.fighters, result.wounds, strict=True):
            metrics[f"wounds.{fighter.name}"] = wounds
        return metrics

    def derived_metrics(self, scenario: Duel) -> DeriveMetrics:
        """``flawless``: the winner took no wound (see :func:`fracas_duel.odds.flawless`)."""
        return flawless(scenario)
