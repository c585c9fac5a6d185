"""The :class:`D100Ruleset` class: metadata and hooks tying the d100 pieces together."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from itertools import chain
from typing import TYPE_CHECKING, Any, ClassVar, cast

from fracas.core.dice import Dice
from fracas.core.headline import Headline
from fracas.core.process import Done, OneStep, Played
from fracas.core.record import Recorder
from fracas.core.report import Report
from fracas.rulesets.base import Ruleset, Summary, deferred
from fracas.rulesets.d100.odds import HEADLINES

if TYPE_CHECKING:  # the rules load with the first battle: listing rulesets needs none
    from fracas.rulesets.d100.document import D100Document
    from fracas.rulesets.d100.play import BattleResult
    from fracas.rulesets.d100.scenario import Battle


class D100Ruleset(Ruleset["D100Document", "Battle", "Done[Fought]"]):
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
    document_model = deferred("fracas.rulesets.d100.document", "D100Document")
    params_model = deferred("fracas.rulesets.d100.params", "D100Params")

    def build(self, document: D100Document) -> Battle:
        """Check what the document means and freeze it (see :func:`build_battle`)."""
        from fracas.rulesets.d100.scenario import build_battle

        return build_battle(document)

    def process(self, scenario: Battle, recorder: Recorder) -> OneStep[Fought]:
        """The seven steps as one step (see :func:`play_battle`); a summing recorder plays
        for the outcome alone, without the battle log."""
        from fracas.rulesets.d100.play import play_battle, sampling_outcomes

        if recorder.keeps:
            return OneStep(lambda dice: play_battle(scenario, dice))
        outcomes = sampling_outcomes(scenario)

        def outcome(dice: Dice) -> Fought:
            winner, result, rounds, pax, fates, value = outcomes(dice)
            return (winner, result, rounds, tuple(pax), fates, value)

        return OneStep(outcome)

    def report(self, scenario: Battle, played: Played[Done[Fought]]) -> Report:
        """The battle log, step by step, with every roll and its named bonuses."""
        from fracas.rulesets.d100.report import build_report

        return build_report(scenario, cast("BattleResult", played.state.result), self.name)

    def metrics(self, scenario: Battle, state: Done[Fought]) -> Summary:
        """``winner``, ``rounds``, ``pax.<unit>``, ``fate.<unit>`` and ``goods``."""
        from fracas.rulesets.d100.report import name_of_winner

        fought = state.result
        if isinstance(fought, tuple):
            winner, result, rounds, pax, fates, value = fought
        else:
            winner, result, rounds = fought.winner, fought.outcome, fought.rounds
            pax, fates, value = fought.pax, fought.fates, fought.goods_value
        outcome = (name_of_winner(scenario, winner, result), rounds, pax, fates, value)
        return _summary(_metric_names(scenario), *outcome)


#: What a played battle comes to: its full result (with a battle log), or the outcome alone
#: (winner, outcome, rounds, PAX and fate per unit, value of goods).
Fought = Any


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
