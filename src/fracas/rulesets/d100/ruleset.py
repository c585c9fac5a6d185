"""The :class:`D100Ruleset` class: metadata and hooks tying the d100 pieces together."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from itertools import chain
from typing import TYPE_CHECKING, ClassVar, cast

from fracas.core.dice import Dice
from fracas.core.headline import Headline
from fracas.core.record import SUMMING, Recorder
from fracas.core.report import Report
from fracas.rulesets.base import Ruleset, Summary, deferred
from fracas.rulesets.d100.odds import HEADLINES

if TYPE_CHECKING:  # the rules load with the first battle: listing rulesets needs none
    from fracas.rulesets.d100.document import D100Document
    from fracas.rulesets.d100.play import BattleProcess, BattleResult, State
    from fracas.rulesets.d100.scenario import Battle


class D100Ruleset(Ruleset["D100Document", "Battle", "BattleResult"]):
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
    document_model = deferred("fracas.rulesets.d100.document", "D100Document")
    params_model = deferred("fracas.rulesets.d100.params", "D100Params")

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
        from fracas.rulesets.d100.report import name_of_winner

        outcome = (
            name_of_winner(scenario, result.winner, result.outcome),
            result.rounds,
            result.pax,
            result.fates,
            result.goods_value,
        )
        return _summary(_metric_names(scenario), *outcome)

    def process(self, scenario: Battle, recorder: Recorder = SUMMING) -> BattleProcess:
        """The battle as steps over hashable states (see :class:`BattleProcess`)."""
        from fracas.rulesets.d100.play import BattleProcess

        return BattleProcess(scenario, recorder)

    def summarize_state(self, scenario: Battle, state: State) -> Summary:
        """:meth:`summarize` of a finished state of :meth:`process`."""
        return _state_summary(self.process(scenario), _metric_names(scenario), state)

    def sampler(self, scenario: Battle) -> Callable[[Dice], Summary]:
        """Plays of the battle's process without a log, die by die: each play is the
        battle ``resolve`` gives its seed, and each state's step, met once, is followed
        from then on (see :class:`BattleProcess`)."""
        from fracas.core.evaluate import run

        process = self.process(scenario)
        names = _metric_names(scenario)
        summaries: dict[State, Summary] = {}

        def sample(dice: Dice) -> Summary:
            state = run(process, dice)
            summary = summaries.get(state)
            if summary is None:
                if len(summaries) >= _SUMMARIES_KEPT:
                    summaries.clear()
                summary = summaries[state] = _state_summary(process, names, state)
            return summary

        return sample


#: Most summaries of final states a sampler keeps: a bound on memory.
_SUMMARIES_KEPT = 100_000


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
