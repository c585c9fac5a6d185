"""The :class:`DuelRuleset` class: metadata, capabilities and hooks."""

from __future__ import annotations

from typing import ClassVar

from fracas.core.headline import Headline
from fracas.core.process import Played
from fracas.core.record import Recorder
from fracas.core.report import Report
from fracas.rulesets.base import DeriveMetrics, Ruleset, Summary
from fracas_duel.document import DuelDocument, DuelParams
from fracas_duel.odds import HEADLINES, flawless
from fracas_duel.play import BoutProcess, BoutState, bout_of, winner_name
from fracas_duel.report import build_report
from fracas_duel.scenario import Duel, build_duel


class DuelRuleset(Ruleset[DuelDocument, Duel, BoutState]):
    """Two fighters trade opposed rolls (die + skill); the higher total wounds the other."""

    name: ClassVar[str] = "duel"
    aliases: ClassVar[tuple[str, ...]] = ("opposed-roll",)
    title: ClassVar[str] = "Opposed-roll duel"
    summary: ClassVar[str] = "two fighters trade opposed rolls until one falls"
    deterministic: ClassVar[bool] = False
    headlines: ClassVar[tuple[Headline, ...]] = HEADLINES
    document_model = DuelDocument
    params_model = DuelParams

    def build(self, document: DuelDocument) -> Duel:
        """Check the fighters' names and freeze the duel."""
        return build_duel(document)

    def process(self, scenario: Duel, recorder: Recorder) -> BoutProcess:
        """The bout, one exchange a step; the rolls are stated through ``recorder``."""
        return BoutProcess(scenario, recorder)

    def report(self, scenario: Duel, played: Played[BoutState]) -> Report:
        """Every exchange's rolls and the outcome."""
        return build_report(scenario, bout_of(played.state, played.notes), self.name)

    def metrics(self, scenario: Duel, state: BoutState) -> Summary:
        """``winner``, ``exchanges`` and ``wounds.<fighter>``."""
        metrics: dict[str, int | float | str | bool] = {
            "winner": winner_name(scenario, state.fallen),
            "exchanges": state.exchanges,
        }
        for fighter, wounds in zip(scenario.fighters, state.wounds, strict=True):
            metrics[f"wounds.{fighter.name}"] = wounds
        return metrics

    def derived_metrics(self, scenario: Duel) -> DeriveMetrics:
        """``flawless``: the winner took no wound (see :func:`fracas_duel.odds.flawless`)."""
        return flawless(scenario)
