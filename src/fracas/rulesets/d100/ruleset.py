"""The :class:`D100Ruleset` class: metadata and hooks tying the d100 pieces together."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from itertools import chain
from typing import TYPE_CHECKING, Any, ClassVar, cast

from fracas.core.headline import Headline, MetricLabels
from fracas.core.process import Played
from fracas.core.record import Recorder
from fracas.core.report import Report
from fracas.rulesets.base import Ruleset, Summary, deferred
from fracas.rulesets.d100.odds import HEADLINES

if TYPE_CHECKING:  # the rules load with the first battle: listing rulesets needs none
    from fracas.rulesets.campaign import CampaignRules
    from fracas.rulesets.d100.document import D100Document
    from fracas.rulesets.d100.play import BattleProcess, State
    from fracas.rulesets.d100.scenario import Battle


class D100Ruleset(Ruleset["D100Document", "Battle", "State"]):
    """Play-by-post battles with open-ended percentile dice, in the seed's seven steps.

    >>> D100Ruleset.name, D100Ruleset.deterministic
    ('d100', False)
    """

    name: ClassVar[str] = "d100"
    aliases: ClassVar[tuple[str, ...]] = ("percentile", "pbp")
    title: ClassVar[str] = "Play-by-post percentile battles"
    summary: ClassVar[str] = "open-ended d100 battles in seven steps, with a forum-ready log"
    deterministic: ClassVar[bool] = False
    headlines: ClassVar[tuple[Headline, ...]] = HEADLINES
    metric_labels: ClassVar[MetricLabels] = (
        ("winner", "Winner of the battle"),
        ("rounds", "Rounds fought"),
        ("pax.*", "{name}'s PAX left"),
        ("fate.*", "What became of {name}"),
        ("goods", "Goods taken by the winner"),
    )
    document_model = deferred("fracas.rulesets.d100.document", "D100Document")
    params_model = deferred("fracas.rulesets.d100.params", "D100Params")

    @classmethod
    def result_schema(cls, command: str) -> dict[str, Any] | None:
        """The JSON Schema of a report's ``result`` (``fracas.rulesets.d100.output_schema``)."""
        from fracas.rulesets.d100.output_schema import RESULTS

        return RESULTS.get(command)

    def build(self, document: D100Document) -> Battle:
        """Check what the document means and freeze it (see :func:`build_battle`)."""
        from fracas.rulesets.d100.scenario import build_battle

        return build_battle(document)

    def process(self, scenario: Battle, recorder: Recorder) -> BattleProcess:
        """The battle as steps over hashable states (see :class:`BattleProcess`): every
        roll's rows and every event go to ``recorder``."""
        from fracas.rulesets.d100.play import BattleProcess

        return BattleProcess(scenario, recorder)

    def report(self, scenario: Battle, played: Played[State]) -> Report:
        """The battle log, step by step, with every roll and its named bonuses."""
        from fracas.rulesets.d100.play import BattleProcess, battle_result
        from fracas.rulesets.d100.report import build_report

        result = battle_result(BattleProcess(scenario), played.state, played.notes)
        return build_report(scenario, result, self.name)

    def campaign_rules(self) -> CampaignRules:
        from fracas.rulesets.d100.campaign import D100Campaign

        return D100Campaign()

    def metrics(self, scenario: Battle, state: State) -> Summary:
        """``winner``, ``rounds``, ``pax.<unit>``, ``fate.<unit>`` and ``goods``."""
        from fracas.rulesets.d100.play import BattleProcess

        # Odds ask this of every final state of one battle in turn: its process (its
        # program of steps) is built once for them, not once a state.
        global _LAST_METRICS
        last = _LAST_METRICS
        if last is None or last[0] is not scenario:
            last = _LAST_METRICS = (scenario, BattleProcess(scenario), _metric_names(scenario))
        return _state_summary(last[1], last[2], state)


#: The battle :meth:`D100Ruleset.metrics` was last asked about, its process and metric names.
_LAST_METRICS: tuple[Any, Any, tuple[str, ...]] | None = None


def _state_summary(process: BattleProcess, names: tuple[str, ...], state: State) -> Summary:
    winner, outcome, fates, _, value = process.ending(state)
    battle = process.battle
    name = outcome if winner is None else battle.sides[winner].name
    return _summary(names, name, state.round, state.pax, fates, value)


def _metric_names(battle: Battle) -> tuple[str, ...]:
    """The summary's metrics in order: ``winner``, ``rounds``, ``pax.<unit>`` and
    ``fate.<unit>`` of each unit in unit order, ``goods``."""
    units = ((f"pax.{unit.name}", f"fate.{unit.name}") for unit in battle.units)
    return ("winner", "rounds", *chain.from_iterable(units), "goods")


def _summary(
    names: tuple[str, ...],
    winner: str,
    rounds: int,
    pax: Sequence[int],
    fates: Sequence[str],
    value: Fraction,
) -> dict[str, int | float | str | bool]:
    goods = int(value) if value.denominator == 1 else float(value)
    units = cast("Iterable[int | str]", chain.from_iterable(zip(pax, fates, strict=True)))
    metrics = (winner, rounds, *units, goods)
    return dict(zip(names, metrics, strict=True))
