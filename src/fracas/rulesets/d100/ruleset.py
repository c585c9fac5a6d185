"""The :class:`D100Ruleset` class: metadata and hooks tying the d100 pieces together."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from fracas.core.dice import Dice
from fracas.core.headline import Headline
from fracas.core.report import Report
from fracas.rulesets.base import Ruleset, Summary
from fracas.rulesets.d100.document import D100Document
from fracas.rulesets.d100.odds import HEADLINES
from fracas.rulesets.d100.params import D100Params

if TYPE_CHECKING:  # the rules load with the first battle: listing rulesets needs none
    from fracas.rulesets.d100.play import BattleResult
    from fracas.rulesets.d100.scenario import Battle


class D100Ruleset(Ruleset[D100Document, "Battle", "BattleResult"]):
    """Play-by-post battles with open-ended percentile dice, in the seed's seven steps.

    >>> D100Ruleset.name, D100Ruleset.deterministic
    ('d100', False)
    """

    name: ClassVar[str] = "d100"
    aliases: ClassVar[tuple[str, ...]] = ("percentile", "pbp")
    title: ClassVar[str] = "Play-by-post percentile battles"
    summary: ClassVar[str] = "open-ended d100 battles in seven steps, with a forum-ready log"
    deterministic: ClassVar[bool] = False
    #: Open-ended percentile dice branch a hundred ways per roll: odds are sampled.
    exact_odds: ClassVar[bool] = False
    headlines: ClassVar[tuple[Headline, ...]] = HEADLINES
    document_model: ClassVar[type[D100Document]] = D100Document
    params_model: ClassVar[type[D100Params]] = D100Params

    def build(self, document: D100Document) -> Battle:
        """Check what the document means and freeze it (see :func:`build_battle`)."""
        from fracas.rulesets.d100.scenario import build_battle

        return build_battle(document)

    def play(self, scenario: Battle, dice: Dice) -> BattleResult:
        """Play the seven steps with ``dice`` (see :func:`play_battle`)."""
        from fracas.rulesets.d100.play import play_battle

        return play_battle(scenario, dice)

    def report(self, scenario: Battle, result: BattleResult) -> Report:
        """The battle log, step by step, with every roll and its named bonuses."""
        from fracas.rulesets.d100.report import build_report

        return build_report(scenario, result, self.name)

    def summarize(self, scenario: Battle, result: BattleResult) -> Summary:
        """``winner``, ``rounds``, ``pax.<unit>``, ``fate.<unit>`` and ``goods``."""
        from fracas.rulesets.d100.report import winner_name

        return _summary(scenario, result, _unit_metrics(scenario), winner_name)

    def sampler(self, scenario: Battle) -> Callable[[Dice], Summary]:
        """Outcomes of plays without their battle logs (see :func:`sampling_player`)."""
        from fracas.rulesets.d100.play import sampling_player
        from fracas.rulesets.d100.report import winner_name

        play = sampling_player(scenario)
        names = _unit_metrics(scenario)

        def sample(dice: Dice) -> Summary:
            return _summary(scenario, play(dice), names, winner_name)

        return sample


def _unit_metrics(battle: Battle) -> tuple[tuple[str, str], ...]:
    """The names of each unit's metrics, in unit order: ``pax.<unit>`` and ``fate.<unit>``."""
    return tuple((f"pax.{unit.name}", f"fate.{unit.name}") for unit in battle.units)


def _summary(
    battle: Battle,
    result: BattleResult,
    names: tuple[tuple[str, str], ...],
    winner_name: Callable[[Battle, BattleResult], str],
) -> dict[str, int | float | str | bool]:
    metrics: dict[str, int | float | str | bool] = {
        "winner": winner_name(battle, result),
        "rounds": result.rounds,
    }
    for (pax, fate), remaining, fate_of in zip(names, result.pax, result.fates, strict=True):
        metrics[pax] = remaining
        metrics[fate] = fate_of
    value = result.goods_value
    metrics["goods"] = int(value) if value.denominator == 1 else float(value)
    return metrics
